//! The ops family (seed 001) under load: every one of the sixteen tools,
//! called through the whole tool path (validation, budget, handler,
//! `_metadata`, ETG logging) while every core runs a busy worker on Bank,
//! cached and with `force_refresh` (the uncached cost) where the tool has it;
//! p50/p99/max and how many answers went past the 100 ms budget.
//!
//! A criterion group measures the store-side work that grows with the run:
//! candles over a full metrics history (16,384 samples), and the campaign's
//! calls/s with the ops counters (per-origin, per-function, positions) as
//! they are now, for the comparison with the build before them.
//!
//! Run: `cargo bench --bench ops` (`RUDDER_BENCH_QUICK=1`: 20 calls a tool).

mod common;

use criterion::Criterion;
use rudder::mcp::RudderServer;
use rudder::ops::{Metric, Sample, candles};
use serde_json::{Value, json};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Every tool with the arguments an agent would send; `true` where the tool
/// takes `force_refresh`.
fn calls() -> Vec<(&'static str, Value, bool)> {
    vec![
        ("get_current_price", json!({"symbol": "calls_per_s"}), true),
        (
            "get_candles",
            json!({"symbol": "coverage_points", "timeframe": "1s", "limit": 100}),
            true,
        ),
        (
            "get_volatility",
            json!({"symbol": "coverage_points", "timeframe": "1s"}),
            true,
        ),
        ("get_balance", json!({}), false),
        ("get_positions", json!({}), false),
        (
            "validate_trade",
            json!({"symbol": "deposit(5)", "side": "BUY", "size": 10}),
            false,
        ),
        (
            "get_top_strategies",
            json!({"symbol": "Bank", "limit": 10}),
            true,
        ),
        (
            "get_strategy_signal",
            json!({"strategy_id": "all", "symbol": "open(uint256,uint16)"}),
            true,
        ),
        ("get_strategy_consensus", json!({"symbol": "Bank"}), true),
        ("get_top_specs", json!({"source": "ALL"}), true),
        (
            "get_implementations",
            json!({"spec_id": "deposit(uint256)", "status": "ALL"}),
            true,
        ),
        (
            "save_decision",
            json!({"symbol": "open(uint256,uint16)", "action": "BUY", "confidence": 0.7, "reasoning": "the hash guard blocks three branches"}),
            false,
        ),
        ("get_recent_decisions", json!({"limit": 50}), true),
        (
            "run_backtest",
            json!({"strategy_id": "inline", "symbol": "Bank", "calls": ["deposit(7)", "withdraw(3)", "open(1, 1001)", "withdraw(100)"]}),
            false,
        ),
        (
            "get_historical_performance",
            json!({"strategy_id": "all"}),
            true,
        ),
    ]
}

fn main() {
    let quick = common::quick();
    rudder::mcp::family::set_memos(false);
    let rt = common::runtime(1);
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    let n = if quick { 20 } else { 1000 };
    let (_dir, c) = common::busy_campaign("Bank", workers);
    let server = RudderServer::new(c.control());
    std::thread::sleep(Duration::from_secs(if quick { 1 } else { 5 }));

    let run = |name: &str, args: &Value| {
        let t0 = Instant::now();
        let r = rt.block_on(server.run_tool(name, args.as_object().cloned()));
        let ns = t0.elapsed().as_nanos() as u64;
        (ns, r.is_error == Some(true))
    };
    println!(
        "Ops family, Bank, {workers} workers busy on {workers} cores, {n} calls per row (journal on):\n"
    );
    println!("| tool | answers | p50 | p99 | max | over 100 ms | errors |");
    println!("|---|---|---|---|---|---|---|");
    let mut worst = 0;
    let mut row = |name: &str, how: &str, lat: &mut Vec<u64>, errors: usize| {
        let over = lat.iter().filter(|&&ns| ns > 100_000_000).count();
        let max = lat.iter().copied().max().unwrap_or(0);
        worst = worst.max(max);
        println!(
            "| {name} | {how} | {} | {} | {} | {over} | {errors} |",
            common::fmt_ns(common::percentile(lat, 50.0)),
            common::fmt_ns(common::percentile(lat, 99.0)),
            common::fmt_ns(max),
        );
    };
    for (name, args, refreshable) in calls() {
        let modes: &[bool] = if refreshable {
            &[false, true]
        } else {
            &[false]
        };
        for &force in modes {
            let mut args = args.clone();
            if force {
                args["force_refresh"] = json!(true);
            }
            let mut lat = Vec::with_capacity(n);
            let mut errors = 0;
            for _ in 0..n {
                let (ns, err) = run(name, &args);
                lat.push(ns);
                errors += err as usize;
            }
            let how = match (refreshable, force) {
                (true, false) => "cached",
                (true, true) => "force_refresh",
                _ => "uncached",
            };
            row(name, how, &mut lat, errors);
        }
    }
    let rate = || {
        let before = c.read().stats().calls();
        let t0 = Instant::now();
        std::thread::sleep(Duration::from_secs(if quick { 1 } else { 3 }));
        (c.read().stats().calls() - before) as f64 / t0.elapsed().as_secs_f64()
    };
    let without_specs = rate();
    // submit_new_spec: each a new invariant every worker then checks after
    // every call (the test store holds 64 tests; Bank has one property).
    let specs = if quick { 5 } else { 40 };
    let mut lat = Vec::with_capacity(specs);
    let mut errors = 0;
    for i in 0..specs {
        let (ns, err) = run(
            "submit_new_spec",
            &json!({
                "name": format!("total_below_{i}"),
                "indicators": ["total"],
                "entry_conditions": [format!("total() < {}", u128::MAX - i as u128)],
                "exit_conditions": [],
                "parameters": []
            }),
        );
        lat.push(ns);
        errors += err as usize;
    }
    row(
        "submit_new_spec",
        "uncached (each a new spec)",
        &mut lat,
        errors,
    );
    let with_specs = rate();
    println!(
        "\nworst answer: {}; campaign calls/s: {without_specs:.0} before the specs, {with_specs:.0} with {specs} run-time specs checked after every call",
        common::fmt_ns(worst)
    );
    c.stop();
    let _ = c.wait();

    common::criterion(|| {
        let mut cr = Criterion::default().configure_from_args();
        // A full history: 16,384 samples (68 minutes at 4 a second before
        // the resolution halves).
        let samples: Vec<Sample> = (0..rudder::ops::MAX_SAMPLES as u64)
            .map(|i| {
                Sample {
                    t_ms: i * 250,
                    calls: i * 9_000,
                    sequences: i * 90,
                    points: 100 + i / 7,
                    corpus: i / 50,
                    open: 1,
                    falsified: 0,
                    ..Sample::default()
                }
                .with_campaign(0, 0)
            })
            .collect();
        for (width, label) in [(1_000, "1s"), (3_600_000, "1h")] {
            cr.bench_function(&format!("candles/16384 samples/{label}"), |b| {
                b.iter(|| candles(black_box(&samples), Metric::CallsPerSecond, width))
            });
        }
    });
}
