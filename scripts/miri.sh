#!/usr/bin/env bash
# Runs the lock-free stores' unit tests (crates/lockfree: the event ring, the
# append-only vector, the priority set) under Miri: undefined behaviour, data
# races and weak-memory effects. The crate builds alone, without the EVM and
# the server, so Miri interprets just these.
#
# Needs a nightly toolchain with the miri and rust-src components. rustup
# fetches them if it can; if it cannot, this prints SKIPPED and exits 0, so
# that the rest of the suite still runs on a machine without them.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  echo "SKIPPED: Miri needs a nightly toolchain and rustup has none here"
  exit 0
fi
if ! cargo +nightly miri --version >/dev/null 2>&1; then
  timeout 300 rustup component add --toolchain nightly miri rust-src >/dev/null 2>&1 || true
fi
if ! cargo +nightly miri --version >/dev/null 2>&1; then
  echo "SKIPPED: the nightly miri component could not be installed here"
  exit 0
fi
# Isolation off: the EventLog stamps events with the wall clock.
# Many seeds: Miri picks a different thread interleaving and weak-memory
# outcome per seed.
MIRIFLAGS="-Zmiri-disable-isolation -Zmiri-many-seeds=0..2" cargo +nightly miri test --locked -p rudder-lockfree
