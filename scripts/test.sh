#!/usr/bin/env bash
# The whole test suite, as CI runs it (.ci/run calls this).
# Release build throughout: the campaign tests fuzz real contracts, and debug
# revm is ~25x slower. One build serves the unit, integration and e2e tests.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export CARGO_TERM_COLOR=never
echo "== unit, integration and end-to-end tests (release)"
cargo test --release --no-fail-fast
echo "== benches compile"
cargo build --release --benches
echo "== loom model of the EventLog ring"
cargo test --release --features loom --test loom
echo "== cargo-fuzz harnesses build (stable toolchain, no sanitizer)"
(cd fuzz && CARGO_TARGET_DIR=../target/fuzz cargo build --release --bins)
