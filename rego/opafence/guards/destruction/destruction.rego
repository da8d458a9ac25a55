# METADATA
# title: Destruction and damage
# description: |
#   Actions that destroy what cannot be restored: recursive deletes of system directories, the
#   home directory or a repository root, `find -delete` over them, raw disk writes, database
#   wipes, cloud and infrastructure deletes, and rewriting shared git history. Each blocks,
#   unless the user's own words named exactly that action (a grant's literal command or path);
#   then it asks.
# schemas:
#   - input: schema.input
#   - data.tasks: schema.tasks
package opafence.guards.destruction

import data.opafence.guards.common
import data.opafence.guards.destruction.db_clients
import data.opafence.guards.destruction.db_drop_commands
import data.opafence.guards.destruction.db_modules
import data.opafence.guards.destruction.default_branches
import data.opafence.guards.destruction.disk_subcommands
import data.opafence.guards.destruction.disk_tools
import data.opafence.guards.destruction.home_dirs
import data.opafence.guards.destruction.push_force_flags
import data.opafence.guards.destruction.safe_device_dirs
import data.opafence.guards.destruction.safe_devices
import data.opafence.guards.destruction.system_dirs
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

# --- what must never be deleted wholesale --------------------------------------------------------

# METADATA
# title: critical
# description: >-
#   System directories, the home directory and its main folders, every directory above them,
#   each workspace root and the directories above it, and any repository's .git.
critical(p) if critical_dir(p)

critical_dir(p) if critical_norm(common.norm(p))

# data.json holds the tables normalized (destruction_test checks), so nothing is built per query.
critical_norm(np) if np in system_dirs

critical_norm(np) if {
	some h in common.homes
	common.within(h, np)
}

critical_norm(np) if common.home_relative(np) in home_dirs

critical_norm(np) if {
	some w in input.host.workspace
	w != ""
	common.within(common.norm(w), np)
}

critical(p) if common.basename(p) == ".git"

# `rm -rf ~/*`, `rm -rf /*`: everything inside a critical directory.
critical(p) if {
	common.basename(p) in {"*", ".*", "*.*"}
	critical_dir(parent(p))
}

parent(p) := "/" if common.dirname(p) == ""

else := common.dirname(p)

# METADATA
# title: DESTRUCTIVE_DELETE
# description: >-
#   `{{.command}}` would delete or move away {{.path}} with everything in it (a system directory,
#   the home directory or a repository root).
# custom:
#   code: DESTRUCTIVE_DELETE
#   fix: Delete only the specific files or build output you need, by their own paths.
findings contains {
	"reason": reason.render(rego.metadata.rule(), {"command": line(c), "path": p}),
	"soft": soft_delete(c, i, p),
} if {
	some c in common.commands
	wipes(c)
	some i, raw in c.operands
	some p in ({common.operand_path(c, i)} | common.shifted(raw))
	critical(p)
}

wipes(c) if {
	common.cmd_name(c) in {"rm", "srm", "trash", "trash-put"}
	common.recursive(c)
}

wipes(c) if common.cmd_name(c) == "mv"

# rimraf (the npm package's command) always removes recursively.
wipes(c) if common.cmd_name(c) == "rimraf"

soft_delete(c, i, p) if {
	common.soft_command(c, {c.operands[i]})
} else := common.soft_path(p)

# METADATA
# title: DESTRUCTIVE_SYNC
# description: >-
#   `{{.command}}` would delete everything in {{.path}} that its source does not hold (a system
#   directory, the home directory or a repository root).
# custom:
#   code: DESTRUCTIVE_DELETE
#   fix: Sync into a new or build directory, without --delete, or copy only the files you need.
findings contains {
	"reason": reason.render(rego.metadata.rule(), {"command": line(c), "path": p}),
	"soft": soft_delete(c, last, p),
} if {
	some c in common.commands
	common.cmd_name(c) == "rsync"
	some f in c.flags
	startswith(f, "--delete")
	last := count(c.operands) - 1
	last > 0
	some p in ({common.operand_path(c, last)} | common.shifted(c.operands[last]))
	critical(p)
}

# METADATA
# title: DESTRUCTIVE_DELETE_CODE
# description: >-
#   This call would delete {{.path}} with everything in it (a system directory, the home directory
#   or a repository root).
# custom:
#   code: DESTRUCTIVE_DELETE
#   fix: Delete only the specific files you need, by their own paths.
findings contains {
	"reason": reason.render(rego.metadata.rule(), {"path": p.path}),
	"soft": common.soft_path(p.path),
} if {
	some p in input.facts.paths
	p.op in {"delete", "move_from"}
	critical(p.path)
}

# --- find -delete -----------------------------------------------------------------------------------

find_exec := {"-exec", "-execdir", "-ok", "-okdir"}

find_filters := {
	"-name", "-iname", "-path", "-ipath", "-regex", "-iregex", "-wholename", "-iwholename", "-newer",
	"-mtime", "-mmin", "-size", "-empty", "-user", "-perm",
}

find_deletes(c) if "-delete" in c.argv

find_deletes(c) if {
	some i, a in c.argv
	a in find_exec
	common.cmd_name({"name": c.argv[i + 1]}) in {"rm", "shred", "unlink", "rmdir"}
}

find_deletes(c) if {
	some other in common.commands
	other.pipe_from == c.name
	common.cmd_name(other) in {"rm", "shred", "unlink"}
}

find_starts(c) := [a |
	some i, a in common.args(c)
	i < first_expr(c)
]

first_expr(c) := min([i | some i, a in common.args(c); regex.match(`^[-(!]`, a)]) if {
	some a in common.args(c)
	regex.match(`^[-(!]`, a)
} else := count(common.args(c))

find_start_paths(c) := {common.value_path(c, a) | some a in find_starts(c)} if {
	count(find_starts(c)) > 0
} else := {input.host.cwd}

# Narrowed by name, path, age or size (not by a bare "*").
filtered(c) if {
	some i, a in c.argv
	a in find_filters
	not c.argv[i + 1] in {"*", "'*'", "\"*\""}
}

# METADATA
# title: FIND_DELETE
# description: "`{{.command}}` would delete everything it finds under {{.path}}."
# custom:
#   code: FIND_DELETE
#   fix: Narrow find to the files you mean (-name, -path) under a build directory, or delete them by path.
findings contains {
	"reason": reason.render(rego.metadata.rule(), {"command": line(c), "path": p}),
	"soft": common.soft_command(c, {"-delete"}),
} if {
	some c in common.commands
	common.cmd_name(c) == "find"
	find_deletes(c)
	some p in find_start_paths(c)
	find_critical(c, p)
}

# System and home directories: always. A workspace root: unless find was narrowed.
find_critical(_, p) if {
	critical(p)
	not workspace_root(p)
}

find_critical(c, p) if {
	workspace_root(p)
	not filtered(c)
}

workspace_root(p) if {
	some w in input.host.workspace
	common.norm(w) == common.norm(p)
}

# --- raw disk writes ------------------------------------------------------------------------------------

device(p) if {
	common.under(p, "/dev")
	not common.norm(p) in safe_devices
	not safe_device_dir(p)
}

safe_device_dir(p) if {
	some d in safe_device_dirs
	common.under(p, d)
}

# METADATA
# title: RAW_DISK_WRITE
# description: This would write straight to the device {{.path}}, destroying the file systems on it.
# custom:
#   code: RAW_DISK_WRITE
#   fix: Write to a regular file instead of a device.
findings contains {
	"reason": reason.render(rego.metadata.rule(), {"path": t.path}),
	"soft": common.soft_path(t.path),
} if {
	some t in common.changes
	t.kind in {"write", "delete"}
	device(t.path)
}

# METADATA
# title: DISK_TOOL
# description: "`{{.command}}` formats, partitions or wipes a disk or file beyond recovery."
# custom:
#   code: RAW_DISK_WRITE
#   fix: Do not format, partition or shred disks or files from the agent; a person does that themselves.
findings contains {
	"reason": reason.render(rego.metadata.rule(), {"command": line(c)}),
	"soft": common.soft_command(c, {c.name}),
} if {
	some c in common.commands
	disk_tool(c)
}

disk_tool(c) if {
	n := common.cmd_name(c)
	split(n, ".")[0] in disk_tools
	not disk_subcommands[n]
}

disk_tool(c) if {
	subs := disk_subcommands[common.cmd_name(c)]
	some a in common.args(c)
	lower(a) in {s | some s in subs}
}

# --- database wipes ------------------------------------------------------------------------------------

# SQL and store commands that wipe data; (?i) at the start applies to every alternative.
sql_wipe := concat("|", [
	`(?i)\bdrop\s+(table|database|schema|view|index|keyspace|collection|owned\s+by|user|role)\b`,
	`\btruncate\s+(table\s+)?["\x60\[]?[a-z_]`,
	`\bdelete\s+from\s+[^\s;'"]+\s*($|[;'")\n])`,
	`\bflush(all|db)\b`,
	`\.drop(database)?\s*\(`,
	`\.(deletemany|remove)\s*\(\s*\{\s*\}\s*\)`,
])

db_client(c) if common.cmd_name(c) in db_clients

db_client(c) if {
	common.cmd_name(c) in {"docker", "kubectl", "podman"}
	some a in c.argv
	common.cmd_name({"name": a}) in db_clients
}

db_texts contains common.text if {
	some c in common.commands
	db_client(c)
}

db_texts contains concat(" ", c.argv) if {
	some c in common.commands
	db_client(c)
}

# MCP database tools (postgres, sqlite, mysql servers): their query arguments.
db_texts contains s if {
	startswith(input.call.tool, "mcp__")
	some w in common.mcp_words
	w in {"query", "sql", "execute", "exec", "run", "db", "database", "postgres", "sqlite", "mysql", "redis", "mongo"}
	some s in common.arg_strings
}

# Python that talks to a database.
db_texts contains input.call.args.code if {
	some m in input.facts.code.imports
	split(m, ".")[0] in {x | some x in db_modules}
}

# METADATA
# title: DATABASE_WIPE
# description: >-
#   This would wipe database data ({{.what}}): dropped tables, truncation, DELETE without WHERE or a
#   flushed store.
# custom:
#   code: DATABASE_WIPE
#   fix: Back up first and change only the rows you mean, with a WHERE clause; the user runs wipes themselves.
findings contains {"reason": reason.render(rego.metadata.rule(), {"what": what}), "soft": soft_db(what)} if {
	some t in db_texts
	some m in regex.find_n(sql_wipe, t, -1)
	what := trim_space(m)
}

# METADATA
# title: DATABASE_DROP_COMMAND
# description: "`{{.command}}` drops a whole database or role."
# custom:
#   code: DATABASE_WIPE
#   fix: Back up first; the user drops databases themselves.
findings contains {
	"reason": reason.render(rego.metadata.rule(), {"command": line(c)}),
	"soft": common.soft_command(c, {c.name}),
} if {
	some c in common.commands
	db_drop(c)
}

db_drop(c) if common.cmd_name(c) in {n | some n in db_drop_commands}

db_drop(c) if {
	common.cmd_name(c) == "mysqladmin"
	some a in common.args(c)
	lower(a) in {"drop", "flush-tables"}
}

db_drop(c) if {
	common.cmd_name(c) in {"rails", "rake", "bin/rails"}
	some a in common.args(c)
	lower(a) in {"db:drop", "db:reset", "db:schema:load", "db:purge"}
}

db_drop(c) if {
	common.cmd_name(c) in {"python", "python3"}
	some a in common.args(c)
	lower(a) in {"flush", "reset_db"}
	"manage.py" in {common.basename(x) | some x in common.args(c)}
}

# The user's words named the wipe: a granted command of the call holding its keyword.
default soft_db(_) := false

soft_db(what) if {
	some c in common.commands
	db_client(c)
	common.soft_command(c, {lower(split(what, " ")[0])})
}

# METADATA
# title: DATABASE_FILE_WIPE
# description: "`{{.command}}` empties or cuts short the database file {{.path}}."
# custom:
#   code: DATABASE_WIPE
#   fix: Back up the database first; change it with its own client, or let the user reset it.
findings contains {
	"reason": reason.render(rego.metadata.rule(), {"command": line(c), "path": p}),
	"soft": soft_file_wipe(c, p),
} if {
	some c in common.commands
	some p in db_file_wipes(c)
}

db_file(p) if regex.match(`(?i)\.(db|sqlite|sqlite3|db3|s3db|sl3|duckdb|mdb|accdb|realm|kdbx)$`, p)

# truncate -s 0 app.db (any size but a growth), `> app.db`, `cp /dev/null app.db`.
db_file_wipes(c) := ({p |
	common.cmd_name(c) == "truncate"
	not truncate_grows(c)
	some p in common.operand_paths(c)
	db_file(p)
} | {r.path |
	some r in c.redirects
	r.mode == "write"
	db_file(r.path)
}) | {p |
	common.cmd_name(c) in {"cp", "dd"}
	some src in array.concat(c.operands, [v | some v in common.keyword_paths(c, "if")])
	src in {"/dev/null", "/dev/zero"}
	some t in common.cmd_changes(c)
	db_file(t.path)
	p := t.path
}

truncate_grows(c) if {
	some f in {"-s", "--size"}
	some v in common.values(c, f)
	startswith(v, "+")
}

truncate_grows(c) if {
	some a in c.argv
	regex.match(`^-s\+`, a)
}

default soft_file_wipe(_, _) := false

soft_file_wipe(c, _) if common.soft_command(c, {c.name})

soft_file_wipe(_, p) if common.soft_path(p)

# --- cloud and infrastructure deletes -------------------------------------------------------------------

cloud_verbs := {"delete", "destroy", "purge"}

kube_valued := {
	"-n", "--namespace", "--context", "--kubeconfig", "--cluster", "--user", "-s", "--server",
	"--token", "-l", "--selector",
}

# METADATA
# title: CLOUD_DELETE
# description: "`{{.command}}` deletes or destroys cloud or cluster resources."
# custom:
#   code: CLOUD_DELETE
#   fix: Ask the user to run the delete themselves, or to ask for exactly this command.
findings contains {
	"reason": reason.render(rego.metadata.rule(), {"command": line(c)}),
	"soft": common.soft_command(c, {t}),
} if {
	some c in common.commands
	some t in cloud_delete(c)
}

lower_args(c) := [lower(a) | some a in common.args(c)]

cloud_delete(c) := (({a |
	some a in lower_args(c)
	regex.match(`^(delete|terminate|deregister|purge|remove)-`, a)
} | {"rb" |
	"rb" in lower_args(c)
}) | {"--recursive" |
	"rm" in lower_args(c)
	common.recursive(c)
}) | {"--delete" |
	"sync" in lower_args(c)
	"--delete" in lower_args(c)
} if {
	common.cmd_name(c) == "aws"
} else := {"rb" |
	"rb" in lower_args(c)
} | {"-r" |
	"rm" in lower_args(c)
	common.recursive(c)
} if {
	common.cmd_name(c) == "gsutil"
} else := {a |
	some a in lower_args(c)
	a in cloud_verbs
} if {
	common.cmd_name(c) in {
		"gcloud", "az", "doctl", "hcloud", "linode-cli", "oci", "ibmcloud", "scw", "vultr-cli", "eksctl",
		"aliyun", "fly", "flyctl", "cdk", "sam", "wrangler",
	}
} else := {"delete" |
	common.subcommand_after(common.args(c), kube_valued) == "delete"
} if {
	common.cmd_name(c) in {"kubectl", "oc", "k", "microk8s.kubectl"}
} else := {s |
	s := common.subcommand(common.args(c))
	s in {"uninstall", "delete", "del", "un"}
} if {
	common.cmd_name(c) == "helm"
} else := {a |
	some a in lower_args(c)
	a in {"destroy", "-destroy", "--destroy", "-auto-approve", "--auto-approve"}
} if {
	common.cmd_name(c) in {"terraform", "tofu", "terragrunt"}
} else := {a |
	some a in lower_args(c)
	a == "destroy"
} | {"rm" |
	"stack" in lower_args(c)
	"rm" in lower_args(c)
} if {
	common.cmd_name(c) == "pulumi"
} else := {a |
	some a in lower_args(c)
	regex.match(`:(destroy|delete|reset|remove)$`, a)
} if {
	common.cmd_name(c) in {"heroku", "firebase", "netlify"}
} else := {a |
	some a in lower_args(c)
	a in {"remove", "rm"}
} if {
	common.cmd_name(c) in {"serverless", "sls", "vercel"}
} else := set()

# --- shared git history -----------------------------------------------------------------------------------

git_args(c) := common.args(c) if common.cmd_name(c) == "git"

# The subcommand, past git's own valued options (-C dir, -c key=value).
git_sub(c) := common.subcommand_after(git_args(c), {"-C", "-c", "--git-dir", "--work-tree", "--namespace"})

push_args(c) := [a |
	some a in git_args(c)
	a != "push"
]

# METADATA
# title: GIT_HISTORY_PUSH
# description: "`{{.command}}` would overwrite or delete history on the shared remote ({{.how}})."
# custom:
#   code: GIT_HISTORY
#   fix: Push without force; for a rejected push, pull and merge or rebase locally and push again.
findings contains {
	"reason": reason.render(rego.metadata.rule(), {"command": line(c), "how": t}),
	"soft": common.soft_command(c, {t}),
} if {
	some c in common.commands
	git_sub(c) == "push"
	some t in push_danger(c)
}

push_danger(c) := ({a |
	some a in push_args(c)
	split(a, "=")[0] in {f | some f in push_force_flags}
} | {a |
	some a in push_args(c)
	regex.match(`^[+:]`, a)
}) | {"-f" |
	"-f" in c.flags
}

# METADATA
# title: GIT_DEFAULT_BRANCH_DELETE
# description: "`{{.command}}` would delete the default branch {{.branch}}."
# custom:
#   code: GIT_HISTORY
#   fix: Keep the default branch; delete only feature branches you created.
findings contains {
	"reason": reason.render(rego.metadata.rule(), {"command": line(c), "branch": b}),
	"soft": common.soft_command(c, {b}),
} if {
	some c in common.commands
	git_sub(c) == "branch"
	force_delete(c)
	some b in git_args(c)
	lower(b) in {x | some x in default_branches}
}

force_delete(c) if "-D" in git_args(c)

force_delete(c) if "-D" in c.flags

force_delete(c) if {
	some d in {"-d", "--delete"}
	d in git_args(c)
	some f in {"-f", "--force"}
	f in git_args(c)
}
