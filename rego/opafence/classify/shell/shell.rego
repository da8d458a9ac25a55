# METADATA
# title: Shell classification
# description: |
#   Classifies every simple command of a shell program (facts.shell.commands) by its name and
#   options, plus its redirections, wrappers and environment. The tables are in data.yaml beside
#   this file; a command they do not name is an arbitrary program (EXECUTION), and opaque shell
#   is never a read. Produces actions: {"class", "caps", "paths", "domains", "argv", "packages",
#   "open", "egress"}; "open" means the action's targets are not fully known, so no path grant
#   can cover it.
# schemas:
#   - input: schema.input
package opafence.classify.shell

import data.opafence.lib.action

tables := data.opafence.classify.shell.command_table

# A write to /dev/null, /dev/stdout, ... is not a write.
null_path(p) if data.opafence.classify.shell.null_paths[p]

null_path(p) if startswith(p, "/dev/fd/")

# METADATA
# title: commands
# description: The simple commands of the call's shell program (after python -m re-interpretation).
commands := [enrich(effective(cmd)) | some cmd in input.facts.shell.commands]

# METADATA
# title: opaque
# description: True when the facts builder could not fully understand the shell program.
opaque if input.facts.shell.opaque == true

# METADATA
# title: cwd
# description: The directory relative paths start from (the terminal's workdir when absolute).
default cwd := ""

cwd := input.call.args.workdir if {
	is_string(input.call.args.workdir)
	startswith(input.call.args.workdir, "/")
} else := input.host.cwd

# workdir given but not absolute: its commands' cwd-relative targets are unknown.
workdir_unknown if {
	is_string(input.call.args.workdir)
	not startswith(input.call.args.workdir, "/")
}

# --- actions -----------------------------------------------------------------------------------

# METADATA
# title: actions
# description: Every action of every command, plus the opaque marker.
actions contains operated(adjust(a, cmd), cmd) if {
	some cmd in commands
	some a in command_actions(cmd)
}

actions contains act("UNKNOWN", {"argv": [], "why": "opaque shell"}) if opaque

# METADATA
# title: named paths
# description: |
#   Paths a command names outside its operands (facts.paths with via "command"): the file
#   `xargs -a FILE` reads, the host directory a container's bind mount lets it write, the
#   directory `pytest --basetemp` empties.
actions contains act(command_path_classes[p.op], {"paths": {p.path}}) if {
	some p in input.facts.paths
	p.via == "command"
	p.path != ""
	command_path_classes[p.op]
}

command_path_classes := {"read": "READ", "write": "LOCAL_WRITE"}

actions contains act("EXECUTION", {"open": true}) if opaque

# METADATA
# title: plain_read
# description: A command that only reads (ls, cat, grep ...) with nothing around it; one lookup decides.
plain_read(cmd) if {
	tables[cmd.name] == {"classes": ["READ"]}
	plain(cmd)
}

# METADATA
# title: quick_read
# description: |
#   A command that only reads, told from the tables without building its actions: a plain read,
#   a read whose option rules name no option it was given (sort, curl without data), or a git
#   subcommand that reads (git status, git log). Used to classify read-only programs cheaply.
quick_read(cmd) if plain_read(cmd)

quick_read(cmd) if {
	version_query(cmd)
	plain(cmd)
}

quick_read(cmd) if {
	s := tables[cmd.name]
	quick_read_spec(s, cmd)
}

quick_read(cmd) if {
	cmd.name == "git"
	s := data.opafence.classify.shell.git_table[cmd.argv[1]]
	quick_read_spec(s, cmd)
}

quick_read_spec(s, cmd) if {
	s.classes == ["READ"]
	not s.special
	not s.subs
	not s.verbs
	not s.operand_classes
	plain(cmd)
	not quick_flag(s, cmd)
}

# METADATA
# title: version_query
# description: |
#   `python --version`, `node -v`, `go version`: a known program given exactly its version word
#   and nothing else (no other argument, no environment of its own) prints its version: a read.
version_query(cmd) if {
	count(cmd.argv) == 2
	count(object.get(cmd, "env", {})) == 0
	not cmd.dynamic
	cmd.argv[1] in data.opafence.classify.shell.version_queries[norm_name(cmd.name)]
}

command_actions(cmd) := redirect_actions(cmd) if {
	# a bare redirection (`> f`, `$(< f)`): nothing runs
	count(cmd.argv) == 0
} else := {act("READ", {"paths": {p | some p in operand_paths(cmd)}, "argv": cmd.argv})} if {
	plain_read(cmd)
} else := {act("READ", {"argv": cmd.argv})} | surroundings(cmd) if {
	version_query(cmd)
} else := {act("READ", {"domains": remote_hosts(cmd), "argv": cmd.argv, "egress": true})} if {
	remote_read(cmd)
} else := {simple_action(cmd, c) | some c in spec(cmd).classes} | surroundings(cmd) if {
	simple(cmd)
} else := ((base_actions(cmd) | flag_actions(cmd)) | special_actions(cmd)) | surroundings(cmd)

# A command whose table entry holds only classes (and targets, caps, egress), or that has no
# entry (an arbitrary program): no subcommand, option or command-specific rule applies, so its
# actions come straight from the entry.
simple(cmd) if count(object.keys(spec(cmd)) - {"classes", "targets", "caps", "egress"}) == 0

simple_action(cmd, "READ") := action_for(cmd, "READ", spec(cmd), false)

simple_action(cmd, "EXECUTION") := act("EXECUTION", {
	"caps": (({c | some c in object.get(spec(cmd), "caps", [])} | runner_caps(cmd)) | {"run_command"}),
	"paths": target_paths(cmd, object.get(spec(cmd), "targets", "operands")),
	"domains": domains(cmd),
	"argv": cmd.argv,
	"egress": object.get(spec(cmd), "egress", false),
})

simple_action(cmd, c) := act(c, {
	"caps": {x | some x in object.get(spec(cmd), "caps", [])},
	"paths": target_paths(cmd, object.get(spec(cmd), "targets", "operands")),
	"domains": domains(cmd),
	"argv": cmd.argv,
	"egress": object.get(spec(cmd), "egress", false),
}) if not c in {"READ", "EXECUTION"}

# No redirection, wrapper, environment assignment or dynamic word.
plain(cmd) if {
	count(object.get(cmd, "redirects", [])) == 0
	count(object.get(cmd, "wrappers", [])) == 0
	count(object.get(cmd, "env", {})) == 0
	not cmd.dynamic
	not dynamic_name(cmd)
}

surroundings(cmd) := set() if plain(cmd)

else := (redirect_actions(cmd) | wrapper_actions(cmd)) | env_actions(cmd)

# xargs and find -exec feed operands, and a dynamic word hides them: the targets are not known.
adjust(a, cmd) := a if {
	a.class == "READ"
} else := object.union(a, {"open": true}) if {
	targets_hidden(cmd)
} else := a

targets_hidden(cmd) if "xargs" in object.get(cmd, "wrappers", [])

# find -exec CMD {}: CMD acts on what find found, not on its literal operands.
targets_hidden(cmd) if "find" in object.get(cmd, "wrappers", [])

targets_hidden(cmd) if cmd.dynamic == true

targets_hidden(_) if workdir_unknown

act(c, fields) := action.make(c, fields)

# --- one action --------------------------------------------------------------------------------

action_for(cmd, "READ", s, _) := act("READ", {
	"paths": read_paths(cmd, s),
	"domains": domains(cmd),
	"argv": cmd.argv,
	"egress": egresses(cmd, eff(cmd)),
})

action_for(cmd, c, s, open) := act(c, {
	"caps": caps(cmd, c, s),
	"paths": target_paths(cmd, object.get(s, "targets", "operands")),
	"domains": domains(cmd),
	"argv": cmd.argv,
	"packages": packages(cmd, s),
	"open": open,
	"egress": egresses(cmd, s),
}) if c != "READ"

# Operands of a command whose operands are not files (hosts, names, subcommands) are not paths.
read_paths(cmd, s) := set() if {
	object.get(s, "targets", "operands") == "none"
} else := {p | some p in operand_paths(cmd)}

egresses(cmd, s) if {
	some x in [s, spec(cmd)]
	object.get(x, "egress", false) == true
} else := false

target_paths(cmd, "operands") := operand_targets(cmd)

operand_targets(cmd) := {p | some p in rest_paths(cmd); not null_path(p)}

target_paths(cmd, "last") := {p |
	ps := rest_paths(cmd)
	count(ps) > 0
	p := ps[count(ps) - 1]
	not null_path(p)
}

target_paths(cmd, "first") := {p |
	ps := rest_paths(cmd)
	count(ps) > 0
	p := ps[0]
	not null_path(p)
}

target_paths(cmd, "after_first") := {p | some p in array.slice(rest_paths(cmd), 1, count(rest_paths(cmd)))}

target_paths(_, "none") := set()

target_paths(_, "cwd") := {cwd}

target_paths(cmd, "destination") := destination(cmd)

domains(cmd) := remote_hosts(cmd) if {
	count(input.facts.urls) == 0
} else := {u.host |
	some u in input.facts.urls
	some t in cmd.argv
	contains(t, u.raw)
} | remote_hosts(cmd)

# Capabilities: the table's, the runner's for EXECUTION, and run_command for literal commands.
caps(cmd, "EXECUTION", s) := ({c | some c in object.get(s, "caps", [])} | runner_caps(cmd)) | {"run_command"} if {
	not custom_install(cmd, s)
} else := ({c | some c in object.get(s, "caps", [])} | runner_caps(cmd)) | {"run_command"} if {
	manifest_install(cmd, s)
} else := ({c | some c in object.get(s, "caps", []); c != "install"} | runner_caps(cmd)) | {"run_command", "install_custom"}

caps(_, c, s) := {x | some x in object.get(s, "caps", [])} if c != "EXECUTION"

# --- runners -----------------------------------------------------------------------------------

runner_caps(cmd) := {cap |
	table := data.opafence.classify.shell.runner_table[cmd.meta.nname]
	some n in numbers.range(1, min({4, count(cmd.argv)}))
	cap := table[concat(" ", array.slice(cmd.argv, 1, n))]
} | {cap |
	table := data.opafence.classify.shell.runner_table[cmd.meta.nname]
	cap := table[concat("", ["=", concat(" ", array.slice(cmd.argv, 1, count(cmd.argv)))])]
}

# --- a one-off remote read ------------------------------------------------------------------------

# METADATA
# title: remote_read
# description: |
#   `ssh build-01 uptime`: ssh with no option that forwards, proxies or runs anything else, the
#   only ssh of the call, carrying commands that all only read (quick_read): a read on that host.
remote_read(cmd) if {
	cmd.meta.nname == "ssh"
	plain(cmd)
	every f in ssh_own_options(cmd.argv) {
		data.opafence.classify.shell.ssh_read_flags[f]
	}
	count([c | some c in input.facts.shell.commands; c.name == "ssh"]) == 1
	carried := [c | some c in input.facts.shell.commands; c.context == "remote"]
	count(carried) > 0
	every c in carried {
		quick_read(enrich(c))
	}
}

# ssh's own options: the words before the host (the carried command's options come after it).
ssh_own_options(argv) := {w |
	some i, w in argv
	i > 0
	i < ssh_host_index(argv)
	startswith(w, "-")
	not ssh_option_value(argv, i)
}

ssh_host_index(argv) := min({i |
	some i, w in argv
	i > 0
	not startswith(w, "-")
	not ssh_option_value(argv, i)
})

# The value of an option that takes one (-p 2222, -i key, -o X=Y): not the host.
ssh_option_value(argv, i) if {
	i > 1
	data.opafence.classify.shell.ssh_value_options[argv[i - 1]]
}
