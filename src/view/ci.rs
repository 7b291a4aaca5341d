//! The report in the forms CI systems read: JUnit XML ([`junit`]: one
//! `testsuite` per target, a `testcase` per test, a `failure` with the
//! reason and the shrunk sequence for each falsified one), which Jenkins,
//! GitLab, CircleCI, Azure Pipelines and the GitHub test-report actions
//! show; and GitHub Actions workflow commands ([`github`]: an `::error`
//! annotation per falsified test at its function's source line, which the
//! pull request's diff shows).

use crate::campaign::CampaignRead;
use crate::campaign::report::{Report, TestReport, TestStatus};
use std::fmt::Write;

/// Where a test's function is defined: a path (relative to the working
/// directory when the file is under it, else as compiled) and a 1-based
/// line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceLine {
    pub file: String,
    pub line: u32,
}

/// Each test's source line, in the report's order (`None`: a spec added at
/// run time, or a build without function spans).
pub fn locations(read: &CampaignRead) -> Vec<Option<SourceLine>> {
    let target = read.target();
    let cwd = std::env::current_dir().ok();
    read.tests()
        .cases()
        .map(|case| {
            if case.spec.is_some() {
                return None;
            }
            let (source, line) = target
                .project
                .function_line(&target.contract.name, &case.function.name)?;
            let file = (source.file.as_ref())
                .and_then(|f| f.strip_prefix(cwd.as_ref()?).ok())
                .map(|p| p.display().to_string())
                .unwrap_or_else(|| source.path.clone());
            Some(SourceLine { file, line })
        })
        .collect()
}

/// What a falsified test's failure says: the reason, where the test is,
/// and the sequence that breaks it, one call per line.
fn failure_text(t: &TestReport, at: Option<&SourceLine>) -> String {
    let mut s = format!(
        "{} {} falsified: {}",
        t.kind.as_str(),
        t.name,
        t.reason.as_deref().unwrap_or("")
    );
    if let Some(at) = at {
        let _ = write!(s, "\nat {}:{}", at.file, at.line);
    }
    if t.sequence.is_empty() {
        s.push_str("\nno calls: false right after deployment");
    } else {
        let _ = write!(
            s,
            "\ncall sequence{}:",
            if t.status == TestStatus::Shrinking {
                " (still shrinking)"
            } else {
                " (shrunk)"
            }
        );
        for c in &t.sequence {
            let _ = write!(s, "\n  {c}");
        }
    }
    s
}

/// XML text: the five escapes, and the characters XML 1.0 cannot hold
/// (control characters other than tab and newline) as U+FFFD.
fn xml(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&apos;"),
            '\t' | '\n' => o.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => o.push('\u{FFFD}'),
            c => o.push(c),
        }
    }
    o
}

/// The report as a JUnit XML document: `testsuites` > one `testsuite`
/// named after the target (run figures as `properties`, the text report as
/// `system-out`) > a `testcase` per test, classname the target; a
/// falsified test (shrunk or still shrinking) holds a `failure` whose
/// `message` is the reason and whose `type` is the test's kind; an
/// optimization test's best value is its `system-out`.
pub fn junit(r: &Report, at: &[Option<SourceLine>]) -> String {
    let failures = r.tests.iter().filter(|t| t.status.is_falsified()).count();
    let tests = r.tests.len();
    let time = format!("{:.3}", r.elapsed_secs);
    let mut o = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        o,
        "<testsuites name=\"rudder\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" time=\"{time}\">"
    );
    let _ = writeln!(
        o,
        "  <testsuite name=\"{}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" skipped=\"0\" time=\"{time}\">",
        xml(&r.contract)
    );
    o.push_str("    <properties>\n");
    let mut props = vec![
        ("mode", r.mode.as_str().to_string()),
        ("seed", r.seed.to_string()),
        ("workers", r.workers.to_string()),
        ("calls", r.calls.to_string()),
        ("callsPerSecond", r.calls_per_sec.to_string()),
        (
            "lineCoverage",
            format!("{}/{}", r.coverage.lines_hit, r.coverage.lines),
        ),
        (
            "branchCoverage",
            format!("{}/{}", r.coverage.branches_hit, r.coverage.branches),
        ),
        ("corpusDir", r.corpus_dir.clone()),
        ("runId", r.run_id.clone()),
    ];
    if let Some(why) = r.end_reason {
        props.push(("endReason", why.as_str().to_string()));
    }
    for (k, v) in props {
        let _ = writeln!(o, "      <property name=\"{k}\" value=\"{}\"/>", xml(&v));
    }
    o.push_str("    </properties>\n");
    for (i, t) in r.tests.iter().enumerate() {
        let _ = write!(
            o,
            "    <testcase name=\"{}\" classname=\"{}\"",
            xml(&t.name),
            xml(&r.contract)
        );
        if t.status.is_falsified() {
            let text = failure_text(t, at.get(i).and_then(Option::as_ref));
            let _ = writeln!(
                o,
                ">\n      <failure message=\"{}\" type=\"{}\">{}</failure>\n    </testcase>",
                xml(t.reason.as_deref().unwrap_or("falsified")),
                t.kind.as_str(),
                xml(&text)
            );
        } else if let Some(v) = &t.value {
            let mut text = format!("max value {v}");
            for c in &t.sequence {
                let _ = write!(text, "\n  {c}");
            }
            let _ = writeln!(
                o,
                ">\n      <system-out>{}</system-out>\n    </testcase>",
                xml(&text)
            );
        } else {
            o.push_str("/>\n");
        }
    }
    let _ = writeln!(o, "    <system-out>{}</system-out>", xml(&r.text()));
    o.push_str("  </testsuite>\n</testsuites>\n");
    o
}

/// A workflow command's data: `%`, CR and LF escaped.
fn command_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A workflow command's property value: also `:` and `,`.
fn command_property(s: &str) -> String {
    command_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// The text report followed by one GitHub Actions `::error` annotation per
/// falsified test, at its function's file and line when known (the
/// message: the reason and the shrunk sequence).
pub fn github(r: &Report, at: &[Option<SourceLine>]) -> String {
    let mut o = r.text();
    for (i, t) in r.tests.iter().enumerate() {
        if !t.status.is_falsified() {
            continue;
        }
        let place = at.get(i).and_then(Option::as_ref);
        let mut props = Vec::new();
        if let Some(p) = place {
            props.push(format!("file={}", command_property(&p.file)));
            props.push(format!("line={}", p.line));
        }
        props.push(format!(
            "title={}",
            command_property(&format!("{}: {} falsified", r.contract, t.name))
        ));
        let _ = writeln!(
            o,
            "::error {}::{}",
            props.join(","),
            command_data(&failure_text(t, place))
        );
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_for_xml_and_for_workflow_commands() {
        assert_eq!(
            xml("a<b & \"c\"\u{1}\n"),
            "a&lt;b &amp; &quot;c&quot;\u{FFFD}\n"
        );
        assert_eq!(command_data("50%\nx"), "50%25%0Ax");
        assert_eq!(command_property("a:b,c"), "a%3Ab%2Cc");
    }
}
