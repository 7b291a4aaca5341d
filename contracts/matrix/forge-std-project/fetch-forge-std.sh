#!/usr/bin/env bash
# Puts forge-std into lib/forge-std (git-ignored) from npm: the copy that
# @chainlink/contracts 1.4.0 vendors under src/v0.8/vendor/forge-std.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
[ -f lib/forge-std/src/Test.sol ] && exit 0
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent @chainlink/contracts@1.4.0 >/dev/null)
tar -xzf "$tmp"/chainlink-contracts-1.4.0.tgz -C "$tmp" package/src/v0.8/vendor/forge-std
mkdir -p lib
rm -rf lib/forge-std
mv "$tmp/package/src/v0.8/vendor/forge-std" lib/forge-std
