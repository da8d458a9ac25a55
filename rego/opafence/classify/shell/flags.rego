# Shell classification, option lookups: which option rules of a command's table entry its
#   options match. The options a command was given become, once, a set of keys (each option
#   word, and the name before each "=" of a word with its value attached, --output=x): a rule's
#   options are looked up in it instead of compared with every option given.
package opafence.classify.shell

# The names an option word stands for: itself, and what comes before each "=" in it.
_option_names(g) := {g} if {
	not contains(g, "=")
} else := {g} | {substring(g, 0, i) | some i in indexof_n(g, "=")}

# flag_given's keys, built in enrich: the options, and the attached-value names of more than two
# characters (--output=x names --output; -o=x is not -o).
_given_options(fs) := {f | some f in fs} | {n |
	some g in fs
	contains(g, "=")
	some n in _option_names(g)
	count(n) > 2
}

flag_given(cmd, f) if f in cmd.meta.given

matched_rules(cmd) := {r |
	some g in cmd.meta.given
	some r in object.get(eff(cmd), "flag_rules", [])
	g in r.flags
}

# On the command as the facts give it (classify's quick_classes asks before enrich): any name an
# option stands for, whatever its length.
quick_flag(s, cmd) if {
	some g in cmd.flags
	some n in _option_names(g)
	some r in s.flag_rules
	n in r.flags
}
