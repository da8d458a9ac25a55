"""`opafence doctor`: is everything in place for opafence to guard Hermes?"""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from pathlib import Path

from opafence.config import Config, ConfigError, load_config
from opafence.errors import BridgeError
from opafence.host import Host
from opafence.inputs import decision_input
from opafence.opa.binary import resolve
from opafence.opa.bridge import Bridge
from opafence.paths import state_dir
from opafence.policy import fallback_policy
from opafence.session import SessionFacts


def _line(ok: bool, what: str, detail: str) -> None:
    mark = "ok  " if ok else "FAIL"
    print(f"[{mark}] {what}: {detail}")


def check_state_dir(path: Path) -> tuple[bool, str]:
    if not path.exists():
        return True, f"{path} (created on first start)"
    st = path.stat()
    mode = stat.S_IMODE(st.st_mode)
    if st.st_uid != os.getuid():
        return False, f"{path} is owned by uid {st.st_uid}"
    if mode & 0o077:
        return False, f"{path} has mode {mode:o}; it must be 0700 (chmod 700 {path})"
    return True, f"{path} (mode 700)"


def test_decision(bridge: Bridge) -> tuple[bool, str]:
    key = "doctor-self-test"
    bridge.put_task(key, fallback_policy(key).to_opa_data())
    try:
        host = Host(auto_approve=True, interactive=False, platform="doctor")
        read = bridge.decide(
            decision_input(key, "read_file", {"path": "README.md"}, "", SessionFacts(), host)
        )
        unknown = bridge.decide(decision_input(key, "doctor_unknown_tool", {}, "", SessionFacts(), host))
    finally:
        bridge.delete_task(key)
    ok = read.verdict == "allow" and unknown.verdict == "block"
    return ok, f"read_file -> {read.verdict}, an unknown tool unattended -> {unknown.verdict}"


def run_doctor(config_file: Path | None = None) -> int:
    failures = 0
    try:
        config: Config = load_config(config_file)
        _line(True, "config", str(config_file or "defaults / $OPAFENCE_CONFIG"))
    except ConfigError as e:
        _line(False, "config", str(e))
        return 1
    ok, detail = check_state_dir(state_dir())
    _line(ok, "state directory", detail)
    failures += not ok
    if config.opa.url:
        _line(True, "opa", f"remote {config.opa.url}")
    else:
        try:
            binary = resolve(config.opa.binary, config.opa.sha256)
            _line(
                True, "opa binary", f"{binary.path} (version {binary.version}, sha256 {binary.sha256[:12]}…)"
            )
        except BridgeError as e:
            _line(False, "opa binary", e.sentence())
            return 1
    with tempfile.TemporaryDirectory(prefix="opafence-doctor-") as tmp:
        bridge = Bridge(config, Path(tmp))
        try:
            bridge.start()
            revision = bridge.local.revision if bridge.local else "remote"
            _line(True, "opa start", f"ready; opafence bundle revision {revision}")
            ok, detail = test_decision(bridge)
            _line(ok, "test decision", detail)
            failures += not ok
        except BridgeError as e:
            _line(False, "opa start", f"{e.code}: {e.sentence()}")
            failures += 1
        finally:
            bridge.close()
    print("opafence doctor: " + ("all good" if not failures else f"{failures} problem(s)"), file=sys.stderr)
    return 0 if not failures else 1
