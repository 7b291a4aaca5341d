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

/// Calls waiting to be solved at most. The queue keeps those whose
/// frontier (the last guard the call met) the stage has taken least, and
/// takes the least taken first (the newest of equals): the calls that
/// reach a cell's deepest guards are few beside those that stop at its
/// first, and taken in their order of arrival they were starved (on
/// Daedaluzz maze 1, a guard reached 1,417 times in 10 minutes was never
/// solved for). Among frontiers taken as often, an input-to-state
/// candidate's call comes before a plain call: fed every call that met a
/// guard, the queue filled with plain calls at frontiers never taken and
/// refused the candidates' (maze 0's last guard of cell (3, 0), solved
/// within seconds when only candidates' calls were fed, was never taken
/// in 20 minutes).
const SOLVE_QUEUE: usize = 8;

/// Frontiers remembered before the memory is cleared.
const SOLVE_FRONTIERS: usize = 1 << 12;

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
    queue: Frontiers<Job>,
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

/// The calls waiting to be solved, each with its frontier (see
/// [`SOLVE_QUEUE`]).
pub(super) struct Frontiers<J> {
    /// Jobs with their frontiers and whether each is a candidate's call,
    /// oldest first.
    jobs: Vec<(u32, bool, J)>,
    /// Jobs taken per frontier.
    taken: std::collections::HashMap<u32, u32>,
}

impl<J> Default for Frontiers<J> {
    fn default() -> Self {
        Frontiers {
            jobs: Vec::new(),
            taken: Default::default(),
        }
    }
}

impl<J> Frontiers<J> {
    /// The order jobs are taken in, least first: how often their frontier
    /// was taken, then candidates' calls before plain calls.
    fn rank(&self, frontier: u32, candidate: bool) -> (u32, bool) {
        (self.taken.get(&frontier).copied().unwrap_or(0), !candidate)
    }

    /// Whether a job at `frontier` would be queued: there is room, or a
    /// queued job ranks after it.
    fn admits(&self, frontier: u32, candidate: bool) -> bool {
        self.jobs.len() < SOLVE_QUEUE || {
            let mine = self.rank(frontier, candidate);
            self.jobs.iter().any(|(f, c, _)| self.rank(*f, *c) > mine)
        }
    }

    /// Queues a job, in place of the oldest of those ranked last when the
    /// queue is full.
    fn push(&mut self, frontier: u32, candidate: bool, job: J) {
        if self.jobs.len() >= SOLVE_QUEUE {
            let worst = (0..self.jobs.len())
                .rev()
                .max_by_key(|&i| self.rank(self.jobs[i].0, self.jobs[i].1))
                .expect("the queue is full");
            self.jobs.remove(worst);
        }
        self.jobs.push((frontier, candidate, job));
    }

    /// Takes the newest of the jobs ranked first.
    fn take(&mut self) -> Option<J> {
        let next = (0..self.jobs.len()).min_by_key(|&i| {
            let (f, c, _) = self.jobs[i];
            (self.rank(f, c), std::cmp::Reverse(i))
        })?;
        let (frontier, _, job) = self.jobs.remove(next);
        if self.taken.len() > SOLVE_FRONTIERS {
            self.taken.clear();
        }
        *self.taken.entry(frontier).or_default() += 1;
        Some(job)
    }
}

impl Worker {
    /// Whether a call whose last guard met is `frontier` (a candidate's
    /// call, or a plain one) would be queued: the queue has room, or holds
    /// a call ranked after it (its frontier taken more, or as often and a
    /// plain call where this is a candidate's).
    pub(super) fn solve_admits(&self, frontier: u32, candidate: bool) -> bool {
        self.solving.queue.admits(frontier, candidate)
    }

    /// Queues a call (see [`solve_admits`](Self::solve_admits), asked with
    /// the same `candidate`), in place of the oldest of those ranked last
    /// when the queue is full.
    pub(super) fn queue_solve(&mut self, frontier: u32, candidate: bool, job: Job) {
        self.solving.queue.push(frontier, candidate, job);
    }

    /// Solves a queued call, if the stage is within its share of calls:
    /// the newest of those ranked first. True if one was.
    pub(super) fn solve_next(&mut self) -> bool {
        if self.solving.calls * SOLVE_SHARE > self.total_calls + SOLVE_GRACE {
            return false;
        }
        let Some((source, prefix, tx, chain)) = self.solving.queue.take() else {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_taken_frontier_goes_first_and_stays_queued() {
        let mut q = Frontiers::default();
        // Frontier 1 is met by most calls; each time it is taken first
        // while it has been taken least, as the newest of equals.
        for job in 0..SOLVE_QUEUE as u32 {
            assert!(q.admits(1, true));
            q.push(1, true, job);
        }
        assert_eq!(q.take(), Some(7));
        q.push(1, true, 8);
        // Full, and every queued job at frontier 1, taken once: a job at
        // a frontier never taken replaces the oldest of them and goes
        // first; another at 1 is not queued.
        assert!(!q.admits(1, true));
        assert!(q.admits(2, true));
        q.push(2, true, 100);
        assert_eq!(
            q.jobs.iter().map(|j| j.2).collect::<Vec<_>>(),
            [1, 2, 3, 4, 5, 6, 8, 100]
        );
        assert_eq!(q.take(), Some(100));
        // Both taken once now: the newest of them.
        assert_eq!(q.take(), Some(8));
        assert_eq!(q.take(), Some(6));
        // Frontier 1, taken three times, gives way to 2, taken once.
        assert!(q.admits(2, true));
        q.push(2, true, 101);
        assert_eq!(q.take(), Some(101));
        assert_eq!(q.take(), Some(5));
    }

    #[test]
    fn a_candidates_call_goes_before_plain_calls_at_frontiers_taken_as_often() {
        let mut q = Frontiers::default();
        // Plain calls at frontiers never taken fill the queue; another
        // plain call at a new frontier is not queued, a candidate's is,
        // in place of the oldest plain call, and is taken first.
        for f in 0..SOLVE_QUEUE as u32 {
            q.push(f, false, f);
        }
        assert!(!q.admits(50, false));
        assert!(q.admits(60, true));
        q.push(60, true, 60);
        assert_eq!(q.jobs.first().map(|j| j.2), Some(1));
        assert!(q.jobs.iter().all(|j| j.2 != 0));
        assert_eq!(q.take(), Some(60));
        // Its frontier taken once, a candidate's call there ranks after
        // plain calls at frontiers never taken: with the queue full, it is
        // the one replaced.
        q.push(60, true, 61);
        assert!(q.admits(70, false));
        q.push(70, false, 70);
        assert!(q.jobs.iter().all(|j| j.2 != 61));
        assert_eq!(q.take(), Some(70));
    }
}
