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

import data.opafence.classify.ops
import data.opafence.classify.verbs
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

# An operational command on a named object (classify/ops: kubectl rollout restart deploy/api,
# systemctl restart nginx) carries what it does, to what and where, for an operate grant.
operated(a, cmd) := object.union(a, {"caps": (a.caps | {"operate"}), "operate": op}) if {
	a.class in {"EXECUTION", "EXTERNAL_WRITE"}
	not a.open
	op := ops.shell_op(cmd)
} else := a

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

# --- packages ----------------------------------------------------------------------------------

packages(cmd, s) := set() if {
	s.packages == true
	manifest_install(cmd, s)
} else := {p | some p in rest_operands(cmd)} if s.packages == true

else := set()

# The project's own dependencies from its manifest: `pip install -r requirements-dev.txt`,
# `pip install -e '.[dev]'`, `pip install .`. A requirements file named by a relative path, or the
# project directory itself; no index, link or constraint option, nothing from elsewhere.
manifest_flags := {"-r", "--requirement", "-e", "--editable"}

manifest_install(cmd, s) if {
	s.packages == true
	count(rest_operands(cmd)) > 0
	every f in install_source_flags {
		manifest_flag_ok(cmd, f)
	}
	every p in rest_operands(cmd) {
		local_manifest(p)
	}
}

manifest_flag_ok(_, f) if f in manifest_flags

manifest_flag_ok(cmd, f) if not flag_given(cmd, f)

local_project(p) if regex.match(`^\.(\[[A-Za-z0-9,._-]+\])?$`, p)

local_manifest(p) if local_project(p)

local_manifest(p) if {
	regex.match(`^[A-Za-z0-9_][A-Za-z0-9_./-]*\.(txt|in)$`, p)
	contains(lower(p), "requirements")
	not contains(p, "..")
}

install_source_flags := {
	"-i", "--index-url", "--extra-index-url", "-f", "--find-links", "--trusted-host", "--registry",
	"-e", "--editable", "-r", "--requirement", "-c", "--constraint", "--pre", "--source",
}

# An install from somewhere other than the default index, or of something other than a name.
custom_install(cmd, s) if {
	s.packages == true
	some f in install_source_flags
	flag_given(cmd, f)
}

custom_install(cmd, s) if {
	s.packages == true
	some p in rest_operands(cmd)
	not plain_package(p)
}

plain_package(p) if regex.match(`^[A-Za-z0-9@][A-Za-z0-9._@-]*(\[[A-Za-z0-9,._-]+\])?([<>=!~^]=?[A-Za-z0-9.*+-]+)?$`, p)

# --- redirections --------------------------------------------------------------------------------

redirect_actions(cmd) := ({act("LOCAL_WRITE", {"paths": {r.path}, "argv": cmd.argv}) |
	some r in object.get(cmd, "redirects", [])
	r.mode in {"write", "append", "other"}
	object.get(r, "path", "") != ""
	not null_path(r.path)
} | {act("LOCAL_WRITE", {"open": true, "argv": cmd.argv}) |
	some r in object.get(cmd, "redirects", [])
	r.mode in {"write", "append", "other"}
	object.get(r, "path", "") == ""
}) | {act("READ", {"paths": {r.path}}) |
	some r in object.get(cmd, "redirects", [])
	r.mode == "read"
	object.get(r, "path", "") != ""
}

# --- wrappers and environment ------------------------------------------------------------------

privileged_wrappers := {"sudo", "doas", "su", "pkexec", "run0"}

# Privilege: running as root is never a plain read, whatever the inner command is.
wrapper_actions(cmd) := {act("EXECUTION", {"caps": {"run_command"}, "argv": array.concat([w], cmd.argv)}) |
	some w in object.get(cmd, "wrappers", [])
	w in privileged_wrappers
} | {act(c, {"argv": cmd.argv, "open": true}) |
	dynamic_name(cmd)
	some c in {"EXECUTION", "UNKNOWN"}
}

selfmod_env(name) if {
	some prefix in data.opafence.classify.shell.selfmod_env_prefixes
	startswith(upper(name), prefix)
}

env_actions(cmd) := {act("SELF_MODIFICATION", {"argv": cmd.argv, "why": name}) |
	some name, _ in object.get(cmd, "env", {})
	selfmod_env(name)
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
