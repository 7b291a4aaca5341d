//! Reads of the trace store: typed filters (`eq`, `ne`, `gt`, `gte`, `lt`,
//! `lte`, `contains`) on every trace and span attribute, a sort on any
//! non-null attribute, keyset cursors, and totals counted up to
//! [`TOTAL_CAP`].
//!
//! Every attribute has a type, and a filter's value and operator must fit it:
//! numbers compare as numbers (256-bit ones, `data.value` and integer
//! arguments, through fixed-width sortable keys), strings compare as text
//! (`contains` is a case-sensitive substring), booleans take `eq` and `ne`,
//! times take RFC 3339 or Unix milliseconds. Anything else is
//! [`QueryError::Invalid`] naming the filter's field and operator. No text
//! of a request becomes SQL: attribute names are looked up in fixed tables,
//! values are parameters.
//!
//! A cursor holds the last row's sort value and id and a fingerprint of the
//! query; rows are never updated, so the next page starts exactly after the
//! last row returned while new rows arrive (no duplicates, no gaps).

use super::query::QueryError;
use super::traces::{int_key, uint_key};
use alloy_primitives::{I256, U256};
use rusqlite::types::Value as Sql;
use rusqlite::{Connection, params_from_iter};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::str::FromStr;

mod search;
pub use search::*;

/// Totals above this are omitted (counting further would cost the budget).
pub const TOTAL_CAP: u64 = 10_000;

/// A filter's operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    Eq,
    Ne,
    Gt,
    Gte,
    Lt,
    Lte,
    Contains,
}

impl Op {
    fn as_str(self) -> &'static str {
        match self {
            Op::Eq => "eq",
            Op::Ne => "ne",
            Op::Gt => "gt",
            Op::Gte => "gte",
            Op::Lt => "lt",
            Op::Lte => "lte",
            Op::Contains => "contains",
        }
    }

    fn sql(self) -> &'static str {
        match self {
            Op::Eq => "=",
            Op::Ne => "IS NOT",
            Op::Gt => ">",
            Op::Gte => ">=",
            Op::Lt => "<",
            Op::Lte => "<=",
            Op::Contains => unreachable!("contains is instr()"),
        }
    }

    fn ordering(self) -> bool {
        matches!(self, Op::Gt | Op::Gte | Op::Lt | Op::Lte)
    }
}

/// One filter: `field operator value`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Condition {
    pub field: String,
    pub operator: Op,
    pub value: Value,
}

/// Sort direction.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Order {
    Asc,
    #[default]
    Desc,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ty {
    Text,
    Int,
    /// Stored in µs, given and shown in ms (fractions allowed).
    Micros,
    /// Stored in µs since the epoch; given as RFC 3339 or Unix ms.
    Time,
    /// A 256-bit unsigned number stored as its sortable key.
    U256,
    Bool,
    /// A row id shown with a prefix (`trace-12`); numbers or prefixed text.
    Id(&'static str),
}

impl Ty {
    fn name(self) -> &'static str {
        match self {
            Ty::Text => "string",
            Ty::Int | Ty::Micros => "number",
            Ty::Time => "time (RFC 3339 or Unix ms)",
            Ty::U256 => "256-bit number (a JSON number or a decimal/0x string)",
            Ty::Bool => "boolean",
            Ty::Id(_) => "id",
        }
    }
}

struct Field {
    path: &'static str,
    expr: &'static str,
    ty: Ty,
    /// Never null: usable as a sort key.
    sortable: bool,
}

const fn f(path: &'static str, expr: &'static str, ty: Ty, sortable: bool) -> Field {
    Field {
        path,
        expr,
        ty,
        sortable,
    }
}

const TRACE_FIELDS: &[Field] = &[
    f("id", "t.id", Ty::Id("trace-"), true),
    f("name", "t.name", Ty::Text, true),
    f("status", "t.status", Ty::Text, true),
    f("kind", "t.kind", Ty::Text, true),
    f("origin", "t.origin", Ty::Text, true),
    f("latency", "t.latency_us", Ty::Micros, true),
    f("totalTokens", "t.gas", Ty::Int, true),
    f("totalCost", "t.gas", Ty::Int, true),
    f("gas", "t.gas", Ty::Int, true),
    f("calls", "t.calls", Ty::Int, true),
    f("reverts", "t.reverts", Ty::Int, true),
    f("coverageGained", "t.coverage_gained", Ty::Int, true),
    f("createdAt", "t.created_us", Ty::Time, true),
    f("updatedAt", "t.updated_us", Ty::Time, true),
    f("sessionId", "t.run_id", Ty::Text, true),
    f("datasetRunId", "t.grp", Ty::Text, true),
    f("worker", "t.worker", Ty::Int, false),
    f("property", "t.property", Ty::Text, false),
    f("corpusEntry", "t.corpus_entry", Ty::Int, false),
    f("injectionId", "t.injection", Ty::Int, false),
    f("sourceTraceId", "t.source_trace", Ty::Id("trace-"), false),
    f("sourceEntry", "t.source_entry", Ty::Int, false),
    f("shrinkOf", "t.shrink_of", Ty::Id("trace-"), false),
    f("shrinkStep", "t.shrink_step", Ty::Int, false),
    f("replays", "t.replays", Ty::Int, false),
    f("value", "t.value", Ty::Text, false),
];

const SPAN_FIELDS: &[Field] = &[
    f("id", "s.id", Ty::Id("span-"), true),
    f("traceId", "s.trace_id", Ty::Id("trace-"), true),
    f("parentId", "NULL", Ty::Id("span-"), false),
    f("name", "s.name", Ty::Text, true),
    f("startTime", "s.start_us", Ty::Micros, true),
    f("endTime", "s.end_us", Ty::Micros, true),
    f("status", "s.status", Ty::Text, true),
    f("data.type", "'SPAN'", Ty::Text, true),
    f("data.function", "s.name", Ty::Text, true),
    f("data.call", "s.call", Ty::Text, true),
    f("data.args", "s.args", Ty::Text, true),
    f("data.sender", "s.sender", Ty::Text, true),
    f("data.value", "s.value_key", Ty::U256, true),
    f("data.delaySeconds", "s.delay_seconds", Ty::Int, true),
    f("data.delayBlocks", "s.delay_blocks", Ty::Int, true),
    f("data.gasUsed", "s.gas", Ty::Int, true),
    f("data.outcome", "s.outcome", Ty::Text, true),
    f("data.reason", "s.reason", Ty::Text, false),
    f("data.panicCode", "s.panic_code", Ty::Int, false),
    f("data.coverageGained", "s.coverage_gained", Ty::Int, true),
    f("data.durationUs", "s.duration_us", Ty::Int, true),
    f("data.position", "s.position", Ty::Int, true),
    f("data.falsified", "s.falsified", Ty::Bool, true),
];

/// Which store a query reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Table {
    Traces,
    Spans,
}

impl Table {
    fn fields(self) -> &'static [Field] {
        match self {
            Table::Traces => TRACE_FIELDS,
            Table::Spans => SPAN_FIELDS,
        }
    }

    fn from(self) -> &'static str {
        match self {
            Table::Traces => "traces t",
            Table::Spans => "spans s",
        }
    }

    fn id(self) -> &'static str {
        match self {
            Table::Traces => "t.id",
            Table::Spans => "s.id",
        }
    }

    fn default_sort(self) -> &'static str {
        match self {
            Table::Traces => "createdAt",
            Table::Spans => "startTime",
        }
    }

    /// The attribute names, for error messages.
    pub fn valid_fields(self) -> Vec<String> {
        let mut v: Vec<String> = self.fields().iter().map(|f| f.path.to_string()).collect();
        if self == Table::Spans {
            v.push("data.args.N".into());
            v.push("data.properties.NAME".into());
        }
        v
    }
}

/// A trace's row, as the tools show it.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TraceRow {
    /// `trace-N`.
    pub id: String,
    /// What the sequence is: "corpus entry 3", "falsified echidna_x", "shrink step 2 of echidna_x (final)", "injection 1 on worker 0", "random sequence".
    pub name: String,
    /// "error" when the sequence falsified a test, else "success".
    pub status: String,
    /// Time the calls took, in ms.
    pub latency: f64,
    /// Gas the calls used (the seed's token count).
    pub total_tokens: u64,
    /// Gas the calls used (the seed's cost).
    pub total_cost: u64,
    pub created_at: String,
    pub updated_at: String,
    /// corpus, injection, falsifying, shrink, optimization or recent.
    pub kind: String,
    /// How the sequence was made: random, mutation, injection, replayed or shrink.
    pub origin: String,
    /// The campaign run (see status.runs).
    pub session_id: String,
    /// The group the trace belongs to: injection-N (every worker's run of injection N), falsification-trace-N (shrink steps), or the kind.
    pub dataset_run_id: String,
    pub calls: u64,
    /// Calls that reverted, panicked or halted.
    pub reverts: u64,
    pub coverage_gained: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worker: Option<u32>,
    /// The test falsified, shrunk or improved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub property: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub corpus_entry: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub injection_id: Option<u64>,
    /// The trace this one came from: a mutation's corpus entry, or a shrink step's falsifying trace.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_trace_id: Option<String>,
    /// The corpus entry a mutation started from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_entry: Option<u64>,
    /// The falsifying trace a shrink step shrinks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shrink_of: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shrink_step: Option<u64>,
    /// Replays shrinking had spent at this step.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replays: Option<u64>,
    /// An optimization trace's value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
}

const TRACE_COLUMNS: &str =
    "t.id, t.name, t.status, t.latency_us, t.gas, t.created_us, t.updated_us,
  t.kind, t.origin, t.run_id, t.grp, t.calls, t.reverts, t.coverage_gained, t.worker, t.property,
  t.corpus_entry, t.injection, t.source_trace, t.source_entry, t.shrink_of, t.shrink_step,
  t.replays, t.value";

fn rfc3339_us(us: i64) -> String {
    humantime::format_rfc3339_micros(
        std::time::UNIX_EPOCH + std::time::Duration::from_micros(us.max(0) as u64),
    )
    .to_string()
}

fn u(v: i64) -> u64 {
    v.max(0) as u64
}

fn trace_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<TraceRow> {
    let gas: i64 = r.get(4)?;
    let tid = |v: Option<i64>| v.map(|n| format!("trace-{n}"));
    Ok(TraceRow {
        id: format!("trace-{}", r.get::<_, i64>(0)?),
        name: r.get(1)?,
        status: r.get(2)?,
        latency: r.get::<_, i64>(3)? as f64 / 1000.0,
        total_tokens: u(gas),
        total_cost: u(gas),
        created_at: rfc3339_us(r.get(5)?),
        updated_at: rfc3339_us(r.get(6)?),
        kind: r.get(7)?,
        origin: r.get(8)?,
        session_id: r.get(9)?,
        dataset_run_id: r.get(10)?,
        calls: u(r.get(11)?),
        reverts: u(r.get(12)?),
        coverage_gained: u(r.get(13)?),
        worker: r.get::<_, Option<i64>>(14)?.map(|w| w as u32),
        property: r.get(15)?,
        corpus_entry: r.get::<_, Option<i64>>(16)?.map(u),
        injection_id: r.get::<_, Option<i64>>(17)?.map(u),
        source_trace_id: tid(r.get(18)?),
        source_entry: r.get::<_, Option<i64>>(19)?.map(u),
        shrink_of: tid(r.get(20)?),
        shrink_step: r.get::<_, Option<i64>>(21)?.map(u),
        replays: r.get::<_, Option<i64>>(22)?.map(u),
        value: r.get(23)?,
    })
}

/// The traces with these ids, in this order.
pub fn traces(conn: &Connection, ids: &[i64]) -> Result<Vec<TraceRow>, QueryError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {TRACE_COLUMNS} FROM traces t WHERE t.id = ?1"
    ))?;
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        if let Some(row) = optional(stmt.query_row([id], trace_row))? {
            out.push(row);
        }
    }
    Ok(out)
}

fn optional<T>(r: rusqlite::Result<T>) -> rusqlite::Result<Option<T>> {
    match r {
        Ok(v) => Ok(Some(v)),
        Err(rusqlite::Error::QueryReturnedNoRows) => Ok(None),
        Err(e) => Err(e),
    }
}

/// The newest traces, optionally of one run and one group.
pub fn list(
    conn: &Connection,
    limit: u64,
    session: Option<&str>,
    group: Option<&str>,
) -> Result<Vec<TraceRow>, QueryError> {
    let mut sql = vec!["1".to_string()];
    let mut params = Vec::new();
    if let Some(s) = session {
        sql.push("t.run_id = ?".into());
        params.push(Sql::Text(s.into()));
    }
    if let Some(g) = group {
        sql.push("t.grp = ?".into());
        params.push(Sql::Text(g.into()));
    }
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {TRACE_COLUMNS} FROM traces t WHERE {} ORDER BY t.created_us DESC, t.id DESC LIMIT {limit}",
        sql.join(" AND ")
    ))?;
    let rows = stmt.query_map(params_from_iter(params.iter()), trace_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// What a span's call did.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SpanAttrs {
    /// Always "SPAN" (a call).
    #[serde(rename = "type")]
    pub kind: String,
    /// The canonical signature.
    pub function: String,
    /// The call in the project's call syntax (the parser reads it back).
    pub call: String,
    /// Each argument in the call syntax.
    pub args: Vec<String>,
    pub sender: String,
    /// Wei sent (decimal).
    pub value: String,
    pub delay_seconds: u64,
    pub delay_blocks: u64,
    pub gas_used: u64,
    /// success, revert, panic or halt.
    pub outcome: String,
    /// The decoded revert reason, panic or halt.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub panic_code: Option<u64>,
    /// Coverage points the call reached first.
    pub coverage_gained: u64,
    pub duration_us: u64,
    /// The call's place in its sequence (from 0).
    pub position: u64,
    /// A test failed after this call.
    pub falsified: bool,
    /// The tests checked after the call: true if it held.
    pub properties: serde_json::Map<String, Value>,
}

/// One span: a call of a trace.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SpanRow {
    /// `span-N`.
    pub id: String,
    pub trace_id: String,
    /// Always null: the calls of a sequence are siblings under their trace.
    pub parent_id: Option<String>,
    /// The function signature.
    pub name: String,
    /// Unix ms (fractional: µs precision).
    pub start_time: f64,
    pub end_time: f64,
    /// "error" when the call reverted, panicked or halted.
    pub status: String,
    pub data: SpanAttrs,
}

const SPAN_COLUMNS: &str = "s.id, s.trace_id, s.name, s.start_us, s.end_us, s.status, s.call,
  s.args, s.sender, s.value, s.delay_seconds, s.delay_blocks, s.gas, s.outcome, s.reason,
  s.panic_code, s.coverage_gained, s.duration_us, s.position, s.falsified, s.properties";

fn span_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<SpanRow> {
    let name: String = r.get(2)?;
    let args: String = r.get(7)?;
    let props: String = r.get(20)?;
    Ok(SpanRow {
        id: format!("span-{}", r.get::<_, i64>(0)?),
        trace_id: format!("trace-{}", r.get::<_, i64>(1)?),
        parent_id: None,
        start_time: r.get::<_, i64>(3)? as f64 / 1000.0,
        end_time: r.get::<_, i64>(4)? as f64 / 1000.0,
        status: r.get(5)?,
        data: SpanAttrs {
            kind: "SPAN".into(),
            function: name.clone(),
            call: r.get(6)?,
            args: serde_json::from_str(&args).unwrap_or_default(),
            sender: r.get(8)?,
            value: r.get(9)?,
            delay_seconds: u(r.get(10)?),
            delay_blocks: u(r.get(11)?),
            gas_used: u(r.get(12)?),
            outcome: r.get(13)?,
            reason: r.get(14)?,
            panic_code: r.get::<_, Option<i64>>(15)?.map(u),
            coverage_gained: u(r.get(16)?),
            duration_us: u(r.get(17)?),
            position: u(r.get(18)?),
            falsified: r.get::<_, i64>(19)? != 0,
            properties: serde_json::from_str(&props).unwrap_or_default(),
        },
        name,
    })
}

/// The spans with these ids, in this order.
pub fn spans(conn: &Connection, ids: &[i64]) -> Result<Vec<SpanRow>, QueryError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {SPAN_COLUMNS} FROM spans s WHERE s.id = ?1"
    ))?;
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        if let Some(row) = optional(stmt.query_row([id], span_row))? {
            out.push(row);
        }
    }
    Ok(out)
}

/// A trace with its spans and links.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TraceTree {
    #[serde(flatten)]
    pub trace: TraceRow,
    /// The calls, in order.
    pub spans: Vec<SpanRow>,
    /// For a falsifying trace: its accepted shrink steps, in order (the last is the final shrunk sequence).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub shrink_steps: Vec<String>,
}

/// Trace `id` with its spans (`None`: no such trace).
pub fn tree(conn: &Connection, id: i64) -> Result<Option<TraceTree>, QueryError> {
    let Some(trace) = traces(conn, &[id])?.pop() else {
        return Ok(None);
    };
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {SPAN_COLUMNS} FROM spans s WHERE s.trace_id = ?1 ORDER BY s.position"
    ))?;
    let spans = stmt
        .query_map([id], span_row)?
        .collect::<Result<Vec<_>, _>>()?;
    let steps: Vec<String> = conn
        .prepare_cached("SELECT id FROM traces WHERE shrink_of = ?1 ORDER BY id")?
        .query_map([id], |r| r.get::<_, i64>(0))?
        .map(|r| r.map(|n| format!("trace-{n}")))
        .collect::<Result<_, _>>()?;
    Ok(Some(TraceTree {
        trace,
        spans,
        shrink_steps: steps,
    }))
}
