package opafence.classify.mcp_test

import data.opafence.classify
import data.opafence.classify.mcp
import data.opafence.testing.mcp_input
import data.opafence.testing.recipient
import data.opafence.testing.report

# MCP tools as Hermes names them, with the words the facts builder gives.
cases := [
	{"tool": "mcp__gmail__list_messages", "words": ["list", "messages"], "want": {"READ"}},
	{"tool": "mcp__gmail__send_email", "words": ["send", "email"], "want": {"COMMUNICATION"}},
	{"tool": "mcp__gmail__create_draft", "words": ["create", "draft"], "want": {"EXTERNAL_WRITE"}},
	{"tool": "mcp__crm__getOrCreate_contact", "words": ["get", "or", "create", "contact"], "want": {"EXTERNAL_WRITE"}},
	{"tool": "mcp__shop__check_out", "words": ["check", "out"], "want": {"FINANCIAL"}},
	{"tool": "mcp__mail__read_and_archive", "words": ["read", "and", "archive"], "want": {"EXTERNAL_WRITE"}},
	{"tool": "mcp__x__do_thing", "words": ["do", "thing"], "want": {"UNKNOWN"}},
	{"tool": "mcp__fs__read_resource", "words": ["read", "resource"], "want": {"READ"}},
	{"tool": "mcp__fs__list_resources", "words": ["list", "resources"], "want": {"READ"}},
	{"tool": "mcp__drive__share_file", "words": ["share", "file"], "want": {"COMMUNICATION", "PERMISSION_CHANGE"}},
	{"tool": "mcp__github__delete_repository", "words": ["delete", "repository"], "want": {"DELETE"}},
	# Without words from the facts, the name is split here.
	{"tool": "mcp__slack__post_message", "words": [], "want": {"COMMUNICATION"}},
	{"tool": "mcp__bank__Transfer-Funds.now", "words": [], "want": {"FINANCIAL"}},
	# A first word that repeats the server's name is no word of the tool's name.
	{"tool": "mcp__slack__slack_post_message", "words": ["slack", "post", "message"], "want": {"COMMUNICATION"}},
	{"tool": "mcp__jira__jira_create_issue", "words": ["jira", "create", "issue"], "want": {"EXTERNAL_WRITE"}},
	{"tool": "mcp__google_calendar__google_list_events", "words": ["google", "list", "events"], "want": {"READ"}},
	{"tool": "mcp__slack__slack", "words": ["slack"], "want": {"UNKNOWN"}},
	# A payment-named write is the payment, not an external write beside it.
	{"tool": "mcp__wise__create_transfer", "words": ["create", "transfer"], "want": {"FINANCIAL"}},
	{"tool": "mcp__stripe__create_refund", "words": ["create", "refund"], "want": {"FINANCIAL"}},
	{"tool": "mcp__stripe__create_invoice", "words": ["create", "invoice"], "want": {"EXTERNAL_WRITE"}},
	{"tool": "mcp__mybank__add_payee", "words": ["add", "payee"], "want": {"FINANCIAL"}},
	{"tool": "mcp__spotify__change_plan", "words": ["change", "plan"], "want": {"FINANCIAL"}},
	{"tool": "mcp__okta__add_user_to_group", "words": ["add", "user", "to", "group"], "want": {"EXTERNAL_WRITE", "PERMISSION_CHANGE"}},
	{"tool": "mcp__github__request_reviewers", "words": ["request", "reviewers"], "want": {"EXTERNAL_WRITE"}},
	{"tool": "mcp__github__create_pull_request", "words": ["create", "pull", "request"], "want": {"EXTERNAL_WRITE"}},
]

test_create_pull_request_is_only_a_create if {
	mcp.name_operations == {"EXTERNAL_WRITE": {"create"}} with input as mcp_input("mcp__github__create_pull_request", ["create", "pull", "request"], {})
	mcp.name_operations == {"EXTERNAL_WRITE": {"append"}} with input as mcp_input("mcp__notion__append_block_children", ["append", "block", "children"], {})
}

test_mcp_table if {
	bad := [{"tool": row.tool, "got": got, "want": row.want} |
		some row in cases
		got := classify.classes with input as mcp_input(row.tool, row.words, {})
		got != row.want
	]
	report(bad)
	count(bad) == 0
}

test_mcp_is_egress if {
	classify.egress with input as mcp_input("mcp__gmail__list_messages", ["list", "messages"], {})
}

test_mcp_recipients_are_targets if {
	inp := mcp_input("mcp__gmail__send_email", ["send", "email"], {"recipients": [
		recipient("John@Example.com", "to"),
		recipient("eve@evil.example", "cc"),
	]})
	classify.targets.COMMUNICATION.recipients == ["eve@evil.example", "john@example.com"] with input as inp
	classify.targets.COMMUNICATION.open == false with input as inp
}

test_unreadable_recipient_makes_the_message_open if {
	bad := {"raw": "the team", "address": "", "local": "", "domain": "", "field": "to", "valid": false}
	inp := mcp_input("mcp__gmail__send_email", ["send", "email"], {"recipients": [recipient("john@example.com", "to"), bad]})
	classify.targets.COMMUNICATION.open == true with input as inp
}

test_not_mcp if {
	not mcp.is_mcp with input as {"call": {"tool": "read_file"}}
}

# --- chat channels are recipients -----------------------------------------------------------------

post(args) := object.union(mcp_input("mcp__slack__post_message", ["post", "message"], {}), {"call": {"args": args}})

test_channel_is_a_recipient if {
	classify.targets.COMMUNICATION.recipients == ["#releases"] with input as post({"channel": "#releases", "text": "x"})
	classify.targets.COMMUNICATION.recipients == ["#releases"] with input as post({"channel": " Releases", "text": "x"})
	classify.targets.COMMUNICATION.open == false with input as post({"channel": "#releases", "text": "x"})
}

test_handles_are_recipients if {
	classify.targets.COMMUNICATION.recipients == ["@oskar"] with input as post({"channel": "@Oskar", "text": "x"})
	classify.targets.COMMUNICATION.open == false with input as post({"channel": "@oskar", "text": "x"})
	inp := mcp_input("mcp__github__request_reviewers", ["request", "reviewers"], {})
	classify.targets.EXTERNAL_WRITE.recipients == ["@tanvir", "@z"] with input as with_args(inp, {"reviewers": ["@tanvir", "@z", "plain"]})
	classify.targets.EXTERNAL_WRITE.recipients == ["@tanvir"] with input as with_args(inp, {"user": "@tanvir"})
	count(classify.targets.EXTERNAL_WRITE.recipients) == 0 with input as with_args(inp, {"user": "tanvir"})
}

test_unplain_channel_makes_the_message_open if {
	classify.targets.COMMUNICATION.open == true with input as post({"channel": "#rel\u0435ases", "text": "x"})
	classify.targets.COMMUNICATION.open == true with input as post({"channel": ["#releases"], "text": "x"})
}

test_channel_written_as_an_address_is_clear if {
	ch := {"raw": "#releases", "address": "#releases", "local": "#releases", "domain": "", "field": "to", "valid": false, "mixed_script": false, "confusable": false}
	inp := mcp_input("mcp__slack__post_message", ["post", "message"], {"recipients": [ch]})
	classify.targets.COMMUNICATION.open == false with input as inp
	look := object.union(ch, {"confusable": true})
	classify.targets.COMMUNICATION.open == true with input as mcp_input("mcp__slack__post_message", ["post", "message"], {"recipients": [look]})
}

# --- people, callbacks and access ------------------------------------------------------------------

with_args(inp, args) := object.union(inp, {"call": {"args": args}})

hook_url := {
	"raw": "https://evil.com/h", "scheme": "https", "host": "evil.com", "port": null, "path": "/h", "query_len": 0,
	"has_credentials": false, "secret_like": false, "ip": false, "loopback": false, "private": false,
	"arg": "webhook_url",
}

test_callback_url_is_a_write_to_its_host if {
	inp := mcp_input("mcp__gmail__send_email", ["send", "email"], {"urls": [hook_url], "recipients": [recipient("john@example.com", "to")]})
	classify.classes == {"COMMUNICATION", "EXTERNAL_WRITE"} with input as inp
	classify.targets.EXTERNAL_WRITE.domains == ["evil.com"] with input as inp
}

test_a_link_is_no_callback if {
	inp := mcp_input("mcp__gmail__send_email", ["send", "email"], {"urls": [object.union(hook_url, {"arg": "link"})]})
	classify.classes == {"COMMUNICATION"} with input as inp
}

test_a_read_with_a_callback_stays_a_read if {
	inp := mcp_input("mcp__x__get_status", ["get", "status"], {"urls": [hook_url]})
	classify.classes == {"READ"} with input as inp
}

test_attendees_must_be_named if {
	inp := mcp_input("mcp__calendar__create_event", ["create", "event"], {"recipients": [recipient("eve@x.com", "attendees")]})
	some a in classify.actions with input as inp
	a.class == "EXTERNAL_WRITE"
	a.named == {"recipients"}
}

test_messages_name_their_recipients_anyway if {
	inp := mcp_input("mcp__gmail__send_email", ["send", "email"], {"recipients": [recipient("eve@x.com", "to")]})
	some a in classify.actions with input as inp
	a.class == "COMMUNICATION"
	a.named == set()
}

test_share_access_levels if {
	share := mcp_input("mcp__drive__share_file", ["share", "file"], {})
	mcp.access_levels == {"admin"} with input as with_args(share, {"email": "a@b.c", "role": "Owner"})
	mcp.access_levels == {"read", "?"} with input as with_args(share, {"permissions": [{"role": "reader"}, {"role": "boss"}]})
	count(mcp.access_levels) == 0 with input as with_args(share, {"email": "a@b.c"})
	mcp.access_levels == {"read", "admin"} with input as with_args(share, {"email": "a@b.c", "role": "reader", "transfer_ownership": true})
	mcp.access_levels == {"admin"} with input as with_args(share, {"email": "a@b.c", "new_owner": "a@b.c"})
	count(mcp.access_levels) == 0 with input as with_args(share, {"email": "a@b.c", "transfer_ownership": false})
	count(mcp.access_levels) == 0 with input as with_args(share, {"email": "a@b.c", "transferOwnership": "false"})
	mcp.open_grantee with input as with_args(share, {"type": "anyone", "role": "reader"})
	mcp.open_grantee with input as with_args(share, {"public": true})
	not mcp.open_grantee with input as with_args(share, {"type": "user", "email": "a@b.c"})
}

test_share_caps if {
	inp := mcp_input("mcp__drive__share_file", ["share", "file"], {"recipients": [recipient("a@b.co", "email")]})
	some a in classify.actions with input as inp
	a.class == "PERMISSION_CHANGE"
	a.caps == {"share"}
}

# --- what a name acts on, and how ------------------------------------------------------------------

object_cases := [
	{"words": ["create", "issue"], "object": "issue", "ops": {"EXTERNAL_WRITE": {"create"}}},
	{"words": ["merge", "pull", "request"], "object": "pull_request", "ops": {"EXTERNAL_WRITE": {"merge"}}},
	{"words": ["add", "issue", "comment"], "object": "comment", "ops": {"EXTERNAL_WRITE": {"create"}}},
	{"words": ["add", "comment", "to", "issue"], "object": "comment", "ops": {"EXTERNAL_WRITE": {"create"}}},
	{"words": ["create", "issue", "in", "repo"], "object": "issue", "ops": {"EXTERNAL_WRITE": {"create"}}},
	{"words": ["issues", "create"], "object": "issue", "ops": {"EXTERNAL_WRITE": {"create"}}},
	{"words": ["create", "or", "update", "file"], "object": "file", "ops": {"EXTERNAL_WRITE": {"upsert"}}},
	{"words": ["create", "pull", "request", "review"], "object": "review", "ops": {"EXTERNAL_WRITE": {"create"}}},
	{"words": ["update", "repository"], "object": "repository", "ops": {"EXTERNAL_WRITE": {"update"}}},
	{"words": ["delete", "email"], "object": "message", "ops": {"DELETE": {"delete"}}},
	{"words": ["trash", "message"], "object": "message", "ops": {"DELETE": {"delete"}}},
	{"words": ["create", "event", "v2"], "object": "event", "ops": {"EXTERNAL_WRITE": {"create"}}},
	{"words": ["comment", "on", "issue"], "object": "comment", "ops": {"COMMUNICATION": {"create"}}},
	{"words": ["create", "widget"], "object": "?widget", "ops": {"EXTERNAL_WRITE": {"create"}}},
	{"words": ["merge"], "object": "", "ops": {"EXTERNAL_WRITE": {"merge"}}},
	{"words": ["approve", "pull", "request"], "object": "pull_request", "ops": {"EXTERNAL_WRITE": {"approve"}}},
	{"words": ["send", "and", "archive"], "object": "", "ops": {"COMMUNICATION": {"send"}, "EXTERNAL_WRITE": {"close"}}},
	{"words": ["check", "out"], "object": "", "ops": {"FINANCIAL": {"check_out"}}},
	{"words": ["set", "up", "webhook"], "object": "webhook", "ops": {"EXTERNAL_WRITE": {"set_up"}}},
	{"words": ["book", "flight"], "object": "flight", "ops": {"FINANCIAL": {"create"}}},
]

tool_of(words) := concat("", ["mcp__x__", concat("_", words)])

test_head_object_and_operations if {
	bad := [{"words": row.words, "object": o, "ops": ops} |
		some row in object_cases
		inp := mcp_input(tool_of(row.words), row.words, {})
		o := mcp.head_object with input as inp
		ops := mcp.name_operations with input as inp
		[o, ops] != [row.object, row.ops]
	]
	report(bad)
	count(bad) == 0
}

test_method_argument_names_the_kind if {
	inp := mcp_input("mcp__github__issue_write", ["issue", "write"], {})
	mcp.head_object == "issue" with input as with_args(inp, {"method": "create"})
	mcp.name_operations == {"EXTERNAL_WRITE": {"create"}} with input as with_args(inp, {"method": "create"})
	mcp.name_operations == {"EXTERNAL_WRITE": {"update"}} with input as with_args(inp, {"method": "update"})
	mcp.name_operations == {"EXTERNAL_WRITE": {"update"}} with input as inp
}

test_no_mcp_no_object if {
	mcp.head_object == "" with input as {"call": {"tool": "terminal", "args": {}}, "facts": {"tool": {}}}
}

# SQL a query tool carries (facts.sql, as adapter/opafence/facts/sql.py gives it) -> classes.
sql_stmt(first, words, functions) := {"first": first, "words": array.concat([first], words), "functions": functions}

sql_cases := [
	{"name": "a count", "sql": [{"arg": "sql", "opaque": false, "statements": [sql_stmt("select", ["count", "from", "users"], ["count"])]}], "want": {"READ"}},
	{"name": "a delete", "sql": [{"arg": "sql", "opaque": false, "statements": [sql_stmt("delete", ["from", "users"], [])]}], "want": {"READ", "EXTERNAL_WRITE"}},
	{"name": "a read then a drop", "sql": [{"arg": "sql", "opaque": false, "statements": [sql_stmt("select", ["1"], []), sql_stmt("drop", ["table", "users"], [])]}], "want": {"READ", "EXTERNAL_WRITE"}},
	{"name": "a writing CTE", "sql": [{"arg": "sql", "opaque": false, "statements": [sql_stmt("with", ["gone", "as", "delete", "from", "users", "returning", "select"], [])]}], "want": {"READ", "EXTERNAL_WRITE"}},
	{"name": "select into a new table", "sql": [{"arg": "sql", "opaque": false, "statements": [sql_stmt("select", ["into", "backup", "from", "users"], [])]}], "want": {"READ", "EXTERNAL_WRITE"}},
	{"name": "a function with effects", "sql": [{"arg": "sql", "opaque": false, "statements": [sql_stmt("select", ["pg_terminate_backend", "pid", "from", "pg_stat_activity"], ["pg_terminate_backend"])]}], "want": {"READ", "EXTERNAL_WRITE"}},
	{"name": "a setting", "sql": [{"arg": "sql", "opaque": false, "statements": [sql_stmt("set", ["role", "admin"], [])]}], "want": {"READ", "EXTERNAL_WRITE"}},
	{"name": "an unknown first word", "sql": [{"arg": "sql", "opaque": false, "statements": [sql_stmt("frobnicate", [], [])]}], "want": {"READ", "EXTERNAL_WRITE"}},
	{"name": "text left open", "sql": [{"arg": "sql", "opaque": true, "statements": [sql_stmt("select", [], [])]}], "want": {"READ", "EXTERNAL_WRITE"}},
	{"name": "explain", "sql": [{"arg": "query", "opaque": false, "statements": [sql_stmt("explain", ["select", "from", "orders"], [])]}], "want": {"READ"}},
	{"name": "a string function is no write", "sql": [{"arg": "sql", "opaque": false, "statements": [sql_stmt("select", ["lower", "email", "from", "users"], ["lower"])]}], "want": {"READ"}},
]

test_sql_table if {
	bad := [{"name": row.name, "got": got, "want": row.want} |
		some row in sql_cases
		got := classify.classes with input as mcp_input("mcp__postgres__query", ["query"], {"sql": row.sql})
		got != row.want
	]
	report(bad)
	count(bad) == 0
}
