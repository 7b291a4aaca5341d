//! The ports a tool family receives instead of the campaign's whole state:
//! a family's constructor says, in its signature, what it may touch.
//!
//! * [`CampaignRead`]: snapshots and totals — configuration, target,
//!   corpus, tests, statistics, the event log, the code graph. No method
//!   changes the campaign.
//! * [`Steer`]: steering — parse and inject calls, prioritize, add specs,
//!   reload the corpus directory (each command journaled by
//!   [`Control`], which it wraps).
//! * [`FamilyState`]: the state families keep beside the campaign
//!   ([`FamilyData`]: the code graph's index, the ETG, the metrics history
//!   and the agent's decisions), written through the journal so that it
//!   survives the run.
//! * [`JournalRead`](crate::families::journal_read::JournalRead): pooled
//!   reads of the journal within the budget.
//!
//! Workers and `Control` hold the campaign ([`Engine`]) itself; a family
//! is built from the ports alone (see `crate::families::REGISTRY`).

use super::*;
use crate::campaign::generate::Callable;
use crate::campaign::properties::TestStore;
use crate::corpus::Corpus;
use crate::eventlog::EventLog;
use crate::graph::GraphStore;
use crate::graph::etg::{Etg, EtgEvent, EtgKind};
use crate::priority::PrioritySet;

/// The state tool families keep beside the campaign (not in the
/// [`Engine`]): the code graph and its index, the ETG of the agent's
/// attempts, the metrics history and the agent's decisions. Written through
/// [`FamilyState`], read through [`CampaignRead`].
pub struct FamilyData {
    /// The target's code graph (built on first use), joined with coverage.
    pub graph: GraphStore,
    /// What agents tried: the execution trace graph's attempts.
    pub etg: Etg,
    /// Metrics history and the agent's decisions (the ops family).
    pub ops: crate::ops::OpsState,
    journal: Option<crate::journal::Journal>,
    run_id: String,
}

impl FamilyData {
    pub(super) fn new(
        graph: GraphStore,
        etg: Etg,
        ops: crate::ops::OpsState,
        journal: Option<crate::journal::Journal>,
        run_id: String,
    ) -> Self {
        FamilyData {
            graph,
            etg,
            ops,
            journal,
            run_id,
        }
    }

    fn journal_send(&self, record: impl FnOnce() -> crate::journal::Record) {
        if let Some(j) = &self.journal {
            j.send(record());
        }
    }
}

/// A test and how often its function got past its own preconditions
/// (`None`: the code graph has no coverage of that function).
#[derive(Clone, Debug)]
pub struct TestVacuity {
    pub test: String,
    pub kind: &'static str,
    pub vacuity: Option<crate::graph::vacuity::Vacuity>,
}

/// What a family may read of the campaign. Cheap to clone.
#[derive(Clone)]
pub struct CampaignRead(Arc<Engine>, Arc<FamilyData>);

impl CampaignRead {
    pub(super) fn new(engine: Arc<Engine>, families: Arc<FamilyData>) -> Self {
        CampaignRead(engine, families)
    }

    pub fn config(&self) -> &Config {
        &self.0.config
    }
    pub fn target(&self) -> &Arc<Target> {
        &self.0.target
    }
    /// The functions workers call; priority indices point into this.
    pub fn callable(&self) -> &[Callable] {
        &self.0.callable
    }
    pub fn events(&self) -> &EventLog {
        &self.0.events
    }
    pub fn corpus(&self) -> &Corpus {
        &self.0.corpus
    }
    pub fn priorities(&self) -> &PrioritySet {
        &self.0.priorities
    }
    pub fn tests(&self) -> &TestStore {
        &self.0.tests
    }
    pub fn stats(&self) -> &Stats {
        &self.0.stats
    }
    /// How often each test's function got past its own preconditions
    /// (see [`crate::graph::vacuity`]): the tests named `only` (all when
    /// `None`; an unknown name is `Err` with the names there are).
    pub fn test_vacuity(&self, only: Option<&str>) -> Result<Vec<TestVacuity>, String> {
        let tests: Vec<&TestCase> = self.0.tests.cases().collect();
        if let Some(name) = only
            && !tests.iter().any(|t| t.name == name)
        {
            let names: Vec<&str> = tests.iter().map(|t| t.name.as_str()).collect();
            return Err(format!(
                "{name:?} is not a test of this campaign; tests: {}",
                names.join(", ")
            ));
        }
        let target = &self.0.target.contract.name;
        Ok(tests
            .iter()
            .filter(|t| t.spec.is_none() && only.is_none_or(|n| n == t.name))
            .map(|t| {
                let contract =
                    t.to.and_then(|a| self.0.target.others.iter().find(|c| c.address == a))
                        .map(|c| c.name.clone())
                        .unwrap_or_else(|| target.clone());
                TestVacuity {
                    test: t.name.clone(),
                    kind: t.kind.as_str(),
                    vacuity: self.1.graph.vacuity(&contract, &t.function.signature()),
                }
            })
            .collect())
    }
    /// Where calls revert, joined with the code graph (see
    /// [`census::report`]).
    pub fn revert_census(&self, q: &super::census::Query) -> Vec<super::census::FunctionReport> {
        let graph = self.1.graph.graph();
        super::census::report(&self.0.census, &self.0.target, &self.0.callable, &graph, q)
    }
    /// The target's code graph joined with coverage (read; the graph
    /// family indexes through [`FamilyState::graph`]).
    pub fn graph(&self) -> GraphRead<'_> {
        GraphRead(&self.1.graph)
    }
    pub fn seed(&self) -> u64 {
        self.0.seed
    }
    pub fn run_id(&self) -> &str {
        &self.0.run_id
    }
    pub fn started(&self) -> Instant {
        self.0.started
    }
    /// How long the campaign has fuzzed (stops at its end).
    pub fn elapsed(&self) -> std::time::Duration {
        self.0.elapsed()
    }
    pub fn started_ms(&self) -> u64 {
        self.0.started_ms
    }
    pub fn workers(&self) -> usize {
        self.0.workers()
    }
    /// The worker id the campaign's own events carry (deployment,
    /// set-up, the end): one past the last worker.
    pub fn campaign_worker_id(&self) -> crate::ids::WorkerId {
        self.0.campaign_worker_id()
    }
    /// Waits until everything the campaign sent to disk so far is written
    /// and everything sent to the journal is committed: a query after it
    /// sees every event up to now.
    pub fn flush(&self) {
        self.0.flush()
    }
    pub fn finished(&self) -> bool {
        self.0.finished()
    }
    pub fn end_reason(&self) -> Option<EndReason> {
        self.0.end_reason()
    }
    pub fn layout(&self) -> &persist::Layout {
        self.0.layout()
    }
    pub fn journal(&self) -> Option<&crate::journal::Journal> {
        self.0.journal()
    }
    pub fn renderer(&self) -> &Renderer {
        self.0.renderer()
    }
    pub fn coverage_report(&self) -> crate::coverage::lcov::CoverageReport {
        self.0.coverage_report()
    }
    pub fn function_by_signature(
        &self,
        signature: &str,
    ) -> Result<&Arc<alloy_json_abi::Function>, String> {
        self.0.function_by_signature(signature)
    }
    /// The campaign's metrics now.
    pub fn sample_now(&self) -> crate::ops::Sample {
        self.0.sample_now()
    }
    /// Strategy `strategy`'s signal for callable function `k` (see
    /// [`Engine::signal`]).
    pub fn signal<'g>(
        &self,
        k: usize,
        strategy: signals::Strategy,
        gaps: &'g [crate::graph::join::Gap],
        totals: &[FunctionTotals],
    ) -> signals::Signal<'g> {
        self.0.signal(k, strategy, gaps, totals)
    }
    pub fn print_sequence(&self, txs: &[Tx]) -> Vec<String> {
        self.0.print_sequence(txs)
    }
    pub fn print_call(&self, tx: &Tx) -> String {
        self.0.print_call(tx)
    }
    /// A Foundry test reproducing falsified test `test` (see
    /// [`foundry_repro::for_test`]).
    pub fn foundry_reproducer(&self, test: &str) -> Result<foundry_repro::Repro, String> {
        foundry_repro::for_test(&self.0, test)
    }
    /// Runs `txs` once on an isolated executor from the deployed state (see
    /// [`Oracle::dry_run`]) and describes each call.
    pub fn dry_run(
        &self,
        txs: &[Tx],
        deadline: Instant,
        start: Option<u64>,
        end: Option<u64>,
    ) -> (oracle::DryRun, run_report::SequenceReport) {
        let mut ex = self.0.target.isolated_executor();
        let run = Oracle::new(&self.0, &mut ex).dry_run(txs, &[], deadline, start, end);
        let report = run_report::describe(&self.0, &run);
        (run, report)
    }
    /// The shared campaign as this node last saw it (`None`: not shared).
    pub fn shared(&self) -> Option<super::sharing::SharedStatus> {
        self.0.shared_status()
    }
    /// The campaign's report as of now (what the run prints at its end).
    pub fn report(&self) -> Report {
        Report::build(&self.0)
    }
    /// What the agent needs to know of the target (the `target` tool).
    pub fn target_info(&self) -> target_info::TargetInfo {
        target_info::TargetInfo::of(&self.0)
    }
    /// The metrics history and the agent's decisions (read).
    pub fn ops(&self) -> &crate::ops::OpsState {
        &self.1.ops
    }
    /// The ETG of the agent's attempts (read: queries, session attempts).
    pub fn etg(&self) -> &Etg {
        &self.1.etg
    }
}

/// The state a family keeps beside the campaign, written through the
/// journal so that it survives the run.
#[derive(Clone)]
pub struct FamilyState(Arc<FamilyData>);

impl FamilyState {
    pub(super) fn new(families: Arc<FamilyData>) -> Self {
        FamilyState(families)
    }

    /// Logs an ETG event (payload validated by the caller) under the code
    /// graph's current version and hands it to the journal; `droppable`: a
    /// read tool's automatic log.
    pub fn etg_log(
        &self,
        attempt_id: &str,
        kind: EtgKind,
        ts_ms: u64,
        payload: serde_json::Value,
        auto: bool,
        droppable: bool,
    ) -> EtgEvent {
        let d = &self.0;
        let version = d.graph.version();
        let event = d.etg.log(attempt_id, kind, ts_ms, payload, auto, version);
        d.journal_send(|| {
            crate::journal::Record::Family(Box::new(crate::graph::rows::EtgRow {
                event: event.clone(),
                droppable,
            }))
        });
        event
    }

    /// Makes `attempt_id` MCP session `session`'s current attempt.
    pub fn etg_enter(&self, session: u64, attempt_id: &str) {
        self.0.etg.enter(session, attempt_id);
    }

    /// Stores the current code graph's version in the journal (once per
    /// version).
    pub fn journal_graph(&self, project_root: &str) {
        let d = &self.0;
        let graph = d.graph.graph();
        d.journal_send(|| {
            crate::journal::Record::Family(Box::new(crate::graph::rows::GraphRows {
                graph,
                project_root: project_root.to_string(),
                run_id: d.run_id.clone(),
                ts_ms: crate::eventlog::now_ms(),
            }))
        });
    }

    /// The code graph, to index and re-index.
    pub fn graph(&self) -> &GraphStore {
        &self.0.graph
    }

    /// Keeps an agent's decision (memory and journal) and waits for the
    /// journal to commit it.
    pub fn save_decision(&self, d: crate::ops::Decision) {
        self.0.ops.decisions.push(d.clone());
        if let Some(j) = &self.0.journal {
            j.send(crate::journal::Record::Family(Box::new(
                crate::ops::rows::DecisionRow(d),
            )));
            j.flush();
        }
    }
}

/// The code graph, read.
#[derive(Clone, Copy)]
pub struct GraphRead<'a>(&'a GraphStore);

impl GraphRead<'_> {
    pub fn graph(&self) -> Arc<crate::graph::CodeGraph> {
        self.0.graph()
    }
    pub fn version(&self) -> Option<String> {
        self.0.version()
    }
    pub fn gaps(&self) -> Vec<crate::graph::join::Gap> {
        self.0.gaps()
    }
    pub fn context(
        &self,
        project_root: &str,
        files: &[String],
        max_tokens: usize,
    ) -> Result<Vec<crate::graph::store::FileContext>, crate::graph::store::GraphError> {
        self.0.context(project_root, files, max_tokens)
    }
}

/// What a family may change in the campaign: the steering commands.
#[derive(Clone)]
pub struct Steer(Control);

impl Steer {
    pub(super) fn new(control: Control) -> Self {
        Steer(control)
    }

    /// Parses Solidity-style calls with holes (see [`Control::parse_templates`]).
    pub fn parse_templates(
        &self,
        calls: &[String],
        sender: Option<alloy_primitives::Address>,
        value: alloy_primitives::U256,
    ) -> Result<Vec<(Tx, crate::tx::Holes)>, ControlError> {
        self.0.parse_templates(calls, sender, value)
    }
    /// Parses Solidity-style calls (see [`Control::parse_calls`]).
    pub fn parse_calls(
        &self,
        calls: &[String],
        sender: Option<alloy_primitives::Address>,
        value: alloy_primitives::U256,
    ) -> Result<Vec<Tx>, ControlError> {
        self.0.parse_calls(calls, sender, value)
    }
    /// Runs calls once on an isolated executor from the live state, within
    /// `deadline` (see [`Control::run_once`]).
    pub fn run_once(
        &self,
        calls: &[String],
        sender: Option<alloy_primitives::Address>,
        value: alloy_primitives::U256,
        deadline: Instant,
    ) -> Result<run_report::SequenceReport, ControlError> {
        self.0.run_once(calls, sender, value, deadline)
    }
    /// Reads predicates on reached states within `deadline` (see
    /// [`Control::evaluate_predicates`]).
    pub fn evaluate_predicates(
        &self,
        predicates: &[String],
        sequence: Option<&[String]>,
        entries: usize,
        deadline: Instant,
    ) -> Result<super::predicates::PredicateReport, ControlError> {
        self.0
            .evaluate_predicates(predicates, sequence, entries, deadline)
    }
    /// Injects parsed calls to every worker (see [`Control::inject_templates`]).
    pub fn inject_templates(
        &self,
        calls: Vec<(Tx, crate::tx::Holes)>,
        repeat: u32,
    ) -> Result<control::InjectReceipt, ControlError> {
        self.0.inject_templates(calls, repeat)
    }
    /// The callable index of `signature`.
    pub fn resolve_signature(&self, signature: &str) -> Result<usize, ControlError> {
        self.0.resolve_signature(signature)
    }
    pub fn prioritize(
        &self,
        signature: &str,
        weight: u32,
    ) -> Result<Arc<crate::priority::Priorities>, ControlError> {
        self.0.prioritize(signature, weight)
    }
    pub fn clear_priorities(&self) -> usize {
        self.0.clear_priorities()
    }
    pub fn add_spec(&self, spec: spec::Spec) -> Result<crate::ids::TestId, SpecRefused> {
        self.0.add_spec(spec)
    }
    pub fn reload_corpus(&self, deadline: Option<Instant>) -> corpus_dir::Reload {
        self.0.reload_corpus(deadline)
    }
}
