# Shell classification, the spec of a command (shell.rego's actions read it): everything the
# rules read about a command, computed once into cmd.meta; its base classes from the table in
# data.yaml; which option rules its options match; and what an operational command does (ops).
package opafence.classify.shell

import data.opafence.classify.ops
import data.opafence.classify.verbs

# --- the spec of a command ---------------------------------------------------------------------

# Everything about a command that the rules read is computed once, here, into cmd.meta (OPA does
# not cache function results on object arguments, so the rules read fields instead).
enrich(cmd) := object.union(cmd, {"meta": {
	"nname": nn,
	"spec": s,
	"ops": ops,
	"paths": object.get(cmd, "operand_paths", []),
	"flags": {f | some f in object.get(cmd, "flags", [])},
	"given": _given_options(object.get(cmd, "flags", [])),
	"eff": r[0],
	"used": r[1],
	"rest_ops": array.slice(ops, r[1], count(ops)),
	"rest_paths": array.slice(object.get(cmd, "operand_paths", []), r[1], count(object.get(cmd, "operand_paths", []))),
	"special": object.get(r[0], "special", object.get(s, "special", "")),
}}) if {
	nn := norm_name(cmd.name)
	s := spec_of(cmd, nn)
	ops := object.get(cmd, "operands", [])
	r := resolve(cmd, s, ops)
}

default_spec := {"classes": ["EXECUTION"]}

norm_name(n) := "python" if data.opafence.classify.shell.python_names[n]

else := n

spec_of(cmd, nn) := tables[nn] if not dynamic_name(cmd)

else := default_spec

# argv[0] is an expansion ($CMD, `...`): what runs is not known.
dynamic_name(cmd) if cmd.name == ""

dynamic_name(cmd) if contains(cmd.name, "$")

dynamic_name(cmd) if contains(cmd.name, "`")

spec(cmd) := cmd.meta.spec

eff(cmd) := cmd.meta.eff

used(cmd) := cmd.meta.used

operands(cmd) := cmd.meta.ops

operand_paths(cmd) := cmd.meta.paths

flags(cmd) := cmd.meta.flags

rest_paths(cmd) := cmd.meta.rest_paths

rest_operands(cmd) := cmd.meta.rest_ops

special(cmd) := cmd.meta.special

# python -m pip ... is pip; the other modules stay python (the runner table knows them).
effective(cmd) := object.union(cmd, {
	"name": cmd.argv[2],
	"argv": array.slice(cmd.argv, 2, count(cmd.argv)),
	"operands": [t | some t in array.slice(cmd.argv, 3, count(cmd.argv)); not startswith(t, "-")],
	"operand_paths": [],
	"flags": [t | some t in array.slice(cmd.argv, 3, count(cmd.argv)); startswith(t, "-")],
}) if {
	cmd.argv[1] == "-m"
	norm_name(cmd.name) == "python"
	cmd.argv[2] in {"pip", "pip3"}
} else := cmd

# [spec, number of operands the subcommand used]
resolve(cmd, s, ops) := [s, 0] if {
	# the common case: a command without subcommands
	not s.subs
	not s.verbs
	not s.special == "git"
} else := git_resolved(cmd) if {
	s.special == "git"
} else := [x, 2] if {
	count(ops) >= 2
	x := s.subs[concat(" ", array.slice(ops, 0, 2))]
} else := [x, 1] if {
	x := s.subs[ops[0]]
} else := [verb_spec(s, ops), n] if {
	n := min({s.verbs, count(ops)})
} else := [x, 1] if {
	x := s.sub_default
	count(ops) > 0
} else := [s, 0]

# Cloud CLIs: the verbs of the first N operands. A read stays a read; anything else keeps the
# CLI's own class too (a stripe "create" is a payment); no known verb keeps the CLI's class.
verb_spec(s, ops) := object.union(s, {"classes": cs}) if {
	found := verbs.classes(verb_words(s, ops))
	not "UNKNOWN" in found
	cs := verb_classes(found, s.classes)
} else := s

verb_words(s, ops) := [w |
	some op in array.slice(ops, 0, s.verbs)
	some w in regex.split(`[-_.]`, lower(op))
]

verb_classes(found, base) := ["READ"] if {
	found == {"READ"}
} else := [c | some c in (found | {x | some x in base})]

# --- base classes ------------------------------------------------------------------------------

# operand_classes replace the classes when operands follow (git branch NAME creates a branch).
base_classes(cmd) := set() if {
	dropped(cmd)
} else := {c | some c in eff(cmd).operand_classes} if {
	count(rest_operands(cmd)) >= object.get(eff(cmd), "operand_min", 1)
	count(eff(cmd).operand_classes) > 0
} else := {c | some c in object.get(eff(cmd), "classes", ["EXECUTION"])}

dropped(cmd) if {
	some r in matched_rules(cmd)
	r.drop == true
}

dropped(cmd) if {
	spec(cmd).special in {"shell", "source"}
	shell_or_source_dropped(cmd)
}

shell_or_source_dropped(cmd) if transparent_shell(cmd)

shell_or_source_dropped(cmd) if activate_script(cmd)

base_actions(cmd) := {action_for(cmd, c, eff(cmd), false) | some c in base_classes(cmd)}

# --- option rules ------------------------------------------------------------------------------

# flag_given, matched_rules, quick_flag: flags.rego (lookups in the options a command was given).

# An option's action has its own capabilities (git branch -D deletes; it is not a commit).
flag_actions(cmd) := {action_for(cmd, c, object.union(eff(cmd), object.union({"caps": []}, r)), object.get(r, "open", false)) |
	some r in matched_rules(cmd)
	object.get(r, "targets", "") != "value"
	some c in r.classes
} | {value_action(cmd, c, r) |
	some r in matched_rules(cmd)
	r.targets == "value"
	value_acts(cmd, r.flags)
	some c in r.classes
}

# An option whose target is its value (curl -o FILE): the value's operand path, or open when the
# value is not a separate word the facts resolved. Writing to stdout (-) or /dev/null is no write.
value_action(cmd, c, r) := act(c, {
	"caps": caps(cmd, c, object.union(eff(cmd), object.union({"caps": []}, r))),
	"paths": value_paths(cmd, r.flags),
	"argv": cmd.argv,
	"open": value_open(cmd, r.flags),
	"egress": egresses(cmd, r),
})

value_acts(cmd, fs) if count(value_paths(cmd, fs)) > 0

value_acts(cmd, fs) if value_open(cmd, fs)

# [index in argv, value] of each option of fs given as its own word, before "--".
value_words(cmd, fs) := {[i, cmd.argv[i + 1]] |
	some i, t in cmd.argv
	i > 0
	i < end_of_options(cmd.argv)
	t in fs
	i + 1 < count(cmd.argv)
}

end_of_options(argv) := min({i | some i, t in argv; t == "--"}) if "--" in argv

else := count(argv)

value_paths(cmd, fs) := {p |
	some [_, v] in value_words(cmd, fs)
	v != "-"
	some j, o in operands(cmd)
	o == v
	p := operand_paths(cmd)[j]
	p != ""
	not null_path(p)
}

default value_open(_, _) := false

value_open(cmd, fs) if {
	some f in fs
	flag_given(cmd, f)
	value_hidden(cmd, f)
}

value_open(cmd, fs) if {
	some [_, v] in value_words(cmd, fs)
	v != "-"
	not value_resolved(cmd, v)
}

# The last word is the option itself: its value is not there.
value_open(cmd, fs) if cmd.argv[count(cmd.argv) - 1] in fs

value_resolved(cmd, v) if {
	some j, o in operands(cmd)
	o == v
	operand_paths(cmd)[j] != ""
}

# --output=FILE, or -o inside a cluster (-so FILE, -oFILE): the facts do not split off the value.
value_hidden(cmd, f) if {
	some t in cmd.argv
	startswith(t, concat("", [f, "="]))
}

value_hidden(cmd, f) if {
	count(f) == 2
	not startswith(f, "--")
	some i, t in cmd.argv
	i > 0
	i < end_of_options(cmd.argv)
	regex.match(`^-[^-]{2,}`, t)
	contains(substring(t, 1, -1), substring(f, 1, 1))
}

# An operational command on a named object (classify/ops: kubectl rollout restart deploy/api,
# systemctl restart nginx) carries what it does, to what and where, for an operate grant.
operated(a, cmd) := object.union(a, {"caps": (a.caps | {"operate"}), "operate": op}) if {
	a.class in {"EXECUTION", "EXTERNAL_WRITE"}
	not a.open
	op := ops.shell_op(cmd)
} else := a
