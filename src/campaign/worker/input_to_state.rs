//! The worker's input-to-state stage: comparisons a call met offered as
//! candidate calls that meet them the other way, from the prefix that
//! reached them.

use super::*;

impl Worker {
    /// Queues the input-to-state candidates of the last call of `executed`
    /// (each after the calls before it: `same`, the prefix of the candidate
    /// that made the call, or a new one), if the stage is within its share
    /// of calls and depth. Returns whether any was queued.
    pub(super) fn offer_candidates(
        &mut self,
        source: Source,
        same: Option<Rc<Prefix>>,
        (executed, gas, inert, key): (&[Tx], &[u64], &[bool], u64),
        new: bool,
    ) -> bool {
        let cmps = self.ex.comparisons();
        // The last guard the call met, if it met one.
        let frontier = cmps.last().map(|c| c.site);
        // A chain goes on from a candidate that got further (new coverage,
        // or a longer path than any before it), or, once in a row, from one
        // that did not.
        let chain = match self.i2s_chain {
            None => Chain::default(),
            Some(c) => {
                let path = self.ex.path_branches().min(u16::MAX as u32) as u16;
                let slack = if new || path > c.best {
                    false
                } else if !c.slack {
                    true
                } else {
                    return false;
                };
                Chain {
                    depth: c.depth + 1,
                    best: c.best.max(path),
                    slack,
                }
            }
        };
        let depth = chain.depth;
        if depth > I2S_DEPTH || (cmps.is_empty() && !(new || self.i2s_chain.is_some())) {
            return false;
        }
        // Past its share the stage offers no candidates, but a call that
        // met a guard still goes to the solving stage, which has a share of
        // its own, if its queue takes it (by frontier: the many calls that
        // stop at a cell's first guards do not keep out the few that reach
        // its last).
        let over_share = self.i2s_calls * I2S_SHARE > self.total_calls + I2S_GRACE && !new;
        let candidate = self.i2s_chain.is_some();
        let to_solve = frontier.filter(|&f| self.solve_admits(f, candidate));
        if over_share && to_solve.is_none() {
            return false;
        }
        let (tx, prefix) = executed.split_last().expect("a call ran");
        // Booleans are flipped where the call got further (a guard on a
        // boolean compares nothing), and along a chain.
        let candidates = match self.i2s_chain {
            _ if over_share => Vec::new(),
            // A call that reached new coverage is run again with its whole
            // path logged (its half-covered comparisons alone may be few or
            // already seen), unless it met fresh ones already.
            None if new && cmps.is_empty() => vec![tx.clone()],
            None => generate::input_to_state(tx, cmps, new, I2S_CANDIDATES),
            // Along a chain, the comparisons before the last ones on the
            // path were passed: flipping them would undo a rung.
            Some(_) => {
                let frontier = &cmps[cmps.len().saturating_sub(I2S_FRONTIER)..];
                generate::input_to_state(tx, frontier, true, I2S_CANDIDATES)
            }
        };
        if self.i2s_tried.len() > I2S_TRIED {
            self.i2s_tried.clear();
        }
        let n = prefix.len();
        let mut prefix = same;
        // The prefix is built once, for the first candidate queued.
        let mut prefix_of = |w: &Worker| {
            prefix
                .get_or_insert_with(|| w.prefix_of((executed, gas, inert, key)))
                .clone()
        };
        let mut queued = false;
        // Queued in reverse so that the first candidate runs first.
        for c in candidates.into_iter().rev() {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            // The calls before it and their number: the same candidate
            // after as many calls, some of them changing the state the
            // same way, is not run twice (the number alone matched short
            // compacted prefixes that end in other states: a maze's walks
            // to different cells).
            (key, n).hash(&mut h);
            c.to.hash(&mut h);
            c.calldata().hash(&mut h);
            if self.i2s_tried.insert(h.finish()) {
                let p = prefix_of(self);
                self.queue_candidate((source, p, c, chain));
                queued = true;
            }
        }
        // A call that met a guard it has not passed goes to the solver too,
        // if its queue takes it. It does not count as a chain started:
        // another call of the sequence may still start one.
        if let Some(f) = to_solve {
            let p = prefix_of(self);
            self.queue_solve(f, candidate, (source, p, tx.clone(), chain));
        }
        queued
    }

    /// The calls before the last of `executed`, without those that changed
    /// nothing (fewer to replay).
    fn prefix_of(&self, (executed, gas, inert, key): (&[Tx], &[u64], &[bool], u64)) -> Rc<Prefix> {
        let n = executed.len() - 1;
        let (mut txs, mut gas) = (executed[..n].to_vec(), gas[..n].to_vec());
        let at = crate::corpus::compact(&mut txs, &mut gas, &inert[..n]);
        Rc::new(Prefix {
            obs: self.obs_at(&at),
            txs,
            gas,
            state: Default::default(),
            key,
        })
    }

    /// Queues a call that met a guard for the solving stage, if its queue
    /// takes it (a call no input-to-state chain starts from: one after the
    /// first of its sequence to start one, or one past the stage's share).
    pub(super) fn offer_to_solver(&mut self, source: Source, run: (&[Tx], &[u64], &[bool], u64)) {
        let Some(frontier) = self.ex.comparisons().last().map(|c| c.site) else {
            return;
        };
        if self.solve_admits(frontier, false) {
            let tx = run.0.last().expect("a call ran").clone();
            let prefix = self.prefix_of(run);
            self.queue_solve(frontier, false, (source, prefix, tx, Chain::default()));
        }
    }

    /// Queues an input-to-state candidate (the oldest, shallowest, dropped
    /// when the queue is full).
    pub(super) fn queue_candidate(&mut self, job: super::solve::Job) {
        if self.i2s.len() >= I2S_QUEUE {
            self.i2s.pop_front();
        }
        self.i2s.push_back(job);
    }

    /// Puts the executor in the state `prefix` left: from its snapshot, or,
    /// for the first candidate of a chain, by replaying its calls (counted
    /// as calls of their function and of the chain's `origin`, without
    /// coverage) and taking the snapshot. False if the call budget ran out
    /// first.
    pub(super) fn reach(&mut self, prefix: &Prefix, origin: usize) -> bool {
        if let Some(state) = prefix.state.get() {
            self.ex.restore(state);
            return true;
        }
        self.ex.set_recording(false);
        let mut done = true;
        for tx in &prefix.txs {
            if !self.budget.take(&self.engine) {
                done = false;
                break;
            }
            let r = self.ex.call(tx);
            self.count_replay(tx, r.gas_used, origin);
        }
        self.ex.set_recording(true);
        if done {
            let _ = prefix.state.set(self.ex.snapshot());
        } else {
            self.ex.reset();
        }
        done
    }

    /// Counts a call run again without coverage (a prefix's replay, a
    /// traced re-run) as a call of its function and of `origin`.
    pub(super) fn count_replay(&mut self, tx: &Tx, gas: u64, origin: usize) {
        self.total_calls += 1;
        self.batch.calls += 1;
        self.batch.gas += gas;
        let stats = &self.engine.stats.workers[self.row()];
        stats.calls.fetch_add(1, Ordering::Relaxed);
        bump(&stats.origin_calls[origin]);
        if let Some(k) = self.engine.callable_index(tx.to, &tx.selector()) {
            let fs = &stats.functions[k];
            bump(&fs.calls);
            bump(&fs.gas[super::super::gas_bucket(gas)]);
        }
    }

    /// The observations of the running sequence's calls at `at` (the
    /// calls a compaction kept).
    pub(super) fn obs_at(&self, at: &[usize]) -> Vec<CallObs> {
        at.iter()
            .filter_map(|&i| self.obs.get(i).cloned())
            .collect()
    }
}
