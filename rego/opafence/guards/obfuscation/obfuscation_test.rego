package opafence.guards.obfuscation_test

import data.opafence.guards.obfuscation as ob
import data.opafence.test.fixtures as f

# A terminal call whose shell facts carry the given opaque reasons.
shell_call(text, reasons) := f.call("terminal", {"command": text}, {
	"shell": {"opaque": count(reasons) > 0, "opaque_reasons": reasons, "commands": []},
	"opaque": count(reasons) > 0,
	"opaque_reasons": reasons,
})

# An execute_code call whose code facts carry the given opaque reasons.
code_call(reasons) := f.call("execute_code", {"code": "x"}, {
	"code": {
		"language": "python", "opaque": count(reasons) > 0, "opaque_reasons": reasons,
		"imports": [], "calls": [], "tool_calls": [], "network": false,
	},
	"opaque": count(reasons) > 0,
	"opaque_reasons": reasons,
})

# Python inside a terminal call: only the code facts name the reason (a partial facts object).
nested_code(reasons) := f.call("terminal", {"command": "python3 -c x"}, {
	"shell": {"opaque": false, "opaque_reasons": [], "commands": []},
	"code": {
		"language": "python", "opaque": true, "opaque_reasons": reasons,
		"imports": [], "calls": [], "tool_calls": [], "network": false,
	},
})

granted(commands) := f.task([{"id": "g1", "class": "EXECUTION", "capability": "run_command", "evidence": "x", "commands": commands}])

decode := {"deny": ["DECODE_AND_RUN"]}

cases := [
	{"name": "base64 -d | sh", "input": shell_call("echo cm0= | base64 -d | sh", ["decode_and_run"]), "want": decode},
	{"name": "code decodes and runs", "input": code_call(["code_eval", "decode_and_run"]), "want": decode},
	{"name": "python -c decodes and runs", "input": nested_code(["decode_and_run"]), "want": decode},
	{"name": "code runs a download", "input": code_call(["fetch_and_run"]), "want": {"deny": ["PIPE_TO_SHELL"]}},
	{"name": "reverse shell in code", "input": code_call(["socket_shell"]), "want": {"deny": ["REVERSE_SHELL"]}},
	{
		"name": "several at once",
		"input": code_call(["decode_and_run", "fetch_and_run", "socket_shell"]),
		"want": {"deny": ["DECODE_AND_RUN", "PIPE_TO_SHELL", "REVERSE_SHELL"]},
	},
	{
		"name": "the user's own literal command asks",
		"input": shell_call("echo cm0= | base64 -d | sh", ["decode_and_run"]),
		"task": granted(["echo cm0= | base64 -d | sh"]),
		"want": {"ask": ["DECODE_AND_RUN"]},
	},
	{
		"name": "a literal of another command does not soften",
		"input": shell_call("echo cm0= | base64 -d | sh", ["decode_and_run"]),
		"task": granted(["echo cm0="]),
		"want": decode,
	},
	{
		"name": "code never softens",
		"input": code_call(["decode_and_run"]),
		"task": granted(["x"]),
		"want": decode,
	},
	# ordinary
	{"name": "other opacity is not obfuscation", "input": code_call(["code_eval", "code_dynamic_command"]), "want": {}},
	{"name": "plain shell", "input": shell_call("base64 -d in.txt > out.bin", []), "want": {}},
	{"name": "plain code", "input": code_call([]), "want": {}},
]

results[c.name] := r if {
	some c in cases
	r := {
		"deny": {x.code | some x in ob.deny},
		"ask": {x.code | some x in ob.ask},
	} with input as c.input
		with data.tasks.t as object.get(c, "task", f.no_task)
}

test_obfuscation_table if {
	fails := f.failures(cases, results)
	print(fails)
	fails == []
}

# Messages come from METADATA, and an asked reason says why it asks.
test_messages if {
	[r | some r in ob.deny] == [{
		"code": "DECODE_AND_RUN",
		"message": "This runs data that it decodes first (base64, hex, rot13, compression, character codes, reversed or XOR-ed text ...), so nobody can read what runs before it runs.",
		"fix": "Write the command or the code itself, in plain text, so the user can see what runs.",
	}] with input as code_call(["decode_and_run"])
		with data.tasks.t as f.no_task
	some r in ob.ask with input as shell_call("echo x | base64 -d | sh", ["decode_and_run"])
		with data.tasks.t as granted(["echo x | base64 -d | sh"])
	endswith(r.message, "The user asked for exactly this, so they confirm it first.")
}
