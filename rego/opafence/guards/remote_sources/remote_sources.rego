# METADATA
# title: Remote package sources
# description: |
#   Code from places nobody vetted: package installs from URLs, VCS links or extra indexes
#   (pip, uv, poetry, npm, yarn, pnpm, bun, gem, cargo, brew, npx), new system package
#   repositories, and downloads piped or handed straight to a shell or interpreter
#   (`curl … | sh`, `bash <(curl …)`, `sh -c "$(wget -O- …)"`). Each blocks, unless the user's
#   own words named exactly that command; then it asks.
# schemas:
#   - input: schema.input
#   - data.tasks: schema.tasks
package opafence.guards.remote_sources

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

remote(s) if regex.match(`(?i)^(git\+|hg\+|svn\+|bzr\+)?[a-z][a-z0-9+.-]*://`, s)

remote(s) if regex.match(`(?i)\s@\s*(git\+)?[a-z]+://`, s)

remote(s) if regex.match(`(?i)^(github|gitlab|bitbucket|gist|git):`, s)

remote(s) if regex.match(`^git@[^:]+:`, s)

# --- installs -------------------------------------------------------------------------------------

index_flags := {
	"-i", "--index-url", "--extra-index-url", "--trusted-host", "--index", "--default-index",
	"--registry", "--source", "-s", "--git", "--find-links", "-f",
}

# The command and the arguments of an install, for every package manager that installs.
installs contains [c, xs] if {
	some c in common.commands
	xs := common.pip_args(c)
	common.subcommand(xs) in {"install", "download", "wheel", "add", "sync", "run"}
}

installs contains [c, common.args(c)] if {
	some c in common.commands
	common.cmd_name(c) in {"npm", "pnpm", "yarn", "bun", "gem", "cargo", "brew", "composer"}
	common.subcommand(common.args(c)) in {"install", "i", "add", "ci", "require", "global", "tap"}
}

installs contains [c, common.args(c)] if {
	some c in common.commands
	common.cmd_name(c) in {"npx", "pnpx", "bunx", "uvx", "pipx"}
}

# METADATA
# title: REMOTE_PACKAGE
# description: "`{{.command}}` installs code from {{.source}}, not from the default package index."
# custom:
#   code: REMOTE_PACKAGE_SOURCE
#   fix: Install the package by name from the default index; the user adds other sources themselves.
findings contains {
	"reason": reason.render(rego.metadata.rule(), {"command": line(c), "source": s}),
	"soft": common.soft_command(c, {t}),
} if {
	some [c, xs] in installs
	some [s, t] in install_sources(c, xs)
}

install_sources(c, xs) := ((({[x, x] |
	some i, x in xs
	remote(x)
	not index_value_at(xs, i)
} | {[sprintf("%s %s", [f, v]), f] |
	some f in index_flags
	f in xs
	some v in common.values(c, f)
	index_value(f, v)
}) | {[x, x] |
	some x in xs
	some f in index_flags
	startswith(x, concat("", [f, "="]))
	index_value(f, substring(x, count(f) + 1, -1))
}) | {[x, x] |
	common.cmd_name(c) in {"npm", "pnpm", "yarn", "bun"}
	some x in array.slice(xs, 1, count(xs))
	github_shorthand(x)
}) | {[x, x] |
	common.cmd_name(c) in {"npx", "pnpx", "bunx"}
	x := [a | some a in xs; not startswith(a, "-")][0]
	github_shorthand(x)
}

# xs[i] is the value of an index option (reported once, with its option).
index_value_at(xs, i) if {
	i > 0
	xs[i - 1] in index_flags
}

# -f / -s mean other things to other tools: only a URL value is a source there.
index_value(f, v) if {
	f in {"-f", "-s", "--find-links", "--source"}
	remote(v)
}

index_value(f, _) if not f in {"-f", "-s", "--find-links", "--source"}

# `npm install user/repo` installs from GitHub.
github_shorthand(x) if {
	regex.match(`^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9_.-]+(#.*)?$`, x)
	not startswith(x, "@")
}

# Environment variables and config that switch the index for every install.
index_env := concat("", [
	`^(pip_index_url|pip_extra_index_url|pip_find_links|pip_trusted_host|uv_index_url|uv_extra_index_url`,
	`|uv_index|uv_default_index|npm_config_registry|yarn_registry|bundle_mirror__.*|cargo_registries_.*)$`,
])

# METADATA
# title: PACKAGE_SOURCE_CONFIG
# description: "`{{.command}}` changes where packages come from ({{.what}})."
# custom:
#   code: REMOTE_PACKAGE_SOURCE
#   fix: Keep the default package index; the user adds other sources themselves.
findings contains {
	"reason": reason.render(rego.metadata.rule(), {"command": line(c), "what": w}),
	"soft": common.soft_command(c, {lower(w)}),
} if {
	some c in common.commands
	some w in source_config(c)
}

source_config(c) := ((({upper(k) |
	some k, _ in c.env
	regex.match(index_env, lower(k))
} | {k |
	common.cmd_name(c) in {"export", "setenv"}
	some o in common.args(c)
	k := split(o, "=")[0]
	regex.match(index_env, lower(k))
}) | {k |
	common.cmd_name(c) in {"pip", "pip3", "npm", "yarn", "pnpm", "uv", "poetry"}
	some x in common.args(c)
	lower(x) in {"config", "source"}
	some k in common.args(c)
	regex.match(`(?i)(index-url|extra-index-url|trusted-host|find-links|registry|^add$)`, k)
}) | {c.name |
	common.cmd_name(c) in {"add-apt-repository", "apt-add-repository", "zypper-ar"}
}) | {"sources -a" |
	common.cmd_name(c) == "gem"
	"sources" in common.args(c)
	some f in {"-a", "--add"}
	f in common.args(c)
}

# METADATA
# title: PACKAGE_SOURCE_FILE
# description: This would add a package repository by writing {{.path}}.
# custom:
#   code: REMOTE_PACKAGE_SOURCE
#   fix: The user adds package repositories themselves.
findings contains {
	"reason": reason.render(rego.metadata.rule(), {"path": t.path}),
	"soft": common.soft_path(t.path),
} if {
	some t in common.changes
	t.kind in {"write", "move"}
	common.in_table(common.norm(t.path), source_files)
}

source_files := {
	"/etc/apt/sources.list", "/etc/apt/sources.list.d", "/etc/yum.repos.d", "/etc/zypp/repos.d",
	"/etc/pacman.conf", "/etc/apk/repositories", "/etc/pip.conf",
}

# --- downloads run as code --------------------------------------------------------------------------

downloaders := {
	"curl", "wget", "fetch", "http", "https", "xh", "aria2c", "iwr", "invoke-webrequest",
	"lwp-request", "gh",
}

interpreters := {
	"sh", "bash", "zsh", "dash", "ksh", "fish", "ash", "python", "python2", "python3", "perl",
	"ruby", "node", "php", "pwsh", "powershell", "deno", "bun", "lua", "tclsh", "source", ".",
	"eval", "iex", "invoke-expression",
}

interpreter(c) if common.cmd_name(c) in interpreters

downloader(c) if common.cmd_name(c) in downloaders

# Reads its program from stdin: no script operand (or "-"), no -c / -e / -m program of its own.
reads_program_from_stdin(c) if {
	count([o | some o in c.operands; o != "-"]) == 0
	not inline_program(c)
}

reads_program_from_stdin(c) if {
	some f in {"-s", "--stdin"}
	common.has_flag(c, f)
	common.cmd_name(c) in {"sh", "bash", "zsh", "dash", "ksh"}
}

inline_program(c) if {
	some f in {"-c", "-e", "-m", "--eval", "-E", "-r"}
	common.has_flag(c, f)
}

# METADATA
# title: PIPE_TO_SHELL
# description: "`{{.command}}` runs code downloaded from the network without anyone reading it first."
# custom:
#   code: PIPE_TO_SHELL
#   fix: Download the script to a file, show it to the user, and install from a package manager instead.
findings contains {"reason": reason.render(rego.metadata.rule(), {"command": line(c)}), "soft": soft_pipe(c)} if {
	some c in common.commands
	interpreter(c)
	runs_download(c)
}

# `curl … | sh`, `wget -O- … | sudo bash`, `curl … | tee x | sh`.
runs_download(c) if {
	c.pipe_from != ""
	reads_program_from_stdin(c)
	some d in common.commands
	downloader(d)
}

# `curl … | xargs sh -c`, `wget -qO- … | xargs -I{} python3 -c '{}'`: the download becomes the
# program (or part of it) through xargs' arguments.
runs_download(c) if {
	c.pipe_from != ""
	"xargs" in c.wrappers
	xargs_program(c)
	some d in common.commands
	downloader(d)
}

xargs_program(c) if inline_program(c)

xargs_program(c) if count([o | some o in c.operands; o != "-"]) == 0

# `bash <(curl …)`, `sh -c "$(curl …)"`, `eval "$(wget -qO- …)"`, `python -c "$(curl …)"`.
runs_download(c) if {
	some d in common.commands
	downloader(d)
	d.context in {"process_substitution", "command_substitution"}
	count(c.argv) > 0
}

# `curl -o x.sh URL && bash x.sh`, `curl URL > x.sh; sh x.sh`, `wget URL; sh install.sh`.
runs_download(c) if {
	some i, _ in c.operands
	p := common.operand_path(c, i)
	p in downloaded_files
}

downloaded_files contains common.norm(p) if {
	some d in common.commands
	downloader(d)
	some t in common.cmd_changes(d)
	p := t.path
}

downloaded_files contains common.norm(r.path) if {
	some d in common.commands
	downloader(d)
	some r in d.redirects
	r.mode in {"write", "append"}
}

# wget URL and curl -O URL save under the URL's last path segment, in the cwd.
downloaded_files contains common.norm(concat("/", [input.host.cwd, name])) if {
	some d in common.commands
	downloader(d)
	some a in common.args(d)
	regex.match(`^[a-z]+://`, lower(a))
	name := regex.replace(a, `^.*/([^/?#]*)([?#].*)?$`, "$1")
	name != ""
}

# The user's own words held this very pipeline: a granted command that contains the
# download and the interpreter.
default soft_pipe(_) := false

soft_pipe(c) if {
	some d in common.commands
	downloader(d)
	some g in common.granted_commands
	contains(g, common.line(d))
	contains(g, common.cmd_name(c))
}
