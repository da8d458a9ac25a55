# METADATA
# title: Security settings
# description: |
#   Turning the machine's defences off: the firewall (ufw, iptables, nftables, firewalld, pf),
#   SELinux / AppArmor / SIP / Gatekeeper, world-writable permissions over whole trees or system
#   directories, setuid / setgid bits and file capabilities, the files that hold who may log in
#   or become root, and TLS verification. Each blocks, unless the user's own words named
#   exactly that command; then it asks.
# schemas:
#   - input: schema.input
#   - data.tasks: schema.tasks
package opafence.guards.security_settings

import data.opafence.guards.common
import data.opafence.lib.reason

deny contains f.reason if {
	some f in findings
	not f.soft
}

ask contains common.asked(f.reason) if {
	some f in findings
	f.soft
}

line(c) := common.shown(c)

lower_args(c) := [lower(a) | some a in common.args(c)]

defence_services := {
	"ufw", "firewalld", "nftables", "iptables", "ip6tables", "netfilter-persistent", "apparmor",
	"auditd", "selinux", "fail2ban", "clamav-daemon", "crowdstrike", "falcon-sensor", "osqueryd",
}

# METADATA
# title: FIREWALL_OFF
# description: "`{{.command}}` turns the firewall or another defence off."
# custom:
#   code: FIREWALL_OFF
#   fix: Leave the firewall on; open only the port you need, and let the user do it.
findings contains {
	"reason": reason.render(rego.metadata.rule(), {"command": line(c)}),
	"soft": common.soft_command(c, {t}),
} if {
	some c in common.commands
	some t in firewall_off(c)
}

firewall_off(c) := {a |
	some a in lower_args(c)
	a in {"disable", "reset"}
} | {"allow" |
	lower_args(c)[0] == "default"
	"allow" in lower_args(c)
	not "outgoing" in lower_args(c)
} if {
	common.cmd_name(c) == "ufw"
} else := {a |
	some a in c.argv
	a in {"-F", "--flush", "-X", "--delete-chain"}
} | {"ACCEPT" |
	some a in c.argv
	a in {"-P", "--policy"}
	"ACCEPT" in c.argv
} if {
	common.cmd_name(c) in {"iptables", "ip6tables", "iptables-legacy", "iptables-nft"}
} else := {"flush" |
	lower_args(c)[0] == "flush"
} if {
	common.cmd_name(c) == "nft"
} else := {a |
	some a in lower_args(c)
	a in {"--panic-off", "--set-default-zone=trusted"}
} if {
	common.cmd_name(c) == "firewall-cmd"
} else := {"-d" |
	"-d" in c.argv
} if {
	common.cmd_name(c) == "pfctl"
} else := {"off" |
	"--setglobalstate" in lower_args(c)
	"off" in lower_args(c)
} if {
	common.cmd_name(c) == "socketfilterfw"
} else := {s |
	lower_args(c)[0] in {"stop", "disable", "mask", "kill"}
	some s in lower_args(c)
	trim_suffix(s, ".service") in defence_services
} if {
	common.cmd_name(c) == "systemctl"
} else := {s |
	s := lower_args(c)[0]
	s in defence_services
	lower_args(c)[1] == "stop"
} if {
	common.cmd_name(c) == "service"
} else := set()

# METADATA
# title: MAC_OFF
# description: "`{{.command}}` turns off mandatory access control or system integrity protection."
# custom:
#   code: SECURITY_OFF
#   fix: Leave SELinux, AppArmor, SIP and Gatekeeper on; the user changes them themselves.
findings contains {
	"reason": reason.render(rego.metadata.rule(), {"command": line(c)}),
	"soft": common.soft_command(c, {t}),
} if {
	some c in common.commands
	some t in mac_off(c)
}

mac_off(c) := {a |
	some a in lower_args(c)
	a in {"0", "permissive"}
} if {
	common.cmd_name(c) == "setenforce"
} else := {c.name} if {
	common.cmd_name(c) in {"aa-disable", "aa-complain", "aa-teardown"}
} else := {"disable" |
	"disable" in lower_args(c)
} if {
	common.cmd_name(c) == "csrutil"
} else := {a |
	some a in lower_args(c)
	a in {"--master-disable", "--global-disable", "--disable"}
} if {
	common.cmd_name(c) == "spctl"
} else := {a |
	some a in lower_args(c)
	regex.match(`^kernel\.(randomize_va_space=0|yama\.ptrace_scope=0|kptr_restrict=0|dmesg_restrict=0)$`, a)
} if {
	common.cmd_name(c) == "sysctl"
} else := {"0" |
	"-e" in c.argv
	"0" in c.argv
} if {
	common.cmd_name(c) == "auditctl"
} else := set()

# --- permissions --------------------------------------------------------------------------------

world_writable(mode) if regex.match(`^0?[0-7]?[0-7][0-7][2367]$`, mode)

world_writable(mode) if regex.match(`^[ugoa]*[ao][ugoa]*[+=][rwxXst]*w`, mode)

world_writable(mode) if regex.match(`^[+=][rwxXst]*w`, mode)

setid(mode) if regex.match(`^0?[2-7][0-7]{3}$`, mode)

setid(mode) if regex.match(`^[ugoa]*[+=][rwxXt]*s`, mode)

chmod_mode(c) := [x | some x in common.args(c); not startswith(x, "-")][0]

# `a=rwx,u+s`: each comma-separated clause of a symbolic mode.
mode_clauses(c) := {x | some x in split(chmod_mode(c), ",")}

# METADATA
# title: WORLD_WRITABLE
# description: "`{{.command}}` makes {{.what}} writable by every user on the machine."
# custom:
#   code: WORLD_WRITABLE
#   fix: Grant only what is needed (for a script, `chmod +x` or `chmod 755`), on the files themselves.
findings contains {
	"reason": reason.render(rego.metadata.rule(), {"command": line(c), "what": what}),
	"soft": common.soft_command(c, {chmod_mode(c)}),
} if {
	some c in common.commands
	common.cmd_name(c) == "chmod"
	some m in mode_clauses(c)
	world_writable(m)
	some what in world_targets(c)
}

world_targets(c) := {"a whole directory tree"} if common.recursive(c)

else := {p |
	some i, _ in c.operands
	i > 0
	p := common.operand_path(c, i)
	system_or_home(p)
}

system_or_home(p) if common.norm(p) in {
	"/", "/etc", "/usr", "/bin", "/sbin", "/var", "/opt", "/lib", "/boot", "/root", "/home", "/tmp",
	"/dev",
}

system_or_home(p) if common.norm(p) == common.norm(input.host.home)

system_or_home(p) if {
	some d in {"/etc", "/usr", "/bin", "/sbin", "/boot", "/lib"}
	common.under(p, d)
}

# METADATA
# title: SETUID
# description: >-
#   `{{.command}}` sets a setuid/setgid bit or a file capability, so the file runs with more
#   privileges than its caller.
# custom:
#   code: SETUID
#   fix: Do not add setuid, setgid or capabilities; run the program normally.
findings contains {
	"reason": reason.render(rego.metadata.rule(), {"command": line(c)}),
	"soft": common.soft_command(c, {chmod_mode(c)}),
} if {
	some c in common.commands
	common.cmd_name(c) == "chmod"
	some m in mode_clauses(c)
	setid(m)
}

# METADATA
# title: SETCAP
# description: "`{{.command}}` gives a file capabilities, so it runs with more privileges than its caller."
# custom:
#   code: SETUID
#   fix: Do not add file capabilities; run the program normally.
findings contains {
	"reason": reason.render(rego.metadata.rule(), {"command": line(c)}),
	"soft": common.soft_command(c, {c.name}),
} if {
	some c in common.commands
	common.cmd_name(c) == "setcap"
}

# METADATA
# title: SECURITY_FILE
# description: This would change {{.path}}, which decides who may log in, become root or reach the machine.
# custom:
#   code: SECURITY_FILE
#   fix: The user edits these files themselves.
findings contains {
	"reason": reason.render(rego.metadata.rule(), {"path": t.path}),
	"soft": common.soft_path(t.path),
} if {
	some t in common.changes
	t.kind in {"write", "move", "perm", "delete"}
	common.in_table(common.norm(t.path), security_files)
}

security_files := {
	"/etc/sudoers", "/etc/sudoers.d", "/etc/pam.d", "/etc/ssh/sshd_config", "/etc/ssh/sshd_config.d",
	"/etc/selinux", "/etc/apparmor.d", "/etc/security", "/etc/passwd", "/etc/shadow", "/etc/group",
	"/etc/gshadow", "/etc/ufw", "/etc/firewalld",
	"/etc/nftables.conf", "/etc/iptables", "/private/etc/sudoers", "/etc/polkit-1",
}

# METADATA
# title: TLS_VERIFY_OFF
# description: "`{{.command}}` turns off TLS certificate checks, so any server can pose as the real one."
# custom:
#   code: TLS_VERIFY_OFF
#   fix: Keep certificate checks on; add the right CA certificate instead.
findings contains {
	"reason": reason.render(rego.metadata.rule(), {"command": line(c)}),
	"soft": common.soft_command(c, {"false"}),
} if {
	some c in common.commands
	tls_off(c)
}

tls_off(c) if {
	common.cmd_name(c) == "git"
	"config" in lower_args(c)
	some i, a in lower_args(c)
	a == "http.sslverify"
	lower_args(c)[i + 1] in {"false", "0", "no", "off"}
}

tls_off(c) if {
	common.cmd_name(c) in {"npm", "yarn", "pnpm"}
	"config" in lower_args(c)
	some i, a in lower_args(c)
	a in {"strict-ssl", "strictssl"}
	lower_args(c)[i + 1] == "false"
}
