#!/usr/bin/env bash
# Runs every cargo-fuzz target for a bounded time with coverage feedback, on
# the stable toolchain (libFuzzer from libfuzzer-sys; SanitizerCoverage passes
# enabled with stable -C flags; no AddressSanitizer, which needs nightly).
# Each run starts from the committed regression inputs (fuzz/regressions/T)
# plus a scratch corpus, and fails on any crash (the input is saved under
# fuzz/artifacts/T/).
#   FUZZ_SECONDS=30 bash scripts/fuzz.sh          # CI (default 30 s per target)
#   FUZZ_SECONDS=600 bash scripts/fuzz.sh         # a long run on demand
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
SECONDS_PER_TARGET="${FUZZ_SECONDS:-30}"
TRIPLE="$(rustc -vV | sed -n 's/^host: //p')"
export CARGO_TARGET_DIR="$PWD/fuzz/target"
# --target keeps the instrumentation out of build scripts and proc macros.
export RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing"
(cd fuzz && cargo build --release --bins --target "$TRIPLE")
for t in parse_call print_parse_roundtrip; do
  work="$(mktemp -d)"
  mkdir -p "fuzz/artifacts/$t"
  echo "fuzzing $t for ${SECONDS_PER_TARGET}s"
  set +e
  "fuzz/target/$TRIPLE/release/$t" -max_total_time="$SECONDS_PER_TARGET" -rss_limit_mb=4096 \
    -print_final_stats=1 -artifact_prefix="fuzz/artifacts/$t/" "$work" "fuzz/regressions/$t" \
    2>&1 | grep -E "^(#[0-9]+ +DONE|stat::number_of_executed_units|Done|==[0-9]+== ERROR|SUMMARY|thread .* panicked)"
  status=${PIPESTATUS[0]}
  set -e
  rm -rf "$work"
  if [ "$status" -ne 0 ]; then
    echo "fuzz target $t failed (exit $status); inputs in fuzz/artifacts/$t/"
    exit 1
  fi
done
