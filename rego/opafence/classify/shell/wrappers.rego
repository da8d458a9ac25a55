# Shell classification, what surrounds a command (shell.rego's command_actions takes it): its
# redirections, the privileged wrappers it runs under and the environment it is given.
package opafence.classify.shell

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
