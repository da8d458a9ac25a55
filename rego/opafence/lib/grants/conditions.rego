# Grant coverage, a grant's conditions on the call's arguments (grants.rego's covers takes them):
# the amounts, days and references a conditional or a refund named, operations on named objects
# (classify/ops), and an approval that only a grant asking to approve covers.
package opafence.lib.grants

# --- the bounds of a conditional's condition ------------------------------------------------------

# Argument names that carry the amount of a payment (`amount`, `total`, `amount.value`, `*_amount`).
amount_keys := {"amount", "value", "total", "price", "sum", "amount_value", "amount_total"}

# Servers whose amounts are integers in the currency's minor unit (Stripe's cents).
minor_unit_servers := {"stripe", "square", "adyen"}

# METADATA
# title: amount_ok
# description: |
#   A grant with max_amount ("if it is under $200, pay it") covers a call only when every amount
#   its arguments carry is a number no larger (minor units of a server that counts them divided);
#   an amount that is not a number is not covered. A call that carries no amount is not bounded by
#   it (a payment asks anyway, FINANCIAL_CONFIRM).
amount_ok(g, _) if not is_number(g.max_amount)

amount_ok(g, ctx) if {
	is_number(g.max_amount)
	values := amount_values(ctx)
	every v in values {
		major_amount(v, ctx) <= g.max_amount
	}
}

amount_values(ctx) := [v |
	walk(object.get(ctx, "args", {}), [path, v])
	count(path) > 0
	is_string(path[count(path) - 1])
	amount_key(lower(path[count(path) - 1]))
	not is_object(v)
	not is_array(v)
]

amount_key(k) if k in amount_keys

amount_key(k) if endswith(k, "_amount")

major_amount(v, ctx) := v / 100 if {
	is_number(v)
	minor_units(ctx)
	v == floor(v)
} else := v if {
	is_number(v)
} else := to_number(regex.replace(trim_space(v), `^[$€£¥]\s*|,`, "")) if {
	is_string(v)
	regex.match(`^[$€£¥]?\s*[0-9][0-9,]*(\.[0-9]+)?$`, trim_space(v))
}

minor_units(ctx) if {
	parts := split(ctx.tool, "__")
	count(parts) > 2
	parts[1] in minor_unit_servers
}

# METADATA
# title: days_ok
# description: |
#   A grant with days ("if I'm free Thursday afternoon, block 2-4pm") covers a call only when it
#   carries a date (an argument starting YYYY-MM-DD) and every date it carries falls on one of them.
days_ok(g, _) if count(g.days) == 0

days_ok(g, ctx) if {
	count(g.days) > 0
	dates := {substring(v, 0, 10) |
		walk(object.get(ctx, "args", {}), [_, v])
		is_string(v)
		regex.match(`^[0-9]{4}-[0-9]{2}-[0-9]{2}`, v)
	}
	count(dates) > 0
	allowed := {lower(d) | some d in g.days}
	every d in dates {
		lower(time.weekday(time.parse_ns("2006-01-02", d))) in allowed
	}
}

# --- a refund of what the owner named -------------------------------------------------------------

# Arguments that name the charge, payment or order a refund acts on.
ref_keys := {
	"charge", "charge_id", "payment", "payment_id", "payment_intent", "payment_intent_id", "transaction",
	"transaction_id", "capture", "capture_id", "invoice", "invoice_id", "order", "order_id", "sale_id",
	"issue_number", "pull_number", "pr_number", "pull_request_number", "issue_id", "issue_key", "iid",
	"merge_request_iid", "ticket_id",
}

# METADATA
# title: refs_ok
# description: |
#   A grant with refs ("refund charge ch_3Nq8", "close issue 77") covers a call only when one of
#   its arguments holds one of them (as a whole word) and every charge, payment, order, issue or
#   pull request argument it carries holds one.
refs_ok(g, _) if count(g.refs) == 0

# An operate grant's refs are the objects it names: operate_ok compares them with the call's.
refs_ok(g, _) if g.capability == "operate"

refs_ok(g, ctx) if {
	count(g.refs) > 0
	g.capability != "operate"
	refs := {lower(r) | some r in g.refs}
	args := object.get(ctx, "args", {})
	some v in [x | walk(args, [_, x]); not is_object(x); not is_array(x)]
	ref_held(v, refs)
	every x in [y | walk(args, [p, y]); count(p) > 0; is_string(p[count(p) - 1]); lower(p[count(p) - 1]) in ref_keys] {
		ref_held(x, refs)
	}
}

ref_held(v, refs) if {
	is_string(v)
	some r in refs
	regex.match(concat("", [`(^|[^a-z0-9])`, r, `($|[^a-z0-9])`]), lower(v))
}

ref_held(v, refs) if {
	is_number(v)
	format_int(v, 10) in refs
}

# --- operations on a named object -------------------------------------------------------------------

# METADATA
# title: operate_ok
# description: |
#   An operate grant ("restart the api deployment in staging", "scale worker to 5") covers an
#   action only when the classifier read it as an operation (classify/ops) of a kind the grant
#   names (`operations`), on a kind of object the words allow (`objects`, when they name one), on
#   exactly the objects named (`refs`; none named: only a call that names none, a whole compose
#   project), in the scopes named (`scopes`: a call must name one of them, and names none when
#   the words name none) and with counts the owner said (`words`).
operate_ok(g, _) if g.capability != "operate"

operate_ok(g, a) if {
	g.capability == "operate"
	op := a.operate
	op.operation in {lower(o) | some o in g.operations}
	operate_kind_ok(g, op.kind)
	operate_set_ok(g.refs, op.names)
	operate_set_ok(g.scopes, op.scopes)
	said := {lower(w) | some w in g.words}
	every c in op.counts {
		c in said
	}
}

operate_kind_ok(g, _) if count(g.objects) == 0

operate_kind_ok(g, kind) if {
	some k in object.get(data.opafence.classify.ops.kind_words, kind, [kind])
	k in {lower(o) | some o in g.objects}
}

# Named: the call names some and only those; not named: the call names none.
operate_set_ok(granted, got) if {
	count(granted) == 0
	count(got) == 0
}

operate_set_ok(granted, got) if {
	count(granted) > 0
	count(got) > 0
	allowed := {lower(x) | some x in granted}
	every x in got {
		x in allowed
	}
}

# --- an approval is not a review ---------------------------------------------------------------------

# Arguments of a review tool that say what the review does (GitHub's event, GitLab's action).
review_event_keys := {"event", "review_event", "action", "state", "verdict"}

# METADATA
# title: approval_ok
# description: |
#   "Leave a review requesting changes" does not approve: an MCP call whose review argument
#   approves (event APPROVE) is covered only by a grant whose words asked to approve.
approval_ok(_, ctx) if not approves(ctx)

approval_ok(g, ctx) if {
	approves(ctx)
	"approve" in g.operations
}

approves(ctx) if {
	mcp_tool(ctx)
	some k, v in object.get(ctx, "args", {})
	lower(k) in review_event_keys
	is_string(v)
	upper(trim_space(v)) in {"APPROVE", "APPROVED"}
}
