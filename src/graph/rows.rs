//! The graph family's rows in the journal's database ([`SCHEMA`], given to
//! the journal when it opens): the code graph and the ETG: each graph
//! version's files, symbols and edges (written once per version), and every
//! ETG event with its attempt. Read back on resume ([`load_etg`]) and when
//! an attempt's outcome is asked for ([`attempt_outcome`]).

use crate::graph::CodeGraph;
use crate::graph::etg::{EtgEvent, EtgKind};
use rusqlite::{Connection, OptionalExtension, Transaction, params};
use serde::Serialize;
use serde_json::{Value, json};

pub const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS graph_versions (
  version TEXT PRIMARY KEY,
  run_id TEXT NOT NULL,
  created_ms INTEGER NOT NULL,
  files INTEGER NOT NULL,
  symbols INTEGER NOT NULL,
  edges INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS graph_files (
  version TEXT NOT NULL,
  path TEXT NOT NULL,
  language TEXT NOT NULL,
  hash TEXT NOT NULL,
  project_root TEXT NOT NULL,
  PRIMARY KEY (version, path)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS graph_symbols (
  version TEXT NOT NULL,
  name TEXT NOT NULL,
  kind TEXT NOT NULL,
  file_path TEXT NOT NULL,
  start INTEGER NOT NULL,
  end INTEGER NOT NULL,
  detail TEXT NOT NULL,
  PRIMARY KEY (version, name, kind, start)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS graph_edges (
  version TEXT NOT NULL,
  src TEXT NOT NULL,
  dst TEXT NOT NULL,
  kind TEXT NOT NULL,
  PRIMARY KEY (version, src, dst, kind)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS etg_attempts (
  attempt_id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL,
  started_ms INTEGER NOT NULL,
  graph_version TEXT
);
CREATE TABLE IF NOT EXISTS etg_events (
  event_id TEXT PRIMARY KEY,
  attempt_id TEXT NOT NULL,
  run_id TEXT NOT NULL,
  ts_ms INTEGER NOT NULL,
  kind TEXT NOT NULL,
  tool TEXT,
  auto INTEGER NOT NULL,
  graph_version TEXT,
  payload TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS etg_events_attempt ON etg_events(attempt_id, ts_ms);
";

/// A graph version to store (skipped when stored already).
pub struct GraphRows {
    pub graph: std::sync::Arc<CodeGraph>,
    pub project_root: String,
    pub run_id: String,
    pub ts_ms: u64,
}

impl crate::journal::FamilyRows for GraphRows {
    fn insert(&self, tx: &Transaction<'_>) -> rusqlite::Result<()> {
        insert_graph(tx, self)
    }
}

/// An ETG event to store; `droppable`: a read tool's automatic log, which
/// may give way under overload.
pub struct EtgRow {
    pub event: EtgEvent,
    pub droppable: bool,
}

impl crate::journal::FamilyRows for EtgRow {
    fn insert(&self, tx: &Transaction<'_>) -> rusqlite::Result<()> {
        insert_etg(tx, &self.event)
    }

    fn droppable(&self) -> bool {
        self.droppable
    }
}

fn insert_graph(tx: &Transaction<'_>, rows: &GraphRows) -> rusqlite::Result<()> {
    let g = &rows.graph;
    let known: Option<String> = tx
        .query_row(
            "SELECT version FROM graph_versions WHERE version = ?1",
            [&g.version],
            |r| r.get(0),
        )
        .optional()?;
    if known.is_some() {
        return Ok(());
    }
    let edges = g.edges();
    let mut symbols = 0i64;
    {
        let mut f = tx.prepare_cached(
            "INSERT OR IGNORE INTO graph_files (version, path, language, hash, project_root) VALUES (?1, ?2, ?3, ?4, ?5)",
        )?;
        for file in &g.files {
            f.execute(params![
                g.version,
                file.path,
                file.language,
                file.hash,
                rows.project_root
            ])?;
        }
        let mut s = tx.prepare_cached(
            "INSERT OR IGNORE INTO graph_symbols (version, name, kind, file_path, start, end, detail) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?;
        for c in &g.contracts {
            s.execute(params![
                g.version,
                c.name,
                c.kind,
                c.file,
                c.span.start,
                c.span.end,
                json!({ "bases": c.bases, "linearized": c.linearized }).to_string()
            ])?;
            symbols += 1;
        }
        for f in &g.functions {
            s.execute(params![
                g.version,
                f.qualified(),
                f.kind,
                f.file,
                f.span.start,
                f.span.end,
                serde_json::to_string(f).unwrap_or_default()
            ])?;
            symbols += 1;
        }
        for v in &g.state_vars {
            s.execute(params![
                g.version,
                v.qualified(),
                "state_variable",
                v.file,
                v.span.start,
                v.span.end,
                serde_json::to_string(v).unwrap_or_default()
            ])?;
            symbols += 1;
        }
        let mut e = tx.prepare_cached(
            "INSERT OR IGNORE INTO graph_edges (version, src, dst, kind) VALUES (?1, ?2, ?3, ?4)",
        )?;
        for edge in &edges {
            e.execute(params![g.version, edge.src, edge.dst, edge.kind])?;
        }
    }
    tx.execute(
        "INSERT INTO graph_versions (version, run_id, created_ms, files, symbols, edges) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            g.version,
            rows.run_id,
            rows.ts_ms as i64,
            g.files.len() as i64,
            symbols,
            edges.len() as i64
        ],
    )?;
    Ok(())
}

fn insert_etg(tx: &Transaction<'_>, e: &EtgEvent) -> rusqlite::Result<()> {
    tx.prepare_cached(
        "INSERT OR IGNORE INTO etg_attempts (attempt_id, run_id, started_ms, graph_version) VALUES (?1, ?2, ?3, ?4)",
    )?
    .execute(params![e.attempt_id, e.run_id, e.ts_ms as i64, e.graph_version])?;
    tx.prepare_cached(
        "INSERT OR IGNORE INTO etg_events (event_id, attempt_id, run_id, ts_ms, kind, tool, auto, graph_version, payload)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?
    .execute(params![
        e.event_id,
        e.attempt_id,
        e.run_id,
        e.ts_ms as i64,
        e.kind.as_str(),
        e.payload.get("tool").and_then(Value::as_str),
        e.auto as i64,
        e.graph_version,
        e.payload.to_string()
    ])?;
    Ok(())
}

/// Every ETG event stored, oldest first (to re-index on resume).
pub fn load_etg(conn: &Connection) -> rusqlite::Result<Vec<EtgEvent>> {
    let mut stmt = conn.prepare(
        "SELECT event_id, attempt_id, run_id, ts_ms, kind, auto, graph_version, payload
         FROM etg_events ORDER BY ts_ms, rowid",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, i64>(3)?,
            r.get::<_, String>(4)?,
            r.get::<_, i64>(5)?,
            r.get::<_, Option<String>>(6)?,
            r.get::<_, String>(7)?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (event_id, attempt_id, run_id, ts, kind, auto, graph_version, payload) = row?;
        let Some(kind) = EtgKind::parse(&kind) else {
            continue;
        };
        out.push(EtgEvent {
            event_id,
            attempt_id,
            run_id,
            kind,
            ts_ms: ts.max(0) as u64,
            payload: serde_json::from_str(&payload).unwrap_or(Value::Null),
            auto: auto != 0,
            graph_version,
        });
    }
    Ok(out)
}

/// What followed an attempt.
#[derive(Clone, Debug, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    /// Calls of the attempt's injections that ran, and the coverage points
    /// they were first to reach.
    pub injected_calls: u64,
    pub coverage_from_injections: u64,
    /// New coverage points of the whole campaign during the attempt and the
    /// window after it.
    pub coverage_in_window: u64,
    /// Tests falsified during the attempt and the window after it.
    pub falsified_in_window: Vec<String>,
}

/// The outcome of injections `injections` of run `run_id` and of the window
/// `from_ms..=to_ms` of that run.
pub fn attempt_outcome(
    conn: &Connection,
    run_id: &str,
    injections: &[u64],
    from_ms: u64,
    to_ms: u64,
) -> rusqlite::Result<Outcome> {
    let mut out = Outcome::default();
    let mut by_inj = conn.prepare_cached(
        "SELECT COUNT(*), COALESCE(SUM(coverage_delta), 0) FROM events
         WHERE run_id = ?1 AND injection = ?2 AND kind = 'CallExecuted'",
    )?;
    for &inj in injections {
        let (n, cov): (i64, i64) =
            by_inj.query_row(params![run_id, inj as i64], |r| Ok((r.get(0)?, r.get(1)?)))?;
        out.injected_calls += n.max(0) as u64;
        out.coverage_from_injections += cov.max(0) as u64;
    }
    let (from, to) = (from_ms as i64, to_ms.min(i64::MAX as u64) as i64);
    out.coverage_in_window = conn
        .prepare_cached(
            "SELECT COALESCE(SUM(coverage_delta), 0) FROM events
             WHERE run_id = ?1 AND kind = 'CoverageIncreased' AND ts_ms BETWEEN ?2 AND ?3",
        )?
        .query_row(params![run_id, from, to], |r| r.get::<_, i64>(0))?
        .max(0) as u64;
    let mut stmt = conn.prepare_cached(
        "SELECT DISTINCT property FROM events
         WHERE run_id = ?1 AND kind = 'PropertyFalsified' AND ts_ms BETWEEN ?2 AND ?3 AND property IS NOT NULL",
    )?;
    out.falsified_in_window = stmt
        .query_map(params![run_id, from, to], |r| r.get::<_, String>(0))?
        .collect::<Result<_, _>>()?;
    Ok(out)
}
