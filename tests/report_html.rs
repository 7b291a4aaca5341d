//! The self-contained HTML report (`rudder fuzz --report-html DIR`): the
//! uncovered line of a bundled contract is marked uncovered, the falsified
//! test shows its shrunk sequence replayed call by call, markup in the
//! target's source is shown as text; opened in headless Chromium the page
//! runs its script without a console message, loads nothing, and a
//! screenshot is taken (the README's, with RUDDER_SCREENSHOTS=docs).

mod common;

use common::browser;
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
