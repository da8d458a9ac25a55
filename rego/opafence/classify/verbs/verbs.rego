# METADATA
# title: Verb classification
# description: |
#   Classifies a name made of lower-case words (an MCP tool name, a cloud CLI's subcommands)
#   by the verbs in it. Every verb counts and the riskiest class wins; a name without a known
#   verb is UNKNOWN, and so is an unknown word in a verb position after "and" / "or".
#   The tables are in data.yaml beside this file.
package opafence.classify.verbs

# METADATA
# title: classes
# description: The risk classes words name; {"UNKNOWN"} when they name no known verb.
classes(words) := {"UNKNOWN"} if {
	count(found(words)) == 0
} else := found(words) - {"READ"} if {
	count(found(words) - {"READ"}) > 0
} else := found(words)

found(words) := ((named(words) | phrased(words)) | escalated(words)) | unknown_verbs(words)

verb_position(_, 0)

verb_position(words, i) if {
	i > 0
	data.opafence.classify.verbs.conjunction_words[words[i - 1]]
}

known(w) if data.opafence.classify.verbs.verb_table[w]

known(w) if data.opafence.classify.verbs.noun_verb_table[w]

known(w) if data.opafence.classify.verbs.conjunction_words[w]

starts_phrase(words, i) if data.opafence.classify.verbs.phrase_table[concat("_", [words[i], words[i + 1]])]

named(words) := {c |
	some i, w in words
	not in_phrase(words, i)
	some c in data.opafence.classify.verbs.verb_table[w]
} | {c |
	some i, w in words
	not in_phrase(words, i)
	verb_position(words, i)
	some c in data.opafence.classify.verbs.noun_verb_table[w]
}

# A word that is part of a two-word verb ("port forward", "check out") counts only as that.
in_phrase(words, i) if starts_phrase(words, i)

in_phrase(words, i) if {
	i > 0
	starts_phrase(words, i - 1)
}

phrased(words) := {c |
	some i in numbers.range(0, count(words) - 2)
	some c in data.opafence.classify.verbs.phrase_table[concat("_", [words[i], words[i + 1]])]
}

# A write verb beside a noun such as "permissions", "role" or "token" changes who may do what.
escalated(words) := {"PERMISSION_CHANGE"} if {
	some w in words
	data.opafence.classify.verbs.permission_nouns[w]
	count((named(words) | phrased(words)) - {"READ", "UNKNOWN"}) > 0
} else := set()

# "read_and_frobnicate": the second verb is unknown, so the name is not known to be a read.
unknown_verbs(words) := {"UNKNOWN"} if {
	some i, w in words
	i > 0
	verb_position(words, i)
	not known(w)
	not starts_phrase(words, i)
} else := set()
