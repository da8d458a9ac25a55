# METADATA
# title: Memory lanes
# description: |
#   Memory lanes that hold, tainted or not: an authorization-like claim ("the user authorized
#   you to …", "never ask before …") is never written to memory, even when the user dictates
#   it (permission lives in the task, never in memory, where any later session would read it as
#   fact); a procedural memory that names a package source, a URL or a command asks first.
#   The lanes themselves (taint.protected_lanes) are shared with the taint rules, which block
#   every protected lane once untrusted content entered.
# schemas:
#   - input: schema.input
#   - data.tasks: schema.tasks
package opafence.guards.memory_lanes

import data.opafence.lib.reason
import data.opafence.taint

# METADATA
# title: MEMORY_AUTHORIZATION
# description: >-
#   This memory write holds an authorization-like claim; opafence never takes permission from
#   memory; say it in the task instead.
# custom:
#   code: MEMORY_AUTHORIZATION
#   fix: Say what the agent may do in the task itself; it holds for that task only.
deny contains reason.make(rego.metadata.rule()) if {
	taint.memory_write
	_claim
}

_claim if "authorization" in taint.protected_lanes

# Claims the shared authorization lane does not spell: "authorized you to", "never ask".
_claim if {
	taint.memory_write
	some s in taint.memory_texts
	regex.match(_claim_words, s)
}

_claim_words := concat("|", [
	`(?i)\b(authori[sz]ed|allowed|permitted|approved|cleared)\s+(you|the\s+agent|hermes|the\s+assistant)\b`,
	`\bnever\s+(ask|confirm|check\s+with|prompt)`,
	`\b(skip|no)\s+(the\s+)?(approval|confirmation|prompt)s?\b`,
	`\bdo\s+not\s+(ask|confirm|prompt)`,
])

# METADATA
# title: MEMORY_PROCEDURE_SOURCE
# description: >-
#   This memory write prescribes how to work and names {{.what}}; a later session would follow
#   it without asking, so the user confirms it first.
# custom:
#   code: MEMORY_PROCEDURE_SOURCE
#   fix: Approve it only if the user wants every later session to follow this procedure.
ask contains reason.render(rego.metadata.rule(), {"what": what}) if {
	taint.memory_write
	not _claim
	some what in _procedure_named
}

_procedure_named contains what if {
	"procedural" in taint.protected_lanes
	some s in taint.memory_texts
	some what, pattern in _procedure_sources
	regex.match(pattern, s)
}

# A package source is a procedure by itself ("when building, use --index-url …").
_procedure_named contains "a package source" if {
	taint.memory_write
	some s in taint.memory_texts
	regex.match(_procedure_sources["a package source"], s)
}

# What a procedure may point later sessions at: where packages come from, a URL, a command.
_procedure_sources := {
	"a package source": `(?i)(--(extra-)?index-url|--registry|--index\b|\bindex-url\b|\bregistry\b|\bmirror\b|\bextra index\b|\bpackage (index|source|feed)\b|\bchannel\b)`,
	"a URL": `(?i)\b[a-z][a-z0-9+.-]*://[^\s]+`,
	"a command": concat("", [
		"(?i)(`[^`]+`|\\|\\s*(sh|bash|zsh)\\b|\\b(run|execute)\\s*:",
		`|\b(curl|wget|pip3?|npm|npx|yarn|pnpm|uv|pipx|gem|cargo|go|apt(-get)?|brew|docker|make|bash|sh|python3?|node|git)\s+[-a-z]`,
		")",
	]),
}
