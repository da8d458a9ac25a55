# METADATA
# title: Self-protection
# description: |
#   The agent must not be able to change, stop or escape opafence. Blocks, in every mode
#   (reasons carry "always": true) and whatever the task grants: changing opafence's state
#   directory, socket, bundle, trust files or installed package, or Hermes' config.yaml, .env,
#   plugins, hooks and credential stores; changing Hermes' skills/ and cron/ by any tool but
#   their own (skill_manage, cronjob); reading opafence's own credentials (audit keys, token
#   files) by any name; `hermes plugins …`, `hermes config` and other configuration rewrites; uninstalling
#   or replacing opafence; signals to OPA (by name or by pid); requests to the OPA API; and
#   starting a Hermes or an opafence that would run weaker.
# schemas:
#   - input: schema.input
#   - data.tasks: schema.tasks
#   - data.config: schema.config
package opafence.guards.self_protection

import data.opafence.guards.common
import data.opafence.guards.reach
import data.opafence.lib.reason

always(r) := object.union(r, {"always": true})

# --- what is protected ---------------------------------------------------------------------

# Hermes' configuration, plugins and its own credential stores (provider keys, OAuth and MCP
# tokens): changing them changes who Hermes talks to and as whom.
hermes_files := {
	"config.yaml", ".env", "plugins", "auth.json", "auth", ".anthropic_oauth.json", "google_token.json",
	"google_oauth_pending.json", "webhook_subscriptions.json", "mcp-tokens", "credentials", "slack_tokens.json",
	"hooks",
}

# METADATA
# title: protected_roots
# description: >-
#   opafence's state directory (config, tasks, audit log, keys, bundle), the OPA socket and its
#   directory, the installed package, Hermes' config.yaml, .env, plugins directory and credential
#   stores, config.protected_paths, and the trust and credential files data.config names.
protected_roots contains common.norm(p) if {
	some p in host_protected
	p != ""
}

host_protected contains input.host.state_dir

host_protected contains input.host.opa_socket

host_protected contains input.host.package_dir

# The code the Hermes process runs: its Python environment (site-packages, editable finders,
# .pth files, bin/), Hermes' and opafence's package directories and the Rego opafence loads.
host_protected contains p if {
	some p in object.get(input.host, "code_dirs", [])
}

host_protected contains common.dirname(input.host.opa_socket) if {
	common.dirname(input.host.opa_socket) != "/"
}

host_protected contains p if {
	some p in data.config.protected_paths
}

# Files opafence trusts as they are (signing keys, CA files, bundles, prices, the OPA binary)
# and its own credentials (token files), canonical from the bridge.
host_protected contains p if {
	some p in data.config.trust_paths
}

host_protected contains p if {
	some p in data.config.credential_paths
}

# Hermes' and opafence's installed code, wherever a site-packages holds it.
installed_code := concat("", [
	`/(site|dist)-packages/(`,
	`(opafence|hermes_cli|hermes_agent|hermes_plugins|tools|agent|gateway|plugins|model_tools\.py|run_agent\.py)`,
	`([-_.][^/]*)?(/|$)`,
	# Python runs these at every start, Hermes and opafence included.
	`|[^/]*\.pth$|(sitecustomize|usercustomize)\.py$`,
	# Editable installs: the finder module and its .pth point Python at the source tree.
	`|__editable__[^/]*$)`,
	# Hermes' and opafence's entry points, in whatever bin/ they were installed.
	`|/bin/(hermes|hermes-agent|opafence)$`,
])

protected(p) if {
	np := common.norm(p)
	some r in protected_roots
	common.within(np, r)
}

protected(p) if regex.match(installed_code, common.norm(p))

# Hermes' own files: a lookup of the first component below hermes_home, not a scan.
protected(p) if split(hermes_relative(common.norm(p)), "/")[0] in hermes_files

hermes_home := common.norm(input.host.hermes_home)

hermes_relative(np) := substring(np, count(hermes_home) + 1, -1) if {
	hermes_home != ""
	startswith(np, concat("", [hermes_home, "/"]))
}

# Hermes' files as paths, for globs only.
hermes_roots := {concat("/", [hermes_home, f]) | hermes_home != ""; some f in hermes_files}

# A glob that could name a protected path (`rm ~/.hermes/*.yaml`, `> ~/.her*/config.yaml`).
protected(p) if {
	reach.globby(p)
	reach.glob_hits(common.norm(p), protected_roots | hermes_roots, false)
}

# A recursive delete, move or permission change of a directory above a protected path
# reaches the protected path too (`rm -rf ~/.hermes`, `chmod -R 777 ~`).
reaches_protected(p) if {
	np := common.norm(p)
	some r in protected_roots
	common.within(r, np)
}

# Hermes' home or a directory above it holds config.yaml, .env and plugins.
reaches_protected(p) if common.within(hermes_home, common.norm(p))

reaches_protected(p) if {
	reach.globby(p)
	reach.glob_hits(common.norm(p), protected_roots | hermes_roots, true)
}

socket_dir := common.dirname(input.host.opa_socket)

# Hermes' skills/ and cron/ directories change only through their own tools, which the task's
# grants judge; a write there by any other tool changes what Hermes loads or runs unjudged.
own_tools := {"skills": "skill_manage", "cron": "cronjob"}

# The Hermes directory p is in when the call's tool is not that directory's own tool.
foreign_tool_dir(p) := d if {
	d := split(hermes_relative(common.norm(p)), "/")[0]
	input.call.tool != own_tools[d]
}

# --- changes to protected files ------------------------------------------------------------

# Rules about shell commands only (shell_deny), evaluated when the call runs any.
deny contains r if {
	count(common.commands) > 0
	some r in shell_deny
}

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
	some t in changes
	t.kind != "none"
	protected(t.path)
}

# METADATA
# title: SELF_PROTECT_LINKED
# description: >-
#   This would {{.kind}} {{.path}}, which is another name (a hard link or a bind mount) of
#   {{.same}}, a file of opafence or of Hermes' own configuration; the agent may never change it.
# custom:
#   code: SELF_PROTECT_PATH
#   fix: Leave the link alone; a person removes it outside the agent.
deny contains always(reason.render(rego.metadata.rule(), {"kind": verb[t.kind], "path": t.path, "same": l.same_as})) if {
	some l in object.get(input.facts, "links", [])
	protected(l.same_as)
	some t in changes
	t.kind != "none"
	t.path == l.path
}

# METADATA
# title: SELF_PROTECT_HERMES_TOOL_DIR
# description: >-
#   This would {{.kind}} {{.path}} in Hermes' {{.dir}}/ directory, which only {{.tool}} changes
#   (judged by what the user asked for); no other tool may change it, whoever asks.
# custom:
#   code: SELF_PROTECT_HERMES_TOOL_DIR
#   fix: Use {{.tool}} for this change, in the user's own words; other tools leave {{.dir}}/ alone.
deny contains always(reason.render(rego.metadata.rule(), tool_dir_vars(t.kind, t.path, d))) if {
	some t in changes
	t.kind != "none"
	d := foreign_tool_dir(t.path)
	not common.norm(t.path) in link_sources
}

# What `ln [-s] SOURCE… NAME` links to is not changed by it (a later change through the new name
# resolves to, or has the inode of, the source: facts.links).
link_sources contains common.norm(common.operand_path(c, i)) if {
	some [n, c] in reach.named
	n in {"ln", "link"}
	some i, _ in c.operands
	i < count(c.operands) - 1
}

# METADATA
# title: SELF_PROTECT_HERMES_TOOL_DIR_LINKED
# description: >-
#   This would {{.kind}} {{.path}}, another name (a hard link or bind mount) of {{.same}} in
#   Hermes' {{.dir}}/ directory, which only {{.tool}} changes; no other tool may change it.
# custom:
#   code: SELF_PROTECT_HERMES_TOOL_DIR
#   fix: Use {{.tool}} for this change, in the user's own words; other tools leave {{.dir}}/ alone.
deny contains always(reason.render(rego.metadata.rule(), object.union(tool_dir_vars(t.kind, t.path, d), {"same": l.same_as}))) if {
	some l in object.get(input.facts, "links", [])
	d := foreign_tool_dir(l.same_as)
	some t in changes
	t.kind != "none"
	t.path == l.path
}

tool_dir_vars(kind, path, d) := {"kind": verb[kind], "path": path, "dir": d, "tool": own_tools[d]}

# METADATA
# title: SELF_PROTECT_PATH_PARENT
# description: >-
#   This would {{.kind}} {{.path}} with everything below it, including opafence's or Hermes'
#   protected files.
# custom:
#   code: SELF_PROTECT_PATH
#   fix: Narrow the command to the files you need, outside Hermes' home and opafence's directories.
deny contains always(reason.render(rego.metadata.rule(), {"kind": verb[t.kind], "path": t.path})) if {
	some t in changes
	t.kind in {"delete", "move", "perm", "write"}
	t.recursive
	reaches_protected(t.path)
}

# METADATA
# title: SELF_PROTECT_PATH_INTO
# description: >-
#   This copies or unpacks files into {{.path}}, over opafence's or Hermes' protected files
#   that live there.
# custom:
#   code: SELF_PROTECT_PATH
#   fix: Copy or unpack into a directory of the workspace instead.
shell_deny contains always(reason.render(rego.metadata.rule(), {"path": d})) if {
	some d in into_dirs
	common.within(common.norm(d), hermes_home)
	reaches_protected(d)
}

# Directories a command fills with files it does not name one by one: a recursive copy's
# destination, an archive's extraction directory.
into_dirs contains d if {
	some [n, c] in reach.named
	n in {"cp", "rsync", "scp"}
	reach.recursive_reader(c)
	some d in common.copy_destinations(c)
}

into_dirs contains d if {
	some [n, c] in reach.named
	n in {"tar", "unzip", "bsdtar", "cpio", "7z", "7za", "7zz"}
	extracts(c)
	some d in extract_dirs(c)
}

extracts(c) if {
	common.cmd_name(c) == "tar"
	some f in {"-x", "--extract", "--get"}
	common.has_flag(c, f)
}

extracts(c) if {
	common.cmd_name(c) == "tar"
	c.argv[1] == c.operands[0]
	regex.match(`^[a-zA-Z]*x[a-zA-Z]*$`, c.operands[0])
}

extracts(c) if common.cmd_name(c) in {"unzip", "bsdtar", "cpio"}

extracts(c) if {
	common.cmd_name(c) in {"7z", "7za", "7zz"}
	lower(c.operands[0]) in {"x", "e"}
}

extract_dirs(c) := ds if {
	ds := {common.value_path(c, v) |
		some f in {"-C", "--directory", "-d"}
		some v in common.values(c, f)
	} | {common.expand(substring(a, 2, -1)) |
		some a in c.argv
		startswith(a, "-o")
		count(a) > 2
	}
	count(ds) > 0
} else := reach.here

# METADATA
# title: SELF_PROTECT_GIT
# description: >-
#   `{{.command}}` runs git inside {{.path}} (opafence's or Hermes' own directory), where it
#   would create or change files.
# custom:
#   code: SELF_PROTECT_PATH
#   fix: Leave opafence's and Hermes' own directories alone; use git in the workspace.
shell_deny contains always(reason.render(rego.metadata.rule(), {"command": common.shown(c), "path": d})) if {
	some [n, c] in reach.named
	n == "git"
	some d in git_dirs(c)
	git_protected(d)
	not common.subcommand_after(common.args(c), {"-C", "-c"}) in git_reads
}

git_protected(d) if protected(d)

git_protected(d) if foreign_tool_dir(d)

git_reads := {"status", "log", "diff", "show", "ls-files", "grep", "blame", "rev-parse", "describe", "help", "version"}

git_dirs(c) := {common.value_path(c, v) | some v in common.values(c, "-C")} if {
	common.has_flag(c, "-C")
} else := common.shift_dirs

verb := {"write": "write", "delete": "delete", "move": "move", "perm": "change the permissions of", "none": "use"}

# What the call changes: common.changes, plus what only self-protection needs to see.
changes := common.changes | shell_changes

shell_changes := x if {
	count(common.commands) > 0
	x := (((((find_changes | perm_changes) | rsync_changes) | mount_changes) | link_changes) | maybe_changes) | output_option_changes
} else := set()

# A runner's or linter's output-file option writes its value (`pytest --junitxml=F`,
# `ruff --output-file F`, `mypy --junit-xml F`, `go build -o F`), whatever the program.
output_option_changes contains {"path": common.value_path(c, v), "kind": "write", "recursive": false} if {
	some c in common.commands
	some i, a in c.argv
	i > 0
	startswith(a, "-")
	regex.match(output_option_any, a)
	some v in output_option_value(c, i, a)
	v != ""
	v != "-"
}

output_option_value(c, i, a) := {substring(a, count(m[0][1]) + 1, -1)} if {
	m := regex.find_all_string_submatch_n(output_option_eq, a, 1)
	count(m) == 1
} else := {c.argv[i + 1]} if {
	regex.match(output_option, a)
	i + 1 < count(c.argv)
}

output_option := `^(-o|--?([A-Za-z][-A-Za-z_]*)?(out|output|log|report|junit|xml|html|result|dump|save|dest|target)[-A-Za-z_]*)$`

output_option_any := `^(-o|--?([A-Za-z][-A-Za-z_]*)?(out|output|log|report|junit|xml|html|result|dump|save|dest|target)[-A-Za-z_]*)(=|$)`

output_option_eq := `^(--?([A-Za-z][-A-Za-z_]*)?(out|output|log|report|junit|xml|html|result|dump|save|dest|target)[-A-Za-z_]*)=`

# `find DIR -delete`, `find DIR -exec rm|chmod|mv|truncate … {} +`, `find DIR | xargs rm`:
# everything below DIR.
find_changes contains {"path": p, "kind": kind, "recursive": true} if {
	some [n, c] in reach.named
	n == "find"
	some kind in find_kinds(c)
	some p in reach.find_roots(c)
}

find_kinds(c) := ({"delete" | "-delete" in c.argv} | {change_kind(lower(c.argv[i + 1])) |
	some i, t in c.argv
	t in reach.exec_flags
	change_kind(lower(c.argv[i + 1]))
}) | {change_kind(common.cmd_name(d)) |
	some d in common.commands
	"xargs" in d.wrappers
	d.pipe_from == "find"
	change_kind(common.cmd_name(d))
}

change_kind(name) := "perm" if {
	name in common.perm_cmds
} else := "move" if {
	name == "mv"
} else := "delete" if {
	name in (common.delete_cmds | common.write_all_cmds)
} else := "delete" if {
	name in {"sed", "perl", "dd", "cp", "install", "rsync"}
}

# chmod/chown/chattr/setfacl: every operand (`chattr -i F`, `setfacl -b F` and
# `chmod --reference=R F` have no mode operand in front).
perm_changes contains {"path": p, "kind": "perm", "recursive": common.is_recursive(c)} if {
	some [n, c] in reach.named
	n in common.perm_cmds
	some p in common.operand_paths(c)
}

# `rm -rf $(ls -d ~/.hermes/*)`: the paths a dynamic operand may stand for (Command.maybe_paths).
maybe_changes contains {"path": p, "kind": kind, "recursive": common.is_recursive(c)} if {
	some [n, c] in reach.named
	some p in object.get(c, "maybe_paths", [])
	p != ""
	kind := change_kind(n)
}

# `rsync --delete SRC DST` deletes below DST; `--remove-source-files` moves the sources.
rsync_changes contains {"path": common.operand_path(c, count(c.operands) - 1), "kind": "delete", "recursive": true} if {
	some [n, c] in reach.named
	n == "rsync"
	some f in c.flags
	startswith(f, "--delete")
}

rsync_changes contains {"path": p, "kind": "move", "recursive": true} if {
	some [n, c] in reach.named
	n == "rsync"
	common.has_flag(c, "--remove-source-files")
	some i, _ in c.operands
	i < count(c.operands) - 1
	p := common.operand_path(c, i)
}

# `mount --bind /tmp/x ~/.hermes` replaces what is below its target.
mount_changes contains {"path": common.operand_path(c, count(c.operands) - 1), "kind": "move", "recursive": true} if {
	some [n, c] in reach.named
	n == "mount"
	count(c.operands) > 0
}

# METADATA
# title: SELF_PROTECT_BIND
# description: >-
#   `{{.command}}` mounts {{.path}} (opafence's or Hermes' own, or a directory above it)
#   somewhere else, where it could be read or changed under another name.
# custom:
#   code: SELF_PROTECT_PATH
#   fix: Leave opafence's and Hermes' own directories where they are; bind-mount workspace directories only.
shell_deny contains always(reason.render(rego.metadata.rule(), {"command": common.shown(c), "path": src})) if {
	some [n, c] in reach.named
	reach.binds(n, c)
	count(c.operands) > 1
	src := common.operand_path(c, count(c.operands) - 2)
	bind_protected(src)
}

bind_protected(p) if protected(p)

bind_protected(p) if reaches_protected(p)

bind_protected(p) if foreign_tool_dir(p)

bind_protected(p) if {
	some root in credential_roots
	reach.reaches(p, root, true)
}

# `ln -s ~/.hermes /tmp/h && rm -rf /tmp/h/`: a change below a link made in the same call
# changes what the link points to.
link_changes contains {"path": concat("", [target, substring(np, count(link), -1)]), "kind": t.kind, "recursive": t.recursive} if {
	some [link, target] in reach.links
	some c in common.commands
	common.cmd_name(c) != "ln"
	some t in (common.cmd_changes(c) | redirect_changes(c))
	np := common.norm(t.path)
	common.within(np, link)
}

redirect_changes(c) := {{"path": r.path, "kind": "write", "recursive": false} |
	some r in c.redirects
	r.mode in {"write", "append"}
	r.path != ""
}

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
	shifts_into_protected(d)
	changes_relative
}

shifts_into_protected(d) if protected(d)

shifts_into_protected(d) if reaches_protected(d)

shifts_into_protected(d) if foreign_tool_dir(d)

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

# --- opafence's own credentials ------------------------------------------------------------

# METADATA
# title: credential_roots
# description: >-
#   opafence's own credentials: the audit trail's signing and digest keys (`<state_dir>/keys`)
#   and the token files data.config names (remote OPA, bundle servers, decision-log and audit
#   collectors). Never read, never changed.
credential_roots contains common.norm(concat("/", [trim_right(input.host.state_dir, "/"), "keys"])) if {
	input.host.state_dir != ""
}

credential_roots contains common.norm(p) if {
	some p in data.config.credential_paths
	p != ""
}

# METADATA
# title: SELF_PROTECT_CREDENTIAL
# description: >-
#   This reads {{.path}}, which holds opafence's own credentials (audit signing keys or a
#   token); the agent may never read them, whoever asks.
# custom:
#   code: SELF_PROTECT_CREDENTIAL
#   fix: >-
#     Leave opafence's keys and token files alone; a person who needs them reads them outside
#     the agent.
deny contains always(reason.render(rego.metadata.rule(), {"path": r.path})) if {
	some r in reach.reads
	some root in credential_roots
	reach.reaches(r.path, root, false)
	not public_half(r.path)
}

# The audit trail's public key (audit_keys.PUBLIC_KEY) is meant to be read.
public_half(p) if endswith(common.norm(p), "/keys/audit-ed25519.pub.pem")

# METADATA
# title: SELF_PROTECT_CREDENTIAL_PARENT
# description: >-
#   This reads {{.path}} with everything below it ({{.how}}), opafence's own credentials
#   included; the agent may never read them.
# custom:
#   code: SELF_PROTECT_CREDENTIAL
#   fix: Narrow the command to the files you need, outside opafence's key directory.
deny contains always(reason.render(rego.metadata.rule(), {"path": r.path, "how": r.how})) if {
	some r in reach.recursive_reads
	some root in credential_roots
	reach.reaches(r.path, root, true)
}

# METADATA
# title: SELF_PROTECT_CREDENTIAL_LINKED
# description: >-
#   This reads {{.path}}, which is another name (a hard link or a bind mount) of {{.same}},
#   opafence's own credentials; the agent may never read them under any name.
# custom:
#   code: SELF_PROTECT_CREDENTIAL
#   fix: Leave the link alone; a person removes it outside the agent.
deny contains always(reason.render(rego.metadata.rule(), {"path": l.path, "same": l.same_as})) if {
	some l in object.get(input.facts, "links", [])
	some r in linked_reads(l.path)
	not public_half(l.same_as)
	some root in credential_roots
	reach.reaches(l.same_as, root, r.recursive)
}

# The reads of one path, plain or recursive (a bind mount of the key directory read with
# everything below it).
linked_reads(p) := {{"recursive": false} | some r in reach.reads; r.path == p} | {{"recursive": true} |
	some r in reach.recursive_reads
	r.path == p
}

# METADATA
# title: SELF_PROTECT_CREDENTIAL_LINK
# description: >-
#   This links {{.path}}, one of opafence's own credentials, to another name; the agent may
#   never read it under any name.
# custom:
#   code: SELF_PROTECT_CREDENTIAL
#   fix: Leave opafence's keys and token files alone.
shell_deny contains always(reason.render(rego.metadata.rule(), {"path": p})) if {
	some [n, c] in reach.named
	n in {"ln", "link"}
	some i, _ in c.operands
	i < count(c.operands) - 1
	p := common.operand_path(c, i)
	some root in credential_roots
	reach.reaches(p, root, false)
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

# Hermes subcommands that rewrite its configuration, credentials or code, or switch its home.
hermes_rewrites := {"setup", "update", "login", "logout", "auth", "import", "migrate", "postinstall", "profile"}

# ... and those that do unless they only list.
hermes_list_only := {"tools", "mcp", "hooks", "fallback", "moa"}

# METADATA
# title: SELF_PROTECT_HERMES_REWRITE
# description: >-
#   `hermes {{.action}}` rewrites Hermes' configuration, credentials or code, or switches its
#   home; the agent may never do that.
# custom:
#   code: SELF_PROTECT_HERMES_CONFIG
#   fix: A person runs it in their own terminal.
shell_deny contains always(reason.render(rego.metadata.rule(), {"action": action})) if {
	some xs in hermes_invocations
	action := common.subcommand(xs)
	action in hermes_rewrites
}

# METADATA
# title: SELF_PROTECT_HERMES_REWRITE_SUB
# description: >-
#   `hermes {{.action}}` changes which tools, MCP servers, hooks or models Hermes uses; the
#   agent may never change that.
# custom:
#   code: SELF_PROTECT_HERMES_CONFIG
#   fix: A person runs it in their own terminal.
shell_deny contains always(reason.render(rego.metadata.rule(), {"action": concat(" ", [sub, action])})) if {
	some xs in hermes_invocations
	sub := common.subcommand(xs)
	sub in hermes_list_only
	action := plugin_action(xs)
	not action in {"list", "ls", "show", "status", "doctor", "test", "--help"}
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

# Variables that make a Hermes or opafence start load other code or another home.
start_env := {
	"home", "pythonpath", "pythonhome", "pythonstartup", "pythonuserbase", "pythonnousersite", "path",
	"ld_preload", "ld_library_path", "xdg_config_home", "xdg_data_home", "virtual_env",
}

weaker_env_names contains upper(k) if {
	some c in common.commands
	starts_hermes(c)
	some k, _ in c.env
	lower(k) in start_env
}

starts_hermes(c) if common.cmd_name(c) in {"hermes", "hermes-agent", "opafence"}

starts_hermes(c) if {
	startswith(common.cmd_name(c), "python")
	c.argv[1] == "-m"
	regex.match(`^(hermes_cli|opafence)(\.|$)`, lower(c.argv[2]))
}

weaker_env_names contains upper(k) if {
	some c in common.commands
	common.cmd_name(c) in {"export", "declare", "typeset", "setenv", "readonly", "local", "set", "unset", "unsetenv"}
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

# METADATA
# title: SELF_PROTECT_REINSTALL
# description: "`{{.command}}` would install an opafence package from a file or another place over the installed one."
# custom:
#   code: SELF_PROTECT_UNINSTALL
#   fix: A person installs or upgrades opafence themselves.
shell_deny contains always(reason.render(rego.metadata.rule(), {"command": common.shown(c)})) if {
	some [n, c] in reach.named
	n in installers
	xs := common.pip_args(c)
	common.subcommand(xs) in {"install", "add", "reinstall", "upgrade"}
	some x in xs
	artifact(x)
	contains(lower(regex.replace(trim_right(x, "/"), `^.*/`, "")), "opafence")
}

installers := {"pip", "pip3", "python", "python3", "python2", "uv", "pipx", "poetry", "pdm"}

# A wheel, an archive, a directory or a URL (not a package name from the index).
artifact(x) if contains(x, "/")

artifact(x) if regex.match(`(?i)\.(whl|tar\.gz|tgz|tar\.bz2|zip)$`, x)

# --- signals to OPA ----------------------------------------------------------------------------

kill_cmds := {"kill", "pkill", "killall", "skill", "killall5", "tkill"}

names_opa(s) if regex.match(`(?i)(^|[^a-z0-9])opa([^a-z0-9]|$)|opafence|watchdog\.py`, strings.replace_n({"[": "", "]": ""}, s))

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

# METADATA
# title: SELF_PROTECT_TRACE
# description: "`{{.command}}` would attach to the OPA process that decides what the agent may do."
# custom:
#   code: SELF_PROTECT_SIGNAL
#   fix: Leave the OPA process alone.
shell_deny contains always(reason.render(rego.metadata.rule(), {"command": common.shown(c)})) if {
	some [n, c] in reach.named
	n in pid_cmds
	not n in kill_cmds
	some f in {"-p", "--pid"}
	common.has_flag(c, f)
	some other in common.commands
	other.context in {"command_substitution", "process_substitution"}
	some a in common.args(other)
	names_opa(a)
}

# METADATA
# title: SELF_PROTECT_SIGNAL_CGROUP
# description: "`{{.command}}` would move, freeze or limit the OPA process through {{.path}}."
# custom:
#   code: SELF_PROTECT_SIGNAL
#   fix: Leave the OPA process alone.
shell_deny contains always(reason.render(rego.metadata.rule(), {"command": common.shown(c), "path": r.path})) if {
	some c in common.commands
	some r in c.redirects
	r.mode in {"write", "append"}
	regex.match(`^/(sys/fs/cgroup|proc)/`, r.path)
	some a in common.args(c)
	pid_token(a) in opa_pids
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

# The managed OPA's process ids (its watchdog and OPA itself), from the host.
opa_pids := {sprintf("%d", [p]) | some p in input.host.opa_pids}

# Commands that signal, stop, trace or re-prioritize a process named by its id.
pid_cmds := kill_cmds | {"gdb", "strace", "ltrace", "gcore", "renice", "prlimit", "taskset", "cpulimit", "chrt", "ionice", "reptyr", "nsenter", "pidstat"}

# METADATA
# title: SELF_PROTECT_SIGNAL_PID
# description: "`{{.command}}` names the process id of the OPA that decides what the agent may do."
# custom:
#   code: SELF_PROTECT_SIGNAL
#   fix: Leave the OPA process alone; stop only processes this task started, by their own id.
shell_deny contains always(reason.render(rego.metadata.rule(), {"command": common.shown(c)})) if {
	some [n, c] in reach.named
	n in pid_cmds
	some a in common.args(c)
	pid_token(a) in opa_pids
}

# `4242`, `-4242` (its process group), `-p4242`, `--pid=4242`.
pid_token(a) := m[0][1] if {
	m := regex.find_all_string_submatch_n(`^(?:-|-p|--pid=)?([0-9]+)$`, a, 1)
	count(m) > 0
}

# METADATA
# title: SELF_PROTECT_SIGNAL_PROC
# description: This writes {{.path}}, a control file of the OPA process that decides what the agent may do.
# custom:
#   code: SELF_PROTECT_SIGNAL
#   fix: Leave the OPA process alone.
deny contains always(reason.render(rego.metadata.rule(), {"path": t.path})) if {
	some t in changes
	some pid in opa_pids
	common.under(t.path, concat("/", ["/proc", pid]))
}

# METADATA
# title: SELF_PROTECT_SIGNAL_CODE
# description: "This code signals process {{.pid}}, the OPA that decides what the agent may do."
# custom:
#   code: SELF_PROTECT_SIGNAL
#   fix: Leave the OPA process alone; stop only processes this task started, by their own id.
deny contains always(reason.render(rego.metadata.rule(), {"pid": pid})) if {
	some f in input.facts.code.calls
	f in signal_calls
	some pid in opa_pids
	regex.match(concat("", [`(^|[^0-9])`, pid, `([^0-9]|$)`]), common.text)
}

signal_calls := {"os.kill", "os.killpg", "signal.pidfd_send_signal", "os.pidfd_open", "psutil.Process"}

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
