//! Assertion mode: every function workers call is a test, broken by a call
//! of it that fails an assertion (`Panic(0x01)`, the pre-0.8 invalid opcode,
//! or an `AssertionFailed` event, from any frame of the call, one that then
//! reverted included). Its overflow form (`testMode: overflow`) is broken
//! by checked arithmetic instead (`Panic(0x11)`). Specs added at run time
//! are checked as properties after every call.

use super::{Found, Mode, Step, TestKind, Verdict};
use crate::campaign::Engine;
use crate::campaign::oracle::Oracle;
use crate::campaign::properties::TestCase;
use crate::campaign::worker::{AfterCall, Worker};
use crate::executor::{CallResult, Outcome};

pub(super) struct Assertion {
    /// Overflow mode: checked arithmetic, not assertions.
    pub overflow: bool,
}

impl Mode for Assertion {
    fn discover(&self, found: &mut Found<'_>) {
        let kind = if self.overflow {
            TestKind::Overflow
        } else {
            TestKind::Assertion
        };
        // Named by signature, as Echidna names them; a signature that two
        // contracts share is told apart by the contract's name from its
        // second test on, and a second instance of one contract by its
        // address too (`Cell@0x….poke(uint256)`).
        let mut instances: std::collections::HashMap<&str, std::collections::HashSet<_>> =
            Default::default();
        for c in found.callable {
            if let (Some(contract), Some(to)) = (&c.contract, c.to) {
                instances.entry(contract).or_default().insert(to);
            }
        }
        let mut named = std::collections::HashSet::new();
        for c in found.callable {
            let sig = c.function.signature();
            let name = match (&c.contract, c.to) {
                (Some(contract), Some(to)) if named.contains(&sig) => {
                    if instances.get(&**contract).is_some_and(|i| i.len() > 1) {
                        format!("{contract}@{to}.{sig}")
                    } else {
                        format!("{contract}.{sig}")
                    }
                }
                _ => sig.clone(),
            };
            named.insert(sig);
            found.push(kind, name, c.function.clone(), c.to);
        }
    }

    fn after_call(&self, worker: &mut Worker, call: &AfterCall<'_>) -> Option<u32> {
        Some(worker.check_specs(call) + worker.check_call(call, self.overflow))
    }
}

/// A per-call test after a call: judged only on calls of its function.
pub(super) fn verdict(oracle: &mut Oracle<'_>, case: &TestCase, step: Step<'_>) -> Verdict {
    if !case.checks_call(step.tx) {
        return Verdict::Unchecked;
    }
    let overflow = case.kind == TestKind::Overflow;
    match call_fails(oracle.engine(), overflow, step.result) {
        Some(why) => Verdict::Fails(why),
        None => Verdict::Holds,
    }
}

/// Why call `r` fails its per-call test: an assertion (`Panic(0x01)`, an
/// `AssertionFailed` event, or a revert whose message starts with
/// "assertion failed", as forge-std's `assert*` and hevm's cheatcodes
/// revert), or with `overflow` checked arithmetic; in foundry mode any
/// revert but a `vm.assume` rejection. `None` if it does not.
pub(super) fn call_fails(engine: &Engine, overflow: bool, r: &CallResult) -> Option<String> {
    if overflow {
        return r.outcome.is_overflow().then(|| r.outcome.to_string());
    }
    if r.outcome.is_assertion_failure() || r.outcome.is_assertion_message() {
        return Some(r.outcome.to_string());
    }
    if engine.config.test_mode == crate::config::TestMode::Foundry
        && !r.outcome.is_success()
        && !r.outcome.is_assume_rejection()
    {
        return Some(engine.target.errors.describe(&r.outcome));
    }
    let topics = &engine.target.assertion_topics;
    let emitted = r.asserted
        || r.logs
            .iter()
            .any(|l| l.topics().first().is_some_and(|t| topics.contains(t)));
    emitted.then(|| match r.outcome {
        Outcome::Success { .. } => "emitted AssertionFailed".to_string(),
        ref other => format!(
            "emitted AssertionFailed, then {}",
            engine.target.errors.describe(other)
        ),
    })
}
