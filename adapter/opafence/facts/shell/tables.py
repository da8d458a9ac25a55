"""The per-program tables: shells and interpreters, decoders, wrappers and their options,
options whose value is a command, the option tables of the programs that carry one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from opafence.facts.shell.model import Field

if TYPE_CHECKING:
    pass


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


# Programs that run a command given as their arguments or in an option of their own
# (programs.HANDLERS): the command is emitted beside them, so its own class and guards apply.
_CARRIERS = frozenset(
    {"vim", "vi", "nvim", "view", "vimdiff", "gvim", "ex", "gdb", "expect", "make", "gmake", "screen", "tmux"}
    | {"npm", "npx", "pnpm", "pnpx", "yarn", "bunx", "bun", "parallel", "flock", "fd", "fdfind"}
    | {"docker", "podman", "nerdctl", "kubectl", "oc", "psql", "mysql", "mariadb", "sqlite3", "less"}
    | {"xterm", "gnome-terminal", "konsole", "uv", "poetry", "pipenv", "pdm", "hatch", "conda", "mamba"}
    | {"emacs", "emacsclient"}
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


def is_python(name: str) -> bool:
    return bool(_PYTHON.match(name))


# Commands whose options are single-dash words (`find -name`): no cluster expansion.
_LONG_SINGLE_DASH = frozenset(
    {"find", "java", "ffmpeg", "ffprobe", "go", "gcc", "g++", "cc", "clang", "clang++"}
)
