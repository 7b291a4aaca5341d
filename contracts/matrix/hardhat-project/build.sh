#!/usr/bin/env bash
# Rebuilds artifacts/ (Hardhat 2 artifacts and build-info) from contracts/ with
# the hardhat and solcjs pinned in package-lock.json. No compiler download:
# hardhat.config.js points Hardhat at node_modules/solc/soljson.js.
# Deterministic: running it twice gives byte-identical artifacts.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
export HARDHAT_DISABLE_TELEMETRY_PROMPT=true
npm ci --no-audit --no-fund --loglevel=error
rm -rf artifacts cache
# Piped so stdout is not a TTY (Hardhat then skips its network banner check).
npx --no-install hardhat compile --force | cat
rm -rf cache
