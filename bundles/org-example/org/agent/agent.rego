# METADATA
# title: ACME rules for AI agents
# description: |
#   The entry point opafence reads: data.org.agent.deny and data.org.agent.ask, sets of
#   {"code", "message"}. A deny blocks the call, an ask makes the user approve it; neither can
#   ever allow something opafence would not. Each rule lives in its own package under
#   org.acme.rules (one folder per rule, its test beside it) and is collected here.
package org.agent

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
