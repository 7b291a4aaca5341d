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
#
# DAEDALUZZ=DIR: Consensys' public Daedaluzz mazes from a checkout at DIR (its
# generated-mazes/maze-K.sol and maze-K.foundry.sol, K = 0..4; -m picks some;
# nothing is written into DIR), each tool run as the benchmark's own scripts run
# it: rudder in exploration mode on maze-K.sol, sequences of 100 calls, a site
# counted when LCOV shows its `emit AssertionFailed("K")` line executed (how
# Daedaluzz counts Echidna); forge 1.7.1 on maze-K.foundry.sol (48 invariant_K
# tests, runs 500, depth 100, dictionary weight 80, looped with fresh seeds until
# the time is up; `fail("K")` becomes `revert("K")`, forge-std 1.9 having no
# fail(string)), a site counted when invariant_K fails. Feasible sites (walked
# to around the walls, path condition solvable in uint64 arithmetic) are decided
# by z3 (scripts/daedaluzz.py; z3-solver goes into .venv), with a witness each.
# Time to coverage: each row gives the seconds to each tool's last feasible site
# (rudder: its emit line's first-reach time from `--timeline`; forge: the moment
# its output said invariant_K failed, each line stamped as forge printed it),
# and after the table the sites each tool had reached at 10 s, 30 s, 1, 2, 5,
# 10 and 20 minutes, per maze and seed (KEEP=1 keeps every site's time in
# dK-SEED.times and .ftimes).
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
if [ -n "${DAEDALUZZ:-}" ]; then [ -n "$MAZES" ] || MAZES="0 1 2 3 4"; fi
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
if [ -n "${DAEDALUZZ:-}" ]; then
  [ -f "$DAEDALUZZ/generated-mazes/maze-0.sol" ] || {
    echo "DAEDALUZZ: $DAEDALUZZ has no generated-mazes/maze-0.sol (a Daedaluzz checkout?)" >&2; exit 2; }
  [ -z "$ASSERT" ] || { echo "-A: not with DAEDALUZZ (its mazes are counted in exploration mode)" >&2; exit 2; }
fi
# RUDDER_PREBUILT=1: target/release/rudder is current (scripts/test.sh runs
# this right after `cargo test --release`, which built it; a plain `cargo
# build` would rebuild the crate for the dev-dependencies' feature set).
# RUDDER=PATH: that binary instead (a long run that must not see a rebuild).
if [ -n "${RUDDER:-}" ]; then RUDDER=$(realpath "$RUDDER"); else
  RUDDER=target/release/rudder
  [ -n "${RUDDER_PREBUILT:-}" ] || cargo build --release --quiet
fi
SOLC="$ROOT/contracts/.tools/node_modules/solc"
[ -f "$SOLC/package.json" ] || bash contracts/build.sh >/dev/null
WORK=$(mktemp -d -t maze_bench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
[ -z "${KEEP:-}" ] || { trap - EXIT; echo "kept: $WORK" >&2; }

# Prefixes each line of stdin with `@SECS ` (seconds since $1, a `date +%s.%N`).
stamp() {
  python3 -u -c '
import sys, time
t0 = float(sys.argv[1])
for line in sys.stdin:
    sys.stdout.write(f"@{time.time() - t0:.1f} {line}")
' "$1"
}

# One Daedaluzz maze with forge, the way the benchmark's run-foundry.sh does it.
forge_daedaluzz() { # maze seed seconds out
  local m=$1 seed=$2 secs=$3 out=$4 proj="$WORK/forge-$1-$2"
  mkdir -p "$proj/src" "$proj/test" "$proj/lib"
  # forge-std 1.9 has no fail(string): the same failure as a revert with the site's id.
  sed -E 's/\bfail\(("[0-9]+")\);/revert(\1);/' \
    "$DAEDALUZZ/generated-mazes/maze-$m.foundry.sol" > "$proj/test/maze-$m.t.sol"
  ln -s "$ROOT/contracts/matrix/forge-std-project/lib/forge-std" "$proj/lib/forge-std"
  (
    HERE="$PEERS"; . "$PEERS/lib/env.sh"; cd "$proj"
    base="[profile.default]
src = \"src\"
test = \"test\"
out = \"out\"
libs = [\"lib\"]
solc = \"$PEERS/lib/solc\"
offline = true
auto_detect_solc = false
optimizer = false"
    printf '%s\n' "$base" > foundry.toml
    forge build --quiet > "$out.build" 2>&1 || { cat "$out.build" >&2; exit 3; }
    RANDOM=$seed; end=$(( $(date +%s) + secs )); t0=$(date +%s.%N)
    while [ "$(date +%s)" -lt "$end" ]; do
      s=$RANDOM
      printf '%s\n\n[invariant]\nruns = 500\ndepth = 100\nfail_on_revert = false\ndictionary_weight = 80\ninclude_storage = true\ninclude_push_bytes = true\n' \
        "$base" > foundry.toml
      # Each line stamped `@SECS ` (since the first run started) as forge prints it: when
      # each invariant first failed (scripts/daedaluzz.py forge-times).
      { timeout $(( end - $(date +%s) + 1 )) forge test -j 1 --offline --match-path "test/maze-$m.t.sol" \
        --fuzz-seed "$(printf '0x%x' "$s")" 2>&1 || true; } | stamp "$t0" >> "$out"
    done
  )
}

if [ -n "${DAEDALUZZ:-}" ]; then
  if ! .venv/bin/python -c "import z3" 2>/dev/null; then
    bash scripts/setup-python.sh >/dev/null
    .venv/bin/pip install --quiet --disable-pip-version-check "z3-solver==4.15.4.0" >&2
  fi
  has forge && bash contracts/matrix/forge-std-project/fetch-forge-std.sh
  printf '%-6s %-4s %-9s %-14s %-14s %-12s %-14s %-14s %s\n' maze seed feasible rudder_sites forge_sites \
    rudder_cps rudder_last_s forge_last_s missed_by_rudder
  for m in $MAZES; do
    src="$DAEDALUZZ/generated-mazes/maze-$m.sol"
    [ -f "$src" ] || { echo "DAEDALUZZ: no $src" >&2; exit 2; }
    cp "$src" "$WORK/maze-$m.sol"
    node contracts/compile.js "$SOLC" "$WORK/maze-$m.sol" > "$WORK/maze-$m.json"
    .venv/bin/python scripts/daedaluzz.py feasible "$WORK/maze-$m.sol" > "$WORK/feasible-$m.json"
    for s in $SEEDLIST; do
      out="$WORK/d$m-$s"; r_sites=-; f_sites=-; r_cps=-; missed=-; pid=""
      if has rudder; then
        "$RUDDER" fuzz "$WORK/maze-$m.json" --contract Maze --workers 1 --seed "$s" \
          --timeout "$T" --test-mode exploration --seq-len 100 --test-limit 1000000000000 \
          --no-journal --out-dir "$out" --lcov "$out.lcov" --timeline "$out.timeline" > "$out.log" 2>&1 &
        pid=$!
        [ -n "$PAR" ] || { wait "$pid" || true; pid=""; }
      fi
      has forge && forge_daedaluzz "$m" "$s" "$T" "$out.forge"
      if has rudder; then
        [ -z "$pid" ] || wait "$pid" || true
        .venv/bin/python scripts/daedaluzz.py lcov-sites "$out.lcov" "$WORK/maze-$m.sol" > "$out.sites"
        .venv/bin/python scripts/daedaluzz.py timeline-sites "$out.timeline" "$WORK/maze-$m.sol" > "$out.times"
        r_cps=$(grep -oE '\(([0-9]+) calls/s\)' "$out.log" | tail -1 | tr -dc 0-9)
      fi
      if [ -f "$out.forge" ]; then
        .venv/bin/python scripts/daedaluzz.py forge-sites "$out.forge" > "$out.fsites"
        .venv/bin/python scripts/daedaluzz.py forge-times "$out.forge" > "$out.ftimes"
      fi
      read -r feasible r_sites f_sites r_last f_last missed < <(python3 - "$WORK/feasible-$m.json" "$out" <<'PY'
import json, os, sys
feas = set(json.load(open(sys.argv[1]))["feasible"])
out = sys.argv[2]
def load(ext):
    return json.load(open(out + ext)) if os.path.exists(out + ext) else None
def got(ext):
    x = load(ext)
    return None if x is None else set(x) & feas
def last(ext):
    t = load(ext)
    if t is None:
        return "-"
    t = [v for k, v in t.items() if int(k) in feas]
    return f"{max(t):.0f}" if t else "-"
r, f = got(".sites"), got(".fsites")
n = lambda x: "-" if x is None else str(len(x))
miss = "-" if r is None else (",".join(map(str, sorted(feas - r))) or "none")
print(len(feas), n(r), n(f), last(".times"), last(".ftimes"), miss)
PY
)
      printf '%-6s %-4s %-9s %-14s %-14s %-12s %-14s %-14s %s\n' "$m" "$s" "$feasible" "$r_sites" "$f_sites" \
        "${r_cps:--}" "$r_last" "$f_last" "$missed"
    done
  done | tee "$WORK/table"
  # The time-to-coverage curve: feasible sites each tool had reached by each moment.
  python3 - "$WORK" "$T" <<'PY'
import glob, json, os, sys
work, T = sys.argv[1], int(sys.argv[2])
marks = [t for t in (10, 30, 60, 120, 300, 600, 1200, 3600) if t < T] + [T]
print("\nsites reached by (seconds):", " ".join(f"{t:>6}" for t in marks))
for feas_path in sorted(glob.glob(os.path.join(work, "feasible-*.json"))):
    m = feas_path.rsplit("-", 1)[1].split(".")[0]
    feas = set(json.load(open(feas_path))["feasible"])
    for times in sorted(glob.glob(os.path.join(work, f"d{m}-*.times")) + glob.glob(os.path.join(work, f"d{m}-*.ftimes"))):
        seed = times.rsplit("-", 1)[1].split(".")[0]
        tool = "forge" if times.endswith(".ftimes") else "rudder"
        t = [v for k, v in json.load(open(times)).items() if int(k) in feas]
        row = " ".join(f"{sum(1 for v in t if v <= mark):>6}" for mark in marks)
        print(f"maze {m} seed {seed:<3} {tool:<7} {len(feas):>3} feasible: {row}")
PY
  python3 - "$WORK/table" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1]) if l[0].isdigit()]
for col, tool in ((3, "rudder"), (4, "forge")):
    got = [int(r[col]) for r in rows if r[col] != "-"]
    if got:
        print(f"{tool}: {sum(got)} sites of {sum(int(r[2]) for r in rows if r[col] != '-')} feasible")
PY
  exit 0
fi
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
      "$RUDDER" fuzz "$WORK/Maze$m.json" --workers 1 --seed "$s" --timeout "$T" \
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
