package opafence.lib.grants_test

import data.opafence.lib.action
import data.opafence.lib.grants
import data.opafence.testing.cmdx
import data.opafence.testing.command
import data.opafence.testing.redirect
import data.opafence.testing.report
import data.opafence.testing.run_literal as raw_literal

ctx := {"workspace": ["/ws"], "tool": "terminal"}

g(class, fields) := grants.normalize(object.union({"id": "g", "class": class, "evidence": "e"}, fields))

a(class, fields) := action.make(class, fields)

# lib's bounds, without what an MCP tool's name says (task/coverage_test.rego tests those).
covers(g, a, ctx) if {
	grants.targets_ok(g, a, ctx)
	grants.call_ok(g, a, ctx)
}

covers(g, a, ctx) if grants.literal_action_ok(g, a, ctx)

# grant, action -> covered?
cases := [
	{"name": "class must match", "g": g("LOCAL_WRITE", {}), "a": a("DELETE", {"paths": {"/ws/a"}}), "want": false},
	{"name": "workspace write", "g": g("LOCAL_WRITE", {"workspace": true}), "a": a("LOCAL_WRITE", {"paths": {"/ws/a"}, "caps": {"edit"}}), "want": true},
	{"name": "unbounded grant is the workspace", "g": g("LOCAL_WRITE", {}), "a": a("LOCAL_WRITE", {"paths": {"/etc/x"}}), "want": false},
	{"name": "open write", "g": g("LOCAL_WRITE", {"workspace": true}), "a": a("LOCAL_WRITE", {"paths": {"/ws/a"}, "open": true}), "want": false},
	{"name": "pathless write, pathless grant", "g": g("LOCAL_WRITE", {}), "a": a("LOCAL_WRITE", {}), "want": true},
	{"name": "pathless write, path grant", "g": g("LOCAL_WRITE", {"paths": ["/ws"]}), "a": a("LOCAL_WRITE", {}), "want": false},
	{"name": "capability must be carried", "g": g("LOCAL_WRITE", {"capability": "commit", "workspace": true}), "a": a("LOCAL_WRITE", {"paths": {"/ws/a"}, "caps": {"edit"}}), "want": false},
	{"name": "delete named path", "g": g("DELETE", {"paths": ["/ws/build"]}), "a": a("DELETE", {"paths": {"/ws/build/x"}}), "want": true},
	{"name": "delete never the whole workspace", "g": g("DELETE", {"workspace": true}), "a": a("DELETE", {"paths": {"/ws/build"}}), "want": false},
	{"name": "paths bound other classes", "g": g("EXECUTION", {"paths": ["/ws/scripts"]}), "a": a("EXECUTION", {"paths": {"/ws/scripts/a.sh"}}), "want": true},
	{"name": "paths bound other classes 2", "g": g("EXECUTION", {"paths": ["/ws/scripts"]}), "a": a("EXECUTION", {}), "want": false},
	{"name": "recipients unbounded", "g": g("COMMUNICATION", {}), "a": a("COMMUNICATION", {"recipients": {"x@y.z"}}), "want": true},
	{"name": "recipient granted", "g": g("COMMUNICATION", {"recipients": ["X@y.z"]}), "a": a("COMMUNICATION", {"recipients": {"x@y.z"}}), "want": true},
	{"name": "no recipient", "g": g("COMMUNICATION", {"recipients": ["x@y.z"]}), "a": a("COMMUNICATION", {}), "want": false},
	{"name": "unclear recipients", "g": g("COMMUNICATION", {"recipients": ["x@y.z"]}), "a": a("COMMUNICATION", {"recipients": {"x@y.z"}, "open": true}), "want": false},
	{"name": "domain granted", "g": g("EXTERNAL_WRITE", {"domains": ["github.com"]}), "a": a("EXTERNAL_WRITE", {"domains": {"api.github.com"}}), "want": true},
	{"name": "domain missing", "g": g("EXTERNAL_WRITE", {"domains": ["github.com"]}), "a": a("EXTERNAL_WRITE", {}), "want": false},
	{"name": "command named", "g": g("EXECUTION", {"capability": "run_command", "commands": ["make deploy"]}), "a": a("EXECUTION", {"argv": ["make", "deploy"], "caps": {"run_command"}}), "want": true},
	{"name": "no argv", "g": g("EXECUTION", {"commands": ["make deploy"]}), "a": a("EXECUTION", {}), "want": false},
	{"name": "workspace write never covers .git", "g": g("LOCAL_WRITE", {"workspace": true}), "a": a("LOCAL_WRITE", {"paths": {"/ws/.git/config"}, "caps": {"edit"}}), "want": false},
	{"name": "a literal .git path grant does", "g": g("LOCAL_WRITE", {"paths": ["/ws/.git/config"]}), "a": a("LOCAL_WRITE", {"paths": {"/ws/.git/config"}, "caps": {"edit"}}), "want": true},
	{"name": ".github is no .git", "g": g("LOCAL_WRITE", {"workspace": true}), "a": a("LOCAL_WRITE", {"paths": {"/ws/.github/ci.yml"}, "caps": {"edit"}}), "want": true},
	{"name": "push of the workspace", "g": g("EXTERNAL_WRITE", {"capability": "push"}), "a": a("EXTERNAL_WRITE", {"paths": {"/ws"}, "caps": {"push"}}), "want": true},
	{"name": "push of another repository", "g": g("EXTERNAL_WRITE", {"capability": "push"}), "a": a("EXTERNAL_WRITE", {"paths": {"/tmp/other"}, "caps": {"push"}}), "want": false},
	{"name": "push to another remote", "g": g("EXTERNAL_WRITE", {"capability": "push"}), "a": a("EXTERNAL_WRITE", {"paths": {"/ws"}, "caps": {"push_url"}}), "want": false},
	{"name": "tool glob", "g": g("EXTERNAL_WRITE", {"tools": ["term*"]}), "a": a("EXTERNAL_WRITE", {}), "want": true},
	{"name": "tool glob miss", "g": g("EXTERNAL_WRITE", {"tools": ["mcp__*"]}), "a": a("EXTERNAL_WRITE", {}), "want": false},
	{"name": "package named", "g": g("EXECUTION", {"capability": "install", "packages": ["Requests"]}), "a": a("EXECUTION", {"caps": {"install"}, "packages": {"requests[socks]>=2"}}), "want": true},
	{"name": "package not named", "g": g("EXECUTION", {"capability": "install", "packages": ["requests"]}), "a": a("EXECUTION", {"caps": {"install"}, "packages": {"urllib3"}}), "want": false},
	{"name": "packages bound other capabilities too", "g": g("EXECUTION", {"packages": ["requests"]}), "a": a("EXECUTION", {"caps": {"install"}}), "want": false},
]

test_covers_table if {
	bad := [row.name | some row in cases; covered(row) != row.want]
	report(bad)
	count(bad) == 0
}

covered(row) if covers(row.g, row.a, ctx)

else := false

test_package_name if {
	grants.package_name(" Requests==2.31 ") == "requests"
	grants.package_name("lodash@4") == "lodash"
	grants.package_name("black[jupyter]") == "black"
}

# --- literal commands: a run_command grant covers the other actions of that very command ---------

rm_nm := command(["rm", "-rf", "node_modules"])

pytest_report := cmdx(["pytest"], {"redirects": [redirect(">", "out/report.txt", "write")]})

git_pull := command(["git", "pull", "--rebase"])

run_literal(id, cmds) := grants.normalize(raw_literal(id, cmds))

lit_rm := run_literal("g", [rm_nm])

lit_report := run_literal("g", [pytest_report])

lit_pull := run_literal("g", [git_pull])

lctx(cmds) := {"workspace": ["/ws"], "tool": "terminal", "commands": cmds, "moved": false}

moved_ctx(cmds) := object.union(lctx(cmds), {"moved": true})

del(cmd, paths) := a("DELETE", {"paths": paths, "argv": cmd.argv})

lw(cmd, paths) := a("LOCAL_WRITE", {"paths": paths, "argv": cmd.argv})

# grant, action, context -> covered?
literal_cases := [
	{"name": "the literal's delete", "g": lit_rm, "a": del(rm_nm, {"/ws/node_modules"}), "ctx": lctx([rm_nm]), "want": true},
	{
		"name": "a longer argv is another command", "g": lit_rm,
		"a": del(command(["rm", "-rf", "node_modules", "../other"]), {"/ws/node_modules", "/other"}),
		"ctx": lctx([command(["rm", "-rf", "node_modules", "../other"])]), "want": false,
	},
	{
		"name": "another command of the program", "g": run_literal("g", [command(["pytest"])]),
		"a": del(command(["rm", "-rf", "src"]), {"/ws/src"}),
		"ctx": lctx([command(["pytest"]), command(["rm", "-rf", "src"])]), "want": false,
	},
	{"name": "the literal's redirect", "g": lit_report, "a": lw(pytest_report, {"/ws/out/report.txt"}), "ctx": lctx([pytest_report]), "want": true},
	{
		"name": "a redirect to another file", "g": lit_report,
		"a": lw(pytest_report, {"/ws/out/other.txt"}),
		"ctx": lctx([cmdx(["pytest"], {"redirects": [redirect(">", "out/other.txt", "write")]})]), "want": false,
	},
	{
		"name": "an extra redirect", "g": lit_report, "a": lw(pytest_report, {"/ws/out/report.txt"}),
		"ctx": lctx([cmdx(["pytest"], {"redirects": [redirect(">", "out/report.txt", "write"), redirect(">>", "x.txt", "append")]})]),
		"want": false,
	},
	{
		"name": "the same argv in another directory", "g": lit_rm, "a": del(rm_nm, {"/tmp/node_modules"}),
		"ctx": lctx([cmdx(rm_nm.argv, {"operand_paths": ["/tmp/node_modules"]})]), "want": false,
	},
	{
		"name": "the same argv twice, once elsewhere", "g": lit_rm, "a": del(rm_nm, {"/ws/node_modules"}),
		"ctx": lctx([rm_nm, cmdx(rm_nm.argv, {"operand_paths": ["/tmp/node_modules"]})]), "want": false,
	},
	{"name": "sudo is not the literal", "g": lit_rm, "a": del(rm_nm, {"/ws/node_modules"}), "ctx": lctx([cmdx(rm_nm.argv, {"wrappers": ["sudo"]})]), "want": false},
	{"name": "find -exec is not the literal", "g": lit_rm, "a": del(rm_nm, {"/ws"}), "ctx": lctx([cmdx(rm_nm.argv, {"wrappers": ["find"]})]), "want": false},
	{"name": "another environment", "g": lit_rm, "a": del(rm_nm, {"/ws/node_modules"}), "ctx": lctx([cmdx(rm_nm.argv, {"env": {"X": "1"}})]), "want": false},
	{"name": "fed by a pipe", "g": lit_rm, "a": del(rm_nm, {"/ws/node_modules"}), "ctx": lctx([cmdx(rm_nm.argv, {"pipe_from": "cat"})]), "want": false},
	{
		"name": "fed by a here-doc", "g": run_literal("g", [command(["sqlite3", "app.db"])]),
		"a": lw(command(["sqlite3", "app.db"]), set()),
		"ctx": lctx([cmdx(["sqlite3", "app.db"], {"redirects": [{"op": "<<", "fd": 0, "raw": "EOF", "path": "", "mode": "other"}]})]),
		"want": false,
	},
	{"name": "no command in the facts", "g": lit_rm, "a": del(rm_nm, {"/ws/node_modules"}), "ctx": lctx([]), "want": false},
	{"name": "open targets", "g": lit_rm, "a": object.union(del(rm_nm, {"/ws/node_modules"}), {"open": true}), "ctx": lctx([rm_nm]), "want": false},
	{"name": "a target the literal does not name", "g": lit_rm, "a": del(rm_nm, {"/ws/node_modules", "/etc/x"}), "ctx": lctx([rm_nm]), "want": false},
	{"name": "the directory it was named in", "g": lit_pull, "a": a("LOCAL_WRITE", {"paths": {"/ws"}, "argv": git_pull.argv, "caps": {"commit"}}), "ctx": lctx([git_pull]), "want": true},
	{"name": "not after a cd", "g": lit_pull, "a": a("LOCAL_WRITE", {"paths": {"/ws"}, "argv": git_pull.argv, "caps": {"commit"}}), "ctx": moved_ctx([git_pull]), "want": false},
	{"name": "not without knowing", "g": lit_pull, "a": a("LOCAL_WRITE", {"paths": {"/ws"}, "argv": git_pull.argv, "caps": {"commit"}}), "ctx": {"workspace": ["/ws"], "tool": "terminal", "commands": [git_pull]}, "want": false},
	{"name": "not self-modification", "g": lit_rm, "a": a("SELF_MODIFICATION", {"paths": {"/ws/node_modules"}, "argv": rm_nm.argv}), "ctx": lctx([rm_nm]), "want": false},
	{"name": "not unknown", "g": lit_rm, "a": a("UNKNOWN", {"argv": rm_nm.argv}), "ctx": lctx([rm_nm]), "want": false},
	{"name": "a derived action has no argv", "g": lit_rm, "a": a("DELETE", {"paths": {"/ws/node_modules"}}), "ctx": lctx([rm_nm]), "want": false},
	{
		"name": "a literal a prohibition struck", "g": object.union(lit_rm, {"commands": []}),
		"a": del(rm_nm, {"/ws/node_modules"}), "ctx": lctx([rm_nm]), "want": false,
	},
	{
		"name": "a literal with spaces inside a word", "g": run_literal("g", [command(["psql", "-c", " SELECT  1 "])]),
		"a": a("EXTERNAL_WRITE", {"argv": ["psql", "-c", " SELECT  1 "]}), "ctx": lctx([command(["psql", "-c", " SELECT  1 "])]), "want": false,
	},
	{
		"name": "a literal with spaces, as the compiler records it",
		"g": object.union(run_literal("g", [command(["psql", "-c", " SELECT  1 "])]), {"commands": ["psql -c SELECT 1"]}),
		"a": a("EXTERNAL_WRITE", {"argv": ["psql", "-c", " SELECT  1 "]}), "ctx": lctx([command(["psql", "-c", " SELECT  1 "])]), "want": true,
	},
	{
		"name": "only run_command grants", "g": object.union(lit_rm, {"capability": "run_tests"}),
		"a": del(rm_nm, {"/ws/node_modules"}), "ctx": lctx([rm_nm]), "want": false,
	},
	{
		"name": "the literal's external write", "g": run_literal("g", [command(["redis-cli", "ping"])]),
		"a": a("EXTERNAL_WRITE", {"argv": ["redis-cli", "ping"]}), "ctx": lctx([command(["redis-cli", "ping"])]), "want": true,
	},
	{
		"name": "another external write", "g": run_literal("g", [command(["redis-cli", "ping"])]),
		"a": a("EXTERNAL_WRITE", {"argv": ["redis-cli", "flushall"]}), "ctx": lctx([command(["redis-cli", "flushall"])]), "want": false,
	},
]

test_literal_covers_table if {
	bad := [row.name | some row in literal_cases; literal_covered(row) != row.want]
	report(bad)
	count(bad) == 0
}

literal_covered(row) if covers(row.g, row.a, row.ctx)

else := false

# A literal runs only as written: the same argv, run the way it was named, where it was named.
test_push_from_elsewhere if {
	push := g("EXTERNAL_WRITE", {"capability": "push"})
	act := a("EXTERNAL_WRITE", {"paths": {"/ws"}, "caps": {"push"}})
	covers(push, act, object.union(ctx, {"run_dirs": {"/ws/sub"}}))
	not covers(push, act, object.union(ctx, {"run_dirs": {"/tmp/other"}}))
}

run_tests_of(argv) := a("EXECUTION", {"argv": argv, "caps": {"run_tests", "run_command"}})

rctx(env) := object.union(ctx, {"cwd": "/ws", "commands": [cmdx(["pytest", "-q"], {"env": env})]})

test_runner_words if {
	tests := g("EXECUTION", {"capability": "run_tests"})
	covers(tests, run_tests_of(["pytest", "--junitxml=/ws/r.xml"]), ctx)
	not covers(tests, run_tests_of(["pytest", "--junitxml=/home/u/.bashrc"]), ctx)
	not covers(tests, run_tests_of(["pytest", "-p", "evil"]), ctx)
	covers(tests, run_tests_of(["pytest", "-q"]), rctx({"CI": "1"}))
	not covers(tests, run_tests_of(["pytest", "-q"]), rctx({"PYTEST_ADDOPTS": "-p evil"}))
}

test_literal_command_is_exact if {
	exec := a("EXECUTION", {"argv": ["rm", "-rf", "node_modules"], "caps": {"run_command"}})
	covers(lit_rm, exec, lctx([rm_nm]))
	not covers(lit_rm, a("EXECUTION", {"argv": ["rm", "-rf", "node_modules", "x"], "caps": {"run_command"}}), lctx([]))
	not covers(lit_rm, exec, lctx([cmdx(rm_nm.argv, {"env": {"X": "1"}})]))
	not covers(lit_rm, exec, lctx([cmdx(rm_nm.argv, {"wrappers": ["nohup"]})]))
	not covers(lit_rm, exec, object.union(lctx([rm_nm]), {"run_dirs": {"/tmp"}}))
	no_literal := g("EXECUTION", {"capability": "run_command", "commands": ["make deploy"]})
	covers(no_literal, a("EXECUTION", {"argv": ["make", "deploy"], "caps": {"run_command"}}), lctx([command(["make", "deploy"])]))
	not covers(no_literal, a("EXECUTION", {"argv": ["make", "deploy"], "caps": {"run_command"}}), lctx([cmdx(["make", "deploy"], {"env": {"X": "1"}})]))
}

# --- the bounds of a conditional's condition, and a refund of what was named ------------------------

pay := g("FINANCIAL", {"capability": "pay"})

paid(tool, args) := {"workspace": ["/ws"], "tool": tool, "args": args}

# grant fields, tool, args -> covered?
bound_cases := [
	{"name": "no amount bound", "g": {}, "tool": "mcp__bank__pay_bill", "args": {"amount": "900"}, "want": true},
	{"name": "amount under the bound", "g": {"max_amount": 80}, "tool": "mcp__bank__pay_bill", "args": {"amount": "61.30"}, "want": true},
	{"name": "amount at the bound", "g": {"max_amount": 80}, "tool": "mcp__bank__pay_bill", "args": {"amount": 80}, "want": true},
	{"name": "amount over the bound", "g": {"max_amount": 80}, "tool": "mcp__bank__pay_bill", "args": {"amount": "80.01"}, "want": false},
	{"name": "currency sign and commas", "g": {"max_amount": 2000}, "tool": "mcp__bank__pay_bill", "args": {"amount": "$1,999"}, "want": true},
	{"name": "nested amount over", "g": {"max_amount": 100}, "tool": "mcp__paypal__create_payout", "args": {"amount": {"value": "150.00", "currency": "EUR"}}, "want": false},
	{"name": "an amount that is no number", "g": {"max_amount": 100}, "tool": "mcp__bank__pay_bill", "args": {"amount": "a lot"}, "want": false},
	{"name": "minor units of stripe", "g": {"max_amount": 100}, "tool": "mcp__stripe__create_refund", "args": {"charge": "ch_1", "amount": 9900}, "want": true},
	{"name": "minor units of stripe over", "g": {"max_amount": 100}, "tool": "mcp__stripe__create_refund", "args": {"charge": "ch_1", "amount": 10100}, "want": false},
	{"name": "a *_amount key", "g": {"max_amount": 100}, "tool": "mcp__bank__transfer", "args": {"transfer_amount": 500}, "want": false},
	{"name": "no amount shown", "g": {"max_amount": 100}, "tool": "mcp__stripe__create_refund", "args": {"charge": "ch_1"}, "want": true},
	{"name": "the day named", "g": {"days": ["thursday"]}, "tool": "mcp__cal__create_event", "args": {"start": "2026-12-03T14:00"}, "want": true},
	{"name": "another day", "g": {"days": ["thursday"]}, "tool": "mcp__cal__create_event", "args": {"start": "2026-12-04T14:00"}, "want": false},
	{"name": "one date of two on another day", "g": {"days": ["thursday"]}, "tool": "mcp__cal__create_event", "args": {"start": "2026-12-03T14:00", "end": "2026-12-04T10:00"}, "want": false},
	{"name": "nested date", "g": {"days": ["wednesday"]}, "tool": "mcp__cal__create_event", "args": {"start": {"dateTime": "2026-12-09T16:00:00Z"}}, "want": true},
	{"name": "no date shown", "g": {"days": ["thursday"]}, "tool": "mcp__cal__create_event", "args": {"summary": "x"}, "want": false},
	{"name": "no such date", "g": {"days": ["thursday"]}, "tool": "mcp__cal__create_event", "args": {"start": "2026-13-45"}, "want": false},
	{"name": "the charge named", "g": {"refs": ["ch_3nq8"]}, "tool": "mcp__stripe__create_refund", "args": {"charge": "ch_3Nq8"}, "want": true},
	{"name": "another charge", "g": {"refs": ["ch_3nq8"]}, "tool": "mcp__stripe__create_refund", "args": {"charge": "ch_9Zz1"}, "want": false},
	{"name": "the charge named beside another", "g": {"refs": ["ch_3nq8"]}, "tool": "mcp__stripe__create_refund", "args": {"charge": "ch_3Nq8", "payment_intent": "pi_9"}, "want": false},
	{"name": "no charge shown", "g": {"refs": ["ch_3nq8"]}, "tool": "mcp__stripe__create_refund", "args": {"reason": "duplicate"}, "want": false},
	{"name": "an order number inside a reference", "g": {"refs": ["4411"]}, "tool": "mcp__shop__refund_order", "args": {"order_id": "INV-4411"}, "want": true},
	{"name": "an order number as a number", "g": {"refs": ["8812"]}, "tool": "mcp__shop__refund_order", "args": {"order": 8812}, "want": true},
	{"name": "a longer number is another", "g": {"refs": ["77"]}, "tool": "mcp__github__update_issue", "args": {"issue_number": 778}, "want": false},
	{"name": "another issue beside the one named", "g": {"refs": ["77"]}, "tool": "mcp__github__update_issue", "args": {"issue_number": 78, "body": "see #77"}, "want": false},
	{"name": "the issue key named", "g": {"refs": ["eng-502"]}, "tool": "mcp__linear__update_issue", "args": {"id": "ENG-502"}, "want": true},
	{"name": "a key that only starts the same", "g": {"refs": ["eng-502"]}, "tool": "mcp__linear__update_issue", "args": {"id": "ENG-5020"}, "want": false},
]

test_condition_and_refund_bounds if {
	bad := [row.name |
		some row in bound_cases
		got := bound_covered(row)
		got != row.want
	]
	report(bad)
	count(bad) == 0
}

bound_covered(row) if covers(object.union(pay, row.g), a("FINANCIAL", {"caps": {"pay"}}), paid(row.tool, row.args))

else := false
