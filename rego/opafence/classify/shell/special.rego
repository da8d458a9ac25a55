# Shell classification, command-specific rules:
#   the commands whose effect depends on more than their options: find's actions, sed and awk
#   scripts, shells and interpreters, remote copies, git, dd, and commands that touch opafence
#   or Hermes themselves.
package opafence.classify.shell

import data.opafence.lib.paths

special_actions(cmd) := set() if {
	special(cmd) == ""
} else := special_set(special(cmd), cmd)

special_set("find", cmd) := find_actions(cmd)

special_set("sed", cmd) := sed_actions(cmd)

special_set("awk", cmd) := awk_actions(cmd)

special_set("tee", cmd) := {act("LOCAL_WRITE", {"paths": ps, "argv": cmd.argv}) |
	ps := target_paths(cmd, "operands")
	count(ps) > 0
}

special_set("uniq", cmd) := {act("LOCAL_WRITE", {"paths": {operand_paths(cmd)[1]}, "argv": cmd.argv}) |
	count(operand_paths(cmd)) > 1
}

special_set("xxd", cmd) := {act("LOCAL_WRITE", {"paths": {operand_paths(cmd)[1]}, "argv": cmd.argv}) |
	count(operand_paths(cmd)) > 1
}

special_set("dd", cmd) := {dd_write(cmd, op) |
	some op in operands(cmd)
	startswith(op, "of=")
}

special_set("envset", cmd) := {act("SELF_MODIFICATION", {"argv": cmd.argv}) |
	some op in operands(cmd)
	selfmod_env(op)
}

special_set("killname", cmd) := {act("SELF_MODIFICATION", {"argv": cmd.argv}) |
	some op in operands(cmd)
	some name in {"opa", "hermes", "hermes-agent", "opafence"}
	contains(lower(op), name)
}

special_set("shell", cmd) := stdin_program(cmd)

special_set("interp", cmd) := stdin_program(cmd)

special_set("source", cmd) := {act("READ", {"paths": {p | some p in operand_paths(cmd)}}) | activate_script(cmd)}

special_set("httpie", cmd) := httpie_actions(cmd)

special_set("ip", cmd) := {act("EXECUTION", {"argv": cmd.argv, "caps": {"run_command"}}) |
	some op in operands(cmd)
	op in {"add", "del", "delete", "set", "flush", "change", "replace", "append"}
}

special_set("remote", cmd) := remote_actions(cmd)

special_set("git_push", cmd) := git_push_actions(cmd) | git_exec_actions(cmd)

special_set("git_discard", cmd) := {act("DELETE", {"paths": target_paths(cmd, "operands_or_repo"), "argv": cmd.argv}) |
	git_discards(cmd)
}

special_set("git", cmd) := git_exec_actions(cmd)

special_set("tar", cmd) := tar_actions(cmd)

special_set("", _) := set()

# --- find ------------------------------------------------------------------------------------

find_expr_start(argv) := min({i |
	some i, t in argv
	i > 0
	find_expr_token(t)
}) if {
	some i, t in argv
	i > 0
	find_expr_token(t)
} else := count(argv)

find_expr_token(t) if startswith(t, "-")

find_expr_token(t) if t in {"(", "!", "\\(", "\\!"}

find_roots(cmd) := {p | some p in array.slice(operand_paths(cmd), 0, find_expr_start(cmd.argv) - 1)} if {
	find_expr_start(cmd.argv) > 1
} else := {cwd}

find_exec_flags := {"-exec", "-execdir", "-ok", "-okdir"}

find_write_flags := {"-fprint", "-fprint0", "-fprintf", "-fls"}

# Commands find may run on what it found that only read it.
find_exec_reads := {
	"grep", "egrep", "fgrep", "cat", "head", "tail", "wc", "ls", "file", "stat", "md5sum", "sha1sum",
	"sha256sum", "du", "basename", "dirname", "echo", "printf", "test", "[", "readlink", "realpath",
}

find_exec_deletes := {"rm", "unlink", "shred", "rmdir"}

find_exec_perms := {"chmod", "chown", "chgrp", "setfacl"}

find_actions(cmd) := ({act("DELETE", {"paths": _find_deleted(cmd), "argv": cmd.argv}) |
	"-delete" in cmd.argv
} | {act("LOCAL_WRITE", {"open": true, "argv": cmd.argv}) |
	some t in cmd.argv
	t in find_write_flags
}) | {a |
	some i, t in cmd.argv
	t in find_exec_flags
	some a in find_exec_action(cmd, array.slice(cmd.argv, i + 1, find_exec_end(cmd.argv, i)))
}

find_exec_end(argv, i) := min({j |
	some j, t in argv
	j > i
	t in {";", "\\;", "+"}
}) if {
	some j, t in argv
	j > i
	t in {";", "\\;", "+"}
} else := count(argv)

exec_name(sub) := n if {
	parts := split(sub[0], "/")
	n := parts[count(parts) - 1]
}

find_exec_action(cmd, sub) := {act("READ", {"paths": find_roots(cmd)})} if {
	exec_name(sub) in find_exec_reads
} else := {act("DELETE", {"paths": _find_deleted(cmd), "argv": sub})} if {
	exec_name(sub) in find_exec_deletes
} else := {act("PERMISSION_CHANGE", {"paths": find_roots(cmd), "argv": sub, "caps": {exec_name(sub)}})} if {
	exec_name(sub) in find_exec_perms
} else := {act("EXECUTION", {"caps": {"run_command"}, "argv": sub, "open": true})}

# --- sed ---------------------------------------------------------------------------------------

sed_in_place(cmd) if flag_given(cmd, "-i")

sed_in_place(cmd) if {
	some f in flags(cmd)
	startswith(f, "--in-place")
}

sed_in_place(cmd) if {
	some f in flags(cmd)
	regex.match(`^-[a-zA-Z]*i`, f)
	not startswith(f, "--")
}

sed_script_flag(cmd) if {
	some f in {"-e", "--expression", "-f", "--file"}
	flag_given(cmd, f)
}

# Without -e / -f the first operand is the script; the rest are the files.
sed_scripts(cmd) := [s | some s in operands(cmd)] if sed_script_flag(cmd)

else := array.slice(operands(cmd), 0, 1)

sed_files(cmd) := {p | some p in operand_paths(cmd)} if sed_script_flag(cmd)

else := {p | some p in array.slice(operand_paths(cmd), 1, count(operand_paths(cmd)))}

sed_address := `([0-9]+|\$|/[^/]*/)?(,([0-9]+|\$|/[^/]*/))?!?`

sed_writes(script) if regex.match(`/[gpIiMme0-9]*w\s+\S`, script)

sed_writes(script) if regex.match(concat("", [`(^|[;{}\n])\s*`, sed_address, `\s*[wW]\s+\S`]), script)

sed_executes(script) if regex.match(`/[gpIiMmw0-9]*e\s*($|[;}\n])`, script)

sed_executes(script) if regex.match(concat("", [`(^|[;{}\n])\s*`, sed_address, `\s*e(\s|;|$)`]), script)

sed_sandboxed(cmd) if flag_given(cmd, "--sandbox")

sed_actions(cmd) := ({act("LOCAL_WRITE", {"paths": sed_files(cmd), "argv": cmd.argv, "open": count(sed_files(cmd)) == 0}) |
	sed_in_place(cmd)
} | {act("LOCAL_WRITE", {"open": true, "argv": cmd.argv}) |
	not sed_sandboxed(cmd)
	some s in sed_scripts(cmd)
	sed_writes(s)
}) | {act("EXECUTION", {"caps": {"run_command"}, "argv": cmd.argv, "open": true}) |
	not sed_sandboxed(cmd)
	some s in sed_scripts(cmd)
	sed_executes(s)
}

# --- awk ---------------------------------------------------------------------------------------

awk_executes(program) if regex.match(`system\s*\(|\|\s*getline|\|&|print[f]?[^;}]*\|`, program)

awk_writes(program) if regex.match(`print[f]?[^;}]*>`, program)

awk_actions(cmd) := (({act("EXECUTION", {"caps": {"run_command"}, "argv": cmd.argv, "open": true}) |
	some op in operands(cmd)
	awk_executes(op)
} | {act("LOCAL_WRITE", {"open": true, "argv": cmd.argv}) |
	some op in operands(cmd)
	awk_writes(op)
}) | {act("EXECUTION", {"caps": {"run_command"}, "argv": cmd.argv}) |
	some f in {"-f", "--file", "-E", "--exec"}
	flag_given(cmd, f)
}) | {act("LOCAL_WRITE", {"open": true, "argv": cmd.argv}) |
	some f in {"-i", "--include", "--inplace"}
	flag_given(cmd, f)
}

# --- shells and interpreters -------------------------------------------------------------------

# sh -c '...': the facts builder parsed the body into commands of its own; the wrapper adds
# nothing. (When the body could not be parsed, the shell is opaque, which is UNKNOWN.)
transparent_shell(cmd) if {
	spec(cmd).special == "shell"
	flag_given(cmd, "-c")
}

inline_code(cmd) if {
	some f, _ in data.opafence.classify.shell.inline_flags
	flag_given(cmd, f)
}

# curl ... | sh, python - < x: a program read from another command is not known.
stdin_program(cmd) := ({act("UNKNOWN", {"argv": cmd.argv, "why": "program read from a pipe"}) |
	object.get(cmd, "pipe_from", "") != ""
	not inline_code(cmd)
	count(operands(cmd)) == 0
} | {act("UNKNOWN", {"argv": cmd.argv, "why": "program read from standard input"}) |
	flag_given(cmd, "-s")
	spec(cmd).special == "shell"
}) | {act("UNKNOWN", {"argv": cmd.argv, "why": "program read from standard input"}) |
	"-" in operands(cmd)
}

activate_script(cmd) if {
	spec(cmd).special == "source"
	count(operands(cmd)) > 0
	every op in operands(cmd) {
		regex.match(`(^|/)bin/activate(\.fish|\.csh)?$`, op)
	}
}

# --- httpie ------------------------------------------------------------------------------------

httpie_methods := {"POST", "PUT", "PATCH", "DELETE"}

httpie_actions(cmd) := ({act("EXTERNAL_WRITE", {"domains": domains(cmd), "argv": cmd.argv, "egress": true}) |
	some op in operands(cmd)
	httpie_write_item(op)
} | {act("EXTERNAL_WRITE", {"domains": domains(cmd), "argv": cmd.argv, "egress": true}) |
	some f in {"-f", "--form", "--multipart", "--raw"}
	flag_given(cmd, f)
}) | {act("LOCAL_WRITE", {"open": true, "argv": cmd.argv}) |
	some f in {"-d", "--download", "-o", "--output", "--session"}
	flag_given(cmd, f)
}

httpie_write_item(op) if op in httpie_methods

httpie_write_item(op) if {
	not contains(op, "://")
	regex.match(`^[^=:@/]+(==|=|:=|@|=@|:=@)`, op)
	not regex.match(`^[^=:@/]+==`, op)
}

# --- remote copies and shells ------------------------------------------------------------------

remote_pattern := `^(?:[^@/:\s]+@)?(\[[^\]]+\]|[A-Za-z0-9._-]+):`

remote_spec(s) if {
	not contains(s, "://")
	regex.match(remote_pattern, s)
}

remote_host(s) := lower(trim(m[0][1], "[]")) if {
	remote_spec(s)
	m := regex.find_all_string_submatch_n(remote_pattern, s, 1)
}

login_host(s) := lower(parts[count(parts) - 1]) if {
	not contains(s, ":")
	parts := split(s, "@")
}

remote_hosts(cmd) := {h | some op in operands(cmd); h := remote_host(op)} | login_hosts(cmd) if {
	spec(cmd).special == "remote"
} else := set()

# ssh user@host ...: the first operand is the host.
login_hosts(cmd) := {login_host(operands(cmd)[0])} if {
	cmd.meta.nname in {"ssh", "mosh", "sftp", "ssh-copy-id"}
	count(operands(cmd)) > 0
} else := set()

remote_last(cmd) if remote_spec(operands(cmd)[count(operands(cmd)) - 1])

rsync_delete(cmd) if {
	some f in flags(cmd)
	startswith(f, "--delete")
}

rsync_delete(cmd) if flag_given(cmd, "--remove-source-files")

copy_tools := {"scp", "rsync"}

remote_actions(cmd) := ({act("EXTERNAL_WRITE", {"domains": domains(cmd), "argv": cmd.argv, "egress": true}) |
	cmd.meta.nname in copy_tools
	remote_last(cmd)
} | {act("LOCAL_WRITE", {"paths": target_paths(cmd, "last"), "argv": cmd.argv}) |
	cmd.meta.nname in copy_tools
	count(operands(cmd)) > 1
	not remote_last(cmd)
}) | {act("DELETE", {"paths": rsync_delete_paths(cmd), "domains": domains(cmd), "argv": cmd.argv, "egress": true}) |
	cmd.meta.nname in copy_tools
	rsync_delete(cmd)
}

rsync_delete_paths(cmd) := set() if remote_last(cmd)

else := target_paths(cmd, "last")

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

# --- dd ----------------------------------------------------------------------------------------

dd_write(cmd, op) := act("LOCAL_WRITE", {"paths": {p}, "argv": cmd.argv}) if {
	p := substring(op, 3, -1)
	startswith(p, "/")
	not contains(p, "/../")
	not null_path(p)
} else := act("READ", {}) if {
	null_path(substring(op, 3, -1))
} else := act("LOCAL_WRITE", {"open": true, "argv": cmd.argv})

# --- paths that are persistence or access wherever they are written --------------------------

home_prefix := concat("", [trim_suffix(input.host.home, "/"), "/"]) if input.host.home != ""

# METADATA
# title: sensitive_kinds
# description: |
#   The classes a write to p adds: EXECUTION when it is persistence (cron, systemd, shell startup
#   files), PERMISSION_CHANGE when it changes who may log in or become root. One lookup per level.
sensitive_kinds(p) := {k |
	some a in paths.ancestors(p)
	k := data.opafence.classify.shell.sensitive_paths[a]
} | {k |
	some a in paths.ancestors(p)
	startswith(a, home_prefix)
	k := data.opafence.classify.shell.sensitive_home_paths[substring(a, count(home_prefix), -1)]
}

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

# --- tar ---------------------------------------------------------------------------------------

tar_create_flags := {"-c", "--create", "-r", "--append", "-u", "--update", "-A", "--catenate", "--concatenate"}

# `tar czf out.tgz src`: the first argument is a bundle of option letters without a dash.
tar_key(cmd) := cmd.argv[1] if regex.match(`^[A-Za-z]+$`, cmd.argv[1])

tar_creates(cmd) if {
	some f in tar_create_flags
	flag_given(cmd, f)
}

tar_creates(cmd) if regex.match(`^[A-Za-z]*[cruA][A-Za-z]*$`, tar_key(cmd))

tar_extracts(cmd) if regex.match(`^[A-Za-z]*x[A-Za-z]*$`, tar_key(cmd))

# Creating writes the archive the -f option names (open when it is not a resolved word of its own).
tar_actions(cmd) := {tar_archive_write(cmd) | tar_creates(cmd); not tar_archives(cmd) == {"/dev/null"}} | {act("LOCAL_WRITE", {"open": true, "argv": cmd.argv}) |
	tar_extracts(cmd)
}

tar_archive_write(cmd) := act("LOCAL_WRITE", {"paths": ps, "argv": cmd.argv}) if {
	ps := tar_archives(cmd)
	count(ps) == 1
	not tar_file_hidden(cmd)
} else := act("LOCAL_WRITE", {"open": true, "argv": cmd.argv})

tar_archives(cmd) := {p |
	some i, t in cmd.argv
	i > 0
	tar_file_word(cmd, i, t)
	v := cmd.argv[i + 1]
	some j, o in operands(cmd)
	o == v
	v != "-"
	p := operand_paths(cmd)[j]
	p != ""
	not null_path(p)
} | {"/dev/null" |
	some i, t in cmd.argv
	i > 0
	tar_file_word(cmd, i, t)
	tar_no_file(cmd.argv[i + 1])
}

# `-f -` is standard output; /dev/null is nothing.
tar_no_file("-")

tar_no_file(v) if null_path(v)

tar_file_word(_, _, "-f")

tar_file_word(_, _, "--file")

tar_file_word(_, i, t) if {
	i > 0
	regex.match(`^-[A-Za-z]*f$`, t)
}

tar_file_word(cmd, 1, t) if {
	t == tar_key(cmd)
	endswith(t, "f")
}

# --file=NAME, or -f inside a cluster that does not end the word: not resolved by the facts.
tar_file_hidden(cmd) if {
	some t in cmd.argv
	startswith(t, "--file=")
}

tar_file_hidden(cmd) if {
	some t in cmd.argv
	regex.match(`^-[A-Za-z]*f[A-Za-z]+$`, t)
}
