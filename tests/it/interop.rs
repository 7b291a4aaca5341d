//! Corpora moving between fuzzers: an Echidna corpus directory given as
//! `corpusDir` is replayed (coverage and tests), and rudder's corpus
//! exported in Echidna's layout is read back with the same coverage.

use rudder::campaign::{Campaign, Report};
use rudder::config::Config;
use std::path::Path;

fn config(corpus: &Path, seed: u64, limit: u64) -> Config {
    Config {
        workers: Some(1),
        seed: Some(seed),
        test_limit: limit,
        corpus_dir: Some(corpus.to_path_buf()),
        ..Config::default()
    }
}

fn run(corpus: &Path, out: &Path, seed: u64, limit: u64) -> (Report, Vec<String>) {
    let mut c = Campaign::new(
        Path::new("contracts/out/Sequence.json"),
        None,
        config(corpus, seed, limit),
        Some(out.to_path_buf()),
    )
    .unwrap();
    c.start().unwrap();
    let warnings = c.warnings.clone();
    (c.wait(), warnings)
}

/// Sequence's property in the report (it must be there).
fn not_closed(r: &Report) -> &rudder::campaign::report::TestReport {
    r.tests
        .iter()
        .find(|t| t.name == "echidna_not_closed")
        .unwrap()
}

/// One Echidna transaction to the target at Echidna's default address.
fn echidna_tx(call: &str, src: &str) -> String {
    let zero = format!("0x{}", "0".repeat(64));
    format!(
        r#"{{"call":{call},"src":"{src}","dst":"0x00a329c0648769A73afAc7F9381E08FB43dBEA72","gas":12500000,"gasprice":"{zero}","value":"{zero}","delay":["{zero}","{zero}"]}}"#
    )
}

#[test]
fn an_echidna_corpus_falsifies_the_property_it_reaches_in_a_one_call_run() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("echidna-corpus");
    std::fs::create_dir_all(corpus.join("coverage")).unwrap();
    // Written as Echidna writes it: the sequence that breaks Sequence, with
    // a call that changes nothing in the middle, and a file that is not a
    // transaction list.
    let file = format!(
        "[{}]",
        [
            echidna_tx(r#"{"tag":"SolCall","contents":["open",[]]}"#, "0x0000000000000000000000000000000000010000"),
            echidna_tx(
                r#"{"tag":"SolCall","contents":["turn",[{"tag":"AbiUInt","contents":[256,"42"]}]]}"#,
                "0x0000000000000000000000000000000000020000"
            ),
            echidna_tx(
                r#"{"tag":"SolCall","contents":["noise",[{"tag":"AbiUInt","contents":[256,"7"]},{"tag":"AbiBool","contents":false}]]}"#,
                "0x0000000000000000000000000000000000020000"
            ),
            echidna_tx(r#"{"tag":"SolCall","contents":["close",[]]}"#, "0x0000000000000000000000000000000000030000"),
        ]
        .join(",")
    );
    let entry = corpus.join("coverage/4242.txt");
    std::fs::write(&entry, &file).unwrap();
    let junk = corpus.join("coverage/junk.txt");
    std::fs::write(&junk, "0xdeadbeef").unwrap();

    let (r, warnings) = run(&corpus, &dir.path().join("out"), 1, 1);
    let t = not_closed(&r);
    assert_eq!(t.status, "falsified", "{}", r.text());
    assert_eq!(
        t.sequence,
        ["open()", "turn(42)", "close()"],
        "{}",
        r.text()
    );
    assert_eq!(t.found_by, Some("imported"));
    assert!(r.calls <= 1, "{}", r.text());
    assert_eq!(r.resumed.imported, 1);
    assert!(
        r.text()
            .contains("[found replaying another fuzzer's corpus]"),
        "{}",
        r.text()
    );
    // The file that is neither format is named, with why, and left alone.
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("junk.txt") && w.contains("not an Echidna transaction file")),
        "{warnings:?}"
    );
    assert_eq!(std::fs::read_to_string(&entry).unwrap(), file);
    assert_eq!(std::fs::read_to_string(&junk).unwrap(), "0xdeadbeef");
    // Echidna's reproducers (reproducers/*.txt) are read the same way.
    let corpus2 = dir.path().join("echidna-repro");
    std::fs::create_dir_all(corpus2.join("reproducers")).unwrap();
    std::fs::write(corpus2.join("reproducers/7.txt"), &file).unwrap();
    let (r, _) = run(&corpus2, &dir.path().join("out2"), 2, 1);
    let t = not_closed(&r);
    assert_eq!(
        t.sequence,
        ["open()", "turn(42)", "close()"],
        "{}",
        r.text()
    );
}

#[test]
fn a_corpus_exported_for_echidna_or_medusa_reads_back_with_the_same_coverage() {
    for (format, entries, reproducers) in [
        ("echidna", "coverage", "reproducers"),
        ("medusa", "call_sequences/mutable", "test_results"),
    ] {
        exported_and_read_back(format, entries, reproducers);
    }
}

fn exported_and_read_back(format: &str, entries: &str, reproducers: &str) {
    let dir = tempfile::tempdir().unwrap();
    let ours = dir.path().join("ours");
    let (first, _) = run(&ours, &dir.path().join("out1"), 3, 20_000);
    assert!(first.corpus_sequences >= 1, "{}", first.text());
    let echidna = dir.path().join(format);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rudder"))
        .args(["corpus", "export", "--format", format, "--corpus-dir"])
        .arg(&ours)
        .arg(&echidna)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let files = |sub: &str| std::fs::read_dir(echidna.join(sub)).map_or(0, |d| d.count());
    assert_eq!(files(entries), first.corpus_sequences, "{said}");
    assert_eq!(files(reproducers), 1, "{said}");
    // Replayed from each, no fuzzing: the same coverage.
    let copy = dir.path().join("ours-again");
    std::fs::create_dir_all(copy.join("coverage")).unwrap();
    std::fs::create_dir_all(copy.join("reproducers")).unwrap();
    for sub in ["coverage", "reproducers"] {
        for e in std::fs::read_dir(ours.join(sub)).unwrap() {
            let p = e.unwrap().path();
            std::fs::copy(&p, copy.join(sub).join(p.file_name().unwrap())).unwrap();
        }
    }
    let (a, _) = run(&copy, &dir.path().join("out2"), 4, 1);
    let (b, _) = run(&echidna, &dir.path().join("out3"), 4, 1);
    assert_eq!(
        (
            a.coverage.lines_hit,
            a.coverage.branches_hit,
            a.coverage.points
        ),
        (
            b.coverage.lines_hit,
            b.coverage.branches_hit,
            b.coverage.points
        ),
        "rudder's corpus:\n{}{format}'s:\n{}",
        a.text(),
        b.text()
    );
    let t = not_closed(&b);
    assert_eq!(
        t.sequence,
        ["open()", "turn(42)", "close()"],
        "{}",
        b.text()
    );
    // The export changed nothing it read.
    assert_eq!(common_files(&ours), common_files(&copy));
}

fn common_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v = Vec::new();
    for sub in ["coverage", "reproducers"] {
        let mut files: Vec<_> = std::fs::read_dir(dir.join(sub))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for p in files {
            v.push((
                format!("{sub}/{}", p.file_name().unwrap().to_string_lossy()),
                std::fs::read(&p).unwrap(),
            ));
        }
    }
    v
}

/// `--format junit` validates against the JUnit structure CI readers take
/// (tests/e2e/junit.xsd, checked by xmlschema), with the falsified test's
/// reason and shrunk sequence in its `failure` and the passing test
/// without one; `--format github` prints one annotation per falsified
/// test at its function's line.
#[test]
fn ci_formats_junit_validates_and_github_annotates_the_property_line() {
    let dir = tempfile::tempdir().unwrap();
    let fuzz = |format: &str, out: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_rudder"))
            .args([
                "fuzz",
                "contracts/out/Showcase.json",
                "--seed",
                "1",
                "--test-limit",
                "200000",
            ])
            .args(["--format", format, "--out-dir"])
            .arg(dir.path().join(out))
            .output()
            .unwrap()
    };
    let junit = fuzz("junit", "a");
    assert_eq!(
        junit.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&junit.stderr)
    );
    let xml = dir.path().join("report.xml");
    std::fs::write(&xml, &junit.stdout).unwrap();
    let python = crate::common::clients::python();
    let checked = std::process::Command::new(&python)
        .arg("tests/e2e/junit_check.py")
        .arg(&xml)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&checked.stdout);
    assert!(
        checked.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&checked.stderr)
    );
    assert!(
        said.contains("suite Showcase: tests=2 failures=1"),
        "{said}"
    );
    assert!(said.contains("case echidna_always: passed"), "{said}");
    assert!(
        said.contains(
            "case echidna_stage_below_two: failure type=property message='returned false'"
        ),
        "{said}"
    );
    assert!(
        said.contains("at contracts/Showcase.sol:30 | call sequence (shrunk): |   step("),
        "{said}"
    );

    let github = fuzz("github", "b");
    assert_eq!(github.status.code(), Some(1));
    let out = String::from_utf8_lossy(&github.stdout);
    let annotations: Vec<&str> = out.lines().filter(|l| l.starts_with("::")).collect();
    assert_eq!(annotations.len(), 1, "{out}");
    assert!(
        annotations[0].starts_with(
            "::error file=contracts/Showcase.sol,line=30,title=Showcase%3A echidna_stage_below_two falsified::property echidna_stage_below_two falsified: returned false%0A"
        ),
        "{out}"
    );
    // The text report comes first, as `--format text` prints it.
    assert!(out.starts_with("Showcase (property mode)"), "{out}");
}

/// A Medusa corpus (its call sequences name the target by Medusa's own
/// address for it, and carry raw calldata) falsifies Sequence in a
/// one-call run; a call no function of the target has is named.
#[test]
fn a_medusa_corpus_falsifies_the_property_it_reaches_in_a_one_call_run() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("medusa-corpus");
    let seqs = corpus.join("call_sequences/mutable");
    std::fs::create_dir_all(&seqs).unwrap();
    let selector =
        |sig: &str| alloy_primitives::hex::encode(&alloy_primitives::keccak256(sig)[..4]);
    let element = |data: String, delay: u64| {
        format!(
            r#"{{"call":{{"from":"0x0000000000000000000000000000000000010000","to":"0xA647ff3c36cFab592509E13860ab8c4F28781a66","nonce":0,"value":"0x0","gasLimit":12500000,"gasPrice":"0x1","gasFeeCap":"0x0","gasTipCap":"0x0","data":"0x{data}"}},"blockNumberDelay":{delay},"blockTimestampDelay":{delay}}}"#
        )
    };
    let file = format!(
        "[{},{},{}]",
        element(selector("open()"), 0),
        element(format!("{}{:064x}", selector("turn(uint256)"), 42), 1),
        element(selector("close()"), 2),
    );
    std::fs::write(seqs.join("1700000000-abc.json"), &file).unwrap();
    std::fs::write(
        seqs.join("1700000001-bad.json"),
        format!("[{}]", element("12345678".into(), 0)),
    )
    .unwrap();
    let (r, warnings) = run(&corpus, &dir.path().join("out"), 5, 1);
    let t = not_closed(&r);
    assert_eq!(t.status, "falsified", "{}", r.text());
    assert_eq!(t.found_by, Some("imported"));
    assert_eq!(t.sequence.len(), 3, "{}", r.text());
    assert!(t.sequence[1].starts_with("turn(42)"), "{}", r.text());
    assert!(
        warnings.iter().any(|w| w.contains("1700000001-bad.json")
            && w.contains("not a Medusa call sequence: element 1: calldata selector 0x12345678")),
        "{warnings:?}"
    );
    assert_eq!(
        std::fs::read_to_string(seqs.join("1700000000-abc.json")).unwrap(),
        file
    );
}

/// `--config medusa.json` as Medusa writes it: its test limit ends the
/// run, its senders send every call, its deployer deploys, its target
/// contract is fuzzed without `--contract`.
#[test]
fn a_medusa_config_sets_the_limit_the_senders_and_the_deployer() {
    let dir = tempfile::tempdir().unwrap();
    let medusa = |target: &str| {
        format!(
            r#"{{"fuzzing": {{"workers": 1, "testLimit": 3000, "callSequenceLength": 10,
              "targetContracts": ["{target}"], "deployerAddress": "0x40000",
              "senderAddresses": ["0x10000", "0x30000"],
              "testing": {{"stopOnFailedTest": false,
                "assertionTesting": {{"enabled": false}},
                "propertyTesting": {{"enabled": true, "testPrefixes": ["echidna_"]}}}}}},
              "compilation": {{"platform": "crytic-compile", "platformConfig": {{"target": "."}}}}}}"#
        )
    };
    let path = dir.path().join("medusa.json");
    std::fs::write(&path, medusa("OnlySender")).unwrap();
    let (mut config, warnings) = Config::from_yaml_file(&path).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    config.seed = Some(7);
    config.corpus_dir = Some(dir.path().join("corpus"));
    // No contract named: the config's (the file defines only OnlySender,
    // but the config's is the one asked for).
    let mut c = Campaign::new(
        Path::new("contracts/out/OnlySender.json"),
        None,
        config,
        Some(dir.path().join("out")),
    )
    .unwrap();
    c.start().unwrap();
    let r = c.wait();
    assert_eq!(r.contract, "OnlySender");
    // 0x20000 never sends: the property holds; the limit ends the run.
    assert_eq!(r.tests[0].status, "passing", "{}", r.text());
    assert!((3000..3010).contains(&r.calls), "{}", r.text());
    let mut senders = std::collections::BTreeSet::new();
    for f in crate::common::json_files(&dir.path().join("corpus/coverage")) {
        let entry: serde_json::Value = serde_json::from_slice(&std::fs::read(f).unwrap()).unwrap();
        for tx in entry["txs"].as_array().unwrap() {
            senders.insert(tx["sender"].as_str().unwrap().to_lowercase());
        }
    }
    assert!(!senders.is_empty());
    assert!(
        senders
            .iter()
            .all(|s| s == "0x0000000000000000000000000000000000010000"
                || s == "0x0000000000000000000000000000000000030000"),
        "{senders:?}"
    );
    // The deployer: Bank's constructor keeps it as `owner`.
    std::fs::write(&path, medusa("Bank")).unwrap();
    let (config, _) = Config::from_yaml_file(&path).unwrap();
    let c = Campaign::new(
        Path::new("contracts/out/Bank.json"),
        None,
        Config {
            test_limit: 1,
            ..config
        },
        Some(dir.path().join("bank")),
    )
    .unwrap();
    let owner = c
        .control()
        .parse_calls(&["owner()".to_string()], None, alloy_primitives::U256::ZERO)
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let (run, _) = c.read().dry_run(&owner, deadline, None, None);
    let rudder::executor::Outcome::Success { output } = &run.steps[0].result.outcome else {
        panic!("owner() failed: {:?}", run.steps[0].result.outcome)
    };
    assert_eq!(
        &output[12..32],
        alloy_primitives::address!("0000000000000000000000000000000000040000").as_slice()
    );
    // Its compilation target, relative to the config file, is what
    // `rudder fuzz --config medusa.json` fuzzes when no target is given.
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::copy(
        "contracts/out/OnlySender.json",
        project.join("OnlySender.json"),
    )
    .unwrap();
    let config = project.join("medusa.json");
    std::fs::write(
        &config,
        medusa("OnlySender").replace(r#""target": ".""#, r#""target": "OnlySender.json""#),
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rudder"))
        .args(["fuzz", "--no-ui", "--format", "json", "--config"])
        .arg(&config)
        .arg("--out-dir")
        .arg(dir.path().join("cli"))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["contract"], "OnlySender");
    assert!(
        (3000..3010).contains(&report["calls"].as_u64().unwrap()),
        "{report}"
    );
    // A wrong key is named with its path, with the file.
    std::fs::write(
        &path,
        medusa("Bank").replace(r#""testLimit": 3000"#, r#""testLimit": -1"#),
    )
    .unwrap();
    let e = Config::from_yaml_file(&path).unwrap_err().to_string();
    assert!(
        e.contains("medusa.json") && e.contains("key `fuzzing.testLimit`"),
        "{e}"
    );
}
