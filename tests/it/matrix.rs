//! The compiler matrix (contracts/matrix, built by contracts/build.sh with
//! pinned solcjs 0.4.26 … 0.8.30, optimizer on and off, via-IR, external
//! libraries, a Foundry build-info) and Echidna's harness conventions: each
//! case loads, fuzzes and reaches its expected outcome on 3 seeds.

use rudder::campaign::{Campaign, Report};
use rudder::config::{Config, TestMode};
use std::path::Path;

fn run(target: &str, contract: Option<&str>, mode: TestMode, seed: u64, limit: u64) -> Report {
    let dir = tempfile::tempdir().unwrap();
    let config = Config {
        test_mode: mode,
        workers: Some(1),
        seed: Some(seed),
        test_limit: limit,
        ..Config::default()
    };
    let mut c = Campaign::new(Path::new(target), contract, config, Some(dir.path().into()))
        .unwrap_or_else(|e| panic!("{target}: {e}"));
    c.start().unwrap();
    c.wait()
}

/// A started campaign on `target` (default contract) writing into `dir`.
fn started(target: &str, config: Config, dir: &Path) -> Campaign {
    let mut c = Campaign::new(Path::new(target), None, config, Some(dir.into()))
        .unwrap_or_else(|e| panic!("{target}: {e}"));
    c.start().unwrap();
    c
}

fn status<'a>(r: &'a Report, test: &str) -> &'a str {
    r.tests
        .iter()
        .find(|t| t.name == test)
        .unwrap_or_else(|| panic!("no test {test} in\n{}", r.text()))
        .status
        .as_str()
}

/// `target` falsifies `test` on seeds 1, 2 and 3 within `limit` calls.
fn falsified_on_three_seeds(
    target: &str,
    contract: Option<&str>,
    mode: TestMode,
    test: &str,
    limit: u64,
) {
    for seed in 1..=3 {
        let r = run(target, contract, mode, seed, limit);
        assert_eq!(
            status(&r, test),
            "falsified",
            "{target} seed {seed}:\n{}",
            r.text()
        );
        assert!(
            r.coverage.lines_hit > 0,
            "{target}: no line coverage\n{}",
            r.text()
        );
    }
}

#[test]
fn solc_0_4_standard_json() {
    falsified_on_three_seeds(
        "contracts/matrix/out/Legacy04.json",
        None,
        TestMode::Property,
        "echidna_stage_below_two",
        100_000,
    );
}

#[test]
fn solc_0_5_unnamed_fallback_is_called() {
    falsified_on_three_seeds(
        "contracts/matrix/out/Pre06.json",
        None,
        TestMode::Property,
        "echidna_never_fired",
        50_000,
    );
}

#[test]
fn solc_0_6_receive_with_value() {
    falsified_on_three_seeds(
        "contracts/matrix/out/Receive06.json",
        None,
        TestMode::Property,
        "echidna_nothing_received",
        50_000,
    );
}

#[test]
fn solc_0_7_unchecked_wrap_around() {
    falsified_on_three_seeds(
        "contracts/matrix/out/Checked07.json",
        None,
        TestMode::Property,
        "echidna_level_high",
        50_000,
    );
}

#[test]
fn solc_0_8_optimizer_off_on_and_via_ir() {
    for variant in ["Optimized08", "Optimized08-opt", "Optimized08-viair"] {
        falsified_on_three_seeds(
            &format!("contracts/matrix/out/{variant}.json"),
            None,
            TestMode::Property,
            "echidna_total_below_threshold",
            100_000,
        );
    }
}

#[test]
fn external_libraries_are_deployed_and_linked() {
    for variant in ["Linked", "Linked-opt"] {
        falsified_on_three_seeds(
            &format!("contracts/matrix/out/{variant}.json"),
            None,
            TestMode::Property,
            "echidna_score_capped",
            50_000,
        );
    }
    // The libraries are not the default target, and they were deployed.
    let p =
        rudder::artifacts::Project::load(Path::new("contracts/matrix/out/Linked.json")).unwrap();
    let c = p.contract(None).unwrap();
    assert_eq!(c.name, "Linked");
    let libs: Vec<_> = p
        .link_order(c)
        .unwrap()
        .iter()
        .map(|l| l.name.clone())
        .collect();
    assert_eq!(libs.len(), 2, "{libs:?}");
}

/// A linked library's lines are covered: `Score.bump`, which every `play`
/// runs by DELEGATECALL, is hit in the LCOV (lines 8 and 9 of Linked.sol).
#[test]
fn library_lines_are_in_the_coverage() {
    let dir = tempfile::tempdir().unwrap();
    let config = Config {
        workers: Some(1),
        seed: Some(1),
        test_limit: 5_000,
        ..Config::default()
    };
    let c = started("contracts/matrix/out/Linked.json", config, dir.path());
    let engine = c.read();
    drop(c.wait());
    let lcov = engine.target().coverage_report().lcov_text();
    let hits = |line: u32| -> u64 {
        lcov.lines()
            .filter_map(|l| l.strip_prefix(&format!("DA:{line},")))
            .filter_map(|n| n.split(',').next()?.parse::<u64>().ok())
            .sum()
    };
    assert!(hits(8) > 0 && hits(9) > 0, "library lines not hit:\n{lcov}");
}

#[test]
fn a_foundry_out_directory_with_build_info() {
    falsified_on_three_seeds(
        "contracts/matrix/foundry/out",
        None,
        TestMode::Property,
        "echidna_score_capped",
        50_000,
    );
}

#[test]
fn a_target_whose_only_functions_are_properties_is_checked_after_deployment() {
    let r = run(
        "contracts/matrix/out/Harness.json",
        Some("OnlyProperties"),
        TestMode::Property,
        1,
        1000,
    );
    assert_eq!(status(&r, "echidna_x_is_zero"), "falsified", "{}", r.text());
    assert_eq!(status(&r, "echidna_x_is_three"), "passing", "{}", r.text());
    assert!(
        r.text().contains("false right after deployment"),
        "{}",
        r.text()
    );
}

#[test]
fn echidna_revert_properties_must_revert() {
    for seed in 1..=3 {
        let r = run(
            "contracts/matrix/out/Harness.json",
            Some("RevertProperties"),
            TestMode::Property,
            seed,
            50_000,
        );
        assert_eq!(
            status(&r, "echidna_revert_always"),
            "passing",
            "{}",
            r.text()
        );
        assert_eq!(
            status(&r, "echidna_revert_while_locked"),
            "falsified",
            "{}",
            r.text()
        );
    }
}

#[test]
fn assertion_failed_events_fail_assertion_tests() {
    for seed in 1..=3 {
        let r = run(
            "contracts/matrix/out/Harness.json",
            Some("AssertionEvents"),
            TestMode::Assertion,
            seed,
            50_000,
        );
        assert_eq!(status(&r, "check(uint256)"), "falsified", "{}", r.text());
        assert_eq!(status(&r, "fine(uint256)"), "passing", "{}", r.text());
    }
}

/// Echidna reads `AssertionFailed` events from the call's trace: one
/// emitted by a call that then reverted, or by another contract the call
/// reached, fails the calling function; a revert before the event does not.
#[test]
fn assertion_events_count_from_reverted_frames_and_other_contracts() {
    for seed in 1..=3 {
        let r = run(
            "contracts/matrix/out/Harness.json",
            Some("AssertionReverted"),
            TestMode::Assertion,
            seed,
            50_000,
        );
        assert_eq!(
            status(&r, "emitsThenReverts(uint256)"),
            "falsified",
            "{}",
            r.text()
        );
        assert_eq!(
            status(&r, "revertsFirst(uint256)"),
            "passing",
            "{}",
            r.text()
        );
        let t = r
            .tests
            .iter()
            .find(|t| t.name == "emitsThenReverts(uint256)")
            .unwrap();
        let reason = t.reason.as_deref().unwrap_or_default();
        // The event's own argument, read from the reverted frame's trace.
        assert!(
            reason.starts_with("emitted AssertionFailed(") && reason.contains("), then reverted"),
            "{reason}"
        );
        let r = run(
            "contracts/matrix/out/Harness.json",
            Some("AssertionExternal"),
            TestMode::Assertion,
            seed,
            50_000,
        );
        assert_eq!(
            status(&r, "callsHelper(uint256)"),
            "falsified",
            "{}",
            r.text()
        );
        assert_eq!(
            status(&r, "callsNothing(uint256)"),
            "passing",
            "{}",
            r.text()
        );
    }
}

/// Echidna's callbacks: a `bytes` argument carries a call, so a function
/// only the contract itself may call (and filtered out of the fuzzed
/// calls) is reached through one that calls itself with its data.
#[test]
fn a_function_reached_only_through_a_callback_is_called() {
    for seed in 1..=3 {
        let dir = tempfile::tempdir().unwrap();
        let config = Config {
            workers: Some(1),
            seed: Some(seed),
            test_limit: 20_000,
            seq_len: 1,
            filter_functions: vec!["SelfCallback.transfer(uint256)".into()],
            filter_blacklist: true,
            ..Config::default()
        };
        let mut c = Campaign::new(
            Path::new("contracts/matrix/out/Harness.json"),
            Some("SelfCallback"),
            config,
            Some(dir.path().into()),
        )
        .unwrap();
        c.start().unwrap();
        let r = c.wait();
        assert_eq!(
            status(&r, "echidna_never_moved"),
            "falsified",
            "seed {seed}:\n{}",
            r.text()
        );
        let t = r
            .tests
            .iter()
            .find(|t| t.name == "echidna_never_moved")
            .unwrap();
        assert!(
            t.sequence.iter().all(|c| c.starts_with("callback(")),
            "{:?}",
            t.sequence
        );
    }
}

/// A best value reached before any call is reported with no calls, as
/// Echidna reports it (and shrinking keeps it so).
#[test]
fn an_optimum_reached_at_deployment_has_the_empty_sequence() {
    let r = run(
        "contracts/matrix/out/Harness.json",
        Some("OptimizeAtDeployment"),
        TestMode::Optimization,
        1,
        5_000,
    );
    let t = r
        .tests
        .iter()
        .find(|t| t.name == "echidna_opt_level")
        .unwrap();
    assert_eq!(t.value.as_deref(), Some("5"), "{}", r.text());
    assert!(t.sequence.is_empty(), "{:?}", t.sequence);
    assert!(
        r.text()
            .contains("(no calls: the value right after deployment)")
    );
}

#[test]
fn overflow_mode_reports_checked_arithmetic_panics() {
    for seed in 1..=3 {
        let r = run(
            "contracts/matrix/out/Harness.json",
            Some("Overflowing"),
            TestMode::Overflow,
            seed,
            50_000,
        );
        assert_eq!(status(&r, "grow(uint8)"), "falsified", "{}", r.text());
        assert_eq!(status(&r, "safe(uint8)"), "passing", "{}", r.text());
    }
}

#[test]
fn the_code_size_limit_is_enforced_unless_configured() {
    let project = std::sync::Arc::new(
        rudder::artifacts::Project::load(Path::new("contracts/out/Token.json")).unwrap(),
    );
    let contract = project.contract(None).unwrap().clone();
    let small = Config {
        code_size: 100,
        workers: Some(1),
        ..Config::default()
    };
    let err = Campaign::from_project(project.clone(), &contract, small, None)
        .err()
        .expect("refused");
    assert!(err.to_string().contains("codeSize"), "{err}");
    let big = Config {
        code_size: 1 << 20,
        workers: Some(1),
        ..Config::default()
    };
    let dir = tempfile::tempdir().unwrap();
    assert!(Campaign::from_project(project, &contract, big, Some(dir.path().into())).is_ok());
}

#[test]
fn source_maps_with_minus_one_entries_load() {
    // Optimizer-on artifacts carry `-1:-1:-1` entries for generated code.
    let text = std::fs::read_to_string("contracts/matrix/out/Optimized08-opt.json").unwrap();
    assert!(
        text.contains("-1:-1:-1"),
        "the fixture must exercise -1 entries"
    );
    let r = run(
        "contracts/matrix/out/Optimized08-opt.json",
        None,
        TestMode::Property,
        1,
        2000,
    );
    assert!(r.coverage.lines > 0);
}

#[test]
fn a_missing_source_is_a_warning_that_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("SetSeven.json");
    std::fs::copy("contracts/out/SetSeven.json", &copy).unwrap();
    let cwd_guard = dir.path().join("elsewhere");
    std::fs::create_dir(&cwd_guard).unwrap();
    // Load from a copy whose ancestors do not hold contracts/SetSeven.sol:
    // the text is still found relative to the current directory (the
    // project root here), so rename the key instead.
    let text = std::fs::read_to_string(&copy)
        .unwrap()
        .replace("contracts/SetSeven.sol", "gone/SetSeven.sol");
    std::fs::write(&copy, text).unwrap();
    let p = rudder::artifacts::Project::load(&copy).unwrap();
    assert!(
        p.warnings
            .iter()
            .any(|w| w.contains("gone/SetSeven.sol") && w.contains("not found")),
        "{:?}",
        p.warnings
    );
}

#[test]
fn coverage_formats_write_lcov_into_the_coverage_dir() {
    let dir = tempfile::tempdir().unwrap();
    let cov = dir.path().join("cov");
    let config = Config {
        workers: Some(1),
        seed: Some(1),
        test_limit: 2000,
        coverage_formats: vec!["lcov".into()],
        coverage_dir: Some(cov.clone()),
        ..Config::default()
    };
    let mut c = Campaign::new(
        Path::new("contracts/out/SetSeven.json"),
        None,
        config,
        Some(dir.path().join("out")),
    )
    .unwrap();
    c.start().unwrap();
    c.wait();
    let files: Vec<_> = std::fs::read_dir(&cov)
        .unwrap()
        .filter_map(|e| e.ok())
        .collect();
    assert_eq!(files.len(), 1);
    let name = files[0].file_name().to_string_lossy().to_string();
    assert!(
        name.starts_with("covered.") && name.ends_with(".lcov"),
        "{name}"
    );
    let text = std::fs::read_to_string(files[0].path()).unwrap();
    // Absolute, so that genhtml finds the source from any directory.
    assert!(
        text.lines()
            .any(|l| l.starts_with("SF:/") && l.ends_with("/contracts/SetSeven.sol")),
        "{text}"
    );
}

#[test]
fn property_sender_and_balances_follow_the_config() {
    // psender is the caller of property checks; balanceContract funds the target.
    let project = std::sync::Arc::new(
        rudder::artifacts::Project::load(Path::new("contracts/out/Token.json")).unwrap(),
    );
    let contract = project.contract(None).unwrap().clone();
    let dir = tempfile::tempdir().unwrap();
    let config = Config {
        workers: Some(1),
        balance_contract: alloy_primitives::U256::from(12345u64),
        ..Config::default()
    };
    let c = Campaign::from_project(project, &contract, config, Some(dir.path().into())).unwrap();
    let t = c.read().target().clone();
    assert_eq!(
        t.deployed_balance(t.address),
        alloy_primitives::U256::from(12345u64)
    );
}

#[test]
fn values_users_expect_created_addresses_string_literals_constants_and_the_initial_block() {
    for seed in 1..=3 {
        let r = run(
            "contracts/matrix/out/Values.json",
            Some("Values"),
            TestMode::Property,
            seed,
            200_000,
        );
        for test in [
            "echidna_child_not_poked", // an address created at run time
            "echidna_not_opened",      // a string literal of the source
            "echidna_not_bought",      // a constant as msg.value
            "echidna_now_not_seen",    // the initial timestamp as an argument
        ] {
            assert_eq!(
                status(&r, test),
                "falsified",
                "{test}, seed {seed}:\n{}",
                r.text()
            );
        }
    }
}

#[test]
fn a_foundry_project_built_by_forge_with_default_settings() {
    // forge 1.7.1's default build-info holds only ids and paths; rudder reads
    // the per-contract artifacts (library placeholders, optimizer on).
    for target in [
        "contracts/matrix/forge-project",
        "contracts/matrix/forge-project/out",
    ] {
        let p = rudder::artifacts::Project::load(Path::new(target)).unwrap();
        // With no --contract, the last contract defined (test/ after src/):
        // the invariant suite (tests/it/foundry.rs fuzzes it).
        assert_eq!(
            p.contract(None).unwrap().name,
            "BankInvariantTest",
            "{target}"
        );
        assert!(p.optimized);
        // No AST in these artifacts: the functions (LCOV's FN records) come
        // from the source text.
        let vaulted = p
            .sources
            .iter()
            .find(|s| s.path.ends_with("Vaulted.sol"))
            .unwrap();
        let names: Vec<&str> = vaulted.functions.iter().map(|f| f.name.as_str()).collect();
        assert!(
            names.contains(&"Vaulted.echidna_total_small"),
            "{target}: {names:?}"
        );
        falsified_on_three_seeds(
            target,
            Some("Vaulted"),
            TestMode::Property,
            "echidna_total_small",
            50_000,
        );
        falsified_on_three_seeds(
            target,
            Some("Linked"),
            TestMode::Property,
            "echidna_score_capped",
            50_000,
        );
    }
}

#[test]
fn a_hardhat_project_built_by_hardhat() {
    // Hardhat 2.29 with npm's solcjs (contracts/matrix/hardhat-project/build.sh):
    // the project folder, its artifacts/ and the build-info file all load.
    let info = std::fs::read_dir("contracts/matrix/hardhat-project/artifacts/build-info")
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    for target in [
        "contracts/matrix/hardhat-project",
        "contracts/matrix/hardhat-project/artifacts",
        info.to_str().unwrap(),
    ] {
        let p = rudder::artifacts::Project::load(Path::new(target)).unwrap();
        // The library Steps is never the default target.
        assert_eq!(p.contract(None).unwrap().name, "EchidnaCounter", "{target}");
        assert!(
            p.sources
                .iter()
                .any(|s| s.path == "contracts/lib/Steps.sol" && s.text.is_some()),
            "{target}: the imported library's source is known"
        );
    }
    falsified_on_three_seeds(
        "contracts/matrix/hardhat-project",
        None,
        TestMode::Property,
        "echidna_not_jammed",
        50_000,
    );
    let r = run(
        "contracts/matrix/hardhat-project",
        None,
        TestMode::Property,
        1,
        20_000,
    );
    assert_eq!(
        status(&r, "echidna_count_capped"),
        "passing",
        "{}",
        r.text()
    );
}

#[test]
fn a_hardhat_project_not_yet_compiled_says_how_to_compile_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("hardhat.config.js"), "module.exports = {};").unwrap();
    let e = rudder::artifacts::Project::load(dir.path())
        .unwrap_err()
        .to_string();
    assert!(e.contains("npx hardhat compile"), "{e}");
}

fn run_keys(config: Config) -> (Report, Campaign) {
    let dir = tempfile::tempdir().unwrap();
    let config = Config {
        workers: Some(1),
        seed: Some(1),
        test_limit: 3_000,
        ..config
    };
    let mut c = Campaign::new(
        Path::new("contracts/matrix/out/Keys.json"),
        Some("Keys"),
        config,
        Some(dir.path().into()),
    )
    .unwrap();
    let engine = c.read();
    c.start().unwrap();
    let r = c.wait();
    // A second handle on the same stores for coverage and callables.
    let again = Campaign::new(
        Path::new("contracts/matrix/out/Keys.json"),
        Some("Keys"),
        Config {
            workers: Some(1),
            ..engine.config().clone()
        },
        Some(dir.path().join("again")),
    )
    .unwrap();
    (r, again)
}

#[test]
fn config_keys_change_what_contracts_observe() {
    use alloy_primitives::{Address, U256};
    let ether = U256::from(10u64).pow(U256::from(18));
    // Defaults: every probe fails.
    let (r, c) = run_keys(Config::default());
    for t in [
        "echidna_called_by_psender",
        "echidna_sender_rich",
        "echidna_oracle_deployed",
        "echidna_bytecode_deployed",
    ] {
        assert_eq!(
            status(&r, t),
            "falsified",
            "{t} with defaults\n{}",
            r.text()
        );
    }
    assert_eq!(status(&r, "echidna_expensive"), "passing", "{}", r.text());
    let names: Vec<String> = c
        .read()
        .callable()
        .iter()
        .map(|x| x.function.name.clone())
        .collect();
    assert!(
        names.contains(&"look".to_string()) && names.contains(&"compute".to_string()),
        "{names:?}"
    );
    // With the keys set: each probe passes (or fails, for propMaxGas).
    let (r, c) = run_keys(Config {
        psender: "0x0000000000000000000000000000000000020000"
            .parse()
            .unwrap(),
        balance_addr: U256::from(777u64) * ether,
        deploy_contracts: vec![(Address::with_last_byte(0x1f), "Oracle".into())],
        deploy_bytecodes: vec![(
            Address::with_last_byte(0x2f),
            alloy_primitives::hex::decode("600060005360016000f3").unwrap(),
        )],
        prop_max_gas: 100_000,
        exclude_view_pure: true,
        ..Config::default()
    });
    for t in [
        "echidna_called_by_psender",
        "echidna_sender_rich",
        "echidna_oracle_deployed",
        "echidna_bytecode_deployed",
    ] {
        assert_eq!(
            status(&r, t),
            "passing",
            "{t} with the key set\n{}",
            r.text()
        );
    }
    assert_eq!(
        status(&r, "echidna_expensive"),
        "falsified",
        "propMaxGas\n{}",
        r.text()
    );
    let names: Vec<String> = c
        .read()
        .callable()
        .iter()
        .map(|x| x.function.name.clone())
        .collect();
    assert!(
        !names.contains(&"look".to_string()) && !names.contains(&"compute".to_string()),
        "{names:?}"
    );
}

#[test]
fn test_max_gas_is_the_gas_limit_of_fuzzed_calls() {
    let line_of = |text: &str| {
        text.lines()
            .position(|l| l.contains("spent = acc;"))
            .unwrap() as u32
            + 1
    };
    let src = std::fs::read_to_string("contracts/matrix/Keys.sol").unwrap();
    let line = line_of(&src);
    for (gas, reached) in [(12_500_000u64, true), (100_000, false)] {
        let dir = tempfile::tempdir().unwrap();
        let config = Config {
            workers: Some(1),
            seed: Some(1),
            test_limit: 3_000,
            test_max_gas: gas,
            test_mode: TestMode::Exploration,
            ..Config::default()
        };
        let mut c = Campaign::new(
            Path::new("contracts/matrix/out/Keys.json"),
            Some("Keys"),
            config,
            Some(dir.path().into()),
        )
        .unwrap();
        let engine = c.read();
        c.start().unwrap();
        c.wait();
        let report = engine.target().coverage_report();
        let f = report
            .files
            .iter()
            .find(|f| f.path.ends_with("Keys.sol"))
            .unwrap();
        let hits = f.lines.get(&line).copied().unwrap_or(0);
        assert_eq!(
            hits > 0,
            reached,
            "testMaxGas {gas}: line {line} hit {hits} times"
        );
    }
}

/// `constructorArgs`: a target whose constructor takes arguments deploys
/// with them in each of the three shapes (Solidity literals, a list, a
/// mapping by parameter name, as Medusa writes it), on 3 seeds; without them
/// (or with wrong ones) loading fails with an error naming the parameters.
#[test]
fn constructor_arguments_come_from_the_config() {
    let yaml = [
        "constructorArgs:\n  Constructed: '25, 0x0000000000000000000000000000000000010000, \"vault\"'\n",
        "constructorArgs:\n  Constructed: [25, \"0x0000000000000000000000000000000000010000\", vault]\n",
        "constructorArgs:\n  Constructed: {_tag: vault, _owner: \"0x0000000000000000000000000000000000010000\", _limit: 25}\n",
    ];
    for (i, y) in yaml.iter().enumerate() {
        let (base, warnings) = Config::from_yaml_str(y).unwrap();
        assert!(warnings.is_empty(), "{warnings:?}");
        for seed in 1..=3 {
            let dir = tempfile::tempdir().unwrap();
            let config = Config {
                workers: Some(1),
                seed: Some(seed),
                test_limit: 20_000,
                ..base.clone()
            };
            let c = started("contracts/out/Constructed.json", config, dir.path());
            let r = c.wait();
            assert_eq!(
                status(&r, "echidna_configured"),
                "passing",
                "shape {i}\n{}",
                r.text()
            );
            assert_eq!(
                status(&r, "echidna_below_limit"),
                "falsified",
                "shape {i} seed {seed}\n{}",
                r.text()
            );
        }
    }
    let load = |config: Config| {
        let dir = tempfile::tempdir().unwrap();
        Campaign::new(
            Path::new("contracts/out/Constructed.json"),
            None,
            config,
            Some(dir.path().into()),
        )
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default()
    };
    let missing = load(Config::default());
    assert!(
        missing.contains("uint256 _limit, address _owner, string _tag")
            && missing.contains("constructorArgs"),
        "{missing}"
    );
    for (y, says) in [
        ("constructorArgs:\n  Constructed: [25]\n", "gives 1 values"),
        (
            "constructorArgs:\n  Constructed: {_limit: 1, _owner: \"0x01\", _tag: a, _x: 2}\n",
            "\"_x\"",
        ),
        (
            "constructorArgs:\n  Constructed: {_limit: 1, _owner: \"0x01\"}\n",
            "no value for \"_tag\"",
        ),
        (
            "constructorArgs:\n  Constructed: '25, 0x01, true'\n",
            "constructorArgs",
        ),
        (
            "constructorArgs:\n  Constructed: '-1, 0x01, \"a\"'\n",
            "constructorArgs",
        ),
    ] {
        let (c, _) = Config::from_yaml_str(y).unwrap();
        let e = load(c);
        assert!(e.contains(says) && e.contains("Constructed"), "{y}: {e}");
    }
    let e = Config::from_yaml_str("constructorArgs: [1, 2]\n").unwrap_err();
    assert!(e.to_string().contains("constructorArgs"), "{e}");
    // A contract whose constructor takes nothing refuses arguments.
    let (c, _) = Config::from_yaml_str("constructorArgs:\n  SetSeven: '1'\n").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = Campaign::new(
        Path::new("contracts/out/SetSeven.json"),
        None,
        c,
        Some(dir.path().into()),
    )
    .err()
    .map(|e| e.to_string())
    .unwrap_or_default();
    assert!(e.contains("takes none"), "{e}");
}

/// `maxGasprice`: calls are priced up to it (Echidna draws a price per
/// call); a property only an expensive call breaks is falsified with the
/// key (on 3 seeds), never without it; the counterexample prints and reloads
/// its price.
#[test]
fn max_gasprice_prices_calls() {
    use rudder::tx::StoredTx;
    let gwei = 1_000_000_000u128;
    for (max, expect) in [(0u64, "passing"), (100 * gwei as u64, "falsified")] {
        for seed in 1..=3 {
            let (base, warnings) = Config::from_yaml_str(&format!("maxGasprice: {max}\n")).unwrap();
            assert!(warnings.is_empty(), "{warnings:?}");
            let dir = tempfile::tempdir().unwrap();
            let config = Config {
                workers: Some(1),
                seed: Some(seed),
                test_limit: if max == 0 { 3_000 } else { 20_000 },
                ..base
            };
            let c = started("contracts/out/Priced.json", config, dir.path());
            let engine = c.read();
            let r = c.wait();
            assert_eq!(
                status(&r, "echidna_cheap"),
                expect,
                "maxGasprice {max} seed {seed}\n{}",
                r.text()
            );
            if max > 0 {
                let t = r.tests.iter().find(|t| t.name == "echidna_cheap").unwrap();
                let text = t.sequence.join("\n");
                assert!(text.contains("buy{gasprice: "), "{text}");
                let f = engine
                    .tests()
                    .cases()
                    .find(|c| c.name == "echidna_cheap")
                    .map(|c| c.id)
                    .unwrap();
                let seq = engine.tests().falsified(f).unwrap().sequence().to_vec();
                let last = seq.last().unwrap();
                assert!(
                    last.gas_price > 50 * gwei && last.gas_price <= 100 * gwei,
                    "{}",
                    last.gas_price
                );
                let functions = &engine.target().functions;
                for tx in &seq {
                    assert_eq!(
                        &StoredTx::from_tx(tx, None)
                            .to_tx(rudder::tx::Abis::target_only(functions))
                            .unwrap(),
                        tx
                    );
                }
            }
        }
    }
}

/// `allContracts`: the contracts deployed with the target (here, the vault
/// the hub's constructor creates) are found by their code, called with
/// `{to: …}`, covered, printed, parsed and stored; off, only the target is
/// called and the vault's bug stays out of reach.
#[test]
fn all_contracts_calls_every_contract_deployed_with_the_target() {
    use rudder::parser::{CallDefaults, parse_txs};
    use rudder::tx::{Abis, StoredTx};
    for on in [false, true] {
        for seed in 1..=3 {
            let (base, warnings) = Config::from_yaml_str(&format!("allContracts: {on}\n")).unwrap();
            assert!(warnings.is_empty(), "{warnings:?}");
            let dir = tempfile::tempdir().unwrap();
            let config = Config {
                workers: Some(1),
                seed: Some(seed),
                test_limit: if on { 50_000 } else { 20_000 },
                ..base
            };
            let c = started("contracts/out/AllContracts.json", config, dir.path());
            let engine = c.read();
            let r = c.wait();
            let expect = if on { "falsified" } else { "passing" };
            assert_eq!(
                status(&r, "echidna_vault_intact"),
                expect,
                "allContracts {on}, seed {seed}:\n{}",
                r.text()
            );
            let others = &engine.target().others;
            if !on {
                assert!(others.is_empty());
                assert!(engine.callable().iter().all(|c| c.to.is_none()));
                continue;
            }
            // The vault, at the address the hub holds, with its functions.
            assert_eq!(others.len(), 1, "{others:?}");
            assert_eq!(others[0].name, "Vault");
            assert!(
                engine
                    .target()
                    .deployed_contracts
                    .contains(&others[0].address)
            );
            let to_vault = engine
                .callable()
                .iter()
                .filter(|c| c.to == Some(others[0].address));
            assert!(to_vault.clone().any(|c| c.function.name == "crack"));
            assert!(
                to_vault
                    .clone()
                    .all(|c| c.contract.as_deref() == Some("Vault"))
            );
            // The shrunk sequence: both calls go to the vault, and read back.
            let t = r
                .tests
                .iter()
                .find(|t| t.name == "echidna_vault_intact")
                .unwrap();
            let text = t.sequence.join("\n");
            let vault = others[0].address.to_checksum(None);
            assert!(
                text.contains(&format!("crack{{to: {vault}}}(4242)")),
                "{text}"
            );
            let id = engine
                .tests()
                .cases()
                .find(|c| c.name == "echidna_vault_intact")
                .unwrap()
                .id;
            let seq = engine.tests().falsified(id).unwrap().sequence().to_vec();
            let abis = Abis {
                target: &engine.target().functions,
                others,
                created: &[],
            };
            let defaults = CallDefaults {
                sender: engine.config().senders[0],
                others: others.clone(),
                ..Default::default()
            };
            for tx in &seq {
                assert_eq!(&StoredTx::from_tx(tx, None).to_tx(abis).unwrap(), tx);
            }
            let parsed = parse_txs(&text, &engine.target().functions, &defaults).unwrap();
            assert_eq!(
                parsed
                    .iter()
                    .map(|t| (t.to, t.calldata()))
                    .collect::<Vec<_>>(),
                seq.iter().map(|t| (t.to, t.calldata())).collect::<Vec<_>>()
            );
            // The vault's lines are in the coverage.
            let lcov = engine.target().coverage_report().lcov_text();
            let src = std::fs::read_to_string("contracts/AllContracts.sol").unwrap();
            let line = src
                .lines()
                .position(|l| l.contains("broken = true"))
                .unwrap()
                + 1;
            assert!(
                lcov.lines()
                    .any(|l| l.starts_with(&format!("DA:{line},")) && !l.ends_with(",0")),
                "vault line {line} not hit:\n{lcov}"
            );
        }
    }
}

/// A `to` that is no contract calls can go to is refused, naming the field
/// and the contracts that are.
#[test]
fn a_call_to_an_unknown_contract_is_refused_with_the_known_ones() {
    use rudder::parser::{CallDefaults, parse_txs};
    for on in [false, true] {
        let (base, _) = Config::from_yaml_str(&format!("allContracts: {on}\n")).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let config = Config {
            workers: Some(1),
            seed: Some(1),
            test_limit: 10,
            ..base
        };
        let c = started("contracts/out/AllContracts.json", config, dir.path());
        let engine = c.read();
        drop(c.wait());
        let defaults = CallDefaults {
            sender: engine.config().senders[0],
            others: engine.target().others.clone(),
            ..Default::default()
        };
        let call = "crack{to: 0x0000000000000000000000000000000000000bad}(4242)";
        let e = parse_txs(call, &engine.target().functions, &defaults)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("to: 0x0000000000000000000000000000000000000Bad is not a contract"),
            "{e}"
        );
        if on {
            assert!(e.contains("Vault at 0x"), "{e}");
            // The target's functions are not the vault's.
            let vault = engine.target().others[0].address;
            let e = parse_txs(
                &format!("ping{{to: {vault}}}()"),
                &engine.target().functions,
                &defaults,
            )
            .unwrap_err()
            .to_string();
            assert!(e.contains("no function named `ping`; Vault has"), "{e}");
        } else {
            assert!(e.contains("allContracts: true"), "{e}");
        }
    }
}

/// A `string` argument is any bytes: a property that only raw bytes break
/// (no UTF-8 text starts with 0xff) is falsified, and the call prints as
/// `hex"…"`.
#[test]
fn string_arguments_that_are_not_utf8_are_sent() {
    for seed in 1..=3 {
        let r = run(
            "contracts/out/AllContracts.json",
            None,
            TestMode::Property,
            seed,
            100_000,
        );
        assert_eq!(
            status(&r, "echidna_text_only"),
            "falsified",
            "seed {seed}:\n{}",
            r.text()
        );
        let t = r
            .tests
            .iter()
            .find(|t| t.name == "echidna_text_only")
            .unwrap();
        assert!(
            t.sequence.iter().any(|s| s.starts_with("name(hex\"ff")),
            "{:?}",
            t.sequence
        );
    }
}

/// With no --contract, the harness is the contract no other one creates,
/// wherever it stands in the file (Echidna's assertion cases put it first).
#[test]
fn the_default_contract_is_the_one_that_creates_the_others() {
    let p = rudder::artifacts::Project::load(Path::new("contracts/out/HarnessFirst.json")).unwrap();
    assert_eq!(p.default_contract(None).unwrap().name, "HarnessFirst");
    assert_eq!(
        p.default_contract(Some("echidna_")).unwrap().name,
        "HarnessFirst"
    );
    // The last one defined still wins where none creates another.
    let p = rudder::artifacts::Project::load(Path::new("contracts/out/Sequence.json")).unwrap();
    let last = p
        .contracts
        .iter()
        .filter(|c| !c.is_library)
        .max_by_key(|c| c.position);
    assert_eq!(p.default_contract(None).unwrap().name, last.unwrap().name);
    let r = run(
        "contracts/out/HarnessFirst.json",
        None,
        TestMode::Assertion,
        1,
        20_000,
    );
    assert_eq!(status(&r, "bump(uint8)"), "falsified", "{}", r.text());
}

/// `deployer` and `contractAddr` at one address, the only sender too (an
/// Echidna configuration public harnesses use): the harness is created over
/// the deployer's account with its value, and its calls come from itself
/// (a sender holding code, which revm refuses by default, EIP-3607).
#[test]
fn a_harness_deployed_at_the_deployers_address_sends_its_own_calls() {
    let me = alloy_primitives::address!("0000000000000000000000000000000000010000");
    for seed in 1..=3 {
        let dir = tempfile::tempdir().unwrap();
        let config = Config {
            workers: Some(1),
            seed: Some(seed),
            test_limit: 5_000,
            deployer: me,
            contract_addr: me,
            senders: vec![me],
            psender: me,
            balance_contract: alloy_primitives::U256::from(100u64)
                * alloy_primitives::U256::from(10u64).pow(alloy_primitives::U256::from(18u64)),
            ..Config::default()
        };
        let mut c = Campaign::new(
            Path::new("contracts/out/SelfSender.json"),
            None,
            config,
            Some(dir.path().into()),
        )
        .unwrap_or_else(|e| panic!("deploying at the deployer's address: {e}"));
        assert_eq!(c.read().target().address, me);
        c.start().unwrap();
        let r = c.wait();
        assert_eq!(
            status(&r, "echidna_kept_its_value"),
            "passing",
            "{}",
            r.text()
        );
        assert_eq!(
            status(&r, "echidna_never_called_by_itself"),
            "falsified",
            "seed {seed}:\n{}",
            r.text()
        );
    }
}

/// Echidna's deployment: the harness is created at its final address with
/// `balanceContract` as the constructor's value, so what the constructor
/// records (`address(this)`, the owner of a contract it creates, its funds)
/// holds for the campaign, and the owner-gated bug behind it is found.
#[test]
fn the_target_is_created_at_its_final_address_with_its_balance_as_value() {
    for seed in 1..=3 {
        let dir = tempfile::tempdir().unwrap();
        let config = Config {
            workers: Some(1),
            seed: Some(seed),
            test_limit: 20_000,
            balance_contract: alloy_primitives::U256::from(1000u64),
            ..Config::default()
        };
        let mut c = Campaign::new(
            Path::new("contracts/matrix/out/Deployed.json"),
            None,
            config,
            Some(dir.path().into()),
        )
        .unwrap_or_else(|e| panic!("deploying with value: {e}"));
        let t = c.read().target().clone();
        assert_eq!(t.address, Config::default().contract_addr);
        c.start().unwrap();
        let r = c.wait();
        for held in [
            "echidna_self_is_where_the_constructor_ran",
            "echidna_vault_is_owned_by_the_harness",
            "echidna_funded_at_deployment",
        ] {
            assert_eq!(status(&r, held), "passing", "seed {seed}:\n{}", r.text());
        }
        assert_eq!(
            status(&r, "echidna_minted_stays_small"),
            "falsified",
            "seed {seed}:\n{}",
            r.text()
        );
    }
}

/// Echidna's `codeSize` default is no limit: a harness over EIP-170 loads;
/// a limit set in the config is named when a deployment exceeds it.
#[test]
fn code_size_defaults_to_no_limit_and_its_errors_name_the_key() {
    assert_eq!(
        Config::default().code_size,
        rudder::config::DEFAULT_CODE_SIZE
    );
    let project = std::sync::Arc::new(
        rudder::artifacts::Project::load(Path::new("contracts/out/Token.json")).unwrap(),
    );
    let contract = project.contract(None).unwrap().clone();
    // Creation code over twice the limit, runtime under it: the initcode
    // limit (EIP-3860) refuses it, naming `codeSize`.
    let runtime = contract.runtime_code.len() as u64;
    let tight = Config {
        code_size: runtime,
        workers: Some(1),
        deploy_bytecodes: vec![(
            alloy_primitives::Address::with_last_byte(0x77),
            vec![0x60; (runtime as usize) * 2 + 64],
        )],
        ..Config::default()
    };
    let err = Campaign::from_project(project, &contract, tight, None)
        .err()
        .expect("refused");
    assert!(err.to_string().contains("codeSize"), "{err}");
}

/// The reason a falsified test reports is the one its shrunk sequence
/// gives (the numbers in it are those the reproducer replays).
#[test]
fn a_falsified_tests_reason_is_its_shrunk_sequences() {
    for seed in 1..=3 {
        let r = run(
            "contracts/matrix/out/Harness.json",
            Some("ReasonOfShrunk"),
            TestMode::Property,
            seed,
            20_000,
        );
        let t = r
            .tests
            .iter()
            .find(|t| t.name == "echidna_total_small")
            .unwrap();
        assert_eq!(t.status.as_str(), "falsified", "{}", r.text());
        let total: u64 = t
            .sequence
            .iter()
            .map(|call| {
                let arg = call
                    .split("add(")
                    .nth(1)
                    .and_then(|a| a.split(')').next())
                    .unwrap_or_else(|| panic!("{call}"));
                let v: alloy_primitives::U256 =
                    arg.trim().parse().unwrap_or_else(|_| panic!("{call}"));
                (v % alloy_primitives::U256::from(1000)).to::<u64>()
            })
            .sum();
        let reason = t.reason.as_deref().unwrap_or_default();
        assert!(
            reason.contains(&format!("TooMuch({total})")),
            "seed {seed}: reason {reason:?} for {:?}",
            t.sequence
        );
    }
}

#[test]
fn a_foundry_out_compiled_three_times_reads_each_artifact_in_its_own_numbering() {
    // forge-rebuilt: a full build-info (stale: two sources changed since),
    // then two minimal ones that each number only what they recompiled, so
    // source id 0 is src/Linked.sol for some artifacts and
    // test/BankInvariant.t.sol for others.
    // Modification times do not decide it: on a copy whose stale full
    // build-info is the newest file (a fresh clone may order them any way),
    // every artifact still reads in its own compilation's numbering.
    let copy = tempfile::tempdir().unwrap();
    let mut stack = vec![std::path::PathBuf::new()];
    while let Some(rel) = stack.pop() {
        let from = Path::new("contracts/matrix/forge-rebuilt").join(&rel);
        std::fs::create_dir_all(copy.path().join(&rel)).unwrap();
        for e in std::fs::read_dir(&from).unwrap().flatten() {
            let rel = rel.join(e.file_name());
            if e.path().is_dir() {
                stack.push(rel);
            } else {
                std::fs::copy(e.path(), copy.path().join(&rel)).unwrap();
            }
        }
    }
    let full = copy.path().join("out/build-info/e0d64014aa1de859.json");
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(3600);
    (std::fs::File::options().write(true).open(&full).unwrap())
        .set_modified(later)
        .unwrap();
    let rebuilt = copy.path().to_str().unwrap();
    let p = rudder::artifacts::Project::load(Path::new(rebuilt)).unwrap();
    let mut paths: Vec<&str> = p.sources.iter().map(|s| s.path.as_str()).collect();
    paths.sort();
    assert_eq!(
        paths,
        [
            "src/Linked.sol",
            "src/Vaulted.sol",
            "test/BankInvariant.t.sol"
        ]
    );
    // The same campaign reaches the same lines and branches as on the
    // project built once, all in the test file.
    let once = run(
        "contracts/matrix/forge-project",
        Some("Vaulted"),
        TestMode::Property,
        5,
        20_000,
    );
    let r = run(rebuilt, Some("Vaulted"), TestMode::Property, 5, 20_000);
    assert_eq!(
        (r.coverage.lines, r.coverage.branches),
        (once.coverage.lines, once.coverage.branches),
        "{}",
        r.text()
    );
    assert_eq!(
        status(&r, "echidna_total_small"),
        "falsified",
        "{}",
        r.text()
    );
    let once = run(
        "contracts/matrix/forge-project",
        Some("BankInvariantTest"),
        TestMode::Property,
        5,
        20_000,
    );
    let r = run(
        rebuilt,
        Some("BankInvariantTest"),
        TestMode::Property,
        5,
        20_000,
    );
    assert_eq!(
        (
            r.coverage.lines,
            r.coverage.branches,
            r.coverage.not_targeted.clone()
        ),
        (
            once.coverage.lines,
            once.coverage.branches,
            once.coverage.not_targeted.clone()
        ),
        "{}",
        r.text()
    );
}
