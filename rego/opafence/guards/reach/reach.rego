# METADATA
# title: What a call's reads reach
# description: |
#   Helpers for the guards that protect files from being read (secrets, opafence's own
#   credentials): every file the call reads (common.reads plus option-valued files such as
#   `wget --post-file=F`), every directory it reads recursively (archives, recursive copies and
#   searches, `find -exec cat`, file servers, search_files), and whether such a read reaches a
#   protected root: at or below it, a recursive read of a directory above it, or a glob that
#   could match it (`~/.ss?/id_*`, `/home/*/.aws`, `~/.hermes/*/keys/*`). This package has no
#   deny or ask of its own.
# schemas:
#   - input: schema.input
package opafence.guards.reach

import data.opafence.guards.common

# --- reads ------------------------------------------------------------------------------------

# METADATA
# title: named
# description: >-
#   The call's commands as [program name (common.cmd_name), command] pairs, so rules about one
#   program compare a name instead of calling cmd_name per command and rule.
named := [[common.cmd_name(c), c] | some c in common.commands]

# METADATA
# title: reads
# description: Every file the call reads, as {"path", "how"} (common.reads and option-valued files).
reads := base_reads | link_reads

base_reads := common.reads | option_reads

# METADATA
# title: links
# description: >-
#   Links the call makes (`ln [-s] TARGET LINK`), as [link, target] normalized: a read or change
#   below LINK later in the same call reaches TARGET.
links contains [common.norm(common.operand_path(c, count(c.operands) - 1)), common.norm(common.operand_path(c, 0))] if {
	some [n, c] in named
	n == "ln"
	count(c.operands) > 1
}

# `mount --bind SRC DST`, `mount -o bind SRC DST`, `bindfs SRC DST`: DST shows SRC's tree (the
# last two operands: `-o bind` may leave its value among them).
links contains [common.norm(common.operand_path(c, count(c.operands) - 1)), common.norm(common.operand_path(c, count(c.operands) - 2))] if {
	some [n, c] in named
	binds(n, c)
	count(c.operands) > 1
}

binds("bindfs", _)

binds("mount", c) if {
	some f in {"--bind", "--rbind", "-B", "-R"}
	common.has_flag(c, f)
}

binds("mount", c) if {
	some v in (common.values(c, "-o") | common.values(c, "--options"))
	some o in split(v, ",")
	o in {"bind", "rbind"}
}

# `ln -s ~/.ssh/id_rsa notes.txt && cat notes.txt`
link_reads contains {"path": concat("", [target, substring(np, count(link), -1)]), "how": r.how} if {
	some [link, target] in links
	some r in base_reads
	np := common.norm(r.path)
	common.within(np, link)
}

# Options whose value is a file the command sends or reads (`--post-file=F`; `--post-file F`
# is an operand and already a read).
file_options := {"--post-file", "--body-file", "--upload-file", "--input-file"}

option_reads contains {"path": p, "how": n} if {
	some [n, c] in named
	some a in c.argv
	contains(a, "=")
	p := option_file(a)
}

option_file(a) := common.expand(v) if {
	startswith(a, "--")
	[k, v] := split(a, "=")
	lower(k) in file_options
	v != ""
} else := common.expand(m[0][1]) if {
	contains(a, "file")
	m := regex.find_all_string_submatch_n(`^[^=]*=fileb?://(?:localhost)?(/.*|~.*)$`, a, 1)
	count(m) > 0
}

# `git -C DIR add FILE`: git's operands are relative to its -C directory.
option_reads contains {"path": git_path(c, d, o), "how": "git"} if {
	some [n, c] in named
	n == "git"
	some d in common.values(c, "-C")
	some o in c.operands
	o != d
	common.relative(o)
}

git_path(c, d, o) := trim_suffix(concat("/", [trim_right(common.value_path(c, d), "/"), trim_prefix(o, "./")]), "/.")

# `git add DIR` stages everything below DIR (a later push sends it).
recursive_reads contains {"path": p, "how": "git"} if {
	some [n, c] in named
	n == "git"
	"add" in c.operands
	common.subcommand_after(common.args(c), {"-C", "-c"}) == "add"
	some i, o in c.operands
	o != "add"
	not o in common.values(c, "-C")
	some p in (({common.operand_path(c, i)} | {git_path(c, d, o) | some d in common.values(c, "-C"); common.relative(o)}) | common.shifted(o))
}

# `cat $(ls ~/.ssh/id_*)`, `for k in ~/.ssh/*; do cat $k; done`: the paths the facts say a
# dynamic operand may stand for (Command.maybe_paths), for a command that reads its operands.
option_reads contains {"path": p, "how": n} if {
	some [n, c] in named
	not n in common.non_reading_cmds
	some p in object.get(c, "maybe_paths", [])
	p != ""
}

# `curl file:///etc/shadow`, `aws ssm put-parameter --value file://~/.ssh/id_rsa` (after `=`: above).
option_reads contains {"path": common.expand(m[0][1]), "how": n} if {
	some [n, c] in named
	some a in c.argv
	startswith(a, "file")
	m := regex.find_all_string_submatch_n(`^fileb?://(?:localhost)?(/.*|~.*)$`, a, 1)
	count(m) > 0
}

# METADATA
# title: recursive_reads
# description: >-
#   Every directory the call reads with everything below it, as {"path", "how"}: archives
#   (tar create, zip -r, 7z a), recursive copies (cp -r/-a, rsync -r/-a, scp -r, rclone, aws s3
#   sync), recursive searches (grep -r, rg, ag, ack), find with a reading -exec or feeding
#   xargs, file servers (python -m http.server, php -S, http-server, ...), and search_files
#   over file contents.
recursive_reads contains {"path": p, "how": common.cmd_name(c)} if {
	some [n, c] in named
	n in recursive_names
	recursive_reader(c)
	some p in source_paths(c)
}

recursive_reads contains {"path": p, "how": "find"} if {
	some [n, c] in named
	n == "find"
	find_reads(c)
	some p in find_roots(c)
}

recursive_reads contains {"path": p, "how": "serve"} if {
	some p in served_dirs
}

recursive_reads contains {"path": p.path, "how": "search_files"} if {
	input.call.tool == "search_files"
	object.get(input.call.args, "target", "content") != "files"
	not object.get(input.call.args, "output_mode", "content") in {"files_only", "count"}
	some p in input.facts.paths
	p.arg == "path"
	p.path != ""
}

# --- which commands read recursively ------------------------------------------------------------

recursive_flags := {"-r", "-R", "--recursive", "-a", "--archive"}

recursive_copiers := {"cp", "rsync", "scp", "gcp"}

always_recursive := {"rg", "ag", "ack", "ack-grep", "ripgrep"}

grep_cmds := {"grep", "egrep", "fgrep", "zgrep", "ugrep", "git-grep"}

# Every program a recursive_reader clause is about (reach_test checks it against the tables).
recursive_names := {
	"cp", "rsync", "scp", "gcp", "grep", "egrep", "fgrep", "zgrep", "ugrep", "git-grep", "rg", "ag", "ack",
	"ack-grep", "ripgrep", "tar", "zip", "7z", "7za", "7zz", "7zr", "rclone", "aws", "gsutil", "python",
	"python2", "python3",
}

recursive_reader(c) if {
	common.cmd_name(c) in recursive_copiers
	some f in recursive_flags
	common.has_flag(c, f)
}

recursive_reader(c) if {
	common.cmd_name(c) in grep_cmds
	grep_recursive(c)
}

recursive_reader(c) if {
	common.cmd_name(c) in always_recursive
	not common.has_flag(c, "--files")
}

recursive_reader(c) if {
	common.cmd_name(c) == "tar"
	tar_packs(c)
}

# `python -m zipfile -c out.zip DIR`, `python -m tarfile -c out.tar DIR`.
recursive_reader(c) if {
	startswith(common.cmd_name(c), "python")
	some i, a in c.argv
	a == "-m"
	lower(c.argv[i + 1]) in {"zipfile", "tarfile"}
	some f in {"-c", "--create"}
	common.has_flag(c, f)
}

recursive_reader(c) if {
	common.cmd_name(c) == "zip"
	some f in {"-r", "-R", "--recurse-paths", "--recurse-patterns"}
	common.has_flag(c, f)
}

recursive_reader(c) if {
	common.cmd_name(c) in {"7z", "7za", "7zz", "7zr"}
	lower(c.operands[0]) in {"a", "u"}
}

recursive_reader(c) if {
	common.cmd_name(c) == "rclone"
	lower(c.operands[0]) in {"copy", "sync", "move", "copyto", "moveto", "bisync", "check"}
}

recursive_reader(c) if {
	common.cmd_name(c) == "aws"
	lower(c.operands[0]) == "s3"
	lower(c.operands[1]) in {"sync", "cp", "mv"}
	aws_recursive(c)
}

recursive_reader(c) if {
	common.cmd_name(c) == "gsutil"
	some f in {"-r", "-R"}
	common.has_flag(c, f)
}

recursive_reader(c) if {
	common.cmd_name(c) == "gsutil"
	lower(c.operands[0]) == "rsync"
}

aws_recursive(c) if lower(c.operands[1]) == "sync"

aws_recursive(c) if common.has_flag(c, "--recursive")

grep_recursive(c) if {
	some f in {"-r", "-R", "--recursive", "--dereference-recursive", "--directories=recurse"}
	common.has_flag(c, f)
}

grep_recursive(c) if "recurse" in common.values(c, "-d")

# tar that writes an archive (or adds to one) reads its operands: -c/--create, -r/--append,
# -u/--update, or the old style `tar czf out.tgz dir`.
tar_packs(c) if {
	some f in {"-c", "--create", "-r", "--append", "-u", "--update"}
	common.has_flag(c, f)
}

tar_packs(c) if {
	c.argv[1] == c.operands[0]
	regex.match(`^[a-zA-Z]*[cru][a-zA-Z]*$`, c.operands[0])
	not startswith(c.operands[0], "-")
}

# The directories and files a recursive reader reads: its operands (a copy's destination
# excluded), those under tar's -C directory, or the directory it runs in when it names none.
source_paths(c) := (common.read_operands(c) | tar_dir_paths(c)) | implicit_dirs(c)

tar_dir_paths(c) := {p |
	common.cmd_name(c) == "tar"
	some d in (common.values(c, "-C") | common.values(c, "--directory"))
	some o in c.operands
	common.relative(o)
	p := concat("/", [trim_right(common.value_path(c, d), "/"), trim_prefix(o, "./")])
}

# `rg foo`, `grep -r foo` with no path: the directory the shell is in.
implicit_dirs(c) := here if {
	common.cmd_name(c) in (always_recursive | grep_cmds)
	count(c.operands) == pattern_operands(c)
} else := set()

# The patterns are operands too: one, or one per -e/-f value.
pattern_operands(c) := n if {
	n := count({v | some f in {"-e", "-f", "--regexp", "--file"}; some v in common.values(c, f)})
	n > 0
} else := 1

# Where a command without a path argument runs: the host's cwd, or where `cd`/workdir moved it.
here := {input.host.cwd} | common.shift_dirs

# --- find ------------------------------------------------------------------------------------------

find_global_options := {"-H", "-L", "-P"}

# find's starting points: the operands before its expression (`find -L a b -name x`).
find_roots(c) := roots if {
	starts := [i |
		some i, t in c.argv
		i > 0
		not t in find_global_options
		find_expression(t)
	]
	end := min(array.concat(starts, [count(c.argv)]))
	n := count([t | some t in array.slice(c.argv, 1, end); not t in find_global_options])
	n > 0
	roots := {p |
		some i, o in c.operands
		i < n
		some p in ({common.operand_path(c, i)} | common.shifted(o))
	}
} else := here

find_expression(t) if startswith(t, "-")

find_expression(t) if t in {"(", "!", "\\(", "\\!"}

exec_flags := {"-exec", "-execdir", "-ok", "-okdir"}

# find shows or sends what it found: -exec of a command that reads (cat, grep, cp, curl, ...),
# or a pipe into `xargs <reader>`.
find_reads(c) if {
	some i, t in c.argv
	t in exec_flags
	not lower(c.argv[i + 1]) in common.non_reading_cmds
}

find_reads(_) if {
	some d in common.commands
	"xargs" in d.wrappers
	d.pipe_from == "find"
	not common.cmd_name(d) in common.non_reading_cmds
}

# --- file servers ----------------------------------------------------------------------------------

serve_modules := {"http.server", "simplehttpserver", "uploadserver", "twisted", "pyftpdlib", "wsgidav"}

# Commands that serve a directory given as an operand (or the one they run in).
serve_programs := {"http-server", "serve", "miniserve", "darkhttpd", "updog", "static-server", "live-server", "webfsd"}

launchers := {"npx", "bunx", "pnpx"}

# serve_programs | launchers, as one constant (reach_test checks it).
server_names := {
	"http-server", "serve", "miniserve", "darkhttpd", "updog", "static-server", "live-server", "webfsd",
	"npx", "bunx", "pnpx",
}

# METADATA
# title: served_dirs
# description: >-
#   Directories the call serves over the network: `python -m http.server [-d DIR]`,
#   `php -S addr [-t DIR]`, `http-server DIR` (also through npx), `busybox httpd -h DIR`,
#   `caddy file-server --root DIR`, `rclone serve http DIR`; the directory the shell is in when
#   none is named.
served_dirs contains p if {
	some [n, c] in named
	startswith(n, "python")
	some i, a in c.argv
	a == "-m"
	lower(c.argv[i + 1]) in serve_modules
	some p in named_or_here(c, {"-d", "--directory"})
}

served_dirs contains p if {
	some [n, c] in named
	n == "php"
	common.has_flag(c, "-S")
	some p in named_or_here(c, {"-t"})
}

served_dirs contains p if {
	some [n, c] in named
	n == "httpd"
	"busybox" in c.wrappers
	some p in named_or_here(c, {"-h"})
}

served_dirs contains p if {
	some [n, c] in named
	n == "caddy"
	lower(c.operands[0]) == "file-server"
	some p in named_or_here(c, {"--root", "-r"})
}

served_dirs contains p if {
	some [n, c] in named
	n in server_names
	server_operands(c) != null
	some p in server_dirs(c, server_operands(c))
}

served_dirs contains p if {
	some [n, c] in named
	n == "rclone"
	lower(c.operands[0]) == "serve"
	p := common.operand_path(c, 2)
}

named_or_here(c, flags) := ps if {
	ps := {common.value_path(c, v) | some f in flags; some v in common.values(c, f)}
	count(ps) > 0
} else := here

# The operands after the server's name (`http-server DIR`, `npx http-server DIR`).
server_operands(c) := [i | some i, _ in c.operands] if {
	common.cmd_name(c) in serve_programs
} else := [i | some i, _ in c.operands; i > 0] if {
	common.cmd_name(c) in launchers
	lower(c.operands[0]) in serve_programs
} else := null

server_dirs(c, idx) := ps if {
	ps := {common.operand_path(c, i) | some i in idx; not regex.match(`^[0-9]+$`, c.operands[i])}
	count(ps) > 0
} else := here

# --- reaching a root ---------------------------------------------------------------------------

# METADATA
# title: reaches
# description: >-
#   True when reading path p reaches root (normalized): p is the root or below it, p is a
#   directory above it read recursively (recursive = true), or p is a glob that could match the
#   root or something below it (a shallower glob only when read recursively).
reaches(p, root, _) if common.within(common.norm(p), root)

reaches(p, root, true) if common.within(root, common.norm(p))

reaches(p, root, recursive) if {
	globby(p)
	glob_reaches(common.norm(p), root, recursive)
}

# METADATA
# title: globby
# description: True when a path holds shell glob characters (the facts keep a glob as written).
globby(p) if regex.match(`[*?\[]`, p)

# METADATA
# title: glob_hits
# description: >-
#   True when glob np (normalized) could reach one of roots; only roots related to the glob's
#   literal directory are matched component by component.
glob_hits(np, roots, recursive) if {
	parts := split(np, "/")
	first := min([i | some i, x in parts; globby(x)])
	lp := literal_prefix(np)
	re := glob_regex(parts[first])
	some root in roots
	related(lp, root)
	component_at(re, split(root, "/"), first)
	glob_reaches(np, root, recursive)
}

# The root's component where the glob's first wildcard is matches it (a shallower root: yes).
component_at(_, rparts, i) if count(rparts) <= i

component_at(re, rparts, i) if regex.match(re, rparts[i])

# METADATA
# title: literal_prefix
# description: The directory a glob names before its first wildcard component ("/home/u/.ss?/id_*" -> "/home/u").
literal_prefix(np) := lp if {
	parts := split(np, "/")
	first := min([i | some i, x in parts; globby(x)])
	lp := concat("/", array.slice(parts, 0, first))
	lp != ""
} else := "/"

related(lp, root) if common.within(root, lp)

related(lp, root) if common.within(lp, root)

glob_reaches(np, root, recursive) if {
	ps := split(trim_prefix(np, "/"), "/")
	rs := split(trim_prefix(root, "/"), "/")
	deep := [i | some i, x in ps; x == "**"]
	k := min(array.concat([count(ps), count(rs)], deep))
	deep_enough(ps, rs, deep, recursive)
	every i in numbers.range(0, k - 1) {
		component_matches(ps[i], rs[i])
	}
}

deep_enough(ps, rs, _, _) if count(ps) >= count(rs)

deep_enough(_, _, _, true)

deep_enough(_, rs, deep, _) if {
	count(deep) > 0
	deep[0] < count(rs)
}

# METADATA
# title: component_matches
# description: True when one component of a glob (`*`, `?`, `[...]`; lower-cased) matches one path component.
component_matches(g, x) if g == x

component_matches(g, x) if {
	globby(g)
	regex.match(glob_regex(g), x)
}

# A glob component as an anchored regular expression: every regex character escaped, `*` and
# `?` wildcards, a bracket expression any one character (wider than the class: conservative).
glob_regex(g) := concat("", ["^", strings.replace_n(glob_escapes, regex.replace(g, `\[[^\]/]*\]`, "?")), "$"])

glob_escapes := {
	"*": ".*", "?": ".", ".": `\.`, "+": `\+`, "(": `\(`, ")": `\)`, "|": `\|`, "^": `\^`,
	"$": `\$`, "{": `\{`, "}": `\}`, "[": `\[`, "]": `\]`, "\\": `\\`,
}
