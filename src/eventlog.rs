//! The EventLog: a fixed-size, lock-free ring of the campaign's most recent
//! events (2500 by default), written by every worker and read by every tool.
//!
//! # Design
//!
//! Each slot is one cache line: a 64-bit `stamp` and seven 64-bit payload
//! words, all atomics. A push takes a ticket from a global counter
//! (`fetch_add`), which is the event's sequence number [`Seq`] and picks the
//! slot `seq % capacity`. The stamp is `(seq + 1) << 1`, with the low bit set
//! while a writer is filling the slot (a seqlock per slot):
//!
//! * **Writer**: CAS the stamp from an *older, idle* value to `busy(seq)`,
//!   release fence, store the words (relaxed), then store `idle(seq)` with
//!   release. If the slot is busy (a writer a whole lap behind is still
//!   filling it) or already holds a newer sequence, the push gives up and is
//!   counted in [`EventLog::dropped`]: it never waits, never allocates, and two
//!   writers never interleave their words in one slot. On a ring of 2500 that
//!   takes a writer stalled for 2500 other pushes in the middle of its own.
//! * **Reader**: for each sequence from the newest down, load the stamp
//!   (acquire), copy the words (relaxed atomic loads, never a `ptr::read` of
//!   memory another thread may be writing), acquire fence, reload the stamp.
//!   The copy is kept only if both stamps equal `idle(seq)`. A slot being
//!   rewritten is skipped, so a reader never sees a torn event and never makes
//!   a writer wait.
//! * Stamps are 64-bit sequence numbers, so a slot cannot come back to a stamp
//!   a reader saw a lap ago (no ABA; 2^63 pushes at 10^9/s is 292 years).
//!
//! # Payloads
//!
//! An event carries a small typed [`Payload`] that fits in five words: numbers
//! and ids only. Anything larger (a property's name, a counterexample, a panic
//! message) lives in a store that outlives the ring and is looked up by id
//! when the event is shown: the campaign's test list and tests store (by
//! [`TestId`]), the corpus (by [`EntryId`]) and the campaign's append-only note
//! store (by index). Those ids stay valid after the ring forgets the event, so
//! the hot path stays allocation-free and a reader never dereferences a pointer
//! a writer might be replacing.

use crate::ids::{EntryId, InjectionId, Seq, TestId, WorkerId};
use crate::sync::{AtomicU64, Ordering, fence};
use serde::{Deserialize, Serialize};
use std::time::{SystemTime, UNIX_EPOCH};

/// How many events the ring keeps unless told otherwise (seed 002).
pub const DEFAULT_CAPACITY: usize = 2500;

const PAYLOAD_WORDS: usize = 5;
const WORDS: usize = 2 + PAYLOAD_WORDS;

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
    /// A sequence reached `new_points` coverage points nobody had reached; it
    /// is corpus entry `entry`, and the campaign now covers `total_points`.
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

    fn encode(&self) -> [u64; PAYLOAD_WORDS] {
        let pair = |a: u32, b: u32| (a as u64) | ((b as u64) << 32);
        match *self {
            Payload::WorkerStarted { seed } => [seed, 0, 0, 0, 0],
            Payload::WorkerStopped {
                calls,
                sequences,
                reason,
            } => [calls, sequences, reason as u64, 0, 0],
            Payload::TransactionExecuted {
                calls,
                reverts,
                sequences,
                gas_used,
                total_calls,
            } => [
                pair(calls, reverts),
                sequences as u64,
                gas_used,
                total_calls,
                0,
            ],
            Payload::CoverageIncreased {
                entry,
                new_points,
                total_points,
                calls,
            } => [entry.0, pair(new_points, total_points), calls as u64, 0, 0],
            Payload::PropertyFalsified {
                test,
                calls,
                gas_used,
            } => [pair(test.0, calls), gas_used, 0, 0, 0],
            Payload::TestShrunk {
                test,
                calls,
                steps,
                done,
            } => [pair(test.0, calls), steps as u64, done as u64, 0, 0],
            Payload::InjectionExecuted {
                injection,
                executed,
                reverted,
                new_points,
                falsified,
            } => [
                injection.0,
                pair(executed, reverted),
                pair(new_points, falsified),
                0,
                0,
            ],
            Payload::OptimizationImproved { test, value } => {
                [test.0 as u64, value[0], value[1], value[2], value[3]]
            }
            Payload::WorkerPanicked { note } => [note, 0, 0, 0, 0],
        }
    }

    fn decode(kind: EventKind, w: &[u64; PAYLOAD_WORDS]) -> Option<Self> {
        let lo = |v: u64| v as u32;
        let hi = |v: u64| (v >> 32) as u32;
        Some(match kind {
            EventKind::WorkerStarted => Payload::WorkerStarted { seed: w[0] },
            EventKind::WorkerStopped => Payload::WorkerStopped {
                calls: w[0],
                sequences: w[1],
                reason: StopReason::from_u64(w[2])?,
            },
            EventKind::TransactionExecuted => Payload::TransactionExecuted {
                calls: lo(w[0]),
                reverts: hi(w[0]),
                sequences: w[1] as u32,
                gas_used: w[2],
                total_calls: w[3],
            },
            EventKind::CoverageIncreased => Payload::CoverageIncreased {
                entry: EntryId(w[0]),
                new_points: lo(w[1]),
                total_points: hi(w[1]),
                calls: w[2] as u32,
            },
            EventKind::PropertyFalsified => Payload::PropertyFalsified {
                test: TestId(lo(w[0])),
                calls: hi(w[0]),
                gas_used: w[1],
            },
            EventKind::TestShrunk => Payload::TestShrunk {
                test: TestId(lo(w[0])),
                calls: hi(w[0]),
                steps: w[1] as u32,
                done: w[2] != 0,
            },
            EventKind::InjectionExecuted => Payload::InjectionExecuted {
                injection: InjectionId(w[0]),
                executed: lo(w[1]),
                reverted: hi(w[1]),
                new_points: lo(w[2]),
                falsified: hi(w[2]),
            },
            EventKind::OptimizationImproved => Payload::OptimizationImproved {
                test: TestId(w[0] as u32),
                value: [w[1], w[2], w[3], w[4]],
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

const fn idle(seq: u64) -> u64 {
    (seq + 1) << 1
}

/// The lock-free ring. Cheap to share behind an `Arc`; every method takes `&self`.
pub struct EventLog {
    slots: Box<[Slot]>,
    ticket: AtomicU64,
    dropped: AtomicU64,
}

impl std::fmt::Debug for EventLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventLog")
            .field("capacity", &self.capacity())
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
    /// A ring of `capacity` slots (at least 1).
    pub fn new(capacity: usize) -> Self {
        let capacity = capacity.max(1);
        EventLog {
            slots: (0..capacity).map(|_| Slot::new()).collect(),
            ticket: AtomicU64::new(0),
            dropped: AtomicU64::new(0),
        }
    }

    pub fn capacity(&self) -> usize {
        self.slots.len()
    }

    /// How many pushes have taken a sequence number so far.
    pub fn pushed(&self) -> u64 {
        self.ticket.load(Ordering::Relaxed)
    }

    /// How many events the ring holds now: `min(pushed, capacity)`.
    pub fn len(&self) -> usize {
        (self.pushed() as usize).min(self.capacity())
    }

    pub fn is_empty(&self) -> bool {
        self.pushed() == 0
    }

    /// Pushes abandoned because a writer a full lap behind still held the slot.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    /// Appends an event stamped now. Never blocks and never allocates; returns
    /// the event's sequence number, or `None` in the (counted) case where the
    /// slot was still held by a writer a full lap behind.
    pub fn push(&self, worker: WorkerId, payload: Payload) -> Option<Seq> {
        self.push_at(now_ms(), worker, payload)
    }

    /// [`push`](Self::push) with an explicit timestamp.
    pub fn push_at(&self, timestamp_ms: u64, worker: WorkerId, payload: Payload) -> Option<Seq> {
        let seq = self.ticket.fetch_add(1, Ordering::Relaxed);
        let slot = &self.slots[(seq % self.slots.len() as u64) as usize];
        let mine = idle(seq);
        let mut current = slot.stamp.load(Ordering::Relaxed);
        loop {
            // Busy (odd) or already at/after our lap: never wait, never overwrite newer.
            if current & 1 == 1 || current >= mine {
                self.dropped.fetch_add(1, Ordering::Relaxed);
                return None;
            }
            match slot.stamp.compare_exchange_weak(
                current,
                mine | 1,
                Ordering::Acquire,
                Ordering::Relaxed,
            ) {
                Ok(_) => break,
                Err(seen) => current = seen,
            }
        }
        // Orders the busy stamp before the word stores for any reader that
        // sees one of the new words (it then re-reads a busy or newer stamp).
        fence(Ordering::Release);
        let p = payload.encode();
        let head = timestamp_ms;
        let meta = worker.0 as u64 | ((payload.kind() as u64) << 32);
        slot.words[0].store(head, Ordering::Relaxed);
        slot.words[1].store(meta, Ordering::Relaxed);
        for (w, v) in slot.words[2..].iter().zip(p) {
            w.store(v, Ordering::Relaxed);
        }
        slot.stamp.store(mine, Ordering::Release);
        Some(Seq(seq))
    }

    /// Reads the event with sequence number `seq` if the ring still holds it
    /// and no writer is rewriting its slot.
    fn read(&self, seq: u64) -> Option<Event> {
        let slot = &self.slots[(seq % self.slots.len() as u64) as usize];
        let want = idle(seq);
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
        let kind = EventKind::from_u8((w[1] >> 32) as u8)?;
        let mut p = [0u64; PAYLOAD_WORDS];
        p.copy_from_slice(&w[2..]);
        Some(Event {
            seq: Seq(seq),
            timestamp_ms: w[0],
            worker: WorkerId(w[1] as u32),
            payload: Payload::decode(kind, &p)?,
        })
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
        let head = self.ticket.load(Ordering::Acquire);
        let oldest = head.saturating_sub(self.slots.len() as u64);
        let floor = filter
            .after
            .map_or(oldest, |s| oldest.max(s.0.saturating_add(1)));
        let mut seq = head;
        while seq > floor && out.len() < limit {
            seq -= 1;
            if let Some(e) = self.read(seq)
                && filter.keeps(&e)
            {
                out.push(e);
            }
        }
    }
}

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
    fn a_slot_held_by_a_lapped_writer_drops_the_push_instead_of_waiting() {
        let log = EventLog::new(2);
        // Simulate a writer of seq 0 that claimed slot 0 and stalled.
        log.ticket.store(1, Ordering::Relaxed);
        log.slots[0].stamp.store(idle(0) | 1, Ordering::Relaxed);
        assert!(log.push(WorkerId(0), started(1)).is_some()); // seq 1 -> slot 1
        assert!(log.push(WorkerId(0), started(2)).is_none()); // seq 2 -> slot 0, busy
        assert_eq!(log.dropped(), 1);
        let seqs: Vec<_> = log
            .snapshot(&Filter::default(), 10)
            .iter()
            .map(|e| e.seq.0)
            .collect();
        assert_eq!(seqs, vec![1]);
    }

    /// Producers push events whose words are all derived from one number; a
    /// reader checks every event it sees. Any torn read breaks the checksum.
    #[test]
    fn stress_no_torn_events_over_ten_million_pushes() {
        const PRODUCERS: u64 = 2;
        let per_producer: u64 = if cfg!(debug_assertions) {
            500_000
        } else {
            5_000_000
        };
        let log = Arc::new(EventLog::new(64));
        let done = Arc::new(AtomicBool::new(false));
        let reader = {
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
        };
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
        let (seen, torn, misordered) = reader.join().unwrap();
        assert_eq!(torn, 0, "torn events among {seen} read");
        assert_eq!(misordered, 0);
        assert_eq!(log.pushed(), PRODUCERS * per_producer);
        assert!(seen > 0);
    }
}
