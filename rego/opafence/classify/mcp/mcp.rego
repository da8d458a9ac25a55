# METADATA
# title: MCP tool classification
# description: |
#   mcp__<server>__<tool> by the words of its name (facts.tool.mcp.words): every verb counts and
#   the riskiest wins; a name with no known verb is UNKNOWN. An MCP call always leaves the
#   process for the server, so it counts as egress.
# schemas:
#   - input: schema.input
package opafence.classify.mcp

import data.opafence.classify.verbs
import data.opafence.lib.action

# METADATA
# title: is_mcp
# description: True when the tool is an MCP tool.
is_mcp if startswith(input.call.tool, "mcp__")

# METADATA
# title: words
# description: The lower-case words of the tool's name (the facts', else split here on _ . -).
words := [lower(w) | some w in input.facts.tool.mcp.words] if {
	count(input.facts.tool.mcp.words) > 0
} else := [w |
	parts := split(input.call.tool, "__")
	name := concat("__", array.slice(parts, 2, count(parts)))
	some w in regex.split(`[_.\-]+`, lower(name))
	w != ""
]

# METADATA
# title: actions
# description: One action per class the name's verbs give, with the targets the facts found.
actions contains action.make(c, object.union(data.opafence.classify.fact_targets(c), {"egress": true})) if {
	is_mcp
	some c in verbs.classes(words)
}
