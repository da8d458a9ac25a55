# METADATA
# title: Persistence
# description: |
#   Making something run again later, without anyone asking: shell start-up files, cron,
#   systemd and launchd units, autostart entries, git hooks, ld.so.preload, SSH
#   authorized_keys, and Hermes cron jobs that run a script with no agent (no hook sees them).
#   Each blocks, unless the user's own words named exactly that file or command; then it asks.
# schemas:
#   - input: schema.input
#   - data.tasks: schema.tasks
package opafence.guards.persistence

import data.opafence.guards.common
import data.opafence.guards.persistence.home_persistence
import data.opafence.guards.persistence.system_persistence
import data.opafence.lib.reason

deny contains f.reason if {
	some f in _findings
	not f.soft
}

ask contains common.asked(f.reason) if {
	some f in _findings
	f.soft
}

_line(c) := common.shown(c)

# METADATA
# title: persistent_path
# description: True when a file at path p runs (or decides what runs) at login, on a schedule or on a git or SSH event.
_persistent_path(p) if common.in_home_table(common.norm(p), home_persistence)

_persistent_path(p) if common.in_table(common.norm(p), system_persistence)

_persistent_path(p) if regex.match(`/\.git/hooks(/|$)`, common.norm(p))

_persistent_path(p) if common.basename(p) in {"authorized_keys", "authorized_keys2"}

# METADATA
# title: PERSISTENCE_FILE
# description: >-
#   This would change {{.path}}, which makes code run again later (at login, on a schedule, on a git
#   or SSH event).
# custom:
#   code: PERSISTENCE
#   fix: Do not install start-up files, schedules, hooks or keys from the agent; the user adds them themselves.
_findings contains {
	"reason": reason.render(rego.metadata.rule(), {"path": t.path}),
	"soft": common.soft_path(t.path),
} if {
	some t in common.changes
	t.kind in {"write", "move", "perm"}
	_persistent_path(t.path)
}

_lower_args(c) := [lower(a) | some a in common.args(c)]

# METADATA
# title: PERSISTENCE_COMMAND
# description: >-
#   `{{.command}}` installs something that runs again later (a cron entry, a service, a login item
#   or a hook path).
# custom:
#   code: PERSISTENCE
#   fix: Do not schedule or enable services from the agent; the user does that themselves.
_findings contains {
	"reason": reason.render(rego.metadata.rule(), {"command": _line(c)}),
	"soft": common.soft_command(c, {t}),
} if {
	some c in common.commands
	some t in _schedules(c)
}

_schedules(c) := {"crontab" |
	not "-l" in c.argv
} if {
	common.cmd_name(c) == "crontab"
} else := {a |
	some a in _lower_args(c)
	a in {"enable", "reenable", "link", "preset", "edit", "set-property", "add-wants", "add-requires"}
} if {
	common.cmd_name(c) == "systemctl"
} else := {a |
	some a in _lower_args(c)
	a in {"load", "bootstrap", "submit", "enable", "kickstart"}
} if {
	common.cmd_name(c) == "launchctl"
} else := {c.name} if {
	common.cmd_name(c) in {"at", "batch", "update-rc.d", "chkconfig", "systemd-run", "schtasks"}
} else := {"add" |
	"add" in _lower_args(c)
} if {
	common.cmd_name(c) == "rc-update"
} else := {"enable-linger" |
	"enable-linger" in _lower_args(c)
} if {
	common.cmd_name(c) == "loginctl"
} else := {"core.hookspath" |
	"config" in _lower_args(c)
	some a in _lower_args(c)
	a in {"core.hookspath", "core.fsmonitor", "core.sshcommand"}
	count(c.operands) > 2
} if {
	common.cmd_name(c) == "git"
} else := set()

# METADATA
# title: PERSISTENCE_CRONJOB
# description: >-
#   This Hermes cron job ({{.action}}) runs a script on a schedule, and scripts run outside any
#   tool call, so no opafence check would see what they do.
# custom:
#   code: PERSISTENCE
#   fix: Schedule a prompt instead of a script, or ask the user to create the job themselves.
_findings contains {
	"reason": reason.render(rego.metadata.rule(), {"action": action}),
	"soft": "cronjob" in common.granted_tools,
} if {
	input.call.tool == "cronjob"
	action := lower(object.get(input.call.args, "action", ""))
	action in {"create", "update", "resume", "run", "add", "edit"}
	_unattended_script
}

_unattended_script if input.call.args.no_agent == true

_unattended_script if {
	is_string(input.call.args.script)
	trim_space(input.call.args.script) != ""
}
