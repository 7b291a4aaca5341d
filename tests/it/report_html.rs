//! The self-contained HTML report (`rudder fuzz --report-html DIR`): the
//! uncovered line of a bundled contract is marked uncovered, the falsified
//! test shows its shrunk sequence replayed call by call, markup in the
//! target's source is shown as text; opened in headless Chromium the page
//! runs its script without a console message, loads nothing, and a
//! screenshot is taken (the README's, with RUDDER_SCREENSHOTS=docs).

use crate::common::browser;
use serde_json::Value;
use std::process::Command;

/// The line of `contracts/Showcase.sol` holding `needle` (1-based).
fn line_of(needle: &str) -> usize {
    let src = std::fs::read_to_string("contracts/Showcase.sol").unwrap();
    src.lines()
        .position(|l| l.contains(needle))
        .expect("the line")
        + 1
}

/// The class of the source row of line `n` in the report.
fn row_class(html: &str, n: usize) -> &str {
    let cell = format!("-L{n}\"><td class=\"n\">{n}</td>");
    let at = html
        .find(&cell)
        .unwrap_or_else(|| panic!("no row for line {n}"));
    let row = &html[html[..at].rfind("<tr class=\"").unwrap() + 11..];
    &row[..row.find('"').unwrap()]
}

#[test]
fn the_html_report_marks_uncovered_lines_shows_shrunk_sequences_and_runs_in_chromium() {
    let dir = tempfile::tempdir().unwrap();
    let report_dir = dir.path().join("report");
    let out = Command::new(env!("CARGO_BIN_EXE_rudder"))
        .args([
            "fuzz",
            "contracts/out/Showcase.json",
            "--workers",
            "1",
            "--seed",
            "7",
        ])
        .args(["--test-limit", "20000", "--format", "json", "--out-dir"])
        .arg(dir.path().join("out"))
        .arg("--report-html")
        .arg(&report_dir)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "a falsified test: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let index = report_dir.join("index.html");
    assert_eq!(report["html"], index.display().to_string());
    let html = std::fs::read_to_string(&index).unwrap();

    // The tests table's column says what it counts: the sequence's calls.
    assert!(html.contains("<th class=\"num\">sequence (calls)</th>"));
    // Markup in the target's source is text, not markup.
    assert!(html.contains("&lt;script&gt;document.title = &quot;the report ran"));
    assert!(!html.contains("<script>document.title"));
    // The line no call reaches is uncovered; the property's body is run.
    assert_eq!(row_class(&html, line_of("return 42;")), "miss");
    assert_eq!(row_class(&html, line_of("return stage < 2;")), "hit");
    // The falsified test with its shrunk sequence, each call replayed.
    let tests = report["tests"].as_array().unwrap();
    let i = tests
        .iter()
        .position(|t| t["name"] == "echidna_stage_below_two")
        .unwrap();
    let test = &tests[i];
    assert_eq!(test["status"], "falsified");
    let at = html
        .find(&format!("id=\"test-{i}\""))
        .expect("the falsified test's section");
    let section = &html[at..at + html[at..].find("</div>").unwrap()];
    assert!(section.contains("Shrunk sequence"), "{section}");
    for call in test["sequence"].as_array().unwrap() {
        let call = rudder::view::html::escape(call.as_str().unwrap());
        assert!(section.contains(&call), "{call} in {section}");
    }
    assert!(
        section.contains("<b>step</b>(uint256 key = 3)"),
        "{section}"
    );
    assert!(
        section.contains("<b>step</b>(uint256 key = 7)"),
        "{section}"
    );
    assert!(
        section.contains("breaks echidna_stage_below_two"),
        "{section}"
    );
    assert!(
        section.contains("Showcase.Staged("),
        "the decoded event: {section}"
    );
    // Nothing is fetched: no URL outside the page itself.
    assert!(!html.contains("http://") && !html.contains("https://") && !html.contains("src="));

    if browser::chromium().is_none() {
        eprintln!(
            "SKIPPED (Chromium part): no chromium on PATH (scripts/test.sh installs Debian's)"
        );
        return;
    }
    let png = dir.path().join("report.png");
    let page = browser::open(&index, Some((&png, 1280, 1600)));
    assert!(
        page.console.is_empty(),
        "console messages: {:#?}",
        page.console
    );
    assert!(page.dom.contains("data-ready=\"1\""), "the script ran");
    assert!(!page.dom.contains("data-errors=\""), "no script error");
    assert!(page.dom.contains("<title>rudder: Showcase</title>"));
    browser::keep_screenshot(&png, "report.png");
}

/// `rudder report`: the HTML report of a past run, written afterwards from
/// its output folder. The run's figures and charts come from its journal
/// (the header's calls are the run's own, to the call; the charts have one
/// point per journaled sample), tests and sequences from its reproducers.
#[test]
fn a_past_run_is_reported_from_its_journal() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("out");
    let run = Command::new(env!("CARGO_BIN_EXE_rudder"))
        .args(["fuzz", "contracts/out/Showcase.json", "--workers", "1"])
        .args(["--seed", "3", "--test-limit", "100000000", "--timeout", "2"])
        .args(["--format", "json", "--out-dir"])
        .arg(&out_dir)
        .output()
        .unwrap();
    assert_eq!(
        run.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let first: Value = serde_json::from_slice(&run.stdout).unwrap();
    let run_id = first["runId"].as_str().unwrap();

    // Every file of the run's folder, to compare after the reports (the
    // journal's shared-memory and WAL files excepted: SQLite's readers
    // touch them).
    let files = |root: &std::path::Path| {
        let mut out = std::collections::BTreeMap::new();
        let mut stack = vec![root.to_path_buf()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                let name = p.to_string_lossy().to_string();
                if p.is_dir() {
                    stack.push(p);
                } else if !name.ends_with("-shm") && !name.ends_with("-wal") {
                    out.insert(name, std::fs::read(&p).unwrap());
                }
            }
        }
        out
    };
    let before = files(&out_dir);

    let report_dir = dir.path().join("past");
    let past = Command::new(env!("CARGO_BIN_EXE_rudder"))
        .args(["report", "contracts/out/Showcase.json", "--out-dir"])
        .arg(&out_dir)
        .arg("--html")
        .arg(&report_dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&past.stdout);
    assert_eq!(
        past.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&past.stderr)
    );
    assert!(stdout.contains(run_id), "{stdout}");
    let html = std::fs::read_to_string(report_dir.join("index.html")).unwrap();

    // The run's own figures, not the replay's.
    assert!(
        html.contains(&format!("{run_id} (from its journal)")),
        "the run's id"
    );
    let calls = first["calls"].as_u64().unwrap();
    assert!(calls > 0);
    assert!(
        html.contains(&format!("<dt>calls</dt><dd>{calls} (")),
        "the run's {calls} calls in the header"
    );
    assert!(html.contains("<dt>seed</dt><dd>3</dd>"));
    assert!(
        html.contains("<dt>ended</dt><dd>timeout</dd>"),
        "why it ended"
    );
    assert!(html.contains("test limit 100000000"));
    // Charts from the journaled samples: four a second for two seconds.
    let chart = &html[html.find("id=\"chart-coverage\"").expect("the chart")..];
    let path = &chart[chart.find(" d=\"").expect("a line") + 4..];
    let points = path[..path.find('"').unwrap()].matches(',').count();
    assert!(
        points >= 5,
        "{points} points in {}",
        &path[..200.min(path.len())]
    );
    // Tests and sequences from the run's reproducers.
    assert!(html.contains("<b>step</b>(uint256 key = 3)"));
    assert!(html.contains("breaks echidna_stage_below_two"));
    // ... found by the run's workers, not by the replay.
    assert!(
        html.contains("<td>worker (replayed: resume)</td>"),
        "who found it in the run"
    );
    // The replay added no run to the journal: the latest is still the run.
    let again = Command::new(env!("CARGO_BIN_EXE_rudder"))
        .args(["report", "contracts/out/Showcase.json", "--out-dir"])
        .arg(&out_dir)
        .arg("--html")
        .arg(dir.path().join("again"))
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&again.stdout).contains(run_id));

    // Bad input: exit 2, naming the flag, nothing written.
    let bad = |args: &[&str], out: &std::path::Path, needle: &str| {
        let html = dir.path().join("bad");
        let o = Command::new(env!("CARGO_BIN_EXE_rudder"))
            .args(["report", "contracts/out/Showcase.json", "--out-dir"])
            .arg(out)
            .arg("--html")
            .arg(&html)
            .args(args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains(needle), "{needle} in {err}");
        assert!(!html.exists(), "nothing written");
    };
    bad(&["--run", "no-such-run"], &out_dir, "--run: ");
    bad(&["--run", "no-such-run"], &out_dir, run_id);
    bad(&[], &dir.path().join("empty"), "--out-dir: ");
    bad(&["--contract", "Sequence"], &out_dir, "--contract");
    // The run's folder was only read: the same files, byte for byte.
    let after = files(&out_dir);
    assert_eq!(
        before.keys().collect::<Vec<_>>(),
        after.keys().collect::<Vec<_>>(),
        "reports added or removed nothing in the run's folder"
    );
    assert!(
        before == after,
        "reports changed no file of the run's folder"
    );
}
