package org.acme.agent_test

import data.org.agent.acme as agent

test_collects_every_rule if {
	d := agent.deny with data.org.acme.rules as {
		"a": {"deny": {{"code": "A", "message": "a"}}},
		"b": {"deny": {{"code": "B", "message": "b"}}, "ask": {{"code": "C", "message": "c"}}},
	}
	d == {{"code": "A", "message": "a"}, {"code": "B", "message": "b"}}
}

test_collects_asks if {
	a := agent.ask with data.org.acme.rules as {"b": {"ask": {{"code": "C", "message": "c"}}}}
	a == {{"code": "C", "message": "c"}}
}

test_real_rules_through_the_entry_point if {
	inp := {"facts": {"recipients": [{"address": "e@evil.example", "domain": "evil.example", "valid": true}]}}
	{r.code | some r in agent.deny with input as inp} == {"ORG_EXTERNAL_EMAIL"}
}

test_every_reason_has_code_and_message if {
	inp := {"facts": {
		"recipients": [{"address": "e@evil.example", "domain": "evil.example", "valid": true}],
		"shell": {"commands": [{"name": "terraform", "operands": ["apply"]}, {"name": "npm", "operands": ["publish"]}]},
	}}
	reasons := agent.deny | agent.ask with input as inp
	count(reasons) == 3
	every r in reasons {
		is_string(r.code)
		is_string(r.message)
		object.keys(r) == {"code", "message"}
	}
}
