#!/usr/bin/env bash
# Compiles the steering dev set of our own (issue 65): contracts/devset/*.sol,
# handler-style protocol harnesses written and committed before the policy
# changes that target them (each case's manifest records its commit), into
# contracts/devset/out/NAME.json (solc standard-JSON output; not committed:
# Lending alone is 5 MB), with the pinned solcjs 0.8.30 of contracts/.tools
# (contracts/pinned-solc.sh installs it if missing), optimizer off.
# Deterministic: running it twice gives byte-identical files.
#
# usage: contracts/devset/build.sh [NAME ...]   (default: every case)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CONTRACTS="$(dirname "$HERE")"
ROOT="$(dirname "$CONTRACTS")"
# shellcheck source=../pinned-solc.sh
source "$CONTRACTS/pinned-solc.sh"
mkdir -p "$HERE/out"
cd "$ROOT"
if [ $# -eq 0 ]; then
  set -- $(cd "$HERE" && ls *.sol | sed 's/\.sol$//')
fi
for name in "$@"; do
  sol="contracts/devset/$name.sol"
  [ -f "$sol" ] || { echo "no such case: $sol" >&2; exit 2; }
  node "$CONTRACTS/compile.js" "$SOLC" "$sol" > "$HERE/out/$name.json.tmp"
  mv "$HERE/out/$name.json.tmp" "$HERE/out/$name.json"
  echo "compiled $sol -> contracts/devset/out/$name.json" >&2
done
