//! After each call: the tests checked (properties, assertions, specs,
//! optimization values), a falsification settled and shrunk.

use super::*;

/// How often a shrinking worker saves its best sequence so far to the
/// test's reproducer file (the writer thread writes it atomically).
const SAVE_SHRINK_EVERY: Duration = Duration::from_secs(1);

/// One call a worker just made, with the sequence it ends, as a test mode's
/// [`after_call`](crate::campaign::modes::Mode::after_call) sees it.
pub(crate) struct AfterCall<'a> {
    executed: &'a [Tx],
    /// Gas of each call of `executed`.
    gas: &'a [u64],
    meta: CallMeta<'a>,
    last: &'a crate::executor::CallResult,
}

impl AfterCall<'_> {
    /// The sequence's gas, summed only when something is falsified.
    fn seq_gas(&self) -> u64 {
        self.gas.iter().fold(0u64, |a, g| a.saturating_add(*g))
    }
}

impl Worker {
    /// Checks the tests after the last call of `executed` (whose calls used
    /// `gas`), as the campaign's test mode says; returns how many were newly
    /// falsified (`None` when the mode's tests are not falsified by calls).
    pub(super) fn check_tests(
        &mut self,
        executed: &[Tx],
        gas: &[u64],
        meta: CallMeta<'_>,
        last: &crate::executor::CallResult,
    ) -> Option<u32> {
        let mode = crate::campaign::modes::of(self.engine.config.test_mode);
        let call = AfterCall {
            executed,
            gas,
            meta,
            last,
        };
        mode.after_call(self, &call)
    }

    /// Why the call breaks the properties `failOnRevert` covers: its revert
    /// (`None` when it did not revert or the option is off).
    pub(crate) fn reverted(&mut self, call: &AfterCall<'_>) -> Option<String> {
        Oracle::new(&self.engine, &mut self.ex).call_reverted(call.last)
    }

    /// The per-call test of the function the call called (on the contract it
    /// called): broken when the call failed an assertion (or, with
    /// `overflow`, overflowed); returns whether it was newly falsified.
    pub(crate) fn check_call(&mut self, call: &AfterCall<'_>, overflow: bool) -> u32 {
        let engine = self.engine.clone();
        let tx = call.executed.last().expect("one call ran");
        let Some(reason) = crate::campaign::modes::call_fails(&engine, overflow, call.last) else {
            return 0;
        };
        let Some(case) = engine.tests.cases().find(|c| c.checks_call(tx)) else {
            return 0;
        };
        if !engine.tests.is_open(case.id) {
            return 0;
        }
        if let Some(o) = self.obs.last_mut() {
            o.mark(case.id, true);
        }
        let executed = call.executed.to_vec();
        self.on_falsified(case, executed, call.seq_gas(), reason, call.meta) as u32
    }

    /// Reads every optimization test's value on the state the call left and
    /// keeps a better one with the sequence that reached it.
    pub(crate) fn improve_optima(&mut self, call: &AfterCall<'_>) {
        let engine = self.engine.clone();
        for case in engine.tests.cases().filter(|c| c.kind.seeks_value()) {
            let value = self.checks.value(&mut self.ex, case, |ex| {
                Oracle::new(&engine, ex).optimization_value(case)
            });
            let Some(v) = value else { continue };
            let improved = engine.tests.offer(case.id, v, || Optimum {
                value: v,
                sequence: call.executed.to_vec(),
                worker: Some(self.id),
                found_ms: now_ms(),
            });
            if !improved {
                continue;
            }
            if self.tracing {
                let mut t = self.trace(
                    TraceRole::Optimization,
                    call.meta.source,
                    call.executed.to_vec(),
                );
                t.test = Some(case.id);
                t.value = Some(v.to_string());
                engine.journal_send(|| Record::Trace(Box::new(t)));
            }
            let limbs = v.into_raw().into_limbs();
            self.emit(Payload::OptimizationImproved {
                test: case.id,
                value: limbs,
            });
            engine.persist_optimum(case.id);
        }
    }

    /// Checks the specs added at run time (in property mode they are
    /// checked with the other properties); returns how many were newly
    /// falsified.
    pub(crate) fn check_specs(&mut self, call: &AfterCall<'_>) -> u32 {
        self.check_held(call, None, |c| c.spec.is_some())
    }

    /// Checks the open tests `which` selects as properties (a view that
    /// must hold; with `failOnRevert`, `reverted` says why the call broke
    /// those [`TestCase::breaks_on_revert`] covers); returns how many were
    /// newly falsified.
    pub(crate) fn check_held(
        &mut self,
        call: &AfterCall<'_>,
        reverted: Option<String>,
        which: impl Fn(&TestCase) -> bool,
    ) -> u32 {
        let meta = call.meta;
        let engine = self.engine.clone();
        // Every test is checked on the state the call left before any is
        // settled (shrinking one moves the executor), end-of-sequence tests
        // last (they may write).
        let order = (engine.tests.cases().filter(|c| !c.at_end))
            .chain(engine.tests.cases().filter(|c| c.at_end && meta.last));
        let mut failing = Vec::new();
        for case in order {
            if !which(case) || !engine.tests.is_open(case.id) {
                continue;
            }
            let fails = match &reverted {
                Some(why) if case.breaks_on_revert() => Some(why.clone()),
                _ => self.checks.fails(&mut self.ex, case, |ex| {
                    Oracle::new(&engine, ex).property_fails(case)
                }),
            };
            if let Some(o) = self.obs.last_mut() {
                o.mark(case.id, fails.is_some());
            }
            if let Some(reason) = fails {
                failing.push((case, reason));
            }
        }
        let mut falsified = 0;
        for (case, reason) in failing {
            let executed = call.executed.to_vec();
            falsified += self.on_falsified(case, executed, call.seq_gas(), reason, meta) as u32;
        }
        falsified
    }

    /// Claims `case`, records the counterexample (whose calls used `gas`),
    /// shrinks it. Returns whether this worker was the one to falsify it.
    pub(super) fn on_falsified(
        &mut self,
        case: &TestCase,
        seq: Vec<Tx>,
        gas: u64,
        reason: String,
        meta: CallMeta<'_>,
    ) -> bool {
        let engine = self.engine.clone();
        if !engine.tests.claim(case.id) {
            return false;
        }
        // The falsifying call first: the falsification's parent in the journal.
        if let Some(last) = seq.last() {
            self.journal_call(last, meta, true);
        }
        let found_ms = now_ms();
        let me = self.id;
        let record = |reason: String, shrunk: Vec<Tx>, steps: u64, done: bool| Falsification {
            worker: Some(me),
            found_by: FoundBy::Worker,
            first_found_by: FoundBy::Worker,
            found_ms,
            reason,
            original: seq.clone(),
            shrunk,
            shrink_steps: steps,
            shrink_done: done,
            gas_used: gas,
        };
        engine.tests.close_at(case.id, engine.stats.calls());
        // In the shared store before anyone hears of it (shared campaigns).
        engine.share_finding_now(case, &seq, &reason);
        engine
            .tests
            .set_falsified(case.id, record(reason.clone(), Vec::new(), 0, false));
        self.emit(Payload::PropertyFalsified {
            test: case.id,
            calls: seq.len() as u32,
            gas_used: gas,
        });
        engine.persist_reproducer(case.id);
        if self.tracing {
            let mut t = self.trace(TraceRole::Falsifying, meta.source, seq.clone());
            t.test = Some(case.id);
            engine.journal_send(|| Record::Trace(Box::new(t)));
        }
        let id = self.id;
        let shrinking = &engine.stats.workers[id.0 as usize].shrinking;
        shrinking.store(true, Ordering::Relaxed);
        let mut oracle = Oracle::new(&engine, &mut self.ex);
        let mut saved = Instant::now();
        let r = super::super::shrink::shrink(
            &mut oracle,
            &mut self.rng,
            Goal::Fails(case),
            seq.clone(),
            engine.config.shrink_limit,
            &mut |steps, best| {
                // The best so far is the test's counterexample for readers
                // (status, dashboard) and, saved now and then, for a
                // resume after a kill (which goes on shrinking from it).
                engine
                    .tests
                    .set_falsified(case.id, record(reason.clone(), best.to_vec(), steps, false));
                if saved.elapsed() >= SAVE_SHRINK_EVERY {
                    saved = Instant::now();
                    engine.persist_reproducer(case.id);
                }
                engine.emit(
                    id,
                    Payload::TestShrunk {
                        test: case.id,
                        calls: best.len() as u32,
                        steps: steps as u32,
                        done: false,
                    },
                )
            },
        );
        shrinking.store(false, Ordering::Relaxed);
        if self.tracing {
            self.trace_shrink(case, &r.trail, &r.txs, r.steps);
        }
        // The shrunk sequence's own reason, with the message its code
        // emitted: the numbers in it are those of the calls the reproducer
        // replays, not the original's.
        let shrunk_reason = Oracle::new(&engine, &mut self.ex)
            .explain(case, &r.txs)
            .unwrap_or_else(|| reason.clone());
        let calls = r.txs.len() as u32;
        engine
            .tests
            .set_falsified(case.id, record(shrunk_reason, r.txs, r.steps, true));
        self.emit(Payload::TestShrunk {
            test: case.id,
            calls,
            steps: r.steps as u32,
            done: true,
        });
        engine.persist_reproducer(case.id);
        if engine.config.stop_on_fail {
            engine.end(super::super::EndReason::StopOnFail);
        } else if engine.tests.all_decided() && !engine.config.keep_alive {
            engine.end(super::super::EndReason::AllTestsDecided);
        }
        true
    }

    /// Keeps shrinking's accepted steps (and the result) as traces, each
    /// replayed for what its calls did.
    pub(super) fn trace_shrink(
        &mut self,
        case: &TestCase,
        trail: &[(u64, Vec<Tx>)],
        last: &[Tx],
        steps: u64,
    ) {
        let engine = self.engine.clone();
        let mut all: Vec<(u64, &[Tx])> = trail.iter().map(|(n, t)| (*n, t.as_slice())).collect();
        if all.last().is_none_or(|(_, t)| *t != last) {
            all.push((steps, last));
        }
        let n = all.len();
        for (k, (replays, txs)) in all.into_iter().enumerate() {
            let calls = Oracle::new(&engine, &mut self.ex).trace(case, txs);
            let mut t = TraceRecord::new(TraceRole::Shrink, Origin::Random, txs.to_vec(), calls);
            t.worker = Some(self.id.0);
            t.test = Some(case.id);
            t.shrink_step = Some(k as u32 + 1);
            t.replays = Some(replays);
            t.final_step = k + 1 == n;
            engine.journal_send(|| Record::Trace(Box::new(t)));
        }
    }
}
