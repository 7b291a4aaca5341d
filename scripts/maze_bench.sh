#!/usr/bin/env bash
# Maze benchmark (#16): rudder and forge on the same generated mazes, the same
# wall time each, one core each, side by side; counts the distinct bug sites
# (echidna_bug_K properties) each falsified, beside the feasible ones (by
# construction, from the maze's manifest).
#
# usage: scripts/maze_bench.sh [-n MAZES] [-m LIST] [-t SECONDS] [-s SEEDS] [-S LIST] [-z SIZE]
#                              [-b BUGS] [-T TOOLS] [-A] [-p]
#   -n MAZES    mazes 1..N (scripts/maze.py SEED); default 5
#   -m LIST     these mazes instead, comma-separated (e.g. 2,4)
#   -t SECONDS  wall time per tool and maze and seed; default 1200 (20 minutes)
#   -s SEEDS    fuzzer seeds per maze (1..SEEDS); default 3
#   -S LIST     these seeds instead, comma-separated (e.g. 2,3: a long table in parts)
#   -T TOOLS    rudder, forge or rudder,forge (default): the other column prints -
#   -A          assertion form: assert(false) at bug cells (maze.py --assert), rudder in
#               assertion mode, each probe a test; rudder only (forge's invariant
#               campaigns pass over a handler's failed assertion unless every revert fails)
#   -p          run the two tools at the same time, one core each (half the wall
#               time; needs two idle cores)
# forge gets the same wall time split evenly over the maze's properties (it
# runs one invariant campaign per property). Needs ../shared/peers/install.sh
# forge; rudder is built in release mode first.
# Prints one line per maze and seed, then the medians.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PEERS="$ROOT/../shared/peers"
N=5; T=1200; SEEDS=3; SEEDLIST=""; SIZE=5; BUGS=12; MAZES=""; TOOLS=rudder,forge; PAR=""; ASSERT=""; MODE=property
while getopts "n:m:t:s:S:z:b:T:Ap" o; do
  case "$o" in
    n) N=$OPTARG;; m) MAZES=${OPTARG//,/ };; t) T=$OPTARG;; s) SEEDS=$OPTARG;; S) SEEDLIST=${OPTARG//,/ };;
    z) SIZE=$OPTARG;; b) BUGS=$OPTARG;; T) TOOLS=$OPTARG;; A) ASSERT=1; MODE=assertion;; p) PAR=1;;
    *) sed -n '2,26p' "$0"; exit 2;;
  esac
done
for t in ${TOOLS//,/ }; do
  case "$t" in rudder|forge) ;; *) echo "-T: unknown tool '$t' (rudder, forge)" >&2; exit 2;; esac
done
for m in $MAZES; do
  [[ "$m" =~ ^[0-9]+$ ]] || { echo "-m: '$m' is not a maze number" >&2; exit 2; }
done
for x in $SEEDLIST; do
  [[ "$x" =~ ^[0-9]+$ ]] || { echo "-S: '$x' is not a seed" >&2; exit 2; }
done
[ -n "$MAZES" ] || MAZES=$(seq 1 "$N")
[ -n "$SEEDLIST" ] || SEEDLIST=$(seq 1 "$SEEDS")
has() { [[ ",$TOOLS," == *",$1,"* ]]; }
if [ -n "$ASSERT" ] && has forge; then
  echo "-A: the assertion form is rudder only (-T rudder)" >&2
  exit 2
fi
if has forge && [ ! -x "$PEERS/.tools/node_modules/.bin/forge" ]; then
  echo "forge is not installed: bash ../shared/peers/install.sh forge" >&2
  exit 2
fi
cd "$ROOT"
# RUDDER_PREBUILT=1: target/release/rudder is current (scripts/test.sh runs
# this right after `cargo test --release`, which built it; a plain `cargo
# build` would rebuild the crate for the dev-dependencies' feature set).
[ -n "${RUDDER_PREBUILT:-}" ] || cargo build --release --quiet
SOLC="$ROOT/contracts/.tools/node_modules/solc"
[ -f "$SOLC/package.json" ] || bash contracts/build.sh >/dev/null
WORK=$(mktemp -d -t maze_bench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
printf '%-6s %-4s %-9s %-14s %-14s %-12s %-12s\n' maze seed feasible rudder_sites forge_sites rudder_cps forge_cps
for m in $MAZES; do
  python3 scripts/maze.py "$m" --size "$SIZE" --bugs "$BUGS" ${ASSERT:+--assert} --out "$WORK"
  node contracts/compile.js "$SOLC" "$WORK/Maze$m.sol" > "$WORK/Maze$m.json"
  feasible=$(python3 -c "import json;print(json.load(open('$WORK/Maze$m.manifest.json'))['feasible'])")
  per_prop=$(( T / BUGS )); [ "$per_prop" -ge 1 ] || per_prop=1
  for s in $SEEDLIST; do
    out="$WORK/r$m-$s"
    r_sites=-; r_cps=-; f_sites=-; f_cps=-
    pid=""
    if has rudder; then
      target/release/rudder fuzz "$WORK/Maze$m.json" --workers 1 --seed "$s" --timeout "$T" \
        --test-mode "$MODE" \
        --test-limit 1000000000000 --no-journal --out-dir "$out" > "$out.log" 2>&1 &
      pid=$!
      [ -n "$PAR" ] || { wait "$pid" || true; pid=""; }
    fi
    if has forge; then
      bash "$PEERS/run_forge.sh" -t "$per_prop" -s "$s" "$WORK/Maze$m.sol" "Maze$m" > "$out.forge" 2>&1 || true
      f_sites=$(grep -cE "^property .*: FALSIFIED" "$out.forge" || true)
      f_cps=$(grep -oE "calls_per_s=[0-9]+" "$out.forge" | tr -dc 0-9 || true)
    fi
    if has rudder; then
      [ -z "$pid" ] || wait "$pid" || true
      r_sites=$(grep -cE "^  (echidna_bug_[0-9]+|probe[0-9]+\(.*\)): FALSIFIED" "$out.log" || true)
      r_cps=$(grep -oE '\(([0-9]+) calls/s\)' "$out.log" | tail -1 | tr -dc 0-9)
    fi
    printf '%-6s %-4s %-9s %-14s %-14s %-12s %-12s\n' "$m" "$s" "$feasible" "$r_sites" "$f_sites" "$r_cps" "$f_cps"
  done
done | tee "$WORK/table"
python3 - "$WORK/table" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l[0].isdigit()]
for col, tool in ((3, "rudder"), (4, "forge")):
    got = [(int(r[col]), int(r[2])) for r in rows if r[col] != "-"]
    if got:
        share = statistics.median(n / max(1, f) for n, f in got)
        print(f"median {tool} sites/feasible: {share:.0%}; "
              f"median {tool} sites: {statistics.median(n for n, _ in got)}")
PY
