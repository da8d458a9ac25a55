# METADATA
# title: No email outside ACME
# description: |
#   Agents may only send, reply to or forward mail to ACME addresses. opafence gives every
#   recipient it finds in a call's arguments (to, cc, bcc, recipients, …) as
#   input.facts.recipients, with the domain lower-cased and IDNA-encoded.
package org.acme.rules.external_email

import data.org.acme.lib.reason
import data.org.acme.settings

# METADATA
# title: ORG_EXTERNAL_EMAIL
# description: "ACME policy: agents may not send mail outside the company ({{.address}})."
# custom:
#   code: ORG_EXTERNAL_EMAIL
deny contains reason.render(rego.metadata.rule(), {"address": r.address}) if {
	some r in input.facts.recipients
	not company_domain(r.domain)
}

# METADATA
# title: ORG_UNREADABLE_RECIPIENT
# description: "ACME policy: a recipient could not be read, so the message is not sent ({{.raw}})."
# custom:
#   code: ORG_UNREADABLE_RECIPIENT
deny contains reason.render(rego.metadata.rule(), {"raw": r.raw}) if {
	some r in input.facts.recipients
	r.valid == false
}

company_domain(domain) if domain in settings.company_domains

company_domain(domain) if {
	some company in settings.company_domains
	endswith(domain, concat("", [".", company]))
}
