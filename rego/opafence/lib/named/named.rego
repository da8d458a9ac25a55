# METADATA
# title: What the owner's words named, in a call's arguments
# description: |
#   Bounds a grant carries from the owner's words on what an MCP call's arguments name (the
#   compiler records them, never a draft): `repos`, the repositories ("file an issue in
#   acme/mobile": every repository the call names is one of them, and it names one); `states`,
#   the states an issue-like object goes to ("move it to In Progress": every state the call sets
#   is one of them; a close or reopen grant without them covers the states of its kind only);
#   `cells`, spreadsheet cells in A1 notation ("set cell B7": every range the call names lies
#   inside one of them, and it names one). Argument names are data (data.yaml beside this file).
package opafence.lib.named

import data.opafence.classify.verbs

# The last key of an argument's path (an array element counts as its array's key), lower-case.
_key(path) := lower(ks[count(ks) - 1]) if {
	ks := [k | some k in path; is_string(k)]
	count(ks) > 0
}

_walk_keyed(args, keys) := [[p, v] |
	walk(args, [p, v])
	not is_object(v)
	not is_array(v)
	_key(p) in keys
]

# --- repositories ---------------------------------------------------------------------------------

# METADATA
# title: norm_repo
# description: 'A repository as "owner/name", lower-case: no URL scheme and host, no ".git", no slashes at the ends.'
norm_repo(v) := trim(regex.replace(regex.replace(lower(trim_space(v)), `^[a-z][a-z0-9+.-]*://[^/]*/`, ""), `\.git/?$`, ""), "/")

# METADATA
# title: call_repos
# description: |
#   The repositories a call's arguments name: "owner/name" from one argument (repo_keys) or from
#   an owner and a name side by side (owner_keys, name_keys); "?name" for a name with no owner
#   (no grant names that), "?" for a repository argument that is not a string.
call_repos(args) := (({r |
	walk(args, [_, o])
	is_object(o)
	some r in _pair(o)
} | {norm_repo(v) |
	some [p, v] in _walk_keyed(args, data.opafence.lib.named.repo_keys)
	is_string(v)
	contains(v, "/")
}) | {concat("", ["?", lower(v)]) |
	some [p, v] in _walk_keyed(args, data.opafence.lib.named.name_keys)
	is_string(v)
	not contains(v, "/")
	not _has_owner(object.get(args, array.slice(p, 0, count(p) - 1), {}))
}) | {"?" |
	some [_, v] in _walk_keyed(args, data.opafence.lib.named.repo_keys)
	not is_string(v)
}

_pair(o) := {norm_repo(concat("/", [owner, name])) |
	some ok, owner in o
	lower(ok) in data.opafence.lib.named.owner_keys
	is_string(owner)
	some nk, name in o
	lower(nk) in data.opafence.lib.named.name_keys
	is_string(name)
	not contains(name, "/")
}

_has_owner(o) if {
	is_object(o)
	some k, v in o
	lower(k) in data.opafence.lib.named.owner_keys
	is_string(v)
}

# METADATA
# title: repos_ok
# description: A grant with repos covers a call only when it names a repository and every one it names is one of them.
repos_ok(g, _) if count(object.get(g, "repos", [])) == 0

repos_ok(g, ctx) if {
	count(g.repos) > 0
	named := call_repos(object.get(ctx, "args", {}))
	count(named) > 0
	allowed := {norm_repo(r) | some r in g.repos}
	every r in named {
		r in allowed
	}
}

# --- states ---------------------------------------------------------------------------------------

# METADATA
# title: norm_state
# description: 'A state as words: lower-case, "-" and "_" as spaces, single spaces ("In-Progress" is "in progress").'
norm_state(v) := trim_space(regex.replace(regex.replace(lower(v), `[-_"'“”]`, " "), `\s+`, " "))

# METADATA
# title: call_states
# description: 'The states a call''s arguments set (state_keys); "?" for one that is not a string (an object with an id).'
call_states(args) := {s |
	some [_, v] in _walk_keyed(args, data.opafence.lib.named.state_keys)
	s := _state_of(v)
} | {"?" |
	walk(args, [p, v])
	count(p) > 0
	is_string(p[count(p) - 1])
	lower(p[count(p) - 1]) in data.opafence.lib.named.state_keys
	is_object(v)
}

_state_of(v) := norm_state(v) if is_string(v)

else := "?"

# The grant bounds states: its words named some, or it acts on issue-like objects.
_stated(g) if count(object.get(g, "states", [])) > 0

_stated(g) if {
	some o in object.get(g, "objects", [])
	o in data.opafence.lib.named.stateful_objects
}

# METADATA
# title: states_ok
# description: |
#   A grant on issue-like objects (or with states) covers an external write only when every state
#   it sets is one the words named, or, without named states, one its kinds of action set
#   (state_kinds: "close issue 77" covers closed or done, never "in progress").
states_ok(g, _, _) if not _stated(g)

states_ok(g, a, _) if {
	_stated(g)
	a.class != "EXTERNAL_WRITE"
}

states_ok(g, a, ctx) if {
	_stated(g)
	a.class == "EXTERNAL_WRITE"
	every s in call_states(object.get(ctx, "args", {})) {
		state_granted(g, s)
	}
}

# METADATA
# title: state_granted
# description: True when grant g covers setting state s (normalized).
state_granted(g, s) if s in {norm_state(x) | some x in object.get(g, "states", [])}

state_granted(g, s) if {
	count(object.get(g, "states", [])) == 0
	some kind in object.get(data.opafence.lib.named.state_kinds, s, [])
	some o in object.get(g, "operations", [])
	kind in object.get(verbs.operation_covers, o, [])
}

# --- spreadsheet cells ------------------------------------------------------------------------------

_letters := "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

_col(letters) := sum([n |
	some i in numbers.range(0, count(letters) - 1)
	n := (indexof(_letters, substring(letters, i, 1)) + 1) * [1, 26, 676][(count(letters) - 1) - i]
])

_corner(s) := [_col(m[1]), to_number(m[2])] if {
	m := regex.find_all_string_submatch_n(`^([A-Z]{1,3})([0-9]{1,7})$`, s, 1)[0]
}

# METADATA
# title: cell_box
# description: |
#   An A1 range as [first column, first row, last column, last row] ("Sheet1!B7" is [2, 7, 2, 7],
#   "'Q4'!$B$2:C9" is [2, 2, 3, 9]); undefined for what is not one (a whole column, a named range).
cell_box(v) := [min([a[0], b[0]]), min([a[1], b[1]]), max([a[0], b[0]]), max([a[1], b[1]])] if {
	parts := split(replace(upper(trim_space(regex.replace(v, `^.*!`, ""))), "$", ""), ":")
	count(parts) <= 2
	a := _corner(parts[0])
	b := _corner(parts[count(parts) - 1])
}

# METADATA
# title: call_cells
# description: The ranges a call's arguments name (cell_keys), as written.
call_cells(args) := {v | some [_, v] in _walk_keyed(args, data.opafence.lib.named.cell_keys)}

_inside(v, outer) if {
	r := cell_box(v)
	o := cell_box(outer)
	o[0] <= r[0]
	o[1] <= r[1]
	r[2] <= o[2]
	r[3] <= o[3]
}

# METADATA
# title: cells_ok
# description: A grant with cells covers a call only when it names a range and every range it names lies inside one of them.
cells_ok(g, _) if count(object.get(g, "cells", [])) == 0

cells_ok(g, ctx) if {
	count(g.cells) > 0
	named := call_cells(object.get(ctx, "args", {}))
	count(named) > 0
	every v in named {
		is_string(v)
		some c in g.cells
		_inside(v, c)
	}
}

# --- git operations the words name ------------------------------------------------------------------

# METADATA
# title: git_subcommand
# description: The subcommand of a git command line (git -C DIR -c k=v merge x is merge); undefined for another program.
git_subcommand(argv) := sub if {
	count(argv) > 1
	regex.replace(argv[0], `^.*/`, "") == "git"
	skipped := {j |
		some i, w in argv
		i > 0
		w in data.opafence.lib.named.git_value_options
		j := i + 1
	}
	subs := [w |
		some i, w in argv
		i > 0
		not startswith(w, "-")
		not i in skipped
	]
	sub := subs[0]
}

# METADATA
# title: git_ok
# description: |
#   A commit grant covers a merge, rebase, cherry-pick, revert, reset, pull or am (git_words) only
#   when the owner's words ask for it; the other actions and grants are not bounded here.
git_ok(g, _) if object.get(g, "capability", "") != "commit"

git_ok(g, a) if {
	g.capability == "commit"
	not _git_worded(a)
}

_git_worded(a) if data.opafence.lib.named.git_words[git_subcommand(object.get(a, "argv", []))]

git_ok(g, a) if {
	g.capability == "commit"
	asked := data.opafence.lib.named.git_words[git_subcommand(a.argv)]
	said := {lower(w) | some w in object.get(g, "words", [])}
	some w in asked
	w in said
}
