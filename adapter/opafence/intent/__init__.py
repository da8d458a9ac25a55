"""The user's words -> a hardened TaskPolicy.

Foundation version: every task gets the read-only fallback. The intent-compiler issue
replaces compile_message with split + rules/LLM compiler + hardening."""

from __future__ import annotations

from opafence.config import CompilerConfig
from opafence.host import Host
from opafence.policy import TaskPolicy, fallback_policy


def compile_message(
    message: str,
    *,
    task: str,
    host: Host,
    owner: str = "",
    previous: TaskPolicy | None = None,
    message_index: int = 1,
    config: CompilerConfig | None = None,
) -> TaskPolicy:
    """The policy after the owner's message number message_index (1-based)."""
    policy = fallback_policy(task, owner)
    if previous is not None:
        policy.revision = previous.revision + 1
    return policy
