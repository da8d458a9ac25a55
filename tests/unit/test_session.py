"""Session facts record what Rego said a call brings in (decision.ingests), nothing more."""

from __future__ import annotations

from opafence.decision import Decision, Reason
from opafence.session import SessionFacts, result_holds_secret


def decided(ingests: list[str], codes: tuple[str, ...] = ()) -> Decision:
    reasons = [Reason(code=c, message="m") for c in codes]
    return Decision(verdict="allow", reasons=reasons, classes=["READ"], ingests=ingests)


def test_a_call_that_ingests_taints_the_session_and_marks_its_history() -> None:
    s = SessionFacts()
    d = decided(["network"])
    s.record_decision("terminal", d)
    s.record_execution("terminal", {}, d)
    assert s.to_input()["taint"] == {"untrusted": True, "sources": ["network"], "secret_read": False}
    assert s.history[-1]["untrusted"] is True


def test_a_call_that_ingests_nothing_leaves_the_session_clean() -> None:
    s = SessionFacts()
    d = decided([])
    s.record_decision("web_extract", d)  # the tool name alone decides nothing in Python
    s.record_execution("web_extract", {}, d)
    assert s.to_input()["taint"] == {"untrusted": False, "sources": [], "secret_read": False}
    assert s.history[-1]["untrusted"] is False


def test_observe_adds_sources_and_secret_reads() -> None:
    s = SessionFacts()
    s.observe(["web", "mcp"], secret_read=False)
    s.observe(["web"], secret_read=True)
    assert s.to_input()["taint"] == {"untrusted": True, "sources": ["mcp", "web"], "secret_read": True}


def test_replay_execution_records_a_secret_read_from_the_reason_code() -> None:
    s = SessionFacts()
    s.record_execution("read_file", {}, decided([], ("SECRET_READ",)))
    assert s.secret_read is True


def test_result_holds_secret() -> None:
    pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----"
    assert result_holds_secret(pem)
    assert result_holds_secret("x" * (2 << 20) + pem)  # the tail of a long result is scanned
    assert not result_holds_secret('{"output": "3 passed"}')
    assert not result_holds_secret(None)
    assert result_holds_secret({"output": pem})  # a plugin may hand over an object
