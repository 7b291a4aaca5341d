//! Campaigns past one machine: the shared store nodes meet in.
//!
//! A campaign run on several machines (or several processes) shares its
//! corpus, findings, coverage and steering through object storage — any S3
//! API (AWS S3, GCS interop, R2, Ceph, Garage, SeaweedFS, MinIO) or a shared
//! folder — with no broker and no lock. Every item only grows or merges:
//!
//! ```text
//! campaign.json                       what the campaign is (code and state-relevant config);
//!                                     a node with another one refuses to join
//! corpus/{sha256}.json                a corpus entry, named by the SHA-256 of its calls
//!                                     (immutable; two nodes finding it write the same name)
//! findings/{test}/{sha256}.json       a falsified test's reproducer, named by its sequence;
//!                                     the campaign's answer is the shortest (ties: the hash)
//! optima/{test}/{sha256}.json         an optimization test's value and the sequence reaching
//!                                     it; merged by max (replayed before it is taken)
//! nodes/{node}/batches/{seq}.json     a node's append-only log: the entries, findings,
//!                                     optima, injections and specs it added (immutable,
//!                                     numbered)
//! nodes/{node}/heartbeat.json         the node's counters and cursors (overwritten)
//! nodes/{node}/coverage.json          the node's coverage bitmap (overwritten; merged by OR)
//! generations/{gen}.json              a compacted generation: every node's batches up to a
//!                                     point, merged per node (immutable, numbered)
//! ```
//!
//! A node reads another's log with a cursor (list after the last batch it
//! applied), so a sync costs requests in proportion to what is new and to
//! the number of nodes, never to the corpus size. Delivery is at least once:
//! applying an item twice is harmless (content-named, merged by OR, by min
//! length or by max value).
//!
//! Pruning: once the nodes have written [`DEFAULT_COMPACT_AFTER`] batches
//! since the last generation, the live node with the smallest name writes
//! the next one (the last, plus every batch since). The batches a generation
//! holds are deleted only after every live node's heartbeat shows its
//! cursors past them; a node that was away, or joins late, reads the newest
//! generation first and the batches after it. Corpus entries, findings and
//! optima are never deleted: they are the campaign.
//!
//! This module is storage and merge rules only: bytes in, bytes out. The
//! campaign side (what a node pushes and how it applies what it pulls) is
//! `campaign::sharing`.

mod bucket;
mod items;

pub use bucket::{Bucket, SharedError, SharedUrl};
pub use items::{
    Batch, CoverageBits, Generation, Heartbeat, Manifest, NodeId, SharedInjection, best_finding,
    compactor, is_live, key, merge_coverage, sequence_sha, sha256_hex,
};

/// How often a node syncs by default (milliseconds).
pub const DEFAULT_SYNC_MS: u64 = 2_000;
/// The shortest and longest sync interval a config may ask for.
pub const SYNC_MS_RANGE: std::ops::RangeInclusive<u64> = 100..=600_000;
/// Batches written by all nodes since the last generation before the next
/// is written (`sharedCompactAfter`; 0: never compact).
pub const DEFAULT_COMPACT_AFTER: u64 = 1_000;
/// A node heard from within this many sync intervals is live (its cursors
/// hold back the deletion of batches), and at least [`LIVE_MIN_MS`].
pub const LIVE_INTERVALS: u64 = 10;
pub const LIVE_MIN_MS: u64 = 60_000;
/// The most items (entries, findings) one batch names; more wait for the next sync.
pub const MAX_BATCH_ITEMS: usize = 512;
