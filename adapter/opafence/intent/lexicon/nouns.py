"""The nouns requests name: what a prohibition's object narrows to, the runners, servers,
migrations and packages of everyday requests, services and their objects as the contract's
objects, the kinds of action and access levels, git refs and folders."""

from __future__ import annotations

from opafence.intent.catalogue import lexicon
from opafence.intent.lexicon.verbs import words

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
# What names a dev server, a migration, a virtualenv, a computation in code (intent/rules/family.py).
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
# "analyze the logs" is a read; only "analyze ... with python/pandas" asks for code (intent/rules/family.py).
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
