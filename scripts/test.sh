#!/usr/bin/env bash
# The whole test suite, as CI runs it (.ci/run calls this).
# Release build throughout: the campaign tests fuzz real contracts, and debug
# revm is ~25x slower. One build serves the unit, integration and e2e tests.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export CARGO_TERM_COLOR=never
# Each step says when it started (minutes:seconds into the run), so a slow
# step shows in CI's log; CI must stay under 40 minutes on a fresh clone.
step() { printf '== %s  [+%d:%02d]\n' "$1" $((SECONDS / 60)) $((SECONDS % 60)); }
step "tools the tests use"
# Debian packages the acceptance tests drive: lcov (genhtml reads our LCOV),
# chromium (opens the HTML report; photographs it and the dashboard), tmux
# (drives the dashboard). A test whose tool is missing says SKIPPED.
debian_tool() { # COMMAND PACKAGE WHAT
  command -v "$1" >/dev/null 2>&1 && return 0
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    (apt-get install -y -q --no-install-recommends "$2" >/dev/null 2>&1 ||
      { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q --no-install-recommends "$2" >/dev/null 2>&1; }) \
      || echo "$2 could not be installed: $3 will say SKIPPED"
  else
    echo "no apt-get as root: $3 will say SKIPPED"
  fi
}
debian_tool lcov lcov "the lcov/genhtml acceptance test"
debian_tool chromium chromium "the HTML report's browser check"
debian_tool tmux tmux "the dashboard's tmux test"
# forge (npm, with a solcjs wrapper) runs the Foundry reproducers rudder writes
# (tests/it/foundry.rs); the peers' own installer, from registries only.
if [ -d ../shared/peers ] && [ ! -x ../shared/peers/.tools/node_modules/.bin/forge ]; then
  bash ../shared/peers/install.sh forge >/dev/null
fi
step "bundled contract artifacts rebuild byte for byte (pinned solcjs from npm)"
bash contracts/build.sh >/dev/null
bash contracts/steer/build.sh >/dev/null
bash contracts/matrix/hardhat-project/build.sh >/dev/null
git diff --exit-code --stat -- contracts/out contracts/matrix contracts/steer || { echo "contract artifacts differ from a fresh build"; exit 1; }
step "no import circle between src/'s modules"
python3 scripts/imports.py
step "formatting and lints (cargo fmt --check, clippy -D warnings)"
cargo fmt --all --check
cargo clippy --release --workspace --all-targets -- -D warnings
step "API documentation builds without a warning (broken or private intra-doc links)"
# --release: the dependencies' metadata clippy --release just checked serves
# rustdoc too (a debug-profile doc checked every dependency once more).
RUSTDOCFLAGS="-D warnings" cargo doc --release --no-deps --workspace --quiet
step "unit, integration and end-to-end tests (release; the workspace: rudder, crates/calls, crates/lockfree)"
cargo test --release --workspace --no-fail-fast
step "README commands (every block marked runnable, against target/release/rudder)"
bash scripts/readme_commands.sh
step "steering benchmark, short (steer.py vs its sham on DeepChain, 3 seeds; the full table: BENCHMARKS.md)"
steer=$(bash scripts/steer_bench.sh --short)
echo "$steer"
echo "$steer" | grep -q '^| DeepChain |' || { echo "steering benchmark printed no DeepChain row"; exit 1; }
echo "$steer" | grep -q '^Geometric mean of per-case ratios' || { echo "steering benchmark printed no summary"; exit 1; }
step "steering on a maze, short (steer.py vs its sham on maze 5 for 5 s each; the full table: BENCHMARKS.md)"
steer=$(bash scripts/steer_maze.sh -m 5 -t 5)
echo "$steer"
echo "$steer" | grep -qE "^5 +1 +11 +[0-9]+ \([0-9,]+.*\) +[1-9][0-9]* \(" || { echo "steering on a maze: no row, or no site steered"; exit 1; }
step "maze benchmark, short (rudder on maze 1 for 5 s; the full table: BENCHMARKS.md)"
maze=$(RUDDER_PREBUILT=1 bash scripts/maze_bench.sh -m 1 -t 5 -S 1 -T rudder)
echo "$maze"
echo "$maze" | grep -qE "^1 +1 +11 +[0-9]+ " || { echo "maze benchmark printed no rudder count"; exit 1; }
maze=$(RUDDER_PREBUILT=1 bash scripts/maze_bench.sh -A -m 1 -t 5 -S 1 -T rudder)
echo "$maze"
echo "$maze" | grep -qE "^1 +1 +11 +[1-9][0-9]* " || { echo "assertion-form maze: no probe falsified"; exit 1; }
step "shared campaign benchmark, short (sync on vs off, moto's S3 and a folder, 3 s each; the full tables: BENCHMARKS.md)"
py=$(bash scripts/setup-python.sh)
shared=$("$py" scripts/shared_bench.py --short)
echo "$shared"
echo "$shared" | grep -qE '^\| s3 \| [0-9,]+ ' || { echo "shared benchmark printed no S3 row"; exit 1; }
step "check-skipping benchmark, short (every check run vs unchanged checks skipped, 0.5 s each; the full table: BENCHMARKS.md)"
checks=$(RUDDER_BENCH_QUICK=1 cargo test --release --bench checks 2>/dev/null)
echo "$checks"
for t in Token Maze1; do
  echo "$checks" | grep -qE "^\| $t \| 40 \| [1-9][0-9]* \| [1-9][0-9]* \|" || { echo "check-skipping benchmark: no $t row with 40 checks and calls in both columns"; exit 1; }
done
step "cost guard (instructions per call in the worker loop under callgrind vs benches/cost_baseline.json; fails over +3%)"
python3 scripts/cost_guard.py
# The benches are type-checked by the clippy gate above (--all-targets);
# `cargo bench` builds and runs them on demand (BENCHMARKS.md).
step "loom model of the event ring (crates/lockfree alone, loom's atomics)"
cargo test --release -p rudder-lockfree --features loom --test loom
step "Miri: the concurrent stores' unit tests (nightly miri component, SKIPPED if unavailable)"
bash scripts/miri.sh
step "cargo-fuzz harnesses: build with coverage feedback and run each for a bounded time"
FUZZ_SECONDS="${FUZZ_SECONDS:-30}" bash scripts/fuzz.sh
step "all green"
