#!/usr/bin/env bash
# Steering, measured (issue 32): the blind campaign (examples/steer.py --sham,
# which polls and reads like the policy but never steers) against
# examples/steer.py, on the steering cases of contracts/steer/manifest.json:
# same binary, seeds, call budget (run-once and injected calls counted), wall
# cap; one worker at nice 19. Prints a markdown table (BENCHMARKS.md) on
# stdout, progress on stderr.
#
# usage: scripts/steer_bench.sh [--short] [--easy | --cases A,B] [--seeds N | --seed-list 1,2]
#                               [--budget N] [--timeout SECS] [--json FILE]
#                               [--resamples N] [--boot-seed S] [--from-json FILE]
#   (default)   the manifest's hard cases, seeds 1-10, budget 1,000,000 calls, wall cap 300 s
#   --short     CI: DeepChain, seeds 1-3, budget 100,000, wall cap 60 s (well under 2 minutes)
#   --easy      the easy cases (steering should do no harm)
#   --json FILE the raw runs, per-case statistics and the summary
#   --from-json FILE  no runs: the table again from an earlier --json file
# Needs target/release/rudder (or $RUDDER; it is not built here) and
# contracts/steer/out (bash contracts/steer/build.sh); the Python venv comes
# from scripts/setup-python.sh (the official mcp client).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
for a in "$@"; do
  case "$a" in -h|--help) sed -n '2,19p' "$0"; exit 0;; esac
done
PY=$(bash "$ROOT/scripts/setup-python.sh")
exec "$PY" "$ROOT/scripts/steer_bench.py" "$@"
