package opafence.lib.named_test

import data.opafence.lib.named
import data.opafence.testing.report

ew := {"class": "EXTERNAL_WRITE"}

grant(extra) := object.union({"objects": [], "operations": [], "repos": [], "states": [], "cells": []}, extra)

# Each answer is true or false, never undefined: a row whose rule is undefined still counts.
repos(row) if named.repos_ok(grant({"repos": row.repos}), {"args": row.args})

else := false

states(row) if named.states_ok(grant(row.g), ew, {"args": row.args})

else := false

cells(row) if named.cells_ok(grant({"cells": row.cells}), {"args": row.args})

else := false

# --- repositories: grant repos, call args -> covered?
repo_cases := [
	{"name": "owner and repo side by side", "repos": ["acme/mobile"], "args": {"owner": "acme", "repo": "mobile", "title": "x"}, "want": true},
	{"name": "another repo of the owner", "repos": ["acme/mobile"], "args": {"owner": "acme", "repo": "web", "title": "x"}, "want": false},
	{"name": "another owner", "repos": ["acme/mobile"], "args": {"owner": "evil", "repo": "mobile"}, "want": false},
	{"name": "case and .git", "repos": ["acme/mobile"], "args": {"repository": "ACME/Mobile.git"}, "want": true},
	{"name": "a URL of the repo", "repos": ["acme/mobile"], "args": {"repo": "https://github.com/acme/mobile"}, "want": true},
	{"name": "a URL of another repo", "repos": ["acme/mobile"], "args": {"repo": "https://github.com/acme/web"}, "want": false},
	{"name": "full_name of another repo", "repos": ["acme/mobile"], "args": {"full_name": "acme/web"}, "want": false},
	{"name": "a GitLab project path", "repos": ["acme/core"], "args": {"project_id": "acme/core", "mr_iid": 58}, "want": true},
	{"name": "a numeric project id is not the repo named", "repos": ["acme/core"], "args": {"project_id": 4412}, "want": false},
	{"name": "a repo name without owner", "repos": ["acme/mobile"], "args": {"repo": "mobile"}, "want": false},
	{"name": "no repository at all", "repos": ["acme/mobile"], "args": {"title": "x"}, "want": false},
	{"name": "a second repo nested", "repos": ["acme/mobile"], "args": {"owner": "acme", "repo": "mobile", "copy_to": {"owner": "acme", "repo": "web"}}, "want": false},
	{"name": "a second repo in a list", "repos": ["acme/mobile"], "args": {"repository": "acme/mobile", "repos": ["acme/web"]}, "want": false},
	{"name": "no repos: no bound", "repos": [], "args": {"owner": "acme", "repo": "web"}, "want": true},
	{"name": "two named, either", "repos": ["acme/mobile", "acme/web"], "args": {"owner": "acme", "repo": "web"}, "want": true},
]

test_repos if {
	bad := [row |
		some row in repo_cases
		got := repos(row)
		got != row.want
	]
	report(bad)
	count(bad) == 0
}

# --- states: grant, call args -> covered?
state_cases := [
	{"name": "the state named", "g": {"objects": ["issue"], "operations": ["update"], "states": ["in progress"]}, "args": {"issue_key": "PAY-77", "transition": "In Progress"}, "want": true},
	{"name": "another state", "g": {"objects": ["issue"], "operations": ["update"], "states": ["in progress"]}, "args": {"issue_key": "PAY-77", "transition": "Done"}, "want": false},
	{"name": "spelled with a dash", "g": {"objects": ["issue"], "operations": ["update"], "states": ["in progress"]}, "args": {"state": "in-progress"}, "want": true},
	{"name": "nested in fields", "g": {"objects": ["issue"], "operations": ["update"], "states": ["in progress"]}, "args": {"fields": {"status": "Done"}}, "want": false},
	{"name": "a state id", "g": {"objects": ["issue"], "operations": ["update"], "states": ["in progress"]}, "args": {"stateId": "5f1c-77aa"}, "want": false},
	{"name": "a transition object", "g": {"objects": ["issue"], "operations": ["update"], "states": ["done"]}, "args": {"transition": {"id": 31}}, "want": false},
	{"name": "an assign grant sets no state", "g": {"objects": ["issue"], "operations": ["update"]}, "args": {"issue_key": "PAY-77", "transition": "Done"}, "want": false},
	{"name": "an assign grant, no state set", "g": {"objects": ["issue"], "operations": ["update"]}, "args": {"issue_key": "PAY-77", "assignee": "me"}, "want": true},
	{"name": "a close grant closes", "g": {"objects": ["issue"], "operations": ["close"]}, "args": {"issue_number": 45, "state": "closed"}, "want": true},
	{"name": "a close grant: Done", "g": {"objects": ["issue"], "operations": ["close"]}, "args": {"issue_key": "OPS-77", "transition": "Done"}, "want": true},
	{"name": "a close grant does not start work", "g": {"objects": ["issue"], "operations": ["close"]}, "args": {"transition": "In Progress"}, "want": false},
	{"name": "a reopen grant reopens", "g": {"objects": ["issue"], "operations": ["reopen"]}, "args": {"state": "open"}, "want": true},
	{"name": "a reopen grant does not close", "g": {"objects": ["issue"], "operations": ["reopen"]}, "args": {"state": "closed"}, "want": false},
	{"name": "a created issue may be open", "g": {"objects": ["issue"], "operations": ["create"]}, "args": {"title": "x", "state": "open"}, "want": true},
	{"name": "a created issue is not created closed", "g": {"objects": ["issue"], "operations": ["create"]}, "args": {"title": "x", "state": "closed"}, "want": false},
	{"name": "an event's status is not bounded", "g": {"objects": ["event"], "operations": ["update"]}, "args": {"status": "cancelled"}, "want": true},
]

test_states if {
	bad := [row |
		some row in state_cases
		got := states(row)
		got != row.want
	]
	report(bad)
	count(bad) == 0
}

test_states_bound_only_writes if {
	g := grant({"objects": ["issue"], "operations": ["update"], "states": ["in progress"]})
	named.states_ok(g, {"class": "READ"}, {"args": {"state": "closed"}})
}

# --- cells: grant cells, call args -> covered?
cell_cases := [
	{"name": "the cell named", "cells": ["B7"], "args": {"range": "Sheet1!B7", "values": [[42000]]}, "want": true},
	{"name": "the next cell", "cells": ["B7"], "args": {"range": "Sheet1!B8", "values": [[0]]}, "want": false},
	{"name": "a range over it", "cells": ["B7"], "args": {"range": "Sheet1!B7:B9"}, "want": false},
	{"name": "absolute reference", "cells": ["B7"], "args": {"range": "'Q4 forecast'!$B$7"}, "want": true},
	{"name": "lower case", "cells": ["B7"], "args": {"range": "b7"}, "want": true},
	{"name": "a whole column", "cells": ["B7"], "args": {"range": "Sheet1!B:B"}, "want": false},
	{"name": "no range at all", "cells": ["B7"], "args": {"values": [[1]]}, "want": false},
	{"name": "a range inside the one named", "cells": ["B2:C10"], "args": {"range": "C3:C4"}, "want": true},
	{"name": "a range reaching out", "cells": ["B2:C10"], "args": {"range": "C3:D4"}, "want": false},
	{"name": "reversed corners", "cells": ["B2:C10"], "args": {"range": "C10:B2"}, "want": true},
	{"name": "two-letter columns", "cells": ["AA1:AB2"], "args": {"range": "AB2"}, "want": true},
	{"name": "column Z is not AA", "cells": ["AA1:AB2"], "args": {"range": "Z1"}, "want": false},
	{"name": "a batch with a stray range", "cells": ["B7"], "args": {"data": [{"range": "B7", "values": [[1]]}, {"range": "B8", "values": [[2]]}]}, "want": false},
	{"name": "a list of ranges", "cells": ["B7", "C4"], "args": {"ranges": ["B7", "C4"]}, "want": true},
	{"name": "not a string", "cells": ["B7"], "args": {"range": 7}, "want": false},
	{"name": "no cells: no bound", "cells": [], "args": {"range": "Z99"}, "want": true},
]

test_cells if {
	bad := [row |
		some row in cell_cases
		got := cells(row)
		got != row.want
	]
	report(bad)
	count(bad) == 0
}

test_cell_box if {
	named.cell_box("Sheet1!B7") == [2, 7, 2, 7]
	named.cell_box("'Q4'!$B$2:C9") == [2, 2, 3, 9]
	named.cell_box("AZ10") == [52, 10, 52, 10]
	not named.cell_box("B:B")
	not named.cell_box("Totals")
}

# --- git: grant words, call argv -> covered?
commit_grant(words) := grant({"capability": "commit", "words": words})

git(row) if named.git_ok(commit_grant(row.words), {"argv": row.argv})

else := false

git_cases := [
	{"name": "a checkout is no merge", "words": ["check", "out", "the", "branch", "feature", "billing"], "argv": ["git", "merge", "main"], "want": false},
	{"name": "the checkout itself", "words": ["check", "out", "the", "branch", "feature", "billing"], "argv": ["git", "checkout", "feature/billing"], "want": true},
	{"name": "merge asked", "words": ["merge", "main", "into", "my", "branch"], "argv": ["git", "merge", "main"], "want": true},
	{"name": "a merge behind global options", "words": ["commit", "the", "fix"], "argv": ["git", "-C", "/ws", "-c", "core.editor=true", "merge", "main"], "want": false},
	{"name": "an option value is no subcommand", "words": ["commit", "the", "fix"], "argv": ["git", "-C", "merge", "commit", "-m", "x"], "want": true},
	{"name": "a rebase not asked", "words": ["commit", "the", "fix"], "argv": ["/usr/bin/git", "rebase", "main"], "want": false},
	{"name": "a squash is a reset", "words": ["squash", "my", "last", "three", "commits"], "argv": ["git", "reset", "--soft", "HEAD~3"], "want": true},
	{"name": "a reset not asked", "words": ["stash", "my", "stuff"], "argv": ["git", "reset", "--hard", "HEAD~1"], "want": false},
	{"name": "cherry-pick asked", "words": ["cherry", "pick", "9e8d7c6"], "argv": ["git", "cherry-pick", "9e8d7c6"], "want": true},
	{"name": "a pull not asked", "words": ["create", "a", "branch"], "argv": ["git", "pull", "origin", "main"], "want": false},
	{"name": "a pull asked", "words": ["update", "my", "local", "main", "from", "the", "remote"], "argv": ["git", "pull"], "want": true},
	{"name": "not git", "words": ["commit"], "argv": ["make", "merge"], "want": true},
]

test_git if {
	bad := [row | some row in git_cases; git(row) != row.want]
	report(bad)
	count(bad) == 0
}

test_git_bounds_only_commit_grants if {
	named.git_ok(grant({"capability": "run_tests"}), {"argv": ["git", "merge", "main"]})
}

# The one git-subcommand parser (lib/grants' commit operations use it too): git's own options
# that take a value skip it; another program has none.
_git_subcommand_cases := [
	{"argv": ["git", "revert", "c0ffee1"], "want": "revert"},
	{"argv": ["/usr/bin/git", "merge", "main"], "want": "merge"},
	{"argv": ["git", "-C", "repo", "revert", "x"], "want": "revert"},
	{"argv": ["git", "-c", "user.name=x", "commit", "--amend"], "want": "commit"},
	{"argv": ["git", "--git-dir", "/r/.git", "--work-tree", "/r", "reset", "--hard"], "want": "reset"},
	{"argv": ["git", "--no-pager", "log"], "want": "log"},
	{"argv": ["git", "--config-env", "core.editor=ED", "rebase", "-i"], "want": "rebase"},
	{"argv": ["hg", "revert"], "want": null},
	{"argv": ["git"], "want": null},
]

test_git_subcommand_table if {
	bad := [{"argv": row.argv, "got": got, "want": row.want} |
		some row in _git_subcommand_cases
		got := _sub_or_null(row.argv)
		got != row.want
	]
	report(bad)
	count(bad) == 0
}

_sub_or_null(argv) := s if {
	s := named.git_subcommand(argv)
} else := null
