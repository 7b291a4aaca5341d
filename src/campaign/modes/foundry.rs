//! Foundry mode (Echidna's `testMode: foundry`): forge's fuzz tests, run by
//! the fuzzer. Each `test*` function that takes arguments is a test: a call
//! of it that reverts, halts or fails an assertion breaks it (a `vm.assume`
//! rejection does not). With sequences longer than one call (`seqLen` > 1),
//! the target's `invariant*` functions (no argument, nothing returned) must
//! also not revert after any call, as in a Foundry invariant suite. Workers
//! call only functions that take arguments (`setup::called`).

use super::{Found, Mode, TestKind};
use crate::campaign::worker::{AfterCall, Worker};

pub(super) struct Foundry;

impl Mode for Foundry {
    fn discover(&self, found: &mut Found<'_>) {
        let tests: Vec<_> = (found.callable.iter())
            .filter(|c| c.to.is_none() && c.function.name.starts_with("test"))
            .map(|c| (c.function.signature(), c.function.clone()))
            .collect();
        for (name, f) in tests {
            found.push(TestKind::Assertion, name, f, None);
        }
        if found.config.seq_len > 1 {
            let invariants: Vec<_> = (found.functions.iter())
                .filter(|f| {
                    f.name
                        .starts_with(crate::executor::foundry::INVARIANT_PREFIX)
                        && f.inputs.is_empty()
                        && f.outputs.is_empty()
                })
                .cloned()
                .collect();
            for f in invariants {
                found.push(TestKind::Property, f.name.clone(), f, None);
            }
        }
    }

    fn after_call(&self, worker: &mut Worker, call: &AfterCall<'_>) -> Option<u32> {
        let reverted = worker.reverted(call);
        // Specs added at run time are properties: `check_held` has them.
        Some(
            worker.check_call(call, false)
                + worker.check_held(call, reverted, |c| c.kind == TestKind::Property),
        )
    }
}
