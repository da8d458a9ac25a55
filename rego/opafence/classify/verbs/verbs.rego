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

# "create_payment", "send_payment", "add_transfer": writing a payment is paying. The noun is the
# name's head: its last word before a preposition that is no verb, qualifier or number.
# METADATA
# title: payment_name
# description: |
#   True when a write's name acts on money ("create_transfer", "create_refund"): the write is
#   that payment.
payment_name(words) if money_name(words, ((named(words) | phrased(words)) | booked(words)))

# The last word before a preposition is a money noun that is also a verb elsewhere ("refund",
# "plan"): "create_refund", "change_plan" act on money.
money_name(words, verbs) if {
	count(verbs - {"READ", "UNKNOWN"}) > 0
	end := name_end(words)
	end > 1
	data.opafence.classify.verbs.money_nouns[words[end - 1]]
}

money_name(words, verbs) if {
	some w in words
	data.opafence.classify.verbs.money_nouns[w]
	count(verbs - {"READ", "UNKNOWN"}) > 0
	end := name_end(words)
	heads := [x |
		some i, x in words
		i < end
		not data.opafence.classify.verbs.verb_table[x]
		not data.opafence.classify.verbs.name_qualifiers[x]
		not regex.match(`^[0-9]+$`, x)
	]
	count(heads) > 0
	data.opafence.classify.verbs.money_nouns[heads[count(heads) - 1]]
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

# --- bookings and payments ------------------------------------------------------------------------

# A booking spends money unless the name books time or a room (booking_free_objects).
booking(words, i) := {booking_class(words)} if {
	data.opafence.classify.verbs.booking_verbs[words[i]] == "verb"
} else := {booking_class(words)} if {
	data.opafence.classify.verbs.booking_verbs[words[i]] == "noun_verb"
	verb_position(words, i)
} else := set()

# METADATA
# title: booking_class
# description: The class of a booking verb in this name.
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

# METADATA
# title: name_end
# description: Where the part of a name that says what it acts on ends (its first preposition).
name_end(words) := min({i |
	some i, w in words
	i > 0
	data.opafence.classify.verbs.name_prepositions[w]
} | {count(words)})
