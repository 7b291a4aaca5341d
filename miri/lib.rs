//! Runs the unit tests of rudder's concurrent stores under Miri.
//!
//! The modules are rudder's own source files, included by path and compiled
//! on their own: Miri then interprets the EventLog, the append-only vector
//! and the priority set (and their multi-threaded tests) without building the
//! EVM, MCP and HTTP stacks the rest of the crate needs. Run it with
//! `scripts/miri.sh` (nightly toolchain with the `miri` component).

#[path = "../src/appendvec.rs"]
pub mod appendvec;
#[path = "../src/eventlog.rs"]
pub mod eventlog;
#[path = "../src/ids.rs"]
pub mod ids;
#[path = "../src/priority.rs"]
pub mod priority;
#[path = "../src/sync.rs"]
mod sync;
