package opafence.lib.reason_test

import data.opafence.lib.reason

test_make_uses_annotations if {
	meta := {"description": "no", "custom": {"code": "X", "fix": "do y"}}
	reason.make(meta) == {"code": "X", "message": "no", "fix": "do y"}
}

test_make_without_fix if {
	reason.make({"description": "no", "custom": {"code": "X"}}) == {"code": "X", "message": "no", "fix": ""}
}

test_render_fills_template if {
	meta := {"description": "to {{.who}}", "custom": {"code": "X", "fix": "ask {{.who}}"}}
	reason.render(meta, {"who": "bob"}) == {"code": "X", "message": "to bob", "fix": "ask bob"}
}

test_valid_cases if {
	reason.valid({"code": "A", "message": "m"})
	not reason.valid({"code": "", "message": "m"})
	not reason.valid({"code": "A"})
	not reason.valid({"code": 1, "message": "m"})
	not reason.valid("A")
}
