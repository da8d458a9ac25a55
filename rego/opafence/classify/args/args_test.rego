package opafence.classify.args_test

import data.opafence
import data.opafence.classify
import data.opafence.classify.args
import data.opafence.testing.call_input
import data.opafence.testing.command
import data.opafence.testing.path_fact
import data.opafence.testing.report
import data.opafence.testing.unattended_host

cmd_facts(argv) := {"shell": {"opaque": false, "opaque_reasons": [], "commands": [command(argv)]}}

no_shell := {"shell": {"opaque": false, "opaque_reasons": [], "commands": []}}

# Calls of built-in tools and the argument problems named in the UNKNOWN reason.
cases := [
	{"tool": "terminal", "args": {"command": "ls"}, "facts": cmd_facts(["ls"]), "whys": set()},
	{"tool": "terminal", "args": {"command": "ls", "workdir": "/ws", "timeout": 5}, "facts": cmd_facts(["ls"]), "whys": set()},
	{"tool": "terminal", "args": {"cmd": "ls"}, "facts": no_shell, "whys": {
		`terminal has no argument "cmd" (it takes: background, command, notify_on_complete, pty, timeout, watch_patterns, workdir)`,
		`terminal needs the argument "command"`,
	}},
	{"tool": "read_file", "args": {"path": "a"}, "facts": {}, "whys": set()},
	{"tool": "read_file", "args": {"file": "a"}, "facts": {}, "whys": {
		`read_file has no argument "file" (it takes: limit, offset, path)`,
		`read_file needs the argument "path"`,
	}},
	{"tool": "read_file", "args": {"path": "a", "encoding": "latin1"}, "facts": {}, "whys": {`read_file has no argument "encoding" (it takes: limit, offset, path)`}},
	{"tool": "browser_back", "args": {"url": "https://x.example"}, "facts": {}, "whys": {`browser_back has no argument "url" (it takes: no arguments)`}},
	# Hermes' handler supplies these when they are left out (patch mode "replace", memory target "memory")
	{"tool": "patch", "args": {"path": "a.py", "old_string": "a", "new_string": "b"}, "facts": {}, "whys": set()},
	{"tool": "memory", "args": {"action": "add", "content": "x"}, "facts": {}, "whys": set()},
	# not a built-in: nothing to compare against
	{"tool": "mcp__gmail__send_email", "args": {"anything": 1}, "facts": {}, "whys": set()},
	{"tool": "mystery_tool", "args": {"x": 1}, "facts": {}, "whys": set()},
]

test_argument_table if {
	bad := [{"tool": row.tool, "args": row.args, "got": got, "want": row.whys} |
		some row in cases
		got := args.whys with input as call_input(row.tool, row.args, row.facts)
		got != row.whys
	]
	report(bad)
	count(bad) == 0
}

test_fail_a_misspelled_key_is_never_read if {
	inp := call_input("read_file", {"file": "/etc/shadow"}, {})
	"UNKNOWN" in classify.classes with input as inp
	d := opafence.decision with input as inp with data.tasks.t as {}
	d.verdict == "ask"
	some r in d.reasons
	r.code == "UNKNOWN_ARGUMENTS"
	contains(r.message, `read_file has no argument "file"`)
}

test_fail_blocks_where_nobody_can_answer if {
	inp := object.union(call_input("terminal", {"cmd": "ls"}, no_shell), {"host": unattended_host})
	d := opafence.decision with input as inp with data.tasks.t as {}
	d.verdict == "block"
	codes := {r.code | some r in d.reasons}
	{"NOBODY_TO_ASK", "UNKNOWN_ARGUMENTS"} == codes & {"NOBODY_TO_ASK", "UNKNOWN_ARGUMENTS"}
}

test_fail_strict_mode_blocks if {
	inp := call_input("read_file", {"file": "a"}, {})
	d := opafence.decision with input as inp with data.tasks.t as {} with data.config.mode as "strict"
	d.verdict == "block"
	some r in d.reasons
	r.code == "UNKNOWN_ARGUMENTS"
}

test_success_a_well_formed_read_allows if {
	d := opafence.decision with input as call_input("read_file", {"path": "/ws/a"}, {}) with data.tasks.t as {}
	d.verdict == "allow"
}

test_a_mapped_tool_is_classified_by_its_mapping if {
	classify.classes == {"READ"} with input as call_input("read_file", {"file": "a"}, {})
		with data.config.tools as {"read_file": {"classes": ["READ"]}}
}

test_every_argument_table_tool_is_a_builtin if {
	extra := {t | some t, _ in data.opafence.classify.args.tool_args} - {t | some t, _ in classify.builtin_tools}
	report(extra)
	count(extra) == 0
}

# The fast tier answers clean workspace reads without the full policy: a bad key is never one.
test_fail_the_fast_tier_does_not_take_a_bad_key if {
	inp := call_input("read_file", {"path": "/ws/a.md", "encoding": "x"}, {"paths": [path_fact("/ws/a.md", "path", "arg", "")]})
	d := opafence.decision with input as inp with data.tasks.t as {}
	d.verdict == "ask"
}

test_success_the_fast_tier_still_takes_a_clean_read if {
	inp := call_input("read_file", {"path": "/ws/a.md"}, {"paths": [path_fact("/ws/a.md", "path", "arg", "")]})
	d := opafence.decision with input as inp with data.tasks.t as {}
	d.verdict == "allow"
}
