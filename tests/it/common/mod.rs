//! Helpers shared by the journal-backed families' tests: a started campaign
//! and tool calls that must succeed or must fail.
#![allow(dead_code)]

pub mod browser;
pub mod clients;
pub mod forge;

use rudder::campaign::Campaign;
use rudder::config::Config;
use rudder::mcp::RudderServer;
use serde_json::Value;
use std::path::Path;

/// Waits until `done()` holds, checking every 10 ms, for at most `secs`
/// seconds (generous: CI's two cores run campaigns side by side); panics
/// naming `what` if it never does. Tests wait for the event they need, never
/// for a fixed time.
pub fn wait_until(what: &str, secs: u64, mut done: impl FnMut() -> bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    while !done() {
        assert!(
            std::time::Instant::now() < deadline,
            "gave up waiting for {what} after {secs} s"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// [`wait_until`] for async checks: runs `attempt` every 20 ms until it
/// gives a value, for at most `secs` seconds; panics naming `what` if it
/// never does.
pub async fn eventually<T, F, Fut>(what: &str, secs: u64, mut attempt: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    loop {
        if let Some(v) = attempt().await {
            return v;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "gave up waiting for {what} after {secs} s"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

pub fn start(target: &str, config: Config, dir: &Path) -> Campaign {
    let mut c = campaign(target, config, dir);
    c.start().unwrap();
    c
}

/// A campaign on `target` kept in `dir`, not started.
pub fn campaign(target: &str, config: Config, dir: &Path) -> Campaign {
    Campaign::new(Path::new(target), None, config, Some(dir.to_path_buf())).unwrap()
}

/// A server for tests that check answers, not latency: the 100 ms budget
/// is measured by the benches on a quiet machine, while these tests run
/// campaigns side by side on CI's two cores, where a scan that takes 40 ms
/// alone can take more than 100.
pub fn server(control: rudder::campaign::Control) -> RudderServer {
    RudderServer::new(control).with_budget(std::time::Duration::from_secs(10))
}

/// The structured answer of a call that must succeed.
pub async fn call(server: &RudderServer, name: &str, args: Value) -> Value {
    let Value::Object(m) = args else {
        panic!("arguments are an object")
    };
    let r = server.run_tool(name, Some(m)).await;
    let v = r.structured_content.expect("structured content");
    assert_ne!(r.is_error, Some(true), "{name}: {v}");
    v
}

/// The `error` object of a call that must fail.
pub async fn err(server: &RudderServer, name: &str, args: Value) -> Value {
    let Value::Object(m) = args.clone() else {
        panic!("arguments are an object")
    };
    let r = server.run_tool(name, Some(m)).await;
    assert_eq!(r.is_error, Some(true), "{name} {args} should fail");
    rudder::mcp::answer_json(&r)["error"].clone()
}

/// The `.json` files of `dir`, sorted (none when it does not exist).
pub fn json_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    v.sort();
    v
}

/// The JSON answer of a tool call, success or refusal alike.
pub async fn answer(server: &RudderServer, name: &str, args: Value) -> Value {
    let Value::Object(m) = args else {
        panic!("arguments are an object")
    };
    let r = server.run_tool(name, Some(m)).await;
    rudder::mcp::answer_json(&r)
}
