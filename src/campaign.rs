//! The campaign: the target deployed once, N worker threads, the stores they
//! write ([`Stores`]), the control handle that steers them ([`Control`]), and
//! the final [`Report`].
//!
//! Lifecycle: [`Campaign::new`] loads and deploys the target and sets up the
//! stores; [`Campaign::start`] replays the corpus directory (resume) and spawns
//! the workers; [`Campaign::stop`] asks them to finish; [`Campaign::wait`]
//! joins them and returns the report. Everything a tool needs is reachable
//! from [`Campaign::stores`] and [`Campaign::control`].

pub mod control;
pub mod generate;
pub mod persist;
pub mod properties;
pub mod report;
mod shrink;
mod worker;

pub use control::{Control, ControlError, Injection};
pub use report::Report;

use crate::appendvec::AppendVec;
use crate::artifacts::{ArtifactError, Project};
use crate::config::{Config, TestMode};
use crate::corpus::{Corpus, CorpusEntry, Origin};
use crate::eventlog::{Event, EventKind, EventLog, Payload, StopReason, now_ms};
use crate::executor::{EvmSettings, ExecError, Target};
use crate::ids::{EntryId, TestId, WorkerId};
use crate::priority::PrioritySet;
use crate::tx::{StoredTx, Tx};
use generate::{Callable, Dictionary};
use persist::{StoredEntry, StoredReproducer, WriteJob, Writer};
use properties::{TestCase, TestKind, TestStore};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::Instant;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum CampaignError {
    #[error(transparent)]
    Artifact(#[from] ArtifactError),
    #[error(transparent)]
    Exec(#[from] ExecError),
    #[error("{0}")]
    Setup(String),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Per-worker counters.
#[derive(Debug, Default)]
pub struct WorkerStats {
    pub calls: AtomicU64,
    pub sequences: AtomicU64,
    pub injections: AtomicU64,
    pub running: AtomicBool,
}

/// Per-function counters (indexed like [`Stores::callable`]).
#[derive(Debug, Default)]
pub struct FunctionStats {
    /// Calls drawn by the generator (through the priority sampler).
    pub generated: AtomicU64,
    /// Calls executed, whatever their origin (generated, mutated, injected).
    pub calls: AtomicU64,
    pub reverts: AtomicU64,
}

/// Campaign-wide counters.
#[derive(Debug, Default)]
pub struct Stats {
    pub calls: AtomicU64,
    /// One per worker, then one for the campaign itself.
    pub workers: Vec<WorkerStats>,
    pub functions: Vec<FunctionStats>,
}

/// Everything the workers write and the tools read.
pub struct Stores {
    pub config: Config,
    pub target: Arc<Target>,
    /// The functions workers call; priority indices point into this.
    pub callable: Vec<Callable>,
    pub events: Arc<EventLog>,
    pub corpus: Arc<Corpus>,
    pub priorities: Arc<PrioritySet>,
    pub tests: Arc<TestStore>,
    /// Free text referenced by events (panic messages).
    pub notes: AppendVec<String>,
    /// Corpus entries' printed calls, made once on a tool's first request
    /// (entries never change; printing resolves every call against the ABI).
    /// Only tools touch it.
    printed: parking_lot::RwLock<std::collections::HashMap<EntryId, Arc<[String]>>>,
    pub stats: Stats,
    pub stop: AtomicBool,
    pub started: Instant,
    pub started_ms: u64,
    pub seed: u64,
    pub run_id: String,
    pub out_dir: PathBuf,
    pub corpus_dir: PathBuf,
    pub journal_path: PathBuf,
    pub(crate) dictionary: Dictionary,
    selector_index: std::collections::HashMap<alloy_primitives::Selector, usize>,
    writer: Writer,
    workers: usize,
    finished: AtomicBool,
    /// Fault injection for tests: a worker whose bit is set panics at its
    /// next sequence (see [`Stores::inject_worker_panic`]).
    panic_requests: AtomicU64,
}

impl std::fmt::Debug for Stores {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stores")
            .field("run_id", &self.run_id)
            .field("target", &self.target)
            .finish()
    }
}

impl Stores {
    pub fn workers(&self) -> usize {
        self.workers
    }

    /// Whether the campaign has ended (every worker stopped).
    pub fn finished(&self) -> bool {
        self.finished.load(Ordering::Acquire)
    }

    /// The counters of `tx`'s function, if it is callable.
    pub(crate) fn function_stats(&self, tx: &Tx) -> Option<&FunctionStats> {
        self.selector_index
            .get(&tx.function.selector())
            .map(|&i| &self.stats.functions[i])
    }

    pub(crate) fn should_stop(&self) -> Option<StopReason> {
        if self.stop.load(Ordering::Acquire) {
            return Some(StopReason::Stopped);
        }
        if self.stats.calls.load(Ordering::Relaxed) >= self.config.test_limit {
            return Some(StopReason::TestLimit);
        }
        if let Some(t) = self.config.timeout
            && self.started.elapsed().as_secs() >= t
        {
            return Some(StopReason::Timeout);
        }
        None
    }

    /// Pushes an event to the ring and the journal.
    pub fn emit(&self, worker: WorkerId, payload: Payload) {
        let ts = now_ms();
        let seq = self.events.push_at(ts, worker, payload);
        let event = Event {
            seq: seq.unwrap_or(crate::ids::Seq(u64::MAX)),
            timestamp_ms: ts,
            worker,
            payload,
        };
        let line = self.event_json(&event);
        self.writer.send(WriteJob::Journal(line.to_string()));
    }

    /// The printed calls of a sequence (sender shown when not the default).
    pub fn print_sequence(&self, txs: &[Tx]) -> Vec<String> {
        txs.iter()
            .map(|t| {
                crate::parser::format_call(t, &self.target.functions, Some(self.config.senders[0]))
            })
            .collect()
    }

    /// The printed calls of corpus entry `entry`, printed once.
    pub fn print_entry(&self, entry: &CorpusEntry) -> Arc<[String]> {
        if let Some(p) = self.printed.read().get(&entry.id) {
            return p.clone();
        }
        let p: Arc<[String]> = self.print_sequence(&entry.txs).into();
        self.printed.write().insert(entry.id, p.clone());
        p
    }

    /// The `data` object of an event (seed 002 `read_logs`).
    pub fn event_data(&self, e: &Event) -> Value {
        let test_name = |id: TestId| {
            self.tests
                .case(id)
                .map(|c| c.name.clone())
                .unwrap_or_default()
        };
        match e.payload {
            Payload::WorkerStarted { seed } => json!({ "seed": seed }),
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
                    .map(|e| self.print_entry(&e))
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
                json!({
                    "property": test_name(test),
                    "counterexample": f.as_ref().map(|f| self.print_sequence(f.sequence())).unwrap_or_default(),
                    "shrunk": f.as_ref().is_some_and(|f| f.shrink_done),
                    "reason": f.as_ref().map(|f| f.reason.clone()).unwrap_or_default(),
                    "originalCalls": calls,
                    "gasUsed": gas_used,
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
                    "property": test_name(test), "calls": calls, "steps": steps, "done": done,
                    "counterexample": f.as_ref().map(|f| self.print_sequence(f.sequence())).unwrap_or_default(),
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
                json!({ "test": test_name(test), "value": v.to_string() })
            }
            Payload::WorkerPanicked { note } => json!({
                "message": self.notes.get(note as usize).cloned().unwrap_or_default()
            }),
        }
    }

    /// A whole event as JSON (journal line; `read_logs` keeps a subset).
    pub fn event_json(&self, e: &Event) -> Value {
        json!({
            "runId": self.run_id,
            "seq": e.seq.0,
            "timestamp": rfc3339(e.timestamp_ms),
            "eventType": e.kind().as_str(),
            "workerId": e.worker.0,
            "data": self.event_data(e),
        })
    }

    pub(crate) fn add_corpus(
        &self,
        worker: Option<WorkerId>,
        origin: Origin,
        new_points: u32,
        txs: Vec<Tx>,
        gas: Vec<u64>,
    ) -> Arc<CorpusEntry> {
        let stored = StoredEntry {
            origin,
            new_points,
            txs: txs
                .iter()
                .zip(gas.iter())
                .map(|(t, g)| StoredTx::from_tx(t, Some(*g)))
                .collect(),
        };
        let name = format!("{}.json", persist::sequence_hash(&txs));
        let entry = self.corpus.add(worker, origin, new_points, txs, gas);
        if origin != Origin::Replayed
            && let Ok(bytes) = serde_json::to_vec_pretty(&stored)
        {
            self.writer.send(WriteJob::File(
                self.corpus_dir.join("coverage").join(name),
                bytes,
            ));
        }
        entry
    }

    pub(crate) fn persist_reproducer(&self, id: TestId) {
        let (Some(case), Some(f)) = (self.tests.case(id), self.tests.falsified(id)) else {
            return;
        };
        let stored = StoredReproducer {
            test: case.name.clone(),
            kind: case.kind,
            reason: f.reason.clone(),
            original: f
                .original
                .iter()
                .map(|t| StoredTx::from_tx(t, None))
                .collect(),
            shrunk: f
                .shrunk
                .iter()
                .map(|t| StoredTx::from_tx(t, None))
                .collect(),
            shrink_done: f.shrink_done,
        };
        if let Ok(bytes) = serde_json::to_vec_pretty(&stored) {
            self.writer.send(WriteJob::File(
                self.corpus_dir
                    .join("reproducers")
                    .join(format!("{}.json", persist::file_stem(&case.name))),
                bytes,
            ));
        }
    }

    pub(crate) fn persist_optimum(&self, id: TestId) {
        let (Some(case), Some(o)) = (self.tests.case(id), self.tests.optimum(id)) else {
            return;
        };
        let stored = json!({
            "test": case.name,
            "value": o.value.to_string(),
            "sequence": o.sequence.iter().map(|t| StoredTx::from_tx(t, None)).collect::<Vec<_>>(),
        });
        self.writer.send(WriteJob::File(
            self.corpus_dir
                .join("optimization")
                .join(format!("{}.json", persist::file_stem(&case.name))),
            stored.to_string().into_bytes(),
        ));
    }

    /// Test hook: makes worker `worker` panic at its next sequence, to check
    /// that a panicking worker is reported and restarted while the others go
    /// on. Costs the workers one relaxed load per sequence.
    #[doc(hidden)]
    pub fn inject_worker_panic(&self, worker: usize) {
        self.panic_requests
            .fetch_or(1u64 << (worker % 64), Ordering::AcqRel);
    }

    /// Whether worker `worker` was asked to panic (clears the request).
    pub(crate) fn take_panic_request(&self, worker: usize) -> bool {
        let bit = 1u64 << (worker % 64);
        self.panic_requests.load(Ordering::Relaxed) & bit != 0
            && self.panic_requests.fetch_and(!bit, Ordering::AcqRel) & bit != 0
    }

    /// Records a falsification found outside the workers (reloaded from the
    /// corpus directory, or true right after deployment): shrinking done,
    /// persisted when `persist`, reported as a `PropertyFalsified` event.
    pub(crate) fn settle_falsified(
        &self,
        case: &TestCase,
        reason: String,
        original: Vec<Tx>,
        shrunk: Vec<Tx>,
        shrink_steps: u64,
        persist: bool,
    ) {
        let calls = if shrunk.is_empty() {
            original.len()
        } else {
            shrunk.len()
        } as u32;
        self.tests.claim(case.id);
        self.tests.set_falsified(
            case.id,
            properties::Falsification {
                worker: None,
                found_ms: now_ms(),
                reason,
                original,
                shrunk,
                shrink_steps,
                shrink_done: true,
                gas_used: 0,
            },
        );
        if persist {
            self.persist_reproducer(case.id);
        }
        self.emit(
            WorkerId(self.workers as u32),
            Payload::PropertyFalsified {
                test: case.id,
                calls,
                gas_used: 0,
            },
        );
    }

    /// The folder exports (LCOV from `dump_lcov`) are written to.
    pub fn exports_dir(&self) -> PathBuf {
        self.out_dir.join("exports")
    }

    /// Where an export named `requested` goes (see [`persist::export_path`]):
    /// inside [`Self::exports_dir`], never over the corpus, reproducers,
    /// journals or the command log.
    pub fn export_path(&self, requested: &str) -> Result<PathBuf, persist::ExportError> {
        let journal_dir = self.journal_path.parent().unwrap_or(&self.out_dir);
        persist::export_path(
            &self.exports_dir(),
            requested,
            &[&self.corpus_dir, journal_dir],
        )
    }

    /// Appends `line` to `path` and waits until it is synced to disk.
    pub(crate) fn append_durable(&self, path: PathBuf, line: String) -> bool {
        self.writer
            .append_durable(path, line, std::time::Duration::from_secs(5))
    }

    /// Waits until everything sent to disk so far is written and synced.
    pub fn flush(&self) {
        self.writer.flush();
    }
}

/// RFC 3339 in UTC with milliseconds and `Z`.
pub fn rfc3339(ms: u64) -> String {
    humantime::format_rfc3339_millis(std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms))
        .to_string()
}

/// The tests of `mode` found in `functions`.
fn discover_tests(
    config: &Config,
    functions: &[Arc<alloy_json_abi::Function>],
    callable: &[Callable],
) -> Vec<TestCase> {
    let returns = |f: &alloy_json_abi::Function, ty: &str| {
        f.inputs.is_empty() && f.outputs.len() == 1 && f.outputs[0].ty == ty
    };
    let opt_prefix = format!("{}opt_", config.prefix);
    let mut cases = Vec::new();
    let mut push = |kind, name: String, function: Arc<alloy_json_abi::Function>| {
        cases.push(TestCase {
            id: TestId(cases.len() as u32),
            kind,
            name,
            function,
        })
    };
    match config.test_mode {
        TestMode::Property => {
            for f in functions {
                if f.name.starts_with(&config.prefix)
                    && !f.name.starts_with(&opt_prefix)
                    && returns(f, "bool")
                {
                    push(TestKind::Property, f.name.clone(), f.clone());
                }
            }
        }
        TestMode::Assertion | TestMode::Overflow => {
            let kind = if config.test_mode == TestMode::Overflow {
                TestKind::Overflow
            } else {
                TestKind::Assertion
            };
            for c in callable {
                push(kind, c.function.signature(), c.function.clone());
            }
        }
        TestMode::Optimization => {
            for f in functions {
                if f.name.starts_with(&opt_prefix) && returns(f, "int256") {
                    push(TestKind::Optimization, f.name.clone(), f.clone());
                }
            }
        }
        TestMode::Exploration => {}
    }
    cases
}

/// Puts the calling thread (a worker) behind the control plane: nice +10 and
/// `SCHED_BATCH` on Linux, so a tool call that wakes up gets a core at once
/// even when every core runs a worker. Failures are ignored (best effort).
fn lower_this_threads_priority() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: both calls only read the integers and the struct passed by
        // value or by a pointer to a local that outlives the call; they
        // change the scheduling of the calling thread alone (tid from
        // gettid, pid 0 = the calling thread for sched_setscheduler).
        unsafe {
            let tid = libc::gettid();
            libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, 10);
            let param = libc::sched_param { sched_priority: 0 };
            libc::sched_setscheduler(0, libc::SCHED_BATCH, &param);
        }
    }
}

/// How many times a panicking worker is restarted before it stays down.
pub const MAX_RESTARTS: u32 = 8;

/// A running (or finished) campaign.
pub struct Campaign {
    stores: Arc<Stores>,
    control: Control,
    receivers: Vec<crossbeam::channel::Receiver<Arc<Injection>>>,
    handles: Vec<JoinHandle<()>>,
    /// Warnings to show the user (unused config keys, skipped corpus files).
    pub warnings: Vec<String>,
}

impl Campaign {
    /// Loads `target` (see [`Project::load`]) and sets the campaign up.
    pub fn new(
        target: &Path,
        contract: Option<&str>,
        config: Config,
        out_dir: Option<PathBuf>,
    ) -> Result<Campaign, CampaignError> {
        let project = Arc::new(Project::load(target)?);
        let c = project.contract(contract)?.clone();
        Self::from_project(project, &c, config, out_dir)
    }

    /// Sets up a campaign on `contract` of an already loaded project.
    pub fn from_project(
        project: Arc<Project>,
        contract: &crate::artifacts::Contract,
        config: Config,
        out_dir: Option<PathBuf>,
    ) -> Result<Campaign, CampaignError> {
        if config.senders.is_empty() {
            return Err(CampaignError::Setup("at least one sender is needed".into()));
        }
        let workers = config.worker_count().max(1);
        config
            .validate()
            .map_err(|e| CampaignError::Setup(e.to_string()))?;
        let settings = EvmSettings {
            deployer: config.deployer,
            senders: config.senders.clone(),
            contract_addr: config.contract_addr,
            balance: config.balance_addr,
            balance_contract: config.balance_contract,
            gas_limit: config.test_max_gas,
            prop_gas_limit: config.prop_max_gas,
            code_size: config.code_size,
            deploy_contracts: config.deploy_contracts.clone(),
            deploy_bytecodes: config.deploy_bytecodes.clone(),
            allow_ffi: config.allow_ffi,
            ..EvmSettings::default()
        };
        let target = Arc::new(Target::deploy(
            project.clone(),
            contract,
            settings,
            workers,
        )?);
        let opt_prefix = format!("{}opt_", config.prefix);
        let callable: Vec<Callable> = target
            .functions
            .iter()
            .filter(|f| !f.name.starts_with(&config.prefix) && !f.name.starts_with(&opt_prefix))
            .filter(|f| {
                use alloy_json_abi::StateMutability::{Pure, View};
                !(config.exclude_view_pure && matches!(f.state_mutability, View | Pure))
            })
            .filter(|f| config.function_allowed(&f.name, &f.signature()))
            .map(|f| Callable::new(f.clone()).map_err(CampaignError::Setup))
            .collect::<Result<_, _>>()?;
        let tests = discover_tests(&config, &target.functions, &callable);
        let mut project_warnings = project.warnings.clone();
        if project.optimized {
            project_warnings.push(
                "the target was compiled with the optimizer: line and branch coverage are approximate (merged blocks keep one source location)"
                    .into(),
            );
        }
        let out_dir = out_dir.unwrap_or_else(|| PathBuf::from("rudder-out").join(&contract.name));
        let corpus_dir = config
            .corpus_dir
            .clone()
            .unwrap_or_else(|| out_dir.join("corpus"));
        let seed = config.seed.unwrap_or_else(|| {
            let t = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(0);
            t ^ (std::process::id() as u64).rotate_left(32)
        });
        let started_ms = now_ms();
        let run_id = format!(
            "{}-{:04x}",
            rfc3339(started_ms).replace([':', '-'], "").replace('.', ""),
            seed as u16
        );
        let journal_path = out_dir.join("journal").join(format!("run-{run_id}.jsonl"));
        // A corpus directory that cannot be written is an error now, before
        // any work whose results would be lost.
        persist::probe_writable(&corpus_dir).map_err(|source| CampaignError::Io {
            path: corpus_dir.clone(),
            source,
        })?;
        // The writer thread ends when the last `Writer` (owned by the stores)
        // is dropped; nothing joins it.
        let (writer, _writer_thread) =
            Writer::start(journal_path.clone()).map_err(|source| CampaignError::Io {
                path: journal_path.clone(),
                source,
            })?;
        let mut addresses = config.senders.clone();
        addresses.extend([
            config.deployer,
            target.address,
            alloy_primitives::Address::ZERO,
        ]);
        for a in &target.deployed_contracts {
            if !addresses.contains(a) {
                addresses.push(*a);
            }
        }
        let sources: Vec<&str> = project
            .sources
            .iter()
            .filter_map(|s| s.text.as_deref())
            .collect();
        let mut dictionary = Dictionary::mine(
            &[&contract.runtime_code, &contract.creation_code],
            &sources,
            addresses,
        );
        // The block the sequences start from: contracts compare against it.
        dictionary.add_constants([
            alloy_primitives::U256::from(target.settings.timestamp),
            alloy_primitives::U256::from(target.settings.block_number),
        ]);
        let stats = Stats {
            workers: (0..=workers).map(|_| WorkerStats::default()).collect(),
            functions: callable.iter().map(|_| FunctionStats::default()).collect(),
            ..Default::default()
        };
        let selector_index = callable
            .iter()
            .enumerate()
            .map(|(i, c)| (c.function.selector(), i))
            .collect();
        let stores = Arc::new(Stores {
            callable,
            // A lane per worker, one for the control plane's id and a spare:
            // pushes never meet (see the eventlog module doc).
            events: Arc::new(EventLog::with_lanes(
                crate::eventlog::DEFAULT_CAPACITY,
                workers + 2,
            )),
            corpus: Arc::new(Corpus::new()),
            priorities: Arc::new(PrioritySet::new()),
            tests: Arc::new(TestStore::new(tests)),
            notes: AppendVec::new(),
            printed: Default::default(),
            stats,
            stop: AtomicBool::new(false),
            started: Instant::now(),
            started_ms,
            seed,
            run_id,
            out_dir,
            corpus_dir,
            journal_path,
            dictionary,
            selector_index,
            writer,
            workers,
            finished: AtomicBool::new(false),
            panic_requests: AtomicU64::new(0),
            target,
            config,
        });
        let (senders, receivers): (Vec<_>, Vec<_>) = (0..workers)
            .map(|_| crossbeam::channel::unbounded())
            .unzip();
        let control = Control::new(stores.clone(), senders);
        Ok(Campaign {
            stores,
            control,
            receivers,
            handles: Vec::new(),
            warnings: project_warnings,
        })
    }

    pub fn stores(&self) -> &Arc<Stores> {
        &self.stores
    }

    pub fn control(&self) -> Control {
        self.control.clone()
    }

    /// Replays the corpus directory, then spawns the workers.
    pub fn start(&mut self) -> Result<(), CampaignError> {
        if !self.handles.is_empty() {
            return Ok(());
        }
        self.resume();
        let receivers = std::mem::take(&mut self.receivers);
        let running = Arc::new(AtomicU64::new(receivers.len() as u64));
        for (i, rx) in receivers.into_iter().enumerate() {
            let stores = self.stores.clone();
            let running = running.clone();
            let id = WorkerId(i as u32);
            let handle = std::thread::Builder::new()
                .name(format!("rudder-worker-{i}"))
                .spawn(move || {
                    if stores.config.yield_to_control_plane {
                        lower_this_threads_priority();
                    }
                    stores.stats.workers[i]
                        .running
                        .store(true, Ordering::Release);
                    // A worker that panics is reported and started again
                    // (fresh EVM, same channel) while the others go on; after
                    // MAX_RESTARTS panics it stays down.
                    let mut restarts = 0;
                    let reason = loop {
                        let rx = rx.clone();
                        let outcome =
                            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                                let mut w = worker::Worker::new(stores.clone(), id, rx);
                                w.run()
                            }));
                        match outcome {
                            Ok(reason) => break reason,
                            Err(panic) => {
                                let msg = panic
                                    .downcast_ref::<String>()
                                    .cloned()
                                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                                    .unwrap_or_else(|| "panic".into());
                                tracing::error!("worker {i} panicked: {msg}");
                                let note = stores.notes.push(msg) as u64;
                                stores.emit(id, Payload::WorkerPanicked { note });
                                restarts += 1;
                                if restarts > MAX_RESTARTS || stores.stop.load(Ordering::Acquire) {
                                    break StopReason::Panicked;
                                }
                            }
                        }
                    };
                    let calls = stores.stats.workers[i].calls.load(Ordering::Relaxed);
                    let sequences = stores.stats.workers[i].sequences.load(Ordering::Relaxed);
                    stores.emit(
                        id,
                        Payload::WorkerStopped {
                            calls,
                            sequences,
                            reason,
                        },
                    );
                    stores.stats.workers[i]
                        .running
                        .store(false, Ordering::Release);
                    if running.fetch_sub(1, Ordering::AcqRel) == 1 {
                        stores.finished.store(true, Ordering::Release);
                    }
                })
                .map_err(|source| CampaignError::Io {
                    path: PathBuf::from("<thread>"),
                    source,
                })?;
            self.handles.push(handle);
        }
        Ok(())
    }

    /// Reloads corpus entries and falsified tests from the corpus directory.
    fn resume(&mut self) {
        let s = self.stores.clone();
        let functions = &s.target.functions;
        let row = s.workers;
        let (_tx, rx) = crossbeam::channel::unbounded();
        let mut w = worker::Worker::new(s.clone(), WorkerId(row as u32), rx);
        let mut files: Vec<PathBuf> = std::fs::read_dir(s.corpus_dir.join("coverage"))
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        files.sort();
        for p in files {
            let parsed = std::fs::read(&p)
                .ok()
                .and_then(|b| serde_json::from_slice::<StoredEntry>(&b).ok());
            let Some(stored) = parsed else {
                self.warnings
                    .push(format!("skipped unreadable corpus file {}", p.display()));
                continue;
            };
            let txs: Result<Vec<Tx>, String> =
                stored.txs.iter().map(|t| t.to_tx(functions)).collect();
            match txs {
                Ok(txs) => {
                    let new = w.replay_for_coverage(&txs);
                    let gas = stored.txs.iter().map(|t| t.gas_used.unwrap_or(0)).collect();
                    s.add_corpus(None, Origin::Replayed, new, txs, gas);
                }
                Err(e) => self
                    .warnings
                    .push(format!("skipped corpus file {}: {e}", p.display())),
            }
        }
        for case in s.tests.cases() {
            let p = s
                .corpus_dir
                .join("reproducers")
                .join(format!("{}.json", persist::file_stem(&case.name)));
            let Some(stored) = std::fs::read(&p)
                .ok()
                .and_then(|b| serde_json::from_slice::<StoredReproducer>(&b).ok())
            else {
                continue;
            };
            let load = |v: &[StoredTx]| -> Result<Vec<Tx>, String> {
                v.iter().map(|t| t.to_tx(functions)).collect()
            };
            let (Ok(original), Ok(shrunk)) = (load(&stored.original), load(&stored.shrunk)) else {
                self.warnings
                    .push(format!("skipped reproducer {}: ABI changed", p.display()));
                continue;
            };
            let seq = if shrunk.is_empty() {
                &original
            } else {
                &shrunk
            };
            if w.fails(case, seq).is_none() {
                self.warnings.push(format!(
                    "reproducer {} no longer fails; the test is open again",
                    p.display()
                ));
                continue;
            }
            // A run killed while shrinking left `shrink_done: false`: finish
            // the shrinking now, from the best sequence it had saved.
            let (shrunk, shrink_steps) = if stored.shrink_done {
                (shrunk, 0)
            } else {
                let from = seq.clone();
                let (s2, steps) = shrink::shrink(&mut w, case, from);
                (s2, steps)
            };
            s.settle_falsified(
                case,
                stored.reason,
                original,
                shrunk,
                shrink_steps,
                !stored.shrink_done,
            );
        }
        // Properties must hold right after deployment too: a property that
        // is already false is falsified by the empty sequence (and a target
        // with nothing else to call is still checked once).
        if s.config.test_mode == TestMode::Property {
            w.ex.reset();
            for case in s.tests.cases() {
                if !s.tests.is_open(case.id) {
                    continue;
                }
                if let Some(reason) = w.property_fails(case) {
                    let reason = format!("{reason} right after deployment");
                    s.settle_falsified(case, reason, Vec::new(), Vec::new(), 0, true);
                }
            }
            w.ex.reset();
        }
        if s.tests.all_decided() && !s.config.keep_alive {
            s.stop.store(true, Ordering::Release);
        }
    }

    /// Shrinks each optimization test's best sequence (Echidna does too).
    fn shrink_optima(&self) {
        let s = &self.stores;
        if !s.tests.cases().any(|c| c.kind == TestKind::Optimization) {
            return;
        }
        let (_tx, rx) = crossbeam::channel::unbounded();
        let mut w = worker::Worker::new(s.clone(), WorkerId(s.workers as u32), rx);
        for case in s.tests.cases().filter(|c| c.kind == TestKind::Optimization) {
            w.shrink_optimum(case);
        }
    }

    /// Writes the reports `coverageFormats` asks for (LCOV) into
    /// `coverageDir` (default: the corpus directory), as Echidna does.
    fn write_coverage_reports(&self) {
        let s = &self.stores;
        if !s.config.coverage_formats.iter().any(|f| f == "lcov") {
            return;
        }
        let dir = s
            .config
            .coverage_dir
            .clone()
            .unwrap_or_else(|| s.corpus_dir.clone());
        let path = dir.join(format!("covered.{}.lcov", s.run_id));
        let text = s.target.coverage_report().lcov_text();
        if let Err(e) = persist::write_atomic(&path, text.as_bytes()) {
            tracing::error!("writing {}: {e}", path.display());
        }
    }

    /// Asks every worker to stop after its current call.
    pub fn stop(&self) {
        self.stores.stop.store(true, Ordering::Release);
    }

    pub fn is_finished(&self) -> bool {
        self.stores.finished()
    }

    /// Joins the workers, flushes the disk writer and returns the report.
    pub fn wait(mut self) -> Report {
        for h in self.handles.drain(..) {
            let _ = h.join();
        }
        self.stores.finished.store(true, Ordering::Release);
        self.shrink_optima();
        self.write_coverage_reports();
        self.stores.flush();
        Report::build(&self.stores)
    }

    /// The report as of now.
    pub fn report(&self) -> Report {
        Report::build(&self.stores)
    }

    /// Events of `kind` in the ring (a convenience for tests and embedders).
    pub fn events_of(&self, kind: EventKind) -> Vec<Event> {
        self.stores.events.snapshot(
            &crate::eventlog::Filter {
                kind: Some(kind),
                ..Default::default()
            },
            usize::MAX,
        )
    }
}

impl Drop for Campaign {
    fn drop(&mut self) {
        self.stop();
        for h in self.handles.drain(..) {
            let _ = h.join();
        }
        self.stores.flush();
    }
}
