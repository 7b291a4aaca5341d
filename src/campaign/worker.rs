//! A worker: one OS thread, one EVM, one loop. Each iteration runs one
//! sequence: an injected one if the control channel has one, else a mutation
//! of a corpus entry, else a fresh random one. Between two calls it checks
//! the control channel, so an injection waits at most one call.

use super::generate::{self, Dictionary, GenContext};
use super::oracle::{Goal, Oracle};
use super::properties::{Falsification, FoundBy, Optimum, TestCase};
use super::{CallBudget, Engine, FunctionStats, Injection, WorkerStats};
use crate::corpus::Origin;
use crate::eventlog::{Payload, StopReason, now_ms};
use crate::executor::CallResult;
use crate::executor::{Executor, Outcome, Snapshot};
use crate::ids::WorkerId;
use crate::journal::Record;
use crate::journal::traces::{CallObs, RECENT_INTERVAL, TraceRecord, TraceRole};
use crate::priority::Sampler;
use crate::tx::Tx;
use crossbeam::channel::Receiver;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

mod checks;
pub(crate) use checks::AfterCall;
mod inject;
mod input_to_state;
mod reverts;
mod solve;

/// Share of sequences that mutate a corpus entry once there is one.
const MUTATION_SHARE: f64 = 0.7;

/// How many of the newest corpus entries count as the frontier.
const RECENT_ENTRIES: usize = 16;

/// Chance that a random call of a sequence repeats the call before it, the
/// same function with the same arguments, a streak of up to
/// [`REPEAT_MAX`] calls: a fee taken per loan, a reward per epoch, a
/// rounding error per deposit add up only when one call runs many times in
/// a row (forge's invariant runs repeat calls often; random draws almost
/// never give the same address and amount ten times).
const REPEAT_SHARE: f64 = 0.03;

/// The longest streak of a repeated call (drawn uniformly from 1 to this).
const REPEAT_MAX: u32 = 16;

/// Input-to-state stage: candidate calls one comparison or boolean away
/// from a call that met a guard, each run right away after the calls that
/// preceded it; a candidate's own path comparisons give the next ones, up
/// to this depth (a ladder's rungs, and a rung an earlier one broke).
const I2S_DEPTH: u8 = 16;

/// The comparisons at the end of a candidate's path its successors come
/// from (the guard it stopped at, and one before it for `a && b`).
const I2S_FRONTIER: usize = 2;

/// Calls before a candidate at most. Every candidate of a chain starts from
/// a snapshot of the state they left, taken when the first candidate runs
/// (the calls replayed once, without coverage). A snapshot before every
/// call that may start a chain was measured too: 13% fewer calls/s on
/// Token, and no more maze sites.
const I2S_PREFIX: usize = 256;

/// Candidates per call at most.
const I2S_CANDIDATES: usize = 12;

/// Candidate sequences waiting at most.
const I2S_QUEUE: usize = 96;

/// Share of a worker's calls the input-to-state stage may take, one in
/// three (the rest is plain fuzzing), except that a call which reached new
/// coverage always starts or goes on with a chain (they are few, and the
/// most promising).
const I2S_SHARE: u64 = 3;

/// Calls the input-to-state stage may take at the start of a campaign,
/// before its share applies.
const I2S_GRACE: u64 = 4096;

/// Candidates remembered as tried (hashes) before the memory is cleared.
const I2S_TRIED: usize = 1 << 16;

/// How often a worker reports its aggregated `TransactionExecuted` event.
pub const BATCH_INTERVAL: Duration = Duration::from_millis(250);

#[derive(Default)]
struct Batch {
    calls: u32,
    reverts: u32,
    sequences: u32,
    gas: u64,
}

/// What a sequence did.
#[derive(Default)]
struct SeqResult {
    executed: u32,
    reverted: u32,
    new_points: u32,
    falsified: u32,
}

/// The sequence a worker is running: what it executed so far.
struct Running {
    executed: Vec<Tx>,
    gas: Vec<u64>,
    /// Which calls left the state as they were and reached nothing new
    /// (dropped from the corpus entry: see `corpus::compact`).
    inert: Vec<bool>,
    /// The calls so far that changed the state, hashed (what the state an
    /// input-to-state candidate would start from depends on).
    key: u64,
    result: SeqResult,
    /// The last call that reached new coverage.
    last_new: Option<usize>,
    /// The last call that reached a new storage state (kept like new
    /// coverage).
    last_state: Option<usize>,
    /// Whether a call of this sequence gave input-to-state candidates.
    rooted: bool,
}

impl Running {
    fn new(len: usize, key: u64) -> Self {
        Running {
            executed: Vec::with_capacity(len),
            gas: Vec::with_capacity(len),
            inert: Vec::with_capacity(len),
            key,
            result: SeqResult::default(),
            last_new: None,
            last_state: None,
            rooted: false,
        }
    }
}

/// Whether the running sequence goes on after a call.
#[derive(PartialEq, Eq)]
enum Step {
    Next,
    /// A test failed and was shrunk on this worker's executor.
    Falsified,
}

/// Credits `new` coverage points to the sequence, the worker, its origin
/// and the function called.
#[inline]
fn credit_new_points(
    result: &mut SeqResult,
    stats: &WorkerStats,
    fstats: Option<&FunctionStats>,
    source: &Source,
    new: u32,
) {
    let relaxed = Ordering::Relaxed;
    result.new_points += new;
    let now = now_ms();
    stats.last_new_ms.store(now, relaxed);
    stats.origin_points[source.origin().index()].fetch_add(new as u64, relaxed);
    stats.position.points.store(result.new_points, relaxed);
    if let Some(fs) = fstats {
        fs.new_points.fetch_add(new as u64, relaxed);
        fs.last_new_ms.store(now, relaxed);
    }
}

pub(crate) struct Worker {
    pub(crate) id: WorkerId,
    pub(crate) engine: Arc<Engine>,
    pub(crate) ex: Executor,
    pub(crate) rng: SmallRng,
    sampler: Sampler,
    dict: Dictionary,
    /// Functions of contracts the running sequence created that became
    /// targets (a Foundry suite without `targetContracts`).
    created: Vec<generate::Callable>,
    rx: Receiver<Arc<Injection>>,
    total_calls: u64,
    sequences: u64,
    batch: Batch,
    last_batch: Instant,
    /// Where this worker's calls reverted since the last hand-over to the
    /// campaign's census, and each function's calls and reverts as of it.
    census: super::census::CensusBatch,
    census_seen: Vec<(u64, u64)>,
    /// Enabler detours: where the last call reverted, what was learned.
    detours: reverts::Detours,
    budget: CallBudget,
    /// Revert reasons this worker has seen (hashes): the journal keeps a
    /// reverted call only when its reason is new.
    seen_reverts: std::collections::HashSet<u64>,
    /// Whether sequences are kept as traces (journal and `traces` on).
    tracing: bool,
    /// What each call of the running sequence did (when tracing).
    obs: Vec<CallObs>,
    /// When this worker last offered a recent trace.
    last_recent: Instant,
    /// Whether comparison feedback is on (`comparisonFeedback`).
    comparisons: bool,
    /// Input-to-state candidates to run (prefix and candidate call), the
    /// sequence they came from and their chain; the newest run first.
    i2s: std::collections::VecDeque<solve::Job>,
    /// Candidates already queued (hashes of prefix length and calldata).
    i2s_tried: std::collections::HashSet<u64>,
    /// Calls the input-to-state stage ran.
    i2s_calls: u64,
    /// The chain of the running candidate sequence (its last call is the
    /// candidate), if one is running.
    i2s_chain: Option<Chain>,
    /// Checks answered from what they read ([`super::check_cache`]).
    pub(crate) checks: super::check_cache::CheckCache,
    /// The solving stage ([`solve`]).
    solving: solve::Solving,
    /// The running injection's `$n` references and what its calls
    /// produced so far ([`inject`]).
    binding: Option<inject::Binding>,
}

/// The calls an input-to-state candidate follows, and the state they left
/// (shared by every candidate of a chain).
pub(crate) struct Prefix {
    txs: Vec<Tx>,
    gas: Vec<u64>,
    /// Their observations, when traces are kept.
    obs: Vec<CallObs>,
    /// Taken when the chain's first candidate runs (see [`I2S_PREFIX`]).
    state: std::cell::OnceCell<Snapshot>,
    /// Its calls that changed the state, hashed ([`Prefix::mix`]).
    key: u64,
}

impl Prefix {
    /// `key` after `tx`, a call that changed the state and used `gas`
    /// (its function and gas stand for its arguments: encoding them for
    /// every call would cost more than the candidates it saves).
    fn mix(key: u64, tx: &Tx, gas: u64) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (key, tx.to, tx.sender, tx.value, tx.delay, gas).hash(&mut h);
        crate::tx::selector_of(&tx.function).hash(&mut h);
        h.finish()
    }
}

/// Where an input-to-state candidate stands in its chain.
#[derive(Clone, Copy, Default)]
struct Chain {
    /// Candidates before it.
    depth: u8,
    /// The longest path (branches decided) a candidate of the chain reached.
    best: u16,
    /// Whether the chain already went through one candidate with a shorter
    /// path (a rung that broke an earlier one, which the next candidate
    /// mends).
    slack: bool,
}

#[derive(Clone, Copy)]
enum Source {
    Random,
    /// A mutation of this corpus entry.
    Mutation(crate::ids::EntryId),
    /// Injection `id`.
    Injected(u64),
}

/// The last call, as the journal records it (borrowed from the loop).
#[derive(Clone, Copy)]
struct CallMeta<'a> {
    outcome: &'a Outcome,
    gas: u64,
    duration_ns: u64,
    new_points: u32,
    position: u32,
    source: &'a Source,
    /// Whether this is the sequence's last planned call (end-of-sequence
    /// tests are checked after it).
    last: bool,
}

impl Worker {
    pub(crate) fn new(engine: Arc<Engine>, id: WorkerId, rx: Receiver<Arc<Injection>>) -> Self {
        let mut ex = engine.target.executor(id.0 as usize);
        let comparisons = engine.config.comparison_feedback;
        ex.set_comparisons(comparisons);
        ex.set_state_feedback(engine.config.state_feedback);
        let seed = engine.seed.wrapping_add(id.0 as u64);
        Worker {
            id,
            sampler: engine.priorities.sampler(),
            dict: engine.dictionary.clone(),
            rng: SmallRng::seed_from_u64(seed),
            ex,
            rx,
            total_calls: 0,
            sequences: 0,
            batch: Batch::default(),
            last_batch: Instant::now(),
            census: Default::default(),
            census_seen: Vec::new(),
            detours: Default::default(),
            binding: None,
            budget: CallBudget::default(),
            seen_reverts: Default::default(),
            tracing: engine.keeps_traces(),
            obs: Vec::new(),
            last_recent: Instant::now(),
            comparisons,
            i2s: Default::default(),
            i2s_tried: Default::default(),
            i2s_calls: 0,
            i2s_chain: None,
            created: Vec::new(),
            checks: super::check_cache::CheckCache::new(engine.config.check_cache),
            solving: Default::default(),
            engine,
        }
    }

    fn emit(&self, payload: Payload) {
        self.engine.emit(self.id, payload);
    }

    fn row(&self) -> usize {
        self.id.0 as usize
    }

    /// Why this worker should stop now: the campaign is stopping, timed
    /// out, or the call budget is spent.
    fn should_stop(&self) -> Option<StopReason> {
        self.engine.stop_reason().or_else(|| {
            let spent = self.budget.exhausted(&self.engine);
            if spent {
                self.engine.end(super::EndReason::TestLimit);
            }
            spent.then_some(StopReason::TestLimit)
        })
    }

    fn random_tx(&mut self) -> Tx {
        let callables = &self.engine.callable;
        // As forge: a created target's functions join the others, each as
        // likely as any.
        let extra = self.created.len();
        if extra > 0 {
            let k = self.rng.random_range(0..callables.len() + extra);
            if k >= callables.len() {
                let ctx = GenContext::of(&self.engine.config);
                let c = &self.created[k - callables.len()];
                return generate::random_tx(&mut self.rng, &self.dict, &ctx, c);
            }
        }
        let i = self.sampler.pick(&mut self.rng, callables.len());
        self.engine.stats.workers[self.row()].functions[i]
            .generated
            .fetch_add(1, Ordering::Relaxed);
        let ctx = GenContext::of(&self.engine.config);
        generate::random_tx(&mut self.rng, &self.dict, &ctx, &callables[i])
    }

    /// The next random call of a sequence: the call `before` it again while
    /// a streak lasts or when one starts ([`REPEAT_SHARE`]), else a fresh
    /// one.
    fn random_or_repeated_tx(&mut self, before: Option<&Tx>, streak: &mut Option<(Tx, u32)>) -> Tx {
        if let Some((tx, left)) = streak {
            if *left > 0 {
                *left -= 1;
                return tx.clone();
            }
            *streak = None;
        }
        // `REPEAT_SHARE > 0.0` first: a share of 0 draws nothing, and the
        // random stream is the one without repetition.
        if let Some(before) = before
            && REPEAT_SHARE > 0.0
            && self.rng.random_bool(REPEAT_SHARE)
        {
            let left = self.rng.random_range(0..REPEAT_MAX);
            // Its delay too: a reward per epoch needs the time to pass.
            let tx = before.clone();
            *streak = Some((tx.clone(), left));
            return tx;
        }
        self.random_tx()
    }

    /// Runs until the campaign stops. Returns why it stopped.
    ///
    /// Never inlined: scripts/cost_guard.py counts the instructions from
    /// its entry to its exit, by its name.
    #[inline(never)]
    pub(crate) fn run(&mut self) -> StopReason {
        self.emit(Payload::WorkerStarted {
            seed: self.engine.seed.wrapping_add(self.id.0 as u64),
        });
        let reason = loop {
            if let Some(r) = self.should_stop() {
                if r == StopReason::TestLimit && self.engine.config.keep_alive {
                    // Idle, but still serve injections until stopped.
                    match self.rx.recv_timeout(Duration::from_millis(50)) {
                        Ok(inj) => self.run_injection(&inj),
                        Err(_) => {
                            if self.engine.stop.load(Ordering::Acquire) {
                                break StopReason::Stopped;
                            }
                        }
                    }
                    continue;
                }
                break r;
            }
            if let Ok(inj) = self.rx.try_recv() {
                self.run_injection(&inj);
                continue;
            }
            if self.engine.take_panic_request(self.id.0 as usize) {
                panic!("worker {} panicked on request (test fault hook)", self.id.0);
            }
            if self.engine.callable.is_empty() {
                break StopReason::Stopped;
            }
            // The solver waits for the input-to-state candidates queued
            // before it (cheaper, and they come first where they can turn
            // a guard: a factor pair, a flag).
            if self.i2s.is_empty() && self.solve_next() {
                continue;
            }
            if let Some((source, prefix, candidate, chain)) = self.i2s.pop_back() {
                let before = self.total_calls;
                self.i2s_chain = Some(chain);
                self.run_from(source, Some(prefix), vec![candidate], 1);
                self.i2s_chain = None;
                self.i2s_calls += self.total_calls - before;
                continue;
            }
            let corpus = &self.engine.corpus;
            if !corpus.is_empty() && self.rng.random_bool(MUTATION_SHARE) {
                let n = corpus.len();
                // Half the picks among the newest entries: the frontier.
                let pick = if self.rng.random_bool(0.5) {
                    self.rng.random_range(n.saturating_sub(RECENT_ENTRIES)..n)
                } else {
                    self.rng.random_range(0..n)
                };
                let base = corpus.get(crate::ids::EntryId(pick as u64));
                let other = corpus.get(crate::ids::EntryId(self.rng.random_range(0..n) as u64));
                if let (Some(base), Some(other)) = (base, other) {
                    let max = self.engine.config.seq_len;
                    let fresh = self.random_tx();
                    let engine = self.engine.clone();
                    let ctx = GenContext::of(&engine.config);
                    let planned = generate::mutate(
                        &mut self.rng,
                        &self.dict,
                        &ctx,
                        &base.txs,
                        Some(&other.txs),
                        fresh,
                        max,
                    );
                    // Mostly the mutated calls alone (a few more at most), so
                    // that trying a mutation costs its own calls; sometimes
                    // random calls after it up to the sequence length.
                    let len = if self.rng.random_bool(0.3) {
                        max
                    } else {
                        (planned.len() + self.rng.random_range(0..=2)).clamp(1, max)
                    };
                    self.run_sequence(Source::Mutation(base.id), planned, len);
                    continue;
                }
            }
            let max = self.engine.config.seq_len;
            self.run_sequence(Source::Random, Vec::new(), max);
        };
        // An accepted injection is executed by every worker, even one that
        // is stopping: they are short (at most 100 calls).
        if reason != StopReason::Panicked {
            while let Ok(inj) = self.rx.try_recv() {
                self.run_injection(&inj);
            }
        }
        self.abandon_queued_injections();
        self.flush_batch();
        tracing::debug!(
            worker = self.id.0,
            calls = self.total_calls,
            input_to_state = self.i2s_calls,
            solving = self.solving.calls,
            solved = self.solving.found,
            search_terms = self.solving.work,
            search_ms = self.solving.searching.as_millis() as u64,
            blasts = self.solving.blasts,
            blasts_found = self.solving.blasts_found,
            blasts_unsat = self.solving.blasts_unsat,
            blasts_cut = self.solving.blasts_cut,
            "worker done"
        );
        reason
    }

    fn flush_batch(&mut self) {
        if self.batch.calls > 0 || self.batch.sequences > 0 {
            self.emit(Payload::TransactionExecuted {
                calls: self.batch.calls,
                reverts: self.batch.reverts,
                sequences: self.batch.sequences,
                gas_used: self.batch.gas,
                total_calls: self.total_calls,
            });
        }
        self.hand_over_census();
        let stats = &self.engine.stats.workers[self.id.0 as usize];
        let counts = self.checks.counts;
        stats.checks_run.store(counts.run, Ordering::Relaxed);
        stats
            .checks_skipped
            .store(counts.skipped, Ordering::Relaxed);
        stats.gas.fetch_add(self.batch.gas, Ordering::Relaxed);
        self.batch = Batch::default();
        self.last_batch = Instant::now();
    }

    /// Runs `planned`, then random calls up to `len` calls, from the
    /// deployed state.
    fn run_sequence(&mut self, source: Source, planned: Vec<Tx>, len: usize) -> SeqResult {
        self.run_from(source, None, planned, len)
    }

    /// Runs `planned`, then random calls up to `len` calls, after `prefix`
    /// (from its snapshot) or from the deployed state.
    fn run_from(
        &mut self,
        source: Source,
        prefix: Option<Rc<Prefix>>,
        planned: Vec<Tx>,
        len: usize,
    ) -> SeqResult {
        let mut run = Running::new(len, prefix.as_ref().map_or(0, |p| p.key));
        self.obs.clear();
        self.created.clear();
        if let Some(p) = &prefix {
            if !self.reach(p, source.origin().index()) {
                return SeqResult::default();
            }
            if !self.engine.created.is_empty() {
                for a in self.ex.created_contracts() {
                    self.discover(a);
                }
            }
            run.executed.extend_from_slice(&p.txs);
            run.gas.extend_from_slice(&p.gas);
            run.inert.resize(p.txs.len(), false);
            self.obs.extend_from_slice(&p.obs);
        }
        let first = run.executed.len();
        let end = first + len.max(planned.len());
        let engine = self.engine.clone();
        let stats = &engine.stats.workers[self.row()];
        self.show_position(stats, &source, end);
        let preemptible = !matches!(source, Source::Injected(_));
        let mut planned = planned.into_iter();
        // A streak of the call before repeated: (the call, repeats left).
        let mut streak: Option<(Tx, u32)> = None;
        // Calls to make next, last first (an enabler, then the call that
        // reverted at its guard).
        let mut detour: Vec<Tx> = Vec::new();
        self.detours.probe = None;
        for i in first..end {
            if preemptible
                && (!self.rx.is_empty()
                    || self.engine.stop_reason().is_some()
                    || !self.budget.take(&engine))
            {
                break;
            }
            let tx = match planned.next() {
                // An injected call's `$n` references are filled from what
                // the calls before it produced; one that cannot be ends
                // the injection.
                Some(mut t) => match self.bind(i - first, &mut t) {
                    Ok(()) => t,
                    Err(why) => {
                        tracing::debug!(
                            worker = self.id.0,
                            call = i - first + 1,
                            why,
                            "injection cut short"
                        );
                        break;
                    }
                },
                None => match detour.pop() {
                    Some(t) => t,
                    None => self.random_or_repeated_tx(run.executed.last(), &mut streak),
                },
            };
            self.detours.reverted_at = None;
            // The candidate of an input-to-state sequence logs its whole
            // path: a rung it broke shows again.
            let candidate = self.i2s_chain.is_some() && planned.len() == 0;
            let last = i + 1 == end;
            if self.step(&mut run, stats, &source, &prefix, tx, (i, last), candidate)
                == Step::Falsified
            {
                // The executor was used for shrinking: this sequence is over
                // (the falsifying call was journaled with the falsification).
                break;
            }
            if preemptible
                && detour.is_empty()
                && planned.len() == 0
                && engine.config.enabler_feedback
            {
                self.plan_detour(&engine, &run, &mut detour);
            }
        }
        self.ex.reset();
        self.created.clear();
        self.sequences += 1;
        self.batch.sequences += 1;
        stats.sequences.fetch_add(1, Ordering::Relaxed);
        self.keep(&source, run)
    }

    /// The worker's position (what it runs, how far) for `status`.
    fn show_position(&self, stats: &WorkerStats, source: &Source, end: usize) {
        let relaxed = Ordering::Relaxed;
        let pos = &stats.position;
        pos.source.store(source.origin().index() as u8 + 1, relaxed);
        pos.planned.store(end as u32, relaxed);
        pos.done.store(0, relaxed);
        pos.points.store(0, relaxed);
        pos.start_points
            .store(self.engine.target.coverage.points(), relaxed);
        pos.started_ms.store(now_ms(), relaxed);
    }

    /// One call of the running sequence: execute it, count it, learn from
    /// it, keep its coverage and state, offer input-to-state candidates,
    /// check the tests, journal it.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn step(
        &mut self,
        run: &mut Running,
        stats: &WorkerStats,
        source: &Source,
        prefix: &Option<Rc<Prefix>>,
        tx: Tx,
        (i, last): (usize, bool),
        candidate: bool,
    ) -> Step {
        let journal = self.engine.journal().is_some();
        if candidate {
            self.ex.set_comparisons_on_path(true);
        }
        // Injected sequences start no chain: they are the agent's calls,
        // run by every worker, and what follows them is not injected.
        let may_root = self.comparisons
            && !matches!(source, Source::Injected(_))
            && !run.rooted
            && self.i2s_chain.is_none()
            && i < I2S_PREFIX;
        let started = journal.then(Instant::now);
        let r = self.ex.call(&tx);
        if self.binding.is_some() {
            self.produced(&tx, &r);
        }
        if candidate {
            self.ex.set_comparisons_on_path(false);
        }
        let duration_ns = started.map_or(0, |t| t.elapsed().as_nanos() as u64);
        // One keccak per call, shared by the statistics and the
        // comparison pools.
        let selector = tx.selector();
        let k = self.engine.callable_index(tx.to, &selector);
        let fstats = k.map(|k| &stats.functions[k]);
        self.count(run, stats, fstats, source, (&tx, &r), i, k);
        self.learn(&tx, selector, &r);
        run.executed.push(tx);
        run.gas.push(r.gas_used);
        let new = self.ex.commit_coverage();
        let states = self.ex.new_states();
        if states > 0 {
            run.last_state = Some(i);
        }
        let key_before = run.key;
        let changed = !self.ex.last_call_inert();
        // Only input-to-state candidates read the key.
        if changed && self.comparisons {
            run.key = Prefix::mix(run.key, run.executed.last().expect("pushed"), r.gas_used);
        }
        run.inert.push(!changed && new == 0 && states == 0);
        if self.tracing {
            let mut o = CallObs::of(&r.outcome, r.gas_used, duration_ns);
            o.new_points = new;
            self.obs.push(o);
        }
        // A candidate's successors share its prefix; another call may
        // start a chain, once per sequence; any other that met a guard is
        // offered to the solving stage (ranked after candidates' calls).
        if candidate || may_root {
            let same = prefix.clone().filter(|_| candidate);
            run.rooted |= self.offer_candidates(
                *source,
                same,
                (&run.executed, &run.gas, &run.inert, key_before),
                new > 0 || states > 0,
            );
        } else if self.comparisons && !matches!(source, Source::Injected(_)) && i < I2S_PREFIX {
            self.offer_to_solver(*source, (&run.executed, &run.gas, &run.inert, key_before));
        }
        if new > 0 {
            run.last_new = Some(i);
            credit_new_points(&mut run.result, stats, fstats, source, new);
        }
        let meta = CallMeta {
            outcome: &r.outcome,
            gas: r.gas_used,
            duration_ns,
            new_points: new,
            position: i as u32,
            source,
            last,
        };
        let checked = self.check_tests(&run.executed, &run.gas, meta, &r);
        if checked.is_some_and(|f| f > 0) {
            run.result.falsified += checked.unwrap_or(0);
            return Step::Falsified;
        }
        if journal && self.worth_journaling(&meta) {
            self.journal_call(run.executed.last().expect("pushed"), meta, false);
        }
        if self.last_batch.elapsed() >= BATCH_INTERVAL {
            self.flush_batch();
        }
        Step::Next
    }

    /// Counts a call in the worker's, the function's and the origin's
    /// statistics (calls, gas, reverts by kind) and the worker's position.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn count(
        &mut self,
        run: &mut Running,
        stats: &WorkerStats,
        fstats: Option<&FunctionStats>,
        source: &Source,
        (tx, r): (&Tx, &CallResult),
        i: usize,
        k: Option<usize>,
    ) {
        let relaxed = Ordering::Relaxed;
        let origin = source.origin().index();
        self.total_calls += 1;
        stats.calls.fetch_add(1, relaxed);
        self.batch.calls += 1;
        self.batch.gas += r.gas_used;
        run.result.executed += 1;
        if let Some(fs) = fstats {
            bump(&fs.calls);
            bump(&fs.gas[super::gas_bucket(r.gas_used)]);
        }
        bump(&stats.origin_calls[origin]);
        stats.position.done.store(i as u32 + 1, relaxed);
        if let Some(k) = k {
            stats.position.last_function.store(k as u32 + 1, relaxed);
        }
        self.detours.last_ok = matches!(r.outcome, Outcome::Success { .. });
        if self.detours.last_ok {
            return;
        }
        run.result.reverted += 1;
        self.batch.reverts += 1;
        bump(&stats.origin_reverts[origin]);
        if let Some(k) = k {
            let site = self.ex.last_revert();
            if let Some(guard) = site.and_then(|(s, _)| s.guard) {
                self.detours.reverted_at = Some((guard, k, self.ex.last_revert_shortfall()));
            }
            self.census.revert(k, site, &r.outcome, tx);
        }
        if let Some(fs) = fstats {
            bump(&fs.reverts);
            use crate::executor::RevertReason as R;
            match &r.outcome {
                Outcome::Revert {
                    reason: R::Panic(_),
                } => bump(&fs.panics),
                Outcome::Revert { reason: R::Raw(_) } => bump(&fs.raw_reverts),
                Outcome::Halt { .. } => bump(&fs.halts),
                _ => {}
            }
        }
    }

    /// Feeds the dictionary what a call showed: returned words, logged
    /// words, created addresses, and (with comparison feedback) the
    /// operands its comparisons saw.
    #[inline]
    fn learn(&mut self, tx: &Tx, selector: alloy_primitives::Selector, r: &CallResult) {
        if let Outcome::Success { output } = &r.outcome {
            self.dict.add_words(output);
        }
        for w in self.ex.take_log_words() {
            self.dict.add_b256(w);
        }
        for a in self.ex.take_created() {
            self.dict.add_address(a);
            self.discover(a);
        }
        if self.comparisons && !self.ex.comparisons().is_empty() {
            self.dict.learn(selector, &tx.args, self.ex.comparisons());
        }
    }

    /// Makes the contract the sequence just created at `a` a target for the
    /// rest of the sequence, when it is one of the project's contracts a
    /// suite's calls may create.
    fn discover(&mut self, a: alloy_primitives::Address) {
        /// Functions of created contracts a sequence calls at most.
        const CREATED_CAP: usize = 256;
        if self.engine.created.is_empty() || self.created.len() >= CREATED_CAP {
            return;
        }
        let Some(code) = self.ex.created_code(a) else {
            return;
        };
        let Some(known) = self.engine.created.iter().find(|c| c.target.is(&code)) else {
            return;
        };
        if self.created.iter().any(|c| c.to == Some(a)) {
            return;
        }
        for c in &known.callables {
            let mut c = c.clone();
            c.to = Some(a);
            self.created.push(c);
        }
        if let Some(id) = known.target.code {
            self.ex.cover_at(a, id);
        }
    }

    /// What a finished sequence leaves: a corpus entry (up to its last new
    /// point or state, compacted; injected sequences whole) with its trace
    /// and event, or a recent trace now and then.
    fn keep(&mut self, source: &Source, run: Running) -> SeqResult {
        let Running {
            mut executed,
            mut gas,
            inert,
            result,
            last_new,
            last_state,
            ..
        } = run;
        let origin = source.origin();
        let mut traced = result.falsified > 0;
        if self.tracing && matches!(source, Source::Injected(_)) {
            let t = self.trace(TraceRole::Injection, source, executed.clone());
            self.engine.journal_send(|| Record::Trace(Box::new(t)));
            traced = true;
        }
        // Injected sequences are kept whole; others up to their last new
        // point or state.
        let keep = match (last_new.max(last_state), origin) {
            (Some(_), Origin::Injected) if last_new.is_some() => Some(executed.len()),
            (Some(i), _) => Some(i + 1),
            (None, _) => None,
        };
        if let Some(n) = keep {
            executed.truncate(n);
            gas.truncate(n);
            if origin != Origin::Injected {
                let at = crate::corpus::compact(&mut executed, &mut gas, &inert[..n]);
                if self.tracing {
                    self.obs = self.obs_at(&at);
                }
            }
            let calls = executed.len() as u32;
            let kept = self.tracing.then(|| executed.clone());
            let Some(entry) =
                self.engine
                    .add_corpus(Some(self.id), origin, result.new_points, executed, gas)
            else {
                // Another worker kept the same sequence first: its entry
                // and event stand for this find.
                return result;
            };
            if let Some(txs) = kept {
                let mut t = self.trace(TraceRole::Corpus, source, txs);
                t.corpus_entry = Some(entry.id.0);
                self.engine.journal_send(|| Record::Trace(Box::new(t)));
            }
            // One event per corpus entry; `new_points` 0 is a new storage
            // state (state feedback).
            self.emit(Payload::CoverageIncreased {
                entry: entry.id,
                new_points: result.new_points,
                total_points: self.engine.target.coverage.points() as u32,
                calls,
            });
        } else if self.tracing && !traced && self.last_recent.elapsed() >= RECENT_INTERVAL {
            self.last_recent = Instant::now();
            let t = self.trace(TraceRole::Recent, source, executed);
            self.engine.journal_send(|| Record::Trace(Box::new(t)));
        }
        result
    }

    /// A trace of `txs` (the first calls of the running sequence).
    fn trace(&self, role: TraceRole, source: &Source, txs: Vec<Tx>) -> TraceRecord {
        let calls = self.obs[..txs.len().min(self.obs.len())].to_vec();
        let mut t = TraceRecord::new(role, source.origin(), txs, calls);
        t.worker = Some(self.id.0);
        t.window = self.engine.config.trace_window;
        match source {
            Source::Mutation(e) => t.source_entry = Some(e.0),
            Source::Injected(id) => t.injection = Some(*id),
            Source::Random => {}
        }
        t
    }

    /// Whether the journal keeps this call: it raised coverage, reverted
    /// with a reason this worker had not seen, or was injected.
    fn worth_journaling(&mut self, meta: &CallMeta<'_>) -> bool {
        if meta.new_points > 0 || matches!(meta.source, Source::Injected(_)) {
            return true;
        }
        match meta.outcome {
            Outcome::Success { .. } => false,
            other => {
                use std::hash::{Hash, Hasher};
                let mut h = std::collections::hash_map::DefaultHasher::new();
                other.hash_key().hash(&mut h);
                self.seen_reverts.insert(h.finish())
            }
        }
    }

    /// Hands the call to the journal (rendered by the journal thread).
    fn journal_call(&self, tx: &Tx, meta: CallMeta<'_>, falsified: bool) {
        self.engine.journal_send(|| {
            crate::journal::Record::Call(Box::new(crate::journal::CallRecord {
                worker: self.id,
                sequence: self.sequences,
                source: meta.source.origin(),
                position: meta.position,
                // Taken when the call is journaled (rare), not on every call.
                ts_ms: now_ms(),
                tx: tx.clone(),
                outcome: meta.outcome.clone(),
                gas: meta.gas,
                duration_ns: meta.duration_ns,
                new_points: meta.new_points,
                falsified,
                injection: match meta.source {
                    Source::Injected(id) => Some(*id),
                    _ => None,
                },
            }))
        });
    }
}

/// Adds one to a counter only this worker writes (load + store: no
/// read-modify-write on the cache line).
#[inline]
fn bump(c: &std::sync::atomic::AtomicU64) {
    c.store(c.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
}

impl Source {
    fn origin(&self) -> Origin {
        match self {
            Source::Random => Origin::Random,
            Source::Mutation(_) => Origin::Mutation,
            Source::Injected(_) => Origin::Injected,
        }
    }
}
