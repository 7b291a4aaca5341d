//! Test modes behind one seam. A campaign runs in one mode (`testMode`), and
//! each mode is one file here that says everything the mode decides:
//!
//! * which of the target's functions are its tests ([`Mode::discover`]),
//! * what a worker checks after each call ([`Mode::after_call`]),
//! * what is checked once right after deployment
//!   ([`Mode::after_deployment`]) and once the workers have stopped
//!   ([`Mode::after_workers`]),
//! * how one of its tests is judged after a call of a replayed sequence
//!   (each file's `verdict`, reached through [`verdict`]: shrinking, traces,
//!   dry runs and reproducer coverage all ask it).
//!
//! The modes: [`property`] (Echidna's `echidna_*` properties and Foundry
//! invariants), [`assertion`] (assertion failures on a function's calls, and
//! checked-arithmetic overflows in its overflow form), [`optimization`]
//! (`int256` functions to maximise), [`exploration`] (coverage alone) and
//! [`foundry`] (forge's fuzz tests: a `test*` call must not revert).
//! A spec added at run time is a property test in every mode.
//!
//! Adding a mode: a file here with a type implementing [`Mode`] (and a
//! `verdict` if its tests are a new [`TestKind`]), a `TestMode` variant with
//! its word in `config.rs`, and one line in [`of`] (and in [`verdict`] and
//! [`TestKind`]'s word table for a new kind). ARCHITECTURE.md has the recipe.

mod assertion;
mod exploration;
mod foundry;
mod optimization;
mod property;

pub(crate) use property::spec_case;

use super::Engine;
use super::generate::Callable;
use super::oracle::Oracle;
use super::properties::TestCase;
use super::worker::{AfterCall, Worker};
use crate::config::{Config, TestMode};
use crate::executor::CallResult;
use crate::ids::TestId;
use crate::tx::Tx;
use alloy_json_abi::Function;
use std::sync::Arc;

/// What one test mode decides (see the module's documentation).
pub(crate) trait Mode: Sync {
    /// Finds the mode's tests among the target's functions.
    fn discover(&self, found: &mut Found<'_>);

    /// After each call of a worker's sequence: checks the open tests the
    /// call may have broken (the worker settles and shrinks what fails).
    /// How many were newly falsified, or `None` when the mode's tests are
    /// not falsified by calls (optimization, exploration).
    fn after_call(&self, worker: &mut Worker, call: &AfterCall<'_>) -> Option<u32>;

    /// Once, right after deployment (and after a resumed run's reproducers
    /// are replayed), before any worker starts; `oracle` is at the deployed
    /// state and is left there.
    fn after_deployment(&self, _engine: &Engine, _oracle: &mut Oracle<'_>) {}

    /// Once the workers have stopped, before the report is built.
    fn after_workers(&self, _engine: &Engine) {}

    /// Whether a campaign in this mode needs tests of its own to be worth
    /// running (exploration fuzzes for coverage alone).
    fn has_tests(&self) -> bool {
        true
    }
}

/// The registry: the implementation of each mode.
pub(crate) fn of(mode: TestMode) -> &'static dyn Mode {
    match mode {
        TestMode::Property => &property::Property,
        TestMode::Assertion => &assertion::Assertion { overflow: false },
        TestMode::Overflow => &assertion::Assertion { overflow: true },
        TestMode::Optimization => &optimization::Optimization,
        TestMode::Exploration => &exploration::Exploration,
        TestMode::Foundry => &foundry::Foundry,
    }
}

// What kind of test a case is: a mode's tests are of its kind, and specs
// added at run time are properties. (No doc comment: it would become the
// description of every `kind` in the tools' schemas.)
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TestKind {
    /// A `bool` function that must stay true.
    Property,
    /// A function whose calls must never fail an assertion.
    Assertion,
    /// An `int256` function to maximise.
    Optimization,
    /// A function whose calls must never overflow checked arithmetic.
    Overflow,
}

impl TestKind {
    const WORDS: [(TestKind, &'static str); 4] = [
        (TestKind::Property, "property"),
        (TestKind::Assertion, "assertion"),
        (TestKind::Optimization, "optimization"),
        (TestKind::Overflow, "overflow"),
    ];

    /// Its name, as the report's JSON and the reproducer files spell it.
    pub fn as_str(self) -> &'static str {
        Self::WORDS
            .iter()
            .find(|(k, _)| *k == self)
            .map(|(_, w)| *w)
            .expect("every kind has a word")
    }

    /// The kind `as_str` names.
    pub fn parse(word: &str) -> Option<TestKind> {
        Self::WORDS
            .iter()
            .find(|(_, w)| *w == word)
            .map(|(k, _)| *k)
    }

    /// Tests on the calls of one function (assertion, overflow), as opposed
    /// to functions evaluated after every call (property, optimization).
    pub fn is_per_call(self) -> bool {
        matches!(self, TestKind::Assertion | TestKind::Overflow)
    }

    /// A view that must hold after the calls (property): its reproducer
    /// ends by requiring it.
    pub fn must_hold(self) -> bool {
        self == TestKind::Property
    }

    /// A value to maximise (optimization): never falsified, never
    /// "decided", reported with its best value.
    pub fn seeks_value(self) -> bool {
        self == TestKind::Optimization
    }
}

impl<'de> serde::Deserialize<'de> for TestKind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let word = String::deserialize(d)?;
        TestKind::parse(&word)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown test kind {word}")))
    }
}

/// How a test stands after one call of a replayed sequence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// The test is not judged after this call (another function's call, a
    /// call before the end of the sequence for an end-of-sequence test, a
    /// test with a value rather than a verdict).
    Unchecked,
    Holds,
    /// Broken, and why.
    Fails(String),
}

impl Verdict {
    pub(crate) fn fails(self) -> Option<String> {
        match self {
            Verdict::Fails(why) => Some(why),
            _ => None,
        }
    }
}

/// One call of a replayed sequence: call `i` (from 0) of `len`, its
/// transaction and what it did.
#[derive(Clone, Copy)]
pub(crate) struct Step<'a> {
    pub i: usize,
    pub len: usize,
    pub tx: &'a Tx,
    pub result: &'a CallResult,
}

/// Judges `case` after `step`, on the oracle's current state (a property is
/// called on it; its writes are discarded).
pub(crate) fn verdict(oracle: &mut Oracle<'_>, case: &TestCase, step: Step<'_>) -> Verdict {
    match case.kind {
        TestKind::Property => property::verdict(oracle, case, step),
        TestKind::Assertion | TestKind::Overflow => assertion::verdict(oracle, case, step),
        TestKind::Optimization => Verdict::Unchecked,
    }
}

/// Why call `r` fails a per-call test: an assertion (or, in overflow mode,
/// checked arithmetic); `None` if it does not.
pub(crate) fn call_fails(engine: &Engine, overflow: bool, r: &CallResult) -> Option<String> {
    assertion::call_fails(engine, overflow, r)
}

/// The tests of `config.test_mode` in `functions`, with a warning for each
/// function that has the test prefix but not a test's shape in this mode
/// (Echidna's rule in every mode: a property is a `prefix*` function
/// returning `bool`, an optimization test a `prefix*` function returning
/// `int256`, both without arguments).
pub(crate) fn discover(
    config: &Config,
    functions: &[Arc<Function>],
    callable: &[Callable],
) -> (Vec<TestCase>, Vec<String>) {
    let mut found = Found {
        config,
        functions,
        callable,
        cases: Vec::new(),
        warnings: Vec::new(),
    };
    of(config.test_mode).discover(&mut found);
    (found.cases, found.warnings)
}

/// What a mode's discovery reads and what it finds.
pub(crate) struct Found<'a> {
    pub config: &'a Config,
    /// The target's functions (its ABI, inherited ones included).
    pub functions: &'a [Arc<Function>],
    /// The functions workers call (per-call tests are theirs).
    pub callable: &'a [Callable],
    cases: Vec<TestCase>,
    warnings: Vec<String>,
}

impl Found<'_> {
    /// Adds a test (numbered in the order found).
    pub fn push(
        &mut self,
        kind: TestKind,
        name: String,
        function: Arc<Function>,
        to: Option<alloy_primitives::Address>,
    ) {
        self.cases.push(TestCase {
            id: TestId(self.cases.len() as u32),
            kind,
            at_end: name == crate::executor::foundry::AFTER_INVARIANT,
            name,
            function,
            spec: None,
            to,
        })
    }

    /// The target's functions that carry the test prefix.
    pub fn prefixed(&self) -> Vec<Arc<Function>> {
        (self.functions.iter())
            .filter(|f| f.name.starts_with(&self.config.prefix))
            .cloned()
            .collect()
    }

    /// Whether `f` takes no argument and returns one `ty`.
    pub fn returns(f: &Function, ty: &str) -> bool {
        f.inputs.is_empty() && f.outputs.len() == 1 && f.outputs[0].ty == ty
    }

    /// Whether `f` is a Foundry invariant: `invariant*` (the prefix the
    /// suite runs with), no argument, nothing returned (it holds when it
    /// does not revert).
    pub fn is_invariant(&self, f: &Function) -> bool {
        self.config.prefix == crate::executor::foundry::INVARIANT_PREFIX
            && f.inputs.is_empty()
            && f.outputs.is_empty()
    }

    /// Says once that `f` has the test prefix but not the shape of a test
    /// of this mode (one returning `wanted`); it is not called either.
    pub fn not_a_test(&mut self, f: &Function, wanted: &str) {
        let shape = if f.outputs.is_empty() {
            "nothing".to_string()
        } else {
            f.outputs
                .iter()
                .map(|o| o.ty.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let args = if f.inputs.is_empty() {
            ""
        } else {
            " and takes arguments"
        };
        self.warnings.push(format!(
            "{} has the test prefix {:?} but is not a test in {} mode: it returns {shape}{args} (a test takes no argument and returns {wanted}); it is not called either",
            f.signature(),
            self.config.prefix,
            self.config.test_mode.as_str(),
        ));
    }
}
