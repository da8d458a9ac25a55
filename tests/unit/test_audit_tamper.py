"""`verify` finds every kind of tampering, names the entry and says why; appends refuse to
continue a chain whose tail does not match its signed head."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from opafence.audit.keys import AuditKeys, b64
from opafence.audit.trail import AuditError, AuditLog, head_path, line_hash
from opafence.audit.verify import verify_trail

N = 40


def build(tmp_path: Path, max_bytes: int = 10**9, n: int = N) -> AuditLog:
    log = AuditLog(tmp_path / "audit.jsonl", max_bytes=max_bytes)
    for i in range(n):
        log.append({"event": "decision", "tool": f"tool{i % 3}", "verdict": "allow", "i": i})
    return log


def lines(log: AuditLog) -> list[str]:
    return log.path.read_text().splitlines()


def write(log: AuditLog, rows: list[str]) -> None:
    log.path.write_text("".join(r + "\n" for r in rows))


def entry(rows: list[str], seq: int) -> dict[str, object]:
    return json.loads(rows[seq - 1])  # type: ignore[no-any-return]


def edit(log: AuditLog) -> None:
    rows = lines(log)
    e = entry(rows, 10)
    e["verdict"] = "block"
    rows[9] = json.dumps(e)
    write(log, rows)


def edit_and_rehash(log: AuditLog) -> None:
    rows = lines(log)
    e = entry(rows, 10)
    e["verdict"] = "block"
    e["hash"] = line_hash(e)
    rows[9] = json.dumps(e)
    write(log, rows)


def edit_and_resign_with_another_key(log: AuditLog) -> None:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from opafence.audit.keys import key_id

    rows = lines(log)
    e = entry(rows, 10)
    e["verdict"] = "block"
    forger = Ed25519PrivateKey.generate()
    e["kid"] = key_id(forger.public_key())
    e["hash"] = line_hash(e)
    e["sig"] = b64(forger.sign(str(e["hash"]).encode()))
    rows[9] = json.dumps(e)
    write(log, rows)


def edit_and_resign_with_our_key(log: AuditLog) -> None:
    """Someone holding the key rewrites one entry: the next entry no longer links to it."""
    rows = lines(log)
    e = entry(rows, 10)
    e["verdict"] = "block"
    e["hash"] = line_hash(e)
    e["sig"] = log.keys.sign(str(e["hash"]).encode())
    rows[9] = json.dumps(e)
    write(log, rows)


def remove(log: AuditLog) -> None:
    rows = lines(log)
    del rows[9]
    write(log, rows)


def reorder(log: AuditLog) -> None:
    rows = lines(log)
    rows[9], rows[10] = rows[10], rows[9]
    write(log, rows)


def insert_copy(log: AuditLog) -> None:
    rows = lines(log)
    rows.insert(10, rows[4])
    write(log, rows)


def insert_forged(log: AuditLog) -> None:
    rows = lines(log)
    e = entry(rows, 10)
    forged = {**e, "seq": 11, "prev": e["hash"], "tool": "forged"}
    forged["hash"] = line_hash(forged)
    rows.insert(10, json.dumps(forged))
    write(log, rows)


def truncate(log: AuditLog) -> None:
    write(log, lines(log)[:-3])


def damage_line(log: AuditLog) -> None:
    rows = lines(log)
    rows[19] = rows[19][:25]
    write(log, rows)


def remove_head(log: AuditLog) -> None:
    head_path(log.path).unlink()


def forge_head(log: AuditLog) -> None:
    hp = head_path(log.path)
    head = json.loads(hp.read_text())
    head["seq"] = N - 3
    hp.write_text(json.dumps(head))


def restart_chain(log: AuditLog) -> None:
    """The log replaced by a fresh chain signed with the same key (the head left alone)."""
    other = log.path.parent / "other"
    other.mkdir()
    fresh = AuditLog(other / "audit.jsonl", keys=log.keys)
    for i in range(5):
        fresh.append({"event": "decision", "tool": "x", "i": i})
    shutil.copy(fresh.path, log.path)


def restart_in_the_middle(log: AuditLog) -> None:
    """A second chain appended after the first one, in the same file."""
    other = log.path.parent / "other"
    other.mkdir()
    fresh = AuditLog(other / "audit.jsonl", keys=log.keys)
    for i in range(3):
        fresh.append({"event": "decision", "tool": "x", "i": i})
    write(log, lines(log) + fresh.path.read_text().splitlines())


# (tampering, where the finding points ("head" or a seq), words the finding must say)
CASES: list[tuple[Callable[[AuditLog], None], object, str]] = [
    (edit, 10, "content was changed"),
    (edit_and_rehash, 10, "signature does not verify"),
    (edit_and_resign_with_another_key, 10, "unknown key"),
    (edit_and_resign_with_our_key, 11, "does not link to the entry before it"),
    (remove, 11, "entries 10 are missing"),
    (reorder, 11, "entries 10 are missing"),
    (reorder, 10, "out of order"),
    (insert_copy, 5, "out of order"),
    (insert_forged, 11, "signature does not verify"),
    (insert_forged, 11, "out of order: seq 11 after seq 11"),
    (truncate, "head", "truncated: it ends at seq 37 but the signed head says seq 40"),
    (damage_line, None, "the line is damaged"),
    (remove_head, "head", "no signed head record"),
    (forge_head, "head", "signature does not verify"),
    (restart_chain, "head", "the chain was restarted"),
    (restart_in_the_middle, 1, "the chain restarts here after seq 40"),
]


@pytest.mark.parametrize(("tamper", "where", "words"), CASES, ids=lambda x: getattr(x, "__name__", str(x)))
def test_tampering_is_found_and_explained(
    tmp_path: Path, tamper: Callable[[AuditLog], None], where: object, words: str
) -> None:
    log = build(tmp_path)
    assert verify_trail(log.path).ok
    tamper(log)
    report = verify_trail(log.path)
    assert not report.ok
    hits = [f for f in report.problems if words in f.problem]
    assert hits, [str(p) for p in report.problems]
    if where == "head":
        assert any(f.where == "head" for f in hits)
    elif where is not None:
        assert any(f.seq == where and f.where.startswith("audit.jsonl:") for f in hits), [
            str(h) for h in hits
        ]


def test_a_removed_oldest_segment_is_found(tmp_path: Path) -> None:
    log = build(tmp_path, max_bytes=3000, n=120)  # some segments rotated, the oldest dropped
    report = verify_trail(log.path)
    assert report.ok and report.first_seq is not None and report.first_seq > 1
    oldest = sorted(tmp_path.glob("audit.jsonl.*[0-9]"))[-1]
    oldest.unlink()
    report = verify_trail(log.path)
    assert any("the oldest entries were removed" in f.problem for f in report.problems)


def test_an_edit_in_a_rotated_segment_is_found(tmp_path: Path) -> None:
    log = build(tmp_path, max_bytes=3000, n=60)
    seg = tmp_path / "audit.jsonl.2"
    rows = seg.read_text().splitlines()
    e = json.loads(rows[1])
    e["tool"] = "other"
    rows[1] = json.dumps(e)
    seg.write_text("\n".join(rows) + "\n")
    report = verify_trail(log.path)
    assert [(f.where, f.seq) for f in report.problems] == [("audit.jsonl.2:2", e["seq"])]


def test_an_intact_trail_verifies_with_an_exported_public_key_only(tmp_path: Path) -> None:
    log = build(tmp_path)
    exported = tmp_path.parent / f"{tmp_path.name}-pub.pem"
    shutil.copy(tmp_path / "keys" / "audit-ed25519.pub.pem", exported)
    shutil.rmtree(tmp_path / "keys")
    report = verify_trail(log.path)
    assert not report.ok and "unknown key" in report.problems[0].problem
    assert verify_trail(log.path, [exported]).ok


# --- appends refuse a chain that does not match its head -----------------------------------------


@pytest.mark.parametrize(
    ("tamper", "words"),
    [
        (truncate, "truncated"),
        (remove_head, "no signed head record"),
        (forge_head, "does not verify"),
        (lambda log: log.path.unlink(), "is gone"),
        (lambda log: (log.path.unlink(), head_path(log.path).unlink()), "already began chain"),
        (lambda log: log.path.write_text(log.path.read_text() + '{"seq": 41, "torn'), "damaged"),
    ],
)
def test_appends_fail_closed_after_tampering(
    tmp_path: Path, tamper: Callable[[AuditLog], object], words: str
) -> None:
    build(tmp_path)
    tamper(AuditLog(tmp_path / "audit.jsonl"))
    fresh = AuditLog(tmp_path / "audit.jsonl")  # another process: no cached tip
    with pytest.raises(AuditError, match=words) as err:
        fresh.append({"event": "decision"})
    assert "opafence audit reseal" in str(err.value)


def test_the_writer_notices_tampering_between_its_own_appends(tmp_path: Path) -> None:
    log = build(tmp_path)
    truncate(log)
    with pytest.raises(AuditError, match="truncated"):
        log.append({"event": "decision"})


def test_a_crash_between_the_line_and_the_head_is_tolerated(tmp_path: Path) -> None:
    log = build(tmp_path)
    old_head = head_path(log.path).read_bytes()
    log.append({"event": "decision", "i": "last"})
    head_path(log.path).write_bytes(old_head)  # the head write was lost
    report = verify_trail(log.path)
    assert report.ok and any("one entry behind" in n for n in report.notes)
    AuditLog(log.path).append({"event": "decision", "i": "after"})
    assert verify_trail(log.path).ok and verify_trail(log.path).notes == []


def test_reseal_records_the_break_and_the_trail_goes_on(tmp_path: Path) -> None:
    log = build(tmp_path)
    truncate(log)
    entry_ = AuditLog(log.path).reseal("restored from backup")
    assert entry_["previous_head"]["seq"] == N and entry_["found"]["seq"] == N - 3
    assert entry_["seq"] == N - 2
    AuditLog(log.path).append({"event": "decision"})
    report = verify_trail(log.path)
    assert report.ok, [str(p) for p in report.problems]
    assert any("restored from backup" in n and "the head said seq 40" in n for n in report.notes)


def test_reseal_cuts_a_torn_tail_aside(tmp_path: Path) -> None:
    log = build(tmp_path)
    with log.path.open("a") as f:
        f.write('{"seq": 41, "half a line')
    entry_ = AuditLog(log.path).reseal("crash during a write")
    side = tmp_path / entry_["cut"]
    assert side.read_text() == '{"seq": 41, "half a line'
    assert verify_trail(log.path).ok


def test_reseal_after_the_whole_trail_was_removed_starts_a_recorded_new_chain(tmp_path: Path) -> None:
    log = build(tmp_path)
    old_chain = (tmp_path / "keys" / "chain").read_text()
    log.path.unlink()
    head_path(log.path).unlink()
    entry_ = AuditLog(log.path).reseal("trail lost with the disk")
    assert entry_["seq"] == 1 and entry_["previous_chain"] == old_chain
    report = verify_trail(log.path)
    assert report.ok and report.notes


def test_keys_are_private_and_argument_digests_keyed(tmp_path: Path) -> None:
    import hashlib

    log = build(tmp_path, n=1)
    keys_dir = tmp_path / "keys"
    assert oct(keys_dir.stat().st_mode & 0o777) == "0o700"
    for name in ("audit-ed25519.pem", "audit-hmac.key"):
        assert oct((keys_dir / name).stat().st_mode & 0o777) == "0o600"
    digests = log.arg_digests({"path": "/etc/passwd", "n": 3, "to": ["a@b.c"]})
    assert digests["path"]["len"] == len("/etc/passwd")
    assert digests["path"]["hmac"] != hashlib.sha256(b"/etc/passwd").hexdigest()[:32]
    assert log.arg_digests({"path": "/etc/passwd"})["path"] == digests["path"]  # matchable with the key
    other = AuditLog(tmp_path / "elsewhere" / "audit.jsonl")
    (tmp_path / "elsewhere").mkdir(exist_ok=True)
    assert other.arg_digests({"path": "/etc/passwd"})["path"]["hmac"] != digests["path"]["hmac"]


def test_keys_are_created_once_under_a_race(tmp_path: Path) -> None:
    import subprocess
    import sys

    code = (
        "import sys; from pathlib import Path; from opafence.audit.keys import load_or_create;"
        "print(load_or_create(Path(sys.argv[1])).kid)"
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", code, str(tmp_path)], stdout=subprocess.PIPE, text=True)
        for _ in range(6)
    ]
    kids = {p.communicate(timeout=60)[0].strip() for p in procs}
    assert len(kids) == 1 and all(p.returncode == 0 for p in procs)


def test_appends_from_several_processes_make_one_chain(tmp_path: Path) -> None:
    import subprocess
    import sys

    code = (
        "import sys; from pathlib import Path; from opafence.audit.trail import AuditLog;"
        "log = AuditLog(Path(sys.argv[1]), max_bytes=20000);"
        "[log.append({'event': 'decision', 'p': sys.argv[2], 'i': i}) for i in range(150)]"
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", code, str(tmp_path / "audit.jsonl"), str(i)])
        for i in range(4)
    ]
    assert all(p.wait(timeout=120) == 0 for p in procs)
    report = verify_trail(tmp_path / "audit.jsonl")
    assert report.ok, [str(p) for p in report.problems[:5]]
    assert report.last_seq == 600


def test_records_cannot_set_the_fields_the_log_owns(tmp_path: Path) -> None:
    log = AuditLog(tmp_path / "audit.jsonl")
    e = log.append({"event": "x", "seq": 999, "prev": "0" * 64, "sig": "forged", "kid": "me"})
    assert e["seq"] == 1 and e["sig"] != "forged" and e["kid"] == log.keys.kid
    assert verify_trail(log.path).ok
    assert isinstance(log.keys, AuditKeys)
