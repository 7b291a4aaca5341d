//! Every tool's first call on a fresh campaign: a new campaign (Token, its
//! workers busy on every core) and a new server per tool, the tool called
//! once after the campaign has run for `WARMUP`, then a second time.
//! Arguments are the conformance suite's valid calls
//! (tests/e2e/conformance/tools.json), so every served tool is measured and
//! a new tool joins by being listed there. Run: `cargo bench --bench
//! first_calls` (`RUDDER_BENCH_QUICK=1`: one round).

mod common;

use rudder::mcp::RudderServer;
use serde_json::Value;
use std::time::{Duration, Instant};

/// How long the campaign runs before the first call (a client connects).
const WARMUP: Duration = Duration::from_millis(300);

/// The call's arguments with the conformance placeholders resolved against
/// this campaign (`$first:TOOL:/ptr` by calling TOOL first: the measured
/// call is then not the session's first; reported as such).
fn resolve(
    v: &Value,
    rt: &tokio::runtime::Runtime,
    server: &RudderServer,
    run_id: &str,
    warmed: &mut Option<String>,
) -> Value {
    match v {
        Value::String(s) if s == "$cwd" => Value::String(
            std::env::current_dir()
                .unwrap()
                .to_string_lossy()
                .into_owned(),
        ),
        Value::String(s) if s == "$first:status:/runId" => Value::String(run_id.to_string()),
        Value::String(s) if s.starts_with("$first:") => {
            let mut parts = s.splitn(3, ':').skip(1);
            let (tool, pointer) = (parts.next().unwrap(), parts.next().unwrap());
            *warmed = Some(tool.to_string());
            let deadline = Instant::now() + Duration::from_secs(10);
            loop {
                let r = rt.block_on(server.run_tool(tool, Some(Default::default())));
                if let Some(found) = r
                    .structured_content
                    .as_ref()
                    .and_then(|s| s.pointer(pointer))
                {
                    break found.clone();
                }
                assert!(Instant::now() < deadline, "{tool} never answered {pointer}");
                std::thread::sleep(Duration::from_millis(100));
            }
        }
        Value::Array(a) => Value::Array(
            a.iter()
                .map(|x| resolve(x, rt, server, run_id, warmed))
                .collect(),
        ),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| (k.clone(), resolve(x, rt, server, run_id, warmed)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn main() {
    let quick = common::quick();
    let rt = common::runtime(1);
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    let listing: Value =
        serde_json::from_str(&std::fs::read_to_string("tests/e2e/conformance/tools.json").unwrap())
            .unwrap();
    let rounds = if quick { 1 } else { 3 };
    println!(
        "Every tool's first call on a fresh campaign (Token, {workers} workers busy at normal \
         priority, {} ms in), worst of {rounds} fresh campaigns:\n",
        WARMUP.as_millis()
    );
    println!("| family | tool | first call | second call | note |");
    println!("|---|---|---|---|---|");
    let mut over = Vec::new();
    for (family, f) in listing["families"].as_object().unwrap() {
        for (tool, entry) in f["tools"].as_object().unwrap() {
            let (mut first, mut second) = (0u64, 0u64);
            let mut note = String::new();
            for _ in 0..rounds {
                let (_dir, c) = common::busy_campaign_with(
                    "Token",
                    workers,
                    rudder::config::WorkerPriority::Normal,
                );
                let server = RudderServer::new(c.control());
                std::thread::sleep(WARMUP);
                let mut warmed = None;
                let args = resolve(
                    &entry["valid"],
                    &rt,
                    &server,
                    c.read().run_id(),
                    &mut warmed,
                );
                if let Some(t) = warmed {
                    note = format!("after {t} (for its arguments)");
                }
                for (k, slot) in [&mut first, &mut second].into_iter().enumerate() {
                    let t0 = Instant::now();
                    let r = rt.block_on(server.run_tool(tool, args.as_object().cloned()));
                    let ns = t0.elapsed().as_nanos() as u64;
                    *slot = (*slot).max(ns);
                    if k == 0 && r.is_error == Some(true) {
                        note = format!("error: {:?}", r.content);
                    }
                }
                c.stop();
                let _ = c.wait();
            }
            if first > 100_000_000 {
                over.push(tool.clone());
            }
            println!(
                "| {family} | {tool} | {} | {} | {note} |",
                common::fmt_ns(first),
                common::fmt_ns(second)
            );
        }
    }
    println!(
        "\nFirst calls over the 100 ms budget: {}",
        if over.is_empty() {
            "none".to_string()
        } else {
            over.join(", ")
        }
    );
}
