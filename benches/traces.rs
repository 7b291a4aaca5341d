//! The trace store and the traces family at scale, in one run:
//! 1. every traces tool's latency (p50/p99 through the whole tool path) on a
//!    store of 100,000 traces / 5,000,000 spans, with a campaign's worker busy;
//! 2. the campaign's calls/s with traces recorded and not, alternating.
//!
//! Run: `cargo bench --bench traces` (`RUDDER_BENCH_QUICK=1`: 2,000 traces).
//! The synthetic traces have the shape of a real run's (Token's calls, 50
//! each, a third reverted with the contract's reasons, a few falsifying ones
//! with shrink steps); they go through the journal thread like a worker's.

mod common;

use alloy_primitives::U256;
use rudder::campaign::Campaign;
use rudder::config::Config;
use rudder::corpus::Origin;
use rudder::executor::{Outcome, RevertReason};
use rudder::ids::TestId;
use rudder::journal::Record;
use rudder::journal::traces::{CallObs, TraceRecord, TraceRole};
use rudder::mcp::RudderServer;
use serde_json::{Value, json};
use std::path::Path;
use std::time::{Duration, Instant};

fn campaign(dir: &Path, traces: bool, limit: u64, workers: usize) -> Campaign {
    let mut c = Campaign::new(
        Path::new("contracts/out/Token.json"),
        None,
        Config {
            workers: Some(workers),
            seed: Some(1),
            test_limit: limit,
            timeout: Some(std::time::Duration::from_secs(900)),
            traces,
            trace_window: 10_000_000,
            ..Config::default()
        },
        Some(dir.to_path_buf()),
    )
    .unwrap();
    c.start().unwrap();
    c
}

fn main() {
    let quick = common::quick();
    let traces: u64 = if quick { 2_000 } else { 100_000 };
    const SPANS: usize = 50;
    let rt = common::runtime(2);

    // 1. A store of `traces` traces: a real run's calls, synthetic outcomes.
    let dir = tempfile::tempdir().unwrap();
    let c = campaign(dir.path(), true, u64::MAX, 1);
    std::thread::sleep(Duration::from_millis(500));
    let engine = c.read();
    let journal = engine.journal().unwrap().clone();
    let mut pool = Vec::new();
    for e in 0..engine.corpus().len() as u64 {
        if let Some(entry) = engine.corpus().get(rudder::ids::EntryId(e)) {
            pool.extend(entry.txs.iter().cloned());
        }
    }
    assert!(!pool.is_empty());
    let t0 = Instant::now();
    let mut falsifying = 0;
    for i in 0..traces {
        let role = match i % 100 {
            0..=14 => TraceRole::Corpus,
            15..=19 => TraceRole::Injection,
            20 if i % 10_000 == 20 => TraceRole::Falsifying,
            21..=25 if i % 10_000 < 30 && falsifying > 0 => TraceRole::Shrink,
            _ => TraceRole::Recent,
        };
        if role == TraceRole::Falsifying {
            falsifying += 1;
        }
        let n = if role == TraceRole::Shrink {
            SPANS / (1 + (i % 100 - 20) as usize)
        } else {
            SPANS
        };
        let mut txs = Vec::with_capacity(n);
        let mut calls = Vec::with_capacity(n);
        for k in 0..n {
            let mut tx = pool[(i as usize * 7 + k * 13) % pool.len()].clone();
            tx.value =
                U256::from((i * 31 + k as u64) % 1_000) * U256::from(10u64).pow(U256::from(15));
            let failure = match (i as usize + k) % 9 {
                0 | 1 => Some(Outcome::Revert {
                    reason: RevertReason::Error("balance".into()),
                }),
                2 => Some(Outcome::Revert {
                    reason: RevertReason::Error("allowance".into()),
                }),
                3 if k % 7 == 0 => Some(Outcome::Revert {
                    reason: RevertReason::Panic(U256::from(0x11)),
                }),
                _ => None,
            };
            let mut obs = CallObs {
                failure,
                gas: 21_000 + (i * 17 + k as u64 * 101) % 60_000,
                duration_ns: 5_000 + (i * 13 + k as u64 * 7) % 20_000,
                new_points: (i + k as u64).is_multiple_of(23) as u32,
                ..CallObs::default()
            };
            obs.mark(TestId(0), false);
            let last = k + 1 == n;
            obs.mark(
                TestId(1),
                last && matches!(role, TraceRole::Falsifying | TraceRole::Shrink),
            );
            txs.push(tx);
            calls.push(obs);
        }
        let mut t = TraceRecord::new(role, Origin::Random, txs, calls);
        t.worker = Some((i % 2) as u32);
        t.window = 10_000_000;
        match role {
            TraceRole::Corpus => t.corpus_entry = Some(i),
            TraceRole::Injection => t.injection = Some(i / 100),
            TraceRole::Falsifying | TraceRole::Shrink => {
                t.test = Some(TestId(1));
                t.shrink_step = (role == TraceRole::Shrink).then_some((i % 100 - 20) as u32);
                t.replays = t.shrink_step.map(|s| s as u64 * 300);
            }
            _ => {}
        }
        journal.send(Record::Trace(Box::new(t)));
        if i % 2_000 == 1_999 {
            journal.flush();
        }
    }
    journal.flush();
    let fill = t0.elapsed();
    let reader = journal.reader().unwrap();
    let (n_traces, n_spans): (i64, i64) = reader
        .conn()
        .query_row(
            "SELECT (SELECT COUNT(*) FROM traces), (SELECT COUNT(*) FROM spans)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    let (mid_trace, mid_created): (i64, i64) = reader
        .conn()
        .query_row(
            "SELECT id, created_us FROM traces WHERE kind = 'corpus' ORDER BY id LIMIT 1 OFFSET ?1",
            [(n_traces / 7).max(1)],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    let false_trace: i64 = reader
        .conn()
        .query_row(
            "SELECT id FROM traces WHERE kind = 'falsifying' ORDER BY id DESC LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap_or(mid_trace);
    drop(reader);
    let db_bytes = std::fs::metadata(journal.path()).map_or(0, |m| m.len())
        + std::fs::metadata(journal.path().with_extension("sqlite-wal")).map_or(0, |m| m.len());
    println!(
        "Trace store: {n_traces} traces / {n_spans} spans written in {:.1} s ({:.0} spans/s through the journal thread), {:.0} MB on disk\n",
        fill.as_secs_f64(),
        n_spans as f64 / fill.as_secs_f64(),
        db_bytes as f64 / 1e6,
    );
    let server = RudderServer::new(c.control());
    // The queries themselves: identical calls are not shared here.
    rudder::mcp::family::set_memos(false);
    let falsified_name = engine
        .tests()
        .case(TestId(1))
        .map(|c| c.name.clone())
        .unwrap();
    // A cursor 20 pages deep, for the "next page" case.
    let mut deep =
        json!({"filters": [{"field": "status", "operator": "eq", "value": "error"}], "limit": 50});
    for _ in 0..20 {
        let v = rt
            .block_on(server.run_tool("search_spans", deep.as_object().cloned()))
            .structured_content
            .unwrap();
        deep["cursor"] = v["cursor"].clone();
    }
    let calls: Vec<(&str, Value)> = vec![
        ("list_traces", json!({"limit": 50})),
        (
            "list_traces",
            json!({"limit": 200, "datasetRunId": "corpus"}),
        ),
        (
            "search_traces",
            json!({"filters": [{"field": "status", "operator": "eq", "value": "error"}]}),
        ),
        (
            "search_traces",
            json!({"filters": [{"field": "kind", "operator": "eq", "value": "corpus"},
                               {"field": "createdAt", "operator": "lt", "value": mid_created as f64 / 1000.0}],
                   "limit": 200}),
        ),
        (
            "search_traces",
            json!({"filters": [{"field": "name", "operator": "contains", "value": "entry 77"}]}),
        ),
        (
            "search_traces",
            json!({"filters": [{"field": "latency", "operator": "gt", "value": 0.6}],
                   "sortBy": "createdAt", "sortOrder": "asc"}),
        ),
        (
            "get_trace",
            json!({"traceId": format!("trace-{mid_trace}")}),
        ),
        (
            "get_trace",
            json!({"traceId": format!("trace-{false_trace}")}),
        ),
        ("search_spans", json!({})),
        ("search_spans", json!({"limit": 200})),
        (
            "search_spans",
            json!({"filters": [{"field": "data.reason", "operator": "eq", "value": "allowance"}]}),
        ),
        (
            "search_spans",
            json!({"filters": [{"field": "data.reason", "operator": "contains", "value": "panic"}]}),
        ),
        (
            "search_spans",
            json!({"filters": [{"field": "name", "operator": "eq", "value": "transfer(address,uint256)"},
                               {"field": "data.args.1", "operator": "gt", "value": "1000000000000000000"}]}),
        ),
        (
            "search_spans",
            json!({"filters": [{"field": "data.value", "operator": "gte", "value": "990000000000000000"}]}),
        ),
        (
            "search_spans",
            json!({"filters": [{"field": format!("data.properties.{falsified_name}"), "operator": "eq", "value": false}]}),
        ),
        (
            "search_spans",
            json!({"traceId": format!("trace-{mid_trace}")}),
        ),
        ("search_spans", deep.clone()),
    ];
    let n = if quick { 5 } else { 100 };
    println!(
        "Traces tools on {n_traces} traces / {n_spans} spans, 1 worker busy, {n} calls each:\n"
    );
    println!("| tool (arguments) | p50 | p99 | answer bytes | total | errors |");
    println!("|---|---|---|---|---|---|");
    for (name, args) in &calls {
        let mut lat = Vec::with_capacity(n);
        let mut errors = 0;
        let mut bytes = 0;
        let mut total = Value::Null;
        for _ in 0..n {
            let t = Instant::now();
            let r = rt.block_on(server.run_tool(name, args.as_object().cloned()));
            lat.push(t.elapsed().as_nanos() as u64);
            errors += (r.is_error == Some(true)) as u32;
            if r.is_error == Some(true) && errors == 1 {
                eprintln!("{name}: {:?}", r.structured_content);
            }
            let v = r.structured_content.unwrap_or_default();
            total = v.get("total").cloned().unwrap_or(Value::Null);
            bytes = v.to_string().len();
        }
        let mut shown = args.to_string();
        if let Some(c) = args.get("cursor").and_then(Value::as_str) {
            shown = shown.replace(c, "<20 pages deep>");
        }
        println!(
            "| {name} {shown} | {} | {} | {bytes} | {} | {errors} |",
            common::fmt_ns(common::percentile(&mut lat, 50.0)),
            common::fmt_ns(common::percentile(&mut lat, 99.0)),
            if total.is_null() {
                "omitted (>10,000) / n/a".to_string()
            } else {
                total.to_string()
            }
        );
    }
    c.stop();
    drop(c.wait());

    // 2. calls/s with traces recorded and not, alternating, same machine
    // (the journal on in both).
    let limit = if quick { 50_000 } else { 1_000_000 };
    let rounds = if quick { 1 } else { 3 };
    common::alternate(limit, rounds, "traces", |on| {
        let d = tempfile::tempdir().unwrap();
        campaign(d.path(), on, limit, 2).wait().calls_per_sec
    });
}
