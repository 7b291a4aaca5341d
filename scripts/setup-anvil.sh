#!/usr/bin/env bash
# Installs anvil (Foundry's local node, the official npm platform package,
# pinned) into .tools/anvil for the fork-mode tests (tests/fork.rs), which
# plant state on a local node and fork it. Idempotent; prints the anvil
# binary's path last.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
VERSION=1.7.1
DIR=.tools/anvil
BIN="$DIR/node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil"
if ! command -v npm >/dev/null 2>&1; then
  echo "npm is needed to install anvil" >&2
  exit 1
fi
mkdir -p "$DIR"
# One setup at a time: tests may ask together.
exec 9>"$DIR/.lock"
flock 9
if [ ! -x "$BIN" ] || ! "$BIN" --version 2>/dev/null | grep -q "$VERSION"; then
  [ -f "$DIR/package.json" ] || echo '{"name":"rudder-anvil","private":true}' > "$DIR/package.json"
  (cd "$DIR" && npm install --no-audit --no-fund --silent "@foundry-rs/anvil-linux-amd64@$VERSION" >&2)
fi
echo "$PWD/$BIN"
