#!/usr/bin/env bash
# Rebuilds out/ with Foundry's forge (installed by ../shared/peers/install.sh forge).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
PEERS="$(cd ../../../../shared/peers && pwd)"
HERE="$PEERS"; . "$PEERS/lib/env.sh"
rm -rf out cache
forge build
rm -rf cache
