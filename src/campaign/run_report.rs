//! A sequence run once, described for the person or agent who asked: per
//! call the decoded return values, the decoded events (raw topics and data
//! where no ABI of the project knows them), the revert reason with custom
//! errors decoded, the panic code, gas, coverage gained and the tests it
//! breaks. The run itself is [`Oracle::dry_run`] on an isolated executor:
//! nothing of the campaign changes.

use super::Engine;
use super::oracle::{DryRun, DryStop, Oracle};
use crate::executor::Outcome;
use crate::tx::{Tx, write_value};
use alloy_dyn_abi::{DynSolValue, EventExt, FunctionExt, Specifier};
use alloy_json_abi::Event;
use alloy_primitives::{Address, B256, Log};
use schemars::JsonSchema;
use serde::Serialize;
use std::collections::HashMap;
use std::time::Instant;

/// A value with its name (empty when the ABI gives none) and type.
#[derive(Clone, Debug, Serialize, JsonSchema, PartialEq, Eq)]
pub struct NamedValue {
    pub name: String,
    /// Canonical ABI type.
    #[serde(rename = "type")]
    pub ty: String,
    /// In the call syntax (numbers in decimal, addresses in hex, tuples in
    /// parentheses, arrays in brackets).
    pub value: String,
}

/// One event a call emitted.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EventReport {
    /// Emitting contract (lowercase hex).
    pub address: String,
    /// Its name when it is one the campaign deployed.
    pub contract: Option<String>,
    /// Event name, when some ABI of the project declares its signature.
    pub name: Option<String>,
    /// Decoded arguments in declaration order (indexed dynamic values are
    /// their keccak256 hash, as the log holds them).
    pub args: Vec<NamedValue>,
    /// Raw topics, when the event could not be decoded (empty otherwise).
    pub topics: Vec<String>,
    /// Raw data, when the event could not be decoded.
    pub data: Option<String>,
}

/// One call of the run.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CallReport {
    /// The call as it ran (wildcards filled in).
    pub call: String,
    /// success, revert, panic or halt.
    pub outcome: String,
    /// Revert reason (custom errors decoded by the project's ABIs), panic
    /// code with its meaning, or why the EVM halted.
    pub reason: Option<String>,
    /// Decoded return values (empty when the call failed or returns nothing).
    pub returns: Vec<NamedValue>,
    pub events: Vec<EventReport>,
    pub gas_used: u64,
    /// Coverage points the call reached that the campaign has not.
    pub new_coverage_points: u32,
    /// Tests failing after the call.
    pub failing: Vec<String>,
}

/// The whole run.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SequenceReport {
    pub calls: Vec<CallReport>,
    /// Every test some call broke, in the order they first failed.
    pub falsified: Vec<String>,
    /// Whether every call ran (false: the time budget ran out first, a
    /// call's block time passed the window's end, or `stopped`).
    pub complete: bool,
    /// Why a call was not run: a `$n` reference it holds could not be
    /// filled (the call it reads failed, or emitted no such event).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
}

/// Runs `txs` once on an isolated executor from the deployed state and
/// describes every call. `start`/`end` bound the block time (a call whose
/// time would pass `end` is not run).
pub fn run(
    engine: &Engine,
    txs: &[Tx],
    holes: &[crate::tx::Holes],
    deadline: Instant,
    start: Option<u64>,
    end: Option<u64>,
) -> SequenceReport {
    let mut ex = engine.target.isolated_executor();
    let run = Oracle::new(engine, &mut ex).dry_run(txs, holes, deadline, start, end);
    describe(engine, &run)
}

/// The report of `run`, a dry run.
pub fn describe(engine: &Engine, run: &DryRun) -> SequenceReport {
    let abi = ProjectAbi::of(engine);
    let mut falsified: Vec<String> = Vec::new();
    let calls = run
        .steps
        .iter()
        .map(|step| {
            let tx = &step.call;
            let failing: Vec<String> = step
                .failing
                .iter()
                .filter_map(|id| engine.tests.case(*id).map(|c| c.name.clone()))
                .collect();
            for f in &failing {
                if !falsified.contains(f) {
                    falsified.push(f.clone());
                }
            }
            let outcome = &step.result.outcome;
            CallReport {
                call: engine.print_sequence(std::slice::from_ref(tx)).remove(0),
                outcome: outcome.word().into(),
                reason: (!outcome.is_success()).then(|| abi.errors.describe(outcome)),
                returns: returns(tx, outcome),
                events: step.result.logs.iter().map(|l| abi.event(l)).collect(),
                gas_used: step.result.gas_used,
                new_coverage_points: step.new_points,
                failing,
            }
        })
        .collect();
    SequenceReport {
        calls,
        falsified,
        complete: run.stop == DryStop::Complete,
        stopped: run.unbound.clone(),
    }
}

fn printed(v: &DynSolValue) -> String {
    let mut s = String::new();
    write_value(&mut s, v);
    s
}

fn returns(tx: &Tx, outcome: &Outcome) -> Vec<NamedValue> {
    let Outcome::Success { output } = outcome else {
        return Vec::new();
    };
    let Ok(values) = tx.function.abi_decode_output(output) else {
        return Vec::new();
    };
    named_values(&tx.function.outputs, &values)
}

/// `values` with the names and canonical types of `params` (a function's
/// inputs or outputs), printed in the call syntax.
pub fn named_values(params: &[alloy_json_abi::Param], values: &[DynSolValue]) -> Vec<NamedValue> {
    params
        .iter()
        .zip(values)
        .map(|(p, v)| NamedValue {
            name: p.name.clone(),
            ty: p.selector_type().into_owned(),
            value: printed(v),
        })
        .collect()
}

/// Every event and error the project's ABIs declare, by selector, and the
/// names of the deployed contracts.
struct ProjectAbi<'s> {
    events: HashMap<B256, Vec<&'s Event>>,
    errors: &'s crate::executor::errors::ErrorBook,
    names: HashMap<Address, &'s str>,
}

impl<'s> ProjectAbi<'s> {
    fn of(engine: &'s Engine) -> Self {
        let t = &engine.target;
        let mut events: HashMap<B256, Vec<&Event>> = HashMap::new();
        for c in &t.project.contracts {
            for e in c.abi.events().filter(|e| !e.anonymous) {
                let v = events.entry(e.selector()).or_default();
                if !v.iter().any(|k| k.inputs == e.inputs) {
                    v.push(e);
                }
            }
        }
        let mut names: HashMap<Address, &str> = HashMap::new();
        names.insert(t.address, &t.contract.name);
        for (n, a) in &t.predeployed {
            names.entry(*a).or_insert(n);
        }
        for c in t.others.iter() {
            names.entry(c.address).or_insert(&c.name);
        }
        ProjectAbi {
            events,
            errors: &t.errors,
            names,
        }
    }

    fn event(&self, log: &Log) -> EventReport {
        let topics = log.topics();
        let decoded = topics.first().and_then(|t0| {
            self.events.get(t0)?.iter().find_map(|e| {
                let d = e
                    .decode_log_parts(topics.iter().copied(), &log.data.data)
                    .ok()?;
                let (mut indexed, mut body) = (d.indexed.into_iter(), d.body.into_iter());
                let args = e
                    .inputs
                    .iter()
                    .map(|p| {
                        let v = if p.indexed {
                            indexed.next()
                        } else {
                            body.next()
                        }?;
                        let ty = p
                            .resolve()
                            .map(|t| t.sol_type_name().into_owned())
                            .unwrap_or_else(|_| p.ty.clone());
                        Some(NamedValue {
                            name: p.name.clone(),
                            ty,
                            value: printed(&v),
                        })
                    })
                    .collect::<Option<Vec<_>>>()?;
                Some((e.name.clone(), args))
            })
        });
        let (name, args, topics, data) = match decoded {
            Some((n, a)) => (Some(n), a, Vec::new(), None),
            None => (
                None,
                Vec::new(),
                topics.iter().map(|t| format!("{t}")).collect(),
                Some(format!("{}", log.data.data)),
            ),
        };
        EventReport {
            address: format!("{:#x}", log.address),
            contract: self.names.get(&log.address).map(|n| n.to_string()),
            name,
            args,
            topics,
            data,
        }
    }
}
