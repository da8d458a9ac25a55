# METADATA
# title: Reason helpers
# description: |
#   Build reason objects from a rule's METADATA, so every rule's code, message and fix live
#   in one place (its annotations) instead of being repeated in strings.
package opafence.lib.reason

# METADATA
# title: make
# description: A reason object from rule annotations; custom.code, description and custom.fix.
make(meta) := {"code": meta.custom.code, "message": meta.description, "fix": object.get(meta.custom, "fix", "")}

# METADATA
# title: render
# description: Like make, with the message and fix rendered as Go templates over vars.
render(meta, vars) := {
	"code": meta.custom.code,
	"message": strings.render_template(meta.description, vars),
	"fix": strings.render_template(object.get(meta.custom, "fix", ""), vars),
}

# METADATA
# title: valid
# description: True when r is a reason object another module or an org bundle may contribute.
valid(r) if {
	is_string(r.code)
	r.code != ""
	is_string(r.message)
	r.message != ""
}
