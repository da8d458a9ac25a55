"""What a dotted name may do (K_* bits), computed once per name: the registry the analyzer's
call dispatch reads."""

from __future__ import annotations

from opafence.facts.code.model import strip_calls
from opafence.facts.code.tables import (
    ARCHIVES,
    CHMOD,
    COPY,
    DATA_WRITERS,
    DELETE_1,
    DESERIALIZE,
    DOWNLOADS,
    EVAL,
    GETATTR,
    HERMES_TOOLS,
    HOFS,
    IMPORT,
    LINK,
    LOADERS,
    MOVE,
    NAMESPACE_WRITERS,
    NETWORK_MODULES,
    OPEN,
    OTHER_RUNNERS,
    PATH_METHODS,
    READ_1,
    READ_CALLS,
    REVEALS,
    SHELL_STRING,
    SUBPROCESS_RUNNERS,
    WRITE_1,
)


def is_runner(name: str) -> bool:
    low = name.lower()
    return runs_commands(low) or name in EVAL or name in DESERIALIZE


def runs_commands(low: str) -> bool:
    """A (lower-cased) dotted name that starts a process."""
    if low in SHELL_STRING or low in OTHER_RUNNERS:
        return True
    head, _, fn = low.partition(".")
    if not fn or "." in fn or "(" in fn:
        return False
    if head == "subprocess":
        return fn in SUBPROCESS_RUNNERS
    return head == "os" and fn.startswith(("exec", "spawn", "posix_spawn"))


# What a dotted name may do, computed once per name (most calls do nothing of interest).
K_EVAL = 1
K_GETATTR = 2
K_IMPORT = 4
K_DESERIALIZE = 8
K_PARTIAL = 16
K_CASE = 32
K_RUNNER = 64
K_CTYPES = 128
K_RUNPY = 256
K_DUP2 = 512
K_STDIN = 1024
K_WRITE = 2048
K_FILE = 4096
K_HERMES = 8192
K_NETWORK = 16384
K_SMTP = 32768
K_HOF = 65536
K_LOOP = 1 << 17
K_SH = 1 << 18
K_REVEAL = 1 << 19
K_NAMESPACE = 1 << 20
_KINDS: dict[str, int] = {}
_FILE_NAMES = OPEN | DELETE_1 | WRITE_1 | READ_1 | MOVE | COPY | LINK | CHMOD | ARCHIVES
_FILE_METHODS = frozenset(PATH_METHODS) | {"open", "rename", "replace"} | frozenset(DATA_WRITERS)


def _kind(name: str) -> int:
    low = name.lower()
    last = name.rpartition(".")[2]
    kind = 0
    if name in EVAL:
        kind |= K_EVAL
    elif name in GETATTR or name in ("setattr", "delattr", "builtins.setattr"):
        kind |= K_GETATTR
    elif name in IMPORT:
        kind |= K_IMPORT
    if name in DESERIALIZE:
        kind |= K_DESERIALIZE
    elif name == "functools.partial":
        kind |= K_PARTIAL
    fn = name.partition(".")[2]
    if (
        name != low
        and fn
        and "." not in fn
        and "(" not in fn
        and (runs_commands(low) or low in DELETE_1)
        and name != "subprocess.Popen"
    ):
        kind |= K_CASE
    if runs_commands(low):
        kind |= K_RUNNER
    elif low.startswith("ctypes.") and low.rsplit(".", 1)[1] in ("system", "popen"):
        kind |= K_CTYPES
    elif low in ("runpy.run_path", "runpy.run_module") or name in LOADERS:
        kind |= K_RUNPY
    elif last in ("subprocess_shell", "subprocess_exec") and not last.endswith(")"):
        kind |= K_LOOP
    elif name.startswith("sh.") and (name == "sh.Command()" or ("." not in fn and "(" not in fn)):
        kind |= K_SH
    elif low == "os.dup2":
        kind |= K_DUP2
    elif low.endswith((".communicate", ".stdin.write", ".stdin.writelines", ".write")):
        kind |= K_STDIN
    if low.endswith((".write", ".writelines")):
        kind |= K_WRITE
    if name in REVEALS:
        kind |= K_REVEAL
    if last in NAMESPACE_WRITERS and name.startswith(
        ("globals().", "locals().", "vars().", "builtins.globals().", "builtins.locals().", "sys.modules.")
    ):
        kind |= K_NAMESPACE
    if (
        name in _FILE_NAMES
        or name in DOWNLOADS
        or name in ("shutil.unpack_archive", "shutil.make_archive")
        or name in READ_CALLS
        or (name.startswith(("tarfile.", "zipfile.")) and name.endswith((".add", ".write")))
        or last in _FILE_METHODS
        or (name.startswith(("tarfile.", "zipfile.")) and name.endswith((".extractall", ".extract")))
    ):
        kind |= K_FILE
    if name.startswith("hermes_tools.") and fn in HERMES_TOOLS:
        kind |= K_HERMES
    if strip_calls(name).split(".", 1)[0] in NETWORK_MODULES:
        kind |= K_NETWORK
        if name.startswith("smtplib.") and name.endswith((".sendmail", ".send_message")):
            kind |= K_SMTP
    if name in HOFS or ("." in name and not last.endswith(")") and "." + last in HOFS):
        kind |= K_HOF
    if len(_KINDS) > 8192:
        _KINDS.clear()
    _KINDS[name] = kind
    return kind


def kind_of(name: str) -> int:
    """What the dotted name may do (K_* bits), from the cache or computed once."""
    kind = _KINDS.get(name)
    return _kind(name) if kind is None else kind
