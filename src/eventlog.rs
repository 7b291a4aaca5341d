//! The EventLog: the campaign's most recent events (2500 by default), written
//! by every worker without ever waiting and read by every tool as a
//! consistent, newest-first snapshot.
//!
//! # Design
//!
//! **Lanes.** The log is a set of *lanes*, each a single-writer seqlock ring
//! of `capacity` one-cache-line slots. A push claims a lane with one `swap` on
//! the lane's flag (its home lane is `worker % lanes`; if another thread holds
//! it, the next free lane), takes the event's global sequence number [`Seq`]
//! from a shared ticket (`fetch_add`), writes the slot and publishes the lane's
//! new head. Two workers therefore never write the same cache line: an earlier
//! design with one shared ring whose slots alternated between producers
//! measured 8 M pushes/s with two producers against 50+ M for lanes
//! (BENCHMARKS.md). If every lane is held (more concurrent pushers than lanes)
//! the push gives up and is counted in [`EventLog::dropped`]: a push never
//! waits and never allocates.
//!
//! **Slots.** A slot is a 64-bit `stamp` and seven 64-bit words, all atomics.
//! The stamp is `(i + 1) << 1` for the lane's `i`-th event, with the low bit set
//! while the writer fills the slot. Writer: store the busy stamp, release
//! fence, store the words (relaxed), store the idle stamp (release). Reader:
//! load the stamp (acquire), copy the words with relaxed atomic loads (never a
//! `ptr::read` of memory another thread may be writing), acquire fence,
//! reload the stamp; the copy is kept only if both loads saw `idle(i)`.
//! Stamps are 64-bit lane positions, so a slot never comes back to a stamp a
//! reader saw a lap ago (no ABA; 2^62 pushes at 10^9/s is 146 years).
//!
//! **The 2500 newest.** The log holds the `capacity` events with the highest
//! sequence numbers: each lane keeps at least its own newest `capacity`
//! (`capacity` rounded up to a power of two, so that finding a slot is a
//! mask), which contain the global newest `capacity`, and readers drop
//! anything older than `newest - capacity`. Memory is 64 bytes per slot:
//! 256 KiB per lane by default.
//!
//! **Readers.** A reader never makes a writer wait and never sees a torn
//! event. Readers share a [`View`]: the events already read, decoded, in
//! sequence order, kept as immutable chunks of 64 behind `Arc`s. Taking a
//! snapshot reads only the slots published since the previous one, appends
//! them, forgets what fell out of the window and hands out a [`Snapshot`] that
//! shares the chunks: its cost follows the events pushed since the last
//! snapshot, not the capacity. An event whose writer took its sequence number
//! before a newer event was published elsewhere is merged into place when it
//! appears. The view sits behind a mutex that only readers take; a reader that
//! finds it held builds a private view from the lanes instead of waiting.
//!
//! # Payloads
//!
//! An event carries a small typed [`Payload`] that fits in four words plus a
//! 32-bit auxiliary field: numbers and ids only. Anything larger (a property's
//! name, a counterexample, a panic message) lives in a store that outlives the
//! ring and is looked up by id when the event is shown: the campaign's test
//! list and tests store (by [`TestId`]), the corpus (by [`EntryId`]) and the
//! campaign's append-only note store (by index). Those ids stay valid after
//! the ring forgets the event, so the hot path stays allocation-free and a
//! reader never dereferences a pointer a writer might be replacing.

use crate::ids::{EntryId, InjectionId, Seq, TestId, WorkerId};
use crate::sync::{AtomicBool, AtomicU64, Mutex, Ordering, fence};
use crossbeam::utils::CachePadded;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::ops::Range;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

/// How many events the log keeps unless told otherwise (seed 002).
pub const DEFAULT_CAPACITY: usize = 2500;

const PAYLOAD_WORDS: usize = 4;
/// Slot words: `seq`, `timestamp << 16 | kind`, `worker | aux << 32`, payload.
const WORDS: usize = 3 + PAYLOAD_WORDS;
/// Events per shared chunk of a [`View`].
const CHUNK: usize = 64;
/// Timestamps are kept in 48 bits of milliseconds (until the year 10889).
const TS_MASK: u64 = (1 << 48) - 1;

/// The category of an event. The first five are seed 002's `eventType` enum;
/// the others are rudder's documented extensions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[repr(u8)]
pub enum EventKind {
    PropertyFalsified = 0,
    TransactionExecuted = 1,
    CoverageIncreased = 2,
    WorkerStarted = 3,
    WorkerStopped = 4,
    /// A falsified test's counterexample was shrunk (progress or final).
    TestShrunk = 5,
    /// A worker finished executing an injected sequence.
    InjectionExecuted = 6,
    /// An optimization test reached a new best value.
    OptimizationImproved = 7,
    /// A worker panicked; the campaign caught it and the worker stopped.
    WorkerPanicked = 8,
}

impl EventKind {
    /// Every kind, in discriminant order.
    pub const ALL: [EventKind; 9] = [
        EventKind::PropertyFalsified,
        EventKind::TransactionExecuted,
        EventKind::CoverageIncreased,
        EventKind::WorkerStarted,
        EventKind::WorkerStopped,
        EventKind::TestShrunk,
        EventKind::InjectionExecuted,
        EventKind::OptimizationImproved,
        EventKind::WorkerPanicked,
    ];

    /// The kind named `name` (as [`Self::as_str`] writes it).
    pub fn parse(name: &str) -> Option<EventKind> {
        Self::ALL.into_iter().find(|k| k.as_str() == name)
    }

    /// The name used in JSON (`eventType`).
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::PropertyFalsified => "PropertyFalsified",
            EventKind::TransactionExecuted => "TransactionExecuted",
            EventKind::CoverageIncreased => "CoverageIncreased",
            EventKind::WorkerStarted => "WorkerStarted",
            EventKind::WorkerStopped => "WorkerStopped",
            EventKind::TestShrunk => "TestShrunk",
            EventKind::InjectionExecuted => "InjectionExecuted",
            EventKind::OptimizationImproved => "OptimizationImproved",
            EventKind::WorkerPanicked => "WorkerPanicked",
        }
    }

    fn from_u8(v: u8) -> Option<Self> {
        Self::ALL.get(v as usize).copied()
    }
}

/// Why a worker stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[repr(u8)]
pub enum StopReason {
    /// The test limit was reached.
    TestLimit = 0,
    /// The campaign's timeout passed.
    Timeout = 1,
    /// The campaign was stopped (by its owner, or every test was decided).
    Stopped = 2,
    /// The worker panicked.
    Panicked = 3,
}

impl StopReason {
    pub fn as_str(self) -> &'static str {
        match self {
            StopReason::TestLimit => "testLimit",
            StopReason::Timeout => "timeout",
            StopReason::Stopped => "stopped",
            StopReason::Panicked => "panicked",
        }
    }

    fn from_u64(v: u64) -> Option<Self> {
        [
            Self::TestLimit,
            Self::Timeout,
            Self::Stopped,
            Self::Panicked,
        ]
        .get(v as usize)
        .copied()
    }
}

/// The typed payload of an event: numbers and ids only (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Payload {
    WorkerStarted {
        seed: u64,
    },
    WorkerStopped {
        calls: u64,
        sequences: u64,
        reason: StopReason,
    },
    /// Aggregated: `calls` calls (`reverts` of them reverted) in `sequences`
    /// sequences since the worker's previous `TransactionExecuted` event.
    TransactionExecuted {
        calls: u32,
        reverts: u32,
        sequences: u32,
        gas_used: u64,
        total_calls: u64,
    },
    /// A sequence reached `new_points` coverage points nobody had reached
    /// (or, with `new_points` 0, a storage state its worker had not: state
    /// feedback); it is corpus entry `entry`, and the campaign now covers
    /// `total_points`.
    CoverageIncreased {
        entry: EntryId,
        new_points: u32,
        total_points: u32,
        calls: u32,
    },
    /// `test` was falsified by a sequence of `calls` calls.
    PropertyFalsified {
        test: TestId,
        calls: u32,
        gas_used: u64,
    },
    /// `test`'s counterexample is now `calls` calls long after `steps` shrink
    /// attempts; `done` once shrinking finished.
    TestShrunk {
        test: TestId,
        calls: u32,
        steps: u32,
        done: bool,
    },
    /// A worker executed injection `injection`.
    InjectionExecuted {
        injection: InjectionId,
        executed: u32,
        reverted: u32,
        new_points: u32,
        falsified: u32,
    },
    /// Optimization `test` reached `value` (an int256 as four little-endian words).
    OptimizationImproved {
        test: TestId,
        value: [u64; 4],
    },
    /// The worker panicked; the message is note `note` of the campaign.
    WorkerPanicked {
        note: u64,
    },
}

impl Payload {
    /// The event kind this payload belongs to.
    pub fn kind(&self) -> EventKind {
        match self {
            Payload::WorkerStarted { .. } => EventKind::WorkerStarted,
            Payload::WorkerStopped { .. } => EventKind::WorkerStopped,
            Payload::TransactionExecuted { .. } => EventKind::TransactionExecuted,
            Payload::CoverageIncreased { .. } => EventKind::CoverageIncreased,
            Payload::PropertyFalsified { .. } => EventKind::PropertyFalsified,
            Payload::TestShrunk { .. } => EventKind::TestShrunk,
            Payload::InjectionExecuted { .. } => EventKind::InjectionExecuted,
            Payload::OptimizationImproved { .. } => EventKind::OptimizationImproved,
            Payload::WorkerPanicked { .. } => EventKind::WorkerPanicked,
        }
    }

    /// The payload as a 32-bit auxiliary field and four words.
    fn encode(&self) -> (u32, [u64; PAYLOAD_WORDS]) {
        let pair = |a: u32, b: u32| (a as u64) | ((b as u64) << 32);
        match *self {
            Payload::WorkerStarted { seed } => (0, [seed, 0, 0, 0]),
            Payload::WorkerStopped {
                calls,
                sequences,
                reason,
            } => (reason as u32, [calls, sequences, 0, 0]),
            Payload::TransactionExecuted {
                calls,
                reverts,
                sequences,
                gas_used,
                total_calls,
            } => (sequences, [pair(calls, reverts), gas_used, total_calls, 0]),
            Payload::CoverageIncreased {
                entry,
                new_points,
                total_points,
                calls,
            } => (calls, [entry.0, pair(new_points, total_points), 0, 0]),
            Payload::PropertyFalsified {
                test,
                calls,
                gas_used,
            } => (test.0, [calls as u64, gas_used, 0, 0]),
            Payload::TestShrunk {
                test,
                calls,
                steps,
                done,
            } => (test.0, [pair(calls, steps), done as u64, 0, 0]),
            Payload::InjectionExecuted {
                injection,
                executed,
                reverted,
                new_points,
                falsified,
            } => (
                0,
                [
                    injection.0,
                    pair(executed, reverted),
                    pair(new_points, falsified),
                    0,
                ],
            ),
            Payload::OptimizationImproved { test, value } => (test.0, value),
            Payload::WorkerPanicked { note } => (0, [note, 0, 0, 0]),
        }
    }

    fn decode(kind: EventKind, aux: u32, w: &[u64; PAYLOAD_WORDS]) -> Option<Self> {
        let lo = |v: u64| v as u32;
        let hi = |v: u64| (v >> 32) as u32;
        Some(match kind {
            EventKind::WorkerStarted => Payload::WorkerStarted { seed: w[0] },
            EventKind::WorkerStopped => Payload::WorkerStopped {
                calls: w[0],
                sequences: w[1],
                reason: StopReason::from_u64(aux as u64)?,
            },
            EventKind::TransactionExecuted => Payload::TransactionExecuted {
                calls: lo(w[0]),
                reverts: hi(w[0]),
                sequences: aux,
                gas_used: w[1],
                total_calls: w[2],
            },
            EventKind::CoverageIncreased => Payload::CoverageIncreased {
                entry: EntryId(w[0]),
                new_points: lo(w[1]),
                total_points: hi(w[1]),
                calls: aux,
            },
            EventKind::PropertyFalsified => Payload::PropertyFalsified {
                test: TestId(aux),
                calls: w[0] as u32,
                gas_used: w[1],
            },
            EventKind::TestShrunk => Payload::TestShrunk {
                test: TestId(aux),
                calls: lo(w[0]),
                steps: hi(w[0]),
                done: w[1] != 0,
            },
            EventKind::InjectionExecuted => Payload::InjectionExecuted {
                injection: InjectionId(w[0]),
                executed: lo(w[1]),
                reverted: hi(w[1]),
                new_points: lo(w[2]),
                falsified: hi(w[2]),
            },
            EventKind::OptimizationImproved => Payload::OptimizationImproved {
                test: TestId(aux),
                value: *w,
            },
            EventKind::WorkerPanicked => Payload::WorkerPanicked { note: w[0] },
        })
    }
}

/// One event as a reader sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event {
    pub seq: Seq,
    /// Milliseconds since the Unix epoch, taken when the event was pushed.
    pub timestamp_ms: u64,
    pub worker: WorkerId,
    pub payload: Payload,
}

impl Event {
    pub fn kind(&self) -> EventKind {
        self.payload.kind()
    }
}

/// Which events a snapshot keeps. All fields are optional and combine with AND.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Filter {
    pub kind: Option<EventKind>,
    pub worker: Option<WorkerId>,
    /// Only events with a sequence number strictly greater than this.
    pub after: Option<Seq>,
}

impl Filter {
    fn keeps(&self, e: &Event) -> bool {
        self.kind.is_none_or(|k| k == e.kind())
            && self.worker.is_none_or(|w| w == e.worker)
            && self.after.is_none_or(|s| e.seq > s)
    }
}

#[cfg_attr(not(feature = "loom"), repr(align(64)))]
struct Slot {
    stamp: AtomicU64,
    words: [AtomicU64; WORDS],
}

impl Slot {
    fn new() -> Self {
        Slot {
            stamp: AtomicU64::new(0),
            words: std::array::from_fn(|_| AtomicU64::new(0)),
        }
    }
}

/// The stamp of a lane's `i`-th event once written (the busy stamp adds 1).
const fn idle(i: u64) -> u64 {
    (i + 1) << 1
}

/// One single-writer ring. The writer is whoever holds `claimed`.
struct Lane {
    /// Set while a pusher owns the lane.
    claimed: CachePadded<AtomicBool>,
    /// How many events the lane has published; the next one goes to slot
    /// `published & mask`. Written only by the lane's owner.
    published: CachePadded<AtomicU64>,
    slots: Box<[Slot]>,
}

/// The event log. Cheap to share behind an `Arc`; every method takes `&self`.
pub struct EventLog {
    /// The next global sequence number.
    ticket: CachePadded<AtomicU64>,
    dropped: CachePadded<AtomicU64>,
    lanes: Box<[Lane]>,
    capacity: usize,
    /// Each lane has `mask + 1` slots: `capacity` rounded up to a power of two.
    mask: u64,
    /// The readers' shared view; writers never touch it.
    view: Mutex<View>,
}

impl std::fmt::Debug for EventLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventLog")
            .field("capacity", &self.capacity())
            .field("lanes", &self.lanes.len())
            .field("pushed", &self.pushed())
            .finish()
    }
}

impl Default for EventLog {
    fn default() -> Self {
        Self::new(DEFAULT_CAPACITY)
    }
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

impl EventLog {
    /// A log of `capacity` events (at least 1) with one lane per available
    /// core plus two (at least four), for threads that push concurrently.
    pub fn new(capacity: usize) -> Self {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        Self::with_lanes(capacity, (cores + 2).max(4))
    }

    /// A log of `capacity` events (at least 1) and `lanes` lanes (at least 1):
    /// up to `lanes` threads push without ever finding every lane taken. Give
    /// a campaign one lane per worker plus one or two for its other threads.
    pub fn with_lanes(capacity: usize, lanes: usize) -> Self {
        let capacity = capacity.max(1);
        // A power of two, so that a position's slot is a mask, not a division.
        let lane_slots = capacity.next_power_of_two();
        EventLog {
            ticket: CachePadded::new(AtomicU64::new(0)),
            dropped: CachePadded::new(AtomicU64::new(0)),
            lanes: (0..lanes.max(1))
                .map(|_| Lane {
                    claimed: CachePadded::new(AtomicBool::new(false)),
                    published: CachePadded::new(AtomicU64::new(0)),
                    slots: (0..lane_slots).map(|_| Slot::new()).collect(),
                })
                .collect(),
            capacity,
            mask: lane_slots as u64 - 1,
            view: Mutex::new(View::default()),
        }
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// How many lanes (concurrent pushers that never collide) the log has.
    pub fn lanes(&self) -> usize {
        self.lanes.len()
    }

    /// How many pushes have taken a sequence number so far.
    pub fn pushed(&self) -> u64 {
        self.ticket.load(Ordering::Relaxed)
    }

    /// How many events the log holds: `min(pushed, capacity)`.
    pub fn len(&self) -> usize {
        (self.pushed() as usize).min(self.capacity)
    }

    pub fn is_empty(&self) -> bool {
        self.pushed() == 0
    }

    /// Pushes abandoned because every lane was held by another pusher.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    /// Appends an event stamped now. Never blocks and never allocates; returns
    /// the event's sequence number, or `None` in the (counted) case where
    /// every lane was held by another pusher.
    pub fn push(&self, worker: WorkerId, payload: Payload) -> Option<Seq> {
        self.push_at(now_ms(), worker, payload)
    }

    /// [`push`](Self::push) with an explicit timestamp (kept modulo 2^48 ms).
    pub fn push_at(&self, timestamp_ms: u64, worker: WorkerId, payload: Payload) -> Option<Seq> {
        let Some(lane) = self.claim(worker) else {
            self.dropped.fetch_add(1, Ordering::Relaxed);
            return None;
        };
        // Taken while owning the lane, so a lane's sequence numbers rise with
        // its positions.
        let seq = self.ticket.fetch_add(1, Ordering::Relaxed);
        self.write(lane, seq, timestamp_ms, worker, payload);
        Some(Seq(seq))
    }

    /// Claims `worker`'s home lane, or the next free one.
    fn claim(&self, worker: WorkerId) -> Option<&Lane> {
        let n = self.lanes.len();
        let home = worker.0 as usize % n;
        (home..n)
            .chain(0..home)
            .map(|l| &self.lanes[l])
            .find(|lane| !lane.claimed.swap(true, Ordering::Acquire))
    }

    /// Writes event `seq` at the claimed lane's next position, publishes it
    /// and releases the lane.
    fn write(&self, lane: &Lane, seq: u64, timestamp_ms: u64, worker: WorkerId, payload: Payload) {
        let i = lane.published.load(Ordering::Relaxed);
        let slot = &lane.slots[(i & self.mask) as usize];
        slot.stamp.store(idle(i) | 1, Ordering::Relaxed);
        // Orders the busy stamp before the word stores for any reader that
        // sees one of the new words (it then re-reads a busy or newer stamp).
        fence(Ordering::Release);
        let (aux, p) = payload.encode();
        slot.words[0].store(seq, Ordering::Relaxed);
        slot.words[1].store(
            (timestamp_ms & TS_MASK) << 16 | payload.kind() as u64,
            Ordering::Relaxed,
        );
        slot.words[2].store(worker.0 as u64 | (aux as u64) << 32, Ordering::Relaxed);
        for (w, v) in slot.words[3..].iter().zip(p) {
            w.store(v, Ordering::Relaxed);
        }
        slot.stamp.store(idle(i), Ordering::Release);
        lane.published.store(i + 1, Ordering::Release);
        lane.claimed.store(false, Ordering::Release);
    }

    /// Reads lane `lane`'s `i`-th event if no writer has rewritten (or is
    /// rewriting) its slot.
    fn read(&self, lane: &Lane, i: u64) -> Option<Event> {
        let slot = &lane.slots[(i & self.mask) as usize];
        let want = idle(i);
        if slot.stamp.load(Ordering::Acquire) != want {
            return None;
        }
        let mut w = [0u64; WORDS];
        for (dst, src) in w.iter_mut().zip(slot.words.iter()) {
            *dst = src.load(Ordering::Relaxed);
        }
        fence(Ordering::Acquire);
        if slot.stamp.load(Ordering::Relaxed) != want {
            return None;
        }
        let kind = EventKind::from_u8(w[1] as u8)?;
        let mut p = [0u64; PAYLOAD_WORDS];
        p.copy_from_slice(&w[3..]);
        Some(Event {
            seq: Seq(w[0]),
            timestamp_ms: w[1] >> 16,
            worker: WorkerId(w[2] as u32),
            payload: Payload::decode(kind, (w[2] >> 32) as u32, &p)?,
        })
    }

    /// A consistent snapshot of the newest `capacity` events, shared with
    /// other readers where possible (see the module doc). Never waits for a
    /// writer, nor for another reader.
    pub fn view(&self) -> Snapshot {
        match self.view.try_lock() {
            Ok(mut shared) => shared.refresh(self),
            Err(_) => View::default().refresh(self),
        }
    }

    /// A snapshot of at most `limit` events that pass `filter`, newest first
    /// (by sequence number). Events being rewritten while the snapshot is
    /// taken are left out, never returned torn.
    pub fn snapshot(&self, filter: &Filter, limit: usize) -> Vec<Event> {
        let mut out = Vec::with_capacity(limit.min(self.capacity()));
        self.snapshot_into(filter, limit, &mut out);
        out
    }

    /// [`snapshot`](Self::snapshot) into a caller's buffer (cleared first).
    pub fn snapshot_into(&self, filter: &Filter, limit: usize, out: &mut Vec<Event>) {
        out.clear();
        self.view().copy_into(filter, limit, out);
    }
}

/// How many slots ahead of the one being read a refresh asks the cache for:
/// slots were just written by other cores, so each read is a cache miss, and
/// keeping several in flight is what makes a refresh fast.
const PREFETCH: u64 = 12;

#[inline(always)]
fn prefetch(slot: &Slot) {
    #[cfg(all(target_arch = "x86_64", not(feature = "loom")))]
    // SAFETY: SSE is part of the x86_64 baseline, and a prefetch is a hint
    // that never faults and reads nothing the program sees; `slot` is a live
    // reference anyway.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(
            (slot as *const Slot).cast(),
        );
    }
    #[cfg(not(all(target_arch = "x86_64", not(feature = "loom"))))]
    let _ = slot;
}

/// What readers already know: the events read so far, in sequence order, as
/// immutable shared chunks of [`CHUNK`] (the newest one still open), and how
/// far each lane has been read.
#[derive(Default)]
struct View {
    /// Per lane, how many of its events have been read.
    cursors: Vec<u64>,
    sealed: VecDeque<Arc<[Event]>>,
    open: Vec<Event>,
    /// `sealed` and `open` as last handed out; `None` once changed.
    shared_sealed: Option<Arc<[Arc<[Event]>]>>,
    shared_open: Option<Arc<[Event]>>,
    /// Events read by the refresh in progress, one run per lane, and merged.
    fresh: Vec<Event>,
    runs: Vec<Range<usize>>,
    merged: Vec<Event>,
    scratch: Vec<Event>,
    /// The last snapshot handed out, reused while nothing changes.
    last: Option<Snapshot>,
}

impl View {
    fn refresh(&mut self, log: &EventLog) -> Snapshot {
        let pushed = log.ticket.load(Ordering::Acquire);
        self.cursors.resize(log.lanes.len(), 0);
        self.fresh.clear();
        self.runs.clear();
        let (cap, lane_slots) = (log.capacity as u64, log.mask + 1);
        let window = pushed.saturating_sub(cap);
        for (lane, cursor) in log.lanes.iter().zip(self.cursors.iter_mut()) {
            let published = lane.published.load(Ordering::Acquire);
            let start = self.fresh.len();
            // Newest first, down to what this view has read or what has left
            // the window. A slot that fails to read is being (or has been)
            // rewritten by a later lap, and so are all older ones of the lane.
            let from = (*cursor).max(published.saturating_sub(lane_slots));
            for i in (from..published).rev() {
                if i >= from + PREFETCH {
                    prefetch(&lane.slots[((i - PREFETCH) & log.mask) as usize]);
                }
                match log.read(lane, i) {
                    Some(e) if e.seq.0 >= window => self.fresh.push(e),
                    _ => break,
                }
            }
            if self.fresh.len() > start {
                self.fresh[start..].reverse();
                self.runs.push(start..self.fresh.len());
            }
            *cursor = published;
        }
        if self.fresh.is_empty()
            && let Some(last) = &self.last
            && last.pushed == pushed
        {
            return last.clone();
        }
        // Each lane's new events are a run in sequence order: merge the runs.
        let (fresh, mut merged) = (
            std::mem::take(&mut self.fresh),
            std::mem::take(&mut self.merged),
        );
        if let [run] = &self.runs[..] {
            self.append(&fresh[run.clone()]);
        } else {
            merge_runs(&fresh, &self.runs, &mut merged, &mut self.scratch);
            self.append(&merged);
        }
        (self.fresh, self.merged) = (fresh, merged);
        let newest = self.newest().map_or(0, |s| s + 1);
        let floor = Seq(pushed.max(newest).saturating_sub(cap));
        while self
            .sealed
            .front()
            .is_some_and(|c| c[c.len() - 1].seq < floor)
        {
            self.sealed.pop_front();
            self.shared_sealed = None;
        }
        if self.sealed.is_empty() && self.open.first().is_some_and(|e| e.seq < floor) {
            self.open.retain(|e| e.seq >= floor);
            self.shared_open = None;
        }
        let sealed = self
            .shared_sealed
            .get_or_insert_with(|| self.sealed.iter().cloned().collect())
            .clone();
        let open = self
            .shared_open
            .get_or_insert_with(|| Arc::from(self.open.as_slice()))
            .clone();
        let oldest = sealed.first().unwrap_or(&open);
        let oldest_from = oldest.partition_point(|e| e.seq < floor);
        let len = sealed.iter().map(|c| c.len()).sum::<usize>() + open.len() - oldest_from;
        let snap = Snapshot {
            sealed,
            open,
            oldest_from,
            len,
            pushed,
        };
        self.last = Some(snap.clone());
        snap
    }

    fn newest(&self) -> Option<u64> {
        self.open
            .last()
            .or_else(|| self.sealed.back().map(|c| &c[c.len() - 1]))
            .map(|e| e.seq.0)
    }

    /// Adds events in ascending sequence order: appended in the usual case,
    /// merged into place when their writer published them after newer events
    /// were read.
    fn append(&mut self, events: &[Event]) {
        if events.is_empty() {
            return;
        }
        self.shared_open = None;
        let newest = self.newest();
        let late = events.partition_point(|e| newest.is_some_and(|n| e.seq.0 <= n));
        for &e in &events[..late] {
            self.insert_late(e);
        }
        let mut rest = &events[late..];
        let sealed = self.sealed.len();
        if !self.open.is_empty() {
            let (now, later) = rest.split_at((CHUNK - self.open.len()).min(rest.len()));
            self.open.extend_from_slice(now);
            rest = later;
            if self.open.len() == CHUNK {
                self.sealed.push_back(Arc::from(self.open.as_slice()));
                self.open.clear();
            }
        }
        // Whole chunks go from the slice to their `Arc` in one copy.
        let mut whole = rest.chunks_exact(CHUNK);
        for chunk in &mut whole {
            self.sealed.push_back(Arc::from(chunk));
        }
        self.open.extend_from_slice(whole.remainder());
        if self.sealed.len() != sealed {
            self.shared_sealed = None;
        }
    }

    /// Merges an event older than the newest one into place.
    fn insert_late(&mut self, e: Event) {
        if self.open.first().is_some_and(|f| e.seq > f.seq) || self.sealed.is_empty() {
            let at = self.open.partition_point(|x| x.seq < e.seq);
            self.open.insert(at, e);
            return;
        }
        // The first sealed chunk whose newest event is newer than `e` (the
        // oldest chunk if `e` precedes everything).
        let k = self
            .sealed
            .partition_point(|c| c[c.len() - 1].seq < e.seq)
            .min(self.sealed.len() - 1);
        let chunk = &mut self.sealed[k];
        let at = chunk.partition_point(|x| x.seq < e.seq);
        let mut v = Vec::with_capacity(chunk.len() + 1);
        v.extend_from_slice(&chunk[..at]);
        v.push(e);
        v.extend_from_slice(&chunk[at..]);
        *chunk = v.into();
        self.shared_sealed = None;
    }
}

/// Merges `runs` of `src` (each in ascending sequence order) into `out`, two
/// at a time (a campaign has a handful of lanes).
fn merge_runs(
    src: &[Event],
    runs: &[Range<usize>],
    out: &mut Vec<Event>,
    scratch: &mut Vec<Event>,
) {
    out.clear();
    let Some((first, rest)) = runs.split_first() else {
        return;
    };
    out.extend_from_slice(&src[first.clone()]);
    for run in rest {
        std::mem::swap(out, scratch);
        out.clear();
        let (a, b) = (&scratch[..], &src[run.clone()]);
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            if a[i].seq < b[j].seq {
                out.push(a[i]);
                i += 1;
            } else {
                out.push(b[j]);
                j += 1;
            }
        }
        out.extend_from_slice(&a[i..]);
        out.extend_from_slice(&b[j..]);
    }
}

/// A consistent snapshot of the log: the newest `capacity` events that were
/// published when it was taken, immutable and cheap to clone (two reference
/// counts: it shares its chunks with the log's view and other snapshots).
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// Full chunks, oldest first, each in ascending sequence order.
    sealed: Arc<[Arc<[Event]>]>,
    /// The newest, partly filled chunk.
    open: Arc<[Event]>,
    /// Where the snapshot starts in its oldest chunk (the window's floor can
    /// fall inside it).
    oldest_from: usize,
    len: usize,
    /// The log's ticket when the snapshot was taken.
    pushed: u64,
}

impl Snapshot {
    /// How many events the snapshot holds (at most the log's capacity).
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// How many pushes had taken a sequence number when it was taken.
    pub fn pushed(&self) -> u64 {
        self.pushed
    }

    /// Chunk `i` counting from the newest (the open one is 0), in ascending
    /// order and trimmed to the window (only the oldest chunk can straddle it).
    fn chunk(&self, i: usize) -> &[Event] {
        let n = self.sealed.len();
        let c: &[Event] = if i == 0 {
            &self.open
        } else {
            &self.sealed[n - i]
        };
        if i == n { &c[self.oldest_from..] } else { c }
    }

    /// The snapshot's chunks, newest first.
    fn chunks(&self) -> impl Iterator<Item = &[Event]> {
        (0..=self.sealed.len()).map(|i| self.chunk(i))
    }

    /// Every event, newest first (by sequence number).
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            snapshot: self,
            next_chunk: 0,
            current: &[],
            left: self.len,
        }
    }

    /// The events that pass `filter`, newest first.
    pub fn select<'a>(&'a self, filter: &'a Filter) -> impl Iterator<Item = &'a Event> + 'a {
        self.iter()
            .take_while(|e| filter.after.is_none_or(|s| e.seq > s))
            .filter(|e| filter.keeps(e))
    }

    /// Appends at most `limit` events that pass `filter` to `out`, newest first.
    pub fn copy_into(&self, filter: &Filter, limit: usize, out: &mut Vec<Event>) {
        out.reserve(limit.min(self.len));
        let after = filter.after.map_or(Seq(0), |s| Seq(s.0.saturating_add(1)));
        let unfiltered = filter.kind.is_none() && filter.worker.is_none();
        let mut left = limit;
        for chunk in self.chunks() {
            let keep = &chunk[chunk.partition_point(|e| e.seq < after)..];
            if unfiltered {
                let take = keep.len().min(left);
                out.extend(keep[keep.len() - take..].iter().rev().copied());
                left -= take;
            } else {
                for e in keep.iter().rev() {
                    if left == 0 {
                        break;
                    }
                    if filter.keeps(e) {
                        out.push(*e);
                        left -= 1;
                    }
                }
            }
            if left == 0 || keep.len() < chunk.len() {
                return;
            }
        }
    }
}

/// The events of a [`Snapshot`], newest first.
pub struct Iter<'a> {
    snapshot: &'a Snapshot,
    /// The chunk to visit after `current` (see [`Snapshot::chunk`]).
    next_chunk: usize,
    /// What is left of the chunk being visited (the next event last).
    current: &'a [Event],
    /// Events not yet returned.
    left: usize,
}

impl<'a> Iterator for Iter<'a> {
    type Item = &'a Event;

    #[inline]
    fn next(&mut self) -> Option<&'a Event> {
        loop {
            if let Some((e, rest)) = self.current.split_last() {
                self.current = rest;
                self.left -= 1;
                return Some(e);
            }
            if self.next_chunk > self.snapshot.sealed.len() {
                return None;
            }
            self.current = self.snapshot.chunk(self.next_chunk);
            self.next_chunk += 1;
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for Iter<'_> {}

#[cfg(all(test, not(feature = "loom")))]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;

    fn started(seed: u64) -> Payload {
        Payload::WorkerStarted { seed }
    }

    #[test]
    fn keeps_the_newest_capacity_events_newest_first() {
        let log = EventLog::new(4);
        for i in 0..10 {
            log.push(WorkerId(0), started(i)).unwrap();
        }
        let all = log.snapshot(&Filter::default(), 100);
        let seeds: Vec<_> = all
            .iter()
            .map(|e| match e.payload {
                Payload::WorkerStarted { seed } => seed,
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(seeds, vec![9, 8, 7, 6]);
        assert_eq!(all[0].seq, Seq(9));
        assert_eq!(log.len(), 4);
        assert_eq!(log.pushed(), 10);
    }

    #[test]
    fn filters_by_kind_worker_and_sequence_and_limits() {
        let log = EventLog::new(16);
        for i in 0..12u32 {
            let p = if i % 2 == 0 {
                started(i as u64)
            } else {
                Payload::WorkerStopped {
                    calls: i as u64,
                    sequences: 1,
                    reason: StopReason::Stopped,
                }
            };
            log.push(WorkerId(i % 3), p);
        }
        let stopped = Filter {
            kind: Some(EventKind::WorkerStopped),
            ..Filter::default()
        };
        assert_eq!(log.snapshot(&stopped, 100).len(), 6);
        assert_eq!(log.snapshot(&stopped, 2).len(), 2);
        let w1 = Filter {
            worker: Some(WorkerId(1)),
            ..Filter::default()
        };
        assert!(
            log.snapshot(&w1, 100)
                .iter()
                .all(|e| e.worker == WorkerId(1))
        );
        let after = Filter {
            after: Some(Seq(9)),
            ..Filter::default()
        };
        let got: Vec<_> = log.snapshot(&after, 100).iter().map(|e| e.seq.0).collect();
        assert_eq!(got, vec![11, 10]);
    }

    #[test]
    fn every_payload_round_trips_through_the_words() {
        let payloads = [
            started(u64::MAX),
            Payload::WorkerStopped {
                calls: 5,
                sequences: 2,
                reason: StopReason::Panicked,
            },
            Payload::TransactionExecuted {
                calls: u32::MAX,
                reverts: 7,
                sequences: 3,
                gas_used: 1 << 40,
                total_calls: 99,
            },
            Payload::CoverageIncreased {
                entry: EntryId(12),
                new_points: 3,
                total_points: 400,
                calls: 9,
            },
            Payload::PropertyFalsified {
                test: TestId(2),
                calls: 3,
                gas_used: 45_000,
            },
            Payload::TestShrunk {
                test: TestId(1),
                calls: 2,
                steps: 77,
                done: true,
            },
            Payload::InjectionExecuted {
                injection: InjectionId(4),
                executed: 2,
                reverted: 1,
                new_points: 8,
                falsified: 1,
            },
            Payload::OptimizationImproved {
                test: TestId(0),
                value: [1, 2, 3, u64::MAX],
            },
            Payload::WorkerPanicked { note: 3 },
        ];
        let log = EventLog::new(payloads.len());
        for p in payloads {
            log.push_at(1234, WorkerId(7), p);
        }
        let mut got = log.snapshot(&Filter::default(), 100);
        got.reverse();
        for (e, p) in got.iter().zip(payloads) {
            assert_eq!(e.payload, p);
            assert_eq!(e.worker, WorkerId(7));
            assert_eq!(e.timestamp_ms, 1234);
        }
        assert_eq!(got.len(), payloads.len());
    }

    #[test]
    fn a_push_that_finds_every_lane_held_is_dropped_instead_of_waiting() {
        let log = EventLog::with_lanes(8, 2);
        let held: Vec<_> = (0..2).map(|w| log.claim(WorkerId(w)).unwrap()).collect();
        assert!(log.push(WorkerId(0), started(1)).is_none());
        assert_eq!(log.dropped(), 1);
        for lane in held {
            lane.claimed.store(false, Ordering::Release);
        }
        assert_eq!(log.push(WorkerId(0), started(2)), Some(Seq(0)));
        // A held home lane sends the push to the next free one.
        let lane0 = log.claim(WorkerId(0)).unwrap();
        assert_eq!(log.push(WorkerId(0), started(3)), Some(Seq(1)));
        lane0.claimed.store(false, Ordering::Release);
        let seqs: Vec<_> = log.view().iter().map(|e| e.seq.0).collect();
        assert_eq!(seqs, vec![1, 0]);
    }

    #[test]
    fn keeps_the_newest_capacity_events_across_lanes() {
        let log = EventLog::with_lanes(10, 3);
        for i in 0..37u64 {
            log.push(WorkerId((i * 7 % 5) as u32), started(i));
        }
        let snap = log.view();
        let seqs: Vec<_> = snap.iter().map(|e| e.seq.0).collect();
        assert_eq!(seqs, (27..37).rev().collect::<Vec<_>>());
        assert_eq!(snap.len(), 10);
        assert_eq!(log.len(), 10);
    }

    /// A writer that took its sequence number, then stalled while others
    /// published newer events: its event is merged into place, also into a
    /// chunk that other snapshots already share.
    #[test]
    fn a_late_event_is_merged_into_sequence_order() {
        let log = EventLog::with_lanes(256, 2);
        let stalled = log.claim(WorkerId(0)).unwrap();
        let late = log.ticket.fetch_add(1, Ordering::Relaxed);
        for i in 0..200 {
            log.push(WorkerId(1), started(i));
        }
        let before = log.view();
        assert_eq!(before.len(), 200);
        assert!(before.iter().all(|e| e.seq.0 != late));
        log.write(stalled, late, 5, WorkerId(0), started(999));
        let after = log.view();
        let seqs: Vec<_> = after.iter().map(|e| e.seq.0).collect();
        assert_eq!(seqs, (0..201).rev().collect::<Vec<_>>());
        // The earlier snapshot is unchanged.
        assert_eq!(before.len(), 200);
        assert_eq!(before.iter().last().unwrap().seq, Seq(1));
    }

    #[test]
    fn an_unchanged_log_hands_out_the_same_snapshot() {
        let log = EventLog::with_lanes(100, 2);
        for i in 0..150 {
            log.push(WorkerId(0), started(i));
        }
        let a = log.view();
        let b = log.view();
        assert!(Arc::ptr_eq(&a.open, &b.open) && Arc::ptr_eq(&a.sealed, &b.sealed));
        log.push(WorkerId(1), started(0));
        let c = log.view();
        assert_eq!(c.iter().next().unwrap().seq, Seq(150));
        assert_eq!(c.len(), 100);
        // Sealed chunks are shared between snapshots, not copied.
        assert!(Arc::ptr_eq(&a.sealed[0], &c.sealed[0]));
    }

    #[test]
    fn a_reader_that_finds_the_view_busy_reads_the_lanes_itself() {
        let log = EventLog::with_lanes(50, 2);
        for i in 0..80 {
            log.push(WorkerId(i as u32 % 2), started(i));
        }
        let shared = log.view();
        let _busy = log.view.lock().unwrap();
        let private = log.view();
        assert!(!Arc::ptr_eq(&shared.open, &private.open));
        let a: Vec<_> = shared.iter().copied().collect();
        let b: Vec<_> = private.iter().copied().collect();
        assert_eq!(a, b);
        assert_eq!(b.len(), 50);
    }

    /// Producers push events whose words are all derived from one number; a
    /// reader checks every event it sees. Any torn read breaks the checksum.
    #[test]
    fn stress_no_torn_events_over_ten_million_pushes() {
        const PRODUCERS: u64 = 2;
        let per_producer: u64 = if cfg!(miri) {
            100
        } else if cfg!(debug_assertions) {
            500_000
        } else {
            5_000_000
        };
        let log = Arc::new(EventLog::new(if cfg!(miri) { 8 } else { 64 }));
        let done = Arc::new(AtomicBool::new(false));
        // Two readers, so that one sometimes finds the shared view busy and
        // builds its own.
        let readers: Vec<_> = (0..2)
            .map(|_| {
                let (log, done) = (log.clone(), done.clone());
                std::thread::spawn(move || {
                    let (mut seen, mut torn, mut misordered) = (0u64, 0u64, 0u64);
                    let mut buf = Vec::new();
                    while !done.load(Ordering::Acquire) {
                        log.snapshot_into(&Filter::default(), 64, &mut buf);
                        for pair in buf.windows(2) {
                            misordered += (pair[0].seq <= pair[1].seq) as u64;
                        }
                        for e in &buf {
                            seen += 1;
                            match e.payload {
                                Payload::TransactionExecuted {
                                    calls,
                                    reverts,
                                    sequences,
                                    gas_used,
                                    total_calls,
                                } => {
                                    let x = total_calls;
                                    let ok = calls == x as u32
                                        && reverts == (x >> 32) as u32
                                        && sequences as u64 == (x.wrapping_mul(31) & 0xffff_ffff)
                                        && gas_used == !x
                                        && e.timestamp_ms == x ^ 0x5555
                                        && e.worker.0 as u64 == x % PRODUCERS;
                                    torn += (!ok) as u64;
                                }
                                _ => torn += 1,
                            }
                        }
                    }
                    (seen, torn, misordered)
                })
            })
            .collect();
        let producers: Vec<_> = (0..PRODUCERS)
            .map(|p| {
                let log = log.clone();
                std::thread::spawn(move || {
                    for i in 0..per_producer {
                        let x = i * PRODUCERS + p;
                        log.push_at(
                            x ^ 0x5555,
                            WorkerId(p as u32),
                            Payload::TransactionExecuted {
                                calls: x as u32,
                                reverts: (x >> 32) as u32,
                                sequences: (x.wrapping_mul(31) & 0xffff_ffff) as u32,
                                gas_used: !x,
                                total_calls: x,
                            },
                        );
                    }
                })
            })
            .collect();
        for p in producers {
            p.join().unwrap();
        }
        done.store(true, Ordering::Release);
        let (mut seen, mut torn, mut misordered) = (0, 0, 0);
        for r in readers {
            let (s, t, m) = r.join().unwrap();
            (seen, torn, misordered) = (seen + s, torn + t, misordered + m);
        }
        assert_eq!(torn, 0, "torn events among {seen} read");
        assert_eq!(misordered, 0);
        assert_eq!(log.pushed(), PRODUCERS * per_producer);
        assert!(seen > 0);
    }
}
