#!/usr/bin/env bash
# What the dashboard costs (#35): calls/s of the same run with the dashboard
# on (`--ui`, drawn in a tmux pane of 150x46) and with `--format json` (no
# dashboard), alternating, ROUNDS pairs; prints each pair and the medians.
#
# usage: scripts/dashboard_cost.sh [-c CONTRACT_JSON] [-l CALLS] [-w WORKERS] [-r ROUNDS]
#   default: contracts/out/Token.json (its tests stay open: the run lasts), 1500000 calls,
#   2 workers, 5 rounds
# Needs tmux and jq; builds rudder in release mode first (RUDDER_PREBUILT=1 skips it).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CONTRACT=contracts/out/Token.json; CALLS=1500000; WORKERS=2; ROUNDS=5
while getopts "c:l:w:r:" o; do
  case "$o" in
    c) CONTRACT=$OPTARG;; l) CALLS=$OPTARG;; w) WORKERS=$OPTARG;; r) ROUNDS=$OPTARG;;
    *) sed -n 2,9p "$0"; exit 2;;
  esac
done
cd "$ROOT"
[ -n "${RUDDER_PREBUILT:-}" ] || cargo build --release --quiet --bin rudder
BIN="$ROOT/target/release/rudder"
WORK="$(mktemp -d)"; SOCK="rudder-cost-$$"
trap 'tmux -L "$SOCK" kill-server 2>/dev/null || true; rm -rf "$WORK"' EXIT
common=(fuzz "$CONTRACT" --workers "$WORKERS" --seed 1 --test-limit "$CALLS" --no-journal)

with_ui() { # one run under tmux with the dashboard; prints its calls/s
  # stdin from /dev/null: the dashboard leaves at the end instead of
  # waiting for q; the text report then lands in the pane.
  tmux -L "$SOCK" new-session -d -s cost -x 150 -y 46 \
    "RUST_LOG=off $BIN ${common[*]} --out-dir $WORK/ui-$1 --ui < /dev/null; echo done > $WORK/done-$1; sleep 60"
  # The dashboard runs on rudder's main thread (tid = pid): its CPU time,
  # sampled until the process leaves, is what the dashboard costs.
  local pid="" ticks=0 t
  while [ ! -f "$WORK/done-$1" ]; do
    [ -n "$pid" ] || pid=$(pgrep -f -- "^$BIN fuzz .*--out-dir $WORK/ui-$1 " | head -1 || true)
    if [ -n "$pid" ] && t=$(awk '{print $14 + $15}' "/proc/$pid/task/$pid/stat" 2>/dev/null); then ticks=$t; fi
    sleep 0.2
  done
  echo "$ticks" > "$WORK/ticks-$1"
  tmux -L "$SOCK" capture-pane -p -S -200 -t cost | grep -oE '\(([0-9]+) calls/s\)' | head -1 | grep -oE '[0-9]+'
  tmux -L "$SOCK" kill-server 2>/dev/null || true
}

without_ui() {
  "$BIN" "${common[@]}" --out-dir "$WORK/json-$1" --format json 2>/dev/null | jq -r '.callsPerSec | floor' || true
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

echo "round  dashboard_calls_per_s  json_calls_per_s  dashboard_thread_cpu_s"
: > "$WORK/ui.txt"; : > "$WORK/json.txt"
for r in $(seq "$ROUNDS"); do
  u=$(with_ui "$r"); j=$(without_ui "$r")
  echo "$u" >> "$WORK/ui.txt"; echo "$j" >> "$WORK/json.txt"
  printf "%5s  %21s  %16s  %s\n" "$r" "$u" "$j" "$(awk -v t="$(cat "$WORK/ticks-$r")" -v hz="$(getconf CLK_TCK)" 'BEGIN {printf "%.2f", t / hz}')"
done
mu=$(median < "$WORK/ui.txt"); mj=$(median < "$WORK/json.txt")
echo "median dashboard $mu calls/s, json $mj calls/s: ratio $(awk -v u="$mu" -v j="$mj" 'BEGIN {printf "%.3f", u/j}')"
