//! The live dashboard (`rudder fuzz --ui`) driven under tmux: tests,
//! coverage and a falsified sequence appear on a bundled contract; `q` ends
//! the campaign with its corpus and reproducers written. The pane, colours
//! included, is rendered to HTML and photographed by headless Chromium (the
//! README's screenshot, with RUDDER_SCREENSHOTS=docs).

use crate::common;

use crate::common::browser;
use std::process::Command;
use std::time::{Duration, Instant};

struct Tmux {
    socket: String,
}

impl Tmux {
    fn run(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("tmux");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The pane's text (with `escapes`, its colours as SGR sequences).
    fn capture(&self, escapes: bool) -> String {
        let mut args = vec!["capture-pane", "-p", "-t", "dash"];
        if escapes {
            args.push("-e");
        }
        self.run(&args)
    }

    /// Waits until the pane shows every one of `needles`.
    fn wait_for(&self, needles: &[&str], secs: u64) -> String {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            let pane = self.capture(false);
            if needles.iter().all(|n| pane.contains(n)) {
                return pane;
            }
            assert!(
                Instant::now() < deadline,
                "gave up waiting for {needles:?}; the pane:\n{pane}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Tmux {
    /// `rudder ARGS` (a dashboard) in a detached tmux session of `width` ×
    /// `height`, then `EXIT=<code>` once it exits; `None` (said) without
    /// tmux.
    fn start(name: &str, width: u16, height: u16, args: &str) -> Option<Tmux> {
        if Command::new("tmux").arg("-V").output().is_err() {
            eprintln!("SKIPPED: no tmux (scripts/test.sh installs Debian's)");
            return None;
        }
        let tmux = Tmux {
            socket: format!("rudder-{name}-{}", std::process::id()),
        };
        let cmd = format!(
            "RUST_LOG=off {} {args}; echo EXIT=$?; sleep 600",
            env!("CARGO_BIN_EXE_rudder")
        );
        let (w, h) = (width.to_string(), height.to_string());
        tmux.run(&["new-session", "-d", "-s", "dash", "-x", &w, "-y", &h, &cmd]);
        Some(tmux)
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        self.run(&["kill-server"]);
    }
}

#[test]
fn the_dashboard_shows_tests_coverage_and_the_falsified_sequence_and_q_ends_the_campaign() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let args = format!(
        "fuzz contracts/out/Showcase.json --ui --workers 1 --seed 7 \
         --test-limit 1000000000 --timeout 300 --out-dir {}",
        out.display()
    );
    let Some(tmux) = Tmux::start("dash", 150, 46, &args) else {
        return;
    };
    // The tests, coverage, and the falsified test's shrunk sequence.
    tmux.wait_for(&["Workers", "Tests", "echidna_always", "lines "], 60);
    // (A replay cut short by its deadline on a busy machine is run again
    // a second later: the call that breaks the property may show late.)
    let pane = tmux.wait_for(
        &[
            "falsified",
            "shrunk sequence",
            "step(3)",
            "step(7)",
            "breaks echidna_stage_below_two",
        ],
        120,
    );
    assert!(pane.contains("Coverage points over time"), "{pane}");
    assert!(pane.contains("PropertyFalsified"), "the event log: {pane}");

    // The README's screenshot: the pane in its colours.
    if browser::chromium().is_some() {
        let page = dir.path().join("dashboard.html");
        std::fs::write(&page, ansi_page(&tmux.capture(true))).unwrap();
        let png = dir.path().join("dashboard.png");
        let shown = browser::open(&page, Some((&png, 1240, 800)));
        assert!(shown.console.is_empty(), "{:#?}", shown.console);
        browser::keep_screenshot(&png, "dashboard.png");
    }

    // `p` pauses the view, `p` again resumes it.
    tmux.run(&["send-keys", "-t", "dash", "p"]);
    tmux.wait_for(&["PAUSED"], 10);
    tmux.run(&["send-keys", "-t", "dash", "p"]);
    tmux.wait_for(&["fuzzing"], 10);
    // Enter opens the selected worker's pane, Enter again closes it.
    tmux.run(&["send-keys", "-t", "dash", "Enter"]);
    tmux.wait_for(&["Worker w0", "functions (most called)"], 10);
    tmux.run(&["send-keys", "-t", "dash", "Enter"]);
    tmux.wait_for(&["shrunk sequence"], 10);
    // `q`: the campaign stops and writes everything, the report follows.
    tmux.run(&["send-keys", "-t", "dash", "q"]);
    let pane = tmux.wait_for(&["EXIT="], 60);
    assert!(pane.contains("EXIT=1"), "a falsified test: exit 1\n{pane}");
    assert!(
        pane.contains("echidna_stage_below_two: falsified")
            || pane.contains("echidna_stage_below_two"),
        "{pane}"
    );
    let corpus = out.join("corpus");
    assert!(
        !common::json_files(&corpus.join("reproducers")).is_empty(),
        "the reproducer is written"
    );
    assert!(
        !common::json_files(&corpus.join("coverage")).is_empty(),
        "the corpus is written"
    );
}

/// At 80×24 (the terminal a newcomer may have) the numbers are whole and
/// the end is visible: the header's and the worker's call counts read
/// `300,000`, the header says why the campaign ended and that `q` leaves,
/// and the clock does not count the time the viewer stays.
#[test]
fn at_80_by_24_the_dashboard_keeps_its_numbers_whole_and_shows_the_end() {
    let dir = tempfile::tempdir().unwrap();
    let args = format!(
        "fuzz contracts/out/Showcase.json --ui --workers 1 --seed 7 \
         --test-limit 300000 --out-dir {}",
        dir.path().join("out").display()
    );
    let Some(tmux) = Tmux::start("dash80", 80, 24, &args) else {
        return;
    };
    let pane = tmux.wait_for(&["ended: testLimit (q leaves)"], 120);
    // Three refreshes later the frame is the same: the campaign ended.
    std::thread::sleep(3 * rudder::view::dashboard::REPORT_REFRESH);
    let pane_later = tmux.capture(false);
    let header = |p: &str| p.lines().take(3).collect::<Vec<_>>().join("\n");
    assert_eq!(
        header(&pane),
        header(&pane_later),
        "the header stands still"
    );
    assert!(
        pane_later.matches("300,000").count() >= 2,
        "the header's and the worker's call counts, whole:\n{pane_later}"
    );
    assert!(pane_later.contains("w0 300,000"), "{pane_later}");
    tmux.run(&["send-keys", "-t", "dash", "q"]);
    let pane = tmux.wait_for(&["EXIT="], 60);
    assert!(pane.contains("EXIT=1"), "a falsified test: exit 1\n{pane}");
}

/// The 16 colours of the terminal, as xterm draws them.
const PALETTE: [&str; 16] = [
    "#1e1e1e", "#cd3131", "#0dbc79", "#e5e510", "#2472c8", "#bc3fbc", "#11a8cd", "#e5e5e5",
    "#666666", "#f14c4c", "#23d18b", "#f5f543", "#3b8eea", "#d670d6", "#29b8db", "#ffffff",
];

fn colour256(n: u16) -> String {
    match n {
        0..=15 => PALETTE[n as usize].to_string(),
        16..=231 => {
            let n = n - 16;
            let c = |v: u16| if v == 0 { 0 } else { 55 + v * 40 };
            format!("#{:02x}{:02x}{:02x}", c(n / 36), c(n / 6 % 6), c(n % 6))
        }
        _ => {
            let g = 8 + (n - 232) * 10;
            format!("#{g:02x}{g:02x}{g:02x}")
        }
    }
}

#[derive(Clone, Default)]
struct Sgr {
    fg: Option<String>,
    bg: Option<String>,
    bold: bool,
    dim: bool,
    reverse: bool,
}

impl Sgr {
    fn apply(&mut self, params: &str) {
        let ps: Vec<u16> = params.split(';').map(|p| p.parse().unwrap_or(0)).collect();
        let mut i = 0;
        while i < ps.len() {
            match ps[i] {
                0 => *self = Sgr::default(),
                1 => self.bold = true,
                2 => self.dim = true,
                7 => self.reverse = true,
                22 => (self.bold, self.dim) = (false, false),
                27 => self.reverse = false,
                n @ 30..=37 => self.fg = Some(PALETTE[(n - 30) as usize].into()),
                n @ 90..=97 => self.fg = Some(PALETTE[(n - 90 + 8) as usize].into()),
                39 => self.fg = None,
                n @ 40..=47 => self.bg = Some(PALETTE[(n - 40) as usize].into()),
                n @ 100..=107 => self.bg = Some(PALETTE[(n - 100 + 8) as usize].into()),
                49 => self.bg = None,
                n @ (38 | 48) if ps.get(i + 1) == Some(&5) => {
                    let c = Some(colour256(ps.get(i + 2).copied().unwrap_or(0)));
                    if n == 38 {
                        self.fg = c
                    } else {
                        self.bg = c
                    }
                    i += 2;
                }
                n @ (38 | 48) if ps.get(i + 1) == Some(&2) => {
                    let g = |k: usize| ps.get(i + k).copied().unwrap_or(0);
                    let c = Some(format!("#{:02x}{:02x}{:02x}", g(2), g(3), g(4)));
                    if n == 38 {
                        self.fg = c
                    } else {
                        self.bg = c
                    }
                    i += 4;
                }
                _ => {}
            }
            i += 1;
        }
    }

    fn style(&self) -> String {
        let (mut fg, mut bg) = (
            self.fg.clone().unwrap_or_else(|| "#d4d4d4".into()),
            self.bg.clone().unwrap_or_else(|| "#1e1e1e".into()),
        );
        if self.reverse {
            std::mem::swap(&mut fg, &mut bg);
        }
        format!(
            "color:{fg};background:{bg};{}{}",
            if self.bold { "font-weight:700;" } else { "" },
            if self.dim { "opacity:.7;" } else { "" }
        )
    }
}

/// A tmux capture with SGR escapes as a dark terminal page.
fn ansi_page(capture: &str) -> String {
    let mut body = String::new();
    for line in capture.lines() {
        let mut sgr = Sgr::default();
        let mut rest = line;
        body.push_str(&format!("<span style=\"{}\">", sgr.style()));
        while let Some(at) = rest.find("\x1b[") {
            body.push_str(&rudder::view::html::escape(&rest[..at]));
            let tail = &rest[at + 2..];
            let end = tail
                .find(|c: char| c.is_ascii_alphabetic())
                .unwrap_or(tail.len() - 1);
            if tail.as_bytes().get(end) == Some(&b'm') {
                sgr.apply(&tail[..end]);
                body.push_str(&format!("</span><span style=\"{}\">", sgr.style()));
            }
            rest = &tail[end + 1..];
        }
        body.push_str(&rudder::view::html::escape(rest));
        body.push_str("</span>\n");
    }
    format!(
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><style>body{{margin:0;background:#1e1e1e}}\
         pre{{margin:0;padding:12px;font:13px/1.25 'DejaVu Sans Mono',monospace;color:#d4d4d4}}</style></head>\
         <body><pre>{body}</pre></body></html>"
    )
}

/// The frame as text, row by row.
fn frame_text(buffer: &ratatui::buffer::Buffer) -> String {
    let area = buffer.area;
    (0..area.height)
        .map(|y| {
            (0..area.width)
                .map(|x| buffer[(x, y)].symbol().to_string())
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboard_model_reads_the_stores_the_tools_read_and_shows_what_the_agent_did() {
    use rudder::view::dashboard::{Ui, draw};
    let dir = tempfile::tempdir().unwrap();
    let c = common::start(
        "contracts/out/Showcase.json",
        rudder::config::Config {
            workers: Some(2),
            seed: Some(3),
            test_limit: u64::MAX,
            timeout: Some(std::time::Duration::from_secs(120)),
            ..Default::default()
        },
        dir.path(),
    );
    let read = c.control().read();
    common::wait_until("echidna_stage_below_two shrunk", 60, || {
        read.report()
            .tests
            .iter()
            .any(|t| t.status == rudder::campaign::TestStatus::Falsified)
    });
    // The agent steers through MCP: the command log it writes is what the
    // dashboard shows.
    let server = common::server(c.control());
    common::call(
        &server,
        "prioritize_function",
        serde_json::json!({"functionSignature": "twice(uint256)"}),
    )
    .await;
    common::call(
        &server,
        "inject_transaction",
        serde_json::json!({"sequence": ["twice(21)"]}),
    )
    .await;

    let mut ui = Ui::default();
    let model = ui.model(&read);
    assert_eq!(model.workers.len(), 2);
    assert_eq!(model.report.tests.len(), 2);
    assert_eq!(model.priorities, vec!["twice(uint256) x1".to_string()]);
    assert!(
        model
            .agent
            .iter()
            .any(|l| l.contains("inject_transaction") && l.contains("twice(21)")),
        "{:?}",
        model.agent
    );
    assert!(
        model
            .agent
            .iter()
            .any(|l| l.contains("prioritize_function")),
        "{:?}",
        model.agent
    );
    assert!(
        model.events.iter().any(|l| l.contains("PropertyFalsified")),
        "{:?}",
        model.events
    );
    // The first falsified test is shown until the person picks one.
    let falsified = model
        .report
        .tests
        .iter()
        .position(|t| t.status.is_falsified())
        .unwrap();
    assert_eq!(ui.test, falsified);
    use ratatui::crossterm::event::{KeyCode, KeyModifiers};
    ui.key(KeyCode::Down, KeyModifiers::NONE, &model);
    assert_eq!(ui.test, (falsified + 1) % 2);
    ui.key(KeyCode::Up, KeyModifiers::NONE, &model);
    assert_eq!(ui.test, falsified);
    let seq = ui
        .sequence(&read, &model)
        .cloned()
        .expect("the shrunk sequence");
    assert_eq!(
        seq.calls
            .iter()
            .map(|c| c.call.as_str())
            .collect::<Vec<_>>(),
        model.report.tests[falsified]
            .sequence
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
    );
    assert!(seq.replayed, "replayed call by call");
    let mut terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(150, 46)).unwrap();
    terminal.draw(|f| draw(f, &model, &ui, Some(&seq))).unwrap();
    let text = frame_text(terminal.backend().buffer());
    for needle in [
        "echidna_stage_below_two",
        "echidna_always",
        "falsified",
        "passing",
        "step(3)",
        "step(7)",
        "breaks echidna_stage_below_two",
        "emits Staged(",
        "twice(uint256) x1",
        "inject_transaction",
        "Coverage points over time",
        "lines ",
        "branches ",
    ] {
        assert!(text.contains(needle), "{needle:?} in the frame:\n{text}");
    }

    // Enter opens the selected worker's pane in place of the sequence; its
    // counts are its own (they add up to its calls), and Enter closes it.
    ui.key(KeyCode::Right, KeyModifiers::NONE, &model);
    ui.key(KeyCode::Enter, KeyModifiers::NONE, &model);
    assert!(ui.worker_pane);
    let mut model = model;
    ui.refresh_worker_pane(&read, &mut model);
    let w = &model.workers[1];
    let by_origin: u64 = w.detail.origins.iter().map(|o| o.1).sum();
    assert!(by_origin > 0 && by_origin <= w.calls, "{:?}", w.detail);
    let by_function: u64 = w.detail.functions.iter().map(|f| f.1).sum();
    assert!(by_function > 0 && by_function <= w.calls, "{:?}", w.detail);
    assert!(w.detail.sequences > 0);
    terminal.draw(|f| draw(f, &model, &ui, Some(&seq))).unwrap();
    let text = frame_text(terminal.backend().buffer());
    for needle in [
        "Worker w1",
        "sequences ",
        "fresh",
        "mutated",
        "functions (most called)",
        &w.detail.functions[0].0,
        "its newest events",
        "checks ",
    ] {
        assert!(
            text.contains(needle),
            "{needle:?} in the worker pane:\n{text}"
        );
    }
    let sequence_shown = "breaks echidna_stage_below_two";
    assert!(
        !text.contains(sequence_shown),
        "the pane replaces the sequence"
    );
    ui.key(KeyCode::Enter, KeyModifiers::NONE, &model);
    terminal.draw(|f| draw(f, &model, &ui, Some(&seq))).unwrap();
    assert!(frame_text(terminal.backend().buffer()).contains(sequence_shown));
    c.stop();
    c.wait();
}
