# METADATA
# title: MCP tool classification
# description: |
#   mcp__<server>__<tool> by the words of its name (facts.tool.mcp.words): every verb counts and
#   the riskiest wins; a name with no known verb is UNKNOWN. An MCP call always leaves the
#   process for the server, so it counts as egress.
# schemas:
#   - input: schema.input
package opafence.classify.mcp

import data.opafence.classify.ops
import data.opafence.classify.verbs
import data.opafence.lib.action

# METADATA
# title: is_mcp
# description: True when the tool is an MCP tool.
is_mcp if startswith(input.call.tool, "mcp__")

# METADATA
# title: words
# description: |
#   The lower-case words of the tool's name (the facts', else split here on _ . -), without a
#   first word that only repeats the server's name ("slack_post_message" on server slack is
#   "post_message"): a verb after it is in the verb position.
words := array.slice(name_words, 1, count(name_words)) if {
	count(name_words) > 1
	server_word(name_words[0])
} else := name_words

server := lower(object.get(input.facts.tool, ["mcp", "server"], split(input.call.tool, "__")[1]))

server_word(w) if w == server

server_word(w) if w in split(server, "_")

name_words := [lower(w) | some w in input.facts.tool.mcp.words] if {
	count(input.facts.tool.mcp.words) > 0
} else := [w |
	parts := split(input.call.tool, "__")
	name := concat("__", array.slice(parts, 2, count(parts)))
	some w in regex.split(`[_.\-]+`, lower(name))
	w != ""
]

# METADATA
# title: actions
# description: |
#   One action per class the name's verbs give, with the targets the facts found. A write that
#   reaches people (attendees, invitees, a payee's address) or gives access is covered only by a
#   grant that names them; a URL the service will call (a webhook, a callback) is an external
#   write to that host, covered only by a grant that names it.
actions contains action.make(c, object.union(data.opafence.classify.fact_targets(c), extra(c))) if {
	is_mcp
	some c in name_classes
}

# METADATA
# title: name_classes
# description: |
#   The classes the tool name's verbs give (verbs.classes). A tool whose name acts on money ("create_transfer") makes that payment: FINANCIAL, not also
#   an external write beside it (a payment grant covers it, and it still asks).
name_classes := verbs.classes(words) - {"EXTERNAL_WRITE"} if {
	verbs.payment_name(words)
} else := verbs.classes(words)

actions contains action.make("EXTERNAL_WRITE", {
	"domains": destination_hosts, "egress": true, "why": "a URL the service will call",
	"named": {"domains"},
}) if {
	is_mcp
	count(destination_hosts) > 0
	count(name_classes - {"READ", "UNKNOWN"}) > 0
}

# METADATA
# title: sql_writes
# description: |
#   True when the SQL a call's arguments carry (facts.sql) changes the database: a statement that
#   does not start as a read, a write word or a function with effects anywhere in it (data.yaml
#   sql_*), or text that could not be read to its end.
sql_writes if {
	some s in object.get(input.facts, "sql", [])
	_sql_entry_writes(s)
}

_sql_entry_writes(s) if s.opaque

_sql_entry_writes(s) if {
	some st in s.statements
	_statement_writes(st)
}

_statement_writes(st) if not data.opafence.classify.mcp.sql_read_starters[st.first]

_statement_writes(st) if {
	some w in st.words
	data.opafence.classify.mcp.sql_write_words[w]
}

_statement_writes(st) if {
	some f in st.functions
	data.opafence.classify.mcp.sql_write_functions[f]
}

# SQL that writes, sent through a tool whose name reads ("query", "run_select"): an external write
# to the database the server holds, whatever the name says.
actions contains action.make("EXTERNAL_WRITE", {"egress": true, "why": "an SQL statement that changes the database"}) if {
	is_mcp
	sql_writes
}

extra(c) := {"egress": true, "caps": ((action.bases[c].caps | caps_of(c)) | {"operate"}), "named": named_of(c), "operate": ops.mcp_op} if {
	c in {"EXECUTION", "EXTERNAL_WRITE"}
	ops.mcp_op
} else := {"egress": true, "caps": caps_of(c), "named": named_of(c)}

# Access an MCP tool gives (share, invite, add a member, change a role) is a share.
caps_of(c) := {"share"} if c == "PERMISSION_CHANGE"

else := set()

people_classes := {"EXTERNAL_WRITE", "PERMISSION_CHANGE", "FINANCIAL"}

named_of(c) := {"recipients"} if {
	c in people_classes
	count(data.opafence.classify.fact_recipients) > 0
} else := set()

# --- what the name acts on, and how (object grants) ----------------------------------------------

phrase_starts contains i if {
	some i, w in words
	i + 1 < count(words)
	data.opafence.classify.verbs.phrase_table[concat("_", [w, words[i + 1]])]
}

phrase_words contains i if some i in phrase_starts

phrase_words contains j if {
	some i in phrase_starts
	j := i + 1
}

verb_positions contains 0

verb_positions contains i if {
	some i, _ in words
	i > 0
	data.opafence.classify.verbs.conjunction_words[words[i - 1]]
}

# METADATA
# title: verb_words
# description: |
#   The words of the name that are verbs there, each with the classes it gives (a two-word verb
#   counts at its first word; its second word is a verb with no classes of its own).
verb_words[i] := cs if {
	some i, w in words
	not i in phrase_words
	not data.opafence.classify.verbs.booking_verbs[w]
	cs := {c | some c in data.opafence.classify.verbs.verb_table[w]} | {c |
		i in verb_positions
		some c in data.opafence.classify.verbs.noun_verb_table[w]
	}
	count(cs) > 0
}

verb_words[i] := cs if {
	some i in phrase_starts
	phrase := concat("_", [words[i], words[i + 1]])
	cs := {c | some c in data.opafence.classify.verbs.phrase_table[phrase]}
}

verb_words[j] := set() if {
	some i in phrase_starts
	j := i + 1
}

verb_words[i] := {verbs.booking_class(words)} if {
	some i, w in words
	data.opafence.classify.verbs.booking_verbs[w] == "verb"
}

verb_words[i] := {verbs.booking_class(words)} if {
	some i, w in words
	data.opafence.classify.verbs.booking_verbs[w] == "noun_verb"
	i in verb_positions
}

# "create_or_update": the three words are one upsert.
upsert_words contains j if {
	some i, _ in words
	i + 2 < count(words)
	data.opafence.classify.verbs.upsert_phrases[concat("_", array.slice(words, i, i + 3))]
	some j in numbers.range(i, i + 2)
}

# METADATA
# title: name_operations
# description: |
#   Per class, the kinds of action (verbs data operation_kinds) of the name's verbs of that
#   class, for object grants: a verb without a kind is its own kind, which no grant names; an
#   argument may name the kind of a generic verb ("issue_write" with method "create").
name_operations[c] contains kind_at(i) if {
	some i, cs in verb_words
	some c in cs
	not i in upsert_words
}

name_operations[c] contains "upsert" if {
	some i, cs in verb_words
	some c in cs
	i in upsert_words
}

kind_at(i) := kind if {
	data.opafence.classify.verbs.method_verbs[words[i]]
	some k, v in object.get(input.call, "args", {})
	data.opafence.classify.verbs.method_args[lower(k)]
	is_string(v)
	kind := object.get(data.opafence.classify.verbs.operation_kinds, lower(v), lower(v))
} else := object.get(data.opafence.classify.verbs.operation_kinds, concat("_", [words[i], words[i + 1]]), concat("_", [words[i], words[i + 1]])) if {
	i in phrase_starts
} else := object.get(data.opafence.classify.verbs.operation_kinds, words[i], words[i])

noun_words contains i if {
	end := verbs.name_end(words)
	some i, w in words
	i < end
	not verb_words[i]
	not data.opafence.classify.verbs.name_qualifiers[w]
	not regex.match(`^[0-9]+$`, w)
}

# METADATA
# title: head_object
# description: |
#   What the tool's name acts on: the object (verbs data object_words) of its last noun before a
#   preposition ("add_issue_comment" -> comment, "create_issue_in_repo" -> issue,
#   "merge_pull_request" -> pull_request), else the object its verb implies ("comment_on_issue"
#   -> comment); "" when it names none, and "?word" for a noun no table knows.
head_object := object_at(max(noun_words)) if {
	is_mcp
	count(noun_words) > 0
} else := data.opafence.classify.verbs.implied_objects[words[0]] if {
	is_mcp
} else := ""

object_at(i) := data.opafence.classify.verbs.compound_objects[concat("_", [words[i - 1], words[i]])] if {
	i > 0
} else := data.opafence.classify.verbs.object_words[words[i]] if {
	true
} else := concat("", ["?", words[i]])

# METADATA
# title: destination_hosts
# description: Hosts of URL arguments that say the service will call them (webhook, callback, redirect_uri ...).
destination_hosts := {lower(u.host) |
	some u in input.facts.urls
	object.get(u, "host", "") != ""
	destination_arg(object.get(u, "arg", ""))
}

destination_parts := {
	"webhook", "callback", "redirect", "notify", "notification", "hook", "postback", "return_url",
	"target_url", "endpoint", "forward_url", "ping_url", "deliver", "listener", "push_url", "sink",
}

destination_arg(k) if {
	some part in destination_parts
	contains(lower(k), part)
}

# --- access a share gives ------------------------------------------------------------------------

# METADATA
# title: access_levels
# description: |
#   The access levels (data.yaml access_roles) the call's role arguments give, at any depth;
#   "?" for a role no table knows. Empty when the call names no role.
access_levels contains level if {
	is_mcp
	walk(object.get(input.call, "args", {}), [path, value])
	count(path) > 0
	is_string(path[count(path) - 1])
	data.opafence.classify.mcp.role_args[lower(path[count(path) - 1])]
	is_string(value)
	level := object.get(data.opafence.classify.mcp.access_roles, lower(trim_space(value)), "?")
}

# An ownership transfer, however spelled (transfer_ownership: true, new_owner: x): more than any
# role a share grant names.
access_levels contains "admin" if {
	is_mcp
	walk(object.get(input.call, "args", {}), [path, value])
	count(path) > 0
	is_string(path[count(path) - 1])
	data.opafence.classify.mcp.ownership_args[lower(path[count(path) - 1])]
	ownership_value(value)
}

ownership_value(true)

ownership_value(v) if {
	is_string(v)
	not lower(trim_space(v)) in {"", "false", "no", "0", "none"}
}

# METADATA
# title: open_grantee
# description: True when the call gives access to anyone, a whole domain or a public link, not to named people.
default open_grantee := false

open_grantee if {
	is_mcp
	walk(object.get(input.call, "args", {}), [path, value])
	count(path) > 0
	is_string(path[count(path) - 1])
	open_grant_value(lower(path[count(path) - 1]), value)
}

open_grant_value(key, value) if {
	data.opafence.classify.mcp.grantee_args[key]
	is_string(value)
	data.opafence.classify.mcp.open_grantees[lower(trim_space(value))]
}

open_grant_value(key, true) if key in {"public", "anyone", "public_link", "link_sharing", "anyone_with_link"}
