//! The command line as a user meets it: bad flags and unusable directories
//! are exit code 2 with one clear line naming the flag, never a backtrace.

use std::process::Command;

fn rudder(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_rudder"))
        .args(args)
        .env("RUST_BACKTRACE", "1")
        .output()
        .expect("rudder runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn absurd_limits_are_usage_errors_naming_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    for (flag, value, named) in [
        ("--seq-len", "1000000000", "--seq-len"),
        ("--seq-len", "0", "--seq-len"),
        ("--workers", "10000", "--workers"),
        ("--workers", "0", "--workers"),
        ("--shared", "bucket/prefix", "--shared"),
        ("--shared", "s3://Not_A_Bucket/x", "--shared"),
        ("--shared", "file://relative", "--shared"),
        ("--shared-sync-ms", "5", "--shared-sync-ms"),
        ("--node-id", "a/b", "--node-id"),
        ("--check-cache", "sometimes", "--check-cache"),
    ] {
        let (code, err) = rudder(&[
            "fuzz",
            "contracts/out/SetSeven.json",
            flag,
            value,
            "--out-dir",
            out,
        ]);
        assert_eq!(code, 2, "{flag} {value}: {err}");
        assert!(err.contains(named), "{flag} {value}: {err}");
        assert!(
            !err.contains("backtrace") && !err.contains("panicked"),
            "{err}"
        );
    }
}

#[test]
fn remote_binds_need_a_real_token() {
    for args in [
        vec!["--mcp-http", "0.0.0.0:0", "--mcp-allow-remote"],
        vec![
            "--mcp-http",
            "0.0.0.0:0",
            "--mcp-allow-remote",
            "--mcp-token",
            "",
        ],
        vec![
            "--mcp-http",
            "0.0.0.0:0",
            "--mcp-allow-remote",
            "--mcp-token",
            "short",
        ],
        vec!["--mcp-http", "127.0.0.1:0", "--mcp-token", " "],
        vec!["--mcp-http", "0.0.0.0:0"],
    ] {
        let mut all = vec!["fuzz", "contracts/out/SetSeven.json"];
        all.extend(args.iter().copied());
        let (code, err) = rudder(&all);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains("--mcp"), "{args:?}: {err}");
    }
}

#[test]
fn an_unwritable_corpus_dir_is_exit_2_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("file");
    std::fs::write(&file, b"x").unwrap();
    let corpus = file.join("corpus");
    let (code, err) = rudder(&[
        "fuzz",
        "contracts/out/SetSeven.json",
        "--corpus-dir",
        corpus.to_str().unwrap(),
        "--out-dir",
        dir.path().join("out").to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("corpus"), "{err}");
}

#[test]
fn a_bad_config_file_names_the_file_and_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("echidna.yaml");
    std::fs::write(&cfg, "seqLen: many\n").unwrap();
    let (code, err) = rudder(&[
        "fuzz",
        "contracts/out/SetSeven.json",
        "--config",
        cfg.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("echidna.yaml") && err.contains("seqLen"),
        "{err}"
    );
}

/// A target with nothing to check is a usage error (as in Echidna) that
/// names what was looked for and how to choose a mode; exploration fuzzes
/// for coverage alone.
#[test]
fn a_target_without_tests_is_exit_2_naming_what_was_looked_for() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let (code, err) = rudder(&["fuzz", "contracts/out/Assertion.json", "--out-dir", out]);
    assert_eq!(code, 2, "{err}");
    for word in ["echidna_", "--test-mode", "assertion", "exploration"] {
        assert!(err.contains(word), "{word}: {err}");
    }
    // Refused before anything is written: no journal, no empty run log.
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "a refused start left {left:?}");
    let (code, err) = rudder(&[
        "fuzz",
        "contracts/out/Assertion.json",
        "--test-mode",
        "exploration",
        "--test-limit",
        "500",
        "--out-dir",
        out,
    ]);
    assert_eq!(code, 0, "{err}");
}

/// The seed in `--format json` is a string (64-bit numbers are rounded by
/// jq and JavaScript), and a config takes it back as a string.
#[test]
fn the_json_report_gives_the_seed_as_a_string_a_config_takes_back() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let seed = "18446744073709551557";
    let run = |extra: &[&str]| {
        let mut args = vec![
            "fuzz",
            "contracts/out/SetSeven.json",
            "--workers",
            "1",
            "--test-limit",
            "300",
            "--format",
            "json",
            "--out-dir",
            out,
        ];
        args.extend_from_slice(extra);
        let o = Command::new(env!("CARGO_BIN_EXE_rudder"))
            .args(&args)
            .output()
            .unwrap();
        serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap()
    };
    let r = run(&["--seed", seed]);
    assert_eq!(r["seed"], serde_json::json!(seed));
    // The gas every call used, also a decimal string: each call pays at
    // least the 21,000 of a transaction.
    let gas: u64 = r["totalGas"].as_str().unwrap().parse().unwrap();
    let calls = r["calls"].as_u64().unwrap();
    assert!(
        calls > 0 && gas >= 21_000 * calls,
        "{gas} gas for {calls} calls"
    );
    let cfg = dir.path().join("c.yaml");
    std::fs::write(&cfg, format!("seed: \"{seed}\"\n")).unwrap();
    let r = run(&["--config", cfg.to_str().unwrap()]);
    assert_eq!(r["seed"], serde_json::json!(seed));
}

/// A big contract compiled by a global `solcjs` (npm's `npm install -g
/// solc`): its standard-JSON output is well past 64 KiB, which the `solcjs`
/// command cut short when it wrote to a pipe. rudder drives the package
/// behind the command itself. A `solcjs` on PATH is a link to the bundled
/// pinned package, run from a folder with no `node_modules`.
#[test]
fn a_global_solcjs_compiles_a_contract_whose_output_is_past_64_kib() {
    let module = std::fs::canonicalize("contracts/.tools/node_modules/solc");
    let Ok(module) = module else {
        eprintln!("SKIPPED: contracts/.tools has no solc (bash contracts/build.sh installs it)");
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let bin = work.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::os::unix::fs::symlink(module.join("solc.js"), bin.join("solcjs")).unwrap();
    let source = work.path().join("Maze1.sol");
    std::fs::copy("contracts/Maze1.sol", &source).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new(env!("CARGO_BIN_EXE_rudder"))
        .args([
            "fuzz",
            "Maze1.sol",
            "--test-limit",
            "2000",
            "--no-ui",
            "--format",
            "json",
        ])
        .current_dir(work.path())
        .env("PATH", path)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("not JSON") && matches!(out.status.code(), Some(0 | 1)),
        "{stderr}"
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["contract"], "Maze1", "{report}");
}

/// The compiler is chosen by the sources' `pragma solidity`: one the
/// pragmas rule out is not used, and when none fits, the error names the
/// pragma, its file and the versions found, and how to point rudder at
/// another (`--solc`, `RUDDER_SOLC`). A path that is no compiler is named.
#[test]
fn the_compiler_is_chosen_by_pragma_and_a_mismatch_names_both() {
    let Ok(module) = std::fs::canonicalize("contracts/.tools/node_modules/solc") else {
        eprintln!("SKIPPED: contracts/.tools has no solc (bash contracts/build.sh installs it)");
        return;
    };
    let version = std::fs::read_to_string(module.join("package.json")).unwrap();
    let version: serde_json::Value = serde_json::from_str(&version).unwrap();
    let version = version["version"].as_str().unwrap().to_string();
    let work = tempfile::tempdir().unwrap();
    std::fs::copy("contracts/Deadline.sol", work.path().join("Deadline.sol")).unwrap();
    let old = "pragma solidity >=0.6.0 <0.8.0;\ncontract Old { function echidna_t() public returns (bool) { return true; } }\n";
    std::fs::write(work.path().join("Old.sol"), old).unwrap();
    let solc = module.to_str().unwrap();
    let fuzz = |file: &str, solc: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_rudder"))
            .args([
                "fuzz",
                file,
                "--test-limit",
                "200",
                "--no-ui",
                "--solc",
                solc,
            ])
            .current_dir(work.path())
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, stderr) = fuzz("Deadline.sol", solc);
    assert!(matches!(code, Some(0 | 1)), "{stderr}");
    let (code, stderr) = fuzz("Old.sol", solc);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("`pragma solidity >=0.6.0 <0.8.0` (Old.sol)")
            && stderr.contains(&format!("{version} (solc {solc})"))
            && stderr.contains("RUDDER_SOLC"),
        "{stderr}"
    );
    let (code, stderr) = fuzz("Deadline.sol", "/no/such/solc");
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("solc /no/such/solc: neither a solc binary"),
        "{stderr}"
    );
    // The config's `solc` key names it too.
    std::fs::write(work.path().join("c.yaml"), format!("solc: {solc}\n")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_rudder"))
        .args([
            "fuzz",
            "Old.sol",
            "--test-limit",
            "200",
            "--no-ui",
            "--config",
            "c.yaml",
        ])
        .current_dir(work.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("{version} (solc {solc})")),
        "{stderr}"
    );
}

/// `rudder fuzz` on Sequence (seed 2) into `out`, with `more` flags: its
/// property is broken (exit 1).
fn sequence_broken_into(out: &std::path::Path, more: &[&str]) {
    let mut args = vec![
        "fuzz",
        "contracts/out/Sequence.json",
        "--seed",
        "2",
        "--no-ui",
    ];
    args.extend_from_slice(more);
    args.extend(["--out-dir", out.to_str().unwrap()]);
    let (code, err) = rudder(&args);
    assert_eq!(code, 1, "{err}");
}

/// After a clean exit the journal database stands alone: a CI job that
/// keeps `journal.sqlite` (and not its `-wal`) keeps every table and the
/// run (everything used to stay in the write-ahead log).
#[test]
fn the_journal_database_stands_alone_after_a_clean_exit() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    sequence_broken_into(&out, &[]);
    let kept = dir.path().join("kept.sqlite");
    std::fs::copy(out.join("corpus/journal.sqlite"), &kept).unwrap();
    let db = rusqlite::Connection::open(&kept).unwrap();
    let runs: i64 = db
        .query_row("SELECT count(*) FROM runs", [], |r| r.get(0))
        .unwrap();
    assert_eq!(runs, 1);
    let events: i64 = db
        .query_row("SELECT count(*) FROM events", [], |r| r.get(0))
        .unwrap();
    assert!(events > 0);
}

/// `coverageFormats: ["txt", "html", "lcov"]` (Echidna's default set) writes
/// the three reports beside the corpus, named as Echidna names them; the
/// txt marks each line that ran with `*`.
#[test]
fn echidnas_three_coverage_formats_are_written() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("echidna.yaml");
    std::fs::write(&config, "coverageFormats: [\"txt\", \"html\", \"lcov\"]\n").unwrap();
    let out = dir.path().join("out");
    sequence_broken_into(&out, &["--config", config.to_str().unwrap()]);
    let corpus = out.join("corpus");
    let find = |ext: &str| {
        std::fs::read_dir(&corpus)
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .find(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("covered.") && n.ends_with(ext))
            })
            .unwrap_or_else(|| panic!("no covered.*{ext} in {}", corpus.display()))
    };
    let txt = std::fs::read_to_string(find(".txt")).unwrap();
    assert!(txt.contains("Sequence.sol"), "{txt}");
    assert!(
        txt.lines()
            .any(|l| l.contains("| *   |") && l.contains("stage = 3;")),
        "{txt}"
    );
    let html = std::fs::read_to_string(find(".html")).unwrap();
    assert!(html.contains("<html") && html.contains("echidna_not_closed"));
    assert!(
        std::fs::read_to_string(find(".lcov"))
            .unwrap()
            .contains("SF:")
    );
}

/// A second run on an output directory a live run holds is exit 2 naming
/// the other process, and writes nothing there; once the first run has
/// ended the directory is free again.
#[test]
fn an_output_directory_in_use_by_a_live_run_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let out_s = out.to_str().unwrap();
    let mut first = Command::new(env!("CARGO_BIN_EXE_rudder"))
        .args([
            "fuzz",
            "contracts/out/SetSeven.json",
            "--out-dir",
            out_s,
            "--keep-alive",
            "--timeout",
            "60",
            "--no-ui",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("rudder runs");
    let lock = out.join(".rudder.lock");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !std::fs::read_to_string(&lock).is_ok_and(|s| s.starts_with("pid ")) {
        assert!(
            std::time::Instant::now() < deadline,
            "the first run never took the directory"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // The first run writes its journal file just after taking the lock:
    // count once it is there, so only the refused run could change it.
    let journal = out.join("journal");
    while std::fs::read_dir(&journal).map_or(0, |d| d.count()) == 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "the first run never wrote its journal"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let runs_before = std::fs::read_dir(&journal).map_or(0, |d| d.count());
    let (code, err) = rudder(&["fuzz", "contracts/out/SetSeven.json", "--out-dir", out_s]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("is in use by another rudder run")
            && err.contains(&format!("pid {}", first.id())),
        "{err}"
    );
    assert_eq!(
        std::fs::read_dir(&journal).map_or(0, |d| d.count()),
        runs_before,
        "the refused run wrote no journal files"
    );
    first.kill().unwrap();
    first.wait().unwrap();
    let (code, err) = rudder(&[
        "fuzz",
        "contracts/out/SetSeven.json",
        "--out-dir",
        out_s,
        "--test-limit",
        "1000",
    ]);
    assert_ne!(
        code, 2,
        "the directory is free once the first run is gone: {err}"
    );
}

/// `--timeline FILE`: every line the LCOV shows run is in the timeline once,
/// earliest first, and the falsified test has its time and calls to the bug,
/// the same as the JSON report's.
#[test]
fn the_timeline_says_when_each_line_ran_first_and_each_test_broke() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let (timeline, lcov, report) = (
        dir.path().join("timeline.json"),
        dir.path().join("run.lcov"),
        dir.path().join("report.json"),
    );
    let out_file = std::fs::File::create(&report).unwrap();
    let status = Command::new(env!("CARGO_BIN_EXE_rudder"))
        .args([
            "fuzz",
            "contracts/out/Sequence.json",
            "--seed",
            "2",
            "--no-ui",
        ])
        .args(["--format", "json", "--out-dir"])
        .arg(&out)
        .arg("--timeline")
        .arg(&timeline)
        .arg("--lcov")
        .arg(&lcov)
        .stdout(out_file)
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(1));
    let t: serde_json::Value = serde_json::from_slice(&std::fs::read(&timeline).unwrap()).unwrap();
    let lines = t["lines"].as_array().unwrap();
    let secs: Vec<f64> = lines.iter().map(|l| l["secs"].as_f64().unwrap()).collect();
    assert!(secs.windows(2).all(|w| w[0] <= w[1]), "{secs:?}");
    let elapsed = t["elapsedSecs"].as_f64().unwrap();
    assert!(secs.iter().all(|&s| s >= 0.0 && s <= elapsed + 1.0), "{t}");
    // The lines LCOV counts as run, and only those.
    let lcov = std::fs::read_to_string(&lcov).unwrap();
    let mut ran: Vec<u64> = (lcov.lines())
        .filter_map(|l| l.strip_prefix("DA:"))
        .filter_map(|l| l.split_once(','))
        .filter(|(_, count)| *count != "0")
        .map(|(line, _)| line.parse().unwrap())
        .collect();
    let mut timed: Vec<u64> = lines.iter().map(|l| l["line"].as_u64().unwrap()).collect();
    assert!(
        lines.iter().all(|l| l["file"] == "contracts/Sequence.sol"),
        "{t}"
    );
    ran.sort_unstable();
    timed.sort_unstable();
    assert_eq!(ran, timed);
    // The test: the same figures as the report's.
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    let test = (report["tests"].as_array().unwrap().iter())
        .find(|t| t["name"] == "echidna_not_closed")
        .unwrap();
    let found = &t["tests"][0];
    assert_eq!(found["name"], "echidna_not_closed");
    assert_eq!(found["secs"], test["foundAfterSecs"]);
    assert_eq!(found["calls"], test["foundAfterCalls"]);
    let calls = found["calls"].as_u64().unwrap();
    assert!(
        calls >= 3 && calls <= report["calls"].as_u64().unwrap(),
        "{report}"
    );
}

/// `--timeout` alone is a budget in time: the run ends on the timeout, not
/// at the default 50,000 calls; a config's `timeout` keeps Echidna's
/// meaning (the default call limit still applies).
#[test]
fn a_timeout_flag_alone_fuzzes_for_the_time_it_gives() {
    let dir = tempfile::tempdir().unwrap();
    let run = |extra: &[&str], out: &str| -> serde_json::Value {
        let o = Command::new(env!("CARGO_BIN_EXE_rudder"))
            .args(["fuzz", "contracts/out/Token.json", "--workers", "1"])
            .args(["--format", "json", "--no-ui", "--out-dir"])
            .arg(dir.path().join(out))
            .args(extra)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let r = run(&["--timeout", "1"], "flag");
    assert_eq!(r["endReason"], "timeout", "{r}");
    let yaml = dir.path().join("c.yaml");
    std::fs::write(&yaml, "timeout: 600\n").unwrap();
    let r = run(&["--config", yaml.to_str().unwrap()], "config");
    assert_eq!(
        (r["endReason"].as_str(), r["calls"].as_u64()),
        (Some("testLimit"), Some(50_000)),
        "{r}"
    );
}
