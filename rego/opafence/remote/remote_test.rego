package opafence.remote_test

import data.opafence.remote
import data.opafence.testing as t

write_call(host_id) := {
	"task": concat(":", [host_id, "s1"]),
	"call": {"tool": "write_file", "args": {"path": "/ws/notes.md", "content": "x"}, "id": "c1"},
	"facts": t.facts({
		"tool": {"name": "write_file", "origin": "builtin"},
		"paths": [{"raw": "notes.md", "path": "/ws/notes.md", "arg": "path", "via": "arg", "op": ""}],
		"content_bytes": 1,
	}),
	"session": t.session,
	"host": object.union(t.host, {"id": host_id}),
}

hosts := {
	"a": {"config": {"mode": "monitor"}},
	"b": {"config": {"mode": "enforce"}},
}

cases := [
	# Each host is judged under its own configuration, whatever data.config says.
	{"host": "a", "config": {}, "verdict": "allow", "monitor": true},
	{"host": "b", "config": {"mode": "monitor"}, "verdict": "ask", "monitor": false},
	# A host that never pushed a configuration gets the defaults, not data.config.
	{"host": "c", "config": {"mode": "monitor"}, "verdict": "ask", "monitor": false},
]

test_each_host_its_own_config if {
	every c in cases {
		d := remote.decision with input as write_call(c.host)
			with data.hosts as hosts
			with data.config as c.config
			with data.tasks as {}
		d.verdict == c.verdict
		d.monitor != null == c.monitor
	}
}

test_host_config_defaults_to_empty if {
	cfg := remote._host_config with input as write_call("nobody") with data.hosts as hosts
	cfg == {}
}

test_spend_uses_host_budgets if {
	spend_input := {
		"model": {"name": "m", "priced": true, "input": 1, "output": 1},
		"estimate": 5000000000,
		"tokens": {"input": 1, "output": 1},
		"ledger": {"day": "2026-12-02", "spent": 0, "reserved": 0, "minute": 0, "unpriced_calls": 0},
		"host": {"platform": "cli", "subagent": false, "id": "a"},
	}
	capped := {"a": {"config": {"budgets": {"daily_hard_cents": 1}}}}
	d := remote.spend with input as spend_input with data.hosts as capped with data.config as {}
	d.verdict == "block"
	free := remote.spend with input as spend_input with data.hosts as {} with data.config as {}
	free.verdict == "allow"
}
