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
classes(words) := pick(found(words))

pick(f) := {"UNKNOWN"} if {
	count(f) == 0
} else := f - {"READ"} if {
	count(f - {"READ"}) > 0
} else := f

found(words) := with_money(words, ((named(words) | phrased(words)) | booked(words)))

with_money(words, verbs) := ((verbs | escalated(words, verbs)) | unknown_verbs(words)) | {"FINANCIAL"} if {
	money_name(words, verbs)
} else := (verbs | escalated(words, verbs)) | unknown_verbs(words)

# "create_payment", "send_payment", "add_transfer": writing a payment is paying.
money_name(words, verbs) if {
	some w in words
	data.opafence.classify.verbs.money_nouns[w]
	count(verbs - {"READ", "UNKNOWN"}) > 0
	nouns := noun_indices(words, verb_map(words))
	count(nouns) > 0
	data.opafence.classify.verbs.money_nouns[words[max(nouns)]]
}

verb_position(_, 0)

verb_position(words, i) if {
	i > 0
	data.opafence.classify.verbs.conjunction_words[words[i - 1]]
}

known(w) if data.opafence.classify.verbs.verb_table[w]

known(w) if data.opafence.classify.verbs.noun_verb_table[w]

known(w) if data.opafence.classify.verbs.conjunction_words[w]

known(w) if data.opafence.classify.verbs.booking_verbs[w]

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
escalated(words, verbs) := {"PERMISSION_CHANGE"} if {
	some w in words
	data.opafence.classify.verbs.permission_nouns[w]
	count(verbs - {"READ", "UNKNOWN"}) > 0
} else := set()

# "read_and_frobnicate": the second verb is unknown, so the name is not known to be a read.
unknown_verbs(words) := {"UNKNOWN"} if {
	some i, w in words
	i > 0
	verb_position(words, i)
	not known(w)
	not starts_phrase(words, i)
} else := set()

# --- what a name acts on, and how ----------------------------------------------------------------

# METADATA
# title: verb_classes
# description: The classes words[i] gives as a verb of the name (empty when it is no verb there).
verb_classes(words, i) := {c | some c in data.opafence.classify.verbs.phrase_table[concat("_", [words[i], words[i + 1]])]} if {
	starts_phrase(words, i)
} else := set() if {
	in_phrase(words, i)
} else := ({c | some c in data.opafence.classify.verbs.verb_table[words[i]]} | {c |
	verb_position(words, i)
	some c in data.opafence.classify.verbs.noun_verb_table[words[i]]
}) | booking(words, i)

# A booking spends money unless the name books time or a room (booking_free_objects).
booking(words, i) := {booking_class(words)} if {
	data.opafence.classify.verbs.booking_verbs[words[i]] == "verb"
} else := {booking_class(words)} if {
	data.opafence.classify.verbs.booking_verbs[words[i]] == "noun_verb"
	verb_position(words, i)
} else := set()

booking_class(words) := "EXTERNAL_WRITE" if {
	some w in words
	data.opafence.classify.verbs.booking_free_objects[w]
	not paid_booking(words)
} else := "FINANCIAL"

paid_booking(words) if {
	some w in words
	data.opafence.classify.verbs.booking_paid_objects[w]
}

booked(words) := {c |
	some i, w in words
	data.opafence.classify.verbs.booking_verbs[w]
	some c in booking(words, i)
}

# "create_or_update": the three words are one upsert.
in_upsert(words, i) if {
	some j in {i, i - 1, i - 2}
	j >= 0
	j + 2 < count(words)
	data.opafence.classify.verbs.upsert_phrases[concat("_", array.slice(words, j, j + 3))]
}

# METADATA
# title: operations
# description: |
#   Per class, the kinds of action (operation_kinds) of the name's verbs of that class: a verb
#   without a kind is its own kind, which no grant names. args may name the kind of a generic
#   verb ("issue_write" with method "create").
operations(words, args, classes, vm) := {c: kinds_of(words, args, c, vm) | some c in classes}

kinds_of(words, args, c, vm) := {kind_at(words, args, i) |
	some i, _ in words
	c in vm[i].classes
	not in_upsert(words, i)
} | {"upsert" |
	some i, _ in words
	c in vm[i].classes
	in_upsert(words, i)
}

# METADATA
# title: verb_map
# description: |
#   Per word of the name, the classes it gives as a verb and whether it is a verb there (a word
#   of a two-word verb is): computed once, for head_object and operations.
verb_map(words) := {i: {"classes": cs, "verb": verbish(cs, words, i)} |
	some i, _ in words
	cs := verb_classes(words, i)
}

verbish(cs, words, i) if count(cs) > 0

else if in_phrase(words, i)

else := false

kind_at(words, args, i) := kind if {
	data.opafence.classify.verbs.method_verbs[words[i]]
	some k, v in args
	data.opafence.classify.verbs.method_args[lower(k)]
	is_string(v)
	kind := object.get(data.opafence.classify.verbs.operation_kinds, lower(v), lower(v))
} else := data.opafence.classify.verbs.operation_kinds[concat("_", [words[i], words[i + 1]])] if {
	starts_phrase(words, i)
} else := concat("_", [words[i], words[i + 1]]) if {
	starts_phrase(words, i)
} else := object.get(data.opafence.classify.verbs.operation_kinds, words[i], words[i])

# METADATA
# title: head_object
# description: |
#   What the name acts on: the object (object_words) of its last noun before a preposition
#   ("add_issue_comment" -> comment, "create_issue_in_repo" -> issue, "merge_pull_request" ->
#   pull_request), else the object its verb implies ("comment_on_issue" -> comment); "" when
#   it names none, and "?word" for a noun no table knows.
head_object(words, vm) := object_at(words, max(nouns)) if {
	nouns := noun_indices(words, vm)
	count(nouns) > 0
} else := data.opafence.classify.verbs.implied_objects[words[0]] if {
	count(words) > 0
} else := ""

name_end(words) := min({i |
	some i, w in words
	i > 0
	data.opafence.classify.verbs.name_prepositions[w]
} | {count(words)})

noun_indices(words, vm) := {i |
	end := name_end(words)
	some i, w in words
	i < end
	not vm[i].verb
	not data.opafence.classify.verbs.name_qualifiers[w]
	not regex.match(`^[0-9]+$`, w)
}

object_at(words, i) := data.opafence.classify.verbs.compound_objects[concat("_", [words[i - 1], words[i]])] if {
	i > 0
} else := data.opafence.classify.verbs.object_words[words[i]] if {
	true
} else := concat("", ["?", words[i]])
