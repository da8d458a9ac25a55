"""The per-library tables of the Python analysis: which dotted names run commands, touch files,
reach the network, decode data or hide names."""

from __future__ import annotations

from typing import Any

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
MODULE_SYNONYMS = {"posix": "os", "nt": "os"}
OPAQUE_MODULES = {
    "ctypes": "code_ctypes",
    "cffi": "code_ctypes",
    "_posixsubprocess": "code_dynamic_command",
    "__main__": "code_dynamic_namespace",
    "plumbum": "code_dynamic_command",
    "pickle": "",
    "marshal": "",
    "dill": "",
}
DESERIALIZE = frozenset(
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
DUNDER_ESCAPES = frozenset(
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
FRAME_NAMESPACES = frozenset({"f_globals", "f_locals", "f_builtins"})
EVAL = frozenset(
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
GETATTR = frozenset({"getattr", "builtins.getattr"})
IMPORT = frozenset({"__import__", "importlib.import_module", "builtins.__import__", "importlib.__import__"})
SHELL_STRING = frozenset(
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
SUBPROCESS_RUNNERS = frozenset(
    {"run", "popen", "call", "check_call", "check_output", "getoutput", "getstatusoutput"}
)
OPEN = frozenset({"open", "io.open", "codecs.open", "builtins.open", "os.open", "gzip.open", "bz2.open"})
DELETE_1 = frozenset(
    {"os.remove", "os.unlink", "os.rmdir", "os.removedirs", "shutil.rmtree", "os.truncate", "os.unlinkat"}
)
WRITE_1 = frozenset({"os.makedirs", "os.mkdir", "os.mkfifo", "os.mknod", "os.utime"})
READ_1 = frozenset({"os.listdir", "os.scandir", "os.walk", "glob.glob", "glob.iglob", "os.stat", "os.lstat"})
MOVE = frozenset({"os.rename", "os.replace", "os.renames", "shutil.move"})
COPY = frozenset({"shutil.copy", "shutil.copy2", "shutil.copyfile", "shutil.copytree", "shutil.copyfileobj"})
LINK = frozenset({"os.symlink", "os.link"})
CHMOD = frozenset({"os.chmod", "os.chown", "os.lchown", "os.lchmod", "shutil.chown"})
ARCHIVES = frozenset({"tarfile.open", "tarfile.TarFile", "tarfile.TarFile.open", "zipfile.ZipFile"})
DOWNLOADS = {"urllib.request.urlretrieve": 1, "urllib.urlretrieve": 1, "wget.download": 1}
# Calls that read a file: name -> (argument index, keyword, default path, op)
READ_CALLS: dict[str, tuple[int, str, str | None, str]] = {
    "configparser.ConfigParser().read": (0, "filenames", None, "read"),
    "configparser.RawConfigParser().read": (0, "filenames", None, "read"),
    "netrc.netrc": (0, "file", "~/.netrc", "read"),
    "dotenv.load_dotenv": (0, "dotenv_path", ".env", "read"),
    "dotenv.dotenv_values": (0, "dotenv_path", ".env", "read"),
    "sqlite3.connect": (0, "database", None, ""),
    "shelve.open": (0, "filename", None, ""),
}
# Loaders that run a file as Python: name -> (argument index of the path, keyword)
LOADERS: dict[str, tuple[int, str]] = {
    "importlib.util.spec_from_file_location": (1, "location"),
    "importlib.machinery.SourceFileLoader": (1, "path"),
    "importlib.machinery.SourcelessFileLoader": (1, "path"),
    "imp.load_source": (1, "pathname"),
    "imp.load_compiled": (1, "pathname"),
}
# Calls that show or store what they are given (an environment dump printed is a secret read).
REVEALS = frozenset(
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
DATA_WRITERS: dict[str, tuple[str, ...]] = {
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
PATH_CTORS = frozenset(
    {"pathlib.Path", "pathlib.PosixPath", "pathlib.PurePath", "pathlib.PurePosixPath", "Path"}
)
PATH_METHODS = {
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
HERMES_TOOLS = frozenset(
    {"terminal", "read_file", "write_file", "search_files", "patch", "web_search", "web_extract"}
)
DECODERS = frozenset(
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
DECODING_METHODS = frozenset({"translate", "to_bytes", "tobytes", "fromhex"})
# Built-in names that build text character by character (`''.join(map(chr, [...]))`).
DECODING_BUILTINS = frozenset({"chr", "reversed"})
TEXT_CODECS = frozenset(
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
ENVIRON = frozenset({"os.environ", "os.environb"})
ENV_ATTRS = frozenset({"environ", "environb", "getenv", "getenvb"})
GETENV = frozenset(
    {
        "os.getenv",
        "os.getenvb",
        "os.environ.get",
        "os.environ.pop",
        "os.environ.setdefault",
        "os.environb.get",
    }
)
SOCKET_CTORS = frozenset(
    {"socket.socket", "socket.create_connection", "socket.fromfd", "socket.socketpair", "ssl.wrap_socket"}
)
# Connections whose first argument names the peer: dotted name (calls removed) -> URL scheme.
CONNECTIONS = {
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
SEND_METHODS = frozenset(
    {"send", "sendall", "sendto", "sendmail", "send_message", "write", "sendfile", "storbinary", "storlines"}
)
# Methods that hand credentials to the service they log in to (not egress of the secret).
LOGIN_METHODS = frozenset(
    {"login", "connect", "connect_ex", "auth", "authenticate", "starttls", "ehlo", "helo", "set_password"}
)
# Keyword arguments of network calls that carry a request's data.
BODY_KEYWORDS = frozenset({"data", "json", "files", "body", "content", "msg", "message", "payload", "text"})
# kind "star": the function at index i, its arguments after it; "target": function, args and
# kwargs by keyword or position; "map": the function applied to each element of an iterable.
HOFS: dict[str, tuple[Any, ...]] = {
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
HOF_ROOTS = frozenset(
    {"threading", "multiprocessing", "concurrent", "asyncio", "sched", "contextlib", "billiard", "loky"}
)
# Network-module calls whose results are not data from elsewhere.
LOCAL_NETWORK_CALLS = (
    "urllib.parse",
    "ssl.create_default_context",
    "socket.gethostname",
    "socket.getfqdn",
    "socket.gethostbyname",
    "http.HTTPStatus",
)
# Modules whose names lead to commands, code or files: rebinding one of their names hides them.
RUNNER_MODULES = frozenset(
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
NAMESPACE_WRITERS = frozenset({"update", "setdefault", "__setitem__", "pop", "popitem", "clear"})
OTHER_RUNNERS = frozenset(
    {
        "pty.spawn",
        "asyncio.create_subprocess_exec",
        "hermes_tools.terminal",
        "os.posix_spawn",
        "os.posix_spawnp",
    }
)
