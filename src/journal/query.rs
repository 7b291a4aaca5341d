//! Reads of the journal: parameterized SQL only (no text of a request ever
//! becomes SQL), one read transaction per answer (counts and pages agree),
//! and a deadline enforced inside SQLite (a progress handler interrupts a
//! query past it).

use super::rollup::{self, Acc, Piece, ROWS, WIDTHS_MS};
use super::{Category, Kind, Reader, Severity};
use rusqlite::types::Value as Sql;
use rusqlite::{Connection, params_from_iter};
use serde_json::Value;
use std::time::Instant;

#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    /// The query ran past its deadline and was interrupted.
    #[error("the query ran past its deadline")]
    Timeout,
    #[error("unknown run {0:?}")]
    UnknownRun(String),
    /// No event `id`, named by parameter `field`.
    #[error("{field}: unknown event {id:?}")]
    UnknownEvent { field: &'static str, id: String },
    /// A request's parameter `field` is malformed (trace filters).
    #[error("{field}: {message}")]
    Invalid { field: String, message: String },
    #[error("journal query: {0}")]
    Sqlite(rusqlite::Error),
}

impl From<rusqlite::Error> for QueryError {
    fn from(e: rusqlite::Error) -> Self {
        match e.sqlite_error_code() {
            Some(rusqlite::ErrorCode::OperationInterrupted) => QueryError::Timeout,
            _ => QueryError::Sqlite(e),
        }
    }
}

/// An entity key rows are indexed by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entity {
    FunctionSignature,
    Sender,
    Property,
    WorkerId,
    InjectionId,
}

impl Entity {
    fn column(self) -> &'static str {
        match self {
            Entity::FunctionSignature => "function",
            Entity::Sender => "sender",
            Entity::Property => "property",
            Entity::WorkerId => "worker",
            Entity::InjectionId => "injection",
        }
    }
}

/// Which rows of one run.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    pub run: String,
    /// Any of these kinds (empty: every kind).
    pub kinds: Vec<Kind>,
    pub from_ms: Option<u64>,
    pub to_ms: Option<u64>,
    pub severities: Vec<Severity>,
    pub entity: Option<(Entity, Sql)>,
    /// Only rows with validation errors.
    pub invalid_only: bool,
}

/// One journal row as the tools show it.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub id: i64,
    pub run_id: String,
    pub ts_ms: u64,
    pub kind: Kind,
    pub severity: Severity,
    pub category: Category,
    pub parent: Option<i64>,
    pub properties: Value,
    pub validation_errors: Option<Value>,
    /// Bytes of the stored JSON (properties and validation errors): what
    /// the row adds to an answer, known without serializing it again.
    pub stored_bytes: usize,
}

/// A page of rows.
#[derive(Clone, Debug)]
pub struct Page {
    pub rows: Vec<Row>,
    pub total: u64,
}

/// Aggregates of one numeric property.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Aggregates {
    /// Rows matched (kind, run, time).
    pub rows: u64,
    /// Rows whose property is a number.
    pub count: u64,
    pub sum: Option<f64>,
    pub avg: Option<f64>,
    pub min: Option<f64>,
    pub max: Option<f64>,
    /// Population standard deviation.
    pub stddev: Option<f64>,
}

const COLUMNS: &str =
    "id, run_id, ts_ms, kind, severity, category, parent_id, properties, validation_errors";

fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Row> {
    let props: String = r.get(7)?;
    let invalid: Option<String> = r.get(8)?;
    let stored_bytes = props.len() + invalid.as_ref().map_or(0, String::len);
    Ok(Row {
        stored_bytes,
        id: r.get(0)?,
        run_id: r.get(1)?,
        ts_ms: r.get::<_, i64>(2)? as u64,
        kind: word(r, 3, Kind::parse)?,
        severity: word(r, 4, Severity::parse)?,
        category: word(r, 5, Category::parse)?,
        parent: r.get(6)?,
        properties: serde_json::from_str(&props).unwrap_or(Value::Null),
        validation_errors: invalid.and_then(|s| serde_json::from_str(&s).ok()),
    })
}

/// Column `i`, a word of one of the journal's vocabularies; a word this
/// version does not know is an error naming it.
fn word<T>(r: &rusqlite::Row<'_>, i: usize, parse: fn(&str) -> Option<T>) -> rusqlite::Result<T> {
    let w: String = r.get(i)?;
    parse(&w).ok_or_else(|| {
        rusqlite::Error::FromSqlConversionFailure(
            i,
            rusqlite::types::Type::Text,
            format!("unknown word {w:?} in column {i}").into(),
        )
    })
}

/// Runs `f` in one read transaction, interrupted past `deadline`.
pub fn with_deadline<T>(
    reader: &mut Reader,
    deadline: Instant,
    f: impl FnOnce(&Connection) -> Result<T, QueryError>,
) -> Result<T, QueryError> {
    let conn = reader.conn_mut();
    conn.progress_handler(1000, Some(move || Instant::now() >= deadline))?;
    let tx = conn.unchecked_transaction()?;
    let out = f(&tx);
    drop(tx);
    let _ = conn.progress_handler(0, None::<fn() -> bool>);
    out
}

/// Whether run `run` exists.
pub fn run_exists(conn: &Connection, run: &str) -> Result<bool, QueryError> {
    let n: i64 = conn
        .prepare_cached("SELECT COUNT(*) FROM runs WHERE run_id = ?1")?
        .query_row([run], |r| r.get(0))?;
    Ok(n > 0)
}

/// The id range of run `run` between two times (inclusive), or `None` when
/// no row falls inside. Timestamps never decrease with ids (module doc of
/// [`super`]), so a time range is an id range.
fn id_range(conn: &Connection, f: &Filter) -> Result<Option<(i64, i64)>, QueryError> {
    // One index probe each (ids and timestamps grow together).
    let lo: Option<i64> = conn
        .prepare_cached(
            "SELECT id FROM events WHERE run_id = ?1 AND ts_ms >= ?2 ORDER BY ts_ms, id LIMIT 1",
        )?
        .query_map(
            rusqlite::params![f.run, clamp(f.from_ms.unwrap_or(0))],
            |r| r.get(0),
        )?
        .next()
        .transpose()?;
    let hi = last_id_at(conn, &f.run, f.to_ms.unwrap_or(u64::MAX))?;
    Ok(match (lo, hi) {
        (Some(lo), Some(hi)) if lo <= hi => Some((lo, hi)),
        _ => None,
    })
}

/// Appends ` AND {column} IN (?, …)` with one bound parameter per value.
fn push_in<'a>(
    sql: &mut String,
    args: &mut Vec<Sql>,
    column: &str,
    values: impl IntoIterator<Item = &'a str>,
) {
    sql.push_str(" AND ");
    sql.push_str(column);
    sql.push_str(" IN (");
    for (i, v) in values.into_iter().enumerate() {
        sql.push_str(if i == 0 { "?" } else { ", ?" });
        args.push(Sql::Text(v.into()));
    }
    sql.push(')');
}

/// `WHERE …` and its parameters for `f` (every value bound, none spliced).
fn where_clause(conn: &Connection, f: &Filter) -> Result<Option<(String, Vec<Sql>)>, QueryError> {
    let mut sql = String::from("run_id = ?");
    let mut args = vec![Sql::Text(f.run.clone())];
    if !f.kinds.is_empty() {
        push_in(
            &mut sql,
            &mut args,
            "kind",
            f.kinds.iter().map(|k| k.as_str()),
        );
    }
    if f.from_ms.is_some() || f.to_ms.is_some() {
        match id_range(conn, f)? {
            Some((lo, hi)) => {
                sql.push_str(" AND id BETWEEN ? AND ?");
                args.push(Sql::Integer(lo));
                args.push(Sql::Integer(hi));
            }
            None => return Ok(None),
        }
    }
    if !f.severities.is_empty() {
        push_in(
            &mut sql,
            &mut args,
            "severity",
            f.severities.iter().map(|s| s.as_str()),
        );
    }
    if let Some((entity, value)) = &f.entity {
        sql.push_str(&format!(" AND {} = ?", entity.column()));
        args.push(value.clone());
    }
    if f.invalid_only {
        sql.push_str(" AND validation_errors IS NOT NULL");
    }
    Ok(Some((sql, args)))
}

/// Rows matching `f` in id order, page `index` of `size`, with the total
/// (from the rollups where they answer: the same transaction as the page).
pub fn events(conn: &Connection, f: &Filter, index: u64, size: u64) -> Result<Page, QueryError> {
    let Some((clause, args)) = where_clause(conn, f)? else {
        return Ok(Page {
            rows: Vec::new(),
            total: 0,
        });
    };
    let total = count(conn, f)?;
    let offset = index.saturating_mul(size);
    if offset >= total {
        return Ok(Page {
            rows: Vec::new(),
            total,
        });
    }
    // A deep page starts at the bucket holding its first row (the rollups'
    // per-bucket counts), not after `offset` skipped rows.
    let (from_id, offset) = match skip_to(conn, f, offset)? {
        Some(start) => start,
        None => (0, offset),
    };
    let mut page_args = args;
    page_args.push(Sql::Integer(from_id));
    page_args.push(Sql::Integer(clamp(size)));
    page_args.push(Sql::Integer(clamp(offset)));
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM events WHERE {clause} AND id >= ? ORDER BY id LIMIT ? OFFSET ?"
    ))?;
    let rows = stmt
        .query_map(params_from_iter(page_args.iter()), row)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(Page { rows, total })
}

/// Pages this deep start from the rollups' buckets.
const SKIP_FROM: u64 = 1_000;

/// Whether the rollups answer for `f` (they know run, kind, severity, time).
fn rolled_up(f: &Filter) -> bool {
    f.entity.is_none() && !f.invalid_only
}

/// `AND kind IN (…) [AND severity IN (…)]` for the rollup tables.
fn rollup_filter(f: &Filter, sql: &mut String, args: &mut Vec<Sql>) {
    let kinds: &[Kind] = if f.kinds.is_empty() {
        Kind::ALL
    } else {
        &f.kinds
    };
    push_in(sql, args, "kind", kinds.iter().map(|k| k.as_str()));
    if !f.severities.is_empty() {
        push_in(
            sql,
            args,
            "severity",
            f.severities.iter().map(|s| s.as_str()),
        );
    }
}

/// A u64 as SQLite's integer (saturating).
fn clamp(v: u64) -> i64 {
    v.min(i64::MAX as u64) as i64
}

/// The rollup cells of `f` at `path`, buckets `lo..=hi` of `width`, summed.
fn cells(
    conn: &Connection,
    f: &Filter,
    path: &str,
    width: u64,
    lo: u64,
    hi: u64,
) -> Result<Acc, QueryError> {
    let mut sql = String::from(
        "SELECT COALESCE(SUM(n), 0), TOTAL(sum), TOTAL(sumsq), MIN(min), MAX(max),
           MIN(min_id), MAX(max_id)
         FROM rollups WHERE run_id = ? AND path = ? AND width_ms = ? AND bucket BETWEEN ? AND ?",
    );
    let mut args = vec![
        Sql::Text(f.run.clone()),
        Sql::Text(path.into()),
        Sql::Integer(width as i64),
        Sql::Integer(clamp(lo)),
        Sql::Integer(clamp(hi)),
    ];
    rollup_filter(f, &mut sql, &mut args);
    Ok(conn
        .prepare_cached(&sql)?
        .query_row(params_from_iter(args.iter()), |r| {
            Ok(Acc {
                n: r.get::<_, i64>(0)? as u64,
                sum: r.get(1)?,
                sumsq: r.get(2)?,
                min: r.get(3)?,
                max: r.get(4)?,
                min_id: r.get::<_, Option<i64>>(5)?.unwrap_or(i64::MAX),
                max_id: r.get::<_, Option<i64>>(6)?.unwrap_or(i64::MIN),
            })
        })?)
}

/// What rows read directly contribute: their number, or the values at a path.
#[derive(Clone, Copy)]
enum Measure<'a> {
    Rows,
    Values(&'a str),
}

/// `measure` over the rows of `f` read one by one.
fn scan(conn: &Connection, f: &Filter, measure: Measure<'_>) -> Result<Acc, QueryError> {
    let Some((clause, mut args)) = where_clause(conn, f)? else {
        return Ok(Acc::default());
    };
    let value = match measure {
        Measure::Rows => "NULL".to_string(),
        Measure::Values(path) => match typed_column(path) {
            Some(col) => format!("CAST({col} AS REAL)"),
            None => {
                // Numbers only: a string or object at the path is not counted.
                args.insert(0, Sql::Text(path.into()));
                args.insert(0, Sql::Text(path.into()));
                "CASE WHEN json_type(properties, ?) IN ('integer', 'real') \
                 THEN CAST(json_extract(properties, ?) AS REAL) END"
                    .to_string()
            }
        },
    };
    let sql = format!(
        "SELECT COUNT(*), COUNT(v), TOTAL(v), MIN(v), MAX(v), TOTAL(v * v)
         FROM (SELECT {value} AS v FROM events WHERE {clause})"
    );
    let (rows, count, sum, min, max, sumsq): (i64, i64, f64, Option<f64>, Option<f64>, f64) = conn
        .prepare_cached(&sql)?
        .query_row(params_from_iter(args.iter()), |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
            ))
        })?;
    Ok(Acc {
        n: match measure {
            Measure::Rows => rows as u64,
            Measure::Values(_) => count as u64,
        },
        sum,
        sumsq,
        min,
        max,
        ..Acc::default()
    })
}

/// `measure` over the rows of `f` (which [`rolled_up`] accepts): whole
/// buckets from the rollups, the partial seconds at a window's edges read
/// directly.
fn accumulate(conn: &Connection, f: &Filter, measure: Measure<'_>) -> Result<Acc, QueryError> {
    let path = match measure {
        Measure::Rows => ROWS,
        Measure::Values(p) => p,
    };
    let whole = |conn| cells(conn, f, path, WIDTHS_MS[0], 0, u64::MAX);
    if f.from_ms.is_none() && f.to_ms.is_none() {
        return whole(conn);
    }
    let Some((first, last)) = first_ts(conn, &f.run)?.zip(last_ts(conn, &f.run)?) else {
        return Ok(Acc::default());
    };
    // A bound past the run's first or last row is no bound: the buckets at
    // the run's ends hold exactly its rows, none need reading directly.
    let (lo, hi) = (
        f.from_ms.filter(|&t| t > first),
        f.to_ms.filter(|&t| t < last),
    );
    if lo.is_none() && hi.is_none() {
        return whole(conn);
    }
    let (lo, hi) = (lo.unwrap_or(0), hi.unwrap_or(u64::MAX - 1));
    let mut acc = Acc::default();
    if lo > hi {
        return Ok(acc);
    }
    for piece in rollup::decompose(lo, hi) {
        let part = match piece {
            Piece::Buckets { width, lo, hi } => cells(conn, f, path, width, lo, hi)?,
            Piece::Rows { lo, hi } => {
                let edge = Filter {
                    from_ms: Some(lo),
                    to_ms: Some(hi),
                    ..f.clone()
                };
                scan(conn, &edge, measure)?
            }
        };
        acc.merge(&part);
    }
    Ok(acc)
}

/// The number of rows matching `f`.
pub fn count(conn: &Connection, f: &Filter) -> Result<u64, QueryError> {
    if rolled_up(f) {
        return Ok(accumulate(conn, f, Measure::Rows)?.n);
    }
    if let Some((entity, value)) = &f.entity
        && f.from_ms.is_none()
        && f.to_ms.is_none()
        && f.severities.is_empty()
        && !f.invalid_only
    {
        let mut sql = String::from(
            "SELECT COALESCE(SUM(n), 0) FROM entity_counts WHERE run_id = ? AND entity = ? AND value = ?",
        );
        let mut args = vec![
            Sql::Text(f.run.clone()),
            Sql::Text(entity.column().into()),
            value.clone(),
        ];
        if !f.kinds.is_empty() {
            rollup_filter(
                &Filter {
                    severities: Vec::new(),
                    ..f.clone()
                },
                &mut sql,
                &mut args,
            );
        }
        let n: i64 = conn
            .prepare_cached(&sql)?
            .query_row(params_from_iter(args.iter()), |r| r.get(0))?;
        return Ok(n as u64);
    }
    Ok(scan(conn, f, Measure::Rows)?.n)
}

/// Where a page `offset` rows into `f` starts: the first id of the bucket
/// holding that row, and the rows to skip from there (`None`: skip by
/// offset).
fn skip_to(conn: &Connection, f: &Filter, offset: u64) -> Result<Option<(i64, u64)>, QueryError> {
    if offset < SKIP_FROM || !rolled_up(f) || f.from_ms.is_some() || f.to_ms.is_some() {
        return Ok(None);
    }
    let (mut lo, mut hi) = (0u64, u64::MAX);
    let mut before = 0u64;
    let mut start = None;
    for (level, &width) in WIDTHS_MS.iter().enumerate() {
        let mut sql = String::from(
            "SELECT bucket, SUM(n), MIN(min_id) FROM rollups
             WHERE run_id = ? AND path = '' AND width_ms = ? AND bucket BETWEEN ? AND ?",
        );
        let mut args = vec![
            Sql::Text(f.run.clone()),
            Sql::Integer(width as i64),
            Sql::Integer(clamp(lo)),
            Sql::Integer(clamp(hi)),
        ];
        rollup_filter(f, &mut sql, &mut args);
        sql.push_str(" GROUP BY bucket ORDER BY bucket");
        let mut stmt = conn.prepare_cached(&sql)?;
        let mut rows = stmt.query(params_from_iter(args.iter()))?;
        let mut found = false;
        while let Some(r) = rows.next()? {
            let (bucket, n, first): (i64, i64, i64) = (r.get(0)?, r.get(1)?, r.get(2)?);
            if before + n as u64 > offset {
                found = true;
                start = Some(first);
                if let Some(&narrower) = WIDTHS_MS.get(level + 1) {
                    lo = bucket as u64 * (width / narrower);
                    hi = lo + width / narrower - 1;
                }
                break;
            }
            before += n as u64;
        }
        if !found {
            return Ok(None);
        }
    }
    Ok(start.map(|id| (id, offset - before)))
}

/// The numeric column that mirrors a JSON property, where one does.
fn typed_column(path: &str) -> Option<&'static str> {
    match path {
        "$.gasUsed" => Some("gas"),
        "$.durationUs" => Some("duration_us"),
        "$.newPoints" => Some("coverage_delta"),
        "$.corpusSize" => Some("corpus_size"),
        _ => None,
    }
}

/// count/sum/avg/min/max/stddev of the numbers at `path` in the rows of `f`.
/// `path` must match `^\$\.[a-zA-Z0-9_\.]+$` (checked by the caller); it is
/// bound as a parameter, never spliced.
pub fn aggregate(conn: &Connection, f: &Filter, path: &str) -> Result<Aggregates, QueryError> {
    let (rows, values) = if rolled_up(f) && rollup::covers(path) {
        (
            accumulate(conn, f, Measure::Rows)?.n,
            accumulate(conn, f, Measure::Values(path))?,
        )
    } else {
        (
            scan(conn, f, Measure::Rows)?.n,
            scan(conn, f, Measure::Values(path))?,
        )
    };
    Ok(Aggregates::of(rows, &values))
}

impl Aggregates {
    fn of(rows: u64, v: &Acc) -> Aggregates {
        let n = v.n as f64;
        let avg = (v.n > 0).then(|| v.sum / n);
        let stddev = avg.map(|m| (v.sumsq / n - m * m).max(0.0).sqrt());
        Aggregates {
            rows,
            count: v.n,
            sum: (v.n > 0).then_some(v.sum),
            avg,
            min: v.min,
            max: v.max,
            stddev,
        }
    }

    /// The same figures computed by reading every matching row (what the
    /// rollups must agree with).
    pub fn by_scan(conn: &Connection, f: &Filter, path: &str) -> Result<Aggregates, QueryError> {
        Ok(Aggregates::of(
            scan(conn, f, Measure::Rows)?.n,
            &scan(conn, f, Measure::Values(path))?,
        ))
    }
}

/// One row by id, in run `run`.
pub fn event(conn: &Connection, run: &str, id: i64) -> Result<Option<Row>, QueryError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM events WHERE id = ?1 AND run_id = ?2"
    ))?;
    let mut rows = stmt.query_map(rusqlite::params![id, run], row)?;
    Ok(rows.next().transpose()?)
}

/// `root` and its descendants down to `depth` levels, in id order, at most
/// `limit` rows (`true` when cut).
pub fn descendants(
    conn: &Connection,
    run: &str,
    root: i64,
    depth: u32,
    limit: usize,
) -> Result<(Vec<Row>, bool), QueryError> {
    let mut stmt = conn.prepare_cached(&format!(
        "WITH RECURSIVE chain(id, depth) AS (
           SELECT id, 0 FROM events WHERE id = ?1 AND run_id = ?2
           UNION ALL
           SELECT e.id, c.depth + 1 FROM events e JOIN chain c ON e.parent_id = c.id
           WHERE c.depth < ?3
         )
         SELECT {COLUMNS} FROM events WHERE id IN (SELECT id FROM chain) ORDER BY id LIMIT ?4"
    ))?;
    let mut rows = stmt
        .query_map(rusqlite::params![root, run, depth, (limit + 1) as i64], row)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let cut = rows.len() > limit;
    rows.truncate(limit);
    Ok((rows, cut))
}

/// The chain of parent links from `from` up to `root` (both included), in
/// id order; `None` when `root` is not an ancestor of `from`.
pub fn path_between(
    conn: &Connection,
    run: &str,
    root: i64,
    from: i64,
    max: usize,
) -> Result<Option<Vec<Row>>, QueryError> {
    let mut out = Vec::new();
    let mut at = Some(from);
    while let Some(id) = at {
        if out.len() >= max {
            return Ok(None);
        }
        let Some(r) = event(conn, run, id)? else {
            return Ok(None);
        };
        at = r.parent;
        let done = r.id == root;
        out.push(r);
        if done {
            out.reverse();
            return Ok(Some(out));
        }
    }
    Ok(None)
}

/// The last row of `kind` at or before id `until`.
pub fn last_of(
    conn: &Connection,
    run: &str,
    kind: Kind,
    until: i64,
) -> Result<Option<Row>, QueryError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM events WHERE run_id = ?1 AND kind = ?2 AND id <= ?3
         ORDER BY id DESC LIMIT 1"
    ))?;
    let mut rows = stmt.query_map(rusqlite::params![run, kind.as_str(), until], row)?;
    Ok(rows.next().transpose()?)
}

/// Every row of the given kinds at or before id `until`, in id order.
pub fn all_of(
    conn: &Connection,
    run: &str,
    kinds: &[Kind],
    until: i64,
) -> Result<Vec<Row>, QueryError> {
    let mut out = Vec::new();
    for k in kinds {
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT {COLUMNS} FROM events WHERE run_id = ?1 AND kind = ?2 AND id <= ?3 ORDER BY id"
        ))?;
        let rows = stmt
            .query_map(rusqlite::params![run, k.as_str(), until], row)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        out.extend(rows);
    }
    out.sort_by_key(|r| r.id);
    Ok(out)
}

/// The id of the last row of run `run` at or before `ts_ms` (`None`: the
/// run has no row that early).
pub fn last_id_at(conn: &Connection, run: &str, ts_ms: u64) -> Result<Option<i64>, QueryError> {
    Ok(conn
        .prepare_cached(
            "SELECT id FROM events WHERE run_id = ?1 AND ts_ms <= ?2
             ORDER BY ts_ms DESC, id DESC LIMIT 1",
        )?
        .query_map(rusqlite::params![run, clamp(ts_ms)], |r| r.get(0))?
        .next()
        .transpose()?)
}

/// The timestamp of run `run`'s first row.
fn first_ts(conn: &Connection, run: &str) -> Result<Option<u64>, QueryError> {
    Ok(conn
        .prepare_cached("SELECT ts_ms FROM events WHERE run_id = ?1 ORDER BY ts_ms, id LIMIT 1")?
        .query_map([run], |r| r.get::<_, i64>(0))?
        .next()
        .transpose()?
        .map(|t| t.max(0) as u64))
}

/// The timestamp of run `run`'s last row.
fn last_ts(conn: &Connection, run: &str) -> Result<Option<u64>, QueryError> {
    Ok(conn
        .prepare_cached(
            "SELECT ts_ms FROM events WHERE run_id = ?1 ORDER BY ts_ms DESC, id DESC LIMIT 1",
        )?
        .query_map([run], |r| r.get::<_, i64>(0))?
        .next()
        .transpose()?
        .map(|t| t.max(0) as u64))
}
