//! rudder's lock-free stores, on their own and payload-agnostic:
//!
//! * [`ring`]: the lane ring behind the campaign's EventLog — many producers
//!   that never wait, readers that share consistent newest-first snapshots;
//!   generic over the [`ring::Entry`] it stores.
//! * [`appendvec`]: an append-only vector whose elements never move, read
//!   without locks (the corpus, the tests store, the note store).
//! * [`priority`]: the weighted set of functions workers favour, swapped in
//!   whole behind an `ArcSwap`.
//!
//! The crate is small so that loom (`cargo test --release -p rudder-lockfree
//! --features loom --test loom`) and Miri (`scripts/miri.sh`) build it alone.

pub mod appendvec;
pub mod priority;
pub mod ring;
mod sync;

pub use ring::{All, Entry, Ring, Select, Snapshot, WORDS};
