#!/usr/bin/env bash
# Rebuilds out/ (see foundry.toml) with Foundry's forge (installed by
# ../shared/peers/install.sh forge).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
PEERS="$(cd ../../../../shared/peers && pwd)"
HERE="$PEERS"; . "$PEERS/lib/env.sh"
rm -rf out cache
sed -i '/^\/\/ changed after the full build/d' test/recon/CryticToFoundry.sol
forge build --build-info
echo "// changed after the full build: recompiled by a plain forge build" >> test/recon/CryticToFoundry.sol
forge build
rm -rf cache
