"""Real parts for the bundle tests: keys, `opa build`, a bundle server and a decision-log
collector, both plain HTTP servers on 127.0.0.1 started by the test."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import subprocess
import tarfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from opafence.host import Host
from opafence.inputs import decision_input
from opafence.opa.binary import resolve
from opafence.opa.bridge import Bridge
from opafence.policy import fallback_policy
from opafence.session import SessionFacts

ATTENDED = Host(auto_approve=False, interactive=True, platform="cli", workspace=("/ws",), cwd="/ws")
ORG_ROOTS = ["org"]
UNATTENDED = Host(auto_approve=True, interactive=False, platform="cron", workspace=("/ws",), cwd="/ws")


def opa_bin() -> Path:
    return resolve().path


# --- keys -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class KeyPair:
    private: Path
    public: Path
    alg: str


def keypair(directory: Path, name: str, alg: str = "RS256") -> KeyPair:
    """A fresh key pair as PEM files: RSA for RS*/PS*, P-256 for ES256."""
    directory.mkdir(parents=True, exist_ok=True)
    key: rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey
    if alg.startswith("ES"):
        key = ec.generate_private_key(ec.SECP256R1())
    else:
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = directory / f"{name}.key.pem"
    public = directory / f"{name}.pub.pem"
    private.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    public.write_bytes(
        key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )
    return KeyPair(private, public, alg)


# --- bundles --------------------------------------------------------------------------------


def org_rule(tool: str, code: str, message: str, kind: str = "deny", package: str = "org.agent") -> str:
    """A one-rule org module: calls of `tool` get a reason of the given kind."""
    return (
        f"package {package}\n\n"
        f'{kind} contains {{"code": {json.dumps(code)}, "message": {json.dumps(message)}}} if {{\n'
        f"\tinput.call.tool == {json.dumps(tool)}\n"
        "}\n"
    )


def write_bundle_dir(directory: Path, files: dict[str, str], manifest: dict[str, Any] | None = None) -> Path:
    """A bundle directory: the given files plus a .manifest (omitted when manifest is None)."""
    directory.mkdir(parents=True, exist_ok=True)
    for rel, text in files.items():
        target = directory / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    if manifest is not None:
        (directory / ".manifest").write_text(json.dumps(manifest), encoding="utf-8")
    return directory


def opa_build(src: Path, out: Path, key: KeyPair | None = None, revision: str | None = None) -> Path:
    """`opa build --bundle` (tests left out), signed with key when given."""
    argv = [str(opa_bin()), "build", "--bundle", str(src), "--output", str(out), "--ignore", "*_test.rego"]
    if revision is not None:
        argv += ["--revision", revision]
    if key is not None:
        argv += ["--signing-key", str(key.private), "--signing-alg", key.alg]
    subprocess.run(argv, check=True, capture_output=True, env={})
    return out


def build_org_bundle(
    tmp: Path,
    name: str,
    files: dict[str, str],
    key: KeyPair | None,
    revision: str,
    roots: list[str] | None = ORG_ROOTS,
) -> bytes:
    """A signed (or unsigned) org bundle tarball's bytes, built by the real opa.

    roots=None leaves roots out of the manifest (OPA then gives the bundle all of data)."""
    manifest: dict[str, Any] = {"revision": revision}
    if roots is not None:
        manifest["roots"] = roots
    src = write_bundle_dir(tmp / f"{name}-src", files, manifest)
    return opa_build(src, tmp / f"{name}.tar.gz", key, revision).read_bytes()


def tamper(tarball: bytes, member_suffix: str = ".rego", append: str = "\n# tampered\n") -> bytes:
    """The same tarball with one policy file changed after signing (.signatures.json kept)."""
    out = io.BytesIO()
    changed = False
    with (
        tarfile.open(fileobj=io.BytesIO(tarball), mode="r:gz") as src,
        tarfile.open(fileobj=out, mode="w:gz") as dst,
    ):
        for m in src.getmembers():
            f = src.extractfile(m)
            data = f.read() if f is not None else b""
            if not changed and m.name.endswith(member_suffix):
                data += append.encode()
                changed = True
            info = tarfile.TarInfo(m.name)
            info.size = len(data)
            info.mode = m.mode
            dst.addfile(info, io.BytesIO(data))
    assert changed, f"no member ending in {member_suffix}"
    return out.getvalue()


def strip_signature(tarball: bytes) -> bytes:
    out = io.BytesIO()
    with (
        tarfile.open(fileobj=io.BytesIO(tarball), mode="r:gz") as src,
        tarfile.open(fileobj=out, mode="w:gz") as dst,
    ):
        for m in src.getmembers():
            if m.name.lstrip("/") == ".signatures.json":
                continue
            f = src.extractfile(m)
            data = f.read() if f is not None else b""
            info = tarfile.TarInfo(m.name)
            info.size = len(data)
            dst.addfile(info, io.BytesIO(data))
    return out.getvalue()


# --- HTTP servers on loopback ---------------------------------------------------------------


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class _State:
    files: dict[str, bytes] = field(default_factory=dict)
    status_override: int | None = None
    delay_s: float = 0.0
    requests: list[Request] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _record(self) -> Request:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        req = Request(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
        with self.server.state.lock:
            self.server.state.requests.append(req)
        return req

    def _send(self, status: int, body: bytes = b"", headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body:
            self.wfile.write(body)

    def do_GET(self) -> None:
        req = self._record()
        state = self.server.state
        time.sleep(state.delay_s)
        if state.status_override is not None:
            self._send(state.status_override)
            return
        with state.lock:
            data = state.files.get(req.path.split("?", 1)[0])
        if data is None:
            self._send(404)
            return
        etag = '"' + hashlib.sha256(data).hexdigest()[:32] + '"'
        if req.headers.get("if-none-match") == etag:
            self._send(304, headers={"ETag": etag})
            return
        self._send(200, data, {"Content-Type": "application/gzip", "ETag": etag})

    def do_POST(self) -> None:
        self._record()
        self._send(self.server.state.status_override or 200)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    state: _State


class LoopbackServer:
    """A bundle server (GET serves published files with ETags) that also records POSTs
    (a decision-log collector). Listens on 127.0.0.1 on a free port."""

    def __init__(self) -> None:
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.state = _State()
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def publish(self, path: str, data: bytes) -> None:
        with self._server.state.lock:
            self._server.state.files[path] = data

    def delay(self, seconds: float) -> None:
        self._server.state.delay_s = seconds

    def fail_with(self, status: int | None) -> None:
        self._server.state.status_override = status

    def requests(self, method: str | None = None) -> list[Request]:
        with self._server.state.lock:
            return [r for r in self._server.state.requests if method is None or r.method == method]

    def decision_events(self) -> list[dict[str, Any]]:
        """Every decision-log event POSTed so far (OPA gzips a JSON array per upload)."""
        events: list[dict[str, Any]] = []
        for r in self.requests("POST"):
            raw = gzip.decompress(r.body) if r.headers.get("content-encoding") == "gzip" else r.body
            events.extend(json.loads(raw))
        return events

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()


# --- deciding -------------------------------------------------------------------------------


def wait_for(predicate: Callable[[], bool], timeout_s: float = 15.0, every_s: float = 0.1) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(every_s)
    return predicate()


def decide(
    bridge: Bridge,
    tool: str,
    args: dict[str, Any] | None = None,
    facts: dict[str, Any] | None = None,
    host: Host = ATTENDED,
    task: str = "t1",
) -> Any:
    """A decision for one call under the read-only fallback policy; facts default to the builder's."""
    bridge.put_task(task, fallback_policy(task).to_opa_data())
    doc = decision_input(task, tool, args or {}, "c1", SessionFacts(), host)
    if facts is not None:
        doc["facts"] = {**doc["facts"], **facts}
    return bridge.decide(doc)


def codes(decision: Any) -> list[str]:
    return [r.code for r in decision.reasons]
