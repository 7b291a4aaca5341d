//! The campaign's events: their vocabulary, written once, and the EventLog
//! that holds the most recent ones (2500 by default), written by every worker
//! without ever waiting and read by every tool as a consistent, newest-first
//! snapshot.
//!
//! # One vocabulary
//!
//! `vocabulary!` below is the only place an event kind is declared: its
//! name, its discriminant, its payload fields and the journal's severity,
//! category and whether rows of it may be dropped under overload. From it come
//! [`EventKind`] (with `ALL`, `as_str`, `parse`), [`Payload`] and
//! [`Payload::kind`], the payload's packing into the ring's words (each field
//! type says how many bits it takes, [`Packed`]; a payload that would not fit
//! fails to compile), and the journal's kinds
//! ([`crate::journal::Kind`], through `with_event_kinds!`). What an event
//! looks like as JSON is [`crate::campaign::Renderer::data`]: it looks ids up
//! in the stores (a test's name, a corpus entry's calls), which a declaration
//! cannot.
//!
//! # The ring
//!
//! The lock-free part is [`rudder_lockfree::Ring`], payload-agnostic and
//! model-checked on its own (loom, Miri): lanes of one-cache-line seqlock
//! slots, one per producer, merged by sequence number for readers that share
//! immutable snapshot chunks. An [`Event`] is one slot: the ring's sequence
//! number, then `timestamp << 16 | kind`, then the worker and the payload
//! packed into five words.
//!
//! # Payloads
//!
//! An event carries a small typed [`Payload`]: numbers and ids only. Anything
//! larger (a property's name, a counterexample, a panic message) lives in a
//! store that outlives the ring and is looked up by id when the event is shown:
//! the campaign's test list and tests store (by [`TestId`]), the corpus (by
//! [`EntryId`]) and the campaign's append-only note store (by index). Those
//! ids stay valid after the ring forgets the event, so the hot path stays
//! allocation-free and a reader never dereferences a pointer a writer might be
//! replacing.

use crate::ids::{EntryId, InjectionId, Seq, TestId, WorkerId};
use rudder_lockfree::{Entry, Ring, Select, WORDS};
use serde::{Deserialize, Serialize};
use std::time::{SystemTime, UNIX_EPOCH};

pub use rudder_lockfree::ring::Iter;

/// How many events the log keeps unless told otherwise (`read_logs` documents 2,500).
pub const DEFAULT_CAPACITY: usize = 2500;

/// Timestamps are kept in 48 bits of milliseconds (until the year 10889).
const TS_MASK: u64 = (1 << 48) - 1;
/// Words for the worker and the payload: all of a slot's but the first.
const PACKED_WORDS: usize = WORDS - 1;
/// Bits a payload may take: the packed words less the worker's 32.
pub const PAYLOAD_BITS: u32 = PACKED_WORDS as u32 * 64 - 32;

/// Declares the event vocabulary (see the module doc). Each entry:
/// `Name = discriminant { field: Type, … } => severity, category, droppable;`
/// Calls `$then! { $($extra)* ; <the entries> }` when given a callback, so that
/// other modules derive their own tables from the same entries.
macro_rules! vocabulary {
    ($then:ident! { $($extra:tt)* }) => {
        $then! {
            $($extra)*
            ;
            /// A test was falsified by a sequence of `calls` calls.
            PropertyFalsified = 0 { test: TestId, calls: u32, gas_used: u64 } => Error, Risk, false;
            /// Aggregated: `calls` calls (`reverts` of them reverted) in
            /// `sequences` sequences since the worker's previous
            /// `TransactionExecuted` event.
            TransactionExecuted = 1 {
                calls: u32, reverts: u32, sequences: u32, gas_used: u64, total_calls: u64
            } => Debug, MarketData, true;
            /// A sequence reached `new_points` coverage points nobody had
            /// reached (or, with `new_points` 0, a storage state its worker had
            /// not: state feedback); it is corpus entry `entry`, and the
            /// campaign now covers `total_points`.
            CoverageIncreased = 2 {
                entry: EntryId, new_points: u32, total_points: u32, calls: u32
            } => Info, Indicators, true;
            /// A worker started.
            WorkerStarted = 3 { seed: u64 } => Info, Performance, false;
            /// A worker stopped, with its totals.
            WorkerStopped = 4 { calls: u64, sequences: u64, reason: StopReason } => Info, Performance, false;
            /// A falsified test's counterexample is now `calls` calls long
            /// after `steps` shrink attempts; `done` once shrinking finished.
            TestShrunk = 5 { test: TestId, calls: u32, steps: u32, done: bool } => Info, Risk, false;
            /// A worker executed injection `injection`.
            InjectionExecuted = 6 {
                injection: InjectionId, executed: u32, reverted: u32, new_points: u32, falsified: u32
            } => Info, Execution, false;
            /// Optimization `test` reached `value` (an int256 as four
            /// little-endian words).
            OptimizationImproved = 7 { test: TestId, value: [u64; 4] } => Info, Indicators, false;
            /// A worker panicked; the campaign caught it and the worker
            /// stopped. The message is note `note` of the campaign.
            WorkerPanicked = 8 { note: u64 } => Error, Performance, false;
            /// Every worker has run injection `injection`: its `runs` summed
            /// (the counts of its `InjectionExecuted` events) and the
            /// values its `?`s took (note `note`).
            InjectionSummary = 9 {
                injection: InjectionId, runs: u32, executed: u32, reverted: u32,
                new_points: u32, falsified: u32, note: u64
            } => Info, Execution, false;
        }
    };
}
pub(crate) use vocabulary as with_event_kinds;

macro_rules! define_events {
    (; $(
        $(#[$doc:meta])*
        $name:ident = $code:literal { $($field:ident : $ty:ty),* $(,)? } => $sev:ident, $cat:ident, $drop:expr;
    )*) => {
        /// The category of an event. The first five are `read_logs`'s
        /// `eventType` enum; the others are rudder's documented extensions.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[repr(u8)]
        pub enum EventKind { $($(#[$doc])* $name = $code,)* }

        impl EventKind {
            /// Every kind, in discriminant order.
            pub const ALL: &'static [EventKind] = &[$(EventKind::$name,)*];

            /// The name used in JSON (`eventType`).
            pub fn as_str(self) -> &'static str {
                match self { $(EventKind::$name => stringify!($name),)* }
            }

            fn from_u8(v: u8) -> Option<Self> {
                match v { $($code => Some(EventKind::$name),)* _ => None }
            }
        }

        /// The typed payload of an event: numbers and ids only (see the
        /// module doc).
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Payload { $($(#[$doc])* $name { $($field: $ty),* },)* }

        impl Payload {
            /// The event kind this payload belongs to.
            pub fn kind(&self) -> EventKind {
                match self { $(Payload::$name { .. } => EventKind::$name,)* }
            }

            fn pack(&self, p: &mut Packer) {
                match self {
                    $(Payload::$name { $($field),* } => { $($field.pack(p);)* })*
                }
            }

            fn unpack(kind: EventKind, u: &mut Unpacker) -> Option<Self> {
                Some(match kind {
                    $(EventKind::$name => Payload::$name { $($field: <$ty as Packed>::unpack(u)?),* },)*
                })
            }
        }

        // Every payload fits the slot: checked when the crate compiles.
        $(const _: () = assert!(0 $(+ <$ty as Packed>::BITS)* <= PAYLOAD_BITS, stringify!($name));)*
        // Discriminants are the slot's kind byte and the ALL index.
        const _: () = { let mut i = 0; $(assert!($code == i); i += 1;)* let _ = i; };
    };
}

vocabulary!(define_events! {});

impl EventKind {
    /// The kind named `name` (as [`Self::as_str`] writes it).
    pub fn parse(name: &str) -> Option<EventKind> {
        Self::ALL.iter().copied().find(|k| k.as_str() == name)
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

    fn from_u8(v: u8) -> Option<Self> {
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

/// A value that packs into the ring's words in a fixed number of bits.
pub trait Packed: Sized {
    const BITS: u32;
    fn pack(&self, p: &mut Packer);
    fn unpack(u: &mut Unpacker) -> Option<Self>;
}

/// Writes values bit by bit into the packed words, lowest bits first.
#[derive(Default)]
pub struct Packer {
    words: [u64; PACKED_WORDS],
    at: u32,
}

impl Packer {
    #[inline]
    fn put(&mut self, v: u64, bits: u32) {
        let (w, off) = ((self.at / 64) as usize, self.at % 64);
        self.words[w] |= v << off;
        if off + bits > 64 {
            self.words[w + 1] |= v >> (64 - off);
        }
        self.at += bits;
    }
}

/// Reads values back in the order a [`Packer`] wrote them.
pub struct Unpacker<'a> {
    words: &'a [u64],
    at: u32,
}

impl Unpacker<'_> {
    #[inline]
    fn take(&mut self, bits: u32) -> u64 {
        let (w, off) = ((self.at / 64) as usize, self.at % 64);
        let mut v = self.words[w] >> off;
        if off + bits > 64 {
            v |= self.words[w + 1] << (64 - off);
        }
        self.at += bits;
        if bits == 64 { v } else { v & ((1 << bits) - 1) }
    }
}

macro_rules! packed_int {
    ($($t:ty => $bits:literal),*) => {$(
        impl Packed for $t {
            const BITS: u32 = $bits;
            #[inline]
            fn pack(&self, p: &mut Packer) {
                p.put(*self as u64, $bits)
            }
            #[inline]
            fn unpack(u: &mut Unpacker) -> Option<Self> {
                Some(u.take($bits) as $t)
            }
        }
    )*};
}
packed_int!(u32 => 32, u64 => 64);

macro_rules! packed_id {
    ($($t:ident($inner:ty)),*) => {$(
        impl Packed for $t {
            const BITS: u32 = <$inner as Packed>::BITS;
            #[inline]
            fn pack(&self, p: &mut Packer) {
                self.0.pack(p)
            }
            #[inline]
            fn unpack(u: &mut Unpacker) -> Option<Self> {
                <$inner>::unpack(u).map($t)
            }
        }
    )*};
}
packed_id!(TestId(u32), EntryId(u64), InjectionId(u64), WorkerId(u32));

impl Packed for bool {
    const BITS: u32 = 1;
    fn pack(&self, p: &mut Packer) {
        p.put(*self as u64, 1)
    }
    fn unpack(u: &mut Unpacker) -> Option<Self> {
        Some(u.take(1) != 0)
    }
}

impl Packed for StopReason {
    const BITS: u32 = 8;
    fn pack(&self, p: &mut Packer) {
        p.put(*self as u64, 8)
    }
    fn unpack(u: &mut Unpacker) -> Option<Self> {
        StopReason::from_u8(u.take(8) as u8)
    }
}

impl Packed for [u64; 4] {
    const BITS: u32 = 256;
    fn pack(&self, p: &mut Packer) {
        for w in self {
            p.put(*w, 64)
        }
    }
    fn unpack(u: &mut Unpacker) -> Option<Self> {
        Some(std::array::from_fn(|_| u.take(64)))
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

impl Entry for Event {
    #[inline]
    fn seq(&self) -> u64 {
        self.seq.0
    }

    #[inline]
    fn encode(&self) -> [u64; WORDS] {
        let mut p = Packer::default();
        self.worker.pack(&mut p);
        self.payload.pack(&mut p);
        let mut w = [0; WORDS];
        w[0] = (self.timestamp_ms & TS_MASK) << 16 | self.kind() as u64;
        w[1..].copy_from_slice(&p.words);
        w
    }

    fn decode(seq: u64, w: &[u64; WORDS]) -> Option<Self> {
        let kind = EventKind::from_u8(w[0] as u8)?;
        let mut u = Unpacker {
            words: &w[1..],
            at: 0,
        };
        let worker = WorkerId::unpack(&mut u)?;
        Some(Event {
            seq: Seq(seq),
            timestamp_ms: w[0] >> 16,
            worker,
            payload: Payload::unpack(kind, &mut u)?,
        })
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

impl Select<Event> for Filter {
    fn after(&self) -> Option<u64> {
        self.after.map(|s| s.0)
    }

    /// The kind and the worker; `after` is the ring's to apply (it skips
    /// older chunks whole instead of testing each event).
    fn keeps(&self, e: &Event) -> bool {
        self.kind.is_none_or(|k| k == e.kind()) && self.worker.is_none_or(|w| w == e.worker)
    }

    fn keeps_every(&self) -> bool {
        self.kind.is_none() && self.worker.is_none()
    }
}

/// A consistent snapshot of the log (see [`rudder_lockfree::Snapshot`]).
pub type Snapshot = rudder_lockfree::Snapshot<Event>;

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// RFC 3339 in UTC with milliseconds and `Z`.
pub fn rfc3339(ms: u64) -> String {
    humantime::format_rfc3339_millis(UNIX_EPOCH + std::time::Duration::from_millis(ms)).to_string()
}

/// The event log: the campaign's [`Event`]s on a lock-free [`Ring`]. Cheap to
/// share behind an `Arc`; every method takes `&self`.
#[derive(Debug)]
pub struct EventLog {
    ring: Ring<Event>,
}

impl Default for EventLog {
    fn default() -> Self {
        Self::new(DEFAULT_CAPACITY)
    }
}

impl EventLog {
    /// A log of `capacity` events (at least 1) with one lane per available
    /// core plus two (at least four), for threads that push concurrently.
    pub fn new(capacity: usize) -> Self {
        EventLog {
            ring: Ring::new(capacity),
        }
    }

    /// A log of `capacity` events (at least 1) and `lanes` lanes (at least 1):
    /// up to `lanes` threads push without ever finding every lane taken. Give
    /// a campaign one lane per worker plus one or two for its other threads.
    pub fn with_lanes(capacity: usize, lanes: usize) -> Self {
        EventLog {
            ring: Ring::with_lanes(capacity, lanes),
        }
    }

    pub fn capacity(&self) -> usize {
        self.ring.capacity()
    }

    /// How many lanes (concurrent pushers that never collide) the log has.
    pub fn lanes(&self) -> usize {
        self.ring.lanes()
    }

    /// How many pushes have taken a sequence number so far.
    pub fn pushed(&self) -> u64 {
        self.ring.pushed()
    }

    /// How many events the log holds: `min(pushed, capacity)`.
    pub fn len(&self) -> usize {
        self.ring.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ring.is_empty()
    }

    /// Pushes abandoned because every lane was held by another pusher.
    pub fn dropped(&self) -> u64 {
        self.ring.dropped()
    }

    /// Appends an event stamped now. Never blocks and never allocates; returns
    /// the event's sequence number, or `None` in the (counted) case where
    /// every lane was held by another pusher.
    pub fn push(&self, worker: WorkerId, payload: Payload) -> Option<Seq> {
        self.push_at(now_ms(), worker, payload)
    }

    /// [`push`](Self::push) with an explicit timestamp (kept modulo 2^48 ms).
    pub fn push_at(&self, timestamp_ms: u64, worker: WorkerId, payload: Payload) -> Option<Seq> {
        let event = Event {
            seq: Seq(0),
            timestamp_ms,
            worker,
            payload,
        };
        self.ring.push(worker.0 as usize, &event).map(Seq)
    }

    /// A consistent snapshot of the newest `capacity` events, shared with
    /// other readers where possible. Never waits for a writer, nor for
    /// another reader.
    pub fn view(&self) -> Snapshot {
        self.ring.view()
    }

    /// A snapshot of at most `limit` events that pass `filter`, newest first
    /// (by sequence number). Events being rewritten while the snapshot is
    /// taken are left out, never returned torn.
    pub fn snapshot(&self, filter: &Filter, limit: usize) -> Vec<Event> {
        self.ring.snapshot(filter, limit)
    }

    /// [`snapshot`](Self::snapshot) into a caller's buffer (cleared first).
    pub fn snapshot_into(&self, filter: &Filter, limit: usize, out: &mut Vec<Event>) {
        self.ring.snapshot_into(filter, limit, out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn started(seed: u64) -> Payload {
        Payload::WorkerStarted { seed }
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
        let selected: Vec<_> = log.view().select(&after).map(|e| e.seq.0).collect();
        assert_eq!(selected, vec![11, 10]);
    }

    #[test]
    fn every_payload_round_trips_through_the_words() {
        let payloads = [
            started(u64::MAX),
            Payload::WorkerStopped {
                calls: 5,
                sequences: u64::MAX,
                reason: StopReason::Panicked,
            },
            Payload::TransactionExecuted {
                calls: u32::MAX,
                reverts: 7,
                sequences: 3,
                gas_used: 1 << 40,
                total_calls: u64::MAX - 1,
            },
            Payload::CoverageIncreased {
                entry: EntryId(u64::MAX),
                new_points: 3,
                total_points: u32::MAX,
                calls: 9,
            },
            Payload::PropertyFalsified {
                test: TestId(u32::MAX),
                calls: 3,
                gas_used: 45_000,
            },
            Payload::TestShrunk {
                test: TestId(1),
                calls: 2,
                steps: u32::MAX,
                done: true,
            },
            Payload::InjectionExecuted {
                injection: InjectionId(4),
                executed: 2,
                reverted: 1,
                new_points: 8,
                falsified: u32::MAX,
            },
            Payload::OptimizationImproved {
                test: TestId(7),
                value: [1, u64::MAX, 3, u64::MAX],
            },
            Payload::WorkerPanicked { note: 3 },
            Payload::InjectionSummary {
                injection: InjectionId(u64::MAX),
                runs: 20,
                executed: 40,
                reverted: u32::MAX,
                new_points: 1,
                falsified: 0,
                note: u64::MAX,
            },
        ];
        // One payload of every kind.
        let mut kinds: Vec<_> = payloads.iter().map(|p| p.kind() as u8).collect();
        kinds.sort();
        assert_eq!(kinds, (0..EventKind::ALL.len() as u8).collect::<Vec<_>>());
        let log = EventLog::new(payloads.len());
        for p in payloads {
            log.push_at(1234, WorkerId(u32::MAX - 1), p);
        }
        let mut got = log.snapshot(&Filter::default(), 100);
        got.reverse();
        for (e, p) in got.iter().zip(payloads) {
            assert_eq!(e.payload, p);
            assert_eq!(e.worker, WorkerId(u32::MAX - 1));
            assert_eq!(e.timestamp_ms, 1234);
        }
        assert_eq!(got.len(), payloads.len());
    }

    #[test]
    fn kinds_parse_back_from_their_names() {
        for &k in EventKind::ALL {
            assert_eq!(EventKind::parse(k.as_str()), Some(k));
        }
        assert_eq!(EventKind::parse("NoSuchEvent"), None);
    }
}
