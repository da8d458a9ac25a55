package opafence.guards.destruction_test

import data.opafence.guards.destruction
import data.opafence.test.fixtures as f

run(cmds) := f.terminal(cmds)

one(argv) := f.terminal([f.sh(argv)])

granted(commands) := f.task([{"id": "g1", "class": "EXECUTION", "capability": "run_command", "evidence": "x", "commands": commands}])

granted_path(paths) := f.task([{"id": "g1", "class": "DELETE", "capability": "delete", "evidence": "x", "paths": paths}])

psql_text(text) := f.terminal_text(text, [f.shx(["psql", "mydb"], {"redirects": [{"op": "<<", "fd": 0, "raw": "EOF", "path": "", "mode": "other"}]})])

block(code) := {"deny": [code]}

asks(code) := {"ask": [code]}

cases := [
	# --- recursive deletes ---------------------------------------------------------------
	{"name": "rm -rf /", "input": one(["rm", "-rf", "/"]), "want": block("DESTRUCTIVE_DELETE")},
	{"name": "rm -rf /*", "input": one(["rm", "-rf", "/*"]), "want": block("DESTRUCTIVE_DELETE")},
	{"name": "rm -rf ~", "input": one(["rm", "-rf", "~"]), "want": block("DESTRUCTIVE_DELETE")},
	{"name": "rm -rf ~/", "input": one(["rm", "-rf", "~/"]), "want": block("DESTRUCTIVE_DELETE")},
	{"name": "rm -rf ~/*", "input": one(["rm", "-rf", "~/*"]), "want": block("DESTRUCTIVE_DELETE")},
	{"name": "rm -r -f /etc", "input": one(["rm", "-r", "-f", "/etc"]), "want": block("DESTRUCTIVE_DELETE")},
	{"name": "rm --recursive /usr", "input": one(["rm", "--recursive", "--force", "/usr"]), "want": block("DESTRUCTIVE_DELETE")},
	{"name": "rm -Rf /var/lib", "input": one(["rm", "-Rf", "/var/lib"]), "want": block("DESTRUCTIVE_DELETE")},
	{"name": "rm -rf workspace root", "input": one(["rm", "-rf", "/home/u/src/app"]), "want": block("DESTRUCTIVE_DELETE")},
	{"name": "rm -rf . at root", "input": one(["rm", "-rf", "."]), "want": block("DESTRUCTIVE_DELETE")},
	{"name": "rm -rf parent of workspace", "input": one(["rm", "-rf", ".."]), "want": block("DESTRUCTIVE_DELETE")},
	{"name": "rm -rf .git", "input": one(["rm", "-rf", ".git"]), "want": block("DESTRUCTIVE_DELETE")},
	{"name": "rm -rf Documents", "input": one(["rm", "-rf", "~/Documents"]), "want": block("DESTRUCTIVE_DELETE")},
	{"name": "sudo rm -rf /", "input": run([f.shx(["rm", "-rf", "--no-preserve-root", "/"], {"wrappers": ["sudo"]})]), "want": block("DESTRUCTIVE_DELETE")},
	{"name": "cd / && rm -rf *", "input": run([f.sh(["cd", "/"]), f.sh(["rm", "-rf", "*"])]), "want": block("DESTRUCTIVE_DELETE")},
	{"name": "mv home away", "input": one(["mv", "~", "/tmp/h"]), "want": block("DESTRUCTIVE_DELETE")},
	{
		"name": "code rmtree home",
		"input": f.call("execute_code", {"code": "shutil.rmtree(os.path.expanduser('~'))"}, {"paths": [f.pf("~", "", "code", "delete")]}),
		"want": block("DESTRUCTIVE_DELETE"),
	},
	{
		"name": "user named the folder: ask",
		"input": one(["rm", "-rf", "/home/u/src/app"]),
		"task": granted_path(["/home/u/src/app"]),
		"want": asks("DESTRUCTIVE_DELETE"),
	},
	{
		"name": "user named the command: ask",
		"input": one(["rm", "-rf", "~/Documents"]),
		"task": granted(["rm -rf ~/Documents"]),
		"want": asks("DESTRUCTIVE_DELETE"),
	},
	{"name": "a grant of rm does not cover ~", "input": one(["rm", "-rf", "~"]), "task": granted(["rm"]), "want": block("DESTRUCTIVE_DELETE")},
	{"name": "rm -rf build", "input": one(["rm", "-rf", "build"]), "want": {}},
	{"name": "rm -rf node_modules dist", "input": one(["rm", "-rf", "node_modules", "dist"]), "want": {}},
	{"name": "rm file at root", "input": one(["rm", "/home/u/src/app/notes.txt"]), "want": {}},
	{"name": "rm non-recursive home", "input": one(["rm", "~/old.txt"]), "want": {}},
	{"name": "rm -rf /tmp/scratch", "input": one(["rm", "-rf", "/tmp/scratch"]), "want": {}},
	{"name": "mv file", "input": one(["mv", "a.txt", "b.txt"]), "want": {}},
	# --- find -delete ---------------------------------------------------------------------
	{"name": "find / -delete", "input": one(["find", "/", "-delete"]), "want": block("FIND_DELETE")},
	{"name": "find ~ -name x -delete", "input": one(["find", "~", "-name", "*.log", "-delete"]), "want": block("FIND_DELETE")},
	{"name": "find . -delete at root", "input": one(["find", ".", "-delete"]), "want": block("FIND_DELETE")},
	{"name": "find -delete no path", "input": one(["find", "-type", "f", "-delete"]), "want": block("FIND_DELETE")},
	{"name": "find -exec rm", "input": one(["find", "/home/u", "-type", "f", "-exec", "rm", "-f", "{}", ";"]), "want": block("FIND_DELETE")},
	{"name": "find -name * -delete", "input": one(["find", ".", "-name", "*", "-delete"]), "want": block("FIND_DELETE")},
	{
		"name": "find | xargs rm",
		"input": run([f.sh(["find", "/etc", "-type", "f"]), f.shx(["rm", "-f"], {"wrappers": ["xargs"], "pipe_from": "find", "context": "pipeline"})]),
		"want": block("FIND_DELETE"),
	},
	{"name": "find -ok rm", "input": one(["find", "/", "-ok", "rm", "{}", ";"]), "want": block("FIND_DELETE")},
	{"name": "find pyc -delete", "input": one(["find", ".", "-name", "*.pyc", "-delete"]), "want": {}},
	{"name": "find build -delete", "input": one(["find", "build", "-delete"]), "want": {}},
	{"name": "find list only", "input": one(["find", "/", "-name", "x"]), "want": {}},
	# --- raw disks ------------------------------------------------------------------------
	{"name": "dd of=/dev/sda", "input": one(["dd", "if=/dev/zero", "of=/dev/sda", "bs=1M"]), "want": block("RAW_DISK_WRITE")},
	{"name": "dd of=/dev/nvme0n1", "input": one(["dd", "if=img.iso", "of=/dev/nvme0n1"]), "want": block("RAW_DISK_WRITE")},
	{"name": "redirect > /dev/sda", "input": run([f.shx(["echo", "x"], {"redirects": [f.redirect(">", "/dev/sda")]})]), "want": block("RAW_DISK_WRITE")},
	{"name": "cp to disk", "input": one(["cp", "img.iso", "/dev/disk2"]), "want": block("RAW_DISK_WRITE")},
	{"name": "mkfs.ext4", "input": one(["mkfs.ext4", "/dev/sdb1"]), "want": block("RAW_DISK_WRITE")},
	{"name": "mkfs -t", "input": one(["mkfs", "-t", "ext4", "/dev/sdb"]), "want": block("RAW_DISK_WRITE")},
	{"name": "wipefs", "input": one(["wipefs", "-a", "/dev/sdb"]), "want": block("RAW_DISK_WRITE")},
	{"name": "shred", "input": one(["shred", "-u", "report.pdf"]), "want": block("RAW_DISK_WRITE")},
	{"name": "diskutil eraseDisk", "input": one(["diskutil", "eraseDisk", "APFS", "X", "disk2"]), "want": block("RAW_DISK_WRITE")},
	{
		"name": "code writes device",
		"input": f.call("execute_code", {"code": "open('/dev/sda','wb')"}, {"paths": [f.pf("/dev/sda", "", "code", "write")]}),
		"want": block("RAW_DISK_WRITE"),
	},
	{"name": "redirect to /dev/null", "input": run([f.shx(["make"], {"redirects": [f.redirect(">", "/dev/null")]})]), "want": {}},
	{"name": "dd to file", "input": one(["dd", "if=/dev/urandom", "of=test.bin", "count=1"]), "want": {}},
	{"name": "diskutil list", "input": one(["diskutil", "list"]), "want": {}},
	# --- databases ------------------------------------------------------------------------
	{"name": "psql -c DROP TABLE", "input": one(["psql", "-c", "DROP TABLE users"]), "want": block("DATABASE_WIPE")},
	{"name": "psql drop database lower", "input": one(["psql", "-d", "app", "-c", "drop database app;"]), "want": block("DATABASE_WIPE")},
	{"name": "mysql -e TRUNCATE", "input": one(["mysql", "-e", "TRUNCATE TABLE orders", "shop"]), "want": block("DATABASE_WIPE")},
	{"name": "sqlite3 DELETE no WHERE", "input": one(["sqlite3", "app.db", "DELETE FROM users;"]), "want": block("DATABASE_WIPE")},
	{"name": "sqlite3 DELETE no WHERE no semicolon", "input": one(["sqlite3", "app.db", "DELETE FROM users"]), "want": block("DATABASE_WIPE")},
	{"name": "psql heredoc", "input": psql_text("psql mydb <<EOF\nDROP SCHEMA public CASCADE;\nEOF"), "want": block("DATABASE_WIPE")},
	{"name": "echo into psql", "input": f.terminal_text("echo 'drop table x' | psql", [f.sh(["echo", "drop table x"]), f.shx(["psql"], {"pipe_from": "echo"})]), "want": block("DATABASE_WIPE")},
	{"name": "dropdb", "input": one(["dropdb", "production"]), "want": block("DATABASE_WIPE")},
	{"name": "redis FLUSHALL", "input": one(["redis-cli", "FLUSHALL"]), "want": block("DATABASE_WIPE")},
	{"name": "redis flushdb", "input": one(["redis-cli", "-n", "2", "flushdb"]), "want": block("DATABASE_WIPE")},
	{"name": "mongo dropDatabase", "input": one(["mongosh", "app", "--eval", "db.dropDatabase()"]), "want": block("DATABASE_WIPE")},
	{"name": "docker exec psql drop", "input": one(["docker", "exec", "-i", "db", "psql", "-c", "DROP TABLE users"]), "want": block("DATABASE_WIPE")},
	{"name": "rails db:drop", "input": one(["rails", "db:drop"]), "want": block("DATABASE_WIPE")},
	{"name": "mcp sql drop", "input": f.call("mcp__postgres__query", {"sql": "DROP TABLE invoices"}, {}), "want": block("DATABASE_WIPE")},
	{
		"name": "python sqlite drop",
		"input": f.call("execute_code", {"code": "import sqlite3\nc.execute('DELETE FROM users')"}, {"code": {"language": "python", "opaque": false, "opaque_reasons": [], "imports": ["sqlite3"], "calls": [], "tool_calls": [], "network": false}}),
		"want": block("DATABASE_WIPE"),
	},
	{"name": "psql drop granted", "input": one(["psql", "-c", "DROP TABLE tmp_import"]), "task": granted(["psql -c \"DROP TABLE tmp_import\""]), "want": asks("DATABASE_WIPE")},
	{"name": "psql granted select does not cover drop", "input": one(["psql", "-c", "DROP TABLE users"]), "task": granted(["psql"]), "want": block("DATABASE_WIPE")},
	{"name": "mysqladmin drop", "input": one(["mysqladmin", "-u", "root", "drop", "shop"]), "want": block("DATABASE_WIPE")},
	{"name": "manage.py flush", "input": one(["python3", "manage.py", "flush", "--noinput"]), "want": block("DATABASE_WIPE")},
	{"name": "redirect to /dev/fd", "input": run([f.shx(["echo", "x"], {"redirects": [f.redirect(">", "/dev/fd/3")]})]), "want": {}},
	{"name": "psql select", "input": one(["psql", "-c", "SELECT count(*) FROM users"]), "want": {}},
	{"name": "delete with where", "input": one(["sqlite3", "app.db", "DELETE FROM users WHERE id = 3;"]), "want": {}},
	{"name": "drop words outside a db client", "input": one(["git", "commit", "-m", "drop table support"]), "want": {}},
	{"name": "redis get", "input": one(["redis-cli", "GET", "k"]), "want": {}},
	{"name": "truncate -s 0 app.db", "input": one(["truncate", "-s", "0", "app.db"]), "want": block("DATABASE_WIPE")},
	{"name": "truncate --size=0 x.sqlite3", "input": one(["truncate", "--size=0", "data/x.sqlite3"]), "want": block("DATABASE_WIPE")},
	{"name": "truncate -s +1M app.db", "input": one(["truncate", "-s", "+1M", "app.db"]), "want": {}},
	{"name": "truncate -s+1M app.db", "input": one(["truncate", "-s+1M", "app.db"]), "want": {}},
	{"name": "truncate -s 0 log", "input": one(["truncate", "-s", "0", "app.log"]), "want": {}},
	{"name": ": > app.db", "input": run([f.shx([":"], {"redirects": [f.redirect(">", "app.db")]})]), "want": block("DATABASE_WIPE")},
	{"name": "echo >> app.db", "input": run([f.shx(["echo"], {"redirects": [f.redirect(">>", "app.db")]})]), "want": {}},
	{"name": "cp /dev/null db.sqlite", "input": one(["cp", "/dev/null", "db.sqlite"]), "want": block("DATABASE_WIPE")},
	{"name": "dd if=/dev/zero of=app.db", "input": one(["dd", "if=/dev/zero", "of=/home/u/src/app/app.db"]), "want": block("DATABASE_WIPE")},
	{"name": "cp app.db backup.db", "input": one(["cp", "app.db", "backup.db"]), "want": {}},
	{"name": "truncate app.db granted", "input": one(["truncate", "-s", "0", "app.db"]), "task": granted(["truncate -s 0 app.db"]), "want": asks("DATABASE_WIPE")},
	{"name": "truncate app.db path granted", "input": one(["truncate", "-s", "0", "app.db"]), "task": granted_path(["/home/u/src/app/app.db"]), "want": asks("DATABASE_WIPE")},
	{"name": "rimraf ~", "input": one(["rimraf", "~"]), "want": block("DESTRUCTIVE_DELETE")},
	{"name": "rsync --delete into home", "input": one(["rsync", "-a", "--delete", "/tmp/empty/", "~/"]), "want": block("DESTRUCTIVE_DELETE")},
	{"name": "rsync --delete-before into /etc", "input": one(["rsync", "-a", "--delete-before", "x/", "/etc"]), "want": block("DESTRUCTIVE_DELETE")},
	{"name": "rsync --delete into build", "input": one(["rsync", "-a", "--delete", "src/", "build/"]), "want": {}},
	{"name": "rsync into home without delete", "input": one(["rsync", "-a", "dotfiles/", "~/"]), "want": {}},
	{"name": "rimraf dist", "input": one(["rimraf", "dist"]), "want": {}},
	# --- cloud ----------------------------------------------------------------------------
	{"name": "aws s3 rm --recursive", "input": one(["aws", "s3", "rm", "s3://bucket", "--recursive"]), "want": block("CLOUD_DELETE")},
	{"name": "aws s3 rb", "input": one(["aws", "s3", "rb", "s3://bucket", "--force"]), "want": block("CLOUD_DELETE")},
	{"name": "aws ec2 terminate", "input": one(["aws", "ec2", "terminate-instances", "--instance-ids", "i-1"]), "want": block("CLOUD_DELETE")},
	{"name": "aws rds delete", "input": one(["aws", "rds", "delete-db-instance", "--db-instance-identifier", "prod"]), "want": block("CLOUD_DELETE")},
	{"name": "aws s3 sync --delete", "input": one(["aws", "s3", "sync", ".", "s3://b", "--delete"]), "want": block("CLOUD_DELETE")},
	{"name": "gcloud delete", "input": one(["gcloud", "compute", "instances", "delete", "web-1"]), "want": block("CLOUD_DELETE")},
	{"name": "gcloud projects delete", "input": one(["gcloud", "projects", "delete", "my-proj"]), "want": block("CLOUD_DELETE")},
	{"name": "gsutil rm -r", "input": one(["gsutil", "-m", "rm", "-r", "gs://b"]), "want": block("CLOUD_DELETE")},
	{"name": "az group delete", "input": one(["az", "group", "delete", "--name", "rg", "--yes"]), "want": block("CLOUD_DELETE")},
	{"name": "kubectl delete", "input": one(["kubectl", "delete", "namespace", "prod"]), "want": block("CLOUD_DELETE")},
	{"name": "kubectl -n delete", "input": one(["kubectl", "-n", "prod", "delete", "deploy", "api"]), "want": block("CLOUD_DELETE")},
	{"name": "helm uninstall", "input": one(["helm", "uninstall", "api"]), "want": block("CLOUD_DELETE")},
	{"name": "helm delete", "input": one(["helm", "delete", "api", "--purge"]), "want": block("CLOUD_DELETE")},
	{"name": "terraform destroy", "input": one(["terraform", "destroy"]), "want": block("CLOUD_DELETE")},
	{"name": "terraform apply -auto-approve", "input": one(["terraform", "apply", "-auto-approve"]), "want": block("CLOUD_DELETE")},
	{"name": "terraform apply -destroy", "input": one(["terraform", "apply", "-destroy"]), "want": block("CLOUD_DELETE")},
	{"name": "tofu destroy", "input": one(["tofu", "destroy", "-auto-approve"]), "want": block("CLOUD_DELETE")},
	{"name": "pulumi destroy", "input": one(["pulumi", "destroy", "--yes"]), "want": block("CLOUD_DELETE")},
	{"name": "heroku apps:destroy", "input": one(["heroku", "apps:destroy", "--app", "x"]), "want": block("CLOUD_DELETE")},
	{"name": "terraform destroy granted", "input": one(["terraform", "destroy", "-auto-approve"]), "task": granted(["terraform destroy -auto-approve"]), "want": asks("CLOUD_DELETE")},
	{"name": "terraform grant plan does not cover destroy", "input": one(["terraform", "destroy"]), "task": granted(["terraform"]), "want": block("CLOUD_DELETE")},
	{"name": "gsutil rb", "input": one(["gsutil", "rb", "gs://b"]), "want": block("CLOUD_DELETE")},
	{"name": "pulumi stack rm", "input": one(["pulumi", "stack", "rm", "prod"]), "want": block("CLOUD_DELETE")},
	{"name": "serverless remove", "input": one(["sls", "remove", "--stage", "prod"]), "want": block("CLOUD_DELETE")},
	{"name": "find no expression", "input": one(["find", "build"]), "want": {}},
	{"name": "terraform plan", "input": one(["terraform", "plan"]), "want": {}},
	{"name": "kubectl get", "input": one(["kubectl", "get", "pods"]), "want": {}},
	{"name": "aws s3 ls", "input": one(["aws", "s3", "ls"]), "want": {}},
	{"name": "aws s3 cp", "input": one(["aws", "s3", "cp", "a.txt", "s3://b/a.txt"]), "want": {}},
	{"name": "helm list", "input": one(["helm", "list"]), "want": {}},
	# --- git history ----------------------------------------------------------------------
	{"name": "push --force", "input": one(["git", "push", "--force", "origin", "main"]), "want": block("GIT_HISTORY")},
	{"name": "push -f", "input": one(["git", "push", "-f"]), "want": block("GIT_HISTORY")},
	{"name": "push -uf cluster", "input": one(["git", "push", "-uf", "origin", "feat"]), "want": block("GIT_HISTORY")},
	{"name": "push --force-with-lease", "input": one(["git", "push", "--force-with-lease", "origin", "feat"]), "want": block("GIT_HISTORY")},
	{"name": "push --force-with-lease=", "input": one(["git", "push", "--force-with-lease=main:abc", "origin", "main"]), "want": block("GIT_HISTORY")},
	{"name": "push +refspec", "input": one(["git", "push", "origin", "+main"]), "want": block("GIT_HISTORY")},
	{"name": "push +HEAD:main", "input": one(["git", "push", "origin", "+HEAD:main"]), "want": block("GIT_HISTORY")},
	{"name": "push --mirror", "input": one(["git", "push", "--mirror", "backup"]), "want": block("GIT_HISTORY")},
	{"name": "push --delete", "input": one(["git", "push", "origin", "--delete", "main"]), "want": block("GIT_HISTORY")},
	{"name": "push -d", "input": one(["git", "push", "-d", "origin", "release"]), "want": block("GIT_HISTORY")},
	{"name": "push :branch", "input": one(["git", "push", "origin", ":main"]), "want": block("GIT_HISTORY")},
	{"name": "git -C push -f", "input": one(["git", "-C", "/home/u/src/app", "push", "-f"]), "want": block("GIT_HISTORY")},
	{"name": "branch -D main", "input": one(["git", "branch", "-D", "main"]), "want": block("GIT_HISTORY")},
	{"name": "branch -D master", "input": one(["git", "branch", "-D", "master"]), "want": block("GIT_HISTORY")},
	{"name": "branch --delete --force develop", "input": one(["git", "branch", "--delete", "--force", "develop"]), "want": block("GIT_HISTORY")},
	{"name": "branch -Df main", "input": f.terminal([object.union(f.sh(["git", "branch", "-Df", "main"]), {"argv": ["git", "branch", "-Df", "main"]})]), "want": block("GIT_HISTORY")},
	{"name": "force push granted", "input": one(["git", "push", "--force", "origin", "feat"]), "task": granted(["git push --force origin feat"]), "want": asks("GIT_HISTORY")},
	{"name": "plain push grant does not cover force", "input": one(["git", "push", "--force", "origin", "feat"]), "task": granted(["git push"]), "want": block("GIT_HISTORY")},
	{"name": "plain push", "input": one(["git", "push", "origin", "feat"]), "want": {}},
	{"name": "push -u", "input": one(["git", "push", "-u", "origin", "feat"]), "want": {}},
	{"name": "push HEAD:main", "input": one(["git", "push", "origin", "HEAD:main"]), "want": {}},
	{"name": "branch -D feature", "input": one(["git", "branch", "-D", "feat/old"]), "want": {}},
	{"name": "commit -m force", "input": one(["git", "commit", "-m", "--force is bad"]), "want": {}},
]

results[c.name] := r if {
	some c in cases
	r := {
		"deny": {x.code | some x in destruction.deny},
		"ask": {x.code | some x in destruction.ask},
	} with input as c.input
		with data.tasks.t as object.get(c, "task", f.no_task)
}

test_destruction_table if {
	fails := f.failures(cases, results)
	print(fails)
	fails == []
}

test_asked_message_says_so if {
	rs := destruction.ask with input as one(["terraform", "destroy"]) with data.tasks.t as granted(["terraform destroy"])
	some r in rs
	contains(r.message, "asked for exactly this")
}

# The guard uses data.json as stored, so the path tables must already be normalized.
test_tables_are_normalized if {
	every k in ["system_dirs", "home_dirs", "safe_devices", "safe_device_dirs", "disk_tools", "db_clients", "default_branches"] {
		every x in data.opafence.guards.destruction[k] {
			x == data.opafence.guards.common.norm(x)
		}
	}
}
