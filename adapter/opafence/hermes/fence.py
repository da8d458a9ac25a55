"""The plugin's behaviour: every tool call Hermes dispatches goes through OPA, nothing fails open.

Hermes runs a tool when a hook raises, so every hook here catches everything and turns it
into a block. State lives only in the SessionStore (thread-safe; Hermes calls hooks from
several threads)."""

from __future__ import annotations

import atexit
import contextlib
import json
import logging
import sys
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from opafence.audit.trail import AuditError, AuditLog
from opafence.config import Config, ConfigError, config_path, load_config
from opafence.decision import Decision, block
from opafence.errors import BridgeError
from opafence.facts import build_facts, links
from opafence.hermes import directive, entries, homes, host_flags, ordering, toolset
from opafence.hermes.call import ToolCall, Turn
from opafence.hermes.hostview import HostView
from opafence.hermes.notices import Notices
from opafence.hermes.store import Decided, SessionStore, TaskRecord
from opafence.opa.bridge import Bridge
from opafence.pipeline import Judged, compile_turn, judge_call, note_ran
from opafence.printable import lockdown_status, printable
from opafence.provenance.record import await_result, settle_result
from opafence.provenance.record import describe as describe_targets
from opafence.session import reads_secret
from opafence.state_files import ensure_private_dir, state_dir

if TYPE_CHECKING:
    from opafence.hermes.budget_hooks import BudgetHooks

log = logging.getLogger("opafence.plugin")

UNSCOPED = "unscoped"
# Expired tasks are swept out of memory, OPA and the state directory by a background thread
# every SWEEP_MAX_S (sooner for short idle times), and when a new session starts if the last
# sweep is SESSION_SWEEP_GAP_S old: a gateway starting many sessions pays for one sweep.
SWEEP_MAX_S = 300.0
SESSION_SWEEP_GAP_S = 30.0


def sweep_interval(idle_s: float) -> float:
    return max(1.0, min(SWEEP_MAX_S, idle_s / 12.0))


class Fence:
    """One per Hermes process. Hook methods are registered with Hermes' plugin manager."""

    def __init__(self) -> None:
        # Lockdown until setup completes: every call is blocked with this reason.
        self.error: str | None = "opafence is still starting"
        self.config = Config()
        self.bridge: Bridge | None = None
        self.store: SessionStore | None = None
        self.audit: AuditLog | None = None
        # Nothing here may raise (Hermes would load no hook at all): setup() finds these out.
        self.state: Path = Path("opafence-state-unknown")
        self.view = HostView()  # homes, directories, workspace as the facts see them (hostview.py)
        self._ready = threading.Event()
        self._others: list[str] = []
        self._closed = False
        self._stop = threading.Event()
        self._sweep_lock = threading.Lock()
        self.notices = Notices()  # what the person sees of blocks (hermes/notices.py)
        self._lockdown_told = threading.Event()  # the reason goes to stderr and the trail once
        self._executing = threading.local()
        self._last_sweep = time.monotonic()
        self.budgets: BudgetHooks | None = None  # spend caps, delegation limits (hermes/budget_hooks.py)

    # --- setup -----------------------------------------------------------------------------

    def fail(self, reason: str) -> None:
        self.error = reason
        self._ready.set()
        log.error("opafence could not start: %s", reason)
        self._tell_lockdown(reason)

    def _tell_lockdown(self, reason: str) -> None:
        """Once per process: the reason on stderr, and a `lockdown` entry in the trail (which
        is opened here if setup failed before it got that far). Never raises."""
        if self._lockdown_told.is_set():
            return
        self._lockdown_told.set()
        with contextlib.suppress(Exception):
            told = f"opafence: {lockdown_status(reason)}. Fix it, or disable the plugin."
            print(told, file=sys.stderr, flush=True)
        try:
            if self.audit is None:
                self.audit = AuditLog(ensure_private_dir(state_dir()) / "audit.jsonl")
        except Exception as e:
            log.error("opafence: cannot open the audit trail to record the lockdown: %s", e)
            return
        self._audit({"event": "lockdown", "reason": printable(reason)})

    def setup(self, start_in_background: bool = True) -> None:
        """Read the config once, prepare state, start OPA. Failures leave the lockdown in force."""
        try:
            config = load_config()
        except ConfigError as e:
            self.fail(f"configuration error: {e}")
            return
        # The config file itself is self-protected, wherever OPAFENCE_CONFIG puts it.
        self.config = config.model_copy(
            update={"protected_paths": [*config.protected_paths, str(config_path().expanduser().resolve())]}
        )
        self.state = ensure_private_dir(state_dir())
        self.audit = AuditLog(self.state / "audit.jsonl")
        # Remote mode: a shared OPA holds many hosts' tasks, so keys carry a host id.
        self.store = SessionStore(
            self.state,
            self.config.task_idle_hours,
            self.config.task_host_id(),
            self.config.provenance.max_values,
        )
        try:
            self.view = HostView.detect(self.config, self.state)
        except FileNotFoundError:
            # Relative paths in tool calls would point nowhere known: decide nothing.
            self.fail("the current directory no longer exists; start Hermes in an existing directory")
            return
        # Org bundle status changes (loaded, failed, stale) go to the audit trail.
        self.bridge = Bridge(self.config, self.state, on_bundle_status=self._audit)
        atexit.register(self.close)
        if start_in_background:
            threading.Thread(target=self._start, name="opafence-start", daemon=True).start()
        else:
            self._start()

    def _start(self) -> None:
        assert self.bridge is not None
        try:
            self.bridge.start()
        except Exception as e:
            reason = f"{e.code}: {e.sentence()}" if isinstance(e, BridgeError) else f"{type(e).__name__}: {e}"
            if self._closed:
                # Hermes is exiting while OPA starts (close() stopped it): no lockdown to tell.
                self.error = reason
                self._ready.set()
                return
            self.fail(reason)
            return
        self.error = None
        self._ready.set()
        self._audit({"event": "start", "mode": self.config.mode, "other_deciders": ordering.other_deciders()})
        self.sweep()  # tasks that expired while no Hermes ran (their files)
        threading.Thread(target=self._sweeper, name="opafence-sweeper", daemon=True).start()
        threading.Thread(target=self._identity_refresher, name="opafence-identities", daemon=True).start()

    def _identity_refresher(self) -> None:
        # The protected places' identities are rebuilt here, so a decision never waits for it.
        while True:
            try:
                self.view.identities_for(self.view.home()).refresh()
            except Exception:
                log.exception("opafence: refreshing the protected places' identities failed")
            if self._stop.wait(links.MAX_AGE / 2):
                return

    def _sweeper(self) -> None:
        assert self.store is not None
        every = sweep_interval(self.store.idle_s)
        while not self._stop.wait(every):
            self.sweep()

    def sweep(self, min_gap_s: float = 0.0) -> list[str]:
        """Expire idle tasks: out of memory, OPA (data.tasks) and the state directory. Never
        raises; returns the expired keys. One sweep at a time: a concurrent caller skips."""
        store, bridge = self.store, self.bridge
        if store is None or bridge is None or time.monotonic() - self._last_sweep < min_gap_s:
            return []
        if not self._sweep_lock.acquire(blocking=False):
            return []
        try:
            since = time.monotonic()
            self._last_sweep = since
            gone = store.expire()
            bridge.expire_tasks(gone, since)
            if self.budgets is not None and self.budgets.delegation is not None:
                self.budgets.delegation.forget_idle()
            for key in gone:
                self._audit({"event": "task_expired", "task": key, "idle_hours": self.config.task_idle_hours})
            return gone
        except Exception:
            log.exception("opafence: sweeping expired tasks failed")
            return []
        finally:
            self._sweep_lock.release()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._stop.set()
        if self.bridge is not None:
            self.bridge.close()

    def wait_ready(self, timeout: float | None = None) -> bool:
        return self._ready.wait(self.config.opa.start_timeout_s if timeout is None else timeout)

    def keep_order(self) -> None:
        others = ordering.ensure_order(self.pre_tool_call, self.tool_execution)
        if others != self._others:
            self._others = others
            if others:
                log.warning("opafence: other plugins also decide tool calls: %s", ", ".join(others))
            self._audit({"event": "other_deciders", "plugins": others})

    # --- helpers ---------------------------------------------------------------------------

    def _audit(self, record: Mapping[str, Any]) -> str | None:
        """Append to the trail; returns why it could not, or None."""
        if self.audit is None:
            return None
        try:
            self.audit.append(record)
        except (AuditError, OSError) as e:
            log.error("opafence: cannot write the audit log: %s", e)
            return str(e)
        return None

    def _lockdown(self, call: ToolCall) -> dict[str, str] | None:
        if self.error is None and self._ready.is_set():
            return None
        if not self._ready.is_set() and not self.wait_ready():
            self.fail(self.error or "OPA did not become ready in time")
        error = self.error
        if error is None:
            return None
        self._tell_lockdown(error)
        # Each blocked call is on the trail too, so `opafence log` shows what the lockdown stopped.
        with contextlib.suppress(Exception):
            if self.audit is not None:
                self._audit(
                    entries.lockdown(call, self.audit.arg_digests(call.args), self._lockdown_target(call))
                )
        message = f"opafence could not start: {error}. Fix it, or disable the plugin."
        return {"action": "block", "message": message}

    def _lockdown_target(self, call: ToolCall) -> dict[str, Any]:
        # Setup may have stopped before the homes were known: facts as a plain process sees them.
        try:
            facts = build_facts(call.tool, call.args, self.view.plain_context())
            return entries.target(facts, call.args, self.config.audit.targets)
        except Exception:
            return {}

    def _record_for(self, session_id: str, task_id: str) -> TaskRecord:
        assert self.store is not None
        root = self.store.root_session(session_id, task_id) or UNSCOPED
        rec = self.store.get(root)
        if rec is None:
            # No turn was compiled for this session: the read-only fallback governs it.
            rec = self.store.create(root, owner="", platform="")
            self._push(rec)
        return rec

    def _push(self, rec: TaskRecord) -> bool:
        assert self.bridge is not None
        try:
            self.bridge.put_task(rec.key, rec.policy.to_opa_data())
        except BridgeError as e:
            rec.unsynced = True
            log.error("opafence: could not push task %s: %s", rec.key, e)
            return False
        rec.unsynced = False
        return True

    # --- hooks -----------------------------------------------------------------------------

    def pre_llm_call(self, **kw: Any) -> None:
        """Compile the owner's message into the task's policy (grants accumulate; narrowing is immediate)."""
        try:
            self._pre_llm_call(Turn.parse(kw))
        except Exception:
            log.exception("opafence: pre_llm_call failed")

    def _pre_llm_call(self, turn: Turn) -> None:
        with contextlib.suppress(Exception):
            self.keep_order()
        store = self.store
        if store is None or self.bridge is None or not turn.session_id:
            return
        store.note_task_id(turn.task_id, turn.session_id)
        store.platforms_seen.add(turn.platform or "cli")
        # Once a turn: terminal.home_mode (or $HERMES_HOME/home appearing) may have changed.
        self.view.homes = homes.detect()
        # A sub-agent's "user message" is its goal, written by the parent model: it grants nothing.
        if turn.platform == "subagent" or store.is_child(turn.session_id):
            return
        rec = store.get_or_create(turn.session_id, owner=turn.sender, platform=turn.platform)
        with store.transaction(rec, durable=True):
            # The tools the model is offered: the last request's, else Hermes' registry.
            catalogue = toolset.from_snapshot(rec.tools) or toolset.registry_catalogue()
            rec.tools = toolset.snapshot(catalogue)
            host = self.view.host(host_flags.detect(), turn.platform, self.bridge)
            policy = compile_turn(
                rec, turn.text, owner=turn.sender, host=host, config=self.config, tools=catalogue
            )
            self._push(rec)
        self._audit(entries.policy(turn, rec.key, policy))

    def llm_request(self, request: Any = None, session_id: str = "", **_: Any) -> None:
        """See the tools the model is offered (never changes the request): the catalogue the
        next message's grants bind against, and bound tools whose parameters changed since."""
        try:
            self._llm_request(request, session_id)
        except Exception:
            log.exception("opafence: llm_request failed")

    def _llm_request(self, request: Any, session_id: str) -> None:
        store = self.store
        if store is None or not session_id:
            return
        seen = toolset.request_catalogue(request)
        if seen is None:
            return
        root = store.root_session(session_id, "") or session_id
        rec = store.get(root)
        if rec is None:
            return
        with store.transaction(rec, durable=True):
            changed = toolset.changed_tools(rec.tools, seen)
            if toolset.drop_changed(rec.policy, changed):
                rec.policy.revision += 1
                self._push(rec)
                log.warning("opafence: tools changed after the grant, no longer covered: %s", sorted(changed))
            if root == session_id:  # a sub-agent's tools are not its parent's catalogue
                rec.tools = toolset.snapshot(seen)

    def pre_tool_call(self, **kw: Any) -> dict[str, str] | None:
        """Ask OPA about the call: allow -> no directive, ask -> approve, block -> block."""
        try:
            return self._pre_tool_call(ToolCall.parse(kw))
        except Exception as e:
            log.exception("opafence: pre_tool_call failed")
            return directive.block(
                f"{kw.get('tool_name', '')}", block("BRIDGE_ERROR", type(e).__name__).reasons
            )

    def _pre_tool_call(self, call: ToolCall) -> dict[str, str] | None:
        with contextlib.suppress(Exception):
            self.keep_order()
        locked = self._lockdown(call)
        if locked is not None:
            return locked
        store, bridge = self.store, self.bridge
        assert store is not None and bridge is not None
        store.note_task_id(call.task_id, call.session_id)
        rec = self._record_for(call.session_id, call.task_id)
        subagent = store.is_child(call.session_id) or call.task_id.startswith("sa-")
        flags = host_flags.detect(subagent=subagent)
        judged = judge_call(
            bridge,
            rec,
            call.tool,
            call.args,
            call.call_id,
            self.view.host(flags, rec.platform, bridge),
            self.view.facts_context(),
            guard=lambda: store.transaction(rec, save=False),
            prepare=lambda doc: self._prepare(doc, rec, call, subagent),
            record=lambda judged: self._reserve(rec, call, judged),
        )
        decision, facts = judged.decision, judged.facts
        mode = self.config.audit.targets
        unrecorded = self._audit(entries.decision(call, rec.key, decision, facts, flags, subagent, mode))
        if unrecorded is not None:
            # A decision that cannot be recorded is not made: the trail must stay complete.
            return directive.block(call.tool, block("AUDIT_UNAVAILABLE", unrecorded).reasons)
        if decision.verdict == "allow":
            return None
        # Where each target came from (in the user's words, or which result brought it in).
        targets = describe_targets(facts.get("provenance", {}))
        if decision.verdict == "ask":
            # Hermes keeps "always" approvals forever: the key names the task, the policy
            # revision and the exact action, so an approval never leaks into another task.
            action = directive.action_hash(call.tool, call.args, decision, facts)
            return directive.approve(
                call.tool, decision, f"opafence:{rec.key}:r{rec.policy.revision}:{action}", targets
            )
        codes = [r.code for r in decision.reasons]
        self.notices.blocked(
            rec.key, call.tool, codes, entries.notice_target(facts, call.args), not flags.auto_approve
        )
        return directive.block(call.tool, decision.reasons, targets)

    def _prepare(
        self, doc: dict[str, Any], rec: TaskRecord, call: ToolCall, subagent: bool
    ) -> Decision | None:
        """The plugin's part of the input: a task OPA does not hold yet blocks; the sub-agent
        flag and the delegation counts (which reserves the launches)."""
        if rec.unsynced and not self._push(rec):
            return block("OPA_UNAVAILABLE", "the task's current policy could not be pushed to OPA")
        doc["session"]["subagent"] = subagent
        if self.budgets is not None:
            self.budgets.annotate(doc, rec.key, call.tool, call.args, call.call_id)
        return None

    def _reserve(self, rec: TaskRecord, call: ToolCall, judged: Judged) -> None:
        """At decision time, with the task guarded: a call that may run reserves its counters,
        owes its result's values and is remembered for the execution re-check."""
        assert self.store is not None
        decision = judged.decision
        if decision.verdict != "block":
            rec.facts.reserve(call.tool, judged.facts, decision.classes, decision.grants)
            await_result(rec.facts.values, call.tool, judged.call_no, decision.ingests)
            self.store.remember_decision(
                SessionStore.call_key(rec.key, call.tool, call.call_id, call.digest),
                Decided(
                    task=rec.key,
                    tool=call.tool,
                    args_hash=call.digest,
                    verdict=decision.verdict,
                    at=time.time(),
                    classes=tuple(decision.classes),
                    grants=tuple(decision.grants),
                    secret_read=reads_secret(decision),
                    ingests=tuple(decision.ingests),
                    call_no=judged.call_no,
                ),
            )
        self.store.save(rec)

    def tool_execution(self, next_call: Callable[[Any], Any] | None = None, **kw: Any) -> Any:
        """Last middleware: run the tool only with the arguments that were decided, once.

        Hermes 0.19.0 nests the chain for one call (the agent loop's invoke_tool runs it, then
        handle_function_call runs it again around the dispatch): the inner layer, on the same
        thread while the outer one runs, is the same execution, not a second one."""
        key = ""
        try:
            problem, key = self._execution_problem(ToolCall.parse(kw))
        except Exception as e:
            log.exception("opafence: execution check failed")
            problem = f"the execution check failed ({type(e).__name__})"
        args = kw.get("args")
        if problem is not None or next_call is None:
            message = f"opafence blocked {kw.get('tool_name', '')}: {problem or 'no execution path'}"
            return json.dumps({"error": message}, ensure_ascii=False)
        running = self._running()
        if key in running:
            return next_call(args)
        running.add(key)
        try:
            return next_call(args)
        finally:
            running.discard(key)

    def _running(self) -> set[str]:
        """Keys of the calls this thread is executing (the nested layers' view)."""
        running: set[str] | None = getattr(self._executing, "keys", None)
        if running is None:
            running = self._executing.keys = set()
        return running

    def _execution_problem(self, call: ToolCall) -> tuple[str | None, str]:
        if self.error is not None or self.store is None:
            return f"opafence could not start: {self.error}", ""
        root = self.store.root_session(call.session_id, call.task_id) or UNSCOPED
        key = SessionStore.call_key(self.store.task_key(root), call.tool, call.call_id, call.digest)
        decided = self.store.take_for_execution(key)
        if decided is None:
            return (
                "this call was never checked by opafence (it did not pass pre_tool_call) [NOT_DECIDED]",
                key,
            )
        if decided.tool != call.tool or decided.args_hash != call.digest:
            self._audit(
                {"event": "args_changed", "task": decided.task, "tool": call.tool, "call": call.call_id}
            )
            return "its arguments changed after they were checked; run it again [ARGS_CHANGED]", key
        if decided.executed and key not in self._running():
            # One decision, one run: a second execution of the same call was never decided.
            return "this call already ran once on its decision; it must be checked again [ALREADY_RAN]", key
        return None, key

    def post_tool_call(self, **kw: Any) -> None:
        """Session facts: what ran, what content came in (and its values); give back
        reservations of calls that did not run."""
        try:
            self._post_tool_call(ToolCall.parse(kw))
        except Exception:
            log.exception("opafence: post_tool_call failed")
            self._values_failed(kw)

    def _values_failed(self, kw: Mapping[str, Any]) -> None:
        # The result's values may be lost: the task's unbound targets count as untrusted.
        with contextlib.suppress(Exception):
            store = self.store
            if store is not None:
                root = store.root_session(kw.get("session_id") or "", kw.get("task_id") or "") or UNSCOPED
                rec = store.get(root)
                if rec is not None:
                    with store.transaction(rec, save=False):
                        rec.facts.values.mark_lossy(
                            f"recording the result of {kw.get('tool_name', '')} failed"
                        )

    def _post_tool_call(self, call: ToolCall) -> None:
        store = self.store
        if store is None or self.error is not None:
            return
        rec = store.get(store.root_session(call.session_id, call.task_id) or UNSCOPED)
        if rec is None:
            return
        decided = store.decision_for(SessionStore.call_key(rec.key, call.tool, call.call_id, call.digest))
        if decided is None:
            return
        with store.transaction(rec):
            if call.ran:
                # Key material in the result is a secret read, whatever the path said.
                home = self.view.home()
                note_ran(
                    rec.facts,
                    call.tool,
                    decided.call_no,
                    call.result,
                    decided.ingests,
                    call.args,
                    home,
                    decided.secret_read,
                )
            else:
                rec.facts.release(call.tool, list(decided.classes), decided.grants)
                settle_result(rec.facts.values, decided.call_no)
        if decided.verdict == "ask":
            self._audit(
                {
                    "event": "approval",
                    "task": rec.key,
                    "call": call.call_id,
                    "tool": call.tool,
                    "outcome": "approved" if call.ran else "denied",
                }
            )

    def subagent_start(self, parent_session_id: str = "", child_session_id: str = "", **kw: Any) -> None:
        try:
            if self.store is not None and parent_session_id and child_session_id:
                self.store.link_child(
                    child_session_id, parent_session_id, str(kw.get("child_subagent_id") or "")
                )
        except Exception:
            log.exception("opafence: subagent_start failed")

    def session_start(self, **_: Any) -> None:
        """A new session: a good moment to sweep out tasks abandoned long ago."""
        try:
            if self.error is None:
                self.sweep(min_gap_s=SESSION_SWEEP_GAP_S)
        except Exception:
            log.exception("opafence: on_session_start failed")

    def session_finalize(self, session_id: str = "", **_: Any) -> None:
        """The session is over: unload its task from OPA (its file stays until it expires), and
        say on stderr what was blocked if nobody could have answered."""
        try:
            if self.store is None or self.bridge is None or not session_id:
                return
            self.notices.flush(self.store.task_key(session_id))
            self.bridge.delete_task(self.store.task_key(session_id))
            self.store.unload(session_id)
        except Exception:
            log.exception("opafence: session_finalize failed")
