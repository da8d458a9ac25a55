"""The value ledger on disk (provenance/journal.py through the plugin's SessionStore): saves append
only what is new, fsync'd, and everything that may have lost a value fails closed. Real files in
a temporary state directory; damage is done to them the way a full disk, a crash or a bad copy
would leave them."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from opafence.hermes.store import SessionStore, TaskRecord
from opafence.provenance import journal
from opafence.provenance.record import note_result, provenance_facts

HOME = "/home/u"


def page(n: int, start: int = 0) -> str:
    """A result naming n addresses of its own (person{i}@site{i}.example)."""
    return " ".join(f"write to person{i}@site{i}.example" for i in range(start, start + n))


def record(rec: TaskRecord, n: int, start: int = 0, call: int = 1) -> None:
    note_result(rec.facts.values, "mcp__gmail__read_email", call, page(n, start), ["mcp"], {})


def send_to(rec: TaskRecord, address: str) -> dict[str, object]:
    facts = {"recipients": [{"address": address, "field": "to"}]}
    return provenance_facts(rec.facts.values, "mcp__gmail__send_email", {"to": [address]}, facts, HOME)


def stored(tmp_path: Path, n: int = 20, max_values: int = 50_000) -> tuple[SessionStore, TaskRecord]:
    s = SessionStore(tmp_path, 12, max_values=max_values)
    rec = s.create("sess", owner="alice", platform="cli")
    record(rec, n)
    s.save(rec)
    return s, rec


def reloaded(tmp_path: Path, max_values: int = 50_000) -> TaskRecord:
    rec = SessionStore(tmp_path, 12, max_values=max_values).get("sess")  # a new process
    assert rec is not None
    return rec


def journal_of(s: SessionStore) -> Path:
    return journal.file_for(s._file(s.task_key("sess")))


def lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines()


def test_values_live_in_the_journal_and_a_save_appends_only_what_is_new(tmp_path: Path) -> None:
    s, rec = stored(tmp_path, 20)
    path = journal_of(s)
    task_file = s._file(rec.key)
    assert len(lines(path)) == 1  # the first write is a snapshot
    assert "untrusted" not in json.loads(task_file.read_text())["facts"]["values"]
    assert b"site3" not in path.read_bytes()  # keyed hashes only
    before = path.read_bytes()
    s.save(rec)  # nothing new: the journal is not touched
    assert path.read_bytes() == before
    record(rec, 5, start=100, call=2)
    s.save(rec)
    after = path.read_bytes()
    assert after.startswith(before) and len(lines(path)) == 2
    again = reloaded(tmp_path)
    assert again.facts.values.untrusted == rec.facts.values.untrusted
    assert again.facts.values.sources == rec.facts.values.sources
    assert not again.facts.values.lossy
    prov = send_to(again, "person101@site101.example")
    assert prov["targets"][0]["untrusted"] and prov["targets"][0]["source"]["call"] == 2  # type: ignore[index]


def test_the_owners_values_are_journaled_too(tmp_path: Path) -> None:
    from opafence.provenance.record import note_message

    s = SessionStore(tmp_path, 12)
    rec = s.create("sess", owner="alice", platform="cli")
    note_message(rec.facts.values, "send the report to kim@corp.example", 1, (), HOME)
    s.save(rec)
    prov = send_to(reloaded(tmp_path), "kim@corp.example")
    assert prov["targets"][0]["user"] is True  # type: ignore[index]


def test_a_journal_that_cannot_be_written_makes_the_task_lossy(tmp_path: Path) -> None:
    s, rec = stored(tmp_path)
    path = journal_of(s)
    path.unlink()
    path.mkdir()  # the append cannot open it
    record(rec, 3, start=50, call=2)
    s.save(rec)
    assert rec.facts.values.lossy and "could not be written" in rec.facts.values.lossy_why
    path.rmdir()
    again = reloaded(tmp_path)  # the task record said so, whatever the journal holds
    assert again.facts.values.lossy
    # An unbound target now counts as untrusted (Rego reads lossy so in a tainted session).
    prov = send_to(again, "nobody@elsewhere.example")
    assert prov["lossy"] is True and prov["targets"][0]["user"] is False  # type: ignore[index]


def test_a_failed_fsync_makes_the_task_lossy_and_the_next_save_rewrites_the_journal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    s, rec = stored(tmp_path)
    path = journal_of(s)

    def full_disk(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(journal.os, "fsync", full_disk)
    record(rec, 3, start=50, call=2)
    s.save(rec)
    assert rec.facts.values.lossy and "No space left" in rec.facts.values.lossy_why
    monkeypatch.undo()
    record(rec, 3, start=60, call=3)
    s.save(rec)  # rewritten whole: one snapshot that holds everything, lossy included
    assert len(lines(path)) == 1
    again = reloaded(tmp_path)
    assert again.facts.values.lossy
    assert again.facts.values.untrusted == rec.facts.values.untrusted


def test_a_journal_cut_in_the_middle_of_a_record_makes_the_task_lossy(tmp_path: Path) -> None:
    s, rec = stored(tmp_path)
    record(rec, 5, start=100, call=2)
    s.save(rec)
    path = journal_of(s)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - 40])
    again = reloaded(tmp_path)
    assert again.facts.values.lossy and "cut short" in again.facts.values.lossy_why
    # The records before the cut still count: their values stay untrusted with their source.
    prov = send_to(again, "person3@site3.example")
    assert prov["targets"][0]["untrusted"] is True  # type: ignore[index]


def test_a_journal_missing_its_last_records_makes_the_task_lossy(tmp_path: Path) -> None:
    s, rec = stored(tmp_path)
    path = journal_of(s)
    first = path.read_bytes()
    record(rec, 5, start=100, call=2)
    s.save(rec)
    path.write_bytes(first)  # whole lines gone: every tag still verifies
    again = reloaded(tmp_path)
    assert again.facts.values.lossy and "1 of 2 records" in again.facts.values.lossy_why


@pytest.mark.parametrize("where", [0.1, 0.5, 0.9])
def test_a_changed_byte_anywhere_makes_the_task_lossy(tmp_path: Path, where: float) -> None:
    s, rec = stored(tmp_path, 40)
    record(rec, 5, start=100, call=2)
    s.save(rec)
    path = journal_of(s)
    data = bytearray(path.read_bytes())
    i = int(len(data) * where)
    while data[i] in b" \n":
        i += 1
    data[i] = ord("0") if data[i] != ord("0") else ord("1")
    path.write_bytes(bytes(data))
    assert reloaded(tmp_path).facts.values.lossy


def test_a_missing_journal_makes_the_task_lossy(tmp_path: Path) -> None:
    s, _ = stored(tmp_path)
    journal_of(s).unlink()
    again = reloaded(tmp_path)
    assert again.facts.values.lossy and "missing" in again.facts.values.lossy_why


def test_another_tasks_journal_does_not_verify(tmp_path: Path) -> None:
    s, _ = stored(tmp_path)
    other = s.create("other", owner="alice", platform="cli")
    record(other, 20)
    s.save(other)
    journal.file_for(s._file(other.key)).replace(journal_of(s))
    assert reloaded(tmp_path).facts.values.lossy


def test_an_older_generation_of_the_journal_makes_the_task_lossy(tmp_path: Path) -> None:
    s, rec = stored(tmp_path)
    path = journal_of(s)
    old = path.read_bytes()
    rec.facts.values.journal.broken = True  # the next save rewrites it (generation 2)
    record(rec, 5, start=100, call=2)
    s.save(rec)
    path.write_bytes(old)  # rolled back to generation 1
    again = reloaded(tmp_path)
    assert again.facts.values.lossy and "older" in again.facts.values.lossy_why


def test_a_journal_newer_than_its_task_record_is_read_whole(tmp_path: Path) -> None:
    """The process stopped after the journal's fsync and before the task record was written."""
    s, rec = stored(tmp_path)
    record(rec, 5, start=100, call=2)
    path, fid = s._journal(rec.key)
    journal.save(rec.facts.values, path, fid)  # the journal only
    again = reloaded(tmp_path)
    assert not again.facts.values.lossy
    assert again.facts.values.untrusted == rec.facts.values.untrusted


def test_eviction_is_persisted_as_lossy_and_the_journal_is_compacted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(journal, "COMPACT_SLACK", 50)
    s, rec = stored(tmp_path, 30, max_values=100)
    for call in range(2, 12):
        record(rec, 30, start=call * 100, call=call)
        s.save(rec)
    led = rec.facts.values
    assert len(led.untrusted) <= 100 and led.lossy and "more than 100 values" in led.lossy_why
    path = journal_of(s)
    assert led.journal.gen > 1 and len(lines(path)) < 11  # rewritten when it held far more
    again = reloaded(tmp_path, max_values=100)
    assert again.facts.values.lossy
    assert again.facts.values.untrusted == led.untrusted


def test_a_smaller_bound_on_load_evicts_and_is_lossy(tmp_path: Path) -> None:
    stored(tmp_path, 80)
    again = reloaded(tmp_path, max_values=100)  # 80 addresses: 240 values (email, host, domain)
    assert len(again.facts.values.untrusted) == 100 and again.facts.values.lossy


def test_a_record_of_an_earlier_version_with_inline_values_moves_into_a_journal(tmp_path: Path) -> None:
    s, rec = stored(tmp_path)
    task_file = s._file(rec.key)
    data = json.loads(task_file.read_text())
    led = rec.facts.values
    led.journaled = False
    data["facts"]["values"] = led.to_json()  # the earlier shape: the values inline
    led.journaled = True
    assert "untrusted" in data["facts"]["values"]
    task_file.write_text(json.dumps(data))
    journal_of(s).unlink()
    again_store = SessionStore(tmp_path, 12)
    again = again_store.get("sess")
    assert again is not None and again.facts.values.untrusted == led.untrusted
    assert not again.facts.values.lossy
    again_store.save(again)
    assert "untrusted" not in json.loads(task_file.read_text())["facts"]["values"]
    assert reloaded(tmp_path).facts.values.untrusted == led.untrusted


def test_the_journal_expires_with_its_task(tmp_path: Path) -> None:
    s, rec = stored(tmp_path)
    path = journal_of(s)
    assert path.exists()
    rec.last_active = time.time() - 13 * 3600
    s.expire()
    assert not path.exists() and not s._file(rec.key).exists()


def test_a_sweep_removes_old_journals_whose_task_is_gone_and_keeps_live_ones(tmp_path: Path) -> None:
    s, _ = stored(tmp_path)
    live = journal_of(s)
    orphan = tmp_path / "tasks" / ("0" * 32 + journal.SUFFIX)
    orphan.write_bytes(b"x")
    fresh = tmp_path / "tasks" / ("1" * 32 + journal.SUFFIX)  # its task record is being written
    fresh.write_bytes(b"x")
    old = time.time() - 13 * 3600
    os.utime(orphan, (old, old))
    os.utime(live, (old, old))  # a journal not appended for long: its task record is what counts
    SessionStore(tmp_path, 12).expire()
    assert not orphan.exists() and fresh.exists() and live.exists()


def test_a_process_that_stops_before_a_result_is_recorded_leaves_a_lossy_task(tmp_path: Path) -> None:
    from opafence.provenance.record import await_result, settle_result

    s, rec = stored(tmp_path)
    await_result(rec.facts.values, "mcp__gmail__read_email", 2, ["mcp"])  # pre_tool_call's save
    s.save(rec)
    again = reloaded(tmp_path)
    assert again.facts.values.lossy and "call 2" in again.facts.values.lossy_why
    record(rec, 3, start=50, call=2)  # post_tool_call recorded it: nothing owed
    await_result(rec.facts.values, "read_file", 3, [])  # a trusted read owes nothing
    await_result(rec.facts.values, "web_extract", 4, ["web"])
    settle_result(rec.facts.values, 4)  # it did not run
    s.save(rec)
    assert not reloaded(tmp_path).facts.values.lossy
