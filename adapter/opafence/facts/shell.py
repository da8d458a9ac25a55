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

import base64
import os
import posixpath
import re
import shlex
import threading
from collections.abc import Callable, Mapping, Sequence, Set
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

LIT, QUO, EXP, DYN = 0, 1, 2, 3  # unquoted literal, quoted literal, unquoted expansion result, unknown
MAX_SOURCES = 32
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
Piece = tuple[str, int]


@dataclass(slots=True)
class Field:
    text: str
    dynamic: bool = False
    glob: bool = False
    decoded: bool = False  # produced by a command substitution whose output was decoded
    # paths an unknown (dynamic) field may stand for: the literal path operands of the commands
    # whose output it substitutes, a loop's words, a literal directory before an expansion
    sources: tuple[str, ...] = ()


@dataclass(slots=True)
class Feed:
    """What flows into a command's standard input from the command before it in a pipeline."""

    name: str = ""
    content: str | None = None  # known literal content (echo 'x' | ..., cat <<EOF | ...)
    decoded: bool = False  # the data passed through a decoder (base64 -d, xxd -r, ...)
    kind: str = "shell_c"  # the context a program read from this content runs in
    paths: Sequence[str] = ()  # the path operands of the command that wrote it ("" when unknown)


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
    stdin_paths: tuple[str, ...] = ()  # what `< <(ls ~/.ssh)` may name
    # `> >(sh)`: process substitutions the command writes its output into (walked after it)
    procsubs: list[tree_sitter.Node] = field(default_factory=list)


Snapshot = tuple[str | None, dict[str, str | None], dict[str, list[str]]]
_NO_ARRAYS: dict[str, list[str]] = {}  # shared by snapshots of states without arrays: never written
_NO_PATHS: tuple[str, ...] = ()


@dataclass(slots=True)
class State:
    cwd: str | None
    vars: dict[str, str | None]
    context: str
    depth: int
    # cwd came from a `cd` to a directory that does not exist (yet): it holds on the success
    # path of the current && chain, and is unknown once the statement ends or after `||`.
    tentative: bool = False
    # paths an unknown variable may hold (`for f in ~/.ssh/*`, `f=$(ls ~/.ssh/id_*)`)
    srcs: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # arrays whose every element is known (`a=(rm -rf x)`)
    arrays: dict[str, list[str]] = field(default_factory=dict)

    def fork(self, context: str | None = None, deeper: bool = False) -> State:
        return State(
            self.cwd,
            dict(self.vars),
            context or self.context,
            self.depth + (1 if deeper else 0),
            False,
            dict(self.srcs) if self.srcs else {},
            dict(self.arrays) if self.arrays else {},
        )

    def snapshot(self) -> Snapshot:
        return self.cwd, dict(self.vars), dict(self.arrays) if self.arrays else _NO_ARRAYS

    def merge_uncertain(self, before: Snapshot) -> None:
        """After code that may or may not have run: whatever it changed is now unknown."""
        cwd, vars_before, arrays_before = before
        if self.cwd != cwd:
            self.cwd = None
        for k in set(self.vars) | set(vars_before):
            if self.vars.get(k, "\x00") != vars_before.get(k, "\x00"):
                self.vars[k] = None
                self.arrays.pop(k, None)
        if self.arrays or arrays_before:
            for k in set(self.arrays) | set(arrays_before):
                if self.arrays.get(k) != arrays_before.get(k):
                    self.vars[k] = None
                    self.arrays.pop(k, None)


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
    "dbus-launch": WrapSpec(value_long=frozenset({"autolaunch", "config-file"})),
    "dbus-run-session": WrapSpec(value_long=frozenset({"config-file", "dbus-daemon"})),
    "pkexec": WrapSpec(value_long=frozenset({"user"})),
    "run0": WrapSpec(
        value_short="uDg",
        value_long=frozenset({"user", "group", "chdir", "setenv", "unit", "property", "description", "slice"})
        | {"nice", "machine", "background"},
    ),
    "xvfb-run": WrapSpec(
        value_short="nsfepw",
        value_long=frozenset(
            {"server-num", "server-args", "auth-file", "error-file", "xauth-protocol", "wait"}
        ),
    ),
    "fakeroot": WrapSpec(value_short="lsiub", value_long=frozenset({"lib", "faked"})),
    "sshpass": WrapSpec(value_short="pfdP"),
    "gosu": WrapSpec(positional=1),
    "su-exec": WrapSpec(positional=1),
    "valgrind": WrapSpec(),
    "cgexec": WrapSpec(value_short="g"),
    "chpst": WrapSpec(value_short="uUbe/nlLmdofcpr"),
    "unshare": WrapSpec(
        value_short="SGRw",
        value_long=frozenset({"setuid", "setgid", "root", "wd", "propagation", "map-user", "map-group"}),
    ),
    "nsenter": WrapSpec(value_short="tSG", value_long=frozenset({"target", "setuid", "setgid"})),
    "entr": WrapSpec(keep_flags=frozenset({"-s"})),
    "systemd-inhibit": WrapSpec(value_long=frozenset({"what", "who", "why", "mode"})),
    "caffeinate": WrapSpec(value_short="tw"),
}
_BODY_C = {"su": "-c", "runuser": "-c", "script": "-c", "flock": "-c", "sg": "-c"}
_URL_TOOLS = frozenset({"curl", "wget", "http", "https", "httpie", "xh", "aria2c", "lynx", "links", "w3m"})
_SSH_VALUE_SHORT = "BbcDEeFIiJLlmOoPpQRSWw"
_NC = frozenset({"nc", "ncat", "netcat", "telnet", "ftp"})
_NC_VALUE_SHORT = "wpsiqxXecIOTWmMgGb"


# Transport commands: `GIT_SSH_COMMAND='ssh -i KEY'` only changes how git reaches its remote.
_SSH_TRANSPORT_VARS = frozenset({"GIT_SSH_COMMAND", "GIT_SSH", "RSYNC_RSH"})
# Options of ssh that take a value and cannot run anything (-o and -F can: ProxyCommand).
_SSH_SAFE_VALUE = frozenset("bcDEeIiJlmpQRSWw")
_SSH_PLAIN_WORD = re.compile(r"[A-Za-z0-9_@%+=:,./~-]+")


def _plain_ssh(value: str) -> bool:
    """`ssh` (or a path to it) with options that only pick a key, user, port or verbosity."""
    words = value.split()
    if not words or _basename(words[0]) != "ssh" or not all(_SSH_PLAIN_WORD.fullmatch(w) for w in words):
        return False
    i = 1
    while i < len(words):
        w = words[i]
        if not w.startswith("-") or len(w) < 2:
            return False
        flag = w[1]
        if flag in _SSH_SAFE_VALUE:
            i += 1 if len(w) > 2 else 2
            continue
        if not all(c in "46AaCfGgKkMNnqsTtVvXxYy" for c in w[1:]):
            return False
        i += 1
    return True


# Environment variables a program reads as a command line (run through a shell), a file it
# sources, a library it loads, or options that may load code.
_ENV_KINDS: dict[str, str] = {
    **dict.fromkeys(
        (
            "GIT_SSH_COMMAND",
            "GIT_SSH",
            "GIT_PAGER",
            "GIT_EDITOR",
            "GIT_SEQUENCE_EDITOR",
            "GIT_EXTERNAL_DIFF",
            "GIT_ASKPASS",
            "GIT_PROXY_COMMAND",
            "SSH_ASKPASS",
            "SUDO_ASKPASS",
            "PAGER",
            "MANPAGER",
            "SYSTEMD_PAGER",
            "BAT_PAGER",
            "PSQL_PAGER",
            "DELTA_PAGER",
            "EDITOR",
            "VISUAL",
            "SUDO_EDITOR",
            "FCEDIT",
            "PROMPT_COMMAND",
            "BROWSER",
            "RSYNC_RSH",
            "CVS_RSH",
            "RSYNC_CONNECT_PROG",
            "GIT_DIFF_OPTS_EXTERNAL",
        ),
        "cmd",
    ),
    "LESSOPEN": "less",
    "LESSCLOSE": "less",
    "PS1": "prompt",
    "PS2": "prompt",
    "PS3": "prompt",
    "PS4": "prompt",
    "BASH_ENV": "source",
    "ZDOTDIR": "source",
    "PYTHONSTARTUP": "source",
    "GIT_TEMPLATE_DIR": "source",
    "PERL5DB": "source",
    "ENV": "shell_if",  # sh/dash/ksh source $ENV; elsewhere ENV is an ordinary setting
    "LD_PRELOAD": "preload",
    "LD_AUDIT": "preload",
    "DYLD_INSERT_LIBRARIES": "preload",
    "GCONV_PATH": "preload",
    "NODE_OPTIONS": "options",
    "PERL5OPT": "options",
    "RUBYOPT": "options",
    "JAVA_TOOL_OPTIONS": "options",
    "_JAVA_OPTIONS": "options",
    "JDK_JAVA_OPTIONS": "options",
}
_NEVER = re.compile(r"(?!)")
_ENV_LOADS = {
    "NODE_OPTIONS": re.compile(r"(?:^|\s)(?:--require|-r|--import|--loader|--experimental-loader)\b"),
    "PERL5OPT": re.compile(r"-[MmdI]"),
    "RUBYOPT": re.compile(r"-[rI]"),
    "JAVA_TOOL_OPTIONS": re.compile(r"-(?:javaagent|agentpath|agentlib)"),
    "_JAVA_OPTIONS": re.compile(r"-(?:javaagent|agentpath|agentlib)"),
    "JDK_JAVA_OPTIONS": re.compile(r"-(?:javaagent|agentpath|agentlib)"),
}
# git settings whose value is a command git runs (through a shell) ...
_GIT_EXEC_KEY = re.compile(
    r"(?i)^(?:core\.(?:pager|editor|sshcommand|askpass|fsmonitor|gitproxy)|pager\.[^=]+|sequence\.editor"
    r"|diff\.external|diff\.[^=]+\.(?:command|textconv)|merge\.[^=]+\.driver"
    r"|filter\.[^=]+\.(?:clean|smudge|process)|credential(?:\.[^=]+)?\.helper|gpg(?:\.[^=]+)?\.program"
    r"|sendemail\.(?:smtpserver|tocmd|cccmd)|uploadpack\.packobjectshook|web\.browser"
    r"|(?:browser|difftool|mergetool|man)\.[^=]+\.(?:cmd|path)|alias\.[^=]+)$"
)
# ... and settings that point git at files or hooks we cannot see
_GIT_FILE_KEY = re.compile(r"(?i)^(?:core\.hookspath|init\.templatedir|include\.path|includeif\..+\.path)$")


# Options whose value is a command line the program runs (through a shell), per program:
# kind "shell"; "tar_action" for --checkpoint-action=exec=CMD; "attached" when the value is
# optional and so only counts attached (`--html=CMD`).
_OPTION_BODIES: dict[str, dict[str, str]] = {
    "tar": dict.fromkeys(
        (
            *("--to-command", "--use-compress-program", "-I", "--info-script", "-F"),
            *("--new-volume-script", "--rsh-command", "--rmt-command"),
        ),
        "shell",
    )
    | {"--checkpoint-action": "tar_action"},
    "zip": {"-TT": "shell", "--unzip-command": "shell"},
    "sort": {"--compress-program": "shell"},
    "man": {"-P": "shell", "--pager": "shell", "-H": "attached", "--html": "attached"},
    "rsync": {"-e": "shell", "--rsh": "shell", "--rsync-path": "shell"},
    "scp": {"-S": "shell"},
    "sftp": {"-S": "shell"},
    "rg": {"--pre": "shell"},
    "nodemon": {"--exec": "shell", "-x": "shell"},
    "nix-shell": {"--run": "shell", "--command": "shell"},
    "nano": {"-s": "shell", "--speller": "shell"},
    "hyperfine": dict.fromkeys(
        ("--prepare", "-p", "--cleanup", "-c", "--setup", "-s", "--conclude"), "shell"
    ),
    "git filter-branch": dict.fromkeys(
        (
            *("--tree-filter", "--index-filter", "--msg-filter", "--env-filter"),
            *("--commit-filter", "--parent-filter", "--tag-name-filter"),
        ),
        "shell",
    ),
    "git rebase": {"--exec": "shell", "-x": "shell"},
    "git difftool": {"--extcmd": "shell", "-x": "shell"},
    "git send-email": dict.fromkeys(("--to-cmd", "--cc-cmd", "--header-cmd", "--smtp-server"), "shell"),
    "git grep": {"-O": "attached", "--open-files-in-pager": "attached"},
    "git fetch": {"--upload-pack": "shell"},
    "git pull": {"--upload-pack": "shell"},
    "git ls-remote": {"--upload-pack": "shell"},
    "git clone": {"--upload-pack": "shell", "-u": "shell"},
    "git push": {"--receive-pack": "shell", "--exec": "shell"},
    "git archive": {"--exec": "shell"},
}
_GIT_VALUE_OPTIONS = frozenset(
    {"-C", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--list-cmds", "--attr-source"}
)


# One-liners of perl, ruby, php, lua, node, awk: calls that hand a string to a shell (or a
# list of strings to exec), and calls that remove a directory tree.
_STR = r"""(?:"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*')"""
_INLINE_CALL = re.compile(
    r"(?:\b(?:system|exec|shell_exec|passthru|popen|proc_open|spawn|spawnSync|execSync|execFile|execFileSync"
    r"|os\.execute|io\.popen|IO\.popen|Open3\.\w+|Process\.spawn|Kernel\.system)\s*\(?\s*"
    r"(?P<args>" + _STR + r"(?:\s*,\s*" + _STR + r")*))"
    r"|`(?P<inline>[^`]*)`"
    r"|\bqx\s*(?:\{(?P<qx1>[^}]*)\}|\((?P<qx2>[^)]*)\)|/(?P<qx3>[^/]*)/|\|(?P<qx4>[^|]*)\|)"
    r"|%x\{(?P<rx1>[^}]*)\}|%x\((?P<rx2>[^)]*)\)"
)
_STRING_LIST = re.compile(r"""(["'])((?:\\.|(?!\1)[^\\])*)\1""")
_INLINE_RMTREE = re.compile(
    r"""\b(?:rmtree|remove_tree|rm_rf|rm_r|remove_dir|remove_entry(?:_secure)?)\s*\(?\s*(["'])((?:\\.|(?!\1)[^\\])*)\1"""
)
_INLINE_SOCKET = re.compile(
    r"IO::Socket|\bSocket\b|\bsocket\s*\(|TCPSocket|UDPSocket|fsockopen|stream_socket_client|\bnet\.connect"
    r"|\bnet\.Socket|require\(\s*['\"]net['\"]\s*\)|/inet[46]?/(?:tcp|udp)/|/dev/(?:tcp|udp)/|socket\.tcp"
)
_INLINE_EXEC = re.compile(
    r"\b(?:exec|system|popen|spawn|proc_open|shell_exec|passthru|dup2|pty|child_process)\b|/bin/(?:ba|z|da|k)?sh\b"
    r"|\bsh\s+-i\b|open\s*\(\s*STD(?:IN|OUT|ERR)"
)
_AWK_COMMAND = re.compile(
    r'\bsystem\s*\(\s*"((?:\\.|[^"\\])*)"\s*\)|\|&?\s*"((?:\\.|[^"\\])*)"|"((?:\\.|[^"\\])*)"\s*\|&?\s*getline'
)


# `-lne`, `-pe`, `-e`: the short option that takes the program, after flags that take none
_CODE_CLUSTER = re.compile(r"^-[lnpawsTtWXCU0-9]*([eErc])")


_EMACS_SHELL = re.compile(r'\((?:async-)?shell-command(?:-to-string)?\s+"((?:\\.|[^"\\])*)"')
# (call-process "prog" nil nil nil "arg" ...), (start-process "name" buf "prog" "arg" ...)
_EMACS_PROCESS = re.compile(
    r'\((?:call-process|process-lines)\s+((?:"(?:\\.|[^"\\])*"\s*(?:nil|t|\s)*)+)'
    r'|\(start-process\s+"[^"]*"\s+(?:nil|"[^"]*")\s+((?:"(?:\\.|[^"\\])*"\s*)+)'
)


def _unescape_literal(text: str) -> str:
    return re.sub(r"\\([\\\"'`$])", r"\1", text)


# Programs that run a command given as their arguments or in an option of their own
# (Walker._carrier): the command is emitted beside them, so its own class and guards apply.
_CARRIERS = frozenset(
    {"vim", "vi", "nvim", "view", "vimdiff", "gvim", "ex", "gdb", "expect", "make", "gmake", "screen", "tmux"}
    | {"npm", "npx", "pnpm", "pnpx", "yarn", "bunx", "bun", "parallel", "flock", "fd", "fdfind"}
    | {"docker", "podman", "nerdctl", "kubectl", "oc", "psql", "mysql", "mariadb", "sqlite3", "less"}
    | {"xterm", "gnome-terminal", "konsole", "uv", "poetry", "pipenv", "pdm", "hatch", "conda", "mamba"}
    | {"emacs", "emacsclient"}
)


_VIM_BANG = re.compile(r"^[:\s]*(?:sil(?:ent)?!?\s+)?[%.,$0-9'<>+\-]*!(?!\s*$)(.*)$", re.S)
_VIM_READ_WRITE_BANG = re.compile(
    r"^[:\s]*(?:sil(?:ent)?!?\s+)?(?:r|re|rea|read|w|wr|wri|writ|write)\s+!(.*)$", re.S
)
_VIM_SCRIPT = re.compile(
    r"(?:^|[|:\s])(?:py(?:thon)?3?|pyx|pyfile|py3file|lua|luafile|perl|ruby|rubyfile|tcl|mz|so|source|runtime"
    r"|exe|execute|call|term|terminal|norm|normal|redir)\b|system\s*\(|systemlist\s*\(|job_start|jobstart"
)
_TMUX_VALUES: dict[str, str] = {
    "new-session": "cefFnstxy",
    "new": "cefFnstxy",
    "new-window": "ceFnt",
    "neww": "ceFnt",
    "split-window": "celtFp",
    "splitw": "celtFp",
    "respawn-pane": "cet",
    "respawnp": "cet",
    "respawn-window": "cet",
    "respawnw": "cet",
    "run-shell": "cdt",
    "run": "cdt",
    "if-shell": "t",
    "if": "t",
    "pipe-pane": "t",
    "pipep": "t",
    "display-popup": "bcdehsStTwxy",
    "popup": "bcdehsStTwxy",
    "send-keys": "cNt",
    "send": "cNt",
}
_TMUX_KEYS = {"Enter": "\n", "C-m": "\n", "C-j": "\n", "KPEnter": "\n", "Space": " ", "Tab": "\t"}
_TMUX_KEY = re.compile(
    r"(?:[CMS]-)+\S+|F\d{1,2}|Escape|BSpace|Up|Down|Left|Right|Home|End|NPage|PPage|PageUp|PageDown|IC|DC|BTab|Any"
)
_PKG_VALUE_OPTIONS = frozenset(
    {
        "-p",
        "--package",
        "-w",
        "--workspace",
        "--filter",
        "-F",
        "-C",
        "--dir",
        "--prefix",
        "--registry",
        "--cwd",
    }
)
_PARALLEL_VALUE_OPTIONS = frozenset(
    {
        "-j",
        "--jobs",
        "-S",
        "--sshlogin",
        "-a",
        "--arg-file",
        "--colsep",
        "-C",
        "-d",
        "--delimiter",
        "-E",
        "-I",
    }
    | {"-N", "-n", "-L", "-l", "--halt", "--delay", "--timeout", "--joblog", "--results", "--res", "--tmpdir"}
    | {"--tagstring", "--env", "--workdir", "--wd", "--nice", "-P", "--max-procs", "-s", "--max-chars"}
    | {"--basefile", "--bf", "--return", "--sshloginfile", "--slf", "--memfree", "--load", "--retries"}
)
_DOCKER_VALUE_SHORT = "aceHhlmpuvw"
_DOCKER_VALUE_LONG = frozenset(
    {"--add-host", "--annotation", "--attach", "--blkio-weight", "--blkio-weight-device", "--cap-add"}
    | {"--cap-drop", "--cgroup-parent", "--cgroupns", "--cidfile", "--cpu-period", "--cpu-quota"}
    | {"--cpu-rt-period", "--cpu-rt-runtime", "--cpu-shares", "--cpus", "--cpuset-cpus", "--cpuset-mems"}
    | {"--detach-keys", "--device", "--device-cgroup-rule", "--device-read-bps", "--device-read-iops"}
    | {"--device-write-bps", "--device-write-iops", "--dns", "--dns-option", "--dns-search", "--domainname"}
    | {"--entrypoint", "--env", "--env-file", "--expose", "--gpus", "--group-add", "--health-cmd"}
    | {"--health-interval", "--health-retries", "--health-start-period", "--health-timeout", "--hostname"}
    | {"--ip", "--ip6", "--ipc", "--isolation", "--kernel-memory", "--label", "--label-file", "--link"}
    | {"--link-local-ip", "--log-driver", "--log-opt", "--mac-address", "--memory", "--memory-reservation"}
    | {"--memory-swap", "--memory-swappiness", "--mount", "--name", "--network", "--net", "--network-alias"}
    | {"--oom-score-adj", "--pid", "--pids-limit", "--platform", "--publish", "--pull", "--restart"}
    | {"--runtime", "--security-opt", "--shm-size", "--stop-signal", "--stop-timeout", "--storage-opt"}
    | {"--sysctl", "--tmpfs", "--ulimit", "--user", "--userns", "--uts", "--volume", "--volume-driver"}
    | {"--volumes-from", "--workdir", "--pod", "--secret", "--arch", "--os", "--variant", "--user-data"}
    | {"-v", "-e", "-p", "-w", "-u", "-l", "-m", "-h", "-a", "-c"}
)
_KUBE_VALUE_OPTIONS = frozenset(
    {"-n", "--namespace", "--context", "--kubeconfig", "-s", "--server", "--cluster", "--user", "--token"}
    | {"-l", "--selector", "--as", "--as-group", "--request-timeout", "-c", "--container", "--image", "-f"}
)
_ENV_RUN_VALUE_OPTIONS = frozenset(
    {"--with", "-w", "--python", "-p", "--project", "--directory", "--package", "--extra", "--group", "-C"}
    | {"--env-file", "--index", "--index-url", "-n", "--name", "--prefix", "--cwd", "-e", "--env"}
)
_DB_SHELL = re.compile(
    r"(?m)(?:^|;|\\\\)\s*(?:\\!|\.shell\b|\.system\b|system\b)\s*([^\n]*)"
    r"|\\[og]\s*\|\s*([^\n]*)"
    r"|(?i:\bprogram\s+)'((?:''|[^'])*)'"
)


# Carriers that carry a command only when one of these words (or a word starting with one of
# the prefixes) is among their arguments: `npm run build` and `docker ps` skip the walk.
_CARRIER_TRIGGERS: dict[str, tuple[frozenset[str], tuple[str, ...]]] = {
    **dict.fromkeys(("npm", "pnpm", "yarn", "bun"), (frozenset({"exec", "x", "dlx"}), ())),
    **dict.fromkeys(("uv", "poetry", "pipenv", "pdm", "hatch", "conda", "mamba"), (frozenset({"run"}), ())),
    **dict.fromkeys(("docker", "podman", "nerdctl"), (frozenset({"run", "exec", "create"}), ())),
    **dict.fromkeys(("kubectl", "oc"), (frozenset({"exec", "run", "debug"}), ())),
    **dict.fromkeys(("make", "gmake"), (frozenset(), ("--eval", "-E", "-f", "--file", "--makefile"))),
    "less": (frozenset(), ("+",)),
}


def _triggered(trigger: tuple[frozenset[str], tuple[str, ...]], argv: list[Field]) -> bool:
    words, prefixes = trigger
    return any(
        f.text in words or bool(prefixes and f.text.startswith(prefixes)) or f.dynamic for f in argv[1:]
    )


_DEFAULT_IFS = re.compile(r"[ \t\n]+")


def _ifs_splitter(ifs: str) -> re.Pattern[str] | None:
    """How bash splits expansion results on IFS: runs of IFS white space, or one other IFS
    character with the white space around it; None for an empty IFS (no splitting)."""
    if not ifs:
        return None
    white = "".join(c for c in " \t\n" if c in ifs)
    other = "".join(dict.fromkeys(c for c in ifs if c not in " \t\n"))
    w = f"[{re.escape(white)}]" if white else ""
    if not other:
        return re.compile(w + "+")
    o = f"[{re.escape(other)}]"
    return re.compile(f"{w}*{o}{w}*|{w}+" if white else o)


def _decode_literal(
    name: str, argv: list[Field], operands: list[Field], feed: Feed, stdin: Stdin | None
) -> str | None:
    """What a decoder prints for literal input (`echo cm0= | base64 -d`, `rev <<< x`), or None."""
    if [f for f in operands if f.text != "-"] and name != "tr":
        return None
    if stdin is not None:
        text = stdin.text if stdin.kind in ("herestring", "heredoc") else None
    else:
        text = feed.content if feed.kind != "unknown" else None
    if text is None or len(text) > MAX_SOURCE:
        return None
    try:
        if name in ("base64", "base32"):
            packed = "".join(text.split())
            raw = (
                base64.b64decode(packed + "=" * (-len(packed) % 4))
                if name == "base64"
                else base64.b32decode(packed)
            )
            return raw.decode("utf-8")
        if name == "rev":
            return "\n".join(line[::-1] for line in text.split("\n"))
        if name == "xxd" and any(f.text in ("-p", "-ps", "-plain") for f in argv):
            return bytes.fromhex("".join(text.split())).decode("utf-8")
        if name == "tr" and len(operands) == 2 and not [f for f in argv[1:] if f.text.startswith("-")]:
            table = _tr_table(operands[0].text, operands[1].text)
            return text.translate(table) if table is not None else None
    except (ValueError, UnicodeDecodeError):
        return None
    return None


def _tr_table(set1: str, set2: str) -> dict[int, int] | None:
    def expand(spec: str) -> str | None:
        if "[" in spec or "\\" in spec:
            return None
        out: list[str] = []
        i = 0
        while i < len(spec):
            if i + 2 < len(spec) and spec[i + 1] == "-" and ord(spec[i]) <= ord(spec[i + 2]):
                out.extend(chr(c) for c in range(ord(spec[i]), ord(spec[i + 2]) + 1))
                i += 3
            else:
                out.append(spec[i])
                i += 1
        return "".join(out)

    a, b = expand(set1), expand(set2)
    if not a or not b or len(a) > 512:
        return None
    b = b + b[-1] * (len(a) - len(b))
    return {ord(x): ord(y) for x, y in zip(a, b, strict=False)}


def _substring(value: str, numbers: list[int]) -> str | None:
    """bash's ${x:offset[:length]}."""
    offset = numbers[0]
    if offset < 0:
        if -offset > len(value):
            return ""
        offset += len(value)
    if len(numbers) == 1:
        return value[offset:]
    end = offset + numbers[1] if numbers[1] >= 0 else len(value) + numbers[1]
    return value[offset:end] if end >= offset else None


def _runs_module(argv: list[Field], module: str) -> bool:
    return any(
        f.text == "-m" and k + 1 < len(argv) and argv[k + 1].text == module for k, f in enumerate(argv)
    )


def _make_recipes(text: str) -> list[str]:
    """The shell lines of a makefile's text: recipe lines (after a tab, or `target: ; cmd`)
    and $(shell …) calls, with make's `$$` made `$` and make variables left unknown."""
    out: list[str] = []
    for line in text.replace("\\\n", " ").split("\n"):
        m = re.match(r"^\t[@+\-]*(.*)$", line)
        rule = re.match(r"^[^\t#=:][^=:#]*::?[^=;#]*;\s*[@+\-]*(.*)$", line)
        body = m.group(1) if m else rule.group(1) if rule else ""
        for call in re.finditer(r"\$\(shell\s+([^)]*)\)", line):
            out.append(call.group(1))
        if body.strip():
            out.append(body)
    return [
        re.sub(r"\$[({]([A-Za-z_][A-Za-z0-9_]*)[)}]", r"${\1}", r.replace("$$", "\x01")).replace("\x01", "$")
        for r in out
    ]


# Text whose only escapes are layout ones (\n, \t, ...): printing it decodes nothing hidden.
_SIMPLE_ESCAPES = re.compile(r"(?:[^\\%]|%%|\\[ntr\\\"'])*", re.S)


def _printf(fmt: str, args: list[str]) -> str | None:
    """What printf prints for a format of plain text, layout escapes, %s and %%; None for any
    other directive or escape (hex, octal, %b ... decode data: the caller calls that decoded)."""
    pieces = re.split(r"(%%|%s)", fmt)
    if not all(_SIMPLE_ESCAPES.fullmatch(p) for p in pieces[::2]) or len(args) > MAX_FIELDS:
        return None
    conversions = pieces[1::2].count("%s")
    out: list[str] = []
    rest = list(args)
    while True:
        for k, p in enumerate(pieces):
            if k % 2 == 0:
                out.append(decode_ansi_c(p) or "")
            elif p == "%%":
                out.append("%")
            else:
                out.append(rest.pop(0) if rest else "")
        if not rest or not conversions:
            break
    return "".join(out)


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
    | frozenset(_OPTION_BODIES)
    | frozenset(_CARRIERS)
    | {"pytest", "py.test", "set"}
)


class Walker:
    def __init__(self, col: Collector, code_parser: Callable[..., None] | None = None) -> None:
        self.col = col
        self.code_parser = code_parser
        self.src = b""  # the original bytes of the program being walked
        self.nest = 0  # Python recursion used by the walk (a deeper tree is opaque, not a crash)
        self._srcs: list[str] = []  # sources of the word being expanded (see Field.sources)
        self._input_paths: Sequence[str] = ()  # paths named by what feeds the loop being walked
        self._out_procsubs: list[tree_sitter.Node] | None = None  # `>(...)` arguments of this command
        self._fd_words: set[int] = set()  # numbers the grammar split off their redirections
        self._last_output: Feed | None = None  # what the last substitution walked printed

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
            saved_input = self._input_paths
            if feed.paths:
                self._input_paths = feed.paths  # `ls ~/.ssh | while read f; do ...`
            if t == "for_statement":
                self._for(node, st, inh)
            else:
                self._generic(node, st, inh)
            self._input_paths = saved_input
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
            if child.is_named:
                self._generic_child(child, st, inherited)

    def _generic_child(self, child: tree_sitter.Node, st: State, inherited: list[dict[str, Any]]) -> None:
        ct = child.type
        if ct in _STATEMENTS:
            self.visit(child, st, Feed(), None, inherited)
        elif ct in ("command_substitution", "process_substitution"):
            self._substitution(child, st)
        elif ct in ("expansion", "simple_expansion", "arithmetic_expansion"):
            pieces: list[Piece] = []
            self._pieces(child, st, pieces, False)
        elif ct != "comment":
            self._generic(child, st, inherited)

    def _for(self, node: tree_sitter.Node, st: State, inherited: list[dict[str, Any]]) -> None:
        """`for f in WORDS; do ...; done`: f is unknown in the body, but it is one of the words,
        so the paths they name are what an operand "$f" may name."""
        var = node.child_by_field_name("variable")
        name = self._text(var) if var is not None else ""
        srcs: list[str] = []
        for i, child in enumerate(node.children):
            if not child.is_named or child == var:
                continue
            if node.field_name_for_child(i) == "value":
                for f in self.fields(child, st):
                    if f.dynamic:
                        srcs.extend(f.sources)
                    elif f.text and not paths.problem(f.text) and (f.text.startswith("/") or st.cwd):
                        srcs.append(paths.resolve(f.text, st.cwd or "/", self.col.cache))
                continue
            if name:
                st.vars[name] = None
                st.arrays.pop(name, None)
                if srcs:
                    st.srcs[name] = tuple(dict.fromkeys(srcs))[:MAX_SOURCES]
                name = ""
            self._generic_child(child, st, inherited)

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
        fds: dict[int, int] = {}
        children = node.children
        for k in range(1, len(children)):
            prev_node = children[k - 1]
            if prev_node.end_byte != children[k].start_byte or children[k].type != "file_redirect":
                continue
            leaf = prev_node
            while leaf.child_count:
                leaf = leaf.children[-1]
            fd_given = self._fd_before(leaf, children[k])
            if fd_given is not None:
                fds[children[k].start_byte] = fd_given
                self._fd_words.add(leaf.start_byte)
        for child in children:
            if child.start_byte - prev_end > 1:
                gap = raw[prev_end - node.start_byte : child.start_byte - node.start_byte].strip()
                if gap == b"-":
                    mine.extra_args.append(Field("-"))
            prev_end = max(prev_end, child.end_byte)
            if child.type in ("file_redirect", "herestring_redirect"):
                self._redirect(child, st, mine, fds.get(child.start_byte))
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
            for sub_node in mine.procsubs:
                self._substitution(sub_node, st, Feed())
            out = Feed()
        elif body.type in ("command", "list", "pipeline", "redirected_statement", "negated_command"):
            out = self.visit(body, st, feed, mine, inh)
        else:
            # Redirections of a compound statement apply to every command inside it.
            saved_input = self._input_paths
            self._input_paths = mine.stdin_paths or saved_input
            out = self.visit(body, st, feed, None, [*inh, *mine.redirects])
            self._input_paths = saved_input
            for sub_node in mine.procsubs:
                # what a loop or group writes is not known
                self._substitution(sub_node, st, Feed("", None, False, "unknown"))
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
    def _fd_before(self, word: tree_sitter.Node | None, redirect: tree_sitter.Node) -> int | None:
        """`sh 0</tmp/p`: the grammar reads `0` as a word; bash reads it as the descriptor of
        the redirection that touches it."""
        if (
            word is None
            or word.type != "number"
            or word.end_byte != redirect.start_byte
            or redirect.type != "file_redirect"
            or any(c.type == "file_descriptor" for c in redirect.children)
        ):
            return None
        text = self._text(word)
        return int(text) if text.isdigit() and len(text) < 4 else None

    def _redirect(self, node: tree_sitter.Node, st: State, into: Tail, fd_given: int | None = None) -> None:
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
        if fd is None and fd_given is not None:
            fd = fd_given
        if op.startswith("<") and fd is None:
            fd = 0
        elif fd is None:
            fd = 1
        if not dests:
            into.redirects.append({"op": op, "fd": fd, "raw": "", "path": "", "mode": "dup"})
            return
        if (
            dests[0].type == "process_substitution"
            and self._bytes(dests[0]).startswith(b">(")
            and op[-1] == ">"
        ):
            # the command's output is the input of the commands inside: walked once it is known
            into.procsubs.append(dests[0])
            into.redirects.append(
                {"op": op, "fd": fd, "raw": "/dev/fd/63", "path": "/dev/fd/63", "mode": "write"}
            )
            return
        target = self.fields(dests[0], st)
        for extra in dests[1:]:
            if extra.start_byte not in self._fd_words:
                into.extra_args.extend(self.fields(extra, st))
        f = target[0] if target else Field("", dynamic=True)
        raw = f.text
        if op == "<" and f.sources:
            into.stdin_paths = f.sources
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
        if node.type in ("string", "expansion") and st.arrays:
            elements = self._array_fields(node, st)
            if elements is not None:
                return elements
        pieces: list[Piece] = []
        saved = self._srcs
        self._srcs = []
        try:
            dynamic, decoded = self._pieces(node, st, pieces, False)
            srcs = self._srcs
        finally:
            self._srcs = saved
        if dynamic:
            pattern = self._pattern(pieces, st)
            if pattern:
                srcs.append(pattern)
            sources = tuple(dict.fromkeys(srcs))[:MAX_SOURCES] if srcs else ()
            return [Field(self._text(node), dynamic=True, decoded=decoded, sources=sources)]
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
        if srcs and len(out) == 1:
            out[0].sources = tuple(dict.fromkeys(srcs))[:MAX_SOURCES]  # <(ls ~/.ssh)
        return out

    def _pattern(self, pieces: list[Piece], st: State) -> str:
        """`~/.ssh/$k` -> "/home/u/.ssh/*": the paths a word with unknown parts may name, as a
        glob, when a literal directory comes before the first unknown part; else ""."""
        text = "".join("*" if kind == DYN else t for t, kind in pieces)
        star = text.find("*")
        if star < 0 or "/" not in text[:star]:
            return ""
        if pieces[0][1] == LIT and text.startswith("~"):
            text, bad = paths.expand_tilde(text, self.col.home, st.cwd or "")
            if bad:
                return ""
        if paths.problem(text):
            return ""
        if not text.startswith("/"):
            if st.cwd is None:
                return ""
            return posixpath.normpath(posixpath.join(st.cwd, text))
        return posixpath.normpath(text)

    def _array_fields(self, node: tree_sitter.Node, st: State) -> list[Field] | None:
        """`"${a[@]}"` / `${a[@]}` of an array whose elements are all known: one field each."""
        exp = node
        if node.type == "string":
            inner = [c for c in node.children if c.type not in ('"',)]
            if len(inner) != 1 or inner[0].type not in ("expansion", "simple_expansion"):
                return None
            exp = inner[0]
            if self._text(exp) in ("$@", "${@}") and "@" in st.arrays:
                return [Field(e) for e in st.arrays["@"]]  # "$@" after `set -- ...`
            if exp.type != "expansion":
                return None
        named = [c for c in exp.children if c.is_named]
        ops = [c for c in exp.children if not c.is_named and c.type not in ("${", "}")]
        if ops or len(named) != 1 or named[0].type != "subscript":
            return None
        name_node = named[0].child_by_field_name("name")
        index_node = named[0].child_by_field_name("index")
        if name_node is None or index_node is None or self._text(index_node) not in ("@", "*"):
            return None
        elements = st.arrays.get(self._text(name_node))
        if elements is None:
            return None
        if node.type == "string" and self._text(index_node) == "@":
            return [Field(e) for e in elements]
        return [Field(w) for e in elements for w in e.split()]

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
        splitter: re.Pattern[str] | None = _DEFAULT_IFS
        if "IFS" in st.vars:
            ifs = st.vars["IFS"]
            if ifs is None:
                return [Field("".join(p for p, _ in pieces), dynamic=True)]
            splitter = _ifs_splitter(ifs)
        # word splitting of unquoted expansion results
        fields: list[str] = []
        cur: list[str] = []
        have = False
        for text, kind in pieces:
            if kind != EXP:
                cur.append(text)
                have = True
                continue
            parts = splitter.split(text) if splitter is not None else [text]
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
                out.append(("", DYN))
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
                out.append(("", DYN))
                return True, False
            out.append((value, QUO if quoted else EXP))
            return False, False
        if t == "command_substitution":
            first = len(self.col.commands)
            from_decoder = self._substitution(node, st)
            result = self._last_output
            if (
                not from_decoder
                and result is not None
                and result.content is not None
                and not result.decoded
                and result.kind != "unknown"
                and len(self.col.commands) == first + 1
            ):
                # $(echo rm), $(printf '%s' x): one command printing literal text
                out.append((result.content.rstrip("\n"), QUO if quoted else EXP))
                return False, False
            out.append(("", DYN))
            return True, from_decoder
        if t == "process_substitution":
            if self._out_procsubs is not None and self._bytes(node).startswith(b">("):
                self._out_procsubs.append(node)  # `tee >(sh)`: walked once the input is known
                out.append(("/dev/fd/63", QUO))
                return False, False
            from_decoder = self._substitution(node, st)
            out.append(("/dev/fd/63", QUO))
            return False, from_decoder
        if t == "arithmetic_expansion":
            self._arithmetic(node, st)
            out.append(("", DYN))
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
        out.append(("", DYN))
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
            if len(named) != 1 or named[0].type not in ("variable_name", "special_variable_name"):
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
        if len(named) == 1 and named[0].type == "variable_name" and [o.type for o in ops] == ["!"]:
            # ${!ref}: the variable whose name ref holds
            ref = self._lookup(self._text(named[0]), st)
            if ref is None or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", ref):
                return None
            return self._lookup(ref, st)
        if not ops and len(named) == 1 and named[0].type == "subscript" and st.arrays:
            name_node = named[0].child_by_field_name("name")
            index_node = named[0].child_by_field_name("index")
            elements = st.arrays.get(self._text(name_node)) if name_node is not None else None
            if elements is not None and index_node is not None:
                index = self._text(index_node)
                if index in ("@", "*"):
                    return " ".join(elements)
                if index.isdigit():
                    k = int(index)
                    return elements[k] if k < len(elements) else ""
            return None
        if (
            named
            and named[0].type == "variable_name"
            and ops
            and all(o.type == ":" for o in ops)
            and len(named) == len(ops) + 1 <= 3
            and all(n.type == "number" for n in named[1:])
        ):
            # ${x:offset} / ${x:offset:length} with literal numbers
            value = self._lookup(self._text(named[0]), st)
            return None if value is None else _substring(value, [int(self._text(n)) for n in named[1:]])
        if ops or len(named) != 1 or named[0].type not in ("variable_name", "special_variable_name"):
            if named and named[0].type == "variable_name" and self._text(named[0]) not in st.vars:
                self.col.add_env_var(self._text(named[0]))  # ${TOKEN:-x}, ${TOKEN#prefix}
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
            value = st.vars[name]
            if value is None and name in st.srcs and len(self._srcs) < MAX_SOURCES:
                self._srcs.extend(st.srcs[name])
            return value
        if name == "HOME":
            return self.col.home or None
        if name == "PWD":
            return st.cwd
        if name == "IFS":
            return " \t\n"  # bash's default when nothing in the program set it
        positional = st.arrays.get("@")
        if positional is not None:
            if name in ("@", "*"):
                return " ".join(positional)
            if name == "#":
                return str(len(positional))
            if name.isdigit() and name != "0":
                k = int(name)
                return positional[k - 1] if k <= len(positional) else ""
        if _ENV_NAME.fullmatch(name):
            # Set nowhere in the program: the environment's value (a credential, perhaps).
            self.col.add_env_var(name)
        return None

    def _arithmetic(self, node: tree_sitter.Node, st: State) -> None:
        if "`" in self._text(node) or _contains(node, "command_substitution"):
            self.col.opaque("shell_arithmetic_substitution")
        self._generic(node, st, [])

    def _substitution(self, node: tree_sitter.Node, st: State, feed: Feed | None = None) -> bool:
        """Walk the body of $(...), `...`, <(...) or >(...); True when its output was decoded."""
        kind = "process_substitution" if node.type == "process_substitution" else "command_substitution"
        sub = st.fork(kind, deeper=True)
        if sub.depth > MAX_DEPTH:
            self.col.opaque("shell_too_deep")
            return False
        text = self._text(node)
        first = len(self.col.commands)
        named = [c for c in node.children if c.is_named and c.type != "comment"]
        if text.startswith("`"):
            inner = re.sub(r"\\([\\`$])", r"\1", text[1:-1] if text.endswith("`") else text[1:])
            out = self.run(inner, sub)
        elif len(named) == 1 and named[0].type == "file_redirect":
            # $(< FILE): bash reads FILE itself; shown as a bare redirection, like `< FILE`
            into = Tail()
            self._redirect(named[0], sub, into)
            self._emit([], {}, [], sub, Feed(), into.redirects, False, None)
            out = Feed()
            for r in into.redirects:
                if r["path"] and r["mode"] == "read":
                    self._srcs.append(r["path"])
        else:
            out = self._sequence(node.children, sub, feed or Feed(), None, [])
        if len(self._srcs) < MAX_SOURCES:
            # what the output may name: the literal paths the commands inside were given
            for cmd in self.col.commands[first:]:
                self._srcs.extend(p for p in cmd["operand_paths"] if p)
                self._srcs.extend(cmd["maybe_paths"])
        self._last_output = out
        if out.decoded:
            self.col.opaque("decode_and_run")
        return out.decoded

    def _body(self, text: str, st: State, context: str) -> Feed:
        sub = st.fork(context, deeper=True)
        return self.run(text, sub)

    # -- assignments and declarations ---------------------------------------------------
    def _assign_value(self, node: tree_sitter.Node, st: State) -> tuple[str, str | None]:
        name, value, _srcs, _arr = self._assign(node, st)
        return name, value

    def _assign(
        self, node: tree_sitter.Node, st: State
    ) -> tuple[str, str | None, tuple[str, ...], list[str] | None]:
        """(name, value or None when unknown, paths an unknown value may hold, array elements)."""
        name_node = node.child_by_field_name("name")
        value_node = node.child_by_field_name("value")
        name = self._text(name_node) if name_node is not None else ""
        if value_node is None:
            return name, "", (), None
        appends = any(c.type == "+=" for c in node.children)
        if value_node.type == "array":
            elements = [
                f for c in value_node.named_children if c.type != "comment" for f in self.fields(c, st)
            ]
            if appends or any(f.dynamic for f in elements):
                return name, None, (), None
            texts = [f.text for f in elements]
            return name, texts[0] if texts else "", (), texts
        fields = self.fields(value_node, st)
        if appends:
            return name, None, (), None
        if len(fields) == 1 and not fields[0].dynamic:
            return name, fields[0].text, (), None
        if not fields:
            return name, "", (), None
        return name, None, tuple(s for f in fields for s in f.sources), None

    def _remember(
        self, name: str, value: str | None, srcs: tuple[str, ...], arr: list[str] | None, st: State
    ) -> None:
        if "[" in name:
            name = name.split("[", 1)[0]
            value, srcs, arr = None, (), None
        st.vars[name] = value
        if arr is not None:
            st.arrays[name] = arr
        elif name in st.arrays:
            del st.arrays[name]
        if srcs:
            st.srcs[name] = srcs
        elif name in st.srcs:
            del st.srcs[name]
        if name in _ENV_KINDS or name.startswith(("GIT_CONFIG_", "BASH_FUNC_")):
            # a later program (or one this shell already exported it to) reads it
            self._env_value(name, value, st, "", st.vars)

    def _assignments(self, node: tree_sitter.Node, st: State) -> None:
        nodes = [node] if node.type == "variable_assignment" else [c for c in node.children if c.is_named]
        for n in nodes:
            if n.type != "variable_assignment":
                continue
            name, value, srcs, arr = self._assign(n, st)
            if name:
                self._remember(name, value, srcs, arr, st)

    def _declaration(self, node: tree_sitter.Node, st: State, inh: list[dict[str, Any]]) -> Feed:
        argv: list[Field] = []
        for child in node.children:
            if not child.is_named:
                argv.append(Field(child.type))
            elif child.type == "variable_assignment":
                name, value, srcs, arr = self._assign(child, st)
                if node.type == "declaration_command" and name:
                    self._remember(name, value, srcs, arr, st)
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
        dyn_env: set[str] = set()
        words: list[Field] = []
        own = Tail()
        cont: list[tuple[str, tree_sitter.Node]] = []
        prev_end = node.start_byte
        saved_subs = self._out_procsubs
        arg_subs: list[tree_sitter.Node] = []
        self._out_procsubs = arg_subs
        last_child: tree_sitter.Node | None = None
        for child in node.children:
            start = child.start_byte
            # tree-sitter drops a lone "-" before a here-doc; put it back
            if start - prev_end > 1 and words and self.src[prev_end:start].strip() == b"-":
                words.append(Field("-"))
            prev_end = max(prev_end, child.end_byte)
            ct = child.type
            prev_child = last_child
            last_child = child
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
                if value is None:
                    dyn_env.add(name)
            elif ct in ("file_redirect", "herestring_redirect"):
                fd_given = self._fd_before(prev_child, child)
                if fd_given is not None and words:
                    words.pop()
                self._redirect(child, st, own, fd_given)
            elif ct == "heredoc_redirect":
                self._heredoc(child, st, own, cont)
            elif ct == "number" and child.start_byte in self._fd_words:
                pass  # `cmd 0</tmp/p`: the grammar's number is the redirection's descriptor
            elif ct == "word" and _PLAIN_WORD_SAFE.isdisjoint(text := self._text(child)):
                words.append(Field(text))
            elif child.is_named and ct != "comment":
                words.extend(self.fields(child, st))
            if len(words) > MAX_FIELDS:
                self.col.opaque("shell_too_many_words")
                break
        self._out_procsubs = saved_subs
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
        subs = own.procsubs + tail.procsubs if tail is not None and tail.procsubs else own.procsubs
        if cont:
            out = self._emit(words, env, [], st, feed, redirects, False, stdin, dyn_env)
            if subs or arg_subs:
                self._output_substitutions(words, out, feed, subs, arg_subs, st)
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
        out = self._emit(words, env, [], st, feed, redirects, False, stdin, dyn_env)
        if subs or arg_subs:
            self._output_substitutions(words, out, feed, subs, arg_subs, st)
        return out

    def _output_substitutions(
        self,
        words: list[Field],
        out: Feed,
        feed: Feed,
        redirected: list[tree_sitter.Node],
        args: list[tree_sitter.Node],
        st: State,
    ) -> None:
        """`cmd > >(sh)` feeds cmd's output to sh; `tee >(sh)` feeds tee's input to it; another
        command writes to an argument `>(...)` something we cannot see."""
        for node in redirected:
            self._substitution(node, st, out)
        name = _basename(words[0].text) if words and not words[0].dynamic else ""
        for node in args:
            self._substitution(node, st, feed if name == "tee" else Feed(name, None, False, "unknown"))

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
        dyn_env: Set[str] = frozenset(),
    ) -> Feed:
        argv, wrappers, env2, dynamic, cwd, xopts = self._unwrap(argv_in, st)
        wrappers = [*wrappers_in, *wrappers]
        env = {**env, **env2}
        dynamic = dynamic or dynamic_in
        if env:
            self._env_values(env, dyn_env, argv, st)
        if xopts is None:
            return self._emit_one(argv, env, wrappers, st, feed, redirects, dynamic, stdin, cwd, _NO_PATHS)
        out = Feed()
        for run_argv, run_dynamic, maybe in self._xargs(xopts, argv, feed, stdin, st):
            out = self._emit_one(
                run_argv, env, wrappers, st, feed, redirects, dynamic or run_dynamic, stdin, cwd, maybe
            )
        return out

    def _emit_one(
        self,
        argv: list[Field],
        env: dict[str, str],
        wrappers: list[str],
        st: State,
        feed: Feed,
        redirects: list[dict[str, Any]],
        dynamic: bool,
        stdin: Stdin | None,
        cwd: str | None,
        maybe_in: Sequence[str],
    ) -> Feed:
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
        maybe: list[str] | None = None
        if maybe_in:
            maybe = [m for m in maybe_in if m]
        if dynamic:
            for f in operand_fields:
                if f.dynamic and f.sources:
                    maybe = [*(maybe or ()), *f.sources]
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
            "maybe_paths": list(dict.fromkeys(maybe))[:MAX_SOURCES] if maybe else [],
        }
        if not self.col.add_command(command):
            return Feed(name)
        self._urls(name, argv, operands)
        out = self._after(name, argv, flags, operand_fields, st, feed, stdin, cmd_cwd)
        if operand_paths:
            out.paths = operand_paths  # may hold "" (unknown): readers skip them
        elif name in _PASSTHROUGH:
            out.paths = feed.paths
        return out

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
    ) -> tuple[list[Field], list[str], dict[str, str], bool, str | None, list[Field] | None]:
        wrappers: list[str] = []
        env: dict[str, str] = {}
        dynamic = False
        cwd: str | None = None
        xopts: list[Field] | None = None
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
            if name == "xargs" and xopts is None:
                xopts = argv[1 : len(argv) - len(rest)]  # its arguments come from its input
            wrappers.append(name)
            argv = rest
        if cwd is not None and not cwd.startswith("/"):
            cwd = paths.resolve(cwd, st.cwd, self.col.cache) if st.cwd else None
        return argv, wrappers, env, dynamic, cwd, xopts

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

    # -- environment variables that carry commands ------------------------------------------
    def _env_values(self, env: dict[str, str], dyn_env: Set[str], argv: list[Field], st: State) -> None:
        """Variables that programs run as commands (GIT_SSH_COMMAND, PAGER, EDITOR, ...) are
        parsed as shell bodies; files a program sources or libraries it loads because of a
        variable (BASH_ENV, LD_PRELOAD, ...) are opaque."""
        program = _basename(argv[0].text) if argv and not argv[0].dynamic else ""
        for k, v in env.items():
            self._env_value(k, None if k in dyn_env else v, st, program, env)

    def _env_value(
        self, k: str, v: str | None, st: State, program: str, env: Mapping[str, str | None]
    ) -> None:
        kind = _ENV_KINDS.get(k)
        if kind is None:
            if k.startswith("GIT_CONFIG_VALUE_"):
                key = env.get("GIT_CONFIG_KEY_" + k[len("GIT_CONFIG_VALUE_") :], "")
                if key:
                    self._git_setting(key, v, st)
            elif k == "GIT_CONFIG_PARAMETERS" and (v is None or v.strip()):
                self.col.opaque("git_config_exec")
            elif k.startswith("BASH_FUNC_"):
                self.col.opaque("env_sourced_file")
            return
        if kind == "shell_if" and program not in SHELLS:
            return
        if v is None:
            self.col.opaque("shell_dynamic_body" if kind in ("cmd", "less") else "env_sourced_file")
            return
        if not v.strip():
            return
        if kind == "cmd":
            if k in _SSH_TRANSPORT_VARS and _plain_ssh(v):
                return  # the ssh git or rsync would run anyway, with a key or port: nothing else runs
            self._body(v, st, "shell_c")
        elif kind == "less":
            # LESSOPEN="|cmd %s" / "||cmd %s" / "cmd %s"
            self._body(v.lstrip("|-"), st, "shell_c")
        elif kind == "prompt":
            if "$(" in v or "`" in v:
                self.col.opaque("shell_prompt_expansion")
        elif kind == "preload":
            self.col.opaque("env_preload")
        elif kind in ("source", "shell_if") or (kind == "options" and _ENV_LOADS.get(k, _NEVER).search(v)):
            self.col.opaque("env_sourced_file")

    def _git_setting(self, key: str, value: str | None, st: State) -> None:
        """A git setting given on the command line, in the environment or by `git config`:
        a command it names is parsed; a hook directory or included file is opaque."""
        if _GIT_FILE_KEY.match(key):
            self.col.opaque("git_config_exec")
            return
        if not _GIT_EXEC_KEY.match(key):
            return
        if value is None:
            self.col.opaque("shell_dynamic_body")
            return
        k = key.lower()
        body = value.strip()
        if not body:
            return
        if k.startswith("alias."):
            # `!cmd` runs a shell command; anything else is a git command line
            body = body[1:] if body.startswith("!") else "git " + body
        elif k.endswith(".helper"):
            if body.startswith("!"):
                body = body[1:]
            elif not body.startswith("/"):
                return  # git credential-<name>
        elif k == "core.fsmonitor" and body.lower() in ("true", "false", "yes", "no", "on", "off", "1", "0"):
            return
        self._body(body, st, "shell_c")

    # -- xargs -------------------------------------------------------------------------------
    def _xargs(
        self, opts: list[Field], argv: list[Field], feed: Feed, stdin: Stdin | None, st: State
    ) -> list[tuple[list[Field], bool, tuple[str, ...]]]:
        """The commands xargs runs: argv with its input appended (or put in place of -I's
        string). Literal input (`xargs rm <<< /`, `echo / | xargs rm`) gives literal operands;
        other input leaves them unknown, with what the feeding command named as maybe-paths."""
        arg_file: Field | None = None
        replace: str | None = None
        delim: str | None = None
        i = 0
        n = len(opts)
        while i < n:
            t = opts[i].text
            nxt = opts[i + 1] if i + 1 < n else None
            if t in ("-a", "--arg-file"):
                arg_file, i = nxt, i + 2
                continue
            if t in ("-I", "-d", "--delimiter"):
                if nxt is not None and not nxt.dynamic:
                    if t == "-I":
                        replace = nxt.text
                    else:
                        delim = nxt.text
                i += 2
                continue
            if t.startswith("--arg-file="):
                arg_file = Field(t.partition("=")[2], opts[i].dynamic)
            elif t.startswith("--replace"):
                replace = t.partition("=")[2] or "{}"
            elif t.startswith("--delimiter="):
                delim = t.partition("=")[2]
            elif t in ("-0", "--null"):
                delim = "\x00"
            elif t.startswith("-") and not t.startswith("--") and len(t) > 1:
                # a cluster: the first value-taking letter takes the rest of the word
                for k, c in enumerate(t[1:], start=1):
                    if c == "0":
                        delim = "\x00"
                    elif c == "i":
                        replace = t[k + 1 :] or "{}"
                        break
                    elif c in "aIdELnPsR":
                        value = t[k + 1 :]
                        if not value and c in "aId" and nxt is not None and not nxt.dynamic:
                            value = nxt.text
                            i += 1
                        if c == "a":
                            arg_file = Field(value)
                        elif c == "I":
                            replace = value or None
                        elif c == "d":
                            delim = value
                        break
            i += 1
        text: str | None = None
        paths_in: tuple[str, ...] = ()
        if arg_file is not None:
            if arg_file.dynamic:
                self.col.opaque("shell_dynamic_source")
            elif arg_file.text in ("-", "/dev/stdin", "/proc/self/fd/0", "/dev/fd/0"):
                arg_file = None
            elif not paths.problem(arg_file.text) and (arg_file.text.startswith("/") or st.cwd is not None):
                # xargs reads the file: its words become arguments (`xargs -a key echo` prints it)
                path = paths.resolve(arg_file.text, st.cwd or "/", self.col.cache)
                self.col.add_path(arg_file.text, path, self.col.arg, "command", "read")
        if arg_file is None:
            if stdin is not None:
                if stdin.kind not in ("decoded", "unknown"):
                    text = stdin.text
            elif feed.content is not None and not feed.decoded:
                text = feed.content
            else:
                paths_in = tuple(p for p in feed.paths if p)
        if text is None:
            if replace:
                argv = [
                    Field(f.text, dynamic=True, sources=paths_in) if replace in f.text else f for f in argv
                ]
            return [(argv, True, paths_in)]
        items = self._xargs_items(text, delim, replace is not None)
        if items is None:
            return [(argv, True, ())]
        if replace:
            none: tuple[str, ...] = ()
            runs = [
                ([Field(f.text.replace(replace, item)) for f in argv], False, none) for item in items[:16]
            ]
            return runs or [(argv, False, ())]
        return [([*argv, *(Field(x) for x in items)], False, ())]

    @staticmethod
    def _xargs_items(text: str, delim: str | None, lines: bool) -> list[str] | None:
        if delim is not None:
            sep = decode_ansi_c(delim) if "\\" in delim else delim
            if not sep:
                return None
            items = text.split(sep[0])
            if items and items[-1] in ("", "\n"):
                items.pop()
        elif lines:
            items = [ln.lstrip(" \t") for ln in text.split("\n") if ln.strip()]
        else:
            try:
                items = shlex.split(text, posix=True)
            except ValueError:
                return None
        return items[:MAX_FIELDS]

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
        if (name not in _SPECIAL and not is_python(name)) or (
            name in _CARRIER_TRIGGERS and not _triggered(_CARRIER_TRIGGERS[name], argv)
        ):
            # the common case: nothing to parse further, output unknown but not decoded
            return Feed(name, None, feed.decoded)
        decoded = feed.decoded or self._is_decoder(name, argv)
        if name in ("cd", "pushd"):
            self._cd(operands, st)
        elif name == "popd":
            st.cwd = None
        elif name in ("read", "mapfile", "readarray", "getopts"):
            names = [f.text for f in operands if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", f.text)]
            literal = stdin.text if stdin is not None and stdin.kind == "herestring" else None
            if name == "read" and len(names) == 1 and literal is not None and flags in ([], ["-r"]):
                line = literal.split("\n", 1)[0].strip(" \t")
                st.vars[names[0]] = line if ("-r" in flags or "\\" not in line) else None
                st.arrays.pop(names[0], None)
            else:
                # the names read from the input may be any path the command feeding it named
                srcs = tuple(p for p in (feed.paths or self._input_paths) if p)
                for v in names:
                    st.vars[v] = None
                    st.arrays.pop(v, None)
                    if srcs:
                        st.srcs[v] = srcs
        if name == "set":
            self._set_positional(argv, st)
        if name == "printf" and "-v" in flags:
            for i, f in enumerate(argv[:-1]):
                if f.text == "-v":
                    st.vars[argv[i + 1].text] = None
        sub = State(cwd, st.vars, st.context, st.depth, False, st.srcs, st.arrays)
        if name in SHELLS:
            self._shell_invocation(argv, sub, feed, stdin)
        elif name in ("pytest", "py.test"):
            self._pytest(argv, sub)
        elif is_python(name):
            if _runs_module(argv, "pytest"):
                self._pytest(argv, sub)
            self._python_invocation(argv, sub, feed, stdin)
        elif name in NODES:
            self._node_invocation(argv, sub, feed, stdin)
        elif name in OTHER_INTERPRETERS:
            self._other_interpreter(name, argv, feed, stdin, sub)
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
        elif name == "flock":
            self._flock(argv, sub)
        elif name in _BODY_C:
            self._body_c(name, argv, sub)
        elif name in ("awk", "gawk", "mawk", "nawk", "busybox"):
            self._awk(argv, sub)
        elif name in ("sed", "gsed"):
            self._sed(argv)
        elif name == "git":
            self._git(argv, sub)
        elif name in ("ssh", "scp", "sftp", "rsync"):
            self._ssh(name, argv, sub)
        elif name in _OPTION_BODIES:
            self._option_bodies(name, argv, sub)
            if name == "hyperfine":
                self._hyperfine(argv, sub)
        elif name in _CARRIERS:
            self._carrier(name, argv, sub, feed, stdin)
        if stdin is not None and stdin.kind != "decoded" and name in ("patch", "git") and stdin.text:
            self._patch_stdin(name, argv, stdin.text, cwd)
        if decoded and not feed.decoded:
            plain = _decode_literal(name, argv, operands, feed, stdin)
            if plain is not None:
                return Feed(name, plain, True, "shell_c")
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
                if _SIMPLE_ESCAPES.fullmatch(text):
                    content = decode_ansi_c(text)
                    if content is not None:
                        content += "" if any("n" in o for o in opts) else "\n"
                decoded = content is None
            else:
                content = text + ("" if any("n" in o for o in opts) else "\n")
        elif name == "printf" and len(argv) >= 2 and not argv[1].text.startswith("-"):
            content = _printf(argv[1].text, [f.text for f in argv[2:]])
            decoded = decoded or content is None
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

    def _set_positional(self, argv: list[Field], st: State) -> None:
        """`set -- a b` / `set a b`: the positional parameters ("$@", $1 ...)."""
        words = argv[1:]
        texts = [f.text for f in words]
        if "--" in texts:
            rest = words[texts.index("--") + 1 :]
        elif words and not texts[0].startswith(("-", "+")):
            rest = words
        else:
            return
        if any(f.dynamic for f in rest):
            st.arrays.pop("@", None)
        else:
            st.arrays["@"] = [f.text for f in rest]

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
            # decoded data: opaque, but when the data was literal its decoding is shown too
            return feed.content, feed.kind, True
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
            return (program, context or "shell_c") if program is not None else (None, "")
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
                # `xargs sh -c`: the body is the input's first word
                self.col.opaque("shell_dynamic_body")
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
        if _INLINE_SOCKET.search(body.text) and _INLINE_EXEC.search(body.text):
            self.col.opaque("inline_socket_exec")
        for m in re.finditer(
            r"\b(?:exec|execSync|spawn|spawnSync|execFile|execFileSync)\s*\(\s*(['\"`])((?:(?!\1)[^\\]|\\.)*)\1",
            body.text,
        ):
            self._body(m.group(2), st, "node_e")
        for fact in url.find_in_text(body.text, self.col.arg):
            self.col.add_url(fact)

    def _other_interpreter(
        self, name: str, argv: list[Field], feed: Feed, stdin: Stdin | None, st: State
    ) -> None:
        opts = OTHER_INTERPRETERS[name]
        short = {o[1] for o in opts if len(o) == 2}
        for i, f in enumerate(argv[1:], start=1):
            a = f.text
            m = _CODE_CLUSTER.match(a) if short and not a.startswith("--") else None
            if a in opts or (m is not None and m.group(1) in short):
                self.col.opaque(f"{name.lower()}_e")
                body = argv[i + 1] if i + 1 < len(argv) else None
                if m is not None and m.end() < len(a):
                    body = Field(a[m.end() :], f.dynamic)  # -e'code'
                if body is not None:
                    self._inline_program(name, body, st)
                return
            if a.startswith("-") and not a.startswith("--") and short & set(a[1:]) and m is None:
                self.col.opaque(f"{name.lower()}_e")  # an option we cannot split: assume code follows
            if not a.startswith("-"):
                if f.decoded:
                    self.col.opaque("decode_and_run")
                return
        program, _c = self._program_from_stdin(feed, stdin)
        if program is not None:
            self.col.opaque(f"{name.lower()}_e")
            self._inline_program(name, Field(program), st)

    def _inline_program(self, name: str, body: Field, st: State) -> None:
        """A one-liner in a language we do not parse stays opaque, but the commands it hands a
        shell as string literals (system "…", `…`, qx{…}, os.execute, exec, popen …), the
        directories it removes by literal path and the URLs it names are exposed."""
        if body.dynamic:
            if body.decoded:
                self.col.opaque("decode_and_run")
            return
        text = body.text
        if _INLINE_SOCKET.search(text) and _INLINE_EXEC.search(text):
            self.col.opaque("inline_socket_exec")
        found = 0
        for m in _INLINE_CALL.finditer(text):
            found += 1
            if found > 16:
                break
            words = [_unescape_literal(w.group(2)) for w in _STRING_LIST.finditer(m.group("args") or "")]
            inline = next(
                (g for g in m.group("inline", "qx1", "qx2", "qx3", "qx4", "rx1", "rx2") if g is not None),
                None,
            )
            if inline is not None:
                words = [_unescape_literal(inline)]
            if not words:
                continue
            if len(words) == 1:
                self._body(words[0], st, "shell_c")
            else:
                self._carried_argv([Field(w) for w in words], st, name)
        for m in _INLINE_RMTREE.finditer(text):
            raw = _unescape_literal(m.group(2))
            if raw and not paths.problem(raw) and (raw.startswith("/") or st.cwd):
                self.col.add_path(
                    raw, paths.resolve(raw, st.cwd or "/", self.col.cache), self.col.arg, "code", "delete"
                )
        for fact in url.find_in_text(text, self.col.arg):
            self.col.add_url(fact)

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
        user_at = -1
        for i, f in enumerate(argv[1:], start=1):
            if f.text in ("-u", "--user") and name == "runuser":
                user_at = i
            clustered = name != "flock" and re.fullmatch(r"-[a-zA-Z]*c", f.text) is not None
            if (f.text in (flag, "--command") or clustered) and i + 1 < len(argv):
                body = argv[i + 1]
                if body.dynamic:
                    self.col.opaque("decode_and_run" if body.decoded else "shell_dynamic_body")
                else:
                    self._body(body.text, st, "shell_c")
                return
            if f.text.startswith("--command="):
                self._body(f.text.split("=", 1)[1], st, "shell_c")
                return
        if user_at > 0:
            # runuser -u USER [--] CMD ARGS...
            rest = argv[user_at + 2 :]
            if rest and rest[0].text == "--":
                rest = rest[1:]
            self._carried_argv(rest, st, name)

    def _awk(self, argv: list[Field], st: State) -> None:
        for f in argv[1:]:
            t = f.text
            if re.search(r"\bsystem\s*\(|\|\s*getline|\|&|print[f]?[^;{}]*\|\s*[\"a-zA-Z_]", t):
                self.col.opaque("awk_exec")
                # system("cmd"), print … | "cmd", "cmd" | getline: the literal command lines
                for m in _AWK_COMMAND.finditer(t):
                    body = m.group(1) or m.group(2) or m.group(3) or ""
                    if body:
                        self._body(_unescape_literal(body), st, "shell_c")
                if _INLINE_SOCKET.search(t):
                    self.col.opaque("inline_socket_exec")
                return

    def _sed(self, argv: list[Field]) -> None:
        for f in argv[1:]:
            t = f.text
            if re.search(r"(?:^|[;\n{}])\s*e(?:\s|$|;)", t) or re.search(
                r"(?:^|[;\n{}])\s*s(.)(?:(?!\1).|\\.)*\1(?:(?!\1).|\\.)*\1[gpiImMw0-9]*e", t
            ):
                self.col.opaque("sed_exec")
                return

    # -- commands carried by options and wrappers ------------------------------------------
    def _option_value(self, argv: list[Field], i: int, opt: str) -> tuple[Field | None, int]:
        """The value argv[i] gives option opt (its own word after it, after `=`, or attached to a
        short option), and how many words it took; (None, 0) when argv[i] is not opt."""
        t = argv[i].text
        if t == opt:
            return (argv[i + 1], 2) if i + 1 < len(argv) else (None, 1)
        if opt.startswith("--") and t.startswith(opt + "="):
            return Field(t[len(opt) + 1 :], argv[i].dynamic), 1
        if len(opt) == 2 and t.startswith(opt) and len(t) > 2 and not t.startswith("--"):
            return Field(t[2:], argv[i].dynamic), 1
        return None, 0

    def _carried_body(self, body: Field, st: State, context: str = "shell_c") -> None:
        if body.dynamic:
            self.col.opaque("decode_and_run" if body.decoded else "shell_dynamic_body")
        elif body.text.strip():
            self._body(body.text, st, context)

    def _carried_argv(self, argv: list[Field], st: State, wrapper: str, context: str | None = None) -> None:
        """A command given as words of another one (screen CMD, docker run IMG CMD ...)."""
        if not argv:
            return
        sub = st.fork(context, deeper=True)
        if sub.depth > MAX_DEPTH:
            self.col.opaque("shell_too_deep")
            return
        self._emit_argv(argv, sub, [wrapper])

    def _option_bodies(self, name: str, argv: list[Field], st: State) -> None:
        table = _OPTION_BODIES[name]
        i = 1
        n = len(argv)
        while i < n:
            t = argv[i].text
            if t == "--":
                break
            took = 0
            if t.startswith("-"):
                for opt, kind in table.items():
                    value, took = self._option_value(argv, i, opt)
                    if took:
                        if value is None:
                            break
                        if kind == "tar_action":
                            # --checkpoint-action=exec=CMD (other actions print or wait)
                            if value.dynamic:
                                self._carried_body(value, st)
                            elif value.text.startswith("exec="):
                                self._carried_body(Field(value.text[5:]), st)
                        elif kind == "attached" and took == 2:
                            took = 1  # an optional value must be attached (`--html=CMD`)
                        else:
                            self._carried_body(value, st)
                        break
            i += took or 1

    def _hyperfine(self, argv: list[Field], st: State) -> None:
        """hyperfine's operands are command lines it runs through a shell."""
        takes = {"-w": 1, "--warmup": 1, "-r": 1, "--runs": 1, "-m": 1, "--min-runs": 1, "-M": 1}
        takes |= {"--max-runs": 1, "-n": 1, "--command-name": 1, "-L": 2, "--parameter-list": 2, "-P": 3}
        takes |= {"--parameter-scan": 3, "-D": 1, "--parameter-step-size": 1, "-S": 1, "--shell": 1}
        takes |= {"-u": 1, "--time-unit": 1, "--style": 1, "--output": 1, "--sort": 1}
        takes |= dict.fromkeys(_OPTION_BODIES["hyperfine"], 1)
        i = 1
        while i < len(argv):
            t = argv[i].text
            if t.startswith("--export"):
                i += 1 if "=" in t else 2
            elif t.startswith("-") and len(t) > 1:
                i += 1 + (0 if "=" in t else takes.get(t, 0))
            else:
                self._carried_body(argv[i], st)
                i += 1

    def _git(self, argv: list[Field], st: State) -> None:
        """git runs commands it is given in settings (-c KEY=VALUE, --config-env, GIT_CONFIG_*,
        `git config KEY VALUE`) and in subcommand options (rebase --exec, submodule foreach,
        bisect run, filter-branch --*-filter, --upload-pack, ...)."""
        n = len(argv)
        i = 1
        sub_i = -1
        while i < n:
            t = argv[i].text
            if t == "-c" or (t.startswith("-c") and len(t) > 2 and not t.startswith("--")):
                kv = argv[i + 1] if t == "-c" and i + 1 < n else Field(t[2:], argv[i].dynamic)
                self._git_kv(kv, st)
                i += 2 if t == "-c" else 1
                continue
            if t.startswith("--config-env="):
                key, _, var = t.partition("=")[2].partition("=")
                self._git_setting(key, st.vars.get(var) if var in st.vars else None, st)
                i += 1
                continue
            if t in _GIT_VALUE_OPTIONS:
                i += 2
                continue
            if t.startswith("--exec-path="):
                self.col.opaque("git_config_exec")  # git runs its subcommands from there
            if t.startswith("-"):
                i += 1
                continue
            sub_i = i
            break
        if sub_i < 0:
            return
        sub = argv[sub_i].text
        rest = argv[sub_i + 1 :]
        if sub == "clone":
            for k, f in enumerate(rest):
                if f.text in ("-c", "--config") and k + 1 < len(rest):
                    self._git_kv(rest[k + 1], st)
                elif f.text.startswith("--config="):
                    self._git_kv(Field(f.text.partition("=")[2], f.dynamic), st)
        if sub == "config":
            self._git_config(rest, st)
        elif sub == "submodule":
            words = [f for f in rest if not f.text.startswith("-")]
            if words and words[0].text == "foreach":
                k = rest.index(words[0]) + 1
                while k < len(rest) and rest[k].text.startswith("-"):
                    k += 1
                self._git_words_body(rest[k:], st)
        elif sub == "bisect" and rest and rest[0].text == "run":
            self._carried_argv(rest[1:], st, "git")
        elif "git " + sub in _OPTION_BODIES:
            self._option_bodies("git " + sub, [argv[sub_i], *rest], st)

    def _git_words_body(self, words: list[Field], st: State) -> None:
        if not words:
            return
        if any(f.dynamic for f in words):
            self.col.opaque("shell_dynamic_body")
            return
        self._body(" ".join(f.text for f in words), st, "shell_c")

    def _git_kv(self, kv: Field, st: State) -> None:
        if kv.dynamic:
            key = kv.text.partition("=")[0]
            if _GIT_EXEC_KEY.match(key) or _GIT_FILE_KEY.match(key) or not re.fullmatch(r"[\w.-]+", key):
                self.col.opaque("git_config_exec")
            return
        key, eq, value = kv.text.partition("=")
        self._git_setting(key, value if eq else "true", st)

    def _git_config(self, rest: list[Field], st: State) -> None:
        """git config [--global|--file F|...] KEY VALUE, git config set KEY VALUE, --add."""
        words: list[Field] = []
        k = 0
        while k < len(rest):
            t = rest[k].text
            if t in ("-f", "--file", "--blob", "--type", "--default", "--comment", "--value"):
                k += 2
                continue
            if t in (
                "--get",
                "--get-all",
                "--get-regexp",
                "--unset",
                "--unset-all",
                "-l",
                "--list",
                "-e",
                "--edit",
            ):
                return
            if t.startswith("-") and not rest[k].dynamic:
                k += 1
                continue
            words.append(rest[k])
            k += 1
        if words and words[0].text in ("set", "add"):
            words = words[1:]
        elif words and words[0].text in ("get", "list", "unset", "edit", "rename-section", "remove-section"):
            return
        if len(words) >= 2:
            if words[0].dynamic:
                self.col.opaque("git_config_exec")
                return
            self._git_setting(words[0].text, None if words[1].dynamic else words[1].text, st)

    def _ssh(self, name: str, argv: list[Field], st: State) -> None:
        """ssh/scp/sftp/rsync options that run local commands (-o ProxyCommand=..., LocalCommand,
        rsync -e, scp -S), and the command ssh runs on the remote host."""
        n = len(argv)
        i = 1
        while i < n:
            t = argv[i].text
            if t == "--":
                i += 1
                break
            value, took = self._option_value(argv, i, "-o")
            if took and value is not None:
                self._ssh_option(value, st)
            if t.startswith("-") and len(t) > 1:
                i += took or (2 if name == "ssh" and len(t) == 2 and t[1] in _SSH_VALUE_SHORT else 1)
                continue
            if name != "ssh":
                i += 1
                continue
            break
        if name in _OPTION_BODIES:
            self._option_bodies(name, argv, st)
        if name == "ssh" and i + 1 < n:
            # ssh HOST CMD ARGS...: the words, joined by spaces, run in the remote user's shell
            # (options may still follow the host)
            k = i + 1
            while k < n and argv[k].text.startswith("-") and len(argv[k].text) > 1 and not argv[k].dynamic:
                if argv[k].text == "--":
                    k += 1
                    break
                t = argv[k].text
                k += 2 if len(t) == 2 and t[1] in _SSH_VALUE_SHORT else 1
            words = argv[k:]
            if not words:
                return
            if any(f.dynamic for f in words):
                self.col.opaque("shell_dynamic_body")
                return
            remote = st.fork()
            remote.cwd = self.col.home or None
            self._body(" ".join(f.text for f in words), remote, "remote")

    def _ssh_option(self, value: Field, st: State) -> None:
        if value.dynamic:
            if re.search(r"(?i)command", value.text):
                self.col.opaque("ssh_command_option")
            return
        m = re.match(
            r"(?is)\s*(proxycommand|localcommand|knownhostscommand|remotecommand)\s*[=\s]\s*(.*)", value.text
        )
        if not m:
            return
        body = m.group(2)
        if body.strip().lower() == "none":
            return
        if m.group(1).lower() == "remotecommand":
            remote = st.fork()
            remote.cwd = self.col.home or None
            self._body(body, remote, "remote")
        else:
            self._body(body, st, "shell_c")

    def _pytest(self, argv: list[Field], st: State) -> None:
        """pytest --basetemp=DIR empties DIR before the run (and removes it)."""
        for i in range(1, len(argv)):
            value, took = self._option_value(argv, i, "--basetemp")
            if took and value is not None:
                if value.dynamic:
                    self.col.opaque("shell_dynamic_redirect")
                else:
                    self._host_path(value.text, st, "delete", "shell_dynamic_cwd")

    def _carrier(self, name: str, argv: list[Field], st: State, feed: Feed, stdin: Stdin | None) -> None:
        if name in ("vim", "vi", "nvim", "view", "vimdiff", "gvim", "ex"):
            self._vim(argv, st)
        elif name == "gdb":
            self._gdb(argv, st)
        elif name == "expect":
            self._expect(argv, st)
        elif name in ("make", "gmake"):
            self._make(argv, st, feed, stdin)
        elif name == "screen":
            self._screen(argv, st)
        elif name == "tmux":
            self._tmux(argv, st)
        elif name in ("npm", "npx", "pnpm", "pnpx", "yarn", "bunx", "bun"):
            self._package_exec(name, argv, st)
        elif name == "parallel":
            self._parallel(argv, st, feed, stdin)
        elif name in ("fd", "fdfind"):
            self._fd(argv, st)
        elif name in ("docker", "podman", "nerdctl"):
            self._container(name, argv, st)
        elif name in ("kubectl", "oc"):
            self._kube(name, argv, st)
        elif name in ("psql", "mysql", "mariadb", "sqlite3"):
            self._db_shell(name, argv, st, feed, stdin)
        elif name == "less":
            self._less(argv, st)
        elif name in ("xterm", "gnome-terminal", "konsole"):
            self._terminal(name, argv, st)
        elif name in ("emacs", "emacsclient"):
            self._emacs(argv, st)
        else:
            self._env_run(name, argv, st)

    def _vim(self, argv: list[Field], st: State) -> None:
        i = 1
        while i < len(argv):
            f = argv[i]
            t = f.text
            if t == "--":
                return
            if t in ("-c", "--cmd") and i + 1 < len(argv):
                self._vim_command(argv[i + 1], st)
                i += 2
                continue
            if t.startswith("+") and len(t) > 1:
                self._vim_command(Field(t[1:], f.dynamic), st)
            elif t in ("-S", "-s", "-u", "--startuptime") or (t.startswith("-S") and len(t) > 2):
                if t in ("-S", "-s") or t.startswith("-S"):
                    self.col.opaque("vim_exec")  # sources a script we cannot see
                i += 2 if t in ("-S", "-s", "-u", "--startuptime") else 1
                continue
            i += 1

    def _vim_command(self, cmd: Field, st: State) -> None:
        """An Ex command: `!cmd`, `%!cmd`, `r !cmd`, `w !cmd` run a shell command; system() a
        literal one; a script language or `:source` is opaque."""
        if cmd.dynamic:
            self.col.opaque("vim_exec")
            return
        m = _VIM_BANG.match(cmd.text) or _VIM_READ_WRITE_BANG.match(cmd.text)
        if m:
            self._body(m.group(1), st, "shell_c")
            return
        if _VIM_SCRIPT.search(cmd.text):
            self.col.opaque("vim_exec")
        for c in _INLINE_CALL.finditer(cmd.text):
            words = [_unescape_literal(w.group(2)) for w in _STRING_LIST.finditer(c.group("args") or "")]
            if words:
                self._body(" ".join(words), st, "shell_c")

    def _gdb(self, argv: list[Field], st: State) -> None:
        i = 1
        while i < len(argv):
            t = argv[i].text
            if t == "--args":
                self._carried_argv(argv[i + 1 :], st, "gdb")
                return
            value: Field | None = None
            for opt in (
                "-ex",
                "--ex",
                "-iex",
                "--iex",
                "-eval-command",
                "--eval-command",
                "-init-eval-command",
            ):
                if t == opt and i + 1 < len(argv):
                    value = argv[i + 1]
                    i += 1
                elif t.startswith(opt + "="):
                    value = Field(t.partition("=")[2], argv[i].dynamic)
            if t in ("-x", "--command", "-ix", "--init-command") or t.startswith(("--command=", "-x=")):
                self.col.opaque("gdb_exec")
            if value is not None:
                self._gdb_command(value, st)
            i += 1

    def _gdb_command(self, cmd: Field, st: State) -> None:
        if cmd.dynamic:
            self.col.opaque("gdb_exec")
            return
        text = cmd.text.strip()
        m = re.match(r"(?:shell\s|!)\s*(.*)$", text, re.S)
        if m:
            self._body(m.group(1), st, "shell_c")
            return
        m = re.match(r"(?:pipe\s|\|)[^|]*\|\s*(.*)$", text, re.S)
        if m:
            self._body(m.group(1), st, "shell_c")
            return
        if re.match(r"(?:python|py|pi|python-interactive|source|guile|gu)\b", text):
            self.col.opaque("gdb_exec")
        for c in _INLINE_CALL.finditer(text):
            words = [_unescape_literal(w.group(2)) for w in _STRING_LIST.finditer(c.group("args") or "")]
            if words:
                self._body(" ".join(words), st, "shell_c")

    def _expect(self, argv: list[Field], st: State) -> None:
        for i, f in enumerate(argv[1:], start=1):
            if f.text == "-c" and i + 1 < len(argv):
                script = argv[i + 1]
                self.col.opaque("expect_e")  # Tcl: not parsed
                if script.dynamic:
                    return
                for m in re.finditer(
                    r"(?:^|[;\n\[{])\s*(?:spawn|exec)\s+(?:-\S+\s+)*([^;\n\]}]+)", script.text
                ):
                    self._body(m.group(1), st, "shell_c")
                return

    def _make(self, argv: list[Field], st: State, feed: Feed, stdin: Stdin | None) -> None:
        texts: list[str] = []
        for i in range(1, len(argv)):
            value, took = self._option_value(argv, i, "--eval")
            if not took:
                value, took = self._option_value(argv, i, "-E")
            if took and value is not None:
                if value.dynamic:
                    self.col.opaque("shell_dynamic_body")
                else:
                    texts.append(value.text)
            for opt in ("-f", "--file", "--makefile"):
                file, ftook = self._option_value(argv, i, opt)
                if (
                    ftook
                    and file is not None
                    and file.text in ("-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0")
                ):
                    program, _context = self._program_from_stdin(feed, stdin)
                    if program is not None:
                        texts.append(program)
        for text in texts:
            for recipe in _make_recipes(text):
                self._body(recipe, st, "shell_c")

    def _screen(self, argv: list[Field], st: State) -> None:
        i = 1
        n = len(argv)
        while i < n:
            t = argv[i].text
            if t in ("-ls", "-list", "-wipe", "-v", "-version", "-r", "-R", "-x", "-Q", "-help"):
                return
            if t == "-X":
                words = argv[i + 1 :]
                if len(words) > 1 and words[0].text == "stuff":
                    self._typed(words[1], st)
                elif words and words[0].text in ("exec", "screen"):
                    rest = [w for w in words[1:] if not re.fullmatch(r"[.!:|]+", w.text)]
                    self._carried_argv(rest, st, "screen")
                return
            if not t.startswith("-"):
                break
            i += 2 if t in ("-Logfile", "-logfile") or (len(t) >= 2 and t[-1] in "ScehpstT") else 1
        self._carried_argv(argv[i:], st, "screen")

    def _typed(self, keys: Field, st: State) -> None:
        """Text typed into a shell (screen stuff, tmux send-keys): each line runs."""
        if keys.dynamic:
            self.col.opaque("shell_dynamic_body")
            return
        text = re.sub(r"\\n|\\r|\^M|\\015|\\012", "\n", keys.text)
        if text.strip():
            self._body(text, st, "shell_c")

    def _tmux(self, argv: list[Field], st: State) -> None:
        i = 1
        n = len(argv)
        while i < n and argv[i].text.startswith("-"):
            t = argv[i].text
            if t == "-c" and i + 1 < n:
                self._carried_body(argv[i + 1], st)
                return
            i += 2 if t in ("-L", "-S", "-f", "-T") else 1
        command: list[Field] = []
        for f in [*argv[i:], Field(";")]:
            if f.text == ";" and not f.dynamic:
                if command:
                    self._tmux_command(command, st)
                command = []
            elif f.text.endswith("\\;") or (f.text.endswith(";") and len(f.text) > 1 and not command):
                command.append(Field(f.text.rstrip(";").rstrip("\\"), f.dynamic))
                self._tmux_command(command, st)
                command = []
            else:
                command.append(f)

    def _tmux_command(self, words: list[Field], st: State) -> None:
        sub = words[0].text
        values = _TMUX_VALUES.get(sub)
        if values is None:
            return
        literal = False
        hexkeys = False
        i = 1
        while i < len(words) and words[i].text.startswith("-") and len(words[i].text) > 1:
            t = words[i].text
            if t == "--":
                i += 1
                break
            literal = literal or "l" in t[1:]
            hexkeys = hexkeys or "H" in t[1:]
            i += 2 if t[-1] in values and len(t) == 2 else 1
        rest = words[i:]
        if not rest:
            return
        if sub in ("send-keys", "send"):
            if hexkeys or any(f.dynamic for f in rest):
                self.col.opaque("shell_dynamic_body")
                return
            parts = [
                f.text if literal else _TMUX_KEYS.get(f.text, "" if _TMUX_KEY.fullmatch(f.text) else f.text)
                for f in rest
            ]
            self._typed(Field("".join(parts)), st)
        elif sub in ("if-shell", "if"):
            self._carried_body(rest[0], st)
        elif any(f.dynamic for f in rest):
            self.col.opaque("shell_dynamic_body")
        else:
            self._body(" ".join(f.text for f in rest), st, "shell_c")

    def _package_exec(self, name: str, argv: list[Field], st: State) -> None:
        """npx CMD, npm exec [--] CMD, pnpm exec|dlx CMD, yarn exec|dlx CMD, bunx CMD, bun x CMD;
        -c / --call 'CMD' run through a shell."""
        i = 1
        n = len(argv)
        shell_mode = False
        if name not in ("npx", "pnpx", "bunx"):
            while i < n and argv[i].text.startswith("-"):
                shell_mode = shell_mode or (name == "pnpm" and argv[i].text in ("-c", "--shell-mode"))
                i += 2 if argv[i].text in _PKG_VALUE_OPTIONS else 1
            if i >= n or argv[i].text not in ("exec", "x", "dlx"):
                return
            if name == "bun" and argv[i].text == "exec":
                if i + 1 < n:
                    self._carried_body(argv[i + 1], st)
                return
            i += 1
        while i < n and argv[i].text.startswith("-"):
            t = argv[i].text
            if t == "--":
                i += 1
                break
            value, took = self._option_value(argv, i, "-c")
            if not took:
                value, took = self._option_value(argv, i, "--call")
            if took:
                if value is not None:
                    self._carried_body(value, st)
                return
            i += 2 if t in _PKG_VALUE_OPTIONS else 1
        rest = argv[i:]
        if shell_mode and rest:
            self._git_words_body(rest, st)
        else:
            self._carried_argv(rest, st, name)

    def _parallel(self, argv: list[Field], st: State, feed: Feed, stdin: Stdin | None) -> None:
        """GNU parallel runs its command template through a shell, once per argument (from
        `:::` lists, or its input), with {} replaced or the argument appended."""
        i = 1
        n = len(argv)
        while i < n and argv[i].text.startswith("-") and argv[i].text not in (":::", "::::"):
            t = argv[i].text
            if t in ("-a", "--arg-file") and i + 1 < n:
                self._xargs([argv[i], argv[i + 1]], [], feed, stdin, st)
            i += 2 if t in _PARALLEL_VALUE_OPTIONS else 1
        words = argv[i:]
        seps = [k for k, f in enumerate(words) if f.text in (":::", "::::", ":::+", "::::+")]
        template = words[: seps[0]] if seps else words
        if any(f.dynamic for f in template):
            self.col.opaque("shell_dynamic_body")
            return
        line = " ".join(f.text for f in template)
        args: list[Field] = []
        if seps and words[seps[0]].text.startswith(":::") and words[seps[0]].text.rstrip("+") == ":::":
            end = seps[1] if len(seps) > 1 else len(words)
            args = words[seps[0] + 1 : end]
        elif not seps:
            program, _context = self._program_from_stdin(feed, stdin)
            if program is not None:
                args = [Field(x) for x in program.split("\n") if x.strip()]
        if not args:
            args = [Field('"$PARALLEL_ARG"', dynamic=True)]
        for arg in args[:8]:
            text = arg.text if arg.dynamic else shlex.quote(arg.text)
            if not line:
                body = arg.text
            elif "{}" in line:
                body = line.replace("{}", text)
            else:
                body = f"{line} {text}"
            self._body(body, st, "shell_c")

    def _flock(self, argv: list[Field], st: State) -> None:
        i = 1
        n = len(argv)
        lock = -1
        while i < n:
            t = argv[i].text
            if t in ("-c", "--command") or t.startswith("--command="):
                self._body_c("flock", argv, st)
                return
            if t.startswith("-"):
                i += 2 if t in ("-w", "--timeout", "--wait", "-E", "--conflict-exit-code") else 1
                continue
            if lock < 0:
                lock = i
                i += 1
                continue
            self._carried_argv(argv[i:], st, "flock")
            return

    def _fd(self, argv: list[Field], st: State) -> None:
        for i, f in enumerate(argv[1:], start=1):
            if f.text in ("-x", "--exec", "-X", "--exec-batch"):
                rest = argv[i + 1 :]
                end = next((k for k, w in enumerate(rest) if w.text == ";"), len(rest))
                self._carried_argv(rest[:end], st, "fd")
                return

    def _container(self, name: str, argv: list[Field], st: State) -> None:
        """docker/podman run|create|exec: the command runs in the container (context remote);
        a bind mount gives it the host directory (a path the command may write)."""
        i = 1
        n = len(argv)
        while i < n and argv[i].text.startswith("-"):
            i += (
                2
                if argv[i].text in ("-H", "--host", "--context", "-c", "--config", "-l", "--log-level")
                else 1
            )
        if i < n and argv[i].text == "container":
            i += 1
        if i >= n or argv[i].text not in ("run", "create", "exec"):
            return
        sub = argv[i].text
        i += 1
        entrypoint: Field | None = None
        workdir: str | None = None
        while i < n:
            f = argv[i]
            t = f.text
            if t == "--":
                i += 1
                break
            if not t.startswith("-") or len(t) == 1:
                break
            key, eq, attached = t.partition("=")
            value = Field(attached, f.dynamic) if eq else (argv[i + 1] if i + 1 < n else None)
            takes = key in _DOCKER_VALUE_LONG or (
                not key.startswith("--") and len(key) >= 2 and key[-1] in _DOCKER_VALUE_SHORT
            )
            if not takes:
                i += 1
                continue
            if value is not None:
                if key in ("-v", "--volume"):
                    self._bind_mount(
                        value,
                        st,
                        value.text.split(":", 1)[0],
                        ":ro" in value.text or value.text.endswith(":ro"),
                    )
                elif key == "--mount":
                    self._mount_option(value, st)
                elif key == "--entrypoint":
                    entrypoint = value
                elif key in ("-w", "--workdir") and not value.dynamic:
                    workdir = value.text
                elif key == "--health-cmd":
                    self._carried_body(value, st, "remote")
            i += 1 if eq else 2
        words = argv[i:]
        if sub == "exec":
            words = words[1:]  # the container
        else:
            words = words[1:]  # the image
            if entrypoint is not None:
                words = [entrypoint, *words]
        if not words:
            return
        inside = st.fork()
        inside.cwd = workdir if workdir and workdir.startswith("/") else None
        self._carried_argv(words, inside, name, "remote")

    def _bind_mount(self, spec: Field, st: State, source: str, read_only: bool) -> None:
        if spec.dynamic:
            head = spec.text.split(":", 1)[0]
            if head.startswith(("$", "~", "/", ".", '"')) or "$" in head:
                self.col.opaque("shell_dynamic_mount")
            return
        if not source.startswith(("/", "~", ".")):
            return  # a named volume
        self._host_path(source, st, "read" if read_only else "write")

    def _mount_option(self, spec: Field, st: State) -> None:
        if spec.dynamic:
            self.col.opaque("shell_dynamic_mount")
            return
        opts = dict(part.partition("=")[::2] for part in spec.text.split(","))
        if opts.get("type", "volume") != "bind":
            return
        source = opts.get("source") or opts.get("src") or ""
        read_only = "readonly" in opts or ("ro" in opts and opts.get("ro", "true") != "false")
        if source:
            self._host_path(source, st, "read" if read_only else "write")

    def _host_path(self, raw: str, st: State, op: str, unknown: str = "shell_dynamic_mount") -> None:
        text = raw
        if text.startswith("~"):
            text, bad = paths.expand_tilde(text, self.col.home, st.cwd or "")
            if bad:
                self.col.opaque(bad)
                return
        if paths.problem(text) or (not text.startswith("/") and st.cwd is None):
            self.col.opaque(unknown)
            return
        self.col.add_path(
            raw, paths.resolve(text, st.cwd or "/", self.col.cache), self.col.arg, "command", op
        )

    def _kube(self, name: str, argv: list[Field], st: State) -> None:
        texts = [f.text for f in argv]
        i = 1
        n = len(argv)
        while i < n and texts[i].startswith("-"):
            i += 2 if texts[i] in _KUBE_VALUE_OPTIONS else 1
        if i >= n or texts[i] not in ("exec", "run", "debug"):
            return
        inside = st.fork()
        inside.cwd = None
        if "--" in texts[i:]:
            k = texts.index("--", i)
            self._carried_argv(argv[k + 1 :], inside, name, "remote")
            return
        if texts[i] == "exec":
            k = i + 1
            pod_seen = False
            while k < n:
                if texts[k].startswith("-"):
                    k += 2 if texts[k] in _KUBE_VALUE_OPTIONS or texts[k] in ("-c", "--container") else 1
                    continue
                if not pod_seen:
                    pod_seen = True
                    k += 1
                    continue
                break
            self._carried_argv(argv[k:], inside, name, "remote")

    def _db_shell(self, name: str, argv: list[Field], st: State, feed: Feed, stdin: Stdin | None) -> None:
        """Database shells run shell commands: psql `\\!`, `\\o |cmd`, COPY … PROGRAM; mysql
        `system` / `\\!`; sqlite3 `.shell` / `.system`."""
        texts: list[str] = []
        for i in range(1, len(argv)):
            for opt in ("-c", "--command", "-e", "--execute", "-cmd"):
                value, took = self._option_value(argv, i, opt)
                if took and value is not None and not value.dynamic:
                    texts.append(value.text)
        if name == "sqlite3":
            texts.extend(f.text for f in argv[2:] if not f.text.startswith("-") and not f.dynamic)
        program, _context = self._stdin_program(feed, stdin)[:2]
        if program is not None:
            texts.append(program)
        for text in texts:
            for m in _DB_SHELL.finditer(text):
                body = next(g for g in m.groups() if g is not None)
                self._body(body.replace("''", "'"), st, "shell_c")

    def _less(self, argv: list[Field], st: State) -> None:
        for f in argv[1:]:
            if f.text.startswith("+") and not f.dynamic:
                m = re.match(r"\+{1,2}(?:!|\|.)\s*(.*)$", f.text, re.S)
                if m:
                    self._body(m.group(1), st, "shell_c")

    def _emacs(self, argv: list[Field], st: State) -> None:
        """emacs --eval / -l: Lisp is opaque; shell-command and call-process literals are shown."""
        for i in range(1, len(argv)):
            t = argv[i].text
            if t in ("-l", "--load", "-f", "--funcall", "--script", "-x") or t.startswith(
                ("--load=", "--funcall=")
            ):
                self.col.opaque("emacs_eval")
            for opt in ("--eval", "-eval", "--execute", "-execute"):
                value, took = self._option_value(argv, i, opt)
                if not took or value is None:
                    continue
                self.col.opaque("emacs_eval")
                if value.dynamic:
                    break
                for m in _EMACS_SHELL.finditer(value.text):
                    self._body(_unescape_literal(m.group(1)), st, "shell_c")
                for m in _EMACS_PROCESS.finditer(value.text):
                    words = [
                        _unescape_literal(w.group(1))
                        for w in re.finditer(r'"((?:\\.|[^"\\])*)"', m.group(1) or m.group(2) or "")
                    ]
                    self._carried_argv([Field(w) for w in words], st, "emacs")
                break

    def _terminal(self, name: str, argv: list[Field], st: State) -> None:
        for i, f in enumerate(argv[1:], start=1):
            if f.text in ("-e", "-x", "--") and i + 1 < len(argv):
                rest = argv[i + 1 :]
                if name == "gnome-terminal" and f.text == "-e":
                    self._carried_body(rest[0], st)
                else:
                    self._carried_argv(rest, st, name)
                return

    def _env_run(self, name: str, argv: list[Field], st: State) -> None:
        """uv run CMD, poetry run CMD, pipenv run CMD, pdm run CMD, hatch run CMD, conda run CMD."""
        i = 1
        n = len(argv)
        while i < n and argv[i].text.startswith("-"):
            i += 2 if argv[i].text in _ENV_RUN_VALUE_OPTIONS else 1
        if i >= n or argv[i].text != "run":
            return
        i += 1
        while i < n and argv[i].text.startswith("-"):
            if argv[i].text == "--":
                i += 1
                break
            i += 2 if argv[i].text in _ENV_RUN_VALUE_OPTIONS else 1
        self._carried_argv(argv[i:], st, name)

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
