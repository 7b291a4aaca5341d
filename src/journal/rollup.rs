//! Rollups: what the journal thread keeps beside the rows so that counts,
//! aggregates and deep pages of a million-row journal are answered without
//! reading a million rows.
//!
//! For every row, in the same transaction as the row: per (run, kind,
//! severity, path, bucket width, bucket) the number of rows (path `""`) and,
//! for each numeric property of the row (top level and up to
//! [`MAX_DEPTH`] levels of objects, keys of `[A-Za-z0-9_]` only), the count,
//! sum, sum of squares, min and max of its values, plus the first and last row
//! id of the bucket. Buckets are [`WIDTHS_MS`] wide (minutes, then seconds).
//! Timestamps never decrease with ids (see [`super`]), so buckets follow id
//! order.
//!
//! A reader answers a time window from whole minute buckets, then whole
//! second buckets at its edges, then the rows of the last partial second at
//! each edge ([`decompose`]); an entity's row count is kept the same way
//! (`entity_counts`, per kind).

use super::{Kind, Severity};
use rusqlite::{Transaction, params};
use serde_json::Value;
use std::collections::HashMap;

/// Bucket widths, widest first. The narrowest bounds the rows a time window
/// reads directly at each of its two edges.
pub const WIDTHS_MS: [u64; 2] = [60_000, 1_000];
/// The path under which rows are counted.
pub const ROWS: &str = "";
/// Nested objects followed at most (`$.a.b.c`); deeper paths are answered by
/// reading rows.
pub const MAX_DEPTH: usize = 3;

pub const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS rollups (
  run_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  path TEXT NOT NULL,
  width_ms INTEGER NOT NULL,
  bucket INTEGER NOT NULL,
  severity TEXT NOT NULL,
  n INTEGER NOT NULL,
  sum REAL NOT NULL,
  sumsq REAL NOT NULL,
  min REAL,
  max REAL,
  min_id INTEGER NOT NULL,
  max_id INTEGER NOT NULL,
  PRIMARY KEY (run_id, kind, path, width_ms, bucket, severity)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS entity_counts (
  run_id TEXT NOT NULL,
  entity TEXT NOT NULL,
  value NOT NULL,
  kind TEXT NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (run_id, entity, value, kind)
) WITHOUT ROWID;
";

/// count/sum/sum of squares/min/max of some values, and the id span of
/// their rows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Acc {
    pub n: u64,
    pub sum: f64,
    pub sumsq: f64,
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub min_id: i64,
    pub max_id: i64,
}

impl Default for Acc {
    fn default() -> Self {
        Acc {
            n: 0,
            sum: 0.0,
            sumsq: 0.0,
            min: None,
            max: None,
            min_id: i64::MAX,
            max_id: i64::MIN,
        }
    }
}

impl Acc {
    fn add(&mut self, v: Option<f64>, id: i64) {
        self.n += 1;
        if let Some(v) = v {
            self.sum += v;
            self.sumsq += v * v;
            self.min = Some(self.min.map_or(v, |m| m.min(v)));
            self.max = Some(self.max.map_or(v, |m| m.max(v)));
        }
        self.min_id = self.min_id.min(id);
        self.max_id = self.max_id.max(id);
    }

    pub fn merge(&mut self, o: &Acc) {
        self.n += o.n;
        self.sum += o.sum;
        self.sumsq += o.sumsq;
        self.min = match (self.min, o.min) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.max = match (self.max, o.max) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        self.min_id = self.min_id.min(o.min_id);
        self.max_id = self.max_id.max(o.max_id);
    }
}

/// An entity key's value as `entity_counts` stores it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum EntityValue {
    Text(String),
    Int(i64),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Cell {
    run: String,
    kind: Kind,
    severity: Severity,
    path: String,
    width: u64,
    bucket: u64,
}

/// The rollup cells and entity counts touched since the last flush.
#[derive(Default)]
pub struct Rollups {
    cells: HashMap<Cell, Acc>,
    entities: HashMap<(String, &'static str, EntityValue, Kind), u64>,
    leaves: Vec<(String, f64)>,
}

/// The numeric leaves of `v` (objects only, [`MAX_DEPTH`] levels), as
/// `$.a.b` paths.
fn numeric_leaves(v: &Value, prefix: &mut String, depth: usize, out: &mut Vec<(String, f64)>) {
    let Value::Object(map) = v else { return };
    for (k, child) in map {
        if k.is_empty() || !k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            continue;
        }
        let len = prefix.len();
        prefix.push('.');
        prefix.push_str(k);
        match child {
            Value::Number(n) => {
                if let Some(x) = n.as_f64() {
                    out.push((prefix.clone(), x));
                }
            }
            Value::Object(_) if depth < MAX_DEPTH => numeric_leaves(child, prefix, depth + 1, out),
            _ => {}
        }
        prefix.truncate(len);
    }
}

/// Whether rollups hold `path` (deeper paths are read from rows).
pub fn covers(path: &str) -> bool {
    path.matches('.').count() <= MAX_DEPTH
}

impl Rollups {
    /// Accounts for row `id`.
    #[allow(clippy::too_many_arguments)]
    pub fn add_row(
        &mut self,
        run: &str,
        kind: Kind,
        severity: Severity,
        ts_ms: u64,
        id: i64,
        properties: &Value,
        entities: &[(&'static str, Option<EntityValue>)],
    ) {
        let mut leaves = std::mem::take(&mut self.leaves);
        leaves.clear();
        let mut prefix = String::from("$");
        numeric_leaves(properties, &mut prefix, 1, &mut leaves);
        for width in WIDTHS_MS {
            let bucket = ts_ms / width;
            let mut cell = Cell {
                run: run.to_string(),
                kind,
                severity,
                path: ROWS.to_string(),
                width,
                bucket,
            };
            self.cells.entry(cell.clone()).or_default().add(None, id);
            for (path, x) in &leaves {
                cell.path.clone_from(path);
                match self.cells.get_mut(&cell) {
                    Some(acc) => acc.add(Some(*x), id),
                    None => self
                        .cells
                        .entry(cell.clone())
                        .or_default()
                        .add(Some(*x), id),
                }
            }
        }
        self.leaves = leaves;
        for (entity, value) in entities {
            if let Some(v) = value {
                *self
                    .entities
                    .entry((run.to_string(), entity, v.clone(), kind))
                    .or_insert(0) += 1;
            }
        }
    }

    /// Writes the touched cells into `tx` (the transaction of their rows)
    /// and forgets them, also on error (the transaction is then rolled back
    /// with its rows).
    pub fn flush(&mut self, tx: &Transaction<'_>) -> rusqlite::Result<()> {
        let cells = std::mem::take(&mut self.cells);
        let entities = std::mem::take(&mut self.entities);
        let mut stmt = tx.prepare_cached(
            "INSERT INTO rollups (run_id, kind, path, width_ms, bucket, severity,
               n, sum, sumsq, min, max, min_id, max_id)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
             ON CONFLICT DO UPDATE SET
               n = n + excluded.n,
               sum = sum + excluded.sum,
               sumsq = sumsq + excluded.sumsq,
               min = coalesce(min(min, excluded.min), min, excluded.min),
               max = coalesce(max(max, excluded.max), max, excluded.max),
               min_id = min(min_id, excluded.min_id),
               max_id = max(max_id, excluded.max_id)",
        )?;
        for (c, a) in cells {
            stmt.execute(params![
                c.run,
                c.kind.as_str(),
                c.path,
                c.width as i64,
                c.bucket.min(i64::MAX as u64) as i64,
                c.severity.as_str(),
                a.n as i64,
                a.sum,
                a.sumsq,
                a.min,
                a.max,
                a.min_id,
                a.max_id,
            ])?;
        }
        let mut stmt = tx.prepare_cached(
            "INSERT INTO entity_counts (run_id, entity, value, kind, n) VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT DO UPDATE SET n = n + excluded.n",
        )?;
        for ((run, entity, value, kind), n) in entities {
            let value = match value {
                EntityValue::Text(s) => rusqlite::types::Value::Text(s),
                EntityValue::Int(i) => rusqlite::types::Value::Integer(i),
            };
            stmt.execute(params![run, entity, value, kind.as_str(), n as i64])?;
        }
        Ok(())
    }
}

/// A time window's parts: whole buckets of a width, or rows read directly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Piece {
    /// Buckets `lo..=hi` of width `width` ms.
    Buckets { width: u64, lo: u64, hi: u64 },
    /// Rows with `lo <= ts_ms <= hi`.
    Rows { lo: u64, hi: u64 },
}

/// Splits `[lo, hi]` (ms, inclusive) into whole buckets, widest first, and
/// at most two runs of rows, each narrower than the narrowest bucket (or one
/// narrower than two of them, when no whole bucket fits).
pub fn decompose(lo: u64, hi: u64) -> Vec<Piece> {
    let mut out = Vec::new();
    split(lo, hi, &WIDTHS_MS, &mut out);
    out
}

fn split(lo: u64, hi: u64, widths: &[u64], out: &mut Vec<Piece>) {
    if lo > hi {
        return;
    }
    let Some((&w, rest)) = widths.split_first() else {
        out.push(Piece::Rows { lo, hi });
        return;
    };
    // Bucket b covers [b*w, (b+1)*w - 1].
    let first = lo.div_ceil(w);
    let end = (hi as u128 + 1) / w as u128; // first bucket not wholly inside
    if (first as u128) < end {
        let last = (end - 1) as u64;
        if lo < first * w {
            split(lo, first * w - 1, rest, out);
        }
        out.push(Piece::Buckets {
            width: w,
            lo: first,
            hi: last,
        });
        let after = (last as u128 + 1) * w as u128;
        if after <= hi as u128 {
            split(after as u64, hi, rest, out);
        }
    } else {
        split(lo, hi, rest, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every millisecond of the window is in exactly one piece.
    fn check(lo: u64, hi: u64) {
        let pieces = decompose(lo, hi);
        let mut covered = 0u128;
        let mut at = lo as u128;
        for p in &pieces {
            let (a, b) = match *p {
                Piece::Buckets { width, lo, hi } => (
                    lo as u128 * width as u128,
                    (hi as u128 + 1) * width as u128 - 1,
                ),
                Piece::Rows { lo, hi } => {
                    // One edge is shorter than the narrowest bucket; a
                    // window holding no whole one is shorter than two.
                    assert!(hi - lo < 2 * WIDTHS_MS[WIDTHS_MS.len() - 1], "{p:?}");
                    (lo as u128, hi as u128)
                }
            };
            assert_eq!(a, at, "{lo}..{hi}: {pieces:?}");
            assert!(b >= a);
            covered += b - a + 1;
            at = b + 1;
        }
        assert_eq!(
            covered,
            hi as u128 - lo as u128 + 1,
            "{lo}..{hi}: {pieces:?}"
        );
        assert!(
            pieces
                .iter()
                .filter(|p| matches!(p, Piece::Rows { .. }))
                .count()
                <= 2
        );
    }

    #[test]
    fn a_window_is_covered_once_by_buckets_and_two_edges_at_most() {
        for (lo, hi) in [
            (0, 0),
            (0, 999),
            (0, 1000),
            (1, 59_999),
            (0, 59_999),
            (0, 60_000),
            (59_999, 120_001),
            (1_732_000_000_123, 1_732_000_999_456),
            (5, 7),
            (999, 1000),
            (0, u64::MAX - 1),
        ] {
            check(lo, hi);
        }
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..2000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let lo = x % 10_000_000;
            let hi = lo + (x >> 40) % 3_000_000;
            check(lo, hi);
        }
    }

    #[test]
    fn numeric_leaves_follow_objects_and_skip_odd_keys() {
        let v = serde_json::json!({
            "gasUsed": 21000, "calls": 3.5, "name": "x", "big": "123",
            "result": {"injection": 4, "deep": {"deeper": {"x": 1}}},
            "odd key": 5, "list": [1, 2]
        });
        let mut out = Vec::new();
        numeric_leaves(&v, &mut String::from("$"), 1, &mut out);
        out.sort_by(|a, b| a.0.cmp(&b.0));
        let paths: Vec<&str> = out.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(paths, ["$.calls", "$.gasUsed", "$.result.injection"]);
        assert!(covers("$.a.b.c") && !covers("$.a.b.c.d"));
    }
}
