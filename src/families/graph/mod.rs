//! The graph family: the target's code graph joined with live
//! coverage, and the execution trace graph (ETG) of the agent's attempts.
//!
//! The seed speaks of a project's code in any language; in rudder the code
//! is the target's Solidity, read from the compiler's AST in the artifacts
//! ([`crate::graph`]). `graph_index_project` and `graph_update_files` take
//! sources of the campaign's compilation or compiled artifacts (a source is
//! never compiled inside the 100 ms budget: rebuild, then update);
//! `graph_context_for_files` answers with coverage gaps first, each with
//! what its condition depends on. Every tool call of every family is logged
//! in the ETG by this family ([`Family::observe`]); `etg_log_event` adds the agent's own steps.
//! Field names are the seed's (snake_case); rudder's additions are marked
//! as extensions and never `required`.

use super::errors::ToolError;
use super::family::{Access, Conventions, Family, FamilyName, Gate, Observed, ToolAnswer, ToolDef};
use crate::campaign::{CampaignRead, FamilyState};
use crate::graph::Constant;
use crate::graph::etg::{self, EtgKind};
use crate::graph::join::Gap;
use crate::graph::rows::{self as graph_rows, Outcome};
use crate::graph::store::GraphError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// After an attempt's last event, how long its effects are still counted
/// as its outcome (coverage reached, tests falsified).
pub const OUTCOME_WINDOW_MS: u64 = 60_000;

fn default_top_k() -> u64 {
    5
}

fn default_min_score() -> f64 {
    0.2
}

fn default_max_tokens() -> u64 {
    2048
}

/// Index an entire project into the Code Graph.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IndexProjectInput {
    /// Absolute path to the project root
    pub project_root: String,
    /// File paths (relative to project_root) to ingest
    pub files: Vec<String>,
    /// Optional map from path to language id override
    pub language_hints: Option<BTreeMap<String, String>>,
}

#[derive(Serialize, JsonSchema)]
pub struct IndexProjectOutput {
    pub indexed_files: Vec<String>,
    /// Opaque version or hash for the Code Graph
    pub graph_version: String,
    /// What the caller should know (a file changed on disk since it was compiled; a file without coverage)
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("x-extension" = true))]
    pub warnings: Vec<String>,
}

/// Incrementally update the Code Graph after edits.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateFilesInput {
    pub project_root: String,
    /// Paths (relative to project_root) to upsert
    #[serde(default)]
    pub added_or_modified: Vec<String>,
    /// Paths (relative to project_root) to remove from the graph
    #[serde(default)]
    pub deleted: Vec<String>,
}

#[derive(Serialize, JsonSchema)]
pub struct UpdateFilesOutput {
    pub updated_files: Vec<String>,
    pub graph_version: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("x-extension" = true))]
    pub warnings: Vec<String>,
}

/// Append an event to the ETG for a specific attempt.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LogEventInput {
    /// Opaque identifier for the attempt/run
    pub attempt_id: String,
    /// Event category
    pub kind: EtgKind,
    #[schemars(extend("format" = "date-time"))]
    pub timestamp: Option<String>,
    /// Event-kind-specific fields (see canonical shapes below)
    pub payload: serde_json::Map<String, Value>,
}

#[derive(Serialize, JsonSchema)]
pub struct LogEventOutput {
    pub event_id: String,
    pub attempt_id: String,
}

/// Retrieve similar historical attempts using ETG and Code Graph context.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SimilarAttemptsInput {
    /// User problem or failure description
    pub query: String,
    /// Optional file paths relevant to the query
    #[serde(default)]
    pub files: Vec<String>,
    #[serde(default = "default_top_k")]
    #[schemars(range(min = 1))]
    pub top_k: u64,
    #[serde(default = "default_min_score")]
    #[schemars(range(min = 0, max = 1))]
    pub min_score: f64,
}

#[derive(Serialize, JsonSchema)]
pub struct SimilarMatch {
    pub attempt_id: String,
    pub score: f64,
    pub summary: String,
    pub related_files: Vec<String>,
    /// What followed the attempt: coverage its injections reached, and coverage and falsified tests within 60 s of its last event
    #[schemars(extend("x-extension" = true))]
    pub outcome: Outcome,
    /// The query's features the attempt shares (fn:, shape:, branch:, file:, w: words)
    #[schemars(extend("x-extension" = true))]
    pub shared: Vec<String>,
}

#[derive(Serialize, JsonSchema)]
pub struct SimilarAttemptsOutput {
    pub matches: Vec<SimilarMatch>,
}

/// Pull summarized code context for one or more files.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ContextInput {
    pub project_root: String,
    /// Indexed file paths, or functions (name, Contract.name or signature)
    pub files: Vec<String>,
    #[serde(default = "default_max_tokens")]
    #[schemars(range(min = 128))]
    pub max_tokens: u64,
}

/// An uncovered branch: its condition, what is missing and what it depends on.
#[derive(Serialize, JsonSchema)]
pub struct GapOut {
    pub file: String,
    pub line: u32,
    pub function: String,
    pub signature: String,
    pub kind: String,
    pub condition: String,
    /// never_true, never_reached or never_false
    pub missing: String,
    pub evaluated: u64,
    pub params: Vec<String>,
    pub state: Vec<String>,
    /// Named constants as NAME=value, literals as written
    pub constants: Vec<String>,
    pub env: Vec<String>,
    /// The locals the condition goes through, with their initial values
    pub locals: Vec<LocalOut>,
    pub state_writers: Vec<String>,
    /// Conditions that must hold for this one to be evaluated (enclosing
    /// `if`s and loops, `require`s before it), in source order
    pub guards: Vec<GuardOut>,
    /// How the state the condition and its guards read is written: each
    /// assignment, the entry point reaching it, and the arguments passed to
    /// a helper
    pub writes: Vec<WriteOut>,
    pub entry_points: Vec<String>,
}

/// A condition that must hold before a gap's is evaluated.
#[derive(Serialize, JsonSchema)]
pub struct GuardOut {
    pub line: u32,
    pub condition: String,
}

/// A local of a condition and its initial value as written.
#[derive(Serialize, JsonSchema)]
pub struct LocalOut {
    pub name: String,
    /// Absent when the local is declared without a value
    #[serde(skip_serializing_if = "Option::is_none")]
    pub init: Option<String>,
}

/// An assignment to a state variable, reached from an entry point.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WriteOut {
    /// Contract.name of the variable
    pub variable: String,
    /// Contract.signature of the function to call
    pub entry_point: String,
    /// Contract.name of the function holding the assignment
    pub function: String,
    /// The assignment as written (`x = e`, `m[k] += e`, `x++`)
    pub assignment: String,
    /// `param = argument` for each parameter of `function` when the entry
    /// point calls it directly with those arguments
    pub bindings: Vec<String>,
    /// The named constants the assignment uses, as NAME=value
    pub constants: Vec<String>,
}

impl From<&Gap> for GapOut {
    fn from(g: &Gap) -> Self {
        GapOut {
            file: g.file.clone(),
            line: g.line,
            function: g.function.clone(),
            signature: g.signature.clone(),
            kind: g.kind.to_string(),
            condition: g.condition.clone(),
            missing: serde_json::to_value(g.missing)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default(),
            evaluated: g.evaluated,
            params: g.params.clone(),
            state: g.state.clone(),
            constants: g.constants.iter().map(Constant::text).collect(),
            env: g.env.clone(),
            locals: g
                .local_defs
                .iter()
                .map(|l| LocalOut {
                    name: l.name.clone(),
                    init: l.init.clone(),
                })
                .collect(),
            state_writers: g.state_writers.clone(),
            guards: g
                .guards
                .iter()
                .map(|(line, condition)| GuardOut {
                    line: *line,
                    condition: condition.clone(),
                })
                .collect(),
            writes: g
                .writes
                .iter()
                .map(|w| WriteOut {
                    variable: w.variable.clone(),
                    entry_point: w.entry_point.clone(),
                    function: w.function.clone(),
                    assignment: w.assignment.clone(),
                    bindings: w.bindings.clone(),
                    constants: w.constants.iter().map(Constant::text).collect(),
                })
                .collect(),
            entry_points: g.entry_points.clone(),
        }
    }
}

#[derive(Serialize, JsonSchema)]
pub struct FileContextOut {
    pub file: String,
    pub summary: String,
    /// Symbol names or anchors relevant to the summary
    pub symbols: Vec<String>,
    /// The uncovered branches of the file or function, blocking ones first
    #[schemars(extend("x-extension" = true))]
    pub gaps: Vec<GapOut>,
}

#[derive(Serialize, JsonSchema)]
pub struct ContextOutput {
    pub contexts: Vec<FileContextOut>,
}

/// The graph family over one campaign.
#[derive(Clone)]
pub struct GraphTools {
    campaign: CampaignRead,
    /// The code graph's index and the ETG: this family's state.
    state: FamilyState,
}

fn graph_error(e: GraphError) -> ToolError {
    match e {
        GraphError::Invalid { field, message } => ToolError::invalid(format!("{field}: {message}"))
            .with_details(json!({ "field": field })),
    }
}

/// The code graph and the agent's execution trace graph.
pub const NAME: FamilyName = FamilyName("graph");

impl Family for GraphTools {
    fn name(&self) -> FamilyName {
        NAME
    }

    fn conventions(&self) -> Conventions {
        Conventions {
            metadata: Some("code_graph"),
            ..Conventions::default()
        }
    }

    fn tools(&self) -> Vec<ToolDef> {
        vec![
            ToolDef::method::<IndexProjectInput, IndexProjectOutput, _>(
                "graph_index_project",
                "Index Solidity into the code graph from the compiler's AST (contracts, functions, state variables, calls, reads and writes). files: sources of the campaign's compilation (its own are indexed from the start) or other compiled artifacts (solc standard-JSON, build-info, a Foundry out/ directory).",
                Access::Blocking,
                self,
                Self::index,
            ),
            ToolDef::method::<UpdateFilesInput, UpdateFilesOutput, _>(
                "graph_update_files",
                "Re-index changed files after a rebuild: each source is re-read from the artifact it was indexed from (or pass the rebuilt artifact itself); a source that changed on disk while its artifact did not is refused, naming it. deleted: files to drop from the graph. A file from a build the campaign does not run has no coverage.",
                Access::Blocking,
                self,
                Self::update,
            ),
            ToolDef::method::<ContextInput, ContextOutput, _>(
                "graph_context_for_files",
                "Context of files, functions (name, Contract.name or signature) or state variables (name or Contract.name: their readers and writers), coverage gaps first: each uncovered branch with its condition, what is missing (never true/reached/false), the parameters, state, constants and environment it depends on, the entry points setting that state; then contracts and functions (least covered first) with lines covered, reads, writes, calls, callers.",
                Access::Blocking,
                self,
                Self::context,
            ),
            ToolDef::method::<LogEventInput, LogEventOutput, _>(
                "etg_log_event",
                "Record a step of your steering attempt in the execution trace graph; it becomes this session's current attempt and later tool calls are logged under it. Payload per kind: checkpoint {message, files?, branch?, function?}; context_retrieved {files, snippets?}; answer_rendered {content, citations?}; tool_start {tool, arguments}; tool_end {tool, status, duration_ms}.",
                Access::Blocking,
                self,
                Self::log_event,
            )
            // It writes the ETG itself: its call is not logged as a tool call.
            .unlogged(),
            ToolDef::method::<SimilarAttemptsInput, SimilarAttemptsOutput, _>(
                "etg_query_similar_attempts",
                "Earlier attempts (this run and earlier runs of the corpus directory) on the query's functions, argument shapes (transfer(address,uint)), branches (Bank.sol:33) or files, best first, with how each turned out: coverage its injections reached, coverage and falsified tests within 60 s. score: the share of the query's features (rarity-weighted) it has; 1 = all.",
                Access::Blocking,
                self,
                Self::similar,
            ),
        ]
    }

    /// Logs every observed tool call in the ETG as `tool_start` and
    /// `tool_end` of its session's current attempt. A read's log may give way
    /// under overload; a call that changed state is always kept.
    fn observe(&self, call: &Observed<'_>) {
        let attempt = self.campaign.etg().attempt_of(call.session.0);
        let droppable = !call.committed;
        let arguments = Value::Object(call.arguments.clone());
        let name = call.tool;
        self.state.etg_log(
            &attempt,
            EtgKind::ToolStart,
            call.started_ms,
            serde_json::json!({ "tool": name, "arguments": arguments }),
            true,
            droppable,
        );
        let mut end = serde_json::json!({
            "tool": name,
            "duration_ms": call.elapsed_us as f64 / 1000.0,
        });
        match call.result {
            Ok(a) => {
                end["status"] = "ok".into();
                let text = a.structured.to_string();
                end["result"] = if text.len() <= 1024 {
                    a.structured.clone()
                } else {
                    // A summary of a large answer: its keys, its size, and
                    // the ids a later query links by.
                    let mut r = serde_json::json!({ "bytes": text.len() });
                    if let Some(o) = a.structured.as_object() {
                        r["keys"] = o.keys().cloned().collect::<Vec<_>>().into();
                        if let Some(id) = o.get("injectionId") {
                            r["injectionId"] = id.clone();
                        }
                    }
                    r
                };
            }
            Err(e) => {
                end["status"] = e.code.as_str().into();
                end["error"] = e.message.clone().into();
            }
        }
        self.state.etg_log(
            &attempt,
            EtgKind::ToolEnd,
            call.started_ms + call.elapsed_us / 1000,
            end,
            true,
            droppable,
        );
    }
}

impl GraphTools {
    pub fn new(campaign: CampaignRead, state: FamilyState) -> Self {
        GraphTools { campaign, state }
    }

    fn index(&self, a: IndexProjectInput, gate: &Gate) -> Result<ToolAnswer, ToolError> {
        for (path, lang) in a.language_hints.iter().flatten() {
            if !matches!(lang.to_ascii_lowercase().as_str(), "solidity" | "sol") {
                return Err(ToolError::invalid(format!(
                    "language_hints.{path}: {lang:?}: rudder indexes Solidity (from the compiler's AST) only"
                ))
                .with_details(json!({ "field": format!("language_hints.{path}") })));
            }
        }
        let out = self
            .state
            .graph()
            .index(&a.project_root, &a.files, || gate.commit().is_ok())
            .map_err(graph_error)?;
        self.state.journal_graph(&a.project_root);
        ToolAnswer::json(&IndexProjectOutput {
            indexed_files: out.files,
            graph_version: out.version,
            warnings: out.warnings,
        })
    }

    fn update(&self, a: UpdateFilesInput, gate: &Gate) -> Result<ToolAnswer, ToolError> {
        let out = self
            .state
            .graph()
            .update(&a.project_root, &a.added_or_modified, &a.deleted, || {
                gate.commit().is_ok()
            })
            .map_err(graph_error)?;
        self.state.journal_graph(&a.project_root);
        ToolAnswer::json(&UpdateFilesOutput {
            updated_files: out.files,
            graph_version: out.version,
            warnings: out.warnings,
        })
    }

    fn context(&self, a: ContextInput, _gate: &Gate) -> Result<ToolAnswer, ToolError> {
        let contexts = self
            .campaign
            .graph()
            .context(&a.project_root, &a.files, a.max_tokens as usize)
            .map_err(graph_error)?;
        ToolAnswer::json(&ContextOutput {
            contexts: contexts
                .iter()
                .map(|c| FileContextOut {
                    file: c.file.clone(),
                    summary: c.summary.clone(),
                    symbols: c.symbols.clone(),
                    gaps: c.gaps.iter().map(GapOut::from).collect(),
                })
                .collect(),
        })
    }

    fn log_event(&self, a: LogEventInput, gate: &Gate) -> Result<ToolAnswer, ToolError> {
        let field = |f: &str, m: String| {
            ToolError::invalid(format!("{f}: {m}")).with_details(json!({ "field": f }))
        };
        if a.attempt_id.trim().is_empty() {
            return Err(field("attempt_id", "must not be empty".into()));
        }
        let ts_ms = match &a.timestamp {
            Some(t) => etg::parse_timestamp(t).ok_or_else(|| {
                field(
                    "timestamp",
                    format!(
                        "{t:?} is not an ISO-8601 date-time with a zone (2024-05-01T12:00:00Z)"
                    ),
                )
            })?,
            None => crate::eventlog::now_ms(),
        };
        let mut payload = Value::Object(a.payload);
        etg::validate(a.kind, &payload).map_err(|e| field(&e.field, e.message))?;
        if a.kind == EtgKind::Checkpoint && payload.get("graph_version").is_none() {
            // Checkpoints are tied to the graph they were made against.
            payload["graph_version"] = self.campaign.graph().graph().version.clone().into();
        }
        gate.commit()?;
        let event = self
            .state
            .etg_log(&a.attempt_id, a.kind, ts_ms, payload, false, false);
        if let Some(session) = gate.session() {
            self.state.etg_enter(session.0, &a.attempt_id);
        }
        ToolAnswer::json(&LogEventOutput {
            event_id: event.event_id,
            attempt_id: event.attempt_id,
        })
    }

    fn similar(&self, a: SimilarAttemptsInput, gate: &Gate) -> Result<ToolAnswer, ToolError> {
        if a.query.trim().is_empty() {
            return Err(ToolError::invalid("query: must not be empty")
                .with_details(json!({ "field": "query" })));
        }
        let exclude = gate.session().map(|s| self.campaign.etg().attempt_of(s.0));
        let found = self.campaign.etg().similar(
            &a.query,
            &a.files,
            a.top_k.min(100) as usize,
            a.min_score,
            exclude.as_deref(),
        );
        let outcomes: Vec<Outcome> = match self.campaign.journal() {
            Some(j) if !found.is_empty() => {
                super::journal_read::JournalRead::with_reader(j, gate, |conn| {
                    found
                        .iter()
                        .map(|s| {
                            graph_rows::attempt_outcome(
                                conn,
                                &s.attempt.run_id,
                                &s.attempt.injections,
                                s.attempt.started_ms,
                                s.attempt.last_ms.saturating_add(OUTCOME_WINDOW_MS),
                            )
                        })
                        .collect::<Result<Vec<_>, _>>()
                        .map_err(Into::into)
                })?
                .map_err(|e| ToolError::internal(e.to_string()))?
            }
            _ => found.iter().map(|_| Outcome::default()).collect(),
        };
        let matches = found
            .into_iter()
            .zip(outcomes)
            .map(|(s, outcome)| SimilarMatch {
                summary: summarize(&s.attempt, &outcome),
                attempt_id: s.attempt.attempt_id,
                score: s.score,
                related_files: s.attempt.files.into_iter().collect(),
                outcome,
                shared: s.shared,
            })
            .collect();
        ToolAnswer::json(&SimilarAttemptsOutput { matches })
    }
}

/// One line about an attempt: what it did and what came of it.
fn summarize(a: &etg::AttemptDoc, o: &Outcome) -> String {
    let mut parts = Vec::new();
    let tools: Vec<String> = a
        .tools
        .iter()
        .map(|(t, n)| {
            if *n > 1 {
                format!("{t} x{n}")
            } else {
                t.clone()
            }
        })
        .collect();
    if !tools.is_empty() {
        parts.push(format!("tools: {}", tools.join(", ")));
    }
    if !a.calls.is_empty() {
        parts.push(format!("injected {}", a.calls.join("; ")));
    }
    if !a.prioritized.is_empty() {
        parts.push(format!("prioritized {}", a.prioritized.join(", ")));
    }
    if let Some(n) = a.notes.first() {
        parts.push(format!("note: {n}"));
    }
    let mut result = Vec::new();
    if !a.injections.is_empty() {
        result.push(format!(
            "its {} injected calls reached {} new coverage points",
            o.injected_calls, o.coverage_from_injections
        ));
    }
    result.push(format!(
        "campaign coverage +{} within 60 s",
        o.coverage_in_window
    ));
    if o.falsified_in_window.is_empty() {
        result.push("nothing falsified".into());
    } else {
        result.push(format!("falsified {}", o.falsified_in_window.join(", ")));
    }
    format!(
        "attempt {} (run {}, {} events): {}; outcome: {}",
        a.attempt_id,
        a.run_id,
        a.events,
        parts.join("; "),
        result.join(", ")
    )
}
