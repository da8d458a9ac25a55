package opafence.budget.delegation_test

import data.opafence
import data.opafence.budget.delegation

limits := {"short_window_minutes": 10, "short_max": 3, "long_window_minutes": 240, "long_max": 5}

session(launching, short, long) := {"delegation": {"launching": launching, "short": short, "long": long}}

codes(rs) := [r.code | some r in rs]

# Each case: the counts Python supplied, the limits, and the windows that ask.
cases := [
	{"session": session(1, 0, 0), "limits": limits, "want": set()},
	{"session": session(3, 0, 0), "limits": limits, "want": set()}, # exactly the limit
	{"session": session(1, 3, 3), "limits": limits, "want": {"short"}},
	{"session": session(4, 0, 0), "limits": limits, "want": {"short"}}, # one batch of four children
	{"session": session(1, 1, 5), "limits": limits, "want": {"long"}},
	{"session": session(2, 2, 4), "limits": limits, "want": {"short", "long"}},
	{"session": session(0, 9, 9), "limits": limits, "want": set()}, # launches nothing
	{"session": session(1, 9, 9), "limits": object.union(limits, {"short_max": null, "long_max": null}), "want": set()},
	{"session": session(1, 0, 0), "limits": object.union(limits, {"short_max": 0}), "want": {"short"}},
	{"session": {}, "limits": limits, "want": set()}, # not a launch
]

asked_windows(case) := {w |
	some r in delegation.ask with input.session as case.session with data.config.budgets.delegation as case.limits
	some w in ["short", "long"]
	contains(r.fix, concat("", ["budgets.delegation.", w, "_max"]))
}

test_cases if {
	every case in cases {
		asked_windows(case) == case.want
	}
}

test_limit_message if {
	rs := delegation.ask with input.session as session(2, 3, 0) with data.config.budgets.delegation as limits
	rs == {{
		"code": "DELEGATION_LIMIT",
		"message": concat("", [
			"This launches 2 sub-agent(s); 3 were already launched by this task in the last 10 minutes ",
			"of its active time, and the limit is 3.",
		]),
		"fix": concat("", [
			"Approve it if this many helpers are expected, or raise budgets.delegation.short_max ",
			"in the opafence config.",
		]),
	}}
}

test_fail_unreadable_counts_block if {
	s := {"delegation": {"launching": 1, "short": 0, "long": 0, "error": "delegations.json is not JSON"}}
	rs := delegation.deny with input.session as s with data.config.budgets.delegation as limits
	codes(rs) == ["DELEGATION_STATE"]
}

test_success_no_error_no_deny if {
	count(delegation.deny) == 0 with input.session as session(1, 0, 0)
}

# Through the decision: the limit asks (source budget); where nobody can answer, it blocks.
task := {
	"schema_version": 1, "task": "t", "revision": 1, "compiled_by": "fallback", "read_only": false,
	"grants": [], "prohibitions": [], "bounds": {}, "budgets": {},
}

inp(host) := {
	"task": "t",
	"call": {"tool": "delegate_task", "args": {"goal": "x"}, "id": "c1"},
	"facts": {},
	"session": session(1, 3, 0),
	"host": host,
}

test_decision_asks_with_a_budget_reason if {
	d := opafence.decision with input as inp({"auto_approve": false})
		with data.tasks.t as task
		with data.config.budgets.delegation as limits
	d.verdict == "ask"
	some r in d.reasons
	r.code == "DELEGATION_LIMIT"
	r.source == "budget"
}

test_decision_blocks_when_nobody_can_answer if {
	d := opafence.decision with input as inp({"auto_approve": true})
		with data.tasks.t as task
		with data.config.budgets.delegation as limits
	d.verdict == "block"
	"DELEGATION_LIMIT" in codes(d.reasons)
}

test_decision_blocks_on_unreadable_counts if {
	s := {"delegation": {"launching": 1, "short": 0, "long": 0, "error": "bad file"}}
	d := opafence.decision with input as object.union(inp({"auto_approve": false}), {"session": s})
		with data.tasks.t as task
		with data.config.budgets.delegation as limits
	d.verdict == "block"
	"DELEGATION_STATE" in codes(d.reasons)
}
