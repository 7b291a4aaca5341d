//! Shared campaigns in one process, over the `file://` store (the S3 path,
//! with real processes and a real S3 server, is `tests/e2e/shared_s3.py`):
//! corpus and findings reach a node that joins later, an injection given
//! to one node runs on another, a restarted node reads only what is new,
//! and a store holding another campaign is refused before any work.

use crate::common::wait_until;
use rudder::campaign::{Campaign, Report};
use rudder::config::Config;
use rudder::shared::{Bucket, SharedUrl, sequence_sha};
use std::path::Path;

fn config(url: &str, node: &str, seed: u64, limit: u64) -> Config {
    Config {
        workers: Some(1),
        seed: Some(seed),
        test_limit: limit,
        shared: Some(url.to_string()),
        node_id: Some(node.to_string()),
        shared_sync_ms: 100,
        ..Config::default()
    }
}

fn start(contract: &str, config: Config, dir: &Path) -> Result<Campaign, String> {
    let mut c = Campaign::new(
        Path::new(&format!("contracts/out/{contract}.json")),
        None,
        config,
        Some(dir.to_path_buf()),
    )
    .map_err(|e| e.to_string())?;
    c.start().map_err(|e| e.to_string())?;
    Ok(c)
}

fn found_by<'a>(r: &'a Report, test: &str) -> Option<&'a str> {
    r.tests
        .iter()
        .find(|t| t.name == test)
        .and_then(|t| t.found_by)
}

/// Waits for `done` (checked every 20 ms), at most `limit`.
/// A store (a folder, `file://` URL) where node `a` has fuzzed Sequence and
/// falsified `echidna_not_closed` itself: the folders (held until dropped),
/// a corpus folder for a node `b`, and A's report.
struct AFound {
    _store: tempfile::TempDir,
    _a_dir: tempfile::TempDir,
    url: String,
    b_dir: tempfile::TempDir,
    a: Report,
}

impl AFound {
    /// A's falsified test.
    fn a_test(&self) -> &rudder::campaign::report::TestReport {
        self.a
            .tests
            .iter()
            .find(|t| t.name == "echidna_not_closed")
            .unwrap()
    }
}

fn a_finds_not_closed() -> AFound {
    let store = tempfile::tempdir().unwrap();
    let url = format!("file://{}", store.path().display());
    let a_dir = tempfile::tempdir().unwrap();
    let a = start("Sequence", config(&url, "a", 1, 30_000), a_dir.path())
        .unwrap()
        .wait();
    let found = AFound {
        _store: store,
        _a_dir: a_dir,
        url,
        b_dir: tempfile::tempdir().unwrap(),
        a,
    };
    assert_eq!(
        found_by(&found.a, "echidna_not_closed"),
        Some("worker"),
        "{:?}",
        found.a_test()
    );
    found
}

#[test]
fn a_node_that_joins_later_starts_from_the_campaigns_corpus_and_findings() {
    let found = a_finds_not_closed();
    let (url, b_dir, a, a_test) = (&found.url, &found.b_dir, &found.a, found.a_test());
    assert!(a.corpus_sequences > 0);

    // Every corpus object is named by the SHA-256 of its calls: the same
    // sequence is never stored under two names.
    let bucket = Bucket::open(&SharedUrl::parse("t", url).unwrap()).unwrap();
    let entries = bucket.list_after("corpus", None).unwrap();
    assert!(!entries.is_empty());
    let mut seen = std::collections::HashSet::new();
    for name in &entries {
        let bytes = bucket.get(&format!("corpus/{name}")).unwrap().unwrap();
        let entry: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        let calls: Vec<rudder::tx::StoredTx> =
            serde_json::from_value(entry["txs"].clone()).unwrap();
        let sha = sequence_sha(&calls);
        assert!(seen.insert(sha.clone()), "one sequence under two names");
        assert_eq!(name, &format!("{sha}.json"));
    }
    let findings = bucket
        .list_after("findings/echidna_not_closed", None)
        .unwrap();
    assert!(!findings.is_empty(), "A's finding is in the store");

    // B joins afterwards with a budget too small to find anything itself:
    // it replays A's corpus and takes A's finding (replayed, still failing).
    let b = start("Sequence", config(url, "b", 2, 1), b_dir.path())
        .unwrap()
        .wait();
    assert_eq!(found_by(&b, "echidna_not_closed"), Some("shared"));
    let b_test = b
        .tests
        .iter()
        .find(|t| t.name == "echidna_not_closed")
        .unwrap();
    assert_eq!(
        b_test.sequence, a_test.sequence,
        "the campaign's answer is A's shrunk sequence"
    );
    assert_eq!(b.resumed.corpus_sequences, entries.len(), "{:?}", b.resumed);
    // And says it took them from the other nodes (not "an earlier run's").
    assert_eq!(b.resumed.pulled as usize, entries.len(), "{:?}", b.resumed);
    assert!(
        b.text()
            .contains("pulled from other nodes of the shared campaign")
            && !b.text().contains("an earlier run's finds"),
        "{}",
        b.text()
    );

    // Restarted, B reads its cursors: nothing is downloaded again.
    let c = start("Sequence", config(url, "b", 3, 1), b_dir.path()).unwrap();
    let status = c.read().shared().unwrap();
    assert_eq!(status.node, "b");
    let read = c.control().read();
    wait_until("B's first sync", 20, || {
        read.shared().is_some_and(|s| s.syncs > 0)
    });
    let s = read.shared().unwrap();
    assert_eq!(s.pulled_entries, 0, "{s:?}");
    assert!(s.reachable, "{s:?}");
    assert!(s.nodes.iter().any(|n| n.node == "a" && n.ended), "{s:?}");
    c.stop();
    c.wait();
}

/// With `keepHunting` a node that learns another node's finding replays it
/// (it fails here too), notes it in `status.shared.hunting` and keeps the
/// test open; without it the test is closed with the other node's
/// reproducer (the test above).
#[test]
fn a_node_that_keeps_hunting_notes_another_nodes_finding_and_keeps_the_test_open() {
    let found = a_finds_not_closed();
    let (url, b_dir, a) = (&found.url, &found.b_dir, &found.a);
    let a_calls = found.a_test().sequence.len() as u64;

    let mut hunter = config(url, "b", 2, 1);
    hunter.keep_hunting = true;
    let b = start("Sequence", hunter, b_dir.path()).unwrap();
    let read = b.control().read();
    let report = b.wait();
    let test = report
        .tests
        .iter()
        .find(|t| t.name == "echidna_not_closed")
        .unwrap();
    assert!(!test.status.is_falsified(), "still open here: {test:?}");
    assert_eq!(found_by(&report, "echidna_not_closed"), None);
    let s = read.shared().unwrap();
    // The ops family's campaign metrics count node a's calls too.
    let now = read.sample_now();
    assert!(
        now.campaign_calls >= a.calls + now.calls && now.calls > 0,
        "{now:?} with a's {} calls",
        a.calls
    );
    assert!(now.campaign_points >= now.points, "{now:?}");
    // A's original and shrunk reproducers are both in the store: both are
    // replayed here, the shortest is the one noted, and one test is learned.
    assert_eq!(s.learned_findings, 1, "{s:?}");
    assert_eq!(s.hunting.len(), 1, "{s:?}");
    let h = &s.hunting[0];
    assert_eq!(
        (h.test.as_str(), h.node.as_str(), h.calls),
        ("echidna_not_closed", "a", a_calls)
    );

    // Restarted, B does not read A's findings again, and still shows them
    // hunted (the test is open again here, as it was).
    let mut hunter = config(url, "b", 3, 1);
    hunter.keep_hunting = true;
    let b = start("Sequence", hunter, b_dir.path()).unwrap();
    let read = b.control().read();
    b.wait();
    let again = read.shared().unwrap();
    assert_eq!(again.hunting.len(), 1, "{again:?}");
    assert_eq!(again.hunting[0].calls, a_calls);
    assert_eq!(again.learned_findings, 1, "{again:?}");

    // Restarted without keepHunting, B reads A's finding again (its
    // cursors are past the batch that named it) and closes the test with
    // it, as a node that never hunted would have.
    let b = start("Sequence", config(url, "b", 4, 1), b_dir.path()).unwrap();
    let read = b.control().read();
    let report = b.wait();
    assert_eq!(found_by(&report, "echidna_not_closed"), Some("shared"));
    let last = read.shared().unwrap();
    assert!(last.hunting.is_empty(), "{last:?}");
    assert_eq!(last.learned_findings, 1, "{last:?}");

    // Without a shared campaign the key does nothing, and says so.
    let mut alone = Config {
        workers: Some(1),
        test_limit: 1,
        keep_hunting: true,
        ..Config::default()
    };
    alone.seed = Some(1);
    let c_dir = tempfile::tempdir().unwrap();
    let c = Campaign::new(
        Path::new("contracts/out/Sequence.json"),
        None,
        alone,
        Some(c_dir.path().to_path_buf()),
    )
    .unwrap();
    assert!(
        c.warnings
            .iter()
            .any(|w| w.contains("keepHunting has no effect")),
        "{:?}",
        c.warnings
    );
}

#[test]
fn an_injection_given_to_one_node_runs_on_every_node() {
    let store = tempfile::tempdir().unwrap();
    let url = format!("file://{}", store.path().display());
    let (a_dir, b_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let cfg = |node: &str, seed| {
        let mut c = config(&url, node, seed, rudder::config::UNLIMITED);
        c.keep_alive = true;
        c
    };
    let a = start("Token", cfg("a", 1), a_dir.path()).unwrap();
    let b = start("Token", cfg("b", 2), b_dir.path()).unwrap();
    a.control()
        .inject_calls(
            &["transfer(0x0000000000000000000000000000000000010000, 7)".to_string()],
            None,
            Default::default(),
        )
        .unwrap();
    let b_log = b.read().layout().command_log();
    wait_until("B running A's injection", 30, || {
        std::fs::read_to_string(&b_log)
            .is_ok_and(|t| t.lines().any(|l| l.contains("\"sharedFrom\":\"a\"")))
    });
    let read = b.control().read();
    wait_until("B counting A's injection", 10, || {
        read.shared().is_some_and(|s| s.shared_injections == 1)
    });
    // A does not take its own injection back from B: two more syncs of A
    // after B had it would have brought it.
    let a_read = a.control().read();
    let syncs = a_read.shared().unwrap().syncs;
    wait_until("two more syncs of A", 20, || {
        a_read.shared().is_some_and(|s| s.syncs >= syncs + 2)
    });
    let a_log = std::fs::read_to_string(a.read().layout().command_log()).unwrap();
    assert_eq!(a_log.lines().count(), 1, "{a_log}");
    a.stop();
    b.stop();
    a.wait();
    b.wait();
}

#[test]
fn optimization_values_merge_by_max() {
    let store = tempfile::tempdir().unwrap();
    let url = format!("file://{}", store.path().display());
    let (a_dir, b_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let opt = |node: &str, seed, limit| Config {
        test_mode: rudder::config::TestMode::Optimization,
        ..config(&url, node, seed, limit)
    };
    let a = start("Optimize", opt("a", 6, 100_000), a_dir.path())
        .unwrap()
        .wait();
    assert_eq!(a.tests[0].value.as_deref(), Some("1020"), "{}", a.text());
    // B, with one call of its own, ends with A's best value, replayed here.
    let b = start("Optimize", opt("b", 1, 1), b_dir.path())
        .unwrap()
        .wait();
    assert_eq!(b.tests[0].value.as_deref(), Some("1020"), "{}", b.text());
    assert_eq!(b.tests[0].sequence, ["play(255)", "play(255)"]);
}

#[test]
fn a_store_holding_another_campaign_is_refused_before_any_work() {
    let store = tempfile::tempdir().unwrap();
    let url = format!("file://{}", store.path().display());
    let dir = tempfile::tempdir().unwrap();
    start("Sequence", config(&url, "a", 1, 1), dir.path())
        .unwrap()
        .wait();
    let other = tempfile::tempdir().unwrap();
    let e = start("Token", config(&url, "b", 1, 1), other.path())
        .err()
        .expect("another contract is refused");
    assert!(e.contains("holds another campaign"), "{e}");
    assert!(
        e.contains("contract: the store has Sequence, this node fuzzes Token"),
        "{e}"
    );
    let mut bad = config(&url, "c", 1, 1);
    bad.prefix = "fuzz_".into();
    let e = start("Sequence", bad, other.path()).err().unwrap();
    assert!(e.contains("config prefix"), "{e}");
    // Nothing of the refused node reached the store.
    let bucket = Bucket::open(&SharedUrl::parse("t", &url).unwrap()).unwrap();
    assert_eq!(bucket.children("nodes").unwrap(), vec!["a"]);
}

/// Pruning: once the nodes wrote `sharedCompactAfter` batches the compactor
/// (the live node with the smallest name) writes a generation, and deletes
/// the batches it holds once every live node has read past them. Nothing is
/// lost: every corpus object is still named by the generation or a batch
/// after it, and a node joining afterwards reads the generation: the whole
/// corpus, and each injection given to A run once.
#[test]
fn a_compacted_store_is_pruned_past_every_live_node_and_read_by_a_late_node() {
    let store = tempfile::tempdir().unwrap();
    let url = format!("file://{}", store.path().display());
    let dirs = [(); 3].map(|()| tempfile::tempdir().unwrap());
    let cfg = |node: &str, seed| Config {
        keep_alive: true,
        shared_compact_after: 2,
        ..config(&url, node, seed, rudder::config::UNLIMITED)
    };
    let a = start("Token", cfg("a", 1), dirs[0].path()).unwrap();
    let b = start("Token", cfg("b", 2), dirs[1].path()).unwrap();
    let read = a.control().read();
    // Each injection is one more batch of A's.
    for i in 0..3 {
        a.control()
            .inject_calls(
                &[format!(
                    "transfer(0x0000000000000000000000000000000000010000, {i})"
                )],
                None,
                Default::default(),
            )
            .unwrap();
        let given = i + 1;
        wait_until("B running A's injection", 20, || {
            read.shared().is_some_and(|s| s.pending == 0)
                && std::fs::read_to_string(b.read().layout().command_log())
                    .is_ok_and(|t| t.matches("\"sharedFrom\":\"a\"").count() == given)
        });
    }
    wait_until("a generation written and batches pruned", 30, || {
        read.shared()
            .is_some_and(|s| s.generations_written >= 1 && s.batches_deleted >= 1)
    });
    let s = b.control().read().shared().unwrap();
    assert_eq!(s.generations_written, 0, "b is not the compactor: {s:?}");
    a.stop();
    b.stop();
    a.wait();
    b.wait();

    let bucket = Bucket::open(&SharedUrl::parse("t", &url).unwrap()).unwrap();
    let gens = bucket.list_after("generations", None).unwrap();
    let newest: rudder::shared::Generation = serde_json::from_slice(
        &bucket
            .get(&format!("generations/{}", gens.last().unwrap()))
            .unwrap()
            .unwrap(),
    )
    .unwrap();
    let mut named: std::collections::BTreeSet<String> = newest
        .nodes
        .values()
        .flat_map(|b| b.entries.iter().cloned())
        .collect();
    let mut deleted = 0;
    for node in ["a", "b"] {
        let names = bucket
            .list_after(&format!("nodes/{node}/batches"), None)
            .unwrap();
        let seqs: Vec<u64> = names
            .iter()
            .map(|n| n.trim_end_matches(".json").parse().unwrap())
            .collect();
        let first = seqs.first().copied().unwrap_or(u64::MAX);
        deleted += first.min(newest.last(node).map_or(0, |l| l + 1));
        // What is left of a log follows on from what a generation holds.
        assert!(
            newest.last(node).is_some_and(|l| first <= l + 1) || first == 0 || seqs.is_empty(),
            "{node}: batches from {first}, the generation holds to {:?}",
            newest.last(node)
        );
        for n in &names {
            let batch: rudder::shared::Batch = serde_json::from_slice(
                &bucket
                    .get(&format!("nodes/{node}/batches/{n}"))
                    .unwrap()
                    .unwrap(),
            )
            .unwrap();
            named.extend(batch.entries);
        }
    }
    assert!(deleted >= 1, "no batch was deleted");
    let objects: std::collections::BTreeSet<String> = bucket
        .list_after("corpus", None)
        .unwrap()
        .into_iter()
        .map(|n| n.trim_end_matches(".json").to_string())
        .collect();
    assert_eq!(
        named, objects,
        "every corpus object is named, and only those"
    );

    // C joins now: the generation gives it the whole corpus, and A's three
    // injections, each run once.
    let c = start("Token", cfg("c", 3), dirs[2].path()).unwrap();
    let c_read = c.control().read();
    let c_log = c.read().layout().command_log();
    wait_until("C running A's three injections", 20, || {
        c_read.shared().is_some_and(|s| s.syncs > 1)
            && std::fs::read_to_string(&c_log)
                .is_ok_and(|t| t.matches("\"sharedFrom\":\"a\"").count() >= 3)
    });
    // None twice: two more syncs would have brought a fourth.
    let syncs = c_read.shared().unwrap().syncs;
    wait_until("two more syncs of C", 20, || {
        c_read.shared().is_some_and(|s| s.syncs >= syncs + 2)
    });
    let log = std::fs::read_to_string(&c_log).unwrap();
    assert_eq!(log.matches("\"sharedFrom\":\"a\"").count(), 3, "{log}");
    // (C, alone now, is the compactor: it may have written the next one.)
    assert!(c_read.shared().unwrap().generation >= newest.number);
    c.stop();
    let c = c.wait();
    assert_eq!(c.resumed.corpus_sequences, objects.len(), "{:?}", c.resumed);
}
