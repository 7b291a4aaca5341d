//! `search_traces` / `search_spans`: conditions on typed fields compiled to
//! parameterized SQL, ordered and paged with opaque cursors.

use super::*;

pub(super) fn invalid(field: impl Into<String>, message: impl Into<String>) -> QueryError {
    QueryError::Invalid {
        field: field.into(),
        message: message.into(),
    }
}

/// A resolved attribute: SQL expression and type.
pub(super) enum Resolved {
    Fixed(&'static Field),
    /// `data.args.N`: argument N (display text and numeric key).
    Arg(usize),
    /// `data.properties.NAME`: whether the property held after the call.
    Property(String),
}

pub(super) fn resolve(table: Table, path: &str, at: &str) -> Result<Resolved, QueryError> {
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
pub(super) fn number_key(v: &Value) -> Option<String> {
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

pub(super) fn as_i64(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64().or_else(|| {
            let f = n.as_f64()?;
            (f.fract() == 0.0 && f.abs() < 9.2e18).then_some(f as i64)
        }),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

pub(super) fn as_ms_to_us(v: &Value) -> Option<i64> {
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
pub(super) const ARG_INDEX_MAX: i64 = 50_000;

/// Builds the SQL of one condition.
pub(super) fn condition(
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

pub(super) fn is_address(v: &Value) -> bool {
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
pub(super) struct CursorBody {
    /// Fingerprint of the query.
    q: String,
    /// Last sort value.
    v: Value,
    /// Last id.
    i: i64,
}

pub(super) fn fingerprint(s: &Search) -> String {
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

pub(super) fn encode_cursor(body: &CursorBody) -> String {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(serde_json::to_vec(body).expect("plain JSON"))
}

pub(super) fn decode_cursor(s: &str) -> Option<CursorBody> {
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
