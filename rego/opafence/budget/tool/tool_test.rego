package opafence.budget.tool_test

import data.opafence
import data.opafence.budget.tool
import data.opafence.testing.call_input
import data.opafence.testing.grant
import data.opafence.testing.mcp_input
import data.opafence.testing.path_fact
import data.opafence.testing.recipient
import data.opafence.testing.report
import data.opafence.testing.task

with_counters(inp, counters) := object.union(inp, {"session": {"counters": counters}})

read(p) := call_input("read_file", {"path": p}, {"paths": [path_fact(p, "path", "arg", "")]})

send := mcp_input("mcp__gmail__send_email", ["send", "email"], {"recipients": [recipient("john@example.com", "to")]})

send_grant := grant("g1", "COMMUNICATION", {"capability": "send", "recipients": ["john@example.com"], "max_calls": 2})

budgeted(b) := task([send_grant], [], {"budgets": b})

# counters, budgets, call -> deny / ask codes of this package
cases := [
	{"name": "under the call budget", "in": with_counters(read("/ws/a"), {"calls": 9}), "b": {"max_calls": 10}, "deny": set(), "ask": set()},
	{"name": "call budget used up", "in": with_counters(read("/ws/a"), {"calls": 10}), "b": {"max_calls": 10}, "deny": {"BUDGET_CALLS"}, "ask": set()},
	{"name": "no call budget", "in": with_counters(read("/ws/a"), {"calls": 10000}), "b": {"max_calls": null}, "deny": set(), "ask": set()},
	{"name": "external write budget", "in": with_counters(send, {"external_writes": 3}), "b": {"max_external_writes": 3}, "deny": {"BUDGET_EXTERNAL_WRITES"}, "ask": set()},
	{"name": "external write budget of zero", "in": send, "b": {"max_external_writes": 0}, "deny": {"BUDGET_EXTERNAL_WRITES"}, "ask": set()},
	{"name": "reads are not external writes", "in": with_counters(read("/ws/a"), {"external_writes": 3}), "b": {"max_external_writes": 3}, "deny": set(), "ask": set()},
	{"name": "file budget reached", "in": with_counters(read("/ws/a"), {"distinct_files": 5}), "b": {"max_distinct_files": 5}, "deny": set(), "ask": {"BUDGET_FILES"}},
	{"name": "file budget not reached", "in": with_counters(read("/ws/a"), {"distinct_files": 4}), "b": {"max_distinct_files": 5}, "deny": set(), "ask": set()},
	{"name": "file budget, call names no file", "in": with_counters(call_input("web_search", {"query": "x"}, {}), {"distinct_files": 9}), "b": {"max_distinct_files": 5}, "deny": set(), "ask": set()},
	{"name": "grant budget left", "in": with_counters(send, {"by_grant": {"g1": 1}}), "b": {}, "deny": set(), "ask": set()},
	{"name": "grant budget spent", "in": with_counters(send, {"by_grant": {"g1": 2}}), "b": {}, "deny": set(), "ask": {"GRANT_BUDGET_SPENT"}},
]

test_budget_table if {
	bad := [{"name": row.name, "deny": d, "ask": a} |
		some row in cases
		d := {r.code | some r in tool.deny} with input as row.in with data.tasks.t as budgeted(row.b)
		a := {r.code | some r in tool.ask} with input as row.in with data.tasks.t as budgeted(row.b)
		[d, a] != [row.deny, row.ask]
	]
	report(bad)
	count(bad) == 0
}

test_budget_reasons_in_the_decision if {
	d := opafence.decision with input as with_counters(read("/ws/a"), {"calls": 10}) with data.tasks.t as budgeted({"max_calls": 10})
	d.verdict == "block"
	d.reasons == [{
		"code": "BUDGET_CALLS", "source": "budget",
		"message": "This task has used all 10 tool calls its budget allows.",
		"fix": "Start a new task, or raise the call budget in the opafence config.",
	}]
}

test_spent_grant_asks_with_its_evidence if {
	d := opafence.decision with input as with_counters(send, {"by_grant": {"g1": 2}}) with data.tasks.t as budgeted({})
	d.verdict == "ask"
	{[r.source, r.code] | some r in d.reasons} == {["budget", "GRANT_BUDGET_SPENT"], ["task", "NOT_AUTHORIZED"]}
	some r in d.reasons
	r.message == "The user allowed “the user asked g1” 2 times, and those are used up."
}
