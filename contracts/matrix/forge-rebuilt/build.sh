#!/usr/bin/env bash
# Rebuilds out/ in three compilations (see foundry.toml) with Foundry's forge
# (installed by ../shared/peers/install.sh forge), from ../forge-project's sources.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
PEERS="$(cd ../../../../shared/peers && pwd)"
HERE="$PEERS"; . "$PEERS/lib/env.sh"
rm -rf out cache src test
mkdir src test
cp ../forge-project/src/*.sol src/
cp ../forge-project/test/*.sol test/
forge build --build-info
echo "// changed after the full build: recompiled alone by a plain forge build" >> src/Vaulted.sol
forge build
echo "// changed after that: recompiled alone by a plain forge build" >> test/BankInvariant.t.sol
forge build
rm -rf cache
