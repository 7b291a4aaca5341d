//! The self-contained HTML report: one `index.html` with every source file's
//! covered and uncovered lines and branches (the LCOV's data), per-function
//! hit counts, every test with its status and its original and shrunk
//! sequence (each call replayed and described), the coverage and calls/s
//! charts from the metrics history, and a summary header.
//!
//! Of a running (or just finished) campaign, the charts and run figures are
//! the live history's; of a past run ([`History::Past`], `rudder report`),
//! the journal's: the run's settings and samples kept by the ops family
//! ([`crate::ops::rows::load_run`]), while tests, sequences and coverage
//! come from replaying the run's corpus and reproducers.
//!
//! Safe to open from a CI artifact: every string of the target (sources,
//! names, revert reasons, event data) is escaped; the page loads nothing
//! (inline CSS and SVG, no network); its one script is allowed by its hash
//! in a Content-Security-Policy that allows nothing else, so even a string
//! that escaped escaping could not run.

use super::sequence::{CallView, SequenceView};
use crate::campaign::report::Report;
use crate::campaign::{CampaignRead, persist};
use crate::coverage::lcov::{CoverageReport, FileCoverage, percent};
use crate::ops::rows::RunHistory;
use crate::ops::{Metric, Sample};
use base64::Engine as _;
use sha2::Digest;
use std::collections::HashMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The report's file in its folder.
pub const FILE_NAME: &str = "index.html";
/// The folder `write_html_report` writes to inside the exports folder when
/// given none.
pub const DEFAULT_DIR: &str = "report";

/// A rendered report.
#[derive(Clone, Debug)]
pub struct HtmlReport {
    pub html: String,
    /// Source files shown.
    pub files: usize,
    pub tests: usize,
    /// Falsified tests whose shrunk sequence was replayed in full.
    pub replayed: usize,
}

/// Why a report could not be written.
#[derive(Debug, thiserror::Error)]
pub enum HtmlError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: no journal here (the run kept none, or this is not its corpus directory)")]
    NoJournal { path: PathBuf },
    #[error("journal {path}: {source}")]
    Journal {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error("journal {path}: no run {run:?}; runs with a history: {known}")]
    NoRun {
        path: PathBuf,
        run: String,
        known: String,
    },
    #[error(
        "journal {path}: no run has a metrics history (runs journal one since this version; an older run has none)"
    )]
    NoHistory { path: PathBuf },
}

/// Where the report's run figures and charts come from.
#[derive(Clone, Copy, Debug)]
pub enum History<'a> {
    /// The campaign's own metrics history, as of now.
    Live,
    /// A past run as its journal holds it.
    Past(&'a RunHistory),
}

/// Run `run` of the journal database `db` (default: the latest run that
/// has a metrics history), read-only.
pub fn load_history(db: &Path, run: Option<&str>) -> Result<RunHistory, HtmlError> {
    if !db.is_file() {
        return Err(HtmlError::NoJournal {
            path: db.to_path_buf(),
        });
    }
    let err = |source| HtmlError::Journal {
        path: db.to_path_buf(),
        source,
    };
    let conn = rusqlite::Connection::open_with_flags(
        db,
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(err)?;
    let known = crate::ops::rows::runs_with_samples(&conn).map_err(err)?;
    let id = match run {
        Some(r) => r.to_string(),
        None => match known.last() {
            Some((id, _)) => id.clone(),
            None => {
                return Err(HtmlError::NoHistory {
                    path: db.to_path_buf(),
                });
            }
        },
    };
    match crate::ops::rows::load_run(&conn, &id).map_err(err)? {
        Some(h) if !h.samples.is_empty() => Ok(h),
        _ => Err(HtmlError::NoRun {
            path: db.to_path_buf(),
            run: id,
            known: if known.is_empty() {
                "none".into()
            } else {
                known
                    .iter()
                    .map(|(r, _)| r.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            },
        }),
    }
}

/// `&`, `<`, `>`, `"` and `'` as entities: safe in text and in quoted
/// attributes.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The solc version the runtime code's CBOR metadata names
/// (`…64 "solc" 43 major minor patch…` near its end), when present.
pub fn solc_version(code: &[u8]) -> Option<String> {
    const KEY: &[u8] = b"\x64solc\x43";
    let tail = &code[code.len().saturating_sub(96)..];
    let at = tail.windows(KEY.len()).rposition(|w| w == KEY)? + KEY.len();
    let v = tail.get(at..at + 3)?;
    Some(format!("{}.{}.{}", v[0], v[1], v[2]))
}

const SCRIPT: &str = r#"(function () {
  var errors = [];
  window.addEventListener('error', function (e) {
    errors.push(String(e.message));
    document.body.setAttribute('data-errors', errors.join('\n'));
  });
  var only = document.getElementById('only-uncovered');
  function apply() { document.body.classList.toggle('only-uncovered', only.checked); }
  only.addEventListener('change', apply);
  apply();
  function reveal() {
    var el = document.getElementById(decodeURIComponent(location.hash.slice(1)));
    for (; el; el = el.parentElement) { if (el.tagName === 'DETAILS') { el.open = true; } }
  }
  window.addEventListener('hashchange', reveal);
  reveal();
  document.body.setAttribute('data-ready', '1');
})();"#;

const STYLE: &str = r#"
:root { --fg:#1d2330; --muted:#5b6474; --line:#e3e6ec; --hit:#e3f6e6; --miss:#fde2e1; --part:#fff3cd; --bad:#b42318; --good:#1a7f37; --warn:#9a6700; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); margin: 0; background: #f6f7f9; }
header, main, footer { max-width: 1200px; margin: 0 auto; padding: 16px 24px; }
header { background: #fff; border-bottom: 1px solid var(--line); max-width: none; }
header > div { max-width: 1152px; margin: 0 auto; }
h1 { font-size: 20px; margin: 0 0 8px; }
h2 { font-size: 17px; margin: 28px 0 10px; }
h3 { font-size: 15px; margin: 16px 0 6px; }
nav a { margin-right: 14px; color: #0b5cad; text-decoration: none; }
dl.summary { display: grid; grid-template-columns: repeat(auto-fill, minmax(220px, 1fr)); gap: 6px 18px; margin: 10px 0 0; }
dl.summary div { display: flex; gap: 6px; }
dl.summary dt { color: var(--muted); }
dl.summary dd { margin: 0; font-weight: 600; overflow-wrap: anywhere; }
table { border-collapse: collapse; background: #fff; width: 100%; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f0f2f5; font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; }
.status { display: inline-block; padding: 0 8px; border-radius: 10px; font-weight: 600; font-size: 12px; }
.status.falsified, .status.shrinking { background: var(--miss); color: var(--bad); }
.status.passing, .status.optimized { background: var(--hit); color: var(--good); }
.status.open { background: #eef; color: #334; }
.test { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 10px 14px; margin: 10px 0; }
.test .reason { color: var(--bad); }
.seq { table-layout: fixed; }
.seq td { font-size: 12.5px; overflow-wrap: anywhere; }
.seq .ok { color: var(--good); }
.seq .failed { color: var(--bad); }
.seq ul { margin: 0; padding-left: 16px; }
.muted { color: var(--muted); }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(420px, 1fr)); gap: 16px; }
.chart { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; }
.chart svg { width: 100%; height: auto; }
.chart text { font: 11px system-ui, sans-serif; fill: var(--muted); }
details.file { background: #fff; border: 1px solid var(--line); border-radius: 6px; margin: 10px 0; }
details.file > summary { padding: 8px 12px; cursor: pointer; font-weight: 600; }
table.src td { border: 0; padding: 0 8px; }
table.src td.n, table.src td.c { text-align: right; color: var(--muted); user-select: none; width: 1%; white-space: nowrap; }
table.src td.s { white-space: pre; tab-size: 4; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; width: 100%; }
table.src td.b { white-space: nowrap; width: 1%; }
tr.hit td.s, tr.hit td.c { background: var(--hit); }
tr.miss td.s, tr.miss td.c { background: var(--miss); }
tr.part td.s, tr.part td.c { background: var(--part); }
.br { display: inline-block; min-width: 14px; text-align: center; border-radius: 3px; font-size: 11px; font-weight: 700; }
.br.t { color: var(--good); }
.br.u { color: var(--bad); background: var(--miss); }
body.only-uncovered tr.hit, body.only-uncovered tr.none { display: none; }
footer { color: var(--muted); font-size: 12px; }
"#;

/// Renders the report of `read` as of now; falsified sequences are replayed
/// until `deadline` (past it, calls are shown as printed).
pub fn render(read: &CampaignRead, deadline: Instant) -> HtmlReport {
    render_of(read, deadline, History::Live)
}

/// Renders the report with the run figures and charts of `history`.
pub fn render_of(read: &CampaignRead, deadline: Instant, history: History<'_>) -> HtmlReport {
    let report = read.report();
    let coverage = read.coverage_report();
    let samples = match history {
        History::Live => read.ops().history.with_now(read.sample_now()),
        History::Past(p) => p.samples.clone(),
    };
    let mut h = String::with_capacity(256 * 1024);
    let script_hash =
        base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(SCRIPT));
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-{script_hash}'\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>rudder: {}</title><style>{STYLE}</style></head><body>\n",
        escape(&report.contract)
    );
    header(&mut h, read, &report, history);
    h.push_str("<main>\n");
    let replayed = tests(&mut h, read, &report, deadline);
    charts(&mut h, &samples);
    let files = coverage_section(&mut h, read, &coverage);
    h.push_str("</main>\n");
    let _ = writeln!(
        h,
        "<footer>Written by rudder {} at {}. The coverage is the LCOV's; the sequences were replayed on a copy of the deployed state.</footer>",
        env!("CARGO_PKG_VERSION"),
        crate::campaign::rfc3339(crate::eventlog::now_ms())
    );
    let _ = write!(h, "<script>{SCRIPT}</script>\n</body></html>\n");
    HtmlReport {
        html: h,
        files,
        tests: report.tests.len(),
        replayed,
    }
}

/// Renders the report and writes it to `dir/index.html` (atomically; the
/// folder is created).
pub fn write(
    read: &CampaignRead,
    dir: &Path,
    deadline: Instant,
) -> Result<(PathBuf, HtmlReport), HtmlError> {
    write_of(read, dir, deadline, History::Live)
}

/// [`write()`] with the run figures and charts of `history`.
pub fn write_of(
    read: &CampaignRead,
    dir: &Path,
    deadline: Instant,
    history: History<'_>,
) -> Result<(PathBuf, HtmlReport), HtmlError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| HtmlError::Io { path, source }
    };
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let report = render_of(read, deadline, history);
    let path = dir.join(FILE_NAME);
    persist::write_atomic(&path, report.html.as_bytes()).map_err(io(&path))?;
    Ok((path, report))
}

fn header(h: &mut String, read: &CampaignRead, r: &Report, history: History<'_>) {
    let target = read.target();
    let config = read.config();
    let c = &r.coverage;
    let falsified = r.tests.iter().filter(|t| t.status.is_falsified()).count();
    let _ = write!(
        h,
        "<header><div><h1>rudder report: {}</h1>\
         <nav><a href=\"#tests\">Tests</a><a href=\"#charts\">Over time</a><a href=\"#coverage\">Coverage</a></nav>\
         <dl class=\"summary\">",
        escape(&r.contract)
    );
    let mut item = |k: &str, v: String| {
        let _ = write!(
            h,
            "<div><dt>{}</dt><dd>{}</dd></div>",
            escape(k),
            escape(&v)
        );
    };
    item("source", target.contract.source.clone());
    item(
        "compiler",
        solc_version(&target.contract.runtime_code)
            .map_or("unknown".into(), |v| format!("solc {v}"))
            + if target.project.optimized {
                " (optimizer on)"
            } else {
                ""
            },
    );
    item(
        "suite",
        r.suite
            .clone()
            .unwrap_or_else(|| format!("{} mode", config.test_mode.as_str())),
    );
    item(
        "tests",
        format!("{} ({falsified} falsified)", r.tests.len()),
    );
    let run = RunFigures::of(read, r, history);
    item("seed", run.seed);
    item("workers", run.workers);
    item(
        "calls",
        format!("{} ({:.0}/s)", run.calls, run.calls_per_sec),
    );
    item("duration", format!("{:.1} s", run.secs));
    item("ended", run.ended);
    item(
        "sequence length",
        format!("{} calls, test limit {}", run.seq_len, run.test_limit),
    );
    item("shrink limit", run.shrink_limit);
    item(
        "corpus",
        format!("{} sequences, {} calls", r.corpus_sequences, r.corpus_calls),
    );
    item(
        "lines",
        format!("{}/{} ({}%)", c.lines_hit, c.lines, c.line_percent),
    );
    item(
        "branches",
        format!("{}/{} ({}%)", c.branches_hit, c.branches, c.branch_percent),
    );
    if let Some(f) = &r.fork {
        item(
            "fork",
            format!("{} at block {} (chain {})", f.url, f.block, f.chain_id),
        );
    }
    item("run", run.run_id);
    h.push_str("</dl></div></header>\n");
}

/// The header's figures of the run the report is of.
struct RunFigures {
    run_id: String,
    seed: String,
    workers: String,
    calls: u64,
    calls_per_sec: f64,
    secs: f64,
    ended: String,
    seq_len: String,
    test_limit: String,
    shrink_limit: String,
}

impl RunFigures {
    fn of(read: &CampaignRead, r: &Report, history: History<'_>) -> RunFigures {
        let config = read.config();
        let History::Past(p) = history else {
            return RunFigures {
                run_id: r.run_id.clone(),
                seed: r.seed.to_string(),
                workers: r.workers.to_string(),
                calls: r.calls,
                calls_per_sec: r.calls_per_sec,
                secs: r.elapsed_secs,
                ended: read
                    .end_reason()
                    .map_or_else(|| "still running".to_string(), |e| e.as_str().to_string()),
                seq_len: config.seq_len.to_string(),
                test_limit: limit(config.test_limit),
                shrink_limit: config.shrink_limit.to_string(),
            };
        };
        let last = p.samples.last().copied().unwrap_or_default();
        let secs = last.t_ms.saturating_sub(p.started_ms) as f64 / 1000.0;
        let unknown = || "unknown (not journaled)".to_string();
        let s = p.settings.as_ref();
        RunFigures {
            run_id: format!("{} (from its journal)", p.run_id),
            seed: s.map_or_else(unknown, |s| s.seed.to_string()),
            workers: s.map_or_else(unknown, |s| s.workers.to_string()),
            calls: last.calls,
            calls_per_sec: if secs > 0.0 {
                last.calls as f64 / secs
            } else {
                0.0
            },
            secs,
            ended: p.ended.clone().unwrap_or_else(|| {
                "no end recorded (still running, or the process was killed)".to_string()
            }),
            seq_len: s.map_or_else(unknown, |s| s.seq_len.to_string()),
            test_limit: s.map_or_else(unknown, |s| limit(s.test_limit)),
            shrink_limit: s.map_or_else(unknown, |s| s.shrink_limit.to_string()),
        }
    }
}

fn limit(n: u64) -> String {
    if n == crate::config::UNLIMITED {
        "none".into()
    } else {
        n.to_string()
    }
}

/// Writes the tests section; returns how many falsified sequences were
/// replayed in full.
fn tests(h: &mut String, read: &CampaignRead, r: &Report, deadline: Instant) -> usize {
    let _ = writeln!(h, "<h2 id=\"tests\">Tests</h2>");
    h.push_str(
        "<table><tr><th>status</th><th>test</th><th>kind</th><th class=\"num\">sequence (calls)</th><th class=\"num\">shrink steps</th><th>found by</th></tr>\n",
    );
    for (i, t) in r.tests.iter().enumerate() {
        let _ = writeln!(
            h,
            "<tr><td><span class=\"status {s}\">{s}</span></td><td><a href=\"#test-{i}\" class=\"mono\">{}</a></td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td></tr>",
            escape(&t.name),
            t.kind.as_str(),
            // The counterexample's (or best sequence's) length; none for a
            // test that holds.
            if t.sequence.is_empty() && !t.status.is_falsified() {
                "–".to_string()
            } else {
                t.sequence.len().to_string()
            },
            t.shrink_steps.map_or(String::new(), |n| n.to_string()),
            match (t.found_by, t.first_found_by) {
                // A reproducer replayed (`rudder report`, a resumed run):
                // who found it in the run that did, first.
                (Some(by), Some(first)) => format!("{first} (replayed: {by})"),
                (by, _) => by.unwrap_or("").to_string(),
            },
            s = t.status.as_str(),
        );
    }
    h.push_str("</table>\n");
    let mut replayed = 0;
    for (i, (case, t)) in read.tests().cases().zip(&r.tests).enumerate() {
        if t.sequence.is_empty() && !t.status.is_falsified() {
            continue;
        }
        let _ = write!(
            h,
            "<div class=\"test\" id=\"test-{i}\"><h3><span class=\"status {s}\">{s}</span> <span class=\"mono\">{}</span></h3>",
            escape(&t.name),
            s = t.status.as_str(),
        );
        if let Some(reason) = &t.reason {
            let _ = write!(h, "<p class=\"reason\">{}</p>", escape(reason));
        }
        if let Some(v) = &t.value {
            let _ = write!(
                h,
                "<p>best value: <span class=\"mono\">{}</span></p>",
                escape(v)
            );
        }
        let shrunk = read.tests().sequence(case.id).unwrap_or_default();
        let original = read.tests().falsified(case.id).map(|f| f.original.clone());
        let view = SequenceView::replayed(read, &shrunk, deadline);
        replayed += usize::from(view.replayed && t.status.is_falsified());
        let label = if t.status.is_falsified() {
            "Shrunk sequence"
        } else {
            "Sequence"
        };
        let _ = write!(
            h,
            "<p><b>{label}</b> ({} call{}{})</p>",
            view.calls.len(),
            if view.calls.len() == 1 { "" } else { "s" },
            t.shrink_steps
                .map_or(String::new(), |n| format!(", after {n} shrink steps"))
        );
        sequence_table(h, &view);
        if let Some(original) = original.filter(|o| *o != shrunk) {
            let printed = read.print_sequence(&original);
            let _ = write!(
                h,
                "<details><summary>Original sequence ({} call{}, as found)</summary><ol class=\"mono\">",
                printed.len(),
                if printed.len() == 1 { "" } else { "s" }
            );
            for c in printed {
                let _ = write!(h, "<li>{}</li>", escape(&c));
            }
            h.push_str("</ol></details>");
        }
        h.push_str("</div>\n");
    }
    replayed
}

/// The sequence view: one row per call.
pub fn sequence_table(h: &mut String, view: &SequenceView) {
    h.push_str(
        "<table class=\"seq\"><colgroup><col style=\"width:3%\"><col style=\"width:21%\"><col style=\"width:15%\"><col style=\"width:8%\"><col style=\"width:7%\"><col style=\"width:16%\"><col style=\"width:12%\"><col style=\"width:18%\"></colgroup><tr><th class=\"num\">#</th><th>call</th><th>from</th><th class=\"num\">value (wei)</th><th>delay</th><th>result</th><th>returns</th><th>events</th></tr>\n",
    );
    for (i, c) in view.calls.iter().enumerate() {
        let _ = write!(
            h,
            "<tr><td class=\"num\">{}</td><td class=\"mono\">{}</td><td class=\"mono\">{}</td><td class=\"num mono\">{}</td><td>{}</td>",
            i + 1,
            call_cell(c),
            escape(&c.sender),
            escape(&c.value),
            delay(c),
        );
        match &c.result {
            None => h.push_str("<td class=\"muted\">not replayed</td><td></td><td></td>"),
            Some(r) => {
                let class = if r.outcome == "success" {
                    "ok"
                } else {
                    "failed"
                };
                let _ = write!(h, "<td class=\"{class}\">{}", escape(&r.outcome));
                if let Some(reason) = &r.reason {
                    let _ = write!(h, ": {}", escape(reason));
                }
                if !r.failing.is_empty() {
                    let _ = write!(
                        h,
                        "<br><b class=\"failed\">breaks {}</b>",
                        escape(&r.failing.join(", "))
                    );
                }
                let _ = write!(
                    h,
                    "<br><span class=\"muted\">gas {}</span></td><td class=\"mono\">",
                    r.gas_used
                );
                for v in &r.returns {
                    let _ = write!(h, "{}<br>", escape(&named(&v.name, &v.ty, &v.value)));
                }
                h.push_str("</td><td class=\"mono\">");
                if !r.events.is_empty() {
                    h.push_str("<ul>");
                    for e in &r.events {
                        let args: Vec<String> = e
                            .args
                            .iter()
                            .map(|a| named(&a.name, &a.ty, &a.value))
                            .collect();
                        let name = e.name.clone().unwrap_or_else(|| {
                            format!(
                                "log{} [{}] {}",
                                e.topics.len(),
                                e.topics.join(", "),
                                e.data.clone().unwrap_or_default()
                            )
                        });
                        let _ = write!(
                            h,
                            "<li>{}{}({})</li>",
                            e.contract
                                .as_deref()
                                .map(|c| format!("{}.", escape(c)))
                                .unwrap_or_default(),
                            escape(&name),
                            escape(&args.join(", "))
                        );
                    }
                    h.push_str("</ul>");
                }
                h.push_str("</td>");
            }
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</table>\n");
}

fn call_cell(c: &CallView) -> String {
    let target = c
        .contract
        .as_deref()
        .map(|t| format!("{}.", escape(t)))
        .unwrap_or_default();
    let args: Vec<String> = c
        .args
        .iter()
        .map(|a| named(&a.name, &a.ty, &a.value))
        .collect();
    format!(
        "{target}<b>{}</b>({})<br><span class=\"muted\">{}</span>",
        escape(&c.function),
        escape(&args.join(", ")),
        escape(&c.call)
    )
}

fn named(name: &str, ty: &str, value: &str) -> String {
    if name.is_empty() {
        format!("{ty} {value}")
    } else {
        format!("{ty} {name} = {value}")
    }
}

fn delay(c: &CallView) -> String {
    match (c.delay_seconds, c.delay_blocks) {
        (0, 0) => String::new(),
        (s, 0) => format!("+{s} s"),
        (0, b) => format!("+{b} blocks"),
        (s, b) => format!("+{s} s, +{b} blocks"),
    }
}

/// Points a chart draws at most: a day's run journals ~52,000 samples
/// (the live history holds up to 16,384); evenly spaced ones (the first and last kept) draw the same lines in a
/// page that opens at once. Calls/s between two kept samples is the mean
/// rate over the samples between them.
const MAX_CHART_POINTS: usize = 1_500;

/// At most [`MAX_CHART_POINTS`] of `samples`, evenly spaced, the first and
/// the last kept.
fn thin(samples: &[Sample]) -> Vec<Sample> {
    let n = samples.len();
    if n <= MAX_CHART_POINTS {
        return samples.to_vec();
    }
    let last = MAX_CHART_POINTS - 1;
    (0..=last).map(|i| samples[i * (n - 1) / last]).collect()
}

fn charts(h: &mut String, samples: &[Sample]) {
    let samples = &thin(samples)[..];
    h.push_str("<h2 id=\"charts\">Over time</h2><div class=\"charts\">\n");
    let t0 = samples.first().map_or(0, |s| s.t_ms);
    let points = |m: Metric| -> Vec<(f64, f64)> {
        samples
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let prev = i.checked_sub(1).map(|p| &samples[p]);
                ((s.t_ms - t0) as f64 / 1000.0, m.value(s, prev))
            })
            .skip(usize::from(m == Metric::CallsPerSecond))
            .collect()
    };
    chart(
        h,
        "chart-coverage",
        "Coverage points",
        &points(Metric::CoveragePoints),
    );
    chart(
        h,
        "chart-calls",
        "Calls per second",
        &points(Metric::CallsPerSecond),
    );
    chart(
        h,
        "chart-corpus",
        "Corpus sequences",
        &points(Metric::CorpusSize),
    );
    h.push_str("</div>\n");
}

/// A line chart as inline SVG.
fn chart(h: &mut String, id: &str, title: &str, pts: &[(f64, f64)]) {
    const W: f64 = 560.0;
    const H: f64 = 170.0;
    const L: f64 = 54.0;
    const B: f64 = 22.0;
    let _ = write!(
        h,
        "<div class=\"chart\" id=\"{id}\"><b>{}</b>",
        escape(title)
    );
    if pts.len() < 2 {
        h.push_str("<p class=\"muted\">Not enough samples (the run was shorter than a second).</p></div>\n");
        return;
    }
    let tmax = pts.last().map_or(1.0, |p| p.0).max(1e-3);
    let vmax = pts.iter().map(|p| p.1).fold(0.0_f64, f64::max).max(1.0);
    let x = |t: f64| L + (W - L - 8.0) * t / tmax;
    let y = |v: f64| 8.0 + (H - B - 8.0) * (1.0 - v / vmax);
    let mut path = String::new();
    for (i, (t, v)) in pts.iter().enumerate() {
        let _ = write!(
            path,
            "{}{:.1},{:.1}",
            if i == 0 { "M" } else { " L" },
            x(*t),
            y(*v)
        );
    }
    let last = pts.last().map_or(0.0, |p| p.1);
    let _ = writeln!(
        h,
        "<svg viewBox=\"0 0 {W} {H}\" role=\"img\" aria-label=\"{t}\"><title>{t}: {last:.0} at {tmax:.1} s</title>\
         <line x1=\"{L}\" y1=\"{y0:.1}\" x2=\"{xr:.1}\" y2=\"{y0:.1}\" stroke=\"#c9ced6\"/>\
         <line x1=\"{L}\" y1=\"8\" x2=\"{L}\" y2=\"{y0:.1}\" stroke=\"#c9ced6\"/>\
         <text x=\"{lx:.1}\" y=\"12\" text-anchor=\"end\">{vmax:.0}</text>\
         <text x=\"{lx:.1}\" y=\"{y0:.1}\" text-anchor=\"end\">0</text>\
         <text x=\"{L}\" y=\"{ty:.1}\">0 s</text>\
         <text x=\"{xr:.1}\" y=\"{ty:.1}\" text-anchor=\"end\">{tmax:.1} s</text>\
         <path d=\"{path}\" fill=\"none\" stroke=\"#0b5cad\" stroke-width=\"1.6\"/></svg></div>",
        t = escape(title),
        y0 = y(0.0),
        xr = W - 8.0,
        lx = L - 4.0,
        ty = H - 6.0,
    );
}

/// Writes the coverage section; returns how many files it shows.
fn coverage_section(h: &mut String, read: &CampaignRead, cov: &CoverageReport) -> usize {
    let texts: HashMap<&str, &str> = read
        .target()
        .project
        .sources
        .iter()
        .filter_map(|s| Some((s.path.as_str(), s.text.as_deref()?)))
        .collect();
    let own = read.target().contract.source.as_str();
    let mut files: Vec<(usize, &FileCoverage)> = cov.files.iter().enumerate().collect();
    // The target's own source first, then by path.
    files.sort_by_key(|(_, f)| (f.path != own, f.path.clone()));
    h.push_str(
        "<h2 id=\"coverage\">Coverage</h2>\
         <p><label><input type=\"checkbox\" id=\"only-uncovered\"> show only uncovered and partly covered lines</label> \
         <span class=\"muted\">Green: run; red: never run; yellow: run, with a branch outcome never taken. \
         Branch marks: <span class=\"br t\">+</span> taken, <span class=\"br u\">-</span> never taken (jumped, then fell through).</span></p>\n",
    );
    h.push_str(
        "<table><tr><th>file</th><th class=\"num\">lines</th><th class=\"num\">%</th><th class=\"num\">branches</th><th class=\"num\">%</th><th class=\"num\">functions</th></tr>\n",
    );
    for (i, f) in &files {
        let (b, bh) = f.branch_outcomes();
        let fh = f.functions.iter().filter(|x| x.2 > 0).count();
        let _ = writeln!(
            h,
            "<tr><td><a class=\"mono\" href=\"#file-{i}\">{}</a></td><td class=\"num\">{}/{}</td><td class=\"num\">{}</td><td class=\"num\">{bh}/{b}</td><td class=\"num\">{}</td><td class=\"num\">{fh}/{}</td></tr>",
            escape(&f.path),
            f.lines_hit(),
            f.lines.len(),
            percent(f.lines_hit(), f.lines.len()),
            percent(bh, b),
            f.functions.len(),
        );
    }
    h.push_str("</table>\n");
    for (i, f) in &files {
        let _ = write!(
            h,
            "<details class=\"file\" id=\"file-{i}\"{}><summary>{} <span class=\"muted\">{}/{} lines</span></summary>",
            if f.path == own { " open" } else { "" },
            escape(&f.path),
            f.lines_hit(),
            f.lines.len()
        );
        if !f.functions.is_empty() {
            h.push_str("<table><tr><th>function</th><th class=\"num\">line</th><th class=\"num\">hits</th></tr>");
            for (name, line, count) in &f.functions {
                let _ = write!(
                    h,
                    "<tr class=\"{}\"><td class=\"mono\"><a href=\"#file-{i}-L{line}\">{}</a></td><td class=\"num\">{line}</td><td class=\"num\">{count}</td></tr>",
                    if *count > 0 { "hit" } else { "miss" },
                    escape(name)
                );
            }
            h.push_str("</table>");
        }
        match texts.get(f.path.as_str()) {
            None => h.push_str("<p class=\"muted\">The source text was not found; counts are in the table above and the LCOV.</p>"),
            Some(text) => source_table(h, *i, f, text),
        }
        h.push_str("</details>\n");
    }
    files.len()
}

fn source_table(h: &mut String, file: usize, f: &FileCoverage, text: &str) {
    // line -> branch outcomes on it
    let mut branches: HashMap<u32, Vec<Option<(u64, u64)>>> = HashMap::new();
    for ((line, _), b) in &f.branches {
        branches.entry(*line).or_default().push(*b);
    }
    h.push_str("<table class=\"src\">");
    for (n, src) in text.lines().enumerate() {
        let line = n as u32 + 1;
        let count = f.lines.get(&line).copied();
        let marks = branches.get(&line);
        let untaken =
            marks.is_some_and(|bs| bs.iter().any(|b| b.is_none_or(|(j, fl)| j == 0 || fl == 0)));
        let class = match count {
            None => "none",
            Some(0) => "miss",
            Some(_) if untaken => "part",
            Some(_) => "hit",
        };
        let _ = write!(
            h,
            "<tr class=\"{class}\" id=\"file-{file}-L{line}\"><td class=\"n\">{line}</td><td class=\"c\">{}</td><td class=\"b\">",
            count.map_or(String::new(), |c| c.to_string()),
        );
        for b in marks.into_iter().flatten() {
            let (j, fl) = b.unwrap_or((0, 0));
            for (taken, what) in [(j > 0, "jumped"), (fl > 0, "fell through")] {
                let _ = write!(
                    h,
                    "<span class=\"br {}\" title=\"{what}: {}\">{}</span>",
                    if taken { "t" } else { "u" },
                    if taken { "taken" } else { "never taken" },
                    if taken { '+' } else { '-' }
                );
            }
        }
        let _ = writeln!(h, "</td><td class=\"s\">{}</td></tr>", escape(src));
    }
    h.push_str("</table>");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_histories_are_thinned_evenly_keeping_both_ends() {
        let samples: Vec<Sample> = (0..345_600u64)
            .map(|i| Sample {
                t_ms: i * 250,
                calls: i * 1000,
                ..Sample::default()
            })
            .collect();
        let thinned = thin(&samples);
        assert_eq!(thinned.len(), MAX_CHART_POINTS);
        assert_eq!(thinned[0], samples[0]);
        assert_eq!(thinned.last(), samples.last());
        assert!(thinned.windows(2).all(|w| w[0].t_ms < w[1].t_ms));
        // The rate between kept samples is the run's: 4,000 calls/s.
        let rate = Metric::CallsPerSecond.value(&thinned[7], Some(&thinned[6]));
        assert!((rate - 4_000.0).abs() < 1e-6, "{rate}");
        assert_eq!(thin(&samples[..10]), &samples[..10]);
    }

    #[test]
    fn escape_leaves_no_markup() {
        assert_eq!(
            escape("<script>alert(\"x\" & 'y')</script>"),
            "&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)&lt;/script&gt;"
        );
    }

    #[test]
    fn solc_version_is_read_from_the_metadata_tail() {
        // ... a2 64 'ipfs' 58 22 <34 bytes> 64 'solc' 43 00 08 1e 00 33
        let mut code = vec![0x60, 0x80, 0xa2, 0x64, b'i', b'p', b'f', b's', 0x58, 0x22];
        code.extend([7u8; 34]);
        code.extend(b"\x64solc\x43\x00\x08\x1e\x00\x33");
        assert_eq!(solc_version(&code).as_deref(), Some("0.8.30"));
        assert_eq!(solc_version(&[0x60, 0x80]), None);
    }
}
