#!/usr/bin/env bash
# Regenerates contracts/out/*.json (solc standard-JSON output) from contracts/*.sol
# with a pinned solcjs from npm, installed locally into contracts/.tools, and the
# compiler matrix (contracts/matrix/matrix.txt: solc 0.4 to 0.8, optimizer on and
# off, via-IR, libraries, a Foundry build-info) with one pinned solcjs per version.
# The output is deterministic: running this twice gives byte-identical files.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$HERE")"
SOLC_VERSION=0.8.30
TOOLS="$HERE/.tools"
mkdir -p "$TOOLS"
[ -f "$TOOLS/package.json" ] || echo '{"name":"rudder-contract-tools","private":true}' > "$TOOLS/package.json"

# solc_path VERSION: the pinned solcjs of VERSION (installed as an npm alias
# `solc-VERSION`; the main version is plain `solc`).
solc_path() {
  local v="$1" pkg
  if [ "$v" = "$SOLC_VERSION" ]; then pkg=solc; else pkg="solc-$v"; fi
  if [ ! -f "$TOOLS/node_modules/$pkg/package.json" ] ||
     [ "$(node -p "require('$TOOLS/node_modules/$pkg/package.json').version")" != "$v" ]; then
    if [ "$pkg" = solc ]; then spec="solc@$v"; else spec="$pkg@npm:solc@$v"; fi
    (cd "$TOOLS" && npm install --no-audit --no-fund --silent "$spec" >&2)
  fi
  echo "$TOOLS/node_modules/$pkg"
}

mkdir -p "$HERE/out"
cd "$ROOT"
MAIN="$(solc_path "$SOLC_VERSION")"
for sol in contracts/*.sol; do
  name=$(basename "$sol" .sol)
  node "$HERE/compile.js" "$MAIN" "$sol" > "$HERE/out/$name.json.tmp"
  mv "$HERE/out/$name.json.tmp" "$HERE/out/$name.json"
  echo "compiled $sol -> contracts/out/$name.json"
done

mkdir -p "$HERE/matrix/out" "$HERE/matrix/foundry/out/build-info"
while read -r name source version flags; do
  case "$name" in ''|'#'*) continue ;; esac
  solc="$(solc_path "$version")"
  if [[ " $flags " == *" --build-info "* ]]; then
    dest="$HERE/matrix/foundry/out/build-info/$name.json"
  else
    dest="$HERE/matrix/out/$name.json"
  fi
  # shellcheck disable=SC2086
  node "$HERE/compile.js" "$solc" "contracts/matrix/$source" $flags > "$dest.tmp"
  mv "$dest.tmp" "$dest"
  echo "compiled contracts/matrix/$source with solc $version $flags -> ${dest#"$ROOT"/}"
done < "$HERE/matrix/matrix.txt"
