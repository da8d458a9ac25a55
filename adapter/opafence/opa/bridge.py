"""The fail-closed bridge between opafence and OPA.

It owns the local OPA (or the address of a remote one), pushes data.config and every live
task, asks for decisions, and turns every failure into a block. When a local OPA dies it is
restarted with backoff, config and tasks are pushed again, and until then every decision is
a block (OPA_UNAVAILABLE)."""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

from pydantic import ValidationError

from opafence.config import Config
from opafence.decision import Decision, block
from opafence.errors import BridgeError
from opafence.opa.binary import resolve, resolve_pdp
from opafence.opa.bundle_status import STATUS_FILE, BundleState, BundleWatcher, Listener
from opafence.opa.bundles import BundlePlan, BundleSpec, own_bundle_path, plan_bundles
from opafence.opa.client import Endpoint, OpaClient, Transport
from opafence.opa.pdp import LocalPdp
from opafence.opa.server import LocalOpa
from opafence.state_files import ensure_private_dir, state_dir

log = logging.getLogger("opafence.bridge")

DECISION_PATH = "/v1/data/opafence/decision?strict-builtin-errors=true"
# A shared OPA (docs/fleet.md) decides through the entrypoints that read the calling host's own
# configuration (data.hosts[<id>].config), the only ones its authorization admits.
REMOTE_DECISION_PATH = "/v1/data/opafence/remote/decision?strict-builtin-errors=true"
REMOTE_BUDGET_PATHS = {"spend/decision": "/v1/data/opafence/remote/spend?strict-builtin-errors=true"}
BUDGET_PREFIX = "/v1/data/opafence/budget/"
BACKOFF_S = (0.1, 0.25, 0.5, 1.0, 2.0, 5.0)


def task_path(key: str) -> str:
    return "/v1/data/tasks/" + quote(key, safe="")


class Bridge:
    """Thread-safe. decide() never raises; setup methods raise BridgeError."""

    def __init__(
        self, config: Config, state: Path | None = None, on_bundle_status: Listener | None = None
    ) -> None:
        self.config = config
        self.state = state or state_dir()
        self.timeout_s = config.opa.timeout_ms / 1000.0
        self.local: LocalOpa | LocalPdp | None = None
        self.client: Transport | None = None
        self.remote = config.opa.url is not None
        self.host_id = config.task_host_id() if self.remote else None
        self.full_restarts = 0  # the engine started again from nothing by the supervisor
        self.last_error: BridgeError | None = None
        self._tasks: dict[str, dict[str, Any]] = {}
        self._pushed_at: dict[str, float] = {}  # task key -> time.monotonic() of its last put_task
        self._undeleted: set[str] = set()  # expired tasks OPA may still hold (a DELETE failed)
        self._lock = threading.RLock()
        self._ready = threading.Event()
        self._closing = False
        self._supervisor: threading.Thread | None = None
        # Bundles: what OPA was told to load, and the watcher of its status (bundle_status.py).
        # on_bundle_status gets one record per bundle state change (the plugin audits them).
        self.on_bundle_status = on_bundle_status
        self.plan: BundlePlan | None = None
        self.bundles: BundleWatcher | None = None

    # --- lifecycle -------------------------------------------------------------------------

    def start(self) -> None:
        """Start (or reach) OPA, push the config; raise BridgeError when that fails."""
        if self.remote:
            self._start_remote()
        else:
            self._start_local()
        self._push_all()
        self._watch_bundles()
        self._ready.set()
        if self.local is not None:
            self._supervisor = threading.Thread(
                target=self._supervise, name="opafence-opa-supervisor", daemon=True
            )
            self._supervisor.start()

    def _start_remote(self) -> None:
        url = self.config.opa.url or ""
        token_file = self.config.opa.token_file
        if not token_file:
            raise BridgeError(
                "OPA_START_FAILED", "remote OPA needs OPAFENCE_OPA_TOKEN_FILE (or opa.token_file)"
            )
        try:
            token = Path(token_file).expanduser().read_text(encoding="utf-8").strip()
        except OSError as e:
            raise BridgeError(
                "OPA_START_FAILED", f"cannot read the token file {token_file}: {e.strerror}"
            ) from None
        if not token:
            raise BridgeError("OPA_START_FAILED", f"the token file {token_file} is empty")
        self.client = OpaClient(Endpoint.parse(url), token, self.timeout_s)
        # A shared OPA loads its own bundles; opafence only checks that the org bundles it was
        # told about are there (by name), and blocks while a required one is not.
        specs = [
            BundleSpec(b.name, "org", b.source, b.required, b.signing is not None, remote=True)
            for b in self.config.org_bundles
        ]
        self.plan = BundlePlan(specs=specs)

    def _local_engine(self) -> LocalOpa | LocalPdp:
        """opafence-pdp over a pipe when it is there (or asked for), else the stock opa server."""
        opa = self.config.opa
        own = own_bundle_path(self.config)
        if opa.binary or opa.sha256 or os.environ.get("OPAFENCE_OPA_BIN"):
            # An explicit opa choice must be usable even when the PDP decides: a typo'd path or a
            # pin that does not match is a configuration error to report, never ignored.
            resolve(opa.binary, opa.sha256)
        pdp = None
        if opa.transport != "server":
            pdp = resolve_pdp(opa.pdp_binary, opa.pdp_sha256)
            if pdp is None and opa.transport == "pdp":
                raise BridgeError("OPA_NOT_FOUND", "opa.transport is pdp but no opafence-pdp was found")
        if pdp is not None:
            return LocalPdp(pdp, self.state, opa.start_timeout_s, own_bundle=own, standby=opa.pdp_standby)
        binary = resolve(opa.binary, opa.sha256)
        return LocalOpa(binary, self.state, opa.start_timeout_s, own_bundle=own)

    @property
    def restarts(self) -> int:
        """How often the engine that answers was replaced: restarted by the supervisor, or (the
        PDP) taken over by its standby."""
        failovers = self.local.failovers if isinstance(self.local, LocalPdp) else 0
        return self.full_restarts + failovers

    @property
    def transport(self) -> str:
        """pdp, server (the stock opa on a unix socket) or remote."""
        if self.local is None:
            return "remote" if self.remote else ""
        return "pdp" if isinstance(self.local, LocalPdp) else "server"

    def _start_local(self) -> None:
        self.local = self._local_engine()
        self.plan = plan_bundles(
            self.config,
            self.local.bundle_resource(),
            self.state / "bundle-cache",
            own_built=self.local.own_bundle is not None,
        )
        if "persistence_directory" in self.plan.opa:
            ensure_private_dir(self.state / "bundle-cache")
        self.local.extra_config = self.plan.opa
        self.local.start()
        self.client = self.local.client(self.timeout_s)
        self._warm_up()

    def _warm_up(self) -> None:
        # The first evaluation compiles the query; do it before any real call is timed.
        assert self.client is not None
        with contextlib.suppress(BridgeError):
            self.client.request("POST", DECISION_PATH, {"input": {}}, timeout_s=10.0)

    def _watch_bundles(self) -> None:
        """Start watching bundle status; wait (bounded) for org bundles' first load attempt."""
        specs = self.plan.specs if self.plan is not None else []
        if self.bundles is None:
            if not specs:
                return
            self.bundles = BundleWatcher(
                specs,
                lambda: self.client,
                self.config.bundle.status_interval_s,
                self.on_bundle_status,
                self.state / STATUS_FILE,
            )
        else:
            self.bundles.reset()
        self.bundles.settle(self.config.bundle.org_wait_s)
        self.bundles.start()

    def bundle_states(self) -> list[BundleState]:
        return self.bundles.states() if self.bundles is not None else []

    def close(self) -> None:
        self._closing = True
        if self.bundles is not None:
            self.bundles.stop()
        self._ready.clear()
        if self.client is not None:
            self.client.close()
        if self.local is not None:
            self.local.stop()

    def _supervise(self) -> None:
        while not self._closing:
            local = self.local
            if local is None:
                return
            code = local.wait()
            if self._closing:
                return
            self._ready.clear()
            log.warning("OPA exited (code %s); restarting", code)
            self._restart()

    def _restart(self) -> None:
        attempt = 0
        while not self._closing:
            delay = BACKOFF_S[min(attempt, len(BACKOFF_S) - 1)]
            time.sleep(delay)
            attempt += 1
            try:
                assert self.local is not None
                self.local.start()
                with self._lock:
                    old = self.client
                    self.client = self.local.client(self.timeout_s)
                    if old is not None:
                        old.close()
                self._warm_up()
                self._push_all()
                self._watch_bundles()
            except BridgeError as e:
                self.last_error = e
                log.warning("OPA restart attempt %d failed: %s", attempt, e)
                continue
            self.full_restarts += 1
            self._ready.set()
            return

    def _check_socket(self) -> None:
        """OPA alive but its socket gone (deleted by someone): restart it, or it stays unreachable."""
        local = self.local
        if not isinstance(local, LocalOpa) or not self._ready.is_set() or local.socket_path.exists():
            return
        if local.alive():
            log.warning("OPA socket %s disappeared; restarting OPA", local.socket_path)
            self._ready.clear()
            local.kill()

    def opa_pids(self) -> tuple[int, ...]:
        """The local OPA's process ids (watchdog and OPA); none for a remote OPA."""
        local = self.local
        return local.pids if local is not None else ()

    @property
    def ready(self) -> bool:
        return self._ready.is_set()

    def wait_ready(self, timeout_s: float) -> bool:
        return self._ready.wait(timeout_s)

    # --- data ------------------------------------------------------------------------------

    def _client(self) -> Transport:
        client = self.client
        if client is None:
            raise BridgeError("OPA_UNAVAILABLE", "opafence has not started OPA")
        return client

    def _push_all(self) -> None:
        with self._lock:
            client = self._client()
            doc = self.config.to_opa_data()
            if self.local is not None:
                # The binary that runs is a trust file too, wherever it was found.
                doc["trust_paths"] = sorted({*doc["trust_paths"], os.path.realpath(self.local.binary.path)})
            client.request_json("PUT", self._config_path(), doc, timeout_s=5.0)
            for key, data in self._tasks.items():
                client.request_json("PUT", task_path(key), data, timeout_s=5.0)

    def _config_path(self) -> str:
        if self.host_id is None:
            return "/v1/data/config"
        return f"/v1/data/hosts/{quote(self.host_id, safe='')}/config"

    def _with_host_id(self, doc: dict[str, Any]) -> dict[str, Any]:
        """Remote mode: the input names the calling host, whose own configuration applies (and
        which the shared OPA's authorization checks against the token)."""
        if self.host_id is None:
            return doc
        return {**doc, "host": {**doc.get("host", {}), "id": self.host_id}}

    def put_task(self, key: str, data: dict[str, Any]) -> None:
        """Remember the task and push it; raises BridgeError if OPA did not take it."""
        with self._lock:
            self._tasks[key] = data
            self._pushed_at[key] = time.monotonic()
            self._undeleted.discard(key)
            if self._ready.is_set():
                self._client().request_json("PUT", task_path(key), data, timeout_s=2.0)

    def delete_task(self, key: str) -> None:
        with self._lock:
            self._tasks.pop(key, None)
            self._pushed_at.pop(key, None)
            if self._ready.is_set():
                with contextlib.suppress(BridgeError):
                    self._client().request_json("DELETE", task_path(key), timeout_s=2.0)

    def expire_tasks(self, keys: list[str], since: float) -> list[str]:
        """Take expired tasks out of OPA, except those pushed again after `since` (a
        time.monotonic() taken before they expired: a new task under the same key). A DELETE
        that fails is retried on the next call; a restarted OPA never gets them back, since
        only remembered tasks are re-pushed. Returns the keys OPA no longer holds."""
        done: list[str] = []
        with self._lock:
            for key in [*keys, *sorted(self._undeleted - set(keys))]:
                if self._pushed_at.get(key, 0.0) > since:
                    self._undeleted.discard(key)
                    continue
                self._tasks.pop(key, None)
                self._pushed_at.pop(key, None)
                self._undeleted.add(key)
                if not self._ready.is_set():
                    continue  # a restarting OPA starts empty and is only given live tasks
                try:
                    status, body = self._client().request("DELETE", task_path(key), timeout_s=2.0)
                except BridgeError as e:
                    status, body = 0, str(e).encode()
                if status >= 300 and status != 404:  # 404: OPA does not hold it (restarted)
                    log.warning("opafence: could not remove expired task %s from OPA: %s", key, body[:200])
                    continue
                self._undeleted.discard(key)
                done.append(key)
        return done

    def task_keys(self) -> list[str]:
        with self._lock:
            return list(self._tasks)

    # --- decisions -------------------------------------------------------------------------

    def query(self, doc: dict[str, Any], params: str = "", timeout_s: float | None = None) -> dict[str, Any]:
        """The raw OPA answer for a decision input; raises BridgeError on any failure."""
        if not self._ready.is_set():
            detail = "OPA is restarting" if self.local is not None else "OPA is not started"
            raise BridgeError("OPA_UNAVAILABLE", detail)
        gate = self.bundles.gate if self.bundles is not None else None
        if gate is not None:
            raise BridgeError(gate.code, gate.detail)
        path = REMOTE_DECISION_PATH if self.remote else DECISION_PATH
        answer = self._client().request_json(
            "POST", path + params, {"input": self._with_host_id(doc)}, timeout_s=timeout_s
        )
        if not isinstance(answer, dict):
            raise BridgeError("OPA_BAD_RESULT", "the answer is not a JSON object")
        if "result" not in answer:
            raise BridgeError("OPA_UNDEFINED")
        return answer

    def budget_query(self, rule: str, doc: dict[str, Any]) -> Any:
        """The result of a rule under data.opafence.budget (e.g. "spend/decision") for `doc`;
        raises BridgeError on any failure, including an undefined result."""
        if not self._ready.is_set():
            detail = "OPA is restarting" if self.local is not None else "OPA is not started"
            raise BridgeError("OPA_UNAVAILABLE", detail)
        if self.remote:
            path = REMOTE_BUDGET_PATHS.get(rule, "")
            if not path:
                detail = f"data.opafence.budget.{rule} is not served by a shared OPA"
                raise BridgeError("OPA_UNAVAILABLE", detail)
        else:
            path = BUDGET_PREFIX + quote(rule, safe="/") + "?strict-builtin-errors=true"
        answer = self._client().request_json("POST", path, {"input": self._with_host_id(doc)})
        if not isinstance(answer, dict):
            raise BridgeError("OPA_BAD_RESULT", "the answer is not a JSON object")
        if "result" not in answer:
            raise BridgeError("OPA_UNDEFINED", f"data.opafence.budget.{rule.replace('/', '.')}")
        return answer["result"]

    def decide(self, doc: dict[str, Any]) -> Decision:
        """allow / ask / block for one decision input. Never raises: failures are blocks."""
        try:
            result = self.query(doc)["result"]
            return Decision.model_validate(result)
        except BridgeError as e:
            self.last_error = e
            if e.code == "OPA_UNAVAILABLE":
                self._check_socket()
            return block(e.code, e.detail)
        except ValidationError as e:
            first = e.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "result"
            return block("OPA_BAD_RESULT", f"{where}: {first['msg']}")
        except Exception as e:
            log.exception("unexpected error in decide")
            return block("BRIDGE_ERROR", type(e).__name__)
