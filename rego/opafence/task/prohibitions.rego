# A prohibition of mentions (task.rego's hits, in a file of its own so task.rego does not grow).
package opafence.task

# "Don't @-mention anyone" binds every call whose text mentions someone (facts.mentions), a
# granted post included: the mention is what notifies people.
hits contains {"p": p, "what": "mentioning people"} if {
	some p in policy.prohibitions
	object.get(p, "mentions", false) == true
	count(object.get(input.facts, "mentions", [])) > 0
}
