//! The campaign: the target deployed once, N worker threads, the stores they
//! write ([`Engine`]), the control handle that steers them ([`Control`]), and
//! the final [`Report`].
//!
//! Lifecycle: [`Campaign::new`] loads and deploys the target and sets up the
//! stores; [`Campaign::start`] replays the corpus directory (resume) and spawns
//! the workers; [`Campaign::stop`] asks them to finish; [`Campaign::wait`]
//! joins them and returns the report. Everything a tool needs is reachable
//! from [`Campaign::read`], [`Campaign::families`] and [`Campaign::control`].

pub mod census;
pub mod check_cache;
pub mod control;
pub mod corpus_dir;
mod engine;
pub mod foundry_repro;
pub mod generate;
mod modes;
pub mod oracle;
pub mod persist;
pub mod ports;
pub mod predicates;
pub mod properties;
pub mod render;
pub mod report;
pub mod run_report;
mod setup;
pub mod sharing;
mod shrink;
pub mod signals;
pub mod spec;
mod stats;
pub mod target_info;
mod worker;

pub use control::{Control, ControlError, Injection};
use engine::load_specs;
pub use engine::{Engine, SpecRefused};
use modes::spec_case;
pub use oracle::{Goal, Oracle};
pub use persist::Layout;
pub use ports::{CampaignRead, FamilyData, FamilyState, Steer};
pub use render::Renderer;
pub use report::{Report, TestStatus};
use setup::*;
pub use stats::*;

use crate::artifacts::{ArtifactError, Project};
use crate::config::Config;
use crate::corpus::{Corpus, CorpusEntry, Origin};
use crate::eventlog::{Event, EventKind, EventLog, Payload, StopReason, now_ms};
use crate::executor::{EvmSettings, ExecError, Target};
use crate::ids::{TestId, WorkerId};
use crate::priority::PrioritySet;
use crate::tx::{StoredTx, Tx};
use crossbeam::utils::CachePadded;
use generate::{Callable, Dictionary};
use persist::{StoredEntry, StoredReproducer, WriteJob, Writer};
use properties::{TestCase, TestStore};
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

/// Calls a worker claims against `testLimit` at a time (`CallBudget` hands
/// them out).
pub const BUDGET_CHUNK: u64 = 64;

/// A worker's share of `testLimit`: it claims [`BUDGET_CHUNK`] calls at a
/// time from the campaign-wide grant (one shared `fetch_add` per chunk, not
/// per call). Grants are disjoint and never pass the limit, so the workers
/// together execute at most `testLimit` calls, and exactly that many when
/// they all run to the limit.
#[derive(Debug, Default)]
pub(crate) struct CallBudget {
    left: u64,
}

impl CallBudget {
    /// Takes one call from the budget; `false` once the limit is reached.
    pub(crate) fn take(&mut self, engine: &Engine) -> bool {
        if self.left == 0 {
            let limit = engine.config.test_limit;
            let prev = engine
                .stats
                .granted
                .fetch_add(BUDGET_CHUNK, Ordering::Relaxed);
            if prev >= limit {
                return false;
            }
            self.left = BUDGET_CHUNK.min(limit - prev);
        }
        self.left -= 1;
        true
    }

    /// Whether the limit is reached for this worker (no call left locally,
    /// and none left to claim).
    pub(crate) fn exhausted(&self, engine: &Engine) -> bool {
        self.left == 0 && engine.stats.granted.load(Ordering::Relaxed) >= engine.config.test_limit
    }
}

/// Why a campaign stopped generating calls (`status.endReason`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[repr(u8)]
pub enum EndReason {
    /// `testLimit` calls were made.
    TestLimit,
    /// `timeout` seconds passed.
    Timeout,
    /// A test was falsified and `stopOnFail` is set.
    StopOnFail,
    /// Every test was falsified (or solved) and nothing was left to hunt.
    AllTestsDecided,
    /// SIGINT or SIGTERM.
    Signal,
    /// The MCP client of `rudder mcp` disconnected.
    ClientLeft,
    /// Stopped by its owner (the library's `stop`, or `q` in the
    /// dashboard).
    Stopped,
}

impl EndReason {
    const ALL: [EndReason; 7] = [
        EndReason::TestLimit,
        EndReason::Timeout,
        EndReason::StopOnFail,
        EndReason::AllTestsDecided,
        EndReason::Signal,
        EndReason::ClientLeft,
        EndReason::Stopped,
    ];

    /// What it means, in words (the text report's `ended:` line).
    pub fn words(self) -> &'static str {
        match self {
            EndReason::TestLimit => "every call of the test limit was made",
            EndReason::Timeout => "the time limit passed",
            EndReason::StopOnFail => "a test was falsified and stopOnFail is set",
            EndReason::AllTestsDecided => "every test was decided: nothing was left to hunt",
            EndReason::Signal => "interrupted (SIGINT or SIGTERM)",
            EndReason::ClientLeft => "the MCP client disconnected",
            EndReason::Stopped => "stopped by its owner",
        }
    }

    /// The name `status.endReason` gives it.
    pub fn as_str(self) -> &'static str {
        match self {
            EndReason::TestLimit => "testLimit",
            EndReason::Timeout => "timeout",
            EndReason::StopOnFail => "stopOnFail",
            EndReason::AllTestsDecided => "allTestsDecided",
            EndReason::Signal => "signal",
            EndReason::ClientLeft => "clientLeft",
            EndReason::Stopped => "stopped",
        }
    }
}

pub use crate::eventlog::rfc3339;

/// Schedules the calling thread (a worker) as batch work (`SCHED_BATCH` on
/// Linux: the scheduler lets a waking interactive thread — a tool call —
/// preempt it, without taking CPU share from it), and with
/// [`WorkerPriority::Low`] also behind everything else (nice +10). Failures
/// are ignored (best effort).
fn set_worker_priority(priority: crate::config::WorkerPriority) {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: both calls only read the integers and the struct passed by
        // value or by a pointer to a local that outlives the call; they
        // change the scheduling of the calling thread alone (tid from
        // gettid, pid 0 = the calling thread for sched_setscheduler).
        unsafe {
            if priority == crate::config::WorkerPriority::Low {
                let tid = libc::gettid();
                libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, 10);
            }
            let param = libc::sched_param { sched_priority: 0 };
            libc::sched_setscheduler(0, libc::SCHED_BATCH, &param);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = priority;
}

/// How many times a panicking worker is restarted before it stays down.
pub const MAX_RESTARTS: u32 = 8;

/// A running (or finished) campaign.
pub struct Campaign {
    engine: Arc<Engine>,
    control: Control,
    receivers: Vec<crossbeam::channel::Receiver<Arc<Injection>>>,
    handles: Vec<JoinHandle<()>>,
    /// The thread syncing with the other nodes of a shared campaign.
    sync: Option<sharing::SyncThread>,
    /// Warnings to show the user (unused config keys, skipped corpus files).
    pub warnings: Vec<String>,
    /// The output directory held for this run (`Config::lock_out_dir`).
    _out_lock: Option<persist::OutDirLock>,
}

impl Campaign {
    /// Loads `target` (see [`Project::load`]) and sets the campaign up.
    pub fn new(
        target: &Path,
        contract: Option<&str>,
        config: Config,
        out_dir: Option<PathBuf>,
    ) -> Result<Campaign, CampaignError> {
        if let Some(solc) = &config.solc {
            crate::artifacts::solc::use_compiler(solc.clone());
        }
        let project = Arc::new(Project::load(target)?);
        // The config's target contract (a Medusa config's) when none is named.
        let contract = contract.or(config.target_contract.as_deref());
        let c = match contract {
            Some(_) => project.contract(contract)?,
            None => project.default_contract(Some(&config.prefix))?,
        }
        .clone();
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
        let (mut config, foundry, suite_notes) = suite_config(&project, contract, config)?;
        let mut settings = evm_settings(&config, foundry);
        fork(&config, &mut settings)?;
        let target = Arc::new(Target::deploy(
            project.clone(),
            contract,
            settings,
            workers,
        )?);
        if foundry {
            // The suite's targetSenders (less its excludeSenders).
            config.senders = target.settings.senders.clone();
            tracing::info!(
                "{}: a Foundry invariant suite; setUp() ran, calls go to {} contract(s): {}",
                contract.name,
                target.others.len(),
                target
                    .others
                    .iter()
                    .map(|c| c.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        let callable = callable_functions(&config, &target, foundry)?;
        let created = setup::created_callables(&config, &target)?;
        let (tests, test_warnings) = modes::discover(&config, &target.functions, &callable);
        let mut project_warnings = project.warnings.clone();
        project_warnings.extend(suite_notes);
        project_warnings.extend(test_warnings);
        // A filter entry that names nothing filters nothing: said, with
        // what it could have named.
        let named: Vec<(&str, String)> = target
            .functions
            .iter()
            .chain(target.others.iter().flat_map(|o| o.functions.iter()))
            .chain(
                target
                    .created_targets
                    .iter()
                    .flat_map(|t| t.functions.iter()),
            )
            .map(|f| (f.name.as_str(), f.signature()))
            .collect();
        let unmatched = config.unmatched_filters(&named);
        let mut all: Vec<&str> = named.iter().map(|(_, s)| s.as_str()).collect();
        all.sort_unstable();
        all.dedup();
        for entry in unmatched {
            project_warnings.push(format!(
                "filterFunctions entry {entry:?} names no function of the target, so it filters nothing (functions: {})",
                all.join(", ")
            ));
        }
        if project.optimized {
            project_warnings.push(
                "the target was compiled with the optimizer: line and branch coverage are approximate (merged blocks keep one source location)"
                    .into(),
            );
        }
        if config.keep_hunting && config.shared.is_none() {
            project_warnings.push(
                "keepHunting has no effect: the campaign is not shared (`shared`, --shared)".into(),
            );
        }
        let out_dir = out_dir.unwrap_or_else(|| PathBuf::from("rudder-out").join(&contract.name));
        let corpus_dir = config
            .corpus_dir
            .clone()
            .unwrap_or_else(|| persist::Layout::default_corpus_dir(&out_dir));
        if config.require_tests
            && tests.is_empty()
            && modes::of(config.test_mode).has_tests()
            && load_specs(&corpus_dir.join(persist::SPECS_FILE)).is_empty()
        {
            return Err(CampaignError::Setup(format!(
                "{} has no tests to check in {} mode: looked for properties ({p}* functions returning bool), \
                 Foundry invariants (invariant* functions of a suite with setUp()), assertions (--test-mode assertion: assert failures and AssertionFailed events in any function) \
                 and optimizations (--test-mode optimization: {p}* returning int256); choose the mode that matches the harness with \
                 --test-mode, or --test-mode exploration to fuzz for coverage alone",
                contract.name,
                config.test_mode.as_str(),
                p = config.prefix,
            )));
        }
        let (seed, started_ms, run_id) = run_identity(&config);
        // Taken before anything is written there.
        let out_lock = config
            .lock_out_dir
            .then(|| persist::OutDirLock::acquire(&out_dir))
            .transpose()
            .map_err(CampaignError::Setup)?;
        let layout = persist::Layout::new(out_dir, corpus_dir, run_id.clone());
        let journal_path = layout.journal();
        // A corpus directory that cannot be written is an error now, before
        // any work whose results would be lost.
        persist::probe_writable(layout.corpus_dir()).map_err(|source| CampaignError::Io {
            path: layout.corpus_dir().to_path_buf(),
            source,
        })?;
        // A shared campaign is joined now, before any work: a store out of
        // reach or holding another campaign is an error here.
        let (sharing, sync) = match sharing::join(&config, &target, &layout)? {
            Some((link, thread)) => (Some(link), Some(thread)),
            None => (None, None),
        };
        let corpus = Arc::new(Corpus::new());
        let tests = Arc::new(TestStore::new(tests));
        let render = Arc::new(Renderer::new(
            run_id.clone(),
            target.clone(),
            config.senders[0],
            tests.clone(),
            corpus.clone(),
        ));
        // The writer thread renders journal lines and ends when the last
        // `Writer` (owned by the stores) is dropped; nothing joins it.
        let line_renderer = render.clone();
        let (writer, _writer_thread) = Writer::start(
            journal_path.clone(),
            Arc::new(move |e: &Event| line_renderer.line(e)),
        )
        .map_err(|source| CampaignError::Io {
            path: journal_path.clone(),
            source,
        })?;
        let dictionary = mine_dictionary(&project, contract, &config, &target);
        let (journal, etg, ops) = open_journal(
            &config,
            &layout,
            &run_id,
            started_ms,
            &contract.name,
            &render,
        )?;
        load_saved_specs(&layout, &target, &tests);
        let stats = Stats::new(workers + 1, callable.len());
        let selector_index = callable
            .iter()
            .enumerate()
            .map(|(i, c)| ((c.to, c.function.selector()), i))
            .collect();
        let families = Arc::new(FamilyData::new(
            crate::graph::GraphStore::new(target.clone()),
            etg,
            ops,
            journal.clone(),
            run_id.clone(),
        ));
        let engine = Arc::new(Engine {
            callable,
            created,
            // A lane per worker, one for the control plane's id and a spare:
            // pushes never meet (see the eventlog module doc).
            events: Arc::new(EventLog::with_lanes(
                crate::eventlog::DEFAULT_CAPACITY,
                workers + 2,
            )),
            corpus,
            priorities: Arc::new(PrioritySet::new()),
            tests,
            census: census::Census::new(stats.workers[0].functions.len(), Instant::now()),
            enablers: std::sync::OnceLock::new(),
            stats,
            stop: AtomicBool::new(false),
            spec_file: parking_lot::Mutex::new(()),
            ended: std::sync::atomic::AtomicU8::new(0),
            ended_after_us: AtomicU64::new(0),
            started: Instant::now(),
            started_ms,
            seed,
            run_id,
            layout,
            corpus_files: corpus_dir::CorpusFiles::default(),
            render,
            journal: journal.clone(),
            dictionary,
            selector_index,
            writer,
            workers,
            finished: AtomicBool::new(false),
            panic_requests: AtomicU64::new(0),
            sharing,
            target,
            config,
        });
        let (senders, receivers): (Vec<_>, Vec<_>) = (0..workers)
            .map(|_| crossbeam::channel::unbounded())
            .unzip();
        let control = Control::new(engine.clone(), families.clone(), senders);
        {
            // The code graph of the sources, ready before an agent asks.
            let families = Arc::downgrade(&families);
            let _ = std::thread::Builder::new()
                .name("rudder-graph".into())
                .spawn(move || {
                    if let Some(f) = families.upgrade() {
                        f.graph.warm();
                    }
                });
        }
        Ok(Campaign {
            engine,
            control,
            receivers,
            handles: Vec::new(),
            sync,
            warnings: project_warnings,
            _out_lock: out_lock,
        })
    }

    /// Reads the campaign's stores (events, corpus, priorities, tests,
    /// coverage, counters) while it runs and after it ends.
    pub fn read(&self) -> CampaignRead {
        self.control.read()
    }

    /// Fault injection for tests: worker `worker` panics at its next
    /// sequence; the campaign restarts it (see `WorkerPanicked`).
    #[doc(hidden)]
    pub fn inject_worker_panic(&self, worker: usize) {
        self.engine.inject_worker_panic(worker);
    }

    /// What families keep beside the campaign (see [`FamilyData`]).
    pub fn families(&self) -> &Arc<FamilyData> {
        self.control.families()
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
        if self.engine.config.enabler_feedback && self.engine.enablers.get().is_none() {
            // Before the workers: with one worker, a seed replays its run
            // only if every call sees the same table (the graph is built
            // once; this waits for the thread building it).
            let e = &self.engine;
            let table = census::EnablerTable::build(
                &e.target,
                &e.callable,
                &self.control.families().graph.graph(),
            );
            tracing::debug!("enabler table: {} guards", table.len());
            let _ = e.enablers.set(table);
        }
        if let Some(sync) = &self.sync {
            sync.start(self.control.clone());
        }
        {
            // The metrics history behind the ops family's market-data tools,
            // also journaled (a report of the run reads it afterwards).
            self.engine.journal_settings();
            let engine = Arc::downgrade(&self.engine);
            let families = Arc::downgrade(self.control.families());
            let _ = std::thread::Builder::new()
                .name("rudder-sampler".into())
                .spawn(move || {
                    while let (Some(s), Some(f)) = (engine.upgrade(), families.upgrade()) {
                        let sample = s.sample_now();
                        // Journaled at the history's resolution: four a
                        // second for 68 minutes, then halving as the
                        // history does (a day's run: ~52,000 rows).
                        let kept = f.ops.history.record(sample);
                        if s.finished() {
                            break;
                        }
                        if kept {
                            s.journal_sample(sample, None);
                        }
                        drop((s, f));
                        std::thread::sleep(crate::ops::SAMPLE_INTERVAL);
                    }
                });
        }
        let receivers = std::mem::take(&mut self.receivers);
        let running = Arc::new(AtomicU64::new(receivers.len() as u64));
        for (i, rx) in receivers.into_iter().enumerate() {
            let engine = self.engine.clone();
            let running = running.clone();
            let id = WorkerId(i as u32);
            let handle = std::thread::Builder::new()
                .name(format!("rudder-worker-{i}"))
                .spawn(move || {
                    set_worker_priority(engine.config.worker_priority);
                    engine.stats.workers[i]
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
                                let mut w = worker::Worker::new(engine.clone(), id, rx);
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
                                let note = engine.note(msg);
                                engine.emit(id, Payload::WorkerPanicked { note });
                                restarts += 1;
                                if restarts > MAX_RESTARTS || engine.stop.load(Ordering::Acquire) {
                                    break StopReason::Panicked;
                                }
                            }
                        }
                    };
                    let calls = engine.stats.workers[i].calls.load(Ordering::Relaxed);
                    let sequences = engine.stats.workers[i].sequences.load(Ordering::Relaxed);
                    engine.emit(
                        id,
                        Payload::WorkerStopped {
                            calls,
                            sequences,
                            reason,
                        },
                    );
                    engine.stats.workers[i]
                        .running
                        .store(false, Ordering::Release);
                    if running.fetch_sub(1, Ordering::AcqRel) == 1 {
                        engine.finished.store(true, Ordering::Release);
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

    /// Reloads corpus entries and falsified tests from the corpus directory,
    /// then checks properties right after deployment. Runs on the campaign's
    /// own executor row, through the replay oracle.
    fn resume(&mut self) {
        let s = self.engine.clone();
        let functions = s.target.abis();
        let mut foreign = Vec::new();
        let reload = s.read_corpus_dir(None, Some(&mut foreign));
        for m in reload.malformed {
            self.warnings
                .push(format!("skipped corpus file {}: {}", m.file, m.error));
        }
        let mut ex = s.target.executor(s.workers);
        let mut oracle = Oracle::new(&s, &mut ex);
        let mut rng = rand::SeedableRng::seed_from_u64(s.seed ^ 0x5eed_0f7e);
        for case in s.tests.cases() {
            let p = s.layout.reproducer(&case.name);
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
            let Some(hit) = oracle.check(Goal::Fails(case), seq) else {
                self.warnings.push(format!(
                    "reproducer {} no longer fails; the test is open again",
                    p.display()
                ));
                continue;
            };
            // What the earlier run covered reaching and checking it: the
            // test is not checked again, so its property's lines would stay
            // uncovered in this run.
            oracle.replay_reproducer_for_coverage(case, seq);
            // A run killed while shrinking left `shrink_done: false`: finish
            // the shrinking now, from the best sequence it had saved.
            let (shrunk, shrink_steps, gas) = if stored.shrink_done {
                (shrunk, 0, hit.gas)
            } else {
                let r = shrink::shrink(
                    &mut oracle,
                    &mut rng,
                    Goal::Fails(case),
                    seq.clone(),
                    s.config.shrink_limit,
                    &mut |_, _| {},
                );
                (r.txs, r.steps, r.gas)
            };
            // Its trace, as the run that found it kept one.
            if s.keeps_traces() {
                let seq = if shrunk.is_empty() {
                    &original
                } else {
                    &shrunk
                };
                let calls = oracle.trace(case, seq);
                let mut t = crate::journal::traces::TraceRecord::new(
                    crate::journal::traces::TraceRole::Falsifying,
                    Origin::Replayed,
                    seq.clone(),
                    calls,
                );
                t.test = Some(case.id);
                s.journal_send(|| crate::journal::Record::Trace(Box::new(t)));
            }
            let first_found_by = (stored.found_by.as_deref())
                .and_then(properties::FoundBy::parse)
                .filter(|f| *f != properties::FoundBy::Resume);
            let settled = engine::Settled {
                found_by: properties::FoundBy::Resume,
                first_found_by,
                reason: stored.reason,
                original,
                shrunk,
                shrink_steps,
                gas_used: gas,
            };
            s.settle_falsified(case, settled, !stored.shrink_done);
        }
        // Another fuzzer's corpus and reproducers: the open tests are checked
        // after every call of each, as that fuzzer would on loading them
        // (one replay per sequence); the first sequence to break a test
        // is its counterexample.
        let mut found: Vec<(crate::ids::TestId, Vec<Tx>)> = Vec::new();
        let far = std::time::Instant::now() + std::time::Duration::from_secs(86_400);
        for seq in &foreign {
            let run = oracle.dry_run(seq, &[], far, None, None);
            for (i, step) in run.steps.iter().enumerate() {
                for id in &step.failing {
                    if s.tests.falsified(*id).is_none() && !found.iter().any(|(f, _)| f == id) {
                        found.push((*id, seq[..=i].to_vec()));
                    }
                }
            }
        }
        for (id, original) in found {
            let Some(case) = s.tests.case(id) else {
                continue;
            };
            let reason = oracle
                .explain(case, &original)
                .unwrap_or_else(|| "failed on replay".into());
            let r = shrink::shrink(
                &mut oracle,
                &mut rng,
                Goal::Fails(case),
                original.clone(),
                s.config.shrink_limit,
                &mut |_, _| {},
            );
            oracle.replay_reproducer_for_coverage(case, &r.txs);
            let settled = engine::Settled {
                found_by: properties::FoundBy::Imported,
                first_found_by: None,
                reason,
                original,
                shrunk: r.txs,
                shrink_steps: r.steps,
                gas_used: r.gas,
            };
            s.settle_falsified(case, settled, true);
        }
        modes::of(s.config.test_mode).after_deployment(&s, &mut oracle);
        if s.tests.all_decided() && !s.config.keep_alive {
            s.end(EndReason::AllTestsDecided);
        }
    }

    /// Writes each falsified test as a Foundry test into `reproDir`
    /// (atomically; a test that cannot be written says why in the log).
    fn write_foundry_reproducers(&self) -> Vec<String> {
        let s = &self.engine;
        let mut written = Vec::new();
        let Some(dir) = &s.config.repro_dir else {
            return written;
        };
        if let Err(e) = std::fs::create_dir_all(dir) {
            tracing::error!("reproDir {}: {e}", dir.display());
            return written;
        }
        for case in s.tests.cases() {
            if s.tests.falsified(case.id).is_none() {
                continue;
            }
            let (contract, solidity) = match foundry_repro::for_test(s, &case.name) {
                Ok(foundry_repro::Repro::Written { contract, solidity }) => (contract, solidity),
                Ok(foundry_repro::Repro::NotYet { .. }) => continue,
                Err(why) => {
                    tracing::warn!("{why}");
                    continue;
                }
            };
            let path = dir.join(format!("{contract}.t.sol"));
            match persist::write_atomic(&path, solidity.as_bytes()) {
                Ok(()) => written.push(path.display().to_string()),
                Err(e) => tracing::error!("{}: {e}", path.display()),
            }
        }
        written
    }

    /// Writes the reports `coverageFormats` asks for into `coverageDir`
    /// (default: the corpus directory), named as Echidna names them:
    /// `covered.<run>.lcov` (LCOV) and `covered.<run>.txt` (each source
    /// line marked `*` where it ran, Echidna's covered-lines format). The
    /// third, `covered.<run>.html`, is rudder's HTML report, which the
    /// view layer above the campaign renders: the `rudder` binary writes it
    /// when the campaign ends ([`coverage_report_dir`](Self::coverage_report_dir)).
    fn write_coverage_reports(&self) {
        let s = &self.engine;
        let formats = &s.config.coverage_formats;
        if formats.is_empty() {
            return;
        }
        let dir = self.coverage_report_dir();
        let report = s.coverage_report();
        for format in formats {
            let text = match format.as_str() {
                "lcov" => report.lcov_text(),
                "txt" => report.covered_lines_text(),
                // html: the binary's (above); others refused when read.
                _ => continue,
            };
            let path = s.layout.coverage_report(&dir, format);
            if let Err(e) = persist::write_atomic(&path, text.as_bytes()) {
                tracing::error!("writing {}: {e}", path.display());
            }
        }
    }

    /// Where `coverageFormats` reports go: `coverageDir`, or the corpus
    /// directory.
    pub fn coverage_report_dir(&self) -> PathBuf {
        let s = &self.engine;
        s.config
            .coverage_dir
            .clone()
            .unwrap_or_else(|| s.layout.corpus_dir().to_path_buf())
    }

    /// Asks every worker to stop after its current call.
    pub fn stop(&self) {
        self.engine.end(EndReason::Stopped);
    }

    /// Asks every worker to stop, saying why (`status.endReason`).
    pub fn stop_because(&self, reason: EndReason) {
        self.engine.end(reason);
    }

    pub fn is_finished(&self) -> bool {
        self.engine.finished()
    }

    /// Joins the workers, flushes the disk writer and returns the report.
    pub fn wait(mut self) -> Report {
        for h in self.handles.drain(..) {
            let _ = h.join();
        }
        self.engine.finished.store(true, Ordering::Release);
        modes::of(self.engine.config.test_mode).after_workers(&self.engine);
        if let Some(mut sync) = self.sync.take() {
            sync.finish();
        }
        self.write_coverage_reports();
        let reproducers = self.write_foundry_reproducers();
        let last = self.engine.sample_now();
        let _ = self.control.families().ops.history.record(last);
        self.engine.journal_sample(
            last,
            Some(self.engine.end_reason().unwrap_or(EndReason::Stopped)),
        );
        self.engine.flush();
        if let Some(j) = &self.engine.journal {
            j.checkpoint();
        }
        let mut report = Report::build(&self.engine);
        report.foundry_reproducers = reproducers;
        report
    }

    /// The report as of now.
    pub fn report(&self) -> Report {
        Report::build(&self.engine)
    }

    /// Events of `kind` in the ring (a convenience for tests and embedders).
    pub fn events_of(&self, kind: EventKind) -> Vec<Event> {
        self.engine.events.snapshot(
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
        self.engine.flush();
    }
}
