"""`opafence approvals`: the "always" approvals Hermes keeps for opafence's asks, and revoking them.

Hermes writes an `[a]lways` answer to a plugin's approval prompt into `config.yaml` →
`command_allowlist` as `plugin_rule:<rule_key>`, for good. opafence's rule keys are
`opafence:<task>:r<revision>:<action hash>`, so each entry re-approves one exact action in one
task; they still pile up. This lists them and removes them, through Hermes' own config
functions (its file format and locking), never by editing the YAML itself.

    opafence approvals                  list them
    opafence approvals revoke KEY…      remove these (a whole rule, or a task key: all of its rules)
    opafence approvals revoke --all     remove every opafence approval"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from opafence.printable import printable

PREFIX = "plugin_rule:opafence:"


def _hermes_config() -> tuple[Any, Any]:
    from hermes_cli.config import load_config, save_config

    return load_config, save_config


def ours(entries: list[Any]) -> list[str]:
    return [e for e in entries if isinstance(e, str) and e.startswith(PREFIX)]


def describe(entry: str) -> str:
    """`task <key>, policy revision N, action <hash>` for one entry."""
    rest = entry.removeprefix(PREFIX)
    task, _, tail = rest.rpartition(":r")
    revision, _, action = tail.partition(":")
    if not task or not revision.isdigit():
        return printable(rest)
    return f"task {printable(task)}, policy revision {revision}, action {printable(action)}"


def matches(entry: str, wanted: str) -> bool:
    rest = entry.removeprefix(PREFIX)
    wanted = wanted.removeprefix(PREFIX).removeprefix("opafence:")
    return rest == wanted or rest.startswith(wanted + ":r")


def cmd_approvals(args: argparse.Namespace) -> int:
    try:
        load_config, save_config = _hermes_config()
    except ImportError:
        print("opafence approvals needs Hermes (hermes-agent) installed in this Python", file=sys.stderr)
        return 2
    config = load_config()
    entries = list(config.get("command_allowlist") or [])
    mine = ours(entries)
    if args.action != "revoke":
        if not mine:
            print("no opafence approvals in Hermes' command_allowlist")
        for entry in mine:
            print(f"{printable(entry)}\n    {describe(entry)}")
        return 0
    if not args.all and not args.keys:
        print("opafence approvals revoke: name a rule or task key, or --all", file=sys.stderr)
        return 2
    gone = [e for e in mine if args.all or any(matches(e, k) for k in args.keys)]
    if not gone:
        print("nothing matched; `opafence approvals` lists them", file=sys.stderr)
        return 1
    config["command_allowlist"] = [e for e in entries if e not in gone]
    save_config(config)
    for entry in gone:
        print(f"revoked {printable(entry)}")
    print("Hermes processes already running keep them until they restart")
    return 0


def add_parser(sub: Any) -> None:
    """The `approvals` subcommand (cli.py calls this)."""
    p = sub.add_parser("approvals", help='list or revoke the "always" approvals Hermes keeps for opafence')
    p.add_argument("action", nargs="?", choices=["list", "revoke"], default="list")
    p.add_argument("keys", nargs="*", help="rule keys (plugin_rule:opafence:…) or task keys to revoke")
    p.add_argument("--all", action="store_true", help="with revoke: every opafence approval")
    p.set_defaults(func=cmd_approvals)
