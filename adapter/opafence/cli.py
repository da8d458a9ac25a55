"""The `opafence` command: replay, doctor, demo, facts, compile, explain, audit, log, fleet."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from opafence.config import Config, ConfigError, load_config
from opafence.errors import BridgeError
from opafence.host import Host, default_workspace
from opafence.judge import Judge
from opafence.opa.bridge import Bridge


def _load(args: argparse.Namespace) -> Config:
    return load_config(Path(args.config) if getattr(args, "config", None) else None)


def batch_host(config: Config, unattended: bool) -> Host:
    """The host replay and explain judge as: an attended interactive CLI unless --unattended."""
    cwd = os.getcwd()
    return Host(
        auto_approve=unattended,
        interactive=not unattended,
        platform="replay",
        workspace=tuple(default_workspace(config.workspace, cwd)),
        cwd=cwd,
    )


def start_bridge(config: Config, state: Path | None = None) -> Bridge:
    bridge = Bridge(config, state)
    bridge.start()
    return bridge


def cmd_replay(args: argparse.Namespace) -> int:
    from opafence.replay import replay

    config = _load(args)
    stream = sys.stdin if args.file in (None, "-") else open(args.file, encoding="utf-8")  # noqa: SIM115
    scratch = None if args.state_dir else tempfile.TemporaryDirectory(prefix="opafence-replay-")
    state = Path(args.state_dir) if args.state_dir else Path(scratch.name) if scratch else None
    try:
        bridge = start_bridge(config, state)
    except BaseException:
        if scratch:
            scratch.cleanup()
        raise
    try:
        host = batch_host(config, args.unattended)
        judge = Judge(bridge, host, config)
        for out in replay(judge, stream):
            sys.stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
            sys.stdout.flush()
    finally:
        bridge.close()
        if scratch:
            scratch.cleanup()
        if stream is not sys.stdin:
            stream.close()
    return 0


def cmd_doctor(args: argparse.Namespace) -> int:
    from opafence.doctor import run_doctor

    code: int = run_doctor(Path(args.config) if args.config else None)
    return code


def cmd_demo(args: argparse.Namespace) -> int:
    from opafence.demo import run_demo

    code: int = run_demo(hermes=args.hermes, keep_home=args.home)
    return code


def _call_args(raw: str) -> dict[str, Any] | None:
    """--args as a JSON object (the tool's arguments), or None after saying what is wrong."""
    try:
        call_args = json.loads(raw)
    except json.JSONDecodeError as e:
        print(f"opafence: --args is not valid JSON: {e.msg} at column {e.colno}", file=sys.stderr)
        return None
    if not isinstance(call_args, dict):
        print("opafence: --args must be a JSON object (the tool's arguments)", file=sys.stderr)
        return None
    return call_args


def cmd_explain(args: argparse.Namespace) -> int:
    from opafence.explain_cmd import explain_call, render

    before: list[dict[str, Any]] = []
    message, tool = args.message, args.tool
    if args.line:
        from opafence.provenance_cmd import read_line

        line = read_line(args.line)
        if line is None or not line["calls"]:
            return 2
        *before, last = line["calls"]
        message = message if message is not None else str(line.get("user_message", ""))
        tool = tool or str(last.get("tool", ""))
        call_args = dict(last.get("args", {})) if args.args is None else _call_args(args.args)
    else:
        call_args = _call_args(args.args or "{}")
    if call_args is None or message is None or not tool:
        if call_args is not None:
            print("opafence: explain needs --message and --tool, or --line", file=sys.stderr)
        return 2
    config = _load(args)
    with tempfile.TemporaryDirectory(prefix="opafence-explain-") as scratch:
        bridge = start_bridge(config, Path(scratch))
        try:
            judge = Judge(bridge, batch_host(config, args.unattended), config)
            result = explain_call(judge, message, tool, call_args, args.trace, before)
        finally:
            bridge.close()
    print(json.dumps(result, indent=2, ensure_ascii=False) if args.json else render(result))
    return 0


def cmd_compile(args: argparse.Namespace) -> int:
    from opafence.intent import compile_explained
    from opafence.intent.explain import render

    config = _load(args)
    host = batch_host(config, unattended=False)
    messages = [sys.stdin.read() if m == "-" else m for m in args.messages]
    tools = None
    if args.tools:
        from opafence.intent.catalogue import parse_tools

        try:
            entries = json.loads(Path(args.tools).read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            print(f"opafence: cannot read --tools: {e}", file=sys.stderr)
            return 2
        tools = parse_tools(entries if isinstance(entries, list) else [])
    policy = None
    for index, message in enumerate(messages, start=1):
        compiled = compile_explained(
            message,
            task=args.task,
            host=host,
            owner=args.owner,
            previous=policy,
            message_index=index,
            config=config.compiler,
            tools=tools,
        )
        policy = compiled.policy
        if args.explain:
            print(f"--- message {index}" if len(messages) > 1 else "---")
            print(render(compiled))
    if policy is not None and not args.explain:
        doc = policy.to_opa_data() if args.opa else policy.model_dump(mode="json", by_alias=True)
        print(json.dumps(doc, indent=2, ensure_ascii=False))
    return 0


def cmd_facts(args: argparse.Namespace) -> int:
    """Print the facts opafence derives from one tool call (what Rego sees as input.facts)."""
    from opafence.facts import build_facts
    from opafence.inputs import facts_context, identities_for

    if args.line:
        return _line_facts(args)
    if not args.tool or args.args is None:
        print("opafence: facts needs --tool and --args, or --line", file=sys.stderr)
        raise SystemExit(2)  # a usage error, like argparse's own
    call_args = _call_args(args.args)
    if call_args is None:
        return 2
    host = Host()
    facts = build_facts(args.tool, call_args, facts_context(host, identities_for(host, Config())))
    sys.stdout.write(json.dumps(facts, indent=2, ensure_ascii=False) + "\n")
    return 0


def _line_facts(args: argparse.Namespace) -> int:
    """A replay line judged as replay judges it: each call's targets with their provenance, and
    the session's recorded values (counts per source, never the values)."""
    from opafence.provenance_cmd import line_facts, read_line, render

    line = read_line(args.line)
    if line is None:
        return 2
    config = _load(args)
    with tempfile.TemporaryDirectory(prefix="opafence-facts-") as scratch:
        bridge = start_bridge(config, Path(scratch))
        try:
            out = line_facts(Judge(bridge, batch_host(config, False), config), line)
        finally:
            bridge.close()
    print(json.dumps(out, indent=2, ensure_ascii=False) if args.json else render(out))
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="opafence", description="Task-scoped authorization for Hermes Agent.")
    sub = p.add_subparsers(dest="command", required=True)

    r = sub.add_parser("replay", help="judge recorded transcripts (JSON lines) against the policy")
    r.add_argument("file", nargs="?", help="JSON lines file, or - for standard input (default)")
    r.add_argument("--unattended", action="store_true", help="judge as a host where nobody can answer an ask")
    r.add_argument(
        "--config", help="config file (default: $OPAFENCE_CONFIG or $HERMES_HOME/opafence/config.yaml)"
    )
    r.add_argument("--state-dir", help="where the replay's OPA keeps its files (default: a private temp dir)")
    r.set_defaults(func=cmd_replay)

    d = sub.add_parser("doctor", help="check the opa binary, the state directory, OPA and a test decision")
    d.add_argument("--config")
    d.set_defaults(func=cmd_doctor)

    c = sub.add_parser(
        "compile", help="compile the owner's message(s) into a TaskPolicy and print it as JSON"
    )
    c.add_argument("messages", nargs="+", help="the message (- reads standard input); several are follow-ups")
    c.add_argument(
        "--explain", action="store_true", help="show which sentence produced what, and what was dropped"
    )
    c.add_argument("--opa", action="store_true", help="print only the data.tasks entry OPA receives")
    c.add_argument("--task", default="cli", help="the task key (default: cli)")
    c.add_argument("--owner", default="", help="the sender of the messages (default: the CLI user)")
    c.add_argument(
        "--tools",
        help="a JSON file with the session's tools (names, or objects with name and parameters) to bind to",
    )
    c.add_argument("--config")
    c.set_defaults(func=cmd_compile)

    m = sub.add_parser("demo", help="the offline demo: a prompt-injected inbox task, judged")
    m.add_argument("--hermes", action="store_true", help="run the scenarios through real Hermes dispatch")
    m.add_argument(
        "--home", help="with --hermes: use and keep this HERMES_HOME (then `opafence log` shows the run)"
    )
    m.set_defaults(func=cmd_demo)

    e = sub.add_parser("explain", help="judge one tool call and show the verdict, reasons, classes and facts")
    e.add_argument("--message", help="the user's message that starts the task")
    e.add_argument("--tool", help="the tool name, as Hermes calls it")
    e.add_argument("--args", help="the tool's arguments as a JSON object (default {})")
    e.add_argument(
        "--line",
        help="a replay line (file, - or JSON): its calls run first, their results recorded; "
        "the last one is explained",
    )
    e.add_argument("--json", action="store_true", help="print the whole answer as JSON")
    e.add_argument(
        "--trace",
        nargs="?",
        const="full",
        choices=["notes", "fails", "full"],
        help="add OPA's explanation of the evaluation (default: full)",
    )
    e.add_argument("--unattended", action="store_true", help="judge as a host where nobody can answer an ask")
    e.add_argument(
        "--config", help="config file (default: $OPAFENCE_CONFIG or $HERMES_HOME/opafence/config.yaml)"
    )
    e.set_defaults(func=cmd_explain)
    f = sub.add_parser(
        "facts", help="print the normalized facts of one tool call as JSON (Rego's input.facts)"
    )
    f.add_argument("--tool", help="the tool name, e.g. terminal or mcp__gmail__send_email")
    f.add_argument("--args", help="the tool's arguments as a JSON object")
    f.add_argument(
        "--line",
        help="a replay line (file, - or JSON): each call's targets with their provenance, and the "
        "session's recorded values (judged with OPA, like replay)",
    )
    f.add_argument("--json", action="store_true", help="with --line: print JSON")
    f.add_argument("--config", help="with --line: the config file")
    f.set_defaults(func=cmd_facts)

    from opafence.audit.subcommand import add_parser as add_audit_parser

    add_audit_parser(sub)
    from opafence.log_cmd import add_parser as add_log_parser

    add_log_parser(sub)
    from opafence.approvals_cmd import add_parser as add_approvals_parser

    add_approvals_parser(sub)
    from opafence.fleet_cmd import add_parser as add_fleet_parser

    add_fleet_parser(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.func(args)
        return code
    except ConfigError as e:
        print(f"opafence: configuration error: {e}", file=sys.stderr)
        return 2
    except BridgeError as e:
        print(f"opafence: {e.code}: {e.sentence()}", file=sys.stderr)
        return 3
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # `opafence … | head`: the reader went away; not an error worth a traceback.
        with contextlib.suppress(OSError):
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - stop the interpreter's flush from raising
        return 0


if __name__ == "__main__":
    sys.exit(main())
