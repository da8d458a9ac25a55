# What a call brings into the session: the kinds of untrusted content its result holds once it
# has run. The tools of data.yaml (web pages, search results, chat messages, shared boards, past
# sessions), every MCP result, files read from outside the workspace, and commands or code that
# fetch from a host off this machine (curl, wget, git clone / pull / fetch, package downloads,
# gh api, requests in code). The decision reports them (`ingests`); the session records them
# after the call ran, and they taint the rest of the session.
package opafence.taint

import data.opafence.classify
import data.opafence.classify.shell
import data.opafence.guards.common

# METADATA
# title: ingests
# description: The sources of untrusted content this call's result holds (web, search, mcp, network, outside_file, ...).
ingests contains kind if {
	kind := data.opafence.taint.untrusted_tools[input.call.tool]
	"READ" in classify.classes
}

ingests contains "mcp" if startswith(input.call.tool, "mcp__")

# An image or video from the web can hold instructions as text.
ingests contains "web" if {
	input.call.tool in {"vision_analyze", "video_analyze"}
	some u in input.facts.urls
	not u.loopback == true
}

# What may reach the network (classify.egress: a fetch, a send, or something not understood).
ingests contains "network" if {
	data.opafence.taint.network_tools[input.call.tool]
	may_fetch
	classify.egress
	not local_only
}

ingests contains "outside_file" if {
	names_files
	some p in content_reads
	not in_workspace(p)
	not shell.null_path(p)
}

# The files whose contents the call shows: what it reads, less the first operand of a command
# that takes a pattern or program there (`grep /api/ x`, `awk '/^a/' x`) and the names `find`
# lists.
content_reads := {r.path | some r in common.reads; r.how != "find"} - pattern_operands

pattern_cmds := {
	"grep", "egrep", "fgrep", "zgrep", "rg", "ag", "ack", "jq", "yq", "sed", "gsed", "awk", "gawk",
	"mawk", "nawk",
}

pattern_operands contains p if {
	some c in common.commands
	common.cmd_name(c) in pattern_cmds
	count(c.operands) > 0
	some p in ({common.operand_path(c, 0)} | common.shifted(c.operands[0]))
}

# The call names paths or runs commands (else it reads no file; most calls need no more look).
names_files if count(input.facts.paths) > 0

names_files if count(common.commands) > 0

# Something of the call may reach the network: a shell command that is not a plain read
# (ls, cat and grep never do; their actions need not be built), or code.
may_fetch if {
	some cmd in shell.commands
	not shell.plain_read(cmd)
}

may_fetch if input.facts.code

may_fetch if shell.opaque

# Every place the call talks to is on this machine (and it names at least one).
local_only if {
	count(input.facts.urls) > 0
	every u in input.facts.urls {
		u.loopback == true
	}
}
