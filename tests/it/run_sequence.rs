//! Run once and see everything (`run_sequence`), and re-reading the corpus
//! directory (`reload_corpus`): through the library and through the tools.

use crate::common::{self, call, err, json_files, server, start};
use rudder::config::{Config, TestMode};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

fn config(test_limit: u64) -> Config {
    Config {
        test_mode: TestMode::Property,
        workers: Some(1),
        seed: Some(7),
        test_limit,
        timeout: Some(std::time::Duration::from_secs(120)),
        ..Config::default()
    }
}

/// Waits until the campaign's workers have stopped (its one call made).
async fn idle(s: &rudder::mcp::RudderServer) {
    common::eventually("the campaign to stop", 60, || async move {
        (call(s, "status", json!({})).await["running"] == false).then_some(())
    })
    .await;
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sequence_run_once_shows_returns_events_reasons_coverage_and_broken_tests() {
    let dir = tempfile::tempdir().unwrap();
    // A campaign that does not fuzz on its own (testLimit 1): what the run
    // reports is what the calls did, not what workers happened to cover.
    let c = start("contracts/out/Vault.json", config(1), dir.path());
    let s = server(c.control());
    idle(&s).await;
    let calls_before = c.read().corpus().len();
    let falsified_before = c.read().tests().falsified_count();
    let points_before = c.read().target().coverage.points();

    let v = call(
        &s,
        "run_sequence",
        json!({"sequence": [
            "deposit(1000, \"rent\")",
            "withdraw(5000)",
            "share(0)",
            "share(4)"
        ]}),
    )
    .await;
    assert_eq!(v["success"], true);
    assert_eq!(v["complete"], true);
    let calls = v["calls"].as_array().unwrap();
    assert_eq!(calls.len(), 4);

    // deposit: named returns, the decoded event, new coverage, a broken property.
    let d = &calls[0];
    assert_eq!(d["outcome"], "success");
    assert_eq!(
        d["returns"],
        json!([
            {"name": "newTotal", "type": "uint256", "value": "1000"},
            {"name": "big", "type": "bool", "value": "true"}
        ])
    );
    let ev = &d["events"][0];
    assert_eq!(ev["name"], "Deposited");
    assert_eq!(ev["contract"], "Vault");
    assert_eq!(ev["args"][0]["name"], "who");
    assert_eq!(ev["args"][0]["type"], "address");
    assert_eq!(
        ev["args"][1],
        json!({"name": "amount", "type": "uint256", "value": "1000"})
    );
    assert_eq!(
        ev["args"][2],
        json!({"name": "memo", "type": "string", "value": "\"rent\""})
    );
    assert_eq!(ev["topics"], json!([]));
    assert!(d["gasUsed"].as_u64().unwrap() > 21_000);
    assert_eq!(strings(&d["failing"]), vec!["echidna_total_small"]);

    // withdraw: the custom error with its arguments.
    let w = &calls[1];
    assert_eq!(w["outcome"], "revert");
    assert_eq!(w["reason"], "reverted with TooMuch(5000, 1000)");
    assert_eq!(w["returns"], json!([]));

    // share(0): a panic with its code and meaning.
    assert_eq!(calls[2]["outcome"], "panic");
    let reason = calls[2]["reason"].as_str().unwrap();
    assert!(
        reason.contains("0x12") && reason.contains("division"),
        "{reason}"
    );
    assert_eq!(calls[3]["returns"][0]["value"], "250");
    assert_eq!(strings(&v["falsified"]), vec!["echidna_total_small"]);
    // The revert and panic paths are ones a one-call campaign has not reached.
    let gained: u64 = calls
        .iter()
        .map(|c| c["newCoveragePoints"].as_u64().unwrap())
        .sum();
    assert!(gained > 0, "{v}");

    // Nothing of the campaign changed: no test settled, the corpus and the
    // coverage map are as they were, and the same run reports the same
    // coverage gain.
    assert_eq!(c.read().tests().falsified_count(), falsified_before);
    assert_eq!(c.read().corpus().len(), calls_before);
    assert_eq!(c.read().target().coverage.points(), points_before);
    let again = call(
        &s,
        "run_sequence",
        json!({"sequence": ["deposit(1000, \"rent\")", "withdraw(5000)", "share(0)", "share(4)"]}),
    )
    .await;
    assert_eq!(again["calls"], v["calls"]);

    // A wildcard is drawn once, and the call shows what was drawn.
    let w = call(
        &s,
        "run_sequence",
        json!({"sequence": ["deposit(?, \"x\")"]}),
    )
    .await;
    let text = w["calls"][0]["call"].as_str().unwrap();
    assert!(
        text.starts_with("deposit(") && !text.contains('?'),
        "{text}"
    );

    // Bad input: refused with the field named, nothing run.
    let e = err(&s, "run_sequence", json!({"sequence": ["deposit(1)"]})).await;
    assert_eq!(e["code"], "INVALID_INPUT");
    assert_eq!(e["details"]["field"], "sequence[0]");
    let e = err(
        &s,
        "run_sequence",
        json!({"sequence": ["share(1)"], "value": "-1"}),
    )
    .await;
    assert_eq!(e["details"]["field"], "value");
    let e = err(&s, "run_sequence", json!({"sequence": []})).await;
    assert_eq!(e["details"]["field"], "sequence");

    // The library answers the same question without MCP.
    let report = c
        .control()
        .run_once(
            &["withdraw(1)".to_string()],
            None,
            alloy_primitives::U256::ZERO,
            Instant::now() + Duration::from_secs(10),
        )
        .unwrap();
    assert_eq!(
        report.calls[0].reason.as_deref(),
        Some("reverted with TooMuch(1, 0)")
    );
    c.stop();
    c.wait();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reload_corpus_adds_what_another_run_wrote_and_names_what_it_cannot_read() {
    // Another campaign on the same target writes its corpus.
    let other = tempfile::tempdir().unwrap();
    let a = start("contracts/out/Token.json", config(5_000), other.path());
    a.wait();
    let written = json_files(&other.path().join("corpus/coverage"));
    assert!(!written.is_empty(), "the first campaign kept no corpus");

    // This campaign idles (testLimit 1) while files arrive in its corpus.
    let dir = tempfile::tempdir().unwrap();
    let c = start("contracts/out/Token.json", config(1), dir.path());
    let s = server(c.control());
    idle(&s).await;
    // Its own corpus files are on disk before they are counted (the disk
    // writer writes them after the worker kept them).
    c.read().flush();
    let coverage = dir.path().join("corpus/coverage");
    std::fs::create_dir_all(&coverage).unwrap();
    let own = json_files(&coverage).len();
    let before = c.read().corpus().len();
    for f in &written {
        std::fs::copy(
            f,
            coverage.join(format!(
                "copied-{}",
                f.file_name().unwrap().to_string_lossy()
            )),
        )
        .unwrap();
    }
    std::fs::write(coverage.join("broken.json"), b"{\"txs\": [").unwrap();

    let v = call(&s, "reload_corpus", json!({})).await;
    assert_eq!(v["success"], true);
    assert_eq!(v["added"], written.len());
    assert_eq!(v["alreadyKnown"], own);
    assert_eq!(v["remaining"], 0);
    let malformed = v["malformed"].as_array().unwrap();
    assert_eq!(malformed.len(), 1, "{v}");
    assert!(
        malformed[0]["file"]
            .as_str()
            .unwrap()
            .ends_with("broken.json")
    );
    assert!(
        malformed[0]["error"]
            .as_str()
            .unwrap()
            .contains("not a corpus entry")
    );
    assert!(v["newCoveragePoints"].as_u64().unwrap() > 0, "{v}");
    assert_eq!(c.read().corpus().len(), before + written.len());
    assert_eq!(v["corpusSequences"], before + written.len());

    // Again, with one sequence copied under a third name: nothing new (the
    // corpus holds each sequence once), the broken file is named again and
    // still there.
    std::fs::copy(&written[0], coverage.join("again.json")).unwrap();
    let v = call(&s, "reload_corpus", json!({})).await;
    assert_eq!(v["added"], 0);
    assert_eq!(v["alreadyKnown"], own + written.len() + 1);
    assert_eq!(v["malformed"].as_array().unwrap().len(), 1);
    assert!(coverage.join("broken.json").exists());
    assert_eq!(c.read().corpus().len(), before + written.len());

    // Bad input changes nothing.
    let e = err(&s, "reload_corpus", json!({"dir": "/tmp"})).await;
    assert_eq!(e["details"]["field"], "dir");
    assert_eq!(c.read().corpus().len(), before + written.len());
    c.stop();
    c.wait();
}

/// `$n` references through the tool: a later call reads an earlier one's
/// named output (`$1.newTotal`) and an emitted event's argument
/// (`$1.amount`); a reference to a call that failed stops the run there,
/// saying why; one that names no earlier call, or a field the call does
/// not have, is refused before anything runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_later_call_reads_what_an_earlier_call_returned_or_emitted() {
    let dir = tempfile::tempdir().unwrap();
    let c = start("contracts/out/Vault.json", config(1), dir.path());
    let s = server(c.control());
    idle(&s).await;
    let v = call(
        &s,
        "run_sequence",
        json!({"sequence": [
            "deposit(600, \"a\")",
            "deposit($1.newTotal, \"b\"); withdraw($1.amount)"
        ]}),
    )
    .await;
    assert_eq!(v["complete"], true, "{v}");
    let calls = v["calls"].as_array().unwrap();
    assert_eq!(calls[1]["call"], "deposit(600, \"b\")", "{v}");
    assert_eq!(calls[1]["returns"][0]["value"], "1200");
    assert_eq!(calls[1]["failing"], json!(["echidna_total_small"]));
    assert_eq!(calls[2]["call"], "withdraw(600)", "{v}");
    assert_eq!(calls[2]["outcome"], "success");

    // The second deposit overflows: the withdrawal reading it does not run.
    let v = call(
        &s,
        "run_sequence",
        json!({"sequence": [
            "deposit(1, \"a\")",
            format!("deposit({}, \"b\")", alloy_primitives::U256::MAX),
            "withdraw($2.newTotal)"
        ]}),
    )
    .await;
    assert_eq!(v["complete"], false, "{v}");
    assert_eq!(v["calls"].as_array().unwrap().len(), 2);
    let stopped = v["stopped"].as_str().unwrap();
    assert!(
        stopped.contains("call 3 was not run") && stopped.contains("call 2 failed"),
        "{stopped}"
    );

    for (sequence, field, says) in [
        (
            json!(["withdraw($2)", "deposit(1, \"a\")"]),
            "sequence[0]",
            "names no earlier call",
        ),
        (
            json!(["deposit(1, \"a\")", "withdraw($1.shares)"]),
            "sequence[1]",
            "no output or event argument named `shares`",
        ),
        (
            json!(["deposit(1, \"a\"); withdraw($1)"]),
            "sequence[0]",
            "returns 2 values",
        ),
    ] {
        let e = err(&s, "run_sequence", json!({ "sequence": sequence })).await;
        assert_eq!(e["details"]["field"], field, "{e}");
        assert!(e["message"].as_str().unwrap().contains(says), "{e}");
    }
    c.stop();
}

/// `evaluate_predicates`: view calls read after every call of a sequence
/// (each state's values), on the corpus' states (values with counts and
/// the functions that changed them), on another deployed contract the
/// workers do not call (`{to: …}`, Bank's constructor-made Oracle); bad
/// input names its field.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn predicates_are_read_on_reached_states_with_the_calls_that_changed_them() {
    let dir = tempfile::tempdir().unwrap();
    let c = start("contracts/out/Vault.json", config(3_000), dir.path());
    let s = server(c.control());
    idle(&s).await;
    let v = call(
        &s,
        "evaluate_predicates",
        json!({
            "predicates": ["total()", "share(0)", "echidna_total_small()"],
            "sequence": ["deposit(600, \"a\")", "deposit($1.newTotal, \"b\")", "withdraw(1200)"]
        }),
    )
    .await;
    assert_eq!(v["complete"], true, "{v}");
    let values: Vec<Value> = v["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["values"].clone())
        .collect();
    assert_eq!(values.len(), 4, "{v}");
    assert_eq!(values[0][0], "0");
    assert_eq!(values[2], json!(["1200", values[2][1], "false"]));
    assert!(
        values[2][1].as_str().unwrap().starts_with("panic"),
        "share(0) divides by zero: {v}"
    );
    assert_eq!(values[3][0], "0");
    let total = &v["predicates"][0];
    assert_eq!(total["predicate"], "total()");
    assert_eq!(total["distinct"], 3);
    let changes = total["changedBy"].as_array().unwrap();
    assert!(
        changes
            .iter()
            .any(|c| c["function"] == "withdraw(uint256)" && c["from"] == "1200" && c["to"] == "0"),
        "{v}"
    );

    // The corpus' states: the campaign's deposits moved `total`.
    assert!(!c.read().corpus().is_empty());
    let v = call(
        &s,
        "evaluate_predicates",
        json!({"predicates": ["total()"], "entries": 200}),
    )
    .await;
    assert_eq!(v["complete"], true, "{v}");
    assert!(v["statesRead"].as_u64().unwrap() > 1);
    assert_eq!(v["entriesReplayed"], v["entriesAsked"]);
    let total = &v["predicates"][0];
    assert!(total["distinct"].as_u64().unwrap() > 1, "{v}");
    assert!(
        total["changedBy"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["function"] == "deposit(uint256,string)" && c["from"] == "0"),
        "{v}"
    );
    for (args, field, says) in [
        (
            json!({"predicates": ["total()", "nope()"]}),
            "predicates[1]",
            "no function named `nope`",
        ),
        (
            json!({"predicates": ["total(); total()"]}),
            "predicates[0]",
            "one call per predicate",
        ),
        (
            json!({"predicates": ["total()"], "entries": 0}),
            "entries",
            "",
        ),
        (
            json!({"predicates": ["total()"], "sequence": ["withdraw($2)"]}),
            "sequence[0]",
            "names no earlier call",
        ),
        (
            json!({"predicates": ["share(?)"]}),
            "predicates[0]",
            "give a value here",
        ),
    ] {
        let e = err(&s, "evaluate_predicates", args.clone()).await;
        assert_eq!(e["details"]["field"], field, "{args}: {e}");
        assert!(e["message"].as_str().unwrap().contains(says), "{args}: {e}");
    }
    c.stop();

    // Another contract, which workers do not call (no allContracts).
    let dir = tempfile::tempdir().unwrap();
    let c = start("contracts/out/Bank.json", config(1), dir.path());
    let s = server(c.control());
    idle(&s).await;
    let oracle = c
        .read()
        .target()
        .readable
        .iter()
        .find(|o| o.name == "Oracle")
        .expect("the Oracle is readable")
        .address;
    assert!(
        c.read().target().others.is_empty(),
        "calls go to the target only"
    );
    let t = call(&s, "target", json!({})).await;
    assert!(
        t["contracts"]
            .as_array()
            .unwrap()
            .iter()
            .any(|k| k["name"] == "Oracle" && k["role"] == "readable"),
        "target lists what predicates may read: {t}"
    );
    let v = call(
        &s,
        "evaluate_predicates",
        json!({"predicates": [format!("price{{to: {oracle}}}()")], "sequence": ["deposit(5)"]}),
    )
    .await;
    let price = &v["predicates"][0];
    assert_eq!(price["distinct"], 1, "{v}");
    assert!(
        !price["values"][0]["value"]
            .as_str()
            .unwrap()
            .starts_with("revert"),
        "{v}"
    );
    c.stop();
}
