//! SIGKILL at random points, resume each time: every acknowledged command and
//! every falsification reported before the kill is on disk afterwards, no file
//! is torn, and shrinking completes. Kills land at random times, right after
//! acknowledged injections, and while a reproducer is still being shrunk.
//!
//! `RUDDER_KILL_LOOPS` sets the number of kills (default 6 in the test
//! suite; `RUDDER_KILL_LOOPS=20 cargo test --release --test it kill_loop::` is the
//! long mode).

use crate::common::json_files;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

struct Rudder {
    child: Child,
    replies: Receiver<Value>,
    next_id: u64,
}

impl Rudder {
    fn start(dir: &Path, seed: u64) -> Rudder {
        let mut child = Command::new(env!("CARGO_BIN_EXE_rudder"))
            .args([
                "mcp",
                "contracts/out/SetSeven.json",
                "--workers",
                "2",
                "--seq-len",
                "100",
            ])
            .args(["--seed", &seed.to_string()])
            .arg("--out-dir")
            .arg(dir.join("out"))
            .arg("--corpus-dir")
            .arg(dir.join("corpus"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("rudder starts");
        let out = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                if let Ok(v) = serde_json::from_str::<Value>(&line)
                    && tx.send(v).is_err()
                {
                    break;
                }
            }
        });
        let mut r = Rudder {
            child,
            replies: rx,
            next_id: 1,
        };
        r.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "kill-loop", "version": "0"}}),
        )
        .expect("initialize answered");
        r.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        r
    }

    fn send(&mut self, v: Value) {
        let stdin = self.child.stdin.as_mut().unwrap();
        let _ = writeln!(stdin, "{v}");
        let _ = stdin.flush();
    }

    /// Sends a request and waits for its reply (None if the process died).
    fn request(&mut self, method: &str, params: Value) -> Option<Value> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            match self.replies.recv_timeout(Duration::from_millis(100)) {
                Ok(v) if v["id"] == id => return Some(v),
                Ok(_) => {}
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
                Err(_) => return None,
            }
        }
        None
    }

    fn inject(&mut self, call: &str) -> bool {
        self.request(
            "tools/call",
            json!({"name": "inject_transaction", "arguments": {"sequence": [call]}}),
        )
        .is_some_and(|r| r["result"]["structuredContent"]["success"] == true)
    }

    fn kill(mut self) {
        let _ = self.child.kill(); // SIGKILL
        let _ = self.child.wait();
    }
}

/// Every corpus and reproducer file parses; returns the reproducers.
fn check_not_torn(dir: &Path) -> Vec<Value> {
    for p in json_files(&dir.join("corpus/coverage")) {
        let text = std::fs::read_to_string(&p).unwrap();
        serde_json::from_str::<Value>(&text)
            .unwrap_or_else(|e| panic!("torn {}: {e}", p.display()));
    }
    json_files(&dir.join("corpus/reproducers"))
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(p).unwrap();
            serde_json::from_str::<Value>(&text)
                .unwrap_or_else(|e| panic!("torn {}: {e}", p.display()))
        })
        .collect()
}

fn logged_injections(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("corpus/mcp-commands.jsonl"))
        .map(|t| {
            t.lines()
                .filter(|l| {
                    let v: Value = serde_json::from_str(l).expect("command log lines are whole");
                    v["command"] == "inject_transaction" && v["result"]["injection"].is_number()
                })
                .count()
        })
        .unwrap_or(0)
}

#[test]
fn sigkill_at_random_points_loses_nothing_acknowledged() {
    let loops: u64 = std::env::var("RUDDER_KILL_LOOPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(6);
    let dir = tempfile::tempdir().unwrap();
    let mut acknowledged = 0usize;
    let mut falsified_before = false;
    for i in 0..loops {
        let mut r = Rudder::start(dir.path(), 100 + i);
        match i % 3 {
            // Right after acknowledged injections.
            0 => {
                for k in 0..5 {
                    if r.inject(&format!("set({k})")) {
                        acknowledged += 1;
                    }
                }
            }
            // While a reproducer is still being shrunk (or soon after).
            1 => {
                let repro = dir.path().join("corpus/reproducers/echidna_not_gone.json");
                let deadline = Instant::now() + Duration::from_secs(5);
                while Instant::now() < deadline {
                    let mid_shrink = std::fs::read_to_string(&repro)
                        .ok()
                        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
                        .is_some_and(|v| v["shrinkDone"] == false);
                    if mid_shrink {
                        break;
                    }
                    std::thread::sleep(Duration::from_micros(200));
                }
            }
            // At a random moment.
            _ => std::thread::sleep(Duration::from_millis(50 + (i * 137) % 900)),
        }
        if dir
            .path()
            .join("corpus/reproducers/echidna_not_gone.json")
            .exists()
        {
            falsified_before = true;
        }
        r.kill();
        check_not_torn(dir.path());
        assert!(
            logged_injections(dir.path()) >= acknowledged,
            "kill {i}: {acknowledged} injections acknowledged, {} on disk",
            logged_injections(dir.path())
        );
        if falsified_before {
            assert!(
                dir.path()
                    .join("corpus/reproducers/echidna_not_gone.json")
                    .exists(),
                "kill {i}: a falsification reported before the kill is gone"
            );
        }
    }
    // A last run to completion: shrinking finishes from whatever was saved.
    let mut r = Rudder::start(dir.path(), 999);
    assert!(r.inject("set(7)"));
    assert!(r.inject("go()"));
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let repros = check_not_torn(dir.path());
        if repros.iter().any(|v| {
            v["shrinkDone"] == true && v["shrunk"].as_array().is_some_and(|s| s.len() == 2)
        }) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "shrinking never completed: {repros:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    r.kill();
}
