"""The private-file helpers every store shares: atomic replace, short writes, thread safety, locks."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from opafence import state_files
from opafence.state_files import file_lock, write_private_file


def test_file_is_private_and_replaced_atomically(tmp_path: Path) -> None:
    target = tmp_path / "state.json"
    write_private_file(target, "first")
    write_private_file(target, b"second", durable=False)
    assert target.read_text() == "second"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]


def test_short_writes_lose_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_write = os.write

    def one_byte(fd: int, data: bytes | memoryview) -> int:  # what a signal-interrupted write does
        return real_write(fd, bytes(data[:1]))

    monkeypatch.setattr(state_files.os, "write", one_byte)
    payload = bytes(range(256)) * 8
    write_private_file(tmp_path / "f", payload)
    assert (tmp_path / "f").read_bytes() == payload


def test_failed_replace_leaves_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "taken"
    target.mkdir()
    (target / "child").write_text("x")  # a non-empty directory cannot be replaced by a file
    with pytest.raises(OSError):
        write_private_file(target, "data")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken"]


def test_threads_writing_one_file_never_mix(tmp_path: Path) -> None:
    target = tmp_path / "shared"
    bodies = [bytes([65 + i]) * 50_000 for i in range(8)]

    def writer(body: bytes) -> None:
        for _ in range(20):
            write_private_file(target, body, durable=False)

    threads = [threading.Thread(target=writer, args=(b,)) for b in bodies]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert target.read_bytes() in bodies
    assert [p.name for p in tmp_path.iterdir()] == ["shared"]


def test_file_lock_excludes_other_holders(tmp_path: Path) -> None:
    lock = tmp_path / "sub" / "x.lock"
    inside: list[int] = []
    overlap: list[bool] = []

    def worker(i: int) -> None:
        for _ in range(50):
            with file_lock(lock):
                inside.append(i)
                overlap.append(len(inside) > 1)
                inside.remove(i)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert overlap and not any(overlap)
    assert stat.S_IMODE(lock.parent.stat().st_mode) == 0o700
