//! The traces family: executed call sequences as traces, each
//! call a span, from the trace store in the journal's database
//! ([`crate::journal::traces`]).
//!
//! The seed speaks of LLM traces; in rudder a trace is one executed sequence
//! (a corpus entry, one worker's run of an injection, a falsifying sequence,
//! an accepted shrink step, an optimization improvement, or a recent ordinary
//! sequence) and a span is one call in it. The seed's attribute names map
//! onto the campaign's: `sessionId` is the run, `datasetRunId` the group
//! (`injection-N`, `falsification-trace-N`, or the kind), `latency` the
//! calls' time in ms, `totalTokens` / `totalCost` the gas. Every filter names
//! a typed attribute ([`crate::journal::trace_query`]); a bad one is
//! `INVALID_INPUT` naming the filter's field and operator, with the seed's
//! code (`INVALID_QUERY`, `NOT_FOUND`) in `details.seedCode`.

use super::errors::{ErrorCode, ToolError};
use super::family::{Access, Conventions, Family, FamilyName, Gate, ToolAnswer, ToolDef};
use super::journal_read::JournalRead;
use crate::journal::Journal;
use crate::journal::query::QueryError;
use crate::journal::trace_query::{
    self, Condition, Op, Order, Search, SpanRow, Table, TraceRow, TraceTree,
};
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Results a page holds at most (the seed's limit).
pub const MAX_LIMIT: u64 = 200;

fn default_limit() -> u64 {
    50
}

fn created_at() -> String {
    "createdAt".into()
}

fn start_time() -> String {
    "startTime".into()
}

fn filter_value(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "oneOf": [{ "type": "string" }, { "type": "number" }, { "type": "boolean" }],
        "description": "Value to compare against (256-bit numbers may be decimal or 0x strings)"
    })
}

/// One filter: an attribute, an operator, a value.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchFilter {
    /// Attribute path to filter (e.g. "status", "kind", "latency", "data.reason", "data.args.0", "data.properties.echidna_ok")
    pub field: String,
    /// Comparison operator
    pub operator: Op,
    #[schemars(schema_with = "filter_value")]
    pub value: Value,
}

/// List recent traces, newest first, optionally of one run or one group.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ListTracesInput {
    /// Maximum number of traces to return
    #[serde(default = "default_limit")]
    #[schemars(range(min = 1, max = MAX_LIMIT))]
    pub limit: u64,
    /// Filter traces by session ID (a campaign run; status lists them)
    pub session_id: Option<String>,
    /// Filter traces by dataset run ID (a group: injection-N, falsification-trace-N, corpus, recent, optimization)
    pub dataset_run_id: Option<String>,
}

/// Search traces by any attribute (filters combined with AND).
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SearchTracesInput {
    /// Filter criteria (combined with AND)
    #[serde(default)]
    pub filters: Vec<SearchFilter>,
    /// Results per page
    #[serde(default = "default_limit")]
    #[schemars(range(min = 1, max = MAX_LIMIT))]
    pub limit: u64,
    /// Pagination cursor from previous response
    pub cursor: Option<String>,
    /// Field to sort by
    #[serde(default = "created_at")]
    pub sort_by: String,
    /// Sort direction
    #[serde(default)]
    pub sort_order: Order,
}

/// Retrieve one trace with all its spans.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GetTraceInput {
    /// The trace ID to retrieve (trace-N)
    #[schemars(length(min = 1))]
    pub trace_id: String,
}

/// Search spans (calls) across traces or within one.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SearchSpansInput {
    /// Filter criteria (combined with AND)
    #[serde(default)]
    pub filters: Vec<SearchFilter>,
    /// Limit search to specific trace
    pub trace_id: Option<String>,
    /// Results per page
    #[serde(default = "default_limit")]
    #[schemars(range(min = 1, max = MAX_LIMIT))]
    pub limit: u64,
    /// Pagination cursor from previous response
    pub cursor: Option<String>,
    /// Field to sort by
    #[serde(default = "start_time")]
    pub sort_by: String,
    /// Sort direction
    #[serde(default)]
    pub sort_order: Order,
}

/// The newest traces.
#[derive(Serialize, JsonSchema)]
pub struct ListTracesOutput {
    pub traces: Vec<TraceRow>,
    pub count: u64,
}

/// A page of traces or spans.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SearchOutput<T> {
    pub items: Vec<T>,
    /// Omitted if more than 10,000 match
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// Next page cursor
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    pub has_more: bool,
}

pub type SearchTracesOutput = SearchOutput<TraceRow>;
pub type SearchSpansOutput = SearchOutput<SpanRow>;

impl<T> SearchOutput<T> {
    fn of(page: trace_query::Page, items: Vec<T>) -> Self {
        SearchOutput {
            items,
            total: page.total,
            cursor: page.cursor,
            has_more: page.has_more,
        }
    }
}

/// One trace with its spans.
#[derive(Serialize, JsonSchema)]
pub struct GetTraceOutput {
    pub trace: TraceTree,
}

fn invalid(field: &str, seed_code: &str, message: String) -> ToolError {
    ToolError::invalid(format!("{field}: {message}"))
        .with_details(json!({ "field": field, "seedCode": seed_code }))
}

fn query_error(e: QueryError, tool: &str) -> ToolError {
    match e {
        QueryError::Timeout => ToolError::timeout(tool),
        QueryError::Invalid { field, message } => {
            let mut err = invalid(&field, "INVALID_QUERY", message);
            if field.ends_with(".field") || field == "sortBy" {
                let table = if tool == "search_spans" {
                    Table::Spans
                } else {
                    Table::Traces
                };
                if let Some(d) = err.details.as_mut() {
                    d["validFields"] = json!(table.valid_fields());
                }
            }
            err
        }
        QueryError::UnknownRun(r) => invalid("sessionId", "NOT_FOUND", format!("no run {r:?}")),
        QueryError::UnknownEvent { field, id } => {
            invalid(field, "NOT_FOUND", format!("unknown {id:?}"))
        }
        QueryError::Sqlite(e) => ToolError {
            code: ErrorCode::InternalError,
            message: format!("trace store: {e}"),
            details: Some(json!({ "seedCode": "CONNECTION_FAILED" })),
        },
    }
}

fn conditions(filters: Vec<SearchFilter>) -> Vec<Condition> {
    filters
        .into_iter()
        .map(|f| Condition {
            field: f.field,
            operator: f.operator,
            value: f.value,
        })
        .collect()
}

/// The traces tools over one campaign's trace store.
#[derive(Clone)]
pub struct TracesTools {
    journal: JournalRead,
}

/// Executed sequences as traces and spans.
pub const NAME: FamilyName = FamilyName("traces");

impl Family for TracesTools {
    fn name(&self) -> FamilyName {
        NAME
    }

    fn conventions(&self) -> Conventions {
        Conventions {
            metadata: Some("journal"),
            ..Conventions::default()
        }
    }

    fn tools(&self) -> Vec<ToolDef> {
        let tools = vec![
            ToolDef::method::<ListTracesInput, ListTracesOutput, _>(
                "list_traces",
                "Recent traces (executed call sequences), newest first: corpus entries, workers' runs of injections, falsifying sequences, accepted shrink steps, optimization improvements, recent ordinary sequences (a bounded window). sessionId: a campaign run; datasetRunId: a group (injection-N, falsification-trace-N, corpus, recent, optimization).",
                Access::Blocking,
                self,
                Self::list,
            ),
            ToolDef::method::<SearchTracesInput, SearchTracesOutput, _>(
                "search_traces",
                "Search executed sequences (traces), filters ANDed over their attributes (status error = falsified a test, kind, origin, calls, reverts, gas, coverageGained, times, worker, property, corpusEntry, injectionId, shrink steps, …): numbers eq/ne/gt/gte/lt/lte, strings also contains. Cursors stay valid while the campaign appends.",
                Access::Blocking,
                self,
                Self::search_traces,
            ),
            ToolDef::method::<GetTraceInput, GetTraceOutput, _>(
                "get_trace",
                "One trace with all its spans (calls, in order) and links: sourceTraceId (the corpus entry a mutation came from, or a shrink step's falsifying trace), injectionId, and for a falsifying trace its accepted shrink steps (shrinkSteps, the last is the final shrunk sequence).",
                Access::Blocking,
                self,
                Self::get,
            ),
            ToolDef::method::<SearchSpansInput, SearchSpansOutput, _>(
                "search_spans",
                "Search executed calls (spans) across traces or in one (traceId), filters ANDed: name (signature), status (error: reverted/panicked/halted), times, data.* fields: function, call, args, args.N (256-bit compare), sender, value, delays, gasUsed, outcome, reason, panicCode, coverageGained, durationUs, position, falsified, properties.NAME (held after the call).",
                Access::Blocking,
                self,
                Self::search_spans,
            ),
        ];
        // Every answer comes from the journal alone.
        self.journal.memoize(tools, &[])
    }
}

impl TracesTools {
    /// The traces family reads the journal and nothing else.
    pub fn new(journal: JournalRead) -> Self {
        TracesTools { journal }
    }

    fn journal(&self) -> Result<&Journal, ToolError> {
        self.journal.journal().ok_or_else(|| {
            invalid(
                "traceId",
                "CONNECTION_FAILED",
                "this campaign keeps no journal (started with the journal off), so no traces"
                    .into(),
            )
        })
    }

    /// Runs `f` on a read connection within the call's budget.
    fn read<T>(
        &self,
        gate: &Gate,
        f: impl FnOnce(&rusqlite::Connection) -> Result<T, QueryError>,
    ) -> Result<T, ToolError> {
        JournalRead::with_reader(self.journal()?, gate, f)?.map_err(|e| query_error(e, gate.tool()))
    }

    fn list(&self, a: ListTracesInput, gate: &Gate) -> Result<ToolAnswer, ToolError> {
        let traces = self.read(gate, |c| {
            trace_query::list(
                c,
                a.limit,
                a.session_id.as_deref(),
                a.dataset_run_id.as_deref(),
            )
        })?;
        ToolAnswer::json(&ListTracesOutput {
            count: traces.len() as u64,
            traces,
        })
    }

    fn search_traces(&self, a: SearchTracesInput, gate: &Gate) -> Result<ToolAnswer, ToolError> {
        let s = Search {
            table: Table::Traces,
            filters: conditions(a.filters),
            trace: None,
            limit: a.limit,
            cursor: a.cursor,
            sort_by: Some(a.sort_by),
            order: a.sort_order,
        };
        let (page, items) = self.read(gate, |c| {
            let page = trace_query::search(c, &s)?;
            let items = trace_query::traces(c, &page.ids)?;
            Ok((page, items))
        })?;
        ToolAnswer::json(&SearchOutput::of(page, items))
    }

    fn get(&self, a: GetTraceInput, gate: &Gate) -> Result<ToolAnswer, ToolError> {
        let not_found = || {
            ToolError::invalid(format!("traceId: Trace not found: {:?}", a.trace_id)).with_details(
                json!({ "field": "traceId", "traceId": a.trace_id, "seedCode": "NOT_FOUND" }),
            )
        };
        let id = trace_query::trace_id(&a.trace_id).ok_or_else(not_found)?;
        let tree = self.read(gate, |c| trace_query::tree(c, id))?;
        match tree {
            Some(trace) => ToolAnswer::json(&GetTraceOutput { trace }),
            None => Err(not_found()),
        }
    }

    fn search_spans(&self, a: SearchSpansInput, gate: &Gate) -> Result<ToolAnswer, ToolError> {
        let s = Search {
            table: Table::Spans,
            filters: conditions(a.filters),
            trace: a.trace_id,
            limit: a.limit,
            cursor: a.cursor,
            sort_by: Some(a.sort_by),
            order: a.sort_order,
        };
        let (page, items) = self.read(gate, |c| {
            let page = trace_query::search(c, &s)?;
            let items = trace_query::spans(c, &page.ids)?;
            Ok((page, items))
        })?;
        ToolAnswer::json(&SearchOutput::of(page, items))
    }
}
