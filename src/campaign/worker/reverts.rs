//! What a worker does with where its calls revert: hands the counts to the
//! campaign's revert census, and (with `enablerFeedback`) takes a detour
//! through a guard's enablers after a call reverted at it.

use super::*;

/// How often a call that reverted at a guard another function's writes can
/// satisfy is followed by a detour: a call to one of those functions (the
/// guard's enablers, from the code graph), then the reverted call again.
/// Blind, this is "deposit before withdraw" learned from the code.
const ENABLER_SHARE: f64 = 0.1;

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
    /// (another function, when there is one), then the call again.
    pub(super) fn plan_detour(&mut self, engine: &Engine, run: &Running, detour: &mut Vec<Tx>) {
        let Some((guard, k)) = self.reverted_at.take() else {
            return;
        };
        let Some(enablers) = engine.enablers.get().and_then(|t| t.of(guard)) else {
            return;
        };
        if !self.rng.random_bool(ENABLER_SHARE) {
            return;
        }
        let others: Vec<u32> = enablers
            .iter()
            .copied()
            .filter(|e| *e as usize != k)
            .collect();
        let pick = if others.is_empty() {
            enablers
        } else {
            &others[..]
        };
        let e = pick[self.rng.random_range(0..pick.len())] as usize;
        let Some(callable) = engine.callable.get(e) else {
            return;
        };
        if let Some(again) = run.executed.last() {
            detour.push(again.clone());
        }
        self.engine.stats.workers[self.row()].functions[e]
            .generated
            .fetch_add(1, Ordering::Relaxed);
        let ctx = GenContext::of(&engine.config);
        detour.push(generate::random_tx(
            &mut self.rng,
            &self.dict,
            &ctx,
            callable,
        ));
    }
}
