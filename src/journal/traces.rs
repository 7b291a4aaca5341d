//! The trace store: executed call sequences as traces, their
//! calls as spans, in the journal's database.
//!
//! What is kept: every sequence that became a corpus entry, every injected
//! sequence (one trace per worker that ran it), every falsifying sequence and
//! the accepted steps of its shrinking (replayed for their outcomes), every
//! optimization improvement, and a window of recent ordinary sequences: each
//! worker offers at most one every [`RECENT_INTERVAL`], and the journal
//! thread keeps the newest `traceWindow` of them per run (older ones are
//! deleted with their spans). Rows are never updated, so a page's keyset
//! cursor stays valid while the campaign appends.
//!
//! Workers never touch SQLite: they hand over a [`TraceRecord`] (the
//! sequence and what each call did) and the journal thread renders it.

use crate::corpus::Origin;
use crate::executor::{Outcome, RevertReason};
use crate::ids::TestId;
use crate::tx::Tx;
use alloy_dyn_abi::DynSolValue;
use alloy_primitives::{I256, U256};
use rusqlite::{OptionalExtension, Transaction, params};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::time::Duration;

/// A worker offers an ordinary sequence as a recent trace at most this often.
pub const RECENT_INTERVAL: Duration = Duration::from_millis(250);
/// Recent ordinary sequences kept per run unless `traceWindow` says otherwise.
pub use crate::config::DEFAULT_TRACE_WINDOW as DEFAULT_WINDOW;
/// Accepted shrink steps kept as traces per falsification at most (the first
/// and the last ones; the final shrunk sequence is always among them).
pub const MAX_SHRINK_TRACES: usize = 64;

pub(crate) const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS traces (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  origin TEXT NOT NULL,
  name TEXT NOT NULL,
  status TEXT NOT NULL,
  grp TEXT NOT NULL,
  worker INTEGER,
  created_us INTEGER NOT NULL,
  updated_us INTEGER NOT NULL,
  latency_us INTEGER NOT NULL,
  calls INTEGER NOT NULL,
  reverts INTEGER NOT NULL,
  gas INTEGER NOT NULL,
  coverage_gained INTEGER NOT NULL,
  property TEXT,
  corpus_entry INTEGER,
  injection INTEGER,
  source_trace INTEGER,
  source_entry INTEGER,
  shrink_of INTEGER,
  shrink_step INTEGER,
  replays INTEGER,
  value TEXT
);
CREATE INDEX IF NOT EXISTS traces_created ON traces(created_us, id);
CREATE INDEX IF NOT EXISTS traces_run ON traces(run_id, created_us, id);
CREATE INDEX IF NOT EXISTS traces_kind ON traces(kind, created_us, id);
CREATE INDEX IF NOT EXISTS traces_status ON traces(status, created_us, id);
CREATE INDEX IF NOT EXISTS traces_grp ON traces(grp, created_us, id);
CREATE INDEX IF NOT EXISTS traces_entry ON traces(run_id, corpus_entry) WHERE corpus_entry IS NOT NULL;
CREATE INDEX IF NOT EXISTS traces_shrink ON traces(shrink_of, id) WHERE shrink_of IS NOT NULL;
CREATE INDEX IF NOT EXISTS traces_recent ON traces(run_id, id) WHERE kind = 'recent';
CREATE INDEX IF NOT EXISTS traces_name ON traces(name);
CREATE TABLE IF NOT EXISTS spans (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  trace_id INTEGER NOT NULL,
  position INTEGER NOT NULL,
  name TEXT NOT NULL,
  call TEXT NOT NULL,
  args TEXT NOT NULL,
  sender TEXT NOT NULL,
  value TEXT NOT NULL,
  value_key TEXT NOT NULL,
  delay_seconds INTEGER NOT NULL,
  delay_blocks INTEGER NOT NULL,
  gas INTEGER NOT NULL,
  outcome TEXT NOT NULL,
  status TEXT NOT NULL,
  reason TEXT,
  panic_code INTEGER,
  coverage_gained INTEGER NOT NULL,
  duration_us INTEGER NOT NULL,
  start_us INTEGER NOT NULL,
  end_us INTEGER NOT NULL,
  falsified INTEGER NOT NULL,
  properties TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS spans_trace ON spans(trace_id, position);
CREATE INDEX IF NOT EXISTS spans_start ON spans(start_us, id);
CREATE INDEX IF NOT EXISTS spans_name ON spans(name, start_us, id);
CREATE INDEX IF NOT EXISTS spans_status ON spans(status, start_us, id);
CREATE INDEX IF NOT EXISTS spans_reason ON spans(reason, start_us, id) WHERE reason IS NOT NULL;
CREATE INDEX IF NOT EXISTS spans_value ON spans(value_key, id);
CREATE INDEX IF NOT EXISTS spans_falsified ON spans(start_us, id) WHERE falsified = 1;
-- Integer arguments by position and sortable key (an argument filter reads
-- this index instead of every span).
CREATE TABLE IF NOT EXISTS span_args (
  span_id INTEGER NOT NULL,
  pos INTEGER NOT NULL,
  key TEXT NOT NULL,
  PRIMARY KEY (span_id, pos)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS span_args_key ON span_args(pos, key);
-- The distinct signatures and revert reasons: `contains` on them looks here
-- first, then uses the spans' own indexes.
CREATE TABLE IF NOT EXISTS span_names (name TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS span_reasons (reason TEXT PRIMARY KEY) WITHOUT ROWID;
";

/// Why a sequence is kept as a trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceRole {
    /// It became a corpus entry (its calls up to the last that raised coverage).
    Corpus,
    /// An injected sequence, as one worker ran it.
    Injection,
    /// It falsified a test (up to the falsifying call).
    Falsifying,
    /// An accepted step of shrinking a falsifying sequence.
    Shrink,
    /// It improved an optimization test's best value.
    Optimization,
    /// An ordinary sequence of the recent window.
    Recent,
}

impl TraceRole {
    pub fn as_str(self) -> &'static str {
        match self {
            TraceRole::Corpus => "corpus",
            TraceRole::Injection => "injection",
            TraceRole::Falsifying => "falsifying",
            TraceRole::Shrink => "shrink",
            TraceRole::Optimization => "optimization",
            TraceRole::Recent => "recent",
        }
    }

    pub const ALL: [TraceRole; 6] = [
        TraceRole::Corpus,
        TraceRole::Injection,
        TraceRole::Falsifying,
        TraceRole::Shrink,
        TraceRole::Optimization,
        TraceRole::Recent,
    ];
}

/// What one call did, observed by the worker that ran it.
#[derive(Clone, Debug, Default)]
pub struct CallObs {
    /// `None`: the call succeeded.
    pub failure: Option<Outcome>,
    pub gas: u64,
    pub duration_ns: u64,
    pub new_points: u32,
    /// Tests checked after the call (bit `i`: test `i`, the first 64 tests).
    pub checked: u64,
    /// Of those, the ones that failed.
    pub failed: u64,
}

impl CallObs {
    pub fn of(outcome: &Outcome, gas: u64, duration_ns: u64) -> Self {
        CallObs {
            failure: (!outcome.is_success()).then(|| outcome.clone()),
            gas,
            duration_ns,
            ..CallObs::default()
        }
    }

    /// Marks test `t` as checked, and failed if `failed`.
    pub fn mark(&mut self, t: TestId, failed: bool) {
        if t.0 < 64 {
            self.checked |= 1 << t.0;
            if failed {
                self.failed |= 1 << t.0;
            }
        }
    }
}

/// A sequence to keep as a trace, as a worker hands it over.
#[derive(Clone, Debug)]
pub struct TraceRecord {
    pub role: TraceRole,
    pub origin: Origin,
    pub worker: Option<u32>,
    /// Wall clock when the sequence ended (µs since the epoch).
    pub end_us: u64,
    pub txs: Vec<Tx>,
    /// What each call of `txs` did (same length).
    pub calls: Vec<CallObs>,
    pub corpus_entry: Option<u64>,
    pub injection: Option<u64>,
    /// The test falsified, shrunk or improved.
    pub test: Option<TestId>,
    /// The corpus entry a mutation started from.
    pub source_entry: Option<u64>,
    /// The accepted shrink step's number (1 = first accepted candidate).
    pub shrink_step: Option<u32>,
    /// Replays shrinking had spent when the step was accepted.
    pub replays: Option<u64>,
    /// Whether this is the final shrunk sequence.
    pub final_step: bool,
    /// An optimization's value (decimal).
    pub value: Option<String>,
    /// Recent traces kept per run (the `traceWindow` setting).
    pub window: usize,
}

impl TraceRecord {
    pub fn new(role: TraceRole, origin: Origin, txs: Vec<Tx>, calls: Vec<CallObs>) -> Self {
        TraceRecord {
            role,
            origin,
            worker: None,
            end_us: now_us(),
            txs,
            calls,
            corpus_entry: None,
            injection: None,
            test: None,
            source_entry: None,
            shrink_step: None,
            replays: None,
            final_step: false,
            value: None,
            window: DEFAULT_WINDOW,
        }
    }
}

/// Microseconds since the epoch.
pub fn now_us() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_micros() as u64)
        .unwrap_or(0)
}

/// A sortable text key of an unsigned 256-bit number: `p` and 64 hex digits.
pub fn uint_key(v: U256) -> String {
    format!("p{v:064x}")
}

/// A sortable text key of a signed 256-bit number: negatives are `n` and the
/// two's complement (which orders them), the others as [`uint_key`].
pub fn int_key(v: I256) -> String {
    if v.is_negative() {
        format!("n{:064x}", v.into_raw())
    } else {
        uint_key(v.into_raw())
    }
}

/// The sortable key of an integer argument (`None`: not an integer).
fn arg_key(v: &DynSolValue) -> Option<String> {
    match v {
        DynSolValue::Uint(u, _) => Some(uint_key(*u)),
        DynSolValue::Int(i, _) => Some(int_key(*i)),
        _ => None,
    }
}

fn i(v: u64) -> i64 {
    v.min(i64::MAX as u64) as i64
}

/// The journal thread's trace state: links between traces.
#[derive(Default)]
pub(crate) struct TraceWriter {
    /// Test → its falsifying trace.
    falsifying: HashMap<u32, i64>,
    /// Recent traces per run so far (loaded on first use).
    recent: Option<usize>,
    /// Signatures and reasons already in their dictionary tables.
    known: std::collections::HashSet<String>,
}

impl TraceWriter {
    pub(crate) fn insert(
        &mut self,
        tx: &Transaction<'_>,
        render: &dyn super::Render,
        run_id: &str,
        r: TraceRecord,
    ) -> rusqlite::Result<i64> {
        let latency_ns: u64 = r.calls.iter().map(|c| c.duration_ns).sum();
        let latency_us = latency_ns / 1000;
        let created = r.end_us.saturating_sub(latency_us);
        let gas: u64 = r.calls.iter().fold(0, |a, c| a.saturating_add(c.gas));
        let reverts = r.calls.iter().filter(|c| c.failure.is_some()).count();
        let gained: u64 = r.calls.iter().map(|c| c.new_points as u64).sum();
        let falsified = r.calls.iter().any(|c| c.failed != 0);
        let property = r.test.map(|t| render.test_name(t));
        let status = if falsified || r.role == TraceRole::Falsifying {
            "error"
        } else {
            "success"
        };
        let origin = match r.origin {
            Origin::Random => "random",
            Origin::Mutation => "mutation",
            Origin::Injected => "injection",
            Origin::Replayed => "replayed",
        };
        let origin = match r.role {
            TraceRole::Shrink => "shrink",
            _ => origin,
        };
        let shrink_of = match r.role {
            TraceRole::Shrink => r.test.and_then(|t| self.falsifying.get(&t.0).copied()),
            _ => None,
        };
        let p = property.as_deref().unwrap_or("");
        let name = match r.role {
            TraceRole::Corpus => format!("corpus entry {}", r.corpus_entry.unwrap_or(0)),
            TraceRole::Injection => format!(
                "injection {} on worker {}",
                r.injection.unwrap_or(0),
                r.worker.unwrap_or(0)
            ),
            TraceRole::Falsifying => format!("falsified {p}"),
            TraceRole::Shrink if r.final_step => {
                format!("shrink step {} of {p} (final)", r.shrink_step.unwrap_or(0))
            }
            TraceRole::Shrink => format!("shrink step {} of {p}", r.shrink_step.unwrap_or(0)),
            TraceRole::Optimization => {
                format!("{p} reached {}", r.value.as_deref().unwrap_or("?"))
            }
            TraceRole::Recent => format!("{origin} sequence"),
        };
        let grp = match (r.role, r.injection) {
            (TraceRole::Shrink, _) => format!("falsification-trace-{}", shrink_of.unwrap_or(0)),
            (_, Some(inj)) => format!("injection-{inj}"),
            (role, _) => role.as_str().to_string(),
        };
        let source_trace: Option<i64> = match r.source_entry {
            Some(e) => tx
                .prepare_cached(
                    "SELECT id FROM traces WHERE run_id = ?1 AND corpus_entry = ?2 AND kind = 'corpus' LIMIT 1",
                )?
                .query_row(params![run_id, i(e)], |row| row.get(0))
                .optional()?,
            None => None,
        };
        let source_trace = source_trace.or(shrink_of);
        tx.prepare_cached(
            "INSERT INTO traces (run_id, kind, origin, name, status, grp, worker, created_us,
               updated_us, latency_us, calls, reverts, gas, coverage_gained, property,
               corpus_entry, injection, source_trace, source_entry, shrink_of, shrink_step,
               replays, value)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16,
               ?17, ?18, ?19, ?20, ?21, ?22, ?23)",
        )?
        .execute(params![
            run_id,
            r.role.as_str(),
            origin,
            name,
            status,
            grp,
            r.worker,
            i(created),
            i(r.end_us),
            i(latency_us),
            r.txs.len() as i64,
            reverts as i64,
            i(gas),
            i(gained),
            property,
            r.corpus_entry.map(i),
            r.injection.map(i),
            source_trace,
            r.source_entry.map(i),
            shrink_of,
            r.shrink_step,
            r.replays.map(i),
            r.value,
        ])?;
        let trace = tx.last_insert_rowid();
        let mut stmt = tx.prepare_cached(
            "INSERT INTO spans (trace_id, position, name, call, args, sender, value, value_key,
               delay_seconds, delay_blocks, gas, outcome, status, reason, panic_code,
               coverage_gained, duration_us, start_us, end_us, falsified, properties)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16,
               ?17, ?18, ?19, ?20, ?21)",
        )?;
        let mut start = created;
        for (pos, (t, c)) in r.txs.iter().zip(&r.calls).enumerate() {
            let end = start + c.duration_ns / 1000;
            let args: Vec<Value> = t
                .args
                .iter()
                .map(|a| {
                    let mut s = String::new();
                    crate::tx::write_value(&mut s, a);
                    Value::String(s)
                })
                .collect();
            let keys: Vec<Option<String>> = t.args.iter().map(arg_key).collect();
            let name = t.signature();
            let (outcome, reason, panic) = match &c.failure {
                None => ("success", None, None),
                Some(o) => (
                    o.word(),
                    Some(match o {
                        Outcome::Revert {
                            reason: RevertReason::Error(m),
                        } => m.clone(),
                        o => o.to_string(),
                    }),
                    match o {
                        Outcome::Revert {
                            reason: RevertReason::Panic(code),
                        } => Some(code.saturating_to::<i64>()),
                        _ => None,
                    },
                ),
            };
            let mut props = Map::new();
            for bit in 0..64u32 {
                if c.checked & (1 << bit) != 0 {
                    props.insert(
                        render.test_name(TestId(bit)),
                        Value::Bool(c.failed & (1 << bit) == 0),
                    );
                }
            }
            stmt.execute(params![
                trace,
                pos as i64,
                name,
                render.call(t),
                Value::Array(args).to_string(),
                format!("{:#x}", t.sender),
                t.value.to_string(),
                uint_key(t.value),
                i(t.delay.seconds),
                i(t.delay.blocks),
                i(c.gas),
                outcome,
                if c.failure.is_some() {
                    "error"
                } else {
                    "success"
                },
                reason.as_deref(),
                panic,
                c.new_points as i64,
                i(c.duration_ns / 1000),
                i(start),
                i(end),
                (c.failed != 0) as i64,
                Value::Object(props).to_string(),
            ])?;
            let span = tx.last_insert_rowid();
            for (p, k) in keys.iter().enumerate() {
                if let Some(k) = k {
                    tx.prepare_cached(
                        "INSERT INTO span_args (span_id, pos, key) VALUES (?1, ?2, ?3)",
                    )?
                    .execute(params![span, p as i64, k])?;
                }
            }
            self.remember(
                tx,
                "INSERT OR IGNORE INTO span_names (name) VALUES (?1)",
                &name,
            )?;
            if let Some(r) = &reason {
                self.remember(
                    tx,
                    "INSERT OR IGNORE INTO span_reasons (reason) VALUES (?1)",
                    r,
                )?;
            }
            start = end;
        }
        match r.role {
            TraceRole::Falsifying => {
                if let Some(t) = r.test {
                    self.falsifying.insert(t.0, trace);
                }
            }
            TraceRole::Recent => self.trim_recent(tx, run_id, r.window)?,
            _ => {}
        }
        Ok(trace)
    }

    /// Adds `value` to a dictionary table (once per process).
    fn remember(&mut self, tx: &Transaction<'_>, sql: &str, value: &str) -> rusqlite::Result<()> {
        // Past 100,000 distinct values the set stops growing and every
        // value is written (INSERT OR IGNORE keeps the table exact).
        if self.known.len() >= 100_000 || self.known.insert(format!("{sql}\u{0}{value}")) {
            tx.prepare_cached(sql)?.execute([value])?;
        }
        Ok(())
    }

    /// Deletes the run's oldest recent traces beyond `window`.
    fn trim_recent(
        &mut self,
        tx: &Transaction<'_>,
        run_id: &str,
        window: usize,
    ) -> rusqlite::Result<()> {
        let n = match self.recent {
            Some(n) => n + 1,
            None => tx.query_row(
                "SELECT COUNT(*) FROM traces WHERE run_id = ?1 AND kind = 'recent'",
                params![run_id],
                |r| r.get::<_, i64>(0),
            )? as usize,
        };
        let excess = n.saturating_sub(window);
        if excess > 0 {
            let old: Vec<i64> = tx
                .prepare_cached(
                    "SELECT id FROM traces WHERE run_id = ?1 AND kind = 'recent' ORDER BY id LIMIT ?2",
                )?
                .query_map(params![run_id, excess as i64], |r| r.get(0))?
                .collect::<Result<_, _>>()?;
            for id in &old {
                tx.prepare_cached(
                    "DELETE FROM span_args WHERE span_id IN (SELECT id FROM spans WHERE trace_id = ?1)",
                )?
                .execute([id])?;
                tx.prepare_cached("DELETE FROM spans WHERE trace_id = ?1")?
                    .execute([id])?;
                tx.prepare_cached("DELETE FROM traces WHERE id = ?1")?
                    .execute([id])?;
            }
            self.recent = Some(n - old.len());
        } else {
            self.recent = Some(n);
        }
        Ok(())
    }
}
