//! The ops family's rows in the journal's database ([`SCHEMA`], given to the
//! journal when it opens): the agent's decisions (`save_decision`), and each
//! run's settings and metrics samples, so that a report of a past run reads
//! its charts from the journal ([`load_run`]).

use crate::ops::{Decision, RunSettings, Sample};
use rusqlite::{Connection, OptionalExtension, Transaction, params};

pub const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS decisions (
  decision_id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL,
  ts_ms INTEGER NOT NULL,
  symbol TEXT NOT NULL,
  action TEXT NOT NULL,
  confidence REAL NOT NULL,
  opportunity_score REAL,
  reasoning TEXT NOT NULL,
  tool_calls TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS decisions_ts ON decisions(ts_ms);
CREATE TABLE IF NOT EXISTS run_settings (
  run_id TEXT PRIMARY KEY,
  settings TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS metric_samples (
  run_id TEXT NOT NULL,
  ts_ms INTEGER NOT NULL,
  calls INTEGER NOT NULL,
  sequences INTEGER NOT NULL,
  points INTEGER NOT NULL,
  corpus INTEGER NOT NULL,
  open INTEGER NOT NULL,
  falsified INTEGER NOT NULL,
  campaign_calls INTEGER NOT NULL,
  campaign_points INTEGER NOT NULL,
  ended TEXT
);
CREATE INDEX IF NOT EXISTS metric_samples_run ON metric_samples(run_id, ts_ms);
";

/// A decision to store.
pub struct DecisionRow(pub Decision);

impl crate::journal::FamilyRows for DecisionRow {
    fn insert(&self, tx: &Transaction<'_>) -> rusqlite::Result<()> {
        insert_decision(tx, &self.0)
    }
}

fn insert_decision(tx: &Transaction<'_>, d: &Decision) -> rusqlite::Result<()> {
    tx.prepare_cached(
        "INSERT OR IGNORE INTO decisions (decision_id, run_id, ts_ms, symbol, action, confidence, opportunity_score, reasoning, tool_calls)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?
    .execute(params![
        d.decision_id,
        d.run_id,
        d.created_ms as i64,
        d.symbol,
        d.action,
        d.confidence,
        d.opportunity_score,
        d.reasoning,
        d.tool_calls.to_string()
    ])?;
    Ok(())
}

/// Every decision stored, oldest first (reloaded on resume).
pub fn load_decisions(conn: &Connection) -> rusqlite::Result<Vec<Decision>> {
    let mut stmt = conn.prepare(
        "SELECT decision_id, run_id, ts_ms, symbol, action, confidence, opportunity_score, reasoning, tool_calls
         FROM decisions ORDER BY ts_ms, rowid",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok(Decision {
            decision_id: r.get(0)?,
            run_id: r.get(1)?,
            created_ms: r.get::<_, i64>(2)?.max(0) as u64,
            symbol: r.get(3)?,
            action: r.get(4)?,
            confidence: r.get(5)?,
            opportunity_score: r.get(6)?,
            reasoning: r.get(7)?,
            tool_calls: serde_json::from_str(&r.get::<_, String>(8)?)
                .unwrap_or(serde_json::Value::Null),
        })
    })?;
    rows.collect()
}

/// A run's settings, written when it starts.
pub struct SettingsRow {
    pub run_id: String,
    pub settings: RunSettings,
}

impl crate::journal::FamilyRows for SettingsRow {
    fn insert(&self, tx: &Transaction<'_>) -> rusqlite::Result<()> {
        let json = serde_json::to_string(&self.settings).unwrap_or_else(|_| "{}".into());
        tx.prepare_cached(
            "INSERT OR REPLACE INTO run_settings (run_id, settings) VALUES (?1, ?2)",
        )?
        .execute(params![self.run_id, json])?;
        Ok(())
    }
}

/// One sample of a run's metrics; the run's last one says why it ended.
pub struct SampleRow {
    pub run_id: String,
    pub sample: Sample,
    /// Why the run ended ([`crate::campaign::EndReason`]'s name), on its
    /// final sample.
    pub ended: Option<&'static str>,
}

impl crate::journal::FamilyRows for SampleRow {
    fn insert(&self, tx: &Transaction<'_>) -> rusqlite::Result<()> {
        let s = &self.sample;
        tx.prepare_cached(
            "INSERT INTO metric_samples (run_id, ts_ms, calls, sequences, points, corpus, open, falsified,
               campaign_calls, campaign_points, ended)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        )?
        .execute(params![
            self.run_id,
            s.t_ms as i64,
            s.calls as i64,
            s.sequences as i64,
            s.points as i64,
            s.corpus as i64,
            s.open as i64,
            s.falsified as i64,
            s.campaign_calls as i64,
            s.campaign_points as i64,
            self.ended
        ])?;
        Ok(())
    }

    /// Samples are many and each only a point of a chart; the final one is
    /// the run's record of how it ended.
    fn droppable(&self) -> bool {
        self.ended.is_none()
    }
}

/// What the journal holds of one run: when it started, its settings, its
/// metrics over time and why it ended.
#[derive(Clone, Debug)]
pub struct RunHistory {
    pub run_id: String,
    pub contract: String,
    pub started_ms: u64,
    /// `None`: written by a rudder that kept no settings.
    pub settings: Option<RunSettings>,
    /// Oldest first.
    pub samples: Vec<Sample>,
    /// Why it ended; `None` when it has no final sample (still running, or
    /// the process was killed).
    pub ended: Option<String>,
}

/// Every run of the database that has samples, oldest first: `(run id,
/// started ms)`.
pub fn runs_with_samples(conn: &Connection) -> rusqlite::Result<Vec<(String, u64)>> {
    let mut stmt = conn.prepare(
        "SELECT r.run_id, r.started_ms FROM runs r
         WHERE EXISTS (SELECT 1 FROM metric_samples m WHERE m.run_id = r.run_id)
         ORDER BY r.started_ms, r.run_id",
    )?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get::<_, i64>(1)?.max(0) as u64)))?;
    rows.collect()
}

/// Run `run_id` as the journal holds it (`None`: no such run).
pub fn load_run(conn: &Connection, run_id: &str) -> rusqlite::Result<Option<RunHistory>> {
    let Some((contract, started_ms)) = conn
        .query_row(
            "SELECT contract, started_ms FROM runs WHERE run_id = ?1",
            [run_id],
            |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?.max(0) as u64)),
        )
        .optional()?
    else {
        return Ok(None);
    };
    let settings = conn
        .query_row(
            "SELECT settings FROM run_settings WHERE run_id = ?1",
            [run_id],
            |r| r.get::<_, String>(0),
        )
        .optional()?
        .and_then(|s| serde_json::from_str(&s).ok());
    let mut stmt = conn.prepare(
        "SELECT ts_ms, calls, sequences, points, corpus, open, falsified, campaign_calls,
           campaign_points, ended
         FROM metric_samples WHERE run_id = ?1 ORDER BY ts_ms, rowid",
    )?;
    let mut samples = Vec::new();
    let mut ended = None;
    let mut rows = stmt.query([run_id])?;
    while let Some(r) = rows.next()? {
        let n = |i: usize| -> rusqlite::Result<u64> { Ok(r.get::<_, i64>(i)?.max(0) as u64) };
        samples.push(Sample {
            t_ms: n(0)?,
            calls: n(1)?,
            sequences: n(2)?,
            points: n(3)?,
            corpus: n(4)?,
            open: n(5)?,
            falsified: n(6)?,
            campaign_calls: n(7)?,
            campaign_points: n(8)?,
        });
        if let Some(e) = r.get::<_, Option<String>>(9)? {
            ended = Some(e);
        }
    }
    Ok(Some(RunHistory {
        run_id: run_id.to_string(),
        contract,
        started_ms,
        settings,
        samples,
        ended,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::journal::FamilyRows;

    fn sample(t_ms: u64, calls: u64) -> Sample {
        Sample {
            t_ms,
            calls,
            points: calls / 10,
            ..Sample::default()
        }
    }

    #[test]
    fn a_run_is_read_back_with_its_settings_samples_and_end() {
        let mut conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE runs (run_id TEXT PRIMARY KEY, started_ms INTEGER NOT NULL, contract TEXT NOT NULL, root_id INTEGER);",
        )
        .unwrap();
        conn.execute_batch(SCHEMA).unwrap();
        let settings = RunSettings {
            seed: 7,
            workers: 2,
            test_mode: "property".into(),
            seq_len: 100,
            test_limit: 50_000,
            shrink_limit: 5_000,
        };
        let tx = conn.transaction().unwrap();
        for (run, started) in [("a", 1_000), ("b", 9_000), ("c", 20_000)] {
            tx.execute(
                "INSERT INTO runs (run_id, started_ms, contract) VALUES (?1, ?2, 'T')",
                params![run, started],
            )
            .unwrap();
        }
        SettingsRow {
            run_id: "a".into(),
            settings: settings.clone(),
        }
        .insert(&tx)
        .unwrap();
        for (i, run) in ["a", "a", "b", "a"].iter().enumerate() {
            let last = i == 3;
            let row = SampleRow {
                run_id: run.to_string(),
                sample: sample(1_000 + 250 * i as u64, 100 * i as u64),
                ended: last.then_some("timeout"),
            };
            assert_eq!(row.droppable(), !last, "only the final sample must land");
            row.insert(&tx).unwrap();
        }
        tx.commit().unwrap();

        let a = load_run(&conn, "a").unwrap().unwrap();
        assert_eq!(a.settings, Some(settings));
        assert_eq!(a.started_ms, 1_000);
        assert_eq!(
            a.samples.iter().map(|s| s.calls).collect::<Vec<_>>(),
            [0, 100, 300]
        );
        assert_eq!(a.ended.as_deref(), Some("timeout"));
        let b = load_run(&conn, "b").unwrap().unwrap();
        assert_eq!((b.settings, b.ended, b.samples.len()), (None, None, 1));
        assert!(load_run(&conn, "nope").unwrap().is_none());
        // Run c has no samples: not offered.
        assert_eq!(
            runs_with_samples(&conn).unwrap(),
            [("a".to_string(), 1_000), ("b".to_string(), 9_000)]
        );
    }
}
