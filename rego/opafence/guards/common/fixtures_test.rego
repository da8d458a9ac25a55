# METADATA
# title: Guard test fixtures
# description: |
#   Hand-built decision inputs in the contract shape (docs/contract.md), so guard tests do not
#   depend on the Python facts builder. `sh` builds a shell command the way the facts builder
#   describes it: options start with "-" (short clusters expanded), operands are the other
#   tokens, each operand also as a path resolved against the host's cwd.
package opafence.test.fixtures

home := "/home/u"

cwd := "/home/u/src/app"

host := {
	"auto_approve": false, "interactive": true, "platform": "cli",
	"home": home, "hermes_home": "/home/u/.hermes", "state_dir": "/home/u/.hermes/opafence",
	"workspace": [cwd], "cwd": cwd,
	"opa_socket": "/home/u/.hermes/opafence/run/opa.sock",
	"package_dir": "/home/u/.venv/lib/python3.11/site-packages/opafence",
}

session := {
	"history": [], "counters": {},
	"taint": {"untrusted": false, "sources": [], "secret_read": false}, "subagent": false,
}

tainted := object.union(session, {"taint": {"untrusted": true, "sources": ["web"], "secret_read": false}})

secret_session := object.union(session, {"taint": {"untrusted": false, "sources": [], "secret_read": true}})

empty_facts := {
	"paths": [], "urls": [], "recipients": [], "secrets": [], "words": [],
	"content_bytes": 0, "opaque": false, "opaque_reasons": [],
}

# A task with the given grants (and nothing else).
task(grants) := {
	"schema_version": 1, "task": "t", "revision": 1, "compiled_by": "rules", "read_only": false,
	"grants": grants, "prohibitions": [], "bounds": {}, "budgets": {},
}

no_task := task([])

path_of(raw) := p if {
	raw == "~"
	p := home
} else := cwd if {
	raw in {".", "./"}
} else := "/home/u/src" if {
	raw == ".."
} else := concat("", [home, substring(raw, 1, -1)]) if {
	startswith(raw, "~/")
} else := raw if {
	startswith(raw, "/")
} else := concat("/", [cwd, trim_prefix(raw, "./")])

flags_of(tok) := {tok} | {concat("", ["-", ch]) |
	not startswith(tok, "--")
	count(tok) > 2
	some ch in array.slice(split(tok, ""), 1, count(tok))
}

# METADATA
# title: sh
# description: One simple command from its argv.
sh(argv) := {
	"name": argv[0],
	"argv": argv,
	"flags": [f | some t in array.slice(argv, 1, count(argv)); startswith(t, "-"); some f in flags_of(t)],
	"operands": [t | some t in array.slice(argv, 1, count(argv)); not startswith(t, "-")],
	"operand_paths": [path_of(t) | some t in array.slice(argv, 1, count(argv)); not startswith(t, "-")],
	"env": {},
	"redirects": [],
	"wrappers": [],
	"context": "top",
	"depth": 0,
	"pipe_from": "",
	"dynamic": false,
}

# A command with extra fields (env, redirects, pipe_from, context).
shx(argv, extra) := object.union(sh(argv), extra)

redirect(op, raw) := {"op": op, "fd": 1, "raw": raw, "path": path_of(raw), "mode": mode} if {
	mode := {">": "write", ">>": "append", "<": "read"}[op]
}

# A terminal call running the given commands.
terminal(cmds) := call("terminal", {"command": concat(" ; ", [concat(" ", c.argv) | some c in cmds])}, {"shell": {
	"opaque": false,
	"opaque_reasons": [],
	"commands": cmds,
}})

# A terminal call with its literal command text (for here-docs and code patterns).
terminal_text(text, cmds) := call("terminal", {"command": text}, {"shell": {
	"opaque": false, "opaque_reasons": [],
	"commands": cmds,
}})

# An input for any tool with extra facts.
call(tool, args, facts) := {
	"task": "t",
	"call": {"tool": tool, "args": args, "id": "c1"},
	"facts": object.union(object.union(empty_facts, {"tool": {"name": tool, "origin": origin(tool)}}), facts),
	"session": session,
	"host": host,
}

origin(tool) := "mcp" if startswith(tool, "mcp__")

else := "builtin"

# A path fact.
pf(raw, arg, via, op) := {"raw": raw, "path": path_of(raw), "arg": arg, "via": via, "op": op}

# write_file / read_file / patch inputs.
write_file(raw) := call("write_file", {"path": raw, "content": "x"}, {"paths": [pf(raw, "path", "arg", "")]})

read_file(raw) := call("read_file", {"path": raw}, {"paths": [pf(raw, "path", "arg", "")]})

# A URL fact.
url(raw, host_, path, query_len) := {
	"raw": raw, "scheme": "https", "host": host_, "port": null, "path": path, "query_len": query_len,
	"has_credentials": false, "secret_like": false, "ip": false, "loopback": host_ in {"localhost", "127.0.0.1"},
	"private": false, "arg": "url",
}

# Input variants.
with_session(inp, s) := object.union(inp, {"session": s})

with_host(inp, h) := object.union(inp, {"host": object.union(host, h)})

# METADATA
# title: run
# description: >-
#   The codes a module's deny and ask produce for one table case, compared with its
#   `want` ({"deny": [...], "ask": [...]}); the names of failing cases, printed.
failures(cases, results) := [sprintf("%s: got %v want %v", [c.name, results[c.name], want(c)]) |
	some c in cases
	results[c.name] != want(c)
]

want(c) := {"deny": {x | some x in object.get(c.want, "deny", [])}, "ask": {x | some x in object.get(c.want, "ask", [])}}
