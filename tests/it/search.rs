//! Search power: comparison feedback and focused mutation on the typed
//! ladders of `contracts/Ladder.sol` (five nested guards over five
//! differently typed parameters). Release build: `cargo test --release`.

use rudder::campaign::{Campaign, Report};
use rudder::config::Config;
use std::path::Path;

fn run(seed: u64, feedback: bool) -> Report {
    run_on("contracts/out/Ladder.json", seed, 100_000, feedback)
}

/// One worker, `limit` calls, no journal.
fn one_worker(seed: u64, limit: u64) -> Config {
    Config {
        workers: Some(1),
        seed: Some(seed),
        test_limit: limit,
        journal: false,
        ..Config::default()
    }
}

/// One worker, `limit` calls, no journal, a fresh output directory.
fn run_on(artifact: &str, seed: u64, limit: u64, feedback: bool) -> Report {
    let config = Config {
        comparison_feedback: feedback,
        ..one_worker(seed, limit)
    };
    run_with(artifact, config)
}

/// `config` on `artifact`, in a fresh output directory.
fn run_with(artifact: &str, config: Config) -> Report {
    let dir = tempfile::tempdir().unwrap();
    let mut c = Campaign::new(
        Path::new(artifact),
        None,
        config,
        Some(dir.path().to_path_buf()),
    )
    .unwrap();
    c.start().unwrap();
    c.wait()
}

fn falsified(r: &Report, name: &str) -> bool {
    r.tests
        .iter()
        .find(|t| t.name == name)
        .expect("test")
        .status
        == "falsified"
}

/// Every ladder of `contracts/Ladder.sol` on every seed within 100,000
/// calls: `climbA` (a uint8 range, a uint16 constant, an int32 below a
/// negative bound, a bool, a uint64 residue above 10^12), `climbB` (an int64
/// window, a uint32 equal to 1000 times a uint8 that the next rung bounds,
/// a bool, a uint16 residue above 40,000) and `climbC` (a uint128 range at
/// 2^100, an int8 constant, a uint64 equal to a function of the uint128, a
/// bool, a uint24 near its maximum). Each is shrunk to its one call.
#[test]
fn every_typed_ladder_is_climbed_on_three_seeds_within_100k_calls() {
    for seed in 1..=3 {
        let r = run(seed, true);
        for (test, function) in [
            ("echidna_climb_a", "climbA("),
            ("echidna_climb_b", "climbB("),
            ("echidna_climb_c", "climbC("),
        ] {
            let t = r.tests.iter().find(|t| t.name == test).unwrap();
            assert_eq!(t.status, "falsified", "seed {seed} {test}:\n{}", r.text());
            assert_eq!(t.sequence.len(), 1, "{:?}", t.sequence);
            assert!(t.sequence[0].starts_with(function), "{:?}", t.sequence);
        }
    }
}

/// The same run without comparison feedback stays below the third rung.
#[test]
fn without_comparison_feedback_the_ladder_holds() {
    let r = run(1, false);
    assert!(!falsified(&r, "echidna_climb_c"), "{}", r.text());
}

/// `contracts/Maze1.sol` (from `scripts/maze.py 1`, reproducible): the two
/// bugs one move from the start, and `bug_6` three moves away behind a
/// product of two uint16s equal to a constant (a factor pair to find), a
/// boolean and a range, fall on every seed within 300,000 calls; the bug its
/// manifest calls infeasible (an empty range) never does.
#[test]
fn the_committed_maze_gives_up_its_near_bugs_and_never_its_infeasible_one() {
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string("contracts/Maze1.manifest.json").unwrap())
            .unwrap();
    let infeasible: Vec<String> = manifest["bugs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["feasible"] == false)
        .map(|b| b["property"].as_str().unwrap().to_string())
        .collect();
    assert!(!infeasible.is_empty());
    for seed in 1..=3 {
        let r = run_on("contracts/out/Maze1.json", seed, 300_000, true);
        for near in ["echidna_bug_0", "echidna_bug_11", "echidna_bug_6"] {
            assert!(falsified(&r, near), "seed {seed} {near}:\n{}", r.text());
        }
        for never in &infeasible {
            assert!(!falsified(&r, never), "seed {seed} {never}:\n{}", r.text());
        }
    }
}

/// The generator is reproducible from its seed: the committed maze is what
/// `scripts/maze.py 1` prints.
#[test]
fn the_maze_generator_is_reproducible_from_its_seed() {
    let out = std::process::Command::new("python3")
        .args(["scripts/maze.py", "1"])
        .output()
        .expect("python3");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let committed = std::fs::read_to_string("contracts/Maze1.sol").unwrap();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), committed);
}

/// State feedback: `contracts/Maze1.sol`'s `bug_10` sits at (0, 4), six
/// guarded moves from the start, behind a range. Reaching a cell is not new
/// code (every move runs the same lines); it is a new value of the slot
/// the probes compare with their cells, so the sequence that reached it is
/// kept and the next moves start from there.
#[test]
fn the_far_cell_of_the_committed_maze_is_reached_through_kept_states() {
    for seed in [1, 2] {
        let r = run_on("contracts/out/Maze1.json", seed, 1_500_000, true);
        assert!(
            falsified(&r, "echidna_bug_10"),
            "seed {seed}:\n{}",
            r.text()
        );
    }
}

/// State feedback keeps (almost) no states where no equality reads
/// storage: `AlwaysHolds`'s counters and `Token`'s balances (read by
/// orderings) add a few entries at most to the corpus the same run keeps
/// without it. `Token`'s one equality on storage, `allowed !=
/// type(uint256).max`, reads an allowance slot per (owner, spender) pair:
/// an unlimited approval of a new pair is a new state, and runs keep 3 to
/// 18 more entries for them (seeds 1 to 5: 18, 5, 11, 20, 11 with it; 3,
/// 2, 3, 3, 2 without). (A stale `SUB` of an ABI encoder's lengths once
/// made random words guard slots: about 60 more entries on each.)
#[test]
fn state_feedback_keeps_no_states_where_no_equality_reads_storage() {
    for artifact in ["contracts/out/AlwaysHolds.json", "contracts/out/Token.json"] {
        let corpus = |state_feedback| {
            let config = Config {
                state_feedback,
                ..one_worker(1, 100_000)
            };
            run_with(artifact, config).corpus_sequences
        };
        let (off, on) = (corpus(false), corpus(true));
        assert!(
            on <= off + 30,
            "{artifact}: {on} entries with state feedback, {off} without"
        );
    }
}
