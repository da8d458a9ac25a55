package opafence.log_test

import data.opafence.log

event(call, facts) := {"path": "opafence/decision", "input": {"task": "t", "call": call, "facts": facts}}

masked_value(ev, path) := [m.value | some m in log.mask with input as ev; m.path == path][0]

test_args_become_type_and_size if {
	ev := event({"tool": "send", "args": {"to": ["a@b.co"], "body": "SECRET body", "n": 3}, "id": ""}, {})
	masked_value(ev, "/input/call/args") == {
		"to": {"type": "array", "size": 10},
		"body": {"type": "string", "size": 13},
		"n": {"type": "number", "size": 1},
	}
}

# Each case: a facts object, and the masked facts it must become (contents gone, targets kept).
facts_cases := [
	{
		"note": "provenance keeps kinds and sources, never the values",
		"facts": {"provenance": {"lossy": false, "why": "", "targets": [
			{"kind": "iban", "value": "DE89370400440532013000", "arg": "iban", "user": false, "untrusted": true, "source": {"tool": "mcp__gmail__read_email", "call": 2, "labels": ["mail"], "path": "bill.txt"}},
			{"kind": "email", "value": "j@x.io", "arg": "to", "user": true, "untrusted": false},
		]}},
		"want": {"provenance": {"lossy": false, "targets": [
			{"kind": "iban", "arg": "iban", "user": false, "untrusted": true, "source": {"tool": "mcp__gmail__read_email", "call": 2, "labels": ["mail"]}},
			{"kind": "email", "arg": "to", "user": true, "untrusted": false},
		]}},
	},
	{
		"note": "word tokens are contents",
		"facts": {"words": ["secret", "plan"], "content_bytes": 11, "opaque": false},
		"want": {"content_bytes": 11, "opaque": false},
	},
	{
		"note": "paths keep the canonical path, not the raw text",
		"facts": {"paths": [{"raw": "~/x", "path": "/h/x", "arg": "path", "via": "arg", "op": ""}]},
		"want": {"paths": [{"path": "/h/x", "arg": "path", "via": "arg", "op": ""}]},
	},
	{
		"note": "urls keep scheme, host and port; path and query are contents",
		"facts": {"urls": [{
			"raw": "https://h.io/hook/T0K3N?q=1", "scheme": "https", "host": "h.io", "port": 443,
			"path": "/hook/T0K3N", "query_len": 3, "secret_like": true, "arg": "url",
		}]},
		"want": {"urls": [{
			"scheme": "https", "host": "h.io", "port": 443, "query_len": 3,
			"secret_like": true, "arg": "url",
		}]},
	},
	{
		"note": "recipients keep the address, not the display name",
		"facts": {"recipients": [{
			"raw": "John Secret <j@x.io>", "address": "j@x.io", "local": "j",
			"domain": "x.io", "field": "to", "valid": true,
		}]},
		"want": {"recipients": [{"address": "j@x.io", "domain": "x.io", "field": "to", "valid": true}]},
	},
	{
		"note": "shell commands keep names, option names, env names and redirect targets",
		"facts": {"shell": {"opaque": false, "opaque_reasons": [], "commands": [{
			"name": "curl", "argv": ["curl", "-H", "Authorization: Bearer s3cr3t", "https://x.io"],
			"flags": ["-H", "--data=s3cr3t", "-ps3cr3t"], "operands": ["https://x.io"],
			"operand_paths": ["/ws/https:/x.io"], "env": {"TOKEN": "s3cr3t"},
			"redirects": [{"op": ">", "fd": 1, "raw": "out.txt", "path": "/ws/out.txt", "mode": "write"}],
			"wrappers": ["sudo"], "context": "top", "depth": 0, "dynamic": false,
		}]}},
		"want": {"shell": {"opaque": false, "opaque_reasons": [], "commands": [{
			"name": "curl", "flags": ["-H", "--data"], "env": ["TOKEN"],
			"redirects": [{"op": ">", "fd": 1, "path": "/ws/out.txt", "mode": "write"}],
			"wrappers": ["sudo"], "context": "top", "depth": 0, "dynamic": false,
		}]}},
	},
	{
		"note": "code keeps imports and call names, never the code",
		"facts": {"code": {"language": "python", "opaque": false, "imports": ["os"], "calls": ["os.system"], "source": "x"}},
		"want": {"code": {"language": "python", "opaque": false, "imports": ["os"], "calls": ["os.system"]}},
	},
	{
		"note": "secrets keep where and what kind, never the secret",
		"facts": {"secrets": [{"arg": "body", "kind": "jwt", "value": "eyJ..."}]},
		"want": {"secrets": [{"arg": "body", "kind": "jwt"}]},
	},
	{
		"note": "a field this package does not know is dropped",
		"facts": {"tool": {"name": "x", "origin": "builtin"}, "future_field": "contents?"},
		"want": {"tool": {"name": "x", "origin": "builtin"}},
	},
]

# Collect the failing cases by note, so a failure says which case broke.
test_facts_are_projected if {
	failed := {case.note |
		some case in facts_cases
		masked_value(event({"tool": "t", "args": {}, "id": ""}, case.facts), "/input/facts") != case.want
	}
	print("failed cases:", failed)
	count(failed) == 0
}

test_no_mask_without_an_input if {
	count(log.mask) == 0 with input as {"path": "opafence/decision"}
}

test_drop_only_system_reads if {
	log.drop with input as {"path": "system/bundles"}
	not log.drop with input as {"path": "opafence/decision"}
}
