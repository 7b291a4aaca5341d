//! The coverage map: for each code object of the target (a contract's
//! creation code and its runtime code), how often each program counter ran
//! and which way each `JUMPI` went.
//!
//! Hot-path design: each worker owns its own row of hit counters and writes
//! them with plain relaxed stores (no read-modify-write, no shared cache
//! lines). Novelty is decided against one shared bitmap per code object (bit
//! 0: the PC ran, bit 1: the JUMPI jumped, bit 2: it fell through), touched
//! only when a worker sees a point for the first time itself, so in a steady
//! state workers never write shared memory. Readers (LCOV, `show_coverage`)
//! sum the rows.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicU32, AtomicU64, Ordering};
use std::time::Instant;

pub mod lcov;
/// Source maps are compiler output: they live with the artifacts.
pub use crate::artifacts::sourcemap;

pub use lcov::{CoverageReport, FileCoverage};
pub use sourcemap::{SourceMap, SourceMapEntry};

/// Which code of a contract.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CodeKind {
    Creation,
    Runtime,
}

/// The index of a code object in the [`CoverageMap`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CodeId(pub u32);

const HIT: u8 = 1;
const JUMPED: u8 = 2;
const FELL_THROUGH: u8 = 4;

/// The description of one code object.
#[derive(Clone, Debug)]
pub struct CodeInfo {
    pub contract: String,
    pub kind: CodeKind,
    pub len: usize,
}

struct CodeCoverage {
    info: CodeInfo,
    seen: Box<[AtomicU8]>,
    /// `first[pc]`: when the PC was first reached, in milliseconds since the
    /// map was made, plus one (0: never). Written once per PC, by the commit
    /// that found it new, so it costs nothing in a steady state.
    first: Box<[AtomicU32]>,
    /// `rows[r][pc]`: row `r` belongs to one recorder (worker) only.
    rows: Box<[Row]>,
}

struct Row {
    hits: Box<[AtomicU32]>,
    jumped: Box<[AtomicU32]>,
    fell: Box<[AtomicU32]>,
}

impl Row {
    fn new(len: usize) -> Row {
        let zeros = || (0..len).map(|_| AtomicU32::new(0)).collect();
        Row {
            hits: zeros(),
            jumped: zeros(),
            fell: zeros(),
        }
    }
}

/// Hit counts of one code object, summed over every row.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CodeCounts {
    pub hits: Vec<u64>,
    /// For each PC holding a JUMPI: (times it jumped, times it fell through).
    pub jumped: Vec<u64>,
    pub fell: Vec<u64>,
    /// For each PC reached: milliseconds from the map's making (about the
    /// campaign's start) to the commit that first reached it.
    pub first_ms: Vec<Option<u32>>,
}

/// The shared map. Rows: one per worker plus one for the campaign itself
/// (deployment, injected replays outside workers).
pub struct CoverageMap {
    codes: Box<[CodeCoverage]>,
    rows: usize,
    points: AtomicU64,
    epoch: Instant,
}

impl std::fmt::Debug for CoverageMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CoverageMap")
            .field("codes", &self.codes.len())
            .field("points", &self.points())
            .finish()
    }
}

impl CoverageMap {
    /// A map for `codes`, with `rows` recorder rows.
    pub fn new(codes: Vec<CodeInfo>, rows: usize) -> Self {
        let codes = codes
            .into_iter()
            .map(|info| CodeCoverage {
                seen: (0..info.len).map(|_| AtomicU8::new(0)).collect(),
                first: (0..info.len).map(|_| AtomicU32::new(0)).collect(),
                rows: (0..rows).map(|_| Row::new(info.len)).collect(),
                info,
            })
            .collect();
        CoverageMap {
            codes,
            rows,
            points: AtomicU64::new(0),
            epoch: Instant::now(),
        }
    }

    pub fn codes(&self) -> impl Iterator<Item = (CodeId, &CodeInfo)> {
        self.codes
            .iter()
            .enumerate()
            .map(|(i, c)| (CodeId(i as u32), &c.info))
    }

    /// Distinct coverage points (PCs reached plus JUMPI directions taken) so far.
    pub fn points(&self) -> u64 {
        self.points.load(Ordering::Relaxed)
    }

    /// The coverage points reached, per code object: one byte per PC whose
    /// bits are the points at it (reached, jumped, fell through). What a
    /// node of a shared campaign publishes, merged by OR.
    pub fn seen_bytes(&self) -> Vec<Vec<u8>> {
        self.codes
            .iter()
            .map(|c| c.seen.iter().map(|s| s.load(Ordering::Relaxed)).collect())
            .collect()
    }

    /// Whether `pc` of `code` was ever reached.
    pub fn is_hit(&self, code: CodeId, pc: usize) -> bool {
        self.codes[code.0 as usize]
            .seen
            .get(pc)
            .is_some_and(|s| s.load(Ordering::Relaxed) & HIT != 0)
    }

    /// The summed counters of `code`.
    pub fn counts(&self, code: CodeId) -> CodeCounts {
        let c = &self.codes[code.0 as usize];
        let len = c.info.len;
        let mut out = CodeCounts {
            hits: vec![0; len],
            jumped: vec![0; len],
            fell: vec![0; len],
            first_ms: (c.first.iter())
                .map(|f| f.load(Ordering::Relaxed).checked_sub(1))
                .collect(),
        };
        for row in c.rows.iter() {
            for pc in 0..len {
                out.hits[pc] += row.hits[pc].load(Ordering::Relaxed) as u64;
                out.jumped[pc] += row.jumped[pc].load(Ordering::Relaxed) as u64;
                out.fell[pc] += row.fell[pc].load(Ordering::Relaxed) as u64;
            }
        }
        out
    }

    /// A recorder writing row `row` (one per worker; rows are not shared).
    pub fn recorder(self: &Arc<Self>, row: usize) -> Recorder {
        assert!(row < self.rows, "row {row} of {}", self.rows);
        Recorder {
            map: self.clone(),
            row,
            local: self.codes.iter().map(|c| vec![0u8; c.info.len]).collect(),
            pending: Vec::new(),
            scratch: false,
        }
    }

    /// A recorder that writes nothing to the map: what it sees is only
    /// compared with it ([`Recorder::preview`]), for dry runs that must
    /// leave the campaign's coverage as it was.
    pub fn scratch_recorder(self: &Arc<Self>) -> Recorder {
        Recorder {
            scratch: true,
            ..self.recorder(0)
        }
    }
}

/// A worker's writer into the map. Not `Sync`: one per thread.
pub struct Recorder {
    map: Arc<CoverageMap>,
    row: usize,
    /// What this recorder has seen, to touch the shared bitmap only on news.
    local: Vec<Vec<u8>>,
    pending: Vec<(CodeId, u32, u8)>,
    /// Counts nothing and publishes nothing (see [`CoverageMap::scratch_recorder`]).
    scratch: bool,
}

#[inline]
fn bump(c: &AtomicU32) {
    // Owned row: load + store, never a contended read-modify-write.
    c.store(
        c.load(Ordering::Relaxed).saturating_add(1),
        Ordering::Relaxed,
    );
}

impl Recorder {
    #[inline]
    fn note(&mut self, code: CodeId, pc: usize, bit: u8) {
        let l = &mut self.local[code.0 as usize][pc];
        if *l & bit == 0 {
            *l |= bit;
            self.pending.push((code, pc as u32, bit));
        }
    }

    /// `pc` of `code` ran.
    #[inline]
    pub fn hit(&mut self, code: CodeId, pc: usize) {
        let c = &self.map.codes[code.0 as usize];
        if let Some(h) = c.rows[self.row].hits.get(pc) {
            if !self.scratch {
                bump(h);
            }
            self.note(code, pc, HIT);
        }
    }

    /// The JUMPI at `pc` of `code` jumped (`true`) or fell through.
    #[inline]
    pub fn branch(&mut self, code: CodeId, pc: usize, jumped: bool) {
        let c = &self.map.codes[code.0 as usize];
        let row = &c.rows[self.row];
        let (counter, bit) = if jumped {
            (row.jumped.get(pc), JUMPED)
        } else {
            (row.fell.get(pc), FELL_THROUGH)
        };
        if let Some(counter) = counter {
            if !self.scratch {
                bump(counter);
            }
            self.note(code, pc, bit);
        }
    }

    /// Whether this recorder has seen the JUMPI at `pc` of `code` go both
    /// ways (a branch still half covered is a frontier worth comparison
    /// feedback).
    #[inline]
    pub fn both_ways(&self, code: CodeId, pc: usize) -> bool {
        self.local[code.0 as usize]
            .get(pc)
            .is_some_and(|l| *l & (JUMPED | FELL_THROUGH) == JUMPED | FELL_THROUGH)
    }

    /// Publishes what this recorder saw for the first time since the last
    /// commit; returns how many of those points were new to the whole campaign.
    pub fn commit(&mut self) -> u32 {
        if self.scratch {
            return self.preview();
        }
        let mut fresh = 0u32;
        let mut stamp = None;
        for (code, pc, bit) in self.pending.drain(..) {
            let c = &self.map.codes[code.0 as usize];
            let seen = &c.seen[pc as usize];
            if seen.load(Ordering::Relaxed) & bit == 0
                && seen.fetch_or(bit, Ordering::Relaxed) & bit == 0
            {
                fresh += 1;
                if bit == HIT {
                    let ms = *stamp.get_or_insert_with(|| {
                        let ms = self.map.epoch.elapsed().as_millis();
                        u32::try_from(ms).unwrap_or(u32::MAX - 1) + 1
                    });
                    c.first[pc as usize].store(ms, Ordering::Relaxed);
                }
            }
        }
        if fresh > 0 {
            self.map.points.fetch_add(fresh as u64, Ordering::Relaxed);
        }
        fresh
    }

    /// How many of the points seen since the last call are new to the
    /// campaign; publishes nothing.
    pub fn preview(&mut self) -> u32 {
        let mut fresh = 0u32;
        for (code, pc, bit) in self.pending.drain(..) {
            let seen = &self.map.codes[code.0 as usize].seen[pc as usize];
            if seen.load(Ordering::Relaxed) & bit == 0 {
                fresh += 1;
            }
        }
        fresh
    }

    /// Whether anything new to this recorder is waiting for [`commit`](Self::commit).
    pub fn has_pending(&self) -> bool {
        !self.pending.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(rows: usize) -> Arc<CoverageMap> {
        Arc::new(CoverageMap::new(
            vec![
                CodeInfo {
                    contract: "A".into(),
                    kind: CodeKind::Creation,
                    len: 10,
                },
                CodeInfo {
                    contract: "A".into(),
                    kind: CodeKind::Runtime,
                    len: 20,
                },
            ],
            rows,
        ))
    }

    #[test]
    fn novelty_is_global_counts_are_summed() {
        let m = map(2);
        let mut a = m.recorder(0);
        let mut b = m.recorder(1);
        a.hit(CodeId(1), 3);
        a.hit(CodeId(1), 3);
        a.branch(CodeId(1), 4, true);
        assert_eq!(a.commit(), 2);
        b.hit(CodeId(1), 3);
        b.branch(CodeId(1), 4, false);
        assert_eq!(b.commit(), 1, "only the fall-through is new");
        b.hit(CodeId(1), 3);
        assert!(!b.has_pending());
        assert_eq!(b.commit(), 0);
        let c = m.counts(CodeId(1));
        assert_eq!(c.hits[3], 4);
        assert_eq!((c.jumped[4], c.fell[4]), (1, 1));
        assert_eq!(m.points(), 3);
        assert!(c.first_ms[3].is_some(), "reached: a first time");
        assert_eq!(c.first_ms[5], None, "never reached");
        assert!(m.is_hit(CodeId(1), 3));
        assert!(!m.is_hit(CodeId(0), 3));
        // Out-of-range PCs (e.g. past the end of code) are ignored.
        a.hit(CodeId(0), 99);
        assert_eq!(a.commit(), 0);
    }

    #[test]
    fn concurrent_recorders_count_each_point_once() {
        let m = map(4);
        let total: u32 = (0..4)
            .map(|r| {
                let m = m.clone();
                std::thread::spawn(move || {
                    let mut rec = m.recorder(r);
                    for pc in 0..20 {
                        rec.hit(CodeId(1), pc);
                    }
                    rec.commit()
                })
            })
            .map(|h| h.join().unwrap())
            .sum();
        assert_eq!(total, 20);
        assert_eq!(m.counts(CodeId(1)).hits.iter().sum::<u64>(), 80);
    }
}
