//! `rudder fuzz --timeline FILE`: when the campaign first reached each
//! source line and falsified each test, for time-to-coverage curves (how
//! long a campaign must run to reach what it reaches) beside the LCOV of
//! where it got.

use crate::campaign::report::Report;
use crate::coverage::CoverageReport;
use serde::Serialize;

/// The whole timeline, in seconds since the campaign was made.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Timeline {
    /// How long the campaign ran.
    pub elapsed_secs: f64,
    /// Every line reached, earliest first.
    pub lines: Vec<LineReached>,
    /// Every falsified test, earliest first.
    pub tests: Vec<TestFalsified>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct LineReached {
    /// The source's path as compiled (LCOV's `SF:` is the file on disk).
    pub file: String,
    pub line: u32,
    pub secs: f64,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct TestFalsified {
    pub name: String,
    pub secs: f64,
    /// The campaign's calls by then.
    pub calls: Option<u64>,
}

impl Timeline {
    pub fn of(report: &Report, coverage: &CoverageReport) -> Timeline {
        let mut lines: Vec<LineReached> = (coverage.files.iter())
            .flat_map(|f| {
                (f.first_reached.iter()).map(|(&line, &ms)| LineReached {
                    file: f.path.clone(),
                    line,
                    secs: f64::from(ms) / 1000.0,
                })
            })
            .collect();
        lines.sort_by(|a, b| a.secs.total_cmp(&b.secs));
        let mut tests: Vec<TestFalsified> = (report.tests.iter())
            .filter_map(|t| {
                Some(TestFalsified {
                    name: t.name.clone(),
                    secs: t.found_after_secs?,
                    calls: t.found_after_calls,
                })
            })
            .collect();
        tests.sort_by(|a, b| a.secs.total_cmp(&b.secs));
        Timeline {
            elapsed_secs: report.elapsed_secs,
            lines,
            tests,
        }
    }
}
