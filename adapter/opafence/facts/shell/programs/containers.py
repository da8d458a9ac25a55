"""Containers (docker, podman, nerdctl; kubectl, oc): the command run inside, and the host
paths a bind mount hands it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from opafence.facts.shell.carry import carried_argv, carried_body, host_path
from opafence.facts.shell.model import Field, State
from opafence.facts.shell.tables import DOCKER_VALUE_LONG, DOCKER_VALUE_SHORT, KUBE_VALUE_OPTIONS

if TYPE_CHECKING:
    from opafence.facts.shell.walker import Walker


def container(w: Walker, name: str, argv: list[Field], st: State) -> None:
    """docker/podman run|create|exec: the command runs in the container (context remote);
    a bind mount gives it the host directory (a path the command may write)."""
    i = 1
    n = len(argv)
    while i < n and argv[i].text.startswith("-"):
        i += 2 if argv[i].text in ("-H", "--host", "--context", "-c", "--config", "-l", "--log-level") else 1
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
        takes = key in DOCKER_VALUE_LONG or (
            not key.startswith("--") and len(key) >= 2 and key[-1] in DOCKER_VALUE_SHORT
        )
        if not takes:
            i += 1
            continue
        if value is not None:
            if key in ("-v", "--volume"):
                bind_mount(
                    w,
                    value,
                    st,
                    value.text.split(":", 1)[0],
                    ":ro" in value.text or value.text.endswith(":ro"),
                )
            elif key == "--mount":
                mount_option(w, value, st)
            elif key == "--entrypoint":
                entrypoint = value
            elif key in ("-w", "--workdir") and not value.dynamic:
                workdir = value.text
            elif key == "--health-cmd":
                carried_body(w, value, st, "remote")
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
    carried_argv(w, words, inside, name, "remote")


def bind_mount(w: Walker, spec: Field, st: State, source: str, read_only: bool) -> None:
    if spec.dynamic:
        head = spec.text.split(":", 1)[0]
        if head.startswith(("$", "~", "/", ".", '"')) or "$" in head:
            w.col.opaque("shell_dynamic_mount")
        return
    if not source.startswith(("/", "~", ".")):
        return  # a named volume
    host_path(w, source, st, "read" if read_only else "write")


def mount_option(w: Walker, spec: Field, st: State) -> None:
    if spec.dynamic:
        w.col.opaque("shell_dynamic_mount")
        return
    opts = dict(part.partition("=")[::2] for part in spec.text.split(","))
    if opts.get("type", "volume") != "bind":
        return
    source = opts.get("source") or opts.get("src") or ""
    read_only = "readonly" in opts or ("ro" in opts and opts.get("ro", "true") != "false")
    if source:
        host_path(w, source, st, "read" if read_only else "write")


def kube(w: Walker, name: str, argv: list[Field], st: State) -> None:
    texts = [f.text for f in argv]
    i = 1
    n = len(argv)
    while i < n and texts[i].startswith("-"):
        i += 2 if texts[i] in KUBE_VALUE_OPTIONS else 1
    if i >= n or texts[i] not in ("exec", "run", "debug"):
        return
    inside = st.fork()
    inside.cwd = None
    if "--" in texts[i:]:
        k = texts.index("--", i)
        carried_argv(w, argv[k + 1 :], inside, name, "remote")
        return
    if texts[i] == "exec":
        k = i + 1
        pod_seen = False
        while k < n:
            if texts[k].startswith("-"):
                k += 2 if texts[k] in KUBE_VALUE_OPTIONS or texts[k] in ("-c", "--container") else 1
                continue
            if not pod_seen:
                pod_seen = True
                k += 1
                continue
            break
        carried_argv(w, argv[k:], inside, name, "remote")
