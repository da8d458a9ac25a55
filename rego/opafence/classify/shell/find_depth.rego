# Shell classification, find's depth: `find DIR -mindepth N` with N ≥ 1 never acts on DIR itself,
#   only on what is below it. Its deletes name DIR/* (the shape of the glob operand of
#   `rm -rf DIR/*`), so a grant of a directory's contents ("empty the build directory") covers
#   them and a grant that leaves the directory out never covers deleting it.
package opafence.classify.shell

# The paths a find's deletes reach: its roots, or what is below them under -mindepth ≥ 1.
_find_deleted(cmd) := {_below(r) | some r in find_roots(cmd)} if {
	_find_below_roots(cmd.argv)
} else := find_roots(cmd)

_below(root) := concat("/", [trim_suffix(root, "/"), "*"])

# Every -mindepth given is at least 1 (find takes the last; all of them is never wider).
_find_below_roots(argv) if {
	"-mindepth" in argv
	every j, u in argv {
		_mindepth_at_least_one(argv, j, u)
	}
}

_mindepth_at_least_one(_, _, u) if u != "-mindepth"

_mindepth_at_least_one(argv, j, "-mindepth") if {
	regex.match(`^[0-9]+$`, argv[j + 1])
	to_number(argv[j + 1]) >= 1
}
