package opafence.task.coverage_test

import data.opafence.lib.action
import data.opafence.lib.grants
import data.opafence.task
import data.opafence.testing.report

ctx := {"workspace": ["/ws"], "tool": "terminal"}

g(class, fields) := grants.normalize(object.union({"id": "g", "class": class, "evidence": "e"}, fields))

a(class, fields) := action.make(class, fields)

# --- objects, kinds of action, people, access, runners --------------------------------------------

mctx(object_name, ops) := {"workspace": ["/ws"], "cwd": "/ws", "tool": "mcp__github__x", "mcp": {
	"object": object_name, "operations": ops, "access": set(), "open_grantee": false,
}}

share_ctx(access, open_grantee) := object.union(mctx("file", {"PERMISSION_CHANGE": {"share"}}), {"mcp": {"access": access, "open_grantee": open_grantee}})

issue_create := g("EXTERNAL_WRITE", {"capability": "publish", "tools": ["mcp__github__*"], "objects": ["issue"], "operations": ["create"]})

issue_close := g("EXTERNAL_WRITE", {"capability": "publish", "tools": ["mcp__github__*"], "objects": ["issue"], "operations": ["close"]})

ops_only := g("EXTERNAL_WRITE", {"capability": "publish", "domains": ["example.com"], "operations": ["create"]})

write_action := a("EXTERNAL_WRITE", {"caps": {"publish"}})

share_ann(access) := g("PERMISSION_CHANGE", {"capability": "share", "recipients": ["ann@acme.com"], "access": access})

share_action := a("PERMISSION_CHANGE", {"caps": {"share"}, "recipients": {"ann@acme.com"}, "named": {"recipients"}})

mcp_cases := [
	{"name": "create issue", "g": issue_create, "a": write_action, "ctx": mctx("issue", {"EXTERNAL_WRITE": {"create"}}), "want": true},
	{"name": "merge pull request", "g": issue_create, "a": write_action, "ctx": mctx("pull_request", {"EXTERNAL_WRITE": {"merge"}}), "want": false},
	{"name": "update issue", "g": issue_create, "a": write_action, "ctx": mctx("issue", {"EXTERNAL_WRITE": {"update"}}), "want": false},
	{"name": "comment on an issue", "g": issue_create, "a": write_action, "ctx": mctx("comment", {"EXTERNAL_WRITE": {"create"}}), "want": false},
	{"name": "unknown noun", "g": issue_create, "a": write_action, "ctx": mctx("?widget", {"EXTERNAL_WRITE": {"create"}}), "want": false},
	{"name": "no verb of the class", "g": issue_create, "a": write_action, "ctx": mctx("issue", {}), "want": false},
	{"name": "close is an update of state", "g": issue_close, "a": write_action, "ctx": mctx("issue", {"EXTERNAL_WRITE": {"update"}}), "want": true},
	{"name": "upsert is no create", "g": issue_create, "a": write_action, "ctx": mctx("issue", {"EXTERNAL_WRITE": {"upsert"}}), "want": false},
	{"name": "ops only, any object", "g": ops_only, "a": a("EXTERNAL_WRITE", {"caps": {"publish"}, "domains": {"example.com"}}), "ctx": mctx("?slides", {"EXTERNAL_WRITE": {"create"}}), "want": true},
	{"name": "object grant, browser on its domain", "g": object.union(ops_only, {"objects": ["comment"]}), "a": a("EXTERNAL_WRITE", {"domains": {"example.com"}}), "ctx": ctx, "want": true},
	{"name": "object grant without domains, not an MCP tool", "g": issue_create, "a": write_action, "ctx": object.union(ctx, {"tool": "mcp__github__x"}), "want": false},
	{"name": "kinds grant without domains, not an MCP tool", "g": g("DELETE", {"operations": ["delete"]}), "a": a("DELETE", {}), "ctx": ctx, "want": false},
	{"name": "attendees need a grant that names them", "g": issue_create, "a": a("EXTERNAL_WRITE", {"recipients": {"eve@x.com"}, "named": {"recipients"}}), "ctx": mctx("issue", {"EXTERNAL_WRITE": {"create"}}), "want": false},
	{"name": "named attendee", "g": object.union(issue_create, {"recipients": ["eve@x.com"]}), "a": a("EXTERNAL_WRITE", {"recipients": {"eve@x.com"}, "named": {"recipients"}}), "ctx": mctx("issue", {"EXTERNAL_WRITE": {"create"}}), "want": true},
	{"name": "a callback host needs a grant that names it", "g": issue_create, "a": a("EXTERNAL_WRITE", {"domains": {"evil.com"}, "named": {"domains"}}), "ctx": mctx("issue", {"EXTERNAL_WRITE": {"create"}}), "want": false},
	{"name": "share, default access", "g": share_ann("read"), "a": share_action, "ctx": share_ctx(set(), false), "want": true},
	{"name": "share, reader", "g": share_ann("read"), "a": share_action, "ctx": share_ctx({"read"}, false), "want": true},
	{"name": "share, owner", "g": share_ann("read"), "a": share_action, "ctx": share_ctx({"admin"}, false), "want": false},
	{"name": "share, writer", "g": share_ann("write"), "a": share_action, "ctx": share_ctx({"write"}, false), "want": true},
	{"name": "share, unknown role", "g": share_ann("write"), "a": share_action, "ctx": share_ctx({"?"}, false), "want": false},
	{"name": "share, to anyone", "g": share_ann("read"), "a": share_action, "ctx": share_ctx(set(), true), "want": false},
	{"name": "chmod grants keep their paths rule", "g": g("PERMISSION_CHANGE", {"capability": "chmod", "paths": ["/ws/run.sh"]}), "a": a("PERMISSION_CHANGE", {"caps": {"chmod"}, "paths": {"/ws/run.sh"}}), "ctx": ctx, "want": true},
	{"name": "runner in the workspace", "g": g("EXECUTION", {"capability": "run_tests"}), "a": a("EXECUTION", {"caps": {"run_tests"}, "paths": {"/ws/tests"}}), "ctx": mctx("", {}), "want": true},
	{"name": "runner on code elsewhere", "g": g("EXECUTION", {"capability": "run_tests"}), "a": a("EXECUTION", {"caps": {"run_tests"}, "paths": {"/tmp/evil_test.py"}}), "ctx": mctx("", {}), "want": false},
]

test_object_grants_table if {
	bad := [row.name | some row in mcp_cases; mcp_covered(row) != row.want]
	report(bad)
	count(bad) == 0
}

mcp_covered(row) if {
	task.covers(row.g, row.a, row.ctx) with data.opafence.classify.mcp.head_object as object.get(row.ctx, ["mcp", "object"], "")
		with data.opafence.classify.mcp.name_operations as object.get(row.ctx, ["mcp", "operations"], {})
		with data.opafence.classify.mcp.access_levels as object.get(row.ctx, ["mcp", "access"], set())
		with data.opafence.classify.mcp.open_grantee as object.get(row.ctx, ["mcp", "open_grantee"], false)
}

else := false
