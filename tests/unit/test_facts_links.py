"""Identities of secret and protected places (facts/links.py), on a real filesystem.

Hard links are made in a temporary directory (no root needed). A bind mount needs a mount
namespace: the bind-mount test runs its check in a child under `unshare -r -m` and is skipped
when this machine does not allow that. The matcher itself is tested with real inodes too: an
index that maps a real directory's inode to a protected name is what a bind mount shows.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from opafence.facts import FactsContext, build_facts, links


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def machine(tmp_path: Path) -> dict[str, Path]:
    root = Path(os.path.realpath(tmp_path))
    home = root / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("not a real key\n")
    hermes = home / ".hermes"
    (hermes / "skills" / "ops").mkdir(parents=True)
    (hermes / "skills" / "ops" / "SKILL.md").write_text("# ops\n")
    (hermes / "config.yaml").write_text("x: 1\n")
    state = hermes / "opafence"
    (state / "keys").mkdir(parents=True)
    (state / "keys" / "audit-hmac.key").write_text("not a real key\n")
    work = home / "src" / "app"
    work.mkdir(parents=True)
    (work / "plain.txt").write_text("hello\n")
    return {"root": root, "home": home, "hermes": hermes, "state": state, "work": work}


def identities(m: dict[str, Path], clock: Clock | None = None) -> links.Identities:
    # Mounts unknown: every parent is looked at, as under a bind mount.
    found = links.places(str(m["home"]), str(m["hermes"]), str(m["state"]))
    return links.Identities(found, (), clock or Clock(), links.Mounts(watch=False))


def same(index: links.Identities, *paths: Path | str) -> list[dict[str, str]]:
    found, exhausted = index.same_files(str(p) for p in paths)
    assert not exhausted
    return found


def test_a_hard_link_is_the_file(machine: dict[str, Path]) -> None:
    work, key = machine["work"], machine["home"] / ".ssh" / "id_ed25519"
    os.link(key, work / "notes.txt")
    assert same(identities(machine), work / "notes.txt") == [
        {"path": str(work / "notes.txt"), "same_as": str(key)}
    ]


def test_the_place_by_its_own_name_and_ordinary_files_are_no_link(machine: dict[str, Path]) -> None:
    work = machine["work"]
    os.link(work / "plain.txt", work / "plain-copy.txt")  # several names, none protected
    index = identities(machine)
    assert same(index, machine["home"] / ".ssh" / "id_ed25519", machine["hermes"] / "config.yaml") == []
    assert same(index, work / "plain.txt", work / "plain-copy.txt", work / "missing.txt") == []


def test_a_directory_inode_stands_for_the_protected_directory(machine: dict[str, Path]) -> None:
    # What a bind mount shows: another path whose directory has the protected one's inode. The
    # matcher is handed an index mapping a real directory's inode to the protected name.
    other = machine["root"] / "mnt" / "b"
    (other / "sub").mkdir(parents=True)
    st = os.stat(other)
    index = {(st.st_dev, st.st_ino): str(machine["hermes"])}
    probe = links._Probe()
    devices = frozenset({st.st_dev})
    assert probe.match(str(other / "config.yaml"), index, devices) == (
        str(machine["hermes"] / "config.yaml"),
        False,
    )
    # A file that does not exist yet, two levels below: its nearest existing parent decides.
    want = str(machine["hermes"] / "sub" / "new" / "SKILL.md")
    assert probe.match(str(other / "sub" / "new" / "SKILL.md"), index, devices) == (want, False)
    assert probe.match(str(other), index, devices) == (str(machine["hermes"]), False)
    # Another filesystem holds nothing protected: one stat, no walk up.
    assert links._Probe().match(str(other / "x"), index, frozenset({st.st_dev + 1})) == (None, False)


MOUNTINFO = """\
22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw
23 22 0:21 / /proc rw - proc proc rw
40 22 254:0 /home/u/.hermes /tmp/my\\040mount rw - ext4 /dev/vda rw
41 22 0:30 / /srv/data rw - xfs /dev/vdb rw
42 22 0:30 / /mnt/data rw - xfs /dev/vdb rw
"""


def test_bind_points_from_mountinfo() -> None:
    # A subtree mount (root other than /) and a filesystem mounted twice; the root filesystem is
    # then mounted twice too (254:0), so / counts. Octal escapes are undone; deepest first.
    points = links.bind_points(MOUNTINFO)
    assert set(points) == {"/", "/tmp/my mount", "/srv/data", "/mnt/data"}
    assert points[-1] == "/"
    plain = links.bind_points("22 1 254:0 / / rw - ext4 /dev/vda rw\n23 22 0:21 / /proc rw - proc proc rw\n")
    assert plain == ()


def test_floor_is_the_bind_mount_above() -> None:
    points = ("/mnt/data/x", "/mnt/data")
    assert links.floor("/mnt/data/x/y/z", points) == "/mnt/data/x"
    assert links.floor("/mnt/data", points) == "/mnt/data"
    assert links.floor("/mnt/database/y", points) == "/mnt/database/y"  # not below /mnt/data
    assert links.floor("/home/u/a", ()) == "/home/u/a"  # no bind mount: the path alone
    assert links.floor("/home/u/a", None) == "/"  # mounts unknown: every parent


def test_without_a_bind_mount_only_the_path_is_stated(machine: dict[str, Path]) -> None:
    work = machine["work"]
    dev = frozenset({os.stat(work).st_dev})
    probe = links._Probe(())
    probe.match(str(work / "plain.txt"), {}, dev)
    probe.match(str(work / "missing" / "new.txt"), {}, dev)
    assert links.MAX_STATS - probe.left == 2


def test_stats_are_cached_and_bounded(machine: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    work = machine["work"]
    probe = links._Probe()
    probe.match(str(work / "a.txt"), {}, frozenset({os.stat(work).st_dev}))
    first = links.MAX_STATS - probe.left
    probe.match(str(work / "b.txt"), {}, frozenset({os.stat(work).st_dev}))
    assert links.MAX_STATS - probe.left == first + 1  # only b.txt itself is new
    monkeypatch.setattr(links, "MAX_STATS", 3)
    _, exhausted = identities(machine).same_files([str(work / "x" / "y" / "z" / "w")])
    assert exhausted


def test_process_relative_spellings_are_not_stated(machine: dict[str, Path]) -> None:
    fd = os.open(machine["home"] / ".ssh" / "id_ed25519", os.O_RDONLY)
    try:
        # /dev/fd/N names the caller's descriptor, not ours: never compared here.
        assert same(identities(machine), f"/dev/fd/{fd}", f"/proc/self/fd/{fd}") == []
    finally:
        os.close(fd)


def test_proc_root_spelling_through_the_facts(machine: dict[str, Path]) -> None:
    work, key = machine["work"], machine["home"] / ".ssh" / "id_ed25519"
    os.link(key, work / "notes.txt")
    ctx = FactsContext(
        home=str(machine["home"]),
        cwd=str(work),
        hermes_home=str(machine["hermes"]),
        state_dir=str(machine["state"]),
        identities=identities(machine),
    )
    facts = build_facts("read_file", {"path": f"/proc/self/root{work}/notes.txt"}, ctx)
    assert facts["links"] == [{"path": str(work / "notes.txt"), "same_as": str(key)}]
    facts = build_facts("terminal", {"command": f"cat /proc/1/root{work}/notes.txt"}, ctx)
    assert facts["links"] == [{"path": str(work / "notes.txt"), "same_as": str(key)}]


def test_refresh_after_a_miss_and_with_age(machine: dict[str, Path]) -> None:
    clock = Clock()
    index = identities(machine, clock)
    work = machine["work"]
    assert same(index, work / "plain.txt") == [] and index.builds == 1
    # A credential created after the build, then linked: the link is unknown to the index.
    aws = machine["home"] / ".aws"
    aws.mkdir()
    (aws / "credentials").write_text("[default]\n")
    os.link(aws / "credentials", work / "c.txt")
    assert same(index, work / "c.txt") == []  # within REBUILD_GAP of the build: no rebuild yet
    assert index.builds == 1
    clock.now += links.REBUILD_GAP + 0.1
    assert same(index, work / "c.txt") == [{"path": str(work / "c.txt"), "same_as": str(aws / "credentials")}]
    assert index.builds == 2
    # A bind mount raises no link count: only age rebuilds for it.
    clock.now += links.MAX_AGE / 2
    same(index, work / "plain.txt")
    assert index.builds == 2
    clock.now += links.MAX_AGE
    same(index, work / "plain.txt")
    assert index.builds == 3


def test_one_off_facts_find_hard_links_only(machine: dict[str, Path]) -> None:
    work, key = machine["work"], machine["state"] / "keys" / "audit-hmac.key"
    os.link(key, work / "scratch.txt")
    ctx = FactsContext(
        home=str(machine["home"]),
        cwd=str(work),
        hermes_home=str(machine["hermes"]),
        state_dir=str(machine["state"]),
    )
    facts = build_facts("read_file", {"path": "scratch.txt"}, ctx)
    assert facts["links"] == [{"path": str(work / "scratch.txt"), "same_as": str(key)}]
    assert "links" not in build_facts("read_file", {"path": "plain.txt"}, ctx)


# Run inside `unshare -r -m`: bind-mount Hermes' home and the key directory elsewhere, then ask
# the matcher about paths below the mount points.
# The index and its mount watcher exist before the mounts: the kernel's change notice must make
# it look at the new mount points.
BIND_CHECK = """
import json, subprocess, sys
from opafence.facts import links
home, hermes, state, mnt = sys.argv[1:5]
index = links.Identities(links.places(home, hermes, state))
named = [mnt + "/h/config.yaml", mnt + "/h/skills/ops/new.md", mnt + "/k"]
before, _ = index.same_files(named)
assert before == [], before
subprocess.run(["mount", "--bind", hermes, mnt + "/h"], check=True)
subprocess.run(["mount", "--bind", state + "/keys/audit-hmac.key", mnt + "/k"], check=True)
assert mnt + "/h" in index.mounts.points(), index.mounts.points()
found, _ = index.same_files(named)
print(json.dumps(found))
"""


def test_a_real_bind_mount(machine: dict[str, Path]) -> None:
    unshare = shutil.which("unshare")
    if unshare is None:
        pytest.skip("no unshare(1) on this machine")
    mnt = machine["root"] / "mnt"
    (mnt / "h").mkdir(parents=True)
    (mnt / "k").write_text("")
    hermes, state = machine["hermes"], machine["state"]
    args = [str(machine["home"]), str(hermes), str(state), str(mnt)]
    try:
        run = subprocess.run(
            [unshare, "-r", "-m", sys.executable, "-c", BIND_CHECK, *args],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        pytest.skip(f"cannot run unshare here: {e}")
    if run.returncode != 0 and ("mount" in run.stderr or "unshare" in run.stderr):
        pytest.skip(f"bind mounts are not permitted here: {run.stderr.strip().splitlines()[-1]}")
    assert run.returncode == 0, run.stderr
    import json

    assert json.loads(run.stdout) == [
        {"path": str(mnt / "h" / "config.yaml"), "same_as": str(hermes / "config.yaml")},
        {
            "path": str(mnt / "h" / "skills" / "ops" / "new.md"),
            "same_as": str(hermes / "skills" / "ops" / "new.md"),
        },
        {"path": str(mnt / "k"), "same_as": str(state / "keys" / "audit-hmac.key")},
    ]
