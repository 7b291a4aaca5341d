//! Foundry's forge, installed by `../shared/peers/install.sh forge`
//! (scripts/test.sh installs it), and a writable copy of a bundled forge
//! project for it to build.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// forge and the solcjs wrapper it compiles with, when installed. Panics
/// when `../shared/peers` is here but forge is not (CI installs it);
/// `None` (the test skips) without `../shared/peers`.
pub fn forge() -> Option<(PathBuf, PathBuf)> {
    let Ok(peers) = Path::new("../shared/peers").canonicalize() else {
        eprintln!("SKIPPED: no ../shared/peers to install forge from");
        return None;
    };
    let forge = peers.join(".tools/node_modules/.bin/forge");
    let solc = peers.join("lib/solc");
    assert!(
        forge.exists() && solc.exists(),
        "../shared/peers is here but forge is not installed: run ../shared/peers/install.sh forge"
    );
    Some((forge, solc))
}

/// Copies forge project `project` into `dir` (forge writes cache/ and
/// out/ in it) with its `solc` path made absolute; returns the copy.
pub fn copy_project(project: &str, dir: &Path, solc: &Path) -> PathBuf {
    let copy = dir.join("project");
    let status = Command::new("cp")
        .args(["-r", project])
        .arg(&copy)
        .status()
        .unwrap();
    assert!(status.success());
    let toml = copy.join("foundry.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    let text: String = text
        .lines()
        .map(|l| {
            if l.starts_with("solc =") {
                format!("solc = \"{}\"", solc.display())
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(&toml, text + "\n").unwrap();
    copy
}

/// `forge test` of the rudder reproducers in `project` (offline, with its
/// own HOME under `home`).
pub fn test_reproducers(forge: &Path, project: &Path, home: &Path) -> Output {
    Command::new(forge)
        .args([
            "test",
            "--offline",
            "--match-contract",
            "Repro",
            "--match-test",
            "test_",
        ])
        .current_dir(project)
        .env("FOUNDRY_DISABLE_NIGHTLY_WARNING", "1")
        .env("HOME", home)
        .output()
        .unwrap()
}

/// Asserts that `forge test` (`out`) failed, its output holding every one
/// of `needles` (the failing test's line).
pub fn assert_failed_on(out: &Output, needles: &[&str]) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success(),
        "forge test passed:\n{stdout}\n{stderr}"
    );
    assert!(
        needles.iter().all(|n| stdout.contains(n)),
        "forge did not fail on the invariant ({needles:?}):\n{stdout}\n{stderr}"
    );
}
