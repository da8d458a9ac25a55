# METADATA
# title: ACME rules for AI agents
# description: |
#   The entry point opafence reads for this bundle: data.org.agent.acme.deny and
#   data.org.agent.acme.ask, sets of {"code", "message"}. A deny blocks the call, an ask makes
#   the user approve it; neither can ever allow something opafence would not. The bundle owns
#   the root org/agent/acme (not all of org/agent), so other bundles (a team's, a
#   department's) can add their own org/agent/<name> beside it. Each rule lives in its own
#   package under org.acme.rules (one folder per rule, its test beside it) and is collected here.
package org.agent.acme

# METADATA
# title: deny
# description: Every ACME rule's deny reasons.
deny contains r if {
	some name
	some r in data.org.acme.rules[name].deny
}

# METADATA
# title: ask
# description: Every ACME rule's ask reasons.
ask contains r if {
	some name
	some r in data.org.acme.rules[name].ask
}
