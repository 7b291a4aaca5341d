//! Per-tool latency (p50/p95/p99) through the whole tool path (validation,
//! budget, handler, shaping) with all workers busy, and the campaign's calls/s
//! with and without a client polling `read_logs` at 10 Hz, in one run.
//! Run: `cargo bench --bench tools`.

mod common;

use rudder::mcp::{CampaignTools, RudderServer};
use serde_json::{Value, json};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

fn main() {
    let quick = common::quick();
    let (_dir, c) = common::busy_campaign("Token", 2);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let server = RudderServer::new(CampaignTools::new(c.control()));
    std::thread::sleep(Duration::from_millis(500));
    let calls: Vec<(&str, Value)> = vec![
        ("read_logs", json!({"count": 100})),
        ("read_logs", json!({"count": 2500})),
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
        (
            "inject_transaction",
            json!({"sequence": ["approve(0x0000000000000000000000000000000000020000, 5)"]}),
        ),
    ];
    let n = if quick { 20 } else { 1000 };
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
    let s = c.stores().clone();
    let measure = |poll: bool| {
        let c0 = s.stats.calls.load(Ordering::Relaxed);
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
        (s.stats.calls.load(Ordering::Relaxed) - c0) as f64 / t0.elapsed().as_secs_f64()
    };
    let (mut without, mut with) = (0.0, 0.0);
    let rounds = if quick { 1 } else { 4 };
    for _ in 0..rounds {
        without += measure(false) / rounds as f64;
        with += measure(true) / rounds as f64;
    }
    println!("\n| campaign (Token, 2 workers) | calls/s |");
    println!("|---|---|");
    println!("| no client | {without:.0} |");
    println!(
        "| read_logs at 10 Hz | {with:.0} ({:+.2}%) |",
        (with - without) / without * 100.0
    );
    c.stop();
    let _ = c.wait();
}
