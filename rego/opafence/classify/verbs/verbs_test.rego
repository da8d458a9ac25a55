package opafence.classify.verbs_test

import data.opafence.classify.verbs
import data.opafence.testing.report

# MCP tool names (as the facts builder splits them) and the classes their verbs give.
cases := [
	{"words": ["get", "message"], "want": {"READ"}},
	{"words": ["list", "messages"], "want": {"READ"}},
	{"words": ["search", "threads"], "want": {"READ"}},
	{"words": ["read", "resource"], "want": {"READ"}},
	{"words": ["get", "prompt"], "want": {"READ"}},
	{"words": ["get", "post"], "want": {"READ"}},
	{"words": ["download", "attachment"], "want": {"READ"}},
	{"words": ["send", "email"], "want": {"COMMUNICATION"}},
	{"words": ["reply", "to", "thread"], "want": {"COMMUNICATION"}},
	{"words": ["forward", "message"], "want": {"COMMUNICATION"}},
	{"words": ["post", "message"], "want": {"COMMUNICATION"}},
	{"words": ["create", "draft"], "want": {"EXTERNAL_WRITE"}},
	{"words": ["draft", "email"], "want": {"EXTERNAL_WRITE"}},
	{"words": ["send", "draft"], "want": {"COMMUNICATION"}},
	{"words": ["get", "or", "create", "contact"], "want": {"EXTERNAL_WRITE"}},
	{"words": ["read", "and", "archive"], "want": {"EXTERNAL_WRITE"}},
	{"words": ["fetch", "and", "mark", "read"], "want": {"EXTERNAL_WRITE"}},
	{"words": ["read", "and", "frobnicate"], "want": {"UNKNOWN"}},
	{"words": ["list", "then", "delete", "files"], "want": {"DELETE"}},
	{"words": ["check", "out"], "want": {"FINANCIAL"}},
	{"words": ["check", "status"], "want": {"READ"}},
	{"words": ["pay", "invoice"], "want": {"FINANCIAL"}},
	{"words": ["get", "invoice"], "want": {"READ"}},
	{"words": ["create", "order"], "want": {"EXTERNAL_WRITE"}},
	{"words": ["order", "pizza"], "want": {"FINANCIAL"}},
	{"words": ["purchase", "item"], "want": {"FINANCIAL"}},
	{"words": ["place", "order"], "want": {"FINANCIAL"}},
	{"words": ["delete", "file"], "want": {"DELETE"}},
	{"words": ["trash", "message"], "want": {"DELETE"}},
	{"words": ["empty", "trash"], "want": {"DELETE"}},
	{"words": ["share", "document"], "want": {"COMMUNICATION", "PERMISSION_CHANGE"}},
	{"words": ["add", "member"], "want": {"EXTERNAL_WRITE", "PERMISSION_CHANGE"}},
	{"words": ["update", "permissions"], "want": {"EXTERNAL_WRITE", "PERMISSION_CHANGE"}},
	{"words": ["create", "api", "key"], "want": {"EXTERNAL_WRITE", "PERMISSION_CHANGE"}},
	{"words": ["list", "members"], "want": {"READ"}},
	{"words": ["revoke", "token"], "want": {"PERMISSION_CHANGE"}},
	{"words": ["run", "query"], "want": {"EXECUTION"}},
	{"words": ["execute", "sql"], "want": {"EXECUTION"}},
	{"words": ["get", "run"], "want": {"READ"}},
	{"words": ["deploy", "app"], "want": {"EXECUTION", "EXTERNAL_WRITE"}},
	{"words": ["remember", "fact"], "want": {"MEMORY_WRITE"}},
	{"words": ["port", "forward"], "want": {"EXECUTION"}},
	{"words": ["weather"], "want": {"UNKNOWN"}},
	{"words": ["frobnicate", "widget"], "want": {"UNKNOWN"}},
	{"words": [], "want": {"UNKNOWN"}},
	{"words": ["issues", "list"], "want": {"READ"}},
	{"words": ["sign", "up"], "want": {"EXTERNAL_WRITE"}},
	{"words": ["clean", "up", "cache"], "want": {"DELETE"}},
	{"words": ["get", "and", "or", "list"], "want": {"READ"}},
	# resolving a record closes it; resolving a name to what it stands for is a lookup
	{"words": ["resolve", "incident"], "want": {"EXTERNAL_WRITE"}},
	{"words": ["resolve", "ticket"], "want": {"EXTERNAL_WRITE"}},
	{"words": ["resolve", "alert", "by", "id"], "want": {"EXTERNAL_WRITE"}},
	{"words": ["resolve", "thread"], "want": {"EXTERNAL_WRITE"}},
	{"words": ["resolve"], "want": {"EXTERNAL_WRITE"}},
	{"words": ["resolve", "hostname"], "want": {"READ"}},
	{"words": ["resolve", "dns", "record"], "want": {"READ"}},
	{"words": ["resolve", "library", "id"], "want": {"READ"}},
	{"words": ["resolve", "symbol"], "want": {"READ"}},
]

test_verb_table if {
	bad := [{"words": row.words, "got": got, "want": row.want} |
		some row in cases
		got := verbs.classes(row.words)
		got != row.want
	]
	report(bad)
	count(bad) == 0
}

# --- bookings -------------------------------------------------------------------------------------

booking_cases := [
	{"words": ["book", "flight"], "want": {"FINANCIAL"}},
	{"words": ["book", "hotel", "room"], "want": {"FINANCIAL"}},
	{"words": ["book", "conference", "room"], "want": {"EXTERNAL_WRITE"}},
	{"words": ["reserve", "table"], "want": {"FINANCIAL"}},
	{"words": ["book", "meeting", "room"], "want": {"EXTERNAL_WRITE"}},
	{"words": ["reserve", "slot"], "want": {"EXTERNAL_WRITE"}},
	{"words": ["list", "books"], "want": {"READ"}},
	{"words": ["get", "book"], "want": {"READ"}},
	{"words": ["search", "and", "book"], "want": {"FINANCIAL"}},
]

test_bookings_spend_money if {
	bad := [{"words": row.words, "got": got} |
		some row in booking_cases
		got := verbs.classes(row.words)
		got != row.want
	]
	report(bad)
	count(bad) == 0
}
