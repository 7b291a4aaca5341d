//! The MCP conformance suite (tests/e2e/conformance): every tool rudder serves
//! with `--tools all`, called through each official client SDK over stdio
//! (`rudder mcp`) and streamable HTTP (`rudder fuzz --mcp-http`), with the
//! valid and the refused call tools.json lists for it. A valid answer must
//! pass the tool's output schema (an independent validator and the SDK's
//! own); a refused call must be an error result whose JSON text names the
//! family's code and the bad field. A tool served but not listed in
//! tools.json (or listed but not served) fails the suite.
//!
//! scripts/setup-python.sh installs the Python SDK into .venv (PyPI);
//! scripts/setup-node.sh installs the TypeScript SDK and ajv into
//! tests/e2e/conformance/node_modules (npm, pinned by its package-lock.json).

use std::process::Command;
use std::sync::OnceLock;

/// Runs a setup script once per test binary and returns the last line it
/// prints (the interpreter's path).
fn setup(script: &str, what: &str) -> String {
    let setup = Command::new("bash").arg(script).output().expect("bash");
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

/// The Python interpreter of `.venv`, with the official `mcp` client.
fn python() -> String {
    static PYTHON: OnceLock<String> = OnceLock::new();
    PYTHON
        .get_or_init(|| setup("scripts/setup-python.sh", "the `mcp` package from PyPI"))
        .clone()
}

/// Node, once the official `@modelcontextprotocol/sdk` and `ajv` are in
/// tests/e2e/conformance/node_modules.
fn node() -> String {
    static NODE: OnceLock<String> = OnceLock::new();
    NODE.get_or_init(|| {
        setup(
            "scripts/setup-node.sh",
            "@modelcontextprotocol/sdk and ajv from npm",
        )
    })
    .clone()
}

/// Runs one driver against this build's rudder; it must pass every check
/// on both transports.
fn conformance(interpreter: &str, driver: &str, sdk: &str) {
    let work = tempfile::tempdir().unwrap();
    let out = Command::new(interpreter)
        .arg(driver)
        .arg(env!("CARGO_BIN_EXE_rudder"))
        .arg(work.path())
        .output()
        .expect("the driver runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "{sdk} conformance failed\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    for transport in ["stdio", "http"] {
        assert!(
            stdout.contains(&format!("{sdk} {transport}: ")),
            "no {transport} summary:\n{stdout}"
        );
    }
    assert_eq!(
        stdout.trim().lines().last(),
        Some("conformance: all checks passed"),
        "{stdout}"
    );
    println!("{stdout}");
}

#[test]
fn python_sdk_conformance_over_stdio_and_http() {
    conformance(&python(), "tests/e2e/conformance/conformance.py", "python");
}

#[test]
fn typescript_sdk_conformance_over_stdio_and_http() {
    conformance(
        &node(),
        "tests/e2e/conformance/conformance.mjs",
        "typescript",
    );
}
