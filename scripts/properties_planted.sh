#!/usr/bin/env bash
# A planted bug under crytic/properties' ERC20 suite (#66): OpenZeppelin's
# ERC20 (v4.8.0, the checkout's submodule) with one planted bug (a transfer of
# more than one token leaves one base unit with the sender), fuzzed through
# crytic/properties' own CryticERC20BasicProperties and Echidna config
# (assertion mode, its senders and deployer). Every report format must carry
# the failing property's own message ("Wrong source balance after transfer"),
# as Echidna prints it from the library's AssertEqFail event.
#
# usage: scripts/properties_planted.sh PROPERTIES_CHECKOUT [SEED...]
#   PROPERTIES_CHECKOUT  a checkout of github.com/crytic/properties with its
#                        lib/openzeppelin-contracts submodule (v4.8.0):
#                        git clone https://github.com/crytic/properties P &&
#                        git -C P submodule update --init lib/openzeppelin-contracts
#   SEED...              fuzzer seeds (default 1 2 3), one worker each
# The harness is written into PROPERTIES_CHECKOUT/tests/rudder-planted/
# (nothing else there changes); the checkout is fetched for a measurement and
# never committed. Needs target/release/rudder ($RUDDER) and the pinned solcjs
# (contracts/pinned-solc.sh installs it). Prints a line per seed and format;
# exits 1 if a format lacks the message.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
case "${1:-}" in ''|-h|--help) sed -n '2,21p' "$0"; exit 0;; esac
PROPS="$(cd "$1" && pwd)"; shift
SEEDS=("$@")
[ $# -gt 0 ] || SEEDS=(1 2 3)
RUDDER="${RUDDER:-$ROOT/target/release/rudder}"
[ -x "$RUDDER" ] || { echo "no rudder binary at $RUDDER (cargo build --release)" >&2; exit 2; }
[ -f "$PROPS/lib/openzeppelin-contracts/contracts/token/ERC20/ERC20.sol" ] || {
  echo "$PROPS has no lib/openzeppelin-contracts: git -C $PROPS submodule update --init lib/openzeppelin-contracts" >&2
  exit 2
}
# shellcheck source=../contracts/pinned-solc.sh
source "$ROOT/contracts/pinned-solc.sh"

mkdir -p "$PROPS/tests/rudder-planted"
HARNESS="$PROPS/tests/rudder-planted/PlantedHarness.sol"
cat > "$HARNESS" <<'EOF'
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;
import "properties/ERC20/internal/properties/ERC20BasicProperties.sol";

/// crytic/properties' ERC20 basic properties over OpenZeppelin's ERC20 with
/// one planted bug: a transfer of more than one token leaves one base unit
/// with the sender (taken back from the receiver).
contract CryticERC20InternalHarness is CryticERC20BasicProperties {
    constructor() ERC20("Planted", "PLT") {
        _mint(USER1, INITIAL_BALANCE);
        _mint(USER2, INITIAL_BALANCE);
        _mint(USER3, INITIAL_BALANCE);
        initialSupply = totalSupply();
        isMintableOrBurnable = false;
    }

    function _transfer(address from, address to, uint256 amount) internal virtual override {
        super._transfer(from, to, amount);
        if (amount > 1e18) {
            super._transfer(to, from, 1);
        }
    }
}
EOF

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
CONFIG="$PROPS/contracts/ERC20/internal/echidna.config.yaml"
MESSAGE="Wrong source balance after transfer"
missing=0
for seed in "${SEEDS[@]}"; do
  for format in text json junit github html; do
    # A fresh folder per run: rudder finds solcjs in ./node_modules, and the
    # suite's corpusDir is relative (a shared one would reload reproducers).
    run="$WORK/$seed-$format"
    mkdir -p "$run"
    ln -s "$(dirname "$SOLC")" "$run/node_modules"
    out="$run/out"
    args=(fuzz "$HARNESS" --contract CryticERC20InternalHarness --config "$CONFIG"
          --workers 1 --seed "$seed" --out-dir "$out" --no-ui)
    if [ "$format" = html ]; then
      args+=(--report-html "$out/html")
    else
      args+=(--format "$format")
    fi
    rc=0
    (cd "$run" && "$RUDDER" "${args[@]}" > "$WORK/report-$seed-$format" 2> "$WORK/err") || rc=$?
    if [ "$rc" -eq 2 ]; then cat "$WORK/err" >&2; exit 2; fi
    where="$WORK/report-$seed-$format"
    [ "$format" = html ] && where="$out/html/index.html"
    if grep -q "$MESSAGE" "$where"; then
      echo "seed $seed $format: found \"$MESSAGE\" (exit $rc)"
    else
      echo "seed $seed $format: MISSING \"$MESSAGE\" (exit $rc)"
      missing=1
    fi
  done
  grep -E "FALSIFIED" "$WORK/report-$seed-text" | sed "s/^/  seed $seed: /"
done
exit $missing
