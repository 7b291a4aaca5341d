#!/usr/bin/env bash
# Compiles the steering case set: contracts/steer/*.sol (hard cases) and
# contracts/steer/easy/*.sol (easy cases) into contracts/steer/out/NAME.json
# (solc standard-JSON output), with the pinned solcjs 0.8.30 that
# contracts/build.sh installs into contracts/.tools (installed here too if it is
# missing), through contracts/compile.js, optimizer off. Deterministic: running
# it twice gives byte-identical files.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CONTRACTS="$(dirname "$HERE")"
ROOT="$(dirname "$CONTRACTS")"
# shellcheck source=../pinned-solc.sh
source "$CONTRACTS/pinned-solc.sh"

mkdir -p "$HERE/out"
cd "$ROOT"
for sol in contracts/steer/*.sol contracts/steer/easy/*.sol; do
  name=$(basename "$sol" .sol)
  node "$CONTRACTS/compile.js" "$SOLC" "$sol" > "$HERE/out/$name.json.tmp"
  mv "$HERE/out/$name.json.tmp" "$HERE/out/$name.json"
  echo "compiled $sol -> contracts/steer/out/$name.json"
done
