//! The MCP control plane in process: rmcp's client against rudder's server
//! over `tokio::io::duplex`, on a live campaign.

use crate::common;

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rudder::campaign::Campaign;
use rudder::config::Config;
use rudder::mcp::RudderServer;
use serde_json::{Value, json};
use std::path::Path;

const KEY: &str = "0x6c6f6f6b206f757420666f7220746865206d616769632076616c756521212121";

fn campaign(dir: &Path) -> Campaign {
    let config = Config {
        workers: Some(2),
        seed: Some(5),
        test_limit: u64::MAX,
        timeout: Some(std::time::Duration::from_secs(120)),
        keep_alive: true,
        ..Config::default()
    };
    let mut c = Campaign::new(
        Path::new("contracts/out/MagicHash.json"),
        None,
        config,
        Some(dir.to_path_buf()),
    )
    .unwrap();
    c.start().unwrap();
    c
}

struct Session {
    client: rmcp::service::RunningService<rmcp::RoleClient, ()>,
    tools: Vec<rmcp::model::Tool>,
}

impl Session {
    async fn call(&self, name: &str, args: Value) -> CallToolResult {
        let mut p = CallToolRequestParams::new(name.to_string());
        if let Value::Object(m) = args {
            p = p.with_arguments(m);
        }
        self.client.call_tool(p).await.unwrap()
    }

    /// Calls a tool that must succeed; validates its structured result
    /// against the tool's advertised output schema.
    async fn ok(&self, name: &str, args: Value) -> Value {
        let r = self.call(name, args).await;
        assert_ne!(
            r.is_error,
            Some(true),
            "{name}: {}",
            rudder::mcp::answer_json(&r)
        );
        let v = r.structured_content.clone().expect("structured content");
        let tool = self.tools.iter().find(|t| t.name == name).unwrap();
        let schema = Value::Object((*tool.output_schema.clone().unwrap()).clone());
        let validator = jsonschema::options()
            .with_draft(jsonschema::Draft::Draft7)
            .build(&schema)
            .unwrap();
        let errors: Vec<String> = validator.iter_errors(&v).map(|e| e.to_string()).collect();
        assert!(
            errors.is_empty(),
            "{name} output violates its schema: {errors:?}\n{v}"
        );
        v
    }

    async fn err(&self, name: &str, args: Value, code: &str) -> Value {
        let r = self.call(name, args.clone()).await;
        assert_eq!(r.is_error, Some(true), "{name} {args} should fail");
        assert!(
            r.structured_content.is_none(),
            "errors carry no structured content"
        );
        let v = rudder::mcp::answer_json(&r);
        assert_eq!(v["success"], json!(false));
        assert_eq!(v["error"]["code"], json!(code), "{v}");
        v
    }
}

async fn connect(c: &Campaign) -> Session {
    let server = RudderServer::new(c.control());
    let (a, b) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(s) = server.serve(a).await {
            let _ = s.waiting().await;
        }
    });
    let client = ().serve(b).await.unwrap();
    let tools = client.list_all_tools().await.unwrap();
    Session { client, tools }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_list_matches_the_seed() {
    let dir = tempfile::tempdir().unwrap();
    let c = campaign(dir.path());
    let s = connect(&c).await;
    let names: Vec<_> = s.tools.iter().map(|t| t.name.to_string()).collect();
    assert_eq!(
        names,
        [
            "read_logs",
            "show_coverage",
            "dump_lcov",
            "get_corpus_size",
            "inspect_corpus_transactions",
            "find_transaction_in_corpus",
            "inject_transaction",
            "prioritize_function",
            "clear_priorities",
            "target",
            "run_sequence",
            "reload_corpus",
            "foundry_reproducer",
            "revert_census",
            "test_vacuity",
            "evaluate_predicates",
            "write_html_report",
            "status",
            "get_events_by_type",
            "get_events_by_entity",
            "aggregate_metrics",
            "get_state_snapshot",
            "query_event_sequence",
            "get_validation_errors",
            "list_traces",
            "search_traces",
            "get_trace",
            "search_spans",
            "graph_index_project",
            "graph_update_files",
            "graph_context_for_files",
            "etg_log_event",
            "etg_query_similar_attempts",
            "get_current_price",
            "get_candles",
            "get_volatility",
            "get_balance",
            "get_positions",
            "validate_trade",
            "get_top_strategies",
            "get_strategy_signal",
            "get_strategy_consensus",
            "get_top_specs",
            "get_implementations",
            "submit_new_spec",
            "save_decision",
            "get_recent_decisions",
            "run_backtest",
            "get_historical_performance",
        ]
    );
    let listed: Vec<Value> = s
        .tools
        .iter()
        .map(|t| serde_json::to_value(t).unwrap())
        .collect();
    insta::assert_json_snapshot!("tools_list", listed);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_tool_happy_path_and_injection_falsifies() {
    let dir = tempfile::tempdir().unwrap();
    let c = campaign(dir.path());
    let s = connect(&c).await;
    common::wait_until("both workers to start", 30, || {
        c.events_of(rudder::eventlog::EventKind::WorkerStarted)
            .len()
            >= 2
    });

    let logs = s.ok("read_logs", json!({"count": 10})).await;
    assert!(logs["events"].as_array().unwrap().len() <= 10);
    let ts: Vec<&str> = logs["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["timestamp"].as_str().unwrap())
        .collect();
    assert!(ts.windows(2).all(|w| w[0] >= w[1]), "newest first: {ts:?}");
    assert!(ts.iter().all(|t| t.ends_with('Z')));
    let started = s
        .ok(
            "read_logs",
            json!({"eventType": "WorkerStarted", "count": 2500}),
        )
        .await;
    assert_eq!(started["events"].as_array().unwrap().len(), 2);
    let w1 = s.ok("read_logs", json!({"workerId": 1})).await;
    assert!(
        w1["events"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["workerId"] == json!(1))
    );

    let cov = s.ok("show_coverage", json!({})).await;
    let line = cov["contracts"][0]["lineCoverage"].as_f64().unwrap();
    assert!(
        line > 0.0 && (line * 10.0).fract() == 0.0,
        "one decimal: {line}"
    );
    s.ok("show_coverage", json!({"contract": "MagicHash"}))
        .await;

    let size = s.ok("get_corpus_size", json!({})).await;
    assert!(size["size"].as_u64().unwrap() > 0);
    let page = s
        .ok(
            "inspect_corpus_transactions",
            json!({"offset": 0, "limit": 5}),
        )
        .await;
    let idx: Vec<u64> = page["transactions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["index"].as_u64().unwrap())
        .collect();
    assert!(
        idx.windows(2).all(|w| w[1] == w[0] + 1),
        "index order: {idx:?}"
    );
    assert!(
        page["transactions"][0]["sender"]
            .as_str()
            .unwrap()
            .chars()
            .all(|c| !c.is_ascii_uppercase())
    );

    let lcov = s.call("dump_lcov", json!({})).await;
    let text = lcov.content[0].as_text().unwrap().text.clone();
    assert!(
        text.lines()
            .any(|l| l.starts_with("SF:/") && l.ends_with("/contracts/MagicHash.sol"))
            && text.contains("end_of_record")
    );
    let written = s
        .ok("dump_lcov", json!({"outputPath": "cov/lcov.info"}))
        .await;
    assert!(
        dir.path().join("exports/cov/lcov.info").exists(),
        "{written}"
    );

    let inj = s
        .ok(
            "inject_transaction",
            json!({"sequence": [format!("unlock({KEY})")]}),
        )
        .await;
    assert_eq!(inj["injectedCount"], json!(1));
    assert_eq!(inj["message"], json!("Injected 1 transaction to 2 workers"));
    let s = &s;
    let falsified = common::eventually("PropertyFalsified after the injection", 5, || async move {
        let f = s
            .ok("read_logs", json!({"eventType": "PropertyFalsified"}))
            .await;
        f["events"].as_array().unwrap().first().cloned()
    })
    .await;
    assert_eq!(falsified["data"]["property"], json!("echidna_locked"));
    let want = format!(
        "unlock({})",
        alloy_primitives::U256::from_str_radix(&KEY[2..], 16).unwrap()
    );
    let want = &want;
    let found = common::eventually("the injected call in the corpus", 5, || async move {
        let found = s
            .ok(
                "find_transaction_in_corpus",
                json!({"functionSignature": "unlock(uint256)"}),
            )
            .await;
        let there = (found["matches"].as_array().unwrap().iter()).any(|m| m["call"] == json!(want));
        there.then_some(found)
    })
    .await;
    assert!(
        found["matches"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["call"] == json!(want)),
        "{found}"
    );

    let p = s
        .ok(
            "prioritize_function",
            json!({"functionSignature": "unlock(uint256)"}),
        )
        .await;
    assert_eq!(p["prioritizedFunctions"], json!(["unlock(uint256)"]));
    let cl = s.ok("clear_priorities", json!({})).await;
    assert_eq!(cl["clearedCount"], json!(1));
    let st = s.ok("status", json!({})).await;
    assert_eq!(st["contract"], json!("MagicHash"));
    assert_eq!(st["tests"][0]["status"], json!("falsified"));
    c.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_is_invalid_input_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let c = campaign(dir.path());
    let s = connect(&c).await;
    let e = s
        .err("read_logs", json!({"count": 0}), "INVALID_INPUT")
        .await;
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("count:"),
        "{e}"
    );
    s.err("read_logs", json!({"count": 2501}), "INVALID_INPUT")
        .await;
    s.err("read_logs", json!({"count": "ten"}), "INVALID_INPUT")
        .await;
    s.err("read_logs", json!({"eventType": "Nope"}), "INVALID_INPUT")
        .await;
    s.err("read_logs", json!({"bogus": 1}), "INVALID_INPUT")
        .await;
    s.err(
        "inspect_corpus_transactions",
        json!({"limit": 101}),
        "INVALID_INPUT",
    )
    .await;
    s.err("find_transaction_in_corpus", json!({}), "INVALID_INPUT")
        .await;
    s.err(
        "find_transaction_in_corpus",
        json!({"sender": "0x12"}),
        "INVALID_INPUT",
    )
    .await;
    s.err(
        "find_transaction_in_corpus",
        json!({"minValue": "1e18"}),
        "INVALID_INPUT",
    )
    .await;
    s.err(
        "show_coverage",
        json!({"contract": "Nope"}),
        "INVALID_INPUT",
    )
    .await;
    s.err(
        "dump_lcov",
        json!({"outputPath": "../escape.info"}),
        "INVALID_INPUT",
    )
    .await;
    s.err(
        "dump_lcov",
        json!({"outputPath": "/etc/passwd"}),
        "INVALID_INPUT",
    )
    .await;
    s.err(
        "inject_transaction",
        json!({"sequence": []}),
        "INVALID_INPUT",
    )
    .await;
    s.err(
        "inject_transaction",
        json!({"sequence": ["unlock(1)"], "value": "-1"}),
        "INVALID_INPUT",
    )
    .await;
    let e = s
        .err(
            "inject_transaction",
            json!({"sequence": ["unlock(1, 2)"]}),
            "INVALID_INPUT",
        )
        .await;
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap()
            .contains("sequence[0]"),
        "{e}"
    );
    s.err(
        "inject_transaction",
        json!({"sequence": ["nope()"]}),
        "INVALID_INPUT",
    )
    .await;
    // A call the schema's pattern refuses is explained in words, with
    // where it went wrong, not with the regex.
    for (call, hint) in [
        ("unlock 1", "it has no argument list"),
        ("unlock(1", "it must end with the argument list's `)`"),
        ("1unlock()", "it must start with the function's name"),
    ] {
        let e = s
            .err(
                "inject_transaction",
                json!({"sequence": [call]}),
                "INVALID_INPUT",
            )
            .await;
        let m = e["error"]["message"].as_str().unwrap();
        assert!(
            m.starts_with("sequence.0: expected a call written as in Solidity")
                && m.contains(hint)
                && !m.contains("does not match"),
            "{call}: {e}"
        );
        assert_eq!(e["error"]["details"]["field"], "sequence.0", "{e}");
    }
    s.err(
        "inject_transaction",
        json!({"sequence": vec!["unlock(1)"; 101]}),
        "INVALID_INPUT",
    )
    .await;
    s.err(
        "prioritize_function",
        json!({"functionSignature": "unlock(uint8)"}),
        "INVALID_INPUT",
    )
    .await;
    s.err(
        "prioritize_function",
        json!({"functionSignature": "unlock( uint256 )"}),
        "INVALID_INPUT",
    )
    .await;
    s.err("no_such_tool", json!({}), "TOOL_NOT_FOUND").await;
    // Nothing changed: no injection ran, no priority was set.
    let st = s.ok("status", json!({})).await;
    assert_eq!(st["prioritizedFunctions"], json!([]));
    assert!(
        c.read()
            .events()
            .snapshot(
                &rudder::eventlog::Filter {
                    kind: Some(rudder::eventlog::EventKind::InjectionExecuted),
                    ..Default::default()
                },
                10
            )
            .is_empty()
    );
    assert!(!dir.path().join("escape.info").exists());
    c.stop();
}

/// What an agent loads: `tools/list` with every family and no output
/// schemas (what `rudder mcp` advertises unless `--output-schemas`) stays
/// within 40 KB, and no description points at the project's specs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tool_list_an_agent_loads_is_small_and_plain() {
    let dir = tempfile::tempdir().unwrap();
    let c = campaign(dir.path());
    let lean = RudderServer::new(c.control()).with_output_schemas(false);
    let tools = lean.tool_list();
    let bytes = serde_json::to_string(&json!({ "tools": tools }))
        .unwrap()
        .len();
    eprintln!("tools/list: {} tools, {bytes} bytes", tools.len());
    assert!(bytes <= 40_000, "tools/list is {bytes} bytes");
    for t in &tools {
        assert!(t.output_schema.is_none(), "{}", t.name);
        let text = serde_json::to_string(t).unwrap();
        for word in ["Clarification", "seed 00", "Seed 00"] {
            assert!(!text.contains(word), "{}: {word} in {text}", t.name);
        }
    }
    let full = RudderServer::new(c.control()).tool_list();
    assert!(full.iter().all(|t| t.output_schema.is_some()));
}
