//! The EventLog ring against `Mutex<VecDeque>` (std and parking_lot), in one
//! run: 2 producers + 1 reader taking 2500-entry snapshots.
//!
//! Criterion measures single-thread push and snapshot-under-load times; the
//! `load` section then runs each structure with 2 producers and a reader and
//! prints pushes/s, push p99.9 and snapshot p50/p99 (the figures in
//! BENCHMARKS.md). Run: `cargo bench --bench eventlog`.

mod common;

use common::{fmt_ns, per_sec, percentile, quick};
use criterion::{Criterion, criterion_group};
use rudder::eventlog::{Event, EventLog, Filter, Payload};
use rudder::ids::{Seq, WorkerId};
use std::collections::VecDeque;
use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

const CAP: usize = 2500;

fn payload(i: u64) -> Payload {
    Payload::TransactionExecuted {
        calls: i as u32,
        reverts: 0,
        sequences: 1,
        gas_used: i,
        total_calls: i,
    }
}

trait Log: Send + Sync + 'static {
    fn name(&self) -> &'static str;
    fn push(&self, w: WorkerId, p: Payload);
    fn snapshot(&self, out: &mut Vec<Event>);
}

impl Log for EventLog {
    fn name(&self) -> &'static str {
        "ring (lock-free)"
    }
    fn push(&self, w: WorkerId, p: Payload) {
        self.push_at(1, w, p);
    }
    fn snapshot(&self, out: &mut Vec<Event>) {
        self.snapshot_into(&Filter::default(), CAP, out);
    }
}

struct StdLog(std::sync::Mutex<(VecDeque<Event>, u64)>);
struct PlLog(parking_lot::Mutex<(VecDeque<Event>, u64)>);

fn push_deque(q: &mut (VecDeque<Event>, u64), w: WorkerId, p: Payload) {
    if q.0.len() == CAP {
        q.0.pop_front();
    }
    q.0.push_back(Event {
        seq: Seq(q.1),
        timestamp_ms: 1,
        worker: w,
        payload: p,
    });
    q.1 += 1;
}

impl Log for StdLog {
    fn name(&self) -> &'static str {
        "std Mutex<VecDeque>"
    }
    fn push(&self, w: WorkerId, p: Payload) {
        push_deque(&mut self.0.lock().unwrap(), w, p);
    }
    fn snapshot(&self, out: &mut Vec<Event>) {
        out.clear();
        out.extend(self.0.lock().unwrap().0.iter().rev().copied());
    }
}

impl Log for PlLog {
    fn name(&self) -> &'static str {
        "parking_lot Mutex<VecDeque>"
    }
    fn push(&self, w: WorkerId, p: Payload) {
        push_deque(&mut self.0.lock(), w, p);
    }
    fn snapshot(&self, out: &mut Vec<Event>) {
        out.clear();
        out.extend(self.0.lock().0.iter().rev().copied());
    }
}

fn logs() -> Vec<Arc<dyn Log>> {
    vec![
        Arc::new(EventLog::new(CAP)),
        Arc::new(StdLog(std::sync::Mutex::new((
            VecDeque::with_capacity(CAP),
            0,
        )))),
        Arc::new(PlLog(parking_lot::Mutex::new((
            VecDeque::with_capacity(CAP),
            0,
        )))),
    ]
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("eventlog");
    for log in logs() {
        let name = log.name();
        g.bench_function(format!("push/{name}"), |b| {
            let mut i = 0u64;
            b.iter(|| {
                i += 1;
                log.push(WorkerId(0), payload(i));
            })
        });
        // Fill, then snapshot while one producer keeps pushing.
        for i in 0..CAP as u64 {
            log.push(WorkerId(0), payload(i));
        }
        let stop = Arc::new(AtomicBool::new(false));
        let producer = {
            let (log, stop) = (log.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut i = 0;
                while !stop.load(Ordering::Relaxed) {
                    log.push(WorkerId(1), payload(i));
                    i += 1;
                }
            })
        };
        let mut out = Vec::with_capacity(CAP);
        g.bench_function(format!("snapshot2500_under_load/{name}"), |b| {
            b.iter(|| {
                log.snapshot(&mut out);
                black_box(out.len())
            })
        });
        stop.store(true, Ordering::Relaxed);
        producer.join().unwrap();
    }
    g.finish();
}

/// 2 producers + 1 reader for `dur`: pushes/s, push p99.9, snapshot p50/p99.
fn load(log: Arc<dyn Log>, dur: Duration) -> (f64, u64, u64, u64, u64) {
    let stop = Arc::new(AtomicBool::new(false));
    let producers: Vec<_> = (0..2)
        .map(|p| {
            let (log, stop) = (log.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut lat = Vec::with_capacity(1 << 20);
                let mut n = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    // Time every 64th push (timer cost excluded from the rate).
                    for _ in 0..63 {
                        log.push(WorkerId(p), payload(n));
                        n += 1;
                    }
                    let t = Instant::now();
                    log.push(WorkerId(p), payload(n));
                    lat.push(t.elapsed().as_nanos() as u64);
                    n += 1;
                }
                (n, lat)
            })
        })
        .collect();
    let reader = {
        let (log, stop) = (log.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut out = Vec::with_capacity(CAP);
            let mut lat = Vec::new();
            while !stop.load(Ordering::Relaxed) {
                let t = Instant::now();
                log.snapshot(&mut out);
                lat.push(t.elapsed().as_nanos() as u64);
                black_box(out.len());
            }
            lat
        })
    };
    let t0 = Instant::now();
    std::thread::sleep(dur);
    stop.store(true, Ordering::Relaxed);
    let mut pushes = 0;
    let mut push_lat = Vec::new();
    for p in producers {
        let (n, lat) = p.join().unwrap();
        pushes += n;
        push_lat.extend(lat);
    }
    let elapsed = t0.elapsed();
    let mut snap = reader.join().unwrap();
    (
        per_sec(pushes, elapsed),
        percentile(&mut push_lat, 99.9),
        percentile(&mut snap, 50.0),
        percentile(&mut snap, 99.0),
        snap.len() as u64,
    )
}

fn report() {
    let dur = if quick() {
        Duration::from_millis(100)
    } else {
        Duration::from_secs(3)
    };
    println!("\nload: 2 producers + 1 reader snapshotting 2500, {dur:?} each");
    println!("| structure | pushes/s | push p99.9 | snapshot p50 | snapshot p99 | snapshots |");
    println!("|---|---|---|---|---|---|");
    for log in logs() {
        let (rate, p999, s50, s99, n) = load(log.clone(), dur);
        println!(
            "| {} | {:.1} M | {} | {} | {} | {} |",
            log.name(),
            rate / 1e6,
            fmt_ns(p999),
            fmt_ns(s50),
            fmt_ns(s99),
            n
        );
    }
}

criterion_group!(benches, bench);

fn main() {
    if !quick() {
        benches();
        Criterion::default().configure_from_args().final_summary();
    }
    report();
}
