//! From program counters to source lines, branches and functions, and from
//! there to LCOV (through the `lcov` crate) and percentages.
//!
//! * A line is executable when an instruction's source range starts on it;
//!   its count is the largest hit count among those instructions (a line runs
//!   once even if it compiles to twenty instructions).
//! * A branch is a `JUMPI` whose source range is an `if`, `require`, `assert`,
//!   loop or ternary: the decisions a person wrote. Compiler-inserted checks
//!   (overflow, ABI decoding, dispatch) map to other ranges and are left out.
//!   Each branch has two outcomes in LCOV: 0 = jumped, 1 = fell through.
//!   A branch is one source range: compiled into several contracts (a base
//!   contract, a library's internal function, two instances) it counts
//!   once, its outcomes summed; a line likewise.
//! * Functions come from the AST; a function's count is the hit count of the
//!   instructions whose range is the whole function (its entry).
//! * Only the compilation's own sources count, not compiler-generated Yul.
//! * `SF:` is the source file's absolute path when rudder found it on disk
//!   (genhtml then works from any directory), else the path as compiled.

use super::{CodeId, CoverageMap};
use crate::artifacts::Project;
use crate::coverage::sourcemap::SourceMap;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// One code object to report: which contract it belongs to and its map.
pub struct CodeSource<'a> {
    pub id: CodeId,
    pub contract: &'a str,
    pub map: &'a SourceMap,
}

/// Coverage of one source file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileCoverage {
    /// The source's path as compiled (relative to its project root).
    pub path: String,
    /// The file on disk, absolute, when found: what LCOV's `SF:` names.
    pub file: Option<PathBuf>,
    /// line → hit count.
    pub lines: BTreeMap<u32, u64>,
    /// (line, block id) → (jumped, fell through); `None` when never reached.
    pub branches: BTreeMap<(u32, u32), Option<(u64, u64)>>,
    /// (name, first line, count).
    pub functions: Vec<(String, u32, u64)>,
    /// line → when it was first reached, in milliseconds since the campaign
    /// was made (the earliest of its instructions'); lines never reached
    /// are absent.
    pub first_reached: BTreeMap<u32, u32>,
}

impl FileCoverage {
    pub fn lines_hit(&self) -> usize {
        self.lines.values().filter(|&&c| c > 0).count()
    }

    /// Branch outcomes (two per branch) and how many were taken.
    pub fn branch_outcomes(&self) -> (usize, usize) {
        let hit = self
            .branches
            .values()
            .map(|b| b.map_or(0, |(j, f)| (j > 0) as usize + (f > 0) as usize))
            .sum();
        (self.branches.len() * 2, hit)
    }
}

/// Per-contract totals, for `show_coverage`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ContractCoverage {
    pub name: String,
    pub lines: usize,
    pub lines_hit: usize,
    pub branches: usize,
    pub branches_hit: usize,
}

/// Percent with one decimal, 0 for an empty total.
pub fn percent(hit: usize, total: usize) -> f64 {
    if total == 0 {
        0.0
    } else {
        (hit as f64 * 1000.0 / total as f64).round() / 10.0
    }
}

impl ContractCoverage {
    pub fn line_percent(&self) -> f64 {
        percent(self.lines_hit, self.lines)
    }
    pub fn branch_percent(&self) -> f64 {
        percent(self.branches_hit, self.branches)
    }
}

/// Coverage of the campaign's sources at one moment.
#[derive(Clone, Debug, Default)]
pub struct CoverageReport {
    pub files: Vec<FileCoverage>,
    pub contracts: Vec<ContractCoverage>,
    /// Sources of the build that define a contract (not a library) with
    /// code but hold no line of the reported code (built, not deployed or
    /// reached): left out
    /// of the percentages, listed so a reader knows what was not targeted.
    pub not_targeted: Vec<String>,
}

fn is_decision(text: &str) -> bool {
    let t = text.trim_start();
    let word = |w: &str| {
        t.starts_with(w)
            && !t[w.len()..]
                .chars()
                .next()
                .is_some_and(|c| c.is_alphanumeric() || c == '_')
    };
    ["if", "require", "assert", "while", "for", "do"]
        .iter()
        .any(|w| word(w))
        || (t.contains('?') && !t.contains(';'))
}

impl CoverageReport {
    /// Builds the report of `codes` from `map`'s current counts.
    pub fn build(project: &Project, codes: &[CodeSource<'_>], map: &CoverageMap) -> Self {
        let mut files: BTreeMap<u32, FileCoverage> = BTreeMap::new();
        // contract -> (its (file, line)s, its (file, branch block)s)
        type Points = BTreeSet<(u32, u32)>;
        let mut per_contract: BTreeMap<&str, (Points, Points)> = BTreeMap::new();
        let mut contract_lines_hit: BTreeMap<&str, BTreeSet<(u32, u32)>> = BTreeMap::new();
        let mut fn_counts: BTreeMap<(u32, u32, u32), u64> = BTreeMap::new();
        for code in codes {
            let counts = map.counts(code.id);
            let entry = per_contract.entry(code.contract).or_default();
            for &(pc, op) in code.map.instructions() {
                let pc = pc as usize;
                let Some(e) = code.map.at(pc) else { continue };
                let Some(file) = e.file else { continue };
                let Some(src) = project.source_by_id(file) else {
                    continue; // compiler-generated source
                };
                let Some(text) = src.text.as_deref() else {
                    continue;
                };
                let line = src.lines.line(e.start as usize);
                let hits = counts.hits.get(pc).copied().unwrap_or(0);
                let fc = files.entry(file).or_insert_with(|| FileCoverage {
                    path: src.path.clone(),
                    file: src.file.clone(),
                    ..Default::default()
                });
                let l = fc.lines.entry(line).or_insert(0);
                *l = (*l).max(hits);
                if let Some(Some(ms)) = counts.first_ms.get(pc) {
                    let first = fc.first_reached.entry(line).or_insert(*ms);
                    *first = (*first).min(*ms);
                }
                entry.0.insert((file, line));
                if hits > 0 {
                    contract_lines_hit
                        .entry(code.contract)
                        .or_default()
                        .insert((file, line));
                }
                let f = fn_counts.entry((file, e.start, e.len)).or_insert(0);
                *f = (*f).max(hits);
                let snippet = text
                    .get(e.start as usize..(e.start + e.len) as usize)
                    .unwrap_or("");
                if op == 0x57 && is_decision(snippet) {
                    // A decision's block id is where it starts in its file,
                    // so a branch compiled into several contracts (a base
                    // contract, a library's internal function, two
                    // instances) counts once, its outcomes summed.
                    let block = e.start;
                    let jumped = counts.jumped.get(pc).copied().unwrap_or(0);
                    let fell = counts.fell.get(pc).copied().unwrap_or(0);
                    let taken = (hits > 0).then_some((jumped, fell));
                    let slot = fc.branches.entry((line, block)).or_insert(None);
                    *slot = match (*slot, taken) {
                        (Some((j, f)), Some((j2, f2))) => Some((j + j2, f + f2)),
                        (a, b) => a.or(b),
                    };
                    entry.1.insert((file, block));
                }
            }
        }
        for (file, fc) in files.iter_mut() {
            let src = project.source_by_id(*file).expect("known source");
            for f in &src.functions {
                let line = src.lines.line(f.start as usize);
                if !fc.lines.contains_key(&line)
                    && !fn_counts.contains_key(&(*file, f.start, f.len))
                {
                    continue; // not compiled into any reported code
                }
                let count = fn_counts
                    .get(&(*file, f.start, f.len))
                    .copied()
                    .unwrap_or(0);
                fc.functions.push((f.name.clone(), line, count));
            }
        }
        let contracts = per_contract
            .into_iter()
            .map(|(name, (lines, branches))| {
                let mut branches_hit = 0;
                for (file, block) in &branches {
                    if let Some(fc) = files.get(file) {
                        for ((_, b), taken) in &fc.branches {
                            if b == block
                                && let Some((j, f)) = taken
                            {
                                branches_hit += (*j > 0) as usize + (*f > 0) as usize;
                            }
                        }
                    }
                }
                ContractCoverage {
                    name: name.to_string(),
                    lines: lines.len(),
                    lines_hit: contract_lines_hit.get(name).map_or(0, |s| s.len()),
                    branches: branches.len() * 2,
                    branches_hit,
                }
            })
            .collect();
        let not_targeted = project
            .sources
            .iter()
            .filter(|src| {
                !files.contains_key(&src.id)
                    && project.contracts.iter().any(|c| {
                        c.source == src.path && !c.is_library && !c.runtime_code.is_empty()
                    })
            })
            .map(|src| src.path.clone())
            .collect();
        CoverageReport {
            files: files.into_values().collect(),
            contracts,
            not_targeted,
        }
    }

    /// (lines, lines hit, branch outcomes, outcomes hit) over all files.
    pub fn totals(&self) -> (usize, usize, usize, usize) {
        self.files.iter().fold((0, 0, 0, 0), |acc, f| {
            let (b, bh) = f.branch_outcomes();
            (
                acc.0 + f.lines.len(),
                acc.1 + f.lines_hit(),
                acc.2 + b,
                acc.3 + bh,
            )
        })
    }

    /// The report as an `lcov` crate report.
    pub fn to_lcov(&self) -> lcov::Report {
        use lcov::report::section;
        let mut report = lcov::Report::new();
        for f in &self.files {
            let mut value = section::Value::default();
            for (name, line, count) in &f.functions {
                value.functions.insert(
                    section::function::Key { name: name.clone() },
                    section::function::Value {
                        start_line: Some(*line),
                        count: *count,
                    },
                );
            }
            for (&(line, block), taken) in &f.branches {
                for (branch, t) in [(0u32, taken.map(|t| t.0)), (1, taken.map(|t| t.1))] {
                    value.branches.insert(
                        section::branch::Key {
                            line,
                            block,
                            branch,
                        },
                        section::branch::Value { taken: t },
                    );
                }
            }
            for (&line, &count) in &f.lines {
                value.lines.insert(
                    section::line::Key { line },
                    section::line::Value {
                        count,
                        checksum: None,
                    },
                );
            }
            report.sections.insert(
                section::Key {
                    test_name: String::new(),
                    source_file: f.file.clone().unwrap_or_else(|| PathBuf::from(&f.path)),
                },
                value,
            );
        }
        report
    }

    /// Echidna's covered-lines text: for each source file its path, then
    /// every line of it as `  12 | *   | source`, marked `*` where it ran
    /// (blank where it did not or holds no code). A file whose text cannot
    /// be read from disk lists its lines with code and their marks only.
    pub fn covered_lines_text(&self) -> String {
        use std::fmt::Write;
        let mut s = String::new();
        for f in &self.files {
            let text = f
                .file
                .as_ref()
                .and_then(|p| std::fs::read_to_string(p).ok());
            let _ = writeln!(
                s,
                "{}",
                f.file
                    .as_ref()
                    .map_or(f.path.clone(), |p| p.display().to_string())
            );
            let mark = |line: u32| match f.lines.get(&line) {
                Some(&n) if n > 0 => "*",
                _ => "",
            };
            match &text {
                Some(text) => {
                    let lines: Vec<&str> = text.lines().collect();
                    let width = lines.len().to_string().len();
                    for (i, l) in lines.iter().enumerate() {
                        let n = i as u32 + 1;
                        let _ = writeln!(s, "{n:>width$} | {:<4}| {l}", mark(n));
                    }
                }
                None => {
                    for &n in f.lines.keys() {
                        let _ = writeln!(s, "{n:>6} | {:<4}|", mark(n));
                    }
                }
            }
            s.push('\n');
        }
        s
    }

    /// LCOV tracefile text.
    pub fn lcov_text(&self) -> String {
        let mut s = String::new();
        for record in self.to_lcov().into_records() {
            s.push_str(&record.to_string());
            s.push('\n');
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decisions_are_statements_people_write() {
        assert!(is_decision("if (x == 7) {"));
        assert!(is_decision("require(a, \"b\")"));
        assert!(is_decision("assert(x)"));
        assert!(is_decision("b ? a / 2 : a"));
        assert!(!is_decision("iffy = 1"));
        assert!(!is_decision("balance += amount"));
        assert!(!is_decision("function f() public { if (x) y(); }"));
    }

    #[test]
    fn percent_rounds_to_one_decimal() {
        assert_eq!(percent(1, 3), 33.3);
        assert_eq!(percent(2, 3), 66.7);
        assert_eq!(percent(0, 0), 0.0);
        assert_eq!(percent(5, 5), 100.0);
    }
}
