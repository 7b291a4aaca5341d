//! Search power: comparison feedback and focused mutation on the typed
//! ladders of `contracts/Ladder.sol` (five nested guards over five
//! differently typed parameters). Release build: `cargo test --release`.

use rudder::campaign::{Campaign, Report};
use rudder::config::Config;
use std::path::Path;

fn run(seed: u64, feedback: bool) -> Report {
    let dir = tempfile::tempdir().unwrap();
    let config = Config {
        workers: Some(1),
        seed: Some(seed),
        test_limit: 100_000,
        journal: false,
        comparison_feedback: feedback,
        ..Config::default()
    };
    let mut c = Campaign::new(
        Path::new("contracts/out/Ladder.json"),
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

/// `climbC(uint128 x, int8 s, uint64 y, bool f, uint24 z)`: a range at
/// 2^100, a negative int8, `y` equal to a function of `x`, a bool, and a
/// uint24 near its maximum. Passed on every seed within 100,000 calls, and
/// the shrunk reproducer is the one call.
#[test]
fn a_typed_ladder_is_climbed_on_three_seeds_within_100k_calls() {
    for seed in 1..=3 {
        let r = run(seed, true);
        let t = r
            .tests
            .iter()
            .find(|t| t.name == "echidna_climb_c")
            .unwrap();
        assert_eq!(t.status, "falsified", "seed {seed}:\n{}", r.text());
        assert_eq!(t.sequence.len(), 1, "{:?}", t.sequence);
        assert!(t.sequence[0].starts_with("climbC("), "{:?}", t.sequence);
    }
}

/// The same run without comparison feedback stays below the third rung.
#[test]
fn without_comparison_feedback_the_ladder_holds() {
    let r = run(1, false);
    assert!(!falsified(&r, "echidna_climb_c"), "{}", r.text());
}
