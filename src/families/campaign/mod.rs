//! The campaign family (nine tools + `status`): typed parameters
//! and answers whose derived schemas are the seed's, and thin handlers that
//! parse, call a store or the control handle, and shape the answer.
//!
//! Where the seed contradicts itself (DESIGN.md, README):
//! * `prioritize_function.functionSignature` and `inject_transaction.sequence`
//!   items: the seed's pattern `^[a-zA-Z_][a-zA-Z0-9_]*\([^)]*\)$` rejects
//!   tuple parameters and nested calls; ours accept canonical signatures with
//!   tuples (no spaces) and calls with nested parentheses and `{…}` options.
//! * `dump_lcov`'s output is declared as a plain string; an MCP output schema
//!   must be an object, so the LCOV text is the tool's text content and the
//!   structured result wraps it (`lcov`) or says where it was written (`path`).
//! * `read_logs` output `eventType`: the seed's five values plus rudder's
//!   documented extensions.

use super::errors::ToolError;
use super::family::{Access, Conventions, Family, FamilyName, Gate, ToolAnswer, ToolDef};
use crate::campaign::control::MAX_INJECTED_CALLS;
use crate::campaign::properties::TestKind;
use crate::campaign::report::TestStatus;
use crate::campaign::{CampaignRead, Steer};
use crate::corpus::{TxQuery, TxRef};
use crate::eventlog::{DEFAULT_CAPACITY, EventKind, Filter};
use crate::ids::WorkerId;
use alloy_primitives::{Address, U256};
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};
use serde_json::Value;

mod types;
pub use types::*;

// ---- the family ----

fn wei(field: &str, s: &str) -> Result<U256, ToolError> {
    s.parse::<U256>().map_err(|e| {
        ToolError::invalid(format!("{field}: {s:?}: {e}"))
            .with_details(serde_json::json!({ "field": field }))
    })
}

/// When a handler doing real work must stop to answer within the budget
/// (a margin for shaping the answer).
fn answer_by(gate: &Gate) -> std::time::Instant {
    gate.deadline()
        .checked_sub(std::time::Duration::from_millis(10))
        .unwrap_or_else(std::time::Instant::now)
}

fn address(field: &str, s: &str) -> Result<Address, ToolError> {
    crate::parser::parse_address(s).map_err(|e| {
        ToolError::invalid(format!("{field}: {e}"))
            .with_details(serde_json::json!({ "field": field }))
    })
}

fn lower(a: &Address) -> String {
    format!("{a:#x}")
}

/// `part / whole`, 0 when `whole` is 0, to four decimals.
fn share(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        return 0.0;
    }
    (part as f64 / whole as f64 * 10_000.0).round() / 10_000.0
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// The campaign tools over one campaign.
#[derive(Clone)]
pub struct CampaignTools {
    campaign: CampaignRead,
    steer: Steer,
}

/// The nine campaign tools and `status`.
pub const NAME: FamilyName = FamilyName("campaign");

impl Family for CampaignTools {
    fn name(&self) -> FamilyName {
        NAME
    }

    fn conventions(&self) -> Conventions {
        // The campaign tools' answers keep their exact schemas: no `_metadata`.
        Conventions {
            metadata: None,
            error_envelope: false,
        }
    }

    fn tools(&self) -> Vec<ToolDef> {
        let sender = lower(&self.campaign.config().senders[0]);
        vec![
            ToolDef::method::<ReadLogsInput, ReadLogsOutput, _>(
                "read_logs",
                "Read the campaign's recent events (newest first; the 2500 most recent at most): falsifications, coverage gains, injections run, shrinking, workers starting and stopping. TransactionExecuted events are aggregated per worker every 250 ms.",
                Access::Inline,
                self,
                Self::read_logs,
            ),
            ToolDef::method::<ShowCoverageInput, ShowCoverageOutput, _>(
                "show_coverage",
                "Retrieve line and branch coverage statistics (percentages rounded to one decimal; overallCoverage is line coverage weighted by each contract's executable lines).",
                Access::Inline,
                self,
                Self::show_coverage,
            ),
            ToolDef::method::<DumpLcovInput, DumpLcovOutput, _>(
                "dump_lcov",
                "Export coverage in LCOV format. Without outputPath the LCOV text is the tool's text content (and `lcov` in the structured result); with outputPath the file is written inside the campaign's exports folder ({outDir}/exports; relative paths resolve there; `..`, paths leaving it (symlinks included) and the campaign's own files are INVALID_INPUT) and its path returned.",
                Access::Blocking,
                self,
                Self::dump_lcov,
            ),
            ToolDef::method::<GetCorpusSizeInput, GetCorpusSizeOutput, _>(
                "get_corpus_size",
                "Get transaction count in corpus (every call of every corpus sequence).",
                Access::Inline,
                self,
                Self::corpus_size,
            ),
            ToolDef::method::<InspectCorpusInput, InspectCorpusOutput, _>(
                "inspect_corpus_transactions",
                "Paginated corpus transaction inspection, in corpus index order.",
                Access::Inline,
                self,
                Self::inspect,
            ),
            ToolDef::method::<FindTransactionInput, FindTransactionOutput, _>(
                "find_transaction_in_corpus",
                "Search corpus for matching transactions (corpus scan order; at most 1000 matches listed, count is the full number).",
                Access::Inline,
                self,
                Self::find,
            ),
            ToolDef::method::<InjectTransactionInput, InjectTransactionOutput, _>(
                "inject_transaction",
                "Inject a call sequence into every worker: each runs it from the deployed state at its next call boundary (`repeat` times). Solidity-like calls: transfer(0x…, 100), deposit{value: 1 ether}(), set((1, true)); options {from, value, delay, blocks}; `?` is any value, drawn anew each run: transfer(?, 7), f([1, ?]), g{value: ?}(), uint8(?) for an overload; `$n`, `$n.name`: what call n returned or emitted: open(?); fund($1.id, 5).",
                Access::Blocking,
                self,
                Self::inject,
            )
            // The default sender is the campaign's, which the YAML may set.
            .with_default("sender", Value::String(sender.clone())),
            ToolDef::method::<PrioritizeFunctionInput, PrioritizeFunctionOutput, _>(
                "prioritize_function",
                "Add function to prioritization set (90% weighting): when the set is non-empty, 90% of generated calls pick from it (weighted), 10% from the whole ABI. Prioritizing a function again adds 1 to its weight. Canonical signatures with tuples are accepted, e.g. set((int16,uint8,address,bool)).",
                Access::Blocking,
                self,
                Self::prioritize,
            ),
            ToolDef::method::<ClearPrioritiesInput, ClearPrioritiesOutput, _>(
                "clear_priorities",
                "Reset prioritization set to empty (no parameters).",
                Access::Blocking,
                self,
                Self::clear_priorities,
            ),
            ToolDef::method::<TargetInput, crate::campaign::target_info::TargetInfo, _>(
                "target",
                "What the campaign fuzzes: the deployed contracts and addresses, each function's signature, selector, mutability, named parameters and returns and whether workers call it, each test's kind and status, the deployer, the senders, and the starting block (number, timestamp, largest delays).",
                Access::Inline,
                self,
                Self::target,
            ),
            ToolDef::method::<RunSequenceInput, RunSequenceOutput, _>(
                "run_sequence",
                "Run a call sequence once from the deployed state on a copy (the campaign is unchanged): per call decoded returns and events, revert reason (custom errors decoded) or panic code, gas, coverage points the campaign has not reached, tests failing after it. inject_transaction's call syntax.",
                Access::Blocking,
                self,
                Self::run_sequence,
            )
            .with_default("sender", Value::String(sender)),
            ToolDef::method::<ReloadCorpusInput, ReloadCorpusOutput, _>(
                "reload_corpus",
                "Re-read the corpus directory: entries another process or a person added since the campaign read it are replayed for coverage and added to the corpus; files that cannot be loaded are listed by name and left in place. Within the time budget; `remaining` says how many are left for the next call.",
                Access::Blocking,
                self,
                Self::reload_corpus,
            ),
            ToolDef::method::<FoundryReproducerInput, FoundryReproducerOutput, _>(
                "foundry_reproducer",
                "A falsified test as a Foundry test: a contract inheriting the suite (or harness) that replays the shrunk sequence under vm.prank/warp/roll/deal and checks the test, so forge test fails on it; paste it into the project's tests as a regression test.",
                Access::Inline,
                self,
                Self::foundry_reproducer,
            ),
            ToolDef::method::<RevertCensusInput, RevertCensusOutput, _>(
                "revert_census",
                "Where calls revert, per function, over a recent window: calls, reverts, and the top reasons, each with the deepest revert's decoded reason and line, the guard that failed (condition, state it reads) and its enablers: entry points whose writes change that state. What to call first.",
                Access::Inline,
                self,
                Self::revert_census,
            ),
            ToolDef::method::<TestVacuityInput, TestVacuityOutput, _>(
                "test_vacuity",
                "How often each test got past its own preconditions (top-level requires and early-return ifs of its function, from sampled coverage): per precondition evaluated/passed/stopped, the share of runs stopped and the one stopping most. Most vacuous first.",
                Access::Inline,
                self,
                Self::test_vacuity,
            ),
            ToolDef::method::<EvaluatePredicatesInput, EvaluatePredicatesOutput, _>(
                "evaluate_predicates",
                "What view calls answer on reached states (isMember(0x…), markets(0), getCash{to: 0x…}() on any deployed contract), after every call of the newest corpus entries or of `sequence`: each value with its state count, and which functions changed it from what to what.",
                Access::Blocking,
                self,
                Self::evaluate_predicates,
            ),
            ToolDef::method::<WriteHtmlReportInput, WriteHtmlReportOutput, _>(
                "write_html_report",
                "Write the campaign's self-contained HTML report (index.html, works offline): sources with line and branch coverage, per-function hits, every test with its status and its original and shrunk sequences replayed call by call (arguments, returns, events, revert reasons), coverage and calls/s over time. outputPath: a folder in {outDir}/exports (default `report`; `..` and paths leaving it are INVALID_INPUT).",
                Access::Blocking,
                self,
                Self::write_html_report,
            ),
            ToolDef::method::<StatusInput, StatusOutput, _>(
                "status",
                "Campaign status: target, config, workers, calls, calls/s, coverage, corpus size, priorities and each test's state (passing, falsified with its counterexample, shrinking, or an optimization's best value). Integers that can exceed 2^53 (seed, limits) are decimal strings.",
                Access::Inline,
                self,
                Self::status,
            ),
        ]
    }
}

impl CampaignTools {
    pub fn new(campaign: CampaignRead, steer: Steer) -> Self {
        CampaignTools { campaign, steer }
    }

    fn read_logs(&self, a: ReadLogsInput, _: &Gate) -> Result<ToolAnswer, ToolError> {
        let kind = a
            .event_type
            .as_deref()
            .map(|t| {
                EventKind::parse(t).ok_or_else(|| {
                    ToolError::invalid(format!("eventType: unknown value {t:?}"))
                        .with_details(serde_json::json!({ "field": "eventType" }))
                })
            })
            .transpose()?;
        let filter = Filter {
            kind,
            worker: a.worker_id.map(WorkerId),
            after: None,
        };
        let view = self.campaign.events().view();
        let mut events: Vec<_> = view.select(&filter).take(a.count).collect();
        // Newest first by timestamp; sequence order breaks ties.
        events.sort_by_key(|e| std::cmp::Reverse((e.timestamp_ms, e.seq)));
        let render = self.campaign.renderer();
        let events = events
            .iter()
            .map(|e| LogEvent {
                timestamp: crate::campaign::rfc3339(e.timestamp_ms),
                event_type: e.kind().as_str(),
                worker_id: e.worker.0,
                data: render.data(e),
            })
            .collect();
        ToolAnswer::json(&ReadLogsOutput {
            events,
            total_count: view.len(),
        })
    }

    fn show_coverage(&self, a: ShowCoverageInput, _: &Gate) -> Result<ToolAnswer, ToolError> {
        let report = self.campaign.coverage_report();
        let mut contracts: Vec<_> = report.contracts.iter().collect();
        if let Some(name) = &a.contract {
            contracts.retain(|c| &c.name == name);
            if contracts.is_empty() {
                let names: Vec<_> = report.contracts.iter().map(|c| c.name.clone()).collect();
                return Err(ToolError::invalid(format!(
                    "contract: no contract named {name:?}; covered contracts: {}",
                    names.join(", ")
                ))
                .with_details(serde_json::json!({ "field": "contract" })));
            }
        }
        let (lines, hit) = contracts
            .iter()
            .fold((0, 0), |(l, h), c| (l + c.lines, h + c.lines_hit));
        ToolAnswer::json(&ShowCoverageOutput {
            contracts: contracts
                .iter()
                .map(|c| ContractCoverage {
                    name: c.name.clone(),
                    line_coverage: c.line_percent(),
                    branch_coverage: c.branch_percent(),
                    lines: c.lines,
                    lines_hit: c.lines_hit,
                    branches: c.branches,
                    branches_hit: c.branches_hit,
                })
                .collect(),
            overall_coverage: crate::coverage::lcov::percent(hit, lines),
        })
    }

    fn dump_lcov(&self, a: DumpLcovInput, gate: &Gate) -> Result<ToolAnswer, ToolError> {
        let target = a
            .output_path
            .as_deref()
            .map(|p| self.campaign.layout().export_path(p))
            .transpose()
            .map_err(|e| match e {
                crate::campaign::persist::ExportError::Refused(m) => {
                    ToolError::invalid(format!("outputPath: {m}"))
                        .with_details(serde_json::json!({ "field": "outputPath" }))
                }
                io => ToolError::internal(io.to_string()),
            })?;
        let report = self.campaign.coverage_report();
        let text = report.lcov_text();
        let files = report.files.len();
        let bytes = text.len();
        match target {
            None => {
                let answer = DumpLcovOutput {
                    lcov: Some(text.clone()),
                    path: None,
                    bytes,
                    files,
                };
                ToolAnswer::with_text(&answer, text)
            }
            Some(path) => {
                gate.commit()?;
                crate::campaign::persist::write_atomic(&path, text.as_bytes())
                    .map_err(|e| ToolError::internal(format!("writing {}: {e}", path.display())))?;
                let shown = path.display().to_string();
                let note = format!("LCOV written to {shown} ({bytes} bytes, {files} files)");
                let answer = DumpLcovOutput {
                    lcov: None,
                    path: Some(shown),
                    bytes,
                    files,
                };
                ToolAnswer::with_text(&answer, note)
            }
        }
    }

    fn write_html_report(
        &self,
        a: WriteHtmlReportInput,
        gate: &Gate,
    ) -> Result<ToolAnswer, ToolError> {
        let refused = |m: String| {
            ToolError::invalid(format!("outputPath: {m}"))
                .with_details(serde_json::json!({ "field": "outputPath" }))
        };
        let requested = a
            .output_path
            .as_deref()
            .unwrap_or(crate::view::html::DEFAULT_DIR);
        let dir = self
            .campaign
            .layout()
            .export_path(requested)
            .map_err(|e| match e {
                crate::campaign::persist::ExportError::Refused(m) => refused(m),
                io => ToolError::internal(io.to_string()),
            })?;
        if dir.exists() && !dir.is_dir() {
            return Err(refused(format!(
                "{requested:?} is a file; the report is a folder (its index.html)"
            )));
        }
        gate.commit()?;
        let (path, report) = crate::view::html::write(&self.campaign, &dir, answer_by(gate))
            .map_err(|e| ToolError::internal(e.to_string()))?;
        let shown = path.display().to_string();
        let note = format!(
            "HTML report written to {shown} ({} bytes, {} files, {} tests)",
            report.html.len(),
            report.files,
            report.tests
        );
        ToolAnswer::with_text(
            &WriteHtmlReportOutput {
                path: shown,
                bytes: report.html.len(),
                files: report.files,
                tests: report.tests,
                replayed: report.replayed,
            },
            note,
        )
    }

    fn corpus_size(&self, _: GetCorpusSizeInput, _: &Gate) -> Result<ToolAnswer, ToolError> {
        ToolAnswer::json(&GetCorpusSizeOutput {
            size: self.campaign.corpus().tx_count(),
            sequences: self.campaign.corpus().len(),
        })
    }

    fn tx_item(&self, t: &TxRef) -> TxItem {
        let tx = t.tx();
        TxItem {
            index: t.index,
            call: self.campaign.print_call(tx),
            sender: lower(&tx.sender),
            value: tx.value.to_string(),
            gas_used: t.gas_used(),
            entry_id: t.entry.id.0,
            position: t.position,
        }
    }

    fn inspect(&self, a: InspectCorpusInput, _: &Gate) -> Result<ToolAnswer, ToolError> {
        let page = self.campaign.corpus().tx_page(a.offset, a.limit);
        ToolAnswer::json(&InspectCorpusOutput {
            transactions: page.iter().map(|t| self.tx_item(t)).collect(),
            total: self.campaign.corpus().tx_count(),
        })
    }

    fn find(&self, a: FindTransactionInput, _: &Gate) -> Result<ToolAnswer, ToolError> {
        if let Some(sig) = &a.function_signature {
            self.campaign.function_by_signature(sig).map_err(|m| {
                ToolError::invalid(format!("functionSignature: {m}"))
                    .with_details(serde_json::json!({ "field": "functionSignature" }))
            })?;
        }
        let min_value = a
            .min_value
            .as_deref()
            .map(|v| {
                let bad = |why: String| {
                    ToolError::invalid(format!("minValue: {v:?} {why}"))
                        .with_details(serde_json::json!({ "field": "minValue" }))
                };
                if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(bad("is not a decimal wei amount".into()));
                }
                v.parse::<U256>().map_err(|e| bad(format!(": {e}")))
            })
            .transpose()?;
        let query = TxQuery {
            signature: a.function_signature,
            sender: a
                .sender
                .as_deref()
                .map(|s| address("sender", s))
                .transpose()?,
            min_value,
            argument: None,
        };
        let matches = self.campaign.corpus().find(&query, MAX_FIND_MATCHES);
        ToolAnswer::json(&FindTransactionOutput {
            matches: matches.iter().map(|t| self.tx_item(t)).collect(),
            count: self.campaign.corpus().count_matches(&query),
        })
    }

    fn inject(&self, a: InjectTransactionInput, gate: &Gate) -> Result<ToolAnswer, ToolError> {
        let sender = a
            .sender
            .as_deref()
            .map(|s| address("sender", s))
            .transpose()?;
        let value = wei("value", &a.value)?;
        let calls: Vec<String> = a.sequence.into_iter().map(|c| c.0).collect();
        let templates = self.steer.parse_templates(&calls, sender, value)?;
        gate.commit()?;
        let n = templates.len();
        let receipt = self.steer.inject_templates(templates, a.repeat)?;
        ToolAnswer::json(&InjectTransactionOutput {
            success: true,
            message: format!(
                "Injected {n} transaction{} to {} worker{}",
                plural(n),
                receipt.workers,
                plural(receipt.workers)
            ),
            injected_count: n,
            injection_id: receipt.id.0,
        })
    }

    fn prioritize(&self, a: PrioritizeFunctionInput, gate: &Gate) -> Result<ToolAnswer, ToolError> {
        // A bare name stands for its one function (or lists the overloads).
        let i = self.steer.resolve_signature(&a.function_signature)?;
        let signature = self.campaign.callable()[i].function.signature();
        gate.commit()?;
        let set = self.steer.prioritize(&signature, 1)?;
        ToolAnswer::json(&PrioritizeFunctionOutput {
            success: true,
            message: format!("Prioritized function '{signature}'"),
            prioritized_functions: set.signatures(),
        })
    }

    fn revert_census(&self, a: RevertCensusInput, _: &Gate) -> Result<ToolAnswer, ToolError> {
        let function = a
            .function_signature
            .as_deref()
            .map(|sig| self.steer.resolve_signature(sig))
            .transpose()?;
        let q = crate::campaign::census::Query {
            function,
            window: std::time::Duration::from_secs(a.window_seconds),
            top: a.top,
        };
        let window_seconds = crate::campaign::census::counted_window(q.window).as_secs();
        let render = self.campaign.renderer();
        let place = |p: &crate::campaign::census::Place| SourcePlace {
            file: p.file.clone(),
            line: p.line,
        };
        let functions = self
            .campaign
            .revert_census(&q)
            .into_iter()
            .map(|f| {
                let reverts = f.window.reverts;
                CensusFunction {
                    function_signature: f.signature,
                    contract: f.contract,
                    calls: f.window.calls,
                    reverts,
                    successes: f.window.calls.saturating_sub(reverts),
                    revert_share: share(reverts, f.window.calls),
                    total_calls: f.total.calls,
                    total_reverts: f.total.reverts,
                    reasons: f
                        .reasons
                        .into_iter()
                        .map(|r| CensusReason {
                            share: share(r.count, reverts),
                            revert_at: r.revert_at.as_ref().map(place),
                            guard: r.guard_at.as_ref().map(|at| {
                                let g = r.guard.clone().unwrap_or_default();
                                let enablers = g
                                    .enablers
                                    .iter()
                                    .zip(&g.callable)
                                    .map(|(e, callable)| CensusEnabler {
                                        function: e.clone(),
                                        callable: *callable,
                                    })
                                    .collect();
                                CensusGuard {
                                    file: at.file.clone(),
                                    line: at.line,
                                    function: (!g.function.is_empty()).then_some(g.function),
                                    kind: (!g.kind.is_empty()).then_some(g.kind),
                                    condition: (!g.condition.is_empty()).then_some(g.condition),
                                    state: g.state,
                                    locals: g.locals,
                                    calls: g.calls,
                                    enablers,
                                }
                            }),
                            sample: render.call(&r.sample),
                            reason: r.reason,
                            kind: r.kind,
                            count: r.count,
                        })
                        .collect(),
                }
            })
            .collect();
        ToolAnswer::json(&RevertCensusOutput {
            window_seconds,
            functions,
        })
    }

    fn test_vacuity(&self, a: TestVacuityInput, _: &Gate) -> Result<ToolAnswer, ToolError> {
        let tests = self.campaign.test_vacuity(a.test.as_deref()).map_err(|m| {
            ToolError::invalid(format!("test: {m}"))
                .with_details(serde_json::json!({ "field": "test" }))
        })?;
        let out = |p: &crate::graph::vacuity::Precondition| PreconditionOut {
            line: p.line,
            kind: p.kind,
            condition: p.condition.clone(),
            evaluated: p.evaluated,
            passed: p.passed,
            stopped: p.stopped,
            state: p.state.clone(),
        };
        let mut tests: Vec<TestVacuity> = tests
            .into_iter()
            .map(|row| match row.vacuity {
                Some(v) => TestVacuity {
                    test: row.test,
                    kind: row.kind,
                    share_stopped: (v.share_stopped() * 10_000.0).round() / 10_000.0,
                    stopped_most_by: v.stopped_most_by().map(out),
                    preconditions: v.preconditions.iter().map(out).collect(),
                    function: Some(v.function),
                    file: Some(v.file),
                    line: Some(v.line),
                    runs: v.entries,
                    passed: v.passed,
                },
                None => TestVacuity {
                    test: row.test,
                    kind: row.kind,
                    function: None,
                    file: None,
                    line: None,
                    runs: 0,
                    passed: 0,
                    share_stopped: 0.0,
                    preconditions: Vec::new(),
                    stopped_most_by: None,
                },
            })
            .collect();
        tests.sort_by(|a, b| b.share_stopped.total_cmp(&a.share_stopped));
        ToolAnswer::json(&TestVacuityOutput { tests })
    }

    fn clear_priorities(
        &self,
        _: ClearPrioritiesInput,
        gate: &Gate,
    ) -> Result<ToolAnswer, ToolError> {
        gate.commit()?;
        let n = self.steer.clear_priorities();
        ToolAnswer::json(&ClearPrioritiesOutput {
            success: true,
            message: format!("Cleared {n} prioritized function{}", plural(n)),
            cleared_count: n,
        })
    }

    fn run_sequence(&self, a: RunSequenceInput, gate: &Gate) -> Result<ToolAnswer, ToolError> {
        let sender = a
            .sender
            .as_deref()
            .map(|s| address("sender", s))
            .transpose()?;
        let value = wei("value", &a.value)?;
        let calls: Vec<String> = a.sequence.into_iter().map(|c| c.0).collect();
        let report = self
            .steer
            .run_once(&calls, sender, value, answer_by(gate))?;
        ToolAnswer::json(&RunSequenceOutput {
            success: true,
            report,
        })
    }

    fn evaluate_predicates(
        &self,
        a: EvaluatePredicatesInput,
        gate: &Gate,
    ) -> Result<ToolAnswer, ToolError> {
        let predicates: Vec<String> = a.predicates.into_iter().map(|c| c.0).collect();
        let sequence: Option<Vec<String>> =
            a.sequence.map(|s| s.into_iter().map(|c| c.0).collect());
        let report = self.steer.evaluate_predicates(
            &predicates,
            sequence.as_deref(),
            a.entries,
            answer_by(gate),
        )?;
        ToolAnswer::json(&EvaluatePredicatesOutput {
            success: true,
            report,
        })
    }

    fn reload_corpus(&self, _: ReloadCorpusInput, gate: &Gate) -> Result<ToolAnswer, ToolError> {
        gate.commit()?;
        let reload = self.steer.reload_corpus(Some(answer_by(gate)));
        let message = format!(
            "Added {} corpus entr{} ({} new coverage points); {} already known, {} malformed, {} left for the next reload",
            reload.added,
            if reload.added == 1 { "y" } else { "ies" },
            reload.new_coverage_points,
            reload.already_known,
            reload.malformed.len(),
            reload.remaining
        );
        ToolAnswer::json(&ReloadCorpusOutput {
            success: true,
            message,
            corpus_sequences: self.campaign.corpus().len(),
            reload,
        })
    }

    fn foundry_reproducer(
        &self,
        a: FoundryReproducerInput,
        _: &Gate,
    ) -> Result<ToolAnswer, ToolError> {
        use crate::campaign::foundry_repro::Repro;
        let r = self.campaign.foundry_reproducer(&a.test).map_err(|m| {
            ToolError::invalid(m).with_details(serde_json::json!({ "field": "test" }))
        })?;
        let (falsified, contract, solidity) = match r {
            Repro::Written { contract, solidity } => (true, contract, Some(solidity)),
            Repro::NotYet { contract } => (false, contract, None),
        };
        ToolAnswer::json(&FoundryReproducerOutput {
            success: true,
            test: a.test,
            falsified,
            file_name: format!("{contract}.t.sol"),
            contract,
            solidity,
        })
    }

    fn target(&self, _: TargetInput, _: &Gate) -> Result<ToolAnswer, ToolError> {
        ToolAnswer::json(&self.campaign.target_info())
    }

    fn status(&self, _: StatusInput, _: &Gate) -> Result<ToolAnswer, ToolError> {
        let s = &self.campaign;
        let report = s.report();
        ToolAnswer::json(&StatusOutput {
            run_id: report.run_id.clone(),
            contract: report.contract.clone(),
            mode: report.mode,
            running: !s.finished(),
            fuzzing: s.end_reason().is_none(),
            end_reason: s.end_reason(),
            workers: report.workers,
            calls: report.calls,
            calls_per_second: report.calls_per_sec,
            elapsed_seconds: (report.elapsed_secs * 10.0).round() / 10.0,
            line_coverage: report.coverage.line_percent,
            branch_coverage: report.coverage.branch_percent,
            corpus_size: report.corpus_calls,
            corpus_sequences: report.corpus_sequences,
            prioritized_functions: s.priorities().snapshot().signatures(),
            config: StatusConfig {
                test_mode: s.config().test_mode,
                test_limit: if s.config().test_limit == crate::config::UNLIMITED {
                    "unlimited".into()
                } else {
                    s.config().test_limit.to_string()
                },
                seq_len: s.config().seq_len,
                shrink_limit: s.config().shrink_limit.to_string(),
                seed: s.seed().to_string(),
                senders: s.config().senders.iter().map(lower).collect(),
                corpus_dir: s.layout().corpus_dir().display().to_string(),
                out_dir: s.layout().out_dir().display().to_string(),
            },
            tests: report
                .tests
                .into_iter()
                .map(|t| StatusTest {
                    name: t.name,
                    kind: t.kind,
                    status: t.status,
                    counterexample: t.sequence,
                    value: t.value,
                })
                .collect(),
            runs: s.journal().and_then(|j| j.runs().ok()).unwrap_or_default(),
            journal_dropped: s.journal().map_or(0, |j| j.dropped()),
            shared: s.shared(),
            fork: report.fork.clone(),
        })
    }
}
