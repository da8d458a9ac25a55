# METADATA
# title: Obfuscated and hidden execution
# description: |
#   Commands and code that nobody can read before they run. The facts name them with opaque
#   reasons: `decode_and_run` (data decoded first - base64, hex, rot13, decompression, `chr()`
#   joins, reversal, XOR, ... - reaches a shell, an interpreter, a command or a name look-up,
#   in shell commands and in Python), `fetch_and_run` (code runs what it reads from the network,
#   or a file it downloaded) and `socket_shell` (code wires a network socket to a process's
#   input and output: a reverse shell). A person who wants to run a command writes the
#   command, so each blocks and no grant allows it; when the user's own words held exactly this
#   command line, it asks instead.
# schemas:
#   - input: schema.input
#   - data.tasks: schema.tasks
package opafence.guards.obfuscation

import data.opafence.guards.common
import data.opafence.lib.reason

deny contains f if {
	some f in _findings
	not _literal_command
}

ask contains common.asked(f) if {
	some f in _findings
	_literal_command
}

# Every opaque reason of the call (the shell's and the code's are also the call's; all three
# are read so that a partial facts object still counts).
_opaque_reasons contains r if some r in input.facts.opaque_reasons

_opaque_reasons contains r if some r in input.facts.shell.opaque_reasons

_opaque_reasons contains r if some r in input.facts.code.opaque_reasons

# METADATA
# title: literal_command
# description: >-
#   The user's own words held exactly this terminal command line (a grant's literal command,
#   compared whitespace-normalized, lower-cased, without quotes).
_literal_command if {
	input.call.tool == "terminal"
	cmd := input.call.args.command
	is_string(cmd)
	common.norm_cmd(cmd) in common.granted_commands
}

# METADATA
# title: DECODE_AND_RUN
# description: >-
#   This runs data that it decodes first (base64, hex, rot13, compression, character codes,
#   reversed or XOR-ed text ...), so nobody can read what runs before it runs.
# custom:
#   code: DECODE_AND_RUN
#   fix: Write the command or the code itself, in plain text, so the user can see what runs.
_findings contains reason.make(rego.metadata.rule()) if "decode_and_run" in _opaque_reasons

# METADATA
# title: FETCH_AND_RUN
# description: >-
#   This code runs what it reads from the network (a download, a response, a socket), or a
#   file it downloaded; nobody can read that code before it runs.
# custom:
#   code: PIPE_TO_SHELL
#   fix: Download the file, let the user read it, and run it only when they ask for that.
_findings contains reason.make(rego.metadata.rule()) if "fetch_and_run" in _opaque_reasons

# METADATA
# title: REVERSE_SHELL
# description: >-
#   This code connects a network socket to a process's input and output (a reverse shell):
#   whoever is at the other end could run anything on this machine.
# custom:
#   code: REVERSE_SHELL
#   fix: Never hand a shell to a network peer; run the commands the task needs directly.
_findings contains reason.make(rego.metadata.rule()) if "socket_shell" in _opaque_reasons
