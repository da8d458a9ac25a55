"""Delegations and asked-for kinds with unbound targets, as the compiler records them."""

from __future__ import annotations

import pytest

from opafence.host import Host
from opafence.intent import compile_message

HOST = Host(home="/home/u", cwd="/home/u/ws", workspace=("/home/u/ws",))


def policy(m: str) -> tuple[list[tuple[list[str], list[str], str]], set[str]]:
    p = compile_message(m, task="t", host=HOST)
    return [(d.targets, d.sources, d.path) for d in p.delegations], {r.class_ for r in p.requests}


@pytest.mark.parametrize(
    ("message", "kind", "source", "path"),
    [
        ("Send Ann the slides, her address is on her website", "email", "web", ""),
        ("Pay the bill, the IBAN is in bill.txt", "iban", "file", "bill.txt"),
        ("Pay the bill in bill.txt", "iban", "file", "bill.txt"),
        ("Invite the people in the meeting notes to a call on Friday", "email", "file", ""),
        ("Read Ann's latest email and reply to her saying yes", "email", "mail", ""),
        ("Reply to the email from the landlord", "email", "mail", ""),
        ("Message everyone in the #design channel about the launch", "handle", "chat", ""),
        ("Call the number on the booking confirmation", "number", "booking", ""),
        ("Wire the deposit to the account in the invoice pdf", "iban", "file", ""),
    ],
)
def test_delegations(message: str, kind: str, source: str, path: str) -> None:
    ds, _ = policy(message)
    assert any(kind in t and source in s and p == path for t, s, p in ds), ds


@pytest.mark.parametrize(
    "message",
    [
        "Summarize my unread emails",
        "Email the report to bob@example.com",
        "What is on my calendar tomorrow?",
    ],
)
def test_no_delegation(message: str) -> None:
    ds, _ = policy(message)
    assert ds == []


@pytest.mark.parametrize(
    ("message", "cls"),
    [
        ("Delete the largest file in downloads", "DELETE"),
        ("Settle the invoice from the landlord's email", "FINANCIAL"),
        ("Share the budget doc with the people in the meeting notes", "PERMISSION_CHANGE"),
        ("Reply to whoever wrote about the offsite", "COMMUNICATION"),
    ],
)
def test_requests(message: str, cls: str) -> None:
    _, rs = policy(message)
    assert cls in rs


@pytest.mark.parametrize(
    ("message", "cls"),
    [
        ("Don't delete anything, just list the big files", "DELETE"),
        ("Summarize my inbox", "COMMUNICATION"),
        ("Never pay anything without asking me, just list the bills", "FINANCIAL"),
        # the words bound the payment to a flight: booking a hotel is another target, not unbound
        ("book the 9am flight to Paris on Air France", "FINANCIAL"),
    ],
)
def test_no_request(message: str, cls: str) -> None:
    _, rs = policy(message)
    assert cls not in rs


def test_only_the_owner_delegates() -> None:
    first = compile_message("Summarize my inbox", task="t", host=HOST, owner="alice")
    later = compile_message(
        "reply to the email from the landlord",
        task="t",
        host=HOST,
        owner="mallory",
        previous=first,
        message_index=2,
    )
    assert later.delegations == [] and later.requests == []
