# Shell classification, command-specific rules:
#   the commands whose effect depends on more than their options: shells and interpreters,
#   httpie, remote copies, dd, tar, and commands that touch opafence or Hermes themselves (find,
#   sed and awk in scripts.rego, git in git.rego).
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
