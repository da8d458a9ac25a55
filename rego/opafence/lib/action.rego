# METADATA
# title: Actions
# description: |
#   An action is one thing a call does: a risk class plus the targets it acts on. The classifier
#   produces them; the task module checks each against the grants.
#   {"class", "caps": set, "paths": set, "domains": set, "recipients": set, "argv": [...],
#    "packages": set, "open": bool, "egress": bool}. "open" means the targets are not fully known,
#   so no bounded grant can cover the action.
package opafence.lib.action

# METADATA
# title: make
# description: An action of class c with fields; the rest default to empty.
make(c, fields) := object.union(
	{
		"class": c, "caps": set(), "paths": set(), "domains": set(), "recipients": set(),
		"argv": [], "packages": set(), "open": false, "egress": false,
	},
	fields,
)
