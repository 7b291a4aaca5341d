//! The traces family (seed 003) against real campaigns: a planted bug's
//! falsifying trace is found by its revert reason and by its argument, its
//! shrink steps and source resolve, cursors walk a growing store without
//! duplicates or gaps, every operator on every attribute type answers what
//! filtering every row by hand answers, and bad filters are INVALID_INPUT
//! naming the field and the operator.

use crate::common;

use crate::common::{call, err, start};
use rudder::config::{Config, TestMode};
use rudder::mcp::RudderServer;
use serde_json::{Value, json};
use std::collections::HashSet;

/// Every item a search returns, walking its cursors.
async fn walk(server: &RudderServer, tool: &str, mut args: Value) -> Vec<Value> {
    let mut out = Vec::new();
    loop {
        let v = call(server, tool, args.clone()).await;
        out.extend(v["items"].as_array().unwrap().iter().cloned());
        if v["hasMore"] != json!(true) {
            assert!(v.get("cursor").is_none(), "no cursor on the last page: {v}");
            break;
        }
        args["cursor"] = v["cursor"].clone();
    }
    out
}

fn ids(items: &[Value]) -> Vec<String> {
    items
        .iter()
        .map(|i| i["id"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_planted_bug_is_found_by_its_revert_reason_and_its_argument() {
    let dir = tempfile::tempdir().unwrap();
    let c = start(
        "contracts/out/Assertion.json",
        Config {
            test_mode: TestMode::Assertion,
            workers: Some(2),
            seed: Some(11),
            test_limit: 30_000,
            ..Config::default()
        },
        dir.path(),
    );
    let server = common::server(c.control());
    let engine = c.read();
    let report = c.wait();
    assert!(report.any_falsified(), "the planted bug is found");
    engine.journal().unwrap().flush();

    let falsifying = walk(
        &server,
        "search_traces",
        json!({"filters": [{"field": "kind", "operator": "eq", "value": "falsifying"}]}),
    )
    .await;
    assert_eq!(falsifying.len(), 1, "{falsifying:?}");
    let f = &falsifying[0];
    assert_eq!(f["status"], "error");
    assert_eq!(f["property"], "withdraw(uint128)");
    let fid = f["id"].as_str().unwrap().to_string();

    // By its revert reason: the panic of the failed assertion.
    let by_reason = walk(
        &server,
        "search_spans",
        json!({"filters": [
            {"field": "data.reason", "operator": "contains", "value": "panic 0x01"},
            {"field": "data.falsified", "operator": "eq", "value": true}
        ], "limit": 200}),
    )
    .await;
    let falsifying_span = by_reason
        .iter()
        .find(|s| s["traceId"] == json!(fid))
        .unwrap_or_else(|| panic!("falsifying span among {by_reason:?}"))
        .clone();
    assert_eq!(falsifying_span["name"], "withdraw(uint128)");
    assert_eq!(falsifying_span["status"], "error");
    assert_eq!(falsifying_span["data"]["panicCode"], 1);
    assert_eq!(
        falsifying_span["data"]["properties"]["withdraw(uint128)"],
        false
    );

    // By its argument: the amount, compared as a number and as text.
    let amount = falsifying_span["data"]["args"][0]
        .as_str()
        .unwrap()
        .to_string();
    for value in [
        json!(amount),
        json!(amount.parse::<u128>().unwrap().to_string()),
    ] {
        let by_arg = walk(
            &server,
            "search_spans",
            json!({"filters": [
                {"field": "name", "operator": "eq", "value": "withdraw(uint128)"},
                {"field": "data.args.0", "operator": "eq", "value": value}
            ], "limit": 200}),
        )
        .await;
        assert!(
            ids(&by_arg).contains(&falsifying_span["id"].as_str().unwrap().to_string()),
            "{by_arg:?}"
        );
    }
    let below = walk(
        &server,
        "search_spans",
        json!({"filters": [
            {"field": "name", "operator": "eq", "value": "withdraw(uint128)"},
            {"field": "data.args.0", "operator": "lt", "value": amount}
        ], "limit": 200}),
    )
    .await;
    assert!(!ids(&below).contains(&falsifying_span["id"].as_str().unwrap().to_string()));

    // Its shrink steps resolve, in order, the last one final and no longer.
    let tree = call(&server, "get_trace", json!({"traceId": fid})).await;
    let tree = &tree["trace"];
    assert_eq!(
        tree["spans"].as_array().unwrap().len() as u64,
        tree["calls"].as_u64().unwrap()
    );
    let steps = tree["shrinkSteps"]
        .as_array()
        .expect("shrink steps")
        .clone();
    assert!(!steps.is_empty());
    let mut last_calls = u64::MAX;
    for (k, s) in steps.iter().enumerate() {
        let step = call(&server, "get_trace", json!({"traceId": s})).await;
        let step = &step["trace"];
        assert_eq!(step["kind"], "shrink");
        assert_eq!(step["shrinkOf"], json!(fid));
        assert_eq!(step["sourceTraceId"], json!(fid));
        assert_eq!(step["datasetRunId"], json!(format!("falsification-{fid}")));
        assert_eq!(step["shrinkStep"], json!(k + 1));
        let calls = step["calls"].as_u64().unwrap();
        assert!(calls <= last_calls, "steps never grow");
        last_calls = calls;
        // Every step still fails on its last call.
        let last = step["spans"].as_array().unwrap().last().unwrap().clone();
        assert_eq!(last["data"]["falsified"], true, "{step}");
    }
    let fin = call(
        &server,
        "get_trace",
        json!({"traceId": steps.last().unwrap()}),
    )
    .await;
    assert!(fin["trace"]["name"].as_str().unwrap().ends_with("(final)"));

    // Where it came from: a mutation names its corpus entry's trace.
    if f["origin"] == "mutation" {
        let src = f["sourceTraceId"].as_str().expect("a mutation's source");
        let s = call(&server, "get_trace", json!({"traceId": src})).await;
        assert_eq!(s["trace"]["kind"], "corpus");
        assert_eq!(s["trace"]["corpusEntry"], f["sourceEntry"]);
    }

    // Every corpus entry has its trace.
    let corpus = walk(
        &server,
        "search_traces",
        json!({"filters": [{"field": "kind", "operator": "eq", "value": "corpus"}], "limit": 200}),
    )
    .await;
    assert_eq!(corpus.len(), engine.corpus().len());

    // Not found is the seed's NOT_FOUND, named.
    let e = err(&server, "get_trace", json!({"traceId": "trace-999999999"})).await;
    assert_eq!(e["code"], "INVALID_INPUT");
    assert_eq!(e["details"]["seedCode"], "NOT_FOUND");
    assert_eq!(e["details"]["traceId"], "trace-999999999");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cursors_walk_a_growing_store_without_duplicates_or_gaps() {
    let dir = tempfile::tempdir().unwrap();
    let c = start(
        "contracts/out/Token.json",
        Config {
            workers: Some(2),
            seed: Some(3),
            test_limit: 400_000,
            trace_window: 1_000_000,
            ..Config::default()
        },
        dir.path(),
    );
    let server = common::server(c.control());
    let engine = c.read();
    let journal = engine.journal().unwrap().clone();
    // Wait for a few pages' worth.
    let server_ref = &server;
    common::eventually("500 spans", 60, || async move {
        let v = call(server_ref, "search_spans", json!({"limit": 1})).await;
        (v.get("total").is_none() || v["total"].as_u64().unwrap() > 500).then_some(())
    })
    .await;
    let max_id_at_start = |items: &[Value]| {
        items
            .iter()
            .map(|i| i["id"].as_str().unwrap()[5..].parse::<i64>().unwrap())
            .max()
            .unwrap()
    };
    // Ascending ids while the campaign appends: strictly increasing, and
    // (checked after the run) every id up to the last one walked.
    let mut asc = Vec::new();
    let mut args = json!({"sortBy": "id", "sortOrder": "asc", "limit": 37});
    let mut pages = 0;
    loop {
        let v = call(&server, "search_spans", args.clone()).await;
        asc.extend(v["items"].as_array().unwrap().iter().cloned());
        pages += 1;
        if v["hasMore"] != json!(true) || pages > 60 {
            break;
        }
        args["cursor"] = v["cursor"].clone();
    }
    // Newest first (the default) while the campaign appends: no duplicates,
    // and every span that existed at the first page is walked.
    // The highest id at this point (newest first sorts by start time,
    // which two workers' batches do not write in order).
    let first = call(
        &server,
        "search_spans",
        json!({"sortBy": "id", "sortOrder": "desc", "limit": 1}),
    )
    .await;
    let existed = max_id_at_start(first["items"].as_array().unwrap());
    let desc = walk(&server, "search_spans", json!({"limit": 200})).await;
    c.stop();
    let _ = c.wait();
    journal.flush();

    let asc_ids: Vec<i64> = asc
        .iter()
        .map(|i| i["id"].as_str().unwrap()[5..].parse().unwrap())
        .collect();
    assert!(
        asc_ids.windows(2).all(|w| w[0] < w[1]),
        "strictly increasing"
    );
    let last = *asc_ids.last().unwrap();
    let mut reader = journal.reader().unwrap();
    let all: Vec<i64> = reader
        .conn_mut()
        .prepare("SELECT id FROM spans WHERE id <= ?1 ORDER BY id")
        .unwrap()
        .query_map([last], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(asc_ids, all, "no gaps, no duplicates");

    let desc_ids = ids(&desc);
    let unique: HashSet<&String> = desc_ids.iter().collect();
    assert_eq!(unique.len(), desc_ids.len(), "no duplicates");
    let walked: HashSet<i64> = desc_ids.iter().map(|s| s[5..].parse().unwrap()).collect();
    let before: Vec<i64> = reader
        .conn_mut()
        .prepare("SELECT id FROM spans WHERE id <= ?1")
        .unwrap()
        .query_map([existed], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(before.len() > 500);
    for id in before {
        assert!(walked.contains(&id), "span-{id} existed and was skipped");
    }
    // Newest first means start times never increase along the walk.
    let starts: Vec<f64> = desc
        .iter()
        .map(|s| s["startTime"].as_f64().unwrap())
        .collect();
    assert!(starts.windows(2).all(|w| w[0] >= w[1]));
}

/// The attribute at a dotted path (`data.args.0`).
fn get<'a>(row: &'a Value, path: &str) -> Option<&'a Value> {
    let mut v = row;
    for part in path.split('.') {
        v = match v {
            Value::Array(a) => a.get(part.parse::<usize>().ok()?)?,
            _ => v.get(part)?,
        };
    }
    (!v.is_null()).then_some(v)
}

/// A decimal integer of up to 256 bits as (sign, magnitude), ordered.
fn number(s: &str) -> Option<(i8, alloy_primitives::U256, alloy_primitives::U256)> {
    use alloy_primitives::U256;
    let (neg, digits) = s.strip_prefix('-').map_or((false, s), |d| (true, d));
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let m: U256 = digits.parse().ok()?;
    Some(if neg && !m.is_zero() {
        // Larger magnitudes sort lower: compare on the complement.
        (-1, U256::MAX - m, m)
    } else {
        (1, m, m)
    })
}

/// What a filter means, computed by hand over a row's JSON.
fn holds(row: &Value, path: &str, op: &str, value: &Value) -> bool {
    let Some(v) = get(row, path) else {
        return op == "ne";
    };
    // Arguments are shown as text; a number filter compares numerically.
    let value = &match value {
        Value::Number(n) if path.starts_with("data.args.") => Value::String(n.to_string()),
        other => other.clone(),
    };
    if op == "contains" {
        return v
            .as_str()
            .is_some_and(|s| s.contains(value.as_str().unwrap()));
    }
    use std::cmp::Ordering;
    let ord: Option<Ordering> = match (v, value) {
        (Value::String(a), Value::String(b))
            if path == "data.value" || path.starts_with("data.args.") =>
        {
            match (number(a), number(b)) {
                (Some(x), Some(y)) => Some(x.cmp(&y)),
                // A number never compares with a non-numeric argument.
                (None, Some(_)) => None,
                _ => Some(a.as_str().cmp(b.as_str())),
            }
        }
        (Value::String(a), Value::String(b)) if path == "createdAt" => {
            let p = |s: &str| humantime::parse_rfc3339_weak(s).unwrap();
            Some(p(a).cmp(&p(b)))
        }
        (Value::String(a), Value::String(b)) if path == "id" || path == "traceId" => {
            let n = |s: &str| s.rsplit('-').next().unwrap().parse::<i64>().unwrap();
            Some(n(a).cmp(&n(b)))
        }
        (Value::String(a), Value::String(b)) => {
            if op == "contains" {
                return a.contains(b.as_str());
            }
            Some(a.as_str().cmp(b.as_str()))
        }
        (Value::Number(a), Value::Number(b)) => {
            a.as_f64().unwrap().partial_cmp(&b.as_f64().unwrap())
        }
        (Value::Bool(a), Value::Bool(b)) => Some(a.cmp(b)),
        _ => None,
    };
    // `ne` is the complement of `eq`, also where the types differ.
    let Some(o) = ord else { return op == "ne" };
    match op {
        "eq" => o == Ordering::Equal,
        "ne" => o != Ordering::Equal,
        "gt" => o == Ordering::Greater,
        "gte" => o != Ordering::Less,
        "lt" => o == Ordering::Less,
        "lte" => o != Ordering::Greater,
        _ => unreachable!(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_operator_on_every_type_answers_what_filtering_by_hand_answers() {
    let dir = tempfile::tempdir().unwrap();
    let c = start(
        "contracts/out/Sequence.json",
        // One worker: the same seed gives the same traces on any machine, so
        // every case below has rows on both sides (with two workers, which
        // one falsifies first depends on scheduling).
        Config {
            workers: Some(1),
            seed: Some(5),
            test_limit: 100_000,
            ..Config::default()
        },
        dir.path(),
    );
    let server = common::server(c.control());
    let engine = c.read();
    let _ = c.wait();
    engine.journal().unwrap().flush();

    let traces = walk(&server, "search_traces", json!({"limit": 200})).await;
    let spans = walk(&server, "search_spans", json!({"limit": 200})).await;
    assert!(traces.len() > 5 && spans.len() > 50);
    let mid = |items: &[Value], path: &str| -> Value {
        let mut vals: Vec<Value> = items.iter().filter_map(|i| get(i, path).cloned()).collect();
        vals.sort_by_key(|v| v.to_string());
        vals[vals.len() / 2].clone()
    };
    let span_cases: Vec<(&str, Value)> = vec![
        ("name", json!("turn(uint256)")),
        ("status", json!("error")),
        ("id", mid(&spans, "id")),
        ("traceId", mid(&spans, "traceId")),
        ("startTime", mid(&spans, "startTime")),
        ("data.gasUsed", mid(&spans, "data.gasUsed")),
        ("data.position", json!(3)),
        ("data.value", json!("0")),
        ("data.falsified", json!(true)),
        ("data.args.0", json!("42")),
        ("data.args.0", json!(42)),
        ("data.call", json!("close")),
        ("data.properties.echidna_not_closed", json!(false)),
    ];
    let trace_cases: Vec<(&str, Value)> = vec![
        ("kind", json!("corpus")),
        ("status", json!("success")),
        ("name", json!("shrink")),
        ("calls", mid(&traces, "calls")),
        ("latency", mid(&traces, "latency")),
        ("totalTokens", mid(&traces, "totalTokens")),
        ("createdAt", mid(&traces, "createdAt")),
        ("id", mid(&traces, "id")),
    ];
    let mut nontrivial = HashSet::new();
    check_ops(
        &server,
        "search_spans",
        &spans,
        &span_cases,
        &mut nontrivial,
    )
    .await;
    check_ops(
        &server,
        "search_traces",
        &traces,
        &trace_cases,
        &mut nontrivial,
    )
    .await;

    // Values, signed and unsigned arguments of many types: AbiKitchen.
    let dir2 = tempfile::tempdir().unwrap();
    let c = start(
        "contracts/out/AbiKitchen.json",
        Config {
            workers: Some(1),
            seed: Some(6),
            test_limit: 20_000,
            trace_window: 1_000_000,
            ..Config::default()
        },
        dir2.path(),
    );
    let server = common::server(c.control());
    let engine = c.read();
    let _ = c.wait();
    engine.journal().unwrap().flush();
    let spans = walk(&server, "search_spans", json!({"limit": 200})).await;
    let kitchen: Vec<(&str, Value)> = vec![
        ("data.value", mid(&spans, "data.value")),
        ("data.value", json!("1000000000000000000")),
        ("data.args.0", json!(-3)),
        ("data.args.0", json!("-100")),
        ("data.args.0", json!(0)),
        ("data.args.0", json!("1000000000000000000000000000000")),
    ];
    check_ops(&server, "search_spans", &spans, &kitchen, &mut nontrivial).await;

    // Each attribute split the rows somewhere (no case passed vacuously).
    for (field, _) in span_cases.iter().chain(&trace_cases).chain(&kitchen) {
        assert!(nontrivial.contains(field), "{field} never split the rows");
    }
}

/// Every operator of `cases` through `tool`, against filtering `rows` by hand.
async fn check_ops(
    server: &RudderServer,
    tool: &str,
    rows: &[Value],
    cases: &[(&'static str, Value)],
    nontrivial: &mut HashSet<&'static str>,
) {
    for (field, value) in cases {
        for op in ["eq", "ne", "gt", "gte", "lt", "lte", "contains"] {
            let args = json!({"filters": [{"field": field, "operator": op, "value": value}], "limit": 200});
            let text = value.is_string()
                && !["id", "traceId", "createdAt", "data.value", "data.args.0"].contains(field);
            let applies = match op {
                "contains" => text || *field == "data.args.0",
                "eq" | "ne" => true,
                _ => !value.is_boolean(),
            };
            if !applies {
                let e = err(server, tool, args).await;
                assert_eq!(e["code"], "INVALID_INPUT", "{field} {op}");
                assert_eq!(
                    e["details"]["field"], "filters[0].operator",
                    "{field} {op}: {e}"
                );
                assert!(e["message"].as_str().unwrap().contains(op));
                continue;
            }
            let got: HashSet<String> = ids(&walk(server, tool, args).await).into_iter().collect();
            let want: HashSet<String> = rows
                .iter()
                .filter(|r| holds(r, field, op, value))
                .map(|r| r["id"].as_str().unwrap().to_string())
                .collect();
            assert_eq!(got, want, "{tool}: {field} {op} {value}");
            if !got.is_empty() && got.len() < rows.len() {
                nontrivial.insert(field);
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_recent_window_keeps_the_newest_sequences() {
    let dir = tempfile::tempdir().unwrap();
    let c = start(
        "contracts/out/Token.json",
        Config {
            workers: Some(2),
            seed: Some(8),
            test_limit: 300_000,
            trace_window: 3,
            ..Config::default()
        },
        dir.path(),
    );
    let server = common::server(c.control());
    let engine = c.read();
    let _ = c.wait();
    engine.journal().unwrap().flush();
    let recent = call(
        &server,
        "list_traces",
        json!({"datasetRunId": "recent", "limit": 200}),
    )
    .await;
    let n = recent["count"].as_u64().unwrap();
    assert!((1..=3).contains(&n), "{recent}");
    // Their spans went with them: every span belongs to a trace that exists.
    let journal = engine.journal().unwrap();
    let reader = journal.reader().unwrap();
    let orphans: i64 = reader
        .conn()
        .query_row(
            "SELECT COUNT(*) FROM spans WHERE trace_id NOT IN (SELECT id FROM traces)",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(orphans, 0);
    let run = &engine.run_id();
    let listed = call(
        &server,
        "list_traces",
        json!({"sessionId": run, "limit": 5}),
    )
    .await;
    assert_eq!(listed["count"], 5);
    for t in listed["traces"].as_array().unwrap() {
        assert_eq!(t["sessionId"], json!(run));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_filters_are_invalid_input_naming_the_field_and_operator() {
    let dir = tempfile::tempdir().unwrap();
    let c = start(
        "contracts/out/SetSeven.json",
        Config {
            workers: Some(1),
            seed: Some(1),
            test_limit: 2_000,
            ..Config::default()
        },
        dir.path(),
    );
    let server = common::server(c.control());
    let _ = c.wait();
    let cases = [
        (
            json!({"filters": [{"field": "nope", "operator": "eq", "value": 1}]}),
            "filters[0].field",
        ),
        (
            json!({"filters": [{"field": "data.gasUsed", "operator": "contains", "value": "1"}]}),
            "filters[0].operator",
        ),
        (
            json!({"filters": [{"field": "data.gasUsed", "operator": "gt", "value": "lots"}]}),
            "filters[0].value",
        ),
        (
            json!({"filters": [{"field": "status", "operator": "eq", "value": 1}]}),
            "filters[0].value",
        ),
        (
            json!({"filters": [{"field": "data.falsified", "operator": "gt", "value": true}]}),
            "filters[0].operator",
        ),
        (
            json!({"filters": [{"field": "data.value", "operator": "gt", "value": "-1"}]}),
            "filters[0].value",
        ),
        (
            json!({"filters": [{"field": "data.args.x", "operator": "eq", "value": 1}]}),
            "filters[0].field",
        ),
        (
            json!({"filters": [{"field": "data.properties.a'b", "operator": "eq", "value": true}]}),
            "filters[0].field",
        ),
        (json!({"filters": [], "sortBy": "data.reason"}), "sortBy"),
        (json!({"cursor": "garbage"}), "cursor"),
        (json!({"traceId": "trace-x"}), "traceId"),
    ];
    for (args, field) in cases {
        let e = err(&server, "search_spans", args.clone()).await;
        assert_eq!(e["code"], "INVALID_INPUT", "{args}");
        assert_eq!(e["details"]["field"], field, "{args}: {e}");
        assert_eq!(e["details"]["seedCode"], "INVALID_QUERY", "{args}: {e}");
    }
    // Schema-level: unknown operators, limits out of range.
    for args in [
        json!({"filters": [{"field": "name", "operator": "like", "value": "x"}]}),
        json!({"limit": 0}),
        json!({"limit": 201}),
        json!({"filters": [{"field": "name", "operator": "eq", "value": null}]}),
    ] {
        let e = err(&server, "search_traces", args.clone()).await;
        assert_eq!(e["code"], "INVALID_INPUT", "{args}");
    }
    // A cursor of one query does not page another.
    let v = call(&server, "search_spans", json!({"limit": 1})).await;
    let e = err(
        &server,
        "search_spans",
        json!({"limit": 1, "cursor": v["cursor"], "sortOrder": "asc"}),
    )
    .await;
    assert_eq!(e["details"]["field"], "cursor");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resumed_campaign_keeps_traces_of_what_it_replayed() {
    let dir = tempfile::tempdir().unwrap();
    let config = |limit| Config {
        test_mode: TestMode::Assertion,
        workers: Some(1),
        seed: Some(11),
        test_limit: limit,
        ..Config::default()
    };
    let first = start("contracts/out/Assertion.json", config(30_000), dir.path()).wait();
    assert!(first.any_falsified(), "{}", first.text());
    // The same corpus directory again: its entries and the reproducer are
    // replayed before any worker runs.
    let c = start("contracts/out/Assertion.json", config(100), dir.path());
    let run = c.read().run_id().to_string();
    let server = common::server(c.control());
    let engine = c.read();
    let second = c.wait();
    assert!(second.resumed.corpus_sequences > 0, "{}", second.text());
    engine.journal().unwrap().flush();
    let traces = call(
        &server,
        "list_traces",
        json!({"limit": 200, "sessionId": run}),
    )
    .await;
    let traces = traces["traces"].as_array().unwrap();
    let replayed = |kind: &str| {
        traces
            .iter()
            .filter(|t| t["kind"] == kind && t["origin"] == "replayed")
            .count()
    };
    assert_eq!(
        replayed("corpus"),
        second.resumed.corpus_sequences,
        "one trace per replayed corpus entry: {traces:?}"
    );
    let falsified: Vec<&Value> = traces
        .iter()
        .filter(|t| t["kind"] == "falsifying" && t["origin"] == "replayed")
        .collect();
    assert_eq!(falsified.len(), 1, "{traces:?}");
    assert_eq!(falsified[0]["property"], "withdraw(uint128)");
    assert_eq!(falsified[0]["status"], "error");
}
