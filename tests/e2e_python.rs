//! Runs tests/e2e/mcp_client.py: the official Python `mcp` client against
//! `rudder mcp` (stdio) and `rudder fuzz --mcp-http` (streamable HTTP).
//! scripts/setup-python.sh installs the client into .venv from PyPI.

use std::process::Command;

/// The Python interpreter of `.venv`, after scripts/setup-python.sh has
/// installed the official `mcp` client into it (once per test binary: two
/// tests creating the venv at once on a fresh clone would race).
fn python() -> String {
    static PYTHON: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    PYTHON.get_or_init(setup_python).clone()
}

fn setup_python() -> String {
    let setup = Command::new("bash")
        .arg("scripts/setup-python.sh")
        .output()
        .expect("bash");
    assert!(
        setup.status.success(),
        "scripts/setup-python.sh failed (it installs the `mcp` package from PyPI):\n{}",
        String::from_utf8_lossy(&setup.stderr)
    );
    String::from_utf8_lossy(&setup.stdout)
        .trim()
        .lines()
        .last()
        .unwrap()
        .to_string()
}

#[test]
fn official_python_client_over_stdio_and_http() {
    let python = python();
    let work = tempfile::tempdir().unwrap();
    let out = Command::new(python)
        .arg("tests/e2e/mcp_client.py")
        .arg(env!("CARGO_BIN_EXE_rudder"))
        .arg(work.path())
        .output()
        .expect("python runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "e2e failed\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    assert!(stdout.contains("e2e: all checks passed"), "{stdout}");
}

/// tests/e2e/agent_session.py: `rudder mcp` with no limit fuzzes while the
/// client holds the session (calls rise, `fuzzing` true, `testLimit`
/// "unlimited", a `?` injection with `repeat` runs) and exits soon after the
/// client leaves; with `--test-limit` fuzzing ends at the limit
/// (`endReason` "testLimit") and the server goes on answering and injecting.
#[test]
fn an_agents_campaign_fuzzes_until_the_client_leaves() {
    let python = python();
    let work = tempfile::tempdir().unwrap();
    let out = Command::new(python)
        .arg("tests/e2e/agent_session.py")
        .arg(env!("CARGO_BIN_EXE_rudder"))
        .arg(work.path())
        .output()
        .expect("python runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "agent session failed\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    println!("{stdout}");
    assert!(
        stdout.contains("agent_session: all checks passed"),
        "{stdout}"
    );
}

/// The short version of the load test (20 clients for 5 s over loopback
/// HTTP): every call answered, none failed. The long mode, 100 clients for
/// 60 s, is `.venv/bin/python tests/e2e/load.py target/release/rudder /tmp/load 100 60`
/// (numbers in BENCHMARKS.md).
#[test]
fn load_many_http_clients_all_answered() {
    let python = python();
    let work = tempfile::tempdir().unwrap();
    let out = Command::new(python)
        .arg("tests/e2e/load.py")
        .arg(env!("CARGO_BIN_EXE_rudder"))
        .arg(work.path())
        .args(["20", "5"])
        .output()
        .expect("python runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "load failed\nstdout:\n{stdout}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    println!("{stdout}");
    let summary: serde_json::Value =
        serde_json::from_str(stdout.trim().lines().last().unwrap()).unwrap();
    assert_eq!(summary["errors"], 0, "{summary}");
    assert!(summary["tool_calls"].as_u64().unwrap() > 100, "{summary}");
}
