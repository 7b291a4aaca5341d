//! The events family (seed 000) against real campaigns: the journal's counts
//! match the campaign's counters, aggregates match a naive recomputation,
//! pages walk every row once while the campaign appends, parent links
//! resolve, bad input is INVALID_INPUT naming the field, and a kill -9
//! leaves a database that opens clean.

use crate::common;

use crate::common::{call, err, start};
use rudder::config::Config;
use rudder::journal::Kind;
use rudder::mcp::RudderServer;
use serde_json::{Value, json};
use std::collections::HashSet;
use std::path::Path;
use std::time::{Duration, Instant};

/// Every event of `kind` in run `run`, paging through the tool.
async fn all_events(server: &RudderServer, run: &str, kind: &str) -> Vec<Value> {
    let mut out = Vec::new();
    for page in 0.. {
        let v = call(
            server,
            "get_events_by_type",
            json!({"runId": run, "eventType": kind, "pageSize": 1000, "pageIndex": page}),
        )
        .await;
        out.extend(v["events"].as_array().unwrap().iter().cloned());
        if v["metadata"]["hasMore"] != json!(true) {
            break;
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_journal_counts_what_the_campaign_did_and_aggregates_match_a_recount() {
    let dir = tempfile::tempdir().unwrap();
    let c = start(
        "contracts/out/Token.json",
        Config {
            workers: Some(2),
            seed: Some(4),
            test_limit: 40_000,
            ..Config::default()
        },
        dir.path(),
    );
    let server = common::server(c.control());
    let engine = c.read();
    let run = engine.run_id().to_string();
    let report = c.wait();
    let journal = engine.journal().unwrap();
    assert_eq!(journal.dropped(), 0);
    assert_eq!(journal.count(&run, Kind::WorkerStarted), 2);
    assert_eq!(journal.count(&run, Kind::WorkerStopped), 2);
    assert_eq!(journal.count(&run, Kind::RunStarted), 1);
    assert_eq!(
        journal.count(&run, Kind::CoverageIncreased),
        engine.corpus().len() as u64,
        "one CoverageIncreased per corpus entry"
    );

    // Execution batches add up to the campaign's calls.
    let batches = all_events(&server, &run, "TransactionExecuted").await;
    let calls: u64 = batches
        .iter()
        .map(|e| e["properties"]["calls"].as_u64().unwrap())
        .sum();
    assert_eq!(calls, report.calls);

    // Every aggregate equals a naive recomputation over the same rows, for
    // a typed property and for a JSON one.
    for path in ["$.gasUsed", "$.calls", "$.reverts"] {
        let values: Vec<f64> = batches
            .iter()
            .filter_map(|e| e["properties"][&path[2..]].as_f64())
            .collect();
        let n = values.len() as f64;
        let sum: f64 = values.iter().sum();
        let avg = sum / n;
        let var = values.iter().map(|v| v * v).sum::<f64>() / n - avg * avg;
        let agg = call(
            &server,
            "aggregate_metrics",
            json!({"runId": run, "eventType": "TransactionExecuted", "propertyPath": path,
                   "aggregations": ["count", "sum", "avg", "min", "max", "stddev"]}),
        )
        .await;
        let a = &agg["aggregations"];
        assert_eq!(a["count"], json!(values.len()), "{path}: {agg}");
        let close = |x: &Value, y: f64| (x.as_f64().unwrap() - y).abs() <= 1e-6 * y.abs().max(1.0);
        assert!(close(&a["sum"], sum), "{path}: {agg} vs {sum}");
        assert!(close(&a["avg"], avg), "{path}: {agg} vs {avg}");
        assert!(close(
            &a["min"],
            values.iter().cloned().fold(f64::MAX, f64::min)
        ));
        assert!(close(
            &a["max"],
            values.iter().cloned().fold(f64::MIN, f64::max)
        ));
        assert!(close(&a["stddev"], var.max(0.0).sqrt()), "{path}: {agg}");
        assert_eq!(agg["metadata"]["totalEvents"], json!(batches.len()));
    }

    // The seed's vocabulary maps onto the campaign's.
    let market = call(
        &server,
        "get_events_by_type",
        json!({"runId": run, "eventType": "MarketDataEvent", "pageSize": 1}),
    )
    .await;
    assert_eq!(market["metadata"]["totalCount"], json!(batches.len()));

    // Entities: the calls of one function, the events of one worker.
    let by_fn = call(
        &server,
        "get_events_by_entity",
        json!({"runId": run, "entityType": "FunctionSignature",
               "entityValue": "transfer(address,uint256)", "eventTypes": ["CallExecuted"]}),
    )
    .await;
    assert!(
        by_fn["metadata"]["totalCount"].as_u64().unwrap() > 0,
        "{by_fn}"
    );
    for e in by_fn["events"].as_array().unwrap() {
        assert_eq!(e["properties"]["function"], "transfer(address,uint256)");
    }
    let w1 = call(
        &server,
        "get_events_by_entity",
        json!({"runId": run, "entityType": "WorkerId", "entityValue": "1", "eventTypes": ["WorkerStarted"]}),
    )
    .await;
    assert_eq!(w1["metadata"]["totalCount"], json!(1));

    // The status tool names the run.
    let st = call(&server, "status", json!({})).await;
    assert!(
        st["runs"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["runId"] == json!(run)),
        "{st}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_walk_every_row_once_in_order_while_the_campaign_appends() {
    let dir = tempfile::tempdir().unwrap();
    let c = start(
        "contracts/out/Token.json",
        Config {
            workers: Some(2),
            seed: Some(9),
            test_limit: u64::MAX,
            timeout: Some(std::time::Duration::from_secs(60)),
            ..Config::default()
        },
        dir.path(),
    );
    let server = common::server(c.control());
    let run = c.read().run_id().to_string();
    let mut seen: Vec<u64> = Vec::new();
    let mut page = 0;
    let deadline = Instant::now() + Duration::from_secs(4);
    // Small pages, read while the workers append.
    while Instant::now() < deadline {
        let v = call(
            &server,
            "get_events_by_type",
            json!({"runId": run, "eventType": "TransactionExecuted", "pageSize": 5, "pageIndex": page}),
        )
        .await;
        let events = v["events"].as_array().unwrap();
        seen.extend(
            events
                .iter()
                .map(|e| e["eventId"].as_str().unwrap().parse::<u64>().unwrap()),
        );
        if events.len() == 5 {
            page += 1;
        } else {
            // A short page is re-read later: it fills up as rows arrive.
            seen.truncate(seen.len() - events.len());
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    c.stop();
    let engine = c.read();
    drop(c.wait());
    assert!(seen.len() >= 10, "read {} rows", seen.len());
    assert!(
        seen.windows(2).all(|w| w[0] < w[1]),
        "in order, no duplicates"
    );
    // No gaps: what was read is exactly the first rows of the final list.
    let all = all_events(&server, &run, "TransactionExecuted").await;
    let ids: Vec<u64> = all
        .iter()
        .map(|e| e["eventId"].as_str().unwrap().parse().unwrap())
        .collect();
    assert_eq!(&ids[..seen.len()], &seen[..]);
    assert_eq!(engine.journal().unwrap().dropped(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parent_links_lead_from_a_falsification_to_its_run_and_injections_to_their_command() {
    let dir = tempfile::tempdir().unwrap();
    let c = start(
        "contracts/out/SetSeven.json",
        Config {
            workers: Some(1),
            seed: Some(1),
            test_limit: u64::MAX,
            timeout: Some(std::time::Duration::from_secs(60)),
            keep_alive: true,
            ..Config::default()
        },
        dir.path(),
    );
    let server = common::server(c.control());
    let run = c.read().run_id().to_string();
    let inj = call(
        &server,
        "inject_transaction",
        json!({"sequence": ["set(7)", "go()"]}),
    )
    .await;
    let read = c.read();
    let read = &read;
    common::eventually(
        "the injection run and the test falsified",
        30,
        || async move {
            let ran = read.stats().workers[0]
                .injections
                .load(std::sync::atomic::Ordering::Acquire);
            (read.tests().falsified_count() > 0 && ran > 0).then_some(())
        },
    )
    .await;
    c.read().flush();
    let f = call(
        &server,
        "get_events_by_type",
        json!({"runId": run, "eventType": "PropertyFalsified"}),
    )
    .await;
    let falsified = &f["events"][0];
    assert_eq!(falsified["severity"], "Error");
    let roots = call(
        &server,
        "get_events_by_type",
        json!({"runId": run, "eventType": "RunStarted"}),
    )
    .await;
    let root = roots["events"][0]["eventId"].as_str().unwrap().to_string();
    let chain = call(
        &server,
        "query_event_sequence",
        json!({"runId": run, "rootEventId": root, "untilEventId": falsified["eventId"],
               "sequencePattern": ["RunStarted", "WorkerStarted", "SequenceStarted", "CallExecuted", "PropertyFalsified"]}),
    )
    .await;
    let seq = &chain["sequences"][0];
    assert_eq!(seq["complete"], json!(true), "{chain}");
    let kinds: Vec<&str> = seq["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["eventType"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "RunStarted",
            "WorkerStarted",
            "SequenceStarted",
            "CallExecuted",
            "PropertyFalsified"
        ]
    );
    let falsifying_call = &seq["events"][3];
    assert_eq!(falsifying_call["properties"]["falsified"], json!(true));
    // The worker's own search or the injection: either ends with go().
    assert_eq!(falsifying_call["properties"]["function"], "go()");

    // The injection's run hangs under its command.
    let id = inj["injectionId"].as_u64().unwrap();
    let by_inj = call(
        &server,
        "get_events_by_entity",
        json!({"runId": run, "entityType": "InjectionId", "entityValue": id.to_string()}),
    )
    .await;
    let events = by_inj["events"].as_array().unwrap();
    let command = events
        .iter()
        .find(|e| e["eventType"] == "ControlCommand")
        .expect("the command is journaled");
    let executed = events
        .iter()
        .find(|e| e["eventType"] == "InjectionExecuted")
        .expect("the run is journaled");
    assert_eq!(executed["parentEventId"], command["eventId"]);
    let snapshot = call(
        &server,
        "get_state_snapshot",
        json!({"runId": run, "eventId": falsified["eventId"]}),
    )
    .await;
    assert_eq!(snapshot["metadata"]["reconstructed"], json!(true));
    assert!(
        snapshot["state"]["properties"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["name"] == "echidna_not_gone" && p["status"] != "passing"),
        "{snapshot}"
    );
    c.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_is_invalid_input_naming_the_field_and_is_journaled() {
    let dir = tempfile::tempdir().unwrap();
    let c = start(
        "contracts/out/SetSeven.json",
        Config {
            workers: Some(1),
            seed: Some(1),
            test_limit: 1000,
            ..Config::default()
        },
        dir.path(),
    );
    let server = common::server(c.control());
    let run = c.read().run_id().to_string();
    let cases = [
        (
            "get_events_by_type",
            json!({"runId": run, "eventType": "Nope"}),
            "eventType",
        ),
        (
            "get_events_by_type",
            json!({"runId": run, "eventType": "CallExecuted", "pageSize": 0}),
            "pageSize",
        ),
        (
            "get_events_by_type",
            json!({"runId": run, "eventType": "CallExecuted", "pageSize": 1001}),
            "pageSize",
        ),
        (
            "get_events_by_type",
            json!({"runId": "no-such-run", "eventType": "CallExecuted"}),
            "runId",
        ),
        (
            "get_events_by_type",
            json!({"eventType": "CallExecuted"}),
            "runId",
        ),
        (
            "get_events_by_type",
            json!({"runId": run, "eventType": "CallExecuted",
            "startTime": "2026-02-01T00:00:00Z", "endTime": "2026-01-01T00:00:00Z"}),
            "startTime",
        ),
        (
            "get_events_by_type",
            json!({"runId": run, "eventType": "CallExecuted", "startTime": "yesterday"}),
            "startTime",
        ),
        (
            "aggregate_metrics",
            json!({"runId": run, "eventType": "CallExecuted", "propertyPath": "gasUsed"}),
            "propertyPath",
        ),
        (
            "aggregate_metrics",
            json!({"runId": run, "eventType": "CallExecuted",
            "propertyPath": "$.a'; DROP TABLE events;--"}),
            "propertyPath",
        ),
        (
            "get_events_by_entity",
            json!({"runId": run, "entityType": "Sender", "entityValue": "0x12"}),
            "entityValue",
        ),
        (
            "get_events_by_entity",
            json!({"runId": run, "entityType": "Bogus", "entityValue": "x"}),
            "entityType",
        ),
        (
            "query_event_sequence",
            json!({"runId": run, "rootEventId": "999999999"}),
            "rootEventId",
        ),
        (
            "query_event_sequence",
            json!({"runId": run, "maxDepth": 51}),
            "maxDepth",
        ),
        ("get_state_snapshot", json!({"runId": run}), "timestamp"),
        (
            "get_validation_errors",
            json!({"runId": run, "severityFilter": "Info"}),
            "severityFilter",
        ),
    ];
    for (tool, args, field) in &cases {
        let e = err(&server, tool, args.clone()).await;
        assert_eq!(e["code"], "INVALID_INPUT", "{tool} {args}: {e}");
        assert_eq!(e["details"]["field"], json!(field), "{tool} {args}: {e}");
    }
    // The table survived the injection attempt, and rejections are history.
    c.read().flush();
    let v = call(
        &server,
        "get_validation_errors",
        json!({"runId": run, "severityFilter": "Error"}),
    )
    .await;
    assert!(
        v["metadata"]["totalCount"].as_u64().unwrap() >= cases.len() as u64,
        "{v}"
    );
    let rejected = &v["events"][0];
    assert_eq!(rejected["eventType"], "InputRejected");
    assert_eq!(rejected["validationErrors"][0]["Severity"], "Error");
    drop(c.wait());
}

#[test]
fn a_killed_run_leaves_a_database_that_opens_clean_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let bin = env!("CARGO_BIN_EXE_rudder");
    let spawn = || {
        std::process::Command::new(bin)
            .args([
                "fuzz",
                "contracts/out/Token.json",
                "--workers",
                "2",
                "--seed",
                "3",
            ])
            .args(["--test-limit", "100000000", "--timeout", "60", "--out-dir"])
            .arg(&out)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap()
    };
    let db = out.join("corpus/journal.sqlite");
    let mut seen_runs = HashSet::new();
    for round in 0..2 {
        let mut child = spawn();
        std::thread::sleep(Duration::from_millis(1500 + 300 * round));
        // SIGKILL: no flush, no shutdown.
        child.kill().unwrap();
        child.wait().unwrap();
        let conn = rusqlite_open(&db);
        let ok: String = conn
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .unwrap();
        assert_eq!(ok, "ok");
        let mut stmt = conn
            .prepare(
                "SELECT run_id, COUNT(*) FROM events WHERE kind = 'WorkerStarted' GROUP BY run_id",
            )
            .unwrap();
        let runs: Vec<(String, i64)> = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        for (run, workers) in &runs {
            assert_eq!(*workers, 2, "run {run}");
            seen_runs.insert(run.clone());
        }
        assert_eq!(
            runs.len(),
            round as usize + 1,
            "each run resumes the same database"
        );
    }
    assert_eq!(seen_runs.len(), 2);
}

fn rusqlite_open(p: &Path) -> rusqlite::Connection {
    rusqlite::Connection::open(p).unwrap()
}

/// The rollups (counts, aggregates and deep-page starts kept per bucket by
/// the journal thread) agree with reading every row, for windows that cut
/// buckets anywhere, with and without a severity, over hours of events.
#[test]
fn rollups_answer_what_reading_every_row_answers() {
    use rudder::eventlog::{Event, Payload};
    use rudder::ids::{Seq, WorkerId};
    use rudder::journal::query::{self, Aggregates, Entity, Filter};
    use rudder::journal::{CallRecord, Record, Severity};
    use rusqlite::types::Value as Sql;

    let dir = tempfile::tempdir().unwrap();
    let c = start(
        "contracts/out/Token.json",
        Config {
            workers: Some(1),
            seed: Some(9),
            test_limit: 3_000,
            ..Config::default()
        },
        dir.path(),
    );
    let engine = c.read();
    drop(c.wait());
    let journal = engine.journal().unwrap().clone();
    let run = engine.run_id().to_string();
    let txs = engine
        .corpus()
        .get(rudder::ids::EntryId(0))
        .unwrap()
        .txs
        .clone();
    // Three hours of rows, 0.5 s apart on average, uneven.
    let base = rudder::eventlog::now_ms() + 1_000;
    let mut ts = base;
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for i in 0..21_000u64 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        ts += x % 1_000;
        if i.is_multiple_of(7) {
            journal.send(Record::Event(Event {
                seq: Seq(i),
                timestamp_ms: ts,
                worker: WorkerId(0),
                payload: Payload::TransactionExecuted {
                    calls: (x % 300) as u32,
                    reverts: (x % 13) as u32,
                    sequences: 3,
                    gas_used: x % 5_000_000,
                    total_calls: i,
                },
            }));
        } else {
            let outcome = if x.is_multiple_of(5) {
                rudder::executor::Outcome::Revert {
                    reason: rudder::executor::RevertReason::Raw(Default::default()),
                }
            } else {
                rudder::executor::Outcome::Success {
                    output: Default::default(),
                }
            };
            journal.send(Record::Call(Box::new(CallRecord {
                worker: WorkerId((x % 3) as u32),
                sequence: i / 6,
                source: rudder::corpus::Origin::Random,
                position: (i % 6) as u32,
                ts_ms: ts,
                tx: txs[(i as usize) % txs.len()].clone(),
                outcome,
                gas: 21_000 + x % 90_000,
                duration_ns: x % 40_000,
                new_points: (x % 4) as u32,
                falsified: x.is_multiple_of(97),
                injection: None,
            })));
        }
    }
    journal.flush();
    assert_eq!(journal.dropped(), 0);
    let mut reader = journal.reader().unwrap();
    let conn = reader.conn_mut();
    let end = ts + 5_000;
    let mut windows: Vec<(Option<u64>, Option<u64>)> = vec![
        (None, None),
        (Some(0), None),
        (None, Some(base + 3_600_000)),
        (Some(base), Some(base)),
        (Some(end), None),
    ];
    for _ in 0..30 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let lo = base - 2_000 + x % (end - base);
        let hi = lo + (x >> 32) % (end - lo + 1);
        windows.push((Some(lo), Some(hi)));
    }
    let kinds = [
        vec![Kind::TransactionExecuted],
        vec![Kind::CallExecuted],
        vec![Kind::CallExecuted, Kind::SequenceStarted],
        vec![],
    ];
    let mut checked = 0;
    for (w, (from_ms, to_ms)) in windows.iter().enumerate() {
        for kinds in &kinds {
            for severities in [
                vec![],
                vec![Severity::Warning],
                vec![Severity::Error, Severity::Info],
            ] {
                let f = Filter {
                    run: run.to_string(),
                    kinds: kinds.clone(),
                    from_ms: *from_ms,
                    to_ms: *to_ms,
                    severities,
                    ..Filter::default()
                };
                for path in ["$.gasUsed", "$.calls", "$.durationUs", "$.newPoints"] {
                    let fast = query::aggregate(conn, &f, path).unwrap();
                    let slow = Aggregates::by_scan(conn, &f, path).unwrap();
                    assert_eq!(
                        (fast.rows, fast.count),
                        (slow.rows, slow.count),
                        "window {w} {f:?} {path}"
                    );
                    assert_eq!(
                        (fast.min, fast.max),
                        (slow.min, slow.max),
                        "window {w} {path}"
                    );
                    let close = |a: Option<f64>, b: Option<f64>| match (a, b) {
                        (Some(a), Some(b)) => (a - b).abs() <= 1e-9 * b.abs().max(1.0),
                        (a, b) => a == b,
                    };
                    assert!(
                        close(fast.sum, slow.sum),
                        "window {w} {path}: {fast:?} {slow:?}"
                    );
                    assert!(
                        close(fast.stddev, slow.stddev),
                        "window {w} {path}: {fast:?} {slow:?}"
                    );
                    assert_eq!(query::count(conn, &f).unwrap(), slow.rows);
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 1500);

    // Deep pages start where reading every row from the first would.
    for kinds in [vec![Kind::CallExecuted], vec![]] {
        for severities in [vec![], vec![Severity::Warning]] {
            let f = Filter {
                run: run.to_string(),
                kinds: kinds.clone(),
                severities: severities.clone(),
                ..Filter::default()
            };
            let total = query::count(conn, &f).unwrap();
            for (index, size) in [
                (0, 100),
                (11, 100),
                (3, 1000),
                (total / 250, 250),
                (total / 7, 7),
                (total, 1),
            ] {
                let page = query::events(conn, &f, index, size).unwrap();
                assert_eq!(page.total, total);
                let mut sql = String::from("SELECT id FROM events WHERE run_id = ?1");
                if !kinds.is_empty() {
                    sql.push_str(" AND kind = 'CallExecuted'");
                }
                if !severities.is_empty() {
                    sql.push_str(" AND severity = 'Warning'");
                }
                sql.push_str(" ORDER BY id LIMIT ?2 OFFSET ?3");
                let want: Vec<i64> = conn
                    .prepare(&sql)
                    .unwrap()
                    .query_map(
                        rusqlite::params![run, size as i64, (index * size) as i64],
                        |r| r.get(0),
                    )
                    .unwrap()
                    .collect::<Result<_, _>>()
                    .unwrap();
                let got: Vec<i64> = page.rows.iter().map(|r| r.id).collect();
                assert_eq!(got, want, "{kinds:?} {severities:?} page {index} of {size}");
            }
        }
    }

    // Entity totals come from kept counts and equal a recount.
    for worker in 0..4i64 {
        let f = Filter {
            run: run.to_string(),
            entity: Some((Entity::WorkerId, Sql::Integer(worker))),
            ..Filter::default()
        };
        let n: i64 = conn
            .query_row(
                "SELECT COUNT(*) FROM events WHERE run_id = ?1 AND worker = ?2",
                rusqlite::params![run, worker],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(query::count(conn, &f).unwrap(), n as u64, "worker {worker}");
        let calls_only = Filter {
            kinds: vec![Kind::CallExecuted],
            ..f.clone()
        };
        let n: i64 = conn
            .query_row(
                "SELECT COUNT(*) FROM events WHERE run_id = ?1 AND worker = ?2 AND kind = 'CallExecuted'",
                rusqlite::params![run, worker],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(query::count(conn, &calls_only).unwrap(), n as u64);
    }
}

/// A journal written before rollups existed (none kept, `user_version` 0)
/// gets them rebuilt when a later run opens it: the old run's counts and
/// aggregates then equal reading its rows.
#[test]
fn an_older_journal_gets_its_rollups_rebuilt_when_opened() {
    use rudder::journal::query::{self, Aggregates, Filter};
    let dir = tempfile::tempdir().unwrap();
    let config = Config {
        workers: Some(2),
        seed: Some(5),
        test_limit: 20_000,
        ..Config::default()
    };
    let c = start("contracts/out/Token.json", config.clone(), dir.path());
    let old_run = c.read().run_id().to_string();
    let db = c.read().journal().unwrap().path().to_path_buf();
    drop(c.wait());
    {
        let conn = rusqlite_open(&db);
        conn.execute_batch(
            "DELETE FROM rollups; DELETE FROM entity_counts; PRAGMA user_version = 0;",
        )
        .unwrap();
    }
    let c = start("contracts/out/Token.json", config, dir.path());
    let journal = c.read().journal().unwrap().clone();
    let mut reader = journal.reader().unwrap();
    let conn = reader.conn_mut();
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert!(version >= 2);
    for kinds in [
        vec![Kind::TransactionExecuted],
        vec![Kind::CallExecuted],
        vec![],
    ] {
        let f = Filter {
            run: old_run.to_string(),
            kinds,
            ..Filter::default()
        };
        let fast = query::aggregate(conn, &f, "$.gasUsed").unwrap();
        let slow = Aggregates::by_scan(conn, &f, "$.gasUsed").unwrap();
        assert!(slow.rows > 0);
        assert_eq!(
            (fast.rows, fast.count, fast.min, fast.max),
            (slow.rows, slow.count, slow.min, slow.max)
        );
        assert_eq!(query::count(conn, &f).unwrap(), slow.rows);
    }
    drop(reader);
    c.stop();
    drop(c.wait());
}
