# Grant coverage of one action of this call (task.rego and budget/tool ask it): the bounds
# lib/grants judges, and for an MCP tool what its name acts on and how (classify/mcp), which is
# read only for the grants that name objects, kinds of action or access (most calls never
# compute it). lib/grants knows no classification; this is where the two meet.
package opafence.task

import data.opafence.classify.mcp
import data.opafence.lib.grants
import data.opafence.lib.named

# METADATA
# title: covers
# description: |
#   True when grant g covers action a of this call; ctx (task.ctx) holds the workspace (list),
#   the tool name, its arguments and the call's shell commands.
covers(g, a, ctx) if {
	grants.targets_ok(g, a, ctx)
	_objects_ok(g, ctx)
	_operations_ok(g, a, ctx)
	_access_ok(g, a, ctx)
	grants.call_ok(g, a, ctx)
}

# The actions of a literal command besides running it (its deletes, writes, sends ...).
covers(g, a, ctx) if grants.literal_action_ok(g, a, ctx)

# --- objects, kinds of action, access -------------------------------------------------------------

# METADATA
# title: _objects_ok
# description: |
#   A grant that names objects (an issue, a pull request, an event ...) covers an MCP tool only
#   when the head noun of its name is one of them; another tool only through its domain bound.
_objects_ok(g, _) if count(g.objects) == 0

# An operate grant's objects are kinds (deployment, service, container): operate_ok reads them.
_objects_ok(g, _) if g.capability == "operate"

_objects_ok(g, ctx) if {
	count(g.objects) > 0
	g.capability != "operate"
	grants.mcp_tool(ctx)
	mcp.head_object in {o | some o in g.objects}
}

_objects_ok(g, ctx) if {
	count(g.objects) > 0
	g.capability != "operate"
	not grants.mcp_tool(ctx)
	count(g.domains) > 0
}

# METADATA
# title: _operations_ok
# description: |
#   A grant that names kinds of action (create, update, close, merge, publish, delete) covers an
#   MCP tool only when every verb of that class in its name is of a kind the grant covers
#   (verbs data operation_covers); another tool only through its domain bound.
_operations_ok(g, _, _) if count(g.operations) == 0

_operations_ok(g, _, _) if g.capability == "operate"

# A commit grant that names kinds of action ("back out commit c0ffee1": revert) covers only git
# subcommands of those kinds, not an amend or a reset beside it.
_operations_ok(g, a, _) if {
	g.capability == "commit"
	count(g.operations) > 0
	count(a.argv) > 1
	a.argv[0] == "git"
	named.git_subcommand(a.argv) in {o | some o in g.operations}
}

_operations_ok(g, a, ctx) if {
	count(g.operations) > 0
	not g.capability in {"operate", "commit"}
	grants.mcp_tool(ctx)
	kinds := object.get(mcp.name_operations, a.class, set())
	count(kinds) > 0
	granted := {k | some o in g.operations; some k in data.opafence.classify.verbs.operation_covers[o]}
	every k in kinds {
		k in granted
	}
}

_operations_ok(g, _, ctx) if {
	count(g.operations) > 0
	not g.capability in {"operate", "commit"}
	not grants.mcp_tool(ctx)
	count(g.domains) > 0
}

# METADATA
# title: _access_ok
# description: |
#   A share grant gives the people it names the access it says (read unless the user asked for
#   more): a role argument above it, or a grantee that is a domain or anyone, is not covered.
_access_ok(_, a, _) if a.class != "PERMISSION_CHANGE"

_access_ok(g, a, _) if {
	a.class == "PERMISSION_CHANGE"
	g.capability != "share"
}

_access_ok(g, a, ctx) if {
	a.class == "PERMISSION_CHANGE"
	g.capability == "share"
	grants.mcp_tool(ctx)
	mcp.open_grantee == false
	granted := {l | some l in object.get(data.opafence.classify.mcp.access_covers, g.access, [])}
	every level in mcp.access_levels {
		level in granted
	}
}
