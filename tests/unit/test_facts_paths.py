"""Paths: raw argument -> canonical absolute path."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from facts_helpers import HOME, WS
from hypothesis import given, settings
from hypothesis import strategies as st

from opafence.facts import paths

# (id, raw, expected canonical path, expected problem)
CASES = [
    ("absolute", "/etc/passwd", "/etc/passwd", ""),
    ("relative", "src/app.py", f"{WS}/src/app.py", ""),
    ("dot", ".", WS, ""),
    ("tilde", "~", HOME, ""),
    ("tilde slash", "~/.ssh/id_rsa", f"{HOME}/.ssh/id_rsa", ""),
    ("tilde user", "~root/.bashrc", "/root/.bashrc", ""),
    ("unknown user", "~no-such-user-opafence/x", "", "path_unknown_user"),
    ("tilde plus", "~+/x", f"{WS}/x", ""),
    ("tilde minus", "~-/x", "", "path_oldpwd"),
    ("HOME variable", "$HOME/.netrc", f"{HOME}/.netrc", ""),
    ("HOME braces", "${HOME}/.aws/credentials", f"{HOME}/.aws/credentials", ""),
    ("HOMEDIR is not HOME", "$HOMEDIR/x", f"{WS}/$HOMEDIR/x", ""),
    ("other variable kept", "$XDG_CONFIG_HOME/x", f"{WS}/$XDG_CONFIG_HOME/x", ""),
    ("quotes inside a word", '~/.s"s"h/id_rsa', f"{HOME}/.ssh/id_rsa", ""),
    ("single quotes", "'/etc'/'passwd'", "/etc/passwd", ""),
    ("quoted tilde stays literal", '"~"/x', f"{WS}/~/x", ""),
    ("backslash", "/etc/pass\\wd", "/etc/passwd", ""),
    ("unbalanced quote kept", 'a"b', f'{WS}/a"b', ""),
    ("dot-dot", "/var/../etc/./shadow", "/etc/shadow", ""),
    ("dot-dot above root", "/../../etc", "/etc", ""),
    ("doubled slashes", "//etc//passwd", "/etc/passwd", ""),
    ("relative dot-dot", "../../x", "/nonexistent-ws/../x".replace("/nonexistent-ws/..", ""), ""),
    ("blanks are part of the name", " /etc/hosts", f"{WS}/ /etc/hosts", ""),
    ("file URL", "file:///etc/passwd", "/etc/passwd", ""),
    ("file URL localhost", "file://localhost/etc/passwd", "/etc/passwd", ""),
    ("case kept", "/ETC/Passwd", "/ETC/Passwd", ""),
    ("NUL byte", "/etc/pass\x00wd", "", "path_nul"),
    ("empty after quotes", "''", "", "path_empty"),
    ("too long", "/" + "a" * 5000, "", "path_too_long"),
    ("process fd is not ours", "/dev/fd/3", "/dev/fd/3", ""),
    ("proc self is not ours", "/proc/self/environ", "/proc/self/environ", ""),
    ("proc root is root", "/proc/self/root/etc/shadow", "/etc/shadow", ""),
    ("another process's root", "/proc/1/root/etc/../etc/shadow", "/etc/shadow", ""),
    ("a thread's root", "/proc/thread-self/root", "/", ""),
    ("proc cwd is the caller's cwd", "/proc/self/cwd/.env", f"{WS}/.env", ""),
    ("proc task root", "/proc/123/task/124/root/etc/passwd", "/etc/passwd", ""),
    ("proc rootx is not root", "/proc/self/rootx/a", "/proc/self/rootx/a", ""),
]


@pytest.mark.parametrize(("raw", "want", "problem"), [pytest.param(r, w, p, id=i) for i, r, w, p in CASES])
def test_normalize(raw: str, want: str, problem: str) -> None:
    got = paths.normalize(raw, WS, HOME)
    assert (got.path, got.problem) == (want, problem)
    assert got.raw == raw


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """real/dir/file, a symlinked directory, a symlinked file, a dangling link and a loop."""
    real = tmp_path / "real"
    (real / "dir").mkdir(parents=True)
    (real / "dir" / "file").write_text("x")
    (tmp_path / "linkdir").symlink_to(real / "dir")
    (tmp_path / "linkfile").symlink_to(real / "dir" / "file")
    (tmp_path / "dangling").symlink_to(tmp_path / "missing" / "target")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    (tmp_path / "rel").symlink_to("real")
    return tmp_path.resolve()


@pytest.mark.parametrize(
    ("rel", "want"),
    [
        ("linkdir/file", "real/dir/file"),
        ("linkfile", "real/dir/file"),
        ("linkdir/../dir", "real/dir"),  # physical: .. of the link target
        ("linkdir/missing/deeper", "real/dir/missing/deeper"),
        ("rel/dir/file", "real/dir/file"),
        ("dangling", "missing/target"),
        ("real/dir/file/", "real/dir/file"),
    ],
)
def test_symlinks_resolved(tree: Path, rel: str, want: str) -> None:
    got = paths.normalize(rel, str(tree), HOME)
    assert got.path == str(tree / want)
    assert got.path == os.path.realpath(tree / rel)


def test_symlink_loop_matches_realpath(tree: Path) -> None:
    assert paths.resolve("loop/x", str(tree)) == os.path.realpath(tree / "loop" / "x")


def test_symlinked_home(tree: Path) -> None:
    got = paths.normalize("~/file", str(tree), str(tree / "linkdir"))
    assert got.path == str(tree / "real" / "dir" / "file")


_SEGMENT = st.sampled_from(
    ["real", "dir", "file", "linkdir", "linkfile", "rel", "dangling", "missing", "..", ".", ""]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_SEGMENT, max_size=7), st.booleans())
def test_fast_resolution_agrees_with_realpath(
    tmp_path_factory: pytest.TempPathFactory, segs: list[str], absolute: bool
) -> None:
    base = _shared_tree(tmp_path_factory)
    rel = "/".join(segs)
    path = str(base / rel) if absolute else rel
    assert paths.resolve(path, str(base)) == os.path.realpath(os.path.join(base, path))
    cache: dict[str, str] = {}
    first = paths.resolve(path, str(base), cache)
    assert paths.resolve(path, str(base), cache) == first


_TREE: list[Path] = []


def _shared_tree(factory: pytest.TempPathFactory) -> Path:
    if not _TREE:
        root = factory.mktemp("facts-tree")
        real = root / "real"
        (real / "dir").mkdir(parents=True)
        (real / "dir" / "file").write_text("x")
        (root / "linkdir").symlink_to(real / "dir")
        (root / "real" / "dir" / "linkdir").symlink_to(real)
        (root / "linkfile").symlink_to(real / "dir" / "file")
        (root / "dangling").symlink_to(root / "missing")
        (root / "rel").symlink_to("real")
        _TREE.append(root.resolve())
    return _TREE[0]


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80))
def test_never_raises(raw: str) -> None:
    got = paths.normalize(raw, WS, HOME)
    assert (got.path == "") == bool(got.problem)
    if got.path:
        assert got.path.startswith("/")
        assert "//" not in got.path


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_characters="\x00"), max_size=60))
def test_resolve_is_idempotent(raw: str) -> None:
    once = paths.resolve(raw, WS)
    assert paths.resolve(once, WS) == once
    assert paths.resolve(once, "/elsewhere") == once


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="abc/.~$'\"\\ HOME{}", max_size=40))
def test_normalize_is_idempotent_on_its_output(raw: str) -> None:
    got = paths.normalize(raw, WS, HOME)
    if got.path and not any(c in got.path for c in "'\"\\$"):
        again = paths.normalize(got.path, "/elsewhere", "/other-home")
        assert again.path == got.path
