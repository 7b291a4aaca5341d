//! Whole-campaign throughput (calls/s per worker and total, 1 and 2 workers)
//! beside bare revm, and time to falsify each bundled bug (median of 5 seeds).
//! Run: `cargo bench --bench campaign`.

mod common;

use rudder::config::{Config, TestMode};
use std::time::{Duration, Instant};

fn run(
    contract: &str,
    mode: TestMode,
    workers: usize,
    seed: u64,
    limit: u64,
    timeout: Option<std::time::Duration>,
) -> (rudder::campaign::Report, Duration) {
    let dir = tempfile::tempdir().unwrap();
    let config = Config {
        test_mode: mode,
        workers: Some(workers),
        seed: Some(seed),
        test_limit: limit,
        timeout,
        stop_on_fail: true,
        ..Config::default()
    };
    let mut c = common::campaign(contract, config, dir.path());
    let t0 = Instant::now();
    c.start().unwrap();
    // Time to the first falsification (shrinking excluded), or to the end.
    let mut found = None;
    while !c.is_finished() {
        if found.is_none() && c.read().tests().falsified_count() > 0 {
            found = Some(t0.elapsed());
        }
        std::thread::sleep(Duration::from_micros(200));
    }
    let r = c.wait();
    let t = found.unwrap_or_else(|| t0.elapsed());
    (r, t)
}

fn main() {
    let quick = common::quick();
    let limit = if quick { 20_000 } else { 2_000_000 };
    println!("| contract | workers | calls | seconds | calls/s total | calls/s per worker |");
    println!("|---|---|---|---|---|---|");
    for contract in ["AlwaysHolds", "Token"] {
        for workers in [1usize, 2] {
            let (r, _) = run(contract, TestMode::Property, workers, 1, limit, None);
            println!(
                "| {contract} | {workers} | {} | {:.2} | {:.0} | {:.0} |",
                r.calls,
                r.elapsed_secs,
                r.calls_per_sec,
                r.calls_per_sec / workers as f64
            );
        }
    }
    println!(
        "\n| bug | mode | median time to falsify (5 seeds, 1 worker) | median calls | shrunk to |"
    );
    println!("|---|---|---|---|---|");
    for (contract, mode) in [
        ("SetSeven", TestMode::Property),
        ("Sequence", TestMode::Property),
        ("OnlySender", TestMode::Property),
        ("TimeLock", TestMode::Property),
        ("Assertion", TestMode::Assertion),
    ] {
        let mut times = Vec::new();
        let mut calls = Vec::new();
        let mut shrunk = String::new();
        for seed in 1..=5u64 {
            let (r, t) = run(
                contract,
                mode,
                1,
                seed,
                5_000_000,
                Some(std::time::Duration::from_secs(60)),
            );
            times.push(t.as_micros() as u64);
            calls.push(r.calls);
            if let Some(tr) = r.tests.iter().find(|t| t.status == "falsified") {
                shrunk = tr.sequence.join("; ");
            }
        }
        let med_t = common::percentile(&mut times, 50.0);
        let med_c = common::percentile(&mut calls, 50.0);
        println!(
            "| {contract} | {mode:?} | {} | {med_c} | `{shrunk}` |",
            common::fmt_ns(med_t * 1000)
        );
    }
}
