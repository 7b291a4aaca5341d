//! The journal and the events family at scale, in one run:
//! 1. every events tool's latency (p50/p99 through the whole tool path) on a
//!    journal of 1,000,000 events, with a campaign's workers busy;
//! 2. 100 concurrent queries, every answer checked;
//! 3. answer size against the same events as JSON lines;
//! 4. the campaign's calls/s with the journal on and off, alternating.
//!
//! Run: `cargo bench --bench journal` (`RUDDER_BENCH_QUICK=1`: 20,000 events).
//! The synthetic rows are stamped 10 ms apart (a journal of 1,000,000 rows
//! then spans 2.8 hours, as a long campaign's would); `RUDDER_BENCH_DENSE=1`
//! stamps them as fast as they are written instead (about 30,000 rows a
//! second: the worst case for a time window's edges, which are read row by
//! row).

mod common;

use rudder::campaign::Campaign;
use rudder::config::Config;
use rudder::eventlog::{Event, Payload};
use rudder::ids::{Seq, WorkerId};
use rudder::journal::{CallRecord, Record};
use rudder::mcp::RudderServer;
use serde_json::{Value, json};
use std::path::Path;
use std::time::{Duration, Instant};

fn campaign(dir: &Path, journal: bool, limit: u64, workers: usize) -> Campaign {
    let mut c = Campaign::new(
        Path::new("contracts/out/Token.json"),
        None,
        Config {
            workers: Some(workers),
            seed: Some(1),
            test_limit: limit,
            timeout: Some(std::time::Duration::from_secs(600)),
            journal,
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
    let events: u64 = if quick { 20_000 } else { 1_000_000 };
    let rt = common::runtime(2);

    // 1. A journal of `events` rows: a short real run, then synthetic calls
    // and batches of that run's shape, through the journal thread.
    let dir = tempfile::tempdir().unwrap();
    let c = campaign(dir.path(), true, u64::MAX, 1);
    std::thread::sleep(Duration::from_millis(500));
    let engine = c.read();
    let journal = engine.journal().unwrap().clone();
    let run = engine.run_id().to_string();
    let entry = engine
        .corpus()
        .get(rudder::ids::EntryId(0))
        .expect("a corpus entry");
    let txs = entry.txs.clone();
    let t0 = Instant::now();
    let t0_ms = rudder::eventlog::now_ms();
    let dense = std::env::var_os("RUDDER_BENCH_DENSE").is_some();
    let stamp = |i: u64| {
        if dense {
            rudder::eventlog::now_ms()
        } else {
            t0_ms + i * 10
        }
    };
    let mut i = 0u64;
    while journal.written() < events {
        let tx = txs[(i as usize) % txs.len()].clone();
        if i.is_multiple_of(10) {
            journal.send(Record::Event(Event {
                seq: Seq(i),
                timestamp_ms: stamp(i),
                worker: WorkerId(0),
                payload: Payload::TransactionExecuted {
                    calls: 100 + (i % 37) as u32,
                    reverts: (i % 11) as u32,
                    sequences: 3,
                    gas_used: 2_000_000 + i * 7 % 100_000,
                    total_calls: i * 10,
                },
            }));
        } else {
            journal.send(Record::Call(Box::new(CallRecord {
                worker: WorkerId((i % 2) as u32),
                sequence: i / 8,
                source: rudder::corpus::Origin::Random,
                position: (i % 8) as u32,
                ts_ms: stamp(i),
                tx,
                outcome: rudder::executor::Outcome::Success {
                    output: Default::default(),
                },
                gas: 21_000 + i % 50_000,
                duration_ns: 10_000 + i % 5_000,
                new_points: (i % 3) as u32,
                falsified: false,
                injection: None,
            })));
        }
        i += 1;
        if i.is_multiple_of(100_000) {
            journal.flush();
        }
    }
    journal.flush();
    let fill = t0.elapsed();
    let db_bytes = std::fs::metadata(journal.path()).map_or(0, |m| m.len())
        + std::fs::metadata(journal.path().with_extension("sqlite-wal")).map_or(0, |m| m.len());
    println!(
        "Journal: {} rows written in {:.1} s ({:.0} rows/s through the journal thread), {:.0} MB on disk, {} dropped\n",
        journal.written(),
        fill.as_secs_f64(),
        journal.written() as f64 / fill.as_secs_f64(),
        db_bytes as f64 / 1e6,
        journal.dropped()
    );
    let server = RudderServer::new(c.control());
    // The queries themselves: identical calls are not shared here.
    rudder::mcp::family::set_memos(false);
    let last_page = (events * 9 / 10) / 100 / 2;
    // A window that cuts buckets at both ends: from 1.5 s after the first
    // synthetic row to 2.7 s before the last.
    let span = |ms: u64| rudder::campaign::rfc3339(ms);
    let (w_lo, w_hi) = (
        span(t0_ms + 1_500),
        span(stamp(i).saturating_sub(2_700).max(t0_ms + 1_500)),
    );
    let calls: Vec<(&str, Value)> = vec![
        (
            "get_events_by_type",
            json!({"runId": run, "eventType": "TransactionExecuted", "pageSize": 100}),
        ),
        (
            "get_events_by_type",
            json!({"runId": run, "eventType": "CallExecuted", "pageSize": 100, "pageIndex": last_page}),
        ),
        (
            "get_events_by_type",
            json!({"runId": run, "eventType": "CallExecuted", "pageSize": 1000,
            "startTime": "2000-01-01T00:00:00Z", "severity": "Info"}),
        ),
        (
            "get_events_by_entity",
            json!({"runId": run, "entityType": "WorkerId", "entityValue": "1", "pageSize": 100}),
        ),
        (
            "get_events_by_type",
            json!({"runId": run, "eventType": "CallExecuted", "pageSize": 100, "pageIndex": last_page,
            "severity": "Info"}),
        ),
        (
            "aggregate_metrics",
            json!({"runId": run, "eventType": "CallExecuted", "propertyPath": "$.durationUs",
            "startTime": w_lo, "endTime": w_hi,
            "aggregations": ["count", "sum", "avg", "min", "max", "stddev"]}),
        ),
        (
            "aggregate_metrics",
            json!({"runId": run, "eventType": "TransactionExecuted", "propertyPath": "$.reverts",
            "startTime": w_lo, "endTime": w_hi, "aggregations": ["count", "sum", "stddev"]}),
        ),
        (
            "aggregate_metrics",
            json!({"runId": run, "eventType": "TransactionExecuted", "propertyPath": "$.gasUsed",
            "aggregations": ["count", "sum", "avg", "min", "max", "stddev"]}),
        ),
        (
            "aggregate_metrics",
            json!({"runId": run, "eventType": "TransactionExecuted", "propertyPath": "$.calls",
            "aggregations": ["count", "avg", "stddev"]}),
        ),
        (
            "aggregate_metrics",
            json!({"runId": run, "eventType": "CallExecuted", "propertyPath": "$.gasUsed",
            "aggregations": ["count", "avg", "max"]}),
        ),
        (
            "get_state_snapshot",
            json!({"runId": run, "timestamp": "2100-01-01T00:00:00Z"}),
        ),
        (
            "query_event_sequence",
            json!({"runId": run, "sequencePattern": ["SequenceStarted", "CallExecuted"], "pageSize": 50}),
        ),
        (
            "get_validation_errors",
            json!({"runId": run, "pageSize": 100}),
        ),
    ];
    let n = if quick { 5 } else { 100 };
    println!(
        "Events tools on {events} rows ({}), 1 worker busy, {n} calls each:\n",
        if dense {
            "stamped as written"
        } else {
            "stamped 10 ms apart"
        }
    );
    println!("| tool (arguments) | p50 | p99 | answer bytes | errors |");
    println!("|---|---|---|---|---|");
    for (name, args) in &calls {
        let mut lat = Vec::with_capacity(n);
        let mut errors = 0;
        let mut bytes = 0;
        for _ in 0..n {
            let t = Instant::now();
            let r = rt.block_on(server.run_tool(name, args.as_object().cloned()));
            lat.push(t.elapsed().as_nanos() as u64);
            errors += (r.is_error == Some(true)) as u32;
            if r.is_error == Some(true) && errors == 1 {
                eprintln!("{name}: {:?}", r.structured_content);
            }
            bytes = r.structured_content.map_or(0, |v| v.to_string().len());
        }
        let shown = args.to_string().replace(&run, "RUN");
        println!(
            "| {name} {shown} | {} | {} | {bytes} | {errors} |",
            common::fmt_ns(common::percentile(&mut lat, 50.0)),
            common::fmt_ns(common::percentile(&mut lat, 99.0)),
        );
    }

    // 2. 100 concurrent queries, each answer checked against a sequential
    // one (the campaign stopped first, so that answers stay put; only the
    // measured query time differs).
    c.stop();
    drop(c.wait());
    let comparable = |mut v: Value| {
        if let Some(m) = v.get_mut("metadata").and_then(Value::as_object_mut) {
            m.remove("queryTimeMs");
        }
        v
    };
    let expected: Vec<Value> = calls
        .iter()
        .map(|(name, args)| {
            let r = rt.block_on(server.run_tool(name, args.as_object().cloned()));
            comparable(r.structured_content.unwrap())
        })
        .collect();
    for memos in [false, true] {
        rudder::mcp::family::set_memos(memos);
        let t = Instant::now();
        let answers: Vec<Value> = rt.block_on(async {
            let tasks: Vec<_> = (0..100)
            .map(|k| {
                let server = server.clone();
                let args = calls[k % calls.len()].1.clone();
                let name = calls[k % calls.len()].0;
                tokio::spawn(async move {
                    let r = server.run_tool(name, args.as_object().cloned()).await;
                    json!({"k": k, "error": r.is_error == Some(true), "v": r.structured_content})
                })
            })
            .collect();
            let mut out = Vec::new();
            for t in tasks {
                out.push(t.await.unwrap());
            }
            out
        });
        let wall = t.elapsed();
        let failed = answers.iter().filter(|a| a["error"] == json!(true)).count();
        let wrong = answers
            .iter()
            .filter(|a| {
                let k = a["k"].as_u64().unwrap() as usize % calls.len();
                comparable(a["v"].clone()) != expected[k]
            })
            .count();
        let mut codes: std::collections::BTreeMap<String, usize> = Default::default();
        for a in answers.iter().filter(|a| a["error"] == json!(true)) {
            let k = a["k"].as_u64().unwrap() as usize % calls.len();
            *codes
                .entry(format!("{} {}", calls[k].0, a["v"]["error"]["code"]))
                .or_default() += 1;
        }
        if !codes.is_empty() {
            println!("failures: {codes:?}");
        }
        println!(
            "\n100 concurrent queries in process ({} kinds, identical calls {}): {} failed, {} differ from the sequential answer, {:.0} ms wall",
            calls.len(),
            if memos {
                "sharing one answer"
            } else {
                "each computed"
            },
            failed,
            wrong,
            wall.as_secs_f64() * 1e3
        );
    }
    // 2b. The same over loopback HTTP: 100 sessions of the official MCP
    // client (scripts/setup-python.sh installs it), every call sent at once.
    let (addr, http) = rt
        .block_on(rudder::mcp::transport::serve_http(
            server.clone(),
            rudder::mcp::transport::HttpOptions {
                max_sessions: 128,
                ..rudder::mcp::transport::HttpOptions::loopback("127.0.0.1:0".parse().unwrap())
            },
        ))
        .expect("serve HTTP");
    let python = std::process::Command::new("bash")
        .arg("scripts/setup-python.sh")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    match python {
        None => println!("100 concurrent queries over HTTP: SKIPPED (no Python MCP client)\n"),
        Some(python) => {
            let batch: Vec<Value> = (0..100)
                .map(|k| json!([calls[k % calls.len()].0, calls[k % calls.len()].1]))
                .collect();
            let mut child = std::process::Command::new(python)
                .arg("tests/e2e/concurrent_http.py")
                .arg(format!("http://{addr}/mcp"))
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .spawn()
                .expect("python");
            use std::io::Write;
            child
                .stdin
                .take()
                .unwrap()
                .write_all(Value::Array(batch).to_string().as_bytes())
                .unwrap();
            let out = child.wait_with_output().unwrap();
            let answers: Vec<Value> =
                serde_json::from_slice(&out.stdout).expect("the client's JSON answers");
            let failed = answers.iter().filter(|a| a["error"] == json!(true)).count();
            let wrong = answers
                .iter()
                .enumerate()
                .filter(|(k, a)| comparable(a["v"].clone()) != expected[k % calls.len()])
                .count();
            let mut ms: Vec<u64> = answers
                .iter()
                .map(|a| (a["ms"].as_f64().unwrap_or(0.0) * 1e6) as u64)
                .collect();
            println!(
                "100 concurrent queries over HTTP (100 sessions, all sent at once): {} answers, {} failed, {} differ from the sequential answer, client-side p50 {} p99 {}\n",
                answers.len(),
                failed,
                wrong,
                common::fmt_ns(common::percentile(&mut ms, 50.0)),
                common::fmt_ns(common::percentile(&mut ms, 99.0)),
            );
        }
    }
    http.abort();

    // 3. Answer size against the same events as JSON lines.
    let jsonl_of =
        |events: &[Value]| -> usize { events.iter().map(|e| e.to_string().len() + 1).sum() };
    let page = rt
        .block_on(
            server.run_tool(
                "get_events_by_type",
                json!({"runId": run, "eventType": "TransactionExecuted", "pageSize": 1000})
                    .as_object()
                    .cloned(),
            ),
        )
        .structured_content
        .unwrap();
    let matching = page["metadata"]["totalCount"].as_u64().unwrap();
    let per_event = jsonl_of(page["events"].as_array().unwrap()) as f64 / 1000.0;
    let all_jsonl = per_event * matching as f64;
    let agg_bytes = rt
        .block_on(server.run_tool("aggregate_metrics", calls[7].1.as_object().cloned()))
        .structured_content
        .unwrap()
        .to_string()
        .len() as f64;
    let page100 = rt
        .block_on(server.run_tool("get_events_by_type", calls[0].1.as_object().cloned()))
        .structured_content
        .unwrap()
        .to_string()
        .len() as f64;
    println!("| answer | bytes | the same events as JSON lines | smaller by |");
    println!("|---|---|---|---|");
    println!(
        "| aggregate of {matching} batches | {agg_bytes:.0} | {all_jsonl:.0} | {:.4}% |",
        100.0 * (1.0 - agg_bytes / all_jsonl)
    );
    println!(
        "| first page of 100 of them | {page100:.0} | {all_jsonl:.0} | {:.2}% |",
        100.0 * (1.0 - page100 / all_jsonl)
    );

    // 4. calls/s with the journal on and off, alternating, same machine.
    let limit = if quick { 50_000 } else { 1_000_000 };
    let rounds = if quick { 1 } else { 3 };
    common::alternate(limit, rounds, "the journal", |on| {
        let d = tempfile::tempdir().unwrap();
        campaign(d.path(), on, limit, 2).wait().calls_per_sec
    });
}
