"""The words of computations over data (a question whose answer takes code), failing tests,
and operations on named objects (restart, scale, roll back) with what they act on and where."""

from __future__ import annotations

import re

from opafence.intent.lexicon.verbs import words

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
