#!/usr/bin/env bash
# Steering on the mazes (#32): examples/steer.py against its sham (the blind
# arm: the same polls and reads, no steering) on generated mazes
# (scripts/maze.py), same binary, seed and wall time, one worker, the arms one
# after another. Prints, per maze and seed, the feasible bug sites (from the
# maze's manifest) each arm reached and the campaign calls (and the seconds
# they took at the run's rate) at which it reached its last one.
#
# usage: scripts/steer_maze.sh [-n MAZES] [-m LIST] [-t SECONDS] [-S LIST]
#   -n MAZES    mazes 1..N; default 5
#   -m LIST     these mazes instead, comma-separated
#   -t SECONDS  wall time per arm, maze and seed; default 120 (the issue's 2 minutes)
#   -S LIST     fuzzer seeds, comma-separated; default 1
# Needs target/release/rudder (or $RUDDER); solcjs (contracts/build.sh) and
# the Python venv (scripts/setup-python.sh) are installed on first use.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
N=5; T=120; MAZES=""; SEEDS=1
while getopts "n:m:t:S:" o; do
  case "$o" in
    n) N=$OPTARG;; m) MAZES=${OPTARG//,/ };; t) T=$OPTARG;; S) SEEDS=${OPTARG//,/ };;
    *) sed -n '2,15p' "$0"; exit 2;;
  esac
done
for x in $N $T $MAZES $SEEDS; do
  [[ "$x" =~ ^[0-9]+$ ]] || { echo "not a number: '$x'" >&2; exit 2; }
done
[ -n "$MAZES" ] || MAZES=$(seq 1 "$N")
cd "$ROOT"
PY=$(bash scripts/setup-python.sh)
SOLC="$ROOT/contracts/.tools/node_modules/solc"
[ -f "$SOLC/package.json" ] || bash contracts/build.sh >/dev/null
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
printf '%-5s %-5s %-9s %-22s %-22s\n' maze seed feasible "blind sites (calls)" "steered sites (calls)"
for m in $MAZES; do
  python3 scripts/maze.py "$m" --out "$WORK" >/dev/null
  node contracts/compile.js "$SOLC" "$WORK/Maze$m.sol" > "$WORK/Maze$m.json"
  for s in $SEEDS; do
    for arm in blind steered; do
      flag=""; [ "$arm" = blind ] && flag="--sham"
      nice -n 19 "$PY" examples/steer.py "$WORK/Maze$m.json" --seed "$s" --timeout "$T" --workers 1 \
        --out-dir "$WORK/out-$m-$s-$arm" $flag > "$WORK/$m-$s-$arm.json" 2> "$WORK/$m-$s-$arm.err" \
        || { echo "maze $m seed $s $arm: steer.py failed:" >&2; tail -5 "$WORK/$m-$s-$arm.err" >&2; exit 1; }
    done
    python3 - "$WORK" "$m" "$s" <<'PY'
import json, sys
work, m, s = sys.argv[1:]
feasible = {b["property"] for b in json.load(open(f"{work}/Maze{m}.manifest.json"))["bugs"] if b["feasible"]}
cells = []
for arm in ("blind", "steered"):
    r = json.load(open(f"{work}/{m}-{s}-{arm}.json"))
    at = r["steering"]["falsifiedAtCalls"]
    got = [t["name"] for t in r["tests"] if t["status"] == "falsified" and t["name"] in feasible]
    last = max((at.get(n, r["calls"]) for n in got), default=0)
    rate = r.get("callsPerSec") or 0
    secs = f", {last / rate:.0f} s" if rate else ""
    cells.append(f"{len(got)} ({last:,}{secs})")
print(f"{m:<5} {s:<5} {len(feasible):<9} {cells[0]:<22} {cells[1]:<22}")
PY
  done
done
