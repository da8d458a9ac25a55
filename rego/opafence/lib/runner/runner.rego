# METADATA
# title: Runner options
# description: |
#   What a runner's command line holds beyond "run the runner": options that load code, run
#   other commands, read another configuration or upload results (data.opafence.lib.runner,
#   never covered by a runner grant), environment that changes what it loads, and paths
#   written inside its words (--junitxml=PATH, --cov-report=xml:PATH, -o cache_dir=PATH,
#   -coverprofile=PATH): the grant covers those inside the workspace only, and the guards see
#   them as writes (guards/common).
package opafence.lib.runner

import data.opafence.lib.paths

# METADATA
# title: names
# description: The runners a command line names (each word's basename, python3.x as python).
names(argv) := {n |
	some w in argv
	not startswith(w, "-")
	n := regex.replace(regex.replace(w, `^.*/`, ""), `^python3(\.[0-9]+)?$`, "python")
	n != "*"
	data.opafence.lib.runner.options[n]
}

# METADATA
# title: embedded
# description: |
#   Paths written inside a command line's words after the first, as written: a word that is
#   one, or what follows "=", ":", ";" or "," (`--junitxml=/p`, `xml:/p`, `cache_dir=/p`,
#   `trx;LogFileName=/p`), when it starts with "/", "~" or "..". A URL's "//host" counts (it
#   is no path in the workspace); a build label ("//pkg:target") does not.
embedded(argv) := {v |
	some i, w in argv
	i > 0
	some m in regex.find_all_string_submatch_n(`(?:^|[=:;,])((?:~|\.\.|/)[^=:;,]*)`, w, -1)
	v := m[1]
	not label(m)
}

label(m) if {
	startswith(m[1], "//")
	not startswith(m[0], ":")
}

# METADATA
# title: option_paths
# description: |
#   The embedded paths an option gives: inside an option word (`--junitxml=/p`, `cache_dir=/p`),
#   or a whole word right after an option (`--basetemp /p`). What the guards take as writes.
option_paths(argv) := {v |
	some i, w in argv
	i > 0
	some m in regex.find_all_string_submatch_n(`(?:^|[=:;,])((?:~|\.\.|/)[^=:;,]*)`, w, -1)
	v := m[1]
	not label(m)
	option_word(argv, i, w, v)
}

option_word(_, _, w, v) if w != v

option_word(argv, i, w, w) if {
	i > 1
	startswith(argv[i - 1], "-")
}

# METADATA
# title: inside
# description: True when an embedded path lies in one of the roots (absolute, no "..").
inside(v, roots) if {
	startswith(v, "/")
	not regex.match(`(^|/)\.\.(/|$)`, v)
	paths.under_any(v, roots)
}

# METADATA
# title: risky
# description: The words of a runner's command line that use an option its grant never covers.
risky(argv) := {w |
	some n in (names(argv) | {"*"})
	flags := object.get(data.opafence.lib.runner.options, [n, "flags"], {})
	some i, w in argv
	i > 0
	some f, allowed in flags
	v := flag_value(argv, i, w, f)
	not value_allowed(v, allowed)
} | {w |
	some n in names(argv)
	object.get(data.opafence.lib.runner.options, [n, "assign"], false) == true
	some i, w in argv
	i > 0
	regex.match(`^[A-Za-z_][A-Za-z0-9_]*=`, w)
}

flag_value(argv, i, w, f) := v if {
	w == f
	i + 1 < count(argv)
	v := argv[i + 1]
} else := "" if {
	w == f
} else := v if {
	startswith(w, concat("", [f, "="]))
	v := substring(w, count(f) + 1, -1)
} else := v if {
	count(f) == 2
	not startswith(w, "--")
	startswith(w, f)
	count(w) > 2
	v := substring(w, 2, -1)
}

value_allowed(v, allowed) if {
	allowed != ""
	startswith(v, allowed)
}

# METADATA
# title: env_ok
# description: |
#   True when a runner's environment keeps it the runner the user asked for: only variables
#   of data.opafence.lib.runner.safe_env, and search paths (PYTHONPATH) inside the roots.
env_ok(env, roots) if {
	every k, v in env {
		env_allowed(k, v, roots)
	}
}

env_allowed(k, _, _) if k in data.opafence.lib.runner.safe_env

env_allowed(k, v, roots) if {
	k in data.opafence.lib.runner.path_env
	every p in split(v, ":") {
		path_entry_ok(p, roots)
	}
}

path_entry_ok(p, _) if p == ""

path_entry_ok(p, _) if {
	p != ""
	not startswith(p, "/")
	not startswith(p, "~")
	not startswith(p, "$")
	not regex.match(`(^|/)\.\.(/|$)`, p)
}

path_entry_ok(p, roots) if inside(p, roots)
