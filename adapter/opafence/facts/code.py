"""Python code (execute_code, `python -c`, here-docs fed to python) -> facts (docs/contract.md, `code`).

The standard `ast` module, never execution. Imports with their aliases resolved; calls as
dotted names (`sp.run` after `import subprocess as sp` is `subprocess.run`); commands passed to
`os.system`, `subprocess.*`, `os.exec*`, `os.spawn*`, `pty.spawn`, ctypes' `system` and Hermes'
`terminal` RPC parsed as shell (a program fed to a shell's or python's stdin too); file
operations (`open(p, "w")`, `shutil.rmtree`, `Path(p).unlink()`, archive extraction, downloads,
...) with the path when it is known; URL and absolute-path literals.

Values are followed the simple way, without running anything: a name's value is every value
bound to it anywhere (assignments, loop targets, `with ... as`, default arguments, and the
arguments of the calls of a local function that is only ever called directly), so a command
built in one place and run in another is still seen, and a name bound to two commands shows
both. A runner reached through a value (`r = os.system`, `[os.system][0]`, `functools.partial`,
`threading.Thread(target=...)`, `executor.submit`, `map`, `operator.methodcaller`, ...) is
resolved where the call is visible and makes the code opaque (`code_indirect_call`) where it
is not.

Where values come from matters too: data produced by a decoder (base64, hex, rot13, zlib,
marshal, `chr()` joins, reversal, `str.translate`, XOR, byte lists) that reaches a command, an
interpreter (`exec`, `eval`, a shell's stdin, unpickling) or a name look-up (`getattr`,
`__import__`) is `decode_and_run`; data read from the network that does the same, or a
downloaded or decoded file that is then run, is `fetch_and_run`; a socket wired to a process's
standard streams is `socket_shell`. The process environment (or a secret-named variable of it)
sent over the network becomes a `secrets` entry of kind `environment`.

Anything that can reach names the reader cannot see (`eval`, `exec`, `compile`, `getattr`/
`__import__` with a computed name, `globals()[...]`, dunder escape hatches, ctypes, unpickling)
makes the code opaque.
"""

from __future__ import annotations

import ast
import posixpath
import re
import shlex
import string
from typing import Any

from opafence.facts import email, paths, url
from opafence.facts.collect import MAX_DEPTH, Collector

MAX_CODE = 512 * 1024
MAX_NODES = 200_000
MAX_CALLS = 512
MAX_ALTERNATIVES = 16  # values of one name we follow (beyond that: unknown)
MAX_SYNTHETIC = 4  # calls made of calls (partial of partial, Thread of partial, ...)
MAX_ORIGIN_DEPTH = 48

NETWORK_MODULES = frozenset(
    {
        "socket",
        "requests",
        "urllib",
        "urllib2",
        "urllib3",
        "http",
        "httplib",
        "httpx",
        "aiohttp",
        "ftplib",
        "smtplib",
        "poplib",
        "imaplib",
        "nntplib",
        "telnetlib",
        "paramiko",
        "websocket",
        "websockets",
        "pycurl",
        "asyncssh",
        "grpc",
        "boto3",
        "botocore",
        "xmlrpc",
        "socketserver",
        "ssl",
        "tornado",
        "twisted",
        "scapy",
        "dns",
        "webbrowser",
        "wget",
    }
)
# Modules that are other names of `os` (`posix.system` is `os.system`).
_MODULE_SYNONYMS = {"posix": "os", "nt": "os"}
_OPAQUE_MODULES = {
    "ctypes": "code_ctypes",
    "cffi": "code_ctypes",
    "_posixsubprocess": "code_dynamic_command",
    "__main__": "code_dynamic_namespace",
    "plumbum": "code_dynamic_command",
    "pickle": "",
    "marshal": "",
    "dill": "",
}
_DESERIALIZE = frozenset(
    {
        "pickle.loads",
        "pickle.load",
        "pickle.Unpickler",
        "marshal.loads",
        "marshal.load",
        "dill.loads",
        "dill.load",
        "cloudpickle.loads",
        "jsonpickle.decode",
        "shelve.open",
    }
)
_DUNDER_ESCAPES = frozenset(
    {
        "__builtins__",
        "__globals__",
        "__subclasses__",
        "__getattribute__",
        "__dict__",
        "__class__",
        "__bases__",
        "__base__",
        "__mro__",
        "__code__",
        "__closure__",
        "__func__",
        "__self__",
        "__loader__",
        "__spec__",
        "__reduce__",
        "__reduce_ex__",
    }
)
# Frame attributes that hand out a namespace (`sys._getframe().f_globals['x']`).
_FRAME_NAMESPACES = frozenset({"f_globals", "f_locals", "f_builtins"})
_EVAL = frozenset(
    {
        "eval",
        "exec",
        "compile",
        "execfile",
        "builtins.eval",
        "builtins.exec",
        "builtins.compile",
        "code.interact",
        "code.InteractiveConsole",
        "code.InteractiveInterpreter",
        "code.compile_command",
        "codeop.compile_command",
        "types.FunctionType",
        "types.CodeType",
    }
)
_GETATTR = frozenset({"getattr", "builtins.getattr"})
_IMPORT = frozenset({"__import__", "importlib.import_module", "builtins.__import__", "importlib.__import__"})
_SHELL_STRING = frozenset(
    {
        "os.system",
        "os.popen",
        "os.popen2",
        "os.popen3",
        "os.popen4",
        "commands.getoutput",
        "commands.getstatusoutput",
        "subprocess.getoutput",
        "subprocess.getstatusoutput",
        "asyncio.create_subprocess_shell",
        "platform.popen",
        "pexpect.run",
        "pexpect.spawn",
        "pexpect.popen_spawn.PopenSpawn",
        "invoke.run",
    }
)
_SUBPROCESS_RUNNERS = frozenset(
    {"run", "popen", "call", "check_call", "check_output", "getoutput", "getstatusoutput"}
)
_OPEN = frozenset({"open", "io.open", "codecs.open", "builtins.open", "os.open", "gzip.open", "bz2.open"})
_DELETE_1 = frozenset(
    {"os.remove", "os.unlink", "os.rmdir", "os.removedirs", "shutil.rmtree", "os.truncate", "os.unlinkat"}
)
_WRITE_1 = frozenset({"os.makedirs", "os.mkdir", "os.mkfifo", "os.mknod", "os.utime"})
_READ_1 = frozenset({"os.listdir", "os.scandir", "os.walk", "glob.glob", "glob.iglob", "os.stat", "os.lstat"})
_MOVE = frozenset({"os.rename", "os.replace", "os.renames", "shutil.move"})
_COPY = frozenset({"shutil.copy", "shutil.copy2", "shutil.copyfile", "shutil.copytree", "shutil.copyfileobj"})
_LINK = frozenset({"os.symlink", "os.link"})
_CHMOD = frozenset({"os.chmod", "os.chown", "os.lchown", "os.lchmod", "shutil.chown"})
_ARCHIVES = frozenset({"tarfile.open", "tarfile.TarFile", "tarfile.TarFile.open", "zipfile.ZipFile"})
_DOWNLOADS = {"urllib.request.urlretrieve": 1, "urllib.urlretrieve": 1, "wget.download": 1}
# Calls that read a file: name -> (argument index, keyword, default path, op)
_READ_CALLS: dict[str, tuple[int, str, str | None, str]] = {
    "configparser.ConfigParser().read": (0, "filenames", None, "read"),
    "configparser.RawConfigParser().read": (0, "filenames", None, "read"),
    "netrc.netrc": (0, "file", "~/.netrc", "read"),
    "dotenv.load_dotenv": (0, "dotenv_path", ".env", "read"),
    "dotenv.dotenv_values": (0, "dotenv_path", ".env", "read"),
    "sqlite3.connect": (0, "database", None, ""),
    "shelve.open": (0, "filename", None, ""),
}
# Loaders that run a file as Python: name -> (argument index of the path, keyword)
_LOADERS: dict[str, tuple[int, str]] = {
    "importlib.util.spec_from_file_location": (1, "location"),
    "importlib.machinery.SourceFileLoader": (1, "path"),
    "importlib.machinery.SourcelessFileLoader": (1, "path"),
    "imp.load_source": (1, "pathname"),
    "imp.load_compiled": (1, "pathname"),
}
# Calls that show or store what they are given (an environment dump printed is a secret read).
_REVEALS = frozenset(
    {
        "print",
        "pprint.pprint",
        "pprint.pp",
        "sys.stdout.write",
        "sys.stderr.write",
        "json.dump",
        "logging.info",
        "logging.debug",
        "logging.warning",
        "logging.error",
    }
)
# Methods of data libraries that write the file their first argument (or the keyword) names:
# pandas' to_csv, polars' write_parquet, matplotlib's savefig, numpy's save, PIL's and openpyxl's
# save. A name the facts cannot read makes the code opaque, like any other dynamic write.
_DATA_WRITERS: dict[str, tuple[str, ...]] = {
    "to_csv": ("path_or_buf",),
    "to_excel": ("excel_writer",),
    "to_parquet": ("path",),
    "to_json": ("path_or_buf",),
    "to_feather": ("path",),
    "to_pickle": ("path",),
    "to_html": ("buf",),
    "to_latex": ("buf",),
    "to_markdown": ("buf",),
    "to_string": ("buf",),
    "to_stata": ("path",),
    "to_hdf": ("path_or_buf",),
    "to_orc": ("path",),
    "to_xml": ("path_or_buffer",),
    "to_file": ("filename",),
    "write_csv": ("file",),
    "write_parquet": ("file",),
    "write_json": ("file",),
    "write_ndjson": ("file",),
    "write_excel": ("workbook",),
    "write_image": ("file",),
    "write_html": ("file",),
    "savefig": ("fname",),
    "save": ("filename", "fp", "file", "path", "fname"),
    "savetxt": ("fname",),
    "savez": ("file",),
    "savez_compressed": ("file",),
    "imwrite": ("filename",),
    "imsave": ("fname",),
    "tofile": ("fid", "file"),
}
_PATH_CTORS = frozenset(
    {"pathlib.Path", "pathlib.PosixPath", "pathlib.PurePath", "pathlib.PurePosixPath", "Path"}
)
_PATH_METHODS = {
    "write_text": "write",
    "write_bytes": "write",
    "touch": "write",
    "mkdir": "write",
    "symlink_to": "write",
    "hardlink_to": "write",
    "read_text": "read",
    "read_bytes": "read",
    "iterdir": "read",
    "glob": "read",
    "rglob": "read",
    "unlink": "delete",
    "rmdir": "delete",
    "chmod": "",
    "lchmod": "",
}
_HERMES_TOOLS = frozenset(
    {"terminal", "read_file", "write_file", "search_files", "patch", "web_search", "web_extract"}
)

# --- where values come from ---------------------------------------------------------------

DECODED = 1  # made by a decoder, or built so that the reader cannot see it
FETCHED = 2  # read from the network
ENV_ALL = 4  # the whole process environment
ENV_SECRET = 8  # a secret-named (or unknown) environment variable
SOCKET = 16  # a network socket or its descriptor
_RUN_ORIGINS = DECODED | FETCHED

_DECODERS = frozenset(
    {
        "base64.b64decode",
        "base64.b32decode",
        "base64.b32hexdecode",
        "base64.b16decode",
        "base64.b85decode",
        "base64.a85decode",
        "base64.z85decode",
        "base64.standard_b64decode",
        "base64.urlsafe_b64decode",
        "base64.decodebytes",
        "base64.decodestring",
        "base64.decode",
        "binascii.unhexlify",
        "binascii.a2b_hex",
        "binascii.a2b_base64",
        "binascii.a2b_uu",
        "binascii.a2b_qp",
        "binascii.a2b_hqx",
        "binascii.rledecode_hqx",
        "bytes.fromhex",
        "bytearray.fromhex",
        "zlib.decompress",
        "zlib.decompressobj",
        "gzip.decompress",
        "bz2.decompress",
        "lzma.decompress",
        "zstandard.decompress",
        "zstd.decompress",
        "lz4.frame.decompress",
        "brotli.decompress",
        "snappy.decompress",
        "marshal.loads",
        "quopri.decodestring",
        "uu.decode",
        "codecs.getdecoder",
        "codecs.getencoder",
        "codecs.lookup",
        "codecs.iterdecode",
        "struct.pack",
        "str.maketrans",
        "bytes.maketrans",
    }
)
# Methods whose result is text the reader cannot see in the source.
_DECODING_METHODS = frozenset({"translate", "to_bytes", "tobytes", "fromhex"})
# Built-in names that build text character by character (`''.join(map(chr, [...]))`).
_DECODING_BUILTINS = frozenset({"chr", "reversed"})
_TEXT_CODECS = frozenset(
    {
        "utf-8",
        "utf8",
        "utf_8",
        "u8",
        "ascii",
        "us-ascii",
        "latin-1",
        "latin1",
        "latin_1",
        "iso-8859-1",
        "iso8859-1",
        "cp1252",
        "utf-16",
        "utf16",
        "utf-32",
        "utf32",
        "utf-8-sig",
    }
)
_ENVIRON = frozenset({"os.environ", "os.environb"})
_ENV_ATTRS = frozenset({"environ", "environb", "getenv", "getenvb"})
_GETENV = frozenset(
    {
        "os.getenv",
        "os.getenvb",
        "os.environ.get",
        "os.environ.pop",
        "os.environ.setdefault",
        "os.environb.get",
    }
)
_SECRET_NAME = re.compile(
    r"(?i)(api_?key|_key$|^key$|secret|token|passw|passwd|pwd|credential|auth|cookie|session|private)"
)
_SOCKET_CTORS = frozenset(
    {"socket.socket", "socket.create_connection", "socket.fromfd", "socket.socketpair", "ssl.wrap_socket"}
)
# Connections whose first argument names the peer: dotted name (calls removed) -> URL scheme.
_CONNECTIONS = {
    "socket.socket.connect": "tcp",
    "socket.socket.connect_ex": "tcp",
    "socket.create_connection": "tcp",
    "http.client.HTTPConnection": "http",
    "http.client.HTTPSConnection": "https",
    "smtplib.SMTP": "smtp",
    "smtplib.SMTP_SSL": "smtps",
    "ftplib.FTP": "ftp",
    "ftplib.FTP_TLS": "ftp",
    "telnetlib.Telnet": "telnet",
    "paramiko.SSHClient.connect": "ssh",
}
# Network calls that send their positional arguments as data.
_SEND_METHODS = frozenset(
    {"send", "sendall", "sendto", "sendmail", "send_message", "write", "sendfile", "storbinary", "storlines"}
)
# Methods that hand credentials to the service they log in to (not egress of the secret).
_LOGIN_METHODS = frozenset(
    {"login", "connect", "connect_ex", "auth", "authenticate", "starttls", "ehlo", "helo", "set_password"}
)
# Keyword arguments of network calls that carry a request's data.
_BODY_KEYWORDS = frozenset({"data", "json", "files", "body", "content", "msg", "message", "payload", "text"})

# --- callables that call the functions they are given ----------------------------------------------
# kind "star": the function at index i, its arguments after it; "target": function, args and
# kwargs by keyword or position; "map": the function applied to each element of an iterable.
_HOFS: dict[str, tuple[Any, ...]] = {
    "atexit.register": ("star", 0, ""),
    "asyncio.to_thread": ("star", 0, "func"),
    "weakref.finalize": ("star", 1, "func"),
    ".submit": ("star", 0, "fn"),
    ".run_in_executor": ("star", 1, "func"),
    ".call_soon": ("star", 0, "callback"),
    ".call_soon_threadsafe": ("star", 0, "callback"),
    ".call_later": ("star", 1, "callback"),
    ".call_at": ("star", 1, "callback"),
    ".callback": ("star", 0, "callback"),
    ".Thread": ("target", "target", 1, "args", 3, "kwargs", 4),
    ".Process": ("target", "target", 1, "args", 3, "kwargs", 4),
    ".Timer": ("target", "function", 1, "args", 2, "kwargs", 3),
    ".apply": ("target", "func", 0, "args", 1, "kwds", 2),
    ".apply_async": ("target", "func", 0, "args", 1, "kwds", 2),
    ".enter": ("target", "action", 2, "argument", 3, "kwargs", 4),
    ".enterabs": ("target", "action", 2, "argument", 3, "kwargs", 4),
    "map": ("map", False),
    "filter": ("map", False),
    ".map": ("map", False),
    ".imap": ("map", False),
    ".imap_unordered": ("map", False),
    ".map_async": ("map", False),
    "itertools.starmap": ("map", True),
    ".starmap": ("map", True),
    ".starmap_async": ("map", True),
}
_HOF_ROOTS = frozenset(
    {"threading", "multiprocessing", "concurrent", "asyncio", "sched", "contextlib", "billiard", "loky"}
)

# Network-module calls whose results are not data from elsewhere.
_LOCAL_NETWORK_CALLS = (
    "urllib.parse",
    "ssl.create_default_context",
    "socket.gethostname",
    "socket.getfqdn",
    "socket.gethostbyname",
    "http.HTTPStatus",
)

# Modules whose names lead to commands, code or files: rebinding one of their names hides them.
_RUNNER_MODULES = frozenset(
    {
        "os",
        "subprocess",
        "pty",
        "shutil",
        "builtins",
        "importlib",
        "sys",
        "ctypes",
        "hermes_tools",
        "asyncio",
        "multiprocessing",
        "threading",
        "concurrent",
        "functools",
        "operator",
        "runpy",
        "code",
        "pickle",
        "marshal",
        "socket",
        "sh",
        "pexpect",
        "commands",
        "platform",
        "pathlib",
        "io",
        "codecs",
        "base64",
    }
)
# Methods that change a namespace in place (`globals().update(x=...)`).
_NAMESPACE_WRITERS = frozenset({"update", "setdefault", "__setitem__", "pop", "popitem", "clear"})

_UNKNOWN_FLAG = object()


class _Elem:
    """An element of an iterable: a for-loop target, a name unpacked from a call's result."""

    __slots__ = ("of",)

    def __init__(self, of: ast.expr) -> None:
        self.of = of


Binding = ast.expr | _Elem | None  # None: a value the reader cannot know


class _Value:
    """A statically known string (or list of strings) and whether it is a pathlib.Path."""

    __slots__ = ("is_path", "items", "text")

    def __init__(
        self, text: str | None = None, items: list[str] | None = None, is_path: bool = False
    ) -> None:
        self.text = text
        self.items = items
        self.is_path = is_path


def _module(name: str) -> str:
    root, dot, rest = name.partition(".")
    synonym = _MODULE_SYNONYMS.get(root)
    return synonym + dot + rest if synonym else name


def _strip_calls(name: str) -> str:
    """`requests.Session().post` -> `requests.Session.post`: the dotted path without calls."""
    return name.replace("()", "") if "(" in name else name


class Analyzer:
    def __init__(self, col: Collector, cwd: str | None, depth: int, context: str) -> None:
        self.col = col
        self.facts = col.code_facts()
        self.cwd = cwd
        self.depth = depth
        self.context = context
        self.aliases: dict[str, str] = {}
        self.binds: dict[str, list[Binding]] = {}
        self.consts: dict[str, ast.expr] = {}
        self.loads: dict[str, list[ast.Name]] = {}
        self.called: set[int] = set()  # ids of expressions called directly (a Call's func)
        self.call_of: dict[int, ast.Call] = {}  # id(func) -> the call
        self.bound_ids: dict[int, str] = {}  # id(expression bound to a name) -> the name
        self.resolved: set[int] = set()  # runner references consumed by a call we resolved
        self.pending: list[ast.expr] = []  # runner references not called directly
        self.partial_of: dict[int, ast.Call] = {}  # id(function given to functools.partial) -> the partial
        self.star_modules: list[str] = []
        self.consumed: set[str] = set()
        self.literal_paths: list[str] = []
        self.name_origins: dict[str, int] = {}
        # files this code writes: (path as written, content when known, where the content came from)
        self.written: list[tuple[str, str | None, int]] = []
        self.socket_streams = False  # a socket became a process's stdin/stdout (os.dup2, stdin=s)
        self.spawns = False  # the code starts a process
        self.egress_env = False
        self.first_command = len(col.commands)
        self.stores: dict[str, int] = {}
        self.chdir = False
        self.env_used = False  # the code names the environment (os.environ, os.getenv, ...)

    # -- entry ---------------------------------------------------------------------------
    def run(self, text: str) -> None:
        if len(text) > MAX_CODE:
            self.col.opaque("code_too_large")
            return
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, OverflowError):
            self.col.opaque("code_syntax_error")
            return
        walked = self._walk(tree)
        if walked is None:
            self.col.opaque("code_too_large")
            return
        calls, refs, subscripts, texts, binders = walked
        self._bindings(binders)
        for call in calls:
            self._call(call)
        for ref in refs:
            self._indirect(ref)
        for sub in subscripts:
            self._subscript(sub)
        for t in texts:
            self._literal(t)
        self._finish()

    def _walk(
        self, tree: ast.AST
    ) -> tuple[list[ast.Call], list[ast.expr], list[ast.Subscript], list[str], list[ast.AST]] | None:
        """One pass over every node, parents before children and in source order: the calls,
        the names and attributes not called directly, subscripts, string literals and the
        nodes that bind names; names loaded and stored are counted on the way."""
        calls: list[ast.Call] = []
        refs: list[ast.expr] = []
        subscripts: list[ast.Subscript] = []
        texts: list[str] = []
        binders: list[ast.AST] = []
        called = self.called
        call_of = self.call_of
        loads = self.loads
        stores = self.stores
        table = _CHILD_FIELDS
        binding_types = _BINDING_TYPES
        node_type = ast.AST
        stack: list[ast.AST] = [tree]
        pop = stack.pop
        push = stack.append
        count = 0
        while stack:
            node = pop()
            count += 1
            if type(node) is ast.Name:
                name = node.id
                ctx = type(node.ctx)
                if ctx is ast.Load:
                    found = loads.get(name)
                    if found is None:
                        loads[name] = [node]
                    else:
                        found.append(node)
                    if id(node) not in called:
                        refs.append(node)
                elif ctx is ast.Store:
                    stores[name] = stores.get(name, 0) + 1
                if name in _DUNDER_ESCAPES:
                    self.col.opaque("code_dunder_access")
                continue
            if type(node) is ast.Constant:
                if type(node.value) is str:
                    texts.append(node.value)
                    if node.value in _ENV_ATTRS:
                        self.env_used = True  # getattr(os, 'environ')
                continue
            t = type(node)
            if type(node) is ast.Call:
                func = node.func
                called.add(id(func))
                call_of[id(func)] = node
                calls.append(node)
                if type(func) is ast.Attribute and func.attr in ("chdir", "fchdir"):
                    self.chdir = True
            elif type(node) is ast.Attribute:
                attr = node.attr
                if attr in _ENV_ATTRS:
                    self.env_used = True
                if attr in _DUNDER_ESCAPES:
                    self.col.opaque("code_dunder_access")
                elif attr in _FRAME_NAMESPACES:
                    self.col.opaque("code_dynamic_namespace")
                elif id(node) not in called:
                    refs.append(node)
            elif type(node) is ast.Subscript:
                subscripts.append(node)
            elif t in binding_types:
                binders.append(node)
            fields = table.get(t)
            if fields is None:
                fields = _child_fields(t)
            # children pushed last first, so that they come off the stack in source order
            for field in fields:
                value = getattr(node, field, None)
                if value is None:
                    continue
                if type(value) is list:
                    for v in reversed(value):
                        if isinstance(v, node_type):
                            push(v)
                elif isinstance(value, node_type):
                    push(value)
        if count > MAX_NODES:
            return None
        return calls, refs, subscripts, texts, binders

    def _finish(self) -> None:
        for node in self.pending:
            if not self._escape_ok(node):
                self.col.opaque("code_indirect_call")
                break
        if self.written:
            self._written_runs()
        if self.socket_streams and self.spawns:
            self.col.opaque("socket_shell")
        if self.egress_env:
            self.col.add_secret("code" if not self.col.arg else self.col.arg, "environment")
        # Absolute-path literals the calls above did not already name (with what they do).
        known = {p["raw"] for p in self.col.paths} | self.consumed
        for raw in self.literal_paths:
            if raw not in known:
                text = self.col.home + raw[1:] if raw.startswith("~/") else raw
                if not paths.problem(text):
                    self.col.add_path(raw, paths.resolve(text, "/", self.col.cache), self.col.arg, "code", "")

    # -- names ---------------------------------------------------------------------------
    def _import(self, name: str) -> None:
        imports: list[str] = self.facts["imports"]
        if name and name not in imports:
            imports.append(name)
        root = name.split(".", 1)[0]
        if root in NETWORK_MODULES:
            self.facts["network"] = True
        reason = _OPAQUE_MODULES.get(root)
        if reason:
            self.col.opaque(reason)

    def _import_from(self, node: ast.ImportFrom) -> None:
        mod = ("." * node.level) + (node.module or "")
        self._import(mod)
        for a in node.names:
            if a.name == "*":
                self.star_modules.append(mod)
                if mod.split(".", 1)[0] in (
                    "os",
                    "posix",
                    "subprocess",
                    "pty",
                    "shutil",
                    "builtins",
                    "hermes_tools",
                ):
                    self.col.opaque("code_star_import")
                continue
            full = f"{_module(mod)}.{a.name}" if mod else a.name
            self.aliases[a.asname or a.name] = full
            if a.name in _ENV_ATTRS:
                self.env_used = True
            if mod.split(".", 1)[0] in NETWORK_MODULES or a.name in NETWORK_MODULES:
                self.facts["network"] = True

    def _bind(self, name: str, value: Binding) -> None:
        found = self.binds.get(name)
        if found is None:
            self.binds[name] = [value]
        else:
            found.append(value)
        if isinstance(value, ast.expr):
            self.bound_ids[id(value)] = name

    def _bind_target(self, target: ast.AST, value: Binding) -> None:
        if type(target) is ast.Name:
            self._bind(target.id, value)
        elif type(target) is ast.Tuple or type(target) is ast.List:
            elts = target.elts
            if (
                (type(value) is ast.Tuple or type(value) is ast.List)
                and len(value.elts) == len(elts)
                and not any(type(e) is ast.Starred for e in elts)
                and not any(type(e) is ast.Starred for e in value.elts)
            ):
                for sub, v in zip(elts, value.elts, strict=True):
                    self._bind_target(sub, v)
            else:
                part: Binding = _Elem(value) if isinstance(value, ast.expr) else value
                for sub in elts:
                    self._bind_target(sub, part)
        elif isinstance(target, ast.Starred):
            self._bind_target(target.value, _Elem(value) if isinstance(value, ast.expr) else value)

    def _bindings(self, nodes: list[ast.AST]) -> None:
        funcs: list[ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda] = []
        methods: set[int] = set()
        chdir = self.chdir
        for node in nodes:
            if isinstance(node, ast.Import):
                for a in node.names:
                    self._import(a.name)
                    if a.asname:
                        self.aliases[a.asname] = _module(a.name)
                    else:
                        root = a.name.split(".", 1)[0]
                        self.aliases.setdefault(root, _module(root))
            elif isinstance(node, ast.ImportFrom):
                self._import_from(node)
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    self._bind_target(target, node.value)
            elif isinstance(node, ast.AnnAssign | ast.NamedExpr):
                if node.value is not None:
                    self._bind_target(node.target, node.value)
            elif isinstance(node, ast.AugAssign):
                target = node.target
                if isinstance(target, ast.Name):
                    grown = ast.BinOp(
                        left=ast.Name(id=target.id, ctx=ast.Load()), op=node.op, right=node.value
                    )
                    self._bind(target.id, grown)
            elif isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
                self._bind_target(node.target, _Elem(node.iter))
            elif isinstance(node, ast.withitem):
                if node.optional_vars is not None:
                    self._bind_target(node.optional_vars, node.context_expr)
                ctx_expr = node.context_expr
                if isinstance(ctx_expr, ast.Call) and isinstance(ctx_expr.func, ast.Attribute):
                    chdir = chdir or ctx_expr.func.attr == "chdir"
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                self._bind(node.name, None)
                funcs.append(node)
            elif isinstance(node, ast.Lambda):
                funcs.append(node)
            elif isinstance(node, ast.ClassDef):
                self._bind(node.name, None)
                for stmt in node.body:
                    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                        methods.add(id(stmt))
            elif isinstance(node, ast.arguments):
                self._defaults(node)
            elif isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar):
                if node.name:
                    self._bind(node.name, None)
            elif isinstance(node, ast.MatchMapping) and node.rest:
                self._bind(node.rest, None)
        for fn in funcs:
            self._parameters(fn, id(fn) in methods)
        binds = self.binds
        for name, n in self.stores.items():
            # a binding form this reader does not know: the name may hold anything
            known = binds.get(name)
            if known is None or len(known) < n:
                self._bind(name, None)
        for name, bound in binds.items():
            if len(bound) == 1 and isinstance(bound[0], ast.expr):
                self.consts[name] = bound[0]
            # a name rebound by assignment is no longer the module it was imported as; which one
            # it is where is a question of statement order, which this reader does not follow
            alias = self.aliases.pop(name, None)
            if alias is not None and alias.split(".", 1)[0] in _RUNNER_MODULES:
                self.col.opaque("code_dynamic_namespace")
        if chdir:
            # os.chdir moves every relative path that follows it: the reader does not follow
            # the order of statements, so relative paths have no known directory at all.
            self.cwd = None

    def _defaults(self, node: ast.arguments) -> None:
        positional = [*node.posonlyargs, *node.args]
        first = len(positional) - len(node.defaults)
        for p, d in zip(positional[first:], node.defaults, strict=True):
            self._bind(p.arg, d)
        for p, kd in zip(node.kwonlyargs, node.kw_defaults, strict=True):
            if kd is not None:
                self._bind(p.arg, kd)
        for rest in (node.vararg, node.kwarg):
            if rest is not None:
                self._bind(rest.arg, None)

    def _call_sites(
        self, fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, method: bool
    ) -> list[ast.Call] | None:
        """Every call of a local function, or None when it may be called where nobody sees."""
        if isinstance(fn, ast.Lambda):
            direct = self.call_of.get(id(fn))
            if direct is not None:
                return [direct]
            bound_to = self.bound_ids.get(id(fn))
            if bound_to is None:
                return None
            name = bound_to
        else:
            if fn.decorator_list or method:
                return None
            name = fn.name
        if len(self.binds.get(name, ())) != 1:
            return None
        sites: list[ast.Call] = []
        for load in self.loads.get(name, ()):
            call = self.call_of.get(id(load))
            if call is None:
                return None
            sites.append(call)
        return sites

    def _parameters(self, fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, method: bool) -> None:
        args = fn.args
        positional = [*args.posonlyargs, *args.args]
        everyone = [*positional, *args.kwonlyargs]
        sites = self._call_sites(fn, method)
        if sites is None:
            for p in everyone:
                self._bind(p.arg, None)
            return
        names = {p.arg for p in everyone}
        for call in sites:
            if any(type(a) is ast.Starred for a in call.args) or any(k.arg is None for k in call.keywords):
                for p in everyone:
                    self._bind(p.arg, None)
                return
            for p, a in zip(positional, call.args, strict=False):
                self._bind(p.arg, a)
            for k in call.keywords:
                if k.arg in names:
                    self._bind(k.arg, k.value)

    def dotted(self, node: ast.AST, depth: int = 0) -> str | None:
        """The dotted name of an expression as written, aliases resolved; None if not a name."""
        if depth > 32:
            return None
        if type(node) is ast.Name:
            name = node.id
            alias = self.aliases.get(name)
            if alias is not None:
                return alias
            bound = self.consts.get(name)
            # `s = subprocess; s.run(...)`, `run = os.system; run(...)`, `s = socket.socket()`
            if (
                bound is not None
                and type(bound) in _FOLLOW
                and not (type(bound) is ast.Name and bound.id == name)
            ):
                found = self.dotted(bound, depth + 1)
                if found is not None:
                    return found
            return "builtins" if name == "__builtins__" else name
        if type(node) is ast.Attribute:
            base = self.dotted(node.value, depth + 1)
            if node.attr == "__call__":
                return base  # os.system.__call__(...) is os.system(...)
            return f"{base}.{node.attr}" if base else None
        if type(node) is ast.Subscript:
            target = self._subscript_target(node, depth)
            if target is not None:
                return self.dotted(target, depth + 1)
            return self._namespace_name(node, depth)
        if type(node) is ast.Call:
            fn = self.dotted(node.func, depth + 1)
            args = node.args
            if fn in _GETATTR and len(args) >= 2:
                base = self.dotted(args[0], depth + 1)
                attr = self._const_str(args[1])
                if base and attr is not None:
                    return f"{base}.{attr}"
                return None
            if fn in _IMPORT and args:
                mod = self._const_str(args[0])
                return _module(mod) if mod else None
            if fn == "sys.modules.get" and args:
                mod = self._const_str(args[0])
                return _module(mod) if mod else None
            if fn == "operator.attrgetter()" and args:
                getter = node.func
                base = self.dotted(args[0], depth + 1)
                attr = self._const_str(getter.args[0]) if type(getter) is ast.Call and getter.args else None
                if base and attr:
                    return f"{base}.{attr}"
                return None
            if fn:
                return f"{fn}()"
        return None

    def _subscript_target(self, node: ast.Subscript, depth: int = 0) -> ast.expr | None:
        """The element `[a, b][0]` or `{'k': a}['k']` (or a name bound once to such a literal) picks."""
        base = node.value
        if type(base) is ast.Name:
            bound = self.consts.get(base.id)
            if bound is None or base.id in self.aliases:
                return None
            base = bound
        if type(base) is ast.List or type(base) is ast.Tuple:
            key = node.slice
            if type(key) is ast.Constant and type(key.value) is int:
                elts = base.elts
                if -len(elts) <= key.value < len(elts) and type(elts[key.value]) is not ast.Starred:
                    return elts[key.value]
        elif type(base) is ast.Dict:
            k = self._const_str(node.slice)
            if k is not None:
                for dk, dv in zip(base.keys, base.values, strict=True):
                    if dk is not None and self._const_str(dk) == k:
                        return dv
        return None

    def _namespace_name(self, node: ast.Subscript, depth: int) -> str | None:
        """`sys.modules['os']`, `vars(os)['system']`, `os.__dict__['system']`, `globals()['f']`."""
        key = self._const_str(node.slice)
        if key is None:
            return None
        base = node.value
        if type(base) is ast.Call:
            fn = self.dotted(base.func, depth + 1)
            if fn in ("vars", "builtins.vars") and base.args:
                owner = self.dotted(base.args[0], depth + 1)
                return f"{owner}.{key}" if owner else None
            if fn in ("globals", "locals", "builtins.globals", "builtins.locals"):
                return self.aliases.get(key, "builtins" if key == "__builtins__" else key)
            return None
        if type(base) is ast.Attribute and base.attr == "__dict__":
            owner = self.dotted(base.value, depth + 1)
            return f"{owner}.{key}" if owner else None
        name = self.dotted(base, depth + 1)
        if name == "sys.modules":
            return _module(key)
        if name in ("builtins.__dict__", "builtins"):
            return f"builtins.{key}"
        return None

    # -- values --------------------------------------------------------------------------
    def _const_str(self, node: ast.AST) -> str | None:
        v = self.value(node)
        return v.text if v is not None else None

    def value(self, node: ast.AST, depth: int = 0) -> _Value | None:
        """Statically known value of an expression (strings, lists of strings, paths)."""
        if depth > 16:
            return None
        if type(node) is ast.Constant:
            v = node.value
            if type(v) is str:
                return _Value(v)
            if type(v) is bytes:
                return _Value(v.decode("utf-8", "replace"))
            return None
        if type(node) is ast.Name:
            bound = self.consts.get(node.id)
            if bound is not None:
                return self.value(bound, depth + 1)
            return None
        if type(node) is ast.JoinedStr:
            parts: list[str] = []
            for piece in node.values:
                if isinstance(piece, ast.Constant) and type(piece.value) is str:
                    parts.append(piece.value)
                elif (
                    isinstance(piece, ast.FormattedValue)
                    and piece.format_spec is None
                    and piece.conversion in (-1, 115)
                ):
                    inner = self.value(piece.value, depth + 1)
                    if inner is None or inner.text is None:
                        return None
                    parts.append(inner.text)
                else:
                    return None
            return _Value("".join(parts))
        if type(node) is ast.List or type(node) is ast.Tuple:
            items: list[str] = []
            for elt in node.elts:
                inner = self.value(elt, depth + 1)
                if inner is None or inner.text is None:
                    return None
                items.append(inner.text)
            return _Value(items=items)
        if type(node) is ast.BinOp:
            return self._binop_value(node, depth)
        if type(node) is ast.Call:
            return self._call_value(node, depth)
        if type(node) is ast.Subscript:
            return self._subscript_value(node, depth)
        return None

    def values(self, node: ast.AST) -> list[_Value] | None:
        """Every value an expression may have: a name bound to several values, `a if c else b`."""
        if type(node) is ast.Name and node.id not in self.consts:
            found = self.binds.get(node.id)
            if not found or len(found) > MAX_ALTERNATIVES:
                return None
            out: list[_Value] = []
            for b in found:
                if b is None:
                    return None
                if isinstance(b, _Elem):
                    elts = self._literal_elts(b.of)
                    if elts is None:
                        return None
                    for e in elts:
                        v = self.value(e)
                        if v is None:
                            return None
                        out.append(v)
                else:
                    v = self.value(b)
                    if v is None:
                        return None
                    out.append(v)
            return out[: MAX_ALTERNATIVES * 2]
        if type(node) is ast.IfExp:
            first = self.values(node.body)
            second = self.values(node.orelse)
            return first + second if first is not None and second is not None else None
        one = self.value(node)
        return [one] if one is not None else None

    def _literal_elts(self, node: ast.expr) -> list[ast.expr] | None:
        """The elements of a literal list, tuple or set (or of a name bound once to one)."""
        if type(node) is ast.Name:
            bound = self.consts.get(node.id)
            if bound is None:
                return None
            node = bound
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            elts = node.elts
            if any(type(e) is ast.Starred for e in elts):
                return None
            return list(elts)
        return None

    def _binop_value(self, node: ast.BinOp, depth: int) -> _Value | None:
        left = self.value(node.left, depth + 1)
        if left is None:
            return None
        op = type(node.op)
        if op is ast.Mod and left.text is not None:
            return self._percent(left.text, node.right, depth)
        right = self.value(node.right, depth + 1)
        if right is None:
            return None
        if op is ast.Add:
            if left.text is not None and right.text is not None:
                return _Value(left.text + right.text)
            if left.items is not None and right.items is not None:
                return _Value(items=left.items + right.items)
        if op is ast.Div and left.is_path and left.text is not None and right.text is not None:
            return _Value(posixpath.join(left.text, right.text), is_path=True)
        return None

    def _percent(self, fmt: str, right: ast.expr, depth: int) -> _Value | None:
        """`'%s/.ssh/id_rsa' % home`: only %s, %r and %% without widths (anything else: unknown)."""
        pieces = _PERCENT.split(fmt)
        named = isinstance(right, ast.Dict)
        args: list[str] = []
        mapping: dict[str, str] = {}
        if isinstance(right, ast.Dict):
            for k, v in zip(right.keys, right.values, strict=True):
                ks = self._const_str(k) if k is not None else None
                vv = self.value(v, depth + 1)
                if ks is None or vv is None or vv.text is None:
                    return None
                mapping[ks] = vv.text
        else:
            r = self.value(right, depth + 1)
            if r is None:
                return None
            args = r.items if r.items is not None else [r.text or ""]
        out: list[str] = []
        used = 0
        for i, piece in enumerate(pieces):
            if i % 2 == 0:
                out.append(piece)
                continue
            if piece == "%%":
                out.append("%")
                continue
            m = _PERCENT_FIELD.fullmatch(piece)
            if m is None:
                return None
            key = m.group(1)
            if key is not None:
                if key not in mapping:
                    return None
                out.append(mapping[key])
            else:
                if named or used >= len(args):
                    return None
                out.append(args[used])
                used += 1
        if not named and used != len(args):
            return None
        return _Value("".join(out))

    def _format(self, fmt: str, node: ast.Call, depth: int) -> _Value | None:
        """`'{}/.netrc'.format(home)`, `'{h}/x'.format(h=...)`: plain fields only."""
        if any(type(a) is ast.Starred for a in node.args) or any(k.arg is None for k in node.keywords):
            return None
        positional: list[str] = []
        for a in node.args:
            v = self.value(a, depth + 1)
            if v is None or v.text is None:
                return None
            positional.append(v.text)
        named: dict[str, str] = {}
        for k in node.keywords:
            v = self.value(k.value, depth + 1)
            if v is None or v.text is None or k.arg is None:
                return None
            named[k.arg] = v.text
        out: list[str] = []
        auto = 0
        try:
            parsed = list(string.Formatter().parse(fmt))
        except ValueError:
            return None
        for literal, field, spec, conversion in parsed:
            out.append(literal)
            if field is None:
                continue
            if spec or conversion:
                return None
            if field == "":
                if auto >= len(positional):
                    return None
                out.append(positional[auto])
                auto += 1
            elif field.isdigit():
                if int(field) >= len(positional):
                    return None
                out.append(positional[int(field)])
            elif field in named:
                out.append(named[field])
            else:
                return None
        return _Value("".join(out))

    def _subscript_value(self, node: ast.Subscript, depth: int) -> _Value | None:
        base = self.dotted(node.value) if type(node.value) in (ast.Name, ast.Attribute) else None
        if base == "os.environ":
            key = self._const_str(node.slice)
            return _Value(self.col.home) if key == "HOME" else None
        target = self._subscript_target(node)
        if target is not None:
            return self.value(target, depth + 1)
        s = node.slice
        if type(s) is ast.Slice:
            inner = self.value(node.value, depth + 1)
            if inner is None or inner.text is None:
                return None
            bounds: list[int | None] = []
            for part in (s.lower, s.upper, s.step):
                if part is None:
                    bounds.append(None)
                elif type(part) is ast.Constant and type(part.value) is int:
                    bounds.append(part.value)
                elif (
                    type(part) is ast.UnaryOp
                    and type(part.op) is ast.USub
                    and type(part.operand) is ast.Constant
                    and type(part.operand.value) is int
                ):
                    bounds.append(-part.operand.value)
                else:
                    return None
            if bounds[2] == 0:
                return None
            return _Value(inner.text[bounds[0] : bounds[1] : bounds[2]])
        return None

    def _call_value(self, node: ast.Call, depth: int) -> _Value | None:
        fn = self.dotted(node.func)
        args = node.args
        if fn in _PATH_CTORS or (fn and fn.endswith(".Path") and fn.startswith("pathlib")):
            if not args:
                return _Value(self.cwd or "", is_path=True) if self.cwd else None
            vals = [self.value(a, depth + 1) for a in args]
            if any(v is None or v.text is None for v in vals):
                return None
            return _Value(
                posixpath.join(*[v.text for v in vals if v is not None and v.text is not None]), is_path=True
            )
        if fn in ("pathlib.Path.home", "Path.home", "os.path.expanduser.home"):
            return _Value(self.col.home, is_path=True)
        if fn in ("os.getcwd", "pathlib.Path.cwd", "Path.cwd"):
            return _Value(self.cwd, is_path=fn != "os.getcwd") if self.cwd else None
        if fn in ("os.path.join", "posixpath.join"):
            vals = [self.value(a, depth + 1) for a in args]
            if not vals or any(v is None or v.text is None for v in vals):
                return None
            return _Value(posixpath.join(*[v.text for v in vals if v is not None and v.text is not None]))
        if fn in ("os.path.expanduser", "posixpath.expanduser") and args:
            v = self.value(args[0], depth + 1)
            if v is None or v.text is None:
                return None
            expanded, bad = paths.expand_tilde(v.text, self.col.home, self.cwd or "")
            return None if bad else _Value(expanded)
        if fn in ("os.path.abspath", "os.path.realpath", "os.path.normpath", "str", "os.fspath") and args:
            v = self.value(args[0], depth + 1)
            return _Value(v.text) if v is not None and v.text is not None else None
        if fn in _GETENV and args and self._const_str(args[0]) == "HOME":
            return _Value(self.col.home)
        if fn == "shlex.split" and args:
            v = self.value(args[0], depth + 1)
            if v is None or v.text is None:
                return None
            try:
                return _Value(items=shlex.split(v.text))
            except ValueError:
                return None
        if fn == "shlex.quote" and args:
            v = self.value(args[0], depth + 1)
            return _Value(shlex.quote(v.text)) if v is not None and v.text is not None else None
        if fn == "shlex.join" and args:
            v = self.value(args[0], depth + 1)
            return _Value(shlex.join(v.items)) if v is not None and v.items is not None else None
        if type(node.func) is ast.Attribute:
            base = self.value(node.func.value, depth + 1)
            attr = node.func.attr
            if base is not None and base.is_path and base.text is not None:
                if attr in ("expanduser",):
                    expanded, bad = paths.expand_tilde(base.text, self.col.home, self.cwd or "")
                    return None if bad else _Value(expanded, is_path=True)
                if attr in ("resolve", "absolute"):
                    return base
                if attr == "joinpath":
                    vals = [self.value(a, depth + 1) for a in args]
                    if any(v is None or v.text is None for v in vals):
                        return None
                    texts = [v.text for v in vals if v is not None and v.text is not None]
                    return _Value(posixpath.join(base.text, *texts), is_path=True)
            if attr in ("read", "read_text") and self.written and (base is None or not base.is_path):
                return self._written_content(node.func.value)
            if base is None or base.text is None:
                return None
            if attr == "join" and args:
                items = self.value(args[0], depth + 1)
                if items is not None and items.items is not None:
                    return _Value(base.text.join(items.items))
                return None
            if attr == "format":
                return self._format(base.text, node, depth)
            if attr in _STR_METHODS and not node.keywords:
                consts: list[str] = []
                for a in args:
                    v = self.value(a, depth + 1)
                    if v is None or v.text is None:
                        return None
                    consts.append(v.text)
                if len(consts) != _STR_METHODS[attr] and not (attr in _STR_STRIP and not consts):
                    return None
                try:
                    out = getattr(base.text, attr)(*consts)
                except (TypeError, ValueError):
                    return None
                return _Value(out) if type(out) is str and len(out) <= MAX_CODE else None
            if attr in ("decode", "encode") and not node.keywords:
                enc = self._const_str(args[0]) if args else "utf-8"
                return base if enc is not None and enc.lower() in _TEXT_CODECS else None
        return None

    # -- where values come from --------------------------------------------------------------
    def origins(self, node: ast.AST | None, depth: int = 0) -> int:
        """Where an expression's value may come from (DECODED, FETCHED, ENV_*, SOCKET bits)."""
        if node is None:
            return 0
        if depth > MAX_ORIGIN_DEPTH:
            return DECODED  # nested past reading: not something a person writes to run a command
        if type(node) is ast.Constant:
            return 0
        if type(node) is ast.Name:
            return self._name_origins(node.id, depth)
        if type(node) is ast.Call:
            return self._call_origins(node, depth)
        if type(node) is ast.Attribute:
            name = self.dotted(node)
            if name in _ENVIRON:
                return ENV_ALL
            return self.origins(node.value, depth + 1)
        if type(node) is ast.Subscript:
            base = self.dotted(node.value) if type(node.value) in (ast.Name, ast.Attribute) else None
            if base in _ENVIRON:
                return self._env_key_origins(node.slice)
            bits = self.origins(node.value, depth + 1)
            s = node.slice
            if (
                type(s) is ast.Slice
                and s.step is not None
                and not (type(s.step) is ast.Constant and type(s.step.value) is int and s.step.value > 0)
            ):
                bits |= DECODED  # text read backwards (or with a computed step)
            return bits
        if type(node) is ast.BinOp:
            bits = self.origins(node.left, depth + 1) | self.origins(node.right, depth + 1)
            if type(node.op) is ast.BitXor:
                bits |= DECODED
            elif (
                type(node.op) is ast.Mod
                and type(node.left) is ast.Constant
                and type(node.left.value) is str
                and "%c" in node.left.value
            ):
                bits |= DECODED  # '%c%c' % (114, 109): text spelled as character codes
            return bits
        if type(node) is ast.JoinedStr:
            bits = 0
            for v in node.values:
                if type(v) is ast.FormattedValue:
                    bits |= self.origins(v.value, depth + 1)
            return bits
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            bits = 0
            for e in node.elts:
                bits |= self.origins(e, depth + 1)
            return bits
        if type(node) is ast.Dict:
            bits = 0
            for k in node.keys:
                if k is not None:
                    bits |= self.origins(k, depth + 1)
            for v in node.values:
                bits |= self.origins(v, depth + 1)
            return bits
        if isinstance(node, (ast.GeneratorExp, ast.ListComp, ast.SetComp)):
            bits = self.origins(node.elt, depth + 1)
            for g in node.generators:
                bits |= self.origins(g.iter, depth + 1)
            return bits
        if type(node) is ast.DictComp:
            bits = self.origins(node.key, depth + 1) | self.origins(node.value, depth + 1)
            for g in node.generators:
                bits |= self.origins(g.iter, depth + 1)
            return bits
        if type(node) is ast.IfExp:
            return self.origins(node.body, depth + 1) | self.origins(node.orelse, depth + 1)
        if type(node) is ast.BoolOp:
            bits = 0
            for v in node.values:
                bits |= self.origins(v, depth + 1)
            return bits
        if isinstance(node, ast.UnaryOp):
            return self.origins(node.operand, depth + 1)
        if isinstance(node, ast.Await | ast.Starred | ast.NamedExpr | ast.FormattedValue):
            return self.origins(node.value, depth + 1)
        return 0

    def _name_origins(self, name: str, depth: int) -> int:
        known = self.name_origins.get(name)
        if known is not None:
            return known
        alias = self.aliases.get(name)
        if alias is not None:
            return ENV_ALL if alias in _ENVIRON else 0
        found = self.binds.get(name)
        if found is None:
            return DECODED if name in _DECODING_BUILTINS else 0
        self.name_origins[name] = 0  # a name defined through itself adds nothing
        bits = 0
        for b in found[:64]:
            if isinstance(b, _Elem):
                bits |= self.origins(b.of, depth + 1)
            elif b is not None:
                bits |= self.origins(b, depth + 1)
        self.name_origins[name] = bits
        return bits

    def _env_key_origins(self, key: ast.expr) -> int:
        k = self._const_str(key)
        if k is None:
            return ENV_SECRET
        if _SECRET_NAME.search(k):
            self.col.add_env_var(k)
            return ENV_SECRET
        return 0

    def _call_origins(self, node: ast.Call, depth: int) -> int:
        func = node.func
        fn = self.dotted(func)
        args = node.args
        if fn is not None:
            if fn in _DECODERS or fn in _DECODING_BUILTINS:
                return DECODED
            if fn in _GETATTR and self.dotted(node) in _ENVIRON:
                return ENV_ALL
            if fn in _GETENV:
                return self._env_key_origins(args[0]) if args else 0
            if fn in ("codecs.decode", "codecs.encode"):
                enc = self._arg(node, 1, "encoding")
                text = self._const_str(enc) if enc is not None else "utf-8"
                if text is None or text.lower() not in _TEXT_CODECS:
                    return DECODED
            if fn in ("bytes", "bytearray") and args and self._numbers(args[0]):
                return DECODED  # bytes([114, 109, ...]): text spelled as numbers
            if fn in _OPEN and args:
                bits = self._tainted_file(args[0])
                if bits:
                    return bits
            low_root = fn.split(".", 1)[0]
            if low_root in NETWORK_MODULES and not fn.startswith(_LOCAL_NETWORK_CALLS):
                bits = FETCHED | (SOCKET if _strip_calls(fn) in _SOCKET_CTORS else 0)
                if isinstance(func, ast.Attribute):
                    bits |= self.origins(func.value, depth + 1)  # s.fileno() of a socket s
                return bits
        bits = 0
        if type(func) is ast.Attribute:
            attr = func.attr
            if attr in _DECODING_METHODS:
                bits |= DECODED
            elif attr == "format" and type(func.value) is ast.Constant and ":c}" in str(func.value.value):
                bits |= DECODED  # '{:c}{:c}'.format(114, 109)
            elif attr in ("decode", "encode"):
                enc = self._arg(node, 0, "encoding")
                text = self._const_str(enc) if enc is not None else "utf-8"
                if text is not None and text.lower() not in _TEXT_CODECS:
                    bits |= DECODED
            bits |= self.origins(func.value, depth + 1)
        elif type(func) is ast.Name and func.id in _DECODING_BUILTINS and func.id not in self.binds:
            bits |= DECODED
        for a in args:
            bits |= self.origins(a, depth + 1)
        for k in node.keywords:
            bits |= self.origins(k.value, depth + 1)
        return bits

    def _numbers(self, node: ast.expr) -> bool:
        """An iterable of numbers spelled out or computed (a list, a comprehension, map, range)."""
        if type(node) is ast.Name:
            bound = self.consts.get(node.id)
            if bound is None:
                return False
            node = bound
        if isinstance(node, (ast.GeneratorExp, ast.ListComp)):
            return True
        if isinstance(node, (ast.List, ast.Tuple)):
            return any(type(e) is not ast.Constant or type(e.value) is int for e in node.elts)
        if type(node) is ast.Call:
            return self.dotted(node.func) in ("map", "range", "reversed")
        return False

    def _tainted_file(self, arg: ast.expr) -> int:
        """Where the content of a file this code wrote came from."""
        if not self.written:
            return 0
        v = self.value(arg)
        if v is None or v.text is None:
            return 0
        bits = 0
        for raw, _, b in self.written:
            if raw == v.text:
                bits |= b
        return bits

    def _environment_read(self) -> None:
        """The environment shown or stored (printed, logged, written to a file): a read of the
        process environment, as `cat /proc/self/environ` would be."""
        self.col.add_path("/proc/self/environ", "/proc/self/environ", self.col.arg, "code", "read")

    def _run_origin(self, bits: int) -> None:
        """Decoded or fetched data reaches something that runs it."""
        if bits & DECODED:
            self.col.opaque("decode_and_run")
        if bits & FETCHED:
            self.col.opaque("fetch_and_run")

    # -- calls ---------------------------------------------------------------------------
    def _record_call(self, name: str) -> None:
        calls: list[str] = self.facts["calls"]
        if name not in calls and len(calls) < MAX_CALLS:
            calls.append(name)

    def _callees(self, func: ast.expr, depth: int = 0) -> list[ast.expr]:
        """What a call's function may be: a name bound to several callables, a partial, a literal
        container's element. The function itself when there is nothing to follow."""
        if type(func) is ast.Name and func.id not in self.aliases and depth < 4:
            found = self.binds.get(func.id)
            if found and (len(found) > 1 or type(found[0]) is ast.Call):
                out: list[ast.expr] = []
                for b in found[:MAX_ALTERNATIVES]:
                    if isinstance(b, ast.expr) and type(b) in _FOLLOW:
                        out.extend(self._callees(b, depth + 1))
                if out:
                    return out
        elif type(func) is ast.Subscript and depth < 4:
            target = self._subscript_target(func)
            if target is not None:
                if type(func.value) is not ast.Name:
                    self.resolved.add(id(target))
                return self._callees(target, depth + 1)
        return [func]

    def _call(self, node: ast.Call, synthetic: int = 0) -> None:
        func = node.func
        for callee in self._callees(func):
            if type(callee) is ast.Call:
                inner = self.dotted(callee.func)
                if inner == "functools.partial" and callee.args and synthetic < MAX_SYNTHETIC:
                    merged = ast.Call(
                        func=callee.args[0],
                        args=[*callee.args[1:], *node.args],
                        keywords=[*callee.keywords, *node.keywords],
                    )
                    self._call(merged, synthetic + 1)
                    continue
                if inner == "operator.methodcaller" and callee.args and synthetic < MAX_SYNTHETIC:
                    method = self._const_str(callee.args[0])
                    if method is None:
                        self.col.opaque("code_dynamic_getattr")
                    elif node.args:
                        attr = ast.Attribute(value=node.args[0], attr=method, ctx=ast.Load())
                        self._call(
                            ast.Call(func=attr, args=callee.args[1:], keywords=callee.keywords), synthetic + 1
                        )
                    continue
            target = node if callee is func else ast.Call(func=callee, args=node.args, keywords=node.keywords)
            name = self.dotted(callee)
            if name is None:
                # x[0](...), (lambda: ...)(), obj.method() on an expression we cannot name
                if type(callee) is ast.Subscript:
                    self.col.opaque("code_dynamic_call")
                elif type(callee) is ast.Attribute:
                    # (Path.home() / "x").read_text(): a method of a path expression
                    self._file_call("." + callee.attr, target)
                continue
            self._call_named(name, target, synthetic)

    def _call_named(self, name: str, node: ast.Call, synthetic: int = 0) -> None:
        self._record_call(name)
        kind = _KINDS.get(name)
        if kind is None:
            kind = _kind(name)
        if not kind:
            return
        low = name.lower()
        args = node.args
        if kind & K_EVAL:
            self.col.opaque("code_eval")
            source = self._arg(node, 0, "source", "object", "code")
            if source is not None:
                self._run_origin(self.origins(source))
                v = self.value(source)
                if (
                    v is not None
                    and v.text is not None
                    and name not in ("types.FunctionType", "types.CodeType")
                ):
                    self._nested(v.text)
        elif kind & K_GETATTR:
            if len(args) >= 2:
                if self._const_str(args[1]) is None:
                    self.col.opaque("code_dynamic_getattr")
                    self._run_origin(self.origins(args[1]) & DECODED)
                if id(node) not in self.called and name in _GETATTR:
                    # getattr(os, 'system') handed on instead of called
                    resolved = self.dotted(node)
                    if resolved is not None and self._is_runner(resolved):
                        self.pending.append(node)
        elif kind & K_IMPORT:
            mod = self._const_str(args[0]) if args else None
            if mod is None:
                self.col.opaque("code_dynamic_import")
                if args:
                    self._run_origin(self.origins(args[0]) & DECODED)
            else:
                self._import(mod)
        if kind & K_DESERIALIZE:
            self.col.opaque("code_deserialize")
            data = args[0] if args else None
            if data is not None:
                bits = self.origins(data)
                if type(data) is ast.Constant or self._const_str(data) is not None:
                    bits |= DECODED  # an encoded program written into the code
                self._run_origin(bits)
        elif kind & K_PARTIAL and args:
            self.partial_of[id(args[0])] = node
        if kind & K_CASE:
            self.col.opaque("code_case_variant")
        if kind & K_NAMESPACE:
            self.col.opaque("code_dynamic_namespace")
        # commands
        if kind & K_RUNNER:
            self.spawns = True
            if any(type(a) is ast.Starred for a in args) or any(k.arg is None for k in node.keywords):
                # subprocess.run(**opts), os.system(*cmd): arguments we cannot see
                self.col.opaque("code_dynamic_command")
            self._stream_keywords(node)
            self._runner(low, node)
        elif kind & K_CTYPES:
            self.spawns = True
            self._command_arg(self._arg(node, 0, "command"))
        elif kind & K_RUNPY:
            self._runpy(name, node)
        elif kind & K_LOOP:
            self._loop_subprocess(name, node)
        elif kind & K_SH:
            if "sh" in self.facts["imports"]:
                self._sh_module(name, node)
        elif kind & K_DUP2:
            if args and self.origins(args[0]) & SOCKET:
                self.socket_streams = True
        elif kind & K_STDIN:
            self._stdin_write(name, node)
        if kind & K_WRITE and type(node.func) is ast.Attribute and args:
            self._file_write(node.func.value, args[0])
        if kind & K_REVEAL and self.env_used and any(self.origins(a) & (ENV_ALL | ENV_SECRET) for a in args):
            self._environment_read()
        if kind & K_FILE:
            self._file_call(name, node)
        if kind & K_HERMES:
            self._hermes_call(name.split(".", 1)[1], node)
        if kind & K_NETWORK:
            self._network_target(name, node)
            if self.env_used and self.facts["network"] and not self.egress_env:
                self._network_send(name, node)
            if kind & K_SMTP:
                self._smtp_recipients(name, node)
        if kind & K_HOF and synthetic < MAX_SYNTHETIC:
            self._higher_order(name, node, synthetic)

    def _is_runner(self, name: str) -> bool:
        low = name.lower()
        return _runs_commands(low) or name in _EVAL or name in _DESERIALIZE

    def _indirect(self, node: ast.expr) -> None:
        """A command runner or eval used as a value (`map(os.system, cmds)`, `r = os.system`):
        decided at the end, once every call that may consume it was seen."""
        name = self.dotted(node)
        if name is not None and self._is_runner(name):
            self.pending.append(node)

    def _escape_ok(self, node: ast.expr) -> bool:
        """A runner reference that is consumed where the reader sees the call it ends up in."""
        i = id(node)
        if i in self.resolved:
            return True
        partial = self.partial_of.get(i)
        if partial is not None:
            return self._used_directly(partial)
        name = self.bound_ids.get(i)
        return name is not None and self._call_only(name, 0)

    def _used_directly(self, node: ast.expr) -> bool:
        i = id(node)
        if i in self.called or i in self.resolved:
            return True
        name = self.bound_ids.get(i)
        return name is not None and self._call_only(name, 0)

    def _call_only(self, name: str, depth: int) -> bool:
        """Every use of the name is a call (or a binding of another such name)."""
        uses = self.loads.get(name)
        if not uses or depth > 4:
            return False
        for use in uses:
            i = id(use)
            if i in self.called or i in self.resolved:
                continue
            other = self.bound_ids.get(i)
            if other is not None and other != name and self._call_only(other, depth + 1):
                continue
            return False
        return True

    def _arg(self, node: ast.Call, index: int, *names: str) -> ast.expr | None:
        if len(node.args) > index:
            arg = node.args[index]
            return None if type(arg) is ast.Starred else arg
        for k in node.keywords:
            if k.arg in names:
                return k.value
        return None

    def _keyword(self, node: ast.Call, name: str) -> ast.expr | None:
        for k in node.keywords:
            if k.arg == name:
                return k.value
        return None

    def _consume(self, *exprs: ast.AST | None) -> None:
        """String literals used as a command are the command, not separate path literals."""
        if len(exprs) == 1 and type(exprs[0]) is ast.Constant:
            if type(exprs[0].value) is str:
                self.consumed.add(exprs[0].value)
            return
        todo = [e for e in exprs if e is not None]
        seen: set[str] = set()
        while todo:
            for n in ast.walk(todo.pop()):
                if type(n) is ast.Constant and type(n.value) is str:
                    self.consumed.add(n.value)
                elif type(n) is ast.Name and n.id in self.consts and n.id not in seen:
                    seen.add(n.id)
                    todo.append(self.consts[n.id])

    # -- commands ------------------------------------------------------------------------
    def _runner(self, low: str, node: ast.Call) -> None:
        args = node.args
        if low in _SHELL_STRING:
            self._command_arg(self._arg(node, 0, "cmd", "command"))
        elif low.startswith("subprocess."):
            cmd = self._arg(node, 0, "args")
            if cmd is not None:
                self._subprocess(node, cmd)
        elif low == "asyncio.create_subprocess_exec":
            self._argv_args(list(args))
        elif low.startswith("os.exec"):
            self._exec_call(low, node)
        elif low.startswith("os.spawn"):
            self._spawn_call(low, node)
        elif low in ("os.posix_spawn", "os.posix_spawnp"):
            if args:
                self._command_arg(self._with_program(args[0], args[1] if len(args) > 1 else None))
        elif low == "pty.spawn":
            self._command_arg(self._arg(node, 0, "argv"))

    def _subprocess(self, node: ast.Call, cmd: ast.expr) -> None:
        """subprocess.*: the command with its `shell=`, `executable=` and `cwd=`; a program
        written to a shell's or interpreter's `input=`."""
        cwd = self._cwd_keyword(node)
        shell = self._keyword(node, "shell")
        exe = self._keyword(node, "executable")
        as_shell = shell is not None and not (type(shell) is ast.Constant and not shell.value)
        elts = self._literal_elts(cmd) if isinstance(cmd, ast.List | ast.Tuple | ast.Name) else None
        run = cmd
        if as_shell and elts:
            # shell=True with a list: the first item is the shell program, the rest its $0, $1, ...
            run = elts[0]
            if type(shell) is not ast.Constant:
                self._command_arg(cmd, cwd)  # shell=flag: either way
        if exe is not None:
            program = self._const_str(exe)
            if as_shell:
                if program is None or posixpath.basename(program) not in _shell_names():
                    run = ast.List(elts=[exe, ast.Constant(value="-c"), run], ctx=ast.Load())
            else:
                run = self._with_program(
                    exe, cmd if elts is not None else None, None if elts is not None else [cmd]
                )
        self._command_arg(run, cwd)
        data = self._keyword(node, "input")
        if data is not None:
            self._stdin_program(cmd, data)

    def _with_program(
        self, program: ast.expr, argv: ast.expr | None, args: list[ast.expr] | None = None
    ) -> ast.expr:
        """The command a path runs with an argument vector (os.exec*, os.spawn*, posix_spawn,
        `executable=`): the program is the path, whatever argv[0] says."""
        rest: list[ast.expr]
        if args is not None:
            rest = list(args[1:])
        elif argv is None:
            rest = []
        else:
            elts = self._literal_elts(argv)
            if elts is None:
                tail = ast.Subscript(value=argv, slice=ast.Slice(lower=ast.Constant(value=1)), ctx=ast.Load())
                rest = [_starred(tail)]
            else:
                rest = elts[1:]
        return ast.List(elts=[program, *rest], ctx=ast.Load())

    def _cwd_keyword(self, node: ast.Call) -> str | None | object:
        cwd = self._keyword(node, "cwd")
        if cwd is None:
            return None
        self._consume(cwd)  # the directory a command runs in, not a path it acts on
        v = self.value(cwd)
        if v is None or v.text is None:
            return _UNKNOWN_FLAG
        norm = paths.normalize(v.text, self.cwd or "/", self.col.home, self.col.cache)
        return norm.path or _UNKNOWN_FLAG

    def _stream_keywords(self, node: ast.Call) -> None:
        for k in node.keywords:
            if k.arg in ("stdin", "stdout", "stderr") and self.origins(k.value) & SOCKET:
                self.socket_streams = True

    def _command_arg(self, arg: ast.expr | None, cwd: str | None | object = None) -> None:
        if arg is None:
            return
        self._consume(arg)
        bits = self._argv_origins(arg)
        if bits:
            self._run_origin(bits)
        found = self.values(arg)
        if found is None:
            self.col.opaque("code_dynamic_command")
            return
        where: str | None = cwd if isinstance(cwd, str) else None
        if cwd is _UNKNOWN_FLAG:
            self.col.opaque("code_dynamic_cwd")
        for v in found:
            if v.text is not None:
                self._shell(v.text, where)
            elif v.items:
                self._argv(v.items, where)

    def _argv_origins(self, arg: ast.expr) -> int:
        """Decoded or fetched data that a command would run: anywhere in a shell string, in an
        argument vector's program, or anywhere in the arguments of a shell or interpreter."""
        elts = self._literal_elts(arg) if type(arg) in (ast.List, ast.Tuple, ast.Name) else None
        if elts is None:
            return self.origins(arg) & _RUN_ORIGINS
        return self._elts_origins(elts)

    def _elts_origins(self, elts: list[ast.expr]) -> int:
        if not elts:
            return 0
        head = self.origins(elts[0]) & _RUN_ORIGINS
        if head:
            return head
        program = self._const_str(elts[0])
        if program is not None and _interpreter(posixpath.basename(program)):
            bits = 0
            for e in elts[1:]:
                bits |= self.origins(e)
            return bits & _RUN_ORIGINS
        return 0

    def _argv_args(self, args: list[ast.expr]) -> None:
        self._consume(*args)
        self._run_origin(self._elts_origins([a for a in args if type(a) is not ast.Starred]))
        items: list[str] = []
        for a in args:
            if type(a) is ast.Starred:
                self.col.opaque("code_dynamic_command")
                return
            v = self.value(a)
            if v is None or v.text is None:
                self.col.opaque("code_dynamic_command")
                return
            items.append(v.text)
        if items:
            self._argv(items)

    def _exec_call(self, name: str, node: ast.Call) -> None:
        fn = name.split(".", 1)[1]
        args = node.args
        if not args or any(type(a) is ast.Starred for a in args):
            self.col.opaque("code_dynamic_command")
        elif fn in ("execl", "execlp", "execle", "execlpe"):
            rest = args[1:-1] if fn.endswith("e") else args[1:]
            self._command_arg(self._with_program(args[0], None, list(rest)))
        elif fn in ("execv", "execvp", "execve", "execvpe"):
            self._command_arg(self._with_program(args[0], args[1] if len(args) > 1 else None))
        else:
            self.col.opaque("code_dynamic_command")

    def _spawn_call(self, name: str, node: ast.Call) -> None:
        fn = name.split(".", 1)[1]
        args = node.args
        if len(args) < 2 or any(type(a) is ast.Starred for a in args):
            self.col.opaque("code_dynamic_command")
        elif fn in ("spawnl", "spawnlp", "spawnle", "spawnlpe"):
            rest = args[2:-1] if fn.endswith("e") else args[2:]
            self._command_arg(self._with_program(args[1], None, list(rest)))
        elif fn in ("spawnv", "spawnvp", "spawnve", "spawnvpe"):
            self._command_arg(self._with_program(args[1], args[2] if len(args) > 2 else None))
        else:
            self.col.opaque("code_dynamic_command")

    def _loop_subprocess(self, name: str, node: ast.Call) -> None:
        """asyncio's `loop.subprocess_shell(factory, cmd)` and `subprocess_exec(factory, program, *args)`."""
        self.spawns = True
        if name.endswith("subprocess_shell"):
            self._command_arg(self._arg(node, 1, "cmd"))
        else:
            self._argv_args(list(node.args[1:]))

    def _sh_module(self, name: str, node: ast.Call) -> None:
        """The `sh` package: `sh.rm('-rf', path)`, `sh.Command('rm')(...)` run a program."""
        self.spawns = True
        if name == "sh.Command()":
            maker = node.func
            program = maker.args[0] if type(maker) is ast.Call and maker.args else None
        else:
            program = ast.Constant(value=name.split(".", 1)[1].replace("_", "-"))
        if program is None:
            self.col.opaque("code_dynamic_command")
            return
        self._argv_args([program, *node.args])

    def _runpy(self, name: str, node: ast.Call) -> None:
        """runpy and the file loaders of importlib run a file (or module) as code: the command
        `python3 FILE` / `python3 -m M`."""
        module = name == "runpy.run_module"
        index, keyword = _LOADERS.get(name, (0, "path_name"))
        target = self._arg(node, index, keyword, "mod_name", "location", "path", "pathname")
        v = self.value(target) if target is not None else None
        self.spawns = True
        if v is None or v.text is None:
            self.col.opaque("code_dynamic_command")
            return
        self._consume(target)
        self._argv(["python3", "-m", v.text] if module else ["python3", v.text])

    def _stdin_program(self, cmd: ast.expr, data: ast.expr) -> None:
        """Data written to the standard input of a shell or interpreter that reads its program there."""
        found = self.value(cmd)
        if found is None:
            self._run_origin(self.origins(data))
            return
        items = found.items if found.items is not None else (found.text or "").split()
        if not items or not _reads_program(items):
            return
        bits = self.origins(data) & _RUN_ORIGINS
        if bits:
            self._run_origin(bits)
            return
        v = self.value(data)
        if v is None or v.text is None:
            self.col.opaque("shell_dynamic_body")
            return
        self._consume(data)
        program = posixpath.basename(items[0])
        if program in _shell_names():
            self._shell(v.text)
        elif _is_python(program):
            self._nested(v.text)
        else:
            self.col.opaque(f"{program}_e")

    def _stdin_write(self, name: str, node: ast.Call) -> None:
        """A program written to a process's stdin: `Popen(['sh'], stdin=PIPE).communicate(b'...')`,
        `p.stdin.write(...)`, `os.popen('sh', 'w').write(...)`."""
        func = node.func
        if type(func) is not ast.Attribute:
            return
        owner: ast.expr = func.value
        if name.endswith((".stdin.write", ".stdin.writelines")) and type(owner) is ast.Attribute:
            owner = owner.value
        elif not name.endswith(".communicate") and not name.endswith(".write"):
            return
        if type(owner) is ast.Name:
            bound = self.consts.get(owner.id)
            if bound is None:
                return
            owner = bound
        if type(owner) is not ast.Call:
            return
        maker = self.dotted(owner.func)
        data = self._arg(node, 0, "input")
        if data is None:
            return
        to_stdin = name.endswith((".communicate", ".stdin.write", ".stdin.writelines"))
        if maker == "subprocess.Popen" and to_stdin:
            cmd = self._arg(owner, 0, "args")
            if cmd is not None:
                self._stdin_program(cmd, data)
        elif maker == "os.popen" and not to_stdin:
            mode = self._const_str(owner.args[1]) if len(owner.args) > 1 else None
            cmd = self._arg(owner, 0, "cmd")
            if mode is not None and "w" in mode and cmd is not None:
                self._stdin_program(cmd, data)

    def _nested(self, text: str) -> None:
        """Python source handed to exec/eval (or to python's stdin): read it as code too."""
        if self.depth + 1 > MAX_DEPTH:
            self.col.opaque("code_too_deep")
            return
        inner = Analyzer(self.col, self.cwd, self.depth + 1, self.context)
        inner.aliases = dict(self.aliases)
        inner.run(text)

    def _shell(self, text: str, cwd: str | None = None) -> None:
        from opafence.facts import shell

        if self.depth + 1 > MAX_DEPTH:
            self.col.opaque("shell_too_deep")
            return
        shell.parse_into(self.col, text, cwd or self.cwd, self.depth + 1, self.context, parse_into)

    def _argv(self, items: list[str], cwd: str | None = None) -> None:
        from opafence.facts import shell

        if self.depth + 1 > MAX_DEPTH:
            self.col.opaque("shell_too_deep")
            return
        shell.parse_argv_into(self.col, items, cwd or self.cwd, self.depth + 1, self.context, parse_into)

    # -- calls that call what they are given ------------------------------------------------
    def _higher_order(self, name: str, node: ast.Call, synthetic: int) -> None:
        last = name.rpartition(".")[2]
        spec = _HOFS.get(name)
        if spec is None:
            if "." not in name or last.endswith(")"):
                return
            spec = _HOFS.get("." + last)
            if spec is None:
                return
            if last in ("Thread", "Process", "Timer") and name.split(".", 1)[0] not in _HOF_ROOTS:
                return
        kind = spec[0]
        calls: list[ast.Call] = []
        f: ast.expr | None
        if kind == "star":
            index, keyword = spec[1], spec[2]
            f = (
                self._arg(node, index, keyword)
                if keyword
                else (node.args[index] if len(node.args) > index else None)
            )
            if f is None:
                return
            rest = node.args[index + 1 :] if len(node.args) > index else []
            kws = [k for k in node.keywords if k.arg != keyword]
            calls.append(ast.Call(func=f, args=list(rest), keywords=kws))
        elif kind == "target":
            _, fkw, fi, akw, ai, kkw, ki = spec
            f = self._arg(node, fi, fkw)
            if f is None:
                return
            a = self._arg(node, ai, akw)
            k = self._arg(node, ki, kkw)
            call_args: list[ast.expr] = []
            if a is not None:
                elts = self._literal_elts(a)
                call_args = elts if elts is not None else [_starred(a)]
            call_kws: list[ast.keyword] = []
            if k is not None:
                if type(k) is ast.Dict and all(key is not None for key in k.keys):
                    for key, val in zip(k.keys, k.values, strict=True):
                        ks = self._const_str(key) if key is not None else None
                        call_kws.append(ast.keyword(arg=ks, value=val))
                else:
                    call_kws.append(ast.keyword(arg=None, value=k))
            calls.append(ast.Call(func=f, args=call_args, keywords=call_kws))
        else:
            star = spec[1]
            f = node.args[0] if node.args else self._keyword(node, "func")
            iterables = node.args[1:]
            if f is None or not iterables:
                return
            elts = self._literal_elts(iterables[0]) if len(iterables) == 1 else None
            if elts is not None and len(elts) <= MAX_ALTERNATIVES:
                for e in elts:
                    if star:
                        inner = self._literal_elts(e)
                        each = inner if inner is not None else [_starred(e)]
                    else:
                        each = [e]
                    calls.append(ast.Call(func=f, args=each, keywords=[]))
            else:
                each = [_starred(it) for it in iterables]
                calls.append(ast.Call(func=f, args=each, keywords=[]))
        if type(f) is ast.Lambda:
            return  # its body is read where it is written; its parameters stay unknown
        self.resolved.add(id(f))
        for call in calls:
            self._call(call, synthetic + 1)

    # -- files ---------------------------------------------------------------------------
    def _path(self, arg: ast.expr | None, op: str, tool_style: bool = False) -> None:
        if arg is None:
            return
        found = self.values(arg) if op in ("write", "delete") else None
        if found is None:
            v = self.value(arg)
            found = [v] if v is not None else None
        if found is None or any(v.text is None for v in found):
            if op in ("write", "delete"):
                self.col.opaque("code_dynamic_path")
            return
        for v in found:
            if v.text is not None:
                self._add_path(v.text, op, tool_style)

    def _add_path(self, raw: str, op: str, tool_style: bool = False) -> None:
        if tool_style:
            # Hermes' own file tools expand ~ (Python's open() does not).
            norm = paths.normalize(raw, self.cwd or "/", self.col.home, self.col.cache)
            if norm.problem:
                self.col.opaque(norm.problem)
            self.col.add_path(raw, norm.path, self.col.arg, "code", op)
            return
        bad = paths.problem(raw)
        if bad or not raw:
            if op in ("write", "delete") and bad:
                self.col.opaque(bad)
            return
        if not raw.startswith("/") and self.cwd is None:
            if op in ("write", "delete"):
                self.col.opaque("code_dynamic_cwd")
            return
        self.col.add_path(raw, paths.resolve(raw, self.cwd or "/", self.col.cache), self.col.arg, "code", op)

    def _file_call(self, name: str, node: ast.Call) -> None:
        func = node.func
        if name in _OPEN or (
            name.endswith(".open") and type(func) is ast.Attribute and self._is_path_expr(func.value)
        ):
            target: ast.expr | None
            if name.endswith(".open") and name not in _OPEN and type(func) is ast.Attribute:
                target = func.value
                mode_arg = self._arg(node, 0, "mode")
            else:
                target = self._arg(node, 0, "file", "filename", "path")
                mode_arg = self._arg(node, 1, "mode", "flags")
            mode = "r"
            if mode_arg is not None:
                mv = self.value(mode_arg)
                # flags or a mode we cannot read statically: assume the worst
                mode = mv.text if mv is not None and mv.text is not None else "w"
            op = "write" if any(c in mode for c in "wax+") else "read"
            self._path(target, op)
            return
        if name in _DELETE_1:
            self._path(self._arg(node, 0, "path", "name"), "delete")
        elif name in _WRITE_1:
            self._path(self._arg(node, 0, "path", "name"), "write")
        elif name in _READ_1:
            self._path(self._arg(node, 0, "path", "top", "pathname"), "read")
        elif name in _MOVE:
            self._path(self._arg(node, 0, "src"), "delete")
            self._path(self._arg(node, 1, "dst"), "write")
        elif name in _COPY:
            self._path(self._arg(node, 0, "src"), "read")
            self._path(self._arg(node, 1, "dst"), "write")
        elif name in _LINK:
            self._path(self._arg(node, 1, "dst"), "write")
        elif name in _CHMOD:
            self._path(self._arg(node, 0, "path"), "")
        elif name in _ARCHIVES:
            mode_expr = self._arg(node, 1, "mode")
            archive_mode = self._const_str(mode_expr) if mode_expr is not None else "r"
            reads = archive_mode is not None and archive_mode[:1] == "r"
            self._path(self._arg(node, 0, "name", "file"), "read" if reads else "write")
        elif name in _READ_CALLS:
            index, keyword, default, op = _READ_CALLS[name]
            target = self._arg(node, index, keyword)
            if target is not None:
                self._path(target, op)
            elif default is not None:
                raw = self.col.home + default[1:] if default.startswith("~/") else default
                self._add_path(raw, op)
        elif name == "shutil.make_archive":
            self._path(self._arg(node, 0, "base_name"), "write")
            root = self._arg(node, 2, "root_dir")
            if root is not None:
                self._path(root, "read")
            elif self.cwd is not None:
                self._add_path(".", "read")
        elif name.startswith(("tarfile.", "zipfile.")) and name.endswith((".add", ".write")):
            self._path(self._arg(node, 0, "name", "filename"), "read")
        elif name == "shutil.unpack_archive":
            self._path(self._arg(node, 0, "filename"), "read")
            self._extract_to(self._arg(node, 1, "extract_dir"))
        elif name.startswith(("tarfile.", "zipfile.")) and name.endswith((".extractall", ".extract")):
            index = 0 if name.endswith(".extractall") else 1
            self._extract_to(self._arg(node, index, "path"))
        elif name in _DOWNLOADS:
            dest = self._arg(node, _DOWNLOADS[name], "filename", "out")
            if dest is not None:
                self._path(dest, "write")
                v = self.value(dest)
                if v is not None and v.text is not None:
                    self.written.append((v.text, None, FETCHED))
        elif (
            type(func) is ast.Attribute and func.attr in _DATA_WRITERS and not self._is_path_expr(func.value)
        ):
            # df.to_csv("out.csv"), fig.savefig("mau.png"), np.save("a.npy", x)
            self._path(self._arg(node, 0, *_DATA_WRITERS[func.attr]), "write")
        elif type(func) is ast.Attribute and func.attr in _PATH_METHODS:
            if self._is_path_expr(func.value):
                op = _PATH_METHODS[func.attr]
                self._path(func.value, op)
                if func.attr in ("write_text", "write_bytes") and node.args:
                    self._file_write(func.value, node.args[0], path_expr=True)
        elif (
            type(func) is ast.Attribute
            and func.attr in ("rename", "replace")
            and self._is_path_expr(func.value)
        ):
            self._path(func.value, "delete")
            self._path(self._arg(node, 0, "target"), "write")

    def _extract_to(self, dest: ast.expr | None) -> None:
        """An archive is unpacked into dest (by default the directory the code runs in)."""
        if dest is None:
            if self.cwd is None:
                self.col.opaque("code_dynamic_cwd")
            else:
                self._add_path(".", "write")
            return
        self._path(dest, "write")

    def _file_write(self, owner: ast.expr, data: ast.expr, path_expr: bool = False) -> None:
        """A file this code writes: its content when known, and where that content came from,
        remembered to see whether the code then runs the file."""
        if path_expr:
            target: ast.expr | None = owner
            mode = "w"
        else:
            target, mode = self._file_target(owner)
        if target is None:
            return
        where = self.value(target)
        if where is None or where.text is None:
            return
        bits = self.origins(data)
        if bits & (ENV_ALL | ENV_SECRET) and self.env_used:
            self._environment_read()
        content = self.value(data) if "w" in mode and "+" not in mode else None
        known = content.text if content is not None else None
        for i, (raw, _, old) in enumerate(self.written):
            if raw == where.text:
                self.written[i] = (raw, None, old | bits)  # written twice: no single content
                return
        self.written.append((where.text, known, bits))

    def _file_target(self, owner: ast.expr) -> tuple[ast.expr | None, str]:
        """The path and mode of `open(P, 'w')` (or of a name bound to it) whose method is called."""
        if type(owner) is ast.Name:
            bound = self.consts.get(owner.id)
            if bound is None:
                return None, ""
            owner = bound
        if type(owner) is not ast.Call:
            return None, ""
        fn = self.dotted(owner.func)
        if fn in _OPEN:
            mode = self._arg(owner, 1, "mode")
            text = self._const_str(mode) if mode is not None else "r"
            return self._arg(owner, 0, "file", "filename", "path"), text or ""
        if fn is not None and fn.endswith(".open") and type(owner.func) is ast.Attribute:
            mode = self._arg(owner, 0, "mode")
            text = self._const_str(mode) if mode is not None else "r"
            return owner.func.value, text or ""
        return None, ""

    def _written_content(self, owner: ast.expr) -> _Value | None:
        """`open(P).read()` of a file this code wrote with a known content."""
        target, mode = self._file_target(owner)
        if target is None or "r" not in mode:
            return None
        where = self.value(target)
        if where is None:
            return None
        for raw, content, _ in self.written:
            if raw == where.text and content is not None:
                return _Value(content)
        return None

    def _written_runs(self) -> None:
        """A file this code wrote that one of its commands then runs: its content is the program
        (decoded or downloaded content is named as such; content the reader cannot see is opaque)."""
        commands = self.col.commands[self.first_command :]
        for raw, content, bits in list(self.written):
            canonical = paths.resolve(raw, self.cwd or "/", self.col.cache) if not paths.problem(raw) else ""
            for c in commands:
                how = self._runs_file(c, raw, canonical)
                if not how:
                    continue
                if bits & _RUN_ORIGINS:
                    self._run_origin(bits)
                elif content is None:
                    self.col.opaque("code_dynamic_command")
                elif how == "python" or (
                    how == "exec" and content.startswith("#!") and "python" in content.split("\n", 1)[0]
                ):
                    self._nested(content)
                else:
                    self._shell(content)
                break

    def _runs_file(self, c: dict[str, Any], raw: str, canonical: str) -> str:
        argv = c["argv"]
        if not argv:
            return ""
        head = argv[0]
        if head == raw or (
            canonical and "/" in head and paths.resolve(head, self.cwd or "/", self.col.cache) == canonical
        ):
            return "exec"
        program = c["name"]
        language = "shell" if program in _shell_names() else ("python" if _is_python(program) else "")
        if not language or "-c" in c["flags"] or not c["operands"]:
            return ""
        if c["operands"][0] == raw or (canonical and c["operand_paths"][0] == canonical):
            return language
        return ""

    def _is_path_expr(self, node: ast.AST) -> bool:
        v = self.value(node)
        if v is not None:
            return v.is_path
        # Path(some_variable).unlink(): a path object whose path we cannot know
        if type(node) is ast.Call:
            fn = self.dotted(node.func)
            return bool(fn in _PATH_CTORS or (fn and fn.startswith("pathlib.")))
        if type(node) is ast.BinOp and type(node.op) is ast.Div:
            return self._is_path_expr(node.left)
        return False

    # -- the network -------------------------------------------------------------------------
    def _network_send(self, name: str, node: ast.Call) -> None:
        """The environment (whole, or a secret-named variable) in the data of a network call."""
        plain = _strip_calls(name)
        root = plain.split(".", 1)[0]
        if root not in NETWORK_MODULES or plain.startswith(("urllib.parse", "ssl.")):
            return
        last = plain.rpartition(".")[2]
        if last in _LOGIN_METHODS:
            return
        skip = 0 if last in _SEND_METHODS else (2 if last == "request" else 1)
        for i, a in enumerate(node.args):
            bits = self.origins(a)
            if bits & ENV_ALL or (bits & ENV_SECRET and i >= skip):
                self.egress_env = True
                return
        for k in node.keywords:
            bits = self.origins(k.value)
            if bits & ENV_ALL or (bits & ENV_SECRET and (k.arg is None or k.arg in _BODY_KEYWORDS)):
                self.egress_env = True
                return

    def _network_target(self, name: str, node: ast.Call) -> None:
        """The host a socket, HTTP, SMTP or FTP connection goes to, as a URL fact (like nc's)."""
        plain = _strip_calls(name)
        scheme = _CONNECTIONS.get(plain)
        if scheme is None:
            return
        target = self._arg(node, 0, "address", "host")
        if target is None:
            return
        host: str | None
        port: int | None = None
        if isinstance(target, ast.Tuple) and len(target.elts) >= 2:
            host = self._const_str(target.elts[0])
            p = target.elts[1]
            port = p.value if isinstance(p, ast.Constant) and type(p.value) is int else None
        else:
            host = self._const_str(target)
            given = self._arg(node, 1, "port")
            port = given.value if isinstance(given, ast.Constant) and type(given.value) is int else None
        if not host:
            return
        raw = f"{host}:{port}" if port is not None else host
        fact, problem = url.remote_target(raw.split(":", 1)[0] if ":" in host else host, self.col.arg, scheme)
        if fact is None:
            return
        fact["raw"] = raw
        fact["port"] = port
        if problem:
            self.col.opaque(problem)
        self.col.add_url(fact)

    def _smtp_recipients(self, name: str, node: ast.Call) -> None:
        to = self._arg(node, 1, "to_addrs") if name.endswith(".sendmail") else self._arg(node, 2, "to_addrs")
        if to is None:
            return
        v = self.value(to)
        if v is None:
            return
        for text in v.items if v.items is not None else [v.text or ""]:
            self.col.recipients.extend(email.parse_recipients(text, "to"))

    # -- Hermes tools --------------------------------------------------------------------
    def _hermes_call(self, tool: str, node: ast.Call) -> None:
        calls: list[str] = self.facts["tool_calls"]
        if tool not in calls:
            calls.append(tool)
        if tool == "terminal":
            self.spawns = True
            workdir = self._arg(node, 2, "workdir")
            cwd = self.cwd
            if workdir is not None:
                wv = self.value(workdir)
                if wv is None or wv.text is None:
                    cwd = None
                else:
                    norm = paths.normalize(wv.text, self.cwd or "/", self.col.home, self.col.cache)
                    cwd = norm.path or None
                    self.col.add_path(wv.text, norm.path, self.col.arg, "code", "")
            self._command_arg(self._arg(node, 0, "command"), cwd)
        elif tool == "read_file":
            self._path(self._arg(node, 0, "path"), "read", tool_style=True)
        elif tool == "write_file":
            target = self._arg(node, 0, "path")
            self._path(target, "write", tool_style=True)
            content = self._arg(node, 1, "content")
            where = self.value(target) if target is not None else None
            if content is not None and where is not None and where.text is not None:
                norm = paths.normalize(where.text, self.cwd or "/", self.col.home, self.col.cache)
                if norm.path:
                    self._file_write(ast.Constant(value=norm.path), content, path_expr=True)
        elif tool == "search_files":
            self._path(self._arg(node, 2, "path"), "read", tool_style=True)
        elif tool == "patch":
            self._path(self._arg(node, 0, "path"), "write", tool_style=True)
            text_arg = self._arg(node, 5, "patch")
            if text_arg is not None:
                v = self.value(text_arg)
                if v is None or v.text is None:
                    self.col.opaque("code_dynamic_path")
                else:
                    from opafence.facts import patch as patch_module

                    for raw, op in patch_module.parse_patch(v.text):
                        norm = paths.normalize(raw, self.cwd or "/", self.col.home, self.col.cache)
                        if norm.problem:
                            self.col.opaque(norm.problem)
                        self.col.add_path(raw, norm.path, self.col.arg, "patch", op)
        elif tool == "web_extract":
            arg = self._arg(node, 0, "urls")
            v = self.value(arg) if arg is not None else None
            for item in (v.items or ([v.text] if v.text else [])) if v is not None else []:
                fact, _ = url.parse(item, self.col.arg)
                if fact is not None:
                    self.col.add_url(fact)

    # -- other nodes ---------------------------------------------------------------------
    def _subscript(self, node: ast.Subscript) -> None:
        base = node.value
        namespace = False
        if type(base) is ast.Call:
            fn = self.dotted(base.func)
            namespace = fn in (
                "globals",
                "locals",
                "vars",
                "builtins.globals",
                "builtins.locals",
                "builtins.vars",
            )
        elif type(base) is ast.Attribute and base.attr == "__dict__":
            namespace = True
        else:
            name = self.dotted(base)
            namespace = name in ("sys.modules", "builtins.__dict__", "builtins")
        if not namespace:
            return
        key = self._const_str(node.slice)
        if key is None or key.startswith("__") or type(node.ctx) is not ast.Load:
            # a name computed at run time, a dunder, or a namespace written to
            self.col.opaque("code_dynamic_namespace")
            if key is None:
                self._run_origin(self.origins(node.slice) & DECODED)
            return
        if id(node) not in self.called:
            resolved = self._namespace_name(node, 0)
            if resolved is not None and self._is_runner(resolved):
                self.pending.append(node)

    def _literal(self, text: str) -> None:
        if "://" in text:
            for fact in url.find_in_text(text, self.col.arg):
                self.col.add_url(fact)
            return
        if (
            2 <= len(text) <= paths.MAX_PATH
            and (text.startswith("/") or text.startswith("~/"))
            and not any(c.isspace() for c in text)
            and (len(text) > 1 and (text[1].isalnum() or text[1] in "._~-"))
        ):
            self.literal_paths.append(text)


_FOLLOW = frozenset({ast.Name, ast.Attribute, ast.Subscript, ast.Call})
_PERCENT = re.compile(r"(%%|%(?:\([^)]*\))?[-#0 +]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[a-zA-Z])")
_PERCENT_FIELD = re.compile(r"%(?:\(([^)]*)\))?[sr]")
# str methods whose result we compute: name -> number of string arguments
_STR_METHODS = {
    "strip": 1,
    "lstrip": 1,
    "rstrip": 1,
    "lower": 0,
    "upper": 0,
    "casefold": 0,
    "replace": 2,
    "removeprefix": 1,
    "removesuffix": 1,
}
_STR_STRIP = frozenset({"strip", "lstrip", "rstrip"})

_BINDING_TYPES = frozenset(
    {
        ast.Import,
        ast.ImportFrom,
        ast.Assign,
        ast.AnnAssign,
        ast.AugAssign,
        ast.NamedExpr,
        ast.For,
        ast.AsyncFor,
        ast.comprehension,
        ast.withitem,
        ast.FunctionDef,
        ast.AsyncFunctionDef,
        ast.Lambda,
        ast.ClassDef,
        ast.arguments,
        ast.ExceptHandler,
        ast.MatchAs,
        ast.MatchStar,
        ast.MatchMapping,
    }
)

# Fields that never hold child nodes we read (contexts, operators, names as strings).
_SKIP_FIELDS = frozenset(
    {"ctx", "op", "ops", "type_comment", "kind", "conversion", "is_async", "level", "names", "type_ignores"}
)
_CHILD_FIELDS: dict[type[ast.AST], tuple[str, ...]] = {ast.Constant: ()}


def _child_fields(t: type[ast.AST]) -> tuple[str, ...]:
    """The fields of a node type that may hold child nodes, last first (the walk's stack order)."""
    fields = tuple(reversed([n for n in t._fields if n not in _SKIP_FIELDS]))
    _CHILD_FIELDS[t] = fields
    return fields


def _starred(value: ast.expr) -> ast.expr:
    """An argument standing for values the reader cannot list (`*cmds`)."""
    return ast.Starred(value=value, ctx=ast.Load())


def _shell_names() -> frozenset[str]:
    from opafence.facts import shell

    return shell.SHELLS


def _is_python(name: str) -> bool:
    from opafence.facts import shell

    return shell.is_python(name)


def _interpreter(name: str) -> bool:
    """A program that runs the code or commands it is given (a shell or a language)."""
    from opafence.facts import shell

    return (
        name in shell.SHELLS
        or shell.is_python(name)
        or name in shell.NODES
        or name in shell.OTHER_INTERPRETERS
    )


def _reads_program(items: list[str]) -> bool:
    """The command line starts an interpreter that reads its program from standard input."""
    program = posixpath.basename(items[0])
    if not _interpreter(program):
        return False
    shell_like = program in _shell_names()
    for a in items[1:]:
        if a in ("-", "-s", "--"):
            return True
        if a in ("-c", "-e", "-E", "-r", "-m") or (shell_like and a.startswith("-") and "c" in a[1:]):
            return False
        if not a.startswith("-"):
            return False
    return True


def _runs_commands(low: str) -> bool:
    """A (lower-cased) dotted name that starts a process."""
    if low in _SHELL_STRING or low in _OTHER_RUNNERS:
        return True
    head, _, fn = low.partition(".")
    if not fn or "." in fn or "(" in fn:
        return False
    if head == "subprocess":
        return fn in _SUBPROCESS_RUNNERS
    return head == "os" and fn.startswith(("exec", "spawn", "posix_spawn"))


_OTHER_RUNNERS = frozenset(
    {
        "pty.spawn",
        "asyncio.create_subprocess_exec",
        "hermes_tools.terminal",
        "os.posix_spawn",
        "os.posix_spawnp",
    }
)


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
_FILE_NAMES = _OPEN | _DELETE_1 | _WRITE_1 | _READ_1 | _MOVE | _COPY | _LINK | _CHMOD | _ARCHIVES
_FILE_METHODS = frozenset(_PATH_METHODS) | {"open", "rename", "replace"} | frozenset(_DATA_WRITERS)


def _kind(name: str) -> int:
    low = name.lower()
    last = name.rpartition(".")[2]
    kind = 0
    if name in _EVAL:
        kind |= K_EVAL
    elif name in _GETATTR or name in ("setattr", "delattr", "builtins.setattr"):
        kind |= K_GETATTR
    elif name in _IMPORT:
        kind |= K_IMPORT
    if name in _DESERIALIZE:
        kind |= K_DESERIALIZE
    elif name == "functools.partial":
        kind |= K_PARTIAL
    fn = name.partition(".")[2]
    if (
        name != low
        and fn
        and "." not in fn
        and "(" not in fn
        and (_runs_commands(low) or low in _DELETE_1)
        and name != "subprocess.Popen"
    ):
        kind |= K_CASE
    if _runs_commands(low):
        kind |= K_RUNNER
    elif low.startswith("ctypes.") and low.rsplit(".", 1)[1] in ("system", "popen"):
        kind |= K_CTYPES
    elif low in ("runpy.run_path", "runpy.run_module") or name in _LOADERS:
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
    if name in _REVEALS:
        kind |= K_REVEAL
    if last in _NAMESPACE_WRITERS and name.startswith(
        ("globals().", "locals().", "vars().", "builtins.globals().", "builtins.locals().", "sys.modules.")
    ):
        kind |= K_NAMESPACE
    if (
        name in _FILE_NAMES
        or name in _DOWNLOADS
        or name in ("shutil.unpack_archive", "shutil.make_archive")
        or name in _READ_CALLS
        or (name.startswith(("tarfile.", "zipfile.")) and name.endswith((".add", ".write")))
        or last in _FILE_METHODS
        or (name.startswith(("tarfile.", "zipfile.")) and name.endswith((".extractall", ".extract")))
    ):
        kind |= K_FILE
    if name.startswith("hermes_tools.") and fn in _HERMES_TOOLS:
        kind |= K_HERMES
    if _strip_calls(name).split(".", 1)[0] in NETWORK_MODULES:
        kind |= K_NETWORK
        if name.startswith("smtplib.") and name.endswith((".sendmail", ".send_message")):
            kind |= K_SMTP
    if name in _HOFS or ("." in name and not last.endswith(")") and "." + last in _HOFS):
        kind |= K_HOF
    if len(_KINDS) > 8192:
        _KINDS.clear()
    _KINDS[name] = kind
    return kind


def parse_into(col: Collector, text: str, cwd: str | None, depth: int = 0, context: str = "code") -> None:
    """Analyze Python source into col (code facts, commands, paths, URLs, opacity)."""
    scope = col.push("code")
    col.code_facts()
    try:
        Analyzer(col, cwd, depth, context).run(text)
    except RecursionError:
        col.opaque("code_too_deep")
    finally:
        col.pop(scope)


def parse(text: str, cwd: str, home: str) -> dict[str, Any]:
    """Stand-alone: Python source -> {"code": ..., "shell": ..., "paths": ..., "urls": ...}."""
    col = Collector(home=home, cwd=cwd, arg="code")
    parse_into(col, text, cwd)
    return {
        "code": col.code,
        "commands": col.commands,
        "paths": col.paths,
        "urls": col.urls,
        "opaque_reasons": col.reasons,
    }
