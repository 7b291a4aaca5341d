#!/usr/bin/env bash
# Maze benchmark (#16): rudder and forge on the same generated mazes, the same
# wall time each, one core each, side by side; counts the distinct bug sites
# (echidna_bug_K properties) each falsified, beside the feasible ones (by
# construction, from the maze's manifest).
#
# usage: scripts/maze_bench.sh [-n MAZES] [-t SECONDS] [-s SEEDS] [-z SIZE] [-b BUGS]
#   -n MAZES    mazes 1..N (scripts/maze.py SEED); default 5
#   -t SECONDS  wall time per tool and maze and seed; default 1200 (20 minutes)
#   -s SEEDS    fuzzer seeds per maze; default 3
# forge gets the same wall time split evenly over the maze's properties (it
# runs one invariant campaign per property). Needs ../shared/peers/install.sh
# forge; rudder is built in release mode first.
# Prints one line per maze and seed, then the medians.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PEERS="$ROOT/../shared/peers"
N=5; T=1200; SEEDS=3; SIZE=5; BUGS=12
while getopts "n:t:s:z:b:" o; do
  case "$o" in
    n) N=$OPTARG;; t) T=$OPTARG;; s) SEEDS=$OPTARG;; z) SIZE=$OPTARG;; b) BUGS=$OPTARG;;
    *) sed -n '2,16p' "$0"; exit 2;;
  esac
done
cd "$ROOT"
cargo build --release --quiet
SOLC="$ROOT/contracts/.tools/node_modules/solc"
[ -f "$SOLC/package.json" ] || bash contracts/build.sh >/dev/null
WORK=$(mktemp -d -t maze_bench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
printf '%-6s %-4s %-9s %-14s %-14s %-12s %-12s\n' maze seed feasible rudder_sites forge_sites rudder_cps forge_cps
for m in $(seq 1 "$N"); do
  python3 scripts/maze.py "$m" --size "$SIZE" --bugs "$BUGS" --out "$WORK"
  node contracts/compile.js "$SOLC" "$WORK/Maze$m.sol" > "$WORK/Maze$m.json"
  feasible=$(python3 -c "import json;print(json.load(open('$WORK/Maze$m.manifest.json'))['feasible'])")
  per_prop=$(( T / BUGS )); [ "$per_prop" -ge 1 ] || per_prop=1
  for s in $(seq 1 "$SEEDS"); do
    out="$WORK/r$m-$s"
    target/release/rudder fuzz "$WORK/Maze$m.json" --workers 1 --seed "$s" --timeout "$T" \
      --test-limit 1000000000000 --no-journal --out-dir "$out" > "$out.log" 2>&1 || true
    r_sites=$(grep -c "FALSIFIED" "$out.log" || true)
    r_cps=$(grep -oE '\(([0-9]+) calls/s\)' "$out.log" | tail -1 | tr -dc 0-9)
    bash "$PEERS/run_forge.sh" -t "$per_prop" -s "$s" "$WORK/Maze$m.sol" "Maze$m" > "$out.forge" 2>&1 || true
    if grep -q "forge missing" "$out.forge"; then
      echo "forge is not installed: bash ../shared/peers/install.sh forge" >&2
      exit 2
    fi
    f_sites=$(grep -cE "^property .*: FALSIFIED" "$out.forge" || true)
    f_cps=$(grep -oE "calls_per_s=[0-9]+" "$out.forge" | tr -dc 0-9 || true)
    printf '%-6s %-4s %-9s %-14s %-14s %-12s %-12s\n' "$m" "$s" "$feasible" "$r_sites" "$f_sites" "$r_cps" "$f_cps"
  done
done | tee "$WORK/table"
python3 - "$WORK/table" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l[0].isdigit()]
if rows:
    share = [int(r[3]) / max(1, int(r[2])) for r in rows]
    print(f"median rudder sites/feasible: {statistics.median(share):.0%}; "
          f"median rudder {statistics.median(int(r[3]) for r in rows)}, "
          f"forge {statistics.median(int(r[4]) for r in rows)} sites")
PY
