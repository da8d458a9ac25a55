package opafence.guards.security_settings_test

import data.opafence.guards.security_settings as sec
import data.opafence.test.fixtures as f

one(argv) := f.terminal([f.sh(argv)])

block(code) := {"deny": [code]}

granted(commands) := f.task([{"id": "g1", "class": "EXECUTION", "capability": "run_command", "evidence": "x", "commands": commands}])

cases := [
	{"name": "ufw disable", "input": one(["ufw", "disable"]), "want": block("FIREWALL_OFF")},
	{"name": "sudo ufw reset", "input": f.terminal([f.shx(["ufw", "--force", "reset"], {"wrappers": ["sudo"]})]), "want": block("FIREWALL_OFF")},
	{"name": "ufw default allow", "input": one(["ufw", "default", "allow", "incoming"]), "want": block("FIREWALL_OFF")},
	{"name": "iptables -F", "input": one(["iptables", "-F"]), "want": block("FIREWALL_OFF")},
	{"name": "iptables --flush", "input": one(["iptables", "--flush", "INPUT"]), "want": block("FIREWALL_OFF")},
	{"name": "iptables -P INPUT ACCEPT", "input": one(["iptables", "-P", "INPUT", "ACCEPT"]), "want": block("FIREWALL_OFF")},
	{"name": "ip6tables -F", "input": one(["ip6tables", "-F"]), "want": block("FIREWALL_OFF")},
	{"name": "nft flush ruleset", "input": one(["nft", "flush", "ruleset"]), "want": block("FIREWALL_OFF")},
	{"name": "systemctl stop firewalld", "input": one(["systemctl", "stop", "firewalld"]), "want": block("FIREWALL_OFF")},
	{"name": "systemctl disable --now ufw.service", "input": one(["systemctl", "disable", "--now", "ufw.service"]), "want": block("FIREWALL_OFF")},
	{"name": "pfctl -d", "input": one(["pfctl", "-d"]), "want": block("FIREWALL_OFF")},
	{"name": "firewall-cmd panic off", "input": one(["firewall-cmd", "--panic-off"]), "want": block("FIREWALL_OFF")},
	{"name": "socketfilterfw off", "input": one(["socketfilterfw", "--setglobalstate", "off"]), "want": block("FIREWALL_OFF")},
	{"name": "service ufw stop", "input": one(["service", "ufw", "stop"]), "want": block("FIREWALL_OFF")},
	{"name": "systemctl mask apparmor", "input": one(["systemctl", "mask", "apparmor"]), "want": block("FIREWALL_OFF")},
	{"name": "auditctl -e 0", "input": one(["auditctl", "-e", "0"]), "want": block("SECURITY_OFF")},
	{"name": "setenforce 0", "input": one(["setenforce", "0"]), "want": block("SECURITY_OFF")},
	{"name": "setenforce Permissive", "input": one(["setenforce", "Permissive"]), "want": block("SECURITY_OFF")},
	{"name": "aa-disable", "input": one(["aa-disable", "/etc/apparmor.d/usr.bin.x"]), "want": block("SECURITY_OFF")},
	{"name": "spctl master-disable", "input": one(["spctl", "--master-disable"]), "want": block("SECURITY_OFF")},
	{"name": "csrutil disable", "input": one(["csrutil", "disable"]), "want": block("SECURITY_OFF")},
	{"name": "sysctl aslr off", "input": one(["sysctl", "-w", "kernel.randomize_va_space=0"]), "want": block("SECURITY_OFF")},
	{"name": "chmod -R 777", "input": one(["chmod", "-R", "777", "src"]), "want": block("WORLD_WRITABLE")},
	{"name": "chmod -R a+w", "input": one(["chmod", "-R", "a+rwx", "."]), "want": block("WORLD_WRITABLE")},
	{"name": "chmod 777 /", "input": one(["chmod", "777", "/"]), "want": block("WORLD_WRITABLE")},
	{"name": "chmod 0777 /etc/passwd", "input": one(["chmod", "0777", "/etc/passwd"]), "want": {"deny": ["WORLD_WRITABLE", "SECURITY_FILE"]}},
	{"name": "chmod o+w home", "input": one(["chmod", "o+w", "~"]), "want": block("WORLD_WRITABLE")},
	{"name": "chmod u+s", "input": one(["chmod", "u+s", "/usr/local/bin/tool"]), "want": block("SETUID")},
	{"name": "chmod +s", "input": one(["chmod", "+s", "run.sh"]), "want": block("SETUID")},
	{"name": "chmod g+s", "input": one(["chmod", "g+s", "bin/x"]), "want": block("SETUID")},
	{"name": "chmod 4755", "input": one(["chmod", "4755", "bin/x"]), "want": block("SETUID")},
	{"name": "chmod 2755", "input": one(["chmod", "2755", "bin/x"]), "want": block("SETUID")},
	{"name": "chmod 06755", "input": one(["chmod", "06755", "bin/x"]), "want": block("SETUID")},
	{"name": "chmod a=rwx,u+s", "input": one(["chmod", "a=rwx,u+s", "bin/x"]), "want": block("SETUID")},
	{"name": "chmod -R u=rwx,o=rwx", "input": one(["chmod", "-R", "u=rwx,o=rwx", "www"]), "want": block("WORLD_WRITABLE")},
	{"name": "setcap", "input": one(["setcap", "cap_net_raw+ep", "bin/x"]), "want": block("SETUID")},
	{"name": "write sudoers.d", "input": f.write_file("/etc/sudoers.d/agent"), "want": block("SECURITY_FILE")},
	{"name": "tee sudoers", "input": one(["tee", "-a", "/etc/sudoers"]), "want": block("SECURITY_FILE")},
	{"name": "sed sshd_config", "input": one(["sed", "-i", "s/no/yes/", "/etc/ssh/sshd_config"]), "want": block("SECURITY_FILE")},
	{"name": "git sslVerify false", "input": one(["git", "config", "--global", "http.sslVerify", "false"]), "want": block("TLS_VERIFY_OFF")},
	{"name": "npm strict-ssl false", "input": one(["npm", "config", "set", "strict-ssl", "false"]), "want": block("TLS_VERIFY_OFF")},
	{"name": "ufw disable granted", "input": one(["ufw", "disable"]), "task": granted(["ufw disable"]), "want": {"ask": ["FIREWALL_OFF"]}},
	{"name": "chmod -R 777 granted", "input": one(["chmod", "-R", "777", "shared"]), "task": granted(["chmod -R 777 shared"]), "want": {"ask": ["WORLD_WRITABLE"]}},
	# ordinary
	{"name": "chmod +x", "input": one(["chmod", "+x", "scripts/run.sh"]), "want": {}},
	{"name": "chmod 755", "input": one(["chmod", "755", "scripts/run.sh"]), "want": {}},
	{"name": "chmod -R 755 site", "input": one(["chmod", "-R", "755", "site"]), "want": {}},
	{"name": "chmod 600 key", "input": one(["chmod", "600", "~/.ssh/id_rsa"]), "want": {}},
	{"name": "chmod u+x", "input": one(["chmod", "u+x", "run.sh"]), "want": {}},
	{"name": "chmod 0644", "input": one(["chmod", "0644", "a.txt"]), "want": {}},
	{"name": "ufw status", "input": one(["ufw", "status"]), "want": {}},
	{"name": "ufw allow 22", "input": one(["ufw", "allow", "22/tcp"]), "want": {}},
	{"name": "iptables -L", "input": one(["iptables", "-L"]), "want": {}},
	{"name": "systemctl status ufw", "input": one(["systemctl", "status", "ufw"]), "want": {}},
	{"name": "systemctl restart nginx", "input": one(["systemctl", "restart", "nginx"]), "want": {}},
	{"name": "getenforce", "input": one(["getenforce"]), "want": {}},
	{"name": "read sudoers", "input": f.read_file("/etc/sudoers"), "want": {}},
	{"name": "git config user.email", "input": one(["git", "config", "user.email", "a@b.c"]), "want": {}},
]

results[c.name] := r if {
	some c in cases
	r := {
		"deny": {x.code | some x in sec.deny},
		"ask": {x.code | some x in sec.ask},
	} with input as c.input
		with data.tasks.t as object.get(c, "task", f.no_task)
}

test_security_settings_table if {
	fails := f.failures(cases, results)
	print(fails)
	fails == []
}
