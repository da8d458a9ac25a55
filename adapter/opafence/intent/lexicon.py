"""Word lists the intent compiler and hardening share: verbs per capability, cue words.

Everything is lower-case. Verbs are stored as lemmas; `lemma()` maps inflected forms
("sending", "deleted", "emails") back to them. A few imperative forms of German, French,
Spanish and Italian are included for mixed-language messages: they map to the same lemmas'
capabilities. The tables are data: adding a phrasing is one line."""

from __future__ import annotations

import re
from functools import cache

from opafence.intent.catalogue import lexicon
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
_BASE_SEND = CAPABILITY_VERBS[("COMMUNICATION", "send")]
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
SEND_VERBS = _BASE_SEND - {"write", "post", "answer", "tell", "copy"} | {"tell"}
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

# Words that start a subordinate or non-imperative clause: what follows them is not a request.
QUESTION_STARTS = frozenset(
    words(
        "what how why when where who which whose whom is are was were does did should shall what's "
        "how's where's who's why's isn't aren't wasn't doesn't didn't"
    )
)
CONDITIONAL_CUES = frozenset(words("if unless whether suppose supposing assuming provided providing"))
CONDITIONAL_PHRASES = ("in case", "as long as", "only if", "even if", "what if", "let's say", "say that")
HYPOTHETICAL_CUES = frozenset(
    words("hypothetically imagine pretend theoretically hypothetical suppose supposing würde würdest")
)
# Verbs after which "if" introduces an embedded question, not a condition ("check if it builds").
EMBEDDED_IF_VERBS = frozenset(
    words(
        "check see verify ask know tell determine find test confirm wonder figure look decide show "
        "investigate"
    )
)

# Negation cues (after contractions are split: "don't" -> "do not").
NEGATIONS = frozenset(
    words(
        "not never no avoid refrain stop quit cease without nobody nothing none neither nor nicht "
        "nichts kein keine keinen keiner nie niemals ne pas jamais rien aucun aucune nunca nada ningún "
        "ninguno ninguna jamás non mai niente nessuno"
    )
)
# Negation cues of other languages may follow the verb ("schick das nicht").
FOREIGN_NEGATIONS = frozenset(
    words(
        "nicht nichts kein keine keinen keiner nie niemals ne pas jamais rien aucun aucune nunca nada "
        "ningún ninguno ninguna jamás non mai niente nessuno"
    )
)
# "no" is Spanish for "not" when a verb follows it, English for "none" before a noun.
TEMPORARY_CUES = (
    "yet",
    "for now",
    "until",
    "till",
    "right now",
    "for the moment",
    "at this point",
    "before i",
)
FOREIGN_TEMPORARY = ("noch nicht", "pas encore", "todavía no", "aún no", "ancora")

# Politeness and sequencing words skipped before the main verb, longest first.
FILLERS: tuple[tuple[str, ...], ...] = tuple(
    sorted(
        (
            tuple(p.split())
            for p in phrases(
                "please|pls|plz|kindly|and|then|also|now|just|first|firstly|second|secondly|third|"
                "next|finally|lastly|afterwards|after that|after|ok|okay|so|go ahead and|go ahead|"
                "can you|could you|would you|will you|can u|could u|would you mind|"
                "would you be able to|would you please|could you please|can you please|"
                "will you please|can we|could we|i want you to|i need you to|i'd like you to|"
                "i would like you to|i want to|i'd like to|i would like to|i need to|we need to|"
                "we should|you should|you need to|you must|you have to|you'll need to|you can|"
                "you may|feel free to|make sure to|make sure you|be sure to|don't forget to|"
                "do not forget to|dont forget to|never forget to|remember to|try to|help me|quickly|"
                "actually|oh|hey|hi|hello|hermes|bitte|por favor|s'il te plaît|s'il vous plaît|stp|"
                "svp|per favore|yes|yeah|yep|sure|great|thanks|thank you|cool|perfect|good|alright|"
                "right|only|and then|but|let's|lets|let us|also please|and please|then please|again|"
                "instead|as well|too|don't hesitate to|do not hesitate to|"
                "it would be great if you could|it would be nice if you could|"
                "i'd appreciate it if you could|i'd appreciate if you could|und|dann|et|puis|y|luego|"
                "e|poi|aber|mais|pero|ma|danach|ensuite|después|you are allowed to|you're allowed to|"
                "you are free to|it's ok to|it is ok to|it's okay to|it is okay to|"
                "you have permission to|am ende|zum schluss|force|sudo"
            )
        ),
        key=len,
        reverse=True,
    )
)

# Words that do not make a prohibition more specific ("don't delete anything" is all of DELETE).
GENERIC_OBJECTS = frozenset(
    words(
        "a an the this that these those it its them they anything everything something nothing any all "
        "every some stuff thing things data file files folder folders directory directories dir dirs "
        "database db table tables server servers repo repository branch environment env cluster machine "
        "system systems one ones of in on at to from with for my your our their his her yet now please "
        "ever at all either out anymore again without permission first before asking me us you anyone "
        "anybody someone somebody everyone everybody else other others people person message messages "
        "email emails mail mails it's content contents output results result copy version changes "
        "change code project work under inside within below into onto"
    )
)

NOUN_CLASSES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # nominal or gerund of an action -> (classes, keywords) forbidden by "no <noun>"
    "deletion": (("DELETE",), ()),
    "deleting": (("DELETE",), ()),
    "removal": (("DELETE",), ()),
    "email": (("COMMUNICATION",), ()),
    "e-mail": (("COMMUNICATION",), ()),
    "mail": (("COMMUNICATION",), ()),
    "message": (("COMMUNICATION",), ()),
    "messaging": (("COMMUNICATION",), ()),
    "sending": (("COMMUNICATION",), ()),
    "outgoing": (("COMMUNICATION",), ()),
    "communication": (("COMMUNICATION",), ()),
    "reply": (("COMMUNICATION",), ()),
    "purchase": (("FINANCIAL",), ()),
    "payment": (("FINANCIAL",), ()),
    "buying": (("FINANCIAL",), ()),
    "spending": (("FINANCIAL",), ()),
    "paying": (("FINANCIAL",), ()),
    "money": (("FINANCIAL",), ()),
    "booking": (("FINANCIAL",), ()),
    "reservation": (("FINANCIAL",), ()),
    "transaction": (("FINANCIAL",), ()),
    "push": (("EXTERNAL_WRITE",), ()),
    "pushing": (("EXTERNAL_WRITE",), ()),
    "post": (("EXTERNAL_WRITE",), ()),
    "posting": (("EXTERNAL_WRITE",), ()),
    "upload": (("EXTERNAL_WRITE",), ()),
    "uploading": (("EXTERNAL_WRITE",), ()),
    "publishing": (("EXTERNAL_WRITE",), ()),
    "deploy": (("EXTERNAL_WRITE",), ()),
    "deployment": (("EXTERNAL_WRITE",), ()),
    "commit": (("LOCAL_WRITE",), ("commit",)),
    "committing": (("LOCAL_WRITE",), ("commit",)),
    "install": (("EXECUTION",), ("install",)),
    "installing": (("EXECUTION",), ("install",)),
    "installation": (("EXECUTION",), ("install",)),
    "execution": (("EXECUTION",), ()),
    "command": (("EXECUTION",), ()),
    "shell": (("EXECUTION",), ()),
    "script": (("EXECUTION",), ()),
    "permission": (("PERMISSION_CHANGE",), ()),
    "chmod": (("PERMISSION_CHANGE",), ()),
    "memory": (("MEMORY_WRITE",), ()),
}
EDIT_NOUNS = frozenset(words("change edit modification write writing editing changing modifying"))

# Runner words: what "run the tests / the build / the linter" means (Rego owns the runner table).
TEST_WORDS = frozenset(
    words(
        "test tests testsuite test-suite suite specs spec pytest tox nox unittest unittests jest vitest "
        "mocha rspec"
    )
)
BUILD_WORDS = frozenset(["build", "builds", "compile", "compilation", "compiler"])
BROWSE_VERBS = frozenset(words("click tap type fill press"))
BROWSE_WORDS = frozenset(
    words(
        "button buttons link links tab tabs field fields box form bar menu banner checkbox dropdown "
        "result results input"
    )
)
SCHEDULE_VERBS = frozenset(words("remind schedule wake"))
SCHEDULE_WORDS = frozenset(
    words(
        "reminder reminders timer alarm cron cronjob job jobs every daily weekly hourly monthly tomorrow "
        "tonight minutes hours"
    )
)
# What names a dev server, a migration, a virtualenv, a computation in code (rules.py _family).
SERVER_WORDS = frozenset(
    words("server servers devserver dev-server reload hot-reload localhost storybook stack")
)
SERVER_QUALIFIERS = frozenset(
    words(
        "dev development local localhost reload hot-reload preview rails django flask fastapi vite next "
        "next.js nuxt hugo jekyll mkdocs webpack uvicorn storybook compose docker-compose jupyter "
        "jupyterlab notebook"
    )
)
MIGRATION_WORDS = frozenset(words("migration migrations migrate db:migrate"))
DATABASE_WORDS = frozenset(words("db database databases schema"))
VENV_WORDS = frozenset(words("venv virtualenv virtualenvs .venv"))
DEPENDENCY_WORDS = frozenset(
    words(
        "dependencies dependency deps requirements requirement modules gemfile manifest lockfile "
        "packages crates gems node_modules"
    )
)
CODE_TOOLS = frozenset(words("python pandas numpy matplotlib execute_code code script snippet"))
# "analyze the logs" is a read; only "analyze ... with python/pandas" asks for code (rules.py).
CODE_VERBS = frozenset(
    words("compute calculate count parse plot chart graph draw tally average sum crunch histogram")
)
LINT_WORDS = frozenset(
    words(
        "lint linter linters linting ruff eslint flake8 mypy pylint typecheck type-check typechecker "
        "checker shellcheck clippy golangci-lint rubocop"
    )
)
FORMAT_WORDS = frozenset(words("formatter formatters formatting black prettier gofmt rustfmt isort autopep8"))
# Programs whose name starts a literal command the user typed without backticks.
COMMAND_STARTS = frozenset(
    words(
        "make npm npx yarn pnpm python python3 node bash sh zsh docker docker-compose kubectl git cargo "
        "go terraform ansible ansible-playbook pip pip3 uv poetry pytest tox ruff mypy black gradle mvn "
        "bundle rake rails dotnet deno bun helm just task ./gradlew perl ruby php bin/console"
    )
)
INSTALL_TOOLS = {
    ("pip", "install"),
    ("pip3", "install"),
    ("npm", "install"),
    ("npm", "i"),
    ("yarn", "add"),
    ("pnpm", "add"),
    ("cargo", "add"),
    ("poetry", "add"),
    ("uv", "add"),
    ("uv", "pip"),
    ("gem", "install"),
    ("go", "get"),
    ("apt", "install"),
    ("apt-get", "install"),
    ("brew", "install"),
    ("yarn", "install"),
    ("pnpm", "install"),
    ("poetry", "install"),
    ("bundle", "install"),
    ("composer", "install"),
    ("uv", "sync"),
}
# Object nouns that make "update"/"create"/"open" an external write.
SERVICES = frozenset(
    words(
        "github gitlab bitbucket gmail outlook jira confluence notion linear slack discord teams trello "
        "asana salesforce hubspot crm zendesk calendar gcal drive dropbox twitter linkedin mastodon reddit "
        "wordpress medium airtable sheets figma shopify sentry pagerduty datadog intercom freshdesk "
        "monday clickup basecamp webflow ghost substack youtube instagram facebook bluesky"
    )
)
EXTERNAL_OBJECTS = frozenset(
    words(
        "issue issues pr prs pull mr ticket tickets record records event events meeting invite comment "
        "comments page pages post posts tweet tweets release releases deal deals lead leads contact "
        "contacts card cards task tasks wiki website site blog gist"
    )
)
# Service names that are also ordinary words ("for Monday", "the notion of", "linear algebra",
# "slack off", an asana in a yoga plan): they name the service only where a service goes (after
# in / on / to / via / using / into / through / from, or before a word that names a thing in a
# service: "the Linear ticket", "our Slack channel"), or written as the service's domain.
AMBIGUOUS_SERVICES = frozenset(
    words(
        "monday notion linear slack asana teams drive medium ghost sheets basecamp discord sentry "
        "calendar twitter"
    )
)
SERVICE_PREPOSITIONS = frozenset(words("in on to via using into through from onto inside within"))
SERVICE_NOUNS = frozenset(
    words(
        "board boards item items workspace workspaces page pages database databases issue issues ticket "
        "tickets task tasks project projects channel channels message messages thread threads post posts "
        "article articles doc docs document documents folder folders file files team account org "
        "organization event events invite invites meeting meetings chat chats dm dms sheet sheets "
        "spreadsheet spreadsheets app blog site card cards list lists cycle cycles comment comments "
        "entry entries record records"
    )
)
# Words that make the next one a day or a date, not a service ("on Monday", "by Monday").
DATE_CUES = frozenset(
    words(
        "for by until till before after next last this every each coming since from on monday's mondays "
        "morning afternoon evening night"
    )
)
DAY_SERVICES = frozenset(words("monday"))

# The things a request acts on, as the contract's objects (rego/opafence/classify/verbs/data.yaml,
# object_words, names the same objects from tool names). A grant that names objects covers an
# MCP tool only when its name acts on one of them ("create an issue" never merges a pull request).
OBJECT_NOUNS: dict[str, str] = {
    **dict.fromkeys(words("issue issues ticket tickets bug bugs"), "issue"),
    **dict.fromkeys(words("pr prs mr mrs"), "pull_request"),
    **dict.fromkeys(words("comment comments"), "comment"),
    **dict.fromkeys(words("review reviews"), "review"),
    **dict.fromkeys(words("gist gists"), "gist"),
    **dict.fromkeys(words("repo repos repository repositories"), "repository"),
    **dict.fromkeys(words("release releases"), "release"),
    **dict.fromkeys(words("event events meeting meetings appointment appointments invite invites"), "event"),
    **dict.fromkeys(words("invitation invitations"), "event"),
    **dict.fromkeys(words("doc docs document documents"), "document"),
    **dict.fromkeys(words("page pages"), "page"),
    **dict.fromkeys(words("channel channels"), "channel"),
    **dict.fromkeys(
        words(
            "message messages email emails e-mail e-mails mail mails thread threads newsletter "
            "newsletters spam"
        ),
        "message",
    ),
    **dict.fromkeys(words("notification notifications"), "notification"),
    **dict.fromkeys(words("draft drafts"), "draft"),
    **dict.fromkeys(words("label labels"), "label"),
    **dict.fromkeys(words("record records entry entries row rows"), "record"),
    **dict.fromkeys(words("contact contacts subscriber subscribers"), "contact"),
    **dict.fromkeys(words("deal deals"), "deal"),
    **dict.fromkeys(words("lead leads"), "lead"),
    **dict.fromkeys(words("task tasks todo todos to-do to-dos"), "task"),
    **dict.fromkeys(words("card cards"), "card"),
    **dict.fromkeys(words("item items"), "item"),
    **dict.fromkeys(words("post posts tweet tweets article articles"), "post"),
    **dict.fromkeys(words("project projects"), "project"),
    **dict.fromkeys(words("milestone milestones"), "milestone"),
    **dict.fromkeys(words("note notes"), "note"),
    **dict.fromkeys(words("spreadsheet spreadsheets sheet sheets"), "spreadsheet"),
    **dict.fromkeys(words("database databases"), "database"),
    **dict.fromkeys(words("wiki"), "wiki"),
    **dict.fromkeys(words("board boards"), "board"),
    **dict.fromkeys(words("invoice invoices payment payments bill bills"), "payment"),
    **dict.fromkeys(words("flight flights"), "flight"),
    **dict.fromkeys(words("hotel hotels"), "hotel"),
    **dict.fromkeys(words("booking bookings reservation reservations"), "booking"),
    **dict.fromkeys(words("subscription subscriptions"), "subscription"),
    **dict.fromkeys(words("domain domains"), "domain"),
    **dict.fromkeys(words("room rooms"), "room"),
    **dict.fromkeys(words("profile profiles account accounts address addresses"), "account"),
    **dict.fromkeys(words("status"), "status"),
    **dict.fromkeys(words("seat seats"), "seat"),
    **dict.fromkeys(words("reaction reactions"), "reaction"),
    **dict.fromkeys(words("reviewer reviewers"), "review"),
}
OBJECT_COMPOUNDS: dict[tuple[str, str], str] = {
    ("pull", "request"): "pull_request",
    ("pull", "requests"): "pull_request",
    ("merge", "request"): "pull_request",
    ("merge", "requests"): "pull_request",
    ("payment", "link"): "payment_link",
    ("payment", "links"): "payment_link",
}
# Words that end the noun phrase a verb governs: what follows says about what, where or how.
OBJECT_STOPS = frozenset(
    words(
        "about for in on to with from at by of into onto regarding re titled called named entitled that "
        "which who saying says describing where when so because using via through under after before as "
        "than if unless until while and-then like per"
    )
)
OBJECT_SKIP = frozenset(
    words(
        "a an the this that these those my our your their his her its new another some all any every each one"
    )
)
# The kind of action each request verb asks for (rego/opafence/classify/verbs/data.yaml,
# operation_covers, gives each kind its meaning).
OPERATION_OF: dict[str, str] = {
    **dict.fromkeys(
        words(
            "create add make open file submit post comment upload schedule book share tweet draft "
            "reserve write start"
        ),
        "create",
    ),
    **dict.fromkeys(words("update edit change modify rename move fix set adjust correct tweak"), "update"),
    "close": "close",
    "reopen": "reopen",
    "merge": "merge",
    **dict.fromkeys(words("publish release deploy"), "publish"),
    # the request verbs of the binding lexicon (rego/opafence/classify/bind/data.yaml)
    **{v: k for v, k in lexicon()["bind_request_kinds"].items() if v not in ("move", "set", "request")},
}
# A share gives read access unless the request says more ("with edit access", "as an editor").
ACCESS_WORDS: dict[str, str] = {
    **dict.fromkeys(words("edit editor editors write writer writers edits editing"), "write"),
    **dict.fromkeys(words("comment commenter commenters commenting"), "comment"),
}

CODE_OBJECTS = frozenset(
    words(
        "function functions method methods class classes test tests module modules script scripts code "
        "file files component components endpoint endpoints handler handlers helper helpers function's "
        "implementation parser config configuration readme docstring docstrings docs documentation "
        "migration migrations schema fixture fixtures type types interface unit patch program cli api "
        "changelog makefile dockerfile query queries import imports print prints statement statements "
        "line lines variable variables field fields parameter parameters argument arguments usage "
        "usages call calls log logging debug todo todos comment comments typo typos bug bugs"
    )
)
# Things deleted that are not files: a delete grant without paths covers only such deletions.
PATHLESS_OBJECTS = frozenset(
    words(
        "email emails mail mails message messages event events meeting meetings record records contact "
        "contacts ticket tickets issue issues comment comments post posts tweet tweets invite invites "
        "notification notifications spam newsletter newsletters subscriber subscribers entry entries "
        "page pages document documents reservation reservations booking bookings appointment appointments"
    )
)
# Nouns whose name follows or precedes them and is a git ref, never a path ("branch feature/x").
REF_WORDS = frozenset(words("branch branches tag tags ref refs"))
FOLDER_WORDS = frozenset(
    words("folder directory dir ordner verzeichnis dossier répertoire carpeta directorio cartella")
)
RECIPIENT_BLOCKERS = frozenset(
    words(
        "from by about regarding re of sender than except excluding without not like behalf von de del "
        "di da sauf excepto tranne"
    )
)

# A negated verb -> (classes it forbids, how the object narrows it):
#   "recipients": only addresses narrow ("don't email alice@x.com"); anything else is the whole class
#   "words": distinctive words of the object narrow ("don't delete the logs" -> keyword "logs")
#   "command": the literal command's program narrows ("don't run `make deploy`" -> "deploy")
#   "packages": package names narrow, else the keyword "install"
#   "none": always the whole class
#   "fixed": the verb itself is the keyword ("don't commit" -> LOCAL_WRITE calls with "commit")
#   "egress": anything leaving the machine
PROHIBIT_VERBS: dict[str, tuple[tuple[str, ...], str]] = {}
for _v in _BASE_SEND - {"write", "post", "answer", "share"}:
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

_IRREGULAR: dict[str, tuple[str, ...]] = {
    "send": ("sent",),
    "buy": ("bought",),
    "pay": ("paid",),
    "run": ("ran",),
    "rerun": ("reran",),
    "write": ("wrote", "written"),
    "rewrite": ("rewrote", "rewritten"),
    "make": ("made",),
    "tell": ("told",),
    "build": ("built",),
    "rebuild": ("rebuilt",),
    "get": ("got", "gotten"),
    "do": ("did", "done"),
    "go": ("went", "gone"),
    "take": ("took", "taken"),
    "give": ("gave", "given"),
    "keep": ("kept",),
    "leave": ("left",),
    "spend": ("spent",),
    "find": ("found",),
    "read": ("read",),
    "set": ("set",),
    "put": ("put",),
    "forget": ("forgot", "forgotten"),
    "see": ("saw", "seen"),
    "think": ("thought",),
}
_DOUBLE = frozenset(
    words(
        "commit stop tag ship drop submit plan chat dm wrap zip set cut put run rerun forget begin "
        "admit permit omit scan skip trim log flag grab shop rid spin"
    )
)


def _inflections(verb: str) -> set[str]:
    out = {verb}
    if " " in verb or not verb.isascii():
        return out
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        out.add(verb + "es")
    elif len(verb) > 2 and verb.endswith("y") and verb[-2] not in "aeiou":
        out.add(verb[:-1] + "ies")
    else:
        out.add(verb + "s")
    stem = verb + verb[-1] if verb in _DOUBLE else verb
    if verb.endswith("ee"):
        out |= {verb + "d", verb + "ing"}
    elif verb.endswith("e"):
        out |= {verb + "d", verb[:-1] + "ing"}
    elif len(verb) > 2 and verb.endswith("y") and verb[-2] not in "aeiou":
        out |= {verb[:-1] + "ied", verb + "ing"}
    else:
        out |= {stem + "ed", stem + "ing"}
    out.update(_IRREGULAR.get(verb, ()))
    return out


def _all_verbs() -> set[str]:
    verbs: set[str] = set(READ_VERBS)
    for words in CAPABILITY_VERBS.values():
        verbs |= words
    verbs |= {"touch", "alter", "leave", "do", "keep", "stop", "wait", "ask", "go", "let", "mess", "spend"}
    verbs |= set(PROHIBIT_VERBS)
    return verbs


_LEMMAS: dict[str, str] = {}
for _verb in sorted(_all_verbs()):
    for _form in _inflections(_verb):
        _LEMMAS.setdefault(_form, _verb)


@cache
def lemma(word: str) -> str:
    """The lemma of an inflected verb form, or "" when the word is not a verb we know."""
    return _LEMMAS.get(word, "")


# --- a computation over data (rules.computed): a question or request whose answer takes code -----
# Verbs that ask for a computation but are not verbs of the lexicon ("dedupe contacts.csv").
COMPUTE_VERBS_RAW = frozenset(
    words("dedupe dedup deduplicate join pivot rank sort group aggregate crunch tabulate")
)
# Words that make a request's answer a computation: quantities, rankings, statistics, comparisons
# of many rows ("how many", "the 10 most requested", "the correlation", "duplicates").
COMPUTE_WORDS = frozenset(
    words(
        "many much highest lowest largest smallest biggest top bottom average averages median total "
        "totals sum sums correlation correlate correlated duplicates dupes dedupe dedup distinct unique "
        "frequency frequencies frequent distribution percent percentage percentages ratio ratios growth "
        "trend trends pivot histogram chart charts plot plots graph graphs stddev deviation variance "
        "outlier outliers breakdown aggregate rank ranking count counts tally statistics stats quartile "
        "percentile"
    )
)
# ... and these only in their sense of a ranking or a set: "the 10 most requested" (not "at
# most 3"), "duplicate photos" (not "it's a duplicate").
COMPUTE_RANKS = frozenset(words("most least"))
COMPUTE_SETS = frozenset(words("duplicate"))
# A plot writes an image: the computation covers writing it in the workspace.
PLOT_WORDS = frozenset(
    words("chart charts plot plots graph graphs histogram figure diagram visualization visualisation png svg")
)
# Programs that run code the user may name for it ("Pandas is fine", "run it in Python").
CODE_RUNTIMES = frozenset(
    words("python python3 pandas numpy matplotlib polars scipy jupyter ipython execute_code")
)
# Verbs of analysis: with a data file named they ask for code ("summarise survey.xlsx").
DATA_VERBS = frozenset(
    words(
        "summarize summarise analyze analyse convert parse process compute calculate count tally "
        "merge compare plot chart graph"
    )
)
# Words before a runtime that name it as the means ("run it in Python", "check it with pandas").
RUNTIME_MEANS = frozenset(words("with in using via through use"))
# Verbs that install what they name ("install numpy and pandas"): never a computation.
INSTALL_VERBS = frozenset(words("install reinstall uninstall upgrade"))
# A set of files the request acts on one by one ("every .json file", "all the .jpeg files").
EACH_WORDS = frozenset(words("all every each"))
DATA_FILE = re.compile(
    r"^[\w./~-]*\.(?:csv|tsv|xlsx|xls|ods|parquet|feather|json|jsonl|ndjson|log|sqlite|sqlite3|db)$", re.I
)


# --- a failing test to diagnose (rules.diagnosed): "why does tests/test_parser.py fail?" ---------
FAILING_WORDS = frozenset(
    words(
        "fail fails failing failed failure break breaks breaking broken crash crashes crashing error "
        "errors erroring flaky red"
    )
)
TEST_FILE = re.compile(
    r"^(?:[\w.-]+/)*(?:tests?/[\w./-]+|test_[\w-]+\.py|[\w-]+_test\.(?:py|go)|[\w.-]+\.(?:spec|test)\.[jt]sx?)$"
)


# --- operations on a named object (rules.operation, harden: operate grants) -----------------------
# The verb (with its particle: "roll back", "bring up", "shut down") -> the operation Rego's
# classify/ops tables call it. A verb that needs a particle has none of its own.
OPERATIONS: dict[str, str] = {
    "restart": "restart",
    "reboot": "restart",
    "bounce": "restart",
    "recycle": "restart",
    "reload": "reload",
    "start": "start",
    "boot": "start",
    "stop": "stop",
    "scale": "scale",
    "rollback": "rollback",
}
PARTICLE_OPERATIONS: dict[tuple[str, str], str] = {
    ("roll", "back"): "rollback",
    ("bring", "up"): "start",
    ("spin", "up"): "start",
    ("fire", "up"): "start",
    ("boot", "up"): "start",
    ("start", "up"): "start",
    ("shut", "down"): "stop",
    ("spin", "down"): "stop",
}
# What an operation acts on, as people say it (Rego's ops kind_words hold the same words per kind).
OPERATE_KINDS = frozenset(
    words(
        "deployment deployments deploy statefulset statefulsets daemonset daemonsets service services "
        "unit units daemon container containers stack compose instance instances vm workload"
    )
)
# Kinds that stand for a whole compose project when nothing else names which ("the dev containers").
OPERATE_STACKS = frozenset(words("containers services stack compose"))
# Words before such a kind that say which project, not which object ("the local stack").
OPERATE_QUALIFIERS = frozenset(words("dev development local docker compose whole entire all"))
# Programs whose mention makes the object an operated one ("restart nginx with systemctl").
OPERATE_PROGRAMS = frozenset(words("kubectl oc systemctl service docker podman docker-compose compose k8s"))
# Where the object lives: "in the batch namespace", "in prod", "in eu-west-1".
OPERATE_SCOPE_NOUNS = frozenset(
    words("namespace namespaces cluster context region zone project environment env")
)
