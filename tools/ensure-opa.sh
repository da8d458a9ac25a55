#!/usr/bin/env bash
# Print the absolute path of an `opa` binary of the pinned version, building it if needed.
# Order: $OPAFENCE_OPA_BIN, the project's .tools/bin/opa, `opa` on PATH, then `go install`.
set -euo pipefail
want="${OPA_VERSION:-1.22.3}"
root="$(cd "$(dirname "$0")/.." && pwd)"
version_of() { "$1" version 2>/dev/null | awk '/^Version:/ {print $2; exit}'; }
ok() { [ -x "$1" ] && [ "$(version_of "$1")" = "$want" ]; }

if [ -n "${OPAFENCE_OPA_BIN:-}" ]; then
  if ok "$OPAFENCE_OPA_BIN"; then echo "$OPAFENCE_OPA_BIN"; exit 0; fi
  echo "OPAFENCE_OPA_BIN=$OPAFENCE_OPA_BIN is not opa $want" >&2; exit 1
fi
local_bin="$root/.tools/bin/opa"
if ok "$local_bin"; then echo "$local_bin"; exit 0; fi
if on_path="$(command -v opa 2>/dev/null)" && ok "$on_path"; then echo "$on_path"; exit 0; fi
if ! command -v go >/dev/null 2>&1; then
  echo "no opa $want found and no Go toolchain to build it: install opa $want (see README)" >&2; exit 1
fi
echo "building opa v$want with go install (first time only) ..." >&2
mkdir -p "$root/.tools/bin"
GOBIN="$root/.tools/bin" GOFLAGS=-mod=mod go install "github.com/open-policy-agent/opa@v$want" >&2
ok "$local_bin" || { echo "go install did not produce opa $want" >&2; exit 1; }
echo "$local_bin"
