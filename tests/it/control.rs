//! The control path on live campaigns: injection to every worker, the
//! priority set's share of generated calls, the command log and its replay.

use crate::common;

use rudder::campaign::Campaign;
use rudder::config::{Config, TestMode};
use rudder::eventlog::{EventKind, Payload};
use std::path::Path;
use std::time::{Duration, Instant};

fn campaign(name: &str, workers: usize, dir: &Path) -> Campaign {
    let config = Config {
        test_mode: TestMode::Property,
        workers: Some(workers),
        seed: Some(1),
        test_limit: u64::MAX,
        timeout: Some(std::time::Duration::from_secs(120)),
        ..Config::default()
    };
    let mut c = Campaign::new(
        Path::new(&format!("contracts/out/{name}.json")),
        None,
        config,
        Some(dir.to_path_buf()),
    )
    .unwrap();
    c.start().unwrap();
    c
}

/// The calls workers ran for injection `id`, as the journal printed them.
fn injected_calls(j: &rudder::journal::Journal, id: u64) -> Vec<String> {
    j.flush();
    let r = j.reader().unwrap();
    let mut stmt = r
        .conn()
        .prepare(
            "SELECT json_extract(properties, '$.call') FROM events
             WHERE injection = ?1 AND kind = 'CallExecuted' ORDER BY id",
        )
        .unwrap();
    stmt.query_map([id as i64], |row| row.get::<_, String>(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

const KEY: &str = "0x6c6f6f6b206f757420666f7220746865206d616769632076616c756521212121";

#[test]
fn an_injected_call_breaks_a_property_random_fuzzing_cannot() {
    let dir = tempfile::tempdir().unwrap();
    let c = campaign("MagicHash", 2, dir.path());
    // Let the workers get busy on long random sequences first.
    let calls = || {
        c.read()
            .stats()
            .workers
            .iter()
            .map(|w| w.calls.load(std::sync::atomic::Ordering::Relaxed))
            .sum::<u64>()
    };
    common::wait_until("the workers to run 2,000 calls", 30, || calls() >= 2_000);
    assert_eq!(c.read().tests().falsified_count(), 0);
    let t0 = Instant::now();
    let receipt = c
        .control()
        .inject_calls(&[format!("unlock({KEY})")], None, Default::default())
        .unwrap();
    assert_eq!((receipt.calls, receipt.workers), (1, 2));
    let deadline = Instant::now() + Duration::from_secs(10);
    let executed_by = |c: &Campaign| {
        let mut w: Vec<u32> = c
            .events_of(EventKind::InjectionExecuted)
            .iter()
            .filter(|e| matches!(e.payload, Payload::InjectionExecuted { injection, .. } if injection == receipt.id))
            .map(|e| e.worker.0)
            .collect();
        w.sort();
        w
    };
    while executed_by(&c) != [0, 1] && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    let elapsed = t0.elapsed();
    assert_eq!(
        executed_by(&c),
        [0, 1],
        "every worker executes the injection"
    );
    assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
    let r = c.wait();
    let t = &r.tests[0];
    assert_eq!(t.status, "falsified");
    let key = alloy_primitives::U256::from_str_radix(&KEY[2..], 16).unwrap();
    assert_eq!(t.sequence, [format!("unlock({key})")]);
    // The injection added coverage, so it is in the corpus, findable by signature.
    let found = c_find(dir.path());
    assert!(found, "the injected sequence is in the corpus directory");
    let log = std::fs::read_to_string(dir.path().join("corpus/mcp-commands.jsonl")).unwrap();
    let line: serde_json::Value = serde_json::from_str(log.lines().next().unwrap()).unwrap();
    assert_eq!(line["command"], "inject_transaction");
    assert!(line["timestamp"].as_str().unwrap().ends_with('Z'));
}

fn c_find(dir: &Path) -> bool {
    std::fs::read_dir(dir.join("corpus/coverage"))
        .unwrap()
        .filter_map(|e| e.ok())
        .any(|e| {
            std::fs::read_to_string(e.path())
                .unwrap()
                .contains("unlock(uint256)")
        })
}

#[test]
fn a_prioritized_function_gets_ninety_percent_of_generated_calls() {
    let dir = tempfile::tempdir().unwrap();
    let c = campaign("Token", 1, dir.path());
    let s = c.read();
    let idx = s
        .callable()
        .iter()
        .position(|f| f.function.signature() == "transfer(address,uint256)")
        .unwrap();
    let n = s.callable().len() as f64;
    c.control()
        .prioritize("transfer(address,uint256)", 1)
        .unwrap();
    let snapshot = |s: &rudder::campaign::CampaignRead| -> Vec<u64> {
        s.stats()
            .function_totals()
            .iter()
            .map(|f| f.generated)
            .collect()
    };
    // Let calls generated before the swap drain (a worker takes the new
    // set at its next sequence), then measure.
    let swapped: u64 = snapshot(&s).iter().sum();
    common::wait_until("2,000 calls generated after the swap", 30, || {
        snapshot(&s).iter().sum::<u64>() >= swapped + 2_000
    });
    let before = snapshot(&s);
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut after = snapshot(&s);
    while after.iter().sum::<u64>() - before.iter().sum::<u64>() < 20_000
        && Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(10));
        after = snapshot(&s);
    }
    let total: u64 = after.iter().zip(&before).map(|(a, b)| a - b).sum();
    assert!(total >= 1_000, "only {total} generated calls");
    let share = (after[idx] - before[idx]) as f64 / total as f64;
    // 90% from the set, plus the uniform 10%'s 1/n share of the same function.
    let from_set = share - 0.1 / n;
    assert!(
        (from_set - 0.9).abs() <= 0.03,
        "prioritized share {share} over {total} calls"
    );
    assert_eq!(c.control().clear_priorities(), 1);
    let bad = c.control().prioritize("transfer(address)", 1).unwrap_err();
    assert!(
        bad.to_string().contains("transfer(address,uint256)"),
        "{bad}"
    );
    c.stop();
    drop(c);
    // The command log has all three commands; replaying it into a new
    // campaign re-applies the successful ones.
    let log = dir.path().join("corpus/mcp-commands.jsonl");
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let commands: Vec<_> = lines
        .iter()
        .map(|l| l["command"].as_str().unwrap())
        .collect();
    assert_eq!(
        commands,
        [
            "prioritize_function",
            "clear_priorities",
            "prioritize_function"
        ]
    );
    let dir2 = tempfile::tempdir().unwrap();
    let c2 = campaign("Token", 1, dir2.path());
    assert_eq!(c2.control().replay_commands(&log).unwrap(), 2);
    assert!(
        c2.read().priorities().snapshot().is_empty(),
        "prioritize then clear"
    );
    c2.stop();
}

/// `transfer(?, 7)` repeated 6 times: one worker runs it 6 times, every
/// run with 7 as the amount and a recipient drawn anew.
#[test]
fn a_wildcard_injection_runs_repeat_times_with_fresh_values_where_the_holes_are() {
    let dir = tempfile::tempdir().unwrap();
    let c = campaign("Token", 1, dir.path());
    let receipt = c
        .control()
        .inject_calls_repeated(&["transfer(?, 7)".to_string()], None, Default::default(), 6)
        .unwrap();
    assert_eq!((receipt.calls, receipt.workers), (1, 1));
    let engine = c.read();
    let journal = engine.journal().expect("journal on");
    let calls = |j: &rudder::journal::Journal| injected_calls(j, receipt.id.0);
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut seen = calls(journal);
    while seen.len() < 6 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
        seen = calls(journal);
    }
    c.stop();
    assert_eq!(seen.len(), 6, "six runs of the one call: {seen:?}");
    let mut recipients = std::collections::BTreeSet::new();
    for call in &seen {
        let args = call
            .split_once('(')
            .and_then(|(_, a)| a.strip_suffix(')'))
            .unwrap_or_else(|| panic!("a printed call: {call}"));
        let (to, amount) = args.split_once(", ").expect("two arguments");
        assert_eq!(amount, "7", "the concrete argument stays: {call}");
        recipients.insert(to.to_string());
    }
    assert!(
        recipients.len() > 1,
        "the wildcard is drawn anew each run: {seen:?}"
    );
    // One summary: the six runs, and the values `?` took (those the calls
    // show), each with how many runs drew it.
    common::wait_until("the injection's summary", 30, || {
        !c.events_of(EventKind::InjectionSummary).is_empty()
    });
    let summaries: Vec<serde_json::Value> = c
        .events_of(EventKind::InjectionSummary)
        .iter()
        .map(|e| engine.renderer().data(e))
        .collect();
    assert_eq!(summaries.len(), 1, "{summaries:?}");
    let s = &summaries[0];
    assert_eq!(
        (
            s["injection"].as_u64(),
            s["runs"].as_u64(),
            s["executed"].as_u64()
        ),
        (Some(receipt.id.0), Some(6), Some(6)),
        "{s}"
    );
    let hole = &s["values"][0];
    assert_eq!(
        (
            hole["call"].as_u64(),
            hole["function"].as_str(),
            hole["at"].as_str(),
            hole["draws"].as_u64()
        ),
        (Some(1), Some("transfer"), Some("to"), Some(6)),
        "{s}"
    );
    let drawn: std::collections::BTreeSet<String> = hole["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["value"].as_str().unwrap().to_string())
        .collect();
    let times: u64 = hole["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["times"].as_u64().unwrap())
        .sum();
    assert_eq!((drawn.len(), times), (recipients.len(), 6), "{s}");
    // The command log keeps the wildcard and the repeat count.
    engine.flush();
    let log = std::fs::read_to_string(engine.layout().command_log()).unwrap();
    assert!(
        log.contains("\"transfer(?, 7)\"") && log.contains("\"repeat\":6"),
        "{log}"
    );
}

/// `deposit(?, "a"); deposit(3, "b"); withdraw($1.amount)` repeated: each
/// run's withdrawal takes the amount the first deposit's event carried
/// in that run (drawn anew each time), and the command log keeps the
/// reference as written.
#[test]
fn an_injected_reference_takes_what_the_earlier_call_emitted_in_that_run() {
    let dir = tempfile::tempdir().unwrap();
    let c = campaign("Vault", 1, dir.path());
    let sequence = [
        "deposit(?, \"a\")".to_string(),
        "deposit(3, \"b\"); withdraw($1.amount)".to_string(),
    ];
    let receipt = c
        .control()
        .inject_calls_repeated(&sequence, None, Default::default(), 4)
        .unwrap();
    assert_eq!(receipt.calls, 3);
    let engine = c.read();
    let journal = engine.journal().expect("journal on");
    let calls = |j: &rudder::journal::Journal| injected_calls(j, receipt.id.0);
    // Runs start at each first deposit; the one that breaks
    // `echidna_total_small` ends there (its executor goes to shrinking).
    let runs = |seen: &[String]| -> Vec<Vec<String>> {
        let mut runs: Vec<Vec<String>> = Vec::new();
        for call in seen {
            if call.ends_with(", \"a\")") || runs.is_empty() {
                runs.push(Vec::new());
            }
            runs.last_mut().unwrap().push(call.clone());
        }
        runs
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut seen = calls(journal);
    while !(runs(&seen).len() == 4 && runs(&seen)[3].len() == 3) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
        seen = calls(journal);
    }
    c.stop();
    let runs = runs(&seen);
    assert_eq!(runs.len(), 4, "four runs: {seen:?}");
    let whole: Vec<&Vec<String>> = runs.iter().filter(|r| r.len() == 3).collect();
    assert!(
        whole.len() >= 3,
        "at most one run is cut by a falsification: {seen:?}"
    );
    let mut amounts = std::collections::BTreeSet::new();
    for run in whole {
        let amount = run[0]
            .strip_prefix("deposit(")
            .and_then(|a| a.strip_suffix(", \"a\")"))
            .unwrap_or_else(|| panic!("the first deposit: {run:?}"));
        assert_eq!(run[1], "deposit(3, \"b\")", "{run:?}");
        assert_eq!(run[2], format!("withdraw({amount})"), "{run:?}");
        amounts.insert(amount.to_string());
    }
    assert!(
        amounts.len() > 1,
        "the wildcard is drawn anew each run: {seen:?}"
    );
    engine.flush();
    let log = std::fs::read_to_string(engine.layout().command_log()).unwrap();
    assert!(log.contains("withdraw($1.amount)"), "{log}");
}
