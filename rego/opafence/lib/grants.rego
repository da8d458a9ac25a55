# METADATA
# title: Grant coverage
# description: |
#   Whether one grant of a TaskPolicy covers one action (docs/contract.md, "data.tasks"): the
#   class and capability match and every target lies inside every non-empty bound the grant
#   carries. Outside the workspace a path needs a literal path grant. A literal command the
#   user named (run_command) also covers the other actions of that very command, run as named.
package opafence.lib.grants

import data.opafence.classify.mcp
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
# title: covers
# description: "True when grant g covers action a; ctx holds the workspace (list) and the tool name."
covers(g, a, ctx) if {
	g.class == a.class
	capability_ok(g, a)
	paths_ok(g, a, ctx.workspace)
	recipients_ok(g, a)
	domains_ok(g, a)
	commands_ok(g, a, ctx)
	packages_ok(g, a)
	tools_ok(g, ctx.tool)
	objects_ok(g, ctx)
	operations_ok(g, a, ctx)
	access_ok(g, a, ctx)
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

# The actions of a literal command besides running it (its deletes, writes, sends ...).
covers(g, a, ctx) if {
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

commands_ok(g, _, _) if {
	count(g.commands) == 0
	g.capability != "run_command"
}

# A literal command the user named runs only as written: the same argv, run the way the literal
# was (environment, wrappers, redirections, standard input, operands), where it was named.
commands_ok(g, a, ctx) if {
	count(g.commands) > 0
	count(a.argv) > 0
	some lit in g.literals
	lit.argv == a.argv
	literal_named(g, lit)
	every c in runs_of(a, ctx) {
		same_place(c, lit)
	}
	every d in object.get(ctx, "run_dirs", set()) {
		d == lit.cwd
	}
}

# A command recorded without a literal of its own (one the parser could not follow, a spelling
# the compiler adds such as `python3 x.py` for "run x.py", or a grant made elsewhere): the same
# words, run bare where the task runs.
commands_ok(g, a, ctx) if {
	count(g.commands) > 0
	count(a.argv) > 0
	not has_literal(g, a)
	paths.command_matches_any(a.argv, g.commands)
	every c in runs_of(a, ctx) {
		bare(c)
	}
	every d in object.get(ctx, "run_dirs", set()) {
		d == object.get(ctx, "cwd", "")
	}
}

has_literal(g, a) if {
	some lit in g.literals
	lit.argv == a.argv
}

# The call's simple commands that are this action's command.
runs_of(a, ctx) := [c | some c in object.get(ctx, "commands", []); c.argv == a.argv]

bare(c) if place(c) == {"operand_paths": object.get(c, "operand_paths", []), "redirects": output_redirects(c), "env": {}, "wrappers": [], "pipe_from": ""}

# "Run bench/run.py and save its output to bench-results.txt": where its output goes is a write of
# its own (a redirection action the grants judge like any write); the command is still the same.
# Standard input, descriptors and unknown targets are not.
output_redirects(c) := [r |
	some r in object.get(c, "redirects", [])
	r.mode in {"write", "append"}
	r.fd in {1, 2}
	object.get(r, "path", "") != ""
]

# An install grant names its packages; one without names covers only installing the project's
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

# --- objects, kinds of action, access -------------------------------------------------------------

# METADATA
# title: objects_ok
# description: |
#   A grant that names objects (an issue, a pull request, an event ...) covers an MCP tool only
#   when the head noun of its name is one of them; another tool only through its domain bound.
objects_ok(g, _) if count(g.objects) == 0

# An operate grant's objects are kinds (deployment, service, container): operate_ok reads them.
objects_ok(g, _) if g.capability == "operate"

objects_ok(g, ctx) if {
	count(g.objects) > 0
	g.capability != "operate"
	mcp_tool(ctx)
	mcp.head_object in {o | some o in g.objects}
}

objects_ok(g, ctx) if {
	count(g.objects) > 0
	g.capability != "operate"
	not mcp_tool(ctx)
	count(g.domains) > 0
}

# What an MCP tool's name acts on and how is read from data.opafence.classify.mcp, only for
# grants that ask (most calls never compute it).
mcp_tool(ctx) if startswith(ctx.tool, "mcp__")

# METADATA
# title: operations_ok
# description: |
#   A grant that names kinds of action (create, update, close, merge, publish, delete) covers an
#   MCP tool only when every verb of that class in its name is of a kind the grant covers
#   (verbs data operation_covers); another tool only through its domain bound.
operations_ok(g, _, _) if count(g.operations) == 0

operations_ok(g, _, _) if g.capability == "operate"

# A commit grant that names kinds of action ("back out commit c0ffee1": revert) covers only git
# subcommands of those kinds, not an amend or a reset beside it.
operations_ok(g, a, _) if {
	g.capability == "commit"
	count(g.operations) > 0
	count(a.argv) > 1
	a.argv[0] == "git"
	git_subcommand(a.argv) in {o | some o in g.operations}
}

# The first word after git's own options (-C DIR, -c NAME=VALUE take a value).
git_subcommand(argv) := argv[i] if {
	i := min({j |
		some j, w in argv
		j > 0
		not startswith(w, "-")
		not argv[j - 1] in {"-C", "-c", "--git-dir", "--work-tree", "--namespace"}
	})
}

operations_ok(g, a, ctx) if {
	count(g.operations) > 0
	not g.capability in {"operate", "commit"}
	mcp_tool(ctx)
	kinds := object.get(mcp.name_operations, a.class, set())
	count(kinds) > 0
	granted := {k | some o in g.operations; some k in data.opafence.classify.verbs.operation_covers[o]}
	every k in kinds {
		k in granted
	}
}

operations_ok(g, _, ctx) if {
	count(g.operations) > 0
	not g.capability in {"operate", "commit"}
	not mcp_tool(ctx)
	count(g.domains) > 0
}

# METADATA
# title: access_ok
# description: |
#   A share grant gives the people it names the access it says (read unless the user asked for
#   more): a role argument above it, or a grantee that is a domain or anyone, is not covered.
access_ok(_, a, _) if a.class != "PERMISSION_CHANGE"

access_ok(g, a, _) if {
	a.class == "PERMISSION_CHANGE"
	g.capability != "share"
}

access_ok(g, a, ctx) if {
	a.class == "PERMISSION_CHANGE"
	g.capability == "share"
	mcp_tool(ctx)
	mcp.open_grantee == false
	granted := {l | some l in object.get(data.opafence.classify.mcp.access_covers, g.access, [])}
	every level in mcp.access_levels {
		level in granted
	}
}

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

# --- literal commands ----------------------------------------------------------------------------

# Classes the actions of a literal command may have besides EXECUTION, which its commands prefix
# covers. Never SELF_MODIFICATION or UNKNOWN (words never grant them); FINANCIAL still asks.
literal_classes := {"LOCAL_WRITE", "DELETE", "PERMISSION_CHANGE", "COMMUNICATION", "EXTERNAL_WRITE", "FINANCIAL"}

# Standard input the facts do not show (a here-doc's or here-string's text).
here_docs := {"<<", "<<-", "<<<"}

# METADATA
# title: literal_covers
# description: |
#   The action comes from the very command the user named: the same argv (exactly, not as a
#   prefix), run as the literal was (the same operand paths, redirections, environment, wrappers
#   and standard input, so no other directory or file), and each of its targets is one the
#   literal names (an operand, a redirection target, or the directory it was named in).
literal_covers(g, lit, a, ctx) if {
	lit.argv == a.argv
	literal_named(g, lit)
	runs := [c | some c in object.get(ctx, "commands", []); c.argv == a.argv]
	count(runs) > 0
	every c in runs {
		same_place(c, lit)
	}
	every p in a.paths {
		literal_path(lit, p, ctx)
	}
}

# The literal's command is still among the grant's commands (a prohibition may have struck it).
literal_named(g, lit) if trim_space(regex.replace(concat(" ", lit.argv), `\s+`, " ")) in {trim_space(c) | some c in g.commands}

same_place(c, lit) if {
	place(c) == lit.place
	not fed_here_doc(c)
}

# METADATA
# title: place
# description: Where and how a command runs, in the shape the intent compiler records for a literal.
place(c) := {
	"operand_paths": object.get(c, "operand_paths", []),
	"redirects": object.get(c, "redirects", []),
	"env": object.get(c, "env", {}),
	"wrappers": object.get(c, "wrappers", []),
	"pipe_from": object.get(c, "pipe_from", ""),
}

fed_here_doc(c) if {
	some r in object.get(c, "redirects", [])
	r.op in here_docs
}

literal_path(lit, p, _) if p in {x | some x in lit.place.operand_paths; x != ""}

literal_path(lit, p, _) if {
	some r in lit.place.redirects
	r.path == p
}

# The directory the literal was named in (a repository command's target), unless the call
# changes directory first: then that path may not be where the command runs.
literal_path(lit, p, ctx) if {
	p == lit.cwd
	not object.get(ctx, "moved", true)
}

# --- words: a note, a skill, a job the owner dictated ----------------------------------------------

worded_caps := {"remember", "skill", "schedule", "browse"}

# Words an agent adds when it writes down what the owner said ("User prefers tabs").
filler_words := {
	"the", "a", "an", "user", "users", "s", "is", "are", "was", "to", "of", "in", "on", "at", "and",
	"for", "with", "that", "it", "i", "m", "my", "me", "their", "they", "has", "have", "be",
}

words_ok(g, _) if {
	not g.capability in worded_caps
	g.capability != "commit"
}

# A commit grant covers the commits the owner named ("revert 3f2a9c1", "cherry-pick a1b2c3d"): a
# commit id the agent looked up elsewhere is a target the owner did not give (it asks).
words_ok(g, ctx) if {
	g.capability == "commit"
	said := {lower(w) | some w in g.words}
	every c in object.get(ctx, "commands", []) {
		every a in c.argv {
			commit_named(a, said)
		}
	}
}

commit_named(a, _) if not commit_id(a)

commit_named(a, said) if lower(a) in said

commit_id(a) if {
	regex.match(`^[0-9a-fA-F]{7,40}$`, a)
	regex.match(`[0-9]`, a)
}

# A browse grant bounds only what is typed; a click or a key press has no words.
words_ok(g, ctx) if {
	g.capability == "browse"
	ctx.tool != "browser_type"
}

# METADATA
# title: words_ok
# description: |
#   A remember, skill, schedule or browse grant covers a memory note, a new skill's name, a job's
#   prompt (or the job it pauses or resumes) or the text typed into a page only when every word of
#   it is a word of the owner's quote
#   (plural -s aside, a few filler words allowed): the note dictated, not another one.
words_ok(g, ctx) if {
	g.capability in worded_caps
	count(g.words) > 0
	text := worded_text(ctx)
	said := {stem(w) | some w in g.words}
	every w in regex.find_n(`[a-z0-9]+`, lower(text), -1) {
		word_said(w, said)
	}
}

word_said(w, _) if w in filler_words

word_said(w, said) if stem(w) in said

stem(w) := trim_suffix(w, "s") if count(w) > 3

else := w

worded_text(ctx) := t if {
	ctx.tool == "memory"
	t := concat(" ", [object.get(ctx.args, "content", ""), object.get(ctx.args, "old_text", "")])
	trim_space(t) != ""
}

worded_text(ctx) := ctx.args.name if {
	ctx.tool == "skill_manage"
	ctx.args.action == "create"
	is_string(ctx.args.name)
}

worded_text(ctx) := ctx.args.prompt if {
	ctx.tool == "cronjob"
	ctx.args.action in {"create", "update"}
	is_string(ctx.args.prompt)
	trim_space(ctx.args.prompt) != ""
}

worded_text(ctx) := ctx.args.text if {
	ctx.tool == "browser_type"
	is_string(ctx.args.text)
}

worded_text(ctx) := ctx.args.job_id if {
	ctx.tool == "cronjob"
	ctx.args.action in {"pause", "resume"}
	is_string(ctx.args.job_id)
}

# --- the bounds of a conditional's condition ------------------------------------------------------

# Argument names that carry the amount of a payment (`amount`, `total`, `amount.value`, `*_amount`).
amount_keys := {"amount", "value", "total", "price", "sum", "amount_value", "amount_total"}

# Servers whose amounts are integers in the currency's minor unit (Stripe's cents).
minor_unit_servers := {"stripe", "square", "adyen"}

# METADATA
# title: amount_ok
# description: |
#   A grant with max_amount ("if it is under $200, pay it") covers a call only when every amount
#   its arguments carry is a number no larger (minor units of a server that counts them divided);
#   an amount that is not a number is not covered. A call that carries no amount is not bounded by
#   it (a payment asks anyway, FINANCIAL_CONFIRM).
amount_ok(g, _) if not is_number(g.max_amount)

amount_ok(g, ctx) if {
	is_number(g.max_amount)
	values := amount_values(ctx)
	every v in values {
		major_amount(v, ctx) <= g.max_amount
	}
}

amount_values(ctx) := [v |
	walk(object.get(ctx, "args", {}), [path, v])
	count(path) > 0
	is_string(path[count(path) - 1])
	amount_key(lower(path[count(path) - 1]))
	not is_object(v)
	not is_array(v)
]

amount_key(k) if k in amount_keys

amount_key(k) if endswith(k, "_amount")

major_amount(v, ctx) := v / 100 if {
	is_number(v)
	minor_units(ctx)
	v == floor(v)
} else := v if {
	is_number(v)
} else := to_number(regex.replace(trim_space(v), `^[$€£¥]\s*|,`, "")) if {
	is_string(v)
	regex.match(`^[$€£¥]?\s*[0-9][0-9,]*(\.[0-9]+)?$`, trim_space(v))
}

minor_units(ctx) if {
	parts := split(ctx.tool, "__")
	count(parts) > 2
	parts[1] in minor_unit_servers
}

# METADATA
# title: days_ok
# description: |
#   A grant with days ("if I'm free Thursday afternoon, block 2-4pm") covers a call only when it
#   carries a date (an argument starting YYYY-MM-DD) and every date it carries falls on one of them.
days_ok(g, _) if count(g.days) == 0

days_ok(g, ctx) if {
	count(g.days) > 0
	dates := {substring(v, 0, 10) |
		walk(object.get(ctx, "args", {}), [_, v])
		is_string(v)
		regex.match(`^[0-9]{4}-[0-9]{2}-[0-9]{2}`, v)
	}
	count(dates) > 0
	allowed := {lower(d) | some d in g.days}
	every d in dates {
		lower(time.weekday(time.parse_ns("2006-01-02", d))) in allowed
	}
}

# --- a refund of what the owner named -------------------------------------------------------------

# Arguments that name the charge, payment or order a refund acts on.
ref_keys := {
	"charge", "charge_id", "payment", "payment_id", "payment_intent", "payment_intent_id", "transaction",
	"transaction_id", "capture", "capture_id", "invoice", "invoice_id", "order", "order_id", "sale_id",
	"issue_number", "pull_number", "pr_number", "pull_request_number", "issue_id", "issue_key", "iid",
	"merge_request_iid", "ticket_id",
}

# METADATA
# title: refs_ok
# description: |
#   A grant with refs ("refund charge ch_3Nq8", "close issue 77") covers a call only when one of
#   its arguments holds one of them (as a whole word) and every charge, payment, order, issue or
#   pull request argument it carries holds one.
refs_ok(g, _) if count(g.refs) == 0

# An operate grant's refs are the objects it names: operate_ok compares them with the call's.
refs_ok(g, _) if g.capability == "operate"

refs_ok(g, ctx) if {
	count(g.refs) > 0
	g.capability != "operate"
	refs := {lower(r) | some r in g.refs}
	args := object.get(ctx, "args", {})
	some v in [x | walk(args, [_, x]); not is_object(x); not is_array(x)]
	ref_held(v, refs)
	every x in [y | walk(args, [p, y]); count(p) > 0; is_string(p[count(p) - 1]); lower(p[count(p) - 1]) in ref_keys] {
		ref_held(x, refs)
	}
}

ref_held(v, refs) if {
	is_string(v)
	some r in refs
	regex.match(concat("", [`(^|[^a-z0-9])`, r, `($|[^a-z0-9])`]), lower(v))
}

ref_held(v, refs) if {
	is_number(v)
	format_int(v, 10) in refs
}

# --- operations on a named object -------------------------------------------------------------------

# METADATA
# title: operate_ok
# description: |
#   An operate grant ("restart the api deployment in staging", "scale worker to 5") covers an
#   action only when the classifier read it as an operation (classify/ops) of a kind the grant
#   names (`operations`), on a kind of object the words allow (`objects`, when they name one), on
#   exactly the objects named (`refs`; none named: only a call that names none, a whole compose
#   project), in the scopes named (`scopes`: a call must name one of them, and names none when
#   the words name none) and with counts the owner said (`words`).
operate_ok(g, _) if g.capability != "operate"

operate_ok(g, a) if {
	g.capability == "operate"
	op := a.operate
	op.operation in {lower(o) | some o in g.operations}
	operate_kind_ok(g, op.kind)
	operate_set_ok(g.refs, op.names)
	operate_set_ok(g.scopes, op.scopes)
	said := {lower(w) | some w in g.words}
	every c in op.counts {
		c in said
	}
}

operate_kind_ok(g, _) if count(g.objects) == 0

operate_kind_ok(g, kind) if {
	some k in object.get(data.opafence.classify.ops.kind_words, kind, [kind])
	k in {lower(o) | some o in g.objects}
}

# Named: the call names some and only those; not named: the call names none.
operate_set_ok(granted, got) if {
	count(granted) == 0
	count(got) == 0
}

operate_set_ok(granted, got) if {
	count(granted) > 0
	count(got) > 0
	allowed := {lower(x) | some x in granted}
	every x in got {
		x in allowed
	}
}

# --- an approval is not a review ---------------------------------------------------------------------

# Arguments of a review tool that say what the review does (GitHub's event, GitLab's action).
review_event_keys := {"event", "review_event", "action", "state", "verdict"}

# METADATA
# title: approval_ok
# description: |
#   "Leave a review requesting changes" does not approve: an MCP call whose review argument
#   approves (event APPROVE) is covered only by a grant whose words asked to approve.
approval_ok(_, ctx) if not approves(ctx)

approval_ok(g, ctx) if {
	approves(ctx)
	"approve" in g.operations
}

approves(ctx) if {
	mcp_tool(ctx)
	some k, v in object.get(ctx, "args", {})
	lower(k) in review_event_keys
	is_string(v)
	upper(trim_space(v)) in {"APPROVE", "APPROVED"}
}
