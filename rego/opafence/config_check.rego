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
	some problem in _problems
}

_problems contains {"field": "mode", "problem": "must be enforce, monitor or strict"} if {
	not data.config.mode in settings.modes
	object.get(data.config, "mode", null) != null
}

_problems contains {"field": "unattended_ask", "problem": "must be block or allow"} if {
	not data.config.unattended_ask in {"block", "allow"}
	object.get(data.config, "unattended_ask", null) != null
}

_known_classes := {
	"READ", "LOCAL_WRITE", "DELETE", "EXECUTION", "COMMUNICATION", "EXTERNAL_WRITE", "FINANCIAL",
	"PERMISSION_CHANGE", "MEMORY_WRITE", "SELF_MODIFICATION", "UNKNOWN",
}

_problems contains {"field": concat("", ["tools.", name, ".classes"]), "problem": "must name risk classes opafence knows"} if {
	some name, mapping in data.config.tools
	some c in mapping.classes
	not c in _known_classes
}

_problems contains {"field": concat("", ["tools.", name, ".classes"]), "problem": "must not be empty"} if {
	some name, mapping in data.config.tools
	count(object.get(mapping, "classes", [])) == 0
}

_problems contains {"field": sprintf("overrides[%d].class", [i]), "problem": "must be a risk class or *"} if {
	some i, o in data.config.overrides
	not object.get(o, "class", "*") in (_known_classes | {"*"})
}

_problems contains {"field": sprintf("overrides[%d].verdict", [i]), "problem": "must be block, ask or allow"} if {
	some i, o in data.config.overrides
	not o.verdict in {"block", "ask", "allow"}
}
