"""`opafence fleet …`: the pieces a shared OPA needs to serve many hosts (docs/fleet.md).

    opafence fleet token FILE             a new host token in FILE (0600); prints its SHA-256
    opafence fleet authz ID=DIGEST …      the shared OPA's system.authz for those hosts

A host's token never leaves the host: the operator collects only the digests, so the module
can be generated, reviewed and shipped without any credential in it."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

from opafence.config import HOST_ID_PATTERN
from opafence.opa.authz import fleet_authz_module, new_token, token_digest
from opafence.state_files import write_private_file


def parse_host(spec: str) -> tuple[str, str]:
    """`ID=DIGEST` -> (id, digest); ValueError in plain words otherwise."""
    host_id, sep, digest = spec.partition("=")
    if not sep or not re.fullmatch(HOST_ID_PATTERN, host_id):
        raise ValueError(f"{spec!r}: give HOST_ID=SHA256 (the id matches {HOST_ID_PATTERN})")
    return host_id, digest.strip().lower()


def cmd_token(args: argparse.Namespace) -> int:
    path = Path(args.file).expanduser()
    if path.exists():
        print(f"opafence: {path} exists; a host token is never overwritten", file=sys.stderr)
        return 2
    token = new_token()
    write_private_file(path, token + "\n")
    print(f"host token written to {path} (0600); give the operator only its digest:")
    print(token_digest(token))
    return 0


def cmd_authz(args: argparse.Namespace) -> int:
    hosts: dict[str, str] = {}
    try:
        for spec in args.hosts:
            host_id, digest = parse_host(spec)
            if host_id in hosts:
                raise ValueError(f"host {host_id} is given twice")
            hosts[host_id] = digest
        module = fleet_authz_module(hosts)
    except ValueError as e:
        print(f"opafence: {e}", file=sys.stderr)
        return 2
    if args.out:
        write_private_file(Path(args.out), module)
    else:
        sys.stdout.write(module)
    return 0


def add_parser(sub: Any) -> None:
    f = sub.add_parser("fleet", help="host tokens and the authorization policy of a shared OPA")
    fs = f.add_subparsers(dest="fleet_command", required=True)
    t = fs.add_parser("token", help="write a new host token to FILE (0600) and print its SHA-256")
    t.add_argument("file")
    t.set_defaults(func=cmd_token)
    a = fs.add_parser("authz", help="print the shared OPA's system.authz module for the given hosts")
    a.add_argument("hosts", nargs="+", metavar="HOST_ID=SHA256")
    a.add_argument("--out", help="write the module to this file (0600) instead of standard output")
    a.set_defaults(func=cmd_authz)
