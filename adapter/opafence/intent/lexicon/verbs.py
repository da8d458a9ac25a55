"""The verbs of each (class, capability) row and the verbs that make a clause a request.

Hardening checks a grant's evidence against exactly its own row; the rules compiler's entry
points (send, delete, pay, edit, run ...) are subsets of the rows."""

from __future__ import annotations

from opafence.intent.services import VERBS as SERVICE_VERBS


def words(s: str) -> list[str]:
    """A word list written as one string: keeps the tables short and easy to extend."""
    return s.split()


def phrases(s: str) -> list[str]:
    """A phrase list written as one string, separated by |."""
    return s.split("|")


# (class, capability) -> verbs that ask for that kind of action. Hardening checks a grant's
# evidence against exactly its own row: a request to send does not authorize a CRM update.
CAPABILITY_VERBS: dict[tuple[str, str], frozenset[str]] = {
    ("COMMUNICATION", "send"): frozenset(
        words(
            "send email e-mail mail message reply respond forward fwd share notify text sms dm ping drop "
            "tell contact cc bcc copy write post invite answer resend repost crosspost cross-post welcome "
            "greet senden sende schick schicke schicken "
            "verschicke mailen maile antworte envoyer envoie envoyez envoies réponds répondre transfère "
            "enviar envía envia envíes envies envíe manda mandar mandes responde reenvía inviare invia "
            "manda rispondi inoltra"
        )
    ),
    ("LOCAL_WRITE", "edit"): frozenset(
        words(
            "fix implement refactor edit update modify change create add rename move rewrite patch "
            "append save write draft compose generate export make clean improve convert replace insert "
            "remove delete format download document restructure reorganize reorganise optimize optimise "
            "tweak adjust correct extend port migrate bump rework tidy simplify split merge copy duplicate "
            "package compress zip tar bundle regenerate back backup collect gather dump record consolidate "
            "apply "
            "clone ändere ändern speichere speichern korrigiere repariere erstelle schreibe corrige corriger "
            "modifie modifier enregistre sauvegarde crée écris arregla arreglar corrige modifica "
            "modificar guarda guardar crea escribe correggi modifica salva crea scrivi"
        )
    ),
    ("LOCAL_WRITE", "commit"): frozenset(
        words(
            "commit stash branch checkout tag merge rebase stage add switch create make squash amend "
            "cherry-pick pull revert undo pop apply cherry mv rename move update sync abort bisect back"
        )
    ),
    ("DELETE", "delete_branch"): frozenset(words("delete remove clean drop prune")),
    ("DELETE", "delete"): frozenset(
        words(
            "delete remove rm erase wipe purge trash unlink clear clean drop discard destroy eliminate "
            "empty rid löschen lösche lösch entfernen entferne supprimer supprime supprimez effacer efface "
            "borrar borra borre eliminar elimina cancellare cancella"
        )
    ),
    ("EXECUTION", "run_tests"): frozenset(
        words("run execute test rerun re-run launch invoke start trigger bisect")
    ),
    ("EXECUTION", "run_build"): frozenset(words("run execute build compile rebuild make")),
    ("EXECUTION", "run_lint"): frozenset(words("run execute lint typecheck type-check check")),
    ("EXECUTION", "run_format"): frozenset(words("run execute format reformat prettify autoformat")),
    ("EXECUTION", "run_command"): frozenset(
        words("run execute launch start invoke call trigger kick try ausführen führe exécute ejecuta esegui")
    ),
    ("EXECUTION", "install"): frozenset(
        words(
            "install add reinstall upgrade update bump restore sync pull set get make keep "
            "installiere installe instala"
        )
    ),
    # Everyday development (issue 14): the project's dev server, its migrations, a virtualenv in
    # it, and a computation, parse or plot in execute_code. Hardening also wants the thing named.
    ("EXECUTION", "run_server"): frozenset(
        words("run start launch spin fire boot serve bring restart get keep make")
    ),
    ("EXECUTION", "run_migrations"): frozenset(words("run apply execute migrate make generate create do")),
    ("EXECUTION", "create_venv"): frozenset(words("create make set recreate build init initialize")),
    ("EXECUTION", "run_code"): frozenset(
        words(
            "compute calculate count parse plot chart graph draw analyze analyse tally average sum work "
            "use crunch histogram load summarize summarise aggregate"
        )
    ),
    ("LOCAL_WRITE", "run_code"): frozenset(
        words(
            "compute calculate count parse plot chart graph draw analyze analyse tally average sum work "
            "use crunch histogram load summarize summarise aggregate"
        )
    ),
    ("EXTERNAL_WRITE", "push"): frozenset(["push"]),
    ("EXTERNAL_WRITE", "publish"): frozenset(
        words(
            "publish post upload tweet deploy submit open create file comment update merge close "
            "release book reserve schedule edit add"
        )
    ),
    ("FINANCIAL", "pay"): frozenset(
        words(
            "send pay buy purchase order subscribe donate tip transfer wire book reserve checkout renew rent "
            "spend "
            "bezahle bezahlen kaufe kaufen paye payer achète acheter paga pagar compra comprar pagare "
            "compra"
        )
    ),
    ("PERMISSION_CHANGE", "chmod"): frozenset(
        words(
            "chmod chown chgrp make set change grant revoke restrict fix correct reset restore update adjust "
            "tighten"
        )
    ),
    ("PERMISSION_CHANGE", "share"): frozenset(words("share invite")),
    # A skill the owner asks for (skill_manage create), a reminder or scheduled job (cronjob) with
    # the owner's own prompt: both bounded by the quote's words (grants.rego words_ok).
    ("MEMORY_WRITE", "skill"): frozenset(words("create make write add save turn build set")),
    ("EXECUTION", "schedule"): frozenset(
        words("remind schedule set create add make ping notify message pause resume wake")
    ),
    # The browser on the page the owner named (domains), and reading its title in the console.
    ("EXTERNAL_WRITE", "browse"): frozenset(
        words(
            "click tap type fill enter press select choose tick accept submit search hit "
            "open go visit navigate"
        )
    ),
    ("EXECUTION", "page_title"): frozenset(words("read tell print log check get show give use")),
    # An operation on a named service, deployment, container or unit (rego/opafence/classify/ops):
    # "restart the nginx service", "scale the api deployment to 3", "roll back the web deployment".
    # Two grants, since a cluster CLI's operation is an external write as well as a command.
    ("EXECUTION", "operate"): frozenset(
        words("restart reboot bounce recycle reload start stop scale roll rollback bring spin boot fire shut")
    ),
    ("EXTERNAL_WRITE", "operate"): frozenset(
        words("restart reboot bounce recycle reload start stop scale roll rollback bring spin boot fire shut")
    ),
    ("MEMORY_WRITE", "remember"): frozenset(
        words(
            "remember memorize memorise note store save keep add update forget make jot put merke retiens "
            "recuerda ricorda"
        )
    ),
}

# The verbs of requests made through a service (intent/services.py): reschedule, cancel, react ...
# Hardening accepts them in quotes; the rules' own send entry point keeps its own verbs.
BASE_SEND_VERBS = CAPABILITY_VERBS[("COMMUNICATION", "send")]
_BASE_PAY = CAPABILITY_VERBS[("FINANCIAL", "pay")]
for _row, _verbs in SERVICE_VERBS.items():
    CAPABILITY_VERBS[_row] = CAPABILITY_VERBS[_row] | _verbs

CAPABILITIES: dict[str, frozenset[str]] = {}
for _cls, _cap in CAPABILITY_VERBS:
    CAPABILITIES[_cls] = CAPABILITIES.get(_cls, frozenset()) | {_cap}

CLASSES = frozenset(
    words(
        "READ LOCAL_WRITE DELETE EXECUTION COMMUNICATION EXTERNAL_WRITE FINANCIAL PERMISSION_CHANGE "
        "MEMORY_WRITE SELF_MODIFICATION"
    )
)
EGRESS_CLASSES = ("COMMUNICATION", "EXTERNAL_WRITE", "FINANCIAL")

# Verbs that make a clause an instruction to act (the rules compiler's entry points).
SEND_VERBS = BASE_SEND_VERBS - {"write", "post", "answer", "tell", "copy"} | {"tell"}
DELETE_VERBS = CAPABILITY_VERBS[("DELETE", "delete")] - {"clear", "clean", "drop", "discard", "rid"} | {"rid"}
# "send" is in the pay row only for "send $50 to ...": hardening then wants an amount in the quote.
PAY_VERBS = _BASE_PAY - {
    "order",
    "book",
    "reserve",
    "checkout",
    "rent",
    "spend",
    "send",
}
EDIT_VERBS = frozenset(
    words(
        "fix implement refactor edit update modify change create add rename move rewrite patch append "
        "save generate clean improve convert replace insert restructure reorganize reorganise optimize "
        "optimise tweak adjust correct extend port migrate bump rework tidy simplify copy duplicate clone "
        "regenerate "
        "ändere ändern speichere speichern korrigiere repariere erstelle corrige corriger modifie "
        "modifier enregistre sauvegarde crée arregla arreglar modifica modificar guarda guardar crea "
        "correggi salva"
    )
)
# Edit verbs that only write a file when they name one ("write a poem" writes nothing).
WRITE_VERBS = frozenset(words("write draft compose schreibe écris escribe scrivi"))
COMMIT_VERBS = frozenset(words("commit stash tag rebase stage squash amend cherry-pick"))
RUN_VERBS = frozenset(
    words("run execute launch invoke rerun re-run trigger kick ausführen führe exécute ejecuta esegui")
)
PUBLISH_VERBS = frozenset(words("publish post upload tweet submit release"))
MEMORY_VERBS = frozenset(words("remember memorize memorise merke retiens recuerda ricorda"))
PERMISSION_VERBS = frozenset(["chmod", "chown", "chgrp"])

# Verbs that ask for some action (any capability's row).
ACTION_VERBS = frozenset(v for row in CAPABILITY_VERBS.values() for v in row)

# Verbs that read, look or talk back: an instruction, but one that needs no grant.
READ_VERBS = frozenset(
    words(
        "read summarize summarise check look find search list show explain describe review analyze "
        "analyse compare count inspect open view fetch get browse visit research grep diff debug "
        "investigate figure understand translate plan propose suggest outline recommend answer help "
        "think tell give see scan watch monitor study examine evaluate assess audit verify confirm "
        "identify locate extract collect gather estimate calculate compute go tl;dr skim print display "
        "report clarify lookup query ask wait consider brainstorm design sketch find"
    )
)
