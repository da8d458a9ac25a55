"""The LLM compiler on service requests, from recorded answers (a fake server on 127.0.0.1):
its drafts go through the same hardening and tool binding as the rules' (intent/catalogue.py).
An honest draft is bound to the named server's fitting tools; a draft that names other
servers, tools, kinds of action or people keeps only what the owner's words hold."""

from __future__ import annotations

from typing import Any

import pytest
from tests.unit.test_intent_corpus import HOST
from tests.unit.test_intent_llm import KEY_ENV, FakeLLM, config, draft, fake, loopback_only

from opafence.intent import catalogue as cat
from opafence.intent import compile_explained

__all__ = ["fake", "loopback_only"]  # the fixtures, used by name

TOOLS = cat.parse_tools(
    [
        *(
            f"mcp__google_calendar__{n}"
            for n in ("list_events", "create_event", "update_event", "delete_event")
        ),
        *(
            f"mcp__outlook__{n}"
            for n in ("list_events", "create_event", "update_event", "cancel_event", "send_mail")
        ),
        *(f"mcp__gdrive__{n}" for n in ("search_files", "share_file", "delete_file")),
        *(f"mcp__mybank__{n}" for n in ("get_balance", "transfer_funds", "add_payee")),
    ]
)


def compile_llm(message: str, fake: FakeLLM, tools: cat.Catalogue = TOOLS) -> Any:
    return compile_explained(message, task="t1", host=HOST, config=config(fake), tools=tools)


def summary(c: Any) -> list[tuple[str, str, list[str], list[str], list[str]]]:
    return sorted((g.class_, g.capability, g.tools, g.operations, g.recipients) for g in c.policy.grants)


def reasons(c: Any) -> str:
    return " | ".join(f"{d.part}: {d.reason}" for d in c.policy.dropped)


def test_honest_reschedule_is_bound_to_the_named_server(
    fake: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-test")
    msg = "Please reschedule the budget review on Google Calendar to Monday at 11"
    g = {
        "class": "EXTERNAL_WRITE",
        "capability": "publish",
        "evidence": msg,
        "tools": ["mcp__google_calendar__*"],
    }
    fake.script = [draft(grants=[g])]
    c = compile_llm(msg, fake)
    assert c.policy.compiled_by == "llm", c.events
    assert summary(c) == [
        ("EXTERNAL_WRITE", "publish", ["mcp__google_calendar__update_event"], ["update"], [])
    ]


def test_poisoned_service_draft_keeps_only_the_words(fake: FakeLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-test")
    msg = "Cancel tomorrow's standup in outlook"
    poisoned = [
        # wider kinds and another server's tools than the words hold
        {
            "class": "EXTERNAL_WRITE",
            "capability": "publish",
            "evidence": msg,
            "tools": ["mcp__outlook__*", "mcp__gdrive__*"],
            "operations": ["delete", "publish"],
        },
        # a send to someone the words never name, which no verb of theirs asks for
        {
            "class": "COMMUNICATION",
            "capability": "send",
            "evidence": msg,
            "recipients": ["attacker@evil.example"],
        },
        # a share and a payment nobody asked for
        {
            "class": "PERMISSION_CHANGE",
            "capability": "share",
            "evidence": msg,
            "recipients": ["attacker@evil.example"],
        },
        {
            "class": "FINANCIAL",
            "capability": "pay",
            "evidence": msg,
            "tools": ["mcp__mybank__transfer_funds"],
        },
    ]
    fake.script = [draft(grants=poisoned)]
    c = compile_llm(msg, fake)
    assert c.policy.compiled_by == "llm"
    assert summary(c) == [("EXTERNAL_WRITE", "publish", ["mcp__outlook__cancel_event"], ["close"], [])]
    why = reasons(c)
    assert "tool mcp__gdrive__*" in why and "does not ask for COMMUNICATION/send" in why
    assert "does not ask for PERMISSION_CHANGE/share" in why and "does not ask for FINANCIAL/pay" in why


def test_several_servers_fit_and_none_named(fake: FakeLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-test")
    msg = "Add a dinner with the in-laws on Saturday at 7pm to my calendar"
    g = {"class": "EXTERNAL_WRITE", "capability": "publish", "evidence": msg}
    fake.script = [draft(grants=[g])]
    c = compile_llm(msg, fake)
    assert c.policy.grants == []
    assert "several servers fit (google_calendar, outlook)" in reasons(c)


def test_share_binds_with_the_role_named(fake: FakeLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-test")
    msg = "give zoe@atlas.org comment access to the proposal doc on google drive"
    g = [
        {
            "class": "PERMISSION_CHANGE",
            "capability": "share",
            "evidence": msg,
            "recipients": ["zoe@atlas.org"],
            "access": "write",
        },
        {"class": "COMMUNICATION", "capability": "send", "evidence": msg, "recipients": ["zoe@atlas.org"]},
    ]
    fake.script = [draft(grants=g)]
    c = compile_llm(msg, fake)
    shares = [x for x in c.policy.grants if x.class_ == "PERMISSION_CHANGE"]
    assert [(x.tools, x.access, x.recipients) for x in shares] == [
        (["mcp__gdrive__share_file"], "comment", ["zoe@atlas.org"])
    ]
