# METADATA
# title: Per-task call budgets
# description: |
#   Budgets of the TaskPolicy (policy.budgets) against the session's counters: how many calls,
#   how many external writes (EXTERNAL_WRITE / COMMUNICATION / FINANCIAL) and how many distinct
#   files a task may use, and the per-grant max_calls. The counters count calls already made,
#   so this call is the (count + 1)-th.
# schemas:
#   - input: schema.input
package opafence.budget.tool

import data.opafence.classify
import data.opafence.lib.reason
import data.opafence.task

_budgets := object.get(task.policy, "budgets", {})

_counter(name) := n if {
	n := task.counters[name]
	is_number(n)
} else := 0

_limit(name) := n if {
	_budgeted
	n := _budgets[name]
	is_number(n)
}

# Most tasks have no budget: one check spares the rules below.
_budgeted if {
	some _, v in _budgets
	is_number(v)
}

_external_classes := {"EXTERNAL_WRITE", "COMMUNICATION", "FINANCIAL"}

# METADATA
# title: BUDGET_CALLS
# description: This task has used all {{.limit}} tool calls its budget allows.
# custom:
#   code: BUDGET_CALLS
#   fix: Start a new task, or raise the call budget in the opafence config.
deny contains reason.render(rego.metadata.rule(), {"limit": m}) if {
	m := _limit("max_calls")
	_counter("calls") >= m
}

# METADATA
# title: BUDGET_EXTERNAL_WRITES
# description: This task has used all {{.limit}} external writes its budget allows, and this call would be another.
# custom:
#   code: BUDGET_EXTERNAL_WRITES
#   fix: Start a new task, or raise max_external_writes in the opafence config.
deny contains reason.render(rego.metadata.rule(), {"limit": m}) if {
	m := _limit("max_external_writes")
	count(classify.classes & _external_classes) > 0
	_counter("external_writes") >= m
}

_call_files := {p.path |
	some p in input.facts.paths
	object.get(p, "path", "") != ""
}

# The counters do not say which files were seen, so a call naming files near the limit asks.
# METADATA
# title: BUDGET_FILES
# description: This task may touch {{.limit}} distinct files and has touched {{.used}}; this call names {{.more}} more.
# custom:
#   code: BUDGET_FILES
#   fix: Approve it if these files belong to the task, or start a new task.
ask contains reason.render(rego.metadata.rule(), {"limit": m, "used": used, "more": count(_call_files)}) if {
	m := _limit("max_distinct_files")
	used := _counter("distinct_files")
	count(_call_files) > 0
	used + count(_call_files) > m
}

# A class that only a spent grant would have covered.
_exhausted contains [c, g] if {
	some c in task.unauthorized
	count(task.spent) > 0
	acts := classify.actions_by_class[c]
	some g in task.grant_list
	g.id in task.spent
	every a in acts {
		task.covers(g, a, task.ctx)
	}
}

# METADATA
# title: GRANT_BUDGET_SPENT
# description: "The user allowed “{{.evidence}}” {{.limit}} times, and those are used up."
# custom:
#   code: GRANT_BUDGET_SPENT
#   fix: Approve it, or ask the user to allow more.
ask contains reason.render(rego.metadata.rule(), {"evidence": g.evidence, "limit": g.max_calls}) if {
	some [_, g] in _exhausted
}
