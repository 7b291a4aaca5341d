//! Which functions deserve more calls, read from the campaign's statistics
//! and the code graph's gaps: one strategy's verdict per function (the ops
//! family's `get_strategy_signal` and `get_strategy_consensus` shape it).
//!
//! * `coverage`: a function that is an entry point of uncovered branches is
//!   worth prioritizing, the more so the more of them are never true;
//! * `constants`: one whose gaps compare with known constants is worth
//!   prioritizing (the values are candidates for an injection);
//! * `reverts`: one that reverts on ≥ 90% of at least 100 calls and reaches
//!   no gap is worth deprioritizing;
//! * `all`: the three summed.

use super::{Engine, FunctionTotals};
use crate::graph::join::{Gap, Missing};

/// Calls below which a revert rate says little.
pub const MIN_CALLS_FOR_REVERTS: u64 = 100;

/// A strategy behind a signal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    Coverage,
    Constants,
    Reverts,
    All,
}

impl Strategy {
    /// The strategies `All` sums.
    pub const EACH: [Strategy; 3] = [Strategy::Coverage, Strategy::Constants, Strategy::Reverts];
    pub const ALL: [Strategy; 4] = [
        Strategy::Coverage,
        Strategy::Constants,
        Strategy::Reverts,
        Strategy::All,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Strategy::Coverage => "coverage",
            Strategy::Constants => "constants",
            Strategy::Reverts => "reverts",
            Strategy::All => "all",
        }
    }

    pub fn parse(s: &str) -> Option<Strategy> {
        Self::ALL.into_iter().find(|x| x.as_str() == s)
    }
}

/// What a signal recommends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Call it more (the ops family's BUY).
    Prioritize,
    /// Call it less (SELL).
    Deprioritize,
    /// Leave it (HOLD).
    Leave,
}

impl Direction {
    /// The ops family's word for it (`BUY`, `SELL`, `HOLD`).
    pub fn ops_word(self) -> &'static str {
        match self {
            Direction::Prioritize => "BUY",
            Direction::Deprioritize => "SELL",
            Direction::Leave => "HOLD",
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Prioritize => "prioritize",
            Direction::Deprioritize => "deprioritize",
            Direction::Leave => "leave",
        }
    }

    /// `confidence` counted for or against the function.
    pub fn score(self, confidence: f64) -> f64 {
        match self {
            Direction::Prioritize => confidence,
            Direction::Deprioritize => -confidence,
            Direction::Leave => 0.0,
        }
    }
}

/// One strategy's verdict on one function, with its evidence.
#[derive(Clone, Debug)]
pub struct Signal<'g> {
    pub strategy: Strategy,
    pub direction: Direction,
    pub confidence: f64,
    /// The function's signature.
    pub function: String,
    /// When its calls last found new coverage (the campaign's start if never).
    pub triggered_ms: u64,
    pub calls: u64,
    pub revert_rate: f64,
    pub new_points: u64,
    /// The uncovered branches it is an entry point of.
    pub gaps: Vec<&'g Gap>,
    /// How many of them are never true.
    pub blocking: usize,
}

impl Signal<'_> {
    /// The constants the gaps compare with: candidate argument values.
    pub fn candidate_values(&self) -> impl Iterator<Item = &crate::graph::Constant> {
        self.gaps.iter().flat_map(|g| g.constants.iter())
    }
}

impl Engine {
    /// Strategy `strategy`'s signal for callable function `k`, given the
    /// graph's `gaps` and the per-function `totals` (read once by callers that
    /// ask for many signals).
    pub fn signal<'g>(
        &self,
        k: usize,
        strategy: Strategy,
        gaps: &'g [Gap],
        totals: &[FunctionTotals],
    ) -> Signal<'g> {
        let function = self.callable[k].function.signature();
        let entry = format!("{}.{function}", self.target.contract.name);
        let t = &totals[k];
        let reaches: Vec<&Gap> = gaps
            .iter()
            .filter(|g| g.entry_points.contains(&entry))
            .collect();
        let blocking = reaches
            .iter()
            .filter(|g| g.missing == Missing::NeverTrue)
            .count();
        let revert_rate = if t.calls > 0 {
            t.reverts as f64 / t.calls as f64
        } else {
            0.0
        };
        let constants = reaches.iter().map(|g| g.constants.len()).sum::<usize>();
        use Direction::*;
        let (direction, confidence) = match strategy {
            Strategy::Coverage if reaches.is_empty() => (Leave, 0.5),
            Strategy::Coverage => (
                Prioritize,
                (0.5 + 0.1 * blocking as f64 + 0.05 * reaches.len() as f64).min(1.0),
            ),
            Strategy::Constants if constants == 0 => (Leave, 0.5),
            Strategy::Constants => (Prioritize, (0.5 + 0.1 * constants as f64).min(0.9)),
            Strategy::Reverts if t.calls < MIN_CALLS_FOR_REVERTS => (Leave, 0.3),
            Strategy::Reverts if revert_rate >= 0.9 && reaches.is_empty() => {
                (Deprioritize, revert_rate)
            }
            Strategy::Reverts => (Leave, 1.0 - revert_rate),
            Strategy::All => {
                let net: f64 = Strategy::EACH
                    .iter()
                    .map(|x| {
                        let s = self.signal(k, *x, gaps, totals);
                        s.direction.score(s.confidence)
                    })
                    .sum();
                match net {
                    n if n > 0.0 => (Prioritize, (n / 2.0).min(1.0)),
                    n if n < 0.0 => (Deprioritize, (-n).min(1.0)),
                    _ => (Leave, 0.5),
                }
            }
        };
        Signal {
            strategy,
            direction,
            confidence,
            function,
            triggered_ms: if t.last_new_ms > 0 {
                t.last_new_ms
            } else {
                self.started_ms
            },
            calls: t.calls,
            revert_rate,
            new_points: t.new_points,
            gaps: reaches,
            blocking,
        }
    }
}
