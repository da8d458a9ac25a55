#!/usr/bin/env bash
# Build opafence-pdp (pdp/, on the pinned OPA SDK) into the path given, when Go is there.
# Without Go this is not an error: opafence then runs the stock `opa` server (DESIGN.md).
# Static (CGO off) and stripped, so that the same file runs on any Linux x86-64 (the wheel).
set -euo pipefail
out="${1:?usage: build-pdp.sh OUTPUT}"
root="$(cd "$(dirname "$0")/.." && pwd)"
case "$out" in /*) ;; *) out="$root/$out" ;; esac
if ! command -v go >/dev/null 2>&1; then
  echo "no Go toolchain: opafence-pdp not built; opafence will use the stock opa server" >&2
  exit 0
fi
echo "building opafence-pdp with go build (the first build of the OPA SDK takes minutes) ..." >&2
mkdir -p "$(dirname "$out")"
cd "$root/pdp"
CGO_ENABLED=0 GOFLAGS="-mod=readonly -buildvcs=false" \
  go build -trimpath -ldflags="-s -w" -o "$out.tmp" .
"$out.tmp" version | grep -q '^Version: ' || { echo "opafence-pdp did not build" >&2; exit 1; }
mv "$out.tmp" "$out"
# The digests of the sources it was built from: setup.py reuses this binary for a wheel only
# when they match the sources it builds from.
(cd "$root/pdp" && ls -- *.go go.mod go.sum | LC_ALL=C sort | xargs sha256sum --) > "$out.sources"
