"""The PDP's frames (pdp/frame.go is the other side): a 44-byte header, then the payload.

    length uint32 | seq uint64 (both big-endian) | mac (32 bytes) | payload

mac = HMAC-SHA256(key, direction + seq + payload), direction b"Q" for requests and b"A" for
answers. Requests carry 1, 2, 3, ... in order; an answer carries its request's seq and a
payload of a 3-digit status followed by the body. Several requests may be in flight: the PDP
answers decisions as they finish, so answers may come in any order, each exactly once.
A pipe is not private (a process of the same user can write into /proc/<pid>/fd/N), so a
frame that fails any check is someone else's: the stream is no longer in step and the PDP
that sent or received it is replaced."""

from __future__ import annotations

import hashlib
import hmac
import struct

from opafence.errors import OpafenceError

HEADER = struct.Struct(">IQ32s")
HEADER_LEN = HEADER.size  # 44
MAX_PAYLOAD = 64 << 20
REQUEST = b"Q"
ANSWER = b"A"


class FrameError(OpafenceError):
    """A frame that is not the one expected: bad length, mac or sequence number."""


def mac(key: bytes, direction: bytes, seq: int, payload: bytes) -> bytes:
    return hmac.new(key, direction + seq.to_bytes(8, "big") + payload, hashlib.sha256).digest()


def encode_request(key: bytes, seq: int, payload: bytes) -> bytes:
    return HEADER.pack(len(payload), seq, mac(key, REQUEST, seq, payload)) + payload


def encode_answer(key: bytes, seq: int, status: int, body: bytes) -> bytes:
    """The PDP's side, for tests that play a PDP."""
    payload = b"%03d" % status + body
    return HEADER.pack(len(payload), seq, mac(key, ANSWER, seq, payload)) + payload


def parse_header(header: bytes) -> tuple[int, int, bytes]:
    """(payload length, seq, mac) of a 44-byte header; FrameError when the length is absurd."""
    length, seq, tag = HEADER.unpack(header)
    if length > MAX_PAYLOAD or length < 3:
        raise FrameError(f"an answer of {length} bytes")
    return length, seq, tag


def open_answer(key: bytes, seq: int, tag: bytes, payload: bytes) -> tuple[int, bytes]:
    """(status, body) of an answer whose header was parsed; FrameError when its mac is not ours
    (whether its seq is one in flight is the caller's to check)."""
    if not hmac.compare_digest(tag, mac(key, ANSWER, seq, payload)):
        raise FrameError(f"an answer whose mac does not match (seq {seq})")
    digits = payload[:3]
    if not digits.isdigit():
        raise FrameError("an answer without a status")
    return int(digits), payload[3:]
