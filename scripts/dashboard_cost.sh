#!/usr/bin/env bash
# What the dashboard costs (#35): the same run with the dashboard on (`--ui`,
# drawn in a tmux pane of 150x46) and with `--format json`, alternating,
# ROUNDS pairs. For each run: calls/s (wall clock), calls per CPU-second of
# the whole rudder process (user + system time of every thread, the
# dashboard's included, read by getrusage when it exits: a unit that steal
# time and other programs on the machine do not move), and the dashboard
# thread's own CPU. Prints each pair and the medians with their ratios.
#
# With -p the two runs of a round run at the same time, one worker each,
# each pinned to its own core (swapped every round): whatever else the
# machine does then slows both alike, and the dashboard's thread competes
# with its own run's worker for that run's core, so the pair's ratio is the
# dashboard's cost on a busy machine (the sequential pairs' noise on a shared
# VM is larger than the effect).
#
# usage: scripts/dashboard_cost.sh [-c CONTRACT_JSON] [-l CALLS] [-w WORKERS] [-r ROUNDS] [-p]
#   default: contracts/out/Token.json (its tests stay open: the run lasts), 1500000 calls,
#   2 workers (1 with -p), 5 rounds
# Needs tmux, jq and python3; builds rudder in release mode first (RUDDER_PREBUILT=1 skips it).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CONTRACT=contracts/out/Token.json; CALLS=1500000; WORKERS=2; ROUNDS=5; PARALLEL=""
PIN_UI=""; PIN_JSON=""
while getopts "c:l:w:r:p" o; do
  case "$o" in
    c) CONTRACT=$OPTARG;; l) CALLS=$OPTARG;; w) WORKERS=$OPTARG;; r) ROUNDS=$OPTARG;;
    p) PARALLEL=1; WORKERS=1;;
    *) sed -n 2,9p "$0"; exit 2;;
  esac
done
cd "$ROOT"
[ -n "${RUDDER_PREBUILT:-}" ] || cargo build --release --quiet --bin rudder
BIN="$ROOT/target/release/rudder"
WORK="$(mktemp -d)"; SOCK="rudder-cost-$$"
trap 'tmux -L "$SOCK" kill-server 2>/dev/null || true; rm -rf "$WORK"' EXIT
common=(fuzz "$CONTRACT" --workers "$WORKERS" --seed 1 --test-limit "$CALLS" --no-journal)
# cpu_run.py OUT CMD...: runs CMD, then writes the CPU seconds (user +
# system) it used to OUT.
cat > "$WORK/cpu_run.py" <<'PY'
import resource, subprocess, sys
code = subprocess.run(sys.argv[2:]).returncode
r = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1], "w").write("%.3f" % (r.ru_utime + r.ru_stime))
sys.exit(code)
PY
CPU_RUN=(python3 "$WORK/cpu_run.py")

with_ui() { # one run under tmux with the dashboard; prints its calls/s
  # stdin from /dev/null: the dashboard leaves at the end instead of
  # waiting for q; the text report then lands in the pane.
  tmux -L "$SOCK" new-session -d -s cost -x 150 -y 46 \
    "RUST_LOG=off $PIN_UI ${CPU_RUN[*]} $WORK/cpu-ui-$1 $BIN ${common[*]} --out-dir $WORK/ui-$1 --ui < /dev/null; echo done > $WORK/done-$1; sleep 60"
  # The dashboard runs on rudder's main thread (tid = pid): its CPU time,
  # sampled until the process leaves, is what the dashboard costs.
  local pid="" ticks=0 t
  while [ ! -f "$WORK/done-$1" ]; do
    [ -n "$pid" ] || pid=$(pgrep -f -- "^$BIN fuzz .*--out-dir $WORK/ui-$1 " | head -1 || true)
    if [ -n "$pid" ] && t=$(awk '{print $14 + $15}' "/proc/$pid/task/$pid/stat" 2>/dev/null); then ticks=$t; fi
    sleep 0.2
  done
  echo "$ticks" > "$WORK/ticks-$1"
  local pane; pane=$(tmux -L "$SOCK" capture-pane -p -S -200 -t cost)
  tmux -L "$SOCK" kill-server 2>/dev/null || true
  # "Token (property mode): 1500000 calls in 11.2s (133,000 calls/s) ..."
  local calls rate
  calls=$(grep -oE '[0-9]+ calls in' <<<"$pane" | head -1 | grep -oE '^[0-9]+')
  rate=$(grep -oE '\(([0-9]+) calls/s\)' <<<"$pane" | head -1 | grep -oE '[0-9]+')
  echo "$rate $(awk -v c="$calls" -v s="$(cat "$WORK/cpu-ui-$1")" 'BEGIN {printf "%.0f", c / s}')"
}

without_ui() {
  local json
  # shellcheck disable=SC2086 # PIN_JSON is empty or setsid + taskset (its own
  # session, as the dashboard run has in tmux)
  json=$($PIN_JSON "${CPU_RUN[@]}" "$WORK/cpu-json-$1" "$BIN" "${common[@]}" --out-dir "$WORK/json-$1" --format json 2>/dev/null || true)
  echo "$(jq -r '.callsPerSec | floor' <<<"$json") $(jq -r '.calls' <<<"$json" | awk -v s="$(cat "$WORK/cpu-json-$1")" '{printf "%.0f", $1 / s}')"
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

echo "round  calls/s: dashboard  json  calls per CPU-s: dashboard  json  dashboard_thread_cpu_s"
: > "$WORK/ui.txt"; : > "$WORK/json.txt"
for r in $(seq "$ROUNDS"); do
  if [ -n "$PARALLEL" ]; then
    a=$(( r % 2 )); PIN_UI="taskset -c $a"; PIN_JSON="setsid -w taskset -c $(( 1 - a ))"
    with_ui "$r" > "$WORK/u-$r" & without_ui "$r" > "$WORK/j-$r"; wait
    u=$(cat "$WORK/u-$r"); j=$(cat "$WORK/j-$r")
  else
    u=$(with_ui "$r"); j=$(without_ui "$r")
  fi
  echo "$u" >> "$WORK/ui.txt"; echo "$j" >> "$WORK/json.txt"
  read -r uw uc <<<"$u"; read -r jw jc <<<"$j"
  printf "%5s  %18s  %6s  %26s  %6s  %s\n" "$r" "$uw" "$jw" "$uc" "$jc" \
    "$(awk -v t="$(cat "$WORK/ticks-$r")" -v hz="$(getconf CLK_TCK)" 'BEGIN {printf "%.2f", t / hz}')"
done
ratio() { awk -v u="$1" -v j="$2" 'BEGIN {printf "%.3f", u/j}'; }
mu=$(cut -d' ' -f1 "$WORK/ui.txt" | median); mj=$(cut -d' ' -f1 "$WORK/json.txt" | median)
cu=$(cut -d' ' -f2 "$WORK/ui.txt" | median); cj=$(cut -d' ' -f2 "$WORK/json.txt" | median)
echo "median calls/s: dashboard $mu, json $mj: ratio $(ratio "$mu" "$mj")"
echo "median calls per CPU-second: dashboard $cu, json $cj: ratio $(ratio "$cu" "$cj")"
