//! The campaign's answer: each test passing or falsified with its shrunk
//! sequence, coverage, throughput. Printed as text for people and as JSON
//! for programs.

use super::Engine;
use super::properties::{FoundBy, TestKind};
use serde::Serialize;
use std::fmt::Write;
use std::sync::atomic::Ordering;

/// Where a test stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TestStatus {
    /// Not falsified (so far).
    Passing,
    /// Falsified; the counterexample is shrunk.
    Falsified,
    /// Falsified; the counterexample is still being shrunk.
    Shrinking,
    /// An optimization test has a best value.
    Optimized,
    /// An optimization test has no value yet.
    Open,
}

impl TestStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            TestStatus::Passing => "passing",
            TestStatus::Falsified => "falsified",
            TestStatus::Shrinking => "shrinking",
            TestStatus::Optimized => "optimized",
            TestStatus::Open => "open",
        }
    }

    /// Falsified, whether or not shrinking has finished.
    pub fn is_falsified(self) -> bool {
        matches!(self, TestStatus::Falsified | TestStatus::Shrinking)
    }
}

impl PartialEq<&str> for TestStatus {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl std::fmt::Display for TestStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TestReport {
    pub name: String,
    pub kind: TestKind,
    pub status: TestStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The counterexample (or the best sequence), in call syntax.
    pub sequence: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shrink_steps: Option<u64>,
    /// Who falsified it: `worker` (this run's fuzzing), `resume` (a
    /// reproducer an earlier run left in the corpus directory, replayed and
    /// still failing), `deployment` (false before any call) or `shared`
    /// (another node of a shared campaign found it; replayed here) or
    /// `imported` (another fuzzer's corpus or reproducer in the corpus
    /// directory, replayed: Echidna's `.txt` files).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub found_by: Option<&'static str>,
    /// For a test found by `resume`: who found it in the run that first
    /// did (`worker`, `deployment`, `shared`), when its reproducer says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_found_by: Option<&'static str>,
    /// When it was falsified: seconds since the campaign started, and the
    /// campaign's calls by then (time and calls to the bug, before shrinking).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub found_after_secs: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub found_after_calls: Option<u64>,
}

/// What the campaign took over from its corpus directory before fuzzing:
/// a directory an earlier run wrote starts the new one ahead (its corpus
/// replayed, its falsified tests reloaded), which the report says so that
/// no one takes them for this run's finds.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Resumed {
    /// Corpus sequences replayed from `corpus/coverage/`.
    pub corpus_sequences: usize,
    /// Falsified tests reloaded from `corpus/reproducers/`.
    pub falsified: usize,
    /// Tests falsified by replaying another fuzzer's corpus or reproducers
    /// found in the corpus directory (Echidna's `.txt` files).
    pub imported: usize,
    /// Corpus files this node took from other nodes of a shared campaign
    /// (replayed like the others: the sequences above include theirs).
    #[serde(skip_serializing_if = "is_zero")]
    pub pulled: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

#[derive(Clone, Copy, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChecksSummary {
    pub run: u64,
    pub skipped: u64,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CoverageSummary {
    pub lines: usize,
    pub lines_hit: usize,
    pub line_percent: f64,
    pub branches: usize,
    pub branches_hit: usize,
    pub branch_percent: f64,
    pub points: u64,
    /// Sources of the build with contracts the campaign neither deployed
    /// nor reached: not counted in the percentages.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_targeted: Vec<String>,
}

fn as_decimal_string<S: serde::Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&v.to_string())
}

/// The chain a forked campaign ran on.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ForkSummary {
    /// The node's URL, credentials hidden (`***`).
    pub url: String,
    pub block: u64,
    pub chain_id: u64,
    /// The cache file: a re-run at this block reads it, not the node.
    pub cache: String,
    /// Batches of requests this run sent to the node.
    pub requests: u64,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    pub contract: String,
    pub mode: crate::config::TestMode,
    /// What kind of suite the target is, when it is not an Echidna harness
    /// (`"foundry-invariant"`: `invariant*` functions, forge's targets).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suite: Option<String>,
    /// Fork mode: the node, the block and where what was read is kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fork: Option<ForkSummary>,
    pub run_id: String,
    /// Printed in JSON as a decimal string: jq and JavaScript round 64-bit
    /// numbers, and the run could not be reproduced from them.
    #[serde(serialize_with = "as_decimal_string")]
    pub seed: u64,
    /// Gas all the campaign's calls used (Echidna's total gas), as a
    /// decimal string (it passes 2^53 on long campaigns).
    #[serde(serialize_with = "as_decimal_string")]
    pub total_gas: u64,
    pub workers: usize,
    pub calls: u64,
    /// Why the campaign ended (`testLimit`, `timeout`, `stopOnFail`,
    /// `allTestsDecided`, `signal`, `clientLeft`, `stopped`), as
    /// `status.endReason` says it; `null` in a report of a running campaign.
    pub end_reason: Option<super::EndReason>,
    pub elapsed_secs: f64,
    pub calls_per_sec: f64,
    pub corpus_sequences: usize,
    pub corpus_calls: u64,
    /// What came from the corpus directory rather than this run.
    pub resumed: Resumed,
    pub tests: Vec<TestReport>,
    /// Property, optimization and spec checks run, and skipped because
    /// nothing they read had changed (`checkCache`).
    pub checks: ChecksSummary,
    pub coverage: CoverageSummary,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lcov: Option<String>,
    /// The HTML report written (`--report-html`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub html: Option<String>,
    pub journal: String,
    pub corpus_dir: String,
    /// The Foundry reproducers written (`reproDir`, `--repro-dir`), one
    /// per falsified test.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub foundry_reproducers: Vec<String>,
}

impl Report {
    pub fn build(s: &Engine) -> Report {
        let tests = s
            .tests
            .cases()
            .map(|c| {
                if c.kind.seeks_value() {
                    let o = s.tests.optimum(c.id);
                    return TestReport {
                        name: c.name.clone(),
                        kind: c.kind,
                        status: if o.is_some() {
                            TestStatus::Optimized
                        } else {
                            TestStatus::Open
                        },
                        reason: None,
                        sequence: o
                            .as_ref()
                            .map(|o| s.print_sequence(&o.sequence))
                            .unwrap_or_default(),
                        value: o.map(|o| o.value.to_string()),
                        shrink_steps: None,
                        found_by: None,
                        first_found_by: None,
                        found_after_secs: None,
                        found_after_calls: None,
                    };
                }
                match s.tests.falsified(c.id) {
                    Some(f) => TestReport {
                        name: c.name.clone(),
                        kind: c.kind,
                        status: if f.shrink_done {
                            TestStatus::Falsified
                        } else {
                            TestStatus::Shrinking
                        },
                        reason: Some(f.reason.clone()),
                        sequence: s.print_sequence(f.sequence()),
                        value: None,
                        shrink_steps: Some(f.shrink_steps),
                        found_by: Some(f.found_by.as_str()),
                        first_found_by: (f.first_found_by != f.found_by)
                            .then(|| f.first_found_by.as_str()),
                        found_after_secs: Some(
                            f.found_ms.saturating_sub(s.started_ms) as f64 / 1000.0,
                        ),
                        found_after_calls: s.tests.evaluated_between(c.id).and_then(|(_, at)| at),
                    },
                    None => TestReport {
                        name: c.name.clone(),
                        kind: c.kind,
                        status: TestStatus::Passing,
                        reason: None,
                        sequence: Vec::new(),
                        value: None,
                        shrink_steps: None,
                        found_by: None,
                        first_found_by: None,
                        found_after_secs: None,
                        found_after_calls: None,
                    },
                }
            })
            .collect::<Vec<TestReport>>();
        let resumed = Resumed {
            corpus_sequences: s
                .corpus
                .entries()
                .filter(|e| e.origin == crate::corpus::Origin::Replayed)
                .count(),
            falsified: tests
                .iter()
                .filter(|t| t.found_by == Some(FoundBy::Resume.as_str()))
                .count(),
            imported: tests
                .iter()
                .filter(|t| t.found_by == Some(FoundBy::Imported.as_str()))
                .count(),
            pulled: s.shared_status().map_or(0, |h| h.pulled_entries),
        };
        let cov = s.target.coverage_report();
        let (lines, lines_hit, branches, branches_hit) = cov.totals();
        let calls = s.stats.calls();
        let elapsed = s.elapsed().as_secs_f64();
        Report {
            contract: s.target.contract.name.clone(),
            mode: s.config.test_mode,
            suite: (s.config.prefix == crate::executor::foundry::INVARIANT_PREFIX)
                .then(|| "foundry-invariant".to_string()),
            fork: match &s.target.settings.backend {
                crate::executor::fork::Backend::Fork(f) => Some(ForkSummary {
                    url: f.shown_url(),
                    block: f.block().number,
                    chain_id: f.block().chain_id,
                    cache: f.cache_file().display().to_string(),
                    requests: f.requests(),
                }),
                crate::executor::fork::Backend::Empty => None,
            },
            run_id: s.run_id.clone(),
            seed: s.seed,
            total_gas: (s.stats.workers.iter())
                .map(|w| w.gas.load(Ordering::Relaxed))
                .sum(),
            workers: s.workers(),
            calls,
            end_reason: s.end_reason(),
            elapsed_secs: (elapsed * 1000.0).round() / 1000.0,
            calls_per_sec: if elapsed > 0.0 {
                (calls as f64 / elapsed).round()
            } else {
                0.0
            },
            corpus_sequences: s.corpus.len(),
            corpus_calls: s.corpus.tx_count(),
            resumed,
            tests,
            checks: s
                .stats
                .workers
                .iter()
                .fold(ChecksSummary::default(), |a, w| ChecksSummary {
                    run: a.run + w.checks_run.load(Ordering::Relaxed),
                    skipped: a.skipped + w.checks_skipped.load(Ordering::Relaxed),
                }),
            coverage: CoverageSummary {
                lines,
                lines_hit,
                line_percent: crate::coverage::lcov::percent(lines_hit, lines),
                branches,
                branches_hit,
                branch_percent: crate::coverage::lcov::percent(branches_hit, branches),
                points: s.target.coverage.points(),
                not_targeted: cov.not_targeted.clone(),
            },
            lcov: None,
            html: None,
            journal: s.layout().journal().display().to_string(),
            corpus_dir: s.layout().corpus_dir().display().to_string(),
            foundry_reproducers: Vec::new(),
        }
    }

    /// The falsified test named `name`, or why there is none (not a test
    /// of this campaign, naming its tests; not falsified, saying its
    /// status).
    pub fn falsified_test(&self, name: &str) -> Result<&TestReport, String> {
        let t = self.tests.iter().find(|t| t.name == name).ok_or_else(|| {
            let names: Vec<&str> = self.tests.iter().map(|t| t.name.as_str()).collect();
            format!(
                "{name:?} is not a test of this campaign; its tests: {}",
                names.join(", ")
            )
        })?;
        if !t.status.is_falsified() {
            return Err(format!("{name:?} is not falsified (it is {})", t.status));
        }
        Ok(t)
    }

    /// Whether any property or assertion was falsified.
    pub fn any_falsified(&self) -> bool {
        self.tests.iter().any(|t| t.status.is_falsified())
    }

    /// The human-readable report.
    pub fn text(&self) -> String {
        let mut o = String::new();
        let _ = writeln!(
            o,
            "{} ({}): {} calls in {:.1}s ({:.0} calls/s) on {} worker{}, seed {}",
            self.contract,
            match self.suite.as_deref() {
                Some("foundry-invariant") => "Foundry invariant suite".to_string(),
                _ => format!(
                    "{} mode",
                    serde_json::to_value(self.mode)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_string))
                        .unwrap_or_default()
                ),
            },
            self.calls,
            self.elapsed_secs,
            self.calls_per_sec,
            self.workers,
            if self.workers == 1 { "" } else { "s" },
            self.seed
        );
        if let Some(why) = self.end_reason {
            let _ = writeln!(o, "ended: {} ({})", why.as_str(), why.words());
        }
        if let Some(f) = &self.fork {
            let _ = writeln!(
                o,
                "fork: {} at block {} (chain {}); {} request batch{} to the node; state kept in {}",
                f.url,
                f.block,
                f.chain_id,
                f.requests,
                if f.requests == 1 { "" } else { "es" },
                f.cache
            );
        }
        let c = self.checks;
        if c.skipped > 0 {
            let _ = writeln!(
                o,
                "checks: {} run, {} skipped because nothing they read had changed ({:.0}%)",
                c.run,
                c.skipped,
                100.0 * c.skipped as f64 / (c.run + c.skipped) as f64
            );
        }
        let r = &self.resumed;
        if r.pulled > 0 {
            // A shared campaign's node: what it replayed is mostly what the
            // other nodes found, not an earlier run's.
            let _ = writeln!(
                o,
                "replayed from {}: {} corpus sequence{} ({} file{} pulled from other nodes of the \
                 shared campaign, and any an earlier run left), {} falsified test{} reloaded",
                self.corpus_dir,
                r.corpus_sequences,
                if r.corpus_sequences == 1 { "" } else { "s" },
                r.pulled,
                if r.pulled == 1 { "" } else { "s" },
                r.falsified,
                if r.falsified == 1 { "" } else { "s" },
            );
        } else if *r != Resumed::default() {
            let _ = writeln!(
                o,
                "resumed from {}: {} corpus sequence{} replayed, {} falsified test{} reloaded \
                 (an earlier run's finds; a fresh --corpus-dir or --out-dir starts from nothing)",
                self.corpus_dir,
                r.corpus_sequences,
                if r.corpus_sequences == 1 { "" } else { "s" },
                r.falsified,
                if r.falsified == 1 { "" } else { "s" },
            );
            if r.imported > 0 {
                let _ = writeln!(
                    o,
                    "{} test{} falsified by another fuzzer's corpus or reproducers found there (replayed and shrunk by rudder)",
                    r.imported,
                    if r.imported == 1 { "" } else { "s" },
                );
            }
        }
        for t in &self.tests {
            match t.status {
                TestStatus::Passing => {
                    let _ = writeln!(o, "  {}: passing", t.name);
                }
                TestStatus::Optimized | TestStatus::Open => {
                    let _ = writeln!(
                        o,
                        "  {}: max value {}",
                        t.name,
                        t.value.as_deref().unwrap_or("none yet")
                    );
                    if t.value.is_some() && t.sequence.is_empty() {
                        let _ = writeln!(o, "      (no calls: the value right after deployment)");
                    }
                    for c in &t.sequence {
                        let _ = writeln!(o, "      {c}");
                    }
                }
                status @ (TestStatus::Falsified | TestStatus::Shrinking) => {
                    let _ = writeln!(
                        o,
                        "  {}: FALSIFIED{} ({}){}",
                        t.name,
                        if status == TestStatus::Shrinking {
                            ", still shrinking"
                        } else {
                            ""
                        },
                        t.reason.as_deref().unwrap_or(""),
                        match (
                            t.found_by.and_then(FoundBy::parse),
                            t.first_found_by.and_then(FoundBy::parse),
                        ) {
                            (Some(FoundBy::Resume), Some(first)) => format!(
                                " [reloaded from an earlier run's reproducer; found there by {}]",
                                first.words()
                            ),
                            (Some(FoundBy::Resume), None) =>
                                " [reloaded from an earlier run's reproducer]".to_string(),
                            (Some(FoundBy::Shared), _) =>
                                " [found by another node of the shared campaign]".to_string(),
                            (Some(FoundBy::Imported), _) =>
                                " [found replaying another fuzzer's corpus]".to_string(),
                            _ => String::new(),
                        }
                    );
                    if t.sequence.is_empty() {
                        let _ =
                            writeln!(o, "    call sequence: none (false right after deployment)");
                    } else {
                        let _ = writeln!(o, "    call sequence:");
                    }
                    for c in &t.sequence {
                        let _ = writeln!(o, "      {c}");
                    }
                }
            }
        }
        let c = &self.coverage;
        let branches = if c.branches == 0 {
            "no branches".to_string()
        } else {
            format!(
                "branches {}/{} ({:.1}%)",
                c.branches_hit, c.branches, c.branch_percent
            )
        };
        let _ = writeln!(
            o,
            "coverage: lines {}/{} ({:.1}%), {branches}; corpus {} sequence{}, {} calls",
            c.lines_hit,
            c.lines,
            c.line_percent,
            self.corpus_sequences,
            if self.corpus_sequences == 1 { "" } else { "s" },
            self.corpus_calls
        );
        if !c.not_targeted.is_empty() {
            let shown: Vec<&str> = c.not_targeted.iter().take(3).map(String::as_str).collect();
            let more = c.not_targeted.len() - shown.len();
            let _ = writeln!(
                o,
                "  not targeted (built, never deployed or reached; not counted): {}{}",
                shown.join(", "),
                if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                }
            );
        }
        if let Some(l) = &self.lcov {
            let _ = writeln!(o, "lcov: {l}");
        }
        if let Some(h) = &self.html {
            let _ = writeln!(o, "html report: {h}");
        }
        for r in &self.foundry_reproducers {
            let _ = writeln!(o, "foundry reproducer: {r}");
        }
        let _ = writeln!(o, "corpus: {}  journal: {}", self.corpus_dir, self.journal);
        o
    }
}
