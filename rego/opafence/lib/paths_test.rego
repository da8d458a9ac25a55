package opafence.lib.paths_test

import data.opafence.lib.paths
import data.opafence.testing.report

under_cases := [
	{"p": "/ws", "base": "/ws", "want": true},
	{"p": "/ws/a/b", "base": "/ws", "want": true},
	{"p": "/ws/a/b", "base": "/ws/", "want": true},
	{"p": "/wsx/a", "base": "/ws", "want": false},
	{"p": "/w", "base": "/ws", "want": false},
	{"p": "/etc/passwd", "base": "/", "want": true},
	{"p": "/etc/hosts.bak", "base": "/etc/hosts", "want": false},
]

domain_cases := [
	{"host": "example.com", "domain": "example.com", "want": true},
	{"host": "docs.example.com", "domain": "example.com", "want": true},
	{"host": "Docs.Example.COM.", "domain": "example.com", "want": true},
	{"host": "example.com", "domain": "*.example.com", "want": true},
	{"host": "badexample.com", "domain": "example.com", "want": false},
	{"host": "example.com.evil.example", "domain": "example.com", "want": false},
	{"host": "example.com", "domain": "", "want": false},
	{"host": "com", "domain": "example.com", "want": false},
]

command_cases := [
	{"argv": ["make", "deploy"], "prefix": "make deploy", "want": true},
	{"argv": ["make", "deploy", "ENV=1"], "prefix": "make deploy", "want": false},
	{"argv": ["make", "deploy", "--prod"], "prefix": "make deploy", "want": false},
	{"argv": ["psql", "-c", "SELECT  1"], "prefix": "psql -c SELECT 1", "want": true},
	{"argv": ["make", "deployer"], "prefix": "make deploy", "want": false},
	{"argv": ["make"], "prefix": "make deploy", "want": false},
	{"argv": ["npm", "test"], "prefix": "  npm test ", "want": true},
	{"argv": ["rm", "-rf", "/"], "prefix": "", "want": false},
]

holds(f) if f

else := false

test_under if {
	bad := [row | some row in under_cases; holds(paths.under(row.p, row.base)) != row.want]
	report(bad)
	count(bad) == 0
}

test_domain_within if {
	bad := [row | some row in domain_cases; holds(paths.domain_within(row.host, row.domain)) != row.want]
	report(bad)
	count(bad) == 0
}

test_command_matches if {
	bad := [row | some row in command_cases; holds(paths.command_matches(row.argv, row.prefix)) != row.want]
	report(bad)
	count(bad) == 0
}

test_ancestors if {
	paths.ancestors("/a/b/c") == {"/", "/a", "/a/b", "/a/b/c"}
	paths.ancestors("/a/") == {"/", "/a"}
	paths.ancestors("/") == {"/"}
	paths.bases(["/", "/etc/", "", "/x"]) == {"/", "/etc", "/x"}
}
