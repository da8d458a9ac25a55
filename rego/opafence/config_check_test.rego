package opafence.config_check_test

import data.opafence.config_check

test_valid_config_has_no_problems if {
	count(config_check._problems) == 0 with data.config as {
		"mode": "enforce", "unattended_ask": "block",
		"tools": {"my_tool": {"classes": ["READ"]}},
		"overrides": [{"tool": "web_*", "class": "*", "verdict": "ask"}],
	}
}

test_fail_unknown_class_in_a_mapping if {
	config_check._problems == {{"field": "tools.my_tool.classes", "problem": "must name risk classes opafence knows"}} with data.config as {"tools": {"my_tool": {"classes": ["READ", "WRITE"]}}}
}

test_fail_empty_mapping if {
	config_check._problems == {{"field": "tools.x.classes", "problem": "must not be empty"}} with data.config as {"tools": {"x": {"classes": []}}}
}

test_fail_bad_override if {
	config_check._problems == {
		{"field": "overrides[0].class", "problem": "must be a risk class or *"},
		{"field": "overrides[1].verdict", "problem": "must be block, ask or allow"},
	} with data.config as {"overrides": [
		{"tool": "x", "class": "EVERYTHING", "verdict": "allow"},
		{"tool": "y", "class": "READ", "verdict": "maybe"},
	]}
}

test_fail_bad_config_blocks_in_every_mode if {
	d := data.opafence.decision with input as {"task": "t", "call": {"tool": "read_file", "args": {}, "id": ""}, "facts": {}, "session": {}, "host": {"auto_approve": false}}
		with data.config as {"mode": "monitor", "tools": {"x": {"classes": ["NOPE"]}}}
	d.verdict == "block"
	d.reasons[0].code == "CONFIG_INVALID"
}
