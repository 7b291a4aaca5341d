//! [`Engine`]: what the campaign's tools and embedders read, and the
//! campaign's own working state beside it.

use super::*;

/// A falsification found outside the workers, as
/// [`Engine::settle_falsified`] records it.
pub(crate) struct Settled {
    pub found_by: properties::FoundBy,
    /// Who found it first, when another run did (a replayed reproducer).
    pub first_found_by: Option<properties::FoundBy>,
    pub reason: String,
    pub original: Vec<Tx>,
    pub shrunk: Vec<Tx>,
    pub shrink_steps: u64,
    /// Gas its replay used.
    pub gas_used: u64,
}

/// The specs kept in `path` (none if it is missing or unreadable, with a
/// warning for the latter).
pub(super) fn load_specs(path: &Path) -> Vec<spec::SpecSource> {
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|e| {
            tracing::warn!("{}: not loaded: {e}", path.display());
            Vec::new()
        }),
        Err(_) => Vec::new(),
    }
}

/// Why a spec was not added.
#[derive(Debug, Error)]
pub enum SpecRefused {
    #[error(transparent)]
    Invalid(#[from] spec::SpecError),
    #[error("a test named {0:?} exists already")]
    Duplicate(String),
    #[error("the campaign has {0} tests, the most it can check")]
    Full(usize),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// The running campaign: the target, the event log, the corpus, the
/// priority set, the tests, coverage and the counters (what families keep
/// beside it is in [`super::FamilyData`]), which the workers and
/// [`Control`](super::Control) hold. Tool families never see it: they get the
/// narrow ports of [`super::ports`], and so does an embedding program:
/// it reads through [`CampaignRead`](super::CampaignRead)
/// ([`Campaign::read`](super::Campaign::read)) and acts through
/// [`Control`](super::Control). Every field is private to the campaign
/// module: the end of a run goes through [`Engine::end`], which records why.
pub struct Engine {
    pub(super) config: Config,
    pub(super) target: Arc<Target>,
    /// The functions workers call; priority indices point into this.
    pub(super) callable: Vec<Callable>,
    /// What a suite's calls may create that becomes a target for the rest
    /// of its sequence (forge's default when `targetContracts` is empty).
    pub(super) created: Vec<super::setup::CreatedCallables>,
    pub(super) events: Arc<EventLog>,
    pub(super) corpus: Arc<Corpus>,
    pub(super) priorities: Arc<PrioritySet>,
    pub(super) tests: Arc<TestStore>,
    pub(super) stats: Stats,
    /// Where calls revert, per function, over recent windows.
    pub(super) census: super::census::Census,
    /// Guards and the callable functions that enable them (set once the
    /// code graph is built).
    pub(super) enablers: std::sync::OnceLock<super::census::EnablerTable>,
    pub(super) stop: AtomicBool,
    /// Held while `specs.json` is rewritten.
    pub(super) spec_file: parking_lot::Mutex<()>,
    pub(super) started: Instant,
    pub(super) started_ms: u64,
    pub(super) seed: u64,
    pub(super) run_id: String,
    pub(super) layout: persist::Layout,
    /// The corpus files read or written (a reload replays only new ones).
    pub(super) corpus_files: corpus_dir::CorpusFiles,
    pub(super) render: Arc<Renderer>,
    pub(super) journal: Option<crate::journal::Journal>,
    pub(super) dictionary: Dictionary,
    pub(super) selector_index: std::collections::HashMap<
        (
            Option<alloy_primitives::Address>,
            alloy_primitives::Selector,
        ),
        usize,
    >,
    pub(super) writer: Writer,
    pub(super) workers: usize,
    pub(super) finished: AtomicBool,
    /// Why fuzzing ended ([`EndReason`] as `u8 + 1`; 0: still fuzzing).
    pub(super) ended: std::sync::atomic::AtomicU8,
    /// When it ended, in microseconds since `started` plus one (0: not
    /// yet): the run's time stops there, however long a viewer stays.
    pub(super) ended_after_us: AtomicU64,
    /// This node's link to a shared campaign (`None`: not shared).
    pub(super) sharing: Option<Arc<super::sharing::Link>>,
    /// Fault injection for tests: a worker whose bit is set panics at its
    /// next sequence (see [`Engine::inject_worker_panic`]).
    pub(super) panic_requests: AtomicU64,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("run_id", &self.run_id)
            .field("target", &self.target)
            .finish()
    }
}

impl Engine {
    pub fn workers(&self) -> usize {
        self.workers
    }

    /// The id events of the campaign itself carry (one past the last worker).
    pub fn campaign_worker_id(&self) -> WorkerId {
        WorkerId(self.workers as u32)
    }

    /// Records why fuzzing ended (the first reason given wins) and, unless
    /// the reason is the call budget (workers of a kept-alive campaign stay
    /// to run injections), asks the workers to stop.
    pub fn end(&self, reason: EndReason) {
        if self
            .ended
            .compare_exchange(0, reason as u8 + 1, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
        {
            let us = self.started.elapsed().as_micros() as u64;
            self.ended_after_us.store(us + 1, Ordering::Release);
        }
        if reason != EndReason::TestLimit {
            self.stop.store(true, Ordering::Release);
        }
    }

    /// How long the campaign has fuzzed: until now, or until it ended (a
    /// report, the dashboard and the progress line stop counting there).
    pub fn elapsed(&self) -> std::time::Duration {
        match self.ended_after_us.load(Ordering::Acquire) {
            0 => self.started.elapsed(),
            us => std::time::Duration::from_micros(us - 1),
        }
    }

    /// Why fuzzing ended; `None` while workers still generate calls.
    pub fn end_reason(&self) -> Option<EndReason> {
        EndReason::ALL
            .get((self.ended.load(Ordering::Acquire) as usize).checked_sub(1)?)
            .copied()
    }

    /// Whether the campaign has ended (every worker stopped).
    pub fn finished(&self) -> bool {
        self.finished.load(Ordering::Acquire)
    }

    /// Where this campaign's files live.
    pub fn layout(&self) -> &persist::Layout {
        &self.layout
    }

    /// The SQLite journal of this corpus directory (`None` when `journal`
    /// is off in the config).
    pub fn journal(&self) -> Option<&crate::journal::Journal> {
        self.journal.as_ref()
    }

    /// Whether sequences are kept as traces (a journal, and `traces` on).
    pub fn keeps_traces(&self) -> bool {
        self.journal.is_some() && self.config.traces
    }

    /// Hands a record to the journal, if there is one.
    pub(crate) fn journal_send(&self, record: impl FnOnce() -> crate::journal::Record) {
        if let Some(j) = &self.journal {
            j.send(record());
        }
    }

    /// Journals the metrics as of now (the ops family's history of the
    /// run, read by a report of the run afterwards); `ended` on the run's
    /// last sample.
    pub(crate) fn journal_sample(&self, sample: crate::ops::Sample, ended: Option<EndReason>) {
        self.journal_send(|| {
            crate::journal::Record::Family(Box::new(crate::ops::rows::SampleRow {
                run_id: self.run_id.clone(),
                sample,
                ended: ended.map(EndReason::as_str),
            }))
        });
    }

    /// Journals what this run was asked to do (see [`Engine::journal_sample`]).
    pub(crate) fn journal_settings(&self) {
        let c = &self.config;
        self.journal_send(|| {
            crate::journal::Record::Family(Box::new(crate::ops::rows::SettingsRow {
                run_id: self.run_id.clone(),
                settings: crate::ops::RunSettings {
                    seed: self.seed,
                    workers: self.workers,
                    test_mode: c.test_mode.as_str().to_string(),
                    seq_len: c.seq_len,
                    test_limit: c.test_limit,
                    shrink_limit: c.shrink_limit,
                },
            }))
        });
    }

    /// Journals a tool call or injection rejected for bad input.
    pub fn journal_rejection(&self, tool: &str, field: &str, message: &str) {
        self.journal_send(|| crate::journal::Record::Rejected {
            ts_ms: now_ms(),
            tool: tool.to_string(),
            field: field.to_string(),
            message: message.to_string(),
        });
    }

    /// Renders events and sequences as JSON and call syntax.
    pub fn renderer(&self) -> &Renderer {
        &self.render
    }

    /// The journal file of this run.
    pub fn journal_path(&self) -> PathBuf {
        self.layout.journal()
    }

    /// Line and branch coverage as of now, per contract and per file.
    pub fn coverage_report(&self) -> crate::coverage::lcov::CoverageReport {
        self.target.coverage_report()
    }

    /// The target function with canonical signature `signature`, or a
    /// message listing the functions there are.
    pub fn function_by_signature(
        &self,
        signature: &str,
    ) -> Result<&Arc<alloy_json_abi::Function>, String> {
        self.target
            .functions
            .iter()
            .find(|f| f.signature() == signature)
            .ok_or_else(|| {
                let all: Vec<String> = self
                    .target
                    .functions
                    .iter()
                    .map(|f| f.signature())
                    .collect();
                format!(
                    "{signature:?} is not a function of {}; functions: {}",
                    self.target.contract.name,
                    all.join(", ")
                )
            })
    }

    /// The campaign's metrics now.
    pub fn sample_now(&self) -> crate::ops::Sample {
        let (others, points) = self
            .sharing
            .as_ref()
            .map_or((0, 0), |l| l.campaign_totals());
        let open = self
            .tests
            .cases()
            .filter(|c| !c.kind.seeks_value() && self.tests.is_open(c.id))
            .count() as u64;
        crate::ops::Sample {
            t_ms: now_ms(),
            calls: self.stats.calls(),
            sequences: self
                .stats
                .workers
                .iter()
                .map(|w| w.sequences.load(Ordering::Relaxed))
                .sum(),
            points: self.target.coverage.points(),
            corpus: self.corpus.len() as u64,
            open,
            falsified: self.tests.falsified_count() as u64,
            campaign_calls: 0,
            campaign_points: 0,
        }
        .with_campaign(others, points)
    }

    /// Adds a spec parsed from `src` (checked by every worker from their
    /// next call on) and rewrites `specs.json` before answering.
    pub fn add_spec(&self, spec: spec::Spec) -> Result<TestId, SpecRefused> {
        let _file = self.spec_file.lock();
        let name = spec.source.name.clone();
        let id = self
            .tests
            .add(self.stats.calls(), |id, store| {
                if store.cases().any(|c| c.name == spec.source.name) {
                    return Err(SpecRefused::Duplicate(spec.source.name.clone()));
                }
                Ok(spec_case(id, spec))
            })?
            .ok_or(SpecRefused::Full(self.tests.len()))?;
        let specs: Vec<&spec::SpecSource> = self
            .tests
            .cases()
            .filter_map(|c| c.spec.as_ref().map(|s| &s.source))
            .collect();
        let path = self.layout.specs();
        let bytes = serde_json::to_vec_pretty(&specs).expect("specs serialize");
        persist::write_atomic(&path, &bytes).map_err(|source| SpecRefused::Io {
            path: path.clone(),
            source,
        })?;
        tracing::info!("spec {name:?} added as test {}", id.0);
        Ok(id)
    }

    /// The index in [`CampaignRead::callable`](super::CampaignRead::callable) of the function with `selector`
    /// of the contract at `to` (`None`: the target).
    pub fn callable_index(
        &self,
        to: Option<alloy_primitives::Address>,
        selector: &alloy_primitives::Selector,
    ) -> Option<usize> {
        self.selector_index.get(&(to, *selector)).copied()
    }

    /// Why the campaign should stop now, apart from the call budget (which
    /// each worker tracks itself, see [`CallBudget`]).
    pub(crate) fn stop_reason(&self) -> Option<StopReason> {
        if self.stop.load(Ordering::Acquire) {
            return Some(StopReason::Stopped);
        }
        if let Some(t) = self.config.timeout
            && self.started.elapsed() >= t
        {
            self.end(EndReason::Timeout);
            return Some(StopReason::Timeout);
        }
        None
    }

    /// Pushes an event to the ring and hands it to the journal; the writer
    /// thread renders it (workers never format JSON).
    pub fn emit(&self, worker: WorkerId, payload: Payload) {
        let ts = now_ms();
        let seq = self.events.push_at(ts, worker, payload);
        let event = Event {
            seq: seq.unwrap_or(crate::ids::Seq(u64::MAX)),
            timestamp_ms: ts,
            worker,
            payload,
        };
        self.journal_send(|| crate::journal::Record::Event(event));
        self.writer.send(WriteJob::Event(event));
    }

    /// Emits injection `id`'s `InjectionSummary` (its values in a note).
    pub(crate) fn emit_injection_summary(
        &self,
        worker: WorkerId,
        id: crate::ids::InjectionId,
        sums: super::control::TallySums,
    ) {
        let note = self.note(serde_json::to_string(&sums.holes).unwrap_or_default());
        self.emit(
            worker,
            Payload::InjectionSummary {
                injection: id,
                runs: sums.runs,
                executed: sums.executed,
                reverted: sums.reverted,
                new_points: sums.new_points,
                falsified: sums.falsified,
                note,
            },
        );
    }

    /// Records a panic message for a `WorkerPanicked` event.
    pub(crate) fn note(&self, text: String) -> u64 {
        self.render.note(text)
    }

    /// The printed calls of a sequence (sender shown when not the default).
    pub fn print_sequence(&self, txs: &[Tx]) -> Vec<String> {
        self.render.sequence(txs)
    }

    /// Calls with `?` wildcards, printed.
    pub fn print_templates(&self, calls: &[(Tx, crate::tx::Holes)]) -> Vec<String> {
        calls
            .iter()
            .map(|(t, h)| self.render.template(t, h))
            .collect()
    }

    /// One call, printed.
    pub fn print_call(&self, tx: &Tx) -> String {
        self.render.call(tx)
    }

    /// Adds a sequence to the corpus and writes its file (replayed entries
    /// are on disk already); `None` when the corpus holds it already.
    pub(crate) fn add_corpus(
        &self,
        worker: Option<WorkerId>,
        origin: Origin,
        new_points: u32,
        txs: Vec<Tx>,
        gas: Vec<u64>,
    ) -> Option<Arc<CorpusEntry>> {
        let stored = StoredEntry {
            origin,
            new_points,
            txs: txs
                .iter()
                .zip(gas.iter())
                .map(|(t, g)| StoredTx::from_tx(t, Some(*g)))
                .collect(),
        };
        // The corpus is content-addressed: a sequence it already holds (two
        // workers reaching the same new state with the same compacted calls,
        // or a resumed entry found again) is not added twice, so the corpus
        // in memory and its directory on disk hold the same sequences.
        let path = self.layout.corpus_entry(&txs);
        if !self.corpus_files.mark(path.clone()) {
            return None;
        }
        let entry = self.corpus.add(worker, origin, new_points, txs, gas);
        if origin != Origin::Replayed
            && let Ok(bytes) = serde_json::to_vec_pretty(&stored)
        {
            self.writer.send(WriteJob::File(path, bytes));
        }
        Some(entry)
    }

    /// Test `id`'s counterexample in its stored form (`None`: not falsified).
    pub(crate) fn stored_reproducer(&self, id: TestId) -> Option<StoredReproducer> {
        let (case, f) = (self.tests.case(id)?, self.tests.falsified(id)?);
        let stored = |txs: &[Tx]| txs.iter().map(|t| StoredTx::from_tx(t, None)).collect();
        Some(StoredReproducer {
            test: case.name.clone(),
            kind: case.kind,
            reason: f.reason.clone(),
            found_by: Some(f.first_found_by.as_str().to_string()),
            original: stored(&f.original),
            shrunk: stored(&f.shrunk),
            shrink_done: f.shrink_done,
        })
    }

    pub(crate) fn persist_reproducer(&self, id: TestId) {
        let (Some(case), Some(stored)) = (self.tests.case(id), self.stored_reproducer(id)) else {
            return;
        };
        if let Ok(bytes) = serde_json::to_vec_pretty(&stored) {
            self.writer
                .send(WriteJob::File(self.layout.reproducer(&case.name), bytes));
        }
    }

    /// Optimization test `id`'s best value and sequence in their stored
    /// form (`None`: no value yet).
    pub(crate) fn stored_optimum(&self, id: TestId) -> Option<persist::StoredOptimum> {
        let (case, o) = (self.tests.case(id)?, self.tests.optimum(id)?);
        Some(persist::StoredOptimum {
            test: case.name.clone(),
            value: o.value.to_string(),
            sequence: o
                .sequence
                .iter()
                .map(|t| StoredTx::from_tx(t, None))
                .collect(),
        })
    }

    pub(crate) fn persist_optimum(&self, id: TestId) {
        let Some(stored) = self.stored_optimum(id) else {
            return;
        };
        let path = self.layout.optimum(&stored.test);
        if let Ok(bytes) = serde_json::to_vec(&stored) {
            self.writer.send(WriteJob::File(path, bytes));
        }
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

    /// Records a falsification found outside the workers (a reproducer
    /// replayed on resume, a property false right after deployment, another
    /// node's finding): shrinking done, persisted when `persist`, reported
    /// as a `PropertyFalsified` event under the campaign's own id, its data
    /// saying who found it and the gas its replay used.
    pub(crate) fn settle_falsified(&self, case: &TestCase, s: Settled, persist: bool) {
        let Settled {
            found_by,
            first_found_by,
            reason,
            original,
            shrunk,
            shrink_steps,
            gas_used,
        } = s;
        let calls = if shrunk.is_empty() {
            original.len()
        } else {
            shrunk.len()
        } as u32;
        self.tests.claim(case.id);
        self.tests.close_at(case.id, self.stats.calls());
        self.tests.set_falsified(
            case.id,
            properties::Falsification {
                worker: None,
                found_by,
                first_found_by: first_found_by.unwrap_or(found_by),
                found_ms: now_ms(),
                reason,
                original,
                shrunk,
                shrink_steps,
                shrink_done: true,
                gas_used,
            },
        );
        if persist {
            self.persist_reproducer(case.id);
        }
        self.emit(
            self.campaign_worker_id(),
            Payload::PropertyFalsified {
                test: case.id,
                calls,
                gas_used,
            },
        );
    }

    /// Appends `line` to `path` and waits until it is synced to disk.
    pub(crate) fn append_durable(&self, path: PathBuf, line: String) -> bool {
        self.writer
            .append_durable(path, line, std::time::Duration::from_secs(5))
    }

    /// Waits until everything sent to disk so far is written and synced,
    /// and everything sent to the journal is committed.
    pub fn flush(&self) {
        self.writer.flush();
        if let Some(j) = &self.journal {
            j.flush();
        }
        if let crate::executor::fork::Backend::Fork(f) = &self.target.settings.backend
            && let Err(e) = f.write()
        {
            tracing::warn!(error = %e, "the fork cache could not be written");
        }
    }
}
