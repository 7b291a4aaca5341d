//! rudder: a Solidity/EVM fuzzing campaign with an MCP control plane in the
//! same process.
//!
//! Start a campaign, read its stores, steer it:
//!
//! ```no_run
//! use rudder::{Campaign, Config};
//! let mut campaign = Campaign::new("contracts/out/Token.json".as_ref(), None, Config::default(), None)?;
//! campaign.start()?;
//! let control = campaign.control();           // inject, prioritize, stop
//! control.prioritize("transfer(address,uint256)", 1).ok();
//! let read = campaign.read();                 // events, corpus, tests, coverage
//! println!("{} corpus calls", read.corpus().tx_count());
//! let report = campaign.wait();
//! # Ok::<(), rudder::campaign::CampaignError>(())
//! ```
//!
//! Where things live:
//!
//! * [`campaign`]: the campaign's lifecycle, its [`Engine`] (private state,
//!   read through [`campaign::CampaignRead`]) and [`Control`],
//!   workers, shrinking, the replay oracle, persistence and reports.
//! * [`eventlog`]: the event vocabulary (declared once) and the 2500-event
//!   lock-free log of recent events, on `rudder-lockfree`'s ring.
//! * [`corpus`]: call sequences that reached new coverage, append-only.
//! * [`priority`]: the weighted set of functions workers favour (90% / 10%).
//! * [`coverage`]: hit counts per program counter, source maps, LCOV.
//! * [`executor`]: revm deployment and calls, the coverage inspector,
//!   cheatcodes.
//! * [`artifacts`]: compiled targets (solc standard-JSON, Foundry, `.sol`).
//! * [`graph`]: the target's code graph from the AST, joined with coverage
//!   (uncovered branches and what they depend on), and the agent's ETG.
//! * [`parser`]: Solidity-style calls (`transfer(0x…, 100)`): parse, resolve
//!   against the ABI, print back.
//! * [`tx`]: one call of a sequence and its printed and stored forms.
//! * [`config`]: Echidna-compatible YAML and defaults.
//! * [`mcp`]: the control plane: tool families over rmcp (stdio, HTTP).
//! * [`journal`]: every event of every run in SQLite (one thread writes),
//!   and the parameterized queries the events family answers from.
//! * [`shared`]: campaigns past one machine: the shared store (S3, a folder)
//!   nodes exchange corpus, findings, coverage and steering through.
//! * [`net`]: the TLS provider every HTTP client (S3, fork mode's RPC) uses.
//! * [`ids`]: newtypes for worker, entry, sequence, test and injection ids.
//! * [`appendvec`]: the append-only vector under the corpus and tests stores
//!   (from `rudder-lockfree`, with the ring and [`priority`]).

pub use rudder_calls::{parser, reference, tx};
pub use rudder_lockfree::{appendvec, priority};

pub mod artifacts;
pub mod campaign;
pub mod command;
pub mod config;
pub mod corpus;
pub mod coverage;
pub mod eventlog;
pub mod executor;
pub mod families;
pub mod graph;
pub mod ids;
pub mod interop;
pub mod journal;
pub mod mcp;
pub mod net;
pub mod ops;
pub mod shared;
pub mod view;

pub use campaign::properties::TestStore;
pub use campaign::{Campaign, Control, Engine, Layout, Oracle, Renderer, Report};
pub use config::Config;
pub use corpus::Corpus;
pub use coverage::CoverageMap;
pub use eventlog::EventLog;
pub use mcp::{FamilyName, RudderServer};
pub use priority::PrioritySet;

/// The README's Rust blocks, compiled as doc tests: its library example
/// cannot drift from the API.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeExamples;
