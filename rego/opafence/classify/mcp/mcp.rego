# METADATA
# title: MCP tool classification
# description: |
#   mcp__<server>__<tool> by the words of its name (facts.tool.mcp.words): every verb counts and
#   the riskiest wins; a name with no known verb is UNKNOWN. An MCP call always leaves the
#   process for the server, so it counts as egress.
# schemas:
#   - input: schema.input
package opafence.classify.mcp

import data.opafence.classify.verbs
import data.opafence.lib.action

# METADATA
# title: is_mcp
# description: True when the tool is an MCP tool.
is_mcp if startswith(input.call.tool, "mcp__")

# METADATA
# title: words
# description: The lower-case words of the tool's name (the facts', else split here on _ . -).
words := [lower(w) | some w in input.facts.tool.mcp.words] if {
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
# description: The classes the tool name's verbs give (verbs.classes).
name_classes := verbs.classes(words)

actions contains action.make("EXTERNAL_WRITE", {
	"domains": destination_hosts, "egress": true, "why": "a URL the service will call",
	"named": {"domains"},
}) if {
	is_mcp
	count(destination_hosts) > 0
	count(name_classes - {"READ", "UNKNOWN"}) > 0
}

extra(c) := {"egress": true, "caps": caps_of(c), "named": named_of(c)}

# Access an MCP tool gives (share, invite, add a member, change a role) is a share.
caps_of(c) := {"share"} if c == "PERMISSION_CHANGE"

else := set()

people_classes := {"EXTERNAL_WRITE", "PERMISSION_CHANGE", "FINANCIAL"}

named_of(c) := {"recipients"} if {
	c in people_classes
	count(data.opafence.classify.fact_recipients) > 0
} else := set()

# METADATA
# title: head_object
# description: What the tool's name acts on (verbs.head_object), for object grants.
head_object := verbs.head_object(words, verb_map) if is_mcp

verb_map := verbs.verb_map(words)

# METADATA
# title: name_operations
# description: Per class, the kinds of action of the tool's verbs (verbs.operations), for object grants.
name_operations := verbs.operations(words, object.get(input.call, "args", {}), name_classes, verb_map) if is_mcp

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
