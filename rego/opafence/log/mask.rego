# METADATA
# title: Decision-log masking
# description: |
#   What OPA's decision logs may carry to an organization's collector. OPA evaluates `mask`
#   (`decision_logs.mask_decision: /opafence/log/mask`) and `drop` (`drop_decision`) with the
#   decision-log event as input, before an event is buffered or sent.
#
#   Contents never leave: `input.call.args` becomes a summary (each argument's type and the
#   length of its JSON text), and `input.facts` is replaced by an allowlisted projection:
#   targets stay (canonical paths, URL scheme/host/port, recipient addresses and domains, tool
#   and command names, option names, secret kinds), contents go (raw strings, command argv and
#   operands, environment values, URL paths and queries, word tokens). A facts field this
#   package does not know is dropped, so a new field is private until it is listed here.
#   When masking fails OPA drops the event rather than sending it unmasked.
package opafence.log

# METADATA
# title: mask
# description: Upsert operations that replace argument contents and facts with their masked forms.
mask contains {"op": "upsert", "path": "/input/call/args", "value": _args_summary} if is_object(input.input.call)

mask contains {"op": "upsert", "path": "/input/facts", "value": _facts_summary} if is_object(input.input.facts)

# METADATA
# title: drop
# description: Events of opafence's own bookkeeping reads (bundle manifests under data.system) are not decisions.
drop if startswith(input.path, "system")

_args_summary := {key: _summary(value) | some key, value in input.input.call.args}

_summary(value) := {"type": type_name(value), "size": count(json.marshal(value))}

_facts_summary := {key: masked |
	some key, value in input.input.facts
	masked := _project(key, value)
}

# --- the allowlist, field by field --------------------------------------------------------

_project("tool", tool) := tool

_project("opaque", opaque) := opaque

_project("opaque_reasons", reasons) := reasons

_project("content_bytes", n) := n

_project("secrets", secrets) := [object.filter(s, {"arg", "kind"}) | some s in secrets]

_project("paths", paths) := [object.filter(p, {"path", "arg", "via", "op"}) | some p in paths]

_project("urls", urls) := [object.filter(u, _url_keys) | some u in urls]

_project("recipients", recipients) := [object.filter(r, _recipient_keys) | some r in recipients]

_project("code", code) := object.filter(code, _code_keys)

# Provenance keeps what kind of target came from which call, never the value itself (a
# command line or an account number would be contents).
_project("provenance", prov) := {
	"lossy": object.get(prov, "lossy", false),
	"targets": [object.union(object.filter(t, {"kind", "arg", "user", "untrusted"}), _source_of(t)) |
		some t in object.get(prov, "targets", [])
	],
}

_source_of(t) := {"source": object.filter(t.source, {"tool", "call", "labels"})} if t.source

else := {}

_project("shell", shell) := object.union(
	object.filter(shell, {"opaque", "opaque_reasons"}),
	{"commands": [_command(c) | some c in shell.commands]},
)

_url_keys := {"scheme", "host", "port", "query_len", "has_credentials", "secret_like", "ip", "loopback", "private", "arg"}

_recipient_keys := {"address", "domain", "field", "valid", "mixed_script", "confusable"}

_code_keys := {"language", "opaque", "opaque_reasons", "imports", "calls", "tool_calls", "network"}

_command_keys := {"name", "wrappers", "context", "depth", "pipe_from", "dynamic"}

# A command keeps its name and the names of its options, environment variables and
# redirect targets; argv, operands and values are contents.
_command(c) := object.union(object.filter(c, _command_keys), {
	"flags": [name | some f in c.flags; name := _option_name(f)],
	"env": [name | some name, _ in c.env],
	"redirects": [object.filter(r, {"op", "fd", "path", "mode"}) | some r in c.redirects],
})

# "--password=x" keeps "--password"; anything not shaped like an option name ("-psecret") goes.
_option_name(flag) := name if {
	name := split(flag, "=")[0]
	regex.match(`^(-[A-Za-z0-9]|--[A-Za-z0-9][A-Za-z0-9_-]*)$`, name)
}
