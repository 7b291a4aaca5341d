//! LCOV of a known run: snapshot, and Debian's `lcov --summary` and `genhtml`
//! accept it without warnings (skipped, saying why, when they are absent).

use alloy_dyn_abi::DynSolValue;
use alloy_primitives::U256;
use rudder::artifacts::Project;
use rudder::executor::{DEFAULT_SENDERS, EvmSettings, Target};
use rudder::tx::{Delay, Tx};
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

fn known_run() -> String {
    let project = Arc::new(Project::load(Path::new("contracts/out/Sequence.json")).unwrap());
    let c = project.contract(None).unwrap().clone();
    let t = Arc::new(Target::deploy(project, &c, EvmSettings::default(), 1).unwrap());
    let mut ex = t.executor(0);
    let call = |name: &str, args: Vec<DynSolValue>| Tx {
        function: t.functions.iter().find(|f| f.name == name).unwrap().clone(),
        args,
        sender: DEFAULT_SENDERS[0],
        value: U256::ZERO,
        delay: Delay::NONE,
        gas_price: 0,
        to: None,
    };
    ex.call(&call("open", vec![]));
    ex.call(&call("turn", vec![DynSolValue::Uint(U256::from(41), 256)]));
    ex.call(&call("close", vec![]));
    ex.commit_coverage();
    t.coverage_report().lcov_text()
}

#[test]
fn lcov_of_a_known_run() {
    let text = known_run();
    // `SF:` is absolute (genhtml finds the source from any directory); the
    // snapshot holds it relative to the checkout, wherever that is.
    let root = std::env::current_dir().unwrap().canonicalize().unwrap();
    let sf = format!("SF:{}/contracts/Sequence.sol\n", root.display());
    assert!(text.contains(&sf), "{text}");
    let portable = text.replace(&format!("SF:{}/", root.display()), "SF:");
    insta::assert_snapshot!("sequence_lcov", portable);
    // Specific lines: `stage = 1;` (line 11) ran, `stage = 2;` (line 16) did not.
    assert!(text.contains("DA:11,1\n"), "{text}");
    assert!(text.contains("DA:16,0\n"), "{text}");
}

#[test]
fn lcov_tools_accept_it() {
    if Command::new("lcov").arg("--version").output().is_err() {
        println!(
            "SKIPPED: Debian's lcov is not installed (scripts/test.sh installs it where apt works)"
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("sequence.info");
    std::fs::write(&file, known_run()).unwrap();
    let all = run_clean(
        Command::new("lcov")
            .args(["--summary"])
            .arg(&file)
            .args(["--rc", "branch_coverage=1"]),
    );
    assert!(all.contains("lines"), "{all}");
    let html = dir.path().join("html");
    run_clean(
        Command::new("genhtml")
            .arg(&file)
            .args(["--branch-coverage", "--output-directory"])
            .arg(&html)
            .current_dir(env!("CARGO_MANIFEST_DIR")),
    );
    assert!(html.join("index.html").exists());
}

/// Runs `cmd`; it must succeed without printing a warning. Returns its output.
fn run_clean(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{cmd:?} failed:\n{all}");
    assert!(!all.to_lowercase().contains("warning"), "{cmd:?}:\n{all}");
    all
}
