package org.acme.rules.terraform_apply_test

import data.org.acme.rules.terraform_apply

cmd(name, operands) := {"name": name, "operands": operands, "flags": [], "argv": array.concat([name], operands)}

cases := [
	{"note": "plan is fine", "commands": [cmd("terraform", ["plan"])], "deny": set(), "ask": set()},
	{"note": "init is fine", "commands": [cmd("terraform", ["init"])], "deny": set(), "ask": set()},
	{"note": "apply", "commands": [cmd("terraform", ["apply"])], "deny": {"ORG_NO_TERRAFORM_APPLY"}, "ask": set()},
	{"note": "destroy", "commands": [cmd("terraform", ["destroy"])], "deny": {"ORG_NO_TERRAFORM_APPLY"}, "ask": set()},
	{"note": "tofu apply", "commands": [cmd("tofu", ["apply"])], "deny": {"ORG_NO_TERRAFORM_APPLY"}, "ask": set()},
	{
		"note": "apply after a plan in one pipeline",
		"commands": [cmd("terraform", ["plan"]), cmd("terraform", ["apply", "tfplan"])],
		"deny": {"ORG_NO_TERRAFORM_APPLY"}, "ask": set(),
	},
	{"note": "other tools", "commands": [cmd("make", ["apply"])], "deny": set(), "ask": set()},
	{"note": "no shell", "commands": [], "deny": set(), "ask": set()},
]

test_cases if {
	failed := {case.note |
		some case in cases
		inp := {"facts": {"shell": {"opaque": false, "commands": case.commands}, "words": []}}
		got_deny := {r.code | some r in terraform_apply.deny with input as inp}
		got_ask := {r.code | some r in terraform_apply.ask with input as inp}
		[got_deny, got_ask] != [case.deny, case.ask]
	}
	print("failed cases:", failed)
	count(failed) == 0
}

test_opaque_shell_mentioning_terraform_asks if {
	inp := {"facts": {"shell": {"opaque": true, "commands": []}, "words": ["eval", "terraform", "apply"]}}
	{r.code | some r in terraform_apply.ask with input as inp} == {"ORG_OPAQUE_TERRAFORM"}
}

test_opaque_shell_without_terraform_is_not_ours if {
	inp := {"facts": {"shell": {"opaque": true, "commands": []}, "words": ["eval", "ls"]}}
	count(terraform_apply.ask) == 0 with input as inp
}

test_message if {
	inp := {"facts": {"shell": {"commands": [cmd("terraform", ["apply"])]}}}
	{r.message | some r in terraform_apply.deny with input as inp} == {
		"ACME policy: agents may not run `terraform apply`; infrastructure changes go through CI.",
	}
}
