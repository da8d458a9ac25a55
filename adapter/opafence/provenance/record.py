"""The one code path by which the plugin and replay feed a task's ValueLedger.

- an owner message: values of the owner's own words are the user's; quoted, pasted and
  attached material (Hermes' `--- Attached Context ---` block) is untrusted content;
- a tool result: untrusted when the call brought untrusted content in (Rego's `ingests`),
  and always for sub-agent results and session search;
- a call to decide: `facts.provenance`, the records of its own targets."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from opafence.intent.split import split_message
from opafence.provenance import values as v
from opafence.provenance.ledger import ValueLedger
from opafence.provenance.targets import call_targets

# Results that are someone else's text whatever the call's classes say.
ALWAYS_UNTRUSTED = frozenset({"delegate_task", "session_search"})
ATTACHED = "attached context"
_WORD = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{1,79}")


def note_message(
    ledger: ValueLedger,
    text: str,
    message_index: int,
    identity: Iterable[str] = (),
    home: str = "",
) -> None:
    """Values of one owner message; never raises (a failure makes the ledger lossy)."""
    try:
        split = split_message(text if isinstance(text, str) else "")
        ledger.add_user(v.scan_text(split.instruction, home))
        # A channel or person the owner names without its # or @ ("post it to the general
        # channel", "DM kim") is still theirs.
        ledger.add_user(("handle", w.lower()) for w in _WORD.findall(split.instruction))
        ledger.add_user(v.scan_text("\n".join(identity), home))
        data = "\n".join(b.text for b in split.data)
        if data.strip():
            found, truncated = v.extract(data, home)
            if truncated:
                ledger.mark_lossy(f"the attached text of message {message_index} was too large to read whole")
            ledger.add_untrusted(
                found, {"tool": ATTACHED, "call": 0, "message": message_index, "labels": ["attached"]}
            )
    except Exception as e:
        ledger.mark_lossy(f"reading message {message_index} failed ({type(e).__name__})")


def untrusted_result(tool: str, ingests: Sequence[str]) -> bool:
    return bool(ingests) or tool in ALWAYS_UNTRUSTED


def source_path(args: Mapping[str, Any]) -> str:
    """The file name a call read (for delegations that name it: "the IBAN in bill.txt")."""
    for key in ("path", "file_path", "file", "filename", "name", "title"):
        val = args.get(key)
        if isinstance(val, str) and val.strip():
            return val.strip().rstrip("/").rsplit("/", 1)[-1].lower()[:200]
    return ""


def note_result(
    ledger: ValueLedger,
    tool: str,
    call: int,
    result: Any,
    ingests: Sequence[str],
    args: Mapping[str, Any],
    home: str = "",
) -> bool:
    """Record a result that ran; returns whether it was untrusted content."""
    ledger.awaiting.discard(call)
    if not untrusted_result(tool, ingests):
        return False
    ledger.record_result(tool, call, result, ingests, home, source_path(args))
    return True


def await_result(ledger: ValueLedger, tool: str, call: int, ingests: Sequence[str]) -> None:
    """A call about to run that brings untrusted content in: its values are owed until
    note_result (or settle_result, when it did not run) takes them."""
    if untrusted_result(tool, ingests):
        ledger.awaiting.add(call)


def settle_result(ledger: ValueLedger, call: int) -> None:
    """The call did not run: no result, nothing owed."""
    ledger.awaiting.discard(call)


def provenance_facts(
    ledger: ValueLedger, tool: str, args: Mapping[str, Any], facts: Mapping[str, Any], home: str = ""
) -> dict[str, Any]:
    """facts.provenance for one call. A failure fails closed: every target not the owner's
    counts as untrusted (lossy)."""
    try:
        return ledger.match(call_targets(tool, args, facts, home))
    except Exception as e:
        return {
            "lossy": True,
            "why": f"matching the call's targets failed ({type(e).__name__})",
            "targets": [],
        }


def describe_target(t: Mapping[str, Any]) -> str:
    """One target and where it came from, in the words the person sees."""
    src = t.get("source")
    if t.get("user"):
        where = "in your words"
    elif isinstance(src, Mapping) and src.get("tool") == ATTACHED:
        where = f"first came in with the text attached to message {src.get('message', 0)}"
    elif isinstance(src, Mapping):
        where = f"first came in from the result of {src.get('tool', '?')}, call {src.get('call', 0)}"
    else:
        where = "not seen in untrusted content"
    return f"{t.get('value', '')} ({t.get('kind', '')}): {where}"


def describe(prov: Mapping[str, Any], limit: int = 3) -> str:
    """The provenance of a call's targets for a block or approval message ("" when none)."""
    targets = [t for t in prov.get("targets", []) if t.get("kind") not in ("domain", "command")]
    if not targets and not prov.get("lossy"):
        return ""
    shown = "; ".join(describe_target(t) for t in targets[:limit])
    more = f" (+{len(targets) - limit} more)" if len(targets) > limit else ""
    lossy = (
        " The record of untrusted values is incomplete, so unnamed targets count as untrusted."
        if prov.get("lossy")
        else ""
    )
    return (f"Targets: {shown}{more}." if shown else "") + lossy
