//! The family seam and the answers a client can trust: advertised defaults
//! that follow the campaign's configuration, family selection, integers past
//! 2^53 as strings, and no placeholder fields in falsification events.

use crate::common::{self, answer};
use rudder::campaign::Campaign;
use rudder::config::{Config, TestMode};
use rudder::eventlog::EventKind;
use rudder::mcp::{FamilyName, RudderServer};
use serde_json::{Value, json};
use std::path::Path;
use std::time::{Duration, Instant};

fn start(target: &str, contract: Option<&str>, config: Config, dir: &Path) -> Campaign {
    let mut c =
        Campaign::new(Path::new(target), contract, config, Some(dir.to_path_buf())).unwrap();
    c.start().unwrap();
    c
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_advertised_sender_default_is_the_configured_sender() {
    let dir = tempfile::tempdir().unwrap();
    let sender = "0x00000000000000000000000000000000000A11cE"
        .parse()
        .unwrap();
    let c = start(
        "contracts/out/SetSeven.json",
        None,
        Config {
            workers: Some(1),
            seed: Some(1),
            test_limit: 100,
            senders: vec![sender],
            ..Config::default()
        },
        dir.path(),
    );
    let server = RudderServer::new(c.control());
    let tools = server.tool_list();
    let inject = tools
        .iter()
        .find(|t| t.name == "inject_transaction")
        .unwrap();
    assert_eq!(
        inject.input_schema["properties"]["sender"]["default"],
        json!(format!("{sender:#x}")),
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_serves_the_selected_families_only() {
    let dir = tempfile::tempdir().unwrap();
    let c = start(
        "contracts/out/SetSeven.json",
        None,
        Config {
            workers: Some(1),
            seed: Some(1),
            test_limit: 100,
            ..Config::default()
        },
        dir.path(),
    );
    let campaign_only = RudderServer::with_families(c.control(), &[FamilyName("campaign")]);
    assert_eq!(campaign_only.families(), [FamilyName("campaign")]);
    assert_eq!(campaign_only.tool_list().len(), 18);
    let none = RudderServer::with_families(c.control(), &[FamilyName("events")]);
    assert!(none.tool_list().iter().all(|t| t.name != "read_logs"));
    let v = answer(&none, "read_logs", json!({})).await;
    assert_eq!(v["error"]["code"], "TOOL_NOT_FOUND", "{v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn integers_past_two_to_the_53_travel_as_strings() {
    let dir = tempfile::tempdir().unwrap();
    let seed: u64 = 1_795_435_886_890_533_145;
    let c = start(
        "contracts/out/SetSeven.json",
        None,
        Config {
            workers: Some(1),
            seed: Some(seed),
            // u64::MAX itself reads "unlimited" (a campaign that runs until
            // stopped); one less is a limit past 2^53.
            test_limit: u64::MAX - 1,
            timeout: Some(std::time::Duration::from_secs(60)),
            ..Config::default()
        },
        dir.path(),
    );
    let server = RudderServer::new(c.control());
    let st = answer(&server, "status", json!({})).await;
    assert_eq!(st["config"]["seed"], json!(seed.to_string()), "{st}");
    assert_eq!(
        st["config"]["testLimit"],
        json!((u64::MAX - 1).to_string()),
        "{st}"
    );
    // The worker thread may not have logged its start yet on a loaded
    // machine: wait for it instead of racing it.
    let server = &server;
    let started = common::eventually("WorkerStarted", 10, || async move {
        let started = answer(
            server,
            "read_logs",
            json!({"eventType": "WorkerStarted", "count": 10}),
        )
        .await;
        (started["totalCount"].as_u64().unwrap_or(0) > 0).then_some(started)
    })
    .await;
    let data = &started["events"][0]["data"];
    assert_eq!(data["seed"], json!(seed.to_string()), "{started}");
    c.stop();
}

#[test]
fn falsification_events_carry_real_gas_and_say_who_found_them() {
    // A worker finds it: the event names that worker and the gas the
    // falsifying sequence used.
    let dir = tempfile::tempdir().unwrap();
    let c = start(
        "contracts/out/SetSeven.json",
        None,
        Config {
            workers: Some(2),
            seed: Some(1),
            test_limit: 200_000,
            ..Config::default()
        },
        dir.path(),
    );
    let deadline = Instant::now() + Duration::from_secs(60);
    while c.events_of(EventKind::PropertyFalsified).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let engine = c.read();
    let e = c.events_of(EventKind::PropertyFalsified)[0];
    let data = engine.renderer().data(&e);
    assert!(e.worker.0 < 2, "found by a worker: {e:?}");
    assert_eq!(data["foundBy"], "worker", "{data}");
    assert!(data["gasUsed"].as_u64().unwrap() > 21_000, "{data}");
    drop(c.wait());

    // The campaign finds it right after deployment: the event says so, under
    // the campaign's own id (one past the last worker).
    let dir = tempfile::tempdir().unwrap();
    let c = start(
        "contracts/matrix/out/Harness.json",
        Some("OnlyProperties"),
        Config {
            workers: Some(2),
            seed: Some(1),
            test_limit: 1000,
            test_mode: TestMode::Property,
            ..Config::default()
        },
        dir.path(),
    );
    let engine = c.read();
    let e = c.events_of(EventKind::PropertyFalsified)[0];
    assert_eq!(e.worker, engine.campaign_worker_id());
    assert_eq!(engine.renderer().data(&e)["foundBy"], "deployment");
    let report = c.wait();
    // The journal, rendered by the writer thread, holds the same event.
    let journal = std::fs::read_to_string(&report.journal).unwrap();
    let line = journal
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|v| v["eventType"] == "PropertyFalsified")
        .expect("journal has the falsification");
    assert_eq!(line["data"]["foundBy"], "deployment", "{line}");
    assert_eq!(line["workerId"], json!(2), "{line}");
}

#[test]
fn the_workers_together_run_exactly_the_test_limit() {
    let dir = tempfile::tempdir().unwrap();
    let c = start(
        "contracts/out/AlwaysHolds.json",
        None,
        Config {
            workers: Some(2),
            seed: Some(3),
            test_limit: 10_007,
            ..Config::default()
        },
        dir.path(),
    );
    let engine = c.read();
    let report = c.wait();
    assert_eq!(report.calls, 10_007);
    assert_eq!(engine.stats().calls(), 10_007);
    let per_function: u64 = engine
        .stats()
        .function_totals()
        .iter()
        .map(|f| f.calls)
        .sum();
    assert_eq!(per_function, 10_007);
}

/// A family defined outside the crate: one module and one registry line
/// (`RudderServer::with_extra`). The server lists its tool, validates its
/// input from the typed parameters, keeps it to the budget and shapes its
/// answers by the conventions it declares, as for the built-in families.
mod tiny {
    use rudder::campaign::Control;
    use rudder::mcp::{
        Access, Conventions, Family, FamilyName, Gate, ToolAnswer, ToolDef, ToolError,
    };
    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};

    /// Counts corpus entries.
    #[derive(Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    pub struct SizeParams {
        /// Count at most this many
        #[schemars(range(min = 1, max = 100))]
        pub at_most: u64,
        /// Work this long first (milliseconds)
        #[serde(default)]
        pub work_ms: u64,
    }

    #[derive(Serialize, JsonSchema)]
    pub struct SizeAnswer {
        pub entries: u64,
    }

    #[derive(Clone)]
    pub struct Tiny {
        control: Control,
    }

    impl Family for Tiny {
        fn name(&self) -> FamilyName {
            FamilyName("tiny")
        }

        fn tools(&self) -> Vec<ToolDef> {
            vec![ToolDef::method::<SizeParams, SizeAnswer, _>(
                "tiny_corpus_size",
                "Corpus entries, counted up to at_most.",
                Access::Blocking,
                self,
                Self::size,
            )]
        }

        fn conventions(&self) -> Conventions {
            Conventions {
                metadata: Some("tiny"),
                error_envelope: false,
            }
        }
    }

    impl Tiny {
        pub fn new(control: Control) -> Self {
            Tiny { control }
        }

        fn size(&self, p: SizeParams, _: &Gate) -> Result<ToolAnswer, ToolError> {
            std::thread::sleep(std::time::Duration::from_millis(p.work_ms));
            let entries = (self.control.read().corpus().len() as u64).min(p.at_most);
            ToolAnswer::json(&SizeAnswer { entries })
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_family_defined_outside_the_crate_is_served_like_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let c = start(
        "contracts/out/SetSeven.json",
        None,
        Config {
            workers: Some(1),
            seed: Some(1),
            test_limit: 2_000,
            ..Config::default()
        },
        dir.path(),
    );
    let server = RudderServer::with_extra(
        c.control(),
        &[FamilyName("campaign")],
        vec![Box::new(tiny::Tiny::new(c.control()))],
    );
    let tools = server.tool_list();
    let tiny = tools.iter().find(|t| t.name == "tiny_corpus_size").unwrap();
    assert_eq!(
        tiny.input_schema["properties"]["at_most"]["maximum"],
        json!(100)
    );
    assert!(server.families().contains(&FamilyName("tiny")));

    let ok = answer(&server, "tiny_corpus_size", json!({ "at_most": 100 })).await;
    assert!(ok["entries"].as_u64().is_some(), "{ok}");
    assert_eq!(ok["_metadata"]["source"], "tiny", "{ok}");

    let bad = answer(&server, "tiny_corpus_size", json!({ "at_most": 0 })).await;
    assert_eq!(bad["error"]["code"], "INVALID_INPUT", "{bad}");
    assert_eq!(bad["error"]["details"]["field"], "at_most", "{bad}");

    let slow = answer(
        &server,
        "tiny_corpus_size",
        json!({ "at_most": 1, "work_ms": 400 }),
    )
    .await;
    assert_eq!(slow["error"]["code"], "EXECUTION_TIMEOUT", "{slow}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_target_names_parameters_and_the_block_sequences_start_from() {
    let dir = tempfile::tempdir().unwrap();
    let c = start(
        "contracts/out/SetSeven.json",
        None,
        Config {
            workers: Some(1),
            seed: Some(1),
            test_limit: 100,
            max_time_delay: 3_600,
            ..Config::default()
        },
        dir.path(),
    );
    let server = RudderServer::new(c.control());
    let t = answer(&server, "target", json!({})).await;
    let set = t["functions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["signature"] == "set(uint256)")
        .unwrap();
    assert_eq!(
        set["inputs"],
        json!([{ "name": "v", "type": "uint256" }]),
        "{t}"
    );
    let prop = t["functions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["signature"] == "echidna_not_gone()")
        .unwrap();
    assert_eq!(prop["outputs"][0]["type"], "bool", "{t}");
    // Echidna's initial block, which this constructor does not move.
    assert_eq!(t["block"]["timestamp"], 1_524_785_992, "{t}");
    assert_eq!(t["block"]["number"], 4_370_000, "{t}");
    assert_eq!(t["block"]["maxTimeDelay"], 3_600, "{t}");
}
