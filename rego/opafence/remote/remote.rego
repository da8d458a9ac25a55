# METADATA
# title: Remote mode (a shared OPA serving many hosts)
# description: |
#   A shared OPA holds the tasks and configurations of many Hermes hosts. Each host's
#   configuration lives at data.hosts[<host id>].config, never at data.config, so one host
#   cannot change another's mode or overrides. These entrypoints evaluate the ordinary
#   decisions with data.config replaced by the calling host's own configuration (input.host.id,
#   which the shared OPA's authorization policy ties to the host's token). A host whose
#   configuration was never pushed gets the defaults (enforce mode, no overrides).
# schemas:
#   - input: schema.input
package opafence.remote

# METADATA
# title: decision
# description: The tool-call decision of the host named in input.host.id, under its own configuration.
# entrypoint: true
decision := d if {
	d := data.opafence.decision with data.config as _host_config
}

# METADATA
# title: spend
# description: The spend decision of the host named in input.host.id, under its own configuration.
# entrypoint: true
spend := d if {
	d := data.opafence.budget.spend.decision with data.config as _host_config
}

# METADATA
# title: host_config
# description: The calling host's configuration; {} (the defaults) when it never pushed one.
default _host_config := {}

_host_config := data.hosts[input.host.id].config
