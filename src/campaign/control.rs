//! The control handle: how an agent or an embedding program steers the
//! workers. Inject a sequence into every worker, change the priority set,
//! stop. Every command is appended to `{corpusDir}/mcp-commands.jsonl` with
//! its arguments and result, so a session can be replayed
//! (`rudder fuzz … --replay-commands FILE`).
//!
//! Nothing here waits for a worker: an injection is a channel send per
//! worker; workers pick it up between two calls.

use super::Engine;
use crate::command::{Clear, Command, CommandResult, Inject, Logged, Prioritize};
use crate::eventlog::now_ms;
use crate::ids::InjectionId;
use crate::parser::{CallDefaults, parse_txs};
use crate::priority::Priorities;
use crate::tx::{Holes, Tx};
use alloy_primitives::{Address, U256};
use crossbeam::channel::Sender;
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use thiserror::Error;

mod tally;
pub use tally::{DrawnValue, HoleValues, InjectionTally, TallySums};

/// Most calls one injection may carry (`inject_transaction`'s `maxItems`).
pub const MAX_INJECTED_CALLS: usize = 100;
/// Injections queued for one worker at most; past it an injection is refused
/// with [`ControlError::Busy`] and nothing is queued (backpressure).
pub const MAX_QUEUED_INJECTIONS: usize = 64;

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum ControlError {
    /// Bad input, naming the field and the value.
    #[error("{field}: {message}")]
    InvalidInput { field: String, message: String },
    /// The workers are behind: too many injections are queued.
    #[error(
        "{queued} injections are queued for a worker (the limit is {limit}); retry once they have run"
    )]
    Busy { queued: usize, limit: usize },
}

impl ControlError {
    pub fn invalid(field: impl Into<String>, message: impl Into<String>) -> Self {
        ControlError::InvalidInput {
            field: field.into(),
            message: message.into(),
        }
    }
}

/// A sequence delivered to every worker.
#[derive(Debug)]
pub struct Injection {
    pub id: InjectionId,
    pub txs: Vec<Tx>,
    /// Where each call's `?`s are (parallel to `txs`; empty: all concrete).
    pub holes: Vec<Holes>,
    /// How many times each worker runs it (wildcards drawn anew each time).
    pub repeat: u32,
    pub requested_ms: u64,
    /// Its runs summed over the workers (see [`InjectionTally`]).
    pub tally: InjectionTally,
}

/// How many times one injection may ask to be run (`repeat`).
pub const MAX_REPEAT: u32 = 1000;

/// What an injection was handed to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InjectReceipt {
    pub id: InjectionId,
    pub calls: usize,
    pub workers: usize,
}

/// A cloneable handle on the campaign's control path.
#[derive(Clone)]
pub struct Control {
    engine: Arc<Engine>,
    /// What families keep beside the campaign.
    families: Arc<super::FamilyData>,
    workers: Arc<Vec<Sender<Arc<Injection>>>>,
    next_injection: Arc<AtomicU64>,
}

impl std::fmt::Debug for Control {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Control")
            .field("workers", &self.workers.len())
            .finish()
    }
}

impl Control {
    pub(crate) fn new(
        engine: Arc<Engine>,
        families: Arc<super::FamilyData>,
        workers: Vec<Sender<Arc<Injection>>>,
    ) -> Self {
        Control {
            engine,
            families,
            workers: Arc::new(workers),
            next_injection: Arc::new(AtomicU64::new(1)),
        }
    }

    /// What a tool family may read of the campaign.
    pub fn read(&self) -> super::CampaignRead {
        super::CampaignRead::new(self.engine.clone(), self.families.clone())
    }

    /// What a tool family may change: the steering commands.
    pub fn steer(&self) -> super::Steer {
        super::Steer::new(self.clone())
    }

    /// The state tool families keep in the campaign (graph, ETG, decisions).
    pub fn family_state(&self) -> super::FamilyState {
        super::FamilyState::new(self.families.clone())
    }

    /// Reads the corpus directory's new entries into the corpus (see
    /// [`Engine::reload_corpus`]).
    pub fn reload_corpus(&self, deadline: Option<std::time::Instant>) -> super::corpus_dir::Reload {
        self.engine.reload_corpus(deadline)
    }

    /// Adds a runtime spec as a test every worker checks (see
    /// [`Engine::add_spec`]).
    pub fn add_spec(
        &self,
        spec: super::spec::Spec,
    ) -> Result<crate::ids::TestId, super::SpecRefused> {
        self.engine.add_spec(spec)
    }

    /// What families keep beside the campaign (the code graph, the ETG,
    /// the decisions), for embedders and tests.
    pub fn families(&self) -> &Arc<super::FamilyData> {
        &self.families
    }

    pub(crate) fn engine(&self) -> &Arc<Engine> {
        &self.engine
    }

    /// Parses Solidity-style calls (one per string, each resolved against the
    /// target's ABI) and injects them as one sequence. `sender` and `value`
    /// apply to calls that do not say otherwise (`f{from: …, value: …}(…)`).
    pub fn inject_calls(
        &self,
        calls: &[String],
        sender: Option<Address>,
        value: U256,
    ) -> Result<InjectReceipt, ControlError> {
        self.inject_calls_repeated(calls, sender, value, 1)
    }

    /// [`Control::inject_calls`] with `?` wildcards, run `repeat` times by
    /// every worker (each drawing the wildcards anew).
    pub fn inject_calls_repeated(
        &self,
        calls: &[String],
        sender: Option<Address>,
        value: U256,
        repeat: u32,
    ) -> Result<InjectReceipt, ControlError> {
        let templates = self
            .parse_templates(calls, sender, value)
            .inspect_err(|e| {
                if let ControlError::InvalidInput { field, .. } = e {
                    self.engine
                        .journal_rejection("inject_transaction", field, &e.to_string());
                }
            })?;
        self.inject_templates(templates, repeat)
    }

    /// Runs calls once from the deployed state on an isolated executor and
    /// describes every call (returns, events, reason, gas, coverage gained,
    /// tests broken); `?` wildcards are drawn from the campaign's dictionary.
    /// Nothing of the campaign changes.
    pub fn run_once(
        &self,
        calls: &[String],
        sender: Option<Address>,
        value: U256,
        deadline: std::time::Instant,
    ) -> Result<super::run_report::SequenceReport, ControlError> {
        let templates = self.parse_templates(calls, sender, value)?;
        let (txs, holes): (Vec<Tx>, Vec<Holes>) = self.drawn(templates).into_iter().unzip();
        Ok(super::run_report::run(
            &self.engine,
            &txs,
            &holes,
            deadline,
            None,
            None,
        ))
    }

    /// `templates` with each `?` drawn once from the campaign's dictionary
    /// (their `$n`s are filled as they run).
    fn drawn(&self, templates: Vec<(Tx, Holes)>) -> Vec<(Tx, Holes)> {
        use rand::SeedableRng;
        let s = &self.engine;
        let ctx = super::generate::GenContext::of(&s.config);
        let mut rng = rand::rngs::SmallRng::seed_from_u64(
            s.seed ^ self.next_injection.load(Ordering::Relaxed) ^ now_ms(),
        );
        templates
            .into_iter()
            .map(|(t, h)| {
                if h.is_empty() {
                    (t, h)
                } else {
                    (
                        super::generate::fill_holes(&mut rng, &s.dictionary, &ctx, &t, &h),
                        h,
                    )
                }
            })
            .collect()
    }

    /// Reads `predicates` (one view call each, to the target or, with `to`,
    /// any deployed contract of the project) after every call of the
    /// newest `entries` corpus entries, or of `sequence` when given (see
    /// [`super::predicates`]). Nothing of the campaign changes.
    pub fn evaluate_predicates(
        &self,
        predicates: &[String],
        sequence: Option<&[String]>,
        entries: usize,
        deadline: std::time::Instant,
    ) -> Result<super::predicates::PredicateReport, ControlError> {
        use super::predicates::{MAX_ENTRIES, MAX_PREDICATES, States};
        if predicates.is_empty() || predicates.len() > MAX_PREDICATES {
            return Err(ControlError::invalid(
                "predicates",
                format!(
                    "has {} predicates; give 1 to {MAX_PREDICATES}",
                    predicates.len()
                ),
            ));
        }
        if !(1..=MAX_ENTRIES).contains(&entries) {
            return Err(ControlError::invalid(
                "entries",
                format!("{entries}: between 1 and {MAX_ENTRIES}"),
            ));
        }
        let target = &self.engine.target;
        let defaults = CallDefaults {
            others: target.readable.clone(),
            ..self.defaults(None, U256::ZERO)
        };
        let mut parsed = Vec::with_capacity(predicates.len());
        for (i, text) in predicates.iter().enumerate() {
            let field = format!("predicates[{i}]");
            let mut calls = parse_txs(text, &target.functions, &defaults)
                .map_err(|e| ControlError::invalid(&field, format!("{text:?}: {e}")))?;
            if calls.len() != 1 {
                return Err(ControlError::invalid(
                    field,
                    format!("{text:?}: one call per predicate, not {}", calls.len()),
                ));
            }
            parsed.push(calls.remove(0));
        }
        let states = match sequence {
            Some(calls) => {
                States::Sequence(self.drawn(self.parse_templates(calls, None, U256::ZERO)?))
            }
            None => States::Corpus(entries),
        };
        Ok(super::predicates::evaluate(
            &self.engine,
            &parsed,
            states,
            deadline,
        ))
    }

    /// Parses and resolves calls that may hold `?` wildcards and `$n`
    /// references (checked against the earlier calls of the whole sequence).
    pub fn parse_templates(
        &self,
        calls: &[String],
        sender: Option<Address>,
        value: U256,
    ) -> Result<Vec<(Tx, Holes)>, ControlError> {
        let (mut out, owners) =
            self.parse_each(calls, sender, value, crate::parser::parse_template_calls)?;
        crate::reference::bind(&mut out, &self.engine.target.events()).map_err(|e| {
            let i = owners[e.call];
            ControlError::invalid(format!("sequence[{i}]"), format!("{:?}: {e}", calls[i]))
        })?;
        Ok(out)
    }

    /// Parses each call text with `parse` (under the caller's defaults),
    /// naming the one that fails as `sequence[i]`; with, for each call
    /// parsed, the index of the text it came from.
    fn parse_each<T, E: std::fmt::Display>(
        &self,
        calls: &[String],
        sender: Option<Address>,
        value: U256,
        parse: impl Fn(&str, &[Arc<alloy_json_abi::Function>], &CallDefaults) -> Result<Vec<T>, E>,
    ) -> Result<(Vec<T>, Vec<usize>), ControlError> {
        self.check_count(calls)?;
        let defaults = self.defaults(sender, value);
        let mut out = Vec::with_capacity(calls.len());
        let mut owners = Vec::with_capacity(calls.len());
        for (i, text) in calls.iter().enumerate() {
            let parsed = parse(text, &self.engine.target.functions, &defaults).map_err(|e| {
                ControlError::invalid(format!("sequence[{i}]"), format!("{text:?}: {e}"))
            })?;
            owners.resize(owners.len() + parsed.len(), i);
            out.extend(parsed);
        }
        Ok((out, owners))
    }

    fn check_count(&self, calls: &[String]) -> Result<(), ControlError> {
        if calls.is_empty() {
            return Err(ControlError::invalid("sequence", "needs at least one call"));
        }
        if calls.len() > MAX_INJECTED_CALLS {
            return Err(ControlError::invalid(
                "sequence",
                format!("has {} calls; at most {MAX_INJECTED_CALLS}", calls.len()),
            ));
        }
        Ok(())
    }

    fn defaults(&self, sender: Option<Address>, value: U256) -> CallDefaults {
        CallDefaults {
            sender: sender.unwrap_or(self.engine.config.senders[0]),
            value,
            others: self.engine.target.others.clone(),
        }
    }

    /// Parses and resolves calls without injecting them.
    pub fn parse_calls(
        &self,
        calls: &[String],
        sender: Option<Address>,
        value: U256,
    ) -> Result<Vec<Tx>, ControlError> {
        self.parse_each(calls, sender, value, parse_txs)
            .map(|(txs, _)| txs)
    }

    /// Sends `txs` to every worker; each runs it from the deployed state at
    /// its next call boundary. Logged to the command log.
    pub fn inject(&self, txs: Vec<Tx>) -> Result<InjectReceipt, ControlError> {
        self.inject_templates(txs.into_iter().map(|t| (t, Holes::default())).collect(), 1)
    }

    /// Sends calls with `?` wildcards to every worker, to run `repeat`
    /// times (1 to [`MAX_REPEAT`]), each run drawing the wildcards anew.
    pub fn inject_templates(
        &self,
        calls: Vec<(Tx, Holes)>,
        repeat: u32,
    ) -> Result<InjectReceipt, ControlError> {
        self.inject_templates_from(calls, repeat, None)
    }

    /// Runs an injection another node of a shared campaign was given
    /// (logged with `sharedFrom`, so this node does not share it back).
    pub(crate) fn inject_shared(
        &self,
        calls: &[String],
        repeat: u32,
        from: &str,
    ) -> Result<InjectReceipt, ControlError> {
        let templates = self.parse_templates(calls, None, U256::ZERO)?;
        self.inject_templates_from(templates, repeat, Some(from))
    }

    fn inject_templates_from(
        &self,
        calls: Vec<(Tx, Holes)>,
        repeat: u32,
        shared_from: Option<&str>,
    ) -> Result<InjectReceipt, ControlError> {
        let printed = self.engine.print_templates(&calls);
        let r = if (1..=MAX_REPEAT).contains(&repeat) {
            self.inject_unlogged(calls, repeat, &printed)
        } else {
            Err(ControlError::invalid(
                "repeat",
                format!("{repeat}: between 1 and {MAX_REPEAT}"),
            ))
        };
        let result = match &r {
            Ok(rc) => CommandResult::Injected {
                injection: rc.id.0,
                injected_count: rc.calls,
                workers: rc.workers,
            },
            Err(e) => CommandResult::Failed {
                error: e.to_string(),
            },
        };
        if let Err(e) = &r {
            let field = match e {
                ControlError::InvalidInput { field, .. } => field.as_str(),
                ControlError::Busy { .. } => "sequence",
            };
            self.engine
                .journal_rejection("inject_transaction", field, &e.to_string());
        }
        // The journal has the command already (before any worker could
        // report running it); the command log gets it now, durably.
        let command = Command::InjectTransaction(Inject {
            sequence: printed,
            repeat,
            shared_from: shared_from.map(str::to_string),
        });
        self.log_command_only(&Logged { command, result });
        r
    }

    fn inject_unlogged(
        &self,
        calls: Vec<(Tx, Holes)>,
        repeat: u32,
        printed: &[String],
    ) -> Result<InjectReceipt, ControlError> {
        let (txs, holes): (Vec<Tx>, Vec<Holes>) = calls.into_iter().unzip();
        if self.engine.stop.load(Ordering::Acquire) {
            let why = self
                .engine
                .end_reason()
                .map_or("stopped".to_string(), |r| format!("{r:?}"));
            return Err(ControlError::invalid(
                "sequence",
                format!("the campaign has stopped ({why}); no worker would run it"),
            ));
        }
        if txs.is_empty() {
            return Err(ControlError::invalid("sequence", "needs at least one call"));
        }
        if txs.len() > MAX_INJECTED_CALLS {
            return Err(ControlError::invalid(
                "sequence",
                format!(
                    "has {} calls; at most {MAX_INJECTED_CALLS} may be injected at once",
                    txs.len()
                ),
            ));
        }
        if let Some(queued) = self
            .workers
            .iter()
            .map(|w| w.len())
            .max()
            .filter(|&q| q >= MAX_QUEUED_INJECTIONS)
        {
            return Err(ControlError::Busy {
                queued,
                limit: MAX_QUEUED_INJECTIONS,
            });
        }
        let id = InjectionId(self.next_injection.fetch_add(1, Ordering::Relaxed));
        let calls = txs.len();
        self.engine
            .journal_send(|| crate::journal::Record::Command {
                ts_ms: now_ms(),
                logged: Logged {
                    command: Command::InjectTransaction(Inject {
                        sequence: printed.to_vec(),
                        repeat,
                        shared_from: None,
                    }),
                    result: CommandResult::Injected {
                        injection: id.0,
                        injected_count: calls,
                        workers: self.workers.len(),
                    },
                },
                injection: Some(id.0),
            });
        let holes = if holes.iter().all(Holes::is_empty) {
            Vec::new()
        } else {
            holes
        };
        let inj = Arc::new(Injection {
            id,
            txs,
            holes,
            repeat,
            requested_ms: now_ms(),
            tally: InjectionTally::new(self.workers.len()),
        });
        let mut delivered = 0;
        for w in self.workers.iter() {
            if w.send(inj.clone()).is_ok() {
                delivered += 1;
            } else if let Some(sums) = inj.tally.finish(&TallySums::default()) {
                // The other workers had all finished: the summary is ours.
                self.engine
                    .emit_injection_summary(self.engine.campaign_worker_id(), id, sums);
            }
        }
        Ok(InjectReceipt {
            id,
            calls,
            workers: delivered,
        })
    }

    /// The callable function with this canonical signature.
    pub fn resolve_signature(&self, signature: &str) -> Result<usize, ControlError> {
        let s = &self.engine;
        if let Some(i) = s
            .callable
            .iter()
            .position(|c| c.function.signature() == signature)
        {
            return Ok(i);
        }
        let name = signature.split('(').next().unwrap_or("");
        let bare = !signature.contains('(');
        if bare {
            let named: Vec<usize> = (0..s.callable.len())
                .filter(|&i| s.callable[i].function.name == name)
                .collect();
            if let [one] = named.as_slice() {
                return Ok(*one);
            }
        }
        let same_name: Vec<String> = s
            .callable
            .iter()
            .filter(|c| c.function.name == name)
            .map(|c| c.function.signature())
            .collect();
        let message = if same_name.is_empty() {
            let all: Vec<String> = s.callable.iter().map(|c| c.function.signature()).collect();
            format!(
                "{signature:?} is not a callable function of {}; callable: {}",
                s.target.contract.name,
                all.join(", ")
            )
        } else if bare {
            format!(
                "{name:?} names {} functions; give one signature: {}",
                same_name.len(),
                same_name.join(", ")
            )
        } else {
            format!(
                "{signature:?} does not match the parameter types of {name}; candidates: {}",
                same_name.join(", ")
            )
        };
        Err(ControlError::invalid("functionSignature", message))
    }

    /// Adds `weight` to a function's priority (adding it to the set).
    /// Logged to the command log.
    pub fn prioritize(
        &self,
        signature: &str,
        weight: u32,
    ) -> Result<Arc<Priorities>, ControlError> {
        let r = if weight == 0 {
            Err(ControlError::invalid("weight", "must be at least 1"))
        } else {
            self.resolve_signature(signature).map(|i| {
                let canonical = self.engine.callable[i].function.signature();
                self.engine.priorities.add(i, &canonical, weight)
            })
        };
        self.log_command(Logged {
            command: Command::PrioritizeFunction(Prioritize {
                function_signature: signature.to_string(),
                weight,
            }),
            result: match &r {
                Ok(p) => CommandResult::Prioritized {
                    prioritized_functions: p.signatures(),
                },
                Err(e) => CommandResult::Failed {
                    error: e.to_string(),
                },
            },
        });
        r
    }

    /// Empties the priority set; returns how many functions it held.
    /// Logged to the command log.
    pub fn clear_priorities(&self) -> usize {
        let n = self.engine.priorities.clear();
        self.log_command(Logged {
            command: Command::ClearPriorities(Clear {}),
            result: CommandResult::Cleared { cleared_count: n },
        });
        n
    }

    /// Replays a command log (`mcp-commands.jsonl`) into this campaign:
    /// every successful inject, prioritize and clear, in order. Returns how
    /// many commands were applied.
    pub fn replay_commands(&self, path: &std::path::Path) -> Result<usize, ControlError> {
        let at = |n: usize, e: &dyn std::fmt::Display| {
            ControlError::invalid(
                "replayCommands",
                format!("{} line {}: {e}", path.display(), n + 1),
            )
        };
        let text = std::fs::read_to_string(path).map_err(|e| {
            ControlError::invalid("replayCommands", format!("{}: {e}", path.display()))
        })?;
        let mut applied = 0;
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let v: Value =
                serde_json::from_str(line).map_err(|e| at(n, &format!("not JSON: {e}")))?;
            let Some(logged) = Logged::parse(&v).map_err(|e| at(n, &e))? else {
                continue; // not a command that steers the workers
            };
            if logged.result.failed() {
                continue; // it failed then; replaying it would fail again
            }
            match logged.command {
                Command::InjectTransaction(i) => {
                    self.inject_calls_repeated(&i.sequence, None, U256::ZERO, i.repeat)
                        .map_err(|e| at(n, &e))?;
                }
                Command::PrioritizeFunction(p) => {
                    self.prioritize(&p.function_signature, p.weight)
                        .map_err(|e| at(n, &e))?;
                }
                Command::ClearPriorities(_) => {
                    self.clear_priorities();
                }
            }
            applied += 1;
        }
        Ok(applied)
    }

    /// Asks the workers to stop.
    pub fn stop(&self) {
        self.engine.end(super::EndReason::Stopped);
    }

    /// Asks the workers to stop, saying why (`status.endReason`).
    pub fn stop_because(&self, reason: super::EndReason) {
        self.engine.end(reason);
    }

    /// Journals a tool call or injection refused for bad input (the ops
    /// family's `get_validation_errors` reads them).
    pub fn log_rejection(&self, tool: &str, field: &str, message: &str) {
        self.engine.journal_rejection(tool, field, message);
    }

    /// Appends one command to `{corpusDir}/mcp-commands.jsonl` (fsynced)
    /// and to the journal.
    fn log_command(&self, logged: Logged) {
        self.log_command_only(&logged);
        self.engine
            .journal_send(|| crate::journal::Record::Command {
                ts_ms: now_ms(),
                logged,
                injection: None,
            });
    }

    /// Appends one command to the command log only (not the journal).
    fn log_command_only(&self, logged: &Logged) {
        let mut line = json!({
            "timestamp": super::rfc3339(now_ms()),
            "runId": self.engine.run_id,
        });
        if let (Some(line), Value::Object(fields)) = (
            line.as_object_mut(),
            serde_json::to_value(logged).expect("commands serialize"),
        ) {
            line.extend(fields);
        }
        // Durable before the caller hears back: the disk writer appends and
        // syncs it (commands queued together share one sync).
        if !self
            .engine
            .append_durable(self.engine.layout().command_log(), line.to_string())
        {
            tracing::error!("the command log did not confirm a write within 5 s");
        }
    }
}
