package org.acme.rules.finance_hours_test

import data.org.acme.rules.finance_hours

mcp(server) := {"facts": {"tool": {"name": sprintf("mcp__%s__pay", [server]), "origin": "mcp", "mcp": {"server": server}}}}

# Each case: when (RFC 3339), which MCP server, and whether the call is denied.
cases := [
	{"note": "Tuesday morning", "at": "2026-12-01T10:00:00+01:00", "server": "finance", "denied": false},
	{"note": "Friday 17:59", "at": "2026-12-04T17:59:00+01:00", "server": "finance", "denied": false},
	{"note": "Friday 18:00", "at": "2026-12-04T18:00:00+01:00", "server": "finance", "denied": true},
	{"note": "Tuesday 07:59", "at": "2026-12-01T07:59:00+01:00", "server": "ledger", "denied": true},
	{"note": "Saturday", "at": "2026-12-05T10:00:00+01:00", "server": "finance", "denied": true},
	{"note": "Sunday", "at": "2026-12-06T10:00:00+01:00", "server": "ledger", "denied": true},
	{"note": "Christmas Day (a Friday)", "at": "2026-12-25T10:00:00+01:00", "server": "finance", "denied": true},
	{"note": "Monday 08:30 Berlin is 07:30 UTC", "at": "2026-12-07T07:30:00Z", "server": "finance", "denied": false},
	{"note": "other servers any time", "at": "2026-12-06T03:00:00+01:00", "server": "gmail", "denied": false},
]

test_cases if {
	failed := {case.note |
		some case in cases
		ns := time.parse_rfc3339_ns(case.at)
		got := count(finance_hours.deny) > 0 with input as mcp(case.server) with time.now_ns as ns
		got != case.denied
	}
	print("failed cases:", failed)
	count(failed) == 0
}

test_builtin_tools_are_not_ours if {
	ns := time.parse_rfc3339_ns("2026-12-06T03:00:00+01:00")
	count(finance_hours.deny) == 0 with input as {"facts": {"tool": {"name": "terminal", "origin": "builtin"}}}
		with time.now_ns as ns
}

test_message if {
	ns := time.parse_rfc3339_ns("2026-12-06T10:00:00+01:00")
	msgs := {r.message | some r in finance_hours.deny with input as mcp("finance") with time.now_ns as ns}
	msgs == {"ACME policy: the finance system may only be used on working days between 8:00 and 18:00 (Europe/Berlin)."}
}
