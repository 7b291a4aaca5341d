//! What a worker does with where its calls revert: hands the counts to the
//! campaign's revert census, and (with `enablerFeedback`) takes a detour
//! through a guard's enablers after a call reverted at it.

use super::*;

/// How often a call that reverted at a guard another function's writes can
/// satisfy is followed by a detour: a call to one of those functions (the
/// guard's enablers, from the code graph), then the reverted call again.
/// Blind, this is "deposit before withdraw" learned from the code.
const ENABLER_SHARE: f64 = 0.1;

/// How often a call that reverted at a guard short by a distance, with no
/// enabler learned for it yet, tries a function with an integer argument.
const EXPLORE_SHARE: f64 = 0.05;

/// Enablers learned per guard at most.
const LEARNED_PER_GUARD: usize = 8;

/// A guard: the code and the program counter of its branch.
type Guard = (crate::coverage::CodeId, u32);

/// A worker's enabler detours.
#[derive(Default)]
pub(super) struct Detours {
    /// The guard the last call reverted at, the callable it called, and
    /// by how much the guard missed.
    pub reverted_at: Option<(Guard, usize, Option<alloy_primitives::U256>)>,
    /// Enablers this worker saw work: per guard, the callables whose call,
    /// planned as a detour, let the call again succeed (reads the graph
    /// cannot follow: a getter through an interface).
    pub learned: std::collections::HashMap<Guard, Vec<u32>>,
    /// The detour under way: its guard and enabler, judged after the call
    /// again.
    pub probe: Option<(Guard, u32)>,
    /// Whether the last call this worker made succeeded.
    pub last_ok: bool,
}

impl Worker {
    /// Hands the census what this worker's calls did since the last time:
    /// each function's calls and reverts (from its counters) and where
    /// they reverted.
    pub(super) fn hand_over_census(&mut self) {
        let r = Ordering::Relaxed;
        let engine = self.engine.clone();
        let stats = &engine.stats.workers[self.id.0 as usize];
        self.census_seen.resize(stats.functions.len(), (0, 0));
        let mut deltas = Vec::with_capacity(stats.functions.len());
        let mut moved = !self.census.is_empty();
        for (seen, f) in self.census_seen.iter_mut().zip(stats.functions.iter()) {
            let now = (f.calls.load(r), f.reverts.load(r));
            deltas.push((now.0 - seen.0, now.1 - seen.1));
            moved |= now.0 != seen.0;
            *seen = now;
        }
        if moved {
            engine.census.absorb(&deltas, &mut self.census);
        }
    }

    /// After a call that reverted at a guard with enablers, sometimes
    /// ([`ENABLER_SHARE`]) plans a detour: one of the guard's enablers
    /// (another function, when there is one), then the call again. The
    /// enablers are the code graph's and those this worker saw work; a
    /// guard short by a distance with none learned yet sometimes
    /// ([`EXPLORE_SHARE`]) tries any function with an integer argument,
    /// learned if the call again then succeeds. None while the priority
    /// set is not empty.
    pub(super) fn plan_detour(&mut self, engine: &Engine, run: &Running, detour: &mut Vec<Tx>) {
        let reverted = self.detours.reverted_at.take();
        // The detour just finished: did the call again succeed this time?
        if let Some((guard, e)) = self.detours.probe.take()
            && self.detours.last_ok
        {
            let learned = self.detours.learned.entry(guard).or_default();
            if !learned.contains(&e) && learned.len() < LEARNED_PER_GUARD {
                learned.push(e);
            }
        }
        let Some((guard, k, shortfall)) = reverted else {
            return;
        };
        // Until one is learned, a guard short by a distance sometimes
        // tries any function with an integer argument: what the graph
        // names may not be all (a read through an interface it cannot
        // follow). The coins come first: most reverts take no detour.
        let explore = shortfall.is_some()
            && self.rng.random_bool(EXPLORE_SHARE)
            && (self.detours.learned.get(&guard)).is_none_or(|l| l.is_empty());
        if !explore && !self.rng.random_bool(ENABLER_SHARE) {
            return;
        }
        // An agent's priority set decides what is called (90% from it):
        // no detour draws calls away from it meanwhile.
        if !self.sampler.is_empty() {
            return;
        }
        let enablers: Vec<u32> = if explore {
            (engine.callable.iter().enumerate())
                .filter(|(_, c)| {
                    use alloy_dyn_abi::DynSolType as T;
                    (c.types.iter()).any(|t| matches!(t, T::Uint(_) | T::Int(_)))
                })
                .map(|(i, _)| i as u32)
                .collect()
        } else {
            let graph = engine.enablers.get().and_then(|t| t.of(guard));
            let mut known: Vec<u32> = graph.into_iter().flatten().copied().collect();
            for e in self.detours.learned.get(&guard).into_iter().flatten() {
                if !known.contains(e) {
                    known.push(*e);
                }
            }
            if known.is_empty() {
                return;
            }
            known
        };
        let others: Vec<u32> = enablers
            .iter()
            .copied()
            .filter(|e| *e as usize != k)
            .collect();
        let pick = if others.is_empty() {
            &enablers[..]
        } else {
            &others[..]
        };
        if pick.is_empty() {
            return;
        }
        let e = pick[self.rng.random_range(0..pick.len())] as usize;
        let Some(callable) = engine.callable.get(e) else {
            return;
        };
        if let Some(again) = run.executed.last() {
            detour.push(again.clone());
            self.detours.probe = Some((guard, e as u32));
        }
        self.engine.stats.workers[self.row()].functions[e]
            .generated
            .fetch_add(1, Ordering::Relaxed);
        let ctx = GenContext::of(&engine.config);
        let mut tx = generate::random_tx(&mut self.rng, &self.dict, &ctx, callable);
        // The guard missed by `shortfall` (a clock short of a deadline, a
        // balance short of an amount): half the time (always when
        // exploring) one of the enabler's numbers is that distance, or one
        // past it (a strict comparison), so the call again lands on the
        // guard's boundary, where off-by-one bugs live.
        if let Some(d) = shortfall
            && (explore || self.rng.random_bool(0.5))
        {
            let d = if self.rng.random_bool(0.5) {
                d
            } else {
                d.saturating_add(alloy_primitives::U256::ONE)
            };
            generate::set_a_number(&mut self.rng, &mut tx, d, ctx.max_time_delay);
        }
        detour.push(tx);
    }
}
