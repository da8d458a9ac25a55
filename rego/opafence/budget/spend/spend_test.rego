package opafence.budget.spend_test

import data.opafence.budget.spend

c := 1000000 # one cent in micro-cents

caps := {
	"daily_soft_cents": 100, "daily_hard_cents": 200, "per_minute_cents": 50,
	"cheaper_model": "mini", "unpriced": "block",
}

big := {"name": "big", "priced": true, "input": 250 * c, "output": 1000 * c}

mini := {"name": "mini", "priced": true, "input": 15 * c, "output": 60 * c, "estimate": 1 * c}

unpriced := {"name": "mystery", "priced": false, "input": 0, "output": 0}

ledger(spent, reserved, minute) := {"day": "2026-01-01", "spent": spent, "reserved": reserved, "minute": minute}

call(model, estimate, cheaper, l) := {"model": model, "estimate": estimate, "cheaper": cheaper, "ledger": l}

codes(d) := [r.code | some r in d.reasons]

# Each case: the call, the caps, the expected verdict, model and reason codes.
cases := [
	# under every cap: allowed, same model, nothing to say
	{"in": call(big, 10 * c, mini, ledger(0, 0, 0)), "caps": caps, "want": ["allow", "big", []]},
	# the soft cap is passed by this call's estimate: switch to the cheaper model
	{"in": call(big, 10 * c, mini, ledger(95 * c, 0, 0)), "caps": caps, "want": ["allow", "mini", ["SPEND_SOFT_CAP"]]},
	# reservations count like spend
	{"in": call(big, 10 * c, mini, ledger(50 * c, 45 * c, 0)), "caps": caps, "want": ["allow", "mini", ["SPEND_SOFT_CAP"]]},
	# the hard cap: spent + reserved + this call above it blocks
	{"in": call(big, 10 * c, mini, ledger((199 * c) + 1, 0, 0)), "caps": caps, "want": ["block", "mini", ["SPEND_HARD_CAP"]]},
	# exactly at the hard cap after this call is still allowed
	{"in": call(big, 5 * c, mini, ledger(190 * c, 0, 0)), "caps": object.union(caps, {"cheaper_model": null}), "want": [
		"allow", "big",
		["SPEND_SOFT_CAP"],
	]},
	# the downgrade's smaller estimate is what the hard cap checks
	{"in": call(big, 50 * c, mini, ledger(190 * c, 0, 0)), "caps": caps, "want": ["allow", "mini", ["SPEND_SOFT_CAP"]]},
	# per-minute cap
	{"in": call(big, 10 * c, mini, ledger(0, 0, 45 * c)), "caps": caps, "want": ["block", "big", ["SPEND_RATE"]]},
	# unpriced model with a hard cap: blocked by default
	{"in": call(unpriced, 0, mini, ledger(0, 0, 0)), "caps": caps, "want": ["block", "mystery", ["SPEND_UNPRICED"]]},
	# ... allowed when the user chose so
	{"in": call(unpriced, 0, mini, ledger(0, 0, 0)), "caps": object.union(caps, {"unpriced": "allow"}), "want": [
		"allow", "mystery",
		[],
	]},
	# ... and allowed when no hard or per-minute cap is configured
	{"in": call(unpriced, 0, mini, ledger(0, 0, 0)), "caps": {"daily_soft_cents": 100}, "want": ["allow", "mystery", []]},
	# no caps at all: everything allowed
	{"in": call(big, 10 * c, mini, ledger(10000 * c, 0, 10000 * c)), "caps": {}, "want": ["allow", "big", []]},
	# null caps are no caps
	{"in": call(big, 10 * c, mini, ledger(10000 * c, 0, 0)), "caps": {"daily_hard_cents": null}, "want": ["allow", "big", []]},
]

test_cases if {
	every i, case in cases {
		d := spend.decision with input as case.in with data.config.budgets as case.caps
		got := [d.verdict, d.model, codes(d)]
		print_mismatch(i, got, case.want)
		got == case.want
	}
}

print_mismatch(_, got, want) if got == want

print_mismatch(i, got, want) if {
	got != want
	print("case", i, "got", got, "want", want)
}

# Cheaper means cheaper per input AND per output token; otherwise the model is kept.
cheaper_cases := [
	# cheaper input, dearer output
	{"cheaper": object.union(mini, {"output": 2000 * c}), "model": "big", "downgraded": false},
	# the same input price
	{"cheaper": object.union(mini, {"input": 250 * c}), "model": "big", "downgraded": false},
	# an unpriced model is not cheaper
	{"cheaper": object.union(mini, {"priced": false}), "model": "big", "downgraded": false},
	# not the model the user configured
	{"cheaper": object.union(mini, {"name": "other"}), "model": "big", "downgraded": false},
	# the same model
	{"cheaper": object.union(big, {"estimate": 1}), "model": "big", "downgraded": false},
	{"cheaper": mini, "model": "mini", "downgraded": true},
]

test_downgrade_only_when_cheaper_per_input_and_output if {
	every case in cheaper_cases {
		d := spend.decision with input as call(big, 10 * c, case.cheaper, ledger(95 * c, 0, 0))
			with data.config.budgets as caps
		d.model == case.model
		d.verdict == "allow"
		d.downgraded == case.downgraded
	}
}

test_no_cheaper_configured_keeps_the_model if {
	d := spend.decision with input as {"model": big, "estimate": 10 * c, "ledger": ledger(95 * c, 0, 0)}
		with data.config.budgets as caps
	d.model == "big"
	d.reasons[0].message == concat("", [
		"Today's spend passed the soft cap of $1.00; no configured model is cheaper per input and ",
		"output token than big, so it is kept.",
	])
}

test_unpriced_current_model_is_not_downgraded if {
	d := spend.decision with input as call(unpriced, 0, mini, ledger(150 * c, 0, 0))
		with data.config.budgets as object.union(caps, {"unpriced": "allow"})
	d.model == "mystery"
	d.verdict == "allow"
}

test_hard_cap_message_and_charge if {
	d := spend.decision with input as {"model": big, "estimate": 10 * c, "ledger": ledger(199 * c, 0, 0)}
		with data.config.budgets as object.union(caps, {"cheaper_model": null, "daily_soft_cents": null})
	d.verdict == "block"
	d.charge == 10 * c
	d.reasons == [{
		"code": "SPEND_HARD_CAP",
		"message": concat("", [
			"Model calls are stopped for today: $1.99 is spent or reserved and this call needs about ",
			"$0.1000, which would pass the daily hard cap of $2.00.",
		]),
		"fix": concat("", [
			"Model calls resume at local midnight; to go on today, raise budgets.daily_hard_cents ",
			"in the opafence config and restart Hermes.",
		]),
	}]
}

test_fail_bad_input_blocks if {
	every bad in [
		{},
		{"model": big, "estimate": 10},
		{"model": big, "estimate": -1, "ledger": ledger(0, 0, 0)},
		{"model": {"name": "big"}, "estimate": 1, "ledger": ledger(0, 0, 0)},
		{"model": big, "estimate": 1, "ledger": {"spent": 0, "reserved": 0}},
	] {
		d := spend.decision with input as bad with data.config.budgets as {}
		d.verdict == "block"
		codes(d) == ["SPEND_BAD_INPUT"]
	}
}

test_monitor_mode_allows_and_records_what_enforce_would_do if {
	d := spend.decision with input as call(big, 10 * c, mini, ledger((199 * c) + 1, 0, 0))
		with data.config.budgets as caps
		with data.config.mode as "monitor"
	d.verdict == "allow"
	d.model == "big"
	d.monitor.would == "block"
	codes(d.monitor) == ["SPEND_HARD_CAP"]
}

test_money_formatting if {
	spend.usd(0) == "$0.00"
	spend.usd(123 * c) == "$1.23"
	spend.usd((5 * c) + 999999) == "$0.05"
	spend.usd_fine(12345) == "$0.0001"
	spend.usd_fine(250 * c) == "$2.5000"
}

test_already_on_the_cheaper_model if {
	d := spend.decision with input as call(object.union(mini, {"estimate": null}), 1 * c, mini, ledger(150 * c, 0, 0))
		with data.config.budgets as caps
	d.verdict == "allow"
	d.model == "mini"
	d.downgraded == false
	d.reasons[0].message == "Today's spend passed the soft cap of $1.00; this call already uses the cheaper model mini."
}
