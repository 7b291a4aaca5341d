//! The code graph joined with live coverage: per function its covered and
//! uncovered lines, per decision how often it was evaluated and whether its
//! condition was ever true and ever false.
//!
//! A decision is tied to the `JUMPI`s whose source range contains its
//! condition and lies within its statement (a `require(..)` call, an `if`
//! statement); short-circuit jumps inside the condition (`a && b`) and
//! checked-arithmetic jumps map to smaller ranges and are left out. Per code
//! object the widest such `JUMPI` (the last one on ties) is the decision's
//! own. Which way is "true" follows the code solc emits, with and without
//! via-IR: a `require`/`assert` jumps past the revert when the condition
//! holds; an `if` or loop jumps over its body when it does not. An `if`
//! whose body ran is "true" whichever way that was, so an optimizer that
//! flips the test does not flip the answer; with the optimizer on, merged
//! blocks keep one source location, and the answer is approximate (as the
//! coverage report says).

use super::{CodeGraph, Decision, FunctionNode, LocalDef};
use crate::executor::Target;
use serde::Serialize;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};

/// One instruction with a source range and its hit count.
#[derive(Clone, Copy, Debug)]
struct Instr {
    start: u32,
    end: u32,
    hits: u64,
}

/// A `JUMPI` with its counts.
#[derive(Clone, Copy, Debug)]
struct Jump {
    code: u32,
    pc: u32,
    start: u32,
    end: u32,
    hits: u64,
    jumped: u64,
    fell: u64,
}

/// Coverage of the campaign's code, by solc source id.
#[derive(Debug, Default)]
pub struct Coverage {
    instrs: HashMap<u32, Vec<Instr>>,
    jumps: HashMap<u32, Vec<Jump>>,
    /// source id → line → hits (executable lines only).
    lines: HashMap<u32, BTreeMap<u32, u64>>,
    /// Whether the code was optimized (answers are approximate).
    pub optimized: bool,
}

/// How one decision fared.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DecisionCoverage {
    /// Times the decision was evaluated.
    pub evaluated: u64,
    /// Times its condition held / did not.
    pub held: u64,
    pub failed: u64,
    /// Whether any `JUMPI` of the running code belongs to it.
    pub mapped: bool,
}

/// What is missing at a decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Missing {
    /// The condition never held: the code behind it never ran (the gap that
    /// blocks the most).
    NeverTrue,
    /// The decision was never reached.
    NeverReached,
    /// The condition always held (the revert, the `else`, the loop exit
    /// never happened).
    NeverFalse,
}

impl Missing {
    pub fn as_str(self) -> &'static str {
        match self {
            Missing::NeverTrue => "never true",
            Missing::NeverReached => "never reached",
            Missing::NeverFalse => "never false",
        }
    }
}

impl DecisionCoverage {
    /// What is missing, if anything (`None` also for unmapped decisions).
    pub fn missing(&self) -> Option<Missing> {
        if !self.mapped {
            None
        } else if self.evaluated == 0 {
            Some(Missing::NeverReached)
        } else if self.held == 0 {
            Some(Missing::NeverTrue)
        } else if self.failed == 0 {
            Some(Missing::NeverFalse)
        } else {
            None
        }
    }
}

/// Lines of one function: executable and hit.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FunctionCoverage {
    pub lines: usize,
    pub lines_hit: usize,
    pub uncovered_lines: Vec<u32>,
}

impl Coverage {
    /// The coverage of `target`'s code as of now.
    pub fn of(target: &Target) -> Coverage {
        let mut out = Coverage {
            optimized: target.project.optimized,
            ..Default::default()
        };
        for code in &target.codes {
            let counts = target.coverage.counts(code.id);
            for &(pc, op) in code.map.instructions() {
                let Some(e) = code.map.at(pc as usize) else {
                    continue;
                };
                let Some(file) = e.file else { continue };
                let hits = counts.hits.get(pc as usize).copied().unwrap_or(0);
                let (start, end) = (e.start, e.start + e.len);
                out.instrs
                    .entry(file)
                    .or_default()
                    .push(Instr { start, end, hits });
                if op == 0x57 {
                    out.jumps.entry(file).or_default().push(Jump {
                        code: code.id.0,
                        pc,
                        start,
                        end,
                        hits,
                        jumped: counts.jumped.get(pc as usize).copied().unwrap_or(0),
                        fell: counts.fell.get(pc as usize).copied().unwrap_or(0),
                    });
                }
                if let Some(src) = target.project.source_by_id(file)
                    && src.text.is_some()
                {
                    let line = src.lines.line(start as usize);
                    let l = out.lines.entry(file).or_default().entry(line).or_insert(0);
                    *l = (*l).max(hits);
                }
            }
        }
        for v in out.instrs.values_mut() {
            v.sort_by_key(|i| (i.start, i.end));
        }
        for v in out.jumps.values_mut() {
            v.sort_by_key(|j| (j.start, j.code, j.pc));
        }
        out
    }

    /// The most hits of an instruction inside `start..end` of `file`.
    fn hits_within(&self, file: u32, start: u32, end: u32) -> Option<u64> {
        let v = self.instrs.get(&file)?;
        let from = v.partition_point(|i| i.start < start);
        v[from..]
            .iter()
            .take_while(|i| i.start < end)
            .filter(|i| i.end <= end)
            .map(|i| i.hits)
            .max()
    }

    /// How decision `d` of source `file` fared.
    pub fn decision(&self, file: u32, d: &Decision) -> DecisionCoverage {
        let (cs, ce) = (d.cond.0, d.cond.0 + d.cond.1);
        let mut own: HashMap<u32, Jump> = HashMap::new();
        // Jumps sorted by start: those starting within the statement and
        // at or before the condition.
        let jumps = self.jumps.get(&file).map_or(&[][..], |v| &v[..]);
        let from = jumps.partition_point(|j| j.start < d.span.start);
        let to = jumps.partition_point(|j| j.start <= cs);
        for j in &jumps[from..to.max(from)] {
            if ce <= j.end && j.end <= d.span.end {
                let e = own.entry(j.code).or_insert(*j);
                if (j.end - j.start, j.pc) > (e.end - e.start, e.pc) {
                    *e = *j;
                }
            }
        }
        if own.is_empty() {
            return DecisionCoverage::default();
        }
        let (mut evaluated, mut jumped, mut fell) = (0, 0, 0);
        for j in own.values() {
            evaluated += j.hits;
            jumped += j.jumped;
            fell += j.fell;
        }
        let (mut held, mut failed) = match d.kind {
            "require" | "assert" | "ternary" => (jumped, fell),
            _ => (fell, jumped),
        };
        // The body ran: its side is "true", whichever way the jump went.
        if let Some((s, l)) = d.then
            && let Some(body) = self.hits_within(file, s, s + l)
        {
            let ran_but_never_held = body > 0 && held == 0 && failed > 0;
            let held_but_never_ran = body == 0 && held > 0 && failed == 0;
            if ran_but_never_held || held_but_never_ran {
                std::mem::swap(&mut held, &mut failed);
            }
        }
        DecisionCoverage {
            evaluated,
            held,
            failed,
            mapped: true,
        }
    }

    /// Lines of function `f` of source `file`.
    pub fn function(&self, file: u32, f: &FunctionNode) -> FunctionCoverage {
        let mut out = FunctionCoverage::default();
        if let Some(lines) = self.lines.get(&file) {
            for (&line, &hits) in lines.range(f.span.line_start..=f.span.line_end) {
                out.lines += 1;
                if hits > 0 {
                    out.lines_hit += 1;
                } else {
                    out.uncovered_lines.push(line);
                }
            }
        }
        out
    }
}

/// One uncovered branch, with what its condition depends on and which entry
/// points write the state it reads.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Gap {
    pub file: String,
    pub line: u32,
    /// `Contract.name` of the function holding the decision.
    pub function: String,
    pub signature: String,
    pub kind: &'static str,
    pub condition: String,
    pub missing: Missing,
    pub evaluated: u64,
    pub params: Vec<String>,
    pub state: Vec<String>,
    pub constants: Vec<super::Constant>,
    pub locals: Vec<String>,
    /// The locals with their initial values as written.
    pub local_defs: Vec<LocalDef>,
    pub env: Vec<String>,
    pub calls: Vec<String>,
    /// Entry points that write the state variables the condition reads.
    pub state_writers: Vec<String>,
    /// The conditions that must hold for this one to be evaluated: the
    /// enclosing `if`s and loops and the `require`s before it, in source
    /// order, as `(line, condition)`.
    pub guards: Vec<(u32, String)>,
    /// How they write the state the condition and its guards read: each
    /// assignment with the entry point it is reached from.
    pub writes: Vec<StateWrite>,
    /// Entry points that reach the function (itself, or its callers).
    pub entry_points: Vec<String>,
}

/// One way an entry point writes a state variable: the assignment as
/// written, in the function holding it, with the arguments the entry point
/// passes when that function is a helper it calls.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StateWrite {
    /// `Contract.name` of the variable.
    pub variable: String,
    /// `Contract.signature` of the public or external function called.
    pub entry_point: String,
    /// `Contract.name` of the function holding the assignment.
    pub function: String,
    pub assignment: String,
    /// `param = argument as written`, for each parameter of `function`,
    /// when the entry point calls it directly.
    pub bindings: Vec<String>,
    /// The named constants the assignment uses.
    pub constants: Vec<super::Constant>,
}

/// At most this many writes per gap (a variable every function touches
/// would otherwise fill the answer).
pub const WRITES_PER_GAP: usize = 24;

/// Every uncovered branch of the live files of `graph`, blocking ones first
/// (never true, then never reached, then never false), in source order.
pub fn gaps(graph: &CodeGraph, cov: &Coverage) -> Vec<Gap> {
    let reach = Reach::new(graph);
    let mut out = Vec::new();
    for f in &graph.functions {
        let Some(file) = graph.files.iter().find(|x| x.path == f.file && x.live) else {
            continue;
        };
        for d in &f.decisions {
            let c = cov.decision(file.source_id, d);
            let Some(missing) = c.missing() else { continue };
            let mut writers: Vec<String> =
                d.state.iter().flat_map(|v| reach.writers_of(v)).collect();
            writers.sort();
            writers.dedup();
            let guards: Vec<&Decision> = f
                .decisions
                .iter()
                .filter(|e| guards(e, d, &f.decisions))
                .collect();
            let mut read: Vec<String> = d.state.clone();
            for e in &guards {
                read.extend(e.state.iter().cloned());
            }
            read.sort();
            read.dedup();
            out.push(Gap {
                file: f.file.clone(),
                line: d.span.line_start,
                function: f.qualified(),
                signature: f.signature.clone(),
                kind: d.kind,
                condition: d.condition.clone(),
                missing,
                evaluated: c.evaluated,
                params: d.params.clone(),
                state: d.state.clone(),
                constants: d.constants.clone(),
                locals: d.locals.clone(),
                local_defs: d.local_defs.clone(),
                env: d.env.clone(),
                calls: d.calls.clone(),
                state_writers: writers,
                guards: guards
                    .iter()
                    .map(|e| (e.span.line_start, e.condition.clone()))
                    .collect(),
                writes: reach.writes_of(&read),
                entry_points: reach.entry_points(f),
            });
        }
    }
    out.sort_by(|a, b| {
        (a.missing, &a.file, a.line, &a.function).cmp(&(b.missing, &b.file, b.line, &b.function))
    });
    out
}

/// Whether decision `e` must hold for `d` (of the same function) to be
/// evaluated: `d` lies in `e`'s body, or `e` is a `require`/`assert` before
/// `d` and not inside a body that `d` is outside of.
fn guards(e: &Decision, d: &Decision, all: &[Decision]) -> bool {
    let inside =
        |(start, len): (u32, u32), s: &super::Span| s.start >= start && s.end <= start + len;
    if std::ptr::eq(e, d) {
        return false;
    }
    match e.kind {
        "if" | "while" | "for" | "do" => e.then.is_some_and(|t| inside(t, &d.span)),
        "require" | "assert" => {
            e.span.end <= d.span.start
                && all.iter().all(|o| match o.then {
                    Some(t) if inside(t, &e.span) => inside(t, &d.span),
                    _ => true,
                })
        }
        _ => false,
    }
}

/// Which entry points reach each function: callers indexed once and each
/// function's answer remembered, so an answer about many gaps walks the
/// call graph once per function rather than once per gap and assignment.
pub struct Reach<'g> {
    graph: &'g CodeGraph,
    /// Callee (qualified) -> callers (qualified).
    callers: HashMap<&'g str, Vec<String>>,
    /// Qualified name -> the functions of that name (overloads).
    named: HashMap<String, Vec<&'g FunctionNode>>,
    /// `Contract.signature` -> the entry point.
    entries: HashMap<String, &'g FunctionNode>,
    memo: RefCell<HashMap<String, Vec<String>>>,
    /// [`Reach::writers_of`]'s answers, by variable.
    writers: RefCell<HashMap<String, Vec<String>>>,
}

impl<'g> Reach<'g> {
    pub fn new(graph: &'g CodeGraph) -> Self {
        let mut callers: HashMap<&str, Vec<String>> = HashMap::new();
        let mut named: HashMap<String, Vec<&FunctionNode>> = HashMap::new();
        let mut entries = HashMap::new();
        for f in &graph.functions {
            for c in &f.calls {
                callers
                    .entry(c.callee.as_str())
                    .or_default()
                    .push(f.qualified());
            }
            named.entry(f.qualified()).or_default().push(f);
            if f.is_entry_point() {
                entries.insert(format!("{}.{}", f.contract, f.signature), f);
            }
        }
        Reach {
            graph,
            callers,
            named,
            entries,
            memo: RefCell::default(),
            writers: RefCell::default(),
        }
    }

    /// Public or external functions from which `f` is reached (itself when
    /// it is one), following calls backwards a few levels, as
    /// `Contract.signature`.
    pub fn entry_points(&self, f: &FunctionNode) -> Vec<String> {
        let me = f.qualified();
        if let Some(known) = self.memo.borrow().get(&me) {
            return known.clone();
        }
        let mut out = Vec::new();
        let mut frontier = vec![me.clone()];
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..6 {
            let mut next = Vec::new();
            for q in frontier.drain(..) {
                if !seen.insert(q.clone()) {
                    continue;
                }
                for g in self.named.get(&q).into_iter().flatten() {
                    if g.is_entry_point() {
                        out.push(format!("{}.{}", g.contract, g.signature));
                    }
                }
                next.extend(self.callers.get(q.as_str()).into_iter().flatten().cloned());
            }
            frontier = next;
            if frontier.is_empty() {
                break;
            }
        }
        out.sort();
        out.dedup();
        self.memo.borrow_mut().insert(me, out.clone());
        out
    }

    /// Entry points that write state variable `var`, themselves or through
    /// the functions they call.
    pub fn writers_of(&self, var: &str) -> Vec<String> {
        if let Some(known) = self.writers.borrow().get(var) {
            return known.clone();
        }
        let mut out: Vec<String> = self
            .graph
            .functions
            .iter()
            .filter(|f| f.writes.iter().any(|w| w == var))
            .flat_map(|f| self.entry_points(f))
            .collect();
        out.sort();
        out.dedup();
        self.writers
            .borrow_mut()
            .insert(var.to_string(), out.clone());
        out
    }

    /// How the entry points write `vars`: every assignment to them, with
    /// the entry points reaching it (at most [`WRITES_PER_GAP`]).
    pub fn writes_of(&self, vars: &[String]) -> Vec<StateWrite> {
        let mut out = Vec::new();
        for f in &self.graph.functions {
            for a in f.assignments.iter().filter(|a| vars.contains(&a.var)) {
                for entry in self.entry_points(f) {
                    let Some(e) = self.entries.get(&entry) else {
                        continue;
                    };
                    let w = StateWrite {
                        variable: a.var.clone(),
                        entry_point: entry,
                        function: f.qualified(),
                        assignment: a.text.clone(),
                        bindings: bindings(e, f),
                        constants: a.constants.clone(),
                    };
                    if !out.contains(&w) {
                        out.push(w);
                    }
                }
            }
        }
        out.sort_by(|a, b| {
            (&a.variable, &a.entry_point, &a.function).cmp(&(
                &b.variable,
                &b.entry_point,
                &b.function,
            ))
        });
        out.truncate(WRITES_PER_GAP);
        out
    }
}

/// `param = argument` for each named parameter of `callee` as `caller`
/// passes it, when `caller` calls it directly (none when they are one).
fn bindings(caller: &FunctionNode, callee: &FunctionNode) -> Vec<String> {
    if caller.qualified() == callee.qualified() {
        return Vec::new();
    }
    caller
        .call_sites
        .iter()
        .find(|c| c.callee == callee.qualified() && c.args.len() == callee.params.len())
        .map(|c| {
            callee
                .params
                .iter()
                .zip(&c.args)
                .filter(|(p, _)| !p.name.is_empty())
                .map(|(p, a)| format!("{} = {a}", p.name))
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::artifacts::Project;

    fn graph(artifact: &str) -> CodeGraph {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let p = Project::load(&dir.join(artifact)).unwrap();
        let sources: Vec<_> = p.sources.iter().map(|s| (&p, s, true)).collect();
        CodeGraph::build(&sources)
    }

    /// The guards of the decision of `function` on `line`, as lines.
    fn guard_lines(g: &CodeGraph, function: &str, line: u32) -> Vec<u32> {
        let f = g
            .functions
            .iter()
            .find(|f| f.qualified() == function)
            .unwrap();
        let d = f
            .decisions
            .iter()
            .find(|d| d.span.line_start == line)
            .unwrap();
        f.decisions
            .iter()
            .filter(|e| guards(e, d, &f.decisions))
            .map(|e| e.span.line_start)
            .collect()
    }

    #[test]
    fn an_enclosing_if_guards_what_it_holds() {
        let g = graph("contracts/steer/out/CrossHub.json");
        assert_eq!(guard_lines(&g, "CrossHub.settle", 87), [86]);
        assert!(guard_lines(&g, "CrossHub.settle", 86).is_empty());
    }

    #[test]
    fn a_require_guards_what_follows_it() {
        let g = graph("contracts/steer/out/ValueGated.json");
        assert_eq!(guard_lines(&g, "ValueGated.buy", 24), [23]);
        let g = graph("contracts/out/GraphConstructs.json");
        assert!(guard_lines(&g, "GraphConstructs.withdraw", 89).is_empty());
    }

    #[test]
    fn every_rung_above_guards_a_nested_one() {
        let g = graph("contracts/steer/out/DeepChain.json");
        let probe = g.functions.iter().find(|f| f.name == "probe").unwrap();
        let mut lines: Vec<u32> = probe.decisions.iter().map(|d| d.span.line_start).collect();
        lines.sort();
        let last = lines.pop().unwrap();
        assert_eq!(guard_lines(&g, "DeepChain.probe", last), lines);
    }
}
