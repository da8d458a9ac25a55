"""The user's configuration: one YAML file, validated; a typo is an error that names the key.

`$HERMES_HOME/opafence/config.yaml` (or `$OPAFENCE_CONFIG`), with `OPAFENCE_<KEY>`
environment variables overriding single top-level keys. Read once at start."""

from __future__ import annotations

import difflib
import os
import re
import socket
import typing
from collections.abc import Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from opafence.errors import OpafenceError
from opafence.state_files import state_dir

# A host id prefixes task keys (`<id>:<session>`) and names data.hosts[<id>] on a shared OPA.
HOST_ID_PATTERN = r"[A-Za-z0-9][A-Za-z0-9._-]{0,62}"

Mode = Literal["enforce", "monitor", "strict"]
RiskClass = Literal[
    "READ",
    "LOCAL_WRITE",
    "DELETE",
    "EXECUTION",
    "COMMUNICATION",
    "EXTERNAL_WRITE",
    "FINANCIAL",
    "PERMISSION_CHANGE",
    "MEMORY_WRITE",
    "SELF_MODIFICATION",
    "UNKNOWN",
]


class ConfigError(OpafenceError):
    """The configuration cannot be used; the message names the file and the key."""


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class OpaConfig(Strict):
    binary: str | None = None
    sha256: str | None = Field(default=None, pattern=r"^[0-9a-fA-F]{64}$")
    # How a local OPA is spoken to: "auto" runs opafence-pdp (a pipe, no HTTP) when it is
    # there and the stock `opa run --server` on a unix socket otherwise; "pdp" and "server"
    # insist on one. Remote mode (url) is always the server.
    transport: Literal["auto", "pdp", "server"] = "auto"
    pdp_binary: str | None = None
    pdp_sha256: str | None = Field(default=None, pattern=r"^[0-9a-fA-F]{64}$")
    # A second PDP kept started and fed every write, promoted when the first dies.
    pdp_standby: bool = True
    url: str | None = None
    token_file: str | None = None
    timeout_ms: int = Field(default=250, ge=10, le=60_000)
    start_timeout_s: float = Field(default=20.0, gt=0, le=300)

    @field_validator("url")
    @classmethod
    def _url_scheme(cls, v: str | None) -> str | None:
        if v is not None and not v.startswith(
            ("https://", "unix://", "http://127.0.0.1", "http://localhost")
        ):
            raise ValueError("must be https://…, unix://… or a loopback http:// URL")
        return v


class ToolMapping(Strict):
    classes: list[RiskClass] = Field(min_length=1)


class Override(Strict):
    tool: str = Field(min_length=1)
    class_: str = Field(default="*", alias="class")
    verdict: Literal["block", "ask", "allow"]
    reason: str = ""


class CompilerConfig(Strict):
    """How the owner's words become a TaskPolicy (adapter/opafence/intent).

    `rules` is the offline, deterministic compiler. `llm` asks an OpenAI-compatible chat API
    for a draft; the draft is never trusted: it goes through the same hardening as rules."""

    kind: Literal["rules", "llm"] = "rules"
    base_url: str = "https://openrouter.ai/api/v1"
    model: str = "openai/gpt-4o-mini"
    # The name of the environment variable holding the API key (never the key itself).
    api_key_env: str = Field(default="OPENROUTER_API_KEY", pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    # Total time for one compile, retries included.
    timeout_s: float = Field(default=20.0, gt=0, le=300)
    # Ask for JSON mode (response_format); falls back to plain text when the provider refuses it.
    json_mode: bool = True
    # The cleaned instruction is cut to this many characters before it reaches the LLM
    # (prohibitions are always read from the whole message by the offline reader).
    max_chars: int = Field(default=6000, ge=200, le=200_000)
    # What an LLM failure yields: the read-only fallback, or the offline rules compiler.
    on_failure: Literal["fallback", "rules"] = "fallback"

    @field_validator("base_url")
    @classmethod
    def _base_url_scheme(cls, v: str) -> str:
        if not v.startswith(("https://", "http://127.0.0.1", "http://localhost", "http://[::1]")):
            raise ValueError("must be an https:// URL or a loopback http:// URL")
        return v.rstrip("/")


# --- bundles (ours and the organization's) and decision logs --------------------------------

# OPA verifies RS/PS/ES signatures with a public key. HS* would put a shared secret into
# OPA's config file, and Ed25519 is not among OPA's algorithms.
SigningAlg = Literal["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512"]
RESERVED_BUNDLE_NAMES = {"opafence"}


def _remote_url(v: str) -> str:
    """https anywhere; plain http only on loopback (tests, a local bundle server)."""
    if not v.startswith(("https://", "http://127.0.0.1", "http://localhost", "http://[::1]")):
        raise ValueError("must be an https:// URL (plain http:// only on loopback)")
    netloc = v.split("://", 1)[1].split("/", 1)[0]
    if not netloc:
        raise ValueError("has no host")
    if "@" in netloc:
        raise ValueError("must not carry credentials in the URL (use token_file)")
    return v


class BundleSigning(Strict):
    """Verify a bundle's signature (OPA's own verification). Unsigned or tampered is refused."""

    public_key_file: str = Field(min_length=1)
    algorithm: SigningAlg = "RS256"
    # The key's name in OPA's `keys`; defaults to the bundle's name.
    key_id: str | None = Field(default=None, pattern=r"^[A-Za-z0-9_.-]+$")
    scope: str | None = None
    exclude_files: list[str] = Field(default_factory=list)


class Polling(Strict):
    min_delay_seconds: int = Field(default=60, ge=1, le=86_400)
    max_delay_seconds: int = Field(default=120, ge=1, le=86_400)
    long_polling_timeout_seconds: int | None = Field(default=None, ge=1, le=3600)

    @model_validator(mode="after")
    def _ordered(self) -> Polling:
        if self.max_delay_seconds < self.min_delay_seconds:
            raise ValueError("max_delay_seconds must not be below min_delay_seconds")
        return self


class OrgBundle(Strict):
    """An organization's bundle: a local tarball / directory (`path`) or a bundle server (`url`).

    Its roots must lie under `org`. `required` (the default) means every decision is a block
    until it has loaded; an optional bundle that fails is only reported."""

    name: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.-]+$")
    path: str | None = None
    url: str | None = None
    required: bool = True
    signing: BundleSigning | None = None
    polling: Polling = Field(default_factory=Polling)
    # Bearer token for the bundle server, read by OPA from this file on every request.
    token_file: str | None = None
    ca_cert_file: str | None = None
    # Keep the last good download on disk so an OPA restart can serve it while the server is down.
    persist: bool = True

    @field_validator("name")
    @classmethod
    def _not_reserved(cls, v: str) -> str:
        if v in RESERVED_BUNDLE_NAMES:
            raise ValueError(f"'{v}' is the name of opafence's own bundle")
        return v

    @field_validator("url")
    @classmethod
    def _url(cls, v: str | None) -> str | None:
        return None if v is None else _remote_url(v)

    @model_validator(mode="after")
    def _one_source(self) -> OrgBundle:
        if (self.path is None) == (self.url is None):
            raise ValueError("give exactly one of path (a local bundle) or url (a bundle server)")
        if self.path is not None and (self.token_file or self.ca_cert_file):
            raise ValueError("token_file and ca_cert_file only apply to a bundle server (url)")
        return self

    @property
    def source(self) -> str:
        return self.url or self.path or ""


class OwnBundle(Strict):
    """opafence's own bundle: the Rego sources (default) or a built `make bundle` tarball."""

    path: str | None = None
    signing: BundleSigning | None = None
    # How often the bridge reads OPA's bundle status, and how long start waits for org bundles.
    status_interval_s: float = Field(default=2.0, ge=0.05, le=60)
    org_wait_s: float = Field(default=10.0, ge=0, le=300)


class DecisionLogs(Strict):
    """Forward OPA's decision logs to the organization's collector, argument contents masked."""

    url: str
    token_file: str | None = None
    ca_cert_file: str | None = None
    min_delay_seconds: int = Field(default=60, ge=1, le=86_400)
    max_delay_seconds: int = Field(default=120, ge=1, le=86_400)
    buffer_size_limit_bytes: int | None = Field(default=None, ge=1024)
    upload_size_limit_bytes: int | None = Field(default=None, ge=1024)

    @field_validator("url")
    @classmethod
    def _url(cls, v: str) -> str:
        return _remote_url(v)

    @model_validator(mode="after")
    def _ordered(self) -> DecisionLogs:
        if self.max_delay_seconds < self.min_delay_seconds:
            raise ValueError("max_delay_seconds must not be below min_delay_seconds")
        return self


class PriceConfig(Strict):
    """One model's price in USD per million tokens (what providers' price pages show)."""

    input: Decimal = Field(ge=0)
    output: Decimal = Field(ge=0)
    cache_read: Decimal | None = Field(default=None, ge=0)
    cache_write: Decimal | None = Field(default=None, ge=0)


class DelegationConfig(Strict):
    """Sub-agent launches per task tree, counted in two windows of the task's active time."""

    short_window_minutes: int = Field(default=10, ge=1, le=24 * 60)
    short_max: int | None = Field(default=10, ge=0)
    long_window_minutes: int = Field(default=240, ge=1, le=7 * 24 * 60)
    long_max: int | None = Field(default=50, ge=0)

    def to_opa_data(self) -> dict[str, Any]:
        return self.model_dump()


class LedgerConfig(Strict):
    """Where the spend ledger lives: this home's file, or one PostgreSQL row shared by a fleet."""

    kind: Literal["file", "postgres"] = "file"
    # A file holding a postgresql:// DSN (0600; a credential the agent may not read).
    dsn_file: str | None = None
    # Hosts that share caps use the same name; different names keep separate ledgers.
    name: str = Field(default="default", min_length=1, max_length=200)

    @model_validator(mode="after")
    def _dsn_for_postgres(self) -> LedgerConfig:
        if self.kind == "postgres" and not self.dsn_file:
            raise ValueError("a postgres ledger needs dsn_file (a 0600 file holding the DSN)")
        if self.kind == "file" and self.dsn_file:
            raise ValueError("dsn_file only applies to kind: postgres")
        return self


class BudgetsConfig(Strict):
    # Per-task tool-call budgets (the task policy's own budgets).
    max_calls: int | None = Field(default=None, ge=1)
    max_external_writes: int | None = Field(default=None, ge=0)
    max_distinct_files: int | None = Field(default=None, ge=1)
    # Spend on model calls, per HERMES_HOME and local day, in integer US cents.
    daily_soft_cents: int | None = Field(default=None, ge=0)
    daily_hard_cents: int | None = Field(default=None, ge=0)
    per_minute_cents: int | None = Field(default=None, ge=0)
    cheaper_model: str | None = Field(default=None, min_length=1)
    # What a configured hard or per-minute cap does with a model that has no price.
    unpriced: Literal["block", "allow"] = "block"
    # Output tokens assumed when a request names no max_tokens.
    default_output_tokens: int = Field(default=4096, ge=1, le=10_000_000)
    # Reserve at most this many output tokens per call even when max_tokens is higher (Hermes
    # often asks for 64k): caps then block later, but may be passed by what calls in flight
    # produce beyond it. None reserves the request's max_tokens (the strict bound).
    reserve_output_tokens: int | None = Field(default=None, ge=1, le=10_000_000)
    prices: dict[str, PriceConfig] = Field(default_factory=dict)
    prices_file: str | None = None
    delegation: DelegationConfig = Field(default_factory=DelegationConfig)
    ledger: LedgerConfig = Field(default_factory=LedgerConfig)

    @model_validator(mode="after")
    def _soft_below_hard(self) -> BudgetsConfig:
        soft, hard = self.daily_soft_cents, self.daily_hard_cents
        if soft is not None and hard is not None and soft > hard:
            raise ValueError("daily_soft_cents must not be above daily_hard_cents")
        return self

    @property
    def spend_capped(self) -> bool:
        """Is there any cap for Rego to decide on? Without one, model calls are only recorded."""
        return any(
            c is not None for c in (self.daily_soft_cents, self.daily_hard_cents, self.per_minute_cents)
        )

    def to_opa_data(self) -> dict[str, Any]:
        """data.config.budgets: the caps and limits Rego decides with."""
        return {
            "daily_soft_cents": self.daily_soft_cents,
            "daily_hard_cents": self.daily_hard_cents,
            "per_minute_cents": self.per_minute_cents,
            "cheaper_model": self.cheaper_model,
            "unpriced": self.unpriced,
            "delegation": self.delegation.to_opa_data(),
        }


class AuditConfig(Strict):
    """What the trail keeps of a call's targets, and the optional forwarding of its signed head
    to an organization's collector."""

    # redacted: command name and first word, paths, recipient domains, URL hosts (audit/redaction.py);
    # none: argument hashes only; full: the command line, addresses and URLs as given.
    targets: Literal["redacted", "none", "full"] = "redacted"
    forward_url: str | None = None
    forward_token_file: str | None = None
    forward_interval_s: float = Field(default=60.0, ge=1.0, le=86_400.0)

    @field_validator("forward_url")
    @classmethod
    def _forward_scheme(cls, v: str | None) -> str | None:
        if v is not None and not v.startswith(("https://", "http://127.0.0.1", "http://localhost")):
            raise ValueError("must be an https:// URL (or a loopback http:// URL)")
        return v


class ProvenanceConfig(Strict):
    """Values of untrusted content kept per task (provenance/ledger.py)."""

    # More than this evicts the oldest, and then every target not in the owner's words counts
    # as untrusted for the rest of the task.
    max_values: int = Field(default=50_000, ge=100, le=5_000_000)
    # The owner's own addresses, numbers and handles: never untrusted, like their own words.
    identity: list[str] = Field(default_factory=list)


class Config(Strict):
    mode: Mode = "enforce"
    workspace: list[str] = Field(default_factory=list)
    tools: dict[str, ToolMapping] = Field(default_factory=dict)
    overrides: list[Override] = Field(default_factory=list)
    unattended_ask: Literal["block", "allow"] = "block"
    opa: OpaConfig = Field(default_factory=OpaConfig)
    compiler: CompilerConfig = Field(default_factory=CompilerConfig)
    org_bundles: list[OrgBundle] = Field(default_factory=list)
    bundle: OwnBundle = Field(default_factory=OwnBundle)
    decision_logs: DecisionLogs | None = None
    budgets: BudgetsConfig = Field(default_factory=BudgetsConfig)
    audit: AuditConfig = Field(default_factory=AuditConfig)
    task_idle_hours: float = Field(default=12.0, gt=0)
    protected_paths: list[str] = Field(default_factory=list)
    host_id: str | None = None
    provenance: ProvenanceConfig = Field(default_factory=ProvenanceConfig)

    @field_validator("host_id")
    @classmethod
    def _host_id(cls, v: str | None) -> str | None:
        if v is not None and not re.fullmatch(HOST_ID_PATTERN, v):
            raise ValueError(f"must match {HOST_ID_PATTERN} (letters, digits, '.', '_', '-')")
        return v

    def host_name(self) -> str:
        """This host's id: host_id, else the machine's name made to fit HOST_ID_PATTERN."""
        if self.host_id:
            return self.host_id
        name = re.sub(r"[^A-Za-z0-9._-]", "-", socket.gethostname()).lstrip("._-")[:63]
        return name or "host"

    def task_host_id(self) -> str | None:
        """The prefix of this host's task keys: host_id, else in remote mode (a shared OPA holds
        many hosts' tasks) the machine's name; none for a local OPA without a host_id."""
        if self.host_id or self.opa.url is None:
            return self.host_id
        return self.host_name()

    @field_validator("org_bundles")
    @classmethod
    def _unique_names(cls, v: list[OrgBundle]) -> list[OrgBundle]:
        seen: set[str] = set()
        for b in v:
            if b.name in seen:
                raise ValueError(f"two org bundles are named '{b.name}'")
            seen.add(b.name)
        return v

    def credential_files(self) -> list[str]:
        """Files holding opafence's own credentials: bearer tokens for OPA, bundle servers,
        the decision-log and audit collectors. The agent may never read or change them."""
        raw = [
            self.opa.token_file,
            *(b.token_file for b in self.org_bundles),
            self.decision_logs.token_file if self.decision_logs else None,
            self.audit.forward_token_file,
            self.budgets.ledger.dsn_file,
        ]
        return canonical_paths(raw)

    def trust_files(self) -> list[str]:
        """Files opafence trusts as they are: signing public keys, CA certificates, bundles, the
        price table and the OPA binary. The agent may read them, never change them."""
        signings = [b.signing for b in self.org_bundles] + [self.bundle.signing]
        raw = [
            *(s.public_key_file for s in signings if s is not None),
            *(b.ca_cert_file for b in self.org_bundles),
            *(b.path for b in self.org_bundles),
            self.decision_logs.ca_cert_file if self.decision_logs else None,
            self.bundle.path,
            self.budgets.prices_file,
            self.opa.binary,
            self.opa.pdp_binary,
        ]
        return canonical_paths(raw)

    def to_opa_data(self) -> dict[str, Any]:
        """data.config as Rego sees it (rego/schemas/config.jsonschema)."""
        return {
            "schema_version": 1,
            "mode": self.mode,
            "unattended_ask": self.unattended_ask,
            "tools": {name: {"classes": list(m.classes)} for name, m in self.tools.items()},
            "overrides": [
                {"tool": o.tool, "class": o.class_, "verdict": o.verdict, "reason": o.reason}
                for o in self.overrides
            ],
            "protected_paths": [str(Path(p).expanduser()) for p in self.protected_paths],
            "credential_paths": self.credential_files(),
            "trust_paths": self.trust_files(),
            "budgets": self.budgets.to_opa_data(),
        }


def canonical_paths(raw: list[str | None]) -> list[str]:
    """Configured file paths as the facts spell paths: ~ expanded, absolute, symlinks resolved."""
    return sorted({os.path.realpath(os.path.expanduser(p)) for p in raw if p})


def _split_list(value: str) -> list[str]:
    return [p.strip() for p in value.split(",") if p.strip()]


def _org_bundles_from_env(value: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i, item in enumerate(_split_list(value)):
        key = "url" if item.startswith(("http://", "https://")) else "path"
        out.append({"name": f"org{i}", key: item})
    return out


# OPAFENCE_<KEY> → (dotted config key, converter). Anything else starting with OPAFENCE_ is a typo.
ENV_KEYS: dict[str, tuple[str, Any]] = {
    "OPAFENCE_MODE": ("mode", str),
    "OPAFENCE_WORKSPACE": ("workspace", _split_list),
    "OPAFENCE_UNATTENDED_ASK": ("unattended_ask", str),
    "OPAFENCE_OPA_BIN": ("opa.binary", str),
    "OPAFENCE_OPA_URL": ("opa.url", str),
    "OPAFENCE_OPA_TOKEN_FILE": ("opa.token_file", str),
    "OPAFENCE_ORG_BUNDLES": ("org_bundles", _org_bundles_from_env),
    "OPAFENCE_BUNDLE": ("bundle.path", str),
    "OPAFENCE_HOST_ID": ("host_id", str),
}
ENV_OTHER = {"OPAFENCE_CONFIG"}


def config_path(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    explicit = env.get("OPAFENCE_CONFIG")
    return Path(explicit).expanduser() if explicit else state_dir() / "config.yaml"


def _model_at(loc: tuple[int | str, ...]) -> type[BaseModel] | None:
    """The config model a location points into (list indexes and dict keys skipped)."""
    model: type[BaseModel] | None = Config
    for part in loc:
        if model is None:
            return None
        if isinstance(part, int) or part not in model.model_fields:
            if isinstance(part, int) or model is not Config:
                continue  # an item of a list or a dict of models: same model below
            return None
        annotation = model.model_fields[part].annotation
        candidates = [annotation, *typing.get_args(annotation)]
        for arg in list(candidates):
            candidates += typing.get_args(arg)
        model = next((c for c in candidates if isinstance(c, type) and issubclass(c, BaseModel)), None)
    return model


def _suggestion(loc: tuple[int | str, ...]) -> str:
    """' (did you mean 'mode'?)' for a misspelled key, or ''."""
    model = _model_at(loc[:-1])
    if model is None or not isinstance(loc[-1], str):
        return ""
    known = [f.alias or name for name, f in model.model_fields.items()]
    close = difflib.get_close_matches(loc[-1], known, n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _describe(err: ValidationError, source: str) -> str:
    lines = []
    for e in err.errors():
        key = ".".join(str(p) for p in e["loc"]) or "(top level)"
        if e["type"] == "extra_forbidden":
            lines.append(f"{source}: unknown key '{key}'{_suggestion(tuple(e['loc']))}")
        else:
            lines.append(f"{source}: {key}: {e['msg']}")
    return "; ".join(lines)


def parse_config(raw: Any, source: str, env: Mapping[str, str] | None = None) -> Config:
    """Validate a loaded YAML document plus environment overrides."""
    env = os.environ if env is None else env
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise ConfigError(f"{source}: the top level must be a mapping of keys, not {type(raw).__name__}")
    data: dict[str, Any] = dict(raw)
    for name, value in env.items():
        if not name.startswith("OPAFENCE_") or name in ENV_OTHER:
            continue
        if name not in ENV_KEYS:
            raise ConfigError(f"environment: unknown variable {name} (known: {', '.join(sorted(ENV_KEYS))})")
        key, convert = ENV_KEYS[name]
        head, _, tail = key.partition(".")
        if tail:
            section = data.get(head) or {}
            if not isinstance(section, dict):
                raise ConfigError(f"{source}: {head}: must be a mapping")
            data[head] = {**section, tail: convert(value)}
        else:
            data[head] = convert(value)
    try:
        return Config.model_validate(data)
    except ValidationError as e:
        raise ConfigError(_describe(e, source)) from None


def load_config(path: Path | None = None, env: Mapping[str, str] | None = None) -> Config:
    """Read and validate the config file; a missing file means the defaults."""
    env = os.environ if env is None else env
    path = path or config_path(env)
    raw: Any = None
    if path.exists():
        try:
            raw = yaml.safe_load(path.read_text(encoding="utf-8"))
        except yaml.YAMLError as e:
            raise ConfigError(f"{path}: not valid YAML: {e}") from None
        except OSError as e:
            raise ConfigError(f"{path}: cannot read: {e.strerror}") from None
    elif "OPAFENCE_CONFIG" in env:
        raise ConfigError(f"{path}: OPAFENCE_CONFIG names a file that does not exist")
    return parse_config(raw, str(path), env)
