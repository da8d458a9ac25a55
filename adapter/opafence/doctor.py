"""`opafence doctor`: is everything in place for opafence to guard Hermes?"""

from __future__ import annotations

import logging
import os
import stat
import tempfile
import time
from pathlib import Path

from opafence.audit.trail import AuditLog
from opafence.config import Config, ConfigError, config_path, load_config
from opafence.errors import BridgeError
from opafence.host import Host
from opafence.inputs import decision_input
from opafence.opa.binary import resolve
from opafence.opa.bridge import Bridge
from opafence.opa.bundle_status import STATUS_FILE, BundleState, read_status_file
from opafence.opa.bundles import MASK_DECISION
from opafence.policy import fallback_policy
from opafence.session import SessionFacts
from opafence.state_files import state_dir


def _line(ok: bool, what: str, detail: str) -> None:
    mark = "ok  " if ok else "FAIL"
    print(f"[{mark}] {what}: {detail}")


def _warn(what: str, detail: str) -> None:
    print(f"[warn] {what}: {detail}")


def describe_bundle(b: BundleState | dict[str, object]) -> tuple[str, str]:
    """(mark, sentence) for one bundle: ok, warn (stale / optional failure) or FAIL."""
    rec = b.record() if isinstance(b, BundleState) else b
    state, error = rec.get("state"), rec.get("error") or ""
    revision = rec.get("revision") or "(no revision)"
    required = "required" if rec.get("required") else "optional"
    where = f"{rec.get('kind')} bundle, {required}, from {rec.get('source')}"
    if state == "loaded":
        return "ok", f"loaded, revision {revision} ({where})"
    if state == "stale":
        return "warn", (f"OPA keeps serving revision {revision}, the last update failed: {error} ({where})")
    if rec.get("blocks"):
        return (
            "FAIL",
            f"{state}: {error}; every decision is blocked (BUNDLE_NOT_LOADED) until it loads ({where})",
        )
    return "warn", f"{state}: {error}; optional, so decisions go on without it ({where})"


def report_bundles(bridge: Bridge) -> int:
    """One line per bundle a fresh start sees; returns the number of blocking problems."""
    failures = 0
    local = bridge.local
    if local is not None:
        source = f"built bundle {local.own_bundle}" if local.own_bundle else "Rego sources"
        signed = ", signature verified by OPA" if bridge.config.bundle.signing else ""
        _line(True, "bundle opafence", f"revision {local.revision} ({source}{signed})")
    for b in bridge.bundle_states():
        if b.kind == "opafence":
            continue
        mark, detail = describe_bundle(b)
        if mark == "warn":
            _warn(f"bundle {b.name}", detail)
        else:
            _line(mark == "ok", f"bundle {b.name}", detail)
            failures += mark == "FAIL"
    dl = bridge.config.decision_logs
    if dl is not None:
        _line(True, "decision logs", f"forwarded to {dl.url}, argument contents masked ({MASK_DECISION})")
    return failures


def describe_transport(bridge: Bridge) -> str:
    """How the local engine is reached: opafence-pdp over a pipe, or the stock opa server."""
    local = bridge.local
    assert local is not None
    if bridge.transport == "pdp":
        standby = "with a warm standby" if bridge.config.opa.pdp_standby else "without a standby"
        return f"opafence-pdp {local.binary.path} over a pipe, {standby} (sha256 {local.binary.sha256[:12]}…)"
    why = "opa.transport: server" if bridge.config.opa.transport == "server" else "no opafence-pdp found"
    return f"the stock opa server on a unix socket ({why}; `make setup` builds opafence-pdp where Go is)"


def report_running(state: Path) -> int:
    """What the running opafence last recorded about its bundles (it may differ from a fresh start:
    a failed update leaves the running OPA on its last good revision)."""
    doc = read_status_file(state / STATUS_FILE)
    if doc is None:
        return 0
    pid = doc.get("pid")
    alive = isinstance(pid, int) and Path(f"/proc/{pid}").exists()
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(float(str(doc.get("time") or 0))))
    who = f"running opafence (pid {pid}, recorded {when})" if alive else f"last opafence (pid {pid}, {when})"
    failures = 0
    bundles = doc.get("bundles")
    for rec in bundles if isinstance(bundles, list) else []:
        if not isinstance(rec, dict) or rec.get("kind") == "opafence":
            continue
        mark, detail = describe_bundle(rec)
        what = f"{who}: bundle {rec.get('bundle')}"
        if mark == "warn":
            _warn(what, detail)
        else:
            _line(mark == "ok", what, detail)
            failures += mark == "FAIL" and alive
    return failures


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


def report_other_deciders(state: Path) -> None:
    """Other plugins that also register pre_tool_call (they can block or approve calls too), as the
    running plugin last recorded them in the audit trail."""
    try:
        entries = AuditLog(state / "audit.jsonl").tail(200)
    except Exception:
        return
    latest = next(
        (e for e in reversed(entries) if e.get("event") in ("start", "other_deciders")),
        None,
    )
    if latest is None:
        return
    others = latest.get("other_deciders", latest.get("plugins")) or []
    if others:
        _warn("other plugins decide tool calls", ", ".join(str(o) for o in others) + " (opafence runs first)")
    else:
        _line(True, "other plugins deciding tool calls", "none")


INSTALL_OPA = (
    "install opa 1.22.3 (a release binary from the Open Policy Agent project on PATH, your package "
    "manager, or `go install github.com/open-policy-agent/opa@v1.22.3`), or name it with "
    "OPAFENCE_OPA_BIN or opa.binary in the config"
)


def _skip(what: str, why: str) -> None:
    print(f"[skip] {what}: {why}")


def run_doctor(config_file: Path | None = None) -> int:
    """Every check, one plain line each; never a traceback (an unexpected error is a FAIL line)."""
    try:
        failures = _run_doctor(config_file)
    except Exception as e:  # a bug or a broken machine: say so in plain words
        _line(False, "doctor", f"stopped on an unexpected error: {type(e).__name__}: {e}")
        failures = 1
    # On stdout after the lines it sums up (stderr would overtake a piped stdout).
    print("opafence doctor: " + ("all good" if not failures else f"{failures} problem(s)"), flush=True)
    return 0 if not failures else 1


def _run_doctor(config_file: Path | None) -> int:
    failures = 0
    where = config_file or config_path()
    try:
        config: Config = load_config(config_file)
        if where.exists():
            _line(True, "config", f"{where}")
        else:
            _line(True, "config", f"no file at {where}; the defaults apply")
    except ConfigError as e:
        _line(False, "config", f"{e}. Until it is fixed, the plugin blocks every tool call and says why.")
        failures += 1
        config = Config()
        _warn("config", "the checks below use the defaults")
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
            _line(False, "opa binary", f"{e.sentence()}. To fix it, {INSTALL_OPA}.")
            for what in ("opa start", "test decision"):
                _skip(what, "needs the opa binary")
            return failures + 1
    # Doctor reports bundle problems itself; the watcher's log lines would only repeat them.
    logging.getLogger("opafence.bundles").setLevel(logging.ERROR)
    with tempfile.TemporaryDirectory(prefix="opafence-doctor-") as tmp:
        bridge = Bridge(config, Path(tmp))
        try:
            bridge.start()
            revision = bridge.local.revision if bridge.local else "remote"
            _line(True, "opa start", f"ready; opafence bundle revision {revision}")
            if bridge.local is not None:
                _line(True, "opa transport", describe_transport(bridge))
            failures += report_bundles(bridge)
            ok, detail = test_decision(bridge)
            _line(ok, "test decision", detail)
            failures += not ok
        except BridgeError as e:
            _line(False, "opa start", f"{e.code}: {e.sentence()}")
            failures += 1
        finally:
            bridge.close()
    failures += report_running(state_dir())
    report_other_deciders(state_dir())
    return failures
