#!/usr/bin/env bash
# Soak (#64): an hour-long campaign on a maze and on the forge-std project at the
# same time, one worker each, sampled every minute for resident memory, corpus
# and journal size on disk, calls/s and the MCP control plane's slowest answer
# (tests/e2e/soak.py prints the tables and the verdicts).
#
# usage: scripts/soak.sh [-t SECONDS] [-i INTERVAL] [-e]
#   -t SECONDS   how long each campaign runs; default 3600
#   -i INTERVAL  seconds between samples; default 60
#   -e           fail when a verdict fails (RSS over the second half more than
#                10% above its value at half time, an answer over 100 ms)
# DAEDALUZZ=DIR: Daedaluzz's maze-0.sol from a checkout at DIR as the maze
# (else scripts/maze.py 1). RUDDER=PATH: that binary (else a release build).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
T=3600; I=60; ENFORCE=""
while getopts "t:i:e" o; do
  case "$o" in
    t) T=$OPTARG;; i) I=$OPTARG;; e) ENFORCE=--enforce;;
    *) sed -n '2,14p' "$0"; exit 2;;
  esac
done
[[ "$T" =~ ^[0-9]+$ && "$T" -gt 0 ]] || { echo "-t: '$T' is not a positive number of seconds" >&2; exit 2; }
[[ "$I" =~ ^[0-9]+$ && "$I" -gt 0 ]] || { echo "-i: '$I' is not a positive number of seconds" >&2; exit 2; }
cd "$ROOT"
if [ -n "${RUDDER:-}" ]; then RUDDER=$(realpath "$RUDDER"); else
  cargo build --release --quiet
  RUDDER=target/release/rudder
fi
bash scripts/setup-python.sh >/dev/null
SOLC="$ROOT/contracts/.tools/node_modules/solc"
[ -f "$SOLC/package.json" ] || bash contracts/build.sh >/dev/null
WORK=$(mktemp -d -t soak.XXXXXX)
[ -n "${KEEP:-}" ] && echo "kept: $WORK" >&2 || trap 'rm -rf "$WORK"' EXIT
if [ -n "${DAEDALUZZ:-}" ]; then
  cp "$DAEDALUZZ/generated-mazes/maze-0.sol" "$WORK/maze.sol"
  node contracts/compile.js "$SOLC" "$WORK/maze.sol" > "$WORK/maze.json"
  MAZE="maze=$WORK/maze.json:Maze"
else
  python3 scripts/maze.py 1 --out "$WORK" >/dev/null
  node contracts/compile.js "$SOLC" "$WORK/Maze1.sol" > "$WORK/maze.json"
  MAZE="maze=$WORK/maze.json"
fi
echo "soak: $T s, a sample every $I s, $(nproc) cores, $(date -u +%FT%TZ), $("$RUDDER" --version)" >&2
exec .venv/bin/python tests/e2e/soak.py "$RUDDER" "$WORK/runs" "$T" "$I" "$MAZE" \
  "forge-std=$ROOT/contracts/matrix/forge-std-project:VaultInvariants" $ENFORCE
