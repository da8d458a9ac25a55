# METADATA
# title: opafence decision
# description: |
#   The one entrypoint the bridge queries: collects reasons from every concern (task policy,
#   always-on guards, taint, budgets, configuration, organization rules) and turns them into
#   allow / ask / block. Allow needs a positive proof; block beats ask beats allow; a reason
#   from any source only makes the verdict stricter.
# schemas:
#   - input: schema.input
#   - data.config: schema.config
package opafence

import data.opafence.bundles
import data.opafence.classify
import data.opafence.config_check
import data.opafence.fast
import data.opafence.lib.reason
import data.opafence.settings
import data.opafence.task

# METADATA
# title: decision
# description: |
#   The verdict, the reasons that produced it, the call's risk classes, the monitor record,
#   the grants that cover the call (so the bridge can count per-grant max_calls), and the
#   kinds of untrusted content the call brings in once it has run (the session records them).
#   The fast tier answers the common calls it can decide exactly as the full policy would
#   (tests/opa/test_fast_equivalence.py); the full policy decides everything else.
# entrypoint: true
decision := d if {
	d := fast.decision
} else := full_decision

# METADATA
# title: full_decision
# description: The full policy's decision, whatever the fast tier says (the authority).
# entrypoint: true
full_decision := {
	"verdict": verdict,
	"reasons": reasons,
	"classes": classes,
	"monitor": monitor,
	"grants": grants_used,
	"ingests": ingests,
}

# A blocked call uses no grant.
grants_used := [] if verdict == "block"

else := sort([id | some id in task.covering])

classes := sort([c | some c in classify.classes])

ingests := sort([k | some k in data.opafence.taint.ingests])

# --- reasons from every source, each tagged with where it came from --------------------

source_deny := {
	"task": task.deny,
	"guard": {r | some name; some r in data.opafence.guards[name].deny},
	"taint": ({r | some r in data.opafence.taint.deny} | {r | some r in data.opafence.provenance.deny}),
	"budget": ({r | some r in data.opafence.budget.tool.deny} | {r | some r in data.opafence.budget.delegation.deny}),
	"config": config_check.deny,
	"org": (org_reasons("deny") | bundles.deny),
}

source_ask := {
	"task": task.ask,
	"guard": {r | some name; some r in data.opafence.guards[name].ask},
	"taint": ({r | some r in data.opafence.taint.ask} | {r | some r in data.opafence.provenance.ask}),
	"budget": ({r | some r in data.opafence.budget.tool.ask} | {r | some r in data.opafence.budget.delegation.ask}),
	"org": org_reasons("ask"),
}

tagged(sources) := {object.union(r, {"source": src}) |
	some src, rs in sources
	some r in rs
}

deny_reasons := tagged(source_deny) | bad_org_reasons

ask_reasons := tagged(source_ask)

# Org bundles may only add {"code", "message"} reasons; anything else is a malformed bundle,
# which blocks rather than being ignored.
org_reasons(kind) := {{"code": r.code, "message": r.message} |
	some r in org_members(kind)
	reason.valid(r)
}

# METADATA
# title: org_collections
# description: |
#   Where org bundles put their reasons of one kind ("deny" or "ask"): data.org.agent[kind]
#   (a bundle that owns org/agent), and data.org.agent[name][kind] for every package directly
#   under org.agent (each bundle with its own root org/agent/<name>; OPA refuses overlapping
#   roots, so that is how several bundles contribute at once).
org_collections(kind) := array.concat(
	[c | c := data.org.agent[kind]],
	[c | some name, pkg in data.org.agent; not name in org_kinds; c := pkg[kind]],
)

org_kinds := {"deny", "ask"}

org_members(kind) := [r | some c in org_collections(kind); collection(c); some r in c]

collection(c) if is_set(c)

collection(c) if is_array(c)

# METADATA
# title: ORG_BAD_REASON
# description: An organization rule produced a malformed reason, so the call is blocked to be safe.
# custom:
#   code: ORG_BAD_REASON
#   fix: Fix the organization bundle so that deny and ask hold objects with a code and a message.
bad_org_reasons contains object.union(reason.make(rego.metadata.rule()), {"source": "org"}) if org_malformed

org_malformed if {
	some kind in org_kinds
	some r in org_members(kind)
	not reason.valid(r)
}

# A deny or ask that is not a set of reasons at all (`deny := true`, a string, one object).
org_malformed if {
	some kind in org_kinds
	some c in org_collections(kind)
	not collection(c)
}

# data.org.agent itself must be a package (an object), or its rules could not be read.
org_malformed if {
	agent := data.org.agent
	not is_object(agent)
}

# --- the enforce verdict -------------------------------------------------------------------

# Allow needs proof: every class of the call is a read or authorized by the task.
allow_proven if {
	count(classes) > 0
	every c in classes {
		c in task.authorized
	}
}

default enforce_verdict := "block"

enforce_verdict := "block" if count(deny_reasons) > 0

else := "ask" if count(ask_reasons) > 0

else := "allow" if allow_proven

# METADATA
# title: NOT_PROVEN
# description: Nothing proves this call is allowed, so it is blocked.
# custom:
#   code: NOT_PROVEN
#   fix: Map the tool in config.tools or ask the user to grant the action explicitly.
not_proven_reason := object.union(reason.make(rego.metadata.rule()), {"source": "task"})

enforce_reasons := sorted(deny_reasons) if count(deny_reasons) > 0

else := sorted(ask_reasons) if count(ask_reasons) > 0

else := [] if allow_proven

else := [not_proven_reason]

sorted(rs) := [r | some r in rs]

# --- nobody to answer an ask ----------------------------------------------------------------

# Only an explicit false means somebody can answer; anything else is unattended.
attended if input.host.auto_approve == false

unattended if not attended

# METADATA
# title: NOBODY_TO_ASK
# description: >-
#   This action needs the user's approval, but nobody can answer here (auto-approve, yolo,
#   cron or batch), so it is blocked.
# custom:
#   code: NOBODY_TO_ASK
#   fix: Run the task interactively, or grant the action in the task's own words.
nobody_to_ask := object.union(reason.make(rego.metadata.rule()), {"source": "task"})

# Once untrusted content entered, an ask blocks where nobody can answer whatever
# unattended_ask says: the injected text may be what made the agent ask.
unanswered_ask_blocks if settings.unattended_ask != "allow"

unanswered_ask_blocks if data.opafence.taint.tainted

final_verdict := "block" if {
	enforce_verdict == "ask"
	unattended
	unanswered_ask_blocks
} else := enforce_verdict

final_reasons := array.concat([nobody_to_ask], enforce_reasons) if {
	enforce_verdict == "ask"
	final_verdict == "block"
} else := enforce_reasons

# --- monitor mode: allow, but record what enforce would have done ---------------------------

# Reasons marked "always" (self-protection, configuration errors) block in every mode.
always_reasons := [r | some r in final_reasons; r.always == true]

default verdict := "block"

verdict := final_verdict if settings.mode != "monitor"

verdict := "block" if {
	settings.mode == "monitor"
	count(always_reasons) > 0
}

verdict := "allow" if {
	settings.mode == "monitor"
	count(always_reasons) == 0
}

reasons := always_reasons if {
	settings.mode == "monitor"
} else := final_reasons

monitor := {"would": final_verdict, "reasons": final_reasons} if {
	settings.mode == "monitor"
} else := null
