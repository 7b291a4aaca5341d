//! The campaign tools of seed 002 (+ `status`): parse the validated input,
//! call the stores or the control handle, shape the answer.

use super::errors::ToolError;
use crate::campaign::{Control, Stores, rfc3339};
use crate::corpus::{TxQuery, TxRef};
use crate::eventlog::{EventKind, Filter};
use crate::ids::WorkerId;
use alloy_primitives::{Address, U256};
use serde::Deserialize;
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

/// What a tool returns: the structured result and, when it is not the JSON
/// itself, the text content (`dump_lcov`).
pub struct ToolAnswer {
    pub structured: Value,
    pub text: Option<String>,
}

impl From<Value> for ToolAnswer {
    fn from(structured: Value) -> Self {
        ToolAnswer {
            structured,
            text: None,
        }
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ReadLogs {
    #[serde(default = "default_count")]
    count: usize,
    event_type: Option<String>,
    worker_id: Option<u32>,
}

fn default_count() -> usize {
    100
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ShowCoverage {
    contract: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct DumpLcov {
    output_path: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Inspect {
    #[serde(default)]
    offset: u64,
    #[serde(default = "default_limit")]
    limit: usize,
}

fn default_limit() -> usize {
    20
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Find {
    function_signature: Option<String>,
    sender: Option<String>,
    min_value: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Inject {
    sequence: Vec<String>,
    sender: Option<String>,
    value: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Prioritize {
    function_signature: String,
}

fn parse<T: serde::de::DeserializeOwned>(args: Value) -> Result<T, ToolError> {
    serde_json::from_value(args).map_err(|e| ToolError::invalid(format!("arguments: {e}")))
}

fn address(field: &str, s: &str) -> Result<Address, ToolError> {
    crate::parser::parse_address(s).map_err(|e| ToolError::invalid(format!("{field}: {e}")))
}

fn lower(a: &Address) -> String {
    format!("{a:#x}")
}

/// The campaign tools over one campaign.
#[derive(Clone)]
pub struct CampaignTools {
    pub stores: Arc<Stores>,
    pub control: Control,
}

impl CampaignTools {
    pub fn new(control: Control) -> Self {
        CampaignTools {
            stores: control.stores().clone(),
            control,
        }
    }

    /// Runs tool `name`; `deadline` is checked before any state change.
    pub fn call(&self, name: &str, args: Value, deadline: &Gate) -> Result<ToolAnswer, ToolError> {
        match name {
            "read_logs" => self.read_logs(parse(args)?).map(Into::into),
            "show_coverage" => self.show_coverage(parse(args)?).map(Into::into),
            "dump_lcov" => self.dump_lcov(parse(args)?, deadline),
            "get_corpus_size" => Ok(json!({
                "size": self.stores.corpus.tx_count(),
                "sequences": self.stores.corpus.len()
            })
            .into()),
            "inspect_corpus_transactions" => self.inspect(parse(args)?).map(Into::into),
            "find_transaction_in_corpus" => self.find(parse(args)?).map(Into::into),
            "inject_transaction" => self.inject(parse(args)?, deadline).map(Into::into),
            "prioritize_function" => self.prioritize(parse(args)?, deadline).map(Into::into),
            "clear_priorities" => {
                deadline.commit(name)?;
                let n = self.control.clear_priorities();
                Ok(json!({
                    "success": true,
                    "message": format!("Cleared {n} prioritized function{}", if n == 1 { "" } else { "s" }),
                    "clearedCount": n
                })
                .into())
            }
            "status" => Ok(self.status().into()),
            other => Err(ToolError::not_found(other)),
        }
    }

    fn read_logs(&self, a: ReadLogs) -> Result<Value, ToolError> {
        let kind = match &a.event_type {
            Some(t) => Some(
                EventKind::ALL
                    .into_iter()
                    .find(|k| k.as_str() == t)
                    .ok_or_else(|| ToolError::invalid(format!("eventType: unknown value {t:?}")))?,
            ),
            None => None,
        };
        let filter = Filter {
            kind,
            worker: a.worker_id.map(WorkerId),
            after: None,
        };
        let view = self.stores.events.view();
        let mut events: Vec<_> = view.select(&filter).take(a.count).collect();
        // Newest first by timestamp; sequence order breaks ties.
        events.sort_by_key(|e| std::cmp::Reverse((e.timestamp_ms, e.seq)));
        let events: Vec<Value> = events
            .iter()
            .map(|e| {
                json!({
                    "timestamp": rfc3339(e.timestamp_ms),
                    "eventType": e.kind().as_str(),
                    "workerId": e.worker.0,
                    "data": self.stores.event_data(e),
                })
            })
            .collect();
        Ok(json!({ "events": events, "totalCount": view.len() }))
    }

    fn show_coverage(&self, a: ShowCoverage) -> Result<Value, ToolError> {
        let report = self.stores.target.coverage_report();
        let mut contracts: Vec<_> = report.contracts.iter().collect();
        if let Some(name) = &a.contract {
            contracts.retain(|c| &c.name == name);
            if contracts.is_empty() {
                let names: Vec<_> = report.contracts.iter().map(|c| c.name.clone()).collect();
                return Err(ToolError::invalid(format!(
                    "contract: no contract named {name:?}; covered contracts: {}",
                    names.join(", ")
                )));
            }
        }
        let (lines, hit) = contracts
            .iter()
            .fold((0, 0), |(l, h), c| (l + c.lines, h + c.lines_hit));
        Ok(json!({
            "contracts": contracts.iter().map(|c| json!({
                "name": c.name,
                "lineCoverage": c.line_percent(),
                "branchCoverage": c.branch_percent(),
                "lines": c.lines, "linesHit": c.lines_hit,
                "branches": c.branches, "branchesHit": c.branches_hit,
            })).collect::<Vec<_>>(),
            "overallCoverage": crate::coverage::lcov::percent(hit, lines),
        }))
    }

    fn dump_lcov(&self, a: DumpLcov, deadline: &Gate) -> Result<ToolAnswer, ToolError> {
        let target = a
            .output_path
            .as_deref()
            .map(|p| self.stores.export_path(p))
            .transpose()
            .map_err(|e| match e {
                crate::campaign::persist::ExportError::Refused(m) => {
                    ToolError::invalid(format!("outputPath: {m}"))
                        .with_details(json!({ "field": "outputPath" }))
                }
                io => ToolError::internal(io.to_string()),
            })?;
        let report = self.stores.target.coverage_report();
        let text = report.lcov_text();
        let files = report.files.len();
        match target {
            None => Ok(ToolAnswer {
                structured: json!({ "lcov": text, "bytes": text.len(), "files": files }),
                text: Some(text),
            }),
            Some(path) => {
                deadline.commit("dump_lcov")?;
                crate::campaign::persist::write_atomic(&path, text.as_bytes())
                    .map_err(|e| ToolError::internal(format!("writing {}: {e}", path.display())))?;
                let shown = path.display().to_string();
                Ok(ToolAnswer {
                    structured: json!({ "path": shown, "bytes": text.len(), "files": files }),
                    text: Some(format!(
                        "LCOV written to {shown} ({} bytes, {files} files)",
                        text.len()
                    )),
                })
            }
        }
    }

    fn tx_json(&self, t: &TxRef) -> Value {
        let tx = t.tx();
        let mut v = json!({
            "index": t.index,
            "call": crate::parser::format_call(tx, &self.stores.target.functions, Some(tx.sender)),
            "sender": lower(&tx.sender),
            "value": tx.value.to_string(),
            "entryId": t.entry.id.0,
            "position": t.position,
        });
        if let Some(g) = t.gas_used() {
            v["gasUsed"] = json!(g);
        }
        v
    }

    fn inspect(&self, a: Inspect) -> Result<Value, ToolError> {
        if !(1..=100).contains(&a.limit) {
            return Err(ToolError::invalid(format!(
                "limit: {} is outside 1..=100",
                a.limit
            )));
        }
        let page = self.stores.corpus.tx_page(a.offset, a.limit);
        Ok(json!({
            "transactions": page.iter().map(|t| self.tx_json(t)).collect::<Vec<_>>(),
            "total": self.stores.corpus.tx_count(),
        }))
    }

    fn find(&self, a: Find) -> Result<Value, ToolError> {
        if a.function_signature.is_none() && a.sender.is_none() && a.min_value.is_none() {
            return Err(ToolError::invalid(
                "at least one of functionSignature, sender, minValue is required",
            ));
        }
        if let Some(sig) = &a.function_signature
            && !self
                .stores
                .target
                .functions
                .iter()
                .any(|f| &f.signature() == sig)
        {
            let all: Vec<String> = self
                .stores
                .target
                .functions
                .iter()
                .map(|f| f.signature())
                .collect();
            return Err(ToolError::invalid(format!(
                "functionSignature: {sig:?} is not a function of {}; functions: {}",
                self.stores.target.contract.name,
                all.join(", ")
            )));
        }
        let query = TxQuery {
            signature: a.function_signature,
            sender: a
                .sender
                .as_deref()
                .map(|s| address("sender", s))
                .transpose()?,
            min_value: a
                .min_value
                .as_deref()
                .map(|v| {
                    if !v.bytes().all(|b| b.is_ascii_digit()) || v.is_empty() {
                        return Err(ToolError::invalid(format!(
                            "minValue: {v:?} is not a decimal wei amount"
                        )));
                    }
                    v.parse::<U256>()
                        .map_err(|e| ToolError::invalid(format!("minValue: {v:?}: {e}")))
                })
                .transpose()?,
            argument: None,
        };
        let matches = self.stores.corpus.find(&query, 1000);
        Ok(json!({
            "matches": matches.iter().map(|t| self.tx_json(t)).collect::<Vec<_>>(),
            "count": self.stores.corpus.count_matches(&query),
        }))
    }

    fn inject(&self, a: Inject, deadline: &Gate) -> Result<Value, ToolError> {
        let sender = a
            .sender
            .as_deref()
            .map(|s| address("sender", s))
            .transpose()?;
        let value = match a.value.as_deref() {
            Some(v) => v
                .parse::<U256>()
                .map_err(|e| ToolError::invalid(format!("value: {v:?}: {e}")))?,
            None => U256::ZERO,
        };
        let txs = self
            .control
            .parse_calls(&a.sequence, sender, value)
            .map_err(ToolError::from)?;
        deadline.commit("inject_transaction")?;
        let n = txs.len();
        let receipt = self.control.inject(txs).map_err(ToolError::from)?;
        Ok(json!({
            "success": true,
            "message": format!("Injected {n} transaction{} to {} worker{}", if n == 1 { "" } else { "s" }, receipt.workers, if receipt.workers == 1 { "" } else { "s" }),
            "injectedCount": n,
            "injectionId": receipt.id.0,
        }))
    }

    fn prioritize(&self, a: Prioritize, deadline: &Gate) -> Result<Value, ToolError> {
        self.control
            .resolve_signature(&a.function_signature)
            .map_err(ToolError::from)?;
        deadline.commit("prioritize_function")?;
        let set = self
            .control
            .prioritize(&a.function_signature, 1)
            .map_err(ToolError::from)?;
        Ok(json!({
            "success": true,
            "message": format!("Prioritized function '{}'", a.function_signature),
            "prioritizedFunctions": set.signatures(),
        }))
    }

    fn status(&self) -> Value {
        let s = &self.stores;
        let report = crate::campaign::Report::build(s);
        let elapsed = s.started.elapsed().as_secs_f64();
        let calls = s.stats.calls.load(Ordering::Relaxed);
        json!({
            "runId": s.run_id,
            "contract": s.target.contract.name,
            "mode": report.mode,
            "running": !s.finished(),
            "workers": s.workers(),
            "calls": calls,
            "callsPerSecond": if elapsed > 0.0 { (calls as f64 / elapsed).round() } else { 0.0 },
            "elapsedSeconds": (elapsed * 10.0).round() / 10.0,
            "lineCoverage": report.coverage.line_percent,
            "branchCoverage": report.coverage.branch_percent,
            "corpusSize": s.corpus.tx_count(),
            "corpusSequences": s.corpus.len(),
            "prioritizedFunctions": s.priorities.snapshot().signatures(),
            "config": {
                "testMode": report.mode,
                "testLimit": s.config.test_limit,
                "seqLen": s.config.seq_len,
                "shrinkLimit": s.config.shrink_limit,
                "seed": s.seed,
                "senders": s.config.senders.iter().map(lower).collect::<Vec<_>>(),
                "corpusDir": s.corpus_dir.display().to_string(),
                "outDir": s.out_dir.display().to_string(),
            },
            "tests": report.tests.iter().map(|t| {
                let mut v = json!({ "name": t.name, "kind": t.kind, "status": t.status });
                if !t.sequence.is_empty() {
                    v["counterexample"] = json!(t.sequence);
                }
                if let Some(val) = &t.value {
                    v["value"] = json!(val);
                }
                v
            }).collect::<Vec<_>>(),
        })
    }
}

/// The point of no return of a tool call. A handler calls [`Gate::commit`]
/// right before it changes state; the server calls [`Gate::expire`] when the
/// budget runs out. Exactly one of them wins, so a call that timed out never
/// changed anything, and one that committed is awaited to its end.
#[derive(Clone, Debug)]
pub struct Gate {
    deadline: Instant,
    state: Arc<std::sync::atomic::AtomicU8>,
}

const RUNNING: u8 = 0;
const COMMITTED: u8 = 1;
const EXPIRED: u8 = 2;

impl Gate {
    pub fn new(deadline: Instant) -> Self {
        Gate {
            deadline,
            state: Arc::new(std::sync::atomic::AtomicU8::new(RUNNING)),
        }
    }

    /// Claims the right to change state; fails once the budget is spent.
    pub fn commit(&self, tool: &str) -> Result<(), ToolError> {
        if Instant::now() >= self.deadline {
            let _ = self.expire();
        }
        match self
            .state
            .compare_exchange(RUNNING, COMMITTED, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => Ok(()),
            Err(COMMITTED) => Ok(()),
            Err(_) => Err(ToolError::timeout(tool)),
        }
    }

    /// Marks the call expired; false if the handler already committed.
    pub fn expire(&self) -> bool {
        match self
            .state
            .compare_exchange(RUNNING, EXPIRED, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => true,
            Err(s) => s == EXPIRED,
        }
    }

    pub fn deadline(&self) -> Instant {
        self.deadline
    }
}
