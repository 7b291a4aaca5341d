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
    /// Takes a consistent snapshot of the newest 2500 events and returns how
    /// many it holds (`out` is scratch space for the copying variants).
    fn snapshot(&self, out: &mut Vec<Event>) -> usize;
}

/// How a reader of the ring takes its snapshot.
#[derive(Clone, Copy)]
enum Read {
    /// `view()`: the shared, immutable snapshot.
    View,
    /// `view()`, then every event visited newest first.
    ViewIterated,
    /// `snapshot_into`: the events copied into the reader's `Vec`.
    Copied,
}

struct Ring(EventLog, Read);

impl Log for Ring {
    fn name(&self) -> &'static str {
        match self.1 {
            Read::View => "ring: view()",
            Read::ViewIterated => "ring: view() + iterate all",
            Read::Copied => "ring: copied into a Vec",
        }
    }
    fn push(&self, w: WorkerId, p: Payload) {
        self.0.push_at(1, w, p);
    }
    fn snapshot(&self, out: &mut Vec<Event>) -> usize {
        match self.1 {
            Read::View => self.0.view().len(),
            Read::ViewIterated => {
                let v = self.0.view();
                let mut n = 0;
                for e in v.iter() {
                    black_box(e.seq);
                    n += 1;
                }
                n
            }
            Read::Copied => {
                self.0.snapshot_into(&Filter::default(), CAP, out);
                out.len()
            }
        }
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
    fn snapshot(&self, out: &mut Vec<Event>) -> usize {
        out.clear();
        out.extend(self.0.lock().unwrap().0.iter().rev().copied());
        out.len()
    }
}

impl Log for PlLog {
    fn name(&self) -> &'static str {
        "parking_lot Mutex<VecDeque>"
    }
    fn push(&self, w: WorkerId, p: Payload) {
        push_deque(&mut self.0.lock(), w, p);
    }
    fn snapshot(&self, out: &mut Vec<Event>) -> usize {
        out.clear();
        out.extend(self.0.lock().0.iter().rev().copied());
        out.len()
    }
}

fn logs() -> Vec<Arc<dyn Log>> {
    vec![
        Arc::new(Ring(EventLog::new(CAP), Read::View)),
        Arc::new(Ring(EventLog::new(CAP), Read::ViewIterated)),
        Arc::new(Ring(EventLog::new(CAP), Read::Copied)),
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
            b.iter(|| black_box(log.snapshot(&mut out)))
        });
        stop.store(true, Ordering::Relaxed);
        producer.join().unwrap();
    }
    g.finish();
}

/// 2 producers + 1 reader for `dur`: pushes/s, push p99.9, snapshot p50/p99,
/// snapshots taken and the mean events per snapshot. With `pace`, each
/// producer pushes at most that many events per second (spinning between
/// batches, as a busy worker would); without, as fast as it can.
fn load(log: Arc<dyn Log>, dur: Duration, pace: Option<f64>) -> (f64, u64, u64, u64, u64, u64) {
    let stop = Arc::new(AtomicBool::new(false));
    let producers: Vec<_> = (0..2)
        .map(|p| {
            let (log, stop) = (log.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut lat = Vec::with_capacity(1 << 20);
                let mut n = 0u64;
                let t0 = Instant::now();
                while !stop.load(Ordering::Relaxed) {
                    if let Some(rate) = pace {
                        while (n as f64) > t0.elapsed().as_secs_f64() * rate
                            && !stop.load(Ordering::Relaxed)
                        {
                            std::hint::spin_loop();
                        }
                    }
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
            let mut events = 0;
            while !stop.load(Ordering::Relaxed) {
                let t = Instant::now();
                let n = log.snapshot(&mut out);
                lat.push(t.elapsed().as_nanos() as u64);
                events += n as u64;
            }
            (lat, events)
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
    let (mut snap, events) = reader.join().unwrap();
    let taken = snap.len() as u64;
    (
        per_sec(pushes, elapsed),
        percentile(&mut push_lat, 99.9),
        percentile(&mut snap, 50.0),
        percentile(&mut snap, 99.0),
        taken,
        events / taken.max(1),
    )
}

fn report() {
    // RUDDER_BENCH_LOAD_MS sets the load phase's length per structure.
    let dur = match std::env::var("RUDDER_BENCH_LOAD_MS")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        Some(ms) => Duration::from_millis(ms),
        None if quick() => Duration::from_millis(100),
        None => Duration::from_secs(3),
    };
    let pace = 500_000.0;
    for (title, pace) in [
        ("as fast as they can", None),
        (
            "paced at 2 × 0.5 M pushes/s, a load every structure sustains",
            Some(pace),
        ),
    ] {
        println!(
            "\nload: 2 producers ({title}) + 1 reader snapshotting 2500, {dur:?} each, 3 runs"
        );
        println!(
            "| structure | run | pushes/s | push p99.9 | snapshot p50 | snapshot p99 | snapshots | events/snapshot |"
        );
        println!("|---|---|---|---|---|---|---|---|");
        for log in logs() {
            for run in 1..=3 {
                let (rate, p999, s50, s99, n, per) = load(log.clone(), dur, pace);
                println!(
                    "| {} | {run} | {:.1} M | {} | {} | {} | {} | {} |",
                    log.name(),
                    rate / 1e6,
                    fmt_ns(p999),
                    fmt_ns(s50),
                    fmt_ns(s99),
                    n,
                    per
                );
            }
        }
    }
}

criterion_group!(benches, bench);

fn main() {
    common::criterion(benches);
    report();
}
