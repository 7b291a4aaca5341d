//! A Foundry project as teams write them (contracts/matrix/forge-std-project:
//! forge-std's `Test`, a handler with `bound`, `deal` through stdstore,
//! pranks, `expectRevert`, `recordLogs`, `expectEmit`, `expectCall`, an
//! oracle mocked in `setUp`, `deployCode`, `envOr`, forge-std's assertions
//! and `afterInvariant`), built by forge 1.7.1: rudder breaks what forge
//! breaks (`forge test` on the suite: `invariant_solvent` of both suites,
//! `invariant_nothing_withdrawn`, `invariant_never_poked`; 0 reverts in
//! `VaultInvariants`' 128,000 calls) and nothing else, calls what the
//! suite's artifact and interface lists say, checks `afterInvariant` at the
//! end of each sequence, and its reproducer fails under `forge test`.

use crate::common;

use rudder::campaign::report::TestReport;
use rudder::campaign::{Campaign, Report, TestStatus};
use rudder::config::Config;
use std::path::{Path, PathBuf};

const PROJECT: &str = "contracts/matrix/forge-std-project";
/// Where forge's deployer puts the handler (the suite's third creation).
const HANDLER: &str = "0xF62849F9A0B5Bf2913b396098F7c7019b51A820a";
/// Where the artifact suite's `setUp` puts the `Pokeable` it targets
/// through `IPoke`.
const POKEABLE: &str = "0x5991A2dF15A8F6A256D3Ec51E99254Cd3fb576A9";

fn fuzz(project: &Path, suite: &str, repro_dir: Option<PathBuf>, out: &Path) -> Report {
    let config = Config {
        workers: Some(1),
        seed: Some(1),
        test_limit: 50_000,
        repro_dir,
        ..Config::default()
    };
    fuzz_with(project, suite, config, out)
}

fn fuzz_with(project: &Path, suite: &str, config: Config, out: &Path) -> Report {
    let mut c = Campaign::new(project, Some(suite), config, Some(out.to_path_buf())).unwrap();
    c.start().unwrap();
    c.wait()
}

fn test<'r>(report: &'r Report, name: &str) -> &'r TestReport {
    report
        .tests
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("{name} is not a test: {}", report.text()))
}

#[test]
fn a_forge_std_suite_breaks_what_forge_breaks_and_nothing_else() {
    let out = tempfile::tempdir().unwrap();
    let r = fuzz(Path::new(PROJECT), "VaultInvariants", None, out.path());
    assert_eq!(r.tests.len(), 5, "{}", r.text());
    let solvent = test(&r, "invariant_solvent");
    assert_eq!(solvent.status, TestStatus::Falsified, "{}", r.text());
    let reason = solvent.reason.as_deref().unwrap_or_default();
    assert!(
        reason.contains("vault cannot pay every holder: "),
        "{reason}"
    );
    for call in &solvent.sequence {
        assert!(call.contains(&format!("to: {HANDLER}")), "{call}");
    }
    // Broken as forge breaks it: a withdrawal went through, under the
    // handler's expectEmit and expectCall (the token deployed by
    // deployCode in setUp).
    let withdrawn = test(&r, "invariant_nothing_withdrawn");
    assert_eq!(withdrawn.status, TestStatus::Falsified, "{}", r.text());
    assert!(
        withdrawn
            .sequence
            .iter()
            .any(|c| c.starts_with("withdraw{")),
        "{:?}",
        withdrawn.sequence
    );
    // Held: the books (deal through stdstore, prank, recordLogs in the
    // handler), the oracle mocked in setUp (in every sequence), and every
    // holder taking everything out at the end (afterInvariant).
    for name in [
        "invariant_books",
        "invariant_oracle_price",
        "afterInvariant",
    ] {
        assert_eq!(
            test(&r, name).status,
            TestStatus::Passing,
            "{name}:\n{}",
            r.text()
        );
    }
}

#[test]
fn artifact_and_interface_lists_choose_the_targets_and_after_invariant_ends_each_sequence() {
    let out = tempfile::tempdir().unwrap();
    let r = fuzz(
        Path::new(PROJECT),
        "VaultArtifactInvariants",
        None,
        out.path(),
    );
    // The interface's address is called through `IPoke` alone: `poke`
    // breaks at once, `breakIt` is never called.
    let poked = test(&r, "invariant_never_poked");
    assert_eq!(poked.status, TestStatus::Falsified, "{}", r.text());
    assert_eq!(poked.sequence.len(), 1, "{:?}", poked.sequence);
    assert!(
        poked.sequence[0].starts_with("poke{"),
        "{:?}",
        poked.sequence
    );
    assert!(poked.sequence[0].contains(&format!("to: {POKEABLE}")));
    assert_eq!(
        test(&r, "invariant_never_broken").status,
        TestStatus::Passing
    );
    // targetArtifact("VaultHandler"): the handler is a target, the vault is
    // not (nothing pauses it).
    assert_eq!(test(&r, "invariant_solvent").status, TestStatus::Falsified);
    assert_eq!(test(&r, "invariant_not_paused").status, TestStatus::Passing);
    // Three pokes in one sequence break afterInvariant, checked at its end
    // only: the shrunk sequence is exactly those three calls.
    let after = test(&r, "afterInvariant");
    assert_eq!(after.status, TestStatus::Falsified, "{}", r.text());
    assert_eq!(after.sequence.len(), 3, "{:?}", after.sequence);
    assert!(
        after.sequence.iter().all(|c| c.starts_with("poke{")),
        "{:?}",
        after.sequence
    );
    let reason = after.reason.as_deref().unwrap_or_default();
    assert!(reason.contains("poked three times in one run"), "{reason}");
}

/// Where forge's deployer puts the factory of `test/Factory.t.sol`, and
/// where that factory's first pool goes.
const FACTORY: &str = "0x5615dEB798BB3E4dFa0139dFa1b3D433Cc23b72f";
const FIRST_POOL: &str = "0x104fBc016F4bb334D775a19E8A6510109AC63E00";

#[test]
fn contracts_created_during_a_sequence_are_targets_unless_the_suite_names_its_targets() {
    // `forge test` on test/Factory.t.sol: FactoryInvariants FAIL after
    // `create()` then `drain()` on the pool it made; the two others PASS.
    let out = tempfile::tempdir().unwrap();
    let r = fuzz(Path::new(PROJECT), "FactoryInvariants", None, out.path());
    let drained = test(&r, "invariant_no_pool_drained");
    assert_eq!(drained.status, TestStatus::Falsified, "{}", r.text());
    assert_eq!(drained.sequence.len(), 2, "{:?}", drained.sequence);
    assert!(
        drained.sequence[0].starts_with(&format!("create{{to: {FACTORY}")),
        "{:?}",
        drained.sequence
    );
    assert!(
        drained.sequence[1].starts_with("drain{")
            && drained.sequence[1].contains(&format!("to: {FIRST_POOL}")),
        "{:?}",
        drained.sequence
    );
    // Its reproducer, a call to an address only a call created, reloads.
    let again = fuzz(Path::new(PROJECT), "FactoryInvariants", None, out.path());
    let drained = test(&again, "invariant_no_pool_drained");
    assert_eq!(drained.found_by, Some("resume"), "{}", again.text());
    assert_eq!(again.resumed.falsified, 1, "{}", again.text());
    for suite in ["FactoryExcludedInvariants", "FactoryTargetedInvariants"] {
        let out = tempfile::tempdir().unwrap();
        let r = fuzz(Path::new(PROJECT), suite, None, out.path());
        assert_eq!(
            test(&r, "invariant_no_pool_drained").status,
            TestStatus::Passing,
            "{suite}:\n{}",
            r.text()
        );
    }
}

/// Where forge's deployer puts the second `Flag` of test/Targets.t.sol.
const FLAG_B: &str = "0x2e234DAe75C793f67A35089C9d99245E1C58470b";

#[test]
fn a_suite_targeting_itself_and_selector_lists_add_targets_as_forge_does() {
    // `forge test` on test/Targets.t.sol: all three FAIL, each in one call.
    let out = tempfile::tempdir().unwrap();
    let r = fuzz(Path::new(PROJECT), "SelfTargetInvariants", None, out.path());
    let bumped = test(&r, "invariant_never_bumped");
    assert_eq!(bumped.status, TestStatus::Falsified, "{}", r.text());
    assert_eq!(bumped.sequence.len(), 1, "{:?}", bumped.sequence);
    assert!(
        bumped.sequence[0].starts_with("bump{"),
        "{:?}",
        bumped.sequence
    );
    // Its view (`bumps`), setUp and invariant are not called.
    let c = Campaign::new(
        Path::new(PROJECT),
        Some("SelfTargetInvariants"),
        Config::default(),
        Some(out.path().join("again")),
    )
    .unwrap();
    let called: Vec<String> = c
        .read()
        .callable()
        .iter()
        .map(|f| f.function.signature())
        .collect();
    assert_eq!(called, ["bump()"]);
    for suite in [
        "SelectorTargetInvariants",
        "ExcludedSelectorTargetInvariants",
    ] {
        let out = tempfile::tempdir().unwrap();
        let r = fuzz(Path::new(PROJECT), suite, None, out.path());
        let raised = test(&r, "invariant_b_never_raised");
        assert_eq!(
            raised.status,
            TestStatus::Falsified,
            "{suite}:\n{}",
            r.text()
        );
        assert!(
            raised.sequence[0].starts_with("raise{")
                && raised.sequence[0].contains(&format!("to: {FLAG_B}")),
            "{suite}: {:?}",
            raised.sequence
        );
    }
}

fn fuzz_failing_on_revert(project: &Path, repro_dir: Option<PathBuf>, out: &Path) -> Report {
    let config = Config {
        workers: Some(1),
        seed: Some(1),
        test_limit: 20_000,
        fail_on_revert: true,
        repro_dir,
        ..Config::default()
    };
    fuzz_with(project, "FailOnRevertInvariants", config, out)
}

#[test]
fn with_fail_on_revert_a_reverted_call_breaks_the_invariants() {
    // `forge test` (fail-on-revert inline): FAIL: risky input, one call.
    let out = tempfile::tempdir().unwrap();
    let r = fuzz_failing_on_revert(Path::new(PROJECT), None, out.path());
    let t = test(&r, "invariant_acts_do_not_revert");
    assert_eq!(t.status, TestStatus::Falsified, "{}", r.text());
    assert_eq!(t.sequence.len(), 1, "{:?}", t.sequence);
    let reason = t.reason.as_deref().unwrap_or_default();
    assert!(reason.contains("risky input"), "{reason}");
    // Without it, reverts are ignored, as forge's default does.
    let out = tempfile::tempdir().unwrap();
    let r = fuzz(
        Path::new(PROJECT),
        "FailOnRevertInvariants",
        None,
        out.path(),
    );
    assert_eq!(
        test(&r, "invariant_acts_do_not_revert").status,
        TestStatus::Passing
    );
}

#[test]
fn the_reproducer_of_a_forge_std_suite_fails_under_forge_test() {
    let Some((forge, solc)) = common::forge::forge() else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let project = common::forge::copy_project(PROJECT, work.path(), &solc);
    // forge-std from npm, as the project's own build fetches it.
    let fetched = std::process::Command::new("bash")
        .arg(project.join("fetch-forge-std.sh"))
        .status()
        .unwrap();
    assert!(fetched.success(), "fetching forge-std from npm failed");
    let repro = project.join("test/rudder");
    let r = fuzz(
        &project,
        "VaultInvariants",
        Some(repro.clone()),
        &work.path().join("out"),
    );
    let written = repro.join("VaultInvariants_invariant_solvent_Repro.t.sol");
    assert!(written.exists());
    // The report says where it wrote each (one per falsified test).
    let listed = written.display().to_string();
    assert!(
        r.foundry_reproducers.contains(&listed),
        "{:?}",
        r.foundry_reproducers
    );
    let falsified = r
        .tests
        .iter()
        .filter(|t| t.status == TestStatus::Falsified)
        .count();
    assert_eq!(r.foundry_reproducers.len(), falsified);
    assert!(r.text().contains(&format!("foundry reproducer: {listed}")));
    // A call that reverts, with fail_on_revert: replayed as one that must not.
    fuzz_failing_on_revert(
        &project,
        Some(repro.clone()),
        &work.path().join("out-revert"),
    );
    // A pool created during the sequence, called at its address.
    fuzz(
        &project,
        "FactoryInvariants",
        Some(repro.clone()),
        &work.path().join("out-factory"),
    );
    let out = common::forge::test_reproducers(&forge, &project, work.path());
    common::forge::assert_failed_on(
        &out,
        &[
            "[FAIL: vault cannot pay every holder: ",
            "test_invariant_solvent()",
        ],
    );
    // The withdrawal rudder replays under expectEmit and expectCall goes
    // through under forge too.
    common::forge::assert_failed_on(
        &out,
        &["[FAIL: withdrawn: ", "test_invariant_nothing_withdrawn()"],
    );
    common::forge::assert_failed_on(
        &out,
        &["[FAIL: risky input]", "test_invariant_acts_do_not_revert()"],
    );
    common::forge::assert_failed_on(
        &out,
        &[
            "[FAIL: a pool was drained]",
            "test_invariant_no_pool_drained()",
        ],
    );
}
