"""Mentions: "don't @-mention anyone" in the owner's words (intent/prohibit.py) and the mentions a
messaging call's text carries (facts/mentions.py). Rego blocks the one when the other is there."""

from __future__ import annotations

from typing import Any

import pytest

from opafence.facts import FactsContext, build_facts
from opafence.facts.mentions import mention_facts
from opafence.intent.prohibit import read_prohibitions

# message -> does it forbid mentions?
MESSAGES: list[tuple[str, bool]] = [
    ("Tell #sales that the price list is out, and don't @-mention anyone.", True),
    ("Post the release notes in #dev, no @here please", True),
    ("Reply in the thread without pinging the channel", True),
    ("Send a note to #ops but don't tag anybody", True),
    ("Post in #team: lunch at noon. Do not @mention people.", True),
    ("Please don't notify everyone, just post it in #general", True),
    ("no @channel, just post the numbers in #finance", True),
    ("Don't mention the outage when you post in #general", False),
    ("Don't tag the release yet", False),
    ("Post the link in #oncall and mention that it's urgent", False),
]


@pytest.mark.parametrize(("message", "forbids"), MESSAGES)
def test_the_words_forbid_mentions(message: str, forbids: bool) -> None:
    got = [p for p in read_prohibitions(message).prohibitions if p.mentions]
    assert bool(got) == forbids, read_prohibitions(message).prohibitions
    for p in got:
        assert p.classes == []  # it forbids mentions, not the post the owner asked for


# args -> the mentions' (raw, kind)
ARGS: list[tuple[dict[str, Any], list[tuple[str, str]]]] = [
    ({"channel": "#sales", "text": "<!channel> price list is out"}, [("<!channel>", "broadcast")]),
    ({"text": "<!here|here> heads up"}, [("<!here|here>", "broadcast")]),
    (
        {"text": "ping <@U024BE7LH> and <!subteam^SAZ94GDB8>"},
        [("<!subteam^SAZ94GDB8>", "group"), ("<@U024BE7LH>", "person")],
    ),
    ({"content": "hey <@&123456> and <@!987>"}, [("<@&123456>", "group"), ("<@!987>", "person")]),
    ({"body": "<at>Ann Lee</at> please review"}, [("<at>Ann Lee</at>", "person")]),
    ({"message": "@here deploy done, thanks @dana."}, [("@here", "broadcast"), ("@dana.", "person")]),
    (
        {"blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": "@everyone look"}}]},
        [("@everyone", "broadcast")],
    ),
    ({"text": "mail ann@example.com or see https://x.example/@user"}, []),
    ({"user": "@ann", "text": "hi"}, []),
    ({"text": "plain words"}, []),
]


@pytest.mark.parametrize(("args", "want"), ARGS)
def test_mentions_in_text(args: dict[str, Any], want: list[tuple[str, str]]) -> None:
    assert sorted((m["raw"], m["kind"]) for m in mention_facts(args)) == sorted(want)


def test_facts_carry_mentions_of_messaging_tools(tmp_path: Any) -> None:
    ctx = FactsContext(home=str(tmp_path), cwd=str(tmp_path))
    post = build_facts("mcp__slack__slack_post_message", {"channel": "#x", "text": "<!channel> hi"}, ctx)
    assert post["mentions"] == [{"raw": "<!channel>", "kind": "broadcast", "arg": "text"}]
    assert "mentions" not in build_facts("write_file", {"path": "a.md", "content": "@here"}, ctx)
