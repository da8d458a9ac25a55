# METADATA
# title: Task policy
# description: |
#   Judges a call against the TaskPolicy in data.tasks[input.task] (docs/contract.md): grants
#   authorize a class when they cover every action of that class within their bounds; the
#   user's prohibitions always block; read_only blocks everything but reads; the task's bounds
#   restrict every call, reads included (write_paths only writes, deletes and permission changes); unauthorized DELETE / FINANCIAL / PERMISSION_CHANGE /
#   SELF_MODIFICATION block, other unauthorized classes ask, UNKNOWN never allows, and FINANCIAL
#   asks even when granted. config.overrides add block / ask reasons or authorize a class like
#   a standing grant (never past a prohibition or a guard).
# schemas:
#   - input: schema.input
#   - data.tasks: schema.tasks
#   - data.config: schema.config
package opafence.task

import data.opafence.classify
import data.opafence.classify.args
import data.opafence.lib.grants
import data.opafence.lib.paths
import data.opafence.lib.reason
import data.opafence.settings

blocking_classes := {"DELETE", "FINANCIAL", "PERMISSION_CHANGE", "SELF_MODIFICATION"}

# --- the policy --------------------------------------------------------------------------------

# METADATA
# title: policy
# description: |
#   The TaskPolicy of this call's task; an absent task gets what a task gets when nothing could
#   be compiled (no grants: reads only).
default policy := {
	"schema_version": 1, "task": "", "revision": 1, "compiled_by": "fallback",
	"read_only": false, "grants": [], "prohibitions": [], "bounds": {}, "budgets": {},
}

policy := data.tasks[input.task]

read_only if policy.read_only == true

# METADATA
# title: ctx
# description: |
#   What grant coverage needs besides the grant and the action: the workspace, the tool, the
#   call's shell commands and whether the call changes directory (for literal commands), the
#   directories it runs in (runners).
ctx := {
	"workspace": classify.workspace,
	"cwd": object.get(input.host, "cwd", ""),
	"tool": input.call.tool,
	"args": object.get(input.call, "args", {}),
	"commands": object.get(input.facts, ["shell", "commands"], []),
	"moved": moves,
	"run_dirs": run_dirs,
}

# METADATA
# title: run_dirs
# description: |
#   Directories the call's commands may run in besides the working directory: the terminal's
#   workdir and every cd / pushd target ("" for one not known: a bare cd, popd, an expansion).
run_dirs contains p.path if {
	some p in input.facts.paths
	p.arg == "workdir"
}

run_dirs contains d if {
	some c in object.get(input.facts, ["shell", "commands"], [])
	c.name in {"cd", "pushd"}
	some d in object.get(c, "operand_paths", [])
}

run_dirs contains "" if {
	some c in object.get(input.facts, ["shell", "commands"], [])
	c.name in {"cd", "pushd", "popd"}
	count(object.get(c, "operand_paths", [])) == 0
}

# A cd, pushd or popd anywhere in the call: later commands may run in another directory.
default moves := false

moves if {
	some c in object.get(input.facts, ["shell", "commands"], [])
	c.name in {"cd", "pushd", "popd"}
}

counters := object.get(input.session, "counters", {})

# METADATA
# title: grant_list
# description: The task's grants, every optional field filled in.
grant_list := [grants.normalize(g) | some g in policy.grants]

# METADATA
# title: spent
# description: Ids of grants whose own max_calls are used up.
spent contains g.id if {
	some g in grant_list
	is_number(g.max_calls)
	object.get(object.get(counters, "by_grant", {}), g.id, 0) >= g.max_calls
}

usable_grants := [g | some g in grant_list; not g.id in spent]

# --- authorization -----------------------------------------------------------------------------

# METADATA
# title: authorized
# description: |
#   The classes of this call the task authorizes: READ always; another class when every action
#   of that class is covered by a usable grant or a config override, the task is not read-only
#   and no prohibition forbids it.
authorized contains "READ" if "READ" in classify.classes

authorized contains c if {
	some c in classify.classes
	c != "READ"
	not read_only
	not c in prohibited_classes
	class_covered(c)
}

class_covered(c) if {
	acts := classify.actions_by_class[c]
	count(acts) > 0
	every a in acts {
		action_covered(a)
	}
}

action_covered(a) if {
	some g in usable_grants
	covers(g, a, ctx)
}

action_covered(a) if override_allows(a.class)

# METADATA
# title: covering
# description: Ids of the grants that cover some action of this call (for per-grant counters).
covering contains g.id if {
	some c in authorized
	some a in classify.actions_by_class[c]
	some g in usable_grants
	covers(g, a, ctx)
}

unauthorized contains c if {
	some c in classify.classes
	not c in authorized
	trace(sprintf("opafence: %s is not authorized by the task", [c]))
}

# --- prohibitions ------------------------------------------------------------------------------

call_words := (({lower(w) | some w in input.facts.words} | {lower(w) | some w in object.get(input.facts.tool, ["mcp", "words"], [])}) | {lower(seg) |
	some p in classify.all_paths
	some seg in split(p, "/")
}) | {lower(label) |
	some d in classify.all_domains
	some label in split(d, ".")
}

keyword_hit(kw) if {
	parts := [w | some w in split(lower(trim_space(kw)), " "); w != ""]
	count(parts) > 0
	every w in parts {
		w in call_words
	}
}

applies(p) if count(object.get(p, "keywords", [])) == 0

applies(p) if {
	some kw in p.keywords
	keyword_hit(kw)
}

forbids(p, c) if c in p.classes

forbids(p, c) if {
	"*" in p.classes
	c != "READ"
}

# METADATA
# title: hits
# description: Each prohibition this call runs into, with what it would do.
hits contains {"p": p, "what": classify.phrase[c]} if {
	some p in policy.prohibitions
	applies(p)
	some c in classify.classes
	forbids(p, c)
}

hits contains {"p": p, "what": "sending data off this machine"} if {
	some p in policy.prohibitions
	p.egress == true
	applies(p)
	classify.egress
}

# "Don't run any commands" binds every call that runs one, a read-only one (ls, git status) or
# one inside code included, and a delegation (a subagent runs what it likes).
hits contains {"p": p, "what": "running a command"} if {
	some p in policy.prohibitions
	"EXECUTION" in p.classes
	count(object.get(p, "keywords", [])) == 0
	runs_commands
}

runs_commands if count(object.get(input.facts, ["shell", "commands"], [])) > 0

runs_commands if input.call.tool == "delegate_task"

prohibited_classes contains c if {
	some p in policy.prohibitions
	applies(p)
	some c in classify.classes
	forbids(p, c)
}

# METADATA
# title: USER_PROHIBITION
# description: "You said “{{.evidence}}”, and this call would be {{.what}}."
# custom:
#   code: USER_PROHIBITION
#   fix: This cannot be approved. Only the user can lift it, in a new message of their own.
deny contains reason.render(rego.metadata.rule(), {"evidence": h.p.evidence, "what": h.what}) if {
	some h in hits
}

# METADATA
# title: READ_ONLY
# description: This task is read-only, and this call would be {{.what}}.
# custom:
#   code: READ_ONLY_TASK
#   fix: Only read; the user must ask for changes in a new message.
deny contains reason.render(rego.metadata.rule(), {"what": classify.phrase[c]}) if {
	read_only
	some c in classify.classes
	c != "READ"
}

# --- bounds --------------------------------------------------------------------------------------

bounds := object.get(policy, "bounds", {})

bound_domains := object.get(bounds, "domains", [])

bound_recipients := {lower(trim_space(r)) | some r in object.get(bounds, "recipients", [])}

bound_paths := object.get(bounds, "paths", [])

bound_write_paths := object.get(bounds, "write_paths", [])

# What a write bound ("only touch src/parser.py") holds inside its paths: changes to files.
write_bound_classes := {"LOCAL_WRITE", "DELETE", "PERMISSION_CHANGE"}

# Most tasks have no bounds: one check spares the rules below.
bounded if {
	some _, v in bounds
	count(v) > 0
}

outside_bounds contains d if {
	bounded
	count(bound_domains) > 0
	some d in classify.all_domains
	not paths.domain_within_any(d, bound_domains)
}

outside_bounds contains "an unnamed destination (a search, a provider or a server)" if {
	bounded
	count(bound_domains) > 0
	classify.unaddressed_egress
}

outside_bounds contains r if {
	bounded
	count(bound_recipients) > 0
	some r in classify.all_recipients
	not r in bound_recipients
}

outside_bounds contains p if {
	bounded
	count(bound_paths) > 0
	some p in classify.all_paths
	not paths.under_any(p, bound_paths)
}

outside_bounds contains p if {
	bounded
	count(bound_write_paths) > 0
	some a in bound_writes
	some p in a.paths
	not paths.under_any(p, bound_write_paths)
}

outside_bounds contains "a file opafence cannot name" if {
	bounded
	count(bound_write_paths) > 0
	some a in bound_writes
	a.open
}

# Changes to files; recording them in git (add, commit) changes only the repository's index.
bound_writes contains a if {
	some a in classify.actions
	a.class in write_bound_classes
	not git_record(a)
}

git_record(a) if {
	count(a.argv) > 1
	a.argv[0] == "git"
	a.argv[1] in {"add", "commit"}
}

# METADATA
# title: OUT_OF_BOUNDS
# description: This task is limited to what the user named, and {{.target}} is outside it.
# custom:
#   code: OUT_OF_BOUNDS
#   fix: Stay within the domains, recipients and paths the user named, or ask them to widen the task.
deny contains reason.render(rego.metadata.rule(), {"target": t}) if {
	some t in outside_bounds
}

# --- recipients that only look like the granted ones -------------------------------------------

granted_recipients := {lower(r) |
	some g in grant_list
	some r in g.recipients
}

# METADATA
# title: RECIPIENT_LOOKALIKE
# description: "{{.address}} mixes scripts or look-alike characters and is not a recipient the user named."
# custom:
#   code: RECIPIENT_LOOKALIKE
#   fix: Use the exact address the user wrote.
deny contains reason.render(rego.metadata.rule(), {"address": r.address}) if {
	some r in input.facts.recipients
	lookalike(r)
	not lower(r.address) in granted_recipients
}

lookalike(r) if r.confusable == true

lookalike(r) if r.mixed_script == true

# --- unauthorized classes ------------------------------------------------------------------------

# METADATA
# title: UNAUTHORIZED_BLOCKING
# description: The task does not authorize {{.what}}, and that kind of action is never approved on the fly.
# custom:
#   code: NOT_AUTHORIZED
#   fix: Ask the user to request this action in their own words, naming what it acts on.
deny contains reason.render(rego.metadata.rule(), {"class": c, "what": classify.phrase[c]}) if {
	some c in unauthorized
	c in blocking_classes
	not read_only
	not c in prohibited_classes
	not unbound_request(c)
}

# METADATA
# title: requested
# description: |
#   The kinds of action the owner asked for without binding their target ("delete the largest
#   file", "pay the bill in bill.txt"): they ask, never block.
requested contains r.class if {
	some r in object.get(policy, "requests", [])
}

# METADATA
# title: REQUESTED_UNBOUND
# description: "You asked for this kind of action, but your words do not name its target: {{.what}}."
# custom:
#   code: REQUESTED_UNBOUND
#   fix: Approve it if this is the target you meant.
ask contains reason.render(rego.metadata.rule(), {"what": classify.phrase[c]}) if {
	some c in unauthorized
	c in blocking_classes
	not read_only
	not c in prohibited_classes
	unbound_request(c)
}

# METADATA
# title: unbound_request
# description: |
#   An action of a requested class whose targets are known and none of them hidden (a
#   dot-directory such as ~/.ssh or ~/.hermes is configuration, never an unbound target of
#   "clean up" or "delete the largest file").
unbound_request(c) if {
	c in requested
	every a in classify.actions_by_class[c] {
		not a.open
		every p in a.paths {
			not contains(p, "/.")
		}
	}
}

# METADATA
# title: UNAUTHORIZED_ASK
# description: The task does not authorize {{.what}}, so the user is asked first.
# custom:
#   code: NOT_AUTHORIZED
#   fix: Approve it, or ask for it in the task's own words.
ask contains reason.render(rego.metadata.rule(), {"class": c, "what": classify.phrase[c]}) if {
	some c in unauthorized
	not c in blocking_classes
	c != "UNKNOWN"
}

# METADATA
# title: UNKNOWN_STRICT
# description: "opafence cannot tell what this call does ({{.why}}), and strict mode blocks what it cannot classify."
# custom:
#   code: UNKNOWN_TOOL
#   fix: Map the tool in config.tools, or use a tool opafence knows.
deny contains reason.render(rego.metadata.rule(), {"why": unknown_why}) if {
	"UNKNOWN" in unauthorized
	settings.mode == "strict"
	count(_other_unknowns) > 0
}

# METADATA
# title: UNKNOWN_ASK
# description: "opafence cannot tell what this call does ({{.why}}), so the user is asked before it runs."
# custom:
#   code: UNKNOWN_TOOL
#   fix: Map the tool in config.tools, or use a tool opafence knows.
ask contains reason.render(rego.metadata.rule(), {"why": unknown_why}) if {
	"UNKNOWN" in unauthorized
	settings.mode != "strict"
	count(_other_unknowns) > 0
}

# Why the call is UNKNOWN, argument problems of a built-in tool left to UNKNOWN_ARGUMENTS.
_other_unknowns := classify.unknown_why - args.whys

unknown_why := concat(", ", sort(_other_unknowns))

# METADATA
# title: UNKNOWN_ARGUMENTS_STRICT
# description: "opafence cannot tell what this call does: {{.why}}. Strict mode blocks what it cannot classify."
# custom:
#   code: UNKNOWN_ARGUMENTS
#   fix: Call the tool with the argument names its schema defines (a misspelled key is never guessed).
deny contains reason.render(rego.metadata.rule(), {"why": args_why}) if {
	"UNKNOWN" in unauthorized
	settings.mode == "strict"
	args_why != ""
}

# METADATA
# title: UNKNOWN_ARGUMENTS_ASK
# description: "opafence cannot tell what this call does: {{.why}}. So the user is asked before it runs."
# custom:
#   code: UNKNOWN_ARGUMENTS
#   fix: Call the tool with the argument names its schema defines (a misspelled key is never guessed).
ask contains reason.render(rego.metadata.rule(), {"why": args_why}) if {
	"UNKNOWN" in unauthorized
	settings.mode != "strict"
	args_why != ""
}

args_why := concat("; ", sort(args.whys))

# METADATA
# title: FINANCIAL_CONFIRM
# description: This call would be {{.what}}; payments are always confirmed by the user, even when the task asks for them.
# custom:
#   code: FINANCIAL_CONFIRM
#   fix: Approve the payment if it is the one the user asked for.
ask contains reason.render(rego.metadata.rule(), {"what": classify.phrase.FINANCIAL}) if {
	"FINANCIAL" in authorized
}

# METADATA
# title: CONDITIONAL_CONFIRM
# description: "You asked for this only if a condition holds, and the agent decides whether it does: {{.what}}."
# custom:
#   code: CONDITIONAL_CONFIRM
#   fix: Approve it if the condition you set holds.
ask contains reason.render(rego.metadata.rule(), {"what": classify.phrase[c]}) if {
	some g in usable_grants
	g.conditional == true
	some c in authorized
	c in conditional_classes
	some a in classify.actions_by_class[c]
	not unconditionally_covered(a)
}

# The classes whose grants are marked conditional and ask for it (a payment asks anyway).
conditional_classes := {"DELETE", "PERMISSION_CHANGE"}

# An action some grant covers that is not the action of a conditional (or a config override).
unconditionally_covered(a) if {
	some g in usable_grants
	g.conditional != true
	covers(g, a, ctx)
}

unconditionally_covered(a) if override_allows(a.class)

# --- config overrides ----------------------------------------------------------------------------

override_hits contains o if {
	some o in data.config.overrides
	glob.match(o.tool, [], input.call.tool)
	override_class_hits(o)
}

override_class_hits(o) if object.get(o, "class", "*") == "*"

override_class_hits(o) if o.class in classify.classes

override_allows(c) if {
	some o in override_hits
	o.verdict == "allow"
	o.class == c
}

override_allows(c) if {
	some o in override_hits
	o.verdict == "allow"
	object.get(o, "class", "*") == "*"
	c != "SELF_MODIFICATION"
}

# METADATA
# title: CONFIG_OVERRIDE_BLOCK
# description: "Your opafence configuration blocks {{.tool}} ({{.class}}). {{.reason}}"
# custom:
#   code: CONFIG_OVERRIDE
#   fix: Change the override in the opafence config file if this tool should run.
deny contains reason.render(rego.metadata.rule(), override_vars(o)) if {
	some o in override_hits
	o.verdict == "block"
}

# METADATA
# title: CONFIG_OVERRIDE_ASK
# description: "Your opafence configuration asks before {{.tool}} ({{.class}}). {{.reason}}"
# custom:
#   code: CONFIG_OVERRIDE
#   fix: Approve it, or change the override in the opafence config file.
ask contains reason.render(rego.metadata.rule(), override_vars(o)) if {
	some o in override_hits
	o.verdict == "ask"
}

override_vars(o) := {
	"tool": input.call.tool,
	"class": object.get(o, "class", "*"),
	"reason": object.get(o, "reason", ""),
}
