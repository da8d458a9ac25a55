"""The plugin's behaviour: every tool call Hermes dispatches goes through OPA, nothing fails open.

Hermes runs a tool when a hook raises, so every hook here catches everything and turns it
into a block. State lives only in the SessionStore (thread-safe; Hermes calls hooks from
several threads)."""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import json
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from opafence.audit import redaction as audit_targets
from opafence.audit.trail import AuditError, AuditLog, arg_digests
from opafence.config import Config, ConfigError, config_path, load_config
from opafence.decision import Decision, Reason, block
from opafence.errors import BridgeError
from opafence.facts import FactsContext, build_facts, links
from opafence.facts.links import Identities
from opafence.hermes import homes, host_flags, ordering, toolset
from opafence.hermes.notices import Notices
from opafence.hermes.store import Decided, SessionStore, TaskRecord
from opafence.host import Host, canonical, code_dirs, default_workspace
from opafence.inputs import decision_input, protected_files
from opafence.intent import compile_message
from opafence.opa.bridge import Bridge
from opafence.policy import fallback_policy
from opafence.printable import lockdown_status, printable
from opafence.provenance import note_message, note_result
from opafence.provenance.record import await_result, settle_result
from opafence.provenance.record import describe as describe_targets
from opafence.session import reads_secret, result_holds_secret
from opafence.state_files import ensure_private_dir, hermes_home, state_dir

if TYPE_CHECKING:
    from opafence.hermes.budget_hooks import BudgetHooks

log = logging.getLogger("opafence.plugin")

# Arguments that carry content rather than choose the action; left out of approval keys so
# "approve for this session" means "this action", not "these exact bytes".
CONTENT_ARGS = frozenset(
    {"content", "body", "text", "html", "message", "file_content", "new_string", "old_string", "caption"}
)
UNSCOPED = "unscoped"
# Expired tasks are swept out of memory, OPA and the state directory by a background thread
# every SWEEP_MAX_S (sooner for short idle times), and when a new session starts if the last
# sweep is SESSION_SWEEP_GAP_S old: a gateway starting many sessions pays for one sweep.
SWEEP_MAX_S = 300.0
SESSION_SWEEP_GAP_S = 30.0


def sweep_interval(idle_s: float) -> float:
    return max(1.0, min(SWEEP_MAX_S, idle_s / 12.0))


def canonical_args(args: Mapping[str, Any]) -> str:
    return json.dumps(args, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=repr)


def args_hash(args: Mapping[str, Any]) -> str:
    return hashlib.sha256(canonical_args(args).encode()).hexdigest()


def snapshot(args: Any) -> dict[str, Any]:
    """A deep, JSON-shaped copy: the decision must not see later mutations of Hermes' dict."""
    if not isinstance(args, Mapping):
        return {}
    copied = json.loads(canonical_args(args))
    return copied if isinstance(copied, dict) else {}


def action_hash(tool: str, args: Mapping[str, Any], decision: Decision, facts: Mapping[str, Any]) -> str:
    """The exact action an approval covers: tool, risk, targets and non-content arguments."""
    action = {
        "tool": tool,
        "classes": sorted(decision.classes),
        "recipients": sorted(str(r.get("address", "")) for r in facts.get("recipients", [])),
        "paths": sorted(str(p.get("path", "")) for p in facts.get("paths", [])),
        "domains": sorted(str(u.get("host", "")) for u in facts.get("urls", [])),
        "args": {k: v for k, v in args.items() if k not in CONTENT_ARGS},
    }
    return hashlib.sha256(canonical_args(action).encode()).hexdigest()[:24]


def message_text(user_message: Any) -> str:
    """Hermes passes a string, or a list of parts for multimodal input."""
    if isinstance(user_message, str):
        return user_message
    if isinstance(user_message, list):
        parts = []
        for part in user_message:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, Mapping) and isinstance(part.get("text"), str):
                parts.append(part["text"])
        return "\n".join(parts)
    return ""


def explain(tool: str, reasons: list[Reason], limit: int = 3) -> str:
    shown = "; ".join(f"{r.message} [{r.code}]" for r in reasons[:limit]) or "no rule allowed it"
    more = f" (+{len(reasons) - limit} more)" if len(reasons) > limit else ""
    fix = next((r.fix for r in reasons if r.fix), "")
    # Reasons quote the call's own values (addresses, paths, commands): Hermes prints this in
    # its approval prompt, so nothing in it may steer the person's terminal.
    return printable(f"{shown}{more}." + (f" {fix}" if fix else ""))


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
        self.workspace: tuple[str, ...] = ()
        self.cwd = ""
        self.homes = homes.Homes(tool_home="")  # what ~ means in Hermes' tools (hermes/homes.py)
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
        # HERMES_HOME and the state directory, canonical; set by setup() (realpath costs, and
        # may raise in a deleted working directory, which setup reports).
        self._host_dirs = ("", "")
        self._socket_canonical = ("", "")
        self._home_canonical = ("", "")
        self._code_dirs: tuple[str, ...] = ()  # the code Hermes runs (host.code_dirs), found once
        # The protected places' identities (facts/links.py), kept across calls for one home.
        self._identities: tuple[str, Identities | None] = ("", None)

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
            self.cwd = os.environ.get("TERMINAL_CWD") or os.getcwd()
        except FileNotFoundError:
            # Relative paths in tool calls would point nowhere known: decide nothing.
            self.fail("the current directory no longer exists; start Hermes in an existing directory")
            return
        self._host_dirs = (canonical(str(hermes_home())), canonical(str(self.state)))
        self._code_dirs = code_dirs()
        self.workspace = tuple(default_workspace(self.config.workspace, self.cwd))
        self.homes = homes.detect()
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
                self._identities_for(self._home()).refresh()
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

    def host(self, flags: host_flags.HostFlags, platform: str) -> Host:
        opa_socket = ""
        pids: tuple[int, ...] = ()
        if self.bridge is not None:
            pids = self.bridge.opa_pids()
            if self.bridge.local is not None:
                opa_socket = self._socket_path(self.bridge.local.socket_path)
        hermes_dir, state = self._host_dirs
        return Host(
            auto_approve=flags.auto_approve,
            interactive=flags.interactive,
            platform=platform or ("cron" if flags.cron else ""),
            home=self._home(),
            other_homes=self.homes.others,
            hermes_home=hermes_dir,
            state_dir=state,
            workspace=self.workspace,
            cwd=self.cwd,
            opa_socket=opa_socket,
            opa_pids=pids,
            code_dirs=self._code_dirs,
        )

    def _home(self) -> str:
        # The home Hermes' tools use (it can change between turns), canonical once per value.
        raw = self.homes.tool_home or os.path.expanduser("~")
        if self._home_canonical[0] != raw:
            self._home_canonical = (raw, canonical(raw))
        return self._home_canonical[1]

    def _socket_path(self, path: Path) -> str:
        # Canonical once per socket path (it changes only when OPA restarts elsewhere).
        raw = str(path)
        if self._socket_canonical[0] != raw:
            self._socket_canonical = (raw, canonical(raw))
        return self._socket_canonical[1]

    def facts_context(self) -> FactsContext:
        hermes_dir, state = self._host_dirs
        home = self._home()
        return FactsContext(
            home=home,
            cwd=self.cwd,
            hermes_home=hermes_dir,
            state_dir=state,
            identities=self._identities_for(home),
        )

    def _identities_for(self, home: str) -> Identities:
        kept_home, kept = self._identities
        if kept is None or kept_home != home:
            hermes_dir, state = self._host_dirs
            kept = Identities.for_host(home, hermes_dir, state, self._code_dirs, protected_files(self.config))
            self._identities = (home, kept)
        return kept

    def _target(self, facts: Mapping[str, Any], args: Mapping[str, Any]) -> dict[str, Any]:
        """{"target": …} for a decision entry, as `audit.targets` says; {} when there is none."""
        try:
            target = audit_targets.summarize(facts, args, self.config.audit.targets)
        except Exception:
            log.exception("opafence: target summary failed")
            return {"target": {"error": ["the target summary failed"]}}
        return {"target": target} if target else {}

    def _block(self, tool: str, reasons: list[Reason], targets: str = "") -> dict[str, str]:
        message = f"opafence blocked {tool}: {explain(tool, reasons)}"
        return {"action": "block", "message": message + (f" {printable(targets)}" if targets else "")}

    def _lockdown(self, tool: str, args: Any, session_id: str, call_id: str) -> dict[str, str] | None:
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
                entry = {
                    "event": "decision",
                    "session": session_id,
                    "call": call_id,
                    "tool": tool,
                    "classes": [],
                    "verdict": "block",
                    "reasons": ["LOCKDOWN"],
                    "args": self.audit.arg_digests(snapshot(args)),
                    **self._lockdown_target(tool, snapshot(args)),
                }
                self._audit(entry)
        message = f"opafence could not start: {error}. Fix it, or disable the plugin."
        return {"action": "block", "message": message}

    def _lockdown_target(self, tool: str, snap: dict[str, Any]) -> dict[str, Any]:
        # Setup may have stopped before the homes were known: facts as a plain process sees them.
        try:
            cwd = self.cwd or os.getcwd()
            context = FactsContext(home=os.path.expanduser("~"), cwd=cwd, hermes_home=str(hermes_home()))
            return self._target(build_facts(tool, snap, context), snap)
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

    def pre_llm_call(
        self,
        session_id: str = "",
        task_id: str = "",
        user_message: Any = None,
        platform: str = "",
        sender_id: str = "",
        **_: Any,
    ) -> None:
        """Compile the owner's message into the task's policy (grants accumulate; narrowing is immediate)."""
        try:
            self._pre_llm_call(session_id, task_id, user_message, platform, sender_id)
        except Exception:
            log.exception("opafence: pre_llm_call failed")

    def _pre_llm_call(
        self, session_id: str, task_id: str, user_message: Any, platform: str, sender: str
    ) -> None:
        with contextlib.suppress(Exception):
            self.keep_order()
        if self.store is None or self.bridge is None or not session_id:
            return
        self.store.note_task_id(task_id, session_id)
        self.store.platforms_seen.add(platform or "cli")
        # Once a turn: terminal.home_mode (or $HERMES_HOME/home appearing) may have changed.
        self.homes = homes.detect()
        # A sub-agent's "user message" is its goal, written by the parent model: it grants nothing.
        if platform == "subagent" or self.store.is_child(session_id):
            return
        text = message_text(user_message)
        with self.store._lock:
            rec = self.store.get(session_id)
            if rec is None:
                rec = self.store.create(session_id, owner=sender, platform=platform)
            rec.messages += 1
            previous = rec.policy if rec.messages > 1 else None
            flags = host_flags.detect()
            # The tools the model is offered: the last request's, else Hermes' registry.
            catalogue = toolset.from_snapshot(rec.tools) or toolset.registry_catalogue()
            rec.tools = toolset.snapshot(catalogue)
            try:
                policy = compile_message(
                    text,
                    task=rec.key,
                    host=self.host(flags, platform),
                    owner=sender,
                    previous=previous,
                    message_index=rec.messages,
                    config=self.config.compiler,
                    tools=catalogue,
                )
            except Exception:
                log.exception("opafence: compiling the task policy failed; using the read-only fallback")
                policy = fallback_policy(rec.key, rec.owner)
                if previous is not None:
                    policy.prohibitions = list(previous.prohibitions)
                    policy.revision = previous.revision + 1
            rec.policy = policy
            # The owner's own values, and the attached or pasted text as untrusted content.
            identity = [*self.config.provenance.identity, sender]
            note_message(rec.facts.values, text, rec.messages, identity, self._home())
            self._push(rec)
            self.store.save(rec, durable=True)
        self._audit(
            {
                "event": "policy",
                "session": session_id,
                "task": rec.key,
                "revision": policy.revision,
                "compiled_by": policy.compiled_by,
                "grants": [f"{g.class_}:{g.capability}" for g in policy.grants],
                "prohibitions": [",".join(p.classes) for p in policy.prohibitions],
                "read_only": policy.read_only,
            }
        )

    def llm_request(self, request: Any = None, session_id: str = "", **_: Any) -> None:
        """See the tools the model is offered (never changes the request): the catalogue the
        next message's grants bind against, and bound tools whose parameters changed since."""
        try:
            self._llm_request(request, session_id)
        except Exception:
            log.exception("opafence: llm_request failed")

    def _llm_request(self, request: Any, session_id: str) -> None:
        if self.store is None or not session_id:
            return
        seen = toolset.request_catalogue(request)
        if seen is None:
            return
        with self.store._lock:
            root = self.store.root_session(session_id, "") or session_id
            rec = self.store.get(root)
            if rec is None:
                return
            changed = toolset.changed_tools(rec.tools, seen)
            if toolset.drop_changed(rec.policy, changed):
                rec.policy.revision += 1
                self._push(rec)
                log.warning("opafence: tools changed after the grant, no longer covered: %s", sorted(changed))
            if root == session_id:  # a sub-agent's tools are not its parent's catalogue
                rec.tools = toolset.snapshot(seen)
            self.store.save(rec, durable=True)

    def pre_tool_call(
        self,
        tool_name: str = "",
        args: Any = None,
        task_id: str = "",
        session_id: str = "",
        tool_call_id: str = "",
        **_: Any,
    ) -> dict[str, str] | None:
        """Ask OPA about the call: allow -> no directive, ask -> approve, block -> block."""
        try:
            return self._pre_tool_call(tool_name, args, task_id or "", session_id or "", tool_call_id or "")
        except Exception as e:
            log.exception("opafence: pre_tool_call failed")
            return self._block(tool_name, block("BRIDGE_ERROR", type(e).__name__).reasons)

    def _pre_tool_call(
        self, tool: str, args: Any, task_id: str, session_id: str, call_id: str
    ) -> dict[str, str] | None:
        with contextlib.suppress(Exception):
            self.keep_order()
        locked = self._lockdown(tool, args, session_id, call_id)
        if locked is not None:
            return locked
        assert self.store is not None and self.bridge is not None
        snap = snapshot(args)
        self.store.note_task_id(task_id, session_id)
        rec = self._record_for(session_id, task_id)
        subagent = self.store.is_child(session_id) or task_id.startswith("sa-")
        flags = host_flags.detect(subagent=subagent)
        host = self.host(flags, rec.platform)
        facts = build_facts(tool, snap, self.facts_context())
        with self.store._lock:
            call_no = rec.facts.values.next_call()
            doc = decision_input(rec.key, tool, snap, call_id, rec.facts, host, facts)
        if getattr(rec, "unsynced", False) and not self._push(rec):
            decision = block("OPA_UNAVAILABLE", "the task's current policy could not be pushed to OPA")
        else:
            doc["session"]["subagent"] = subagent
            if self.budgets is not None:
                self.budgets.annotate(doc, rec.key, tool, snap, call_id)
            decision = self.bridge.decide(doc)
        digest = args_hash(snap)
        with self.store._lock:
            # Same bookkeeping as replay (judge.py): the history marks calls that bring content in.
            rec.facts.record_decision(tool, decision)
            if decision.verdict != "block":
                rec.facts.reserve(tool, facts, decision.classes, decision.grants)
                await_result(rec.facts.values, tool, call_no, decision.ingests)
                self.store.remember_decision(
                    SessionStore.call_key(rec.key, tool, call_id, digest),
                    Decided(
                        task=rec.key,
                        tool=tool,
                        args_hash=digest,
                        verdict=decision.verdict,
                        at=time.time(),
                        classes=tuple(decision.classes),
                        grants=tuple(decision.grants),
                        secret_read=reads_secret(decision),
                        ingests=tuple(decision.ingests),
                        call_no=call_no,
                    ),
                )
            self.store.save(rec)
        unrecorded = self._audit(
            {
                "event": "decision",
                "session": session_id,
                "task": rec.key,
                "call": call_id,
                "tool": tool,
                "classes": decision.classes,
                "verdict": decision.verdict,
                "reasons": [r.code for r in decision.reasons],
                "monitor": decision.monitor.would if decision.monitor else None,
                "args": arg_digests(snap),
                "host": {"auto_approve": flags.auto_approve, "yolo": flags.yolo, "subagent": subagent},
                **self._target(facts, snap),
            }
        )
        if unrecorded is not None:
            # A decision that cannot be recorded is not made: the trail must stay complete.
            return self._block(tool, block("AUDIT_UNAVAILABLE", unrecorded).reasons)
        if decision.verdict == "allow":
            return None
        # Where each target came from (in the user's words, or which result brought it in).
        targets = describe_targets(facts.get("provenance", {}))
        if decision.verdict == "ask":
            # Hermes keeps "always" approvals forever: the key names the task, the policy
            # revision and the exact action, so an approval never leaks into another task.
            action = action_hash(tool, snap, decision, facts)
            message = f"opafence: {printable(tool)} needs your approval: " + explain(tool, decision.reasons)
            return {
                "action": "approve",
                "message": message + (f" {printable(targets)}" if targets else ""),
                "rule_key": f"opafence:{rec.key}:r{rec.policy.revision}:{action}",
            }
        codes = [r.code for r in decision.reasons]
        self.notices.blocked(rec.key, tool, codes, self._notice_target(facts, snap), not flags.auto_approve)
        return self._block(tool, decision.reasons, targets)

    def _notice_target(self, facts: Mapping[str, Any], args: Mapping[str, Any]) -> str:
        # The person's own terminal gets the redacted summary, whatever the trail keeps.
        try:
            return audit_targets.one_line(audit_targets.summarize(facts, args, "redacted"))
        except Exception:
            return ""

    def tool_execution(
        self,
        tool_name: str = "",
        args: Any = None,
        next_call: Callable[[Any], Any] | None = None,
        task_id: str = "",
        session_id: str = "",
        tool_call_id: str = "",
        **_: Any,
    ) -> Any:
        """Last middleware: run the tool only with the arguments that were decided, once.

        Hermes 0.19.0 nests the chain for one call (the agent loop's invoke_tool runs it, then
        handle_function_call runs it again around the dispatch): the inner layer, on the same
        thread while the outer one runs, is the same execution, not a second one."""
        key = ""
        try:
            problem, key = self._execution_problem(
                tool_name, args, task_id or "", session_id or "", tool_call_id or ""
            )
        except Exception as e:
            log.exception("opafence: execution check failed")
            problem = f"the execution check failed ({type(e).__name__})"
        if problem is not None or next_call is None:
            message = f"opafence blocked {tool_name}: {problem or 'no execution path'}"
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

    def _execution_problem(
        self, tool: str, args: Any, task_id: str, session_id: str, call_id: str
    ) -> tuple[str | None, str]:
        if self.error is not None or self.store is None:
            return f"opafence could not start: {self.error}", ""
        snap = snapshot(args)
        digest = args_hash(snap)
        root = self.store.root_session(session_id, task_id) or UNSCOPED
        key = SessionStore.call_key(self.store.task_key(root), tool, call_id, digest)
        decided = self.store.take_for_execution(key)
        if decided is None:
            return (
                "this call was never checked by opafence (it did not pass pre_tool_call) [NOT_DECIDED]",
                key,
            )
        if decided.tool != tool or decided.args_hash != digest:
            self._audit({"event": "args_changed", "task": decided.task, "tool": tool, "call": call_id})
            return "its arguments changed after they were checked; run it again [ARGS_CHANGED]", key
        if decided.executed and key not in self._running():
            # One decision, one run: a second execution of the same call was never decided.
            return "this call already ran once on its decision; it must be checked again [ALREADY_RAN]", key
        return None, key

    def post_tool_call(
        self,
        tool_name: str = "",
        args: Any = None,
        task_id: str = "",
        session_id: str = "",
        tool_call_id: str = "",
        status: str = "",
        error_message: str = "",
        result: Any = None,
        **_: Any,
    ) -> None:
        """Session facts: what ran, what content came in (and its values); give back
        reservations of calls that did not run."""
        try:
            self._post_tool_call(
                tool_name, args, task_id or "", session_id or "", tool_call_id or "", status, result
            )
        except Exception:
            log.exception("opafence: post_tool_call failed")
            self._values_failed(tool_name, task_id or "", session_id or "")

    def _values_failed(self, tool: str, task_id: str, session_id: str) -> None:
        # The result's values may be lost: the task's unbound targets count as untrusted.
        with contextlib.suppress(Exception):
            if self.store is not None:
                rec = self.store.get(self.store.root_session(session_id, task_id) or UNSCOPED)
                if rec is not None:
                    with self.store._lock:
                        rec.facts.values.mark_lossy(f"recording the result of {tool} failed")

    def _post_tool_call(
        self, tool: str, args: Any, task_id: str, session_id: str, call_id: str, status: str, result: Any
    ) -> None:
        if self.store is None or self.error is not None:
            return
        snap = snapshot(args)
        root = self.store.root_session(session_id, task_id) or UNSCOPED
        rec = self.store.get(root)
        if rec is None:
            return
        decided = self.store.decision_for(SessionStore.call_key(rec.key, tool, call_id, args_hash(snap)))
        if decided is None:
            return
        ran = status in ("ok", "error", "")
        with self.store._lock:
            if ran:
                # Key material in the result is a secret read, whatever the path said.
                held = decided.secret_read or result_holds_secret(result)
                rec.facts.observe(decided.ingests, secret_read=held)
                note_result(
                    rec.facts.values, tool, decided.call_no, result, decided.ingests, snap, self._home()
                )
            else:
                rec.facts.release(tool, list(decided.classes), decided.grants)
                settle_result(rec.facts.values, decided.call_no)
            self.store.save(rec)
        if decided.verdict == "ask":
            self._audit(
                {
                    "event": "approval",
                    "task": rec.key,
                    "call": call_id,
                    "tool": tool,
                    "outcome": "approved" if ran else "denied",
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
