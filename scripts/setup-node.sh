#!/usr/bin/env bash
# Installs the official MCP TypeScript SDK, ajv and the MCP Inspector's CLI
# (@modelcontextprotocol/inspector-cli), pinned by
# tests/e2e/conformance/package-lock.json, into
# tests/e2e/conformance/node_modules, for the conformance suite
# (tests/it/conformance.rs). Idempotent (reinstalls when package.json or the
# lock changes); prints the node binary's path last.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
DIR=tests/e2e/conformance
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "node and npm are needed (Node.js 18 or later)" >&2
  exit 1
fi
if [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 18 ]; then
  echo "Node.js 18 or later is needed, found $(node --version)" >&2
  exit 1
fi
# One setup at a time: concurrent callers would race installing. The lock is
# outside node_modules, which `npm ci` deletes.
exec 9>".node.lock"
flock 9
STAMP="$DIR/node_modules/.rudder-setup"
want=$(sha256sum "$DIR/package.json" "$DIR/package-lock.json" 2>/dev/null | sha256sum | cut -d' ' -f1)
if [ ! -f "$STAMP" ] || [ "$(cat "$STAMP")" != "$want" ]; then
  if [ -f "$DIR/package-lock.json" ]; then
    (cd "$DIR" && npm ci --no-audit --no-fund --silent >&2)
  else
    (cd "$DIR" && npm install --no-audit --no-fund --silent >&2)
    want=$(sha256sum "$DIR/package.json" "$DIR/package-lock.json" | sha256sum | cut -d' ' -f1)
  fi
  echo "$want" > "$STAMP"
fi
command -v node
