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

/// Whether criterion was asked for a quick test run (`cargo test --benches`).
pub fn quick() -> bool {
    std::env::args().any(|a| a == "--test") || std::env::var_os("RUDDER_BENCH_QUICK").is_some()
}
