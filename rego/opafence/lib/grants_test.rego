package opafence.lib.grants_test

import data.opafence.lib.action
import data.opafence.lib.grants
import data.opafence.testing.report

ctx := {"workspace": ["/ws"], "tool": "terminal"}

g(class, fields) := grants.normalize(object.union({"id": "g", "class": class, "evidence": "e"}, fields))

a(class, fields) := action.make(class, fields)

# grant, action -> covered?
cases := [
	{"name": "class must match", "g": g("LOCAL_WRITE", {}), "a": a("DELETE", {"paths": {"/ws/a"}}), "want": false},
	{"name": "workspace write", "g": g("LOCAL_WRITE", {"workspace": true}), "a": a("LOCAL_WRITE", {"paths": {"/ws/a"}, "caps": {"edit"}}), "want": true},
	{"name": "unbounded grant is the workspace", "g": g("LOCAL_WRITE", {}), "a": a("LOCAL_WRITE", {"paths": {"/etc/x"}}), "want": false},
	{"name": "open write", "g": g("LOCAL_WRITE", {"workspace": true}), "a": a("LOCAL_WRITE", {"paths": {"/ws/a"}, "open": true}), "want": false},
	{"name": "pathless write, pathless grant", "g": g("LOCAL_WRITE", {}), "a": a("LOCAL_WRITE", {}), "want": true},
	{"name": "pathless write, path grant", "g": g("LOCAL_WRITE", {"paths": ["/ws"]}), "a": a("LOCAL_WRITE", {}), "want": false},
	{"name": "capability must be carried", "g": g("LOCAL_WRITE", {"capability": "commit", "workspace": true}), "a": a("LOCAL_WRITE", {"paths": {"/ws/a"}, "caps": {"edit"}}), "want": false},
	{"name": "delete named path", "g": g("DELETE", {"paths": ["/ws/build"]}), "a": a("DELETE", {"paths": {"/ws/build/x"}}), "want": true},
	{"name": "delete never the whole workspace", "g": g("DELETE", {"workspace": true}), "a": a("DELETE", {"paths": {"/ws/build"}}), "want": false},
	{"name": "paths bound other classes", "g": g("EXECUTION", {"paths": ["/ws/scripts"]}), "a": a("EXECUTION", {"paths": {"/ws/scripts/a.sh"}}), "want": true},
	{"name": "paths bound other classes 2", "g": g("EXECUTION", {"paths": ["/ws/scripts"]}), "a": a("EXECUTION", {}), "want": false},
	{"name": "recipients unbounded", "g": g("COMMUNICATION", {}), "a": a("COMMUNICATION", {"recipients": {"x@y.z"}}), "want": true},
	{"name": "recipient granted", "g": g("COMMUNICATION", {"recipients": ["X@y.z"]}), "a": a("COMMUNICATION", {"recipients": {"x@y.z"}}), "want": true},
	{"name": "no recipient", "g": g("COMMUNICATION", {"recipients": ["x@y.z"]}), "a": a("COMMUNICATION", {}), "want": false},
	{"name": "unclear recipients", "g": g("COMMUNICATION", {"recipients": ["x@y.z"]}), "a": a("COMMUNICATION", {"recipients": {"x@y.z"}, "open": true}), "want": false},
	{"name": "domain granted", "g": g("EXTERNAL_WRITE", {"domains": ["github.com"]}), "a": a("EXTERNAL_WRITE", {"domains": {"api.github.com"}}), "want": true},
	{"name": "domain missing", "g": g("EXTERNAL_WRITE", {"domains": ["github.com"]}), "a": a("EXTERNAL_WRITE", {}), "want": false},
	{"name": "command prefix", "g": g("EXECUTION", {"capability": "run_command", "commands": ["make deploy"]}), "a": a("EXECUTION", {"argv": ["make", "deploy"], "caps": {"run_command"}}), "want": true},
	{"name": "no argv", "g": g("EXECUTION", {"commands": ["make deploy"]}), "a": a("EXECUTION", {}), "want": false},
	{"name": "tool glob", "g": g("EXTERNAL_WRITE", {"tools": ["term*"]}), "a": a("EXTERNAL_WRITE", {}), "want": true},
	{"name": "tool glob miss", "g": g("EXTERNAL_WRITE", {"tools": ["mcp__*"]}), "a": a("EXTERNAL_WRITE", {}), "want": false},
	{"name": "package named", "g": g("EXECUTION", {"capability": "install", "packages": ["Requests"]}), "a": a("EXECUTION", {"caps": {"install"}, "packages": {"requests[socks]>=2"}}), "want": true},
	{"name": "package not named", "g": g("EXECUTION", {"capability": "install", "packages": ["requests"]}), "a": a("EXECUTION", {"caps": {"install"}, "packages": {"urllib3"}}), "want": false},
	{"name": "packages bound other capabilities too", "g": g("EXECUTION", {"packages": ["requests"]}), "a": a("EXECUTION", {"caps": {"install"}}), "want": false},
]

test_covers_table if {
	bad := [row.name | some row in cases; covered(row) != row.want]
	report(bad)
	count(bad) == 0
}

covered(row) if grants.covers(row.g, row.a, ctx)

else := false

test_package_name if {
	grants.package_name(" Requests==2.31 ") == "requests"
	grants.package_name("lodash@4") == "lodash"
	grants.package_name("black[jupyter]") == "black"
}
