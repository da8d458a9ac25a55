"""The per-library tables of the Python analysis, loaded once from the package's data files
(`data/<family>.json`, each table with the note saying what it holds): which dotted names run
commands, touch files, reach the network, decode data or hide names. Add a library's names there;
a new kind of behaviour needs its handler module too (kinds.py dispatches by these tables)."""

from __future__ import annotations

from typing import Any

from opafence.facts.package_data import read_table


def _load(family: str) -> dict[str, Any]:
    return read_table("opafence.facts.code", family)


_MODULES = _load("modules")
NETWORK_MODULES: frozenset[str] = frozenset(_MODULES["network_modules"])
MODULE_SYNONYMS: dict[str, str] = dict(_MODULES["module_synonyms"])
OPAQUE_MODULES: dict[str, str] = dict(_MODULES["opaque_modules"])
RUNNER_MODULES: frozenset[str] = frozenset(_MODULES["runner_modules"])

_DYNAMIC = _load("dynamic")
DESERIALIZE: frozenset[str] = frozenset(_DYNAMIC["deserialize"])
DUNDER_ESCAPES: frozenset[str] = frozenset(_DYNAMIC["dunder_escapes"])
FRAME_NAMESPACES: frozenset[str] = frozenset(_DYNAMIC["frame_namespaces"])
EVAL: frozenset[str] = frozenset(_DYNAMIC["eval"])
GETATTR: frozenset[str] = frozenset(_DYNAMIC["getattr"])
IMPORT: frozenset[str] = frozenset(_DYNAMIC["import"])
NAMESPACE_WRITERS: frozenset[str] = frozenset(_DYNAMIC["namespace_writers"])

_PROCESSES = _load("processes")
SHELL_STRING: frozenset[str] = frozenset(_PROCESSES["shell_string"])
SUBPROCESS_RUNNERS: frozenset[str] = frozenset(_PROCESSES["subprocess_runners"])
OTHER_RUNNERS: frozenset[str] = frozenset(_PROCESSES["other_runners"])
LOADERS: dict[str, tuple[int, str]] = {k: (v[0], v[1]) for k, v in _PROCESSES["loaders"].items()}

_FILES = _load("files")
OPEN: frozenset[str] = frozenset(_FILES["open"])
DELETE_1: frozenset[str] = frozenset(_FILES["delete_1"])
WRITE_1: frozenset[str] = frozenset(_FILES["write_1"])
READ_1: frozenset[str] = frozenset(_FILES["read_1"])
MOVE: frozenset[str] = frozenset(_FILES["move"])
COPY: frozenset[str] = frozenset(_FILES["copy"])
LINK: frozenset[str] = frozenset(_FILES["link"])
CHMOD: frozenset[str] = frozenset(_FILES["chmod"])
ARCHIVES: frozenset[str] = frozenset(_FILES["archives"])
DOWNLOADS: dict[str, int] = dict(_FILES["downloads"])
READ_CALLS: dict[str, tuple[int, str, str | None, str]] = {
    k: (v[0], v[1], v[2], v[3]) for k, v in _FILES["read_calls"].items()
}
DATA_WRITERS: dict[str, tuple[str, ...]] = {k: tuple(v) for k, v in _FILES["data_writers"].items()}
PATH_CTORS: frozenset[str] = frozenset(_FILES["path_ctors"])
PATH_METHODS: dict[str, str] = dict(_FILES["path_methods"])

_ORIGINS = _load("origins")
DECODERS: frozenset[str] = frozenset(_ORIGINS["decoders"])
DECODING_METHODS: frozenset[str] = frozenset(_ORIGINS["decoding_methods"])
DECODING_BUILTINS: frozenset[str] = frozenset(_ORIGINS["decoding_builtins"])
TEXT_CODECS: frozenset[str] = frozenset(_ORIGINS["text_codecs"])
ENVIRON: frozenset[str] = frozenset(_ORIGINS["environ"])
ENV_ATTRS: frozenset[str] = frozenset(_ORIGINS["env_attrs"])
GETENV: frozenset[str] = frozenset(_ORIGINS["getenv"])
REVEALS: frozenset[str] = frozenset(_ORIGINS["reveals"])

_NETWORK = _load("network")
SOCKET_CTORS: frozenset[str] = frozenset(_NETWORK["socket_ctors"])
CONNECTIONS: dict[str, str] = dict(_NETWORK["connections"])
SEND_METHODS: frozenset[str] = frozenset(_NETWORK["send_methods"])
LOGIN_METHODS: frozenset[str] = frozenset(_NETWORK["login_methods"])
BODY_KEYWORDS: frozenset[str] = frozenset(_NETWORK["body_keywords"])
LOCAL_NETWORK_CALLS: tuple[str, ...] = tuple(_NETWORK["local_network_calls"])

_CALLABLES = _load("callables")
HOFS: dict[str, tuple[Any, ...]] = {k: tuple(v) for k, v in _CALLABLES["hofs"].items()}
HOF_ROOTS: frozenset[str] = frozenset(_CALLABLES["hof_roots"])
HERMES_TOOLS: frozenset[str] = frozenset(_CALLABLES["hermes_tools"])
