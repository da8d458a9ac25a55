package org.acme.rules.external_email_test

import data.org.acme.rules.external_email

recipient(address, domain) := {"raw": address, "address": address, "domain": domain, "field": "to", "valid": true}

# Each case: the recipients opafence found, and the deny codes the rule must produce.
cases := [
	{"note": "colleague", "recipients": [recipient("bob@acme.example", "acme.example")], "want": set()},
	{"note": "sister domain", "recipients": [recipient("x@acme-corp.example", "acme-corp.example")], "want": set()},
	{"note": "subdomain", "recipients": [recipient("ops@eu.acme.example", "eu.acme.example")], "want": set()},
	{"note": "no mail at all", "recipients": [], "want": set()},
	{
		"note": "external recipient",
		"recipients": [recipient("eve@evil.example", "evil.example")],
		"want": {"ORG_EXTERNAL_EMAIL"},
	},
	{
		"note": "lookalike suffix is not a subdomain",
		"recipients": [recipient("a@notacme.example", "notacme.example")],
		"want": {"ORG_EXTERNAL_EMAIL"},
	},
	{
		"note": "one external among colleagues",
		"recipients": [recipient("bob@acme.example", "acme.example"), recipient("j@gmail.example", "gmail.example")],
		"want": {"ORG_EXTERNAL_EMAIL"},
	},
	{
		"note": "unreadable recipient",
		"recipients": [{"raw": "bob at acme", "address": "", "domain": "", "field": "to", "valid": false}],
		"want": {"ORG_EXTERNAL_EMAIL", "ORG_UNREADABLE_RECIPIENT"},
	},
]

test_cases if {
	failed := {case.note |
		some case in cases
		got := {r.code | some r in external_email.deny with input as {"facts": {"recipients": case.recipients}}}
		got != case.want
	}
	print("failed cases:", failed)
	count(failed) == 0
}

test_message_names_the_address if {
	r := recipient("eve@evil.example", "evil.example")
	msgs := {d.message | some d in external_email.deny with input as {"facts": {"recipients": [r]}}}
	msgs == {"ACME policy: agents may not send mail outside the company (eve@evil.example)."}
}
