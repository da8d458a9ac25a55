# METADATA
# title: Classification
# description: |
#   What a call can do: its actions (risk class + targets), from the user's config.tools
#   mapping when one matches the tool, else from the built-in tables (tools.rego, shell/, mcp/).
#   Exposes classes, the targets of each class, the paths / domains / recipients of the whole
#   call, whether it sends data off the machine (egress), and writes inside and outside the
#   workspace. A call nothing classifies is UNKNOWN, which never allows.
# schemas:
#   - input: schema.input
#   - data.config: schema.config
package opafence.classify

import data.opafence.classify.args
import data.opafence.classify.mcp
import data.opafence.classify.shell
import data.opafence.lib.action
import data.opafence.lib.paths

# --- the user's mapping wins over the built-in tables ------------------------------------------

# METADATA
# title: mapping
# description: The config.tools entry for this tool, exact name first, else the longest matching glob.
mapping := m if {
	m := data.config.tools[input.call.tool]
} else := data.config.tools[pattern] if {
	# the most specific (longest) matching glob wins; ties go to the first in sort order
	ranked := sort([[0 - count(p), p] |
		some p, _ in data.config.tools
		glob.match(p, [], input.call.tool)
	])
	pattern := ranked[0][1]
}

mapped_actions contains action.make(c, fact_targets(c)) if {
	some c in mapping.classes
}

# METADATA
# title: actions
# description: Every action of the call, including the derived ones (self-modification, persistence).
actions := mapped_actions if {
	mapping
} else := base_actions | derived_actions

base_actions := ((tool_actions | shell.actions) | mcp.actions) | fallback_actions

# --- targets from the facts ---------------------------------------------------------------------

fact_paths := {p.path |
	some p in input.facts.paths
	object.get(p, "path", "") != ""
}

fact_domains := {lower(u.host) |
	some u in input.facts.urls
	object.get(u, "host", "") != ""
} | browser_page

# Clicking, typing and pressing keys act on the page the browser is on (issue 14).
browser_page_tools := {"browser_click", "browser_type", "browser_press", "browser_console"}

browser_page := {p} if {
	input.call.tool in browser_page_tools
	p := object.get(input.session, ["browser", "page"], "")
	p != ""
} else := set()

fact_recipients := (({lower(r.address) |
	some r in input.facts.recipients
	object.get(r, "address", "") != ""
	not lower(r.address) in self_words
} | channel_recipients) | handle_recipients) | self_recipients

# The owner themself as a messaging tool's target ("chat_id": "me", "recipient": "me"): the
# recipient "@me" that "send me a Telegram message" names (issue 14).
self_words := {"me", "@me", "self", "myself"}

self_keys := {"chat_id", "chat", "recipient", "to", "user", "user_id", "channel", "channel_id", "target", "dm"}

self_recipients contains "@me" if {
	some k, v in input.call.args
	lower(k) in self_keys
	self_value(v)
}

self_value(v) if {
	is_string(v)
	lower(trim_space(v)) in self_words
}

# A recipient the facts could not read as an address: no recipient grant can cover the call.
recipients_unclear if {
	some r in input.facts.recipients
	not clear_recipient(r)
}

recipients_unclear if {
	some v in channel_values
	not channel_name(v)
	not channel_handle(v)
	not self_value(v)
}

clear_recipient(r) if {
	r.valid == true
	object.get(r, "address", "") != ""
}

clear_recipient(r) if lower(object.get(r, "address", "")) in self_words

# A chat channel or handle written where an address goes (to: "#releases"): plain ASCII only,
# so it cannot be a look-alike of the one the user named.
clear_recipient(r) if {
	regex.match(`^[#@][a-z0-9][a-z0-9_.-]{0,79}$`, object.get(r, "address", ""))
	not r.confusable
	not r.mixed_script
}

# --- chat channels ------------------------------------------------------------------------------

channel_keys := {"channel", "channel_name"}

channel_values contains v if {
	some k, v in input.call.args
	lower(k) in channel_keys
}

channel_name(v) := name if {
	is_string(v)
	name := trim_prefix(lower(trim_space(v)), "#")
	regex.match(`^[a-z0-9][a-z0-9_.-]{0,79}$`, name)
}

# A direct message to a handle written where a channel goes (`"channel": "@oskar"`).
channel_handle(v) := lower(trim_space(v)) if {
	is_string(v)
	regex.match(`^@[a-z0-9][a-z0-9_.-]{0,63}$`, lower(trim_space(v)))
}

# People a call reaches by handle: DM targets, invitees, reviewers ("@tanvir" or ["@tanvir"]).
handle_keys := {"user", "users", "user_handle", "handle", "handles", "reviewers", "invitee", "invitees", "members", "assignee", "assignees"}

handle_recipients contains h if {
	some k, v in input.call.args
	lower(k) in handle_keys
	some h in handle_values(v)
}

handle_values(v) := {h | h := channel_handle(v)} if is_string(v)

handle_values(v) := {h | some x in v; h := channel_handle(x)} if is_array(v)

# METADATA
# title: channel_recipients
# description: |
#   The chat channel a message goes to (`"channel": "#releases"` or `"releases"`), as the
#   recipient "#releases" that the user's words name; a channel argument that is not a plain
#   channel name makes the recipients unclear instead.
channel_recipients := {concat("", ["#", name]) |
	some v in channel_values
	name := channel_name(v)
	not name in self_words
} | {h |
	some v in channel_values
	h := channel_handle(v)
}

# Targets of a table-driven action: whatever the facts found in the arguments.
fact_targets(c) := {
	"paths": fact_paths,
	"domains": fact_domains,
	"recipients": fact_recipients,
	"open": unclear_for(c),
}

unclear_for("COMMUNICATION") if recipients_unclear

else := false

unclear_for(c) := false if c != "COMMUNICATION"

# --- a tool nothing knows ----------------------------------------------------------------------

known_tool if data.opafence.classify.builtin_tools[input.call.tool]

known_tool if mcp.is_mcp

fallback_actions contains action.make("UNKNOWN", {"why": "tool"}) if not known_tool

fallback_actions contains action.make("UNKNOWN", {"why": "opaque arguments"}) if input.facts.opaque == true

# A built-in tool called with arguments its schema does not have (or without a required one).
fallback_actions contains action.make("UNKNOWN", {"why": why}) if {
	some why in args.whys
}

# --- derived actions ---------------------------------------------------------------------------

write_classes := {"LOCAL_WRITE", "DELETE", "PERMISSION_CHANGE"}

# METADATA
# title: protected
# description: Paths that are opafence's or Hermes' own; changing them is SELF_MODIFICATION.
protected contains p if {
	some key in ["state_dir", "hermes_home", "package_dir", "opa_socket"]
	p := object.get(input.host, key, "")
	p != ""
}

protected contains p if {
	some p in data.config.protected_paths
	p != ""
}

protected_bases := paths.bases(protected)

# A write's paths can be more than a write: opafence's or Hermes' own files (SELF_MODIFICATION),
# persistence (EXECUTION, for writes) or access (PERMISSION_CHANGE).
derived_actions contains action.make(k, {"paths": ps, "why": "sensitive path"}) if {
	some a in base_actions
	a.class in write_classes
	some k in derivable[a.class]
	ps := {p | some p in a.paths; k in path_kinds(p)}
	count(ps) > 0
}

derivable := {
	"LOCAL_WRITE": {"SELF_MODIFICATION", "PERMISSION_CHANGE", "EXECUTION"},
	"DELETE": {"SELF_MODIFICATION", "PERMISSION_CHANGE"},
	"PERMISSION_CHANGE": {"SELF_MODIFICATION"},
}

path_kinds(p) := shell.sensitive_kinds(p) | {"SELF_MODIFICATION" | count(paths.ancestors(p) & protected_bases) > 0}

# --- what the rest of the policy reads -----------------------------------------------------------

# METADATA
# title: classes
# description: The set of risk classes of input.call.
classes := quick_classes if {
	not input.facts.opaque
	not mapping
	count(args.whys) == 0
} else := {a.class | some a in actions}

# Calls whose classes need no actions built: a tool whose table entry is a fixed list of
# classes that act on no file, and a shell program of plain reads (ls, cat, grep ...). The
# actions are built only when something asks for them (a class to authorize, a bound).
quick_classes := cs if {
	cs := {c | some c in tool_spec.classes}
	count(cs) > 0
	count(cs & write_classes) == 0
} else := {"READ"} if {
	input.call.tool == "terminal"
	count(input.facts.shell.commands) > 0
	not shell.opaque
	every cmd in input.facts.shell.commands {
		shell.quick_read(cmd)
	}
}

# METADATA
# title: actions_by_class
# description: The actions of each class of the call.
actions_by_class[c] := {a | some a in actions; a.class == c} if some c in classes

# METADATA
# title: targets
# description: Per class, the paths, domains, recipients, commands and packages the call acts on.
targets[c] := {
	"paths": sort({p | some a in acts; some p in a.paths}),
	"domains": sort({d | some a in acts; some d in a.domains}),
	"recipients": sort({r | some a in acts; some r in a.recipients}),
	"commands": sort({concat(" ", a.argv) | some a in acts; count(a.argv) > 0}),
	"packages": sort({p | some a in acts; some p in a.packages}),
	"open": open_class(acts),
} if some c, acts in actions_by_class

open_class(acts) if {
	some a in acts
	a.open
} else := false

# METADATA
# title: all_paths
# description: Every path the call names or acts on (bounds apply to reads too).
all_paths := fact_paths | {p | some a in actions; some p in a.paths}

# METADATA
# title: all_domains
# description: Every host the call names or sends to.
all_domains := fact_domains | {lower(d) | some a in actions; some d in a.domains}

# METADATA
# title: all_recipients
# description: Every recipient address of the call.
all_recipients := fact_recipients | {lower(r) | some a in actions; some r in a.recipients}

egress_classes := {"COMMUNICATION", "EXTERNAL_WRITE", "FINANCIAL"}

# METADATA
# title: egress
# description: True when the call may send data off the machine (a fetch or a query counts).
egress if {
	some a in actions
	a.egress == true
}

egress if {
	some a in actions
	a.class in egress_classes
}

# What cannot be understood cannot be shown to stay on the machine.
egress if "UNKNOWN" in classes

# METADATA
# title: unaddressed_egress
# description: True when the call sends data off the machine to a destination the facts do not name.
unaddressed_egress if {
	some a in actions
	a.egress == true
	count(a.domains) == 0
}

# METADATA
# title: workspace_writes
# description: LOCAL_WRITE paths inside the workspace (input.host.workspace).
workspace_writes := {p |
	some a in actions
	a.class == "LOCAL_WRITE"
	some p in a.paths
	paths.under_any(p, workspace)
}

# METADATA
# title: outside_writes
# description: LOCAL_WRITE paths outside the workspace; these need a literal path grant.
outside_writes := {p |
	some a in actions
	a.class == "LOCAL_WRITE"
	some p in a.paths
	not paths.under_any(p, workspace)
}

default workspace := []

workspace := input.host.workspace

# METADATA
# title: unknown_why
# description: Why the call is UNKNOWN (an unclassified tool, opaque shell or code, ...).
unknown_why contains object.get(a, "why", "unclassified") if {
	some a in actions
	a.class == "UNKNOWN"
}

# --- words for reasons ---------------------------------------------------------------------------

class_verbs := {
	"READ": "reading",
	"LOCAL_WRITE": "writing",
	"DELETE": "deleting",
	"EXECUTION": "running",
	"COMMUNICATION": "sending a message to",
	"EXTERNAL_WRITE": "changing something at",
	"FINANCIAL": "a payment or purchase at",
	"PERMISSION_CHANGE": "changing permissions of",
	"MEMORY_WRITE": "writing to the agent's persistent memory:",
	"SELF_MODIFICATION": "changing opafence or Hermes itself:",
	"UNKNOWN": "an action opafence cannot classify:",
}

class_nouns := {
	"READ": "reading",
	"LOCAL_WRITE": "writing files",
	"DELETE": "deleting something",
	"EXECUTION": "running a program",
	"COMMUNICATION": "sending a message",
	"EXTERNAL_WRITE": "changing something outside this machine",
	"FINANCIAL": "a payment or purchase",
	"PERMISSION_CHANGE": "changing permissions or access",
	"MEMORY_WRITE": "writing to the agent's persistent memory",
	"SELF_MODIFICATION": "changing opafence or Hermes itself",
	"UNKNOWN": "an action opafence cannot classify",
}

# METADATA
# title: phrase
# description: Per class, words for a reason ("sending a message to bob@example.com (COMMUNICATION)").
phrase[c] := describe(c, acts) if some c, acts in actions_by_class

describe(c, acts) := sprintf("%s %s (%s)", [class_verbs[c], listing(items), c]) if {
	items := sort(words_for(c, acts))
	count(items) > 0
} else := sprintf("%s via %s (%s)", [class_nouns[c], input.call.tool, c])

# A program is named by its command line, not by the files on it.
words_for("EXECUTION", acts) := cmds if {
	cmds := command_words(acts)
	count(cmds) > 0
} else := target_words(acts)

words_for(c, acts) := target_words(acts) if c != "EXECUTION"

command_words(acts) := {sprintf("`%s`", [concat(" ", a.argv)]) | some a in acts; count(a.argv) > 0}

target_words(acts) := (({x | some a in acts; some x in a.recipients} | {x | some a in acts; some x in a.paths}) | {x |
	some a in acts
	some x in a.domains
}) | command_words(acts)

listing(items) := concat(", ", items) if count(items) <= 3

else := sprintf("%s and %d more", [concat(", ", array.slice(items, 0, 3)), count(items) - 3])
