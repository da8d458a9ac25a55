"""Shell commands -> simple commands (docs/contract.md, `shell` and `Command`).

A real grammar (tree-sitter-bash) turns the program into a tree; this module walks it the way
bash would run it: words are expanded (quotes removed, literal concatenations joined, `~`,
`$HOME`, variables assigned earlier in the same program, brace expansion, ANSI-C quoting),
wrappers such as `sudo` or `env` are unwrapped, and the bodies of `eval`, `sh -c`, `python -c`,
here-docs fed to interpreters and command substitutions are parsed recursively.

What cannot be known for certain is marked opaque with a reason instead of guessed: a
command name that comes from an expansion, decoded data that reaches an interpreter, a parse
error, a body nested too deep. Opaque is never a read.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import tree_sitter
import tree_sitter_bash

from opafence.facts import paths, url
from opafence.facts.collect import MAX_DEPTH, Collector

MAX_SOURCE = 256 * 1024
MAX_FIELDS = 4096
MAX_BRACE = 256
MAX_NESTING = 120  # syntactic nesting walked (subshells in subshells, ...)

_LANGUAGE = tree_sitter.Language(tree_sitter_bash.language())
_WORD_CHARS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
_ASCII_FOR_PARSER = bytes.maketrans(
    bytes(range(0x80, 0x100)) + b"\x00",
    bytes(_WORD_CHARS[i % len(_WORD_CHARS)] for i in range(0x80)) + b" ",
)
_local = threading.local()


def _parser() -> tree_sitter.Parser:
    # tree-sitter parsers are not thread-safe; Hermes calls hooks from worker threads.
    p: tree_sitter.Parser | None = getattr(_local, "parser", None)
    if p is None:
        p = tree_sitter.Parser(_LANGUAGE)
        _local.parser = p
    return p


# --- words ------------------------------------------------------------------------------

LIT, QUO, EXP = 0, 1, 2  # unquoted literal, quoted literal, unquoted expansion result
Piece = tuple[str, int]


@dataclass(slots=True)
class Field:
    text: str
    dynamic: bool = False
    glob: bool = False
    decoded: bool = False  # produced by a command substitution whose output was decoded


@dataclass(slots=True)
class Feed:
    """What flows into a command's standard input from the command before it in a pipeline."""

    name: str = ""
    content: str | None = None  # known literal content (echo 'x' | ..., cat <<EOF | ...)
    decoded: bool = False  # the data passed through a decoder (base64 -d, xxd -r, ...)
    kind: str = "shell_c"  # the context a program read from this content runs in


@dataclass(slots=True)
class Stdin:
    text: str
    kind: str  # "heredoc" | "herestring"


@dataclass(slots=True)
class Tail:
    """Redirections that tree-sitter attached to a list or pipeline but belong to its last command."""

    redirects: list[dict[str, Any]] = field(default_factory=list)
    stdin: Stdin | None = None
    extra_args: list[Field] = field(default_factory=list)
    piped: bool = False  # the command's output continues into a pipeline (here-doc quirk)


@dataclass(slots=True)
class State:
    cwd: str | None
    vars: dict[str, str | None]
    context: str
    depth: int
    # cwd came from a `cd` to a directory that does not exist (yet): it holds on the success
    # path of the current && chain, and is unknown once the statement ends or after `||`.
    tentative: bool = False

    def fork(self, context: str | None = None, deeper: bool = False) -> State:
        return State(self.cwd, dict(self.vars), context or self.context, self.depth + (1 if deeper else 0))

    def snapshot(self) -> tuple[str | None, dict[str, str | None]]:
        return self.cwd, dict(self.vars)

    def merge_uncertain(self, before: tuple[str | None, dict[str, str | None]]) -> None:
        """After code that may or may not have run: whatever it changed is now unknown."""
        cwd, vars_before = before
        if self.cwd != cwd:
            self.cwd = None
        for k in set(self.vars) | set(vars_before):
            if self.vars.get(k, "\x00") != vars_before.get(k, "\x00"):
                self.vars[k] = None


_ANSI_SIMPLE = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}


_HEX_ESCAPE = {e: re.compile(f"[0-9A-Fa-f]{{1,{w}}}") for e, w in (("x", 2), ("u", 4), ("U", 8))}


def decode_ansi_c(body: str) -> str | None:
    """Decode the inside of $'...' as bash does; None when an escape is malformed."""
    out: list[str] = []
    i = 0
    n = len(body)
    while i < n:
        c = body[i]
        if c != "\\" or i + 1 >= n:
            out.append(c)
            i += 1
            continue
        e = body[i + 1]
        if e in _ANSI_SIMPLE:
            out.append(_ANSI_SIMPLE[e])
            i += 2
        elif e in "01234567":
            m = re.match(r"[0-7]{1,3}", body[i + 1 :])
            assert m is not None
            out.append(chr(int(m.group(0), 8) & 0xFF))
            i += 1 + len(m.group(0))
        elif e in "xuU":
            m = _HEX_ESCAPE[e].match(body, i + 2)
            if not m:
                out.append("\\" + e)
                i += 2
                continue
            cp = int(m.group(0), 16)
            if cp > 0x10FFFF:
                return None
            out.append(chr(cp))
            i += 2 + len(m.group(0))
        elif e == "c" and i + 2 < n:
            out.append(chr(ord(body[i + 2]) & 0x1F))
            i += 3
        else:
            out.append("\\" + e)
            i += 2
    text = "".join(out)
    # bash stops a word at a NUL byte
    return text.split("\x00", 1)[0]


def _unescape_unquoted(text: str, out: list[Piece]) -> None:
    if "\\" not in text:
        out.append((text, LIT))
        return
    buf: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            if buf:
                out.append(("".join(buf), LIT))
                buf = []
            if text[i + 1] != "\n":
                out.append((text[i + 1], QUO))
            i += 2
            continue
        buf.append(c)
        i += 1
    if buf:
        out.append(("".join(buf), LIT))


def _unescape_dquoted(text: str) -> str:
    if "\\" not in text:
        return text
    return re.sub(r"\\([$`\"\\\n])", lambda m: "" if m.group(1) == "\n" else m.group(1), text)


def _brace_expand(chars: list[tuple[str, int]], budget: list[int]) -> list[list[tuple[str, int]]] | None:
    """Bash brace expansion over (char, kind) lists; only unquoted braces and commas count."""
    n = len(chars)
    for i in range(n):
        if chars[i] != ("{", LIT):
            continue
        depth = 0
        commas: list[int] = []
        close = -1
        for j in range(i + 1, n):
            ch = chars[j]
            if ch == ("{", LIT):
                depth += 1
            elif ch == ("}", LIT):
                if depth == 0:
                    close = j
                    break
                depth -= 1
            elif ch == (",", LIT) and depth == 0:
                commas.append(j)
        if close < 0:
            return [chars]
        prefix, suffix = chars[:i], chars[close + 1 :]
        alts: list[list[tuple[str, int]]] = []
        if commas:
            bounds = [i, *commas, close]
            alts = [chars[bounds[k] + 1 : bounds[k + 1]] for k in range(len(bounds) - 1)]
        else:
            inner = "".join(c for c, _ in chars[i + 1 : close])
            seq = _sequence(inner)
            if seq is None:
                rest = _brace_expand(chars[i + 1 :], budget)
                if rest is None:
                    return None
                return [chars[: i + 1] + r for r in rest]
            alts = [[(c, QUO) for c in item] for item in seq]
        results: list[list[tuple[str, int]]] = []
        for alt in alts:
            expanded = _brace_expand(prefix + alt + suffix, budget)
            if expanded is None:
                return None
            results.extend(expanded)
            budget[0] -= len(expanded)
            if budget[0] < 0:
                return None
        return results
    return [chars]


def _sequence(inner: str) -> list[str] | None:
    m = re.fullmatch(r"(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?", inner)
    if m:
        a, b = int(m.group(1)), int(m.group(2))
        step = abs(int(m.group(3) or 1)) or 1
        if abs(b - a) // step > MAX_BRACE:
            return None
        rng = range(a, b + 1, step) if a <= b else range(a, b - 1, -step)
        return [str(x) for x in rng]
    m = re.fullmatch(r"([A-Za-z])\.\.([A-Za-z])", inner)
    if m:
        a, b = ord(m.group(1)), ord(m.group(2))
        rng = range(a, b + 1) if a <= b else range(a, b - 1, -1)
        return [chr(x) for x in rng]
    return None


# --- command tables ---------------------------------------------------------------------

SHELLS = frozenset(
    {"sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "lksh", "pdksh", "yash", "posh", "rbash"}
)
_PYTHON = re.compile(r"^(?:python(?:[0-9][0-9.]*)?|pypy(?:3[0-9.]*)?)$")
NODES = frozenset({"node", "nodejs", "deno", "bun"})
OTHER_INTERPRETERS = {
    "perl": ("-e", "-E"),
    "ruby": ("-e",),
    "php": ("-r",),
    "lua": ("-e",),
    "luajit": ("-e",),
    "osascript": ("-e",),
    "pwsh": ("-c", "-command", "-Command", "-EncodedCommand", "-e", "-enc"),
    "powershell": ("-c", "-command", "-Command", "-EncodedCommand", "-e", "-enc"),
    "tclsh": (),
    "Rscript": ("-e",),
    "jshell": (),
    "groovy": ("-e",),
}
_DECODERS = frozenset(
    {"gunzip", "zcat", "bzcat", "xzcat", "unxz", "unzstd", "zstdcat", "uudecode", "rev", "lzcat"}
)
_DECODE_FLAG = {
    "base64": ("-d", "--decode", "-D"),
    "base32": ("-d", "--decode"),
    "basenc": ("-d", "--decode"),
    "xxd": ("-r", "-revert"),
    "gzip": ("-d", "--decompress"),
    "bzip2": ("-d", "--decompress"),
    "xz": ("-d", "--decompress"),
    "zstd": ("-d", "--decompress"),
    "lzma": ("-d",),
    "openssl": ("-d", "-base64", "-a"),
    "od": (),
}
_PASSTHROUGH = frozenset({"cat", "tee", "dd", "head", "tail"})


@dataclass(frozen=True)
class WrapSpec:
    value_short: str = ""  # short options that take a value
    value_long: frozenset[str] = frozenset()
    positional: int = 0  # leading positional arguments that are the wrapper's own
    assignments: bool = False  # NAME=value words before the command
    keep_flags: frozenset[str] = frozenset()  # options after which there is no command to unwrap
    numeric_option: bool = False  # nice -10


WRAPPERS: dict[str, WrapSpec] = {
    "sudo": WrapSpec(
        value_short="uUgpChDrtTR",
        value_long=frozenset(
            {"user", "group", "host", "prompt", "role", "type", "close-from", "chdir", "other-user"}
            | {"command-timeout", "chroot"}
        ),
        assignments=True,
        keep_flags=frozenset({"-e", "--edit", "-l", "--list", "-v", "--validate", "-k", "-K", "-V"}),
    ),
    "doas": WrapSpec(value_short="Cu"),
    "env": WrapSpec(),  # handled specially (-S, -C, -u, assignments)
    "nice": WrapSpec(value_short="n", value_long=frozenset({"adjustment"}), numeric_option=True),
    "nohup": WrapSpec(),
    "timeout": WrapSpec(value_short="ks", value_long=frozenset({"kill-after", "signal"}), positional=1),
    "time": WrapSpec(value_short="fo", value_long=frozenset({"format", "output"})),
    "xargs": WrapSpec(
        value_short="aEdILnPsR",
        value_long=frozenset(
            {"arg-file", "delimiter", "eof", "replace", "max-lines", "max-args", "max-procs", "max-chars"}
            | {"process-slot-var"}
        ),
    ),
    "command": WrapSpec(keep_flags=frozenset({"-v", "-V"})),
    "builtin": WrapSpec(),
    "exec": WrapSpec(value_short="a"),
    "stdbuf": WrapSpec(value_short="ioe", value_long=frozenset({"input", "output", "error"})),
    "ionice": WrapSpec(value_short="cnp", value_long=frozenset({"class", "classdata", "pid"})),
    "setsid": WrapSpec(),
    "busybox": WrapSpec(),
    "chroot": WrapSpec(value_long=frozenset({"userspec", "groups"}), positional=1),
    "taskset": WrapSpec(positional=1, keep_flags=frozenset({"-p", "--pid"})),
    "chrt": WrapSpec(positional=1, keep_flags=frozenset({"-p", "--pid"})),
    "unbuffer": WrapSpec(),
    "coproc": WrapSpec(),
    "proxychains": WrapSpec(value_short="f"),
    "proxychains4": WrapSpec(value_short="f"),
    "torsocks": WrapSpec(),
    "catchsegv": WrapSpec(),
    "strace": WrapSpec(value_short="eoOpsSuEPIXb"),
    "ltrace": WrapSpec(value_short="eoOpsSuEnAa"),
    "faketime": WrapSpec(positional=1),
    "firejail": WrapSpec(),
}
_BODY_C = {"su": "-c", "runuser": "-c", "script": "-c", "flock": "-c", "sg": "-c"}
_URL_TOOLS = frozenset({"curl", "wget", "http", "https", "httpie", "xh", "aria2c", "lynx", "links", "w3m"})
_SSH_VALUE_SHORT = "BbcDEeFIiJLlmOoPpQRSWw"
_NC = frozenset({"nc", "ncat", "netcat", "telnet", "ftp"})
_NC_VALUE_SHORT = "wpsiqxXecIOTWmMgGb"


def is_python(name: str) -> bool:
    return bool(_PYTHON.match(name))


def _is_flag(text: str) -> bool:
    return len(text) > 1 and text.startswith("-")


# Nodes whose text the walker reads itself (quotes, here-doc bodies): coverage counts them whole.
_TEXT_NODES = frozenset({"string", "raw_string", "ansi_c_string", "translated_string", "heredoc_body"})
_PLAIN_WORD_SAFE = frozenset("\\{~*?[")
_ARITH_PAYLOAD = re.compile(r"\[[^\]]*(?:\$\(|`)")
# Commands whose options are single-dash words (`find -name`): no cluster expansion.
_LONG_SINGLE_DASH = frozenset(
    {"find", "java", "ffmpeg", "ffprobe", "go", "gcc", "g++", "cc", "clang", "clang++"}
)


def expand_flags(text: str) -> list[str]:
    """`-rf` -> [-rf, -r, -f]; `--force=yes` -> [--force=yes, --force]; `-n5` -> [-n5, -n]."""
    if text.startswith("--"):
        head = text.split("=", 1)[0]
        return [text, head] if head != text and len(head) > 2 else [text]
    out = [text]
    letters = []
    for c in text[1:]:
        if not c.isalpha():
            break
        letters.append(c)
    if len(text) > 2 or (letters and len(letters) < len(text) - 1):
        for c in letters:
            f = "-" + c
            if f not in out:
                out.append(f)
    return out


def _basename(text: str) -> str:
    if text.endswith("/"):
        text = text.rstrip("/")
    return text.rpartition("/")[2] or text


# --- the walker -------------------------------------------------------------------------

_STATEMENTS = frozenset(
    {
        "program",
        "list",
        "pipeline",
        "redirected_statement",
        "command",
        "negated_command",
        "subshell",
        "compound_statement",
        "if_statement",
        "elif_clause",
        "else_clause",
        "while_statement",
        "for_statement",
        "c_style_for_statement",
        "case_statement",
        "case_item",
        "function_definition",
        "declaration_command",
        "unset_command",
        "variable_assignment",
        "variable_assignments",
        "test_command",
        "do_group",
    }
)
_CONDITIONAL = frozenset(
    {"if_statement", "while_statement", "for_statement", "c_style_for_statement", "case_statement"}
    | {"function_definition"}
)


# Commands whose arguments, input or output mean more than their argv (see Walker._after).
_SPECIAL = (
    SHELLS
    | NODES
    | frozenset(OTHER_INTERPRETERS)
    | _DECODERS
    | frozenset(_DECODE_FLAG)
    | frozenset(_BODY_C)
    | _PASSTHROUGH
    | frozenset(
        {"cd", "pushd", "popd", "read", "mapfile", "readarray", "getopts", "printf", "echo", "eval"}
        | {"source", ".", "trap", "find", "watch", "awk", "gawk", "mawk", "nawk", "busybox", "sed"}
        | {"gsed", "git", "ssh", "scp", "sftp", "rsync", "patch", "tr", "alias"}
    )
)


class Walker:
    def __init__(self, col: Collector, code_parser: Callable[..., None] | None = None) -> None:
        self.col = col
        self.code_parser = code_parser
        self.src = b""  # the original bytes of the program being walked
        self.nest = 0  # Python recursion used by the walk (a deeper tree is opaque, not a crash)

    # -- entry ---------------------------------------------------------------------------
    def run(self, text: str, st: State) -> Feed:
        """Parse and walk one shell program (a whole command, or a -c / eval / here-doc body)."""
        if st.depth > MAX_DEPTH:
            self.col.opaque("shell_too_deep")
            return Feed()
        if len(text) > MAX_SOURCE:
            self.col.opaque("shell_too_large")
            return Feed()
        src = text.encode("utf-8", "replace")
        if b"\x00" in src:
            # bash never sees past a NUL (and Hermes cannot pass one to a process)
            self.col.opaque("shell_nul")
        # The grammar's external scanner calls isalpha()/isdigit() on whole code points, which
        # reads out of bounds for non-ASCII input and can crash the process. Bash treats every
        # non-ASCII byte as a word character, so the parser is given an ASCII copy with each such
        # byte replaced by a letter or digit (same length, same offsets); texts are read from
        # the original bytes.
        tree = _parser().parse(src.translate(_ASCII_FOR_PARSER))
        root = tree.root_node
        outer = self.src
        self.src = src
        try:
            if root.has_error:
                self.col.opaque("shell_parse_error")
            self._gap_check(root, src)
            return self._sequence(root.children, st, Feed(), None, [])
        finally:
            self.src = outer

    def _gap_check(self, root: tree_sitter.Node, src: bytes) -> None:
        """Every non-blank byte must belong to some token: tree-sitter-bash occasionally drops
        a token instead of reporting an error, and a dropped token could hide anything."""
        pos = root.start_byte
        cursor = root.walk()
        visited_children = False
        while True:
            if not visited_children:
                node = cursor.node
                leaf = node is not None and (node.child_count == 0 or node.type in _TEXT_NODES)
                if node is not None and leaf:
                    if node.start_byte > pos:
                        gap = src[pos : node.start_byte]
                        if not gap.isspace():
                            self._check_gap(gap)
                    pos = max(pos, node.end_byte)
                if not leaf and cursor.goto_first_child():
                    continue
            if cursor.goto_next_sibling():
                visited_children = False
                continue
            if not cursor.goto_parent():
                break
            visited_children = True
        if pos < len(src) and not src[pos:].isspace():
            self._check_gap(src[pos:])

    def _check_gap(self, gap: bytes) -> None:
        stripped = gap.replace(b"\\\n", b"").strip()
        # A lone "-" before a here-doc is dropped by the grammar; _command puts it back.
        if stripped and stripped != b"-":
            self.col.opaque("shell_parse_gap")

    # -- statements ----------------------------------------------------------------------
    def _sequence(
        self,
        nodes: Sequence[tree_sitter.Node],
        st: State,
        feed: Feed,
        tail: Tail | None,
        inherited: list[dict[str, Any]],
    ) -> Feed:
        stmts = [n for n in nodes if n.is_named and n.type != "comment"]
        out = Feed()
        for i, node in enumerate(stmts):
            last = i == len(stmts) - 1
            out = self.visit(node, st, feed if i == 0 else Feed(), tail if last else None, inherited)
            if st.tentative:
                # `cd nowhere; rm x`: if the cd failed, rm ran where we were.
                st.cwd = None
                st.tentative = False
        return out

    def visit(
        self,
        node: tree_sitter.Node,
        st: State,
        feed: Feed,
        tail: Tail | None = None,
        inherited: list[dict[str, Any]] | None = None,
    ) -> Feed:
        if self.nest >= MAX_NESTING or not self.col.room_for_commands():
            self.col.opaque("shell_too_deep" if self.nest >= MAX_NESTING else "too_many_commands")
            return Feed()
        self.nest += 1
        try:
            return self._visit(node, st, feed, tail, inherited or [])
        finally:
            self.nest -= 1

    def _visit(
        self, node: tree_sitter.Node, st: State, feed: Feed, tail: Tail | None, inh: list[dict[str, Any]]
    ) -> Feed:
        t = node.type
        if t == "command":
            return self._command(node, st, feed, tail, inh)
        if t == "redirected_statement":
            return self._redirected(node, st, feed, tail, inh)
        if t == "pipeline":
            return self._pipeline(node.children, st, feed, tail, inh)
        if t == "list":
            return self._list(node, st, feed, tail, inh)
        if t == "compound_statement" and node.child_count and node.children[0].type == "((":
            self._arithmetic(node, st)
            return Feed()
        if t in ("program", "compound_statement", "do_group"):
            return self._sequence(node.children, st, feed, tail, inh)
        if t == "subshell":
            sub = st.fork("subshell" if st.context in ("top", "pipeline") else None)
            return self._sequence(node.children, sub, feed, tail, inh)
        if t == "negated_command":
            return self._sequence(node.children, st, feed, tail, inh)
        if t in ("variable_assignment", "variable_assignments"):
            self._assignments(node, st)
            return Feed()
        if t == "declaration_command":
            return self._declaration(node, st, inh)
        if t == "unset_command":
            return self._declaration(node, st, inh)
        if t in _CONDITIONAL:
            before = st.snapshot()
            if t == "for_statement":
                var = node.child_by_field_name("variable")
                if var is not None:
                    st.vars[self._text(var)] = None
            self._generic(node, st, inh)
            st.merge_uncertain(before)
            return Feed()
        self._generic(node, st, inh)
        return Feed()

    def _generic(self, node: tree_sitter.Node, st: State, inherited: list[dict[str, Any]]) -> None:
        if self.nest >= MAX_NESTING:
            self.col.opaque("shell_too_deep")
            return
        self.nest += 1
        try:
            self._generic_children(node, st, inherited)
        finally:
            self.nest -= 1

    def _generic_children(self, node: tree_sitter.Node, st: State, inherited: list[dict[str, Any]]) -> None:
        for child in node.children:
            if not child.is_named:
                continue
            ct = child.type
            if ct in _STATEMENTS:
                self.visit(child, st, Feed(), None, inherited)
            elif ct in ("command_substitution", "process_substitution"):
                self._substitution(child, st)
            elif ct in ("expansion", "simple_expansion", "arithmetic_expansion"):
                pieces: list[Piece] = []
                self._pieces(child, st, pieces, False)
            elif ct == "comment":
                continue
            else:
                self._generic(child, st, inherited)

    def _list(
        self, node: tree_sitter.Node, st: State, feed: Feed, tail: Tail | None, inh: list[dict[str, Any]]
    ) -> Feed:
        # a && b || c: later elements may not run, so what they change is uncertain afterwards
        # (but visible to the elements after them, which only run on that path).
        elems: list[tree_sitter.Node] = []
        ops: list[str] = []
        self._flatten_list(node, elems, ops)
        snapshots = []
        out = Feed()
        for i, elem in enumerate(elems):
            if i and i - 1 < len(ops) and ops[i - 1] == "||" and st.tentative:
                # what follows || runs when the cd before it failed
                st.cwd = None
                st.tentative = False
            out = self.visit(elem, st, feed if i == 0 else Feed(), tail if i == len(elems) - 1 else None, inh)
            snapshots.append(st.snapshot())
        if len(snapshots) > 1:
            first = snapshots[0]
            for snap in snapshots[1:]:
                if snap != first:
                    st.merge_uncertain(first)
                    break
        return out

    def _flatten_list(self, node: tree_sitter.Node, elems: list[tree_sitter.Node], ops: list[str]) -> None:
        """`a && b || c` is list(list(a, b), c) in the grammar: one chain of elements and operators
        (walked without recursion: a chain can be thousands of elements long)."""
        chain = [node]
        while True:
            first = next((c for c in chain[-1].children if c.is_named and c.type != "comment"), None)
            if first is None or first.type != "list":
                break
            chain.append(first)
        for depth, lst in enumerate(reversed(chain)):
            skipped = depth == 0  # the innermost list has no nested list to skip
            for child in lst.children:
                if child.type == "comment":
                    continue
                if not child.is_named:
                    ops.append(child.type)
                elif not skipped:
                    skipped = True  # the nested list, already flattened
                else:
                    elems.append(child)

    def _pipeline(
        self,
        children: Sequence[tree_sitter.Node],
        st: State,
        feed: Feed,
        tail: Tail | None,
        inh: list[dict[str, Any]],
    ) -> Feed:
        elems = [c for c in children if c.is_named and c.type != "comment"]
        context = "pipeline" if st.context == "top" else None
        out = feed
        for i, elem in enumerate(elems):
            # every element of a pipeline runs in its own subshell
            sub = st.fork(context)
            out = self.visit(elem, sub, out if i else feed, tail if i == len(elems) - 1 else None, inh)
        return out

    def _redirected(
        self, node: tree_sitter.Node, st: State, feed: Feed, tail: Tail | None, inh: list[dict[str, Any]]
    ) -> Feed:
        body = node.child_by_field_name("body")
        mine = Tail()
        continuation: list[tuple[str, tree_sitter.Node]] = []
        prev_end = node.start_byte
        raw = self._bytes(node)
        for child in node.children:
            if child.start_byte - prev_end > 1:
                gap = raw[prev_end - node.start_byte : child.start_byte - node.start_byte].strip()
                if gap == b"-":
                    mine.extra_args.append(Field("-"))
            prev_end = max(prev_end, child.end_byte)
            if child.type in ("file_redirect", "herestring_redirect"):
                self._redirect(child, st, mine)
            elif child.type == "heredoc_redirect":
                self._heredoc(child, st, mine, continuation)
        if tail is not None:
            mine.redirects.extend(tail.redirects)
            mine.stdin = mine.stdin or tail.stdin
            mine.extra_args.extend(tail.extra_args)
            mine.piped = mine.piped or tail.piped
        mine.piped = any(kind == "|" for kind, _ in continuation)
        if body is None:
            # A bare redirection (`> file`) still truncates or creates the file.
            self._emit([], {}, [], st, feed, [*inh, *mine.redirects], False, mine.stdin)
            out = Feed()
        elif body.type in ("command", "list", "pipeline", "redirected_statement", "negated_command"):
            out = self.visit(body, st, feed, mine, inh)
        else:
            # Redirections of a compound statement apply to every command inside it.
            out = self.visit(body, st, feed, None, [*inh, *mine.redirects])
        for kind, cont in continuation:
            if kind == "|":
                out = self._pipeline(
                    [cont], st.fork("pipeline" if st.context == "top" else None), out, None, inh
                )
            else:
                before = st.snapshot()
                out = self.visit(cont, st, Feed(), None, inh)
                st.merge_uncertain(before)
        return out

    # -- redirections --------------------------------------------------------------------
    def _redirect(self, node: tree_sitter.Node, st: State, into: Tail) -> None:
        if node.type == "herestring_redirect":
            words = [c for c in node.children if c.is_named]
            fields = [f for w in words for f in self.fields(w, st)]
            text = " ".join(f.text for f in fields)
            into.redirects.append({"op": "<<<", "fd": 0, "raw": text[:256], "path": "", "mode": "other"})
            if not any(f.dynamic for f in fields):
                into.stdin = Stdin(text + "\n", "herestring")
            elif any(f.decoded for f in fields):
                into.stdin = Stdin("", "decoded")
            else:
                into.stdin = Stdin("", "unknown")
            return
        op = ""
        fd: int | None = None
        dests: list[tree_sitter.Node] = []
        for i, child in enumerate(node.children):
            fname = node.field_name_for_child(i)
            if child.type == "file_descriptor":
                try:
                    fd = int(self._text(child))
                except ValueError:
                    fd = None
            elif fname == "destination":
                dests.append(child)
            elif not child.is_named:
                op = child.type
        if op.startswith("<") and fd is None:
            fd = 0
        elif fd is None:
            fd = 1
        if not dests:
            into.redirects.append({"op": op, "fd": fd, "raw": "", "path": "", "mode": "dup"})
            return
        target = self.fields(dests[0], st)
        for extra in dests[1:]:
            into.extra_args.extend(self.fields(extra, st))
        f = target[0] if target else Field("", dynamic=True)
        raw = f.text
        if op in (">&", "<&") and (raw.isdigit() or raw == "-"):
            into.redirects.append({"op": op, "fd": fd, "raw": raw, "path": "", "mode": "dup"})
            return
        mode = {">": "write", ">|": "write", "&>": "write", ">&": "write", "<>": "write"}.get(op, "")
        mode = mode or {">>": "append", "&>>": "append", "<": "read", "<&": "read"}.get(op, "other")
        path = ""
        if f.dynamic or len(target) != 1:
            if mode in ("write", "append"):
                self.col.opaque("shell_dynamic_redirect")
        else:
            path = self._resolve(raw, st)
        into.redirects.append({"op": op, "fd": fd, "raw": raw, "path": path, "mode": mode})
        if path:
            self.col.add_path(raw, path, self.col.arg, "redirect", mode if mode != "other" else "")
            for prefix, scheme in (("/dev/tcp/", "tcp"), ("/dev/udp/", "udp")):
                if raw.startswith(prefix):
                    host, _, port = raw[len(prefix) :].partition("/")
                    fact, _ = url.parse(
                        f"{scheme}://{host}:{port}" if port else f"{scheme}://{host}", self.col.arg
                    )
                    if fact is not None:
                        fact["raw"] = raw
                        self.col.add_url(fact)

    def _heredoc(
        self,
        node: tree_sitter.Node,
        st: State,
        into: Tail,
        continuation: list[tuple[str, tree_sitter.Node]],
    ) -> None:
        op = "<<"
        delim = ""
        body_node: tree_sitter.Node | None = None
        pending = ""
        for child in node.children:
            ct = child.type
            if ct in ("<<", "<<-"):
                op = ct
            elif ct == "heredoc_start":
                delim = self._text(child)
            elif ct == "heredoc_body":
                body_node = child
            elif ct in ("file_redirect", "herestring_redirect"):
                self._redirect(child, st, into)
            elif ct in ("|", "|&", "&&", "||", ";"):
                pending = "|" if ct.startswith("|") else ct
            elif ct == "pipeline":
                # `cat <<EOF | sh`: the grammar nests the rest of the pipeline in the here-doc.
                inner = [c for c in child.children if c.is_named]
                for c in inner:
                    continuation.append(("|", c))
            elif child.is_named and ct not in ("heredoc_end", "heredoc_content", "comment"):
                if pending == "|":
                    continuation.append(("|", child))
                elif pending:
                    continuation.append((pending, child))
                else:
                    into.extra_args.extend(self.fields(child, st))
                pending = ""
        quoted = any(q in delim for q in "'\"\\")
        text = ""
        if body_node is not None:
            text = self._text(body_node)
            if not quoted:
                # An unquoted here-doc expands $(...) and `...` when the shell reads it.
                self._generic(body_node, st, [])
                # `...` is not parsed inside here-doc bodies by the grammar: find it in the
                # text outside the $(...) the grammar did parse.
                plain = bytearray(self._bytes(body_node))
                for part in body_node.children:
                    if part.type != "heredoc_content":
                        a, b = part.start_byte - body_node.start_byte, part.end_byte - body_node.start_byte
                        plain[a:b] = b" " * (b - a)
                for m in re.finditer(r"(?<!\\)`([^`]*)`", plain.decode("utf-8", "replace")):
                    self._body(m.group(1), st, "command_substitution")
        if op == "<<-":
            text = "\n".join(line.lstrip("\t") for line in text.split("\n"))
        into.redirects.append({"op": op, "fd": 0, "raw": delim.strip("'\"\\"), "path": "", "mode": "other"})
        into.stdin = Stdin(text, "heredoc")

    # -- words ---------------------------------------------------------------------------
    def _bytes(self, node: tree_sitter.Node) -> bytes:
        return self.src[node.start_byte : node.end_byte]

    def _text(self, node: tree_sitter.Node) -> str:
        return self.src[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def fields(self, node: tree_sitter.Node, st: State) -> list[Field]:
        """Expand one word node into the fields bash would produce."""
        if node.type == "word":
            text = self._text(node)
            if _PLAIN_WORD_SAFE.isdisjoint(text):
                return [Field(text)]
        pieces: list[Piece] = []
        dynamic, decoded = self._pieces(node, st, pieces, False)
        if dynamic:
            return [Field(self._text(node), dynamic=True, decoded=decoded)]
        variants: list[list[Piece]] = [pieces]
        lit = "".join(text for text, kind in pieces if kind == LIT)
        if "{" in lit and "}" in lit:
            chars = [(c, kind) for text, kind in pieces for c in text]
            expanded = _brace_expand(chars, [MAX_BRACE])
            if expanded is None:
                return [Field(self._text(node), dynamic=True)]
            variants = [_merge(v) for v in expanded]
        out: list[Field] = []
        for v in variants:
            out.extend(self._finish(v, st))
        return out

    def _finish(self, pieces: list[Piece], st: State) -> list[Field]:
        # tilde expansion: an unquoted leading ~ up to the first unquoted slash
        if pieces and pieces[0][1] == LIT and pieces[0][0].startswith("~"):
            first = pieces[0][0]
            slash = first.find("/")
            if slash >= 0 or len(pieces) == 1:
                prefix = first if slash < 0 else first[:slash]
                home = st.vars.get("HOME", self.col.home) if "HOME" in st.vars else self.col.home
                if prefix == "~" and home is None:
                    return [Field("".join(p for p, _ in pieces), dynamic=True)]
                expanded, bad = paths.expand_tilde(prefix, home or "", st.cwd or "")
                if bad:
                    self.col.opaque(bad)
                    return [Field("".join(p for p, _ in pieces), dynamic=True)]
                pieces = [(expanded + ("" if slash < 0 else first[slash:]), QUO), *pieces[1:]]
        glob = any(kind != QUO and any(c in text for c in "*?[") for text, kind in pieces)
        if not any(kind == EXP for _, kind in pieces):
            return [Field("".join(p for p, _ in pieces), glob=glob)]
        if "IFS" in st.vars:
            return [Field("".join(p for p, _ in pieces), dynamic=True)]
        # word splitting of unquoted expansion results
        fields: list[str] = []
        cur: list[str] = []
        have = False
        for text, kind in pieces:
            if kind != EXP:
                cur.append(text)
                have = True
                continue
            parts = re.split(r"[ \t\n]+", text)
            for k, part in enumerate(parts):
                if k > 0:
                    if have or cur:
                        fields.append("".join(cur))
                    cur = []
                    have = False
                if part:
                    cur.append(part)
                    have = True
        if have or cur:
            fields.append("".join(cur))
        return [Field(f, glob=glob) for f in fields]

    def _pieces(self, node: tree_sitter.Node, st: State, out: list[Piece], quoted: bool) -> tuple[bool, bool]:
        """Append the pieces of a word to out; returns (dynamic, decoded)."""
        t = node.type
        if t in ("word", "number", "special_variable_name", "variable_name", "extglob_pattern", "regex"):
            text = self._text(node)
            self._payload_check(text)
            if quoted:
                out.append((_unescape_dquoted(text), QUO))
            else:
                _unescape_unquoted(text, out)
            return False, False
        if t == "raw_string":
            text = self._text(node)
            self._payload_check(text)
            out.append((text[1:-1] if len(text) >= 2 else "", QUO))
            return False, False
        if t == "ansi_c_string":
            text = self._text(node)
            decoded = decode_ansi_c(text[2:-1] if len(text) >= 3 else "")
            if decoded is None:
                self.col.opaque("shell_ansi_c_unresolved")
                return True, False
            out.append((decoded, QUO))
            return False, False
        if t in ("string", "translated_string"):
            return self._string(node, st, out)
        if t == "concatenation":
            dyn = dec = False
            for child in node.children:
                d, e = self._pieces(child, st, out, quoted)
                dyn, dec = dyn or d, dec or e
            return dyn, dec
        if t in ("simple_expansion", "expansion"):
            value = self._expansion(node, st)
            if value is None:
                return True, False
            out.append((value, QUO if quoted else EXP))
            return False, False
        if t == "command_substitution":
            return True, self._substitution(node, st)
        if t == "process_substitution":
            from_decoder = self._substitution(node, st)
            out.append(("/dev/fd/63", QUO))
            return False, from_decoder
        if t == "arithmetic_expansion":
            self._arithmetic(node, st)
            return True, False
        if t == "brace_expression":
            out.append((self._text(node), LIT))
            return False, False
        if t in ('"', "`", "$"):
            return False, False
        # anything else (ERROR, unusual nodes): not understood as a value
        if t == "ERROR":
            self.col.opaque("shell_parse_error")
        self._generic(node, st, [])
        return True, False

    def _payload_check(self, text: str) -> None:
        # `x='a[$(cmd)]'; echo $((x))`: bash runs cmd when it evaluates x arithmetically.
        if "[" in text and _ARITH_PAYLOAD.search(text):
            self.col.opaque("shell_arithmetic_payload")

    def _string(self, node: tree_sitter.Node, st: State, out: list[Piece]) -> tuple[bool, bool]:
        self._payload_check(self._text(node))
        dyn = dec = False
        children = node.children
        src_start = node.start_byte
        raw = self._bytes(node)
        pos = src_start + (2 if node.type == "translated_string" else 1)
        end = node.end_byte - 1
        for child in children:
            if child.type in ('"', '$"'):
                continue
            if child.start_byte > pos:
                gap = raw[pos - src_start : child.start_byte - src_start].decode("utf-8", "replace")
                out.append((_unescape_dquoted(gap), QUO))
            if child.type == "string_content":
                out.append((_unescape_dquoted(self._text(child)), QUO))
            else:
                d, e = self._pieces(child, st, out, True)
                dyn, dec = dyn or d, dec or e
            pos = max(pos, child.end_byte)
        if end > pos:
            gap = raw[pos - src_start : end - src_start].decode("utf-8", "replace")
            out.append((_unescape_dquoted(gap), QUO))
        return dyn, dec

    def _expansion(self, node: tree_sitter.Node, st: State) -> str | None:
        named = [c for c in node.children if c.is_named]
        if node.type == "simple_expansion":
            if len(named) != 1 or named[0].type != "variable_name":
                return None
            return self._lookup(self._text(named[0]), st)
        text = self._text(node)
        if "@P" in text.replace(" ", "") or re.search(r"@\s*P\s*}", text):
            self.col.opaque("shell_prompt_expansion")
        # any command substitution inside (${x:-$(cmd)}) may run
        for child in named:
            if child.type != "variable_name":
                self._generic_word(child, st)
        ops = [c for c in node.children if not c.is_named and c.type not in ("${", "}")]
        if ops or len(named) != 1 or named[0].type != "variable_name":
            return None
        return self._lookup(self._text(named[0]), st)

    def _generic_word(self, node: tree_sitter.Node, st: State) -> None:
        if node.type in ("command_substitution", "process_substitution"):
            self._substitution(node, st)
        elif node.type == "arithmetic_expansion":
            self._arithmetic(node, st)
        else:
            for child in node.children:
                if child.is_named:
                    self._generic_word(child, st)

    def _lookup(self, name: str, st: State) -> str | None:
        if name in st.vars:
            return st.vars[name]
        if name == "HOME":
            return self.col.home or None
        if name == "PWD":
            return st.cwd
        return None

    def _arithmetic(self, node: tree_sitter.Node, st: State) -> None:
        if "`" in self._text(node) or _contains(node, "command_substitution"):
            self.col.opaque("shell_arithmetic_substitution")
        self._generic(node, st, [])

    def _substitution(self, node: tree_sitter.Node, st: State) -> bool:
        """Walk the body of $(...), `...`, <(...) or >(...); True when its output was decoded."""
        kind = "process_substitution" if node.type == "process_substitution" else "command_substitution"
        sub = st.fork(kind, deeper=True)
        if sub.depth > MAX_DEPTH:
            self.col.opaque("shell_too_deep")
            return False
        text = self._text(node)
        if text.startswith("`"):
            inner = re.sub(r"\\([\\`$])", r"\1", text[1:-1] if text.endswith("`") else text[1:])
            out = self.run(inner, sub)
        else:
            out = self._sequence(node.children, sub, Feed(), None, [])
        if out.decoded:
            self.col.opaque("decode_and_run")
        return out.decoded

    def _body(self, text: str, st: State, context: str) -> Feed:
        sub = st.fork(context, deeper=True)
        return self.run(text, sub)

    # -- assignments and declarations ---------------------------------------------------
    def _assign_value(self, node: tree_sitter.Node, st: State) -> tuple[str, str | None]:
        name_node = node.child_by_field_name("name")
        value_node = node.child_by_field_name("value")
        name = self._text(name_node) if name_node is not None else ""
        if value_node is None:
            return name, ""
        fields = self.fields(value_node, st)
        if len(fields) == 1 and not fields[0].dynamic:
            return name, fields[0].text
        if not fields:
            return name, ""
        return name, None

    def _assignments(self, node: tree_sitter.Node, st: State) -> None:
        nodes = [node] if node.type == "variable_assignment" else [c for c in node.children if c.is_named]
        for n in nodes:
            if n.type != "variable_assignment":
                continue
            name, value = self._assign_value(n, st)
            if name:
                if "[" in name:
                    name = name.split("[", 1)[0]
                    value = None
                st.vars[name] = value

    def _declaration(self, node: tree_sitter.Node, st: State, inh: list[dict[str, Any]]) -> Feed:
        argv: list[Field] = []
        for child in node.children:
            if not child.is_named:
                argv.append(Field(child.type))
            elif child.type == "variable_assignment":
                name, value = self._assign_value(child, st)
                if node.type == "declaration_command" and name:
                    st.vars[name.split("[", 1)[0]] = value if "[" not in name else None
                argv.append(
                    Field(f"{name}={value}" if value is not None else self._text(child), value is None)
                )
            elif child.type == "variable_name":
                name = self._text(child)
                if node.type == "unset_command":
                    st.vars[name] = None
                argv.append(Field(name))
            else:
                argv.extend(self.fields(child, st))
        self._emit(argv, {}, [], st, Feed(), list(inh), False, None)
        return Feed(argv[0].text if argv else "")

    # -- commands ------------------------------------------------------------------------
    def _command(
        self, node: tree_sitter.Node, st: State, feed: Feed, tail: Tail | None, inh: list[dict[str, Any]]
    ) -> Feed:
        env: dict[str, str] = {}
        words: list[Field] = []
        own = Tail()
        cont: list[tuple[str, tree_sitter.Node]] = []
        prev_end = node.start_byte
        for child in node.children:
            start = child.start_byte
            # tree-sitter drops a lone "-" before a here-doc; put it back
            if start - prev_end > 1 and words and self.src[prev_end:start].strip() == b"-":
                words.append(Field("-"))
            prev_end = max(prev_end, child.end_byte)
            ct = child.type
            if ct == "command_name":
                inner = child.named_children
                head = inner[0] if inner else child
                if head.type == "word" and _PLAIN_WORD_SAFE.isdisjoint(text := self._text(head)):
                    words.append(Field(text))
                else:
                    words.extend(self.fields(head, st))
            elif ct == "variable_assignment" and not words:
                name, value = self._assign_value(child, st)
                env[name] = value if value is not None else self._text(child).partition("=")[2]
            elif ct in ("file_redirect", "herestring_redirect"):
                self._redirect(child, st, own)
            elif ct == "heredoc_redirect":
                self._heredoc(child, st, own, cont)
            elif ct == "word" and _PLAIN_WORD_SAFE.isdisjoint(text := self._text(child)):
                words.append(Field(text))
            elif child.is_named and ct != "comment":
                words.extend(self.fields(child, st))
            if len(words) > MAX_FIELDS:
                self.col.opaque("shell_too_many_words")
                break
        words.extend(own.extra_args)
        redirects = [*inh, *own.redirects]
        stdin = own.stdin
        if tail is not None:
            words.extend(tail.extra_args)
            redirects.extend(tail.redirects)
            stdin = stdin or tail.stdin
            if tail.piped:
                # `cat <<EOF | sh`: this command is the head of a pipeline (its own subshell)
                st = st.fork("pipeline" if st.context == "top" else None)
        if cont:
            out = self._emit(words, env, [], st, feed, redirects, False, stdin)
            for kind, nxt in cont:
                if kind == "|":
                    out = self._pipeline(
                        [nxt], st.fork("pipeline" if st.context == "top" else None), out, None, inh
                    )
                else:
                    before = st.snapshot()
                    out = self.visit(nxt, st, Feed(), None, inh)
                    st.merge_uncertain(before)
            return out
        return self._emit(words, env, [], st, feed, redirects, False, stdin)

    def _emit(
        self,
        argv_in: list[Field],
        env: dict[str, str],
        wrappers_in: list[str],
        st: State,
        feed: Feed,
        redirects: list[dict[str, Any]],
        dynamic_in: bool,
        stdin: Stdin | None,
    ) -> Feed:
        argv, wrappers, env2, dynamic, cwd = self._unwrap(argv_in, st)
        wrappers = [*wrappers_in, *wrappers]
        env = {**env, **env2}
        dynamic = dynamic or dynamic_in
        name = ""
        if argv:
            head = argv[0]
            if head.dynamic:
                dynamic = True
                self.col.opaque("decode_and_run" if head.decoded else "shell_dynamic_command")
            elif head.glob:
                dynamic = True
                self.col.opaque("shell_glob_command")
            name = _basename(head.text)
        if any(f.dynamic for f in argv[1:]):
            dynamic = True
        flags: list[str] = []
        operands: list[str] = []
        operand_fields: list[Field] = []
        end = False
        for f in argv[1:]:
            if not end and f.text == "--" and not f.dynamic:
                end = True
                continue
            if not end and not f.dynamic and _is_flag(f.text):
                for x in [f.text] if name in _LONG_SINGLE_DASH else expand_flags(f.text):
                    if x not in flags:
                        flags.append(x)
            else:
                operands.append(f.text)
                operand_fields.append(f)
        cmd_cwd = cwd if cwd is not None else st.cwd
        operand_paths = [self._operand_path(f, cmd_cwd) for f in operand_fields]
        command = {
            "name": name,
            "argv": [f.text for f in argv],
            "flags": flags,
            "operands": operands,
            "operand_paths": operand_paths,
            "env": env,
            "redirects": redirects,
            "wrappers": wrappers,
            "context": st.context,
            "depth": st.depth,
            "pipe_from": feed.name,
            "dynamic": dynamic,
        }
        if not self.col.add_command(command):
            return Feed(name)
        self._urls(name, argv, operands)
        return self._after(name, argv, flags, operand_fields, st, feed, stdin, cmd_cwd)

    def _operand_path(self, f: Field, cwd: str | None) -> str:
        if f.dynamic or not f.text or paths.problem(f.text):
            return ""
        if not f.text.startswith("/") and cwd is None:
            self.col.opaque("shell_dynamic_cwd")
            return ""
        return paths.resolve(f.text, cwd or "/", self.col.cache)

    def _resolve(self, text: str, st: State) -> str:
        if paths.problem(text):
            self.col.opaque(paths.problem(text))
            return ""
        if not text.startswith("/") and st.cwd is None:
            self.col.opaque("shell_dynamic_cwd")
            return ""
        return paths.resolve(text, st.cwd or "/", self.col.cache)

    # -- wrappers ------------------------------------------------------------------------
    def _unwrap(
        self, argv: list[Field], st: State
    ) -> tuple[list[Field], list[str], dict[str, str], bool, str | None]:
        wrappers: list[str] = []
        env: dict[str, str] = {}
        dynamic = False
        cwd: str | None = None
        while argv and not argv[0].dynamic:
            name = _basename(argv[0].text)
            spec = WRAPPERS.get(name)
            if spec is None:
                break
            if name == "env":
                rest, env_more, chdir, ok = self._unwrap_env(argv)
                if not ok:
                    break
                env.update(env_more)
                if chdir is not None:
                    cwd = chdir
            else:
                rest_opt = self._unwrap_generic(argv, spec)
                if rest_opt is None:
                    break
                rest = rest_opt
                if spec.assignments:
                    while (
                        rest and not rest[0].dynamic and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", rest[0].text)
                    ):
                        k, _, v = rest[0].text.partition("=")
                        env[k] = v
                        rest = rest[1:]
            if not rest:
                break
            if name == "xargs":
                dynamic = True  # arguments come from standard input
            wrappers.append(name)
            argv = rest
        if cwd is not None and not cwd.startswith("/"):
            cwd = paths.resolve(cwd, st.cwd, self.col.cache) if st.cwd else None
        return argv, wrappers, env, dynamic, cwd

    def _unwrap_generic(self, argv: list[Field], spec: WrapSpec) -> list[Field] | None:
        i = 1
        n = len(argv)
        while i < n:
            a = argv[i].text
            if argv[i].dynamic:
                return None
            if a == "--":
                i += 1
                break
            if a in spec.keep_flags:
                return None
            if a.startswith("--") and len(a) > 2:
                key = a[2:].split("=", 1)[0]
                i += 2 if key in spec.value_long and "=" not in a else 1
                continue
            if spec.numeric_option and re.fullmatch(r"-\d+", a):
                i += 1
                continue
            if a.startswith("-") and len(a) > 1:
                if any(f"-{c}" in spec.keep_flags for c in a[1:]):
                    return None
                takes = next((k for k, c in enumerate(a[1:]) if c in spec.value_short), -1)
                i += 2 if takes >= 0 and takes == len(a) - 2 else 1
                continue
            break
        i += spec.positional
        return argv[i:] if i < n else []

    def _unwrap_env(self, argv: list[Field]) -> tuple[list[Field], dict[str, str], str | None, bool]:
        env: dict[str, str] = {}
        chdir: str | None = None
        i = 1
        n = len(argv)
        out_argv = argv
        while i < n:
            f = argv[i]
            a = f.text
            if f.dynamic:
                return argv, env, chdir, False
            if a in ("-i", "-", "--ignore-environment", "-0", "--null", "-v", "--debug"):
                i += 1
            elif a in ("-u", "--unset"):
                i += 2
            elif a.startswith(("--unset=", "-u")):
                i += 1
            elif a in ("-C", "--chdir"):
                chdir = argv[i + 1].text if i + 1 < n else None
                i += 2
            elif a.startswith("--chdir="):
                chdir = a.split("=", 1)[1]
                i += 1
            elif a in ("-S", "--split-string") or a.startswith(("--split-string=", "-S")):
                if a in ("-S", "--split-string"):
                    s = argv[i + 1].text if i + 1 < n else ""
                    i += 2
                else:
                    s = a.split("=", 1)[1] if a.startswith("--") else a[2:]
                    i += 1
                split = [Field(x) for x in s.split()]
                out_argv = [argv[0], *split, *argv[i:]]
                return self._unwrap_env(out_argv)
            elif a == "--":
                i += 1
                break
            elif a.startswith("-") and len(a) > 1:
                i += 1
            else:
                break
        while i < n and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", argv[i].text) and not argv[i].dynamic:
            k, _, v = argv[i].text.partition("=")
            env[k] = v
            i += 1
        return argv[i:], env, chdir, True

    # -- what a command does beyond itself ----------------------------------------------
    def _after(
        self,
        name: str,
        argv: list[Field],
        flags: list[str],
        operands: list[Field],
        st: State,
        feed: Feed,
        stdin: Stdin | None,
        cwd: str | None,
    ) -> Feed:
        if name not in _SPECIAL and not is_python(name):
            # the common case: nothing to parse further, output unknown but not decoded
            return Feed(name, None, feed.decoded)
        decoded = feed.decoded or self._is_decoder(name, argv)
        if name in ("cd", "pushd"):
            self._cd(operands, st)
        elif name == "popd":
            st.cwd = None
        elif name in ("read", "mapfile", "readarray", "getopts"):
            for f in operands:
                st.vars[f.text] = None
        if name == "printf" and "-v" in flags:
            for i, f in enumerate(argv[:-1]):
                if f.text == "-v":
                    st.vars[argv[i + 1].text] = None
        sub = State(cwd, st.vars, st.context, st.depth)
        if name in SHELLS:
            self._shell_invocation(argv, sub, feed, stdin)
        elif is_python(name):
            self._python_invocation(argv, sub, feed, stdin)
        elif name in NODES:
            self._node_invocation(argv, sub, feed, stdin)
        elif name in OTHER_INTERPRETERS:
            self._other_interpreter(name, argv, feed, stdin)
        elif name in ("eval",):
            self._eval(argv[1:], sub)
        elif name in ("source", "."):
            self._source(operands, sub, feed, stdin)
        elif name == "trap" and operands and not {"-l", "-p"} & set(flags):
            body = operands[0]
            if body.dynamic:
                self.col.opaque("shell_dynamic_body")
            elif body.text not in ("-", ""):
                self._body(body.text, sub, "eval")
        elif name == "alias":
            # only with `shopt -s expand_aliases`, but then `alias ls='rm -rf /'; ls` runs it
            for f in operands:
                if "=" in f.text and not f.dynamic:
                    self._body(f.text.partition("=")[2], sub, "eval")
        elif name == "find":
            self._find(argv, sub)
        elif name == "watch":
            self._watch(argv, sub)
        elif name in _BODY_C:
            self._body_c(name, argv, sub)
        elif name in ("awk", "gawk", "mawk", "nawk", "busybox"):
            self._awk(argv)
        elif name in ("sed", "gsed"):
            self._sed(argv)
        elif name == "git":
            self._git(argv)
        elif name in ("ssh", "scp", "sftp", "rsync"):
            self._ssh_options(argv)
        if stdin is not None and stdin.kind != "decoded" and name in ("patch", "git") and stdin.text:
            self._patch_stdin(name, argv, stdin.text, cwd)
        # What this command writes to its standard output, for the next one in a pipeline.
        content: str | None = None
        if name in ("echo", "printf") and any(f.dynamic for f in argv[1:]):
            # text built from values we cannot see: a shell reading it runs unknown code
            return Feed(name, None, decoded or any(f.decoded for f in argv[1:]), "unknown")
        if name == "echo":
            opts = [f.text for f in argv[1:] if re.fullmatch(r"-[neE]+", f.text)]
            words = [f.text for f in argv[1 + len(opts) :]]
            text = " ".join(words)
            if any("e" in o for o in opts) and "\\" in text:
                decoded = True
            else:
                content = text + ("" if any("n" in o for o in opts) else "\n")
        elif name == "printf" and len(argv) == 2:
            if "\\" in argv[1].text or "%" in argv[1].text:
                decoded = True
            else:
                content = argv[1].text
        elif name in _PASSTHROUGH and not [f for f in operands if f.text != "-"]:
            if stdin is not None and stdin.kind == "unknown":
                return Feed(name, None, decoded, "unknown")
            if stdin is not None and stdin.kind != "decoded":
                return Feed(name, stdin.text, decoded, "heredoc")
            if stdin is not None:
                decoded = True
            else:
                return Feed(name, feed.content, decoded, feed.kind)
        return Feed(name, content, decoded)

    def _is_decoder(self, name: str, argv: list[Field]) -> bool:
        if name in _DECODERS:
            return True
        if name == "tr":
            return True
        want = _DECODE_FLAG.get(name)
        if want is None:
            return False
        texts = [f.text for f in argv[1:]]
        if name == "openssl":
            return any(t in ("enc", "base64") for t in texts) and any(
                t in ("-d", "-a", "-base64") for t in texts
            )
        for t in texts:
            if t in want:
                return True
            if t.startswith("-") and not t.startswith("--") and any(f"-{c}" in want for c in t[1:]):
                return True
        return False

    def _cd(self, operands: list[Field], st: State) -> None:
        targets = [f for f in operands if not (f.text.startswith("-") and f.text not in ("-",))]
        if not targets:
            st.cwd = self.col.home or None
            return
        f = targets[0]
        if f.dynamic or f.text == "-" or paths.problem(f.text):
            st.cwd = None
            return
        if not f.text.startswith("/") and st.cwd is None:
            return
        target = paths.resolve(f.text, st.cwd or "/", self.col.cache)
        st.tentative = st.tentative or not os.path.isdir(target)
        st.cwd = target

    def _stdin_program(self, feed: Feed, stdin: Stdin | None) -> tuple[str | None, str, bool]:
        """(program text, context, decoded) for an interpreter that reads its program from stdin."""
        if stdin is not None:
            if stdin.kind in ("decoded", "unknown"):
                return None, stdin.kind, stdin.kind == "decoded"
            return stdin.text, "heredoc", False
        if feed.decoded:
            return None, "", True
        if feed.kind == "unknown":
            return None, "unknown", False
        if feed.content is not None:
            return feed.content, feed.kind, False
        return None, "", False

    def _program_from_stdin(self, feed: Feed, stdin: Stdin | None) -> tuple[str | None, str]:
        """The program an interpreter reads from stdin, or None (opacity already recorded)."""
        program, context, decoded = self._stdin_program(feed, stdin)
        if decoded:
            self.col.opaque("decode_and_run")
            return None, ""
        if context == "unknown":
            self.col.opaque("shell_dynamic_body")
            return None, ""
        return program, context

    def _shell_invocation(self, argv: list[Field], st: State, feed: Feed, stdin: Stdin | None) -> None:
        i = 1
        c_mode = s_mode = False
        n = len(argv)
        while i < n:
            a = argv[i].text
            if argv[i].dynamic:
                break
            if a in ("--", "-"):
                i += 1
                s_mode = s_mode or a == "-"
                break
            if a in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
                i += 2
                continue
            if a.startswith("--"):
                i += 1
                continue
            if len(a) > 1 and a[0] in "-+":
                c_mode = c_mode or (a[0] == "-" and "c" in a[1:])
                s_mode = s_mode or (a[0] == "-" and "s" in a[1:])
                i += 1
                continue
            break
        rest = argv[i:]
        if c_mode:
            if not rest:
                return
            body = rest[0]
            if body.dynamic:
                self.col.opaque("decode_and_run" if body.decoded else "shell_dynamic_body")
                return
            self._body(body.text, st, "shell_c")
            return
        if rest and not s_mode:
            script = rest[0]
            if script.decoded:
                self.col.opaque("decode_and_run")
            elif script.text in ("/dev/stdin", "/proc/self/fd/0", "/dev/fd/0"):
                self._run_stdin_shell(st, feed, stdin)
            return
        self._run_stdin_shell(st, feed, stdin)

    def _run_stdin_shell(self, st: State, feed: Feed, stdin: Stdin | None) -> None:
        program, context = self._program_from_stdin(feed, stdin)
        if program is not None:
            self._body(program, st, context)

    def _python_invocation(self, argv: list[Field], st: State, feed: Feed, stdin: Stdin | None) -> None:
        i = 1
        n = len(argv)
        while i < n:
            f = argv[i]
            a = f.text
            if f.dynamic:
                self.col.opaque("decode_and_run" if f.decoded else "shell_dynamic_body")
                return
            if a == "-c" or (a.startswith("-") and not a.startswith("--") and a.endswith("c") and len(a) > 2):
                if i + 1 >= n:
                    return
                body = argv[i + 1]
                if body.dynamic:
                    self.col.opaque("decode_and_run" if body.decoded else "shell_dynamic_body")
                    return
                self._python_body(body.text, st, "python_c")
                return
            if a.startswith("-c") and len(a) > 2:
                self._python_body(a[2:], st, "python_c")
                return
            if a in ("-m",) or (a.startswith("-m") and len(a) > 2):
                return
            if a in ("-W", "-X", "-Q", "--check-hash-based-pycs"):
                i += 2
                continue
            if a == "-":
                break
            if a.startswith("-"):
                i += 1
                continue
            if f.decoded:
                self.col.opaque("decode_and_run")
            elif a in ("/dev/stdin", "/proc/self/fd/0", "/dev/fd/0"):
                break
            return  # a script file
        program, _context = self._program_from_stdin(feed, stdin)
        if program is not None:
            self._python_body(program, st, "python_c")

    def _python_body(self, text: str, st: State, context: str) -> None:
        if st.depth + 1 > MAX_DEPTH:
            self.col.opaque("shell_too_deep")
            return
        if self.code_parser is None:
            self.col.opaque("python_not_parsed")
            return
        self.code_parser(self.col, text, st.cwd, st.depth + 1, context)

    def _node_invocation(self, argv: list[Field], st: State, feed: Feed, stdin: Stdin | None) -> None:
        for i, f in enumerate(argv[1:], start=1):
            if f.text in ("-e", "--eval", "-p", "--print") or f.text.startswith(("--eval=", "--print=")):
                body = (
                    argv[i + 1]
                    if "=" not in f.text and i + 1 < len(argv)
                    else Field(f.text.partition("=")[2])
                )
                self._js_body(body, st)
                return
            if not f.text.startswith("-"):
                if f.decoded:
                    self.col.opaque("decode_and_run")
                return
        program, _c = self._program_from_stdin(feed, stdin)
        if program is not None:
            self._js_body(Field(program), st)

    def _js_body(self, body: Field, st: State) -> None:
        """JavaScript is not parsed: the body is opaque, but commands passed to child_process
        as string literals and URL literals are still exposed."""
        self.col.opaque("node_e")
        if body.dynamic:
            self.col.opaque("decode_and_run" if body.decoded else "shell_dynamic_body")
            return
        for m in re.finditer(
            r"\b(?:exec|execSync|spawn|spawnSync|execFile|execFileSync)\s*\(\s*(['\"`])((?:(?!\1)[^\\]|\\.)*)\1",
            body.text,
        ):
            self._body(m.group(2), st, "node_e")
        for fact in url.find_in_text(body.text, self.col.arg):
            self.col.add_url(fact)

    def _other_interpreter(self, name: str, argv: list[Field], feed: Feed, stdin: Stdin | None) -> None:
        opts = OTHER_INTERPRETERS[name]
        short = {o[1] for o in opts if len(o) == 2}
        for f in argv[1:]:
            a = f.text
            if a in opts or (a.startswith("-") and not a.startswith("--") and short & set(a[1:])):
                self.col.opaque(f"{name.lower()}_e")
                return
            if not a.startswith("-"):
                if f.decoded:
                    self.col.opaque("decode_and_run")
                return
        program, _c = self._program_from_stdin(feed, stdin)
        if program is not None:
            self.col.opaque(f"{name.lower()}_e")

    def _eval(self, args: list[Field], st: State) -> None:
        if not args:
            return
        if any(f.dynamic for f in args):
            self.col.opaque("decode_and_run" if any(f.decoded for f in args) else "shell_dynamic_eval")
            return
        self._body(" ".join(f.text for f in args), st, "eval")

    def _source(self, operands: list[Field], st: State, feed: Feed, stdin: Stdin | None) -> None:
        if not operands:
            return
        f = operands[0]
        if f.decoded:
            self.col.opaque("decode_and_run")
        elif f.dynamic:
            self.col.opaque("shell_dynamic_source")
        elif f.text in ("/dev/stdin", "/proc/self/fd/0", "/dev/fd/0", "-"):
            self._run_stdin_shell(st, feed, stdin)

    def _find(self, argv: list[Field], st: State) -> None:
        i = 1
        n = len(argv)
        while i < n:
            a = argv[i].text
            if a in ("-exec", "-execdir", "-ok", "-okdir"):
                j = i + 1
                while j < n and argv[j].text not in (";", "+"):
                    j += 1
                sub_argv = argv[i + 1 : j]
                if sub_argv:
                    sub = st.fork(None, deeper=True)
                    if sub.depth > MAX_DEPTH:
                        self.col.opaque("shell_too_deep")
                        return
                    self._emit_argv(sub_argv, sub, ["find"])
                i = j + 1
                continue
            i += 1

    def _emit_argv(self, argv: list[Field], st: State, wrappers: list[str]) -> None:
        """A command given as an argument vector (find -exec, code's subprocess lists)."""
        self._emit_plain(argv, st, wrappers)

    def _emit_plain(self, argv: list[Field], st: State, wrappers: list[str]) -> Feed:
        return self._emit(argv, {}, wrappers, st, Feed(), [], False, None)

    def _watch(self, argv: list[Field], st: State) -> None:
        i = 1
        value_opts = {"-n", "--interval", "-d", "--differences", "-q", "--equexit"}
        while i < len(argv) and argv[i].text.startswith("-"):
            i += 2 if argv[i].text in value_opts and argv[i].text not in ("-d",) else 1
        rest = argv[i:]
        if not rest:
            return
        if any(f.dynamic for f in rest):
            self.col.opaque("shell_dynamic_body")
            return
        self._body(" ".join(f.text for f in rest), st, "shell_c")

    def _body_c(self, name: str, argv: list[Field], st: State) -> None:
        flag = _BODY_C[name]
        for i, f in enumerate(argv[1:], start=1):
            if f.text in (flag, "--command") and i + 1 < len(argv):
                body = argv[i + 1]
                if body.dynamic:
                    self.col.opaque("decode_and_run" if body.decoded else "shell_dynamic_body")
                else:
                    self._body(body.text, st, "shell_c")
                return
            if f.text.startswith("--command="):
                self._body(f.text.split("=", 1)[1], st, "shell_c")
                return

    def _awk(self, argv: list[Field]) -> None:
        for f in argv[1:]:
            t = f.text
            if re.search(r"\bsystem\s*\(|\|\s*getline|\|&|print[f]?[^;{}]*\|\s*[\"a-zA-Z_]", t):
                self.col.opaque("awk_exec")
                return

    def _sed(self, argv: list[Field]) -> None:
        for f in argv[1:]:
            t = f.text
            if re.search(r"(?:^|[;\n{}])\s*e(?:\s|$|;)", t) or re.search(
                r"(?:^|[;\n{}])\s*s(.)(?:(?!\1).|\\.)*\1(?:(?!\1).|\\.)*\1[gpiImMw0-9]*e", t
            ):
                self.col.opaque("sed_exec")
                return

    def _git(self, argv: list[Field]) -> None:
        for i, f in enumerate(argv[1:], start=1):
            t = f.text
            value = ""
            if t == "-c" and i + 1 < len(argv):
                value = argv[i + 1].text
            elif t.startswith("-c") and len(t) > 2:
                value = t[2:]
            elif t.startswith("--config-env"):
                value = t
            if value and re.search(
                r"(?i)(?:^alias\..*=\s*!|sshcommand|\.pager|core\.editor|hookspath|fsmonitor|gpg\.program"
                r"|credential\.helper|diff\..*\.textconv|filter\..*\.(?:clean|smudge|process)|core\.askpass)",
                value,
            ):
                self.col.opaque("git_config_exec")
                return

    def _ssh_options(self, argv: list[Field]) -> None:
        for i, f in enumerate(argv[1:], start=1):
            t = f.text
            nxt = argv[i + 1].text if i + 1 < len(argv) else ""
            value = nxt if t == "-o" else t[2:] if t.startswith("-o") else ""
            if t == "-e" and nxt:  # rsync -e "ssh -o ProxyCommand=..."
                value = nxt
            if re.search(r"(?i)(proxycommand|localcommand|permitlocalcommand|knownhostscommand)", value):
                self.col.opaque("ssh_command_option")
                return

    def _patch_stdin(self, name: str, argv: list[Field], text: str, cwd: str | None) -> None:
        from opafence.facts import patch

        texts = [f.text for f in argv[1:]]
        if name == "git" and (not texts or texts[0] != "apply"):
            return
        level: int | None = None
        for t in texts:
            m = re.fullmatch(r"-p(\d+)", t)
            if m:
                level = int(m.group(1))
        if name == "git" and level is None:
            level = 1
        for raw, op in patch.parse_patch(text, level):
            if cwd is None and not raw.startswith("/"):
                self.col.opaque("shell_dynamic_cwd")
                continue
            if paths.problem(raw):
                continue
            self.col.add_path(raw, paths.resolve(raw, cwd or "/", self.col.cache), self.col.arg, "patch", op)

    # -- URLs ----------------------------------------------------------------------------
    def _urls(self, name: str, argv: list[Field], operands: list[str]) -> None:
        for f in argv[1:]:
            if "://" in f.text and not f.dynamic:
                for found in url.find_in_text(f.text, self.col.arg):
                    self.col.add_url(found)
        if name in _URL_TOOLS:
            for op in operands:
                if "://" not in op and url.looks_like_host(op):
                    fact, _ = url.parse(op, self.col.arg, default_scheme="http")
                    if fact is not None:
                        self.col.add_url(fact)
        elif name in ("scp", "rsync", "sftp"):
            for op in operands:
                if ":" in op and "://" not in op:
                    scheme = "rsync" if "::" in op else "ssh"
                    fact, _ = url.remote_target(op.replace("::", ":", 1), self.col.arg, scheme)
                    if fact is not None:
                        self.col.add_url(fact)
        elif name in ("ssh", "mosh", "autossh"):
            target = self._ssh_target(argv)
            if target:
                fact, _ = url.remote_target(target, self.col.arg, "ssh")
                if fact is not None:
                    self.col.add_url(fact)
        elif name == "git":
            for op in operands:
                if "://" not in op and re.match(r"^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:", op):
                    fact, _ = url.remote_target(op, self.col.arg, "ssh")
                    if fact is not None:
                        self.col.add_url(fact)
        elif name in _NC:
            positional = self._positional(argv, _NC_VALUE_SHORT)
            if positional:
                fact, _ = url.remote_target(positional[0], self.col.arg, "tcp")
                if fact is not None:
                    port = positional[1] if len(positional) > 1 else ""
                    fact["port"] = int(port) if port.isdigit() and int(port) < 65536 else None
                    self.col.add_url(fact)
        elif name == "socat":
            for op in operands:
                m = re.match(r"(?i)^(?:tcp[46]?|udp[46]?|openssl|ssl)(?:-connect)?:([^:,]+):(\d+)", op)
                if m:
                    fact, _ = url.parse(f"tcp://{m.group(1)}:{m.group(2)}", self.col.arg)
                    if fact is not None:
                        fact["raw"] = op
                        self.col.add_url(fact)

    def _positional(self, argv: list[Field], value_short: str) -> list[str]:
        """Operands of a command whose short options in value_short take a value."""
        out: list[str] = []
        i = 1
        while i < len(argv):
            t = argv[i].text
            if t.startswith("-") and len(t) > 1 and not out:
                i += 2 if len(t) == 2 and t[1] in value_short else 1
                continue
            out.append(t)
            i += 1
        return out

    def _ssh_target(self, argv: list[Field]) -> str:
        i = 1
        while i < len(argv):
            t = argv[i].text
            if t == "--":
                i += 1
                break
            if t.startswith("-") and len(t) > 1:
                i += 2 if t[-1] in _SSH_VALUE_SHORT and len(t) == 2 else 1
                continue
            break
        return argv[i].text if i < len(argv) and not argv[i].dynamic else ""


def _contains(node: tree_sitter.Node, kind: str) -> bool:
    stack = list(node.children)
    while stack:
        n = stack.pop()
        if n.type == kind:
            return True
        stack.extend(n.children)
    return False


def _merge(chars: list[tuple[str, int]]) -> list[Piece]:
    out: list[Piece] = []
    for c, kind in chars:
        if out and out[-1][1] == kind:
            out[-1] = (out[-1][0] + c, kind)
        else:
            out.append((c, kind))
    return out


# --- public API -------------------------------------------------------------------------


def parse_into(
    col: Collector,
    text: str,
    cwd: str | None,
    depth: int = 0,
    context: str = "top",
    code_parser: Callable[..., None] | None = None,
) -> None:
    """Parse a shell program into col (commands, redirect paths, URLs, opacity)."""
    if code_parser is None:
        from opafence.facts import code as code_module

        code_parser = code_module.parse_into
    scope = col.push("shell")
    try:
        st = State(cwd, {}, context, depth)
        Walker(col, code_parser).run(text, st)
    finally:
        col.pop(scope)


def parse_argv_into(
    col: Collector,
    argv: list[str],
    cwd: str | None,
    depth: int,
    context: str,
    code_parser: Callable[..., None] | None = None,
) -> None:
    """A command given as a literal argument vector (subprocess.run(["rm", "-rf", x]))."""
    if code_parser is None:
        from opafence.facts import code as code_module

        code_parser = code_module.parse_into
    scope = col.push("shell")
    try:
        st = State(cwd, {}, context, depth)
        Walker(col, code_parser)._emit_plain([Field(a) for a in argv], st, [])
    finally:
        col.pop(scope)


def parse(text: str, cwd: str, home: str) -> dict[str, Any]:
    """Stand-alone: a shell program -> the `shell` facts object (for tests and `opafence facts`)."""
    col = Collector(home=home, cwd=cwd, arg="command")
    parse_into(col, text, cwd)
    return {"opaque": bool(col.shell_reasons), "opaque_reasons": col.shell_reasons, "commands": col.commands}


__all__ = ["Field", "Walker", "parse", "parse_argv_into", "parse_into"]
