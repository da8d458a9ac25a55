# METADATA
# title: Spend caps on model calls
# description: |
#   Decides one model call from the figures Python measured under the spend ledger's lock:
#   today's settled spend, open reservations, the last minute's spend, this call's estimate
#   and the prices of the model and of the configured cheaper model. Money is in integer
#   micro-cents (1 cent = 1,000,000); caps come from data.config.budgets in cents.
#   A hard cap and the per-minute cap block; the soft cap switches to the cheaper model only
#   when it is cheaper per input AND per output token. An unpriced model is never free:
#   with a hard or per-minute cap it blocks unless config.budgets.unpriced is "allow".
# schemas:
#   - input: schema.spend_input
#   - data.config: schema.config
package opafence.budget.spend

import data.opafence.lib.reason
import data.opafence.settings

micro := 1000000

# --- the caps, in micro-cents; an absent or null cap is no cap -----------------------------

soft := data.config.budgets.daily_soft_cents * micro if is_number(data.config.budgets.daily_soft_cents)

hard := data.config.budgets.daily_hard_cents * micro if is_number(data.config.budgets.daily_hard_cents)

per_minute := data.config.budgets.per_minute_cents * micro if is_number(data.config.budgets.per_minute_cents)

# Unpriced calls block where a cap must hold, unless the user chose "allow".
default unpriced_policy := "block"

unpriced_policy := "allow" if data.config.budgets.unpriced == "allow"

strict_cap if hard

strict_cap if per_minute

# --- the figures ---------------------------------------------------------------------------

committed := input.ledger.spent + input.ledger.reserved

# Every figure a cap needs is there; otherwise the default decision (block) stands.
valid_input if {
	is_string(input.model.name)
	is_boolean(input.model.priced)
	is_number(input.estimate)
	input.estimate >= 0
	is_number(input.ledger.spent)
	is_number(input.ledger.reserved)
	is_number(input.ledger.minute)
}

# METADATA
# title: cheaper_is_cheaper
# description: The configured cheaper model costs less per input token and per output token.
cheaper_is_cheaper if {
	input.model.priced
	input.cheaper.priced
	input.cheaper.name == data.config.budgets.cheaper_model
	input.cheaper.name != input.model.name
	input.cheaper.input < input.model.input
	input.cheaper.output < input.model.output
}

over_soft if committed + input.estimate > soft

downgrade if {
	over_soft
	cheaper_is_cheaper
}

# The model the call would use, its pricing state and the amount to reserve for it.
chosen := {"name": input.cheaper.name, "priced": true, "estimate": input.cheaper.estimate} if {
	downgrade
} else := {"name": input.model.name, "priced": input.model.priced, "estimate": input.estimate}

# Dollars with 2 (usd) or 4 (usd_fine) decimals, rounded down; integer arithmetic only, since
# sprintf's %f does not take the integers an exact division yields.
usd(x) := sprintf("$%d.%02d", [floor(x / (100 * micro)), floor(x / micro) % 100])

usd_fine(x) := sprintf("$%d.%04d", [floor(x / (100 * micro)), floor(x / 10000) % 10000])

# --- what blocks ---------------------------------------------------------------------------

# METADATA
# title: SPEND_HARD_CAP
# description: >-
#   Model calls are stopped for today: {{.committed}} is spent or reserved and this call
#   needs about {{.estimate}}, which would pass the daily hard cap of {{.cap}}.
# custom:
#   code: SPEND_HARD_CAP
#   fix: >-
#     Model calls resume at local midnight; to go on today, raise budgets.daily_hard_cents
#     in the opafence config and restart Hermes.
deny contains reason.render(rego.metadata.rule(), vars) if {
	chosen.priced
	committed + chosen.estimate > hard
	vars := {"committed": usd(committed), "estimate": usd_fine(chosen.estimate), "cap": usd(hard)}
}

# METADATA
# title: SPEND_RATE
# description: >-
#   Model calls are spending too fast: {{.minute}} in the last minute plus about
#   {{.estimate}} for this call would pass the per-minute cap of {{.cap}}.
# custom:
#   code: SPEND_RATE
#   fix: >-
#     Wait a minute and ask again; if single calls cost more than the cap, raise
#     budgets.per_minute_cents in the opafence config.
deny contains reason.render(rego.metadata.rule(), vars) if {
	chosen.priced
	input.ledger.minute + chosen.estimate > per_minute
	vars := {"minute": usd_fine(input.ledger.minute), "estimate": usd_fine(chosen.estimate), "cap": usd(per_minute)}
}

# METADATA
# title: SPEND_UNPRICED
# description: >-
#   The model {{.model}} has no price in opafence's price table, so its cost cannot be
#   held under the configured spend caps.
# custom:
#   code: SPEND_UNPRICED
#   fix: >-
#     Add the model's price to budgets.prices (USD per million input and output tokens), or
#     set budgets.unpriced to allow to let unpriced calls through (they are recorded as unpriced).
deny contains reason.render(rego.metadata.rule(), {"model": chosen.name}) if {
	not chosen.priced
	unpriced_policy == "block"
	strict_cap
}

# --- what only informs ---------------------------------------------------------------------

# METADATA
# title: SPEND_SOFT_CAP_DOWNGRADE
# description: >-
#   Today's spend passed the soft cap of {{.cap}}, so this call uses {{.cheaper}}
#   instead of {{.model}}.
# custom:
#   code: SPEND_SOFT_CAP
#   fix: Raise budgets.daily_soft_cents to keep the usual model for the rest of the day.
notes contains reason.render(rego.metadata.rule(), vars) if {
	downgrade
	vars := {"cap": usd(soft), "cheaper": input.cheaper.name, "model": input.model.name}
}

# METADATA
# title: SPEND_SOFT_CAP_KEPT
# description: >-
#   Today's spend passed the soft cap of {{.cap}}; no configured model is cheaper per input
#   and output token than {{.model}}, so it is kept.
# custom:
#   code: SPEND_SOFT_CAP
#   fix: Set budgets.cheaper_model to a priced model that is cheaper per input and output token.
notes contains reason.render(rego.metadata.rule(), vars) if {
	over_soft
	not downgrade
	input.model.name != data.config.budgets.cheaper_model
	vars := {"cap": usd(soft), "model": input.model.name}
}

# METADATA
# title: SPEND_SOFT_CAP_IN_USE
# description: Today's spend passed the soft cap of {{.cap}}; this call already uses the cheaper model {{.model}}.
# custom:
#   code: SPEND_SOFT_CAP
#   fix: Raise budgets.daily_soft_cents to go back to the usual model for the rest of the day.
notes contains reason.render(rego.metadata.rule(), vars) if {
	over_soft
	input.model.name == data.config.budgets.cheaper_model
	vars := {"cap": usd(soft), "model": input.model.name}
}

# --- the decision --------------------------------------------------------------------------

enforce_verdict := "block" if count(deny) > 0

else := "allow"

enforce_reasons := [r | some r in deny] if count(deny) > 0

else := [r | some r in notes]

# METADATA
# title: decision
# description: >-
#   allow or block, the model to call (the cheaper one after a soft-cap downgrade), the
#   amount to reserve, the reasons, and in monitor mode what enforce would have done.
# entrypoint: true
default decision := {
	"verdict": "block",
	"model": "",
	"downgraded": false,
	"charge": 0,
	"reasons": [{
		"code": "SPEND_BAD_INPUT",
		"message": "opafence could not read the figures of this model call, so it is blocked.",
		"fix": "Report this with the opafence log.",
	}],
	"monitor": null,
}

decision := {
	"verdict": enforce_verdict,
	"model": chosen.name,
	"downgraded": downgrade_applied,
	"charge": chosen.estimate,
	"reasons": enforce_reasons,
	"monitor": null,
} if {
	valid_input
	settings.mode != "monitor"
}

# Monitor mode records what enforce would do and changes nothing: same model, always allowed.
decision := {
	"verdict": "allow",
	"model": input.model.name,
	"downgraded": false,
	"charge": input.estimate,
	"reasons": [],
	"monitor": {"would": enforce_verdict, "reasons": enforce_reasons},
} if {
	valid_input
	settings.mode == "monitor"
}

default downgrade_applied := false

downgrade_applied if downgrade
