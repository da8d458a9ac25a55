"""A negated verb -> the classes it forbids and how its object narrows the prohibition."""

from __future__ import annotations

from opafence.intent.lexicon.verbs import BASE_SEND_VERBS, CAPABILITY_VERBS, PAY_VERBS

# A negated verb -> (classes it forbids, how the object narrows it):
#   "recipients": only addresses narrow ("don't email alice@x.com"); anything else is the whole class
#   "words": distinctive words of the object narrow ("don't delete the logs" -> keyword "logs")
#   "command": the literal command's program narrows ("don't run `make deploy`" -> "deploy")
#   "packages": package names narrow, else the keyword "install"
#   "none": always the whole class
#   "fixed": the verb itself is the keyword ("don't commit" -> LOCAL_WRITE calls with "commit")
#   "egress": anything leaving the machine
PROHIBIT_VERBS: dict[str, tuple[tuple[str, ...], str]] = {}
for _v in BASE_SEND_VERBS - {"write", "post", "answer", "share"}:
    PROHIBIT_VERBS[_v] = (("COMMUNICATION",), "recipients")
for _v in CAPABILITY_VERBS[("DELETE", "delete")]:
    PROHIBIT_VERBS[_v] = (("DELETE",), "words")
for _v in PAY_VERBS | {"order", "book", "reserve", "checkout", "rent", "spend", "charge", "bill"}:
    PROHIBIT_VERBS[_v] = (("FINANCIAL",), "none")
PROHIBIT_VERBS.update(
    {
        "share": (("COMMUNICATION", "EXTERNAL_WRITE"), "recipients"),
        "post": (("COMMUNICATION", "EXTERNAL_WRITE"), "none"),
        "answer": (("COMMUNICATION",), "recipients"),
        "touch": (("*",), "words"),
        "mess": (("*",), "words"),
        "alter": (("LOCAL_WRITE", "DELETE"), "words"),
        "change": (("LOCAL_WRITE", "DELETE"), "words"),
        "modify": (("LOCAL_WRITE", "DELETE"), "words"),
        "edit": (("LOCAL_WRITE", "DELETE"), "words"),
        "write": (("LOCAL_WRITE", "DELETE"), "words"),
        "overwrite": (("LOCAL_WRITE", "DELETE"), "words"),
        "rewrite": (("LOCAL_WRITE", "DELETE"), "words"),
        "update": (("LOCAL_WRITE", "DELETE"), "words"),
        "refactor": (("LOCAL_WRITE",), "words"),
        "fix": (("LOCAL_WRITE",), "words"),
        "save": (("LOCAL_WRITE",), "words"),
        "create": (("LOCAL_WRITE",), "words"),
        "clone": (("LOCAL_WRITE",), "words"),
        "move": (("LOCAL_WRITE", "DELETE"), "words"),
        "rename": (("LOCAL_WRITE", "DELETE"), "words"),
        "push": (("EXTERNAL_WRITE",), "none"),
        "publish": (("EXTERNAL_WRITE",), "none"),
        "upload": (("EXTERNAL_WRITE",), "none"),
        "tweet": (("EXTERNAL_WRITE",), "none"),
        "deploy": (("EXTERNAL_WRITE", "EXECUTION"), "none"),
        "release": (("EXTERNAL_WRITE",), "none"),
        "submit": (("EXTERNAL_WRITE",), "none"),
        "commit": (("LOCAL_WRITE",), "fixed"),
        "stash": (("LOCAL_WRITE",), "fixed"),
        "rebase": (("LOCAL_WRITE",), "fixed"),
        "merge": (("LOCAL_WRITE", "EXTERNAL_WRITE"), "fixed"),
        "install": (("EXECUTION",), "packages"),
        "reinstall": (("EXECUTION",), "packages"),
        "upgrade": (("EXECUTION",), "packages"),
        "run": (("EXECUTION",), "command"),
        "execute": (("EXECUTION",), "command"),
        "launch": (("EXECUTION",), "command"),
        "invoke": (("EXECUTION",), "command"),
        "rerun": (("EXECUTION",), "command"),
        "build": (("EXECUTION",), "fixed"),
        "compile": (("EXECUTION",), "fixed"),
        "chmod": (("PERMISSION_CHANGE",), "none"),
        "chown": (("PERMISSION_CHANGE",), "none"),
        "chgrp": (("PERMISSION_CHANGE",), "none"),
        "remember": (("MEMORY_WRITE",), "none"),
        "memorize": (("MEMORY_WRITE",), "none"),
        "memorise": (("MEMORY_WRITE",), "none"),
        "leave": (("COMMUNICATION", "EXTERNAL_WRITE", "FINANCIAL"), "egress"),
        "exfiltrate": (("COMMUNICATION", "EXTERNAL_WRITE", "FINANCIAL"), "egress"),
        "transmit": (("COMMUNICATION", "EXTERNAL_WRITE", "FINANCIAL"), "egress"),
        "ausführen": (("EXECUTION",), "command"),
        "führe": (("EXECUTION",), "command"),
        "ändere": (("LOCAL_WRITE", "DELETE"), "words"),
        "ändern": (("LOCAL_WRITE", "DELETE"), "words"),
        "modifie": (("LOCAL_WRITE", "DELETE"), "words"),
        "modifier": (("LOCAL_WRITE", "DELETE"), "words"),
        "modifica": (("LOCAL_WRITE", "DELETE"), "words"),
        "modificar": (("LOCAL_WRITE", "DELETE"), "words"),
    }
)
