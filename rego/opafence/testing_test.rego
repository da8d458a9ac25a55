# Helpers for the tests: facts shaped like the facts builder's (docs/contract.md), built from
# short descriptions, so a table row stays one line. Only loaded by `opa test`.
package opafence.testing

ws := "/ws"

home := "/home/u"

host := {
	"auto_approve": false, "interactive": true, "platform": "cli", "home": home,
	"hermes_home": "/home/u/.hermes", "state_dir": "/home/u/.hermes/opafence", "workspace": [ws],
	"cwd": ws, "opa_socket": "/run/user/1000/opafence/opa.sock",
	"package_dir": "/opt/hermes/lib/python3.11/site-packages/opafence",
}

unattended_host := object.union(host, {"auto_approve": true, "interactive": false, "platform": "cron"})

session := {
	"history": [], "subagent": false, "taint": {"untrusted": false, "sources": [], "secret_read": false},
	"counters": {
		"calls": 0, "external_writes": 0, "communications": 0, "distinct_files": 0, "delegations": 0,
		"by_grant": {},
	},
}

facts(extra) := object.union(
	{
		"tool": {"name": "", "origin": "builtin"}, "paths": [], "urls": [], "recipients": [],
		"secrets": [], "words": [], "content_bytes": 0, "opaque": false, "opaque_reasons": [],
	},
	extra,
)

# A path as the facts builder resolves it against cwd /ws and home /home/u.
canon(p) := p if startswith(p, "/")

else := concat("", [home, substring(p, 1, -1)]) if startswith(p, "~")

else := ws if p == "."

else := concat("/", [ws, trim_suffix(trim_prefix(p, "./"), "/")])

basename(p) := parts[count(parts) - 1] if parts := split(p, "/")

# Short option clusters are expanded as well as kept (-rf -> -rf -r -f), and a long option with
# a value is kept with and without it (--output=x -> --output=x --output), as the facts do.
expand(t) := [t, split(t, "=")[0]] if {
	startswith(t, "--")
	contains(t, "=")
} else := [t] if startswith(t, "--")

else := array.concat([t], [concat("", ["-", ch]) | some ch in split(substring(t, 1, -1), "")]) if {
	count(t) > 2
}

else := [t]

dashdash(argv) := min({i | some i, t in argv; t == "--"}) if "--" in argv

else := count(argv)

is_flag(argv, i, t) if {
	i < dashdash(argv)
	startswith(t, "-")
	t != "-"
}

# METADATA
# title: command
# description: A Command fact for argv, the way the facts builder reports a simple command.
command(argv) := {
	"name": basename(argv[0]),
	"argv": argv,
	"flags": [f | some i, t in argv; i > 0; is_flag(argv, i, t); some f in expand(t)],
	"operands": ops,
	"operand_paths": [canon(o) | some o in ops],
	"env": {},
	"redirects": [],
	"wrappers": [],
	"context": "top",
	"depth": 0,
	"pipe_from": "",
	"dynamic": false,
} if {
	ops := [t | some i, t in argv; i > 0; not is_flag(argv, i, t); t != "--"]
}

cmdx(argv, extra) := object.union(command(argv), extra)

redirect(op, target, mode) := {"op": op, "fd": 1, "raw": target, "path": canon(target), "mode": mode}

# METADATA
# title: literal
# description: A run_command grant's literal for a Command fact, as the intent compiler records it (named in /ws).
literal(c) := {
	"argv": c.argv, "place": {
		"operand_paths": c.operand_paths, "redirects": c.redirects, "env": c.env, "wrappers": c.wrappers,
		"pipe_from": c.pipe_from,
	},
	"cwd": ws,
}

# METADATA
# title: run_literal
# description: The run_command grant the intent compiler makes of a literal with these commands.
run_literal(id, cmds) := grant(id, "EXECUTION", {
	"capability": "run_command",
	"commands": [concat(" ", c.argv) | some c in cmds],
	"literals": [literal(c) | some c in cmds],
})

url(raw) := {
	"raw": raw, "scheme": m[1], "host": lower(m[2]), "port": null, "path": "/", "query_len": 0,
	"has_credentials": false, "secret_like": false, "ip": false, "loopback": m[2] == "localhost",
	"private": false, "arg": "command",
} if {
	m := regex.find_all_string_submatch_n(`^([a-z+]+)://([^/:?#]+)`, raw, 1)[0]
}

urls_in(cmds) := [url(t) | some c in cmds; some t in c.argv; contains(t, "://")]

# METADATA
# title: shell_input
# description: A terminal call whose facts hold the given commands.
shell_input(cmds) := call_input("terminal", {"command": "..."}, {
	"tool": {"name": "terminal", "origin": "builtin"},
	"shell": {"opaque": false, "opaque_reasons": [], "commands": cmds},
	"urls": urls_in(cmds),
})

opaque_shell_input(cmds) := call_input("terminal", {"command": "..."}, {
	"tool": {"name": "terminal", "origin": "builtin"},
	"shell": {"opaque": true, "opaque_reasons": ["decode-and-run"], "commands": cmds},
	"opaque": true, "opaque_reasons": ["decode-and-run"],
})

call_input(tool, args, extra) := {
	"task": "t",
	"call": {"tool": tool, "args": args, "id": "c1"},
	"facts": facts(object.union({"tool": {"name": tool, "origin": origin(tool)}}, extra)),
	"session": session,
	"host": host,
}

origin(tool) := "mcp" if startswith(tool, "mcp__")

else := "builtin"

mcp_input(tool, words, extra) := call_input(tool, {}, object.union(extra, {"tool": {
	"name": tool, "origin": "mcp",
	"mcp": {"server": split(tool, "__")[1], "name": split(tool, "__")[2], "words": words},
}}))

path_fact(p, arg, via, op) := {"raw": p, "path": canon(p), "arg": arg, "via": via, "op": op}

recipient(addr, field) := {
	"raw": addr, "address": lower(addr), "local": split(lower(addr), "@")[0],
	"domain": split(lower(addr), "@")[1], "field": field, "valid": true,
	"mixed_script": false, "confusable": false,
}

# METADATA
# title: task
# description: A TaskPolicy with the given grants, prohibitions and extra fields.
task(gs, ps, extra) := object.union(
	{
		"schema_version": 1, "task": "t", "revision": 1, "compiled_by": "rules", "read_only": false,
		"grants": gs, "prohibitions": ps, "bounds": {}, "budgets": {},
	},
	extra,
)

grant(id, class, fields) := object.union({"id": id, "class": class, "evidence": concat(" ", ["the user asked", id])}, fields)

prohibition(id, classes, fields) := object.union({"id": id, "classes": classes, "evidence": "don't"}, fields)

# Failures of a table test, printed so the failing rows show in `opa test` output.
report(bad) if {
	count(bad) > 0
	print("failing rows:", bad)
}

report(bad) if count(bad) == 0
