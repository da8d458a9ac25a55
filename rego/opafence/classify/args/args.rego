# METADATA
# title: Argument names of built-in tools
# description: |
#   A call of a tool Hermes 0.19.0 registers whose arguments do not fit that tool's schema (a key
#   the schema does not define, such as `cmd` for terminal's `command`, or a required key left
#   out) is UNKNOWN: opafence cannot tell what the tool will do with it, so such a call is never
#   READ. The names are in data.yaml beside this file (tool_args). A tool the user maps in
#   config.tools is classified by that mapping instead.
# schemas:
#   - input: schema.input
package opafence.classify.args

# METADATA
# title: unknown_keys
# description: Keys of input.call.args that the tool's schema does not define.
unknown_keys contains k if {
	spec := data.opafence.classify.args.tool_args[input.call.tool]
	some k, _ in input.call.args
	not k in {p | some p in spec.properties}
}

# METADATA
# title: missing_keys
# description: Keys the tool's schema requires that input.call.args does not have.
missing_keys contains k if {
	spec := data.opafence.classify.args.tool_args[input.call.tool]
	some k in spec.required
	not k in object.keys(input.call.args)
	not k in {d | some d in object.get(spec, "defaulted", [])}
}

# METADATA
# title: whys
# description: One sentence per argument problem, naming the key (it goes into the UNKNOWN reason).
whys contains sprintf("%s has no argument %q (it takes: %s)", [input.call.tool, k, _takes]) if {
	some k in unknown_keys
}

whys contains sprintf("%s needs the argument %q", [input.call.tool, k]) if {
	some k in missing_keys
}

_takes := concat(", ", sort(data.opafence.classify.args.tool_args[input.call.tool].properties)) if {
	count(data.opafence.classify.args.tool_args[input.call.tool].properties) > 0
} else := "no arguments"
