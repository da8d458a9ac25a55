# Shell classification, commands that carry a script of their own (special.rego's special_set
#   takes them): find's actions, sed scripts and awk programs.
package opafence.classify.shell

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
