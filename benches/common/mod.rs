//! Helpers shared by the benches: percentiles and a plain results table.
#![allow(dead_code)]

use std::time::Duration;

/// Percentile `p` (0..=100) of `samples` (sorted in place), in nanoseconds.
pub fn percentile(samples: &mut [u64], p: f64) -> u64 {
    if samples.is_empty() {
        return 0;
    }
    samples.sort_unstable();
    let i = ((p / 100.0) * (samples.len() - 1) as f64).round() as usize;
    samples[i.min(samples.len() - 1)]
}

pub fn fmt_ns(ns: u64) -> String {
    if ns >= 1_000_000 {
        format!("{:.2} ms", ns as f64 / 1e6)
    } else if ns >= 1_000 {
        format!("{:.2} µs", ns as f64 / 1e3)
    } else {
        format!("{ns} ns")
    }
}

pub fn per_sec(n: u64, d: Duration) -> f64 {
    n as f64 / d.as_secs_f64()
}

/// A tokio runtime with `threads` workers (for the MCP server's calls).
pub fn runtime(threads: usize) -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads)
        .enable_all()
        .build()
        .unwrap()
}

/// A campaign on the bundled `contracts/out/{contract}.json`, kept in
/// `dir`, not started.
pub fn campaign(
    contract: &str,
    config: rudder::config::Config,
    dir: &std::path::Path,
) -> rudder::campaign::Campaign {
    rudder::campaign::Campaign::new(
        std::path::Path::new(&format!("contracts/out/{contract}.json")),
        None,
        config,
        Some(dir.to_path_buf()),
    )
    .unwrap()
}

/// Whether criterion was asked for a quick test run (`cargo test --benches`).
pub fn quick() -> bool {
    std::env::args().any(|a| a == "--test") || std::env::var_os("RUDDER_BENCH_QUICK").is_some()
}

/// Runs a bench's criterion group and prints criterion's summary, unless
/// this is a quick run (then only the bench's own report runs).
pub fn criterion(group: fn()) {
    if !quick() {
        group();
        criterion::Criterion::default()
            .configure_from_args()
            .final_summary();
    }
}

/// A running campaign on `contract` with `workers` busy workers and no call
/// limit (10-minute timeout), in a temporary output directory.
pub fn busy_campaign(
    contract: &str,
    workers: usize,
) -> (tempfile::TempDir, rudder::campaign::Campaign) {
    busy_campaign_with(contract, workers, rudder::config::WorkerPriority::Low)
}

/// As [`busy_campaign`], with the workers at `priority` (`Normal`:
/// `SCHED_BATCH`, the default; `Low`: nice +10 as well).
pub fn busy_campaign_with(
    contract: &str,
    workers: usize,
    priority: rudder::config::WorkerPriority,
) -> (tempfile::TempDir, rudder::campaign::Campaign) {
    let dir = tempfile::tempdir().unwrap();
    let config = rudder::config::Config {
        workers: Some(workers),
        seed: Some(1),
        test_limit: u64::MAX,
        timeout: Some(std::time::Duration::from_secs(600)),
        worker_priority: priority,
        ..Default::default()
    };
    let mut c = campaign(contract, config, dir.path());
    c.start().unwrap();
    (dir, c)
}

/// Calls/s of `run(true)` and `run(false)` (a campaign of `limit` calls with
/// a feature on and off), alternating for `rounds` rounds, printed as a table.
pub fn alternate(limit: u64, rounds: usize, feature: &str, run: impl Fn(bool) -> f64) {
    println!(
        "\n| Token, 2 workers, {limit} calls | {feature} on calls/s | {feature} off calls/s |"
    );
    println!("|---|---|---|");
    let (mut on_sum, mut off_sum) = (0.0, 0.0);
    for round in 0..rounds {
        let on = run(true);
        let off = run(false);
        on_sum += on;
        off_sum += off;
        println!("| round {} | {on:.0} | {off:.0} |", round + 1);
    }
    println!(
        "| mean | {:.0} | {:.0} ({:+.2}% with {feature}) |",
        on_sum / rounds as f64,
        off_sum / rounds as f64,
        (on_sum - off_sum) / off_sum * 100.0
    );
}
