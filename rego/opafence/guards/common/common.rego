# METADATA
# title: Guard helpers
# description: |
#   What the always-on guards share: the call's shell commands, the paths it writes, deletes,
#   moves, re-permissions or reads (from facts.paths and from shell commands), path comparison
#   (canonical, lower-cased), and whether the user's own words named a guarded action exactly
#   (a grant's literal `commands` or `paths`). This package has no deny or ask of its own.
# schemas:
#   - input: schema.input
#   - data.tasks: schema.tasks
package opafence.guards.common

import data.opafence.lib.runner

# --- paths ----------------------------------------------------------------------------------

# METADATA
# title: norm
# description: >-
#   A path for comparison: lower-cased (conservative on case-insensitive file systems),
#   without a trailing slash; "/" stays "/", "" stays "".
norm(p) := x if {
	x := trim_right(lower(p), "/")
	x != ""
} else := "/" if {
	startswith(p, "/")
} else := ""

# METADATA
# title: under
# description: True when path p is dir itself or lies below it (both compared with norm).
under(p, dir) if within(norm(p), norm(dir))

# METADATA
# title: within
# description: under, for paths already normalized with norm (the guards' tables are, once per query).
within(np, nd) if {
	nd != ""
	np == nd
}

within(np, nd) if {
	nd != ""
	nd != "/"
	startswith(np, concat("", [nd, "/"]))
}

within(np, "/") if startswith(np, "/")

# METADATA
# title: dirname
# description: The parent directory of an absolute path; "" for "/" and for a bare name.
dirname(p) := d if {
	d := regex.replace(norm(p), `/[^/]*$`, "")
	d != ""
} else := ""

# METADATA
# title: basename
# description: The last component of a path, lower-cased.
basename(p) := regex.replace(norm(p), `^.*/`, "")

# METADATA
# title: expand
# description: >-
#   A path a person or a command token wrote, made absolute the simple way: ~ and $HOME are
#   the host's home, a relative path is taken from the host's cwd. Facts already give
#   canonical paths; this is only for tokens the facts builder cannot know are paths
#   (`of=/dev/sda`, `-d @file`, grant paths written with ~).
expand(raw) := p if {
	raw == "~"
	p := input.host.home
} else := p if {
	startswith(raw, "~/")
	p := concat("", [input.host.home, substring(raw, 1, -1)])
} else := p if {
	startswith(raw, "$HOME/")
	p := concat("", [input.host.home, substring(raw, 5, -1)])
} else := p if {
	startswith(raw, "${HOME}/")
	p := concat("", [input.host.home, substring(raw, 7, -1)])
} else := raw if {
	startswith(raw, "/")
} else := p if {
	p := concat("/", [trim_right(input.host.cwd, "/"), trim_prefix(raw, "./")])
}

# METADATA
# title: home
# description: The host's home directory, normalized.
home := norm(input.host.home)

# METADATA
# title: homes
# description: >-
#   Every home directory the call can reach, normalized: where ~ points (host.home) and the
#   other homes Hermes' tools still reach by absolute path (host.other_homes: the user's own
#   home when terminal.home_mode gives the tools $HERMES_HOME/home).
homes := {h |
	some raw in array.concat([input.host.home], object.get(input.host, "other_homes", []))
	h := norm(raw)
	not h in {"", "/"}
}

# METADATA
# title: home_relative
# description: >-
#   A normalized path relative to the home directory it lies in ("/home/u/.ssh/id_rsa" ->
#   ".ssh/id_rsa"; the innermost one when homes nest), for tables of home-relative paths;
#   undefined outside every home.
home_relative(np) := substring(np, count(h) + 1, -1) if h := innermost_home(np)

innermost_home(np) := h if {
	inside := {x | some x in homes; startswith(np, concat("", [x, "/"]))}
	some h in inside
	every other in inside {
		count(other) <= count(h)
	}
}

# METADATA
# title: prefixes
# description: >-
#   A relative path and every path above it ("a/b/c" -> {"a", "a/b", "a/b/c"}), so a table
#   of directories is matched with set lookups instead of a scan of prefixes.
prefixes(rel) := {concat("/", array.slice(parts, 0, i)) |
	parts := split(rel, "/")
	some i in numbers.range(1, count(parts))
}

# METADATA
# title: in_table
# description: True when normalized path np is, or lies below, an entry of a table of normalized absolute paths.
in_table(np, table) if {
	some x in prefixes(trim_prefix(np, "/"))
	concat("", ["/", x]) in table
}

# METADATA
# title: in_home_table
# description: True when normalized path np is, or lies below, an entry of a table of home-relative paths.
in_home_table(np, table) if {
	some x in prefixes(home_relative(np))
	x in table
}

# --- shell commands ----------------------------------------------------------------------------

# METADATA
# title: commands
# description: Every simple command of the call's shell program (terminal, process, cron script, code).
commands := [c | some c in input.facts.shell.commands]

# METADATA
# title: cmd_name
# description: >-
#   The program a command runs, lower-cased, with a version suffix dropped
#   (`pip3.11` -> `pip3`, `python3.12` -> `python3`).
cmd_name(c) := n if {
	n := lower(c.name)
	not contains(n, ".")
} else := regex.replace(lower(c.name), `^(python|pip)([0-9]*)\.[0-9.]+$`, "$1$2")

# METADATA
# title: args
# description: A command's argv after the program name.
args(c) := array.slice(c.argv, 1, count(c.argv))

# METADATA
# title: line
# description: A command's argv joined with single spaces, normalized like granted commands.
line(c) := norm_cmd(concat(" ", c.argv))

# METADATA
# title: shown
# description: A command as messages show it - its argv as written, at most 160 characters.
shown(c) := substring(concat(" ", c.argv), 0, 160)

# METADATA
# title: norm_cmd
# description: A command line for comparison; lower-cased, quotes removed, whitespace collapsed.
norm_cmd(s) := concat(" ", [t |
	some t in regex.split(`\s+`, trim_space(lower(strings.replace_n({"\"": "", "'": "", "`": ""}, s))))
	t != ""
])

# METADATA
# title: has_flag
# description: True when command c carries flag f (facts expand short clusters, so -rf gives -r and -f).
has_flag(c, f) if f in c.flags

has_flag(c, f) if {
	some a in c.argv
	a == f
}

has_flag(c, f) if {
	startswith(f, "--")
	some a in c.argv
	startswith(a, concat("", [f, "="]))
}

# METADATA
# title: recursive
# description: True when a command was asked to recurse (-r, -R, --recursive).
recursive(c) if {
	some f in {"-r", "-R", "--recursive"}
	has_flag(c, f)
}

default is_recursive(_) := false

is_recursive(c) if recursive(c)

# METADATA
# title: operand_path
# description: The canonical path of operand i (facts give them parallel to operands).
operand_path(c, i) := c.operand_paths[i] if {
	c.operand_paths[i] != ""
} else := expand(c.operands[i])

# METADATA
# title: operand_paths
# description: Every operand of c as a path, including where a `cd` or the terminal's workdir moved the shell.
operand_paths(c) := {p | some i, _ in c.operands; p := operand_path(c, i)} | shifted_paths(c)

shifted_paths(c) := {p | some raw in c.operands; some p in shifted(raw)}

relative(raw) if {
	raw != ""
	not startswith(raw, "/")
	not startswith(raw, "~")
	not startswith(raw, "$")
	not startswith(raw, "-")
}

# Directories a `cd`/`pushd` in the same program moves to, and the terminal's workdir:
# relative operands may mean those (the facts builder resolves against the host's cwd).
shift_dirs contains d if {
	some c in commands
	cmd_name(c) in {"cd", "pushd"}
	some i, _ in c.operands
	d := operand_path(c, i)
}

shift_dirs contains input.host.home if {
	some c in commands
	cmd_name(c) in {"cd", "pushd"}
	count(c.operands) == 0
}

shift_dirs contains p.path if {
	some p in input.facts.paths
	p.arg in {"workdir", "cwd"}
}

# METADATA
# title: values
# description: >-
#   The values a command gives option f: the token after `f`, or what follows `f=`
#   (for `--output=x`) or directly after a short option (`-ox`).
values(c, f) := {v |
	some i, a in c.argv
	a == f
	i + 1 < count(c.argv)
	v := c.argv[i + 1]
} | {v |
	some a in c.argv
	startswith(a, concat("", [f, "="]))
	v := substring(a, count(f) + 1, -1)
}

# METADATA
# title: value_path
# description: The canonical path of an option value (the operand's canonical path when it is one).
value_path(c, raw) := c.operand_paths[i] if {
	some i, o in c.operands
	o == raw
	c.operand_paths[i] != ""
} else := expand(raw)

# METADATA
# title: keyword_paths
# description: >-
#   Paths written inside tokens: `of=/dev/sda`, `if=~/.ssh/id_rsa` (dd), `@file` and `x=@file`
#   (curl data and form uploads), `UNIX-CONNECT:/path` (socat), `--opt=/path`.
keyword_paths(c, key) := {expand(v) |
	some a in c.argv
	startswith(lower(a), concat("", [key, "="]))
	v := substring(a, count(key) + 1, -1)
	v != ""
}

# METADATA
# title: at_paths
# description: Files a command reads through an @ reference (curl -d @f, -F k=@f, --data-binary @f).
at_paths(c) := {expand(v) |
	some a in c.argv
	contains(a, "@")
	m := regex.find_all_string_submatch_n(`^(?:[^=@]*=)?@([^;@]+)`, a, 1)
	v := m[0][1]
	v != "-"
}

# --- python -m pip, uv pip -----------------------------------------------------------------------

# METADATA
# title: pip_args
# description: >-
#   The argument list after `pip` for the ways pip is started: pip, pip3, python -m pip,
#   uv pip (for `uv add/remove` the uv subcommand itself).
pip_args(c) := args(c) if {
	cmd_name(c) in {"pip", "pip3"}
} else := array.slice(c.argv, 3, count(c.argv)) if {
	startswith(cmd_name(c), "python")
	c.argv[1] == "-m"
	lower(c.argv[2]) in {"pip", "pip3"}
} else := array.slice(c.argv, 2, count(c.argv)) if {
	cmd_name(c) == "uv"
	lower(c.argv[1]) == "pip"
} else := args(c) if {
	cmd_name(c) in {"uv", "pipx", "poetry", "pdm"}
}

# METADATA
# title: subcommand
# description: The first argument of a list that is not an option (the subcommand of git, pip, npm, ...).
subcommand(xs) := lower(s) if {
	firsts := [x | some x in xs; not startswith(x, "-")]
	s := firsts[0]
}

# METADATA
# title: subcommand_after
# description: The subcommand, skipping options and the values of the given valued options (`git -C dir push`).
subcommand_after(xs, valued) := lower(xs[idx[0]]) if {
	idx := [i | some i, x in xs; not startswith(x, "-"); not after_valued(xs, i, valued)]
}

after_valued(xs, i, valued) if {
	i > 0
	xs[i - 1] in valued
}

# --- which tools only read the paths they are given --------------------------------------------

read_tools := {
	"read_file", "search_files", "skill_view", "skills_list", "vision_analyze", "video_analyze",
	"session_search", "web_search", "web_extract",
}

mcp_write_words := {
	"write", "create", "edit", "update", "delete", "remove", "move", "rename", "put", "set", "append",
	"upload", "patch", "save", "send", "copy", "chmod", "mkdir", "touch", "insert", "drop", "execute",
	"run", "exec", "post", "publish", "share", "reply", "forward", "comment", "submit", "add", "invite",
	"merge", "push", "commit", "transfer", "pay", "archive", "close", "assign", "modify", "replace",
	"clear", "reset", "revoke", "grant", "store", "import", "schedule", "trash", "purge",
}

mcp_read_words := {
	"read", "get", "list", "search", "find", "view", "show", "fetch", "query", "stat", "info",
	"describe", "head", "tail", "count", "exists", "lookup", "download", "open", "cat", "tree",
}

mcp_words contains lower(w) if {
	some w in input.facts.tool.mcp.words
}

mcp_words contains w if {
	startswith(input.call.tool, "mcp__")
	parts := split(input.call.tool, "__")
	some w in regex.split(`[_\-.]+`, lower(concat("_", array.slice(parts, 2, count(parts)))))
	w != ""
}

mcp_read_only if {
	startswith(input.call.tool, "mcp__")
	some w in mcp_words
	w in mcp_read_words
	not mcp_writes
}

mcp_writes if {
	some w in mcp_words
	w in mcp_write_words
}

# Path arguments a tool is given to write (write_file, patch, output_path, skill files, MCP
# file tools); the read tools, the terminal's workdir and read-only MCP tools only read them.
arg_writes(p) if {
	not input.call.tool in read_tools
	not p.arg in {"workdir", "cwd"}
	not mcp_read_only
}

# --- what a call changes -------------------------------------------------------------------------

# METADATA
# title: changes
# description: >-
#   Every path the call would change, as {"path", "kind", "recursive"}: kind is write, delete,
#   move or perm; recursive when the change reaches everything below the path (rm -r, chmod -R,
#   mv, a deletion from code). From facts.paths and from the shell commands.
changes contains {"path": p.path, "kind": path_kind(p), "recursive": path_recursive(p)} if {
	some p in input.facts.paths
	p.path != ""
}

changes contains {"path": r.path, "kind": "write", "recursive": false} if {
	some c in commands
	some r in c.redirects
	r.mode in {"write", "append"}
	r.path != ""
}

changes contains t if {
	some c in commands
	some t in cmd_changes(c)
	t.path != ""
}

default path_recursive(_) := false

path_recursive(p) if {
	p.via == "code"
	p.op == "delete"
}

path_recursive(p) if p.op == "move_from"

# A directory a command is handed to write (a container's bind mount): everything below it.
path_recursive(p) if {
	p.via == "command"
	p.op == "write"
}

path_kind(p) := "delete" if {
	p.op == "delete"
} else := "move" if {
	p.op == "move_from"
} else := "write" if {
	p.op in {"update", "add", "move_to", "write", "append"}
} else := "write" if {
	p.op == ""
	p.via == "arg"
	arg_writes(p)
} else := "write" if {
	p.op == ""
	p.via == "code"
} else := "none"

delete_cmds := {"rm", "rmdir", "unlink", "shred", "srm", "trash", "trash-put", "gio"}

perm_cmds := {"chmod", "chown", "chgrp", "chattr", "setfacl"}

# Commands that write every file they name (editors included: they save what they open).
write_all_cmds := {
	"tee", "truncate", "touch", "mkdir", "ln", "patch", "mkfifo", "mknod", "sponge",
	"ed", "ex", "vi", "vim", "nvim", "nano", "emacs", "pico", "micro", "joe", "code", "subl",
}

copy_cmds := {"cp", "install", "rsync", "scp", "ditto"}

cmd_changes(c) := ((by_name_changes(c) | option_changes(c)) | clone_changes(c)) | runner_changes(c)

by_name_changes(c) := {{"path": p, "kind": "delete", "recursive": is_recursive(c)} |
	some p in operand_paths(c)
} if {
	cmd_name(c) in delete_cmds
} else := {{"path": p, "kind": "perm", "recursive": is_recursive(c)} |
	some i, _ in c.operands
	i > 0
	some p in ({operand_path(c, i)} | shifted_paths(c))
} if {
	cmd_name(c) in perm_cmds
} else := {{"path": p, "kind": "move", "recursive": true} |
	some p in operand_paths(c)
} if {
	cmd_name(c) == "mv"
} else := {{"path": p, "kind": "write", "recursive": false} |
	some p in operand_paths(c)
} if {
	cmd_name(c) in write_all_cmds
} else := {{"path": p, "kind": "write", "recursive": false} |
	some p in copy_destinations(c)
} if {
	cmd_name(c) in copy_cmds
} else := {{"path": p, "kind": "write", "recursive": false} |
	some p in operand_paths(c)
} if {
	in_place(c)
} else := {{"path": p, "kind": "write", "recursive": false} |
	some p in keyword_paths(c, "of")
} if {
	cmd_name(c) == "dd"
} else := set()

# Files and directories named by an option: -o out (curl), -O (wget), -C dir (tar), -d dir
# (unzip), -P dir (wget), --target dir (pip).
option_changes(c) := {{"path": value_path(c, v), "kind": "write", "recursive": false} |
	some f in (object.get(output_flags, cmd_name(c), set()) | object.get(dir_flags, cmd_name(c), set()))
	some v in values(c, f)
	v != "-"
}

# A test, build or lint runner's report and cache outputs (--junitxml=PATH, -o cache_dir=PATH,
# --basetemp PATH, -coverprofile=PATH): writes like any other (lib/runner).
runner_changes(c) := {{"path": expand(v), "kind": "write", "recursive": true} |
	count(runner.names(c.argv)) > 0
	some v in runner.option_paths(c.argv)
	not startswith(v, "//")
}

# `git clone URL DIR` writes DIR.
clone_changes(c) := {{"path": operand_path(c, last), "kind": "write", "recursive": false} |
	cmd_name(c) == "git"
	subcommand(args(c)) == "clone"
	last := count(c.operands) - 1
	last > 1
}

output_flags := {
	"curl": {"-o", "--output"},
	"wget": {"-O", "--output-document"},
	"sort": {"-o", "--output"},
}

# Options naming the directory a command writes into (extracting, downloading, installing).
dir_flags := {
	"tar": {"-C", "--directory"},
	"unzip": {"-d"},
	"wget": {"-P", "--directory-prefix"},
	"pip": {"-t", "--target", "--prefix", "--root"},
	"pip3": {"-t", "--target", "--prefix", "--root"},
	"7z": {"-o"},
}

copy_destinations(c) := {value_path(c, v) | some f in {"-t", "--target-directory"}; some v in values(c, f)} if {
	some f in {"-t", "--target-directory"}
	has_flag(c, f)
} else := {operand_path(c, last)} | shifted(c.operands[last]) if {
	last := count(c.operands) - 1
	last > 0
} else := set()

# Where a relative operand lands when a `cd` (or the workdir) moved the shell.
shifted(raw) := {p |
	relative(raw)
	some d in shift_dirs
	p := trim_suffix(concat("/", [trim_right(d, "/"), trim_prefix(raw, "./")]), "/.")
}

in_place(c) if in_place_named(c, cmd_name(c))

in_place_named(c, n) if {
	n in {"sed", "gsed", "perl", "ruby"}
	some a in c.argv
	regex.match(`^(-[a-zA-Z]*i.*|--in-place(=.*)?)$`, a)
}

# `gawk -i inplace`, `yq -i`.
in_place_named(c, n) if {
	n in {"awk", "gawk"}
	"inplace" in values(c, "-i")
}

in_place_named(c, "yq") if {
	some f in {"-i", "--inplace"}
	has_flag(c, f)
}

# --- what a call reads ---------------------------------------------------------------------------

# Commands that name a path without showing its contents to anyone.
non_reading_cmds := {
	"rm", "rmdir", "unlink", "shred", "chmod", "chown", "chgrp", "touch", "mkdir", "ls", "stat", "test",
	"[", "cd", "pushd", "realpath", "readlink", "dirname", "basename", "file", "wc", "du", "mv", "ln",
	"tee", "truncate", "echo", "printf", "export", "which", "type", "mkfifo", "setfacl", "chattr",
}

# METADATA
# title: reads
# description: >-
#   Every path whose contents the call reads, as {"path", "how"}: read tools and other tools'
#   path arguments, input redirects, reads from code, and the operands of shell commands that
#   show, copy, pack or send a file (not `ls`, `rm`, `chmod` or a copy's destination).
reads contains {"path": p.path, "how": input.call.tool} if {
	some p in input.facts.paths
	p.path != ""
	path_reads(p)
}

reads contains {"path": r.path, "how": "redirect"} if {
	some c in commands
	some r in c.redirects
	r.mode == "read"
	r.path != ""
}

reads contains {"path": p, "how": cmd_name(c)} if {
	some c in commands
	not cmd_name(c) in non_reading_cmds
	not in_place(c)
	some p in read_operands(c)
}

reads contains {"path": p, "how": cmd_name(c)} if {
	some c in commands
	some p in (at_paths(c) | keyword_paths(c, "if"))
}

path_reads(p) if {
	p.via == "arg"
	not input.call.tool in {"write_file", "patch"}
	not p.arg in {"workdir", "cwd", "output_path"}
}

path_reads(p) if {
	p.via in {"code", "command", "redirect"}
	p.op in {"read", ""}
}

read_operands(c) := {p |
	some i, o in c.operands
	i < count(c.operands) - 1
	not at_reference(o)
	p := operand_path(c, i)
} if {
	cmd_name(c) in copy_cmds
} else := {p |
	some i, o in c.operands
	not at_reference(o)
	some p in ({operand_path(c, i)} | shifted(o))
}

# `@file`, `name=@file`: a curl-style reference, read through at_paths instead.
at_reference(o) if regex.match(`^([^=@/]*=)?@`, o)

# --- grants: did the user's own words name this exactly? ----------------------------------------

task_grants := [g | some g in data.tasks[input.task].grants]

granted_commands := {norm_cmd(s) | some g in task_grants; some s in g.commands}

granted_paths := {norm(expand(p)) | some g in task_grants; some p in g.paths}

granted_tools := {t | some g in task_grants; some t in g.tools}

# METADATA
# title: names_command
# description: >-
#   True when a grant's literal command is this command line, or a prefix of it that itself
#   contains every token that makes it dangerous (triggers), so "run `git push`" never
#   covers `git push --force`.
names_command(c, _) if line(c) in granted_commands

names_command(c, triggers) if {
	count(triggers) > 0
	l := line(c)
	some g in granted_commands
	startswith(l, concat("", [g, " "]))
	toks := {t | some t in split(g, " ")}
	every t in triggers {
		norm_cmd(t) in toks
	}
}

# METADATA
# title: names_path
# description: True when a grant names exactly this path (not merely a directory above it).
names_path(p) if norm(p) in granted_paths

# METADATA
# title: text
# description: >-
#   The raw text of the call's code-carrying arguments (a terminal command, a process's stdin,
#   a cron script, execute_code), for patterns that no parser normalizes (SQL in a here-doc,
#   environment variable names in code).
text := concat("\n", [v |
	some k in ["command", "data", "script", "code", "input", "query", "sql"]
	v := input.call.args[k]
	is_string(v)
])

# METADATA
# title: arg_strings
# description: Every string value anywhere in the call's arguments.
arg_strings contains v if {
	walk(input.call.args, [_, v])
	is_string(v)
}

# --- guarded actions: block, or ask when the user named exactly this -------------------------------

# METADATA
# title: soft_command
# description: True when the user's own words named command c with every trigger token (see names_command).
default soft_command(_, _) := false

soft_command(c, triggers) if names_command(c, triggers)

# METADATA
# title: soft_path
# description: True when the user's own words named exactly this path.
default soft_path(_) := false

soft_path(p) if names_path(p)

# METADATA
# title: asked
# description: A guard's reason, said as a question because the user's own words asked for exactly this.
asked(r) := object.union(r, {"message": concat(" ", [r.message, asked_sentence])})

asked_sentence := "The user asked for exactly this, so they confirm it first."
