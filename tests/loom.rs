//! Model-checks the EventLog ring with loom: every interleaving of two
//! producers and one reader on rings of 2 and 3 slots.
//!
//! Run: `cargo test --release --features loom --test loom`
#![cfg(feature = "loom")]

use loom::sync::Arc;
use loom::thread;
use rudder::eventlog::{EventLog, Filter, Payload};
use rudder::ids::WorkerId;

/// Every word of the payload is derived from `x`, so a torn read shows.
fn payload(x: u64) -> Payload {
    Payload::TransactionExecuted {
        calls: x as u32,
        reverts: (x as u32).wrapping_mul(3),
        sequences: (x as u32) ^ 0xa5a5,
        gas_used: !x,
        total_calls: x,
    }
}

fn check(e: &rudder::eventlog::Event) {
    match e.payload {
        Payload::TransactionExecuted { total_calls: x, .. } => {
            assert_eq!(e.payload, payload(x), "torn event");
            assert_eq!(e.timestamp_ms, x + 1000, "torn timestamp");
            assert_eq!(e.worker.0 as u64, x / 10, "torn worker");
        }
        _ => panic!("unexpected payload"),
    }
}

fn model(slots: usize, pushes: [u64; 2], preemptions: usize) {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(preemptions);
    builder.check(move || {
        let log = Arc::new(EventLog::new(slots));
        let producers: Vec<_> = (0..2u64)
            .map(|p| {
                let log = log.clone();
                thread::spawn(move || {
                    for i in 0..pushes[p as usize] {
                        let x = p * 10 + i;
                        log.push_at(x + 1000, WorkerId(p as u32), payload(x));
                    }
                })
            })
            .collect();
        let snap = log.snapshot(&Filter::default(), 16);
        for pair in snap.windows(2) {
            assert!(pair[0].seq > pair[1].seq, "not newest-first");
        }
        for e in &snap {
            check(e);
        }
        // Each producer's own events appear in its push order, newest first.
        for p in 0..2u32 {
            let mine: Vec<_> = snap.iter().filter(|e| e.worker.0 == p).collect();
            for pair in mine.windows(2) {
                assert!(pair[0].timestamp_ms > pair[1].timestamp_ms);
            }
        }
        for p in producers {
            p.join().unwrap();
        }
        let after = log.snapshot(&Filter::default(), 16);
        assert!(after.len() <= slots);
        for e in &after {
            check(e);
        }
        assert_eq!(log.pushed(), pushes[0] + pushes[1]);
        // With no dropped push, the quiescent ring is full of the newest
        // pushes: no slot was left busy or torn.
        if log.dropped() == 0 {
            assert_eq!(after.len(), slots.min((pushes[0] + pushes[1]) as usize));
        }
    });
}

// Sizes are what loom explores in minutes on two cores: every interleaving
// up to the preemption bound, the reader racing both producers.

#[test]
fn two_slots_no_wrap() {
    model(2, [1, 1], 4);
}

#[test]
fn two_slots_wrapping() {
    model(2, [2, 1], 2);
}

#[test]
fn one_slot_every_push_overwrites() {
    model(1, [1, 1], 3);
}

#[test]
fn three_slots_two_each() {
    model(3, [2, 2], 2);
}
