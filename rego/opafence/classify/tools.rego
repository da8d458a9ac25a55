# Built-in tools (data.yaml, builtin_tools): table-driven classes, and the tools whose effect
# depends on more than one argument value (shell, code, patches, cron jobs, delegation, the
# browser's console and DevTools, Home Assistant services).
package opafence.classify

import data.opafence.classify.shell
import data.opafence.lib.action
import data.opafence.lib.paths

tool_spec := data.opafence.classify.builtin_tools[input.call.tool]

arg(name) := input.call.args[name]

# --- table-driven tools ------------------------------------------------------------------------

table_classes contains c if {
	some c in tool_spec.classes
}

table_classes contains c if {
	v := arg(tool_spec.arg)
	some c in tool_spec.by[v]
}

table_classes contains c if {
	tool_spec.arg
	not arg_listed
	some c in object.get(tool_spec, "default", ["UNKNOWN"])
}

arg_listed if {
	v := arg(tool_spec.arg)
	tool_spec.by[v]
}

table_caps(c) := {x | some x in tool_spec.caps} if c != "READ"

else := set()

tool_actions contains action.make(c, object.union(fact_targets(c), {
	"caps": table_caps(c),
	"egress": object.get(tool_spec, "egress", false),
	"why": table_why(c),
})) if {
	some c in table_classes
}

table_why("UNKNOWN") := concat("", [input.call.tool, " with an unknown ", tool_spec.arg])

table_why(c) := "" if c != "UNKNOWN"

# --- terminal ----------------------------------------------------------------------------------

tool_actions contains action.make("UNKNOWN", {"why": "no shell facts"}) if {
	input.call.tool == "terminal"
	not input.facts.shell
}

# A program with no commands (empty, only comments) runs nothing.
tool_actions contains action.make("READ", {}) if {
	input.call.tool == "terminal"
	count(input.facts.shell.commands) == 0
	not shell.opaque
}

# --- execute_code ------------------------------------------------------------------------------

code := input.facts.code

code_paths(ops) := {p.path |
	some p in input.facts.paths
	p.via == "code"
	p.op in ops
	object.get(p, "path", "") != ""
}

tool_actions contains action.make("EXECUTION", {"why": "code", "caps": code_caps}) if input.call.tool == "execute_code"

# A computation, parse or plot (issue 14): an execute_code grant (run_code) covers code whose facts
# show no command, no network, no evaluated text, no Hermes tool call and no file written outside
# the workspace. Anything else has no capability, so only the literal user's words could cover it.
code_caps := {"run_code"} if plain_code

else := set()

code_command_prefixes := ["subprocess.", "os.system", "os.popen", "os.exec", "os.spawn", "os.posix_spawn", "pty.", "commands."]

plain_code if {
	input.call.tool == "execute_code"
	code.opaque == false
	code.network == false
	count(code.tool_calls) == 0
	count(object.get(input.facts, ["shell", "commands"], [])) == 0
	not object.get(input.facts, ["shell", "opaque"], false)
	not code_runs_command
	every p in code_unread_paths {
		paths.under_any(p, workspace)
	}
}

# Every path the code names for anything but reading, the op unknown included (a library call the
# facts cannot tell, such as DataFrame.to_csv, may write there).
code_unread_paths := {p.path |
	some p in input.facts.paths
	p.via == "code"
	p.op != "read"
	object.get(p, "path", "") != ""
}

code_runs_command if {
	some c in code.calls
	some prefix in code_command_prefixes
	startswith(c, prefix)
}

tool_actions contains action.make("UNKNOWN", {"why": "no code facts"}) if {
	input.call.tool == "execute_code"
	not input.facts.code
}

tool_actions contains action.make("UNKNOWN", {"why": "opaque code"}) if {
	input.call.tool == "execute_code"
	code.opaque == true
}

tool_actions contains action.make("LOCAL_WRITE", {"paths": ps, "caps": ({"edit"} | code_caps)}) if {
	input.call.tool == "execute_code"
	ps := code_paths({"write", "append"})
	count(ps) > 0
}

tool_actions contains action.make("DELETE", {"paths": ps}) if {
	input.call.tool == "execute_code"
	ps := code_paths({"delete"})
	count(ps) > 0
}

# A deleting call whose path the facts could not tell.
tool_actions contains action.make("DELETE", {"open": true}) if {
	input.call.tool == "execute_code"
	some c in code.calls
	data.opafence.classify.code_delete_calls[c]
	count(code_paths({"delete"})) == 0
}

tool_actions contains action.make("PERMISSION_CHANGE", {"open": true}) if {
	input.call.tool == "execute_code"
	some c in code.calls
	data.opafence.classify.code_chmod_calls[c]
}

# Code that talks to the network may send anything anywhere.
tool_actions contains action.make("EXTERNAL_WRITE", {"domains": fact_domains, "egress": true, "open": true}) if {
	input.call.tool == "execute_code"
	code.network == true
}

tool_actions contains action.make(c, object.union(fact_targets(c), {"egress": object.get(spec, "egress", false)})) if {
	input.call.tool == "execute_code"
	some name in code.tool_calls
	spec := data.opafence.classify.builtin_tools[name]
	some c in spec.classes
}

# --- write_file and patch ----------------------------------------------------------------------

tool_actions contains action.make("LOCAL_WRITE", {"paths": fact_paths, "open": count(fact_paths) == 0}) if {
	input.call.tool == "write_file"
}

patch_mode := object.get(input.call.args, "mode", "replace")

patch_paths(ops) := {p.path |
	some p in input.facts.paths
	p.via == "patch"
	p.op in ops
	object.get(p, "path", "") != ""
}

tool_actions contains action.make("LOCAL_WRITE", {"paths": fact_paths, "open": count(fact_paths) == 0}) if {
	input.call.tool == "patch"
	patch_mode != "patch"
}

tool_actions contains action.make("LOCAL_WRITE", {"paths": ps}) if {
	input.call.tool == "patch"
	patch_mode == "patch"
	ps := patch_paths({"update", "add", "move_from", "move_to", "write", ""})
	count(ps) > 0
}

tool_actions contains action.make("DELETE", {"paths": ps}) if {
	input.call.tool == "patch"
	patch_mode == "patch"
	ps := patch_paths({"delete"})
	count(ps) > 0
}

tool_actions contains action.make("UNKNOWN", {"why": "patch not understood"}) if {
	input.call.tool == "patch"
	patch_mode == "patch"
	count(patch_paths({"update", "add", "move_from", "move_to", "write", "", "delete"})) == 0
}

# cross_profile writes into another Hermes profile's files.
tool_actions contains action.make("SELF_MODIFICATION", {"paths": fact_paths, "why": "cross_profile"}) if {
	input.call.args.cross_profile == true
	input.call.tool in {"write_file", "patch"}
}

# --- text_to_speech ----------------------------------------------------------------------------

tool_actions contains action.make("READ", {"egress": true}) if input.call.tool == "text_to_speech"

tool_actions contains action.make("LOCAL_WRITE", {"paths": fact_paths}) if {
	input.call.tool == "text_to_speech"
	count(fact_paths) > 0
}

# --- browser -------------------------------------------------------------------------------------

# A URL the browser is sent to that runs script (javascript:, data:) instead of loading a page.
script_url if {
	some u in input.facts.urls
	data.opafence.classify.script_url_schemes[lower(u.scheme)]
}

tool_actions contains action.make("READ", object.union(fact_targets("READ"), {"egress": true})) if {
	input.call.tool == "browser_navigate"
}

tool_actions contains action.make("EXECUTION", {"egress": true, "why": "script URL"}) if {
	input.call.tool in {"browser_navigate", "browser_cdp"}
	script_url
}

console_evaluates if {
	is_string(input.call.args.expression)
	trim_space(input.call.args.expression) != ""
}

tool_actions contains action.make("EXECUTION", {"egress": true, "why": "page script", "caps": console_caps}) if {
	input.call.tool == "browser_console"
	console_evaluates
}

# Reading the page's title (document.title, logged or not) is all a page_title grant covers.
console_caps := {"page_title"} if {
	regex.match(`^\s*(console\.log\(\s*)?document\.title\s*\)?\s*;?\s*$`, input.call.args.expression)
	count(regex.find_n(`\(`, input.call.args.expression, -1)) == count(regex.find_n(`\)`, input.call.args.expression, -1))
} else := set()

tool_actions contains action.make("READ", {}) if {
	input.call.tool == "browser_console"
	not console_evaluates
}

cdp_method := m if {
	m := input.call.args.method
	is_string(m)
} else := ""

cdp_classes := cs if {
	cs := data.opafence.classify.cdp_methods[cdp_method]
} else := ["READ"] if {
	name := split(cdp_method, ".")[1]
	some prefix in data.opafence.classify.cdp_read_prefixes
	startswith(name, prefix)
} else := cs if {
	cs := data.opafence.classify.cdp_domains[split(cdp_method, ".")[0]]
} else := ["UNKNOWN"]

tool_actions contains action.make(c, object.union(fact_targets(c), {"egress": true, "why": cdp_why(c)})) if {
	input.call.tool == "browser_cdp"
	some c in cdp_classes
}

cdp_why("UNKNOWN") := concat("", ["DevTools method ", cdp_method])

cdp_why(c) := "" if c != "UNKNOWN"

# --- Home Assistant ------------------------------------------------------------------------------

ha_classes := cs if {
	cs := data.opafence.classify.ha_domains[input.call.args.domain]
} else := ["EXTERNAL_WRITE"]

tool_actions contains action.make(c, fact_targets(c)) if {
	input.call.tool == "ha_call_service"
	some c in ha_classes
}

# --- cron jobs -----------------------------------------------------------------------------------

cron_action := a if {
	a := input.call.args.action
	is_string(a)
} else := ""

cron_classes := cs if {
	cs := data.opafence.classify.cron_actions[cron_action]
} else := ["UNKNOWN"]

tool_actions contains action.make(c, {"why": cron_why(c), "caps": cron_caps}) if {
	input.call.tool == "cronjob"
	some c in cron_classes
}

# A job the owner dictated (issue 14): a schedule grant covers the prompt and the schedule, never a
# script, a script-only job, other toolsets, another working directory or context pulled in.
cron_caps := {"schedule"} if {
	cron_action in {"create", "update", "pause", "resume"}
	not cron_extras
} else := set()

cron_extra_args := {"script", "no_agent", "enabled_toolsets", "workdir", "context_from", "skills", "model"}

cron_extras if {
	some k in cron_extra_args
	v := input.call.args[k]
	not v in {null, false, ""}
}

cron_why("UNKNOWN") := concat("", ["cronjob action ", cron_action])

cron_why(c) := "" if c != "UNKNOWN"

# A job that delivers its output to a chat platform messages whoever is there.
tool_actions contains action.make("COMMUNICATION", {"open": true, "egress": true, "why": "cron delivery"}) if {
	input.call.tool == "cronjob"
	cron_action in {"create", "update"}
	deliver := object.get(input.call.args, "deliver", "")
	not data.opafence.classify.cron_local_deliveries[lower(sprintf("%v", [deliver]))]
}

# --- delegation ----------------------------------------------------------------------------------

# Each sub-agent's calls are judged against this same task, so a leaf delegation grants nothing;
# an orchestrator can fan out further, which is execution of its own.
orchestrates if input.call.args.role == "orchestrator"

orchestrates if {
	some t in input.call.args.tasks
	t.role == "orchestrator"
}

tool_actions contains action.make("EXECUTION", {"why": "orchestrator"}) if {
	input.call.tool == "delegate_task"
	orchestrates
}

tool_actions contains action.make("READ", {}) if {
	input.call.tool == "delegate_task"
	not orchestrates
}
