# Grant coverage, commands (grants.rego's covers takes them): a command grant covers its command
# run as named, and a literal command the user named also covers that very command's other
# actions (its deletes, writes, sends).
package opafence.lib.grants

import data.opafence.lib.paths

commands_ok(g, _, _) if {
	count(g.commands) == 0
	g.capability != "run_command"
}

# A literal command the user named runs only as written: the same argv, run the way the literal
# was (environment, wrappers, redirections, standard input, operands), where it was named.
commands_ok(g, a, ctx) if {
	count(g.commands) > 0
	count(a.argv) > 0
	some lit in g.literals
	lit.argv == a.argv
	literal_named(g, lit)
	every c in runs_of(a, ctx) {
		same_place(c, lit)
	}
	every d in object.get(ctx, "run_dirs", set()) {
		d == lit.cwd
	}
}

# A command recorded without a literal of its own (one the parser could not follow, a spelling
# the compiler adds such as `python3 x.py` for "run x.py", or a grant made elsewhere): the same
# words, run bare where the task runs.
commands_ok(g, a, ctx) if {
	count(g.commands) > 0
	count(a.argv) > 0
	not has_literal(g, a)
	paths.command_matches_any(a.argv, g.commands)
	every c in runs_of(a, ctx) {
		bare(c)
	}
	every d in object.get(ctx, "run_dirs", set()) {
		d == object.get(ctx, "cwd", "")
	}
}

has_literal(g, a) if {
	some lit in g.literals
	lit.argv == a.argv
}

# The call's simple commands that are this action's command.
runs_of(a, ctx) := [c | some c in object.get(ctx, "commands", []); c.argv == a.argv]

bare(c) if place(c) == {"operand_paths": object.get(c, "operand_paths", []), "redirects": output_redirects(c), "env": {}, "wrappers": [], "pipe_from": ""}

# "Run bench/run.py and save its output to bench-results.txt": where its output goes is a write of
# its own (a redirection action the grants judge like any write); the command is still the same.
# Standard input, descriptors and unknown targets are not.
output_redirects(c) := [r |
	some r in object.get(c, "redirects", [])
	r.mode in {"write", "append"}
	r.fd in {1, 2}
	object.get(r, "path", "") != ""
]

# An install grant names its packages; one without names covers only installing the project's

# --- literal commands ----------------------------------------------------------------------------

# Classes the actions of a literal command may have besides EXECUTION, which its commands prefix
# covers. Never SELF_MODIFICATION or UNKNOWN (words never grant them); FINANCIAL still asks.
literal_classes := {"LOCAL_WRITE", "DELETE", "PERMISSION_CHANGE", "COMMUNICATION", "EXTERNAL_WRITE", "FINANCIAL"}

# Standard input the facts do not show (a here-doc's or here-string's text).
here_docs := {"<<", "<<-", "<<<"}

# METADATA
# title: literal_covers
# description: |
#   The action comes from the very command the user named: the same argv (exactly, not as a
#   prefix), run as the literal was (the same operand paths, redirections, environment, wrappers
#   and standard input, so no other directory or file), and each of its targets is one the
#   literal names (an operand, a redirection target, or the directory it was named in).
literal_covers(g, lit, a, ctx) if {
	lit.argv == a.argv
	literal_named(g, lit)
	runs := [c | some c in object.get(ctx, "commands", []); c.argv == a.argv]
	count(runs) > 0
	every c in runs {
		same_place(c, lit)
	}
	every p in a.paths {
		literal_path(lit, p, ctx)
	}
}

# The literal's command is still among the grant's commands (a prohibition may have struck it).
literal_named(g, lit) if trim_space(regex.replace(concat(" ", lit.argv), `\s+`, " ")) in {trim_space(c) | some c in g.commands}

same_place(c, lit) if {
	place(c) == lit.place
	not fed_here_doc(c)
}

# METADATA
# title: place
# description: Where and how a command runs, in the shape the intent compiler records for a literal.
place(c) := {
	"operand_paths": object.get(c, "operand_paths", []),
	"redirects": object.get(c, "redirects", []),
	"env": object.get(c, "env", {}),
	"wrappers": object.get(c, "wrappers", []),
	"pipe_from": object.get(c, "pipe_from", ""),
}

fed_here_doc(c) if {
	some r in object.get(c, "redirects", [])
	r.op in here_docs
}

literal_path(lit, p, _) if p in {x | some x in lit.place.operand_paths; x != ""}

literal_path(lit, p, _) if {
	some r in lit.place.redirects
	r.path == p
}

# The directory the literal was named in (a repository command's target), unless the call
# changes directory first: then that path may not be where the command runs.
literal_path(lit, p, ctx) if {
	p == lit.cwd
	not object.get(ctx, "moved", true)
}
