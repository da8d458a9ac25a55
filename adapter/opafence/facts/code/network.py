"""Network clients: the peer a socket, HTTP, SMTP or FTP connection goes to, the recipients of
SMTP mail, and the environment sent over the network."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from opafence.facts import email, url
from opafence.facts.code import origins, values
from opafence.facts.code.kinds import K_SMTP, kind_of
from opafence.facts.code.model import ENV_ALL, ENV_SECRET, call_arg, strip_calls
from opafence.facts.code.tables import (
    BODY_KEYWORDS,
    CONNECTIONS,
    LOGIN_METHODS,
    NETWORK_MODULES,
    SEND_METHODS,
)

if TYPE_CHECKING:
    from opafence.facts.code.analyzer import Analyzer


def env_sent(an: Analyzer, name: str, node: ast.Call) -> None:
    """The environment (whole, or a secret-named variable) in the data of a network call."""
    plain = strip_calls(name)
    root = plain.split(".", 1)[0]
    if root not in NETWORK_MODULES or plain.startswith(("urllib.parse", "ssl.")):
        return
    last = plain.rpartition(".")[2]
    if last in LOGIN_METHODS:
        return
    skip = 0 if last in SEND_METHODS else (2 if last == "request" else 1)
    for i, a in enumerate(node.args):
        bits = origins.of(an, a)
        if bits & ENV_ALL or (bits & ENV_SECRET and i >= skip):
            an.egress_env = True
            return
    for k in node.keywords:
        bits = origins.of(an, k.value)
        if bits & ENV_ALL or (bits & ENV_SECRET and (k.arg is None or k.arg in BODY_KEYWORDS)):
            an.egress_env = True
            return


def target(an: Analyzer, name: str, node: ast.Call) -> None:
    """The host a socket, HTTP, SMTP or FTP connection goes to, as a URL fact (like nc's)."""
    plain = strip_calls(name)
    scheme = CONNECTIONS.get(plain)
    if scheme is None:
        return
    target = call_arg(node, 0, "address", "host")
    if target is None:
        return
    host: str | None
    port: int | None = None
    if isinstance(target, ast.Tuple) and len(target.elts) >= 2:
        host = values.const_str(an, target.elts[0])
        p = target.elts[1]
        port = p.value if isinstance(p, ast.Constant) and type(p.value) is int else None
    else:
        host = values.const_str(an, target)
        given = call_arg(node, 1, "port")
        port = given.value if isinstance(given, ast.Constant) and type(given.value) is int else None
    if not host:
        return
    raw = f"{host}:{port}" if port is not None else host
    fact, problem = url.remote_target(raw.split(":", 1)[0] if ":" in host else host, an.col.arg, scheme)
    if fact is None:
        return
    fact["raw"] = raw
    fact["port"] = port
    if problem:
        an.col.opaque(problem)
    an.col.add_url(fact)


def smtp_recipients(an: Analyzer, name: str, node: ast.Call) -> None:
    to = call_arg(node, 1, "to_addrs") if name.endswith(".sendmail") else call_arg(node, 2, "to_addrs")
    if to is None:
        return
    v = values.value(an, to)
    if v is None:
        return
    for text in v.items if v.items is not None else [v.text or ""]:
        an.col.recipients.extend(email.parse_recipients(text, "to"))


def network_call(an: Analyzer, name: str, node: ast.Call, synthetic: int) -> None:
    """A call of a network module (analyzer.HANDLERS): its peer, the environment in its data, the
    recipients of SMTP mail."""
    target(an, name, node)
    if an.env_used and an.facts["network"] and not an.egress_env:
        env_sent(an, name, node)
    if kind_of(name) & K_SMTP:
        smtp_recipients(an, name, node)
