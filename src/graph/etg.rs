//! The execution trace graph (ETG): what an agent tried, as attempts made of
//! events, and what came of it.
//!
//! Every MCP tool call is logged by the graph family (it observes every
//! call the server answers) as a `tool_start` and a
//! `tool_end` event of the calling session's current attempt (the attempt
//! its latest `etg_log_event` named, else one attempt per session); agents
//! add their own steps (`checkpoint`, `context_retrieved`,
//! `answer_rendered`, or tool events of tools outside rudder). Payloads are
//! validated per kind ([`validate`]). Events go to the journal database
//! (`etg_attempts`, `etg_events`) and into an in-memory index of attempts
//! that `etg_query_similar_attempts` ranks: an attempt's features are the
//! functions it called, injected or prioritized (`fn:transfer`), the
//! argument shapes of its calls (`shape:transfer(address,uint)`), the
//! branches and files it looked at (`branch:Bank.sol:33`, `file:Bank.sol`)
//! and the words of its notes; a query's features are drawn the same way
//! from its text, and the score is the IDF-weighted share of the query's
//! features the attempt has (1.0: it has them all).

use crate::command::Command;
use parking_lot::{Mutex, RwLock};
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};

/// The kinds of step the execution trace graph records.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum EtgKind {
    ToolStart,
    ToolEnd,
    Checkpoint,
    ContextRetrieved,
    AnswerRendered,
}

impl EtgKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EtgKind::ToolStart => "tool_start",
            EtgKind::ToolEnd => "tool_end",
            EtgKind::Checkpoint => "checkpoint",
            EtgKind::ContextRetrieved => "context_retrieved",
            EtgKind::AnswerRendered => "answer_rendered",
        }
    }

    pub fn parse(s: &str) -> Option<EtgKind> {
        [
            EtgKind::ToolStart,
            EtgKind::ToolEnd,
            EtgKind::Checkpoint,
            EtgKind::ContextRetrieved,
            EtgKind::AnswerRendered,
        ]
        .into_iter()
        .find(|k| k.as_str() == s)
    }
}

/// A payload that does not fit its kind: `field` is its path (`payload.tool`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PayloadError {
    pub field: String,
    pub message: String,
}

fn bad(field: &str, message: impl Into<String>) -> PayloadError {
    PayloadError {
        field: format!("payload.{field}"),
        message: message.into(),
    }
}

/// Checks `payload` against the fields `etg_log_event` documents for `kind`: required ones
/// present with their types, optional ones typed when present.
pub fn validate(kind: EtgKind, payload: &Value) -> Result<(), PayloadError> {
    let obj = payload.as_object().ok_or_else(|| PayloadError {
        field: "payload".into(),
        message: "must be an object".into(),
    })?;
    let string = |k: &str, required: bool| -> Result<(), PayloadError> {
        match obj.get(k) {
            None if required => Err(bad(k, format!("required for {}", kind.as_str()))),
            None => Ok(()),
            Some(Value::String(s)) if required && s.trim().is_empty() => {
                Err(bad(k, "must not be empty"))
            }
            Some(Value::String(_)) => Ok(()),
            Some(_) => Err(bad(k, "must be a string")),
        }
    };
    let strings = |k: &str, required: bool| -> Result<(), PayloadError> {
        match obj.get(k) {
            None if required => Err(bad(k, format!("required for {}", kind.as_str()))),
            None => Ok(()),
            Some(Value::Array(a)) => match a.iter().position(|v| !v.is_string()) {
                Some(i) => Err(bad(&format!("{k}[{i}]"), "must be a string")),
                None => Ok(()),
            },
            Some(_) => Err(bad(k, "must be an array of strings")),
        }
    };
    let number = |k: &str, required: bool, integer: bool| -> Result<(), PayloadError> {
        match obj.get(k) {
            None if required => Err(bad(k, format!("required for {}", kind.as_str()))),
            None => Ok(()),
            Some(Value::Number(n)) => {
                let ok = if integer {
                    n.as_u64().is_some()
                } else {
                    n.as_f64().is_some_and(|f| f >= 0.0 && f.is_finite())
                };
                if ok {
                    Ok(())
                } else if integer {
                    Err(bad(k, "must be a non-negative integer"))
                } else {
                    Err(bad(k, "must be a non-negative number"))
                }
            }
            Some(_) => Err(bad(k, "must be a number")),
        }
    };
    match kind {
        EtgKind::ToolStart => {
            string("tool", true)?;
            match obj.get("arguments") {
                None => return Err(bad("arguments", "required for tool_start")),
                Some(Value::Object(_)) => {}
                Some(_) => return Err(bad("arguments", "must be an object")),
            }
        }
        EtgKind::ToolEnd => {
            string("tool", true)?;
            string("status", true)?;
            number("duration_ms", true, false)?;
            string("output_ref", false)?;
        }
        EtgKind::Checkpoint => {
            string("message", true)?;
            strings("files", false)?;
            string("graph_version", false)?;
        }
        EtgKind::ContextRetrieved => {
            strings("files", true)?;
            match obj.get("snippets") {
                None => {}
                Some(Value::Array(items)) => {
                    for (i, s) in items.iter().enumerate() {
                        let at = |k: &str| format!("snippets[{i}].{k}");
                        let Some(o) = s.as_object() else {
                            return Err(bad(&format!("snippets[{i}]"), "must be an object"));
                        };
                        for k in ["file", "summary"] {
                            match o.get(k) {
                                Some(Value::String(_)) => {}
                                None => return Err(bad(&at(k), "required")),
                                Some(_) => return Err(bad(&at(k), "must be a string")),
                            }
                        }
                        if let Some(sym) = o.get("symbols")
                            && !sym
                                .as_array()
                                .is_some_and(|a| a.iter().all(Value::is_string))
                        {
                            return Err(bad(&at("symbols"), "must be an array of strings"));
                        }
                    }
                }
                Some(_) => return Err(bad("snippets", "must be an array")),
            }
        }
        EtgKind::AnswerRendered => {
            string("content", true)?;
            strings("citations", false)?;
            number("token_count", false, true)?;
        }
    }
    Ok(())
}

/// Parses an ISO-8601 / RFC 3339 date-time with a zone (`Z` or `±hh:mm`)
/// into Unix milliseconds.
pub fn parse_timestamp(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    if b.len() < 20 {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let t = s.get(r)?;
        t.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| t.parse().ok())?
    };
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    if b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if b[13] != b':' || b[16] != b':' || !(1..=12).contains(&mo) || !(1..=31).contains(&d) {
        return None;
    }
    if h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    let mut i = 19;
    let mut ms = 0i64;
    if b.get(i) == Some(&b'.') {
        let start = i + 1;
        i = start;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return None;
        }
        let frac = &s[start..i.min(start + 3)];
        ms = frac.parse::<i64>().ok()? * 10i64.pow(3 - frac.len() as u32);
    }
    let offset_min = match b.get(i)? {
        b'Z' | b'z' if i + 1 == b.len() => 0,
        c @ (b'+' | b'-') if b.len() == i + 6 && b[i + 3] == b':' => {
            let v = num(i + 1..i + 3)? * 60 + num(i + 4..i + 6)?;
            if *c == b'+' { v } else { -v }
        }
        _ => return None,
    };
    // Days from the civil date (proleptic Gregorian).
    let (yy, m) = if mo <= 2 {
        (y - 1, mo + 9)
    } else {
        (y, mo - 3)
    };
    let era = yy.div_euclid(400);
    let yoe = yy - era * 400;
    let doy = (153 * m + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let secs = days * 86_400 + h * 3600 + mi * 60 + sec - offset_min * 60;
    let total = secs * 1000 + ms;
    u64::try_from(total).ok()
}

/// One ETG event.
#[derive(Clone, Debug, Serialize)]
pub struct EtgEvent {
    pub event_id: String,
    pub attempt_id: String,
    pub run_id: String,
    pub kind: EtgKind,
    pub ts_ms: u64,
    pub payload: Value,
    /// Logged by rudder itself (a tool call), not by the agent.
    pub auto: bool,
    /// The code graph's version when the event was logged.
    pub graph_version: Option<String>,
}

/// What the index keeps of one attempt.
#[derive(Clone, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AttemptDoc {
    pub attempt_id: String,
    pub run_id: String,
    pub started_ms: u64,
    pub last_ms: u64,
    pub events: u32,
    /// Tool name → calls.
    pub tools: BTreeMap<String, u32>,
    /// Calls injected (as written), first ones.
    pub calls: Vec<String>,
    /// Functions prioritized (signatures).
    pub prioritized: Vec<String>,
    /// Injections the attempt issued (ids of its run).
    pub injections: Vec<u64>,
    pub files: BTreeSet<String>,
    /// Checkpoint messages, first ones.
    pub notes: Vec<String>,
    #[serde(skip)]
    pub features: BTreeSet<String>,
}

/// Words too common to tell attempts apart.
const STOP: &[&str] = &[
    "the", "a", "an", "and", "or", "of", "to", "in", "on", "for", "with", "is", "it", "at", "by",
    "be", "this", "that", "from", "as", "are", "was", "not", "no", "but", "if", "then", "so",
];

/// Kept per attempt (calls, notes), to bound an attempt's memory.
const KEEP: usize = 16;

/// The attempts of every run of this corpus directory, indexed.
#[derive(Debug)]
pub struct Etg {
    run_id: String,
    seq: AtomicU64,
    /// Each MCP session's current attempt, once it named one.
    sessions: Mutex<std::collections::HashMap<u64, String>>,
    index: RwLock<Index>,
}

#[derive(Debug, Default)]
struct Index {
    attempts: Vec<AttemptDoc>,
    by_id: HashMap<String, usize>,
    /// Feature → attempts having it.
    df: HashMap<String, u32>,
}

/// A ranked attempt.
#[derive(Clone, Debug)]
pub struct Similar {
    pub attempt: AttemptDoc,
    pub score: f64,
    /// The query features the attempt shares.
    pub shared: Vec<String>,
}

impl Etg {
    pub fn new(run_id: &str) -> Self {
        Etg {
            run_id: run_id.to_string(),
            seq: AtomicU64::new(0),
            sessions: Mutex::default(),
            index: RwLock::new(Index::default()),
        }
    }

    /// MCP session `session`'s current attempt: the one it last named, or
    /// one of its own until it names one.
    pub fn attempt_of(&self, session: u64) -> String {
        self.sessions
            .lock()
            .get(&session)
            .cloned()
            .unwrap_or_else(|| format!("{}/session-{session}", self.run_id))
    }

    /// Logs an event (payload already validated); `session`'s current
    /// attempt becomes `attempt_id`.
    pub fn log(
        &self,
        attempt_id: &str,
        kind: EtgKind,
        ts_ms: u64,
        payload: Value,
        auto: bool,
        graph_version: Option<String>,
    ) -> EtgEvent {
        let n = self.seq.fetch_add(1, Ordering::Relaxed) + 1;
        let event = EtgEvent {
            event_id: format!("{}/e{n}", self.run_id),
            attempt_id: attempt_id.to_string(),
            run_id: self.run_id.clone(),
            kind,
            ts_ms,
            payload,
            auto,
            graph_version,
        };
        self.index.write().add(&event);
        event
    }

    /// Makes `attempt_id` MCP session `session`'s current attempt.
    pub fn enter(&self, session: u64, attempt_id: &str) {
        self.sessions.lock().insert(session, attempt_id.to_string());
    }

    /// Re-indexes events of earlier runs (resume).
    pub fn load(&self, events: impl IntoIterator<Item = EtgEvent>) {
        let mut idx = self.index.write();
        for e in events {
            idx.add(&e);
        }
    }

    /// The attempt `id`, if known.
    pub fn attempt(&self, id: &str) -> Option<AttemptDoc> {
        let idx = self.index.read();
        idx.by_id.get(id).map(|&i| idx.attempts[i].clone())
    }

    pub fn attempts(&self) -> usize {
        self.index.read().attempts.len()
    }

    /// Attempts sharing features with `query` (and `files`), best first;
    /// ties go to the more recent. `exclude`: the asking session's attempt.
    pub fn similar(
        &self,
        query: &str,
        files: &[String],
        top_k: usize,
        min_score: f64,
        exclude: Option<&str>,
    ) -> Vec<Similar> {
        let mut q = features_of_text(query);
        for f in files {
            q.insert(format!("file:{}", basename(f).to_lowercase()));
        }
        let idx = self.index.read();
        let n = idx.attempts.len().max(1) as f64;
        let weight = |f: &str| -> f64 {
            let df = idx.df.get(f).copied().unwrap_or(0) as f64;
            let idf = (1.0 + n / (1.0 + df)).ln();
            let kind = if f.starts_with("shape:") || f.starts_with("branch:") {
                3.0
            } else if f.starts_with("fn:") {
                2.5
            } else if f.starts_with("file:") {
                2.0
            } else {
                1.0
            };
            kind * idf.max(0.05)
        };
        let total: f64 = q.iter().map(|f| weight(f)).sum();
        if total == 0.0 {
            return Vec::new();
        }
        let mut out: Vec<Similar> = idx
            .attempts
            .iter()
            .filter(|a| Some(a.attempt_id.as_str()) != exclude && !a.features.is_empty())
            .filter_map(|a| {
                let shared: Vec<String> = q.intersection(&a.features).cloned().collect();
                let score = shared.iter().map(|f| weight(f)).sum::<f64>() / total;
                (score >= min_score && !shared.is_empty()).then(|| Similar {
                    attempt: a.clone(),
                    score: (score * 1000.0).round() / 1000.0,
                    shared,
                })
            })
            .collect();
        out.sort_by(|a, b| {
            b.score
                .partial_cmp(&a.score)
                .unwrap_or(std::cmp::Ordering::Equal)
                .then(b.attempt.last_ms.cmp(&a.attempt.last_ms))
        });
        out.truncate(top_k);
        out
    }
}

impl Index {
    fn add(&mut self, e: &EtgEvent) {
        let i = match self.by_id.get(&e.attempt_id) {
            Some(&i) => i,
            None => {
                self.attempts.push(AttemptDoc {
                    attempt_id: e.attempt_id.clone(),
                    run_id: e.run_id.clone(),
                    started_ms: e.ts_ms,
                    last_ms: e.ts_ms,
                    ..Default::default()
                });
                self.by_id
                    .insert(e.attempt_id.clone(), self.attempts.len() - 1);
                self.attempts.len() - 1
            }
        };
        let a = &mut self.attempts[i];
        a.events += 1;
        a.started_ms = a.started_ms.min(e.ts_ms);
        a.last_ms = a.last_ms.max(e.ts_ms);
        let mut found = BTreeSet::new();
        absorb(a, e, &mut found);
        for f in found {
            if !a.features.contains(&f) {
                *self.df.entry(f.clone()).or_insert(0) += 1;
                a.features.insert(f);
            }
        }
    }
}

fn str_at<'v>(v: &'v Value, k: &str) -> Option<&'v str> {
    v.get(k).and_then(Value::as_str)
}

/// Adds what event `e` says to attempt `a`; its features go to `found`.
fn absorb(a: &mut AttemptDoc, e: &EtgEvent, found: &mut BTreeSet<String>) {
    let p = &e.payload;
    let tool = str_at(p, "tool").unwrap_or("");
    match e.kind {
        EtgKind::ToolStart => {
            *a.tools.entry(tool.to_string()).or_insert(0) += 1;
            let args = p.get("arguments").cloned().unwrap_or(Value::Null);
            match Command::from_tool(tool, &args) {
                Some(Command::InjectTransaction(inject)) => {
                    for c in inject.sequence {
                        found.extend(features_of_text(&c));
                        if a.calls.len() < KEEP {
                            a.calls.push(c);
                        }
                    }
                    return;
                }
                Some(Command::PrioritizeFunction(p)) => {
                    let sig = p.function_signature;
                    found.extend(features_of_text(&sig));
                    if a.prioritized.len() < KEEP {
                        a.prioritized.push(sig);
                    }
                    return;
                }
                _ => {}
            }
            match tool {
                "graph_context_for_files" | "graph_index_project" => {
                    for f in args["files"].as_array().into_iter().flatten() {
                        if let Some(f) = f.as_str() {
                            note_file(a, found, f);
                        }
                    }
                }
                // Read tools: the call is counted, its arguments say nothing
                // about what the attempt tried (and a similarity query must
                // not find itself).
                _ if !e.auto => found.extend(features_of_value(&args)),
                _ => {}
            }
        }
        EtgKind::ToolEnd => {
            if let Some(id) = p
                .get("result")
                .and_then(|r| r.get("injectionId"))
                .and_then(Value::as_u64)
            {
                a.injections.push(id);
            }
        }
        EtgKind::Checkpoint => {
            if let Some(m) = str_at(p, "message") {
                if a.notes.len() < KEEP {
                    a.notes.push(m.to_string());
                }
                found.extend(features_of_text(m));
            }
            for f in p["files"].as_array().into_iter().flatten() {
                if let Some(f) = f.as_str() {
                    note_file(a, found, f);
                }
            }
            // Extra fields an agent adds (a target branch, a function).
            for k in ["branch", "function", "target"] {
                if let Some(t) = str_at(p, k) {
                    found.extend(features_of_text(t));
                }
            }
        }
        EtgKind::ContextRetrieved => {
            for f in p["files"].as_array().into_iter().flatten() {
                if let Some(f) = f.as_str() {
                    note_file(a, found, f);
                }
            }
            for s in p["snippets"].as_array().into_iter().flatten() {
                for sym in s["symbols"].as_array().into_iter().flatten() {
                    if let Some(sym) = sym.as_str() {
                        found.extend(features_of_text(sym));
                    }
                }
            }
        }
        EtgKind::AnswerRendered => {
            for c in p["citations"].as_array().into_iter().flatten() {
                if let Some(c) = c.as_str() {
                    found.extend(features_of_text(c));
                    if let Some(file) = c.split(':').next() {
                        note_file(a, found, file);
                    }
                }
            }
        }
    }
}

fn note_file(a: &mut AttemptDoc, found: &mut BTreeSet<String>, f: &str) {
    a.files.insert(f.to_string());
    found.insert(format!("file:{}", basename(f).to_lowercase()));
}

fn basename(f: &str) -> &str {
    f.rsplit('/').next().unwrap_or(f)
}

fn features_of_value(v: &Value) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    match v {
        Value::String(s) => out.extend(features_of_text(s)),
        Value::Array(a) => a.iter().for_each(|x| out.extend(features_of_value(x))),
        Value::Object(o) => o.values().for_each(|x| out.extend(features_of_value(x))),
        _ => {}
    }
    out
}

/// The class of an argument as written: `address`, `uint`, `int`, `bool`,
/// `string`, `bytes`, or `expr`.
fn arg_class(a: &str) -> &'static str {
    let a = a.trim();
    let hex = a.strip_prefix("0x").or_else(|| a.strip_prefix("0X"));
    if let Some(h) = hex {
        if h.len() == 40 && h.bytes().all(|c| c.is_ascii_hexdigit()) {
            return "address";
        }
        return if h.len() <= 64 { "uint" } else { "bytes" };
    }
    if a == "true" || a == "false" {
        return "bool";
    }
    if a.starts_with('"') || a.starts_with('\'') {
        return "string";
    }
    if a.starts_with('-')
        && a[1..]
            .trim_start()
            .starts_with(|c: char| c.is_ascii_digit())
    {
        return "int";
    }
    if a.starts_with(|c: char| c.is_ascii_digit()) {
        return "uint";
    }
    if let Some(t) = ["address", "bool", "string", "bytes"]
        .iter()
        .find(|t| a == **t)
    {
        return t;
    }
    if a.starts_with("uint") {
        return "uint";
    }
    if a.starts_with("int") {
        return "int";
    }
    if a.starts_with("bytes") {
        return "bytes";
    }
    "expr"
}

/// Top-level comma-separated arguments of `inner` (nested brackets and
/// quotes respected).
fn split_args(inner: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut quote, mut start) = (0i32, None, 0);
    for (i, c) in inner.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '(' | '[' | '{') => depth += 1,
            (None, ')' | ']' | '}') => depth -= 1,
            (None, ',') if depth == 0 => {
                out.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if !inner[start..].trim().is_empty() {
        out.push(&inner[start..]);
    }
    out
}

/// Features of free text: calls (`f(…)` → `fn:f`, `shape:f(classes)`),
/// source locations (`Bank.sol:33`, `Bank.sol:L33` → `branch:…`, `file:…`)
/// and words.
pub fn features_of_text(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let bytes = text.as_bytes();
    // Calls: an identifier followed by a parenthesised list.
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'(' {
            let mut j = i;
            while j > 0
                && (bytes[j - 1].is_ascii_alphanumeric() || matches!(bytes[j - 1], b'_' | b'$'))
            {
                j -= 1;
            }
            let name = &text[j..i];
            if !name.is_empty() && !name.starts_with(|c: char| c.is_ascii_digit()) {
                let mut depth = 0;
                let mut k = i;
                while k < bytes.len() {
                    match bytes[k] {
                        b'(' => depth += 1,
                        b')' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    k += 1;
                }
                let inner = &text[i + 1..k.min(bytes.len())];
                let name_l = name.to_lowercase();
                if !matches!(name_l.as_str(), "require" | "assert" | "if" | "keccak256") {
                    out.insert(format!("fn:{name_l}"));
                    let classes: Vec<&str> = split_args(inner).into_iter().map(arg_class).collect();
                    out.insert(format!("shape:{name_l}({})", classes.join(",")));
                }
            }
        }
        i += 1;
    }
    // Locations and words.
    for raw in text.split(|c: char| {
        c.is_whitespace()
            || matches!(
                c,
                ',' | '(' | ')' | '`' | '"' | '\'' | ';' | '[' | ']' | '{' | '}'
            )
    }) {
        let w = raw
            .trim_matches(|c: char| matches!(c, '.' | '!' | '?'))
            .to_lowercase();
        if w.is_empty() {
            continue;
        }
        if let Some((file, rest)) = w.split_once(".sol") {
            let file = format!("{}.sol", basename(file));
            out.insert(format!("file:{file}"));
            let line: String = rest
                .trim_start_matches(':')
                .trim_start_matches('l')
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            if !line.is_empty() {
                out.insert(format!("branch:{file}:{line}"));
            }
            continue;
        }
        for part in w.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
            if part.len() >= 2 && !STOP.contains(&part) && !part.starts_with("0x") {
                out.insert(format!("w:{part}"));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn payloads_are_checked_per_kind_naming_the_field() {
        assert!(validate(EtgKind::ToolStart, &json!({"tool": "x", "arguments": {}})).is_ok());
        let e = validate(EtgKind::ToolStart, &json!({"tool": "x"})).unwrap_err();
        assert_eq!(e.field, "payload.arguments");
        let e = validate(
            EtgKind::ToolEnd,
            &json!({"tool": "x", "status": "ok", "duration_ms": "5"}),
        )
        .unwrap_err();
        assert_eq!(e.field, "payload.duration_ms");
        let e = validate(EtgKind::Checkpoint, &json!({"files": ["a"]})).unwrap_err();
        assert_eq!(e.field, "payload.message");
        let e = validate(
            EtgKind::ContextRetrieved,
            &json!({"files": ["a"], "snippets": [{"file": "a"}]}),
        )
        .unwrap_err();
        assert_eq!(e.field, "payload.snippets[0].summary");
        let e = validate(
            EtgKind::AnswerRendered,
            &json!({"content": "x", "token_count": -1}),
        )
        .unwrap_err();
        assert_eq!(e.field, "payload.token_count");
        let e = validate(EtgKind::Checkpoint, &json!([1])).unwrap_err();
        assert_eq!(e.field, "payload");
    }

    #[test]
    fn timestamps_parse_with_zones() {
        assert_eq!(parse_timestamp("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(parse_timestamp("1970-01-01T00:00:01.5Z"), Some(1500));
        assert_eq!(parse_timestamp("1970-01-01T01:00:00+01:00"), Some(0));
        assert_eq!(
            parse_timestamp("2024-05-01T12:00:00Z"),
            Some(1_714_564_800_000)
        );
        assert_eq!(parse_timestamp("2024-05-01T12:00:00"), None);
        assert_eq!(parse_timestamp("2024-13-01T12:00:00Z"), None);
        assert_eq!(parse_timestamp("yesterday"), None);
    }

    #[test]
    fn text_features_name_calls_shapes_locations_and_words() {
        let f = features_of_text(
            "transfer(0x00000000000000000000000000000000000000aa, 100) stuck at Bank.sol:33",
        );
        assert!(f.contains("fn:transfer"), "{f:?}");
        assert!(f.contains("shape:transfer(address,uint)"), "{f:?}");
        assert!(f.contains("branch:bank.sol:33"), "{f:?}");
        assert!(f.contains("file:bank.sol"), "{f:?}");
        assert!(f.contains("w:stuck"), "{f:?}");
        assert!(!f.contains("w:at"), "{f:?}");
        let sig = features_of_text("unlock(uint256,uint16)");
        assert!(sig.contains("shape:unlock(uint,uint)"), "{sig:?}");
    }

    #[test]
    fn an_identical_attempt_ranks_first() {
        let etg = Etg::new("r");
        let log = |a: &str, kind, p: Value| {
            etg.log(a, kind, 1, p, false, None);
        };
        log(
            "a1",
            EtgKind::ToolStart,
            json!({"tool": "inject_transaction", "arguments": {"sequence": ["unlock(7, 1001)"]}}),
        );
        log(
            "a1",
            EtgKind::Checkpoint,
            json!({"message": "try the magic key on Bank.sol:33"}),
        );
        log(
            "a2",
            EtgKind::ToolStart,
            json!({"tool": "prioritize_function", "arguments": {"functionSignature": "deposit(uint256)"}}),
        );
        log(
            "a2",
            EtgKind::Checkpoint,
            json!({"message": "grow deposits"}),
        );
        let r = etg.similar(
            "unlock(7, 1001) try the magic key on Bank.sol:33",
            &[],
            5,
            0.0,
            None,
        );
        assert_eq!(r[0].attempt.attempt_id, "a1");
        assert_eq!(r[0].score, 1.0);
        assert!(
            r.iter()
                .all(|s| s.attempt.attempt_id != "a2" || s.score < 0.5)
        );
        assert!(etg.similar("nothing alike", &[], 5, 0.2, None).is_empty());
    }
}
