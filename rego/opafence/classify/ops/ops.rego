# METADATA
# title: Operational commands
# description: |
#   What an operational command does to a named object (issue 14, grant capability `operate`):
#   restart, start, stop, reload, scale or roll back, which object (its kind and names), where
#   (the scopes it names: namespace, context, compose project, region) and the counts it sets
#   (replicas, a revision). Read from the tables in data.yaml beside this file, for a shell
#   command (`shell_op`) or this call's MCP tool (`mcp_op`); undefined for anything else, so no
#   operate grant covers it.
# schemas:
#   - input: schema.input
package opafence.classify.ops

op_programs := data.opafence.classify.ops.programs

# METADATA
# title: shell_op
# description: |
#   {"operation", "kind", "names", "scopes", "counts"} of one simple command (shell.commands,
#   enriched), when it is an operation the tables name: a known subcommand, only the options
#   listed for it, no environment of its own, no wrapper and no expansion.
shell_op(cmd) := op if {
	prog := op_programs[cmd.meta.nname]
	count(object.get(cmd, "env", {})) == 0
	count(object.get(cmd, "wrappers", [])) == 0
	not cmd.dynamic
	ws := array.slice(cmd.argv, 1, count(cmd.argv))
	pos := positionals(ws, prog)
	[verb, n] := verb_of(prog, pos)
	spec := prog.verbs[verb]
	opts := object.union(prog.options, object.get(spec, "options", {}))
	every i, w in ws {
		option_known(ws, i, w, opts)
	}
	rest := rest_words(prog, pos, n)
	target := object_of(prog, spec, rest)
	op := {
		"operation": spec.operation,
		"kind": target.kind,
		"names": target.names,
		"scopes": option_values(ws, opts, "scope"),
		"counts": option_values(ws, opts, "count"),
	}
}

# Words that are no option and no option's value; for `service NAME VERB`, NAME comes first.
positionals(ws, prog) := [w |
	some i, w in ws
	not startswith(w, "-")
	not option_value_at(ws, i, prog)
]

# Any option of the program may take a value; which ones is decided per subcommand below, so
# here every option a table lists with a value role counts.
option_value_at(ws, i, prog) if {
	i > 0
	prev := ws[i - 1]
	startswith(prev, "-")
	not contains(prev, "=")
	data.opafence.classify.ops.value_roles[any_role(prog, prev)]
}

any_role(prog, o) := prog.options[o]

any_role(prog, o) := r if {
	not prog.options[o]
	some v in prog.verbs
	r := v.options[o]
}

verb_of(prog, pos) := [v, 2] if {
	not prog.name_first
	count(pos) >= 2
	v := concat(" ", array.slice(pos, 0, 2))
	prog.verbs[v]
} else := [pos[0], 1] if {
	not prog.name_first
	prog.verbs[pos[0]]
} else := [pos[1], 2] if {
	prog.name_first
	count(pos) == 2
	prog.verbs[pos[1]]
}

rest_words(prog, pos, _) := [pos[0]] if prog.name_first

rest_words(prog, pos, n) := array.slice(pos, n, count(pos)) if not prog.name_first

option_key(w) := split(w, "=")[0]

option_known(_, _, w, _) if not startswith(w, "-")

option_known(_, _, w, opts) if {
	startswith(w, "-")
	opts[option_key(w)]
}

# The values of the options of one role ("scope", "count"), lower-case.
option_values(ws, opts, role) := {lower(v) |
	some i, w in ws
	opts[option_key(w)] == role
	v := option_value(ws, i, w)
}

option_value(_, _, w) := substring(w, count(option_key(w)) + 1, -1) if contains(w, "=")

option_value(ws, i, w) := ws[i + 1] if {
	not contains(w, "=")
	i + 1 < count(ws)
}

# --- the object ----------------------------------------------------------------------------------

# kubectl: KIND/NAME ... or KIND NAME ...; every word names one object of a known kind.
object_of(prog, _, rest) := {"kind": kind, "names": names} if {
	prog.typed
	count(rest) > 0
	not contains(rest[0], "/")
	kind := data.opafence.classify.ops.kinds[lower(rest[0])]
	names := {n | some n in array.slice(rest, 1, count(rest)); not contains(n, "/")}
	count(names) == count(rest) - 1
	count(names) > 0
} else := {"kind": kind, "names": names} if {
	prog.typed
	count(rest) > 0
	typed := [[k, n] | some w in rest; [k, n] := split_typed(w)]
	count(typed) == count(rest)
	kinds := {k | some [k, _] in typed}
	count(kinds) == 1
	some kind in kinds
	names := {n | some [_, n] in typed}
}

# Other programs: the words after the subcommand are the names (none: the whole compose project).
object_of(prog, spec, rest) := {"kind": object.get(spec, "kind", prog.kind), "names": {unit_name(n) | some n in rest}} if not prog.typed

split_typed(w) := [kind, lower(parts[1])] if {
	parts := split(w, "/")
	count(parts) == 2
	parts[1] != ""
	kind := data.opafence.classify.ops.kinds[lower(parts[0])]
}

unit_name(n) := lower(trim_suffix(n, s)) if {
	some s in data.opafence.classify.ops.name_suffixes
	endswith(n, s)
} else := lower(n)

# --- MCP tools -------------------------------------------------------------------------------------

# METADATA
# title: mcp_op
# description: |
#   The operation of this call's MCP tool when its name is VERB_OBJECT with an operation verb
#   ("restart_deployment", "start_instances") and every argument is the object's name, its scope
#   or a count (data.yaml mcp_args).
mcp_op := {
	"operation": operation,
	"kind": concat("_", array.slice(ws, 1, count(ws))),
	"names": arg_values("name"),
	"scopes": arg_values("scope"),
	"counts": arg_values("count"),
} if {
	ws := data.opafence.classify.mcp.words
	count(ws) >= 2
	operation := data.opafence.classify.ops.mcp_verbs[ws[0]]
	args := object.get(input.call, "args", {})
	every k, _ in args {
		data.opafence.classify.ops.mcp_args[lower(k)]
	}
	count(arg_values("name")) > 0
}

arg_values(role) := {lower(format_value(x)) |
	some k, v in object.get(input.call, "args", {})
	data.opafence.classify.ops.mcp_args[lower(k)] == role
	some x in as_list(v)
}

as_list(v) := v if is_array(v)

else := [v]

format_value(x) := x if is_string(x)

else := format_int(x, 10) if is_number(x)

else := "?"
