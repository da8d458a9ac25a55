package org.acme.rules.package_publish_test

import data.org.acme.rules.package_publish

cmd(name, operands) := {"name": name, "operands": operands}

cases := [
	{"note": "npm publish", "command": cmd("npm", ["publish"]), "ask": true},
	{"note": "npm install", "command": cmd("npm", ["install", "left-pad"]), "ask": false},
	{"note": "twine upload", "command": cmd("twine", ["upload", "dist/*"]), "ask": true},
	{"note": "twine check", "command": cmd("twine", ["check", "dist/*"]), "ask": false},
	{"note": "cargo publish", "command": cmd("cargo", ["publish"]), "ask": true},
	{"note": "cargo test", "command": cmd("cargo", ["test"]), "ask": false},
	{"note": "yarn npm publish", "command": cmd("yarn", ["npm", "publish"]), "ask": true},
	{"note": "unknown tool", "command": cmd("publish", ["publish"]), "ask": false},
	{"note": "no operands", "command": cmd("npm", []), "ask": false},
]

test_cases if {
	failed := {case.note |
		some case in cases
		got := count(package_publish.ask) > 0 with input as {"facts": {"shell": {"commands": [case.command]}}}
		got != case.ask
	}
	print("failed cases:", failed)
	count(failed) == 0
}
