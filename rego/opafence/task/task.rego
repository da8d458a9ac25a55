# METADATA
# title: Task policy
# description: |
#   Judges a call against the TaskPolicy in data.tasks[input.task]. Foundation version: reads
#   are authorized; unauthorized classes ask or block as DESIGN.md says. The task-policy issue
#   adds grants, bounds, prohibitions and budgets.
# schemas:
#   - input: schema.input
#   - data.tasks: schema.tasks
package opafence.task

import data.opafence.classify
import data.opafence.lib.reason
import data.opafence.settings

blocking_classes := {"DELETE", "FINANCIAL", "PERMISSION_CHANGE", "SELF_MODIFICATION"}

# METADATA
# title: authorized
# description: Classes this call may exercise without asking.
authorized contains "READ"

unauthorized contains c if {
	some c in classify.classes
	not c in authorized
}

# METADATA
# title: UNAUTHORIZED_BLOCKING
# description: "The task does not authorize {{.class}}, and that kind of action is never approved on the fly."
# custom:
#   code: NOT_AUTHORIZED
#   fix: Ask the user to request this action in their own words.
deny contains reason.render(rego.metadata.rule(), {"class": c}) if {
	some c in unauthorized
	c in blocking_classes
}

# METADATA
# title: UNKNOWN_STRICT
# description: This tool is not classified, and strict mode blocks unclassified tools.
# custom:
#   code: UNKNOWN_TOOL
#   fix: Map the tool in config.tools.
deny contains reason.make(rego.metadata.rule()) if {
	"UNKNOWN" in unauthorized
	settings.mode == "strict"
}

# METADATA
# title: UNKNOWN_ASK
# description: This tool is not classified, so the user is asked before it runs.
# custom:
#   code: UNKNOWN_TOOL
#   fix: Map the tool in config.tools.
ask contains reason.make(rego.metadata.rule()) if {
	"UNKNOWN" in unauthorized
	settings.mode != "strict"
}

# METADATA
# title: UNAUTHORIZED_ASK
# description: "The task does not authorize {{.class}}, so the user is asked first."
# custom:
#   code: NOT_AUTHORIZED
#   fix: Approve it, or ask for it in the task's own words.
ask contains reason.render(rego.metadata.rule(), {"class": c}) if {
	some c in unauthorized
	not c in blocking_classes
	c != "UNKNOWN"
}
