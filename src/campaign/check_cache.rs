//! Checks answered from what they read: a property, an optimization function
//! or a run-time spec is re-run after a call only if the call changed
//! something the last run of it read (a storage slot, a balance, code, the
//! block number or timestamp). Echidna and forge run every property after
//! every call, so their cost grows with the number of properties; here a
//! property whose inputs a call did not touch costs a few map lookups.
//!
//! Why a skipped check answers as a run would: see [`crate::executor::reads`]
//! (a check is a deterministic function of what it read; checks that write,
//! read unusual block fields, use impure cheatcodes or run under a prank are
//! never skipped). As a safety net a check is run again after
//! [`RECHECK_AFTER`] skips in a row, and compared with what was skipped; with
//! `checkCache: verify` every check runs and every skip that would have been
//! taken is compared, a disagreement ending the worker with a panic that
//! names the test (for tests and debugging).

use super::properties::TestCase;
use crate::config::CheckCacheMode;
use crate::executor::{Executor, ReadSet};
use alloy_primitives::I256;

/// Skips in a row after which a cached check runs again anyway.
pub const RECHECK_AFTER: u32 = 1024;

/// What a check answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// A property or spec: why it fails, or `None` while it holds.
    Fails(Option<String>),
    /// An optimization function's value (`None`: it reverted).
    Value(Option<I256>),
}

struct Entry {
    reads: ReadSet,
    answer: Answer,
    /// Skips since it last ran.
    skips: u32,
}

/// Counts of one worker's checks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CheckCounts {
    /// Checks run.
    pub run: u64,
    /// Checks answered from what they read.
    pub skipped: u64,
}

/// One worker's cached checks (by test id).
pub struct CheckCache {
    mode: CheckCacheMode,
    entries: Vec<Option<Entry>>,
    pub counts: CheckCounts,
}

impl CheckCache {
    pub fn new(mode: CheckCacheMode) -> Self {
        CheckCache {
            mode,
            entries: Vec::new(),
            counts: CheckCounts::default(),
        }
    }

    /// Why property or spec `id` fails in `ex`'s current state (`None`:
    /// it holds), from what it read when that still holds, else by `run`.
    pub fn fails(
        &mut self,
        ex: &mut Executor,
        case: &TestCase,
        run: impl FnOnce(&mut Executor) -> Option<String>,
    ) -> Option<String> {
        match self.answer(ex, case, |ex| Answer::Fails(run(ex))) {
            Answer::Fails(f) => f,
            Answer::Value(_) => unreachable!("{} answered a value", case.name),
        }
    }

    /// Optimization test `id`'s value in `ex`'s current state, from what it
    /// read when that still holds, else by `run`.
    pub fn value(
        &mut self,
        ex: &mut Executor,
        case: &TestCase,
        run: impl FnOnce(&mut Executor) -> Option<I256>,
    ) -> Option<I256> {
        match self.answer(ex, case, |ex| Answer::Value(run(ex))) {
            Answer::Value(v) => v,
            Answer::Fails(_) => unreachable!("{} answered whether it fails", case.name),
        }
    }

    /// Test `id`'s answer in `ex`'s current state: the cached one while what
    /// its last run read holds, else `run`'s (whose reads are then kept).
    ///
    /// A property or optimization check whose run would record coverage
    /// (see [`Executor::call_view`]) always runs, and a skipped one counts
    /// as a check there: the campaign's coverage, corpus and finds are the
    /// same with skips as without, only sooner.
    fn answer(
        &mut self,
        ex: &mut Executor,
        case: &TestCase,
        run: impl FnOnce(&mut Executor) -> Answer,
    ) -> Answer {
        if self.mode == CheckCacheMode::Off {
            self.counts.run += 1;
            return run(ex);
        }
        let i = case.id.0 as usize;
        if self.entries.len() <= i {
            self.entries.resize_with(i + 1, || None);
        }
        // A spec's views record no coverage (`call_view_data`).
        let view = case.spec.is_none();
        let mut skipped = None;
        if let Some(e) = &mut self.entries[i]
            && !(view && ex.next_view_records())
            && ex.reads_hold(&e.reads)
        {
            e.skips += 1;
            if self.mode == CheckCacheMode::On && e.skips < RECHECK_AFTER {
                self.counts.skipped += 1;
                if view {
                    ex.skip_view();
                }
                return e.answer.clone();
            }
            skipped = Some(e.answer.clone());
        }
        ex.begin_reads();
        let answer = run(ex);
        let reads = ex.end_reads();
        self.counts.run += 1;
        if let Some(skipped) = skipped
            && skipped != answer
        {
            let message = format!(
                "checkCache: {} answered {answer:?}, but what it last read still holds and \
                 it answered {skipped:?} then",
                case.name
            );
            if self.mode == CheckCacheMode::Verify {
                panic!("{message}");
            }
            tracing::error!("{message}; the new answer is kept (please report this)");
        }
        self.entries[i] = reads.map(|reads| Entry {
            reads,
            answer: answer.clone(),
            skips: 0,
        });
        answer
    }
}
