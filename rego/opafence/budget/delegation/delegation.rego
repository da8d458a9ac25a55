# METADATA
# title: Delegation limits
# description: |
#   Launches of sub-agents, counted per task tree (a sub-agent's launches count for the task
#   of the session that started it) in a short and a long window of the task's active time.
#   Python counts and supplies input.session.delegation on calls that launch sub-agents
#   (a batch counts each child); the limits come from data.config.budgets.delegation.
#   Over a limit the user is asked (where nobody can answer, the decision blocks).
# schemas:
#   - input: schema.input
#   - data.config: schema.config
package opafence.budget.delegation

import data.opafence.lib.reason

_limits := data.config.budgets.delegation

_launching := input.session.delegation.launching

# METADATA
# title: windows
# description: Each configured window with its limit and the launches already counted in it.
_windows contains {"name": "short", "count": input.session.delegation.short, "max": _limits.short_max, "minutes": _limits.short_window_minutes} if {
	is_number(_limits.short_max)
}

_windows contains {"name": "long", "count": input.session.delegation.long, "max": _limits.long_max, "minutes": _limits.long_window_minutes} if {
	is_number(_limits.long_max)
}

# METADATA
# title: DELEGATION_LIMIT
# description: >-
#   This launches {{.launching}} sub-agent(s); {{.count}} were already launched by this task in
#   the last {{.minutes}} minutes of its active time, and the limit is {{.max}}.
# custom:
#   code: DELEGATION_LIMIT
#   fix: >-
#     Approve it if this many helpers are expected, or raise
#     budgets.delegation.{{.name}}_max in the opafence config.
ask contains reason.render(rego.metadata.rule(), vars) if {
	_launching > 0
	some w in _windows
	w.count + _launching > w.max
	vars := object.union(w, {"launching": _launching})
}

# METADATA
# title: DELEGATION_STATE
# description: "opafence cannot count this task's sub-agent launches ({{.error}}), so it launches none."
# custom:
#   code: DELEGATION_STATE
#   fix: >-
#     Check the file named in the message (in the opafence state directory); moving it aside
#     resets the counts.
deny contains reason.render(rego.metadata.rule(), {"error": input.session.delegation.error}) if {
	input.session.delegation.error != ""
}
