package opafence_test

import data.opafence

read_call := {"tool": "read_file", "args": {"path": "/ws/a"}, "id": "c1"}

unknown_call := {"tool": "mystery_tool", "args": {}, "id": "c2"}

attended := {"auto_approve": false, "interactive": true, "platform": "cli"}

unattended := {"auto_approve": true, "interactive": false, "platform": "cron"}

task := {
	"schema_version": 1, "task": "t", "revision": 1, "compiled_by": "fallback", "read_only": false,
	"grants": [], "prohibitions": [], "bounds": {}, "budgets": {},
}

inp(call, host) := {"task": "t", "call": call, "facts": {}, "session": {}, "host": host}

test_success_read_allows if {
	d := opafence.decision with input as inp(read_call, attended) with data.tasks.t as task
	d == {"verdict": "allow", "reasons": [], "classes": ["READ"], "monitor": null, "grants": [], "ingests": []}
}

test_success_web_page_is_reported_as_ingested if {
	call := {"tool": "web_extract", "args": {"urls": ["https://a.example/x"]}, "id": "c3"}
	d := opafence.decision with input as inp(call, attended) with data.tasks.t as task
	d.verdict == "allow"
	d.ingests == ["web"]
}

test_unknown_asks_when_attended if {
	d := opafence.decision with input as inp(unknown_call, attended) with data.tasks.t as task
	d.verdict == "ask"
	d.reasons[0].code == "UNKNOWN_TOOL"
	d.reasons[0].source == "task"
}

test_fail_unknown_blocks_when_nobody_can_answer if {
	d := opafence.decision with input as inp(unknown_call, unattended) with data.tasks.t as task
	d.verdict == "block"
	[r.code | some r in d.reasons] == ["NOBODY_TO_ASK", "UNKNOWN_TOOL"]
}

test_fail_missing_auto_approve_counts_as_unattended if {
	d := opafence.decision with input as inp(unknown_call, {}) with data.tasks.t as task
	d.verdict == "block"
}

test_unattended_ask_allowed_by_config if {
	d := opafence.decision with input as inp(unknown_call, unattended)
		with data.tasks.t as task
		with data.config as {"unattended_ask": "allow"}
	d.verdict == "ask"
}

test_fail_strict_mode_blocks_unknown if {
	d := opafence.decision with input as inp(unknown_call, attended)
		with data.tasks.t as task
		with data.config as {"mode": "strict"}
	d.verdict == "block"
	d.reasons[0].code == "UNKNOWN_TOOL"
}

test_fail_org_deny_blocks_a_read if {
	d := opafence.decision with input as inp(read_call, attended)
		with data.tasks.t as task
		with data.org.agent.deny as {{"code": "ORG_NO_READ", "message": "no reading here"}}
	d.verdict == "block"
	d.reasons == [{"code": "ORG_NO_READ", "message": "no reading here", "source": "org"}]
}

test_org_ask_asks if {
	d := opafence.decision with input as inp(read_call, attended)
		with data.tasks.t as task
		with data.org.agent.ask as {{"code": "ORG_CHECK", "message": "check"}}
	d.verdict == "ask"
	d.reasons[0].source == "org"
}

test_fail_malformed_org_reason_blocks if {
	d := opafence.decision with input as inp(read_call, attended)
		with data.tasks.t as task
		with data.org.agent.ask as {"not a reason"}
	d.verdict == "block"
	d.reasons[0].code == "ORG_BAD_REASON"
}

test_block_beats_ask if {
	d := opafence.decision with input as inp(unknown_call, attended)
		with data.tasks.t as task
		with data.org.agent.deny as {{"code": "ORG_X", "message": "x"}}
	d.verdict == "block"
	[r.code | some r in d.reasons] == ["ORG_X"]
}

test_monitor_allows_and_records if {
	d := opafence.decision with input as inp(unknown_call, unattended)
		with data.tasks.t as task
		with data.config as {"mode": "monitor"}
	d.verdict == "allow"
	d.reasons == []
	d.monitor.would == "block"
	count(d.monitor.reasons) == 2
}

test_fail_monitor_still_blocks_always_reasons if {
	d := opafence.decision with input as inp(read_call, attended)
		with data.tasks.t as task
		with data.config as {"mode": "monitor"}
		with data.opafence.guards.test_guard.deny as {{"code": "SELF", "message": "m", "always": true}}
	d.verdict == "block"
	d.reasons[0].code == "SELF"
	d.monitor.would == "block"
}

test_fail_invalid_config_blocks_everything if {
	d := opafence.decision with input as inp(read_call, attended)
		with data.tasks.t as task
		with data.config as {"mode": "lenient"}
	d.verdict == "block"
	d.reasons[0].code == "CONFIG_INVALID"
	contains(d.reasons[0].message, "mode")
}

test_fail_invalid_unattended_setting_blocks if {
	d := opafence.decision with input as inp(read_call, attended)
		with data.tasks.t as task
		with data.config as {"unattended_ask": "sometimes"}
	d.verdict == "block"
	d.reasons[0].code == "CONFIG_INVALID"
}

test_fail_no_classes_is_not_proven if {
	d := opafence.decision with input as inp(read_call, attended)
		with data.tasks.t as task
		with data.opafence.classify.classes as set()
	d.verdict == "block"
	d.reasons[0].code == "NOT_PROVEN"
}

test_fail_blocking_class_blocks if {
	d := opafence.decision with input as inp(read_call, attended)
		with data.tasks.t as task
		with data.opafence.classify.classes as {"DELETE"}
	d.verdict == "block"
	d.reasons[0].code == "NOT_AUTHORIZED"
}

test_other_class_asks if {
	d := opafence.decision with input as inp(read_call, attended)
		with data.tasks.t as task
		with data.opafence.classify.classes as {"COMMUNICATION"}
	d.verdict == "ask"
	contains(d.reasons[0].message, "COMMUNICATION")
}

test_grants_used_are_reported_and_not_for_blocks if {
	granted := object.union(task, {"grants": [{"id": "g7", "class": "COMMUNICATION", "capability": "send", "recipients": ["a@b.co"], "evidence": "email a@b.co"}]})
	call := {"tool": "mcp__gmail__send_email", "args": {"to": ["a@b.co"]}, "id": "c"}
	facts := {
		"tool": {"name": "mcp__gmail__send_email", "origin": "mcp", "mcp": {"server": "gmail", "name": "send_email", "words": ["send", "email"]}},
		"recipients": [{"raw": "a@b.co", "address": "a@b.co", "local": "a", "domain": "b.co", "field": "to", "valid": true, "mixed_script": false, "confusable": false}],
	}
	d := opafence.decision with input as object.union(inp(call, attended), {"facts": facts}) with data.tasks.t as granted
	d.verdict == "allow"
	d.grants == ["g7"]
	b := opafence.decision with input as object.union(inp(call, attended), {"facts": facts})
		with data.tasks.t as granted
		with data.org.agent.deny as {{"code": "ORG", "message": "no"}}
	b.grants == []
}

test_fail_org_bundle_with_roots_outside_org_blocks_even_in_monitor_mode if {
	d := opafence.decision with input as inp(read_call, attended)
		with data.tasks.t as task
		with data.config as {"mode": "monitor"}
		with data.system.bundles as {"acme": {"manifest": {"roots": ["org", "tasks"]}}}
	d.verdict == "block"
	[[r.code, r.source] | some r in d.reasons] == [["ORG_BUNDLE_ROOTS", "org"]]
}

# Several org bundles at once: each owns org/agent/<name> (package org.agent.<name>), beside or
# instead of one bundle owning org/agent. Each case: data.org.agent, then the verdict and codes
# a read (allowed by opafence itself) gets.
acme_deny := {{"code": "ORG_ACME", "message": "acme says no"}}

beta_ask := {{"code": "ORG_BETA", "message": "beta wants a look"}}

org_cases := [
	{"note": "two bundles deny and ask", "agent": {"acme": {"deny": acme_deny}, "beta": {"ask": beta_ask}}, "want": ["block", ["ORG_ACME"]]},
	{"note": "two bundles ask", "agent": {"acme": {"ask": acme_deny}, "beta": {"ask": beta_ask}}, "want": ["ask", ["ORG_ACME", "ORG_BETA"]]},
	{"note": "two bundles deny", "agent": {"acme": {"deny": acme_deny}, "beta": {"deny": beta_ask}}, "want": ["block", ["ORG_ACME", "ORG_BETA"]]},
	{"note": "one owning org/agent", "agent": {"deny": acme_deny}, "want": ["block", ["ORG_ACME"]]},
	{"note": "an array of reasons", "agent": {"acme": {"deny": [{"code": "ORG_A", "message": "a"}]}}, "want": ["block", ["ORG_A"]]},
	{"note": "empty sets", "agent": {"acme": {"deny": set(), "ask": set()}}, "want": ["allow", []]},
	{"note": "helpers only", "agent": {"acme": {"lib": {"deny": acme_deny}, "limit": 3}}, "want": ["allow", []]},
	{"note": "a value, not a package", "agent": {"version": 3, "acme": "x"}, "want": ["allow", []]},
	{"note": "malformed reason", "agent": {"acme": {"deny": acme_deny}, "beta": {"ask": {"no code"}}}, "want": ["block", ["ORG_ACME", "ORG_BAD_REASON"]]},
	{"note": "empty message", "agent": {"beta": {"deny": {{"code": "ORG_B", "message": ""}}}}, "want": ["block", ["ORG_BAD_REASON"]]},
	{"note": "deny is true", "agent": {"acme": {"deny": true}}, "want": ["block", ["ORG_BAD_REASON"]]},
	{"note": "ask is a string", "agent": {"acme": {"ask": "ORG_X"}}, "want": ["block", ["ORG_BAD_REASON"]]},
	{"note": "deny is one object", "agent": {"acme": {"deny": {"code": "ORG_X", "message": "x"}}}, "want": ["block", ["ORG_BAD_REASON"]]},
	{"note": "top-level deny is true", "agent": {"deny": true}, "want": ["block", ["ORG_BAD_REASON"]]},
	{"note": "org.agent is not a package", "agent": true, "want": ["block", ["ORG_BAD_REASON"]]},
]

test_org_bundles_merge_and_malformed_ones_block if {
	failed := {[case.note, got] |
		some case in org_cases
		d := opafence.decision with input as inp(read_call, attended)
			with data.tasks.t as task
			with data.org.agent as case.agent
		got := [d.verdict, sort([r.code | some r in d.reasons; r.source == "org"])]
		got != case.want
	}
	print("failed cases:", failed)
	count(failed) == 0
}

test_fail_org_reasons_from_any_bundle_stay_in_monitor_records if {
	d := opafence.decision with input as inp(read_call, attended)
		with data.tasks.t as task
		with data.config as {"mode": "monitor"}
		with data.org.agent as {"acme": {"deny": acme_deny}}
	d.verdict == "allow"
	d.monitor.would == "block"
	[r.code | some r in d.monitor.reasons] == ["ORG_ACME"]
}
