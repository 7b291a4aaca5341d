//! End-to-end campaigns on the bundled contracts (release build recommended:
//! `cargo test --release`).

use rudder::campaign::{Campaign, Report};
use rudder::config::{Config, TestMode};
use std::path::Path;

fn config(mode: TestMode, workers: usize, seed: u64, limit: u64) -> Config {
    Config {
        test_mode: mode,
        workers: Some(workers),
        seed: Some(seed),
        test_limit: limit,
        ..Config::default()
    }
}

fn start_in(name: &str, config: Config, dir: &Path) -> Campaign {
    let mut c = Campaign::new(
        Path::new(&format!("contracts/out/{name}.json")),
        None,
        config,
        Some(dir.to_path_buf()),
    )
    .unwrap();
    c.start().unwrap();
    c
}

fn run_in(name: &str, config: Config, dir: &Path) -> Report {
    start_in(name, config, dir).wait()
}

fn run(name: &str, config: Config) -> Report {
    let dir = tempfile::tempdir().unwrap();
    run_in(name, config, dir.path())
}

fn falsified<'a>(r: &'a Report, test: &str) -> &'a [String] {
    let t = r
        .tests
        .iter()
        .find(|t| t.name == test)
        .expect("test exists");
    assert_eq!(t.status, "falsified", "{test} in\n{}", r.text());
    &t.sequence
}

#[test]
fn set_seven_is_found_and_shrunk_to_two_calls() {
    let r = run("SetSeven", config(TestMode::Property, 2, 1, 200_000));
    assert_eq!(falsified(&r, "echidna_not_gone"), ["set(7)", "go()"]);
}

#[test]
fn a_three_call_sequence_is_found_and_shrunk() {
    let r = run("Sequence", config(TestMode::Property, 2, 2, 500_000));
    assert_eq!(
        falsified(&r, "echidna_not_closed"),
        ["open()", "turn(42)", "close()"]
    );
}

#[test]
fn the_right_sender_is_kept_by_the_shrinker() {
    let r = run("OnlySender", config(TestMode::Property, 2, 3, 200_000));
    assert_eq!(
        falsified(&r, "echidna_unclaimed"),
        ["claim{from: 0x0000000000000000000000000000000000020000}()"]
    );
}

#[test]
fn a_time_delay_is_found_and_kept() {
    let r = run("TimeLock", config(TestMode::Property, 2, 4, 200_000));
    let seq = falsified(&r, "echidna_never_released");
    assert_eq!(seq.len(), 2, "{seq:?}");
    assert_eq!(seq[0], "lock()");
    assert!(seq[1].starts_with("release{delay: "), "{seq:?}");
    let delay: u64 = seq[1]["release{delay: ".len()..]
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(delay >= 86_400, "{delay}");
}

#[test]
fn assertion_mode_finds_the_failing_assert() {
    let r = run("Assertion", config(TestMode::Assertion, 2, 5, 200_000));
    assert_eq!(falsified(&r, "withdraw(uint128)"), ["withdraw(1)"]);
    for t in r.tests.iter().filter(|t| t.name != "withdraw(uint128)") {
        assert_eq!(t.status, "passing", "{}", t.name);
    }
}

#[test]
fn optimization_mode_reaches_the_maximum() {
    let r = run("Optimize", config(TestMode::Optimization, 2, 6, 100_000));
    let t = &r.tests[0];
    assert_eq!(t.name, "echidna_opt_score");
    assert_eq!(t.value.as_deref(), Some("1020"), "{}", r.text());
    // The best sequence is shrunk like a counterexample.
    assert_eq!(t.sequence, ["play(255)", "play(255)"], "{}", r.text());
}

#[test]
fn a_correct_contract_passes() {
    let r = run("Token", config(TestMode::Property, 2, 7, 30_000));
    assert!(!r.any_falsified());
    assert!(r.tests.iter().all(|t| t.status == "passing"));
    assert_eq!(r.tests.len(), 2);
    assert!(r.calls >= 30_000);
    assert!(r.coverage.lines_hit > 0 && r.corpus_sequences > 0);
}

#[test]
fn one_worker_with_a_fixed_seed_is_deterministic() {
    let a = run("Sequence", config(TestMode::Property, 1, 42, 300_000));
    let b = run("Sequence", config(TestMode::Property, 1, 42, 300_000));
    assert_eq!(a.calls, b.calls);
    assert_eq!(a.corpus_calls, b.corpus_calls);
    assert_eq!(a.corpus_sequences, b.corpus_sequences);
    let seqs = |r: &Report| {
        r.tests
            .iter()
            .map(|t| t.sequence.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(seqs(&a), seqs(&b));
    assert_eq!(a.coverage.points, b.coverage.points);
}

#[test]
fn a_resumed_run_reloads_falsified_results() {
    let dir = tempfile::tempdir().unwrap();
    let first = run_in(
        "SetSeven",
        config(TestMode::Property, 2, 8, 200_000),
        dir.path(),
    );
    assert_eq!(falsified(&first, "echidna_not_gone"), ["set(7)", "go()"]);
    // The corpus on disk is the corpus in memory: one file per sequence,
    // even when two workers keep the same compacted sequence.
    let files = std::fs::read_dir(dir.path().join("corpus/coverage"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "json")
        })
        .count();
    assert_eq!(files, first.corpus_sequences, "{}", first.text());
    // A fresh directory: everything is this run's.
    assert_eq!(first.resumed, rudder::campaign::report::Resumed::default());
    assert!(!first.text().contains("resumed from"), "{}", first.text());
    let again = run_in(
        "SetSeven",
        config(TestMode::Property, 2, 9, 200_000),
        dir.path(),
    );
    assert_eq!(falsified(&again, "echidna_not_gone"), ["set(7)", "go()"]);
    // Everything was known from disk: nothing had to be fuzzed.
    assert_eq!(again.calls, 0, "{}", again.text());
    assert!(again.corpus_sequences >= first.corpus_sequences.min(1));
    // ... and the report says so, rather than passing the earlier run's
    // finds off as this one's.
    assert_eq!(again.resumed.falsified, 1, "{}", again.text());
    assert_eq!(again.resumed.corpus_sequences, first.corpus_sequences);
    let t = again.tests.iter().find(|t| t.name == "echidna_not_gone");
    assert_eq!(t.and_then(|t| t.found_by), Some("resume"));
    // ... and who found it there: the reproducer keeps it.
    assert_eq!(t.and_then(|t| t.first_found_by), Some("worker"));
    let text = again.text();
    assert!(text.contains("resumed from"), "{text}");
    assert!(
        text.contains(
            "[reloaded from an earlier run's reproducer; found there by a worker's fuzzing]"
        ),
        "{text}"
    );
    let json = serde_json::to_value(&again).unwrap();
    assert_eq!(json["resumed"]["falsified"], 1);
    // Its coverage is what it replayed: everything the first run covered,
    // the falsified property's own lines included though it is not checked
    // again.
    assert!(
        again.coverage.lines_hit >= first.coverage.lines_hit
            && again.coverage.branches_hit >= first.coverage.branches_hit,
        "first:\n{}again:\n{}",
        first.text(),
        again.text()
    );
}

/// Corpus entries drop the calls that changed nothing (see
/// `corpus::compact`), so replaying the corpus of a run must still reach
/// every point the run reached, and the entries must be shorter than the
/// random sequences they came from. The maze is mostly calls whose guards
/// did not hold; exploration mode checks no property, so every point the
/// run covered is a fuzzed call's.
#[test]
fn a_compacted_corpus_replays_to_all_the_coverage_of_its_run() {
    for (name, seed) in [("Maze1", 1), ("Token", 2), ("TimeLock", 3)] {
        let dir = tempfile::tempdir().unwrap();
        let first = run_in(
            name,
            config(TestMode::Exploration, 1, seed, 150_000),
            dir.path(),
        );
        assert!(first.corpus_sequences >= 2, "{}", first.text());
        let again = run_in(name, config(TestMode::Exploration, 1, seed, 0), dir.path());
        assert_eq!(again.calls, 0);
        assert_eq!(again.resumed.corpus_sequences, first.corpus_sequences);
        assert_eq!(
            again.coverage.points,
            first.coverage.points,
            "{name}: the replayed corpus reaches what the run reached\n{}",
            first.text()
        );
        if name == "Maze1" {
            let mean = first.corpus_calls as f64 / first.corpus_sequences as f64;
            assert!(mean < 20.0, "{name}: {mean} calls per entry");
        }
    }
}

/// Kills a real `rudder fuzz` process mid-campaign and checks that a new
/// campaign on the same corpus directory reloads what it had found.
#[test]
fn a_killed_run_keeps_its_corpus() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_rudder"))
        .args([
            "fuzz",
            "contracts/out/Token.json",
            "--workers",
            "1",
            "--seed",
            "10",
        ])
        .args(["--test-limit", "1000000000", "--out-dir"])
        .arg(dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let coverage = dir.path().join("corpus/coverage");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let count = || {
        std::fs::read_dir(&coverage)
            .map(|d| {
                d.filter_map(|e| e.ok())
                    .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
                    .count()
            })
            .unwrap_or(0)
    };
    while count() < 2 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    child.kill().unwrap();
    child.wait().unwrap();
    let on_disk = count();
    assert!(
        on_disk >= 2,
        "corpus files written before the kill: {on_disk}"
    );
    let mut c = Campaign::new(
        Path::new("contracts/out/Token.json"),
        None,
        config(TestMode::Property, 1, 11, 0),
        Some(dir.path().to_path_buf()),
    )
    .unwrap();
    c.start().unwrap();
    let r = c.wait();
    assert_eq!(r.corpus_sequences, on_disk, "{}", r.text());
    assert!(
        r.coverage.lines_hit > 0,
        "replayed corpus restores coverage"
    );
}

/// `read_logs` shows each new-coverage event with its corpus sequence; the
/// sequence is printed once per entry and shared afterwards.
#[test]
fn coverage_events_show_their_corpus_sequence_printed_once() {
    let dir = tempfile::tempdir().unwrap();
    let c = start_in("Token", config(TestMode::Property, 1, 3, 5_000), dir.path());
    let engine = c.read();
    c.wait();
    let filter = rudder::eventlog::Filter {
        kind: Some(rudder::eventlog::EventKind::CoverageIncreased),
        ..Default::default()
    };
    let events = engine.events().snapshot(&filter, usize::MAX);
    assert!(!events.is_empty());
    for e in &events {
        let rudder::eventlog::Payload::CoverageIncreased { entry, calls, .. } = e.payload else {
            unreachable!()
        };
        let entry = engine.corpus().get(entry).expect("the entry exists");
        let data = engine.renderer().data(e);
        let shown: Vec<String> = serde_json::from_value(data["sequence"].clone()).unwrap();
        assert_eq!(shown, engine.print_sequence(&entry.txs));
        assert_eq!(shown.len(), calls as usize);
        let (a, b) = (
            engine.renderer().entry(&entry),
            engine.renderer().entry(&entry),
        );
        assert!(std::sync::Arc::ptr_eq(&a, &b));
    }
}

#[test]
fn properties_that_write_hold_in_every_seed_with_and_without_the_check_cache() {
    use rudder::config::CheckCacheMode;
    // Each check runs on a copy of the state: a property's write, log or
    // created contract is gone before the next call and the next check.
    for (seed, cache) in [
        (11, CheckCacheMode::On),
        (12, CheckCacheMode::Off),
        (13, CheckCacheMode::Verify),
        (14, CheckCacheMode::On),
        (15, CheckCacheMode::Verify),
    ] {
        let r = run(
            "SideEffects",
            Config {
                check_cache: cache,
                ..config(TestMode::Property, 2, seed, 20_000)
            },
        );
        for name in [
            "echidna_writes_once",
            "echidna_counts_itself",
            "echidna_creates_once",
        ] {
            let t = r.tests.iter().find(|t| t.name == name).expect(name);
            assert_eq!(t.status, "passing", "seed {seed}: {name} in\n{}", r.text());
        }
        // A property that reads what the calls wrote is still broken.
        let seq = falsified(&r, "echidna_total_small");
        assert!(seq.len() >= 2, "seed {seed}: {seq:?}");
    }
}

#[test]
fn foundry_invariants_that_write_hold_too() {
    for seed in [21, 22, 23] {
        let r = run(
            "SideEffectsSuite",
            config(TestMode::Property, 2, seed, 20_000),
        );
        let mut names: Vec<&str> = r.tests.iter().map(|t| t.name.as_str()).collect();
        names.sort();
        assert_eq!(
            names,
            [
                "afterInvariant",
                "invariant_marks_through_a_call",
                "invariant_writes_once",
            ],
            "{}",
            r.text()
        );
        for t in &r.tests {
            assert_eq!(
                t.status,
                "passing",
                "seed {seed}: {} in\n{}",
                t.name,
                r.text()
            );
        }
    }
}

#[test]
fn a_failure_carries_the_message_its_assertion_library_emitted() {
    // Assertion mode: the failing call emitted AssertEqFail(..), then
    // assert(false) reverted it; the message is read from its trace.
    let dir = tempfile::tempdir().unwrap();
    let campaign = start_in(
        "Messages",
        config(TestMode::Assertion, 2, 31, 300_000),
        dir.path(),
    );
    let read = campaign.control().read();
    let r = campaign.wait();
    let t = r
        .tests
        .iter()
        .find(|t| t.name == "transfer(address,uint256)")
        .unwrap();
    assert_eq!(t.status, "falsified", "{}", r.text());
    let reason = t.reason.as_deref().unwrap();
    assert!(
        reason.starts_with("emitted AssertEqFail(\"Invalid: ")
            && reason.contains(", reason: Wrong source balance after transfer\")")
            && reason.ends_with("then panic 0x01 (assertion failed)"),
        "{reason}"
    );
    // Every report shows it: text, JSON, HTML.
    let words = "Wrong source balance after transfer";
    assert!(r.text().contains(words), "{}", r.text());
    assert!(serde_json::to_string(&r).unwrap().contains(words));
    let html = rudder::view::html::render(
        &read,
        std::time::Instant::now() + std::time::Duration::from_secs(5),
    );
    assert!(html.html.contains(words));

    // Property mode: the property itself emitted AssertFail(..) and failed.
    let r = run("Messages", config(TestMode::Property, 2, 32, 300_000));
    let t = &r.tests[0];
    assert_eq!(t.name, "echidna_supply_kept");
    assert_eq!(t.status, "falsified", "{}", r.text());
    assert_eq!(
        t.reason.as_deref(),
        Some("emitted AssertFail(\"supply moved by 1\"), then panic 0x01 (assertion failed)"),
        "{}",
        r.text()
    );
}

#[test]
fn a_fee_per_loan_drains_the_receiver_when_a_call_is_repeated() {
    // Ten loans to the same receiver in one sequence, each moving ether
    // (no storage write the state feedback sees): found by repeating a call
    // that worked, on every seed.
    let ether = alloy_primitives::U256::from(10u64).pow(alloy_primitives::U256::from(18));
    for seed in 41..=45 {
        let r = run(
            "FlashDrain",
            Config {
                balance_contract: alloy_primitives::U256::from(1010u64) * ether,
                ..config(TestMode::Property, 2, seed, 400_000)
            },
        );
        let seq = falsified(&r, "echidna_receiver_keeps_its_ether");
        assert_eq!(seq.len(), 10, "seed {seed}: {seq:?}");
        assert!(
            seq.iter().all(|c| c.starts_with("loan(")),
            "seed {seed}: {seq:?}"
        );
    }
}

/// Foundry mode (Echidna's `testMode: foundry`): with one call per sequence
/// each `test*` function with arguments is a test broken by a revert (not
/// by a `vm.assume` rejection, and only after setUp() ran), a fuzzed
/// function's revert breaks nothing, and `invariant*` functions are not
/// tests; with longer sequences they are, and must not revert.
#[test]
fn foundry_mode_runs_forge_style_fuzz_tests_and_invariants() {
    for seed in [1, 2, 3] {
        let r = run_named(
            "FoundryModeTests",
            Config {
                seq_len: 1,
                ..config(TestMode::Foundry, 1, seed, 20_000)
            },
        );
        let mut names: Vec<&str> = r.tests.iter().map(|t| t.name.as_str()).collect();
        names.sort();
        assert_eq!(
            names,
            [
                "testAssumedSmall(uint256)",
                "testDistinct(uint256,uint256)",
                "testStaysUnderTheLimit(uint256)"
            ],
            "seed {seed}"
        );
        let t = r
            .tests
            .iter()
            .find(|t| t.name.starts_with("testStaysUnder"))
            .unwrap();
        assert_eq!(t.status, "falsified", "seed {seed}: {}", r.text());
        assert!(
            t.reason.as_deref().unwrap_or("").contains("over the limit"),
            "{:?}",
            t.reason
        );
        falsified(&r, "testDistinct(uint256,uint256)");
        let t = r
            .tests
            .iter()
            .find(|t| t.name.starts_with("testAssumed"))
            .unwrap();
        assert_eq!(t.status, "passing", "seed {seed}: {}", r.text());
    }
    let r = run_named("FoundryModeTests", config(TestMode::Foundry, 1, 4, 50_000));
    let seq = falsified(&r, "invariant_total_small");
    assert!(
        seq.len() >= 2 && seq.iter().all(|c| c.starts_with("add(")),
        "{seq:?}"
    );
    // In assertion mode a revert is no failure, but one whose message
    // starts with "assertion failed" (forge-std's assert*) is.
    let r = run_named(
        "AssertionMessages",
        config(TestMode::Assertion, 1, 5, 20_000),
    );
    falsified(&r, "distinct(uint256,uint256)");
    let t = r
        .tests
        .iter()
        .find(|t| t.name.starts_with("guarded"))
        .unwrap();
    assert_eq!(t.status, "passing", "{}", r.text());
}

/// A campaign on contract `name` of contracts/out/FoundryMode.json.
fn run_named(name: &str, config: Config) -> Report {
    let dir = tempfile::tempdir().unwrap();
    let mut c = Campaign::new(
        Path::new("contracts/out/FoundryMode.json"),
        Some(name),
        config,
        Some(dir.path().to_path_buf()),
    )
    .unwrap();
    c.start().unwrap();
    c.wait()
}

/// A call that reverts at a guard another function's writes can satisfy is
/// sometimes followed by that function with the distance the guard missed
/// by, then by itself again (`enablerFeedback`): `refund` reverts short of
/// a deadline only a hashed argument sets, `warp` by exactly the shortfall
/// lands on it, and the off-by-one there (a refund and a claim in the same
/// second) falls. Without the detour the same seeds and budget do not
/// reach that second.
///
/// DeadlineClock reads the time through an interface the harness implements
/// (the code graph cannot tell `warp` moves it): the enabler is found by
/// trying functions with an integer argument at that distance, and learned.
#[test]
fn a_guard_missed_by_a_distance_is_met_by_its_enabler_on_the_boundary() {
    for (case, seed) in [1, 2, 3]
        .map(|s| ("Deadline", s))
        .into_iter()
        .chain([1, 2, 3].map(|s| ("DeadlineClock", s)))
    {
        let on = run(case, config(TestMode::Property, 1, seed, 200_000));
        let s = falsified(&on, "echidna_pays_once");
        assert_eq!(
            s[s.len() - 2..],
            ["refund()", "claim()"],
            "{case} seed {seed}"
        );
        let off = run(
            case,
            Config {
                enabler_feedback: false,
                ..config(TestMode::Property, 1, seed, 200_000)
            },
        );
        let t = off.tests.iter().find(|t| t.name == "echidna_pays_once");
        assert_eq!(
            t.unwrap().status,
            "passing",
            "{case} seed {seed}:\n{}",
            off.text()
        );
    }
}
