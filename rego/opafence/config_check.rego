# METADATA
# title: Configuration check
# description: |
#   data.config is validated by the bridge before it is pushed; this is the second line:
#   a malformed configuration blocks every call, in every mode, and names the bad field.
# schemas:
#   - data.config: schema.config
package opafence.config_check

import data.opafence.lib.reason
import data.opafence.settings

# METADATA
# title: CONFIG_INVALID
# description: "The opafence configuration is invalid: {{.field}} {{.problem}}."
# custom:
#   code: CONFIG_INVALID
#   fix: Correct {{.field}} in the opafence config file and restart Hermes.
deny contains object.union(reason.render(rego.metadata.rule(), problem), {"always": true}) if {
	some problem in problems
}

problems contains {"field": "mode", "problem": "must be enforce, monitor or strict"} if {
	not data.config.mode in settings.modes
	object.get(data.config, "mode", null) != null
}

problems contains {"field": "unattended_ask", "problem": "must be block or allow"} if {
	not data.config.unattended_ask in {"block", "allow"}
	object.get(data.config, "unattended_ask", null) != null
}
