# METADATA
# title: Bundle roots
# description: |
#   Every bundle OPA has loaded besides opafence's own must keep its roots under `org`. OPA
#   itself refuses a bundle whose roots overlap another bundle's, but it accepts, say,
#   ["org", "tasks"] or ["org", "system"], and such a bundle would own the task policies, the
#   configuration or the API authorization. The bridge also watches for this, but checking it
#   here, in the same snapshot as the decision, leaves no window in which such a bundle's
#   data could decide anything. OPA records each bundle's manifest under data.system.bundles.
package opafence.bundles

import data.opafence.lib.reason

# METADATA
# title: ORG_BUNDLE_ROOTS
# description: "The organization bundle '{{.bundle}}' claims data outside 'org' (roots {{.roots}}), so every call is blocked."
# custom:
#   code: ORG_BUNDLE_ROOTS
#   fix: Give the bundle's .manifest roots under org (for example ["org/agent/acme", "org/acme"]) and republish it.
deny contains object.union(reason.render(rego.metadata.rule(), vars), {"always": true}) if {
	some name, bundle in data.system.bundles
	not _roots_acceptable(bundle)
	vars := {"bundle": name, "roots": json.marshal(object.get(bundle, ["manifest", "roots"], null))}
}

_roots_acceptable(bundle) if {
	roots := bundle.manifest.roots
	count(roots) > 0
	every root in roots {
		_acceptable(trim(root, "/"))
	}
}

# Organization bundles live under org. opafence's own bundle is recognized by its roots, not
# by its name (a shared OPA may call it anything): opafence, and "partial", the namespace
# `opa build --optimize` adds. Another bundle cannot take those: OPA refuses overlapping roots.
_acceptable(root) if root in {"org", "opafence", "partial"}

_acceptable(root) if strings.any_prefix_match(root, {"org/", "opafence/"})
