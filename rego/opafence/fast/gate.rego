# The fast tier's gate (fast.rego's decision takes it first): a few lookups that every answer
# implies (read_call, shell_read and write_grants in fast.rego). A call that fails them cannot be
# answered, so most calls the fast tier does not decide cost it these lookups rather than all of
# its conditions. Each is guarded by type checks, so that it raises no builtin error on an input
# the conditions after it would have refused.
package opafence.fast

# The gate first, then the conditions under which the fast tier may answer at all.
_decidable if {
	_candidate
	quiet
}

_candidate if data.opafence.fast.tables.read_tools[input.call.tool]

# A shell program of commands that plain_read can accept, by name.
_candidate if {
	input.call.tool == "terminal"
	commands := input.facts.shell.commands
	is_array(commands)
	count(commands) > 0
	every c in commands {
		_read_command_name(c.name)
	}
}

# A write of paths that one plain grant's paths (or the workspace) hold.
_candidate if {
	data.opafence.fast.tables.write_tools[input.call.tool]
	some g in grants
	plain_grant(g)
	every w in object.get(input.host, "workspace", []) {
		is_string(w)
	}
	every p in input.facts.paths {
		is_string(p.path)
		granted_path(g, p.path)
	}
}

_read_command_name(name) if data.opafence.fast.tables.read_commands[name]

_read_command_name("git")
