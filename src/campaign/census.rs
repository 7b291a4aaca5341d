//! The revert census: per target function, its calls and reverts over a
//! recent window, and where its calls revert — the `REVERT` that started
//! each failure, the guard decided last before it, and what it reverted
//! with — counted by the workers in batches and joined with the code graph
//! when read (the guard's condition, the state it reads, the entry points
//! that write that state).
//!
//! A worker counts a reverted call in its own [`CensusBatch`] (one hash
//! lookup; a sample call is kept when a site first shows in a batch) and
//! hands the batch over with its other counters ([`Census::absorb`], about
//! four times a second); readers sum the windows' buckets.

use super::*;
use crate::executor::inspector::RevertSite;
use crate::executor::{Outcome, RevertReason};
use std::collections::HashMap;
use std::time::Duration;

/// Width of one bucket of a window, in milliseconds.
pub const BUCKET_MS: u64 = 10_000;
/// Buckets a window keeps: the longest window a reader may ask for is
/// `BUCKETS * BUCKET_MS` (ten minutes).
pub const BUCKETS: usize = 60;
/// The longest window, in seconds.
pub const MAX_WINDOW_SECONDS: u64 = BUCKETS as u64 * BUCKET_MS / 1000;
/// Revert sites kept at most (per function and reason); a site first seen
/// when the census is full is counted in its function's reverts only.
pub const SITES_KEPT: usize = 4096;

/// Counts over the last [`BUCKETS`] buckets of time, and in all.
#[derive(Clone, Debug)]
struct Window {
    buckets: [u64; BUCKETS],
    /// The newest bucket written (its index since the campaign started).
    newest: u64,
    total: u64,
}

impl Default for Window {
    fn default() -> Self {
        Window {
            buckets: [0; BUCKETS],
            newest: 0,
            total: 0,
        }
    }
}

impl Window {
    fn add(&mut self, bucket: u64, n: u64) {
        if bucket > self.newest {
            let gap = (bucket - self.newest).min(BUCKETS as u64);
            for b in (bucket + 1 - gap)..=bucket {
                self.buckets[(b % BUCKETS as u64) as usize] = 0;
            }
            self.newest = bucket;
        }
        // A late batch of an older bucket still within the window counts
        // there; one older than the window counts in the total only.
        if bucket + (BUCKETS as u64) > self.newest {
            self.buckets[(bucket % BUCKETS as u64) as usize] += n;
        }
        self.total += n;
    }

    /// The counts of the `k` buckets ending with bucket `now`.
    fn last(&self, now: u64, k: u64) -> u64 {
        let k = k.min(BUCKETS as u64);
        let from = (now + 1).saturating_sub(k);
        let oldest_kept = (self.newest + 1).saturating_sub(BUCKETS as u64);
        (from.max(oldest_kept)..=now.min(self.newest))
            .map(|b| self.buckets[(b % BUCKETS as u64) as usize])
            .sum()
    }
}

/// What tells one place of failure of one function from another.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SiteKey {
    /// Index into the campaign's callable functions.
    pub function: u32,
    /// Where in the target's code the failure started (none: it halted,
    /// or reverted in code the campaign does not follow).
    pub site: Option<RevertSite>,
    /// A hash of what it reverted with.
    pub reason: u64,
}

/// One site's counts and what it reverted with.
#[derive(Clone, Debug)]
struct Site {
    window: Window,
    outcome: Outcome,
    sample: Tx,
}

/// What a worker gathers between two hand-overs.
#[derive(Debug, Default)]
pub struct CensusBatch {
    sites: HashMap<SiteKey, (u64, Outcome, Tx)>,
}

impl CensusBatch {
    /// Counts a reverted call of callable `function`: `site` and `data`
    /// where it started (see [`Executor::last_revert`]), `outcome` what
    /// the call returned.
    ///
    /// [`Executor::last_revert`]: crate::executor::Executor::last_revert
    pub fn revert(
        &mut self,
        function: usize,
        origin: Option<(RevertSite, &alloy_primitives::Bytes)>,
        outcome: &Outcome,
        tx: &Tx,
    ) {
        let (site, reason) = match origin {
            Some((site, data)) => (Some(site), hash(1, data)),
            None => {
                let (kind, bytes) = outcome.hash_key();
                (None, hash(kind.wrapping_add(2), bytes))
            }
        };
        let key = SiteKey {
            function: function as u32,
            site,
            reason,
        };
        match self.sites.get_mut(&key) {
            Some(e) => e.0 += 1,
            None => {
                let outcome = match origin {
                    Some((_, data)) => Outcome::Revert {
                        reason: crate::executor::decode_revert(data),
                    },
                    None => outcome.clone(),
                };
                self.sites.insert(key, (1, outcome, tx.clone()));
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.sites.is_empty()
    }
}

fn hash(kind: u8, bytes: &[u8]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64 ^ kind as u64;
    for b in bytes {
        h = (h ^ *b as u64).wrapping_mul(0x0100_0000_01b3);
    }
    h
}

#[derive(Debug, Default)]
struct Inner {
    /// Per callable function: calls and reverts.
    functions: Vec<(Window, Window)>,
    sites: HashMap<SiteKey, Site>,
}

/// The campaign's revert census (see the module's docs).
#[derive(Debug)]
pub struct Census {
    inner: parking_lot::Mutex<Inner>,
    started: Instant,
}

/// One function's counts over a window.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FunctionCounts {
    pub calls: u64,
    pub reverts: u64,
}

/// One site's count over a window, with what it reverted with and the
/// last call seen failing there.
#[derive(Clone, Debug)]
pub struct SiteCount {
    pub key: SiteKey,
    pub count: u64,
    pub outcome: Outcome,
    pub sample: Tx,
}

impl Census {
    pub fn new(functions: usize, started: Instant) -> Self {
        Census {
            inner: parking_lot::Mutex::new(Inner {
                functions: vec![Default::default(); functions],
                sites: HashMap::new(),
            }),
            started,
        }
    }

    fn bucket(&self, at: Instant) -> u64 {
        (at.saturating_duration_since(self.started).as_millis() as u64) / BUCKET_MS
    }

    /// Takes a worker's batch: `functions[k]` the calls and reverts of
    /// callable `k` since its last hand-over, `batch` where they reverted
    /// (emptied).
    pub fn absorb(&self, functions: &[(u64, u64)], batch: &mut CensusBatch) {
        let bucket = self.bucket(Instant::now());
        let mut inner = self.inner.lock();
        for (w, &(calls, reverts)) in inner.functions.iter_mut().zip(functions) {
            if calls > 0 {
                w.0.add(bucket, calls);
            }
            if reverts > 0 {
                w.1.add(bucket, reverts);
            }
        }
        for (key, (n, outcome, sample)) in batch.sites.drain() {
            let full = inner.sites.len() >= SITES_KEPT;
            match inner.sites.get_mut(&key) {
                Some(site) => {
                    site.window.add(bucket, n);
                    site.sample = sample;
                }
                None if !full => {
                    let mut window = Window::default();
                    window.add(bucket, n);
                    inner.sites.insert(
                        key,
                        Site {
                            window,
                            outcome,
                            sample,
                        },
                    );
                }
                None => {}
            }
        }
    }

    /// Buckets a window of `window` spans (at least one).
    fn buckets_of(window: Duration) -> u64 {
        (window.as_millis() as u64).div_ceil(BUCKET_MS).max(1)
    }

    /// Each callable function's calls and reverts over the last `window`
    /// (rounded up to whole buckets), and since the campaign started.
    pub fn functions(&self, window: Duration) -> Vec<(FunctionCounts, FunctionCounts)> {
        let (now, k) = (self.bucket(Instant::now()), Self::buckets_of(window));
        let inner = self.inner.lock();
        inner
            .functions
            .iter()
            .map(|(calls, reverts)| {
                (
                    FunctionCounts {
                        calls: calls.last(now, k),
                        reverts: reverts.last(now, k),
                    },
                    FunctionCounts {
                        calls: calls.total,
                        reverts: reverts.total,
                    },
                )
            })
            .collect()
    }

    /// The sites of callable `function` with a revert in the last
    /// `window`, most reverts first.
    pub fn sites(&self, function: usize, window: Duration) -> Vec<SiteCount> {
        let (now, k) = (self.bucket(Instant::now()), Self::buckets_of(window));
        let inner = self.inner.lock();
        let mut out: Vec<SiteCount> = inner
            .sites
            .iter()
            .filter(|(key, _)| key.function as usize == function)
            .filter_map(|(key, s)| {
                let count = s.window.last(now, k);
                (count > 0).then(|| SiteCount {
                    key: *key,
                    count,
                    outcome: s.outcome.clone(),
                    sample: s.sample.clone(),
                })
            })
            .collect();
        out.sort_by(|a, b| b.count.cmp(&a.count).then(a.key.reason.cmp(&b.key.reason)));
        out
    }
}

/// The callable functions by `Contract.signature` (the code graph's name
/// of an entry point), with their indices.
fn callable_index(target: &Target, callable: &[Callable]) -> HashMap<String, u32> {
    callable
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let contract = c.contract.as_deref().unwrap_or(&target.contract.name);
            (format!("{contract}.{}", c.function.signature()), i as u32)
        })
        .collect()
}

/// The window a reader asked for, as counted: whole buckets.
pub fn counted_window(window: Duration) -> Duration {
    Duration::from_millis(Census::buckets_of(window) * BUCKET_MS)
}

/// The kind of a failure, in the census' words.
pub fn reason_kind(outcome: &Outcome) -> &'static str {
    match outcome {
        Outcome::Success { .. } => "success",
        Outcome::Revert {
            reason: RevertReason::Error(_),
        } => "error",
        Outcome::Revert {
            reason: RevertReason::Panic(_),
        } => "panic",
        Outcome::Revert {
            reason: RevertReason::Raw(d),
        } if d.is_empty() => "empty",
        Outcome::Revert {
            reason: RevertReason::Raw(_),
        } => "custom",
        Outcome::Halt { .. } => "halt",
    }
}

/// Where in the sources a program counter of the target's code is: the
/// file (as compiled), its solc source id, the line and the byte range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    pub file: String,
    pub source_id: u32,
    pub line: u32,
    pub start: u32,
    pub end: u32,
}

/// The source place of `pc` of code `code`, if its source map knows one.
pub fn place(target: &Target, code: crate::coverage::CodeId, pc: u32) -> Option<Place> {
    let obj = target.codes.iter().find(|c| c.id == code)?;
    place_in(obj, pc, |id| target.project.source_by_id(id))
}

/// The source place of `pc` of code object `obj`, sources found by id
/// through `source`.
fn place_in<'p>(
    obj: &crate::executor::CodeObject,
    pc: u32,
    source: impl Fn(u32) -> Option<&'p crate::artifacts::Source>,
) -> Option<Place> {
    let e = obj.map.at(pc as usize)?;
    let src = source(e.file?)?;
    src.text.as_ref()?;
    Some(Place {
        file: src.path.clone(),
        source_id: src.id,
        line: src.lines.line(e.start as usize),
        start: e.start,
        end: e.start + e.len,
    })
}

/// A guard, read from the code graph: the decision whose test is the
/// branch at `place` (as the coverage join ties a `JUMPI` to its
/// decision), the function holding it, and the entry points whose writes
/// can change what it reads.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Guard {
    /// `require`, `if`, `assert`, … (empty: a branch no decision of the
    /// graph holds, e.g. a checked operation).
    pub kind: String,
    pub condition: String,
    /// `Contract.name` of the function holding it.
    pub function: String,
    /// State variables the condition reads, qualified.
    pub state: Vec<String>,
    /// The locals it reads, with what they were set to (`shortfall =
    /// liquidityOf(account)`): where a condition reads state through a
    /// helper.
    pub locals: Vec<String>,
    /// Functions the condition (or a local it reads) calls.
    pub calls: Vec<String>,
    /// Entry points (`Contract.signature`) that write the state it reads,
    /// themselves or through the functions they call.
    pub enablers: Vec<String>,
    /// Which of them workers call (set by [`report()`]; parallel to
    /// `enablers`, which it orders callable first).
    pub callable: Vec<bool>,
}

/// The graph's reading of the guard at `place` (the function holding it
/// when no decision does).
pub fn guard_of(
    graph: &crate::graph::CodeGraph,
    reach: &crate::graph::join::Reach<'_>,
    place: &Place,
) -> Option<Guard> {
    let fns = graph.functions.iter().filter(|f| f.file == place.file);
    guard_among(fns, graph, reach, place)
}

/// [`guard_of`] among `fns` (the functions of the place's file).
fn guard_among<'g>(
    fns: impl Iterator<Item = &'g crate::graph::FunctionNode>,
    graph: &crate::graph::CodeGraph,
    reach: &crate::graph::join::Reach<'_>,
    place: &Place,
) -> Option<Guard> {
    let live = |path: &str| {
        graph
            .files
            .iter()
            .any(|f| f.path == path && f.live && f.source_id == place.source_id)
    };
    let f = fns
        .filter(|f| f.span.start <= place.start && place.end <= f.span.end)
        // The innermost function (a modifier's body inside a function's
        // span never happens; nested spans do not either, but be sure).
        .min_by_key(|f| f.span.end - f.span.start)
        .filter(|f| live(&f.file))?;
    let decision = f
        .decisions
        .iter()
        .filter(|d| {
            let (cs, ce) = (d.cond.0, d.cond.0 + d.cond.1);
            place.start <= cs
                && ce <= place.end
                && d.span.start <= place.start
                && place.end <= d.span.end
        })
        .min_by_key(|d| d.span.end - d.span.start);
    let Some(d) = decision else {
        return Some(Guard {
            function: f.qualified(),
            ..Guard::default()
        });
    };
    let mut enablers: Vec<String> = d.state.iter().flat_map(|v| reach.writers_of(v)).collect();
    enablers.sort();
    enablers.dedup();
    Some(Guard {
        kind: d.kind.to_string(),
        condition: d.condition.clone(),
        function: f.qualified(),
        state: d.state.clone(),
        locals: d
            .local_defs
            .iter()
            .map(|l| match &l.init {
                Some(init) => format!("{} = {init}", l.name),
                None => l.name.clone(),
            })
            .collect(),
        calls: d.calls.clone(),
        enablers,
        callable: Vec::new(),
    })
}

/// What a reader asks of the census.
#[derive(Clone, Debug)]
pub struct Query {
    /// One callable function (its index), or all with a call in the window.
    pub function: Option<usize>,
    pub window: Duration,
    /// Reasons per function at most.
    pub top: usize,
}

/// One function's census.
#[derive(Clone, Debug)]
pub struct FunctionReport {
    pub signature: String,
    /// The contract called, when not the target.
    pub contract: Option<String>,
    pub window: FunctionCounts,
    pub total: FunctionCounts,
    pub reasons: Vec<ReasonReport>,
}

/// One place and reason of failure of a function.
#[derive(Clone, Debug)]
pub struct ReasonReport {
    /// What it reverted with, decoded with the project's errors.
    pub reason: String,
    /// `error`, `panic`, `custom`, `empty` or `halt`.
    pub kind: &'static str,
    pub count: u64,
    /// Where the revert started.
    pub revert_at: Option<Place>,
    /// The branch decided last before it, and the graph's reading of it.
    pub guard_at: Option<Place>,
    pub guard: Option<Guard>,
    /// The last call seen failing there.
    pub sample: Tx,
}

/// The census over `q`, joined with the code graph: functions with the
/// most reverts in the window first, each with its `q.top` most frequent
/// reasons.
pub fn report(
    census: &Census,
    target: &Target,
    callable: &[Callable],
    graph: &crate::graph::CodeGraph,
    q: &Query,
) -> Vec<FunctionReport> {
    let reach = crate::graph::join::Reach::new(graph);
    let index = callable_index(target, callable);
    let counts = census.functions(q.window);
    let mut out = Vec::new();
    for (k, (window, total)) in counts.into_iter().enumerate() {
        if q.function.is_some_and(|f| f != k) || (q.function.is_none() && window.calls == 0) {
            continue;
        }
        let Some(c) = callable.get(k) else { continue };
        let reasons = census
            .sites(k, q.window)
            .into_iter()
            .take(q.top)
            .map(|s| {
                let revert_at = s.key.site.and_then(|x| place(target, x.code, x.pc));
                let guard_at = s
                    .key
                    .site
                    .and_then(|x| x.guard)
                    .and_then(|(code, pc)| place(target, code, pc));
                let guard = guard_at
                    .as_ref()
                    .and_then(|p| guard_of(graph, &reach, p))
                    .map(|mut g| {
                        g.enablers.sort_by_key(|e| !index.contains_key(e));
                        g.callable = g.enablers.iter().map(|e| index.contains_key(e)).collect();
                        g
                    });
                ReasonReport {
                    reason: target.errors.describe(&s.outcome),
                    kind: reason_kind(&s.outcome),
                    count: s.count,
                    revert_at,
                    guard_at,
                    guard,
                    sample: s.sample,
                }
            })
            .collect();
        out.push(FunctionReport {
            signature: c.function.signature(),
            contract: c.contract.as_deref().map(str::to_string),
            window,
            total,
            reasons,
        });
    }
    out.sort_by(|a, b| {
        b.window
            .reverts
            .cmp(&a.window.reverts)
            .then_with(|| a.signature.cmp(&b.signature))
    });
    out
}

/// Guards and the callable functions that enable them: for each branch of
/// the target's code that tests state (a decision of the code graph reading
/// state variables), the callable functions whose writes can change that
/// state. Built once, from the graph, on the graph's thread; workers read it
/// when a call reverts at a guard (see the worker's enabler detour).
/// Callable indices that enable one guard.
type Enablers = Box<[u32]>;

#[derive(Debug, Default)]
pub struct EnablerTable {
    /// (code id, `JUMPI` pc) -> callable indices.
    by_site: HashMap<(u32, u32), Enablers>,
}

impl EnablerTable {
    /// The callable functions that can enable the guard at `site`.
    pub fn of(&self, site: (crate::coverage::CodeId, u32)) -> Option<&[u32]> {
        self.by_site.get(&(site.0.0, site.1)).map(|v| &v[..])
    }

    pub fn len(&self) -> usize {
        self.by_site.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_site.is_empty()
    }

    /// The table of `target`'s code: each `JUMPI` read as a guard (see
    /// [`guard_of`]) whose enablers include callable functions.
    pub fn build(target: &Target, callable: &[Callable], graph: &crate::graph::CodeGraph) -> Self {
        let reach = crate::graph::join::Reach::new(graph);
        let index = callable_index(target, callable);
        // One answer per source range: many JUMPIs share a statement's.
        let mut by_range: HashMap<(u32, u32, u32), Option<Enablers>> = HashMap::new();
        let mut by_file: HashMap<&str, Vec<&crate::graph::FunctionNode>> = HashMap::new();
        for f in &graph.functions {
            by_file.entry(f.file.as_str()).or_default().push(f);
        }
        let sources: HashMap<u32, &crate::artifacts::Source> =
            target.project.sources.iter().map(|s| (s.id, s)).collect();
        let mut by_site = HashMap::new();
        for code in &target.codes {
            for &(pc, op) in code.map.instructions() {
                if op != 0x57 {
                    continue;
                }
                let Some(at) = place_in(code, pc, |id| sources.get(&id).copied()) else {
                    continue;
                };
                let enablers = by_range
                    .entry((at.source_id, at.start, at.end))
                    .or_insert_with(|| {
                        let fns = by_file.get(at.file.as_str()).into_iter().flatten().copied();
                        let g = guard_among(fns, graph, &reach, &at)?;
                        let mut v: Vec<u32> = g
                            .enablers
                            .iter()
                            .filter_map(|e| index.get(e).copied())
                            .collect();
                        v.sort_unstable();
                        v.dedup();
                        (!v.is_empty()).then(|| v.into_boxed_slice())
                    });
                if let Some(v) = enablers {
                    by_site.insert((code.id.0, pc), v.clone());
                }
            }
        }
        EnablerTable { by_site }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bank's `withdraw` reverts at `require(balances[msg.sender] >=
    /// amount)`; `deposit` writes `balances`: the table names it for that
    /// guard's branch, and the census' reading of the branch says so.
    #[test]
    fn the_enabler_table_names_deposit_for_withdraws_guard() {
        let artifact = concat!(env!("CARGO_MANIFEST_DIR"), "/contracts/out/Bank.json");
        let out = tempfile::tempdir().unwrap();
        let campaign = crate::campaign::Campaign::new(
            artifact.as_ref(),
            None,
            crate::config::Config::default(),
            Some(out.path().into()),
        )
        .unwrap();
        let engine = campaign.control().engine().clone();
        let graph = campaign.families().graph.graph();
        let table = EnablerTable::build(&engine.target, &engine.callable, &graph);
        let index = |sig: &str| {
            engine
                .callable
                .iter()
                .position(|c| c.function.signature() == sig)
                .unwrap() as u32
        };
        let reach = crate::graph::join::Reach::new(&graph);
        let mut found = false;
        for code in &engine.target.codes {
            for &(pc, op) in code.map.instructions() {
                let Some(enablers) = (op == 0x57).then(|| table.of((code.id, pc))).flatten() else {
                    continue;
                };
                let at = place(&engine.target, code.id, pc).unwrap();
                let guard = guard_of(&graph, &reach, &at).unwrap();
                if guard.condition == "balances[msg.sender] >= amount" {
                    assert_eq!(at.line, 60);
                    assert!(
                        enablers.contains(&index("deposit(uint256)")),
                        "{enablers:?}"
                    );
                    found = true;
                }
            }
        }
        assert!(
            found,
            "withdraw's guard is in the table ({} guards)",
            table.len()
        );
    }

    #[test]
    fn a_window_sums_its_recent_buckets_and_forgets_old_ones() {
        let mut w = Window::default();
        w.add(0, 5);
        w.add(1, 7);
        assert_eq!(w.last(1, 1), 7);
        assert_eq!(w.last(1, 2), 12);
        // Time passes with nothing counted: the window slides past them.
        assert_eq!(w.last(3, 2), 0);
        assert_eq!(w.last(3, 4), 12);
        // A bucket a whole window later overwrites the one it shares a
        // slot with.
        w.add(BUCKETS as u64, 1);
        assert_eq!(w.last(BUCKETS as u64, BUCKETS as u64), 8);
        assert_eq!(w.total, 13);
        // A batch older than the window counts in the total only.
        w.add(0, 100);
        assert_eq!(w.last(BUCKETS as u64, BUCKETS as u64), 8);
        assert_eq!(w.total, 113);
    }

    #[test]
    fn sites_are_told_apart_by_where_and_what_and_counted_per_window() {
        let census = Census::new(2, Instant::now());
        let site = |pc| RevertSite {
            code: crate::coverage::CodeId(0),
            pc,
            guard: Some((crate::coverage::CodeId(0), pc - 3)),
        };
        let tx = Tx {
            function: Arc::new(alloy_json_abi::Function::parse("f()").unwrap()),
            args: Vec::new(),
            sender: alloy_primitives::Address::ZERO,
            value: alloy_primitives::U256::ZERO,
            delay: Default::default(),
            gas_price: 0,
            to: None,
        };
        let low = alloy_primitives::Bytes::from_static(b"low");
        let high = alloy_primitives::Bytes::from_static(b"high");
        let reverted = Outcome::Revert {
            reason: RevertReason::Raw(Default::default()),
        };
        let mut b = CensusBatch::default();
        for _ in 0..3 {
            b.revert(1, Some((site(40), &low)), &reverted, &tx);
        }
        b.revert(1, Some((site(40), &high)), &reverted, &tx);
        b.revert(1, Some((site(90), &low)), &reverted, &tx);
        b.revert(0, None, &reverted, &tx);
        census.absorb(&[(2, 1), (10, 5)], &mut b);
        assert!(b.is_empty());
        let sites = census.sites(1, Duration::from_secs(60));
        let counts: Vec<u64> = sites.iter().map(|s| s.count).collect();
        assert_eq!(counts, vec![3, 1, 1]);
        assert_eq!(sites[0].key.site, Some(site(40)));
        assert_eq!(census.sites(0, Duration::from_secs(60)).len(), 1);
        let f = census.functions(Duration::from_secs(60));
        assert_eq!(
            f[1].0,
            FunctionCounts {
                calls: 10,
                reverts: 5
            }
        );
        assert_eq!(
            f[0].1,
            FunctionCounts {
                calls: 2,
                reverts: 1
            }
        );
    }
}
