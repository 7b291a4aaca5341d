//! The ops family (seed 001) on real runs: every tool answers from the
//! campaign, with the seed's envelope, `_metadata`, cache and error codes;
//! dry runs change nothing; a spec submitted at run time is falsified,
//! shrunk and comes back on resume.

use crate::common;

use crate::common::{call, start};
use rudder::config::Config;
use rudder::mcp::RudderServer;
use serde_json::{Value, json};

/// The seed-001 `error` object of a call that must fail.
async fn err001(server: &RudderServer, name: &str, args: Value) -> Value {
    let Value::Object(m) = args.clone() else {
        panic!()
    };
    let r = server.run_tool(name, Some(m)).await;
    assert_eq!(r.is_error, Some(true), "{name} {args} should fail");
    assert!(
        r.structured_content.is_none(),
        "errors carry no structured content"
    );
    let body = rudder::mcp::answer_json(&r);
    assert!(body["_metadata"]["latency_ms"].is_number(), "{body}");
    assert!(body.get("success").is_none(), "seed 001's shape: {body}");
    body["error"].clone()
}

/// What a dry run must leave as it was.
fn digest(
    s: &rudder::campaign::CampaignRead,
    f: &rudder::campaign::FamilyData,
) -> (u64, u64, usize, usize, usize, usize) {
    (
        s.stats().calls(),
        s.target().coverage.points(),
        s.corpus().len(),
        s.tests().falsified_count(),
        s.events().len(),
        f.ops.decisions.len(),
    )
}

/// One finished 20,000-call run of Bank (2 workers, seed 3) that every
/// ops tool test reads; the tests take turns (`_turn`), since some of them
/// change what the others compare (decisions, dry-run digests).
struct BankRun {
    _dir: tempfile::TempDir,
    control: rudder::campaign::Control,
    engine: rudder::campaign::CampaignRead,
    families: std::sync::Arc<rudder::campaign::FamilyData>,
    turn: tokio::sync::Mutex<()>,
}

fn bank_run() -> &'static BankRun {
    static RUN: std::sync::OnceLock<BankRun> = std::sync::OnceLock::new();
    RUN.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let c = start(
            "contracts/out/Bank.json",
            Config {
                workers: Some(2),
                seed: Some(3),
                test_limit: 20_000,
                ..Config::default()
            },
            dir.path(),
        );
        let control = c.control();
        let engine = c.read();
        let families = c.families().clone();
        let _ = c.wait();
        BankRun {
            _dir: dir,
            control,
            engine,
            families,
            turn: tokio::sync::Mutex::new(()),
        }
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn market_data_tools_answer_from_the_run_with_cache_pages_and_errors() {
    let run = bank_run();
    let _turn = run.turn.lock().await;
    let server = common::server(run.control.clone());
    let engine = &run.engine;
    // Market data.
    let p = call(&server, "get_current_price", json!({"symbol": "calls"})).await;
    assert_eq!(p["price"], json!(engine.stats().calls() as f64));
    assert_eq!(p["_metadata"]["cached"], false);
    assert_eq!(p["_metadata"]["source"], "campaign");
    let again = call(&server, "get_current_price", json!({"symbol": "calls"})).await;
    assert_eq!(again["_metadata"]["cached"], true, "{again}");
    assert!(again["_metadata"]["cache_ttl_remaining"].as_f64().unwrap() <= 5.0);
    let forced = call(
        &server,
        "get_current_price",
        json!({"symbol": "calls", "force_refresh": true}),
    )
    .await;
    assert_eq!(forced["_metadata"]["cached"], false);
    let e = err001(&server, "get_current_price", json!({"symbol": "ETH/USD"})).await;
    assert_eq!(e["code"], "INVALID_SYMBOL");
    assert!(e["message"].as_str().unwrap().contains("coverage_points"));

    let candles = call(
        &server,
        "get_candles",
        json!({"symbol": "coverage_points", "timeframe": "250ms", "limit": 2}),
    )
    .await;
    assert!(candles["items"].as_array().unwrap().len() <= 2);
    let total = candles["pagination"]["total"].as_u64().unwrap();
    assert!(total >= 1);
    assert_eq!(candles["pagination"]["has_more"], json!(total > 2));
    let newest = &candles["items"][0];
    assert_eq!(
        newest["close"],
        json!(engine.target().coverage.points() as f64)
    );
    assert!(newest["high"].as_f64() >= newest["low"].as_f64());
    // Walking the pages gives every bucket once.
    let mut seen = Vec::new();
    let mut offset = 0;
    loop {
        let pg = call(
            &server,
            "get_candles",
            json!({"symbol": "coverage_points", "timeframe": "250ms", "limit": 3, "offset": offset, "force_refresh": true}),
        )
        .await;
        for i in pg["items"].as_array().unwrap() {
            seen.push(i["timestamp"].as_str().unwrap().to_string());
        }
        if pg["pagination"]["has_more"] != true {
            break;
        }
        offset += 3;
    }
    let unique: std::collections::HashSet<_> = seen.iter().collect();
    assert_eq!(unique.len(), seen.len());
    let e = err001(
        &server,
        "get_candles",
        json!({"symbol": "calls", "timeframe": "7y"}),
    )
    .await;
    assert_eq!(
        (e["code"].as_str(), e["details"]["field"].as_str()),
        (Some("INVALID_TIMEFRAME"), Some("timeframe"))
    );
    let e = err001(
        &server,
        "get_candles",
        json!({"symbol": "calls", "limit": 5000}),
    )
    .await;
    assert_eq!(e["code"], "INVALID_PARAMETER");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn volatility_needs_two_buckets_and_names_too_little_data() {
    let run = bank_run();
    let _turn = run.turn.lock().await;
    let server = common::server(run.control.clone());
    // Volatility needs two buckets: the sampler's first sample is taken at
    // the start, and a tool's answer appends one as of now. A fast machine
    // runs these 20,000 calls and everything above inside one 100 ms bucket
    // (a clean-clone CI did), so wait for the clock to pass a bucket
    // boundary after the run's start.
    let started = run.control.read().started_ms();
    common::wait_until("a 100 ms bucket boundary after the start", 5, || {
        rudder::eventlog::now_ms() / 100 > started / 100
    });
    let v = call(
        &server,
        "get_volatility",
        json!({"symbol": "coverage_points", "timeframe": "100ms"}),
    )
    .await;
    assert!(v["volatility"].as_f64().unwrap() >= 0.0);
    assert!(!v["per_function"].as_array().unwrap().is_empty());
    let f = call(
        &server,
        "get_volatility",
        json!({"symbol": "deposit(uint256)", "timeframe": "100ms"}),
    )
    .await;
    assert_eq!(f["per_function"].as_array().unwrap().len(), 1);
    let e = err001(
        &server,
        "get_volatility",
        json!({"symbol": "calls", "timeframe": "1d"}),
    )
    .await;
    assert_eq!(e["code"], "INSUFFICIENT_DATA");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trading_tools_dry_run_without_changing_the_campaign() {
    let run = bank_run();
    let _turn = run.turn.lock().await;
    let server = common::server(run.control.clone());
    let engine = &run.engine;
    // Trading.
    let b = call(&server, "get_balance", json!({})).await;
    assert_eq!(b["total_balance"], json!(20_000.0));
    assert_eq!(
        b["margin_used"].as_f64().unwrap() + b["available_balance"].as_f64().unwrap(),
        20_000.0
    );
    assert_eq!(b["workers"].as_array().unwrap().len(), 2);
    let pos = call(&server, "get_positions", json!({"limit": 1})).await;
    assert_eq!(pos["pagination"]["total"], 2);
    assert_eq!(pos["pagination"]["has_more"], true);
    let item = &pos["items"][0];
    assert_eq!(item["symbol"], "Bank");
    assert_eq!(item["side"], "SHORT", "the campaign ended: {item}");
    assert!(item["size"].as_f64().unwrap() <= item["planned_calls"].as_f64().unwrap());
    assert!(item["source"].is_string());

    let before = digest(engine, &run.families);
    let ok = call(
        &server,
        "validate_trade",
        json!({"symbol": "deposit(5)", "side": "BUY", "size": 3}),
    )
    .await;
    assert_eq!(ok["valid"], true, "{ok}");
    assert_eq!(ok["calls"].as_array().unwrap().len(), 3);
    let sell = call(
        &server,
        "validate_trade",
        json!({"symbol": "withdraw(1000000)", "side": "SELL", "size": 1}),
    )
    .await;
    assert_eq!(sell["valid"], true, "{sell}");
    assert_eq!(sell["max_size"], 0.0);
    assert_eq!(sell["risk_score"], 1.0);
    let e = err001(
        &server,
        "validate_trade",
        json!({"symbol": "nope(1)", "side": "BUY", "size": 1}),
    )
    .await;
    assert_eq!(e["code"], "INVALID_SYMBOL");
    let e = err001(
        &server,
        "validate_trade",
        json!({"symbol": "deposit(1)", "side": "BUY", "size": 0}),
    )
    .await;
    assert_eq!(
        (e["code"].as_str(), e["details"]["field"].as_str()),
        (Some("INVALID_SIZE"), Some("size"))
    );
    let bt = call(
        &server,
        "run_backtest",
        json!({"strategy_id": "inline", "symbol": "Bank", "calls": ["deposit(7)", "withdraw(3)", "withdraw(100)"]}),
    )
    .await;
    assert_eq!(bt["trades"], 3);
    assert_eq!(bt["calls"][2]["outcome"], "revert", "{bt}");
    assert!((bt["win_rate"].as_f64().unwrap() - 2.0 / 3.0).abs() < 1e-9);
    let corpus0 = call(
        &server,
        "run_backtest",
        json!({"strategy_id": "corpus:0", "symbol": "Bank"}),
    )
    .await;
    assert!(corpus0["trades"].as_u64().unwrap() >= 1);
    // The campaign reached everything corpus:0 reaches.
    assert_eq!(corpus0["total_return"], 0.0);
    for (args, code) in [
        (
            json!({"strategy_id": "corpus:99999", "symbol": "Bank"}),
            "STRATEGY_NOT_FOUND",
        ),
        (
            json!({"strategy_id": "x", "symbol": "Bank"}),
            "STRATEGY_NOT_FOUND",
        ),
        (
            json!({"strategy_id": "inline", "symbol": "ETH"}),
            "INVALID_SYMBOL",
        ),
        (
            json!({"strategy_id": "inline", "symbol": "Bank", "calls": ["deposit(1)"], "start_date": "2026-02-01", "end_date": "2026-01-01"}),
            "INVALID_DATE_RANGE",
        ),
        (
            json!({"strategy_id": "inline", "symbol": "Bank", "calls": ["deposit(1)"], "start_date": "2026-02-30"}),
            "INVALID_PARAMETER",
        ),
    ] {
        assert_eq!(
            err001(&server, "run_backtest", args.clone()).await["code"],
            code,
            "{args}"
        );
    }
    assert_eq!(
        digest(engine, &run.families),
        before,
        "dry runs changed a store"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn strategy_tools_score_functions_from_the_campaign_statistics() {
    let run = bank_run();
    let _turn = run.turn.lock().await;
    let server = common::server(run.control.clone());
    let engine = &run.engine;
    // Strategies.
    let top = call(
        &server,
        "get_top_strategies",
        json!({"symbol": "Bank", "metric": "return", "limit": 4}),
    )
    .await;
    let items = top["items"].as_array().unwrap();
    assert_eq!(items.len(), 4);
    let calls: u64 = items
        .iter()
        .map(|i| i["signals_count"].as_u64().unwrap())
        .sum();
    assert_eq!(calls, engine.stats().calls());
    assert!(
        items
            .windows(2)
            .all(|w| w[0]["score"].as_f64() >= w[1]["score"].as_f64())
    );
    // Bank.open's guard (a hash and a bound) stays blocked: coverage says BUY.
    let sig = call(
        &server,
        "get_strategy_signal",
        json!({"strategy_id": "coverage", "symbol": "open(uint256,uint16)"}),
    )
    .await;
    assert_eq!(sig["signal"], "BUY", "{sig}");
    assert!(sig["parameters"]["blocking_gaps"].as_u64().unwrap() >= 1);
    let consts = call(
        &server,
        "get_strategy_signal",
        json!({"strategy_id": "constants", "symbol": "open(uint256,uint16)"}),
    )
    .await;
    let values = consts["parameters"]["candidate_values"].to_string();
    assert!(values.contains("1000"), "{values}");
    let e = err001(
        &server,
        "get_strategy_signal",
        json!({"strategy_id": "macd", "symbol": "open(uint256,uint16)"}),
    )
    .await;
    assert_eq!(e["code"], "STRATEGY_NOT_FOUND");
    let cons = call(&server, "get_strategy_consensus", json!({"symbol": "Bank"})).await;
    let n = cons["bullish_count"].as_u64().unwrap()
        + cons["bearish_count"].as_u64().unwrap()
        + cons["neutral_count"].as_u64().unwrap();
    assert_eq!(n as usize, 3 * engine.callable().len());
    let ranked = cons["ranked"].as_array().unwrap();
    assert!(
        ranked
            .windows(2)
            .all(|w| w[0]["score"].as_f64() >= w[1]["score"].as_f64())
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spec_tools_list_the_tests_and_their_implementations() {
    let run = bank_run();
    let _turn = run.turn.lock().await;
    let server = common::server(run.control.clone());
    let engine = &run.engine;
    // Specs and implementations.
    let specs = call(&server, "get_top_specs", json!({"source": "CANONICAL"})).await;
    assert_eq!(
        specs["pagination"]["total"].as_u64().unwrap() as usize,
        engine.tests().len()
    );
    let first = &specs["items"][0];
    let imp = call(
        &server,
        "get_implementations",
        json!({"spec_id": first["spec_id"], "status": "ALL"}),
    )
    .await;
    assert!(
        imp["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["status"] == "DEPLOYED"),
        "{imp}"
    );
    let imp = call(
        &server,
        "get_implementations",
        json!({"spec_id": "deposit(uint256)", "status": "VALIDATED"}),
    )
    .await;
    let item = &imp["items"][0];
    assert_eq!(item["impl_id"], "Bank.deposit(uint256)");
    assert!(
        item["parameters"]["writes"]
            .to_string()
            .contains("balances"),
        "{item}"
    );
    assert_eq!(
        err001(&server, "get_implementations", json!({"spec_id": "zzz"})).await["code"],
        "SPEC_NOT_FOUND"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_tools_keep_and_filter_the_agents_decisions() {
    let run = bank_run();
    let _turn = run.turn.lock().await;
    let server = common::server(run.control.clone());
    // Memory.
    let saved = call(
        &server,
        "save_decision",
        json!({"symbol": "open(uint256,uint16)", "action": "BUY", "confidence": 0.8, "reasoning": "the hash guard blocks 3 branches"}),
    )
    .await;
    assert_eq!(saved["saved"], true);
    let recent = call(&server, "get_recent_decisions", json!({"action": "BUY"})).await;
    assert_eq!(recent["items"][0]["decision_id"], saved["decision_id"]);
    assert_eq!(
        err001(
            &server,
            "save_decision",
            json!({"symbol": "x", "action": "BUY", "confidence": 1.5, "reasoning": "r"})
        )
        .await["code"],
        "INVALID_CONFIDENCE"
    );
    assert_eq!(
        err001(&server, "save_decision", json!({"symbol": "x", "action": "BUY", "confidence": 0.5, "reasoning": "r".repeat(9000)})).await["code"],
        "REASONING_TOO_LONG"
    );
    assert_eq!(
        err001(&server, "get_recent_decisions", json!({"action": "SHORT"})).await["code"],
        "INVALID_PARAMETER"
    );
    assert_eq!(run.families.ops.decisions.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn performance_per_function_and_metadata_by_family() {
    let run = bank_run();
    let _turn = run.turn.lock().await;
    let server = common::server(run.control.clone());
    let engine = &run.engine;
    // Performance.
    let perf = call(
        &server,
        "get_historical_performance",
        json!({"strategy_id": "all"}),
    )
    .await;
    assert_eq!(
        perf["total_signals"].as_u64().unwrap(),
        engine.stats().calls()
    );
    let rows = perf["performance_by_month"].as_array().unwrap();
    assert_eq!(rows.len(), engine.callable().len());
    let w = rows
        .iter()
        .find(|r| r["function"] == "withdraw(uint256)")
        .unwrap();
    assert!(w["reverts"].as_u64().unwrap() > 0);
    assert!(w["gas_p50"].as_u64() <= w["gas_p99"].as_u64());
    assert_eq!(
        err001(
            &server,
            "get_historical_performance",
            json!({"strategy_id": "sma"})
        )
        .await["code"],
        "STRATEGY_NOT_FOUND"
    );
    // Other families carry _metadata; seed 002's do not.
    let status = call(&server, "get_corpus_size", json!({})).await;
    assert!(status.get("_metadata").is_none());
    let events = call(&server, "search_traces", json!({"limit": 1})).await;
    assert!(events["_metadata"]["latency_ms"].is_number(), "{events}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spec_submitted_at_run_time_is_falsified_shrunk_and_resumed() {
    let dir = tempfile::tempdir().unwrap();
    let config = Config {
        workers: Some(2),
        seed: Some(9),
        test_limit: 50_000,
        keep_alive: true,
        timeout: Some(std::time::Duration::from_secs(60)),
        ..Config::default()
    };
    let c = start("contracts/out/Token.json", config.clone(), dir.path());
    let server = common::server(c.control());
    let engine = c.read();
    // Refused specs name the field and change nothing.
    for (args, code, field) in [
        (
            json!({"name": "a b", "indicators": [], "entry_conditions": ["totalSupply() > 0"], "exit_conditions": [], "parameters": []}),
            "INVALID_NAME",
            "name",
        ),
        (
            json!({"name": "s", "indicators": [], "entry_conditions": ["totalSupply() >> 0"], "exit_conditions": [], "parameters": []}),
            "INVALID_CONDITIONS",
            "entry_conditions[0]",
        ),
        (
            json!({"name": "s", "indicators": ["transfer"], "entry_conditions": ["totalSupply() > 0"], "exit_conditions": [], "parameters": []}),
            "INVALID_INDICATORS",
            "indicators[0]",
        ),
        (
            json!({"name": "echidna_supply_constant", "indicators": [], "entry_conditions": ["totalSupply() > 0"], "exit_conditions": [], "parameters": []}),
            "DUPLICATE_NAME",
            "name",
        ),
    ] {
        let e = err001(&server, "submit_new_spec", args).await;
        assert_eq!(
            (e["code"].as_str(), e["details"]["field"].as_str()),
            (Some(code), Some(field)),
            "{e}"
        );
    }
    let tests_before = engine.tests().len();
    let ok = call(
        &server,
        "submit_new_spec",
        json!({
            "name": "no_allowance",
            "description": "nobody approves 0x20000 for 0x10000",
            "indicators": ["allowance"],
            "entry_conditions": ["allowance(0x10000, 0x20000) == 0"],
            "exit_conditions": [],
            "parameters": [],
            "reasoning": "an approval from a sender should be found"
        }),
    )
    .await;
    assert_eq!(
        (ok["spec_id"].as_str(), ok["created"].as_bool()),
        (Some("no_allowance"), Some(true))
    );
    assert_eq!(engine.tests().len(), tests_before + 1);
    let id = engine
        .tests()
        .cases()
        .find(|c| c.name == "no_allowance")
        .unwrap()
        .id;
    common::wait_until("the spec falsified and shrunk", 50, || {
        engine.tests().falsified(id).is_some_and(|f| f.shrink_done)
    });
    let f = engine.tests().falsified(id).unwrap();
    assert_eq!(
        f.shrunk.len(),
        1,
        "shrunk to one approve: {:?}",
        engine.print_sequence(&f.shrunk)
    );
    assert!(engine.print_sequence(&f.shrunk)[0].contains("approve"));
    assert!(
        f.reason.contains("allowance(0x10000, 0x20000) == 0"),
        "{}",
        f.reason
    );
    let specs = call(&server, "get_top_specs", json!({"source": "LLM_GENERATED"})).await;
    assert_eq!(specs["items"][0]["status"], "falsified", "{specs}");
    c.control().stop();
    let _ = c.wait();
    drop(server);

    // Resumed: the spec is back, and its reproducer falsifies it again.
    let c = start(
        "contracts/out/Token.json",
        Config {
            test_limit: 100,
            keep_alive: false,
            ..config
        },
        dir.path(),
    );
    let engine = c.read();
    let _ = c.wait();
    let case = engine
        .tests()
        .cases()
        .find(|c| c.name == "no_allowance")
        .expect("reloaded");
    assert!(case.spec.is_some());
    let f = engine
        .tests()
        .falsified(case.id)
        .expect("falsified again on resume");
    assert_eq!(f.found_by, rudder::campaign::properties::FoundBy::Resume);
}
