# METADATA
# title: Path, domain and command matching
# description: |
#   Pure helpers the classifier and the task module share. Paths are canonical absolute paths
#   (the facts builder resolves them); these helpers only compare them.
package opafence.lib.paths

# METADATA
# title: under
# description: True when path p is base itself or lies below it (component-wise, never a prefix of a name).
under(p, base) if p == base

under(p, base) if {
	base != "/"
	startswith(p, concat("", [trim_suffix(base, "/"), "/"]))
}

under(_, "/")

# METADATA
# title: under_any
# description: True when p is under one of bases.
under_any(p, bases) if {
	some base in bases
	under(p, base)
}

# METADATA
# title: domain_within
# description: True when host is domain or a subdomain of it (case-insensitive, trailing dot ignored).
domain_within(host, domain) if {
	h := trim_suffix(lower(host), ".")
	d := trim_prefix(trim_suffix(lower(domain), "."), "*.")
	d != ""
	h == d
}

domain_within(host, domain) if {
	h := trim_suffix(lower(host), ".")
	d := trim_prefix(trim_suffix(lower(domain), "."), "*.")
	d != ""
	endswith(h, concat("", [".", d]))
}

# METADATA
# title: domain_within_any
# description: True when host lies within one of domains.
domain_within_any(host, domains) if {
	some d in domains
	domain_within(host, d)
}

# METADATA
# title: command_matches
# description: |
#   True when argv, joined with single spaces, is the literal command exactly (whitespace
#   normalized): "make deploy" matches make deploy, not make deploy --prod or make deployer.
#   A literal runs only as written (issue 14): extra words are another command.
command_matches(argv, literal) if {
	p := normalize_command(literal)
	p != ""
	normalize_command(concat(" ", argv)) == p
}

normalize_command(s) := trim_space(regex.replace(s, `\s+`, " "))

# METADATA
# title: command_matches_any
# description: True when argv is one of the literal commands.
command_matches_any(argv, literals) if {
	some p in literals
	command_matches(argv, p)
}

# METADATA
# title: ancestors
# description: The path and every directory above it, "/" included ("/a/b" -> {"/a/b", "/a", "/"}).
ancestors(p) := {concat("/", array.slice(parts, 0, i)) |
	parts := split(trim_suffix(p, "/"), "/")
	count(parts) > 1
	some i in numbers.range(2, count(parts))
} | {"/"}

# METADATA
# title: bases
# description: A set of directories in the form ancestors() produces (no trailing slash; "/" kept).
bases(ps) := {b |
	some p in ps
	p != ""
	b := trim_suffix(p, "/")
	b != ""
} | {"/" | "/" in ps}
