//! The atomics the lock-free EventLog is written against: std's normally,
//! loom's under `--features loom` so that `tests/loom.rs` can explore every
//! interleaving of producers and readers on a ring of a few slots.

#[cfg(feature = "loom")]
pub(crate) use loom::sync::atomic::{AtomicU64, Ordering, fence};

#[cfg(not(feature = "loom"))]
pub(crate) use std::sync::atomic::{AtomicU64, Ordering, fence};
