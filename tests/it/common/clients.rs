//! The official MCP clients the end-to-end tests drive: installed once per
//! test binary by the project's scripts (two tests creating the venv or
//! node_modules at once on a fresh clone would race), and a driver script
//! run against this build's rudder.

use std::process::Command;
use std::sync::OnceLock;

/// Runs a setup script with `args` and returns the last line it prints
/// (the interpreter's path).
fn setup(script: &str, args: &[&str], what: &str) -> String {
    let setup = Command::new("bash")
        .arg(script)
        .args(args)
        .output()
        .expect("bash");
    assert!(
        setup.status.success(),
        "{script} failed (it installs {what}):\n{}",
        String::from_utf8_lossy(&setup.stderr)
    );
    String::from_utf8_lossy(&setup.stdout)
        .trim()
        .lines()
        .last()
        .unwrap()
        .to_string()
}

/// The Python interpreter of `.venv`, with the official `mcp` client
/// (pinned, 1.x).
pub fn python() -> String {
    static PYTHON: OnceLock<String> = OnceLock::new();
    PYTHON
        .get_or_init(|| {
            setup(
                "scripts/setup-python.sh",
                &[],
                "the `mcp` package from PyPI",
            )
        })
        .clone()
}

/// The Python interpreter of `.venv-current`, with the official `mcp`
/// client's current major release (pinned, 2.x).
pub fn python_current() -> String {
    static PYTHON: OnceLock<String> = OnceLock::new();
    PYTHON
        .get_or_init(|| {
            setup(
                "scripts/setup-python.sh",
                &["--current"],
                "the `mcp` package (2.x) from PyPI",
            )
        })
        .clone()
}

/// Node, once the official `@modelcontextprotocol/sdk` and `ajv` are in
/// tests/e2e/conformance/node_modules.
pub fn node() -> String {
    static NODE: OnceLock<String> = OnceLock::new();
    NODE.get_or_init(|| {
        setup(
            "scripts/setup-node.sh",
            &[],
            "@modelcontextprotocol/sdk and ajv from npm",
        )
    })
    .clone()
}

/// Runs `script` with `interpreter` as `script RUDDER WORKDIR ARGS…` (a
/// fresh work directory); it must exit 0. Returns its stdout (also printed).
pub fn run_driver(interpreter: &str, script: &str, args: &[&str]) -> String {
    let work = tempfile::tempdir().unwrap();
    let out = Command::new(interpreter)
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_rudder"))
        .arg(work.path())
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{interpreter} {script}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{script} failed\nstdout:\n{stdout}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    println!("{stdout}");
    stdout
}
