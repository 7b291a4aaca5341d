//! Checks skipped while nothing they read changed (`checkCache`) change
//! nothing a campaign finds: one worker with a fixed seed runs the same
//! campaign with checks skipped, with every check run (Echidna's way), and
//! with every check run and every skip compared (verify mode, where a skip
//! that would have answered differently panics the worker). The targets'
//! properties read every kind of state a check can read — another
//! contract's storage, balances, code, block time and number, state that
//! cheatcodes change behind the calls' backs — and one writes; run-time
//! specs are checked too.

use crate::common;

use rudder::campaign::Report;
use rudder::campaign::spec::{Spec, SpecSource};
use rudder::config::{CheckCacheMode, Config, TestMode};
use rudder::eventlog::EventKind;

/// What a run found, call for call.
fn finds(r: &Report) -> Vec<(String, String, Vec<String>, Option<String>)> {
    r.tests
        .iter()
        .map(|t| {
            (
                t.name.clone(),
                format!("{:?}", t.status),
                t.sequence.clone(),
                t.value.clone(),
            )
        })
        .collect()
}

fn run(
    contract: &str,
    mode: TestMode,
    seed: u64,
    limit: u64,
    checks: CheckCacheMode,
    specs: &[(&str, &str)],
) -> Report {
    let dir = tempfile::tempdir().unwrap();
    let config = Config {
        test_mode: mode,
        workers: Some(1),
        seed: Some(seed),
        test_limit: limit,
        check_cache: checks,
        ..Config::default()
    };
    let mut c = common::campaign(
        &format!("contracts/out/{contract}.json"),
        config,
        dir.path(),
    );
    for (name, condition) in specs {
        let source = SpecSource {
            name: name.to_string(),
            entry_conditions: vec![condition.to_string()],
            ..Default::default()
        };
        let spec = Spec::parse(source, &c.read().target().functions).unwrap();
        c.control().add_spec(spec).unwrap();
    }
    c.start().unwrap();
    while !c.is_finished() {
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    let panics = c.events_of(EventKind::WorkerPanicked);
    assert!(
        panics.is_empty(),
        "{contract} seed {seed} {checks:?}: a worker panicked"
    );
    c.wait()
}

/// Runs `contract` three ways per seed and compares what they found.
fn same_finds(contract: &str, mode: TestMode, seeds: std::ops::RangeInclusive<u64>, limit: u64) {
    same_finds_with(contract, mode, seeds, limit, &[]);
}

fn same_finds_with(
    contract: &str,
    mode: TestMode,
    seeds: std::ops::RangeInclusive<u64>,
    limit: u64,
    specs: &[(&str, &str)],
) {
    let mut skipped = 0;
    for seed in seeds {
        let off = run(contract, mode, seed, limit, CheckCacheMode::Off, specs);
        let on = run(contract, mode, seed, limit, CheckCacheMode::On, specs);
        let verify = run(contract, mode, seed, limit, CheckCacheMode::Verify, specs);
        assert_eq!(off.checks.skipped, 0);
        assert_eq!(verify.checks.skipped, 0);
        skipped += on.checks.skipped;
        for (other, how) in [(&on, "skipping"), (&verify, "verifying")] {
            assert_eq!(
                finds(&off),
                finds(other),
                "{contract} seed {seed}: {how} changed the finds\n{}\n{}",
                off.text(),
                other.text()
            );
            assert_eq!(off.calls, other.calls, "{contract} seed {seed} ({how})");
            assert_eq!(
                off.corpus_calls, other.corpus_calls,
                "{contract} seed {seed}"
            );
            assert_eq!(
                off.coverage.points, other.coverage.points,
                "{contract} {seed}"
            );
        }
        // Each run checks what the other ran.
        assert_eq!(
            off.checks.run,
            on.checks.run + on.checks.skipped,
            "{contract} seed {seed}"
        );
    }
    assert!(skipped > 0, "{contract}: no check was ever skipped");
}

#[test]
fn skipping_checks_that_read_storage_balances_code_and_blocks_finds_the_same() {
    same_finds("CheckReads", TestMode::Property, 1..=20, 20_000);
}

#[test]
fn skipping_checks_sees_what_cheatcodes_change() {
    same_finds("CheckCheats", TestMode::Property, 1..=20, 5_000);
}

#[test]
fn skipping_run_time_specs_finds_the_same() {
    same_finds_with(
        "CheckReads",
        TestMode::Property,
        1..=5,
        20_000,
        &[
            ("armed", "deadline() == 0"),
            ("early_mark", "markedBlock() < 4370001"),
        ],
    );
}

#[test]
fn skipping_checks_of_a_correct_contract_and_an_optimization_finds_the_same() {
    same_finds("Token", TestMode::Property, 1..=3, 30_000);
    same_finds("Optimize", TestMode::Optimization, 1..=3, 30_000);
}

#[test]
fn most_checks_of_a_token_are_skipped() {
    let r = run(
        "Token",
        TestMode::Property,
        7,
        50_000,
        CheckCacheMode::On,
        &[],
    );
    let c = r.checks;
    assert!(c.skipped > 4 * c.run, "{c:?}");
    assert!(
        r.text()
            .contains("skipped because nothing they read had changed")
    );
}
