"""Shared helpers for the facts tests: a fixed context and full expected objects."""

from __future__ import annotations

from typing import Any

from opafence.facts import FactsContext

# Neither directory exists, so canonical paths are purely lexical and the tests do not depend
# on the machine they run on (symlink resolution has its own tests with a temporary tree).
WS = "/nonexistent-ws/app"
HOME = "/nonexistent-home/u"
HERMES_HOME = "/nonexistent-home/u/.hermes"
CTX = FactsContext(home=HOME, cwd=WS, hermes_home=HERMES_HOME)


def C(
    name: str,
    argv: list[str],
    *,
    flags: list[str] | None = None,
    operands: list[str] | None = None,
    paths: list[str] | None = None,
    env: dict[str, str] | None = None,
    redirects: list[dict[str, Any]] | None = None,
    wrappers: list[str] | None = None,
    context: str = "top",
    depth: int = 0,
    pipe_from: str = "",
    dynamic: bool = False,
    maybe_paths: list[str] | None = None,
) -> dict[str, Any]:
    """One expected Command (docs/contract.md), every field spelled out by the caller or empty."""
    return {
        "name": name,
        "argv": argv,
        "flags": flags or [],
        "operands": operands or [],
        "operand_paths": paths or [],
        "env": env or {},
        "redirects": redirects or [],
        "wrappers": wrappers or [],
        "context": context,
        "depth": depth,
        "pipe_from": pipe_from,
        "dynamic": dynamic,
        "maybe_paths": maybe_paths or [],
    }


def R(op: str, fd: int, raw: str, path: str, mode: str) -> dict[str, Any]:
    return {"op": op, "fd": fd, "raw": raw, "path": path, "mode": mode}


def P(raw: str, path: str, arg: str, via: str, op: str) -> dict[str, Any]:
    return {"raw": raw, "path": path, "arg": arg, "via": via, "op": op}


def U(
    raw: str,
    scheme: str,
    host: str,
    *,
    port: int | None = None,
    path: str = "",
    query_len: int = 0,
    has_credentials: bool = False,
    secret_like: bool = False,
    ip: bool = False,
    loopback: bool = False,
    private: bool = False,
    arg: str = "command",
    host_data: bool = False,
) -> dict[str, Any]:
    return {
        "raw": raw,
        "scheme": scheme,
        "host": host,
        "port": port,
        "path": path,
        "query_len": query_len,
        "has_credentials": has_credentials,
        "secret_like": secret_like,
        "ip": ip,
        "loopback": loopback,
        "private": private,
        "arg": arg,
        "host_data": host_data,
    }


def ws(*parts: str) -> str:
    return "/".join([WS, *parts])


def home(*parts: str) -> str:
    return "/".join([HOME, *parts])
