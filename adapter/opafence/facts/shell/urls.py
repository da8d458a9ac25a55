"""URLs and remote targets a command names (curl URL, ssh host, scp host:path, nc host port)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from opafence.facts import url
from opafence.facts.shell.model import Field
from opafence.facts.shell.tables import NC, NC_VALUE_SHORT, SSH_VALUE_SHORT, URL_TOOLS

if TYPE_CHECKING:
    from opafence.facts.shell.walker import Walker


def urls(w: Walker, name: str, argv: list[Field], operands: list[str]) -> None:
    for f in argv[1:]:
        if "://" in f.text and not f.dynamic:
            for found in url.find_in_text(f.text, w.col.arg):
                w.col.add_url(found)
    if name in URL_TOOLS:
        for op in operands:
            if "://" not in op and url.looks_like_host(op):
                fact, _ = url.parse(op, w.col.arg, default_scheme="http")
                if fact is not None:
                    w.col.add_url(fact)
    elif name in ("scp", "rsync", "sftp"):
        for op in operands:
            if ":" in op and "://" not in op:
                scheme = "rsync" if "::" in op else "ssh"
                fact, _ = url.remote_target(op.replace("::", ":", 1), w.col.arg, scheme)
                if fact is not None:
                    w.col.add_url(fact)
    elif name in ("ssh", "mosh", "autossh"):
        target = ssh_target(w, argv)
        if target:
            fact, _ = url.remote_target(target, w.col.arg, "ssh")
            if fact is not None:
                w.col.add_url(fact)
    elif name == "git":
        for op in operands:
            if "://" not in op and re.match(r"^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:", op):
                fact, _ = url.remote_target(op, w.col.arg, "ssh")
                if fact is not None:
                    w.col.add_url(fact)
    elif name in NC:
        positional = positional_operands(w, argv, NC_VALUE_SHORT)
        if positional:
            fact, _ = url.remote_target(positional[0], w.col.arg, "tcp")
            if fact is not None:
                port = positional[1] if len(positional) > 1 else ""
                fact["port"] = int(port) if port.isdigit() and int(port) < 65536 else None
                w.col.add_url(fact)
    elif name == "socat":
        for op in operands:
            m = re.match(r"(?i)^(?:tcp[46]?|udp[46]?|openssl|ssl)(?:-connect)?:([^:,]+):(\d+)", op)
            if m:
                fact, _ = url.parse(f"tcp://{m.group(1)}:{m.group(2)}", w.col.arg)
                if fact is not None:
                    fact["raw"] = op
                    w.col.add_url(fact)


def positional_operands(w: Walker, argv: list[Field], value_short: str) -> list[str]:
    """Operands of a command whose short options in value_short take a value."""
    out: list[str] = []
    i = 1
    while i < len(argv):
        t = argv[i].text
        if t.startswith("-") and len(t) > 1 and not out:
            i += 2 if len(t) == 2 and t[1] in value_short else 1
            continue
        out.append(t)
        i += 1
    return out


def ssh_target(w: Walker, argv: list[Field]) -> str:
    i = 1
    while i < len(argv):
        t = argv[i].text
        if t == "--":
            i += 1
            break
        if t.startswith("-") and len(t) > 1:
            i += 2 if t[-1] in SSH_VALUE_SHORT and len(t) == 2 else 1
            continue
        break
    return argv[i].text if i < len(argv) and not argv[i].dynamic else ""
