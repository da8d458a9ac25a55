"""A fake opafence-pdp, only to inject faults into the PDP transport (garbage, 500s, hangs).

It speaks the real frames (opafence.opa.frames) with the key it is handed, reports the
opafence bundle as active, and answers decisions as the file `mode` beside its config says
(the same modes as fake_opa.REPLIES, plus frames that are not its own). `install()` writes it
as an executable whose first line names this Python, since the PDP runs with an empty
environment."""

from __future__ import annotations

import os
import sys
from pathlib import Path

SCRIPT = """
import os, sys, time
sys.path[:0] = {paths!r}
from opafence.opa import frames

REPLIES = {replies!r}
STATUS = b'{{"result":{{"bundles":{{"opafence":{{"name":"opafence","active_revision":"fake",' \\
    b'"last_successful_activation":"2026-01-01T00:00:00Z"}}}}}}}}'

if sys.argv[1] == "version":
    print("Version: {version}")
    print("Protocol: {protocol}")
    sys.exit(0)
args = dict(zip(sys.argv[2::2], sys.argv[3::2]))
key_fd = int(args["--key-fd"])
key = os.read(key_fd, 1024)
os.close(key_fd)
mode_file = os.path.join(os.path.dirname(args["--config-file"]), "mode")
stdin, stdout = sys.stdin.buffer, sys.stdout.buffer


def read(n):
    data = stdin.read(n)
    if len(data) < n:
        sys.exit(0)
    return data


while True:
    length, seq, _tag = frames.HEADER.unpack(read(frames.HEADER_LEN))
    payload = read(length)
    try:
        with open(mode_file) as f:
            mode = f.read().strip() or "good"
    except OSError:
        mode = "good"
    if b'"op":"status"' in payload:
        stdout.write(frames.encode_answer(key, seq, 200, STATUS))
    elif b'"op":"decide"' not in payload:
        stdout.write(frames.encode_answer(key, seq, 204, b""))
    elif mode == "badmac":
        stdout.write(frames.encode_answer(os.urandom(32), seq, 200, REPLIES["good"][1]))
    elif mode == "badseq":
        stdout.write(frames.encode_answer(key, seq + 7, 200, REPLIES["good"][1]))
    elif mode == "torn":
        stdout.write(frames.encode_answer(key, seq, 200, REPLIES["good"][1])[:30])
        stdout.flush()
        sys.exit(1)
    else:
        status, body, delay = REPLIES[mode]
        time.sleep(delay)
        stdout.write(frames.encode_answer(key, seq, status, body))
    stdout.flush()
"""


def install(where: Path) -> Path:
    from opafence.opa.binary import PDP_PROTOCOL, PINNED_VERSION

    from .fake_opa import REPLIES

    adapter = str(Path(__file__).resolve().parents[2] / "adapter")
    paths = [adapter, *[p for p in sys.path if p and os.path.isdir(p)]]
    text = SCRIPT.format(paths=paths, replies=REPLIES, version=PINNED_VERSION, protocol=PDP_PROTOCOL)
    out = where / "opafence-pdp"
    out.write_text(f"#!{sys.executable} -I\n{text}", encoding="utf-8")
    out.chmod(0o755)
    return out
