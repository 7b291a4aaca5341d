//! The graph family (seed 004) against real campaigns: the code graph of a
//! multi-contract target (library, interface, base with a modifier, a
//! created contract) has the nodes and edges its source has; after a run the
//! guard nobody passes by chance is reported with the parameters and the
//! constants it depends on; an injected call is linked to the coverage it
//! reached; similar-attempt queries rank an identical earlier attempt first,
//! also after a resume; bad payloads are INVALID_INPUT naming the field.

use crate::common;

use crate::common::{call, err, start};
use rudder::config::Config;
use rudder::graph::CallKind;
use serde_json::{Value, json};

const BANK: &str = "contracts/out/Bank.json";

fn root() -> String {
    std::env::current_dir().unwrap().display().to_string()
}

fn config(limit: u64) -> Config {
    Config {
        workers: Some(1),
        seed: Some(5),
        test_limit: limit,
        ..Config::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_graph_of_a_multi_contract_target_has_its_nodes_and_edges() {
    let dir = tempfile::tempdir().unwrap();
    let c = start(BANK, config(200), dir.path());
    let families = c.families().clone();
    let g = families.graph.graph();
    let kinds: Vec<(&str, &str)> = g
        .contracts
        .iter()
        .map(|c| (c.name.as_str(), c.kind.as_str()))
        .collect();
    for expected in [
        ("Fees", "library"),
        ("IOracle", "interface"),
        ("Oracle", "contract"),
        ("Owned", "contract"),
        ("Bank", "contract"),
    ] {
        assert!(kinds.contains(&expected), "{expected:?} in {kinds:?}");
    }
    let bank = g.contracts.iter().find(|c| c.name == "Bank").unwrap();
    assert_eq!(bank.bases, ["Owned"]);
    assert_eq!(bank.linearized, ["Bank", "Owned"]);

    let f = |q: &str| g.functions.iter().find(|f| f.qualified() == q).unwrap();
    let open = f("Bank.open");
    assert_eq!(open.signature, "open(uint256,uint16)");
    let sel = alloy_primitives::keccak256("open(uint256,uint16)");
    assert_eq!(
        open.selector.as_deref(),
        Some(format!("0x{}", alloy_primitives::hex::encode(&sel[..4])).as_str())
    );
    assert_eq!(open.writes, ["Bank.opened"]);
    let withdraw = f("Bank.withdraw");
    assert_eq!(withdraw.reads, ["Bank.balances", "Bank.total"]);
    assert_eq!(withdraw.writes, ["Bank.balances", "Bank.total"]);
    assert!(
        withdraw
            .calls
            .iter()
            .any(|c| c.callee == "Bank.fee" && c.kind == CallKind::Internal)
    );
    let fee = f("Bank.fee");
    assert!(
        fee.calls
            .iter()
            .any(|c| c.callee == "Fees.cut" && c.kind == CallKind::Library),
        "{:?}",
        fee.calls
    );
    assert!(
        fee.calls
            .iter()
            .any(|c| c.callee == "IOracle.price" && c.kind == CallKind::External),
        "{:?}",
        fee.calls
    );
    assert_eq!(fee.reads, ["Bank.oracle"]);
    let set = f("Bank.setOracle");
    assert_eq!(set.modifiers, ["onlyOwner"]);
    assert!(
        set.calls
            .iter()
            .any(|c| c.callee == "Owned.onlyOwner" && c.kind == CallKind::Modifier)
    );
    let ctor = f("Bank.constructor");
    assert!(
        ctor.calls
            .iter()
            .any(|c| c.callee == "Oracle.constructor" && c.kind == CallKind::Create)
    );
    assert_eq!(f("Oracle.price").visibility, "external");
    assert_eq!(f("Oracle.price").mutability, "view");
    let vars: Vec<String> = g.state_vars.iter().map(|v| v.qualified()).collect();
    for v in ["Bank.SECRET", "Bank.LIMIT", "Bank.balances", "Owned.owner"] {
        assert!(vars.contains(&v.to_string()), "{v} in {vars:?}");
    }
    let edges = g.edges();
    let has = |s: &str, d: &str, k: &str| {
        edges
            .iter()
            .any(|e| e.src == s && e.dst == d && e.kind == k)
    };
    assert!(has("Bank", "Owned", "inherits"));
    assert!(has("Bank.withdraw", "Bank.fee", "calls_internal"));
    assert!(has("Bank.open", "Bank.opened", "writes"));
    assert!(has("contracts/Bank.sol", "Bank", "file_has_symbol"));
    // Function spans are lines of the source.
    assert!(open.span.line_start < open.span.line_end);
    c.wait();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_uncovered_branch_names_its_parameters_and_constants() {
    let dir = tempfile::tempdir().unwrap();
    let c = start(BANK, config(3_000), dir.path());
    let server = common::server(c.control());
    let engine = c.read();
    let families = c.families().clone();
    c.wait();
    let v = call(
        &server,
        "graph_index_project",
        json!({ "project_root": root(), "files": ["contracts/Bank.sol"] }),
    )
    .await;
    assert_eq!(v["indexed_files"], json!(["contracts/Bank.sol"]));
    assert!(v["graph_version"].as_str().unwrap().starts_with("cg-"));

    let v = call(
        &server,
        "graph_context_for_files",
        json!({ "project_root": root(), "files": ["contracts/Bank.sol"] }),
    )
    .await;
    let ctx = &v["contexts"][0];
    assert_eq!(ctx["file"], "contracts/Bank.sol");
    let gaps = ctx["gaps"].as_array().unwrap();
    let open = gaps
        .iter()
        .find(|g| g["function"] == "Bank.open")
        .unwrap_or_else(|| panic!("the guard of open is a gap: {v}"));
    assert_eq!(open["missing"], "never_true", "{open}");
    assert!(open["evaluated"].as_u64().unwrap() > 0, "{open}");
    assert_eq!(open["params"], json!(["key", "slot"]), "{open}");
    let constants: Vec<&str> = open["constants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    assert!(
        constants
            .iter()
            .any(|c| c.starts_with("Bank.SECRET=0x8f5c")),
        "{constants:?}"
    );
    assert!(constants.contains(&"Bank.LIMIT=1000"), "{constants:?}");
    assert_eq!(open["entry_points"], json!(["Bank.open(uint256,uint16)"]));
    // Nothing encloses it, it reads no state and goes through no local.
    assert_eq!(open["guards"], json!([]), "{open}");
    assert_eq!(open["writes"], json!([]), "{open}");
    assert_eq!(open["locals"], json!([]), "{open}");
    // Gaps come first in the summary, with the condition's text.
    let summary = ctx["summary"].as_str().unwrap();
    let first_gap = summary.find("GAP").expect("a gap in the summary");
    let first_fn = summary.find("function Bank.").unwrap();
    assert!(first_gap < first_fn, "{summary}");
    assert!(
        summary.contains("keccak256(abi.encodePacked(key)) == SECRET && slot > LIMIT"),
        "{summary}"
    );
    // The covered require of deposit is no gap in both directions.
    assert!(
        !gaps
            .iter()
            .any(|g| g["function"] == "Bank.deposit" && g["missing"] == "never_true"),
        "{v}"
    );
    // A function by name, and a small budget that truncates.
    let v = call(
        &server,
        "graph_context_for_files",
        json!({ "project_root": root(), "files": ["Bank.open"], "max_tokens": 128 }),
    )
    .await;
    assert!(v["contexts"][0]["summary"].as_str().unwrap().len() <= 600);
    assert_eq!(v["contexts"][0]["symbols"][0], "Bank.open");

    // Bad input names the field and changes nothing.
    let version = families.graph.graph().version.clone();
    let e = err(
        &server,
        "graph_index_project",
        json!({ "project_root": root(), "files": ["contracts/Bank.sol", "nope/Missing.sol"] }),
    )
    .await;
    assert_eq!(e["details"]["field"], "files[1]", "{e}");
    let e = err(
        &server,
        "graph_index_project",
        json!({ "project_root": "relative/dir", "files": [] }),
    )
    .await;
    assert_eq!(e["details"]["field"], "project_root", "{e}");
    let e = err(
        &server,
        "graph_context_for_files",
        json!({ "project_root": root(), "files": ["Nothing.sol"] }),
    )
    .await;
    assert_eq!(e["details"]["field"], "files[0]", "{e}");
    let e = err(
        &server,
        "graph_index_project",
        json!({ "project_root": root(), "files": ["contracts/Bank.sol"], "language_hints": {"contracts/Bank.sol": "vyper"} }),
    )
    .await;
    assert_eq!(e["code"], "INVALID_INPUT");
    assert_eq!(families.graph.graph().version, version);

    // An artifact of another compilation joins the graph without coverage.
    let v = call(
        &server,
        "graph_index_project",
        json!({ "project_root": root(), "files": ["contracts/out/Token.json"] }),
    )
    .await;
    assert_eq!(v["indexed_files"], json!(["contracts/Token.sol"]));
    assert!(
        v["warnings"][0].as_str().unwrap().contains("no coverage"),
        "{v}"
    );
    assert_ne!(v["graph_version"], json!(version));
    let v = call(
        &server,
        "graph_update_files",
        json!({ "project_root": root(), "deleted": ["contracts/Token.sol"] }),
    )
    .await;
    assert_eq!(v["updated_files"], json!(["contracts/Token.sol"]));
    assert_eq!(v["graph_version"], json!(version));
    let e = err(
        &server,
        "graph_update_files",
        json!({ "project_root": root(), "deleted": ["contracts/Token.sol"] }),
    )
    .await;
    assert_eq!(e["details"]["field"], "deleted[0]", "{e}");
    // Re-reading the campaign's own (unchanged) artifact keeps the version.
    let v = call(
        &server,
        "graph_update_files",
        json!({ "project_root": root(), "added_or_modified": ["contracts/Bank.sol"] }),
    )
    .await;
    assert_eq!(v["graph_version"], json!(version));
    // The graph version is stored in the journal.
    let j = engine.journal().unwrap();
    j.flush();
    let r = j.reader().unwrap();
    let n: i64 = r
        .conn()
        .query_row(
            "SELECT COUNT(*) FROM graph_symbols WHERE version = ?1 AND name = 'Bank.open'",
            [&version],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(n, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn attempts_link_injections_to_coverage_and_rank_identical_ones_first() {
    let dir = tempfile::tempdir().unwrap();
    // A long campaign we steer, then stop.
    let c = start(BANK, config(10_000_000), dir.path());
    let server = common::server(c.control());
    let engine = c.read();
    let families = c.families().clone();

    // Attempt 1: the agent names it, then injects the guarded call.
    call(
        &server,
        "etg_log_event",
        json!({ "attempt_id": "open-the-bank", "kind": "checkpoint",
                "payload": { "message": "try open with a large slot past LIMIT", "files": ["contracts/Bank.sol"], "branch": "Bank.sol:70" } }),
    )
    .await;
    let inj = call(
        &server,
        "inject_transaction",
        json!({ "sequence": ["open(7, 1001)", "withdraw(0)"] }),
    )
    .await;
    let injection = inj["injectionId"].as_u64().unwrap();
    // Attempt 2 (another session): grows deposits.
    let other = server.for_session();
    call(
        &other,
        "etg_log_event",
        json!({ "attempt_id": "grow-deposits", "kind": "checkpoint",
                "payload": { "message": "prioritize deposits" } }),
    )
    .await;
    call(
        &other,
        "prioritize_function",
        json!({ "functionSignature": "deposit(uint256)" }),
    )
    .await;
    // Let the workers run the injection.
    let engine_ref = &engine;
    common::eventually("the injection's calls in the journal", 20, || async move {
        engine_ref.journal().unwrap().flush();
        let r = engine_ref.journal().unwrap().reader().unwrap();
        let n: i64 = r
            .conn()
            .query_row(
                "SELECT COUNT(*) FROM events WHERE injection = ?1 AND kind = 'CallExecuted'",
                [injection as i64],
                |r| r.get(0),
            )
            .unwrap();
        (n >= 2).then_some(())
    })
    .await;
    // Every tool call of the attempt was logged under it.
    let a = families.etg.attempt("open-the-bank").unwrap();
    assert_eq!(a.tools.get("inject_transaction"), Some(&1));
    assert_eq!(a.injections, [injection]);
    assert_eq!(a.calls, ["open(7, 1001)", "withdraw(0)"]);

    // Asked from a new session (a session's own attempt is left out).
    let asker = server.for_session();
    let v = call(
        &asker,
        "etg_query_similar_attempts",
        json!({ "query": "open(7, 1001) with a large slot past LIMIT at Bank.sol:70", "top_k": 5, "min_score": 0.0 }),
    )
    .await;
    let matches = v["matches"].as_array().unwrap();
    assert_eq!(matches[0]["attempt_id"], "open-the-bank", "{v}");
    assert_eq!(matches[0]["related_files"], json!(["contracts/Bank.sol"]));
    assert!(matches[0]["score"].as_f64().unwrap() > 0.9, "{v}");
    let outcome = &matches[0]["outcome"];
    assert_eq!(outcome["injectedCalls"].as_u64(), Some(2), "{v}");
    assert!(
        matches[0]["summary"]
            .as_str()
            .unwrap()
            .contains("injected open(7, 1001)"),
        "{v}"
    );
    if let Some(second) = matches.get(1) {
        assert!(second["score"].as_f64().unwrap() < matches[0]["score"].as_f64().unwrap());
    }
    // The deposit attempt ranks first for its own description.
    let v = call(
        &asker,
        "etg_query_similar_attempts",
        json!({ "query": "prioritize deposit(uint256)" }),
    )
    .await;
    assert_eq!(v["matches"][0]["attempt_id"], "grow-deposits", "{v}");

    // Bad payloads are INVALID_INPUT naming the field.
    for (args, field) in [
        (
            json!({ "attempt_id": "x", "kind": "tool_end", "payload": { "tool": "t", "status": "ok" } }),
            "payload.duration_ms",
        ),
        (
            json!({ "attempt_id": "x", "kind": "tool_start", "payload": { "tool": "t", "arguments": [] } }),
            "payload.arguments",
        ),
        (
            json!({ "attempt_id": "x", "kind": "checkpoint", "payload": { "files": [1] } }),
            "payload.message",
        ),
        (
            json!({ "attempt_id": "x", "kind": "context_retrieved", "payload": { "files": ["a"], "snippets": [{ "file": "a" }] } }),
            "payload.snippets[0].summary",
        ),
        (
            json!({ "attempt_id": "x", "kind": "answer_rendered", "payload": { "content": 3 } }),
            "payload.content",
        ),
        (
            json!({ "attempt_id": "x", "kind": "checkpoint", "timestamp": "soon", "payload": { "message": "m" } }),
            "timestamp",
        ),
        (
            json!({ "attempt_id": "", "kind": "checkpoint", "payload": { "message": "m" } }),
            "attempt_id",
        ),
    ] {
        let e = err(&server, "etg_log_event", args.clone()).await;
        assert_eq!(e["code"], "INVALID_INPUT", "{args}");
        assert_eq!(e["details"]["field"], field, "{args}: {e}");
    }
    let e = err(
        &server,
        "etg_log_event",
        json!({ "attempt_id": "x", "kind": "bogus", "payload": {} }),
    )
    .await;
    assert_eq!(e["details"]["field"], "kind", "{e}");
    assert!(families.etg.attempt("x").is_none(), "nothing was logged");
    let e = err(
        &server,
        "etg_query_similar_attempts",
        json!({ "query": "q", "min_score": 2 }),
    )
    .await;
    assert_eq!(e["details"]["field"], "min_score", "{e}");

    // A checkpoint records the graph version it was made against.
    let ev = call(
        &server,
        "etg_log_event",
        json!({ "attempt_id": "open-the-bank", "kind": "checkpoint", "timestamp": "2026-11-24T10:00:00+01:00",
                "payload": { "message": "done" } }),
    )
    .await;
    assert_eq!(ev["attempt_id"], "open-the-bank");
    c.control().stop();
    c.wait();
    let j = engine.journal().unwrap();
    j.flush();
    let r = j.reader().unwrap();
    let (ts, version): (i64, Option<String>) = r
        .conn()
        .query_row(
            "SELECT ts_ms, json_extract(payload, '$.graph_version') FROM etg_events WHERE event_id = ?1",
            [ev["event_id"].as_str().unwrap()],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(ts, 1_795_510_800_000);
    assert_eq!(version, Some(families.graph.graph().version.clone()));
    drop(r);
    drop(engine);

    // Resumed: the earlier run's attempts are found, with their outcome.
    let c = start(BANK, config(100), dir.path());
    let server = common::server(c.control());
    let v = call(
        &server,
        "etg_query_similar_attempts",
        json!({ "query": "open(7, 1001) with a large slot past LIMIT at Bank.sol:70" }),
    )
    .await;
    assert_eq!(v["matches"][0]["attempt_id"], "open-the-bank", "{v}");
    assert_eq!(
        v["matches"][0]["outcome"]["injectedCalls"].as_u64(),
        Some(2),
        "{v}"
    );
    c.wait();
}

#[test]
fn payload_shapes_of_the_seed_are_accepted() {
    use rudder::graph::etg::{EtgKind, validate};
    let ok: [(EtgKind, Value); 5] = [
        (
            EtgKind::ToolStart,
            json!({"tool": "shell_run", "arguments": {"cmd": "npm test"}}),
        ),
        (
            EtgKind::ToolEnd,
            json!({"tool": "shell_run", "status": "ok", "duration_ms": 1823, "output_ref": "log://attempt123/tool456"}),
        ),
        (
            EtgKind::Checkpoint,
            json!({"message": "Generated patch for utils/logger.ts", "files": ["utils/logger.ts"], "graph_version": "cg-2024-05-01T12:00:00Z"}),
        ),
        (
            EtgKind::ContextRetrieved,
            json!({"files": ["app/main.py"], "snippets": [{"file": "app/main.py", "summary": "Handler dispatches requests to route registry", "symbols": ["Router", "dispatch"]}]}),
        ),
        (
            EtgKind::AnswerRendered,
            json!({"content": "Here is the patch...", "citations": ["app/main.py:L10-L40"], "token_count": 512}),
        ),
    ];
    for (k, p) in ok {
        assert!(validate(k, &p).is_ok(), "{k:?} {p}");
    }
}

/// Artifacts nobody here shaped for the graph: solc 0.4, optimizer on,
/// via-IR, a Foundry build-info with a linked library: each builds a graph
/// with contracts and entry points with their signatures.
#[test]
fn graphs_of_the_compiler_matrix() {
    use rudder::artifacts::Project;
    use rudder::graph::CodeGraph;
    for path in [
        "contracts/matrix/out/Legacy04.json",
        "contracts/matrix/out/Optimized08-opt.json",
        "contracts/matrix/out/Optimized08-viair.json",
        "contracts/matrix/foundry/out/build-info/Linked-foundry.json",
    ] {
        let p = Project::load(std::path::Path::new(path)).unwrap();
        let sources: Vec<_> = p.sources.iter().map(|s| (&p, s, true)).collect();
        let g = CodeGraph::build(&sources);
        assert!(!g.contracts.is_empty(), "{path}");
        assert!(
            g.functions
                .iter()
                .any(|f| f.is_entry_point() && f.signature.contains('(')),
            "{path}: {:?}",
            g.functions.iter().map(|f| &f.signature).collect::<Vec<_>>()
        );
        assert!(g.version.starts_with("cg-"), "{path}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_revert_census_names_the_failing_guard_and_its_enablers() {
    let dir = tempfile::tempdir().unwrap();
    let c = start(BANK, config(u64::MAX), dir.path());
    let server = common::server(c.control());
    // Workers hand their counts over about four times a second.
    let args = json!({"functionSignature": "withdraw(uint256)", "windowSeconds": 600, "top": 3});
    let (server_ref, args_ref) = (&server, &args);
    let v = common::eventually(
        "2,000 calls of withdraw in the census",
        120,
        || async move {
            let v = call(server_ref, "revert_census", args_ref.clone()).await;
            (v["functions"][0]["totalCalls"].as_u64().unwrap() >= 2_000).then_some(v)
        },
    )
    .await;
    let all = call(&server, "revert_census", json!({})).await;
    c.stop();
    assert!(all["functions"].as_array().unwrap().len() >= 3, "{all:#}");
    assert_eq!(all["windowSeconds"], json!(60));
    assert_eq!(v["windowSeconds"], json!(600));
    let f = &v["functions"][0];
    assert_eq!(v["functions"].as_array().unwrap().len(), 1, "{v:#}");
    assert_eq!(f["functionSignature"], json!("withdraw(uint256)"));
    let (calls, reverts) = (f["calls"].as_u64().unwrap(), f["reverts"].as_u64().unwrap());
    assert!(reverts > 0 && calls >= reverts, "{f:#}");
    assert_eq!(f["successes"].as_u64().unwrap(), calls - reverts);
    let balance = f["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["reason"].as_str().unwrap().contains("balance"))
        .unwrap_or_else(|| panic!("a reason of insufficient balance: {f:#}"));
    assert_eq!(balance["kind"], json!("error"));
    let guard = &balance["guard"];
    assert_eq!(guard["kind"], json!("require"), "{balance:#}");
    assert_eq!(guard["condition"], json!("balances[msg.sender] >= amount"));
    assert_eq!(guard["function"], json!("Bank.withdraw"));
    assert_eq!(guard["line"], json!(60));
    assert!(guard["file"].as_str().unwrap().ends_with("Bank.sol"));
    assert_eq!(guard["state"], json!(["Bank.balances"]));
    assert!(
        guard["enablers"]
            .as_array()
            .unwrap()
            .contains(&json!({"function": "Bank.deposit(uint256)", "callable": true})),
        "{guard:#}"
    );
    assert!(
        balance["sample"].as_str().unwrap().starts_with("withdraw"),
        "{balance:#}"
    );

    // Bad input names its field and changes nothing.
    for (args, field) in [
        (
            json!({"functionSignature": "nosuch(uint256)"}),
            "functionSignature",
        ),
        (json!({"windowSeconds": 0}), "windowSeconds"),
        (json!({"windowSeconds": 601}), "windowSeconds"),
        (json!({"top": 21}), "top"),
        (json!({"function": "withdraw"}), "function"),
    ] {
        let e = err(&server, "revert_census", args.clone()).await;
        assert_eq!(e["code"], json!("INVALID_INPUT"), "{args}: {e}");
        assert_eq!(e["details"]["field"], json!(field), "{args}: {e}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn test_vacuity_names_the_early_exit_that_stops_a_property() {
    let dir = tempfile::tempdir().unwrap();
    let c = start("contracts/out/Vacuous.json", config(u64::MAX), dir.path());
    let server = common::server(c.control());
    let server_ref = &server;
    let v = common::eventually("a run of echidna_loans_backed", 120, || async move {
        let v = call(server_ref, "test_vacuity", json!({})).await;
        let backed = v["tests"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["test"] == json!("echidna_loans_backed"))
            .cloned()
            .unwrap_or_else(|| panic!("both tests listed: {v:#}"));
        (backed["runs"].as_u64().unwrap() > 0).then_some(v)
    })
    .await;
    c.stop();
    let tests = v["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 2, "{v:#}");
    let backed = tests
        .iter()
        .find(|t| t["test"] == json!("echidna_loans_backed"))
        .unwrap();
    assert_eq!(backed["kind"], json!("property"));
    assert_eq!(backed["function"], json!("Vacuous.echidna_loans_backed"));
    let exit = &backed["preconditions"][0];
    assert_eq!(
        backed["preconditions"].as_array().unwrap().len(),
        1,
        "{backed:#}"
    );
    assert_eq!(exit["kind"], json!("if"));
    assert_eq!(exit["condition"], json!("lent == 0"));
    assert_eq!(exit["state"], json!(["Vacuous.lent"]));
    // The first checks of a campaign run on the empty pool: stopped there.
    assert!(exit["stopped"].as_u64().unwrap() > 0, "{backed:#}");
    assert_eq!(
        exit["evaluated"].as_u64().unwrap(),
        exit["passed"].as_u64().unwrap() + exit["stopped"].as_u64().unwrap()
    );
    assert_eq!(backed["stoppedMostBy"]["line"], exit["line"]);
    let share = backed["shareStopped"].as_f64().unwrap();
    assert!(share > 0.0 && share <= 1.0, "{backed:#}");
    let checked = tests
        .iter()
        .find(|t| t["test"] == json!("echidna_checked"))
        .unwrap();
    assert_eq!(checked["preconditions"], json!([]));
    assert_eq!(checked["shareStopped"], json!(0.0));
    // The most vacuous first.
    assert_eq!(tests[0]["test"], json!("echidna_loans_backed"));

    let one = call(&server, "test_vacuity", json!({"test": "echidna_checked"})).await;
    assert_eq!(one["tests"].as_array().unwrap().len(), 1);
    for (args, field) in [
        (json!({"test": "echidna_nosuch"}), "test"),
        (json!({"test": ""}), "test"),
        (json!({"name": "echidna_checked"}), "name"),
    ] {
        let e = err(&server, "test_vacuity", args.clone()).await;
        assert_eq!(e["code"], json!("INVALID_INPUT"), "{args}: {e}");
        assert_eq!(e["details"]["field"], json!(field), "{args}: {e}");
    }
}
