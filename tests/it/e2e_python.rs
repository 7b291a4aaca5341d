//! Runs tests/e2e/mcp_client.py: the official Python `mcp` client against
//! `rudder mcp` (stdio) and `rudder fuzz --mcp-http` (streamable HTTP).
//! scripts/setup-python.sh installs the client into .venv from PyPI (the
//! pinned 1.x), `--current` into .venv-current (the current 2.x, whose API
//! differs; tests/e2e/common.py bridges the two): mcp_client.py and
//! examples/steer.py run on both.

use crate::common::clients::{python, python_current, run_driver};
use std::process::Command;

#[test]
fn official_python_client_over_stdio_and_http() {
    let stdout = run_driver(&python(), "tests/e2e/mcp_client.py", &[]);
    assert!(stdout.contains("e2e: all checks passed"), "{stdout}");
}

/// The same checks with the client's current major release (mcp 2.x).
#[test]
fn current_python_client_over_stdio_and_http() {
    let stdout = run_driver(&python_current(), "tests/e2e/mcp_client.py", &[]);
    assert!(stdout.contains("e2e: all checks passed"), "{stdout}");
}

/// examples/steer.py with `interpreter`'s `mcp` client on DeepChain (one
/// seed, a case blind fuzzing misses within 1,000,000 calls, BENCHMARKS.md):
/// the policy screens candidates with `run_sequence` and the campaign
/// falsifies the property; the report is JSON on stdout.
fn steer(interpreter: &str) {
    let work = tempfile::tempdir().unwrap();
    let out = Command::new(interpreter)
        .args([
            "examples/steer.py",
            "contracts/steer/out/DeepChain.json",
            "--contract",
            "DeepChain",
            "--seed",
            "1",
            "--budget",
            "1000000",
            "--timeout",
            "120",
            "--workers",
            "1",
            "--config",
            "contracts/steer/stop-on-fail.yaml",
            "--out-dir",
        ])
        .arg(work.path())
        .env("RUDDER", env!("CARGO_BIN_EXE_rudder"))
        .output()
        .unwrap_or_else(|e| panic!("{interpreter} examples/steer.py: {e}"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "steer.py failed:\n{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("steer.py printed no JSON report ({e}):\n{stderr}"));
    let steering = &report["steering"];
    assert_eq!(steering["mode"], "steer", "{steering}");
    let screened = steering["toolCallsByName"]["run_sequence"].as_u64();
    assert!(screened.unwrap_or(0) > 0, "{steering}\n{stderr}");
    let falsified = report["tests"]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t["name"] == "echidna_not_reached" && t["status"] == "falsified");
    assert!(falsified, "{report}\n{stderr}");
}

#[test]
fn steer_py_on_the_pinned_python_client() {
    steer(&python());
}

#[test]
fn steer_py_on_the_current_python_client() {
    steer(&python_current());
}

/// tests/e2e/agent_session.py: `rudder mcp` with no limit fuzzes while the
/// client holds the session (calls rise, `fuzzing` true, `testLimit`
/// "unlimited", a `?` injection with `repeat` runs) and exits soon after the
/// client leaves; with `--test-limit` fuzzing ends at the limit
/// (`endReason` "testLimit") and the server goes on answering and injecting.
#[test]
fn an_agents_campaign_fuzzes_until_the_client_leaves() {
    let stdout = run_driver(&python(), "tests/e2e/agent_session.py", &[]);
    assert!(
        stdout.contains("agent_session: all checks passed"),
        "{stdout}"
    );
}

/// The short version of the load test (20 clients for 5 s over loopback
/// HTTP): every call answered, none failed, every client served (counted
/// per client, not as a total that an overloaded machine can miss). The
/// long mode, 100 clients for
/// 60 s, is `.venv/bin/python tests/e2e/load.py target/release/rudder /tmp/load 100 60`
/// (numbers in BENCHMARKS.md).
#[test]
fn load_many_http_clients_all_answered() {
    let stdout = run_driver(&python(), "tests/e2e/load.py", &["20", "5"]);
    let summary: serde_json::Value =
        serde_json::from_str(stdout.trim().lines().last().unwrap()).unwrap();
    assert_eq!(summary["errors"], 0, "{summary}");
    assert_eq!(summary["clients_answered"], 20, "{summary}");
    assert!(
        summary["fewest_answers"].as_u64().unwrap() >= 2,
        "{summary}"
    );
}

/// tests/e2e/shared_s3.py: three `rudder fuzz --shared s3://…` processes on
/// moto's S3 server (from PyPI, installed by scripts/setup-python.sh) on
/// loopback behind a proxy the script can cut: bad input refused before any
/// work, entries applied by the others within 2x the sync interval, a
/// finding in the bucket when a SIGKILLed node had reported it, the
/// restarted node resuming from its cursors, an injection reaching every
/// node, nothing stored under two names, fuzzing through a storage outage
/// and nothing lost.
#[test]
fn a_campaign_shared_by_three_nodes_through_s3() {
    // A 1 s sync interval here (500 ms by hand): the bound it checks is 2x
    // the interval, and CI runs the other end-to-end tests beside it.
    let stdout = run_driver(&python(), "tests/e2e/shared_s3.py", &["1000"]);
    assert!(stdout.contains("shared_s3: all checks passed"), "{stdout}");
}

/// The short version of the soak (two campaigns for 12 s, a sample every
/// 3 s): every sample taken (memory, disk by kind, calls/s, the slowest of
/// five read tools' answers), no call failed. The long mode, an hour on a
/// maze and the forge-std project with the verdicts (RSS flat over the
/// second half, answers within 100 ms), is `bash scripts/soak.sh`
/// (BENCHMARKS.md).
#[test]
fn soak_samples_memory_disk_and_answers_while_campaigns_run() {
    let stdout = run_driver(
        &python(),
        "tests/e2e/soak.py",
        &[
            "12",
            "3",
            "token=contracts/out/Token.json",
            "forge-std=contracts/matrix/forge-std-project:VaultInvariants",
        ],
    );
    for target in ["token", "forge-std"] {
        let summary: serde_json::Value = (stdout.lines())
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .find(|v| v["target"] == target)
            .unwrap_or_else(|| panic!("no summary for {target}:\n{stdout}"));
        assert_eq!(summary["errors"], 0, "{summary}");
        assert!(summary["samples"].as_u64().unwrap() >= 4, "{summary}");
        assert!(
            summary["rss_mb_at_half"].as_f64().unwrap() > 0.0,
            "{summary}"
        );
        assert!(
            summary["disk_kb_end"]["journal"].as_u64().unwrap() > 0,
            "{summary}"
        );
        assert!(summary["slowest_answer_ms"].as_f64().is_some(), "{summary}");
    }
}

/// examples/first_session.py, README's "A first steering session" as a
/// script on the current Python client (mcp 2.x): every step runs as
/// written, over stdio (the script launches `rudder mcp`) and over HTTP
/// (attached to `rudder fuzz --mcp-http --keep-alive`).
#[test]
fn the_readmes_first_steering_session_runs_as_written_over_stdio_and_http() {
    let py = python_current();
    let rudder = env!("CARGO_BIN_EXE_rudder");
    let check = |out: std::process::Output, how: &str| {
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && stdout.contains("first_session: every step ran"),
            "{how}:\n{stdout}\n{stderr}"
        );
        for needle in [
            "7. read_logs: 40 runs",
            "-> revert: reverted: \"allowance\"",
            "transfer `to` took",
        ] {
            assert!(stdout.contains(needle), "{how}: no {needle:?}:\n{stdout}");
        }
    };
    // (`timeout`: a hung client fails the test instead of CI's job.)
    let stdio = Command::new("timeout")
        .args(["300", &py, "examples/first_session.py", "--rudder", rudder])
        .output()
        .unwrap();
    check(stdio, "stdio");

    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let work = tempfile::tempdir().unwrap();
    struct Killed(std::process::Child);
    impl Drop for Killed {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let _server = Killed(
        Command::new(rudder)
            .args([
                "fuzz",
                "contracts/out/Token.json",
                "--workers",
                "2",
                "--keep-alive",
            ])
            .args([
                "--timeout",
                "300",
                "--mcp-http",
                &format!("127.0.0.1:{port}"),
            ])
            .arg("--out-dir")
            .arg(work.path())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap(),
    );
    crate::common::wait_until("rudder's HTTP port", 60, || {
        std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
    });
    let http = Command::new("timeout")
        .args(["300", &py, "examples/first_session.py", "--http"])
        .arg(format!("http://127.0.0.1:{port}/mcp"))
        .output()
        .unwrap();
    check(http, "http");
}
