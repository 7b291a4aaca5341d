#!/usr/bin/env bash
# Measures the blind campaign on steering cases: for each case and seed, one
# `rudder fuzz` run (one worker, nice 19, stopOnFail, a fresh output
# directory) and one JSON line: case, seed, calls (the calls it took to
# falsify, or the budget), falsified, the shrunk sequence, seconds.
# usage: contracts/steer/measure_blind.sh [-n LIMIT] [-s "1 2 3"] CASE...
#   CASE: a name under contracts/steer/out (StoredMix) or a path to a JSON.
# $RUDDER or target/release/rudder. Run from the repository root.
set -euo pipefail
LIMIT=200000
SEEDS="1 2 3"
while getopts "n:s:" o; do
  case "$o" in n) LIMIT=$OPTARG ;; s) SEEDS=$OPTARG ;; *) exit 2 ;; esac
done
shift $((OPTIND - 1))
RUDDER=${RUDDER:-target/release/rudder}
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
for c in "$@"; do
  case "$c" in *.json) target=$c; name=$(basename "$c" .json) ;; *) target=$HERE/out/$c.json; name=$c ;; esac
  for s in $SEEDS; do
    nice -n 19 "$RUDDER" fuzz "$target" --workers 1 --seed "$s" --test-limit "$LIMIT" \
      --config "$HERE/stop-on-fail.yaml" --format json --out-dir "$WORK/$name-$s" 2>/dev/null |
      python3 -c '
import json, sys
name, seed, limit = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
d = json.load(sys.stdin)
t = [t for t in d["tests"] if t["status"] == "falsified"]
print(json.dumps({"case": name, "seed": seed, "limit": limit, "calls": d["calls"],
                  "falsified": bool(t), "sequence": t[0]["sequence"] if t else None,
                  "seconds": d["elapsedSecs"]}))' "$name" "$s" "$LIMIT" || true
  done
done
