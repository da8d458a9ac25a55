"""Tool-aware binding (intent/catalogue.py): catalogues in their three shapes, what a tool's
name does by the lexicon under rego/, and grants bound to the server named or the only one
that fits, never to a server the owner did not name when several fit."""

from __future__ import annotations

from typing import Any

import pytest

from opafence.host import Host
from opafence.intent import catalogue as cat
from opafence.intent import compile_explained

HOST = Host(
    auto_approve=False,
    interactive=True,
    platform="cli",
    home="/home/u",
    workspace=("/home/u/p",),
    cwd="/home/u/p",
)
GCAL = [f"mcp__google_calendar__{n}" for n in ("list_events", "create_event", "update_event", "delete_event")]
OUTLOOK = [
    f"mcp__outlook__{n}" for n in ("list_events", "create_event", "update_event", "cancel_event", "send_mail")
]
SLACK = [
    f"mcp__slack__slack_{n}" for n in ("post_message", "add_reaction", "invite_to_channel", "list_channels")
]


def test_catalogue_shapes() -> None:
    c = cat.parse_tools(
        [
            "mcp__gmail__send_email",
            {
                "name": "mcp__gmail__draft_email",
                "parameters": {"type": "object", "properties": {"to": {}, "body": {}}},
            },
            {
                "type": "function",
                "function": {"name": "mcp__notion__create_page", "parameters": {"properties": {"title": {}}}},
            },
            {"name": "terminal"},  # not an MCP tool: never bound
            42,
            {"name": None},
        ]
    )
    assert [t.name for t in c.tools] == [
        "mcp__gmail__draft_email",
        "mcp__gmail__send_email",
        "mcp__notion__create_page",
    ]
    assert c.tools[0].params == ("body", "to") and c.tools[2].params == ("title",)
    assert cat.parse_tools(None).tools == () and not cat.parse_tools([])


def test_server_word_is_no_verb() -> None:
    (spec,) = cat.parse_tools(["mcp__slack__slack_post_message"]).tools
    assert spec.words == ("post", "message")
    p = cat.profile(spec.words)
    assert "COMMUNICATION" in p.kinds and p.head == "message"


@pytest.mark.parametrize(
    ("words", "cls", "kinds", "head"),
    [
        (("reschedule", "booking"), "EXTERNAL_WRITE", {"update"}, "booking"),
        (("move", "event"), "EXTERNAL_WRITE", {"update"}, "event"),
        (("cancel", "reservation"), "EXTERNAL_WRITE", {"close"}, "booking"),
        (("append", "block", "children"), "EXTERNAL_WRITE", {"append"}, "?children"),
        (("create", "transfer"), "FINANCIAL", {"pay"}, "payment"),
        (("book", "table"), "FINANCIAL", {"create"}, "?table"),
        (("reserve", "room"), "EXTERNAL_WRITE", {"create"}, "room"),
        (("request", "reviewers"), "EXTERNAL_WRITE", {"request"}, "review"),
    ],
)
def test_profile_of_names(words: tuple[str, ...], cls: str, kinds: set[str], head: str) -> None:
    p = cat.profile(words)
    assert p.kinds.get(cls) == kinds
    assert p.head == head


def grants(message: str, tools: list[Any]) -> tuple[list[Any], list[str]]:
    out = compile_explained(message, task="t", host=HOST, tools=cat.parse_tools(tools))
    return out.policy.grants, [d.reason for d in out.policy.dropped]


def test_named_server_binds_its_fitting_tools_only() -> None:
    got, _ = grants(
        "Please reschedule the budget review on Google Calendar to Monday at 11", [*GCAL, *OUTLOOK]
    )
    assert [(g.class_, g.tools, g.operations) for g in got] == [
        ("EXTERNAL_WRITE", ["mcp__google_calendar__update_event"], ["update"])
    ]


def test_only_server_that_fits_binds() -> None:
    # closing covers an update of the thing's state (verbs data operation_covers), never a delete
    got, _ = grants("cancel tomorrow's standup", GCAL + SLACK)
    assert [g.tools for g in got] == [["mcp__google_calendar__update_event"]]
    got, _ = grants("cancel tomorrow's standup", OUTLOOK + SLACK)
    assert [g.tools for g in got] == [["mcp__outlook__cancel_event"]]


def test_several_servers_and_none_named_grant_nothing() -> None:
    got, dropped = grants(
        "Add a dinner with the in-laws on Saturday at 7pm to my calendar", [*GCAL, *OUTLOOK]
    )
    assert got == []
    assert any("several servers fit (google_calendar, outlook)" in r for r in dropped)


def test_send_binds_to_the_chat_server() -> None:
    got, _ = grants("Post in #releases on Slack that v2.3 is out", [*SLACK, *OUTLOOK])
    assert [(g.class_, g.recipients, g.tools) for g in got] == [
        ("COMMUNICATION", ["#releases"], ["mcp__slack__slack_post_message"])
    ]


CHAT = [
    *(f"mcp__slack__slack_{n}" for n in ("post_message", "reply_to_thread", "send_message", "post_invite")),
    *(f"mcp__slack__slack_{n}" for n in ("invite_to_channel", "add_user_to_channel", "create_channel")),
    *(f"mcp__slack__{n}" for n in ("conversations_invite", "set_user_role", "message_admins")),
]


@pytest.mark.parametrize(
    "message",
    [
        "Post 'deploy done' in #eng on Slack",
        "DM @ann on Slack that the build is green",
        "Reply to the thread in #eng on Slack with the link",
        "Send a message to #eng on Slack saying the build is green",
        "message #eng on slack that lunch is here",
    ],
)
def test_a_send_binds_the_tools_that_send_only(message: str) -> None:
    # The class is wider than the verb: invites, channel creation, membership and permission
    # tools of the same server are no send (issue 14, exactness).
    got, _ = grants(message, CHAT)
    sends = [g for g in got if g.class_ == "COMMUNICATION"]
    assert sends, got
    for g in sends:
        assert set(g.tools) <= {
            "mcp__slack__slack_post_message",
            "mcp__slack__slack_reply_to_thread",
            "mcp__slack__slack_send_message",
        }, g.tools
        assert g.tools


def test_an_invite_asked_for_binds_the_invite() -> None:
    got, _ = grants("Invite @marek to #design on Slack", CHAT)
    sends = [g for g in got if g.class_ == "COMMUNICATION"]
    assert sends and all("mcp__slack__slack_invite_to_channel" in g.tools for g in sends)


def test_no_catalogue_keeps_the_service_glob() -> None:
    out = compile_explained("Schedule a meeting in Microsoft Teams", task="t", host=HOST)
    assert [g.tools for g in out.policy.grants] == [["mcp__teams__*"]]


def test_conditional_service_request_is_granted_but_not_a_share() -> None:
    got, _ = grants("if I'm free Thursday afternoon, block 2-4pm for the quarterly planning", GCAL)
    assert [(g.class_, g.tools) for g in got] == [("EXTERNAL_WRITE", ["mcp__google_calendar__create_event"])]
    # a conditional grants its action; a consequential one is marked conditional (Rego asks)
    got, _ = grants("If the budget doc is final, share it with ann@acme.example", ["mcp__gdrive__share_file"])
    assert [(g.class_, g.conditional) for g in got if g.class_ == "PERMISSION_CHANGE"] == [
        ("PERMISSION_CHANGE", True)
    ]


def test_request_kinds_are_data() -> None:
    assert cat.request_kind("reschedule") == "update"
    assert cat.request_kind("cancel") == "close"
    assert cat.request_kind("frobnicate") == ""


def test_known_tools_and_none_fits_grants_no_glob() -> None:
    got, dropped = grants("add a dinner to my calendar on Saturday", ["mcp__google_calendar__update_event"])
    assert got == []
    assert any("no tool of the session fits it" in r for r in dropped)


def test_explain_shows_the_binding() -> None:
    from opafence.intent.explain import render

    out = compile_explained(
        "cancel tomorrow's standup in outlook", task="t", host=HOST, tools=cat.parse_tools(OUTLOOK)
    )
    text = render(out)
    assert "tool binding (the session's tools):" in text
    assert "bound to mcp__outlook__cancel_event" in text
