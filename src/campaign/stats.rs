//! The campaign's counters: one row per worker (its own cache lines), summed
//! by readers; per-function counters and the gas histogram; what each worker
//! runs now.

use super::*;

/// Counters one worker bumps, on cache lines of its own; readers sum the
/// rows. (A campaign-wide counter bumped on every call would bounce one
/// cache line between every core.)
#[derive(Debug, Default)]
pub struct WorkerStats {
    pub calls: AtomicU64,
    pub sequences: AtomicU64,
    pub injections: AtomicU64,
    pub running: AtomicBool,
    /// Whether the worker is shrinking a counterexample now.
    pub shrinking: AtomicBool,
    /// Per callable function, indexed like [`CampaignRead::callable`](super::CampaignRead::callable).
    pub functions: Box<[FunctionStats]>,
    /// Per sequence origin ([`Origin::index`]): calls, reverted calls, and
    /// coverage points new to the campaign.
    pub origin_calls: [AtomicU64; Origin::COUNT],
    pub origin_reverts: [AtomicU64; Origin::COUNT],
    pub origin_points: [AtomicU64; Origin::COUNT],
    /// When this worker last found coverage new to the campaign (Unix ms; 0: never).
    pub last_new_ms: AtomicU64,
    /// What the worker is doing now (see [`Position`]).
    pub position: PositionCells,
    /// Property, optimization and spec checks run, and skipped because
    /// nothing they read had changed (see `check_cache`; published with
    /// the worker's call counts).
    pub checks_run: AtomicU64,
    pub checks_skipped: AtomicU64,
    /// Gas the worker's calls used (published with each batch of calls).
    pub gas: AtomicU64,
}

/// The running sequence of one worker, as cells the worker overwrites and
/// readers snapshot (a snapshot may mix two consecutive calls; it is a view
/// of a moving thing).
#[derive(Debug, Default)]
pub struct PositionCells {
    /// [`Origin::index`] + 1 of the running sequence (0: none yet).
    pub source: std::sync::atomic::AtomicU8,
    /// Planned length of the running sequence.
    pub planned: std::sync::atomic::AtomicU32,
    /// Calls of it executed so far.
    pub done: std::sync::atomic::AtomicU32,
    /// New coverage points it found so far.
    pub points: std::sync::atomic::AtomicU32,
    /// Campaign coverage points when it started.
    pub start_points: AtomicU64,
    /// When it started (Unix ms).
    pub started_ms: AtomicU64,
    /// Callable index + 1 of its last call (0: none).
    pub last_function: std::sync::atomic::AtomicU32,
}

/// One snapshot of [`PositionCells`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Position {
    pub source: Option<Origin>,
    pub planned: u32,
    pub done: u32,
    pub points: u32,
    pub start_points: u64,
    pub started_ms: u64,
    pub last_function: Option<usize>,
}

impl PositionCells {
    pub fn snapshot(&self) -> Position {
        let r = Ordering::Relaxed;
        Position {
            source: (self.source.load(r) as usize)
                .checked_sub(1)
                .and_then(Origin::from_index),
            planned: self.planned.load(r),
            done: self.done.load(r),
            points: self.points.load(r),
            start_points: self.start_points.load(r),
            started_ms: self.started_ms.load(r),
            last_function: (self.last_function.load(r) as usize).checked_sub(1),
        }
    }
}

/// Buckets of the gas histogram: four per power of two up to 2^16 gas,
/// then two per power (see [`gas_bucket`]).
pub const GAS_BUCKETS: usize = 64;

/// The histogram bucket of `gas`: index grows with gas, each bucket spans
/// at most a factor of 1.5.
pub fn gas_bucket(gas: u64) -> usize {
    if gas < 4 {
        return gas as usize;
    }
    let log = 63 - gas.leading_zeros() as usize; // >= 2
    let half = ((gas >> (log - 1)) & 1) as usize;
    (2 * log + half).min(GAS_BUCKETS - 1)
}

/// The smallest gas of bucket `b` (the inverse of [`gas_bucket`]).
pub fn gas_bucket_floor(b: usize) -> u64 {
    if b < 4 {
        return b as u64;
    }
    let log = b / 2;
    (1u64 << log) | (((b % 2) as u64) << (log - 1))
}

/// Per-function counters of one worker.
#[derive(Debug)]
pub struct FunctionStats {
    /// Calls drawn by the generator (through the priority sampler).
    pub generated: AtomicU64,
    /// Calls executed, whatever their origin (generated, mutated, injected).
    pub calls: AtomicU64,
    pub reverts: AtomicU64,
    /// Failed calls by kind: Panic(uint256), custom error or no reason, halt
    /// (out of gas, invalid opcode); the rest of `reverts` are `Error(string)`.
    pub panics: AtomicU64,
    pub raw_reverts: AtomicU64,
    pub halts: AtomicU64,
    /// Coverage points new to the campaign its calls found.
    pub new_points: AtomicU64,
    /// When one of its calls last found new coverage (Unix ms; 0: never).
    pub last_new_ms: AtomicU64,
    /// Gas used per call ([`gas_bucket`]).
    pub gas: [AtomicU64; GAS_BUCKETS],
}

impl Default for FunctionStats {
    fn default() -> Self {
        FunctionStats {
            generated: AtomicU64::new(0),
            calls: AtomicU64::new(0),
            reverts: AtomicU64::new(0),
            panics: AtomicU64::new(0),
            raw_reverts: AtomicU64::new(0),
            halts: AtomicU64::new(0),
            new_points: AtomicU64::new(0),
            last_new_ms: AtomicU64::new(0),
            gas: std::array::from_fn(|_| AtomicU64::new(0)),
        }
    }
}

/// One function's counters summed over the workers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FunctionTotals {
    pub generated: u64,
    pub calls: u64,
    pub reverts: u64,
    pub panics: u64,
    pub raw_reverts: u64,
    pub halts: u64,
    pub new_points: u64,
    pub last_new_ms: u64,
    pub gas: Vec<u64>,
}

impl FunctionTotals {
    /// The gas of the `q`-quantile call (0 ≤ q ≤ 1), as its bucket's floor.
    pub fn gas_quantile(&self, q: f64) -> Option<u64> {
        let total: u64 = self.gas.iter().sum();
        if total == 0 {
            return None;
        }
        let rank = ((q.clamp(0.0, 1.0) * total as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (b, n) in self.gas.iter().enumerate() {
            seen += n;
            if seen >= rank {
                return Some(gas_bucket_floor(b));
            }
        }
        None
    }
}

/// Campaign-wide counters: one row per worker, then one for the campaign
/// itself (resume, shrinking after the run).
#[derive(Debug)]
pub struct Stats {
    pub workers: Vec<CachePadded<WorkerStats>>,
    /// Calls granted against `testLimit` so far, claimed in chunks.
    pub(super) granted: CachePadded<AtomicU64>,
}

impl Stats {
    pub(super) fn new(rows: usize, functions: usize) -> Self {
        Stats {
            workers: (0..rows)
                .map(|_| {
                    CachePadded::new(WorkerStats {
                        functions: (0..functions).map(|_| FunctionStats::default()).collect(),
                        ..Default::default()
                    })
                })
                .collect(),
            granted: CachePadded::new(AtomicU64::new(0)),
        }
    }

    /// Calls executed by every worker so far.
    pub fn calls(&self) -> u64 {
        self.workers
            .iter()
            .map(|w| w.calls.load(Ordering::Relaxed))
            .sum()
    }

    /// Each callable function's counters, summed over the workers.
    pub fn function_totals(&self) -> Vec<FunctionTotals> {
        let n = self.workers.first().map_or(0, |w| w.functions.len());
        let mut out = vec![
            FunctionTotals {
                gas: vec![0; GAS_BUCKETS],
                ..Default::default()
            };
            n
        ];
        let r = Ordering::Relaxed;
        for w in &self.workers {
            for (t, f) in out.iter_mut().zip(w.functions.iter()) {
                t.generated += f.generated.load(r);
                t.calls += f.calls.load(r);
                t.reverts += f.reverts.load(r);
                t.panics += f.panics.load(r);
                t.raw_reverts += f.raw_reverts.load(r);
                t.halts += f.halts.load(r);
                t.new_points += f.new_points.load(r);
                t.last_new_ms = t.last_new_ms.max(f.last_new_ms.load(r));
                for (a, b) in t.gas.iter_mut().zip(f.gas.iter()) {
                    *a += b.load(r);
                }
            }
        }
        out
    }
}
