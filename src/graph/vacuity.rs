//! Vacuity: how often a test's body got past its own preconditions. A
//! property that returns `true` early while the protocol is empty (`if
//! (totalBorrows == 0) return true;`), or an assertion function whose
//! `require`s stop most calls, holds without having checked anything; the
//! preconditions that stop it most say what state to reach first.
//!
//! Read from the code graph joined with coverage: a precondition is a
//! `require`/`assert` or an `if` whose body leaves the function (`return`,
//! `revert`), at the function's top level, in source order; its counts are
//! its decision's. Checks record coverage for a sample of their runs (see
//! `Executor::call_view`), so counts are a sample; shares are what to read.

use super::join::Coverage;
use super::{CodeGraph, Decision, FunctionNode};

/// One precondition of a test function and how it fared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Precondition {
    pub line: u32,
    /// `require`, `assert` or `if` (an early exit).
    pub kind: &'static str,
    pub condition: String,
    /// Times it was evaluated, let the body go on, and stopped it.
    pub evaluated: u64,
    pub passed: u64,
    pub stopped: u64,
    /// State variables it reads, qualified.
    pub state: Vec<String>,
}

/// A test function's preconditions, in source order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Vacuity {
    /// `Contract.name` of the function the test runs.
    pub function: String,
    pub file: String,
    pub line: u32,
    /// Runs seen reaching its first precondition (none: it has none), and
    /// runs that got past the last one.
    pub entries: u64,
    pub passed: u64,
    pub preconditions: Vec<Precondition>,
}

impl Vacuity {
    /// The share of runs a precondition stopped (0 without runs).
    pub fn share_stopped(&self) -> f64 {
        if self.entries == 0 {
            return 0.0;
        }
        1.0 - self.passed.min(self.entries) as f64 / self.entries as f64
    }

    /// The precondition that stopped the most runs, if one stopped any.
    pub fn stopped_most_by(&self) -> Option<&Precondition> {
        self.preconditions
            .iter()
            .filter(|p| p.stopped > 0)
            .max_by_key(|p| (p.stopped, std::cmp::Reverse(p.line)))
    }
}

/// Whether `d` lies in the body of another decision of `all` (not at the
/// function's top level).
fn nested(d: &Decision, all: &[Decision]) -> bool {
    all.iter().any(|e| {
        !std::ptr::eq(e, d)
            && e.then
                .is_some_and(|(s, l)| d.span.start >= s && d.span.end <= s + l)
    })
}

/// Whether source `text[start..start + len]` leaves the function.
fn exits(text: &str, (start, len): (u32, u32)) -> bool {
    let body = text
        .get(start as usize..(start + len) as usize)
        .unwrap_or("");
    let word = |w: &str| {
        body.match_indices(w).any(|(i, _)| {
            let before = body[..i].chars().next_back();
            let after = body[i + w.len()..].chars().next();
            !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
                && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
        })
    };
    word("return") || word("revert")
}

/// The preconditions of `f` (source id `source_id`, text `text`) with
/// their counts in `cov`.
pub fn of(cov: &Coverage, f: &FunctionNode, source_id: u32, text: &str) -> Vacuity {
    let mut preconditions = Vec::new();
    for d in &f.decisions {
        if nested(d, &f.decisions) {
            continue;
        }
        let early_exit = d.kind == "if" && d.then.is_some_and(|t| exits(text, t));
        if !(matches!(d.kind, "require" | "assert") || early_exit) {
            continue;
        }
        let c = cov.decision(source_id, d);
        // A `require` lets the body go on when it holds; an early exit when
        // its condition does not.
        let (passed, stopped) = if early_exit {
            (c.failed, c.held)
        } else {
            (c.held, c.failed)
        };
        preconditions.push(Precondition {
            line: d.span.line_start,
            kind: d.kind,
            condition: d.condition.clone(),
            evaluated: c.evaluated,
            passed,
            stopped,
            state: d.state.clone(),
        });
    }
    preconditions.sort_by_key(|p| p.line);
    Vacuity {
        function: f.qualified(),
        file: f.file.clone(),
        line: f.span.line_start,
        entries: preconditions.first().map_or(0, |p| p.evaluated),
        passed: preconditions.last().map_or(0, |p| p.passed),
        preconditions,
    }
}

/// The function a test of contract `contract` named `name` with canonical
/// signature `signature` runs: declared in the contract or the nearest of
/// its bases that declares it.
pub fn test_function<'g>(
    graph: &'g CodeGraph,
    contract: &str,
    signature: &str,
) -> Option<&'g FunctionNode> {
    let order: Vec<&str> = graph
        .contracts
        .iter()
        .find(|c| c.name == contract)
        .map(|c| c.linearized.iter().map(String::as_str).collect())
        .unwrap_or_else(|| vec![contract]);
    order.iter().find_map(|c| {
        graph
            .functions
            .iter()
            .find(|f| f.contract == *c && f.signature == signature && f.implemented)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_exits_on_a_whole_word_only() {
        let text = "if (x) { return true; } if (y) { returned = 1; } if (z) revert E();";
        let span = |needle: &str| {
            let i = text.find(needle).unwrap() as u32;
            (i, needle.len() as u32)
        };
        assert!(exits(text, span("{ return true; }")));
        assert!(!exits(text, span("{ returned = 1; }")));
        assert!(exits(text, span("revert E();")));
    }
}
