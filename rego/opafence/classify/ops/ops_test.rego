package opafence.classify.ops_test

import data.opafence.classify
import data.opafence.lib.grants
import data.opafence.task
import data.opafence.testing.cmdx
import data.opafence.testing.command
import data.opafence.testing.mcp_input
import data.opafence.testing.shell_input

# One row per command: what the classifier reads as an operation (null: none).
shell_cases := [
	{"argv": ["kubectl", "rollout", "restart", "deployment/api", "-n", "staging"], "want": {"operation": "restart", "kind": "deployment", "names": {"api"}, "scopes": {"staging"}, "counts": set()}},
	{"argv": ["kubectl", "-n", "staging", "rollout", "restart", "deploy", "api"], "want": {"operation": "restart", "kind": "deployment", "names": {"api"}, "scopes": {"staging"}, "counts": set()}},
	{"argv": ["kubectl", "rollout", "restart", "deployment/api", "deployment/web", "--namespace=staging"], "want": {"operation": "restart", "kind": "deployment", "names": {"api", "web"}, "scopes": {"staging"}, "counts": set()}},
	{"argv": ["kubectl", "scale", "deployment/worker", "-n", "batch", "--replicas=5"], "want": {"operation": "scale", "kind": "deployment", "names": {"worker"}, "scopes": {"batch"}, "counts": {"5"}}},
	{"argv": ["kubectl", "scale", "--replicas", "3", "sts/queue"], "want": {"operation": "scale", "kind": "statefulset", "names": {"queue"}, "scopes": set(), "counts": {"3"}}},
	{"argv": ["kubectl", "rollout", "undo", "deployment/payments", "-n", "prod"], "want": {"operation": "rollback", "kind": "deployment", "names": {"payments"}, "scopes": {"prod"}, "counts": set()}},
	{"argv": ["systemctl", "restart", "nginx.service"], "want": {"operation": "restart", "kind": "unit", "names": {"nginx"}, "scopes": set(), "counts": set()}},
	{"argv": ["systemctl", "--no-block", "start", "nginx"], "want": {"operation": "start", "kind": "unit", "names": {"nginx"}, "scopes": set(), "counts": set()}},
	{"argv": ["service", "nginx", "reload"], "want": {"operation": "reload", "kind": "unit", "names": {"nginx"}, "scopes": set(), "counts": set()}},
	{"argv": ["docker", "restart", "nginx"], "want": {"operation": "restart", "kind": "container", "names": {"nginx"}, "scopes": set(), "counts": set()}},
	{"argv": ["docker", "stop", "-t", "5", "web"], "want": {"operation": "stop", "kind": "container", "names": {"web"}, "scopes": set(), "counts": set()}},
	{"argv": ["docker", "compose", "up", "-d"], "want": {"operation": "start", "kind": "compose", "names": set(), "scopes": set(), "counts": set()}},
	{"argv": ["docker-compose", "restart", "web"], "want": {"operation": "restart", "kind": "compose", "names": {"web"}, "scopes": set(), "counts": set()}},
	# no operation: another subcommand, an option the tables do not list, a kind-less name
	{"argv": ["kubectl", "delete", "deployment", "api"], "want": null},
	{"argv": ["kubectl", "rollout", "restart", "deployment/api", "--kubeconfig", "/tmp/k"], "want": null},
	{"argv": ["kubectl", "rollout", "restart", "deployment", "--all"], "want": null},
	{"argv": ["kubectl", "rollout", "restart", "deployment", "-l", "app=api"], "want": null},
	{"argv": ["kubectl", "rollout", "restart", "api"], "want": null},
	{"argv": ["kubectl", "rollout", "restart", "deployment/api", "statefulset/db"], "want": null},
	{"argv": ["kubectl", "rollout", "restart", "deployment/api", "--as=admin"], "want": null},
	{"argv": ["systemctl", "-H", "db-01", "restart", "nginx"], "want": null},
	{"argv": ["systemctl", "disable", "nginx"], "want": null},
	{"argv": ["docker", "-H", "tcp://10.0.0.9:2375", "restart", "nginx"], "want": null},
	{"argv": ["docker", "compose", "-f", "other.yml", "up", "-d"], "want": null},
	{"argv": ["docker", "compose", "up", "--build"], "want": null},
	{"argv": ["docker", "exec", "nginx", "sh"], "want": null},
]

op_of(argv, extra) := {a.operate |
	some a in data.opafence.classify.shell.actions with input as shell_input([cmdx(argv, extra)])
	a.operate
}

test_shell_operations if {
	bad := [c |
		some c in shell_cases
		c.want != null
		op_of(c.argv, {}) != {c.want}
	]
	bad == []
}

test_no_operation if {
	bad := [c.argv |
		some c in shell_cases
		c.want == null
		count(op_of(c.argv, {})) > 0
	]
	bad == []
}

# An environment of its own (KUBECONFIG, DOCKER_HOST) or a wrapper makes it no operation.
test_environment_or_wrapper_is_no_operation if {
	count(op_of(["kubectl", "rollout", "restart", "deployment/api"], {"env": {"KUBECONFIG": "/tmp/k"}})) == 0
	count(op_of(["docker", "restart", "nginx"], {"wrappers": ["sudo"]})) == 0
}

test_rollout_status_is_a_read if {
	classify.classes == {"READ"} with input as shell_input([command(["kubectl", "rollout", "status", "deployment/api"])])
}

mcp_cases := [
	{"tool": "mcp__aws__start_instances", "words": ["start", "instances"], "args": {"instance_ids": ["i-0a1b"], "region": "eu-west-1"}, "want": {"operation": "start", "kind": "instances", "names": {"i-0a1b"}, "scopes": {"eu-west-1"}, "counts": set()}},
	{"tool": "mcp__kubernetes__restart_deployment", "words": ["restart", "deployment"], "args": {"namespace": "prod", "name": "checkout"}, "want": {"operation": "restart", "kind": "deployment", "names": {"checkout"}, "scopes": {"prod"}, "counts": set()}},
	{"tool": "mcp__kubernetes__scale_deployment", "words": ["scale", "deployment"], "args": {"name": "web", "replicas": 3}, "want": {"operation": "scale", "kind": "deployment", "names": {"web"}, "scopes": set(), "counts": {"3"}}},
	# an argument that is no name, scope or count: no operation
	{"tool": "mcp__aws__start_instances", "words": ["start", "instances"], "args": {"instance_ids": ["i-0a1b"], "user_data": "x"}, "want": null},
	{"tool": "mcp__aws__terminate_instances", "words": ["terminate", "instances"], "args": {"instance_ids": ["i-0a1b"]}, "want": null},
]

mcp_op_of(c) := {x | x := data.opafence.classify.ops.mcp_op with input as mcp_in(c)}

mcp_in(c) := object.union(mcp_input(c.tool, c.words, {}), {"call": {"tool": c.tool, "args": c.args, "id": "c1"}})

test_mcp_operations if {
	bad := [c.tool |
		some c in mcp_cases
		got := mcp_op_of(c)
		got != {x | x := c.want; x != null}
	]
	bad == []
}

# --- coverage: the grant names the operation, objects, kinds, scopes and counts ---------------------

restart_api := grants.normalize({
	"id": "g1", "class": "EXECUTION", "capability": "operate", "evidence": "restart the api deployment in staging",
	"operations": ["restart"], "refs": ["api"], "objects": ["deployment"], "scopes": ["staging"],
})

op_action(op) := {"class": "EXECUTION", "caps": {"operate", "run_command"}, "paths": set(), "domains": set(), "recipients": set(), "argv": ["kubectl"], "packages": set(), "open": false, "operate": op}

ctx := {"workspace": ["/ws"], "cwd": "/ws", "tool": "terminal", "args": {}, "commands": [], "moved": false, "run_dirs": set()}

coverage_cases := [
	{"op": {"operation": "restart", "kind": "deployment", "names": {"api"}, "scopes": {"staging"}, "counts": set()}, "want": true},
	{"op": {"operation": "restart", "kind": "deployment", "names": {"web"}, "scopes": {"staging"}, "counts": set()}, "want": false},
	{"op": {"operation": "restart", "kind": "deployment", "names": {"api", "web"}, "scopes": {"staging"}, "counts": set()}, "want": false},
	{"op": {"operation": "restart", "kind": "deployment", "names": {"api"}, "scopes": {"production"}, "counts": set()}, "want": false},
	{"op": {"operation": "restart", "kind": "deployment", "names": {"api"}, "scopes": set(), "counts": set()}, "want": false},
	{"op": {"operation": "rollback", "kind": "deployment", "names": {"api"}, "scopes": {"staging"}, "counts": set()}, "want": false},
	{"op": {"operation": "restart", "kind": "statefulset", "names": {"api"}, "scopes": {"staging"}, "counts": set()}, "want": false},
	{"op": {"operation": "restart", "kind": "deployment", "names": set(), "scopes": {"staging"}, "counts": set()}, "want": false},
	{"op": {"operation": "restart", "kind": "deployment", "names": {"api"}, "scopes": {"staging"}, "counts": {"0"}}, "want": false},
]

test_operate_coverage if {
	bad := [c |
		some c in coverage_cases
		covered(restart_api, op_action(c.op)) != c.want
	]
	bad == []
}

covered(g, a) if task.covers(g, a, ctx)

else := false

# An action the classifier did not read as an operation is never covered.
test_operate_needs_an_operation if {
	a := object.remove(op_action({}), {"operate"})
	not task.covers(restart_api, a, ctx)
}
