"""What a tool call's facts are built against: the user's home, the working directory, Hermes'
home, opafence's own state and the protected places' identities."""

from __future__ import annotations

from dataclasses import dataclass, field

from opafence.facts import links


@dataclass(frozen=True)
class FactsContext:
    home: str
    cwd: str
    hermes_home: str = ""
    state_dir: str = ""  # opafence's own state, for hard links of protected files
    # The protected places' identities, kept across calls (links.Identities); without one only
    # hard links are looked for, indexed for the call that names one.
    identities: links.Identities | None = field(default=None, compare=False, repr=False)
