package opafence.bundles_test

import data.opafence.bundles

manifest(roots) := {"manifest": {"revision": "r", "roots": roots}}

# Each case: data.system.bundles, and the bundles whose roots must block.
cases := [
	{"note": "only ours", "bundles": {"opafence": manifest(["opafence", "partial"])}, "blocked": set()},
	{"note": "ours under another name", "bundles": {"policy": manifest(["opafence"])}, "blocked": set()},
	{"note": "org", "bundles": {"opafence": manifest(["opafence"]), "acme": manifest(["org"])}, "blocked": set()},
	{"note": "under org", "bundles": {"acme": manifest(["org/agent", "org/acme/"])}, "blocked": set()},
	{"note": "no bundles", "bundles": {}, "blocked": set()},
	{"note": "root-less", "bundles": {"acme": manifest([""])}, "blocked": {"acme"}},
	{"note": "empty roots", "bundles": {"acme": manifest([])}, "blocked": {"acme"}},
	{"note": "no roots key", "bundles": {"acme": {"manifest": {"revision": "r"}}}, "blocked": {"acme"}},
	{"note": "no manifest", "bundles": {"acme": {}}, "blocked": {"acme"}},
	{"note": "tasks too", "bundles": {"acme": manifest(["org", "tasks"])}, "blocked": {"acme"}},
	{"note": "system", "bundles": {"acme": manifest(["system/authz"])}, "blocked": {"acme"}},
	{"note": "lookalike", "bundles": {"acme": manifest(["organization"])}, "blocked": {"acme"}},
	{"note": "lookalike of ours", "bundles": {"acme": manifest(["opafence2"])}, "blocked": {"acme"}},
	{
		"note": "one bad among good",
		"bundles": {"a": manifest(["org/a"]), "b": manifest(["config"])},
		"blocked": {"b"},
	},
]

test_cases if {
	failed := {case.note |
		some case in cases
		got := {r.message | some r in bundles.deny with data.system.bundles as case.bundles}
		want := {m |
			some name in case.blocked
			roots := json.marshal(object.get(case.bundles[name], ["manifest", "roots"], null))
			m := sprintf(
				"The organization bundle '%s' claims data outside 'org' (roots %s), so every call is blocked.",
				[name, roots],
			)
		}
		got != want
	}
	print("failed cases:", failed)
	count(failed) == 0
}

test_reason_always_blocks if {
	some r in bundles.deny with data.system.bundles as {"x": manifest(["tasks"])}
	r.code == "ORG_BUNDLE_ROOTS"
	r.always == true
	r.fix != ""
}
