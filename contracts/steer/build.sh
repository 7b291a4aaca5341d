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
SOLC_VERSION=0.8.30
TOOLS="$CONTRACTS/.tools"
SOLC="$TOOLS/node_modules/solc"
if [ ! -f "$SOLC/package.json" ] ||
   [ "$(node -p "require('$SOLC/package.json').version")" != "$SOLC_VERSION" ]; then
  mkdir -p "$TOOLS"
  [ -f "$TOOLS/package.json" ] || echo '{"name":"rudder-contract-tools","private":true}' > "$TOOLS/package.json"
  (cd "$TOOLS" && npm install --no-audit --no-fund --silent "solc@$SOLC_VERSION" >&2)
fi

mkdir -p "$HERE/out"
cd "$ROOT"
for sol in contracts/steer/*.sol contracts/steer/easy/*.sol; do
  name=$(basename "$sol" .sol)
  node "$CONTRACTS/compile.js" "$SOLC" "$sol" > "$HERE/out/$name.json.tmp"
  mv "$HERE/out/$name.json.tmp" "$HERE/out/$name.json"
  echo "compiled $sol -> contracts/steer/out/$name.json"
done
