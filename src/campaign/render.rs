//! One event vocabulary, rendered as JSON in one place: the journal lines,
//! `read_logs`' `data` objects and the events family all come from
//! [`Renderer`].
//!
//! Workers never format JSON: they push a compact [`Event`] to the ring and
//! hand the same value to the disk writer, whose thread renders the journal
//! line (`persist::writer_loop` → [`Renderer::line`]). Tools render on their
//! own threads when they read. A rendering describes the store as it is when
//! rendered: a `PropertyFalsified` line written a few milliseconds after the
//! event may already show a shorter counterexample.

use super::properties::{FoundBy, TestStore};
use crate::appendvec::AppendVec;
use crate::corpus::{Corpus, CorpusEntry};
use crate::eventlog::{Event, Payload};
use crate::executor::Target;
use crate::ids::{EntryId, TestId};
use crate::tx::Tx;
use alloy_primitives::Address;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Arc;

/// Renders events and sequences of one campaign (cheap to share).
pub struct Renderer {
    run_id: String,
    target: Arc<Target>,
    default_sender: Address,
    tests: Arc<TestStore>,
    corpus: Arc<Corpus>,
    /// Free text events refer to (panic messages).
    notes: AppendVec<String>,
    /// Corpus entries' printed calls, made once on first request (entries
    /// never change; printing resolves every call against the ABI).
    printed: parking_lot::RwLock<HashMap<EntryId, Arc<[String]>>>,
}

impl Renderer {
    pub(crate) fn new(
        run_id: String,
        target: Arc<Target>,
        default_sender: Address,
        tests: Arc<TestStore>,
        corpus: Arc<Corpus>,
    ) -> Self {
        Renderer {
            run_id,
            target,
            default_sender,
            tests,
            corpus,
            notes: AppendVec::new(),
            printed: Default::default(),
        }
    }

    /// Keeps `text` for an event to refer to; returns its note number.
    pub(crate) fn note(&self, text: String) -> u64 {
        self.notes.push(text) as u64
    }

    /// One call in the project's call syntax (sender shown when it is not
    /// the default).
    pub fn call(&self, tx: &Tx) -> String {
        crate::parser::format_call(tx, self.target.abis(), Some(self.default_sender))
    }

    /// One call with `?` wildcards, printed.
    pub fn template(&self, tx: &Tx, holes: &crate::tx::Holes) -> String {
        crate::parser::format_template(tx, holes, self.target.abis(), Some(self.default_sender))
    }

    /// The printed calls of a sequence.
    pub fn sequence(&self, txs: &[Tx]) -> Vec<String> {
        txs.iter().map(|t| self.call(t)).collect()
    }

    /// The printed calls of corpus entry `entry`, printed once and shared.
    pub fn entry(&self, entry: &CorpusEntry) -> Arc<[String]> {
        if let Some(p) = self.printed.read().get(&entry.id) {
            return p.clone();
        }
        let p: Arc<[String]> = self.sequence(&entry.txs).into();
        self.printed.write().insert(entry.id, p.clone());
        p
    }

    pub(crate) fn test_name(&self, id: TestId) -> String {
        self.tests
            .case(id)
            .map(|c| c.name.clone())
            .unwrap_or_default()
    }

    /// The `data` object of an event (as `read_logs` answers it). Integers that
    /// can pass 2^53 (seeds) are decimal strings.
    pub fn data(&self, e: &Event) -> Value {
        match e.payload {
            Payload::WorkerStarted { seed } => json!({ "seed": seed.to_string() }),
            Payload::WorkerStopped {
                calls,
                sequences,
                reason,
            } => json!({ "calls": calls, "sequences": sequences, "reason": reason.as_str() }),
            Payload::TransactionExecuted {
                calls,
                reverts,
                sequences,
                gas_used,
                total_calls,
            } => json!({
                "calls": calls, "reverts": reverts, "sequences": sequences,
                "gasUsed": gas_used, "workerTotalCalls": total_calls,
                "aggregated": true
            }),
            Payload::CoverageIncreased {
                entry,
                new_points,
                total_points,
                calls,
            } => {
                let seq = self
                    .corpus
                    .get(entry)
                    .map(|e| self.entry(&e))
                    .unwrap_or_default();
                json!({
                    "corpusEntry": entry.0, "newPoints": new_points,
                    "totalPoints": total_points, "calls": calls, "sequence": &seq[..]
                })
            }
            Payload::PropertyFalsified {
                test,
                calls,
                gas_used,
            } => {
                let f = self.tests.falsified(test);
                // Who found it: a worker (the event's workerId), or the
                // campaign itself (the replay of a saved reproducer on
                // resume, or the check right after deployment), reported
                // under the campaign's own id, one past the last worker.
                let found_by = f.as_ref().map_or(FoundBy::Deployment, |f| f.found_by);
                json!({
                    "property": self.test_name(test),
                    "counterexample": f.as_ref().map(|f| self.sequence(f.sequence())).unwrap_or_default(),
                    "shrunk": f.as_ref().is_some_and(|f| f.shrink_done),
                    "reason": f.as_ref().map(|f| f.reason.clone()).unwrap_or_default(),
                    "originalCalls": calls,
                    "gasUsed": gas_used,
                    "foundBy": found_by.as_str(),
                })
            }
            Payload::TestShrunk {
                test,
                calls,
                steps,
                done,
            } => {
                let f = self.tests.falsified(test);
                json!({
                    "property": self.test_name(test), "calls": calls, "steps": steps, "done": done,
                    "counterexample": f.as_ref().map(|f| self.sequence(f.sequence())).unwrap_or_default(),
                })
            }
            Payload::InjectionExecuted {
                injection,
                executed,
                reverted,
                new_points,
                falsified,
            } => json!({
                "injection": injection.0, "executed": executed, "reverted": reverted,
                "newPoints": new_points, "falsified": falsified
            }),
            Payload::OptimizationImproved { test, value } => {
                let v = alloy_primitives::I256::from_raw(alloy_primitives::U256::from_limbs(value));
                json!({ "test": self.test_name(test), "value": v.to_string() })
            }
            Payload::InjectionSummary {
                injection,
                runs,
                executed,
                reverted,
                new_points,
                falsified,
                note,
            } => json!({
                "injection": injection.0, "runs": runs, "executed": executed,
                "reverted": reverted, "newPoints": new_points, "falsified": falsified,
                "values": self.notes.get(note as usize)
                    .and_then(|n| serde_json::from_str::<Value>(n).ok())
                    .unwrap_or_else(|| json!([])),
            }),
            Payload::WorkerPanicked { note } => json!({
                "message": self.notes.get(note as usize).cloned().unwrap_or_default()
            }),
        }
    }

    /// A whole event as JSON (a journal line; `read_logs` keeps a subset).
    pub fn json(&self, e: &Event) -> Value {
        json!({
            "runId": self.run_id,
            "seq": e.seq.0,
            "timestamp": super::rfc3339(e.timestamp_ms),
            "eventType": e.kind().as_str(),
            "workerId": e.worker.0,
            "data": self.data(e),
        })
    }

    /// The journal line of an event.
    pub fn line(&self, e: &Event) -> String {
        self.json(e).to_string()
    }
}

impl crate::journal::Render for Renderer {
    fn data(&self, e: &Event) -> Value {
        Renderer::data(self, e)
    }
    fn call(&self, tx: &Tx) -> String {
        Renderer::call(self, tx)
    }
    fn test_name(&self, test: TestId) -> String {
        Renderer::test_name(self, test)
    }
}
