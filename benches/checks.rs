//! What skipping unchanged checks (`checkCache`) buys: campaign calls/s with
//! 2, 5 and 40 checks after every call (a target's own properties plus
//! run-time specs), every check run (`off`, Echidna's and forge's way)
//! beside checks skipped while nothing they read changed (`on`), same
//! machine, same run, alternating, median of the repeats. One worker.
//! Run: `cargo bench --bench checks` (`RUDDER_BENCH_QUICK=1` for a short run).

mod common;

use rudder::campaign::spec::{Spec, SpecSource};
use rudder::config::{CheckCacheMode, Config, TestMode};
use std::time::{Duration, Instant};

/// Calls/s of one run of `secs`, and the share of checks skipped.
fn rate(
    contract: &str,
    mode: TestMode,
    specs: &[String],
    checks: CheckCacheMode,
    secs: f64,
) -> (f64, f64) {
    let dir = tempfile::tempdir().unwrap();
    let config = Config {
        test_mode: mode,
        workers: Some(1),
        seed: Some(1),
        test_limit: u64::MAX / 2,
        check_cache: checks,
        // Maze1's probes fail in assertion mode: what is measured is the
        // checks after each call, not the shrinking of a failure.
        shrink_limit: 0,
        ..Config::default()
    };
    let mut c = common::campaign(contract, config, dir.path());
    for (i, condition) in specs.iter().enumerate() {
        let source = SpecSource {
            name: format!("spec_{i}"),
            entry_conditions: vec![condition.clone()],
            ..Default::default()
        };
        let spec = Spec::parse(source, &c.read().target().functions).unwrap();
        c.control().add_spec(spec).unwrap();
    }
    c.start().unwrap();
    // Past the start (corpus, first sequences), then measured.
    std::thread::sleep(Duration::from_millis(300));
    let before = c.read().stats().calls();
    let t0 = Instant::now();
    std::thread::sleep(Duration::from_secs_f64(secs));
    let calls = c.read().stats().calls() - before;
    let elapsed = t0.elapsed();
    c.stop();
    let r = c.wait();
    let skipped = r.checks.skipped as f64 / (r.checks.run + r.checks.skipped).max(1) as f64;
    (common::per_sec(calls, elapsed), skipped)
}

/// A target, its mode, its own checks, and the spec it is given `i`-th.
type Row<'a> = (&'a str, TestMode, usize, &'a dyn Fn(usize) -> String);

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    let quick = common::quick();
    let (secs, reps) = if quick { (0.5, 1) } else { (4.0, 3) };
    // Specs that hold on every state: what a target's views read, compared
    // with a bound each spec has its own of (40 distinct checks). Maze1's
    // `bugs` is a mask of 12 bits (at most 4,095): a bound under that is
    // falsified, and the run then measures its shrinking, not its checks.
    let token = |i: usize| format!("totalSupply() <= {}", u128::MAX - i as u128);
    let maze = |i: usize| match i % 3 {
        0 => format!("x() < {}", 100 + i),
        1 => format!("y() < {}", 100 + i),
        _ => format!("bugs() < {}", 4096 + i),
    };
    let rows: [Row; 2] = [
        ("Token", TestMode::Property, 2, &token),
        ("Maze1", TestMode::Assertion, 0, &maze),
    ];
    println!(
        "| target | checks after each call | calls/s, every check run | calls/s, unchanged checks skipped | speed-up | checks skipped |"
    );
    println!("|---|---|---|---|---|---|");
    for (contract, mode, own, spec) in rows {
        for total in [own.max(1), 5, 40] {
            let specs: Vec<String> = (0..total - own).map(spec).collect();
            let (mut off, mut on, mut skipped) = (Vec::new(), Vec::new(), 0.0);
            for _ in 0..reps {
                off.push(rate(contract, mode, &specs, CheckCacheMode::Off, secs).0);
                let (r, s) = rate(contract, mode, &specs, CheckCacheMode::On, secs);
                on.push(r);
                skipped = s;
            }
            let (off, on) = (median(off), median(on));
            println!(
                "| {contract} | {total} | {off:.0} | {on:.0} | {:.2}x | {:.1}% |",
                on / off,
                100.0 * skipped
            );
        }
    }
}
