#!/usr/bin/env bash
# Rebuilds out/ with Foundry's forge (installed by ../shared/peers/install.sh forge).
# forge-std comes from npm: the copy @chainlink/contracts vendors (forge-std
# 1.9, MIT/Apache-2.0), unpacked into lib/forge-std as `forge install` would.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
./fetch-forge-std.sh
PEERS="$(cd ../../../../shared/peers && pwd)"
HERE="$PEERS"; . "$PEERS/lib/env.sh"
rm -rf out cache
forge build
rm -rf cache
