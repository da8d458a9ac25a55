"""Watching OPA's bundle status: which bundles are loaded, stale, failed or refused.

OPA keeps serving the last good revision when a new one fails to download or verify, and a
bundle that never loaded simply is not there. A background thread reads `GET /v1/status`
(OPA's status plugin, enabled without any service so nothing leaves the machine) every
`bundle.status_interval_s` and keeps one precomputed gate: the decision hot path only reads
an attribute. A required bundle that is not loaded, and any loaded bundle whose roots lie
outside `org`, make the gate a block (BUNDLE_NOT_LOADED). Every change of a bundle's state
goes to a listener (the plugin appends it to the audit trail) and to
`<state>/bundle-status.json`, which `opafence doctor` reads."""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from opafence.audit.trail import canonical
from opafence.errors import BridgeError
from opafence.opa.bundles import BundleSpec
from opafence.opa.client import Transport
from opafence.opa.own_bundle import org_roots_problem
from opafence.state_files import write_private_file

log = logging.getLogger("opafence.bundles")

State = Literal["loaded", "stale", "failed", "pending", "refused"]
STATUS_FILE = "bundle-status.json"
MAX_ERROR_CHARS = 600

Listener = Callable[[dict[str, Any]], object]


@dataclass(frozen=True)
class BundleState:
    name: str
    kind: str
    source: str
    required: bool
    state: State
    revision: str = ""
    error: str = ""
    # Refused by opafence before start: OPA never saw it, so its rules are not live.
    refused_before_start: bool = False

    @property
    def blocks(self) -> bool:
        if self.kind == "opafence":
            return self.state not in {"loaded", "stale"}
        if self.state == "refused" and not self.refused_before_start:
            return True  # its rules are live in OPA with roots it must not have
        return self.required and self.state in {"pending", "failed", "refused"}

    def why(self) -> str:
        if self.state == "refused":
            return f"bundle '{self.name}' was refused: {self.error}"
        if self.state == "pending":
            return f"bundle '{self.name}' has not loaded yet"
        return f"bundle '{self.name}' failed to load: {self.error}"

    def record(self) -> dict[str, Any]:
        out = asdict(self)
        out["bundle"] = out.pop("name")
        out["blocks"] = self.blocks
        return out


def activated_at(st: Mapping[str, Any]) -> str:
    """The last successful activation time, or "" when the bundle never activated."""
    stamp = st.get("last_successful_activation")
    return stamp if isinstance(stamp, str) and stamp and not stamp.startswith("0001-") else ""


def bundle_error(st: Mapping[str, Any]) -> str:
    """OPA's error for a bundle as one line: code (HTTP status): message; errors."""
    if not st.get("code") and not st.get("message"):
        return ""
    head = str(st.get("code") or "error")
    if st.get("http_code"):
        head += f" (HTTP {st['http_code']})"
    text = f"{head}: {st.get('message') or ''}".rstrip(": ")
    errors = st.get("errors")
    if isinstance(errors, list) and errors:
        text += "; " + "; ".join(str(e) for e in errors[:3])
    return text if len(text) <= MAX_ERROR_CHARS else text[: MAX_ERROR_CHARS - 1] + "…"


def initial_state(spec: BundleSpec) -> BundleState:
    if spec.refused:
        return BundleState(
            spec.name, spec.kind, spec.source, spec.required, "refused", error=spec.refused,
            refused_before_start=True,
        )  # fmt: skip
    return BundleState(spec.name, spec.kind, spec.source, spec.required, "pending", error="not loaded yet")


def summarize(
    specs: list[BundleSpec], status_bundles: Mapping[str, Any], roots_problems: Mapping[str, str]
) -> dict[str, BundleState]:
    """Each expected bundle's state from OPA's status (`result.bundles`) and the roots check."""
    out: dict[str, BundleState] = {}
    for spec in specs:
        if spec.refused:
            out[spec.name] = initial_state(spec)
            continue
        st = status_bundles.get(spec.name)
        if not isinstance(st, Mapping):
            out[spec.name] = initial_state(spec)
            continue
        loaded = bool(activated_at(st))
        error = bundle_error(st)
        revision = str(st.get("active_revision") or "")
        state: State
        if loaded and roots_problems.get(spec.name):
            state, error = "refused", roots_problems[spec.name]
        elif loaded:
            state = "stale" if error else "loaded"
        else:
            state = "failed" if error else "pending"
        base = BundleState(spec.name, spec.kind, spec.source, spec.required, state, revision, error)
        out[spec.name] = base if error or state != "pending" else initial_state(spec)
    return out


def gate_error(states: Mapping[str, BundleState]) -> BridgeError | None:
    problems = [s.why() for s in states.values() if s.blocks]
    return BridgeError("BUNDLE_NOT_LOADED", "; ".join(problems)) if problems else None


class BundleWatcher:
    """Polls OPA's bundle status in a background thread; `gate` is what decisions check."""

    def __init__(
        self,
        specs: list[BundleSpec],
        client: Callable[[], Transport | None],
        interval_s: float = 2.0,
        listener: Listener | None = None,
        status_file: Path | None = None,
    ) -> None:
        self.specs = list(specs)
        self.interval_s = interval_s
        self._client = client
        self._listeners: list[Listener] = [listener] if listener else []
        self.status_file = status_file
        self._lock = threading.Lock()
        # One poll at a time (the thread, settle() and reset() after an OPA restart).
        self._poll_lock = threading.Lock()
        self._states = {s.name: initial_state(s) for s in self.specs}
        self._roots_checked: dict[str, str] = {}
        self._roots_problems: dict[str, str] = {}
        self.gate: BridgeError | None = gate_error(self._states)
        self.polls = 0
        self.poll_error = ""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # --- reading -------------------------------------------------------------------------

    def states(self) -> list[BundleState]:
        with self._lock:
            return list(self._states.values())

    def add_listener(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def pending(self) -> bool:
        return any(s.state == "pending" for s in self.states())

    # --- polling -------------------------------------------------------------------------

    def poll(self) -> bool:
        """Read OPA's status once and apply it; False when OPA could not be asked."""
        with self._poll_lock:
            return self._poll()

    def _poll(self) -> bool:
        client = self._client()
        if client is None:
            return False
        try:
            answer = client.request_json("GET", "/v1/status", timeout_s=2.0)
        except BridgeError as e:
            self.poll_error = e.sentence()
            return False
        result = answer.get("result") if isinstance(answer, dict) else None
        bundles = result.get("bundles") if isinstance(result, dict) else None
        if not isinstance(bundles, dict):
            bundles = {}
        self._check_roots(client, bundles)
        self.polls += 1
        self.poll_error = ""
        self._apply(summarize(self.specs, bundles, self._roots_problems))
        return True

    def _check_roots(self, client: Transport, bundles: Mapping[str, Any]) -> None:
        """Read the manifests of org bundles activated since the last check (rare: per activation)."""
        due = {}
        for spec in self.specs:
            st = bundles.get(spec.name)
            stamp = activated_at(st) if spec.kind == "org" and isinstance(st, Mapping) else ""
            if stamp and self._roots_checked.get(spec.name) != stamp:
                due[spec.name] = stamp
        if not due:
            return
        try:
            answer = client.request_json("GET", "/v1/data/system/bundles", timeout_s=2.0)
            system = answer.get("result") if isinstance(answer, dict) else None
        except BridgeError as e:
            system = None
            reason = f"opafence could not read its manifest from OPA ({e.code})"
        else:
            reason = "OPA holds no manifest for it"
        for name, stamp in due.items():
            entry = system.get(name) if isinstance(system, dict) else None
            manifest = entry.get("manifest") if isinstance(entry, dict) else None
            if isinstance(manifest, dict):
                self._roots_problems[name] = org_roots_problem(manifest)
                self._roots_checked[name] = stamp
            else:
                # Unknown roots count as bad roots until a later poll reads them.
                self._roots_problems[name] = reason

    def _apply(self, new: dict[str, BundleState]) -> None:
        events: list[dict[str, Any]] = []
        with self._lock:
            for name, state in new.items():
                old = self._states.get(name)
                if old is not None and (old.state, old.revision, old.error) == (
                    state.state,
                    state.revision,
                    state.error,
                ):
                    continue
                if old is None or state.state != "pending" or old.state != "pending":
                    record = {"event": "bundle_status", **state.record()}
                    record["previous_state"] = old.state if old else ""
                    record["previous_revision"] = old.revision if old else ""
                    events.append(record)
            self._states = new
            self.gate = gate_error(new)
        if events:
            self._write_status_file()
        for record in events:
            level = logging.WARNING if record["state"] in {"stale", "failed", "refused"} else logging.INFO
            log.log(level, "bundle %s: %s %s", record["bundle"], record["state"], record["error"])
            for listener in list(self._listeners):
                try:
                    listener(record)
                except Exception:
                    log.exception("bundle status listener failed")

    def _write_status_file(self) -> None:
        if self.status_file is None:
            return
        bundles = [s.record() for s in self.states()]
        doc = {"pid": os.getpid(), "time": round(time.time(), 3), "bundles": bundles}
        try:
            write_private_file(self.status_file, canonical(doc) + b"\n")
        except OSError as e:
            log.warning("cannot write %s: %s", self.status_file, e)

    def reset(self) -> None:
        """OPA restarted: nothing it loaded before counts until it reports it again."""
        with self._poll_lock:
            self._roots_checked.clear()
            self._roots_problems.clear()
            self._apply({s.name: initial_state(s) for s in self.specs})

    def settle(self, timeout_s: float) -> None:
        """Poll until no bundle is still waiting for its first attempt (or the timeout)."""
        deadline = time.monotonic() + timeout_s
        while True:
            self.poll()
            if not self.pending() or time.monotonic() >= deadline:
                return
            time.sleep(min(0.05, self.interval_s))

    # --- the thread ----------------------------------------------------------------------

    def start(self) -> None:
        # opafence's own bundle is read once from disk and never changes under a running OPA:
        # without org bundles a thread is only needed while the gate is still closed.
        if self._thread is not None:
            return
        if self.gate is None and not any(s.kind == "org" for s in self.specs):
            return
        self._thread = threading.Thread(target=self._run, name="opafence-bundle-status", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            try:
                self.poll()
            except Exception:
                log.exception("bundle status poll failed")

    def stop(self) -> None:
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5)


def read_status_file(path: Path) -> dict[str, Any] | None:
    """What a running opafence last recorded (doctor); None when absent or unreadable."""
    import json

    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None
