//! What a worker does with an injection: runs it `repeat` times, its `?`s
//! drawn anew each time, its `$n` references filled from what the calls
//! before them produced.

use super::*;
use crate::campaign::control::TallySums;
use crate::reference::{Produced, apply};

/// The running injection's references and what its calls produced so far.
pub(super) struct Binding {
    injection: Arc<Injection>,
    /// What each call produced, in order (`None`: it failed).
    produced: Vec<Option<Produced>>,
}

impl Worker {
    /// Runs an injection `repeat` times, its `?`s drawn anew each time.
    pub(super) fn run_injection(&mut self, inj: &Arc<Injection>) {
        let references = inj.holes.iter().any(|h| !h.refs.is_empty());
        // Finished (its runs counted toward the summary) however this ends,
        // a panic in a run included.
        let mut tally = Finishing {
            inj,
            engine: self.engine.clone(),
            worker: self.id,
            sums: TallySums::default(),
        };
        for _ in 0..inj.repeat.max(1) {
            let txs = if inj.holes.is_empty() {
                inj.txs.clone()
            } else {
                let engine = self.engine.clone();
                let ctx = GenContext::of(&engine.config);
                inj.txs
                    .iter()
                    .zip(&inj.holes)
                    .map(|(tx, holes)| {
                        generate::fill_holes(&mut self.rng, &self.dict, &ctx, tx, holes)
                    })
                    .collect()
            };
            self.binding = references.then(|| Binding {
                injection: inj.clone(),
                produced: Vec::with_capacity(inj.txs.len()),
            });
            tally.sums.values(&txs, &inj.holes);
            let r = self.run_sequence(Source::Injected(inj.id.0), txs, inj.txs.len());
            tally
                .sums
                .run(r.executed, r.reverted, r.new_points, r.falsified);
            self.binding = None;
            self.engine.stats.workers[self.id.0 as usize]
                .injections
                .fetch_add(1, Ordering::Relaxed);
            self.emit(Payload::InjectionExecuted {
                injection: inj.id,
                executed: r.executed,
                reverted: r.reverted,
                new_points: r.new_points,
                falsified: r.falsified,
            });
        }
    }

    /// Counts the injections still queued for this worker as finished with
    /// nothing run (a worker stopping on a panic does not run them), so
    /// their summaries are still emitted.
    pub(super) fn abandon_queued_injections(&mut self) {
        while let Ok(inj) = self.rx.try_recv() {
            if let Some(sums) = inj.tally.finish(&TallySums::default()) {
                self.engine.emit_injection_summary(self.id, inj.id, sums);
            }
        }
    }

    /// Fills the references of call `k` of the running injection (nothing
    /// to do outside one, or for a call without references).
    pub(super) fn bind(&self, k: usize, tx: &mut Tx) -> Result<(), String> {
        match &self.binding {
            Some(b) => match b.injection.holes.get(k) {
                Some(h) if !h.refs.is_empty() => apply(tx, h, &b.produced),
                _ => Ok(()),
            },
            None => Ok(()),
        }
    }

    /// Keeps what an injected call produced, for the references of the
    /// calls after it.
    pub(super) fn produced(&mut self, tx: &Tx, r: &CallResult) {
        if let Some(b) = &mut self.binding
            && b.produced.len() < b.injection.txs.len()
        {
            b.produced.push(r.produced(tx));
        }
    }
}

/// One worker's runs of an injection, added to the injection's tally when
/// dropped; the last worker to finish emits the summary.
struct Finishing<'a> {
    inj: &'a Arc<Injection>,
    engine: Arc<Engine>,
    worker: WorkerId,
    sums: TallySums,
}

impl Drop for Finishing<'_> {
    fn drop(&mut self) {
        if let Some(sums) = self.inj.tally.finish(&self.sums) {
            self.engine
                .emit_injection_summary(self.worker, self.inj.id, sums);
        }
    }
}
