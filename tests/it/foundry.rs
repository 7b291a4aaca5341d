//! Foundry invariant suites: a forge project's test contract with setUp(),
//! target lists and a handler is fuzzed as forge fuzzes it, and each
//! falsified invariant is written as a Foundry test that `forge test` runs
//! and that fails on the same invariant.

use crate::common;

use rudder::campaign::{Campaign, TestStatus};
use rudder::config::Config;
use std::path::{Path, PathBuf};

const PROJECT: &str = "contracts/matrix/forge-project";
/// Where forge puts the suite's handler (forge's deployer creates the test
/// contract, whose setUp() creates the bank, then the handler).
const HANDLER: &str = "0x2e234DAe75C793f67A35089C9d99245E1C58470b";

fn fuzz(project: &Path, repro_dir: Option<PathBuf>, out: &Path) -> rudder::campaign::Report {
    let config = Config {
        workers: Some(1),
        seed: Some(1),
        test_limit: 100_000,
        repro_dir,
        ..Config::default()
    };
    let mut c = Campaign::new(
        project,
        Some("BankInvariantTest"),
        config,
        Some(out.to_path_buf()),
    )
    .unwrap();
    c.start().unwrap();
    c.wait()
}

#[test]
fn a_foundry_invariant_suite_is_fuzzed_through_its_handler_and_breaks_like_forge() {
    let out = tempfile::tempdir().unwrap();
    let repro = out.path().join("repro");
    let report = fuzz(Path::new(PROJECT), Some(repro.clone()), out.path());
    let test = |name: &str| {
        report
            .tests
            .iter()
            .find(|t| t.name == name)
            .unwrap_or_else(|| panic!("{name} is not a test: {:?}", report.tests))
    };
    // The invariants are the tests (they return nothing: a revert breaks them).
    assert_eq!(report.tests.len(), 3, "{:?}", report.tests);
    let broken = test("invariant_books_balance");
    assert_eq!(broken.status, TestStatus::Falsified, "{broken:?}");
    assert!(broken.reason.as_deref().unwrap().contains("books drifted"));
    assert_eq!(
        test("invariant_withdrawals_bounded").status,
        TestStatus::Passing
    );
    // forge-std's assertions are cheatcodes (vm.assertGe, vm.assertTrue):
    // answered, they hold; unanswered, every call would "break" the invariant.
    let solvent = test("invariant_solvent");
    assert_eq!(solvent.status, TestStatus::Passing, "{solvent:?}");
    // Calls went to the handler setUp() created, at forge's address; none to
    // the suite itself or to the bank (targetContract names the handler only).
    let seq = &broken.sequence;
    assert!(!seq.is_empty() && seq.len() <= 3, "{seq:?}");
    for call in seq {
        assert!(call.contains(&format!("to: {HANDLER}")), "{call}");
    }
    // The reproducer inherits the suite and replays the sequence.
    let file = repro.join("BankInvariantTest_invariant_books_balance_Repro.t.sol");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        text.contains("import \"test/BankInvariant.t.sol\";"),
        "{text}"
    );
    assert!(text.contains("is BankInvariantTest"), "{text}");
    assert!(
        text.contains("function test_invariant_books_balance()"),
        "{text}"
    );
    assert!(
        text.contains(&format!("_call({HANDLER}, 0, hex\"")),
        "{text}"
    );
    assert!(text.trim_end().ends_with('}'));
    // Only falsified tests get one.
    assert_eq!(std::fs::read_dir(&repro).unwrap().count(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_gets_the_reproducer_from_the_tool() {
    let out = tempfile::tempdir().unwrap();
    let config = Config {
        workers: Some(1),
        seed: Some(1),
        test_limit: 100_000,
        ..Config::default()
    };
    let mut c = Campaign::new(
        Path::new(PROJECT),
        Some("BankInvariantTest"),
        config,
        Some(out.path().to_path_buf()),
    )
    .unwrap();
    c.start().unwrap();
    let server =
        rudder::mcp::RudderServer::new(c.control()).with_budget(std::time::Duration::from_secs(10));
    let call = |test: &str| {
        let args = serde_json::json!({ "test": test });
        let serde_json::Value::Object(m) = args else {
            unreachable!()
        };
        server.run_tool("foundry_reproducer", Some(m))
    };
    // Wait for the campaign to end (it falsifies one invariant).
    let c = &c;
    crate::common::eventually("the campaign's end", 120, || async move {
        c.is_finished().then_some(())
    })
    .await;
    let r = call("invariant_books_balance").await;
    let v = rudder::mcp::answer_json(&r);
    assert_eq!(v["falsified"], true, "{v}");
    assert_eq!(
        v["fileName"],
        "BankInvariantTest_invariant_books_balance_Repro.t.sol"
    );
    let sol = v["solidity"].as_str().unwrap();
    assert!(
        sol.contains(
            "contract BankInvariantTest_invariant_books_balance_Repro is BankInvariantTest_invariant_books_balance_Repro_Clock, BankInvariantTest"
        )
    );
    let v = rudder::mcp::answer_json(&call("invariant_withdrawals_bounded").await);
    assert_eq!(v["falsified"], false, "{v}");
    assert!(v["solidity"].is_null());
    let r = call("nope").await;
    assert_eq!(r.is_error, Some(true));
    let v = rudder::mcp::answer_json(&r);
    assert_eq!(v["error"]["details"]["field"], "test", "{v}");
}

#[test]
fn the_reproducer_fails_under_forge_test_on_the_broken_invariant() {
    let Some((forge, solc)) = common::forge::forge() else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let project = common::forge::copy_project(PROJECT, work.path(), &solc);
    let repro = project.join("test/rudder");
    fuzz(&project, Some(repro.clone()), &work.path().join("out"));
    assert!(
        repro
            .join("BankInvariantTest_invariant_books_balance_Repro.t.sol")
            .exists()
    );
    let out = common::forge::test_reproducers(&forge, &project, work.path());
    common::forge::assert_failed_on(
        &out,
        &["[FAIL: books drifted] test_invariant_books_balance()"],
    );
}

/// A Recon/Chimera-layout suite of our own (contracts/matrix/chimera:
/// Setup, TargetFunctions, Properties, CryticTester, CryticToFoundry over a
/// protocol in src/, optimizer on, a minimal build-info beside a stale full
/// one) loads unchanged with its echidna.yaml (72-bit hex balances,
/// `prefix: "optimize_"`): its time-dependent assertion breaks on three
/// seeds with the harness's own message, the protocol is covered, the
/// Foundry entry point is listed as not targeted, its reproducer replays the
/// campaign's clock before the harness is set up (under `forge test` it then
/// fails as it failed here: BENCHMARKS.md), and optimization mode finds the
/// `optimize_*` functions.
#[test]
fn a_chimera_suite_loads_unchanged_and_breaks_with_its_message() {
    let project = Path::new("contracts/matrix/chimera");
    let (config, warnings) = Config::from_yaml_file(&project.join("echidna.yaml")).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(config.balance_addr, alloy_primitives::U256::from(1u8) << 72);
    let run = |config: Config, out: &Path| {
        let mut c = Campaign::new(project, Some("CryticTester"), config, Some(out.into())).unwrap();
        c.start().unwrap();
        c.wait()
    };
    for seed in 1..=3 {
        let out = tempfile::tempdir().unwrap();
        let repro = out.path().join("repro");
        let config = Config {
            workers: Some(1),
            seed: Some(seed),
            corpus_dir: Some(out.path().join("echidna")),
            repro_dir: Some(repro.clone()),
            ..config.clone()
        };
        let r = run(config, out.path());
        let t = r.tests.iter().find(|t| t.name == "pool_accrue()").unwrap();
        assert_eq!(t.status, TestStatus::Falsified, "seed {seed}: {}", r.text());
        let reason = t.reason.as_deref().unwrap_or_default();
        assert!(reason.contains("reward before a whole epoch"), "{reason}");
        // The protocol (src/, deployed by setup()) is covered: only the
        // Foundry entry point is left out.
        assert!(r.coverage.lines_hit > 0);
        assert_eq!(
            r.coverage.not_targeted,
            ["test/recon/CryticToFoundry.sol"],
            "seed {seed}"
        );
        let text =
            std::fs::read_to_string(repro.join("CryticTester_pool_accrue___Repro.t.sol")).unwrap();
        let clock = text
            .find(".warp(1524785992)")
            .expect("the campaign's clock");
        assert!(
            clock
                < text
                    .find("is CryticTester_pool_accrue___Repro_Clock, CryticTester")
                    .unwrap()
        );
    }
    let out = tempfile::tempdir().unwrap();
    let config = Config {
        workers: Some(1),
        seed: Some(4),
        test_mode: rudder::config::TestMode::Optimization,
        corpus_dir: Some(out.path().join("echidna")),
        ..config
    };
    let r = run(config, out.path());
    let mut names: Vec<&str> = r.tests.iter().map(|t| t.name.as_str()).collect();
    names.sort();
    assert_eq!(
        names,
        ["optimize_rewards", "optimize_staked"],
        "{}",
        r.text()
    );
    let staked = r
        .tests
        .iter()
        .find(|t| t.name == "optimize_staked")
        .unwrap();
    assert!(
        staked.value.as_deref().is_some_and(|v| v != "0"),
        "{staked:?}"
    );
}
