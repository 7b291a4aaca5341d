//! Property mode: `prefix*` functions returning `bool` (Echidna's
//! `echidna_*`) must stay true, and a Foundry suite's `invariant*` functions
//! must not revert, after every call; `afterInvariant()` at the end of each
//! sequence. A property is called on the state the calls left, and what it
//! writes is discarded. With `failOnRevert`, a call that reverts breaks them.

use super::{Found, Mode, Step, TestKind, Verdict};
use crate::campaign::engine::Settled;
use crate::campaign::oracle::Oracle;
use crate::campaign::properties::{FoundBy, TestCase};
use crate::campaign::worker::{AfterCall, Worker};
use crate::campaign::{Engine, spec};
use crate::ids::TestId;
use std::sync::Arc;

pub(super) struct Property;

impl Mode for Property {
    fn discover(&self, found: &mut Found<'_>) {
        for f in found.prefixed() {
            if Found::returns(&f, "bool") || found.is_invariant(&f) {
                found.push(TestKind::Property, f.name.clone(), f.clone(), None);
            } else if found.config.prefix != crate::executor::foundry::INVARIANT_PREFIX
                || f.inputs.is_empty()
            {
                // `invariant*` functions with arguments are a suite's
                // fuzzed helpers, not tests: no word about them.
                found.not_a_test(&f, "bool");
            }
        }
        // A Foundry suite's `afterInvariant()` must not revert at the
        // end of each sequence (forge calls it after each run).
        if let Some(f) = (found.functions.iter())
            .find(|f| found.is_invariant(f) && f.name == crate::executor::foundry::AFTER_INVARIANT)
            .cloned()
        {
            found.push(TestKind::Property, f.name.clone(), f, None);
        }
    }

    fn after_call(&self, worker: &mut Worker, call: &AfterCall<'_>) -> Option<u32> {
        let reverted = worker.reverted(call);
        Some(worker.check_held(call, reverted, |c| c.kind == TestKind::Property))
    }

    /// Properties must hold right after deployment too: one already false
    /// is falsified by the empty sequence (and a target with nothing else
    /// to call is still checked once).
    fn after_deployment(&self, s: &Engine, oracle: &mut Oracle<'_>) {
        oracle.reset();
        for case in s.tests.cases() {
            if !s.tests.is_open(case.id) || case.at_end {
                continue;
            }
            if let Some(reason) = oracle.property_fails(case) {
                let reason = format!("{reason} right after deployment");
                let settled = Settled {
                    found_by: FoundBy::Deployment,
                    first_found_by: None,
                    reason,
                    original: Vec::new(),
                    shrunk: Vec::new(),
                    shrink_steps: 0,
                    gas_used: 0,
                };
                s.settle_falsified(case, settled, true);
            }
        }
        oracle.reset();
    }
}

/// A property after a call: broken by the call's revert (`failOnRevert`,
/// the target's own properties), else judged after every call (or the last,
/// for an end-of-sequence test) by calling it.
pub(super) fn verdict(oracle: &mut Oracle<'_>, case: &TestCase, step: Step<'_>) -> Verdict {
    if case.breaks_on_revert()
        && let Some(why) = oracle.call_reverted(step.result)
    {
        return Verdict::Fails(why);
    }
    if !case.checked_after(step.i, step.len) {
        return Verdict::Unchecked;
    }
    match oracle.property_fails(case) {
        Some(why) => Verdict::Fails(why),
        None => Verdict::Holds,
    }
}

/// The test of spec `spec` (added at run time) with id `id`: a property in
/// every mode, checked instead of calling its first view.
pub(crate) fn spec_case(id: TestId, spec: spec::Spec) -> TestCase {
    let function = spec
        .conditions
        .first()
        .map(|c| c.lhs.function.clone())
        .expect("a parsed spec has a condition");
    TestCase {
        id,
        kind: TestKind::Property,
        name: spec.source.name.clone(),
        function,
        spec: Some(Arc::new(spec)),
        at_end: false,
        to: None,
    }
}
