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

/// A project compiled on the spot with a remapped import, a base contract
/// two children inherit, two instances of one contract and a source never
/// deployed: LCOV names the remapped file by its path on disk, the
/// inherited branch counts once, the undeployed source is listed as not
/// targeted (and not counted), and the two instances' tests have names
/// that tell them apart.
#[test]
fn coverage_counts_what_the_campaign_targets_once_under_file_paths() {
    if !Path::new("contracts/.tools/node_modules/solc/package.json").is_file() {
        eprintln!("SKIPPED: contracts/.tools has no solc (bash contracts/build.sh installs it)");
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let root = work.path().canonicalize().unwrap();
    let write = |rel: &str, text: &str| {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    write("remappings.txt", "@shapes/=deps/shapes/src/\n");
    write(
        "deps/shapes/src/Counter.sol",
        "pragma solidity ^0.8.0;\n\
         contract Counter {\n\
             uint public n;\n\
             function bump(uint v) public {\n\
                 if (v % 2 == 0) {\n\
                     n += 1;\n\
                 } else {\n\
                     n += 2;\n\
                 }\n\
             }\n\
         }\n",
    );
    write(
        "Unused.sol",
        "pragma solidity ^0.8.0;\ncontract Unused {\n    function f() external pure returns (uint) { return 1; }\n}\n",
    );
    write(
        "Harness.sol",
        "pragma solidity ^0.8.0;\n\
         import \"@shapes/Counter.sol\";\n\
         import \"./Unused.sol\";\n\
         contract Left is Counter {}\n\
         contract Right is Counter {}\n\
         contract Cell {\n\
             function poke(uint x) external pure { assert(x != 7); }\n\
         }\n\
         contract Harness {\n\
             Left l = new Left();\n\
             Right r = new Right();\n\
             Cell a = new Cell();\n\
             Cell b = new Cell();\n\
             function go(uint v) external { l.bump(v); r.bump(v + 1); }\n\
         }\n",
    );
    write("all.yaml", "testMode: assertion\nallContracts: true\n");
    // rudder finds solcjs in ./node_modules: the checkout's pinned one.
    std::os::unix::fs::symlink(
        std::fs::canonicalize("contracts/.tools/node_modules").unwrap(),
        root.join("node_modules"),
    )
    .unwrap();
    let lcov = root.join("out.lcov");
    let out = Command::new(env!("CARGO_BIN_EXE_rudder"))
        .args([
            "fuzz",
            "Harness.sol",
            "--contract",
            "Harness",
            "--config",
            "all.yaml",
        ])
        .args([
            "--test-limit",
            "3000",
            "--workers",
            "1",
            "--seed",
            "3",
            "--no-ui",
        ])
        .args(["--format", "json", "--out-dir", "o", "--lcov"])
        .arg(&lcov)
        .current_dir(&root)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let report: serde_json::Value = match serde_json::from_slice(&out.stdout) {
        Ok(r) => r,
        Err(e) => panic!("{e}: {stderr}"),
    };
    let text = std::fs::read_to_string(&lcov).unwrap();
    let counter = root.join("deps/shapes/src/Counter.sol");
    let section = text
        .split("end_of_record")
        .find(|s| s.contains(&format!("SF:{}\n", counter.display())))
        .unwrap_or_else(|| panic!("no SF: for the remapped file at its path:\n{text}"));
    assert!(
        section.contains("BRF:2\n"),
        "the inherited branch counts once:\n{section}"
    );
    assert!(!text.contains("SF:@shapes"), "{text}");
    assert_eq!(
        report["coverage"]["notTargeted"],
        serde_json::json!(["Unused.sol"]),
        "{report}"
    );
    let names: Vec<&str> = report["tests"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .filter(|n| n.contains("poke"))
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(
        names.contains(&"poke(uint256)") && names.iter().any(|n| n.starts_with("Cell@0x")),
        "{names:?}"
    );
}
