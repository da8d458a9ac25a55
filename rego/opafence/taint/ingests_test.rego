package opafence.taint.ingests_test

import data.opafence.taint
import data.opafence.test.fixtures as f

one(argv) := f.terminal([f.sh(argv)])

with_urls(inp, us) := object.union(inp, {"facts": object.union(inp.facts, {"urls": us})})

evil := f.url("https://evil.test/x", "evil.test", "/x", 0)

local := f.url("http://localhost:8080/health", "localhost", "/health", 0)

code(network, urls) := f.call("execute_code", {"code": "x"}, {"urls": urls, "code": {
	"language": "python", "opaque": false, "opaque_reasons": [], "imports": [], "calls": [],
	"tool_calls": [], "network": network,
}})

cases := [
	# --- tools whose results are someone else's content ---------------------------------------
	{"name": "web page", "input": f.call("web_extract", {"urls": ["https://a.test"]}, {}), "want": {"web"}},
	{"name": "search results", "input": f.call("web_search", {"query": "x"}, {}), "want": {"search"}},
	{"name": "browser page", "input": f.call("browser_snapshot", {}, {}), "want": {"web"}},
	{"name": "chat messages", "input": f.call("discord", {"action": "fetch_messages"}, {}), "want": {"chat"}},
	{"name": "a chat send is an acknowledgement", "input": f.call("discord", {"action": "create_thread"}, {}), "want": set()},
	{"name": "shared board", "input": f.call("kanban_show", {"id": "1"}, {}), "want": {"board"}},
	{"name": "past sessions", "input": f.call("session_search", {"query": "x"}, {}), "want": {"history"}},
	{"name": "mcp read", "input": f.call("mcp__gmail__search_emails", {"query": "x"}, {}), "want": {"mcp"}},
	{"name": "mcp send (the taint module judges acknowledgements)", "input": f.call("mcp__gmail__send_email", {"to": "a@b.test"}, {}), "want": {"mcp"}},
	{"name": "an image from the web", "input": with_urls(f.call("vision_analyze", {"image_url": "x"}, {}), [evil]), "want": {"web"}},
	{"name": "a local image", "input": f.call("vision_analyze", {"image_url": "x"}, {"paths": [f.pf("shot.png", "image_url", "arg", "")]}), "want": set()},
	{"name": "own tools bring nothing", "input": f.call("todo", {"todos": []}, {}), "want": set()},
	# --- files ---------------------------------------------------------------------------------
	{"name": "file outside the workspace", "input": f.read_file("/tmp/notes.txt"), "want": {"outside_file"}},
	{"name": "file in the workspace", "input": f.read_file("README.md"), "want": set()},
	{"name": "shell read outside", "input": one(["cat", "/tmp/x"]), "want": {"outside_file"}},
	{"name": "shell read inside", "input": one(["cat", "README.md"]), "want": set()},
	{"name": "grep pattern is not a file", "input": one(["grep", "/api/", "src/x.py"]), "want": set()},
	{"name": "grep of an outside file", "input": one(["grep", "foo", "/tmp/x"]), "want": {"outside_file"}},
	{"name": "awk program is not a file", "input": one(["awk", "/^a/", "Makefile"]), "want": set()},
	{"name": "find lists names", "input": one(["find", "/tmp", "-name", "x"]), "want": set()},
	{"name": "null device", "input": one(["cat", "/dev/null"]), "want": set()},
	# --- the network ---------------------------------------------------------------------------
	{"name": "curl a remote host", "input": with_urls(one(["curl", "-s", "https://evil.test/x"]), [evil]), "want": {"network"}},
	{"name": "curl localhost", "input": with_urls(one(["curl", "-s", "http://localhost:8080/health"]), [local]), "want": set()},
	{"name": "curl localhost and a remote host", "input": with_urls(f.terminal([f.sh(["curl", "http://localhost:8080/health"]), f.sh(["curl", "https://evil.test/x"])]), [local, evil]), "want": {"network"}},
	{"name": "git pull (its remote is not named)", "input": one(["git", "pull"]), "want": {"network"}},
	{"name": "git clone", "input": with_urls(one(["git", "clone", "https://evil.test/r"]), [f.url("https://evil.test/r", "evil.test", "/r", 0)]), "want": {"network"}},
	{"name": "git status stays local", "input": one(["git", "status"]), "want": set()},
	{"name": "pip download", "input": one(["pip", "download", "x"]), "want": {"network"}},
	{"name": "pip install", "input": one(["pip", "install", "x"]), "want": {"network"}},
	{"name": "gh api", "input": one(["gh", "api", "repos/a/b/issues"]), "want": {"network"}},
	{"name": "dig", "input": one(["dig", "TXT", "evil.test"]), "want": {"network"}},
	{"name": "a local program", "input": one(["pytest", "-q"]), "want": set()},
	{"name": "shell nobody understood may have fetched", "input": object.union(one(["x"]), {"facts": object.union(f.empty_facts, {"shell": {"opaque": true, "opaque_reasons": ["shell_eval"], "commands": []}})}), "want": {"network"}},
	{"name": "code with network", "input": code(true, [evil]), "want": {"network"}},
	{"name": "code with network to localhost only", "input": code(true, [local]), "want": set()},
	{"name": "code without network", "input": code(false, []), "want": set()},
	{
		"name": "a web tool called from code", "input": f.call("execute_code", {"code": "x"}, {"code": {
			"language": "python", "opaque": false, "opaque_reasons": [], "imports": [], "calls": [],
			"tool_calls": ["web_extract"], "network": false,
		}}),
		"want": {"network"},
	},
]

got(c) := r if {
	r := taint.ingests with input as c.input with data.tasks.t as f.no_task
}

# The table in chunks of 12, so that no single test runs long on a busy machine.
chunk_failures(k) := [sprintf("%s: got %v want %v", [c.name, got(c), c.want]) |
	some c in array.slice(cases, k * 12, (k + 1) * 12)
	got(c) != c.want
]

test_ingests_table_0 if {
	fails := chunk_failures(0)
	print(fails)
	fails == []
}

test_ingests_table_1 if {
	fails := chunk_failures(1)
	print(fails)
	fails == []
}

test_ingests_table_2 if {
	fails := chunk_failures(2)
	print(fails)
	fails == []
}

test_ingests_table_3 if {
	fails := chunk_failures(3)
	print(fails)
	fails == []
}

test_ingests_table_chunks_cover_every_case if count(cases) <= 4 * 12
