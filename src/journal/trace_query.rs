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

/// Totals above this are omitted (seed 003).
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

fn invalid(field: impl Into<String>, message: impl Into<String>) -> QueryError {
    QueryError::Invalid {
        field: field.into(),
        message: message.into(),
    }
}

/// A resolved attribute: SQL expression and type.
enum Resolved {
    Fixed(&'static Field),
    /// `data.args.N`: argument N (display text and numeric key).
    Arg(usize),
    /// `data.properties.NAME`: whether the property held after the call.
    Property(String),
}

fn resolve(table: Table, path: &str, at: &str) -> Result<Resolved, QueryError> {
    if let Some(f) = table.fields().iter().find(|f| f.path == path) {
        return Ok(Resolved::Fixed(f));
    }
    if table == Table::Spans {
        if let Some(n) = path.strip_prefix("data.args.") {
            if let Ok(n) = n.parse::<usize>()
                && n < 1024
            {
                return Ok(Resolved::Arg(n));
            }
            return Err(invalid(
                at,
                format!("{path:?}: an argument is data.args.N with N a position from 0"),
            ));
        }
        if let Some(name) = path.strip_prefix("data.properties.") {
            if !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
            {
                return Ok(Resolved::Property(name.to_string()));
            }
            return Err(invalid(
                at,
                format!("{path:?}: a property is data.properties.NAME with NAME an identifier"),
            ));
        }
    }
    Err(invalid(
        at,
        format!(
            "unknown field {path:?}; fields: {}",
            table.valid_fields().join(", ")
        ),
    ))
}

/// The sortable key of an integer given as a JSON number or string.
fn number_key(v: &Value) -> Option<String> {
    match v {
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                Some(uint_key(U256::from(u)))
            } else if let Some(i) = n.as_i64() {
                Some(int_key(I256::try_from(i).ok()?))
            } else {
                let f = n.as_f64()?;
                (f.fract() == 0.0 && f.abs() < 9.0e15)
                    .then(|| int_key(I256::try_from(f as i64).unwrap_or_default()))
            }
        }
        Value::String(s) => {
            let t = s.trim();
            let (neg, digits) = match t.strip_prefix('-') {
                Some(r) => (true, r),
                None => (false, t),
            };
            let u = if let Some(h) = digits.strip_prefix("0x") {
                U256::from_str_radix(h, 16).ok()?
            } else if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
                U256::from_str(digits).ok()?
            } else {
                return None;
            };
            if neg {
                I256::checked_from_sign_and_abs(alloy_primitives::Sign::Negative, u).map(int_key)
            } else {
                Some(uint_key(u))
            }
        }
        _ => None,
    }
}

fn as_i64(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64().or_else(|| {
            let f = n.as_f64()?;
            (f.fract() == 0.0 && f.abs() < 9.2e18).then_some(f as i64)
        }),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn as_ms_to_us(v: &Value) -> Option<i64> {
    let ms = match v {
        Value::Number(n) => n.as_f64()?,
        Value::String(s) => s.trim().parse::<f64>().ok()?,
        _ => return None,
    };
    (ms.is_finite() && ms.abs() < 9.0e15).then(|| (ms * 1000.0).round() as i64)
}

/// An argument filter reads the argument index when it matches at most
/// this many arguments; past that, matches are common and a scan in sort
/// order finds a page sooner.
const ARG_INDEX_MAX: i64 = 50_000;

/// Builds the SQL of one condition.
fn condition(
    conn: &Connection,
    table: Table,
    c: &Condition,
    at: &str,
    sql: &mut Vec<String>,
    params: &mut Vec<Sql>,
) -> Result<(), QueryError> {
    let field_at = format!("{at}.field");
    let value_at = format!("{at}.value");
    let op = c.operator;
    let bad_op = |ty: &str| {
        invalid(
            format!("{at}.operator"),
            format!(
                "operator {:?} does not apply to {:?} ({ty}); it takes {}",
                op.as_str(),
                c.field,
                match ty {
                    "string" => "eq, ne, gt, gte, lt, lte, contains",
                    "boolean" => "eq, ne",
                    _ => "eq, ne, gt, gte, lt, lte",
                }
            ),
        )
    };
    let bad_value = |ty: &str| {
        invalid(
            value_at.clone(),
            format!("{:?} takes a {ty}, not {}", c.field, c.value),
        )
    };
    let cmp = |expr: &str, sql: &mut Vec<String>| {
        if op == Op::Contains {
            sql.push(format!("instr({expr}, ?) > 0"));
        } else {
            sql.push(format!("{expr} {} ?", op.sql()));
        }
    };
    match resolve(table, &c.field, &field_at)? {
        Resolved::Fixed(f) => {
            let v = match f.ty {
                Ty::Text => match &c.value {
                    Value::String(s) => Sql::Text(s.clone()),
                    _ => return Err(bad_value("string")),
                },
                _ if op == Op::Contains => return Err(bad_op(f.ty.name())),
                Ty::Int => Sql::Integer(as_i64(&c.value).ok_or_else(|| bad_value("number"))?),
                Ty::Micros => {
                    Sql::Integer(as_ms_to_us(&c.value).ok_or_else(|| bad_value("number (ms)"))?)
                }
                Ty::Time => Sql::Integer(match &c.value {
                    Value::String(s) if s.contains('T') => humantime::parse_rfc3339_weak(s)
                        .ok()
                        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                        .map(|d| d.as_micros() as i64)
                        .ok_or_else(|| bad_value("time (RFC 3339 or Unix ms)"))?,
                    other => {
                        as_ms_to_us(other).ok_or_else(|| bad_value("time (RFC 3339 or Unix ms)"))?
                    }
                }),
                Ty::U256 => {
                    let key = number_key(&c.value)
                        .filter(|k| k.starts_with('p'))
                        .ok_or_else(|| bad_value("non-negative 256-bit number"))?;
                    Sql::Text(key)
                }
                Ty::Bool => {
                    if op.ordering() {
                        return Err(bad_op("boolean"));
                    }
                    match c.value {
                        Value::Bool(b) => Sql::Integer(b as i64),
                        _ => return Err(bad_value("boolean")),
                    }
                }
                Ty::Id(prefix) => {
                    let n = match &c.value {
                        Value::String(s) => s.strip_prefix(prefix).unwrap_or(s).parse().ok(),
                        other => as_i64(other),
                    };
                    Sql::Integer(n.ok_or_else(|| bad_value(&format!("{prefix}N id")))?)
                }
            };
            match (f.path, op) {
                // Few distinct signatures and reasons: find the ones that
                // contain the text, then use the spans' index on them.
                ("name" | "data.function", Op::Contains) if table == Table::Spans => sql.push(
                    "s.name IN (SELECT name FROM span_names WHERE instr(name, ?) > 0)".into(),
                ),
                ("data.reason", Op::Contains) => sql.push(
                    "s.reason IN (SELECT reason FROM span_reasons WHERE instr(reason, ?) > 0)"
                        .into(),
                ),
                _ => cmp(f.expr, sql),
            }
            params.push(v);
        }
        Resolved::Arg(n) => {
            let text = format!("json_extract(s.args, '$[{n}]')");
            match (&c.value, op) {
                (Value::String(s), Op::Contains) => {
                    cmp(&text, sql);
                    params.push(Sql::Text(s.clone()));
                }
                // Arguments are text too: a number is looked for as digits.
                (Value::Number(n), Op::Contains) => {
                    cmp(&text, sql);
                    params.push(Sql::Text(n.to_string()));
                }
                (_, Op::Contains) => return Err(bad_value("string or number (for contains)")),
                (Value::Bool(b), _) => {
                    if op.ordering() {
                        return Err(bad_op("boolean"));
                    }
                    cmp(&text, sql);
                    params.push(Sql::Text(b.to_string()));
                }
                (v, _) if number_key(v).is_some() && !is_address(v) => {
                    let k = number_key(v).expect("checked");
                    let indexed = op != Op::Ne
                        && {
                            let n: i64 = conn
                            .prepare_cached(&format!(
                                "SELECT COUNT(*) FROM (SELECT 1 FROM span_args WHERE pos = ?1 AND key {} ?2 LIMIT {})",
                                op.sql(),
                                ARG_INDEX_MAX + 1
                            ))?
                            .query_row(rusqlite::params![n as i64, k], |r| r.get(0))?;
                            n <= ARG_INDEX_MAX
                        };
                    // Few matches: read them from the argument index. Many:
                    // walk the spans in sort order and look each one's
                    // argument up in the same (small, cached) index rather
                    // than in the span's row.
                    sql.push(match (indexed, op) {
                        (true, _) => format!(
                            "s.id IN (SELECT span_id FROM span_args WHERE pos = {n} AND key {} ?)",
                            op.sql()
                        ),
                        (false, Op::Ne) => format!(
                            "NOT EXISTS (SELECT 1 FROM span_args a WHERE a.span_id = s.id AND a.pos = {n} AND a.key = ?)"
                        ),
                        (false, _) => format!(
                            "EXISTS (SELECT 1 FROM span_args a WHERE a.span_id = s.id AND a.pos = {n} AND a.key {} ?)",
                            op.sql()
                        ),
                    });
                    params.push(Sql::Text(k));
                }
                (Value::String(s), _) => {
                    // Addresses print checksummed: compare without case.
                    cmp(&format!("lower({text})"), sql);
                    params.push(Sql::Text(s.to_lowercase()));
                }
                _ => return Err(bad_value("number, string or boolean")),
            }
        }
        Resolved::Property(name) => {
            if op.ordering() || op == Op::Contains {
                return Err(bad_op("boolean"));
            }
            let Value::Bool(b) = c.value else {
                return Err(bad_value("boolean (true: the property held)"));
            };
            // Only a span after which a test failed can hold a false one.
            if op == Op::Eq && !b {
                sql.push("s.falsified = 1".into());
            }
            // The name is an identifier (checked), quoted as a JSON key.
            cmp(&format!("json_extract(s.properties, '$.\"{name}\"')"), sql);
            params.push(Sql::Integer(b as i64));
        }
    }
    Ok(())
}

fn is_address(v: &Value) -> bool {
    matches!(v, Value::String(s) if s.len() == 42 && s.starts_with("0x"))
}

/// A search: filters, an optional trace, a sort, a page.
#[derive(Clone, Debug)]
pub struct Search {
    pub table: Table,
    pub filters: Vec<Condition>,
    /// Spans of this trace only.
    pub trace: Option<String>,
    pub limit: u64,
    pub cursor: Option<String>,
    pub sort_by: Option<String>,
    pub order: Order,
}

/// A page of ids.
#[derive(Clone, Debug, PartialEq)]
pub struct Page {
    pub ids: Vec<i64>,
    /// `None` when more than [`TOTAL_CAP`] match.
    pub total: Option<u64>,
    pub cursor: Option<String>,
    pub has_more: bool,
}

#[derive(Serialize, Deserialize)]
struct CursorBody {
    /// Fingerprint of the query.
    q: String,
    /// Last sort value.
    v: Value,
    /// Last id.
    i: i64,
}

fn fingerprint(s: &Search) -> String {
    let text = json!([
        match s.table {
            Table::Traces => "t",
            Table::Spans => "s",
        },
        s.filters,
        s.trace,
        s.sort_by,
        s.order
    ])
    .to_string();
    // FNV-1a: stable across processes.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

fn encode_cursor(body: &CursorBody) -> String {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(serde_json::to_vec(body).expect("plain JSON"))
}

fn decode_cursor(s: &str) -> Option<CursorBody> {
    use base64::Engine;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(s.trim())
        .ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// Parses a trace id (`trace-12` or `12`).
pub fn trace_id(s: &str) -> Option<i64> {
    s.strip_prefix("trace-").unwrap_or(s).parse().ok()
}

/// Runs a search: the page's ids in order, the total, the next cursor.
pub fn search(conn: &Connection, s: &Search) -> Result<Page, QueryError> {
    let mut sql = Vec::new();
    let mut params = Vec::new();
    for (i, c) in s.filters.iter().enumerate() {
        condition(
            conn,
            s.table,
            c,
            &format!("filters[{i}]"),
            &mut sql,
            &mut params,
        )?;
    }
    if let Some(t) = &s.trace {
        let id =
            trace_id(t).ok_or_else(|| invalid("traceId", format!("{t:?} is not a trace id")))?;
        sql.push("s.trace_id = ?".into());
        params.push(Sql::Integer(id));
    }
    let sort_name = s.sort_by.as_deref().unwrap_or(s.table.default_sort());
    let sort = s
        .table
        .fields()
        .iter()
        .find(|f| f.path == sort_name && f.sortable)
        .ok_or_else(|| {
            invalid(
                "sortBy",
                format!(
                    "cannot sort by {sort_name:?}; sortable: {}",
                    s.table
                        .fields()
                        .iter()
                        .filter(|f| f.sortable)
                        .map(|f| f.path)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
        })?;
    let from = s.table.from();
    let id = s.table.id();
    let where_all = if sql.is_empty() {
        "1".to_string()
    } else {
        sql.join(" AND ")
    };
    let total: i64 = conn
        .prepare(&format!(
            "SELECT COUNT(*) FROM (SELECT 1 FROM {from} WHERE {where_all} LIMIT {})",
            TOTAL_CAP + 1
        ))?
        .query_row(params_from_iter(params.iter()), |r| r.get(0))?;
    let fp = fingerprint(s);
    let mut page_sql = sql.clone();
    let mut page_params = params.clone();
    let (cmp, dir) = match s.order {
        Order::Asc => (">", "ASC"),
        Order::Desc => ("<", "DESC"),
    };
    if let Some(c) = &s.cursor {
        let body =
            decode_cursor(c).ok_or_else(|| invalid("cursor", "not a cursor this server issued"))?;
        if body.q != fp {
            return Err(invalid(
                "cursor",
                "the cursor belongs to a different query (filters, traceId and sort must stay the same)",
            ));
        }
        let v = match body.v {
            Value::Number(n) => Sql::Integer(n.as_i64().unwrap_or(0)),
            Value::String(t) => Sql::Text(t),
            _ => return Err(invalid("cursor", "not a cursor this server issued")),
        };
        let e = sort.expr;
        page_sql.push(format!("({e} {cmp} ? OR ({e} = ? AND {id} {cmp} ?))"));
        page_params.push(v.clone());
        page_params.push(v);
        page_params.push(Sql::Integer(body.i));
    }
    let where_page = if page_sql.is_empty() {
        "1".to_string()
    } else {
        page_sql.join(" AND ")
    };
    let mut stmt = conn.prepare(&format!(
        "SELECT {id}, {} FROM {from} WHERE {where_page} ORDER BY {} {dir}, {id} {dir} LIMIT {}",
        sort.expr,
        sort.expr,
        s.limit + 1
    ))?;
    let mut rows = stmt.query(params_from_iter(page_params.iter()))?;
    let mut ids = Vec::new();
    let mut last: Option<(i64, Value)> = None;
    let mut has_more = false;
    while let Some(r) = rows.next()? {
        if ids.len() as u64 == s.limit {
            has_more = true;
            break;
        }
        let rid: i64 = r.get(0)?;
        let v = match r.get_ref(1)? {
            rusqlite::types::ValueRef::Integer(n) => json!(n),
            rusqlite::types::ValueRef::Text(t) => json!(String::from_utf8_lossy(t)),
            _ => Value::Null,
        };
        ids.push(rid);
        last = Some((rid, v));
    }
    let cursor = match (has_more, last) {
        (true, Some((i, v))) => Some(encode_cursor(&CursorBody { q: fp, v, i })),
        _ => None,
    };
    Ok(Page {
        ids,
        total: (total as u64 <= TOTAL_CAP).then_some(total as u64),
        cursor,
        has_more,
    })
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
