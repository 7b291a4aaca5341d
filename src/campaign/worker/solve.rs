//! The worker's solving stage: a call that met a guard it did not pass is
//! run again from the same state with its path conditions traced, and the
//! solver's answers (arguments that keep the path and turn one of its
//! half-covered branches) join the input-to-state candidates, whose own
//! paths go on the chain.

use super::*;
use crate::campaign::generate::Effort;
use crate::coverage::CodeId;

/// Share of a worker's calls the solving stage may take, one in ten: each
/// traced call counts as one, as do the calls replayed to reach its state,
/// and the search as one per [`SOLVE_WORK_PER_CALL`] terms it evaluated.
const SOLVE_SHARE: u64 = 10;

/// Calls the stage may take at the start of a campaign, before its share
/// applies.
const SOLVE_GRACE: u64 = 1024;

/// Terms the search evaluates in the time of one call, on the safe side:
/// measured on Daedaluzz mazes 3 and 0 (60 s, one worker, the worker's
/// `search_terms` and `search_ms` at `RUST_LOG=rudder=debug`), a term took
/// 13.1 and 10.6 ns and a call 36 µs, so a call's time holds ~2,800–3,400
/// terms; counting 2,000 charges the search a little more than it costs.
const SOLVE_WORK_PER_CALL: u64 = 2000;

/// Calls waiting to be solved at most (the newest solved first).
const SOLVE_QUEUE: usize = 8;

/// Searches for one branch way run in full; after them, only every
/// power-of-two-th attempt (a way the search cannot find is not searched
/// for on every call that meets it). The last of them and those after it
/// hand the conditions to the SAT solver when the local search fails: a
/// way missed once is worth its cost (most formulas are small, or proved
/// out of reach at once: 152 of 157 on Daedaluzz maze 3 in 20 minutes).
const SOLVE_ATTEMPTS: u32 = 2;

/// The SAT solver's budget grows with the attempts: the base one on the
/// [`SOLVE_ATTEMPTS`]-th, twice it on the attempt twice as late, and so on
/// up to this many times (at most ~2 s of one formula; the cost is charged
/// to the stage's share as the search's is, so a larger budget only makes
/// the stage pause longer after it).
const SOLVE_EXACT_SCALE: u32 = 8;

/// Target branch ways remembered before the memory is cleared.
const SOLVE_TRIED: usize = 1 << 14;

/// A call to solve or a candidate to run: the sequence it came from, the
/// calls before it, the call, and its chain.
pub(super) type Job = (Source, Rc<Prefix>, Tx, Chain);

/// The solving stage's state in a worker.
#[derive(Default)]
pub(super) struct Solving {
    queue: Vec<Job>,
    /// Calls the stage took (traced calls, replays and search work).
    pub(super) calls: u64,
    /// Attempts per target branch way.
    tried: std::collections::HashMap<(CodeId, u32, bool), u32>,
    /// Candidates the search found.
    pub(super) found: u64,
    /// Terms the search evaluated, and the time it took (how
    /// [`SOLVE_WORK_PER_CALL`] is checked: `RUST_LOG=rudder=debug` prints
    /// both when a worker ends).
    pub(super) work: u64,
    pub(super) searching: std::time::Duration,
    /// Targets handed to the SAT solver, those it turned, those it proved
    /// out of reach, and those it ran out of budget on.
    pub(super) blasts: u64,
    pub(super) blasts_found: u64,
    pub(super) blasts_unsat: u64,
    pub(super) blasts_cut: u64,
}

impl Worker {
    /// Whether the solving stage is within its share of calls.
    pub(super) fn may_solve(&self) -> bool {
        self.solving.calls * SOLVE_SHARE <= self.total_calls + SOLVE_GRACE
            && self.solving.queue.len() < SOLVE_QUEUE
    }

    pub(super) fn queue_solve(&mut self, job: Job) {
        self.solving.queue.push(job);
    }

    /// Solves the newest queued call, if any; true if one was.
    pub(super) fn solve_next(&mut self) -> bool {
        let Some((source, prefix, tx, chain)) = self.solving.queue.pop() else {
            return false;
        };
        let origin = source.origin().index();
        // The calls replayed to reach the prefix's state count as the
        // stage's, as the traced call does.
        let before = self.total_calls;
        if !self.reach(&prefix, origin) || !self.budget.take(&self.engine) {
            self.solving.calls += self.total_calls - before;
            self.ex.reset();
            return true;
        }
        // The call ran before: its coverage is known, not counted again.
        self.ex.set_recording(false);
        let (r, trace) = self.ex.call_traced(&tx);
        self.ex.set_recording(true);
        self.ex.reset();
        self.count_replay(&tx, r.gas_used, origin);
        let solving = &mut self.solving;
        if solving.tried.len() > SOLVE_TRIED {
            solving.tried.clear();
        }
        let tried = &mut solving.tried;
        let started = std::time::Instant::now();
        let solved = generate::solve_branches(
            &mut self.rng,
            &tx,
            &trace,
            generate::SOLVE_TARGETS,
            |code, pc, way| {
                let n = tried.entry((code, pc, way)).or_default();
                *n += 1;
                if *n < SOLVE_ATTEMPTS {
                    Effort::Search
                } else if *n == SOLVE_ATTEMPTS || n.is_power_of_two() {
                    Effort::Exact((*n / SOLVE_ATTEMPTS).clamp(1, SOLVE_EXACT_SCALE))
                } else {
                    Effort::Skip
                }
            },
        );
        solving.searching += started.elapsed();
        solving.work += solved.work;
        solving.calls += self.total_calls - before + solved.work / SOLVE_WORK_PER_CALL;
        solving.blasts += solved.blasts;
        solving.blasts_found += solved.blasts_found;
        solving.blasts_unsat += solved.blasts_unsat;
        solving.blasts_cut += solved.blasts_cut;
        let found = solved.found;
        solving.found += found.len() as u64;
        // Queued in reverse so that the deepest target's runs first.
        for c in found.into_iter().rev() {
            self.queue_candidate((source, prefix.clone(), c, chain));
        }
        true
    }
}
