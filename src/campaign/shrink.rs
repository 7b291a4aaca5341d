//! Shrinking: make a falsifying sequence as small and simple as it can be
//! while it still fails, within `shrinkLimit` replays.
//!
//! Rounds of: drop each call in turn; reset each call's delay, value and
//! sender toward the defaults; simplify random arguments toward zero. A
//! candidate is kept when the test still fails on replay, cut to the first
//! call after which it fails. Shrinking stops at the limit or after a round
//! that changed nothing.

use super::generate::simplify;
use super::oracle::{Goal, Oracle};
use crate::journal::traces::MAX_SHRINK_TRACES;
use crate::tx::{Delay, Tx};
use rand::Rng;
use rand::rngs::SmallRng;

/// Random argument simplifications tried per round.
const ARG_TRIES_PER_ROUND: u64 = 64;

/// A shrunk sequence.
pub(crate) struct Shrunk {
    pub txs: Vec<Tx>,
    /// Replays spent.
    pub steps: u64,
    /// Gas the shrunk sequence's calls used (0 if it did not reproduce).
    pub gas: u64,
    /// Accepted candidates with the replays spent when each was accepted:
    /// the first and the latest, at most [`MAX_SHRINK_TRACES`] (the last is
    /// the result).
    pub trail: Vec<(u64, Vec<Tx>)>,
}

/// Shrinks `seq` while `goal` still holds on replay, within `limit`
/// replays. `report(steps, best)` is told, every ~256 replays, the replays
/// spent and the best sequence so far (itself a counterexample), so that
/// watchers see the shrinking move and a run killed mid-way resumes from it.
pub(crate) fn shrink(
    o: &mut Oracle<'_>,
    rng: &mut SmallRng,
    goal: Goal<'_>,
    seq: Vec<Tx>,
    limit: u64,
    report: &mut dyn FnMut(u64, &[Tx]),
) -> Shrunk {
    let mut steps = 0u64;
    let mut best = seq;
    let mut gas = match o.check(goal, &best) {
        Some(hit) => {
            best.truncate(hit.calls);
            hit.gas
        }
        // Not reproducible from the deployed state.
        None => {
            return Shrunk {
                txs: best,
                steps: 1,
                gas: 0,
                trail: Vec::new(),
            };
        }
    };
    steps += 1;
    let default_sender = o.engine().config.senders[0];
    let mut trail: Vec<(u64, Vec<Tx>)> = Vec::new();
    let mut try_candidate =
        |o: &mut Oracle<'_>, best: &mut Vec<Tx>, mut cand: Vec<Tx>, steps: &mut u64| {
            *steps += 1;
            if let Some(hit) = o.check(goal, &cand) {
                cand.truncate(hit.calls);
                if trail.len() == MAX_SHRINK_TRACES {
                    trail.remove(MAX_SHRINK_TRACES / 2);
                }
                trail.push((*steps, cand.clone()));
                *best = cand;
                gas = hit.gas;
                true
            } else {
                false
            }
        };
    let mut reported = 0u64;
    while steps < limit {
        // Progress for watchers: once per ~256 replays.
        if steps - reported >= 256 {
            reported = steps;
            report(steps, &best);
        }
        let mut progress = false;
        // Drop calls.
        let mut i = 0;
        while i < best.len() && best.len() > 1 && steps < limit {
            let mut cand = best.clone();
            let removed = cand.remove(i);
            if try_candidate(o, &mut best, cand, &mut steps) {
                progress = true;
                continue;
            }
            // The call may matter only for the time it waited: drop it but
            // let the next call wait as long (as Echidna does).
            if !removed.delay.is_none() && i < best.len() - 1 && steps < limit {
                let mut cand = best.clone();
                cand.remove(i);
                let next = &mut cand[i].delay;
                next.seconds = next.seconds.saturating_add(removed.delay.seconds);
                next.blocks = next.blocks.saturating_add(removed.delay.blocks);
                if try_candidate(o, &mut best, cand, &mut steps) {
                    progress = true;
                    continue;
                }
            }
            i += 1;
        }
        // Delays, gas prices, values, senders toward their defaults.
        for i in 0..best.len() {
            if i >= best.len() {
                break;
            }
            let tx = best[i].clone();
            let mut variants: Vec<Tx> = Vec::new();
            if !tx.delay.is_none() {
                variants.push(Tx {
                    delay: Delay::NONE,
                    ..tx.clone()
                });
                variants.push(Tx {
                    delay: Delay {
                        seconds: tx.delay.seconds / 2,
                        blocks: tx.delay.blocks / 2,
                    },
                    ..tx.clone()
                });
                if tx.delay.blocks > 0 {
                    variants.push(Tx {
                        delay: Delay {
                            blocks: 0,
                            ..tx.delay
                        },
                        ..tx.clone()
                    });
                }
                if tx.delay.seconds > 0 {
                    variants.push(Tx {
                        delay: Delay {
                            seconds: 0,
                            ..tx.delay
                        },
                        ..tx.clone()
                    });
                }
            }
            if tx.gas_price != 0 {
                variants.push(Tx {
                    gas_price: 0,
                    ..tx.clone()
                });
                variants.push(Tx {
                    gas_price: tx.gas_price >> 1,
                    ..tx.clone()
                });
            }
            if !tx.value.is_zero() {
                variants.push(Tx {
                    value: Default::default(),
                    ..tx.clone()
                });
                variants.push(Tx {
                    value: tx.value >> 1,
                    ..tx.clone()
                });
            }
            if tx.sender != default_sender {
                variants.push(Tx {
                    sender: default_sender,
                    ..tx.clone()
                });
            }
            for v in variants {
                if steps >= limit || i >= best.len() {
                    break;
                }
                let mut cand = best.clone();
                cand[i] = v;
                if try_candidate(o, &mut best, cand, &mut steps) {
                    progress = true;
                    break;
                }
            }
        }
        // Arguments toward zero.
        for _ in 0..ARG_TRIES_PER_ROUND {
            if steps >= limit {
                break;
            }
            let with_args: Vec<usize> = (0..best.len())
                .filter(|&i| !best[i].args.is_empty())
                .collect();
            if with_args.is_empty() {
                break;
            }
            let i = with_args[rng.random_range(0..with_args.len())];
            let a = rng.random_range(0..best[i].args.len());
            let Some(simpler) = simplify(rng, &best[i].args[a]) else {
                continue;
            };
            let mut cand = best.clone();
            cand[i].args[a] = simpler;
            if try_candidate(o, &mut best, cand, &mut steps) {
                progress = true;
            }
        }
        if !progress {
            break;
        }
    }
    Shrunk {
        txs: best,
        steps,
        gas,
        trail,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::campaign::Campaign;
    use crate::config::Config;
    use alloy_primitives::U256;
    use rand::SeedableRng;

    /// Every report carries a counterexample no longer than the last one,
    /// with more replays spent: what a shrinking worker publishes to
    /// readers and saves for a resume is always a sequence that fails.
    #[test]
    fn each_report_is_a_counterexample_no_longer_than_the_last() {
        let artifact = concat!(env!("CARGO_MANIFEST_DIR"), "/contracts/out/Sequence.json");
        let out = tempfile::tempdir().unwrap();
        let config = Config::default();
        let campaign =
            Campaign::new(artifact.as_ref(), None, config, Some(out.path().into())).unwrap();
        let engine = campaign.control().engine().clone();
        // The three calls that break `echidna_not_closed`, buried in noise:
        // the first round of drops alone spends more than one report's worth.
        let mut calls = Vec::new();
        for (i, key) in ["open()", "turn(42)", "close()"].into_iter().enumerate() {
            calls.extend((0..100).map(|j| format!("noise({}, {})", i * 1000 + j, j % 2 == 0)));
            calls.push(key.to_string());
        }
        // (Parsed in parts: one injection is at most 100 calls.)
        let seq: Vec<Tx> = calls
            .chunks(100)
            .flat_map(|part| {
                let parsed = campaign.control().parse_calls(part, None, U256::ZERO);
                parsed.unwrap()
            })
            .collect();
        let case = engine
            .tests
            .cases()
            .find(|c| c.name == "echidna_not_closed")
            .unwrap()
            .clone();
        let mut ex = engine.target.executor(engine.workers);
        let mut oracle = Oracle::new(&engine, &mut ex);
        let mut rng = SmallRng::seed_from_u64(1);
        let mut reports: Vec<(u64, Vec<Tx>)> = Vec::new();
        let r = shrink(
            &mut oracle,
            &mut rng,
            Goal::Fails(&case),
            seq.clone(),
            5_000,
            &mut |steps, best| reports.push((steps, best.to_vec())),
        );
        assert_eq!(
            engine.print_sequence(&r.txs),
            ["open()", "turn(42)", "close()"]
        );
        assert!(!reports.is_empty(), "{} replays, no report", r.steps);
        let mut last = (0, seq.len());
        for (steps, best) in &reports {
            assert!(
                *steps > last.0 && best.len() <= last.1,
                "{steps} {}",
                best.len()
            );
            assert!(oracle.check(Goal::Fails(&case), best).is_some(), "{steps}");
            last = (*steps, best.len());
        }
        assert!(r.steps >= last.0 && r.txs.len() <= last.1);
    }
}
