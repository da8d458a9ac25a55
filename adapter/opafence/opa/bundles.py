"""OPA's configuration for bundles and decision logs, built from the opafence config.

- opafence's own bundle: the staged Rego (a directory) or a built tarball, with a `signing`
  block when a public key is configured (OPA then refuses an unsigned or tampered bundle).
- Org bundles: a `file://` resource for a local tarball or directory, or one OPA service per
  bundle server (polling, bearer token read by OPA from a file, optional CA). Each bundle has
  its own `signing` block. Local bundles' roots are checked here, before OPA sees them; the
  bridge checks every loaded bundle's roots again from `data.system.bundles`.
- Decision logs: a service for the collector, masked by `opafence/log/mask`.

Secrets never go into OPA's config: bearer tokens stay in their files (`token_path`), and
only public keys are written (HS* shared secrets are not supported for that reason)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from opafence.config import BundleSigning, Config, DecisionLogs, OrgBundle
from opafence.errors import BridgeError
from opafence.opa import own_bundle
from opafence.opa.own_bundle import BundleError, org_roots_problem, read_manifest

OWN_BUNDLE = "opafence"
SERVICE_PREFIX = "org-bundle-"
DECISION_LOG_SERVICE = "opafence-decision-logs"
MASK_DECISION = "/opafence/log/mask"
DROP_DECISION = "/opafence/log/drop"
MAX_KEY_BYTES = 64 * 1024

Kind = Literal["opafence", "org"]


@dataclass(frozen=True)
class BundleSpec:
    """One bundle opafence expects OPA to load, and what it knows before OPA starts."""

    name: str
    kind: Kind
    source: str
    required: bool
    signed: bool
    remote: bool
    # Why opafence refused the bundle before start (it is then not given to OPA at all).
    refused: str = ""


@dataclass
class BundlePlan:
    specs: list[BundleSpec]
    opa: dict[str, Any] = field(default_factory=dict)

    def spec(self, name: str) -> BundleSpec | None:
        return next((s for s in self.specs if s.name == name), None)


def _path(raw: str) -> Path:
    return Path(raw).expanduser().resolve()


def _public_key(raw: str) -> str:
    path = _path(raw)
    try:
        if path.stat().st_size > MAX_KEY_BYTES:
            raise BundleError(f"the public key file {path} is too large to be a PEM key")
        pem = path.read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError) as e:
        raise BundleError(f"cannot read the public key file {path}: {e}") from None
    if "-----BEGIN PUBLIC KEY-----" not in pem and "-----BEGIN RSA PUBLIC KEY-----" not in pem:
        kind = "a private key" if "PRIVATE KEY" in pem else "not a PEM public key"
        raise BundleError(f"the public key file {path} holds {kind}")
    return pem


def _signing(name: str, signing: BundleSigning, keys: dict[str, Any]) -> dict[str, Any]:
    """A bundle's `signing` block; adds its public key to OPA's `keys`."""
    key_id = signing.key_id or name
    entry = {"algorithm": signing.algorithm, "key": _public_key(signing.public_key_file)}
    if key_id in keys and keys[key_id] != entry:
        raise BundleError(f"key id '{key_id}' names two different keys")
    keys[key_id] = entry
    block: dict[str, Any] = {"keyid": key_id}
    if signing.scope:
        block["scope"] = signing.scope
    if signing.exclude_files:
        block["exclude_files"] = list(signing.exclude_files)
    return block


def _service(url: str, token_file: str | None, ca_cert_file: str | None) -> tuple[dict[str, Any], str]:
    """(OPA service, resource) for a URL: the service is scheme://host[:port], the rest is the resource."""
    parts = urlsplit(url)
    service: dict[str, Any] = {"url": f"{parts.scheme}://{parts.netloc}"}
    if token_file:
        token_path = _path(token_file)
        if not token_path.is_file():
            raise BundleError(f"the token file {token_path} does not exist")
        # OPA reads the file on every request, so a rotated token is picked up.
        service["credentials"] = {"bearer": {"token_path": str(token_path), "scheme": "Bearer"}}
    if ca_cert_file:
        ca = _path(ca_cert_file)
        if not ca.is_file():
            raise BundleError(f"the CA certificate file {ca} does not exist")
        service["tls"] = {"ca_cert": str(ca)}
    resource = parts.path or "/"
    if parts.query:
        resource += "?" + parts.query
    return service, resource


def _org_bundle(
    b: OrgBundle, keys: dict[str, Any], services: dict[str, Any], persist_dir: Path | None
) -> tuple[BundleSpec, dict[str, Any] | None]:
    """The spec and OPA `bundles` entry for one org bundle (None when refused before start)."""
    spec = BundleSpec(
        name=b.name,
        kind="org",
        source=b.source,
        required=b.required,
        signed=b.signing is not None,
        remote=b.url is not None,
    )
    try:
        entry: dict[str, Any] = {}
        if b.signing is not None:
            entry["signing"] = _signing(b.name, b.signing, keys)
        if b.path is not None:
            path = _path(b.path)
            problem = org_roots_problem(read_manifest(path))
            if problem:
                raise BundleError(problem)
            entry.update({"resource": path.as_uri(), "persist": False})
        else:
            service, resource = _service(b.url or "", b.token_file, b.ca_cert_file)
            name = SERVICE_PREFIX + b.name
            services[name] = service
            entry.update(
                {
                    "service": name,
                    "resource": resource,
                    "persist": bool(b.persist and persist_dir is not None),
                    "polling": b.polling.model_dump(exclude_none=True),
                }
            )
    except BundleError as e:
        return BundleSpec(**{**spec.__dict__, "refused": str(e)}), None
    return spec, entry


def decision_log_config(dl: DecisionLogs, services: dict[str, Any]) -> dict[str, Any]:
    service, resource = _service(dl.url, dl.token_file, dl.ca_cert_file)
    services[DECISION_LOG_SERVICE] = service
    reporting: dict[str, Any] = {
        "min_delay_seconds": dl.min_delay_seconds,
        "max_delay_seconds": dl.max_delay_seconds,
    }
    if dl.buffer_size_limit_bytes is not None:
        reporting["buffer_size_limit_bytes"] = dl.buffer_size_limit_bytes
    if dl.upload_size_limit_bytes is not None:
        reporting["upload_size_limit_bytes"] = dl.upload_size_limit_bytes
    return {
        "service": DECISION_LOG_SERVICE,
        "resource": resource if resource != "/" else "/logs",
        "reporting": reporting,
        "mask_decision": MASK_DECISION,
        "drop_decision": DROP_DECISION,
    }


def own_bundle_path(config: Config) -> Path | None:
    """The built opafence bundle to load, or None for the Rego sources (staged at start)."""
    if config.bundle.path:
        return _path(config.bundle.path)
    return own_bundle.fresh_packaged_bundle()


def plan_bundles(
    config: Config,
    own_resource: Path | None,
    persist_dir: Path | None = None,
    own_built: bool = False,
) -> BundlePlan:
    """Everything bundle-related OPA's config needs. own_resource is None in remote mode;
    own_built says it is a built tarball (else the staged Rego sources, which are unsigned).

    Raises BridgeError(OPA_START_FAILED) only for opafence's own bundle; a bad org bundle is
    refused (and blocks every decision when required) rather than stopping the start."""
    keys: dict[str, Any] = {}
    services: dict[str, Any] = {}
    bundles: dict[str, Any] = {}
    specs: list[BundleSpec] = []
    if own_resource is not None:
        entry: dict[str, Any] = {"resource": own_resource.as_uri(), "persist": False}
        signing = config.bundle.signing
        if signing is not None:
            if not own_built:
                raise BridgeError(
                    "OPA_START_FAILED",
                    "bundle.signing is set but no built bundle is configured (set bundle.path to the "
                    "signed tarball from `make bundle`)",
                )
            try:
                entry["signing"] = _signing(OWN_BUNDLE, signing, keys)
            except BundleError as e:
                raise BridgeError("OPA_START_FAILED", f"opafence bundle: {e}") from None
        bundles[OWN_BUNDLE] = entry
        specs.append(
            BundleSpec(
                name=OWN_BUNDLE,
                kind="opafence",
                source=str(own_resource),
                required=True,
                signed=signing is not None,
                remote=False,
            )
        )
    for b in config.org_bundles:
        spec, org_entry = _org_bundle(b, keys, services, persist_dir)
        specs.append(spec)
        if org_entry is not None:
            bundles[b.name] = org_entry
    if config.decision_logs is not None:
        try:
            decision_logs = decision_log_config(config.decision_logs, services)
        except BundleError as e:
            raise BridgeError("OPA_START_FAILED", f"decision_logs: {e}") from None
    else:
        decision_logs = None
    opa: dict[str, Any] = {"bundles": bundles}
    if keys:
        opa["keys"] = keys
    if services:
        opa["services"] = services
    if decision_logs is not None:
        opa["decision_logs"] = decision_logs
        # Every event a fleet's collector receives says which host decided it.
        opa["labels"] = {"opafence_host": config.host_name()}
    if persist_dir is not None and any(b.get("persist") for b in bundles.values()):
        opa["persistence_directory"] = str(persist_dir)
    return BundlePlan(specs=specs, opa=opa)
