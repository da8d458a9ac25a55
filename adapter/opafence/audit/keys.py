"""The audit trail's keys: an Ed25519 signing key and an HMAC key for argument digests.

Created on first start under `<state dir>/keys/` (0700; the private files 0600), by whichever
Hermes process of the home gets there first: each file is written to a private temporary
name and hard-linked into place, so two processes starting at once end up with one key.
The key belongs to the same OS user as the agent; the self-protection guards keep the agent
away from the state directory, and forwarding signed heads to a collector is what makes a
rewrite by that user visible elsewhere."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import os
import secrets
import threading
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from opafence.errors import OpafenceError
from opafence.state_files import ensure_private_dir

KEY_DIR = "keys"
SIGNING_KEY = "audit-ed25519.pem"
PUBLIC_KEY = "audit-ed25519.pub.pem"
HMAC_KEY = "audit-hmac.key"


class AuditKeyError(OpafenceError):
    """A key file is missing, unreadable or does not match its counterpart."""


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def key_id(public: Ed25519PublicKey) -> str:
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()[:16]


def public_pem(public: Ed25519PublicKey) -> bytes:
    return public.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)


def load_public_key(path: Path) -> Ed25519PublicKey:
    try:
        key = serialization.load_pem_public_key(path.read_bytes())
    except (OSError, ValueError) as e:
        raise AuditKeyError(f"cannot read the public key {path}: {e}") from None
    if not isinstance(key, Ed25519PublicKey):
        raise AuditKeyError(f"{path} is not an Ed25519 public key")
    return key


def signature_ok(public: Ed25519PublicKey, data: bytes, sig: str) -> bool:
    try:
        public.verify(unb64(sig), data)
    except (InvalidSignature, ValueError):
        return False
    return True


@dataclass(frozen=True)
class AuditKeys:
    signing: Ed25519PrivateKey
    public: Ed25519PublicKey
    hmac_key: bytes
    kid: str

    def sign(self, data: bytes) -> str:
        return b64(self.signing.sign(data))

    def verify(self, data: bytes, sig: str) -> bool:
        return signature_ok(self.public, data, sig)

    def digest(self, data: bytes) -> str:
        """Keyed hash of an argument: without the key, guessing a value cannot confirm it."""
        return hmac.new(self.hmac_key, data, hashlib.sha256).hexdigest()[:32]


def _create_once(path: Path, data: bytes) -> None:
    """Write data to path unless it exists; atomic and race-free across processes."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        os.link(tmp, path)
    except FileExistsError:
        pass
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def _read_private(path: Path) -> bytes:
    st = path.stat()
    if st.st_uid != os.getuid():
        raise AuditKeyError(f"{path} is owned by uid {st.st_uid}, not by this user")
    if st.st_mode & 0o077:
        path.chmod(0o600)
    return path.read_bytes()


def load_or_create(state: Path) -> AuditKeys:
    """The home's audit keys, created on first use."""
    kdir = ensure_private_dir(state / KEY_DIR)
    signing_path, public_path, hmac_path = kdir / SIGNING_KEY, kdir / PUBLIC_KEY, kdir / HMAC_KEY
    if not signing_path.exists():
        fresh = Ed25519PrivateKey.generate()
        pem = fresh.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        _create_once(signing_path, pem)
    if not hmac_path.exists():
        _create_once(hmac_path, secrets.token_hex(32).encode())
    try:
        signing = serialization.load_pem_private_key(_read_private(signing_path), password=None)
        hmac_key = bytes.fromhex(_read_private(hmac_path).decode().strip())
    except (OSError, ValueError, UnicodeDecodeError) as e:
        raise AuditKeyError(f"cannot read the audit keys in {kdir}: {e}") from None
    if not isinstance(signing, Ed25519PrivateKey) or len(hmac_key) < 16:
        raise AuditKeyError(f"the audit keys in {kdir} are not an Ed25519 key and a 32-byte HMAC key")
    public = signing.public_key()
    if not public_path.exists():
        _create_once(public_path, public_pem(public))
    if load_public_key(public_path).public_bytes(
        serialization.Encoding.Raw, serialization.PublicFormat.Raw
    ) != public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw):
        raise AuditKeyError(f"{public_path} does not match the signing key {signing_path}")
    return AuditKeys(signing=signing, public=public, hmac_key=hmac_key, kid=key_id(public))


_cache: dict[Path, tuple[tuple[int, int], AuditKeys]] = {}
_cache_lock = threading.Lock()


def _stamp(state: Path) -> tuple[int, int]:
    try:
        st = (state / KEY_DIR / SIGNING_KEY).stat()
    except FileNotFoundError:
        return (0, 0)
    return (st.st_ino, st.st_mtime_ns)


def keys_for(state: Path) -> AuditKeys:
    """load_or_create, once per state directory and process (again if the key file changed)."""
    resolved = state.resolve()
    with _cache_lock:
        stamp = _stamp(resolved)
        cached = _cache.get(resolved)
        if cached is not None and cached[0] == stamp and stamp != (0, 0):
            return cached[1]
        keys = load_or_create(resolved)
        _cache[resolved] = (_stamp(resolved), keys)
        return keys
