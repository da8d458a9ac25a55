# METADATA
# title: Grant coverage
# description: |
#   Whether one grant of a TaskPolicy covers one action (docs/contract.md, "data.tasks"): the
#   class and capability match and every target lies inside every non-empty bound the grant
#   carries. Outside the workspace a path needs a literal path grant. A literal command the
#   user named (run_command) also covers the other actions of that very command, run as named.
#   task/coverage.rego joins these bounds with what an MCP tool's name says (classify/mcp):
#   lib knows no classification.
package opafence.lib.grants

import data.opafence.lib.named
import data.opafence.lib.paths
import data.opafence.lib.runner

# Classes whose targets are files: a grant without paths covers the workspace only.
path_classes := {"LOCAL_WRITE", "DELETE", "PERMISSION_CHANGE", "SELF_MODIFICATION"}

defaults := {
	"capability": "", "tools": [], "recipients": [], "domains": [], "paths": [], "commands": [],
	"packages": [], "workspace": false, "max_calls": null, "literals": [], "objects": [],
	"operations": [], "access": "", "words": [], "conditional": false, "max_amount": null, "days": [],
	"refs": [], "scopes": [], "repos": [], "states": [], "cells": [],
}

# METADATA
# title: normalize
# description: |
#   A grant with every optional field present. The bridge always sends complete grants; a field
#   sent as null stays null and makes the grant cover nothing (never more).
normalize(g) := object.union(defaults, g)

# METADATA
# title: targets_ok
# description: |
#   The first half of grant g's bounds on action a (task/coverage.rego's covers takes them in
#   order, with what an MCP tool's name says between the halves): the class and capability
#   match and a's paths, recipients, domains, command, packages and tool lie inside g's bounds;
#   ctx holds the workspace (list), the tool name and the call's commands.
targets_ok(g, a, ctx) if {
	g.class == a.class
	capability_ok(g, a)
	paths_ok(g, a, ctx.workspace)
	recipients_ok(g, a)
	domains_ok(g, a)
	commands_ok(g, a, ctx)
	packages_ok(g, a)
	tools_ok(g, ctx.tool)
}

# METADATA
# title: call_ok
# description: |
#   The second half of grant g's bounds on action a: runners and pushes from the workspace, the
#   words the owner dictated, a condition's amounts, days and refs, operations on named objects,
#   approvals, and the repositories, states, cells and git operations the grant names.
call_ok(g, a, ctx) if {
	runner_ok(g, a, ctx)
	push_ok(g, a, ctx)
	words_ok(g, ctx)
	amount_ok(g, ctx)
	days_ok(g, ctx)
	refs_ok(g, ctx)
	operate_ok(g, a)
	approval_ok(g, ctx)
	named.repos_ok(g, ctx)
	named.states_ok(g, a, ctx)
	named.cells_ok(g, ctx)
	named.git_ok(g, a)
}

# METADATA
# title: literal_action_ok
# description: |
#   Grant g, a literal command the user named (run_command), covers action a of that very
#   command besides running it (its deletes, writes, sends ...), run as named.
literal_action_ok(g, a, ctx) if {
	g.class == "EXECUTION"
	g.capability == "run_command"
	a.class in literal_classes
	not a.open
	count(a.argv) > 0
	some lit in g.literals
	literal_covers(g, lit, a, ctx)
	recipients_ok(g, a)
	domains_ok(g, a)
	tools_ok(g, ctx.tool)
}

capability_ok(g, _) if g.capability == ""

capability_ok(g, a) if g.capability in a.caps

# --- paths -------------------------------------------------------------------------------------

paths_ok(g, a, _) if {
	not a.class in path_classes
	count(g.paths) == 0
}

paths_ok(g, a, _) if {
	not a.class in path_classes
	count(g.paths) > 0
	bounded_paths_ok(g, a)
}

paths_ok(g, a, ws) if {
	a.class in path_classes
	not a.open
	count(a.paths) > 0
	every p in a.paths {
		path_granted(g, p, ws)
	}
}

# An action on no file in particular (a branch, a cron job): only a grant naming no paths.
paths_ok(g, a, _) if {
	a.class in path_classes
	not a.open
	count(a.paths) == 0
	count(g.paths) == 0
}

bounded_paths_ok(g, a) if {
	not a.open
	count(a.paths) > 0
	every p in a.paths {
		paths.under_any(p, g.paths)
	}
}

path_granted(g, p, _) if paths.under_any(p, g.paths)

# workspace: true (or no paths at all): anywhere in the workspace, never outside it. A deletion
# is never wider than the paths the user named.
path_granted(g, p, ws) if {
	count(g.paths) == 0
	g.class != "DELETE"
	paths.under_any(p, ws)
	not git_internal(p)
}

# A repository's own files (.git/config: its remotes, hooks, settings) are not the workspace's
# files: a workspace grant never covers them (a changed remote would redirect a granted push).
git_internal(p) if regex.match(`(^|/)\.git(/|$)`, p)

# --- recipients, domains, commands, packages, tools ----------------------------------------------

recipients_ok(g, a) if {
	count(g.recipients) == 0
	not "recipients" in object.get(a, "named", set())
}

recipients_ok(g, a) if {
	count(g.recipients) > 0
	not a.open
	count(a.recipients) > 0
	allowed := {lower(trim_space(r)) | some r in g.recipients}
	every r in a.recipients {
		lower(r) in allowed
	}
}

domains_ok(g, a) if {
	count(g.domains) == 0
	not "domains" in object.get(a, "named", set())
}

domains_ok(g, a) if {
	count(g.domains) > 0
	count(a.domains) > 0
	every d in a.domains {
		paths.domain_within_any(d, g.domains)
	}
}

# own dependencies (npm ci, pip install with no names).
packages_ok(g, _) if {
	count(g.packages) == 0
	g.capability != "install"
}

packages_ok(g, a) if {
	count(g.packages) == 0
	g.capability == "install"
	count(a.packages) == 0
}

packages_ok(g, a) if {
	count(g.packages) > 0
	count(a.packages) > 0
	named := {package_name(p) | some p in g.packages}
	every p in a.packages {
		package_name(p) in named
	}
}

# METADATA
# title: package_name
# description: A package name without version or extras, lower-case (requests==2.31 -> requests).
package_name(p) := regex.replace(lower(trim_space(p)), `[<>=!~;\[@ ].*$`, "")

tools_ok(g, _) if count(g.tools) == 0

tools_ok(g, tool) if {
	some pattern in g.tools
	glob.match(pattern, [], tool)
}

# METADATA
# title: mcp_tool
# description: True when the call's tool is an MCP server's (its name says what it acts on and how).
mcp_tool(ctx) if startswith(ctx.tool, "mcp__")

# Runners: the tests, the build, the linter, the dev server, the migrations and the virtualenv
# of this project, not code from another directory.
runner_caps := {"run_tests", "run_build", "run_lint", "run_format", "run_server", "run_migrations", "create_venv"}

runner_ok(g, _, _) if not g.capability in runner_caps

runner_ok(g, a, ctx) if {
	g.capability in runner_caps
	roots := [r | some r in array.concat(object.get(ctx, "workspace", []), [object.get(ctx, "cwd", "")]); r != ""]
	every p in a.paths {
		paths.under_any(p, roots)
	}
	every p in runner_operands(a, ctx) {
		paths.under_any(p, roots)
	}
	every d in object.get(ctx, "run_dirs", set()) {
		paths.under_any(d, roots)
	}
	runner_words_ok(a, ctx, roots)
}

# The runner as the user asked for it: no option that loads code, runs another command, reads
# another configuration or uploads (lib/runner), paths written inside its words only in the
# workspace (--junitxml=PATH, -o cache_dir=PATH), and an environment that changes none of that.
runner_words_ok(a, ctx, roots) if {
	count(runner.risky(a.argv)) == 0
	every v in runner.embedded(a.argv) {
		runner.inside(v, roots)
	}
	every c in runs_of(a, ctx) {
		runner.env_ok(object.get(c, "env", {}), roots)
	}
}

# A push grant pushes this workspace's repository, not one elsewhere (git -C DIR, cd DIR).
push_ok(g, _, _) if g.capability != "push"

push_ok(g, a, ctx) if {
	g.capability == "push"
	roots := [r | some r in array.concat(object.get(ctx, "workspace", []), [object.get(ctx, "cwd", "")]); r != ""]
	every p in a.paths {
		paths.under_any(p, roots)
	}
	every d in object.get(ctx, "run_dirs", set()) {
		paths.under_any(d, roots)
	}
}

# Every operand of the runner's command as a path (its option values included: `--prefix DIR`).
runner_operands(a, ctx) := {p |
	some c in object.get(ctx, "commands", [])
	c.argv == a.argv
	some p in object.get(c, "operand_paths", [])
}
