#!/usr/bin/env bash
# Regenerates contracts/out/*.json (solc standard-JSON output) from contracts/*.sol
# with a pinned solcjs from npm, installed locally into contracts/.tools.
# The output is deterministic: running this twice gives byte-identical files.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$HERE")"
SOLC_VERSION=0.8.30
TOOLS="$HERE/.tools"
mkdir -p "$TOOLS"
if [ ! -f "$TOOLS/node_modules/solc/package.json" ] ||
   [ "$(node -p "require('$TOOLS/node_modules/solc/package.json').version")" != "$SOLC_VERSION" ]; then
  [ -f "$TOOLS/package.json" ] || echo '{"name":"rudder-contract-tools","private":true}' > "$TOOLS/package.json"
  (cd "$TOOLS" && npm install --no-audit --no-fund --silent "solc@$SOLC_VERSION")
fi
mkdir -p "$HERE/out"
cd "$ROOT"
for sol in contracts/*.sol; do
  name=$(basename "$sol" .sol)
  node "$HERE/compile.js" "$TOOLS/node_modules/solc" "$sol" > "$HERE/out/$name.json.tmp"
  mv "$HERE/out/$name.json.tmp" "$HERE/out/$name.json"
  echo "compiled $sol -> contracts/out/$name.json"
done
