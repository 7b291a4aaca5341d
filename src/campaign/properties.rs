//! The tests of a campaign and what is known about each: open, falsified with
//! its (shrinking or shrunk) counterexample, or the best value an
//! optimization reached. Reads are lock-free (`ArcSwapOption`); a worker
//! claims a test before shrinking it so only one worker shrinks each.

use crate::ids::{TestId, WorkerId};
use crate::tx::Tx;
use alloy_json_abi::Function;
use alloy_primitives::I256;
use arc_swap::ArcSwapOption;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

pub use super::modes::TestKind;

/// One test.
#[derive(Clone, Debug)]
pub struct TestCase {
    pub id: TestId,
    pub kind: TestKind,
    /// The property's name, or the checked function's signature.
    pub name: String,
    pub function: Arc<Function>,
    /// A spec added at run time (`submit_new_spec`): checked instead of
    /// calling `function` (its first view).
    pub spec: Option<Arc<super::spec::Spec>>,
    /// Checked once, at the end of each sequence, instead of after every
    /// call (a Foundry suite's `afterInvariant()`).
    pub at_end: bool,
    /// The contract whose function a per-call test checks when it is not
    /// the target (`allContracts`, a suite's targets).
    pub to: Option<alloy_primitives::Address>,
}

impl TestCase {
    /// Whether the test is checked after call `i` of a sequence of `len`
    /// calls (every call, or the last for an end-of-sequence test).
    pub fn checked_after(&self, i: usize, len: usize) -> bool {
        !self.at_end || i + 1 == len
    }

    /// Whether a reverted call breaks this test when `failOnRevert` is on:
    /// the properties and invariants of the target (not specs added at run
    /// time, not the end-of-sequence `afterInvariant`).
    pub fn breaks_on_revert(&self) -> bool {
        self.kind.must_hold() && self.spec.is_none() && !self.at_end
    }

    /// Whether this is the per-call test (assertion, overflow) of the
    /// function `tx` calls, on the target or on the contract beside it the
    /// test is of (`allContracts`: an assertion a deployed contract's own
    /// function fails is that function's).
    pub fn checks_call(&self, tx: &crate::tx::Tx) -> bool {
        self.kind.is_per_call()
            && tx.to == self.to
            && crate::tx::selector_of(&self.function) == tx.selector()
    }
}

/// Who falsified a test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FoundBy {
    /// A worker, while fuzzing (`Falsification::worker` names it).
    Worker,
    /// The campaign, replaying a reproducer saved by an earlier run.
    Resume,
    /// The campaign, checking properties right after deployment.
    Deployment,
    /// Another node of a shared campaign (replayed here, still failing).
    Shared,
    /// The campaign, replaying another fuzzer's corpus or reproducers
    /// found in the corpus directory (Echidna's `coverage/*.txt`,
    /// `reproducers/*.txt`).
    Imported,
}

impl FoundBy {
    const ALL: [FoundBy; 5] = [
        FoundBy::Worker,
        FoundBy::Resume,
        FoundBy::Deployment,
        FoundBy::Shared,
        FoundBy::Imported,
    ];

    /// The finder `as_str` names.
    pub fn parse(word: &str) -> Option<FoundBy> {
        Self::ALL.into_iter().find(|f| f.as_str() == word)
    }

    /// Who it is, in words (the text report).
    pub fn words(self) -> &'static str {
        match self {
            FoundBy::Worker => "a worker's fuzzing",
            FoundBy::Resume => "an earlier run",
            FoundBy::Deployment => "the check right after deployment",
            FoundBy::Shared => "another node of the shared campaign",
            FoundBy::Imported => "another fuzzer's corpus, replayed",
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            FoundBy::Worker => "worker",
            FoundBy::Resume => "resume",
            FoundBy::Deployment => "deployment",
            FoundBy::Shared => "shared",
            FoundBy::Imported => "imported",
        }
    }
}

/// A falsified test's counterexample.
#[derive(Clone, Debug)]
pub struct Falsification {
    pub worker: Option<WorkerId>,
    pub found_by: FoundBy,
    /// Who found it in the run that first did: `found_by`, except for a
    /// reproducer replayed on resume, where it is what that file says.
    pub first_found_by: FoundBy,
    pub found_ms: u64,
    /// Why the test failed (`returned false`, `panic 0x01 …`).
    pub reason: String,
    pub original: Vec<Tx>,
    pub shrunk: Vec<Tx>,
    pub shrink_steps: u64,
    pub shrink_done: bool,
    /// Gas the counterexample's calls used (the original sequence's when
    /// found by a worker, the replayed sequence's otherwise).
    pub gas_used: u64,
}

impl Falsification {
    /// The best known counterexample.
    pub fn sequence(&self) -> &[Tx] {
        if self.shrunk.is_empty() {
            &self.original
        } else {
            &self.shrunk
        }
    }
}

/// The best value of an optimization test and the sequence that reached it.
#[derive(Clone, Debug)]
pub struct Optimum {
    pub value: I256,
    pub sequence: Vec<Tx>,
    pub worker: Option<WorkerId>,
    pub found_ms: u64,
}

struct Slot {
    case: TestCase,
    /// Campaign calls when the test joined (0 for the compiled ones).
    added_calls: u64,
    /// Campaign calls when it was falsified (0: open).
    closed_calls: std::sync::atomic::AtomicU64,
    claimed: AtomicBool,
    falsified: ArcSwapOption<Falsification>,
    optimum: ArcSwapOption<Optimum>,
}

/// Tests at most (a call's checked and failed tests are 64-bit masks).
pub const MAX_TESTS: usize = 64;

/// The campaign's tests: those the target defines, then specs added while
/// it runs (append-only; readers never lock).
pub struct TestStore {
    slots: crate::appendvec::AppendVec<Slot>,
}

/// Serialises [`TestStore::add`] (appends are rare: specs at run time).
static ADD_LOCK: parking_lot::Mutex<()> = parking_lot::Mutex::new(());

impl Slot {
    fn new(case: TestCase, added_calls: u64) -> Self {
        Slot {
            case,
            added_calls,
            closed_calls: Default::default(),
            claimed: AtomicBool::new(false),
            falsified: ArcSwapOption::empty(),
            optimum: ArcSwapOption::empty(),
        }
    }
}

impl std::fmt::Debug for TestStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.slots.iter().map(|s| &s.case.name))
            .finish()
    }
}

impl TestStore {
    pub fn new(cases: Vec<TestCase>) -> Self {
        let store = TestStore {
            slots: Default::default(),
        };
        for case in cases {
            store.slots.push(Slot::new(case, 0));
        }
        store
    }

    /// Appends a test (`make` receives its id) after `added_calls`
    /// campaign calls; `None` when [`MAX_TESTS`] are there or `make`
    /// refuses it (it runs under the writers' lock, so a name check there
    /// sees every earlier test).
    pub fn add<E>(
        &self,
        added_calls: u64,
        make: impl FnOnce(TestId, &TestStore) -> Result<TestCase, E>,
    ) -> Result<Option<TestId>, E> {
        // Appends are rare (specs at run time): one lock for the check and
        // the push, so two specs never take the same id or name.
        let _guard = ADD_LOCK.lock();
        if self.slots.len() >= MAX_TESTS {
            return Ok(None);
        }
        let id = TestId(self.slots.len() as u32);
        let case = make(id, self)?;
        self.slots.push(Slot::new(case, added_calls));
        Ok(Some(id))
    }

    /// (calls when the test joined, calls when it was falsified if it was).
    pub fn evaluated_between(&self, id: TestId) -> Option<(u64, Option<u64>)> {
        let s = self.slots.get(id.0 as usize)?;
        let closed = s.closed_calls.load(Ordering::Acquire);
        Some((s.added_calls, (closed > 0).then_some(closed)))
    }

    /// Records the campaign's call count at the falsification of `id`.
    pub fn close_at(&self, id: TestId, calls: u64) {
        if let Some(s) = self.slots.get(id.0 as usize) {
            let _ = s.closed_calls.compare_exchange(
                0,
                calls.max(1),
                Ordering::AcqRel,
                Ordering::Acquire,
            );
        }
    }

    pub fn cases(&self) -> impl Iterator<Item = &TestCase> {
        self.slots.iter().map(|s| &s.case)
    }

    pub fn len(&self) -> usize {
        self.slots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    pub fn case(&self, id: TestId) -> Option<&TestCase> {
        self.slots.get(id.0 as usize).map(|s| &s.case)
    }

    /// Whether nobody has falsified (or started shrinking) `id` yet.
    pub fn is_open(&self, id: TestId) -> bool {
        self.slots
            .get(id.0 as usize)
            .is_some_and(|s| !s.claimed.load(Ordering::Acquire))
    }

    /// Claims `id` for shrinking; true for exactly one caller.
    pub fn claim(&self, id: TestId) -> bool {
        self.slots.get(id.0 as usize).is_some_and(|s| {
            s.claimed
                .compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
        })
    }

    /// Publishes (or updates) `id`'s counterexample.
    pub fn set_falsified(&self, id: TestId, f: Falsification) {
        if let Some(s) = self.slots.get(id.0 as usize) {
            s.claimed.store(true, Ordering::Release);
            s.falsified.store(Some(Arc::new(f)));
        }
    }

    pub fn falsified(&self, id: TestId) -> Option<Arc<Falsification>> {
        self.slots.get(id.0 as usize)?.falsified.load_full()
    }

    /// Offers a value for an optimization test; keeps it if it beats the best.
    pub fn offer(&self, id: TestId, value: I256, make: impl FnOnce() -> Optimum) -> bool {
        let Some(s) = self.slots.get(id.0 as usize) else {
            return false;
        };
        let cur = s.optimum.load();
        if cur.as_ref().is_some_and(|o| o.value >= value) {
            return false;
        }
        let mut candidate = make();
        candidate.value = value;
        let new = Arc::new(candidate);
        let mut improved = false;
        s.optimum.rcu(|old| {
            if old.as_ref().is_some_and(|o| o.value >= value) {
                improved = false;
                old.clone()
            } else {
                improved = true;
                Some(new.clone())
            }
        });
        improved
    }

    /// Replaces the sequence of the best value (after shrinking) if the best
    /// value is still `value`.
    pub fn replace_optimum_sequence(&self, id: TestId, value: I256, sequence: Vec<Tx>) {
        if let Some(s) = self.slots.get(id.0 as usize) {
            s.optimum.rcu(|old| match old {
                Some(o) if o.value == value => Some(Arc::new(Optimum {
                    sequence: sequence.clone(),
                    ..(**o).clone()
                })),
                other => other.clone(),
            });
        }
    }

    pub fn optimum(&self, id: TestId) -> Option<Arc<Optimum>> {
        self.slots.get(id.0 as usize)?.optimum.load_full()
    }

    /// The sequence a test has: a falsified test's counterexample (as
    /// shrunk so far), else an optimization's best sequence.
    pub fn sequence(&self, id: TestId) -> Option<Vec<crate::tx::Tx>> {
        match self.falsified(id) {
            Some(f) => Some(f.sequence().to_vec()),
            None => self.optimum(id).map(|o| o.sequence.clone()),
        }
    }

    /// Whether every property or assertion test is falsified (optimization
    /// tests are never "decided").
    pub fn all_decided(&self) -> bool {
        !self.slots.is_empty()
            && self
                .slots
                .iter()
                .all(|s| !s.case.kind.seeks_value() && s.falsified.load().is_some())
    }

    pub fn falsified_count(&self) -> usize {
        self.slots
            .iter()
            .filter(|s| s.falsified.load().is_some())
            .count()
    }
}
