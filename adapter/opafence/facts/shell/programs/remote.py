"""ssh and its transports (scp, sftp, rsync): options that run local commands, and the command
run on the remote host.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from opafence.facts.shell.carry import option_bodies, option_value
from opafence.facts.shell.model import Field, State
from opafence.facts.shell.tables import OPTION_BODIES, SSH_VALUE_SHORT

if TYPE_CHECKING:
    from opafence.facts.shell.walker import Walker


def ssh(w: Walker, name: str, argv: list[Field], st: State) -> None:
    """ssh/scp/sftp/rsync options that run local commands (-o ProxyCommand=..., LocalCommand,
    rsync -e, scp -S), and the command ssh runs on the remote host."""
    n = len(argv)
    i = 1
    while i < n:
        t = argv[i].text
        if t == "--":
            i += 1
            break
        value, took = option_value(w, argv, i, "-o")
        if took and value is not None:
            ssh_option(w, value, st)
        if t.startswith("-") and len(t) > 1:
            i += took or (2 if name == "ssh" and len(t) == 2 and t[1] in SSH_VALUE_SHORT else 1)
            continue
        if name != "ssh":
            i += 1
            continue
        break
    if name in OPTION_BODIES:
        option_bodies(w, name, argv, st)
    if name == "ssh" and i + 1 < n:
        # ssh HOST CMD ARGS...: the words, joined by spaces, run in the remote user's shell
        # (options may still follow the host)
        k = i + 1
        while k < n and argv[k].text.startswith("-") and len(argv[k].text) > 1 and not argv[k].dynamic:
            if argv[k].text == "--":
                k += 1
                break
            t = argv[k].text
            k += 2 if len(t) == 2 and t[1] in SSH_VALUE_SHORT else 1
        words = argv[k:]
        if not words:
            return
        if any(f.dynamic for f in words):
            w.col.opaque("shell_dynamic_body")
            return
        remote = st.fork()
        remote.cwd = w.col.home or None
        w._body(" ".join(f.text for f in words), remote, "remote")


def ssh_option(w: Walker, value: Field, st: State) -> None:
    if value.dynamic:
        if re.search(r"(?i)command", value.text):
            w.col.opaque("ssh_command_option")
        return
    m = re.match(
        r"(?is)\s*(proxycommand|localcommand|knownhostscommand|remotecommand)\s*[=\s]\s*(.*)", value.text
    )
    if not m:
        return
    body = m.group(2)
    if body.strip().lower() == "none":
        return
    if m.group(1).lower() == "remotecommand":
        remote = st.fork()
        remote.cwd = w.col.home or None
        w._body(body, remote, "remote")
    else:
        w._body(body, st, "shell_c")
