# METADATA
# title: Self-protection
# description: |
#   The agent must not be able to change, stop or escape opafence. Blocks, in every mode
#   (reasons carry "always": true) and whatever the task grants: changing opafence's state
#   directory, socket, bundle or installed package, or Hermes' config.yaml, .env and plugins;
#   `hermes plugins …` and `hermes config` writes; uninstalling opafence; signals to OPA;
#   requests to the OPA API; and starting a Hermes or an opafence that would run weaker.
# schemas:
#   - input: schema.input
#   - data.tasks: schema.tasks
#   - data.config: schema.config
package opafence.guards.self_protection

import data.opafence.guards.common
import data.opafence.lib.reason

always(r) := object.union(r, {"always": true})

# --- what is protected ---------------------------------------------------------------------

hermes_files := {"config.yaml", ".env", "plugins"}

# METADATA
# title: protected_roots
# description: >-
#   opafence's state directory (config, tasks, audit log, bundle), the OPA socket and its
#   directory, the installed package, Hermes' config.yaml, .env and plugins directory, and
#   config.protected_paths.
protected_roots contains common.norm(p) if {
	some p in host_protected
	p != ""
}

host_protected contains input.host.state_dir

host_protected contains input.host.opa_socket

host_protected contains input.host.package_dir

host_protected contains common.dirname(input.host.opa_socket) if {
	common.dirname(input.host.opa_socket) != "/"
}

host_protected contains concat("/", [trim_right(input.host.hermes_home, "/"), f]) if {
	input.host.hermes_home != ""
	some f in hermes_files
}

host_protected contains p if {
	some p in data.config.protected_paths
}

# Hermes' and opafence's installed code, wherever a site-packages holds it.
installed_code := concat("", [
	`/(site|dist)-packages/`,
	`(opafence|hermes_cli|hermes_agent|hermes_plugins|tools|agent|gateway|plugins|model_tools\.py|run_agent\.py)`,
	`([-_.][^/]*)?(/|$)`,
])

protected(p) if {
	np := common.norm(p)
	some r in protected_roots
	common.within(np, r)
}

protected(p) if regex.match(installed_code, common.norm(p))

# A recursive delete, move or permission change of a directory above a protected path
# reaches the protected path too (`rm -rf ~/.hermes`, `chmod -R 777 ~`).
reaches_protected(p) if {
	np := common.norm(p)
	some r in protected_roots
	common.within(r, np)
}

socket_dir := common.dirname(input.host.opa_socket)

# --- changes to protected files ------------------------------------------------------------

# METADATA
# title: SELF_PROTECT_PATH
# description: >-
#   This would {{.kind}} {{.path}}, which belongs to opafence or to Hermes' own configuration;
#   the agent may never change it.
# custom:
#   code: SELF_PROTECT_PATH
#   fix: >-
#     Leave opafence's and Hermes' own files alone; a person changes them outside the agent
#     (for example with `hermes config` in their own terminal).
deny contains always(reason.render(rego.metadata.rule(), {"kind": verb[t.kind], "path": t.path})) if {
	some t in common.changes
	t.kind != "none"
	protected(t.path)
}

# METADATA
# title: SELF_PROTECT_PATH_PARENT
# description: >-
#   This would {{.kind}} {{.path}} with everything below it, including opafence's or Hermes'
#   protected files.
# custom:
#   code: SELF_PROTECT_PATH
#   fix: Narrow the command to the files you need, outside Hermes' home and opafence's directories.
deny contains always(reason.render(rego.metadata.rule(), {"kind": verb[t.kind], "path": t.path})) if {
	some t in common.changes
	t.kind in {"delete", "move", "perm", "write"}
	t.recursive
	reaches_protected(t.path)
}

verb := {"write": "write", "delete": "delete", "move": "move", "perm": "change the permissions of", "none": "use"}

# METADATA
# title: SELF_PROTECT_CD
# description: >-
#   This command moves into {{.path}} (opafence's or Hermes' own directory) and changes files
#   there; the agent may never change them.
# custom:
#   code: SELF_PROTECT_PATH
#   fix: Leave opafence's and Hermes' own files alone.
deny contains always(reason.render(rego.metadata.rule(), {"path": d})) if {
	some d in common.shift_dirs
	some r in protected_roots
	common.under(r, d)
	changes_relative
}

changes_relative if {
	some c in common.commands
	some r in c.redirects
	r.mode in {"write", "append"}
	common.relative(r.raw)
}

changes_relative if {
	some c in common.commands
	count(common.cmd_changes(c)) > 0
	some o in c.operands
	common.relative(o)
}

# --- hermes plugins / config / weaker starts ------------------------------------------------

hermes_invocations contains common.args(c) if {
	some c in common.commands
	common.cmd_name(c) in {"hermes", "hermes-agent"}
}

hermes_invocations contains array.slice(c.argv, 3, count(c.argv)) if {
	some c in common.commands
	startswith(common.cmd_name(c), "python")
	c.argv[1] == "-m"
	startswith(lower(c.argv[2]), "hermes_cli")
}

# METADATA
# title: SELF_PROTECT_HERMES_PLUGINS
# description: >-
#   `hermes plugins {{.action}}` changes which plugins Hermes loads, opafence among them;
#   the agent may never change it.
# custom:
#   code: SELF_PROTECT_HERMES_PLUGINS
#   fix: A person manages Hermes plugins in their own terminal.
deny contains always(reason.render(rego.metadata.rule(), {"action": action})) if {
	some xs in hermes_invocations
	common.subcommand(xs) == "plugins"
	action := plugin_action(xs)
	not action in {"list", "ls"}
}

plugin_action(xs) := a if {
	rest := [x | some x in xs; not startswith(x, "-")]
	a := lower(rest[1])
} else := "(interactive)"

config_writes := {"set", "edit", "unset", "reset", "migrate", "import", "delete", "remove", "rm", "setup", "wizard"}

# METADATA
# title: SELF_PROTECT_HERMES_CONFIG
# description: >-
#   `hermes config {{.action}}` rewrites Hermes' config.yaml (plugins, approvals, yolo,
#   allow-lists live there); the agent may never change it.
# custom:
#   code: SELF_PROTECT_HERMES_CONFIG
#   fix: A person changes Hermes' configuration in their own terminal.
deny contains always(reason.render(rego.metadata.rule(), {"action": action})) if {
	some xs in hermes_invocations
	common.subcommand(xs) == "config"
	rest := [x | some x in xs; not startswith(x, "-")]
	action := lower(rest[1])
	action in config_writes
}

weaker_flags := {
	"-z", "--oneshot", "--yolo", "--safe-mode", "--ignore-user-config", "--ignore-rules",
	"-p", "--profile", "--accept-hooks",
}

# METADATA
# title: SELF_PROTECT_HERMES_START
# description: >-
#   This starts another Hermes agent from inside the task ({{.how}}), which would run without
#   this task's limits or with opafence weakened.
# custom:
#   code: SELF_PROTECT_WEAKER_START
#   fix: Do the work in this session; a person starts other Hermes sessions themselves.
deny contains always(reason.render(rego.metadata.rule(), {"how": how})) if {
	some xs in hermes_invocations
	some how in weaker_start(xs)
}

weaker_start(xs) := ({f |
	some x in xs
	f := split(x, "=")[0]
	f in weaker_flags
} | {"chat -q" |
	common.subcommand(xs) == "chat"
	some q in {"-q", "--query"}
	some x in xs
	split(x, "=")[0] == q
}) | {"uninstall" |
	common.subcommand(xs) == "uninstall"
}

# Environment variables that make Hermes or opafence run weaker, or somewhere else.
weaker_env := concat("", [
	`^(hermes_(safe_mode|yolo_mode|home|ignore_user_config|ignore_rules|enable_project_plugins|accept_hooks|profile)`,
	`|opafence_[a-z0-9_]*)$`,
])

# METADATA
# title: SELF_PROTECT_ENV
# description: >-
#   Setting {{.name}} would start Hermes or opafence weaker, or with another configuration;
#   the agent may never do that.
# custom:
#   code: SELF_PROTECT_WEAKER_START
#   fix: Run the command without changing Hermes' or opafence's environment variables.
deny contains always(reason.render(rego.metadata.rule(), {"name": name})) if {
	some name in weaker_env_names
}

weaker_env_names contains upper(k) if {
	some c in common.commands
	some k, _ in c.env
	regex.match(weaker_env, lower(k))
}

weaker_env_names contains upper(k) if {
	some c in common.commands
	common.cmd_name(c) in {"export", "declare", "typeset", "setenv", "readonly", "local", "set"}
	some o in common.args(c)
	k := split(o, "=")[0]
	regex.match(weaker_env, lower(k))
}

# In code (`os.environ["HERMES_YOLO_MODE"] = "1"`, `env={"OPAFENCE_MODE": …}`, putenv) and
# anything the shell parser did not see.
weaker_env_names contains upper(m[1]) if {
	some m in regex.find_all_string_submatch_n(env_assignment, common.text, -1)
}

env_assignment := concat("", [
	`(?i)\b(HERMES_(?:SAFE_MODE|YOLO_MODE|HOME|IGNORE_USER_CONFIG|IGNORE_RULES|ENABLE_PROJECT_PLUGINS`,
	`|ACCEPT_HOOKS|PROFILE)|OPAFENCE_[A-Z0-9_]+)(?:\s*=|["']\s*(?:\]\s*=|,|:))`,
])

# --- uninstalling opafence -------------------------------------------------------------------

# METADATA
# title: SELF_PROTECT_UNINSTALL
# description: "`{{.command}}` would remove or replace the installed opafence package."
# custom:
#   code: SELF_PROTECT_UNINSTALL
#   fix: A person installs or removes opafence themselves.
deny contains always(reason.render(rego.metadata.rule(), {"command": common.shown(c)})) if {
	some c in common.commands
	xs := common.pip_args(c)
	common.subcommand(xs) in {"uninstall", "remove", "rm", "install", "add", "reinstall", "upgrade"}
	some x in xs
	regex.match(`^opafence([\[<>=!~ ;@].*)?$`, lower(x))
}

# --- signals to OPA ----------------------------------------------------------------------------

kill_cmds := {"kill", "pkill", "killall", "skill", "killall5", "tkill"}

names_opa(s) if regex.match(`(?i)(^|[^a-z0-9])opa([^a-z0-9]|$)|opafence`, strings.replace_n({"[": "", "]": ""}, s))

names_opa(s) if {
	input.host.opa_socket != ""
	contains(lower(s), lower(input.host.opa_socket))
}

# METADATA
# title: SELF_PROTECT_SIGNAL
# description: "`{{.command}}` would signal the OPA process that decides what the agent may do."
# custom:
#   code: SELF_PROTECT_SIGNAL
#   fix: Leave the OPA process alone; stop only processes this task started, by their own id.
deny contains always(reason.render(rego.metadata.rule(), {"command": common.shown(c)})) if {
	some c in common.commands
	common.cmd_name(c) in kill_cmds
	some other in common.commands
	some a in common.args(other)
	names_opa(a)
}

# `kill -9 -1`, `kill -- -1`, `killall5`, `pkill -u me`: every process of the user, OPA included.

# METADATA
# title: SELF_PROTECT_SIGNAL_ALL
# description: "`{{.command}}` would signal every process of the user, the OPA process among them."
# custom:
#   code: SELF_PROTECT_SIGNAL
#   fix: Stop only processes this task started, by their own id.
deny contains always(reason.render(rego.metadata.rule(), {"command": common.shown(c)})) if {
	some c in common.commands
	signals_all(c)
}

signals_all(c) if {
	common.cmd_name(c) == "kill"
	c.argv[count(c.argv) - 1] == "-1"
}

signals_all(c) if common.cmd_name(c) == "killall5"

signals_all(c) if {
	common.cmd_name(c) in {"pkill", "killall", "skill"}
	some f in {"-u", "-U", "--euid", "--uid", "--user"}
	common.has_flag(c, f)
}

# --- the OPA API ---------------------------------------------------------------------------------

# METADATA
# title: SELF_PROTECT_API
# description: >-
#   This call names OPA's socket ({{.what}}); only opafence itself talks to the OPA that
#   decides what the agent may do.
# custom:
#   code: SELF_PROTECT_API
#   fix: Do not contact opafence's OPA; ask the user if the policy seems wrong.
deny contains always(reason.render(rego.metadata.rule(), {"what": what})) if {
	some what in api_touch
}

api_touch contains input.host.opa_socket if {
	input.host.opa_socket != ""
	some s in common.arg_strings
	contains(lower(s), lower(input.host.opa_socket))
}

api_touch contains socket_dir if {
	socket_dir != ""
	socket_dir != "/"
	some s in common.arg_strings
	contains(lower(s), socket_dir)
}

api_touch contains p.path if {
	socket_dir != ""
	some p in input.facts.paths
	common.under(p.path, socket_dir)
}

api_touch contains p if {
	socket_dir != ""
	some c in common.commands
	some p in (common.operand_paths(c) | socket_tokens(c))
	common.under(p, socket_dir)
}

# A socket named like ours, wherever it is (`curl --unix-socket /tmp/x/opa.sock`).
api_touch contains "opa.sock" if {
	some c in common.commands
	some a in c.argv
	endswith(lower(a), "opa.sock")
}

# OPA's own API paths for opafence's data, on any host (a shared OPA in remote mode).
api_touch contains u.raw if {
	some u in input.facts.urls
	regex.match(`^/v1/(data/(tasks|opafence|org)|policies/opafence)(/|$|\?)`, lower(u.path))
}

socket_tokens(c) := {common.expand(v) |
	some a in c.argv
	m := regex.find_all_string_submatch_n(`(?i)^(?:unix-connect:|unix-client:|unix:|--unix-socket=)(.+)$`, a, 1)
	v := m[0][1]
}
