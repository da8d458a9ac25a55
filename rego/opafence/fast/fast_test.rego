package opafence.fast_test

import data.opafence
import data.opafence.fast

# --- a plain session in /srv/app -----------------------------------------------------------------

host := {
	"auto_approve": false, "interactive": true, "platform": "cli", "home": "/home/dev",
	"hermes_home": "/home/dev/.hermes", "state_dir": "/home/dev/.hermes/opafence",
	"workspace": ["/srv/app"], "cwd": "/srv/app", "opa_socket": "/home/dev/.hermes/opafence/run/opa.sock",
	"package_dir": "/home/dev/.venv/lib/python3.11/site-packages/opafence", "other_homes": [],
	"opa_pids": [31337],
}

session := {
	"history": [], "counters": {"by_grant": {}},
	"taint": {"untrusted": false, "sources": [], "secret_read": false}, "subagent": false,
}

facts(ps) := {
	"tool": {"name": "x", "origin": "builtin"}, "paths": ps, "urls": [], "recipients": [], "secrets": [],
	"words": [], "content_bytes": 0, "opaque": false, "opaque_reasons": [],
}

arg_path(p) := {"raw": p, "path": p, "arg": "path", "via": "arg", "op": ""}

read(p) := {
	"task": "t1", "call": {"tool": "read_file", "args": {"path": p}, "id": "c"},
	"facts": facts([arg_path(p)]), "session": session, "host": host,
}

write(p) := {
	"task": "t1", "call": {"tool": "write_file", "args": {"path": p, "content": "x = 1\n"}, "id": "c"},
	"facts": facts([arg_path(p)]), "session": session, "host": host,
}

cmd(name, argv, operand_paths) := {
	"name": name, "argv": argv, "flags": [a | some a in argv; startswith(a, "-")],
	"operands": [a | some i, a in argv; i > 0; not startswith(a, "-")], "operand_paths": operand_paths,
	"env": {}, "redirects": [], "wrappers": [], "context": "top", "depth": 0, "pipe_from": "",
	"dynamic": false, "maybe_paths": [],
}

shell(command, commands) := {
	"task": "t1", "call": {"tool": "terminal", "args": {"command": command}, "id": "c"},
	"facts": object.union(facts([]), {"shell": {"opaque": false, "opaque_reasons": [], "commands": commands}}),
	"session": session, "host": host,
}

git_status := shell("git status && ls src", [
	cmd("git", ["git", "status"], ["/srv/app/status"]),
	cmd("ls", ["ls", "src"], ["/srv/app/src"]),
])

grant(fields) := object.union(
	{
		"id": "g1", "class": "LOCAL_WRITE", "capability": "edit", "tools": [], "recipients": [], "domains": [],
		"paths": [], "commands": [], "packages": [], "workspace": true, "evidence": "fix it", "message": 1,
		"max_calls": null, "literals": [], "objects": [], "operations": [], "access": "",
	},
	fields,
)

policy(grants) := {
	"schema_version": 1, "task": "t1", "revision": 1, "compiled_by": "rules", "read_only": false,
	"grants": grants, "prohibitions": [], "bounds": {"domains": [], "recipients": [], "paths": [], "write_paths": []},
	"budgets": {"max_calls": null, "max_external_writes": null, "max_distinct_files": null},
}

config := {
	"schema_version": 1, "mode": "enforce", "unattended_ask": "block", "tools": {}, "overrides": [],
	"protected_paths": [], "credential_paths": [], "trust_paths": [],
}

edit_task := policy([grant({})])

# Where the fast tier answers, it is the entrypoint's answer and the full policy's too.
answers(inp, tasks, cfg) := d if {
	d := fast.decision with input as inp with data.tasks as tasks with data.config as cfg
	d == opafence.full_decision with input as inp with data.tasks as tasks with data.config as cfg
	d == opafence.decision with input as inp with data.tasks as tasks with data.config as cfg
}

declines(inp, tasks, cfg) if {
	not fast.decision with input as inp with data.tasks as tasks with data.config as cfg
}

# --- what it answers ------------------------------------------------------------------------------

test_answers_the_common_calls if {
	every row in [
		[read("/srv/app/src/main.py"), {"t1": edit_task}, ["READ"], []],
		[read("/srv/app"), {}, ["READ"], []],
		[write("/srv/app/notes/today.md"), {"t1": edit_task}, ["LOCAL_WRITE"], ["g1"]],
		[write("/srv/app/src/a.py"), {"t1": policy([grant({"paths": ["/srv/app/src"], "tools": ["write_*"]})])}, ["LOCAL_WRITE"], ["g1"]],
		[git_status, {"t1": edit_task}, ["READ"], []],
	] {
		[inp, tasks, classes, grants] := row
		d := answers(inp, tasks, config)
		d.verdict == "allow"
		d.classes == classes
		d.grants == grants
	}
}

test_answers_a_patch_inside_the_workspace if {
	inp := object.union(object.remove(write("/srv/app/src/a.py"), {"call"}), {
		"call": {"tool": "patch", "args": {"mode": "patch", "patch": "..."}, "id": "c"},
		"facts": facts([{"raw": "src/a.py", "path": "/srv/app/src/a.py", "arg": "patch", "via": "patch", "op": "update"}]),
	})
	d := answers(inp, {"t1": edit_task}, config)
	d.grants == ["g1"]
}

test_answers_with_only_its_own_bundle if {
	bundles := {"opafence": {"manifest": {"roots": ["opafence"]}}}
	fast.decision with input as read("/srv/app/a.txt") with data.tasks as {} with data.config as config
		with data.system.bundles as bundles
}

# --- what it leaves to the full policy ------------------------------------------------------------

test_declines_paths_the_guards_name if {
	every p in [
		"/srv/app/.env", "/srv/app/prod.env", "/srv/app/id_rsa", "/srv/app/certs/server.pem", "/srv/app/lib/site-packages/x.py", "/srv/app/src/*.py", "/srv/elsewhere/a.txt",
		"/home/dev/.hermes/opafence/x", "relative/a.txt",
	] {
		declines(read(p), {}, config)
	}
}

test_declines_homes_and_system_places if {
	every row in [
		["/home/dev", "/home/dev/Library/Keychains/x"],
		["/home", "/home/bob/Library/x"],
		["/root", "/root/snap/x"],
		["/home/dev", "/home/dev"],
		["/", "/etc/shadow"],
		["/", "/var"],
		["/", "/etc"],
	] {
		[ws, p] := row
		inp := object.union(read(p), {"host": object.union(host, {"workspace": [ws]})})
		declines(inp, {}, config)
	}
}

test_declines_when_something_it_skips_applies if {
	every row in [
		[object.union(read("/srv/app/a.txt"), {"session": object.union(session, {"taint": {"untrusted": true, "sources": ["web"], "secret_read": false}})}), {}, config],
		[object.union(read("/srv/app/a.txt"), {"session": object.union(session, {"taint": {"untrusted": false, "sources": [], "secret_read": true}})}), {}, config],
		[object.union(read("/srv/app/a.txt"), {"facts": object.union(facts([arg_path("/srv/app/a.txt")]), {"provenance": {"matches": [1]}})}), {}, config],
		[object.union(read("/srv/app/a.txt"), {"session": object.union(session, {"delegation": {"launching": 1}})}), {}, config],
		[read("/srv/app/a.txt"), {}, object.union(config, {"mode": "monitor"})],
		[read("/srv/app/a.txt"), {}, object.union(config, {"mode": "bogus"})],
		[read("/srv/app/a.txt"), {}, object.union(config, {"overrides": [{"tool": "*", "verdict": "ask"}]})],
		[read("/srv/app/a.txt"), {}, object.union(config, {"tools": {"read_*": {"classes": ["READ"]}}})],
		[read("/srv/app/a.txt"), {}, object.union(config, {"tools": {"read_file": {"classes": ["READ"]}}})],
		[read("/srv/app/a.txt"), {"t1": object.union(edit_task, {"budgets": {"max_calls": 3}})}, config],
		[read("/srv/app/a.txt"), {"t1": object.union(edit_task, {"bounds": {"paths": ["/srv/app/src"]}})}, config],
		[read("/srv/app/a.txt"), {"t1": policy([grant({"class": "READ"})])}, config],
		[read("/srv/app/a.txt"), {"t1": object.union(edit_task, {"prohibitions": [{"classes": ["READ"], "keywords": ["x"], "evidence": "no", "egress": false}]})}, config],
		[read("/srv/app/a.txt"), {}, object.union(config, {"protected_paths": ["/srv/app"]})],
		[object.union(read("/srv/app/a.txt"), {"facts": object.union(facts([arg_path("/srv/app/a.txt")]), {"opaque": true})}), {}, config],
		[object.union(write("/srv/app/a.txt"), {"call": {"tool": "write_file", "args": {"path": "/srv/app/a.txt", "content": "/home/dev/.hermes/opafence/run"}, "id": "c"}}), {"t1": edit_task}, config],
	] {
		[inp, tasks, cfg] := row
		declines(inp, tasks, cfg)
	}
}

test_declines_org_rules_and_foreign_bundles if {
	not fast.decision with input as read("/srv/app/a.txt") with data.tasks as {} with data.config as config
		with data.org as {"agent": {"deny": []}}
	not fast.decision with input as read("/srv/app/a.txt") with data.tasks as {} with data.config as config
		with data.system.bundles as {"evil": {"manifest": {"roots": ["tasks"]}}}
}

test_declines_writes_no_plain_grant_covers if {
	every tasks in [
		{},
		{"t1": policy([grant({"paths": ["/srv/app/src"]})])},
		{"t1": policy([grant({"tools": ["patch"]})])},
		{"t1": policy([grant({"capability": "commit"})])},
		{"t1": policy([grant({}), grant({"id": "g2", "recipients": ["a@b.c"]})])},
		{"t1": policy([grant({"max_calls": 1})])},
		{"t1": object.union(edit_task, {"read_only": true})},
		{"t1": object.union(edit_task, {"prohibitions": [{"classes": ["*"], "keywords": ["x"], "evidence": "no", "egress": false}]})},
	] {
		inp := object.union(write("/srv/app/notes/a.md"), {"session": object.union(session, {"counters": {"by_grant": {"g1": 1}}})})
		declines(inp, tasks, config)
	}
}

test_reads_but_never_writes_instructions_and_build_files if {
	every p in ["/srv/app/AGENTS.md", "/srv/app/Makefile", "/srv/app/pyproject.toml"] {
		answers(read(p), {"t1": edit_task}, config)
		declines(write(p), {"t1": edit_task}, config)
	}
}

test_declines_writes_it_cannot_name if {
	every inp in [
		object.union(write("/srv/app/a.py"), {"call": {"tool": "write_file", "args": {"path": "/srv/app/a.py", "cross_profile": true}, "id": "c"}}),
		object.union(write("/srv/app/a.py"), {"facts": facts([])}),
		object.union(object.remove(write("/srv/app/a.py"), {"call"}), {
			"call": {"tool": "patch", "args": {"mode": "patch", "patch": "..."}, "id": "c"},
			"facts": facts([{"raw": "a.py", "path": "/srv/app/a.py", "arg": "patch", "via": "patch", "op": "delete"}]),
		}),
		object.union(read("/srv/app/a.py"), {"call": {"tool": "read_file", "args": {"path": "/srv/app/a.py", "mode": "x"}, "id": "c"}}),
		object.union(object.remove(read("/srv/app/a.py"), {"call"}), {"call": {"tool": "read_file", "args": {}, "id": "c"}}),
	] {
		declines(inp, {"t1": edit_task}, config)
	}
}

test_declines_shell_programs_that_are_more_than_reads if {
	every inp in [
		shell("git diff --output=x", [cmd("git", ["git", "diff", "--output=x"], ["/srv/app/x"])]),
		shell("git push", [cmd("git", ["git", "push"], ["/srv/app/push"])]),
		shell("pytest -q", [cmd("pytest", ["pytest", "-q"], [])]),
		shell("cat $HOME/a", [cmd("cat", ["cat", "$HOME/a"], ["/home/dev/a"])]),
		shell("cat a > b", [object.union(cmd("cat", ["cat", "a"], ["/srv/app/a"]), {"redirects": [{"op": ">", "mode": "write", "path": "/srv/app/b"}]})]),
		shell("echo if=x", [cmd("echo", ["echo", "if=x"], ["/srv/app/if=x"])]),
		shell("ls 31337", [cmd("ls", ["ls", "31337"], ["/srv/app/31337"])]),
		shell("ls", []),
		object.union(git_status, {"call": {"tool": "terminal", "args": {"command": "git status && ls src", "workdir": "/tmp"}, "id": "c"}}),
		object.union(git_status, {"host": object.union(host, {"cwd": "/tmp"})}),
	] {
		declines(inp, {"t1": edit_task}, config)
	}
}

# "Don't run any commands" forbids a read-only command too: the full policy blocks it.
test_declines_shell_reads_when_commands_are_forbidden if {
	no_commands := object.union(edit_task, {"prohibitions": [{"classes": ["EXECUTION"], "keywords": [], "evidence": "don't run any commands", "egress": false}]})
	declines(git_status, {"t1": no_commands}, config)
}

# --- the gate: the cheap lookups before the conditions ----------------------------------------------

src_task := {"t1": policy([grant({"paths": ["/srv/app/src"]})])}

# Every call the fast tier answers passes the gate (it is implied by every answer) ...
test_every_answer_passes_the_gate if {
	every row in [
		[read("/srv/app/src/main.py"), {"t1": edit_task}],
		[write("/srv/app/notes/today.md"), {"t1": edit_task}],
		[write("/srv/app/src/a.py"), src_task],
		[git_status, {"t1": edit_task}],
	] {
		[inp, tasks] := row
		answers(inp, tasks, config)
		fast._candidate with input as inp with data.tasks as tasks with data.config as config
	}
}

# ... and the calls it stops never reach the conditions, whatever their types.
test_the_gate_stops_calls_no_answer_could_take if {
	every row in [
		[shell("pytest -q", [cmd("pytest", ["pytest", "-q"], [])]), {"t1": edit_task}],
		[shell("ls && rm -rf build", [cmd("ls", ["ls"], []), cmd("rm", ["rm", "-rf", "build"], ["/srv/app/build"])]), {"t1": edit_task}],
		[shell("ls", []), {"t1": edit_task}],
		[object.union(git_status, {"facts": object.union(facts([]), {"shell": {"commands": "ls"}})}), {"t1": edit_task}],
		[object.union(git_status, {"facts": object.union(facts([]), {"shell": {"commands": [1]}})}), {"t1": edit_task}],
		[write("/srv/app/notes/today.md"), src_task],
		[write("/srv/app/notes/today.md"), {}],
		[write("/srv/app/src/a.py"), {"t1": policy([grant({"paths": ["/srv/app/src"], "recipients": ["a@b.c"]})])}],
		[object.union(write("/srv/app/a.py"), {"facts": facts([{"path": 7, "arg": "path", "via": "arg", "op": ""}])}), {"t1": edit_task}],
		[object.union(write("/srv/app/a.py"), {"host": object.union(host, {"workspace": [7]})}), {"t1": edit_task}],
		[object.union(read("/srv/app/a.py"), {"call": {"tool": "web_search", "args": {"query": "x"}, "id": "c"}}), {"t1": edit_task}],
	] {
		[inp, tasks] := row
		not fast._candidate with input as inp with data.tasks as tasks with data.config as config
		declines(inp, tasks, config)
	}
}
