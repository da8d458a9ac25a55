# METADATA
# title: Reason helpers
# description: |
#   Build {"code", "message"} reasons from a rule's METADATA (custom.code, description), so
#   the code and the wording live in one place. The description may use Go template fields.
package org.acme.lib.reason

# METADATA
# title: make
# description: A reason object from a rule's annotations.
make(meta) := {"code": meta.custom.code, "message": meta.description}

# METADATA
# title: render
# description: Like make, with the message rendered as a Go template over vars.
render(meta, vars) := {"code": meta.custom.code, "message": strings.render_template(meta.description, vars)}
