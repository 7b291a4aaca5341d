//! What one injection came to over every worker's runs: the counts of its
//! `InjectionExecuted` events summed, and the values its `?`s took. The
//! worker that finishes its runs last emits one `InjectionSummary` event
//! (a worker the injection could not be handed to counts as finished).

use crate::tx::{Holes, Tx};
use parking_lot::Mutex;
use serde::Serialize;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Distinct values kept per `?` (the rest are counted in `others`).
pub const VALUES_KEPT: usize = 8;

#[derive(Debug)]
pub struct InjectionTally {
    /// Workers that have not finished their runs.
    pending: AtomicUsize,
    sums: Mutex<TallySums>,
}

/// The summed outcome of an injection's runs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TallySums {
    pub runs: u32,
    pub executed: u32,
    pub reverted: u32,
    pub new_points: u32,
    pub falsified: u32,
    /// One per `?`, in the order they are written.
    pub holes: Vec<HoleValues>,
}

/// The values one `?` took.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HoleValues {
    /// Which call of the injection (from 1).
    pub call: usize,
    pub function: String,
    /// The parameter's name (`arg0` when it has none; `[i]` into arrays
    /// and tuples), or `from` / `value` for the call's options.
    pub at: String,
    /// How many runs drew it.
    pub draws: u32,
    /// The first distinct values, each with how many runs drew it.
    pub values: Vec<DrawnValue>,
    /// Draws of values past the first `VALUES_KEPT` (8) distinct ones.
    pub others: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DrawnValue {
    pub value: String,
    pub times: u32,
}

impl InjectionTally {
    pub fn new(workers: usize) -> Self {
        InjectionTally {
            pending: AtomicUsize::new(workers),
            sums: Mutex::new(TallySums::default()),
        }
    }

    /// Adds one worker's runs; `Some(sums)` for the last worker to finish
    /// (exactly one caller gets them).
    pub fn finish(&self, runs: &TallySums) -> Option<TallySums> {
        {
            let mut s = self.sums.lock();
            s.add(runs);
        }
        (self.pending.fetch_sub(1, Ordering::AcqRel) == 1).then(|| self.sums.lock().clone())
    }
}

impl TallySums {
    /// One run's outcome.
    pub fn run(&mut self, executed: u32, reverted: u32, new_points: u32, falsified: u32) {
        self.runs += 1;
        self.executed += executed;
        self.reverted += reverted;
        self.new_points += new_points;
        self.falsified += falsified;
    }

    /// The values the `?`s of `holes` took in `txs` (one run's filled calls).
    pub fn values(&mut self, txs: &[Tx], holes: &[Holes]) {
        let mut k = 0;
        for (i, (tx, h)) in txs.iter().zip(holes).enumerate() {
            let mut drawn = Vec::new();
            if h.sender {
                drawn.push(("from".to_string(), tx.sender.to_string()));
            }
            if h.value {
                drawn.push(("value".to_string(), tx.value.to_string()));
            }
            for path in &h.args {
                let Some((&a, rest)) = path.split_first() else {
                    continue;
                };
                let name = tx
                    .function
                    .inputs
                    .get(a)
                    .map(|p| p.name.clone())
                    .filter(|n| !n.is_empty())
                    .unwrap_or_else(|| format!("arg{a}"));
                let at = rest.iter().fold(name, |s, j| format!("{s}[{j}]"));
                let Some(v) = tx.args.get(a).and_then(|v| value_at(v, rest)) else {
                    continue;
                };
                let mut text = String::new();
                crate::tx::write_value(&mut text, v);
                drawn.push((at, text));
            }
            for (at, value) in drawn {
                if self.holes.len() == k {
                    self.holes.push(HoleValues {
                        call: i + 1,
                        function: tx.function.name.clone(),
                        at,
                        draws: 0,
                        values: Vec::new(),
                        others: 0,
                    });
                }
                self.holes[k].draw(value, 1);
                k += 1;
            }
        }
    }

    fn add(&mut self, o: &TallySums) {
        self.runs += o.runs;
        self.executed += o.executed;
        self.reverted += o.reverted;
        self.new_points += o.new_points;
        self.falsified += o.falsified;
        for (k, h) in o.holes.iter().enumerate() {
            match self.holes.get_mut(k) {
                Some(mine) => {
                    for v in &h.values {
                        mine.draw(v.value.clone(), v.times);
                    }
                    mine.draws += h.others;
                    mine.others += h.others;
                }
                None => self.holes.push(h.clone()),
            }
        }
    }
}

impl HoleValues {
    fn draw(&mut self, value: String, times: u32) {
        self.draws += times;
        if let Some(v) = self.values.iter_mut().find(|v| v.value == value) {
            v.times += times;
        } else if self.values.len() < VALUES_KEPT {
            self.values.push(DrawnValue { value, times });
        } else {
            self.others += times;
        }
    }
}

/// The value at `path` (indices into arrays and tuples) inside `v`.
fn value_at<'a>(
    v: &'a alloy_dyn_abi::DynSolValue,
    path: &[usize],
) -> Option<&'a alloy_dyn_abi::DynSolValue> {
    use alloy_dyn_abi::DynSolValue::{Array, FixedArray, Tuple};
    match path.split_first() {
        None => Some(v),
        Some((&j, rest)) => match v {
            Array(items) | FixedArray(items) | Tuple(items) => value_at(items.get(j)?, rest),
            _ => None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sums(runs: u32, values: &[&str]) -> TallySums {
        let mut h = HoleValues {
            call: 1,
            function: "transfer".into(),
            at: "to".into(),
            draws: 0,
            values: Vec::new(),
            others: 0,
        };
        for v in values {
            h.draw(v.to_string(), 1);
        }
        TallySums {
            runs,
            executed: runs,
            reverted: 1,
            new_points: 0,
            falsified: 0,
            holes: vec![h],
        }
    }

    #[test]
    fn the_last_worker_to_finish_gets_the_sums_of_all() {
        let t = InjectionTally::new(2);
        assert_eq!(t.finish(&sums(2, &["1", "2"])), None);
        let all = t.finish(&sums(3, &["2", "2", "3"])).expect("the last one");
        assert_eq!((all.runs, all.executed, all.reverted), (5, 5, 2));
        let h = &all.holes[0];
        assert_eq!(h.draws, 5);
        let got: Vec<_> = h
            .values
            .iter()
            .map(|v| (v.value.as_str(), v.times))
            .collect();
        assert_eq!(got, [("1", 1), ("2", 3), ("3", 1)]);
    }

    #[test]
    fn values_past_the_kept_ones_are_counted_as_others() {
        let many: Vec<String> = (0..VALUES_KEPT + 3).map(|i| i.to_string()).collect();
        let refs: Vec<&str> = many.iter().map(String::as_str).collect();
        let s = sums(many.len() as u32, &refs);
        assert_eq!(s.holes[0].values.len(), VALUES_KEPT);
        assert_eq!(s.holes[0].others, 3);
        assert_eq!(s.holes[0].draws as usize, many.len());
    }
}
