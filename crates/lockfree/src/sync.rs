//! The atomics and the reader mutex the ring is written against: std's
//! normally, loom's under `--features loom` so that `tests/loom.rs` can explore
//! every interleaving of producers and readers on a ring of a few slots.

#[cfg(feature = "loom")]
pub(crate) use loom::sync::Mutex;
#[cfg(feature = "loom")]
pub(crate) use loom::sync::atomic::{AtomicBool, AtomicU64, Ordering, fence};

#[cfg(not(feature = "loom"))]
pub(crate) use std::sync::Mutex;
#[cfg(not(feature = "loom"))]
pub(crate) use std::sync::atomic::{AtomicBool, AtomicU64, Ordering, fence};
