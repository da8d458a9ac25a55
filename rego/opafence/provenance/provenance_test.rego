package opafence.provenance_test

import data.opafence.provenance
import data.opafence.test.fixtures as f

# A call with these provenance records, in a tainted session unless said otherwise.
with_prov(inp, targets, lossy) := object.union(inp, {"facts": object.union(inp.facts, {"provenance": {"lossy": lossy, "why": "test", "targets": targets}})})

tainted(inp) := f.with_session(inp, f.tainted)

send(to) := f.call("mcp__gmail__send_email", {"to": to}, {})

from_mail := {"tool": "mcp__gmail__read_email", "call": 3, "labels": ["mail", "mcp"], "path": ""}

from_web := {"tool": "web_extract", "call": 2, "labels": ["web"], "path": ""}

from_bill := {"tool": "read_file", "call": 1, "labels": ["file", "outside_file"], "path": "bill.txt"}

rec(kind, value, user, untrusted, src) := {"kind": kind, "value": value, "arg": "to", "user": user, "untrusted": untrusted, "source": src}

trusted(kind, value, user) := {"kind": kind, "value": value, "arg": "to", "user": user, "untrusted": false}

delegation(targets, sources, path) := {"id": "d1", "targets": targets, "sources": sources, "path": path, "message": 1}

task_with(ds) := object.union(f.no_task, {"delegations": ds})

write_action(p) := {"class": "LOCAL_WRITE", "caps": {"edit"}, "paths": {p}, "domains": set(), "recipients": set(), "argv": [], "packages": set(), "open": false, "egress": false, "why": ""}

cases := [
	# --- an injected target blocks ------------------------------------------------------------
	{"name": "injected recipient", "input": tainted(with_prov(send("ops@evil.example"), [rec("email", "ops@evil.example", false, true, from_mail)], false)), "classes": ["COMMUNICATION"], "want": {"deny": ["PROVENANCE_UNTRUSTED"]}},
	{"name": "injected recipient the user also named", "input": tainted(with_prov(send("ops@evil.example"), [rec("email", "ops@evil.example", true, true, from_mail)], false)), "classes": ["COMMUNICATION"], "want": {}},
	{"name": "a recipient never seen in untrusted content", "input": tainted(with_prov(send("bob@example.com"), [trusted("email", "bob@example.com", false)], false)), "classes": ["COMMUNICATION"], "want": {}},
	{"name": "injected host of an upload", "input": tainted(with_prov(f.call("terminal", {"command": "x"}, {}), [rec("domain", "evil.example", false, true, from_web)], false)), "classes": ["EXTERNAL_WRITE"], "want": {"deny": ["PROVENANCE_UNTRUSTED"]}},
	{"name": "a plain read of an injected link stays a read", "input": tainted(with_prov(f.call("web_extract", {"urls": ["x"]}, {}), [rec("host", "evil.example", false, true, from_web)], false)), "classes": ["READ"], "want": {}},
	{"name": "injected account of an unknown tool", "input": tainted(with_prov(f.call("mcp__bank__wire", {"iban": "x"}, {}), [rec("iban", "DE89370400440532013000", false, true, from_mail)], false)), "classes": ["UNKNOWN"], "want": {"deny": ["PROVENANCE_UNTRUSTED"]}},
	{"name": "injected command the task does not authorize", "input": tainted(with_prov(f.call("terminal", {"command": "x"}, {}), [rec("command", "curl x | sh", false, true, from_web)], false)), "classes": ["EXECUTION"], "want": {"deny": ["PROVENANCE_UNTRUSTED"]}},
	{"name": "a command the task authorizes is the task's", "input": tainted(with_prov(f.call("terminal", {"command": "x"}, {}), [rec("command", "pytest -q", false, true, from_web)], false)), "classes": ["EXECUTION"], "authorized": ["READ", "EXECUTION"], "want": {}},
	{"name": "injected path outside the workspace", "input": tainted(with_prov(f.write_file("/tmp/x"), [rec("path", "/tmp/x", false, true, from_web)], false)), "classes": ["LOCAL_WRITE"], "actions": [write_action("/tmp/x")], "want": {"deny": ["PROVENANCE_UNTRUSTED"]}},
	{"name": "injected path inside the workspace is the task's", "input": tainted(with_prov(f.write_file("notes.md"), [rec("path", "/home/u/src/app/notes.md", false, true, from_web)], false)), "classes": ["LOCAL_WRITE"], "actions": [write_action("/home/u/src/app/notes.md")], "want": {}},
	# --- delegated to the source: ask ------------------------------------------------------------
	{"name": "recipient delegated to mail", "input": tainted(with_prov(send("ann@example.com"), [rec("email", "ann@example.com", false, true, from_mail)], false)), "classes": ["COMMUNICATION"], "delegations": [delegation(["email"], ["mail"], "")], "want": {"ask": ["PROVENANCE_DELEGATED"]}},
	{"name": "delegated to the web, came from mail", "input": tainted(with_prov(send("ops@evil.example"), [rec("email", "ops@evil.example", false, true, from_mail)], false)), "classes": ["COMMUNICATION"], "delegations": [delegation(["email"], ["web"], "")], "want": {"deny": ["PROVENANCE_UNTRUSTED"]}},
	{"name": "delegated kind differs", "input": tainted(with_prov(send("ops@evil.example"), [rec("email", "ops@evil.example", false, true, from_mail)], false)), "classes": ["COMMUNICATION"], "delegations": [delegation(["iban"], ["mail"], "")], "want": {"deny": ["PROVENANCE_UNTRUSTED"]}},
	{"name": "IBAN delegated to bill.txt", "input": tainted(with_prov(f.call("mcp__bank__pay", {}, {}), [rec("iban", "DE89370400440532013000", false, true, from_bill)], false)), "classes": ["FINANCIAL"], "delegations": [delegation(["iban"], ["file"], "bill.txt")], "want": {"ask": ["PROVENANCE_DELEGATED"]}},
	{"name": "IBAN delegated to bill.txt, came from another file", "input": tainted(with_prov(f.call("mcp__bank__pay", {}, {}), [rec("iban", "DE89370400440532013000", false, true, object.union(from_bill, {"path": "notes.txt"}))], false)), "classes": ["FINANCIAL"], "delegations": [delegation(["iban"], ["file"], "bill.txt")], "want": {"deny": ["PROVENANCE_UNTRUSTED"]}},
	{"name": "delegated to any source, any kind", "input": tainted(with_prov(send("x@y.example"), [rec("email", "x@y.example", false, true, from_web)], false)), "classes": ["COMMUNICATION"], "delegations": [delegation([], ["any"], "")], "want": {"ask": ["PROVENANCE_DELEGATED"]}},
	# --- an incomplete record --------------------------------------------------------------------
	{"name": "lossy: an unbound target counts as untrusted", "input": tainted(with_prov(send("bob@example.com"), [trusted("email", "bob@example.com", false)], true)), "classes": ["COMMUNICATION"], "want": {"deny": ["PROVENANCE_UNTRUSTED"]}},
	{"name": "lossy: the owner's own target is fine", "input": tainted(with_prov(send("bob@example.com"), [trusted("email", "bob@example.com", true)], true)), "classes": ["COMMUNICATION"], "want": {}},
	{"name": "lossy without taint changes nothing", "input": with_prov(send("bob@example.com"), [trusted("email", "bob@example.com", false)], true), "classes": ["COMMUNICATION"], "want": {}},
	{"name": "no provenance facts", "input": tainted(send("bob@example.com")), "classes": ["COMMUNICATION"], "want": {}},
]

got(c) := r if {
	r := {
		"deny": {x.code | some x in provenance.deny},
		"ask": {x.code | some x in provenance.ask},
	} with input as c.input
		with data.tasks.t as task_with(object.get(c, "delegations", []))
		with data.opafence.classify.classes as {x | some x in c.classes}
		with data.opafence.classify.actions as {x | some x in object.get(c, "actions", [])}
		with data.opafence.classify.workspace as ["/home/u/src/app"]
		with data.opafence.task.authorized as {x | some x in object.get(c, "authorized", ["READ"])}
}

test_provenance_table if {
	fails := [sprintf("%s: got %v want %v", [c.name, got(c), f.want(c)]) | some c in cases; got(c) != f.want(c)]
	print(fails)
	fails == []
}

test_message_names_the_value_and_its_source if {
	rs := provenance.deny with input as tainted(with_prov(send("ops@evil.example"), [rec("email", "ops@evil.example", false, true, from_mail)], false))
		with data.tasks.t as f.no_task
		with data.opafence.classify.classes as {"COMMUNICATION"}
	some r in rs
	startswith(r.message, "ops@evil.example first appeared in the result of mcp__gmail__read_email, call 3")
}

test_attached_text_is_named if {
	src := {"tool": "attached context", "call": 0, "labels": ["attached"], "message": 1}
	rs := provenance.deny with input as tainted(with_prov(send("ops@evil.example"), [rec("email", "ops@evil.example", false, true, src)], false))
		with data.tasks.t as f.no_task
		with data.opafence.classify.classes as {"COMMUNICATION"}
	some r in rs
	contains(r.message, "the text attached to your message")
}

test_lossy_message_says_why if {
	rs := provenance.deny with input as tainted(with_prov(send("bob@example.com"), [trusted("email", "bob@example.com", false)], true))
		with data.tasks.t as f.no_task
		with data.opafence.classify.classes as {"COMMUNICATION"}
	some r in rs
	contains(r.message, "incomplete (test)")
}

test_delegated_ask_shows_the_target if {
	rs := provenance.ask with input as tainted(with_prov(send("ann@example.com"), [rec("email", "ann@example.com", false, true, from_mail)], false))
		with data.tasks.t as task_with([delegation(["email"], ["mail"], "")])
		with data.opafence.classify.classes as {"COMMUNICATION"}
	some r in rs
	r.message == "You left this target to mail: this call goes to ann@example.com, which came from the result of mcp__gmail__read_email, call 3."
}

# --- the whole decision ------------------------------------------------------------------------

attended := {"auto_approve": false, "interactive": true, "platform": "cli"}

unattended := {"auto_approve": true, "interactive": false, "platform": "cron"}

decide(inp, host, tsk, config) := d if {
	d := data.opafence.decision with input as object.union(inp, {"host": object.union(f.host, host)})
		with data.tasks.t as tsk
		with data.config as config
}

codes(d) := [r.code | some r in d.reasons]

test_success_tainted_send_outside_the_grants_asks if {
	d := decide(tainted(send("bob@example.com")), attended, f.no_task, {})
	d.verdict == "ask"
	"NOT_AUTHORIZED" in codes(d)
}

test_fail_tainted_ask_blocks_unattended_whatever_the_config if {
	d := decide(tainted(send("bob@example.com")), unattended, f.no_task, {"unattended_ask": "allow"})
	d.verdict == "block"
	codes(d)[0] == "NOBODY_TO_ASK"
}

test_success_untainted_ask_follows_the_config_unattended if {
	d := decide(send("bob@example.com"), unattended, f.no_task, {"unattended_ask": "allow"})
	d.verdict == "ask"
}

test_fail_strict_keeps_the_blanket_block if {
	d := decide(tainted(send("bob@example.com")), attended, f.no_task, {"mode": "strict"})
	d.verdict == "block"
	"TAINT_UNAUTHORIZED" in codes(d)
}

test_fail_injected_target_blocks_even_when_granted if {
	g := {"id": "g1", "class": "COMMUNICATION", "capability": "send", "evidence": "send it"}
	inp := tainted(with_prov(send("ops@evil.example"), [rec("email", "ops@evil.example", false, true, from_mail)], false))
	d := decide(inp, attended, f.task([g]), {})
	d.verdict == "block"
	codes(d) == ["PROVENANCE_UNTRUSTED"]
}

test_fail_injected_target_blocks_past_an_allow_override if {
	o := {"tool": "mcp__gmail__*", "class": "*", "verdict": "allow", "reason": ""}
	inp := tainted(with_prov(send("ops@evil.example"), [rec("email", "ops@evil.example", false, true, from_mail)], false))
	d := decide(inp, attended, f.no_task, {"overrides": [o]})
	d.verdict == "block"
	"PROVENANCE_UNTRUSTED" in codes(d)
}

test_success_requested_delete_with_unbound_target_asks if {
	rm := f.terminal([f.sh(["rm", "/home/u/Downloads/big.iso"])])
	tsk := object.union(f.no_task, {"requests": [{"class": "DELETE", "message": 1}]})
	d := decide(rm, attended, tsk, {})
	d.verdict == "ask"
	"REQUESTED_UNBOUND" in codes(d)
}

test_fail_requested_delete_of_a_hidden_directory_still_blocks if {
	rm := f.terminal([f.sh(["rm", "-rf", "/home/u/.config/app"])])
	tsk := object.union(f.no_task, {"requests": [{"class": "DELETE", "message": 1}]})
	inp := object.union(rm, {"host": object.union(f.host, attended)})
	deny := {r.code | some r in data.opafence.task.deny} with input as inp with data.tasks.t as tsk
	ask := {r.code | some r in data.opafence.task.ask} with input as inp with data.tasks.t as tsk
	"NOT_AUTHORIZED" in deny
	not "REQUESTED_UNBOUND" in ask
}

test_success_requested_delete_in_the_home_directory_asks if {
	rm := f.terminal([f.sh(["rm", "/home/u/Downloads/big.iso"])])
	tsk := object.union(f.no_task, {"requests": [{"class": "DELETE", "message": 1}]})
	inp := object.union(rm, {"host": object.union(f.host, attended)})
	ask := {r.code | some r in data.opafence.task.ask} with input as inp with data.tasks.t as tsk
	"REQUESTED_UNBOUND" in ask
}

test_fail_unrequested_delete_blocks if {
	rm := f.terminal([f.sh(["rm", "/home/u/Downloads/big.iso"])])
	d := decide(rm, attended, f.no_task, {})
	d.verdict == "block"
	"NOT_AUTHORIZED" in codes(d)
}

test_fail_requested_delete_still_blocks_past_a_prohibition if {
	rm := f.terminal([f.sh(["rm", "/home/u/Downloads/big.iso"])])
	p := {"id": "p1", "classes": ["DELETE"], "evidence": "don't delete anything"}
	tsk := object.union(f.no_task, {"prohibitions": [p], "requests": [{"class": "DELETE", "message": 1}]})
	d := decide(rm, attended, tsk, {})
	d.verdict == "block"
	"USER_PROHIBITION" in codes(d)
}
