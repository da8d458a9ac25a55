"""Run by the installed venv's Python (not pytest's): real Hermes dispatch through the installed opafence.

Prints one JSON object: where opafence was imported from, where its Rego is, and what Hermes
returned for a read that the task allows and a send that the user's words prohibit."""

from __future__ import annotations

import json
import os
import socket
import sys
from pathlib import Path
from typing import Any


def _guard_network() -> None:
    """Only unix sockets (OPA) and loopback may be reached."""
    real_connect = socket.socket.connect

    def connect(self: socket.socket, address: Any) -> Any:
        if self.family != socket.AF_UNIX:
            host = str(address[0]) if isinstance(address, tuple) else str(address)
            if not (host.startswith("127.") or host in ("::1", "localhost")):
                raise OSError(f"network disabled: {address!r}")
        return real_connect(self, address)

    socket.socket.connect = connect  # type: ignore[method-assign]


def main() -> int:
    workdir = Path(sys.argv[1])
    _guard_network()
    import model_tools
    from hermes_cli.plugins import get_plugin_manager, invoke_hook
    from tools.registry import registry

    import opafence
    from opafence.rego_files import rego_root

    sent: list[dict[str, Any]] = []

    def send(args: dict[str, Any], **kw: Any) -> str:
        sent.append(dict(args))
        return '{"ok": true}'

    registry.register(
        name="mcp__gmail__send_email",
        toolset="opafence_install_check",
        schema={
            "name": "mcp__gmail__send_email",
            "description": "send an email",
            "parameters": {
                "type": "object",
                "properties": {
                    "to": {"type": "array", "items": {"type": "string"}},
                    "body": {"type": "string"},
                },
            },
        },
        handler=send,
    )
    hooks = get_plugin_manager()._hooks.get("pre_tool_call", [])
    fences = [cb.__self__ for cb in hooks if type(getattr(cb, "__self__", None)).__name__ == "Fence"]
    out: dict[str, Any] = {
        "opafence_file": opafence.__file__,
        "rego_root": str(rego_root()),
        "fences": len(fences),
        "plugin": repr(get_plugin_manager()._plugins.get("opafence")),
    }
    if len(fences) != 1:
        print(json.dumps(out))
        return 0
    fence = fences[0]
    out["ready"] = fence.wait_ready(60)
    out["error"] = None if fence.error is None else str(fence.error)
    session = "install-check"
    invoke_hook(
        "pre_llm_call",
        session_id=session,
        task_id="t1",
        turn_id=f"{session}:t1:00000000",
        user_message="Summarize notes.txt for me. Don't send any email.",
        conversation_history=[],
        is_first_turn=True,
        model="fake-model",
        platform="cli",
        sender_id="",
    )
    notes = workdir / "notes.txt"
    notes.write_text("quarterly numbers look fine\n", encoding="utf-8")
    out["read"] = model_tools.handle_function_call(
        "read_file", {"path": str(notes)}, task_id="t1", session_id=session, tool_call_id="c1"
    )
    out["send"] = model_tools.handle_function_call(
        "mcp__gmail__send_email",
        {"to": ["someone@example.com"], "body": "numbers"},
        task_id="t1",
        session_id=session,
        tool_call_id="c2",
    )
    out["sent"] = sent
    out["audit"] = (Path(os.environ["HERMES_HOME"]) / "opafence" / "audit.jsonl").is_file()
    fence.close()
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
