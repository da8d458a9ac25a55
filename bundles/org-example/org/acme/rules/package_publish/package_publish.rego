# METADATA
# title: Publishing packages needs a person
# description: |
#   Publishing to a public package registry (npm publish, twine upload, cargo publish, …)
#   is an ask: the user sees the exact command and approves it. Unattended runs (cron,
#   yolo) cannot answer, so opafence turns the ask into a block there.
package org.acme.rules.package_publish

import data.org.acme.lib.reason
import data.org.acme.settings

# METADATA
# title: ORG_PACKAGE_PUBLISH
# description: "ACME policy: `{{.tool}} {{.sub}}` publishes a package; a person must approve it."
# custom:
#   code: ORG_PACKAGE_PUBLISH
ask contains reason.render(rego.metadata.rule(), {"tool": c.name, "sub": sub}) if {
	some c in input.facts.shell.commands
	sub := c.operands[0]
	sub in settings.publish_commands[c.name]
}
