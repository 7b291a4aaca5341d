//! The ops family's rows in the journal's database ([`SCHEMA`], given to the
//! journal when it opens): the agent's decisions (`save_decision`).

use crate::ops::Decision;
use rusqlite::{Connection, Transaction, params};

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
