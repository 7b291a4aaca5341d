//! Optimization mode: `prefix*` functions returning `int256` are values to
//! maximise. After every call each is read and a better value is kept with
//! the sequence that reached it; the best sequences are shrunk once the
//! workers stop (while they still reach the value). Never falsified, never
//! "decided": the campaign runs to its limit. Specs added at run time are
//! checked as properties after every call.

use super::{Found, Mode, TestKind};
use crate::campaign::oracle::{Goal, Oracle};
use crate::campaign::properties::Optimum;
use crate::campaign::worker::{AfterCall, Worker};
use crate::campaign::{Engine, shrink};
use crate::eventlog::now_ms;

pub(super) struct Optimization;

impl Mode for Optimization {
    fn discover(&self, found: &mut Found<'_>) {
        for f in found.prefixed() {
            if Found::returns(&f, "int256") {
                found.push(TestKind::Optimization, f.name.clone(), f.clone(), None);
            } else {
                found.not_a_test(&f, "int256");
            }
        }
    }

    fn after_call(&self, worker: &mut Worker, call: &AfterCall<'_>) -> Option<u32> {
        worker.check_specs(call);
        worker.improve_optima(call);
        None
    }

    /// A value right after deployment is what the empty sequence reaches
    /// (Echidna's starting point too): a best value no call improves on is
    /// reported with no calls.
    fn after_deployment(&self, s: &Engine, oracle: &mut Oracle<'_>) {
        oracle.reset();
        for case in s.tests.cases().filter(|c| c.kind.seeks_value()) {
            if let Some(v) = oracle.optimization_value(case) {
                s.tests.offer(case.id, v, || Optimum {
                    value: v,
                    sequence: Vec::new(),
                    worker: None,
                    found_ms: now_ms(),
                });
            }
        }
        oracle.reset();
    }

    /// Shrinks each test's best sequence while it still reaches the best
    /// value (Echidna does too).
    fn after_workers(&self, s: &Engine) {
        if !s.tests.cases().any(|c| c.kind.seeks_value()) {
            return;
        }
        let mut ex = s.target.executor(s.workers);
        let mut oracle = Oracle::new(s, &mut ex);
        let mut rng = rand::SeedableRng::seed_from_u64(s.seed ^ 0x0b70_0b70);
        for case in s.tests.cases().filter(|c| c.kind.seeks_value()) {
            let Some(best) = s.tests.optimum(case.id) else {
                continue;
            };
            let r = shrink::shrink(
                &mut oracle,
                &mut rng,
                Goal::Reaches(case, best.value),
                best.sequence.clone(),
                s.config.shrink_limit,
                &mut |_, _| {},
            );
            if r.txs.len() < best.sequence.len() {
                s.tests.replace_optimum_sequence(case.id, best.value, r.txs);
                s.persist_optimum(case.id);
            }
        }
    }
}
