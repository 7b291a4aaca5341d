//! Model-checks the ring with loom: every interleaving (up to a preemption
//! bound) of two producers and a reader on rings of 1 to 3 slots, with a lane
//! per producer, with both producers sharing one lane, and with a second
//! reader racing the first for the shared view.
//!
//! Run: `cargo test --release -p rudder-lockfree --features loom --test loom`
#![cfg(feature = "loom")]

use loom::sync::Arc;
use loom::thread;
use rudder_lockfree::{All, Entry, Ring, WORDS};

/// A test event: every word is derived from `x` and the producer, so a torn
/// read shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Ev {
    seq: u64,
    words: [u64; WORDS],
}

fn ev(producer: u32, x: u64) -> Ev {
    let words = [
        x,
        !x,
        x.wrapping_mul(3),
        x ^ 0xa5a5,
        producer as u64,
        x + 1000,
    ];
    Ev { seq: 0, words }
}

impl Ev {
    fn x(&self) -> u64 {
        self.words[0]
    }
    fn producer(&self) -> u32 {
        self.words[4] as u32
    }
}

impl Entry for Ev {
    fn seq(&self) -> u64 {
        self.seq
    }
    fn encode(&self) -> [u64; WORDS] {
        self.words
    }
    /// Accepts any words, so that the checks below see a torn event.
    fn decode(seq: u64, words: &[u64; WORDS]) -> Option<Self> {
        Some(Ev { seq, words: *words })
    }
}

fn check(e: &Ev) {
    assert_eq!(e.words, ev(e.producer(), e.x()).words, "torn event");
    assert_eq!(e.producer() as u64, e.x() / 10, "torn producer");
}

/// A snapshot taken while producers push: newest first, nothing torn, each
/// producer's events in its push order.
fn read_and_check(ring: &Ring<Ev>) {
    let snap = ring.snapshot(&All, 16);
    for pair in snap.windows(2) {
        assert!(pair[0].seq > pair[1].seq, "not newest-first");
    }
    for e in &snap {
        check(e);
    }
    for p in 0..2u32 {
        let mine: Vec<_> = snap.iter().filter(|e| e.producer() == p).collect();
        for pair in mine.windows(2) {
            assert!(pair[0].x() > pair[1].x());
        }
    }
}

fn model(slots: usize, lanes: usize, pushes: [u64; 2], preemptions: usize, readers: usize) {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(preemptions);
    builder.check(move || {
        let log = Arc::new(Ring::<Ev>::with_lanes(slots, lanes));
        let producers: Vec<_> = (0..2u64)
            .map(|p| {
                let log = log.clone();
                thread::spawn(move || {
                    for i in 0..pushes[p as usize] {
                        let x = p * 10 + i;
                        log.push(p as usize, &ev(p as u32, x));
                    }
                })
            })
            .collect();
        let others: Vec<_> = (1..readers)
            .map(|_| {
                let log = log.clone();
                thread::spawn(move || read_and_check(&log))
            })
            .collect();
        read_and_check(&log);
        for t in producers.into_iter().chain(others) {
            t.join().unwrap();
        }
        let after = log.snapshot(&All, 16);
        assert!(after.len() <= slots);
        for e in &after {
            check(e);
        }
        assert_eq!(log.pushed() + log.dropped(), pushes[0] + pushes[1]);
        // The quiescent log holds the newest pushes: no slot was left busy or
        // torn, and nothing published was lost.
        assert_eq!(after.len(), slots.min(log.pushed() as usize));
        if let Some(newest) = after.first() {
            assert_eq!(newest.seq + 1, log.pushed());
        }
    });
}

// Sizes are what loom explores in minutes on two cores: every interleaving
// up to the preemption bound, the reader racing both producers.

#[test]
fn two_slots_no_wrap() {
    model(2, 2, [1, 1], 4, 1);
}

#[test]
fn two_slots_wrapping() {
    model(2, 2, [2, 1], 2, 1);
}

#[test]
fn one_slot_every_push_overwrites() {
    model(1, 2, [2, 1], 3, 1);
}

#[test]
fn two_slots_a_lane_laps_itself() {
    model(2, 2, [3, 1], 2, 1);
}

/// Both producers want the one lane: one of them may find it held and drop
/// its push; nothing is torn and the log stays consistent.
#[test]
fn one_lane_shared_by_both_producers() {
    model(2, 1, [2, 1], 2, 1);
}

/// Two readers race for the shared view; the loser builds a private one.
#[test]
fn two_readers() {
    model(2, 2, [1, 1], 2, 2);
}
