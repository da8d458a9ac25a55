"""Patches -> file operations, checked against Hermes' own V4A parser."""

from __future__ import annotations

import pytest
from facts_helpers import CTX, P, ws
from hypothesis import given, settings
from hypothesis import strategies as st

from opafence.facts import build_facts, patch

V4A_CASES = [
    (
        "update add delete",
        "*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n"
        "*** Add File: b.py\n+new\n*** Delete File: c.py\n*** End Patch",
        [("a.py", "update"), ("b.py", "add"), ("c.py", "delete")],
    ),
    (
        "move file both sides",
        "*** Begin Patch\n*** Move File: src/old.py -> /etc/cron.d/evil\n*** End Patch",
        [("src/old.py", "move_from"), ("/etc/cron.d/evil", "move_to")],
    ),
    (
        "codex move to",
        "*** Begin Patch\n*** Update File: a.py\n*** Move to: b.py\n@@\n-x\n+y\n*** End Patch",
        [("a.py", "update"), ("a.py", "move_from"), ("b.py", "move_to")],
    ),
    (
        "no space after the stars",
        "***Update File: a.py\n@@\n-x\n+y\n***Add File:b.py\n+z",
        [("a.py", "update"), ("b.py", "add")],
    ),
    (
        "odd spacing and case",
        "***   update   FILE :  spaced name.py  \n@@\n-x\n+y",
        [("spaced name.py", "update")],
    ),
    ("no begin marker", "*** Delete File: ~/.bashrc", [("~/.bashrc", "delete")]),
    (
        "headers after the end marker still count",
        "*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n*** End Patch\n*** Delete File: b",
        [("a", "update"), ("b", "delete")],
    ),
    (
        "indented header",
        "*** Begin Patch\n  *** Add File: x\n+y\n*** End Patch",
        [("x", "add")],
    ),
    (
        "duplicates removed",
        "*** Update File: a\n@@\n-1\n+2\n*** Update File: a\n@@\n-3\n+4",
        [("a", "update")],
    ),
    ("empty path ignored", "*** Update File:   \n", []),
    ("windows line ends", "*** Update File: a.py\r\n@@\r\n-x\r\n+y\r\n", [("a.py", "update")]),
]

UNIFIED_CASES = [
    (
        "git update",
        "diff --git a/src/x.py b/src/x.py\nindex 1..2 100644\n"
        "--- a/src/x.py\n+++ b/src/x.py\n@@ -1 +1 @@\n-a\n+b\n",
        [("src/x.py", "update")],
    ),
    (
        "git add and delete",
        "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+x\n--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n",
        [("new.txt", "add"), ("old.txt", "delete")],
    ),
    (
        "git rename",
        "diff --git a/a.py b/b.py\nsimilarity index 100%\nrename from a.py\nrename to b.py\n",
        [("a.py", "move_from"), ("b.py", "move_to")],
    ),
    (
        "plain diff -u with timestamps",
        "--- x.orig\t2024-01-01 00:00:00\n+++ x\t2024-01-02 00:00:00\n@@ -1 +1 @@\n-a\n+b\n",
        [("x.orig", "update"), ("x", "update")],
    ),
    (
        "quoted git names",
        '--- "a/sp ace.txt"\n+++ "b/sp ace.txt"\n@@ -1 +1 @@\n-a\n+b\n',
        [("sp ace.txt", "update")],
    ),
    (
        "binary git patch without ---/+++",
        "diff --git a/img.png b/img.png\nnew file mode 100644\nGIT binary patch\nliteral 1\n",
        [("img.png", "update")],
    ),
    ("not a patch", "just some text\n--- not followed by plus\n", []),
]


@pytest.mark.parametrize(
    ("text", "want"), [pytest.param(t, w, id=i) for i, t, w in V4A_CASES + UNIFIED_CASES]
)
def test_parse_patch(text: str, want: list[tuple[str, str]]) -> None:
    assert patch.parse_patch(text) == want


def test_strip_level() -> None:
    text = "--- a/src/x.py\n+++ b/src/x.py\n@@ -1 +1 @@\n-a\n+b\n"
    assert patch.parse_patch(text, 0) == [("a/src/x.py", "update"), ("b/src/x.py", "update")]
    assert patch.parse_patch(text, 2) == [("x.py", "update")]


def test_patch_tool_facts() -> None:
    text = (
        "*** Begin Patch\n*** Update File: src/a.py\n@@\n-x\n+y\n"
        "*** Move File: b -> ~/.ssh/authorized_keys\n*** End Patch"
    )
    facts = build_facts("patch", {"mode": "patch", "patch": text}, CTX)
    assert facts["paths"] == [
        P("src/a.py", ws("src/a.py"), "patch", "patch", "update"),
        P("b", ws("b"), "patch", "patch", "move_from"),
        P("~/.ssh/authorized_keys", "/nonexistent-home/u/.ssh/authorized_keys", "patch", "patch", "move_to"),
    ]


def test_patch_replace_mode_names_its_path() -> None:
    facts = build_facts(
        "patch", {"mode": "replace", "path": "a.py", "old_string": "x", "new_string": "y"}, CTX
    )
    assert facts["paths"] == [P("a.py", ws("a.py"), "path", "arg", "")]


# --- agreement with Hermes: every path Hermes would touch is in our facts -------------------

HERMES_CORPUS = [text for _, text, _ in V4A_CASES] + [
    "*** Begin Patch\n*** Update File: x.py\n*** Update File: y.py\n@@\n-a\n+b\n*** End Patch",
    "*** Begin Patch\n*** Move File: a.txt->b.txt\n*** End Patch",
    "*** Begin Patch\n*** Move File: a b.txt  ->  c d.txt\n*** End Patch",
    "*** Begin Patch\n***Delete File:x\n***Move File: p -> q\n*** End Patch",
    "prefix\n*** Begin Patch\n*** Add File: z\n+1\n*** End Patch\n",
    "*** Begin Patch\n*** Update File: a -> b\n@@\n-1\n+2\n*** End Patch",
    "*** Begin Patch\n***\tUpdate\tFile:\ttabbed\n@@\n-1\n+2\n*** End Patch",
    "*** Begin Patch\n***\u00a0Update\u2003File: unicode-space\n@@\n-1\n+2\n*** End Patch",
    "*** Begin Patch\n*** Add File: ../../outside\n+x\n*** End Patch",
]


def _hermes_paths(text: str) -> set[str]:
    from tools.patch_parser import parse_v4a_patch  # Hermes, only in tests

    ops, _error = parse_v4a_patch(text)
    found: set[str] = set()
    for op in ops:
        found.add(op.file_path)
        if op.new_path:
            found.add(op.new_path)
    return found


@pytest.mark.parametrize("text", HERMES_CORPUS)
def test_superset_of_hermes(text: str) -> None:
    ours = {path for path, _ in patch.parse_patch(text)}
    assert _hermes_paths(text) <= ours


_HEADER = st.sampled_from(
    [
        "*** Update File: ",
        "***Update File:",
        "*** Add File: ",
        "*** Delete File: ",
        "*** Move File: ",
        "***  Add  File:",
    ]
)
_LINE = st.one_of(
    st.tuples(_HEADER, st.text(alphabet="ab /.->\t", min_size=1, max_size=12)).map("".join),
    st.sampled_from(["@@", "-x", "+y", " z", "*** Begin Patch", "*** End Patch", ""]),
    st.text(max_size=20),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_LINE, max_size=12))
def test_superset_of_hermes_generated(lines: list[str]) -> None:
    text = "\n".join(lines)
    ours = {path for path, _ in patch.parse_patch(text)}
    assert _hermes_paths(text) <= ours


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_never_raises(text: str) -> None:
    for path, op in patch.parse_patch(text):
        assert path
        assert op in ("update", "add", "delete", "move_from", "move_to")
