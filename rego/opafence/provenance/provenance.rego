# METADATA
# title: Provenance of targets
# description: |
#   A prompt injection has to name where to send, pay, post or write, so the injected
#   recipient, account, URL, handle or path first appears in untrusted content and not in the
#   user's words. Python records the target-like values of untrusted content per task and
#   sends, for each call, only its own targets with where they came from
#   (input.facts.provenance). A target that came in through untrusted content, is not in the
#   owner's words and was not delegated to that source blocks (PROVENANCE_UNTRUSTED, on every
#   call, whatever a grant or override says); one the owner delegated to its source asks,
#   showing it. When the record of values is incomplete (lossy) in a tainted session, every
#   target not in the owner's words counts as untrusted. A plain read stays a read: only the
#   destinations of sends, writes, payments, shares and commands are judged.
# schemas:
#   - input: schema.input
#   - data.tasks: schema.tasks
package opafence.provenance

import data.opafence.classify
import data.opafence.lib.paths
import data.opafence.lib.reason
import data.opafence.taint
import data.opafence.task

default record := {"lossy": false, "targets": []}

record := input.facts.provenance

lossy if {
	record.lossy == true
	taint.tainted
}

delegations := object.get(task.policy, "delegations", [])

# Classes whose targets are where data or money goes (UNKNOWN could be any of them).
reach_classes := {"COMMUNICATION", "EXTERNAL_WRITE", "FINANCIAL", "PERMISSION_CHANGE", "UNKNOWN"}

write_classes := {"LOCAL_WRITE", "DELETE", "PERMISSION_CHANGE"}

reach_kinds := {"email", "handle", "number", "iban", "domain", "host"}

reaches if {
	some c in classify.classes
	c in reach_classes
}

# METADATA
# title: judged
# description: A target of this call that is a destination (a plain read's URL is not).
judged(t) if {
	t.kind in reach_kinds
	reaches
}

judged(t) if {
	t.kind == "path"
	some a in classify.actions
	a.class in write_classes
	t.value in a.paths
	not paths.under_any(t.value, classify.workspace)
}

judged(t) if {
	t.kind in {"command", "package"}
	"EXECUTION" in classify.classes
	not "EXECUTION" in task.authorized
}

untrusted(t) if t.untrusted == true

untrusted(t) if {
	lossy
	not t.untrusted
}

source(t) := object.get(t, "source", {"tool": "", "call": 0, "labels": [], "path": ""})

delegated_by(t) := {d |
	some d in delegations
	kind_ok(d, t)
	source_ok(d, source(t))
	path_ok(d, source(t))
}

kind_ok(d, _) if count(d.targets) == 0

kind_ok(d, t) if t.kind in d.targets

source_ok(d, _) if "any" in d.sources

source_ok(d, s) if {
	some l in object.get(s, "labels", [])
	l in d.sources
}

path_ok(d, _) if object.get(d, "path", "") == ""

path_ok(d, s) if lower(object.get(d, "path", "")) == lower(object.get(s, "path", ""))

# METADATA
# title: injected
# description: Targets of this call that came in through untrusted content, are not the owner's and were not delegated.
injected contains t if {
	some t in record.targets
	judged(t)
	untrusted(t)
	not t.user
	count(delegated_by(t)) == 0
}

delegated contains [t, d] if {
	some t in record.targets
	judged(t)
	untrusted(t)
	not t.user
	some d in delegated_by(t)
}

named_source(d) := sprintf("%s (%s)", [d.path, concat(", ", d.sources)]) if {
	object.get(d, "path", "") != ""
} else := concat(", ", d.sources)

origin(t) := sprintf("the text attached to your message %d", [object.get(source(t), "message", 0)]) if {
	source(t).tool == "attached context"
} else := sprintf("the result of %s, call %d", [source(t).tool, source(t).call]) if {
	t.untrusted == true
} else := sprintf("a session whose record of untrusted values is incomplete (%s)", [object.get(record, "why", "")])

# METADATA
# title: PROVENANCE_UNTRUSTED
# description: >-
#   {{.value}} first appeared in {{.origin}}, not in your words, so this call may not send,
#   pay, post or write there; it is not offered for approval.
# custom:
#   code: PROVENANCE_UNTRUSTED
#   fix: >-
#     Content the agent read chose this target, which is how prompt injections work. If it is
#     right, name {{.value}} yourself in a new message, or say where the target is to be found
#     ("her address is in her email").
deny contains reason.render(rego.metadata.rule(), {"value": t.value, "origin": origin(t)}) if {
	some t in injected
}

# METADATA
# title: PROVENANCE_DELEGATED
# description: >-
#   You left this target to {{.sources}}: this call goes to {{.value}}, which came from
#   {{.origin}}.
# custom:
#   code: PROVENANCE_DELEGATED
#   fix: Approve it if {{.value}} is the target you meant.
ask contains reason.render(rego.metadata.rule(), {"value": t.value, "origin": origin(t), "sources": named_source(d)}) if {
	some [t, d] in delegated
}
