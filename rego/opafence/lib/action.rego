# METADATA
# title: Actions
# description: |
#   An action is one thing a call does: a risk class plus the targets it acts on. The classifier
#   produces them; the task module checks each against the grants.
#   {"class", "caps": set, "paths": set, "domains": set, "recipients": set, "argv": [...],
#    "packages": set, "open": bool, "egress": bool, "why": string}. "open" means the targets are
#   not fully known, so no bounded grant can cover the action.
package opafence.lib.action

# Capabilities an action carries when its table names none (docs/contract.md vocabulary).
default_caps := {
	"LOCAL_WRITE": {"edit"},
	"DELETE": {"delete"},
	"COMMUNICATION": {"send"},
	"EXTERNAL_WRITE": {"publish"},
	"FINANCIAL": {"pay"},
	"MEMORY_WRITE": {"remember"},
}

# METADATA
# title: make
# description: An action of class c with fields; the rest default to empty, caps to the class's default.
make(c, fields) := {
	"class": c,
	"caps": caps(c, object.get(fields, "caps", set())),
	"paths": object.get(fields, "paths", set()),
	"domains": object.get(fields, "domains", set()),
	"recipients": object.get(fields, "recipients", set()),
	"argv": object.get(fields, "argv", []),
	"packages": object.get(fields, "packages", set()),
	"open": object.get(fields, "open", false),
	"egress": object.get(fields, "egress", false),
	"why": object.get(fields, "why", ""),
}

caps(c, given) := given if {
	count(given) > 0
} else := d if {
	d := default_caps[c]
} else := set()
