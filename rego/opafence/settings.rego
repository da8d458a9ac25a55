# METADATA
# title: Settings
# description: The user's configuration (data.config) with its defaults, read in one place.
# schemas:
#   - data.config: schema.config
package opafence.settings

modes := {"enforce", "monitor", "strict"}

# METADATA
# title: mode
# description: enforce (default), monitor or strict. An invalid mode is reported by config_check and treated as enforce.
default mode := "enforce"

mode := data.config.mode if data.config.mode in modes

# METADATA
# title: unattended_ask
# description: What an ask becomes when nobody can answer it; block unless the user configured allow.
default unattended_ask := "block"

unattended_ask := "allow" if data.config.unattended_ask == "allow"
