# METADATA
# title: Actions
# description: |
#   An action is one thing a call does: a risk class plus the targets it acts on. The classifier
#   produces them; the task module checks each against the grants.
#   {"class", "caps": set, "paths": set, "domains": set, "recipients": set, "argv": [...],
#    "packages": set, "open": bool, "egress": bool, "why": string}. "open" means the targets are
#   not fully known, so no bounded grant can cover the action. A class's default capabilities
#   (docs/contract.md vocabulary) apply when the fields name none.
package opafence.lib.action

# One literal object per class (a constant, not computed per query), so making an action is a
# single object.union.
bases := {
	"READ": {"class": "READ", "caps": set(), "paths": set(), "domains": set(), "recipients": set(), "argv": [], "packages": set(), "open": false, "egress": false, "why": ""},
	"LOCAL_WRITE": {"class": "LOCAL_WRITE", "caps": {"edit"}, "paths": set(), "domains": set(), "recipients": set(), "argv": [], "packages": set(), "open": false, "egress": false, "why": ""},
	"DELETE": {"class": "DELETE", "caps": {"delete"}, "paths": set(), "domains": set(), "recipients": set(), "argv": [], "packages": set(), "open": false, "egress": false, "why": ""},
	"EXECUTION": {"class": "EXECUTION", "caps": set(), "paths": set(), "domains": set(), "recipients": set(), "argv": [], "packages": set(), "open": false, "egress": false, "why": ""},
	"COMMUNICATION": {"class": "COMMUNICATION", "caps": {"send"}, "paths": set(), "domains": set(), "recipients": set(), "argv": [], "packages": set(), "open": false, "egress": false, "why": ""},
	"EXTERNAL_WRITE": {"class": "EXTERNAL_WRITE", "caps": {"publish"}, "paths": set(), "domains": set(), "recipients": set(), "argv": [], "packages": set(), "open": false, "egress": false, "why": ""},
	"FINANCIAL": {"class": "FINANCIAL", "caps": {"pay"}, "paths": set(), "domains": set(), "recipients": set(), "argv": [], "packages": set(), "open": false, "egress": false, "why": ""},
	"PERMISSION_CHANGE": {"class": "PERMISSION_CHANGE", "caps": set(), "paths": set(), "domains": set(), "recipients": set(), "argv": [], "packages": set(), "open": false, "egress": false, "why": ""},
	"MEMORY_WRITE": {"class": "MEMORY_WRITE", "caps": {"remember"}, "paths": set(), "domains": set(), "recipients": set(), "argv": [], "packages": set(), "open": false, "egress": false, "why": ""},
	"SELF_MODIFICATION": {"class": "SELF_MODIFICATION", "caps": set(), "paths": set(), "domains": set(), "recipients": set(), "argv": [], "packages": set(), "open": false, "egress": false, "why": ""},
	"UNKNOWN": {"class": "UNKNOWN", "caps": set(), "paths": set(), "domains": set(), "recipients": set(), "argv": [], "packages": set(), "open": false, "egress": false, "why": ""},
}

# METADATA
# title: make
# description: An action of class c with fields; an empty caps set keeps the class's default capabilities.
make(c, fields) := object.union(bases[c], object.remove(fields, {"caps"})) if {
	count(object.get(fields, "caps", set())) == 0
} else := object.union(bases[c], fields)
