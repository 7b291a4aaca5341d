//! The replay oracle: runs a sequence from the deployed state on an executor
//! and answers one question about it — does test `t` still fail, and after
//! which call; does the optimization reach value `v`; what coverage does it
//! add. Shrinking, resume (replaying saved reproducers and corpus entries)
//! and the workers' own test checks ask it; it needs an executor and the
//! stores, nothing of a worker's loop.

use super::Engine;
use super::modes::{self, Step, Verdict};
use super::properties::TestCase;
use crate::executor::{CallResult, Executor, Outcome};
use crate::ids::TestId;
use crate::journal::traces::CallObs;
use crate::tx::Tx;
use alloy_primitives::{I256, U256};

/// What a replay must show.
#[derive(Clone, Copy, Debug)]
pub enum Goal<'c> {
    /// The test fails (a property is false or reverts, an assertion or
    /// overflow fires on a call of its function).
    Fails(&'c TestCase),
    /// The optimization test's value reaches at least this.
    Reaches(&'c TestCase, I256),
}

impl<'c> Goal<'c> {
    pub fn case(&self) -> &'c TestCase {
        match self {
            Goal::Fails(c) | Goal::Reaches(c, _) => c,
        }
    }
}

/// One call of a [`Oracle::dry_run`].
#[derive(Clone, Debug)]
pub struct DryStep {
    /// The call as it ran (its references filled in).
    pub call: Tx,
    pub result: CallResult,
    /// Points the call reached that the executor's coverage map had not.
    pub new_points: u32,
    /// Tests failing after the call (properties in the state it left; the
    /// assertion test of the function it called).
    pub failing: Vec<TestId>,
}

/// Why a dry run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DryStop {
    /// Every call ran.
    Complete,
    /// The deadline came first.
    Deadline,
    /// The next call's block time was past the window's end.
    Window,
    /// A `$n` reference of the next call could not be filled (the call it
    /// reads failed, or produced no such value).
    Unbound,
}

/// What a dry run did.
#[derive(Clone, Debug)]
pub struct DryRun {
    pub steps: Vec<DryStep>,
    pub stop: DryStop,
    /// Why the next call could not run ([`DryStop::Unbound`]).
    pub unbound: Option<String>,
}

/// A replay that met its goal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hit {
    /// The goal was met after this many calls (the sequence's prefix that
    /// reproduces it).
    pub calls: usize,
    /// Gas those calls used.
    pub gas: u64,
}

/// Answers questions about sequences on one executor.
pub struct Oracle<'a> {
    engine: &'a Engine,
    ex: &'a mut Executor,
}

impl<'a> Oracle<'a> {
    pub fn new(engine: &'a Engine, ex: &'a mut Executor) -> Self {
        Oracle { engine, ex }
    }

    pub fn engine(&self) -> &Engine {
        self.engine
    }

    /// Replays `seq` from the deployed state with coverage recording off;
    /// `Some(hit)` if `goal` is met after call `hit.calls - 1`.
    pub fn check(&mut self, goal: Goal<'_>, seq: &[Tx]) -> Option<Hit> {
        self.check_why(goal, seq).map(|(hit, _)| hit)
    }

    /// As [`check`](Self::check), with why the test failed (a failing goal's
    /// reason, `None` for an optimization value reached).
    pub fn check_why(&mut self, goal: Goal<'_>, seq: &[Tx]) -> Option<(Hit, Option<String>)> {
        self.ex.reset();
        self.ex.set_recording(false);
        let case = goal.case();
        let mut hit = None;
        let mut gas = 0u64;
        // An optimization value may be reached before any call.
        if let Goal::Reaches(_, target) = goal
            && self.optimization_value(case).is_some_and(|v| v >= target)
        {
            self.ex.reset();
            self.ex.set_recording(true);
            return Some((Hit { calls: 0, gas: 0 }, None));
        }
        for (i, tx) in seq.iter().enumerate() {
            let r = self.ex.call(tx);
            gas = gas.saturating_add(r.gas_used);
            let met = match goal {
                Goal::Fails(case) => {
                    let step = Step {
                        i,
                        len: seq.len(),
                        tx,
                        result: &r,
                    };
                    modes::verdict(self, case, step).fails().map(Some)
                }
                Goal::Reaches(_, target) => self
                    .optimization_value(case)
                    .is_some_and(|v| v >= target)
                    .then_some(None),
            };
            if let Some(why) = met {
                hit = Some((Hit { calls: i + 1, gas }, why));
                break;
            }
        }
        self.ex.reset();
        self.ex.set_recording(true);
        hit
    }

    /// Why `case` fails on `seq` (a counterexample), in the words its code
    /// gave: the failure's reason with the message the failing call or
    /// check emitted before it (an assertion library's `AssertEqFail(..)`,
    /// an `AssertionFailed(..)`, DSTest's logs; see
    /// [`ErrorBook::explain`](crate::executor::errors::ErrorBook::explain)).
    /// The replay runs under the inspector to see logs of frames that
    /// reverted: for reporting a failure, not for shrinking's replays.
    /// `None` if `seq` does not fail `case`.
    pub fn explain(&mut self, case: &TestCase, seq: &[Tx]) -> Option<String> {
        // Without a message event declared there is nothing to read back:
        // the replay runs as any other.
        let errors = &self.engine.target.errors;
        self.ex.set_messages(errors.has_messages());
        let why = self
            .check_why(Goal::Fails(case), seq)
            .and_then(|(_, why)| why)
            .map(|w| errors.explain(w, self.ex.last_messages()));
        self.ex.set_messages(false);
        why
    }

    /// With `failOnRevert`, why call `r` breaks the properties: it reverted
    /// (or halted), and not because `vm.assume` rejected its input.
    pub fn call_reverted(&self, r: &CallResult) -> Option<String> {
        use crate::executor::RevertReason;
        if !self.engine.config.fail_on_revert {
            return None;
        }
        match &r.outcome {
            Outcome::Success { .. } => None,
            Outcome::Revert {
                reason: RevertReason::Error(m),
            } if m == crate::executor::cheatcodes::ASSUME_REJECTED => None,
            other => Some(format!(
                "a call {} (failOnRevert)",
                self.engine.target.errors.describe(other)
            )),
        }
    }

    /// `Some(reason)` if the property is false (or reverts) in the current
    /// state. A property named `{prefix}revert_…` holds only when it reverts
    /// (Echidna's convention).
    pub fn property_fails(&mut self, case: &TestCase) -> Option<String> {
        let config = &self.engine.config;
        if let Some(spec) = &case.spec {
            let sender = config.psender;
            let ex = &mut *self.ex;
            return spec.fails(
                |v| match ex.call_view_data(v.calldata.clone(), sender).outcome {
                    Outcome::Success { output } => super::spec::first_word(&output),
                    other => Err(format!("{} {other}", v.text)),
                },
            );
        }
        let must_revert = case
            .name
            .strip_prefix(&config.prefix)
            .is_some_and(|rest| rest.starts_with("revert_"));
        let outcome = if case.at_end {
            let gas = self.engine.target.settings.gas_limit;
            self.ex
                .call_view_with_gas(&case.function, config.psender, gas)
        } else {
            self.ex.call_view(&case.function, config.psender)
        }
        .outcome;
        if must_revert {
            return match outcome {
                Outcome::Success { .. } => Some("did not revert".into()),
                _ => None,
            };
        }
        match outcome {
            // A Foundry invariant returns nothing: it holds when it does not revert.
            Outcome::Success { .. } if case.function.outputs.is_empty() => None,
            Outcome::Success { output } => {
                if output.len() >= 32 && U256::from_be_slice(&output[..32]) == U256::from(1) {
                    None
                } else {
                    Some("returned false".into())
                }
            }
            other => Some(self.engine.target.errors.describe(&other)),
        }
    }

    /// The optimization test's value in the current state.
    pub fn optimization_value(&mut self, case: &TestCase) -> Option<I256> {
        match self
            .ex
            .call_view(&case.function, self.engine.config.psender)
            .outcome
        {
            Outcome::Success { output } if output.len() >= 32 => {
                Some(I256::from_raw(U256::from_be_slice(&output[..32])))
            }
            _ => None,
        }
    }

    /// Runs `seq` from the deployed state for its coverage alone (no test
    /// checks); returns the new coverage points it reached.
    pub fn replay_for_coverage(&mut self, seq: &[Tx]) -> u32 {
        self.replay(seq, None)
    }

    /// As [`replay_for_coverage`](Self::replay_for_coverage), observing
    /// each call for a trace (a corpus entry reloaded on resume).
    pub fn replay_observed(&mut self, seq: &[Tx]) -> (u32, Vec<CallObs>) {
        let mut obs = Vec::with_capacity(seq.len());
        (self.replay(seq, Some(&mut obs)), obs)
    }

    fn replay(&mut self, seq: &[Tx], mut obs: Option<&mut Vec<CallObs>>) -> u32 {
        self.ex.reset();
        for tx in seq {
            let started = std::time::Instant::now();
            let r = self.ex.call(tx);
            if let Some(obs) = obs.as_deref_mut() {
                let ns = started.elapsed().as_nanos() as u64;
                obs.push(CallObs::of(&r.outcome, r.gas_used, ns));
            }
        }
        let new = self.ex.commit_coverage();
        self.ex.reset();
        new
    }

    /// Runs `seq` from the deployed state for its coverage with `case`
    /// checked after each call, as a worker checks an open property: the
    /// coverage of a falsified test's reproducer, its property function's
    /// own lines included (a resumed run covers what the run it resumes
    /// covered). Returns the new coverage points it reached.
    pub fn replay_reproducer_for_coverage(&mut self, case: &TestCase, seq: &[Tx]) -> u32 {
        self.ex.reset();
        for (i, tx) in seq.iter().enumerate() {
            self.ex.call(tx);
            if case.kind.must_hold() && case.checked_after(i, seq.len()) {
                let _ = self.property_fails(case);
            }
        }
        let new = self.ex.commit_coverage();
        self.ex.reset();
        new
    }

    /// Replays `seq` from the deployed state and observes each call for a
    /// trace: outcome, gas, time, and whether `case` held after it.
    pub fn trace(&mut self, case: &TestCase, seq: &[Tx]) -> Vec<CallObs> {
        self.ex.reset();
        self.ex.set_recording(false);
        let mut out = Vec::with_capacity(seq.len());
        for (i, tx) in seq.iter().enumerate() {
            let started = std::time::Instant::now();
            let r = self.ex.call(tx);
            let mut obs = CallObs::of(&r.outcome, r.gas_used, started.elapsed().as_nanos() as u64);
            let step = Step {
                i,
                len: seq.len(),
                tx,
                result: &r,
            };
            match modes::verdict(self, case, step) {
                Verdict::Unchecked => {}
                Verdict::Holds => obs.mark(case.id, false),
                Verdict::Fails(_) => obs.mark(case.id, true),
            }
            out.push(obs);
        }
        self.ex.reset();
        self.ex.set_recording(true);
        out
    }

    /// Runs `seq` once from the deployed state (at block time `start` if
    /// later), stopping at `deadline` or before a call whose block time
    /// passes `end`: each call's result, the coverage points it reached that
    /// the executor's map had not, and the tests failing after it. The one
    /// "run it and tell me everything" path: `run_sequence`, `run_backtest`
    /// and `validate_trade` all read it.
    pub fn dry_run(
        &mut self,
        seq: &[Tx],
        holes: &[crate::tx::Holes],
        deadline: std::time::Instant,
        start: Option<u64>,
        end: Option<u64>,
    ) -> DryRun {
        self.ex.reset();
        if let Some(t) = start {
            self.ex.advance_time_to(t);
        }
        let mut cases: Vec<TestCase> = self.engine.tests.cases().cloned().collect();
        // End-of-sequence tests last.
        cases.sort_by_key(|c| c.at_end);
        let mut steps = Vec::with_capacity(seq.len());
        let mut stop = DryStop::Complete;
        let mut unbound = None;
        let mut produced: Vec<Option<crate::reference::Produced>> = Vec::new();
        for (i, tx) in seq.iter().enumerate() {
            if std::time::Instant::now() >= deadline {
                stop = DryStop::Deadline;
                break;
            }
            if let Some(e) = end
                && self.ex.block().1.saturating_add(tx.delay.seconds) > e
            {
                stop = DryStop::Window;
                break;
            }
            let mut tx = tx.clone();
            if let Some(h) = holes.get(i).filter(|h| !h.refs.is_empty())
                && let Err(why) = crate::reference::apply(&mut tx, h, &produced)
            {
                stop = DryStop::Unbound;
                unbound = Some(format!("call {} was not run: {why}", i + 1));
                break;
            }
            let tx = &tx;
            let result = self.ex.call(tx);
            if !holes.is_empty() {
                produced.push(result.produced(tx));
            }
            let new_points = self.ex.commit_coverage();
            let step = Step {
                i,
                len: seq.len(),
                tx,
                result: &result,
            };
            let failing: Vec<TestId> = (cases.iter())
                .filter(|c| matches!(modes::verdict(self, c, step), Verdict::Fails(_)))
                .map(|c| c.id)
                .collect();
            steps.push(DryStep {
                call: tx.clone(),
                result,
                new_points,
                failing,
            });
        }
        DryRun {
            steps,
            stop,
            unbound,
        }
    }

    /// Resets the executor to the deployed state.
    pub fn reset(&mut self) {
        self.ex.reset();
    }
}
