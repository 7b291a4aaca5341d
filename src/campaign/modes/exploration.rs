//! Exploration mode: no tests of its own, coverage alone (the corpus, LCOV,
//! the code graph's gaps). Specs added at run time are still checked as
//! properties after every call.

use super::{Found, Mode};
use crate::campaign::worker::{AfterCall, Worker};

pub(super) struct Exploration;

impl Mode for Exploration {
    fn discover(&self, _found: &mut Found<'_>) {}

    fn after_call(&self, worker: &mut Worker, call: &AfterCall<'_>) -> Option<u32> {
        worker.check_specs(call);
        None
    }

    fn has_tests(&self) -> bool {
        false
    }
}
