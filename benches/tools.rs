//! Per-tool latency (p50/p95/p99) through the whole tool path (validation,
//! budget, handler, shaping) with every core saturated by a worker, and the
//! campaign's calls/s with and without a client polling `read_logs` at 10 Hz.
//!
//! Before and after, in one run: the read tools are measured under four
//! set-ups — workers at normal priority or behind the control plane (nice
//! +10, `SCHED_BATCH`), and reads answered on a blocking-pool thread (as
//! before) or inline on the async task (now) — interleaved call by call so
//! that every set-up sees the same campaign and the same machine.
//! Run: `cargo bench --bench tools`.

mod common;

use rudder::mcp::RudderServer;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

const READS: [(&str, &str); 6] = [
    ("read_logs", r#"{"count": 100}"#),
    ("read_logs", r#"{"count": 2500}"#),
    ("show_coverage", "{}"),
    ("get_corpus_size", "{}"),
    ("inspect_corpus_transactions", r#"{"limit": 20}"#),
    ("status", "{}"),
];

fn main() {
    let quick = common::quick();
    let rt = common::runtime(1);
    let n = if quick { 20 } else { 2000 };
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());

    // Reads, before/after, one campaign per worker priority.
    println!("Read tools, {workers} workers saturating {workers} cores, {n} calls per cell:\n");
    println!("| tool (arguments) | workers | reads on | p50 | p95 | p99 |");
    println!("|---|---|---|---|---|---|");
    use rudder::config::WorkerPriority;
    for priority in [WorkerPriority::Normal, WorkerPriority::Low] {
        let (_dir, c) = common::busy_campaign_with("Token", workers, priority);
        std::thread::sleep(Duration::from_millis(500));
        let inline = RudderServer::new(c.control());
        let hop = RudderServer::new(c.control()).with_blocking_reads();
        for (name, args) in READS {
            let args: Value = serde_json::from_str(args).unwrap();
            let mut lat = [Vec::with_capacity(n), Vec::with_capacity(n)];
            for _ in 0..n {
                for (i, server) in [&hop, &inline].into_iter().enumerate() {
                    let a = args.as_object().cloned();
                    let t0 = Instant::now();
                    let r = rt.block_on(server.run_tool(name, a));
                    lat[i].push(t0.elapsed().as_nanos() as u64);
                    assert_ne!(r.is_error, Some(true), "{name}");
                }
            }
            for (i, how) in ["blocking pool", "inline"].into_iter().enumerate() {
                println!(
                    "| {name} {args} | {} | {how} | {} | {} | {} |",
                    match priority {
                        WorkerPriority::Low => "low (nice+10, batch)",
                        WorkerPriority::Normal => "normal (batch)",
                    },
                    common::fmt_ns(common::percentile(&mut lat[i], 50.0)),
                    common::fmt_ns(common::percentile(&mut lat[i], 95.0)),
                    common::fmt_ns(common::percentile(&mut lat[i], 99.0)),
                );
            }
        }
        c.stop();
        let _ = c.wait();
    }

    // Every tool as served now (writes included), default set-up.
    let (_dir, c) = common::busy_campaign("Token", workers);
    let server = RudderServer::new(c.control());
    std::thread::sleep(Duration::from_millis(500));
    let calls: Vec<(&str, Value)> = vec![
        ("read_logs", json!({"count": 100})),
        ("show_coverage", json!({})),
        ("dump_lcov", json!({})),
        ("get_corpus_size", json!({})),
        ("inspect_corpus_transactions", json!({"limit": 20})),
        (
            "find_transaction_in_corpus",
            json!({"functionSignature": "transfer(address,uint256)"}),
        ),
        ("status", json!({})),
        (
            "prioritize_function",
            json!({"functionSignature": "transfer(address,uint256)"}),
        ),
        ("clear_priorities", json!({})),
        ("revert_census", json!({"top": 5})),
        ("test_vacuity", json!({})),
        (
            "evaluate_predicates",
            json!({"predicates": ["balanceOf(0x0000000000000000000000000000000000010000)"], "entries": 5}),
        ),
        (
            "inject_transaction",
            json!({"sequence": ["approve(0x0000000000000000000000000000000000020000, 5)"]}),
        ),
    ];
    let n = if quick { 20 } else { 1000 };
    println!("\nEvery tool, default set-up:\n");
    println!("| tool (arguments) | p50 | p95 | p99 | errors |");
    println!("|---|---|---|---|---|");
    for (name, args) in &calls {
        let mut lat = Vec::with_capacity(n);
        let mut errors = 0;
        for _ in 0..n {
            let a = args.as_object().cloned();
            let t0 = Instant::now();
            let r = rt.block_on(server.run_tool(name, a));
            lat.push(t0.elapsed().as_nanos() as u64);
            errors += (r.is_error == Some(true)) as u32;
        }
        println!(
            "| {name} {args} | {} | {} | {} | {errors} |",
            common::fmt_ns(common::percentile(&mut lat, 50.0)),
            common::fmt_ns(common::percentile(&mut lat, 95.0)),
            common::fmt_ns(common::percentile(&mut lat, 99.0)),
        );
    }
    // calls/s without and with a 10 Hz read_logs poller, alternating windows.
    let window = if quick {
        Duration::from_millis(300)
    } else {
        Duration::from_secs(3)
    };
    let s = c.read();
    let measure = |poll: bool| {
        let c0 = s.stats().calls();
        let t0 = Instant::now();
        while t0.elapsed() < window {
            if poll {
                let r = rt.block_on(
                    server.run_tool("read_logs", json!({"count": 100}).as_object().cloned()),
                );
                assert_ne!(r.is_error, Some(true));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        (s.stats().calls() - c0) as f64 / t0.elapsed().as_secs_f64()
    };
    let (mut without, mut with) = (0.0, 0.0);
    let rounds = if quick { 1 } else { 4 };
    for _ in 0..rounds {
        without += measure(false) / rounds as f64;
        with += measure(true) / rounds as f64;
    }
    println!("\n| campaign (Token, {workers} workers) | calls/s |");
    println!("|---|---|");
    println!("| no client | {without:.0} |");
    println!(
        "| read_logs at 10 Hz | {with:.0} ({:+.2}%) |",
        (with - without) / without * 100.0
    );
    c.stop();
    let _ = c.wait();
}
