# METADATA
# title: No terraform apply
# description: |
#   Infrastructure changes go through the CI pipeline, never through an agent: terraform
#   (and OpenTofu) apply, destroy and import are blocked wherever the command appears, in a
#   pipeline, under sudo, inside `bash -c` or in code (opafence unwraps all of them into
#   input.facts.shell.commands).
package org.acme.rules.terraform_apply

import data.org.acme.lib.reason

tools := {"terraform", "tofu", "terragrunt"}

changing := {"apply", "destroy", "import"}

# METADATA
# title: ORG_NO_TERRAFORM_APPLY
# description: "ACME policy: agents may not run `{{.tool}} {{.sub}}`; infrastructure changes go through CI."
# custom:
#   code: ORG_NO_TERRAFORM_APPLY
deny contains reason.render(rego.metadata.rule(), {"tool": c.name, "sub": sub}) if {
	some c in input.facts.shell.commands
	c.name in tools
	sub := c.operands[0]
	sub in changing
}

# METADATA
# title: ORG_OPAQUE_TERRAFORM
# description: "ACME policy: a shell command that mentions terraform could not be read, so the user is asked."
# custom:
#   code: ORG_OPAQUE_TERRAFORM
ask contains reason.make(rego.metadata.rule()) if {
	input.facts.shell.opaque == true
	some w in input.facts.words
	w in tools
}
