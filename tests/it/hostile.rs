//! Hostile and unlucky input, reproduced as tests (issue: nothing takes the
//! campaign down, nothing acknowledged is lost): the parser's stack, JSON-RPC
//! that rmcp would drop silently, numbers and addresses that must not be
//! rounded or accepted, injection floods, durable command logs, a worker that
//! panics, a run killed while shrinking, an unwritable corpus directory.

use crate::common;

use rudder::campaign::{Campaign, ControlError};
use rudder::config::{Config, TestMode};
use rudder::eventlog::EventKind;
use rudder::mcp::RudderServer;
use serde_json::{Value, json};
use std::path::Path;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

fn config(workers: usize) -> Config {
    Config {
        workers: Some(workers),
        seed: Some(3),
        test_limit: u64::MAX,
        timeout: Some(std::time::Duration::from_secs(120)),
        keep_alive: true,
        ..Config::default()
    }
}

fn campaign(name: &str, config: Config, dir: &Path) -> Campaign {
    Campaign::new(
        Path::new(&format!("contracts/out/{name}.json")),
        None,
        config,
        Some(dir.to_path_buf()),
    )
    .unwrap()
}

async fn tool(server: &RudderServer, name: &str, args: Value) -> Value {
    let Value::Object(m) = args else { panic!() };
    let r = server.run_tool(name, Some(m)).await;
    let mut v = rudder::mcp::answer_json(&r);
    assert!(v.is_object(), "{name}: no JSON answer");
    v["isError"] = json!(r.is_error == Some(true));
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deep_nesting_in_an_injection_is_invalid_input_not_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let c = campaign("Token", config(1), dir.path());
    let server = RudderServer::new(c.control());
    for item in [
        format!("transfer({}", "[".repeat(3000)),
        format!("transfer({}", "(".repeat(3000)),
        format!("transfer({}1{})", "uint8(".repeat(2000), ")".repeat(2000)),
        "poke(1e99999999999999999999)".to_string(),
    ] {
        let v = tool(&server, "inject_transaction", json!({ "sequence": [item] })).await;
        assert_eq!(v["error"]["code"], "INVALID_INPUT", "{v}");
    }
    assert_eq!(c.read().corpus().len(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn addresses_must_carry_a_valid_checksum_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let c = campaign("Token", config(1), dir.path());
    let server = RudderServer::new(c.control());
    // One letter's case flipped in a valid checksum address.
    let bad = "0x00A329C0648769a73afAc7F9381E08FB43dBEA72";
    for (name, args) in [
        (
            "inject_transaction",
            json!({ "sequence": ["totalSupply()"], "sender": bad }),
        ),
        ("find_transaction_in_corpus", json!({ "sender": bad })),
    ] {
        let v = tool(&server, name, args).await;
        assert_eq!(v["error"]["code"], "INVALID_INPUT", "{name}: {v}");
        assert!(
            v["error"]["message"].as_str().unwrap().contains("checksum"),
            "{v}"
        );
    }
    let good = "0x00a329c0648769A73afAc7F9381E08FB43dBEA72";
    let v = tool(
        &server,
        "find_transaction_in_corpus",
        json!({ "sender": good }),
    )
    .await;
    assert_eq!(v["isError"], false, "{v}");
}

/// Reads JSON-RPC lines the stdio transport writes until `n` have arrived.
async fn read_replies(
    lines: &mut tokio::io::Lines<BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
    n: usize,
) -> Vec<Value> {
    let mut out = Vec::new();
    while out.len() < n {
        let line = tokio::time::timeout(Duration::from_secs(10), lines.next_line())
            .await
            .expect("a reply within 10 s")
            .unwrap()
            .expect("the transport is open");
        out.push(serde_json::from_str(&line).unwrap());
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_json_rpc_on_stdio_gets_an_error_reply_with_its_id() {
    let dir = tempfile::tempdir().unwrap();
    let c = campaign("Token", config(1), dir.path());
    let server = RudderServer::new(c.control());
    let (client, server_end) = tokio::io::duplex(1 << 20);
    let (sr, sw) = tokio::io::split(server_end);
    tokio::spawn(rudder::mcp::transport::serve_lines(server, sr, sw));
    let (cr, mut cw) = tokio::io::split(client);
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"read_logs","arguments":{{"count":{}1{}}}}}}}"#,
        "[".repeat(200),
        "]".repeat(200)
    );
    let huge = format!(
        r#"{{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{{"name":"read_logs","arguments":{{"count":{}}}}}}}"#,
        "9".repeat(1000)
    );
    let msgs = [
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_logs","arguments":{"count":NaN}}}"#.to_string(),
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_logs","arguments":{"count":Infinity}}}"#.to_string(),
        deep,
        huge,
    ];
    for m in &msgs {
        cw.write_all(m.as_bytes()).await.unwrap();
        cw.write_all(b"\n").await.unwrap();
    }
    cw.flush().await.unwrap();
    let mut lines = BufReader::new(cr).lines();
    let replies = read_replies(&mut lines, msgs.len()).await;
    let ids: Vec<Value> = replies.iter().map(|r| r["id"].clone()).collect();
    assert_eq!(
        ids,
        vec![json!(1), json!(2), json!(3), json!("big")],
        "{replies:?}"
    );
    for r in &replies {
        assert_eq!(r["error"]["code"], -32700, "{r}");
    }
}

#[test]
fn an_injection_flood_is_refused_with_backpressure_and_nothing_is_queued() {
    let dir = tempfile::tempdir().unwrap();
    // Not started: nobody drains the queues.
    let c = campaign("Token", config(2), dir.path());
    let control = c.control();
    let txs = control
        .parse_calls(&["totalSupply()".into()], None, Default::default())
        .unwrap();
    let mut accepted = 0;
    let err = loop {
        match control.inject(txs.clone()) {
            Ok(_) => accepted += 1,
            Err(e) => break e,
        }
        assert!(accepted <= 1000, "no backpressure");
    };
    assert_eq!(accepted, rudder::campaign::control::MAX_QUEUED_INJECTIONS);
    assert!(matches!(err, ControlError::Busy { .. }), "{err}");
    // The refused injection was not logged as applied.
    let log = std::fs::read_to_string(dir.path().join("corpus/mcp-commands.jsonl")).unwrap();
    assert_eq!(
        log.lines().filter(|l| l.contains("\"injection\"")).count(),
        accepted
    );
}

#[test]
fn an_acknowledged_command_is_on_disk_when_the_call_returns() {
    let dir = tempfile::tempdir().unwrap();
    let c = campaign("Token", config(1), dir.path());
    let control = c.control();
    let txs = control
        .parse_calls(&["totalSupply()".into()], None, Default::default())
        .unwrap();
    for i in 1..=20 {
        control.inject(txs.clone()).unwrap();
        // No flush: the file already holds every acknowledged command.
        let log = std::fs::read_to_string(dir.path().join("corpus/mcp-commands.jsonl")).unwrap();
        assert_eq!(log.lines().count(), i);
    }
}

#[test]
fn a_panicking_worker_is_reported_and_restarted_while_the_others_go_on() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = campaign("Token", config(2), dir.path());
    c.start().unwrap();
    let calls = |c: &Campaign| {
        c.read().stats().workers[0]
            .calls
            .load(std::sync::atomic::Ordering::Relaxed)
    };
    common::wait_until("worker 0 to run", 30, || calls(&c) > 0);
    c.inject_worker_panic(0);
    common::wait_until("a WorkerPanicked event", 20, || {
        !c.events_of(EventKind::WorkerPanicked).is_empty()
    });
    let before = calls(&c);
    common::wait_until("worker 0, restarted, to call again", 30, || {
        calls(&c) > before
    });
    assert!(c.events_of(EventKind::WorkerStopped).is_empty());
    c.stop();
    c.wait();
}

#[test]
fn a_run_killed_while_shrinking_finishes_shrinking_on_resume() {
    let dir = tempfile::tempdir().unwrap();
    // First run: falsify without shrinking (as if killed before it finished).
    let first = Config {
        workers: Some(1),
        seed: Some(1),
        test_limit: 200_000,
        shrink_limit: 0,
        keep_alive: false,
        timeout: Some(std::time::Duration::from_secs(60)),
        ..Config::default()
    };
    let r = campaign("SetSeven", first, dir.path());
    let mut r = r;
    r.start().unwrap();
    let report = r.wait();
    let long = report.tests[0].sequence.len();
    let file = dir.path().join("corpus/reproducers/echidna_not_gone.json");
    let mut stored: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    stored["shrinkDone"] = json!(false);
    stored["shrunk"] = json!([]);
    std::fs::write(&file, stored.to_string()).unwrap();
    assert!(long > 2, "the unshrunk sequence should be long, got {long}");
    // Resume: shrinking completes, the file says so, no calls are needed.
    let second = Config {
        workers: Some(1),
        seed: Some(2),
        test_limit: 1000,
        keep_alive: false,
        ..Config::default()
    };
    let mut c = campaign("SetSeven", second, dir.path());
    c.start().unwrap();
    let report = c.wait();
    assert_eq!(report.tests[0].status, "falsified");
    assert_eq!(
        report.tests[0].sequence,
        ["set(7)", "go()"],
        "{}",
        report.text()
    );
    let stored: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(stored["shrinkDone"], true);
    assert_eq!(stored["shrunk"].as_array().unwrap().len(), 2);
}

#[test]
fn an_unwritable_corpus_directory_is_an_error_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, b"x").unwrap();
    let cfg = Config {
        corpus_dir: Some(file.join("corpus")),
        workers: Some(1),
        ..Config::default()
    };
    let err = Campaign::new(
        Path::new("contracts/out/Token.json"),
        None,
        cfg,
        Some(dir.path().join("out")),
    )
    .err()
    .expect("refused");
    assert!(err.to_string().contains("corpus"), "{err}");
}

#[test]
fn absurd_limits_are_refused_naming_the_key() {
    for (cfg, key) in [
        (
            Config {
                seq_len: 1_000_000_000,
                ..Config::default()
            },
            "seqLen",
        ),
        (
            Config {
                workers: Some(10_000),
                ..Config::default()
            },
            "workers",
        ),
        (
            Config {
                workers: Some(0),
                ..Config::default()
            },
            "workers",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let err = Campaign::new(
            Path::new("contracts/out/Token.json"),
            None,
            cfg,
            Some(dir.path().into()),
        )
        .err()
        .expect("refused");
        assert!(err.to_string().contains(key), "{err}");
    }
    let _ = TestMode::Property;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn root_level_schema_errors_name_the_properties() {
    let dir = tempfile::tempdir().unwrap();
    let c = campaign("Token", config(1), dir.path());
    let server = RudderServer::new(c.control());
    let v = tool(&server, "read_logs", json!({ "bogusField": 1 })).await;
    assert_eq!(v["error"]["details"]["field"], "bogusField", "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("bogusField: not a parameter of read_logs"),
        "{v}"
    );
    let v = tool(&server, "find_transaction_in_corpus", json!({})).await;
    let m = v["error"]["message"].as_str().unwrap();
    assert!(
        m.contains("functionSignature") && m.contains("sender") && m.contains("minValue"),
        "{v}"
    );
    assert!(!m.contains("anyOf"), "{v}");
}

/// One raw HTTP/1.1 POST to `/mcp`; returns the status code and the body
/// read within two seconds.
fn post(port: u16, body: &[u8], session: Option<&str>) -> (u16, String) {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    if let Some(id) = session {
        head.push_str(&format!("Mcp-Session-Id: {id}\r\n"));
    }
    head.push_str("\r\n");
    s.write_all(head.as_bytes()).unwrap();
    let _ = s.write_all(body);
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    while let Ok(n) = s.read(&mut chunk) {
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let text = String::from_utf8_lossy(&buf).into_owned();
    let code = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (code, text)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_bodies_and_sessions_are_bounded_and_answered() {
    let dir = tempfile::tempdir().unwrap();
    let c = campaign("Token", config(1), dir.path());
    let server = RudderServer::new(c.control());
    let mut opts = rudder::mcp::transport::HttpOptions::loopback("127.0.0.1:0".parse().unwrap());
    opts.max_sessions = 2;
    let (bound, _task) = rudder::mcp::transport::serve_http(server, opts)
        .await
        .unwrap();
    let port = bound.port();
    tokio::task::spawn_blocking(move || {
        // Not JSON: a JSON-RPC parse error with the request's id.
        let (code, text) = post(port, br#"{"jsonrpc":"2.0","id":5,"method":"ping","x":NaN}"#, None);
        assert_eq!(code, 400, "{text}");
        assert!(text.contains("-32700") && text.contains("\"id\":5"), "{text}");
        // Over the size limit: refused without being buffered whole.
        let big = vec![b' '; rudder::mcp::screen::MAX_MESSAGE_BYTES + 10];
        let (code, text) = post(port, &big, None);
        assert_eq!(code, 413, "{}", &text[..text.len().min(300)]);
        // Sessions: two may open, the third is refused with 503.
        let init = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#;
        for i in 0..2 {
            let (code, text) = post(port, init, None);
            assert_eq!(code, 200, "session {i}: {text}");
        }
        let (code, text) = post(port, init, None);
        assert_eq!(code, 503, "{text}");
        assert!(text.contains("sessions"), "{text}");
    })
    .await
    .unwrap();
}
