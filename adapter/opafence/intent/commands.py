"""A literal command the owner typed -> the simple commands the facts will show for it.

"Run `rm -rf node_modules && npm install`" names two commands. A call's facts list each simple
command (argv, operand paths, redirections, ...) as `opafence.facts` parses it, so a grant that
kept the literal as one string could never match. The literal is parsed here with the very same
facts builder (a terminal call of that text, in the host's directory), and the grant records
each simple command's argv joined with single spaces (what Rego's command matching compares)
and, for Rego's literal coverage, where the command runs: its operand paths, redirections,
environment, wrappers and standard input. Rego then covers the actions of exactly that command
run that way (lib/grants.rego), and nothing that only shares its name.

A literal the parser cannot fully understand (opaque) keeps only its own text, as before: it
matches nothing that the facts would show, so it grants nothing more than what it names."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from opafence.facts import FactsContext, build_facts
from opafence.host import Host
from opafence.policy import CommandLiteral, LiteralPlace, Redirect

# Standard input that the facts do not show (the text of a here-doc or here-string): the same
# argv fed other text is another command, so such a command is never recorded as a literal.
_HERE_DOCS = frozenset({"<<", "<<-", "<<<"})


@dataclass
class Parsed:
    """What one literal grants: command strings (prefixes for EXECUTION) and exact literals."""

    commands: list[str] = field(default_factory=list)
    literals: list[CommandLiteral] = field(default_factory=list)
    opaque: bool = False


def _norm(text: str) -> str:
    return " ".join(text.split())


def _literal(cmd: dict[str, Any], cwd: str) -> CommandLiteral | None:
    """The command as a literal Rego can compare, or None when its targets are not all known."""
    if cmd.get("dynamic") or not cmd.get("argv"):
        return None  # an expansion: its actions are open, no literal can cover them
    redirects = cmd.get("redirects", [])
    if any(r.get("op") in _HERE_DOCS for r in redirects):
        return None
    return CommandLiteral(
        argv=list(cmd["argv"]),
        place=LiteralPlace(
            operand_paths=list(cmd.get("operand_paths", [])),
            redirects=[Redirect.model_validate(r) for r in redirects],
            env=dict(cmd.get("env", {})),
            wrappers=list(cmd.get("wrappers", [])),
            pipe_from=str(cmd.get("pipe_from", "")),
        ),
        cwd=cwd,
    )


def parse_literal(text: str, host: Host) -> Parsed:
    """The simple commands of one literal, parsed like a terminal call in the host's directory.

    The literal's own text (whitespace-normalized) always stays among the commands: guards that
    judge a whole pipeline as the user wrote it (`curl … | sh`) compare against it."""
    whole = _norm(text)
    out = Parsed(commands=[whole] if whole else [])
    if not whole:
        return out
    ctx = FactsContext(home=host.home, cwd=host.cwd, hermes_home=host.hermes_home)
    facts = build_facts("terminal", {"command": text}, ctx)
    shell = facts.get("shell") or {}
    commands = shell.get("commands") or []
    if facts.get("opaque") or shell.get("opaque") or not commands:
        out.opaque = True
        return out
    parsed: list[str] = []
    for cmd in commands:
        argv = cmd.get("argv") or []
        joined = _norm(" ".join(argv))
        if joined and joined not in parsed:
            parsed.append(joined)
        lit = _literal(cmd, host.cwd)
        if lit is not None and lit not in out.literals:
            out.literals.append(lit)
    out.commands = [*parsed, *([whole] if whole not in parsed else [])]
    return out


__all__ = ["Parsed", "parse_literal"]
