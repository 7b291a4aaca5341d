//! Predicates on reached states: the value of a condition the code graph
//! cannot invert (a helper the harness computes, a struct in a mapping,
//! another contract's view), read concretely on the states the campaign
//! has reached, with the calls that changed it.
//!
//! A predicate is a call in the call syntax (`checkMembership(0x…, 1)`,
//! `markets(0)`, `getCash{to: 0x…}()`), run as a view after every call of
//! the newest corpus entries replayed from the deployed state (or of a
//! sequence given, as `run_sequence` runs it); its state changes are
//! discarded. Each predicate's answer counts the values it took over the
//! states read and, for each value change, the function of the call that
//! made it: "`isMember(a)` became true after `enterMarkets`, 14 times".

use super::Engine;
use crate::executor::{Executor, Outcome};
use crate::reference::{Produced, apply};
use crate::tx::{Holes, Tx, write_value};
use alloy_dyn_abi::FunctionExt;
use schemars::JsonSchema;
use serde::Serialize;
use std::collections::HashMap;
use std::time::Instant;

/// Predicates one request may read.
pub const MAX_PREDICATES: usize = 8;
/// Corpus entries one request may replay.
pub const MAX_ENTRIES: usize = 200;
/// Values and changes kept per predicate (most frequent first).
const KEPT: usize = 8;

/// The values of each predicate over the states read.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PredicateReport {
    /// One per predicate, in the order given.
    pub predicates: Vec<PredicateValues>,
    /// States each predicate was read on (the deployed state, then the
    /// state after each call replayed).
    pub states_read: u64,
    /// Corpus entries replayed (newest first), of those asked for.
    pub entries_replayed: usize,
    pub entries_asked: usize,
    /// Whether every state asked for was read (false: the time budget
    /// ran out first, or the sequence stopped: see `stopped`).
    pub complete: bool,
    /// Along the sequence given: each state's values, in call order (the
    /// deployed state first, with no call).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<StepValues>,
    /// Why the sequence given stopped early (a `$n` that could not be
    /// filled).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PredicateValues {
    /// The predicate as resolved (call syntax).
    pub predicate: String,
    /// Its distinct values over the states read (a read that failed is
    /// its reason: `revert: …`, `reverted with Error(…)`), the most
    /// frequent first (at most 8).
    pub values: Vec<ValueCount>,
    /// How many distinct values it took.
    pub distinct: usize,
    /// Each change of value and the function of the call after which it
    /// changed, the most frequent first (at most 8).
    pub changed_by: Vec<Change>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct ValueCount {
    pub value: String,
    /// States it held in.
    pub states: u64,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Change {
    /// The function of the call that changed it (signature).
    pub function: String,
    pub from: String,
    pub to: String,
    /// Times this call changed it so.
    pub count: u64,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StepValues {
    /// The call run before the state was read (absent: the deployed state).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call: Option<String>,
    /// success, revert, panic or halt.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<String>,
    /// Each predicate's value in this state, in the order given.
    pub values: Vec<String>,
}

/// What to read the predicates on.
pub enum States {
    /// The newest `n` corpus entries, each replayed from the deployed state.
    Corpus(usize),
    /// One sequence (calls with their `?`s filled and their `$n`s).
    Sequence(Vec<(Tx, Holes)>),
}

/// Counts per predicate as states are read.
#[derive(Default)]
struct Tally {
    values: HashMap<String, u64>,
    changes: HashMap<(String, String, String), u64>,
}

/// Reads `predicates` on `states` within `deadline`.
pub fn evaluate(
    engine: &Engine,
    predicates: &[Tx],
    states: States,
    deadline: Instant,
) -> PredicateReport {
    let mut ex = engine.target.isolated_executor();
    ex.set_recording(false);
    let mut tallies: Vec<Tally> = predicates.iter().map(|_| Tally::default()).collect();
    let mut report = PredicateReport {
        predicates: Vec::new(),
        states_read: 0,
        entries_replayed: 0,
        entries_asked: 0,
        complete: true,
        steps: Vec::new(),
        stopped: None,
    };
    let mut read = |ex: &mut Executor,
                    report: &mut PredicateReport,
                    after: Option<&Tx>,
                    before: &mut Vec<String>| {
        let now: Vec<String> = predicates.iter().map(|p| value_of(engine, ex, p)).collect();
        for (k, v) in now.iter().enumerate() {
            *tallies[k].values.entry(v.clone()).or_default() += 1;
            if let Some(tx) = after
                && before.get(k).is_some_and(|b| b != v)
            {
                let key = (tx.signature(), before[k].clone(), v.clone());
                *tallies[k].changes.entry(key).or_default() += 1;
            }
        }
        report.states_read += 1;
        *before = now;
    };
    match states {
        States::Corpus(n) => {
            let entries: Vec<_> = engine.corpus.entries().rev().take(n).cloned().collect();
            report.entries_asked = entries.len();
            ex.reset();
            let mut deployed = Vec::new();
            read(&mut ex, &mut report, None, &mut deployed);
            'entries: for entry in entries {
                ex.reset();
                let mut before = deployed.clone();
                for tx in &entry.txs {
                    if Instant::now() >= deadline {
                        report.complete = false;
                        break 'entries;
                    }
                    ex.call(tx);
                    read(&mut ex, &mut report, Some(tx), &mut before);
                }
                report.entries_replayed += 1;
            }
        }
        States::Sequence(calls) => {
            ex.reset();
            let mut before = Vec::new();
            read(&mut ex, &mut report, None, &mut before);
            report.steps.push(StepValues {
                call: None,
                outcome: None,
                values: before.clone(),
            });
            let mut produced: Vec<Option<Produced>> = Vec::new();
            for (i, (tx, holes)) in calls.iter().enumerate() {
                if Instant::now() >= deadline {
                    report.complete = false;
                    break;
                }
                let mut tx = tx.clone();
                if let Err(why) = apply(&mut tx, holes, &produced) {
                    report.complete = false;
                    report.stopped = Some(format!("call {} was not run: {why}", i + 1));
                    break;
                }
                let r = ex.call(&tx);
                produced.push(r.produced(&tx));
                read(&mut ex, &mut report, Some(&tx), &mut before);
                report.steps.push(StepValues {
                    call: Some(engine.print_call(&tx)),
                    outcome: Some(r.outcome.word().into()),
                    values: before.clone(),
                });
            }
        }
    }
    report.predicates = predicates
        .iter()
        .zip(tallies)
        .map(|(p, t)| summarize(engine.print_call(p), t))
        .collect();
    report
}

/// A predicate's tally as its answer: the most frequent values and
/// changes first (ties by text, so that answers are stable).
fn summarize(predicate: String, t: Tally) -> PredicateValues {
    let distinct = t.values.len();
    let mut values: Vec<ValueCount> = t
        .values
        .into_iter()
        .map(|(value, states)| ValueCount { value, states })
        .collect();
    values.sort_by(|a, b| b.states.cmp(&a.states).then_with(|| a.value.cmp(&b.value)));
    values.truncate(KEPT);
    let mut changed_by: Vec<Change> = t
        .changes
        .into_iter()
        .map(|((function, from, to), count)| Change {
            function,
            from,
            to,
            count,
        })
        .collect();
    changed_by.sort_by(|a, b| {
        b.count
            .cmp(&a.count)
            .then_with(|| (&a.function, &a.from, &a.to).cmp(&(&b.function, &b.from, &b.to)))
    });
    changed_by.truncate(KEPT);
    PredicateValues {
        predicate,
        values,
        distinct,
        changed_by,
    }
}

/// `p` run as a view on the executor's state, its outputs printed (one
/// value, or a tuple of them), or why it reverted.
fn value_of(engine: &Engine, ex: &mut Executor, p: &Tx) -> String {
    let to = p.to.unwrap_or(engine.target.address);
    let r = ex.call_view_at(to, p.calldata().into(), p.sender);
    match &r.outcome {
        Outcome::Success { output } => match p.function.abi_decode_output(output) {
            Ok(values) => {
                let mut s = String::new();
                match values.as_slice() {
                    [one] => write_value(&mut s, one),
                    many => write_value(&mut s, &alloy_dyn_abi::DynSolValue::Tuple(many.to_vec())),
                }
                s
            }
            Err(_) => format!("undecodable: 0x{}", alloy_primitives::hex::encode(output)),
        },
        other => engine.target.errors.describe(other),
    }
}
