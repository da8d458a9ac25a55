package opafence.classify.shell_test

import data.opafence.classify
import data.opafence.testing.command
import data.opafence.testing.report
import data.opafence.testing.shell_input

# find's deletes: the roots themselves, or what is below them when every -mindepth is ≥ 1.
_find_depth_cases := [
	{"argv": ["find", "build", "-delete"], "want": {"/ws/build"}},
	{"argv": ["find", "build", "-mindepth", "0", "-delete"], "want": {"/ws/build"}},
	{"argv": ["find", "build", "-mindepth", "1", "-delete"], "want": {"/ws/build/*"}},
	{"argv": ["find", "build", "-mindepth", "2", "-type", "f", "-delete"], "want": {"/ws/build/*"}},
	{"argv": ["find", "build", "-mindepth", "1", "-mindepth", "0", "-delete"], "want": {"/ws/build"}},
	{"argv": ["find", "build", "-mindepth", "x", "-delete"], "want": {"/ws/build"}},
	{"argv": ["find", "build", "-maxdepth", "1", "-delete"], "want": {"/ws/build"}},
	{"argv": ["find", "build/", "-mindepth", "1", "-exec", "rm", "-rf", "{}", "+"], "want": {"/ws/build/*"}},
	{"argv": ["find", "a", "b", "-mindepth", "1", "-delete"], "want": {"/ws/a/*", "/ws/b/*"}},
]

test_find_depth_table if {
	bad := [{"argv": row.argv, "got": got, "want": row.want} |
		some row in _find_depth_cases
		got := {p |
			some a in classify.actions with input as shell_input([command(row.argv)])
			a.class == "DELETE"
			some p in a.paths
		}
		got != row.want
	]
	report(bad)
	count(bad) == 0
}
