//! rudder: a Solidity/EVM fuzzing campaign with an MCP control plane in the
//! same process.
//!
//! Where things live:
//!
//! * [`eventlog`]: the 2500-slot lock-free ring of recent events.
//! * [`corpus`]: call sequences that reached new coverage, append-only.
//! * [`priority`]: the weighted set of functions workers favour (90% / 10%).
//! * [`coverage`]: hit counts per program counter, source maps, LCOV.
//! * [`artifacts`]: compiled targets (solc standard-JSON, Foundry, `.sol`).
//! * [`tx`]: one call of a sequence and its printed and stored forms.
//! * [`ids`]: newtypes for worker, entry, sequence, test and injection ids.
//! * [`appendvec`]: the append-only vector under the corpus and tests stores.

pub mod appendvec;
pub mod artifacts;
pub mod campaign;
pub mod config;
pub mod corpus;
pub mod coverage;
pub mod eventlog;
pub mod executor;
pub mod ids;
pub mod mcp;
pub mod parser;
pub mod priority;
mod sync;
pub mod tx;

pub use corpus::Corpus;
pub use coverage::CoverageMap;
pub use eventlog::EventLog;
pub use priority::PrioritySet;
