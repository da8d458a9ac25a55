# Guards and taint through the real decision aggregator, in each mode.
package opafence.guards_modes_test

import data.opafence
import data.opafence.test.fixtures as f

rm_home := f.terminal([f.sh(["rm", "-rf", "~"])])

write_config := f.write_file("~/.hermes/config.yaml")

read_key := f.read_file("~/.ssh/id_rsa")

tainted_make := f.with_session(f.terminal([f.sh(["make", "deploy"])]), f.tainted)

decide(inp, mode) := d if {
	d := opafence.decision with input as inp
		with data.tasks.t as f.no_task
		with data.config as {"mode": mode}
}

codes(rs) := {r.code | some r in rs}

test_enforce_guard_blocks if {
	d := decide(rm_home, "enforce")
	d.verdict == "block"
	"DESTRUCTIVE_DELETE" in codes(d.reasons)
	some r in d.reasons
	r.code == "DESTRUCTIVE_DELETE"
	r.source == "guard"
	d.monitor == null
}

test_monitor_records_guard_block if {
	d := decide(f.terminal([f.sh(["terraform", "destroy"])]), "monitor")
	d.verdict == "allow"
	d.reasons == []
	d.monitor.would == "block"
	"CLOUD_DELETE" in codes(d.monitor.reasons)
}

test_rm_home_is_also_self_protection if {
	# ~ holds ~/.hermes: deleting it would delete opafence's state too, which monitor never allows.
	d := decide(rm_home, "monitor")
	d.verdict == "block"
	codes(d.reasons) == {"SELF_PROTECT_PATH"}
	{"SELF_PROTECT_PATH", "DESTRUCTIVE_DELETE"} - codes(d.monitor.reasons) == set()
}

test_monitor_records_taint_block if {
	d := decide(tainted_make, "monitor")
	d.verdict == "allow"
	d.monitor.would == "block"
	some r in d.monitor.reasons
	r.code == "TAINT_EXECUTION"
	r.source == "taint"
}

test_monitor_still_blocks_self_protection if {
	d := decide(write_config, "monitor")
	d.verdict == "block"

	# Only reasons marked always survive monitor mode: the self-protection ones.
	codes(d.reasons) == {"SELF_PROTECT_PATH"}
	every r in d.reasons {
		r.always == true
		r.source == "guard"
	}
	d.monitor.would == "block"
}

test_monitor_self_protection_beside_other_reasons if {
	# rm -rf ~ also reaches ~/.hermes: only the always reason survives monitor mode.
	d := decide(f.terminal([f.sh(["rm", "-rf", "/home/u/.hermes"])]), "monitor")
	d.verdict == "block"
	codes(d.reasons) == {"SELF_PROTECT_PATH"}
	"SELF_PROTECT_PATH" in codes(d.monitor.reasons)
}

test_strict_guard_blocks if {
	d := decide(rm_home, "strict")
	d.verdict == "block"
	"DESTRUCTIVE_DELETE" in codes(d.reasons)
}

test_strict_secret_read_still_asks if {
	d := decide(read_key, "strict")
	d.verdict == "ask"
	codes(d.reasons) == {"SECRET_READ"}
}

test_enforce_secret_read_asks if {
	d := decide(read_key, "enforce")
	d.verdict == "ask"
	codes(d.reasons) == {"SECRET_READ"}
}

test_unattended_secret_read_blocks if {
	d := opafence.decision with input as f.with_host(read_key, {"auto_approve": true})
		with data.tasks.t as f.no_task
	d.verdict == "block"
	codes(d.reasons) == {"NOBODY_TO_ASK", "SECRET_READ"}
}

# The task module is stubbed to authorize the call, so only the guard speaks: a guarded
# action the user named exactly is asked about, not blocked.
test_user_named_guarded_action_asks if {
	d := opafence.decision with input as f.terminal([f.sh(["terraform", "destroy"])])
		with data.tasks.t as f.task([{"id": "g1", "class": "EXECUTION", "capability": "run_command", "evidence": "run terraform destroy", "commands": ["terraform destroy"]}])
		with data.opafence.classify.classes as {"EXECUTION"}
		with data.opafence.task.authorized as {"READ", "EXECUTION"}
		with data.opafence.task.deny as set()
		with data.opafence.task.ask as set()
	d.verdict == "ask"
	codes(d.reasons) == {"CLOUD_DELETE"}
}

test_guard_blocks_what_the_task_authorizes if {
	d := opafence.decision with input as f.terminal([f.sh(["terraform", "destroy"])])
		with data.tasks.t as f.no_task
		with data.opafence.classify.classes as {"EXECUTION"}
		with data.opafence.task.authorized as {"READ", "EXECUTION"}
		with data.opafence.task.deny as set()
		with data.opafence.task.ask as set()
	d.verdict == "block"
	codes(d.reasons) == {"CLOUD_DELETE"}
}

test_no_grant_lifts_self_protection if {
	d := opafence.decision with input as write_config
		with data.tasks.t as f.task([{"id": "g1", "class": "LOCAL_WRITE", "capability": "edit", "evidence": "edit ~/.hermes/config.yaml", "paths": ["/home/u/.hermes/config.yaml"]}])
		with data.opafence.classify.classes as {"LOCAL_WRITE"}
		with data.opafence.task.authorized as {"READ", "LOCAL_WRITE"}
		with data.opafence.task.deny as set()
		with data.opafence.task.ask as set()
	d.verdict == "block"
	codes(d.reasons) == {"SELF_PROTECT_PATH"}
}

test_invalid_mode_blocks_guarded_call_too if {
	d := decide(rm_home, "lenient")
	d.verdict == "block"
	"CONFIG_INVALID" in codes(d.reasons)
}
