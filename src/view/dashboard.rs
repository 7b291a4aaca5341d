//! The live terminal dashboard (`rudder fuzz --ui`): per worker its calls/s
//! and what it runs (fresh, mutating, injected, replaying, shrinking), each
//! test with its status, the selected test's shrunk sequence replayed call by
//! call, line and branch coverage with coverage points over time, the
//! corpus, the last events of the EventLog, and what the agent did
//! (injections, priorities, specs, read from the command log as it is
//! written).
//!
//! Enter (or `w`) opens the selected worker's own pane in place of the
//! sequence: its counts, what each kind of sequence it ran (fresh,
//! mutating, injected, replayed) cost and found, its checks, the functions it
//! calls most, and its own newest events.
//!
//! Everything is read through [`CampaignRead`], the stores the tools read.
//! The model ([`Model`]) is built apart from drawing ([`draw`]), so tests
//! render it into a buffer; [`run`] drives it on the terminal.

use super::sequence::SequenceView;
use crate::campaign::report::{Report, TestStatus};
use crate::campaign::{CampaignRead, EndReason};
use crate::corpus::Origin;
use crate::eventlog::EventKind;
use crate::ops::{Metric, Sample};
use ratatui::Frame;
use ratatui::crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style, Stylize};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{
    Axis, Block, Cell, Chart, Dataset, GraphType, Paragraph, Row, Table, TableState, Wrap,
};
use std::collections::HashMap;
use std::io::{Read, Seek, SeekFrom};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

mod draw;
pub use draw::draw;

/// How long a sequence's replay cut short by its deadline is kept before
/// it is tried again.
const RETRY: Duration = Duration::from_secs(1);

/// How often the dashboard redraws.
pub const REFRESH: Duration = Duration::from_millis(250);
/// How often the tests and coverage are re-read (the report walks every
/// code object's coverage; the counters above it are read every frame).
pub const REPORT_REFRESH: Duration = Duration::from_secs(1);
/// Events of the EventLog formatted per frame beyond the scroll position.
const EVENTS: usize = 40;
/// Functions and events a worker's pane lists at most.
const WORKER_TOP: usize = 6;
/// Agent commands shown at most (the tail of the command log).
const COMMANDS: usize = 50;
/// Bytes of the command log's tail read for them.
const COMMAND_TAIL: u64 = 32 * 1024;

/// What one worker is doing.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkerRow {
    pub calls: u64,
    pub calls_per_sec: f64,
    /// fresh, mutating, injected, replaying, shrinking, starting or stopped.
    pub doing: &'static str,
    /// The running sequence: calls done of planned, new points found.
    pub done: u32,
    pub planned: u32,
    pub last_function: Option<String>,
    /// What the worker's own pane shows (filled only for the selected
    /// worker while its pane is open; empty otherwise).
    pub detail: WorkerDetail,
}

/// One worker's pane: its counts, per kind of sequence and per function.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WorkerDetail {
    pub sequences: u64,
    pub injections: u64,
    /// New coverage points of the running sequence so far.
    pub sequence_points: u32,
    /// When the worker last found coverage new to the campaign (Unix ms;
    /// 0: never).
    pub last_new_ms: u64,
    /// Per kind of sequence (fresh, mutating, injected, replayed): calls,
    /// reverted calls, new coverage points.
    pub origins: Vec<(&'static str, u64, u64, u64)>,
    pub checks_run: u64,
    pub checks_skipped: u64,
    /// The functions it called most: name, calls, reverts, new points.
    pub functions: Vec<(String, u64, u64, u64)>,
    /// Its newest events, newest first.
    pub events: Vec<String>,
}

/// Everything one frame shows.
#[derive(Clone, Debug)]
pub struct Model {
    pub report: Report,
    pub elapsed_secs: f64,
    pub calls_per_sec: f64,
    pub points: u64,
    pub workers: Vec<WorkerRow>,
    pub samples: Vec<Sample>,
    /// Newest first, one line each.
    pub events: Vec<String>,
    /// Newest first, one line each.
    pub agent: Vec<String>,
    pub priorities: Vec<String>,
    pub specs: Vec<String>,
    pub end: Option<EndReason>,
    pub suite: String,
}

/// What the person chose: the selected test and worker, pause.
#[derive(Debug, Default)]
pub struct Ui {
    pub test: usize,
    /// Whether the person chose the test (until then the first falsified
    /// one is shown).
    pub test_chosen: bool,
    pub worker: usize,
    /// Whether the selected worker's pane is open (Enter or `w`).
    pub worker_pane: bool,
    pub paused: bool,
    pub events_scroll: u16,
    /// Per worker: (calls, when) at the previous frame, for calls/s.
    last: Vec<(u64, Instant)>,
    /// Replays of tests' sequences: test index -> (calls, shrunk, when,
    /// view).
    replays: HashMap<usize, (usize, bool, Instant, SequenceView)>,
    /// The command log's length when last read, and what it gave.
    commands: (u64, Vec<String>),
    /// The last report read, and when.
    report: Option<(Instant, Report)>,
}

/// What a key asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    None,
    Quit,
}

impl Ui {
    /// Applies a key press.
    pub fn key(&mut self, code: KeyCode, modifiers: KeyModifiers, model: &Model) -> Action {
        let tests = model.report.tests.len().max(1);
        let workers = model.workers.len().max(1);
        match code {
            KeyCode::Char('q') | KeyCode::Esc => return Action::Quit,
            KeyCode::Char('c') if modifiers.contains(KeyModifiers::CONTROL) => return Action::Quit,
            KeyCode::Down | KeyCode::Char('j') => {
                self.test = (self.test + 1) % tests;
                self.test_chosen = true;
            }
            KeyCode::Up | KeyCode::Char('k') => {
                self.test = (self.test + tests - 1) % tests;
                self.test_chosen = true;
            }
            KeyCode::Right | KeyCode::Char('l') => self.worker = (self.worker + 1) % workers,
            KeyCode::Left | KeyCode::Char('h') => {
                self.worker = (self.worker + workers - 1) % workers
            }
            KeyCode::Enter | KeyCode::Char('w') => self.worker_pane = !self.worker_pane,
            KeyCode::Char('p') | KeyCode::Char(' ') => self.paused = !self.paused,
            KeyCode::PageDown => self.events_scroll = self.events_scroll.saturating_add(5),
            KeyCode::PageUp => self.events_scroll = self.events_scroll.saturating_sub(5),
            _ => {}
        }
        Action::None
    }

    /// The campaign as of now.
    pub fn model(&mut self, read: &CampaignRead) -> Model {
        let now = Instant::now();
        let mut report = match &self.report {
            Some((at, r))
                if now.duration_since(*at) < REPORT_REFRESH && read.end_reason().is_none() =>
            {
                r.clone()
            }
            _ => {
                let r = read.report();
                self.report = Some((now, r.clone()));
                r
            }
        };
        // The counters of the header move every frame.
        report.calls = read.stats().calls();
        report.corpus_sequences = read.corpus().len();
        // The stats keep a row for the campaign's own calls after the
        // workers' rows.
        let rows = &read.stats().workers[..read.workers().min(read.stats().workers.len())];
        if self.last.len() != rows.len() {
            self.last = vec![(0, read.started()); rows.len()];
        }
        let callable = read.callable();
        let render = read.renderer();
        let ring = read.events().view();
        let workers: Vec<WorkerRow> = rows
            .iter()
            .zip(self.last.iter_mut())
            .map(|(w, last)| {
                let calls = w.calls.load(Ordering::Relaxed);
                let secs = now.duration_since(last.1).as_secs_f64().max(1e-3);
                let cps = calls.saturating_sub(last.0) as f64 / secs;
                *last = (calls, now);
                let pos = w.position.snapshot();
                let doing = if !w.running.load(Ordering::Relaxed) {
                    if calls == 0 { "starting" } else { "stopped" }
                } else if w.shrinking.load(Ordering::Relaxed) {
                    "shrinking"
                } else {
                    pos.source.map_or("starting", |o| kind_of(o).1)
                };
                WorkerRow {
                    calls,
                    calls_per_sec: cps,
                    doing,
                    done: pos.done,
                    planned: pos.planned,
                    last_function: pos
                        .last_function
                        .and_then(|k| callable.get(k))
                        .map(|c| c.function.name.clone()),
                    detail: WorkerDetail::default(),
                }
            })
            .collect();
        let elapsed = read.elapsed();
        let elapsed_secs = elapsed.as_secs_f64();
        let end = read.end_reason();
        let (samples, calls_per_sec) = if end.is_some() {
            // Ended: the chart and the rate stop where the campaign did,
            // whatever the history samples while the viewer stays.
            let at = read.started_ms() + elapsed.as_millis() as u64;
            let last = Sample {
                t_ms: at,
                ..read.sample_now()
            };
            let mut samples = read.ops().history.with_now(last);
            samples.retain(|s| s.t_ms < at);
            samples.push(last);
            (samples, report.calls as f64 / elapsed_secs.max(1e-3))
        } else {
            let samples = read.ops().history.with_now(read.sample_now());
            let rate = recent_rate(&samples);
            (samples, rate)
        };
        if !self.test_chosen
            && let Some(i) = report.tests.iter().position(|t| t.status.is_falsified())
        {
            self.test = i;
        }
        let events = ring
            .iter()
            .filter(|e| e.kind() != EventKind::TransactionExecuted)
            .take(self.events_scroll as usize + EVENTS)
            .map(|e| {
                format!(
                    "{} w{} {} {}",
                    clock(e.timestamp_ms),
                    e.worker.0,
                    e.kind().as_str(),
                    compact(&render.data(e))
                )
            })
            .collect();
        let agent = self.commands(read);
        let priorities = read
            .priorities()
            .snapshot()
            .entries()
            .iter()
            .map(|p| format!("{} x{}", p.signature, p.weight))
            .collect();
        let specs = read
            .tests()
            .cases()
            .filter(|c| c.spec.is_some())
            .map(|c| c.name.clone())
            .collect();
        let mut model = Model {
            suite: report
                .suite
                .clone()
                .unwrap_or_else(|| format!("{} mode", read.config().test_mode.as_str())),
            points: read.target().coverage.points(),
            report,
            elapsed_secs,
            calls_per_sec,
            workers,
            samples,
            events,
            agent,
            priorities,
            specs,
            end,
        };
        self.refresh_worker_pane(read, &mut model);
        model
    }

    /// Fills the selected worker's pane in `model` when it is open (only
    /// that worker's: the pane is the one place it shows).
    pub fn refresh_worker_pane(&self, read: &CampaignRead, model: &mut Model) {
        let rows = &read.stats().workers;
        if let (true, Some(row), Some(w)) = (
            self.worker_pane,
            model.workers.get_mut(self.worker),
            rows.get(self.worker),
        ) {
            row.detail = worker_detail(
                w,
                self.worker as u32,
                read.callable(),
                &read.events().view(),
                read.renderer(),
            );
            // Its calls read after its counts: the pane's figures add up.
            row.calls = w.calls.load(Ordering::Relaxed);
        }
    }

    /// The selected test's sequence, replayed once per change.
    pub fn sequence(&mut self, read: &CampaignRead, model: &Model) -> Option<&SequenceView> {
        let t = model.report.tests.get(self.test)?;
        if t.sequence.is_empty() {
            return None;
        }
        let shrunk = t.status != TestStatus::Shrinking;
        // A replay cut short by its deadline (a busy machine) is tried
        // again, at most once a second, until every call has its result.
        let fresh = self.replays.get(&self.test).is_some_and(|(n, s, at, v)| {
            *n == t.sequence.len() && *s == shrunk && (v.replayed || at.elapsed() < RETRY)
        });
        if !fresh {
            let case = read.tests().cases().nth(self.test)?;
            let txs = read.tests().sequence(case.id)?;
            let view =
                SequenceView::replayed(read, &txs, Instant::now() + Duration::from_millis(50));
            self.replays
                .insert(self.test, (t.sequence.len(), shrunk, Instant::now(), view));
        }
        self.replays.get(&self.test).map(|(_, _, _, v)| v)
    }

    /// The newest lines of the command log (what the agent did), re-read
    /// when it grows.
    fn commands(&mut self, read: &CampaignRead) -> Vec<String> {
        let path = read.layout().command_log();
        let len = std::fs::metadata(&path).map_or(0, |m| m.len());
        if len != self.commands.0 {
            self.commands = (len, tail_commands(&path, len));
        }
        self.commands.1.clone()
    }
}

/// The last lines of the command log, newest first, one line each.
fn tail_commands(path: &std::path::Path, len: u64) -> Vec<String> {
    let mut text = String::new();
    let Ok(mut f) = std::fs::File::open(path) else {
        return Vec::new();
    };
    let from = len.saturating_sub(COMMAND_TAIL);
    if f.seek(SeekFrom::Start(from)).is_err() || f.read_to_string(&mut text).is_err() {
        return Vec::new();
    }
    let lines: Vec<&str> = text.lines().skip(usize::from(from > 0)).collect();
    lines
        .into_iter()
        .rev()
        .take(COMMANDS)
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .map(|v| {
            let time = v["timestamp"].as_str().unwrap_or("");
            let time = time.get(11..19).unwrap_or(time);
            format!(
                "{time} {} {}",
                v["command"].as_str().unwrap_or("?"),
                compact(&v["arguments"])
            )
        })
        .collect()
}

/// Calls per second over the last two seconds of samples.
fn recent_rate(samples: &[Sample]) -> f64 {
    let Some(last) = samples.last() else {
        return 0.0;
    };
    let first = samples
        .iter()
        .rev()
        .find(|s| last.t_ms.saturating_sub(s.t_ms) >= 2_000)
        .or(samples.first())
        .unwrap_or(last);
    Metric::CallsPerSecond.value(last, Some(first))
}

/// A kind of sequence as the dashboard names it: (kind, a worker running
/// one is ...).
fn kind_of(o: Origin) -> (&'static str, &'static str) {
    match o {
        Origin::Random => ("fresh", "fresh"),
        Origin::Mutation => ("mutated", "mutating"),
        Origin::Injected => ("injected", "injected"),
        Origin::Replayed => ("replayed", "replaying"),
    }
}

/// Worker `id`'s pane from its stats row and the EventLog's `ring`.
fn worker_detail(
    w: &crate::campaign::WorkerStats,
    id: u32,
    callable: &[crate::campaign::generate::Callable],
    ring: &rudder_lockfree::Snapshot<crate::eventlog::Event>,
    render: &crate::campaign::Renderer,
) -> WorkerDetail {
    let load = |a: &std::sync::atomic::AtomicU64| a.load(Ordering::Relaxed);
    let origins = Origin::ALL
        .iter()
        .map(|o| {
            let k = o.index();
            (
                kind_of(*o).0,
                load(&w.origin_calls[k]),
                load(&w.origin_reverts[k]),
                load(&w.origin_points[k]),
            )
        })
        .collect();
    let mut functions: Vec<(String, u64, u64, u64)> = w
        .functions
        .iter()
        .zip(callable)
        .map(|(f, c)| {
            (
                c.function.name.clone(),
                load(&f.calls),
                load(&f.reverts),
                load(&f.new_points),
            )
        })
        .filter(|f| f.1 > 0)
        .collect();
    functions.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    functions.truncate(WORKER_TOP);
    let events = ring
        .iter()
        .filter(|e| e.worker.0 == id && e.kind() != EventKind::TransactionExecuted)
        .take(WORKER_TOP)
        .map(|e| {
            format!(
                "{} {} {}",
                clock(e.timestamp_ms),
                e.kind().as_str(),
                compact(&render.data(e))
            )
        })
        .collect();
    WorkerDetail {
        sequences: load(&w.sequences),
        injections: load(&w.injections),
        sequence_points: w.position.points.load(Ordering::Relaxed),
        last_new_ms: load(&w.last_new_ms),
        origins,
        checks_run: load(&w.checks_run),
        checks_skipped: load(&w.checks_skipped),
        functions,
        events,
    }
}

fn clock(ms: u64) -> String {
    let s = crate::campaign::rfc3339(ms);
    s.get(11..19).unwrap_or(&s).to_string()
}

/// A JSON value on one short line: `key=value` pairs for an object.
fn compact(v: &serde_json::Value) -> String {
    use serde_json::Value;
    let one = |v: &Value| match v {
        Value::String(s) => s.clone(),
        Value::Array(a) => a
            .iter()
            .map(|x| x.as_str().map_or_else(|| x.to_string(), str::to_string))
            .collect::<Vec<_>>()
            .join("; "),
        other => other.to_string(),
    };
    match v {
        Value::Object(m) => m
            .iter()
            .filter(|(_, x)| !x.is_null())
            .map(|(k, x)| format!("{k}={}", one(x)))
            .collect::<Vec<_>>()
            .join(" "),
        other => one(other),
    }
}

/// A long hex value (an address) as its first and last digits, to fit a
/// line; the call above it and the HTML report keep it whole.
/// Leading zeros go first (`0x10000`, as the senders are written).
fn short(v: &str) -> String {
    let Some(hex) = v.strip_prefix("0x").filter(|h| h.len() > 16) else {
        return v.to_string();
    };
    let digits = hex.trim_start_matches('0');
    if digits.len() <= 10 {
        format!("0x{}", if digits.is_empty() { "0" } else { digits })
    } else {
        format!("0x{}…{}", &hex[..4], &hex[hex.len() - 4..])
    }
}

/// Runs the dashboard on the terminal until the person quits (then `quit`
/// is called unless the campaign already ended: the caller stops it), or
/// until the campaign ends when `linger` is false or it ended on a signal.
/// Returns whether the person quit before the end.
pub fn run(read: &CampaignRead, linger: bool, quit: impl Fn()) -> std::io::Result<bool> {
    let mut terminal = ratatui::try_init()?;
    let mut ui = Ui::default();
    let mut model = ui.model(read);
    let mut quitted = false;
    let result = (|| -> std::io::Result<()> {
        loop {
            if !ui.paused {
                model = ui.model(read);
            }
            let ended = read.finished();
            if ended && (!linger || read.end_reason() == Some(EndReason::Signal)) {
                return Ok(());
            }
            let seq = ui.sequence(read, &model).cloned();
            terminal.draw(|f| draw(f, &model, &ui, seq.as_ref()))?;
            let until = Instant::now() + REFRESH;
            while let Some(left) = until.checked_duration_since(Instant::now()) {
                if !event::poll(left)? {
                    break;
                }
                if let Event::Key(k) = event::read()?
                    && k.kind == KeyEventKind::Press
                {
                    if ui.key(k.code, k.modifiers, &model) == Action::Quit {
                        if !read.finished() {
                            quitted = true;
                            quit();
                        }
                        return Ok(());
                    }
                    // A worker's pane opened or another worker chosen:
                    // its counts now, paused view or not.
                    ui.refresh_worker_pane(read, &mut model);
                    let seq = ui.sequence(read, &model).cloned();
                    terminal.draw(|f| draw(f, &model, &ui, seq.as_ref()))?;
                }
            }
        }
    })();
    ratatui::restore();
    result.map(|()| quitted)
}
