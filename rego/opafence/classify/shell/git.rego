# Shell classification, git (special.rego's special_set takes it): what each git subcommand
#   does (writes, deletes, pushes, remote reads, configuration), and where git clone writes.
package opafence.classify.shell

# --- git ---------------------------------------------------------------------------------------

# Index in argv of the git subcommand (the first word that is not a global option or its value).
git_sub_index(argv) := min({i |
	some i, t in argv
	i > 0
	not startswith(t, "-")
	not data.opafence.classify.shell.git_value_options[argv[i - 1]]
})

git_resolved(cmd) := [s, k + 2] if {
	si := git_sub_index(cmd.argv)
	k := git_operands_before(cmd.argv, si)
	not startswith(cmd.argv[si + 1], "-")
	t := data.opafence.classify.shell.git_table[concat(" ", [cmd.argv[si], cmd.argv[si + 1]])]
	s := object.union({"targets": "repo"}, t)
} else := [s, k + 1] if {
	si := git_sub_index(cmd.argv)
	k := git_operands_before(cmd.argv, si)
	t := data.opafence.classify.shell.git_table[cmd.argv[si]]
	s := object.union({"targets": "repo"}, t)
} else := [{"classes": ["EXECUTION", "UNKNOWN"], "targets": "none"}, 0] if {
	git_sub_index(cmd.argv)
} else := [{"classes": ["READ"]}, 0]

# Non-option words before the subcommand (values of -C / -c): they are operands too.
git_operands_before(argv, si) := count([t |
	some t in array.slice(argv, 1, si)
	not startswith(t, "-")
])

git_dir(cmd) := cmd.argv[i + 1] if {
	some i, t in cmd.argv
	t == "-C"
	startswith(cmd.argv[i + 1], "/")
} else := cwd

git_relative_dir(cmd) if {
	cmd.meta.nname == "git"
	some i, t in cmd.argv
	t == "-C"
	not startswith(cmd.argv[i + 1], "/")
}

targets_hidden(cmd) if git_relative_dir(cmd)

target_paths(cmd, "repo") := {git_dir(cmd)}

target_paths(cmd, "operands_or_repo") := operand_targets(cmd) if {
	count(operand_targets(cmd)) > 0
} else := {git_dir(cmd)}

# git -c core.pager=... / alias.x=!cmd: git runs a program of the caller's choice.
git_exec_actions(cmd) := {act("EXECUTION", {"caps": {"run_command"}, "argv": cmd.argv}) |
	some i, t in cmd.argv
	t == "-c"
	git_exec_setting(cmd.argv[i + 1])
}

git_exec_setting(kv) if {
	data.opafence.classify.shell.git_exec_config[lower(split(kv, "=")[0])]
}

git_exec_setting(kv) if startswith(lower(kv), "alias.")

git_exec_setting(kv) if contains(kv, "=!")

git_push_force(cmd) if {
	some f in {"-f", "--force", "--force-with-lease", "--force-if-includes", "--mirror"}
	flag_given(cmd, f)
}

git_push_force(cmd) if {
	some op in rest_operands(cmd)
	startswith(op, "+")
}

git_push_deletes(cmd) if {
	some f in {"-d", "--delete", "--prune", "--mirror"}
	flag_given(cmd, f)
}

git_push_deletes(cmd) if {
	some op in rest_operands(cmd)
	startswith(op, ":")
}

# The repository operand is a URL or a path instead of a configured remote's name.
git_push_url(cmd) if {
	repo := rest_operands(cmd)[0]
	git_repo_address(repo)
}

# A push grant pushes to the remote as configured when it was made (issue 14): a destination
# given any other way is not that remote. --repo names it; a -c / --config-env setting or a
# GIT_CONFIG* / GIT_DIR variable redefines it for this call; a remote other than the usual
# names is one the words did not name (an added remote is never covered: git remote add
# carries remote_config, not commit).
git_push_url(cmd) if flag_given(cmd, "--repo")

git_push_url(cmd) if {
	some i, t in cmd.argv
	t == "-c"
	i + 1 < count(cmd.argv)
	git_remote_setting(cmd.argv[i + 1])
}

git_push_url(cmd) if {
	some t in cmd.argv
	startswith(t, "--config-env")
}

git_push_url(cmd) if {
	some k, _ in object.get(cmd, "env", {})
	git_config_env(k)
}

git_push_url(cmd) if {
	repo := rest_operands(cmd)[0]
	not git_repo_address(repo)
	not repo in {"origin", "upstream"}
}

git_remote_setting(kv) if regex.match(`^(remote|url|branch)\.`, lower(kv))

git_remote_setting(kv) if startswith(lower(kv), "push.")

git_config_env(k) if startswith(upper(k), "GIT_CONFIG")

git_config_env(k) if upper(k) in {"GIT_DIR", "GIT_COMMON_DIR", "GIT_WORK_TREE", "GIT_NAMESPACE"}

git_repo_address(repo) if contains(repo, "://")

git_repo_address(repo) if contains(repo, "@")

git_repo_address(repo) if startswith(repo, "/")

git_repo_address(repo) if startswith(repo, ".")

git_repo_address(repo) if remote_spec(repo)

git_push_unusual(cmd) if git_push_force(cmd)

git_push_unusual(cmd) if git_push_deletes(cmd)

git_push_unusual(cmd) if git_push_url(cmd)

dropped(cmd) if {
	special(cmd) == "git_push"
	git_push_unusual(cmd)
}

git_push_caps(cmd) := {"force_push"} if git_push_force(cmd)

else := {"push_url"} if git_push_url(cmd)

else := {"push_delete"}

git_push_actions(cmd) := {act("EXTERNAL_WRITE", {
	"caps": git_push_caps(cmd), "domains": domains(cmd), "argv": cmd.argv,
	"egress": true, "paths": {git_dir(cmd)},
}) |
	git_push_unusual(cmd)
} | {act("DELETE", {"domains": domains(cmd), "argv": cmd.argv, "egress": true, "open": true}) |
	git_push_deletes(cmd)
}

git_discards(cmd) if "--" in cmd.argv

git_discards(cmd) if "." in rest_operands(cmd)

# --- where git clone writes ----------------------------------------------------------------

# Index in argv of each operand, in the facts' order (every word after the name that is not an
# option before "--"); [] when that does not line up with the facts' operands.
operand_positions(cmd) := ps if {
	ps := [i |
		some i, t in cmd.argv
		i > 0
		not option_word(cmd.argv, i, t)
	]
	count(ps) == count(operands(cmd))
} else := []

option_word(argv, i, t) if {
	i < end_of_options(argv)
	startswith(t, "-")
	t != "-"
}

option_word(argv, i, "--") if i == end_of_options(argv)

# The operand paths after the subcommand that are not the value of an option (value_flags).
positional_paths(cmd) := [operand_paths(cmd)[j] |
	ps := operand_positions(cmd)
	count(ps) > 0
	some j in numbers.range(used(cmd), count(ps) - 1)
	j >= used(cmd)
	not cmd.argv[ps[j] - 1] in {f | some f in object.get(eff(cmd), "value_flags", [])}
]

# METADATA
# title: destination
# description: |
#   Where `git clone REPO [DIR]` writes: DIR (every positional operand after the first, when
#   there are more), else a new directory in the one it runs in. With -C, relative operands are
#   resolved from elsewhere than the facts did, so git's own directory counts too; when the
#   operands cannot be lined up with argv, every operand and the directory count.
destination(cmd) := {git_dir(cmd)} | {p | some p in rest_paths(cmd)} if {
	count(operand_positions(cmd)) == 0
} else := {p | some p in array.slice(positional_paths(cmd), 1, count(positional_paths(cmd)))} | {git_dir(cmd) | "-C" in cmd.argv} if {
	count(positional_paths(cmd)) > 1
} else := {git_dir(cmd)}
