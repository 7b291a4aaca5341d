//! What an agent host can attach as context (MCP resources): the live
//! report, the LCOV, each falsified test's shrunk sequence and Foundry
//! reproducer, and the target's sources. Each is read from the campaign
//! when asked (`resources/read`), so it is what the campaign knows then.
//!
//! URIs: `rudder://report` (JSON), `rudder://coverage.lcov`,
//! `rudder://tests/{test}/sequence` (one call per line, the call syntax
//! `inject_transaction` and `run_sequence` take),
//! `rudder://tests/{test}/foundry` (Solidity) and
//! `rudder://sources/{path}`; a test name or path is percent-encoded
//! where it holds characters outside `A-Za-z0-9-_.~()/,`.

use crate::campaign::CampaignRead;
use rmcp::model::{Resource, ResourceContents, ResourceTemplate};

pub const REPORT: &str = "rudder://report";
pub const LCOV: &str = "rudder://coverage.lcov";
const TESTS: &str = "rudder://tests/";
const SOURCES: &str = "rudder://sources/";

fn encode(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~()/,".contains(&b) {
            o.push(b as char);
        } else {
            o.push_str(&format!("%{b:02X}"));
        }
    }
    o
}

fn decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let h = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(h, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Every resource the campaign has now.
pub fn list(read: &CampaignRead) -> Vec<Resource> {
    let report = read.report();
    let mut out = vec![
        Resource::new(REPORT, "report")
            .with_title(format!("{}: the campaign's report", report.contract))
            .with_description("Tests with their status and shrunk sequences, coverage, throughput, why the run ended (live).")
            .with_mime_type("application/json"),
        Resource::new(LCOV, "coverage.lcov")
            .with_description("Line, branch and function coverage of the target's sources, as LCOV (live).")
            .with_mime_type("text/plain"),
    ];
    for t in report.tests.iter().filter(|t| t.status.is_falsified()) {
        let base = format!("{TESTS}{}", encode(&t.name));
        out.push(
            Resource::new(format!("{base}/sequence"), format!("{} sequence", t.name))
                .with_description(format!(
                    "The shrunk sequence that falsifies {} ({}), one call per line.",
                    t.name,
                    t.reason.as_deref().unwrap_or("falsified")
                ))
                .with_mime_type("text/plain"),
        );
        out.push(
            Resource::new(
                format!("{base}/foundry"),
                format!("{} Foundry reproducer", t.name),
            )
            .with_description(format!(
                "A Foundry test that replays {}'s sequence and fails (`forge test`).",
                t.name
            ))
            .with_mime_type("text/x-solidity"),
        );
    }
    for s in read
        .target()
        .project
        .sources
        .iter()
        .filter(|s| s.text.is_some())
    {
        out.push(
            Resource::new(format!("{SOURCES}{}", encode(&s.path)), s.path.clone())
                .with_description("A source of the target's build.")
                .with_mime_type("text/x-solidity"),
        );
    }
    out
}

/// The URI patterns of the resources that come and go with the campaign.
pub fn templates() -> Vec<ResourceTemplate> {
    vec![
        ResourceTemplate::new(
            format!("{TESTS}{{test}}/sequence"),
            "falsified test sequence",
        )
        .with_description("A falsified test's shrunk sequence, one call per line.")
        .with_mime_type("text/plain"),
        ResourceTemplate::new(
            format!("{TESTS}{{test}}/foundry"),
            "falsified test Foundry reproducer",
        )
        .with_description("A Foundry test replaying a falsified test's sequence.")
        .with_mime_type("text/x-solidity"),
        ResourceTemplate::new(format!("{SOURCES}{{path}}"), "source")
            .with_description("A source file of the target's build, by its compiled path.")
            .with_mime_type("text/x-solidity"),
    ]
}

/// The resource at `uri`, or why there is none (the message names the
/// URI and what exists).
pub fn read(read: &CampaignRead, uri: &str) -> Result<ResourceContents, String> {
    let text = |t: String, mime: &str| Ok(ResourceContents::text(t, uri).with_mime_type(mime));
    if uri == REPORT {
        let json = serde_json::to_string_pretty(&read.report()).map_err(|e| e.to_string())?;
        return text(json, "application/json");
    }
    if uri == LCOV {
        return text(read.coverage_report().lcov_text(), "text/plain");
    }
    if let Some(rest) = uri.strip_prefix(SOURCES) {
        let path =
            decode(rest).ok_or_else(|| format!("uri: {uri:?} is not percent-encoded correctly"))?;
        let source = (read.target().project.sources.iter())
            .find(|s| s.path == path && s.text.is_some())
            .ok_or_else(|| {
                format!("uri: no source {path:?} in the target's build (resources/list names them)")
            })?;
        return text(source.text.clone().unwrap_or_default(), "text/x-solidity");
    }
    if let Some(rest) = uri.strip_prefix(TESTS) {
        let (name, what) = rest.rsplit_once('/').ok_or_else(|| {
            format!("uri: {uri:?}: expected {TESTS}{{test}}/sequence or /foundry")
        })?;
        let name =
            decode(name).ok_or_else(|| format!("uri: {uri:?} is not percent-encoded correctly"))?;
        let report = read.report();
        let t = report
            .falsified_test(&name)
            .map_err(|e| format!("uri: {e}"))?;
        return match what {
            "sequence" => text(t.sequence.join("\n") + "\n", "text/plain"),
            "foundry" => match read.foundry_reproducer(&name)? {
                crate::campaign::foundry_repro::Repro::Written { solidity, .. } => {
                    text(solidity, "text/x-solidity")
                }
                crate::campaign::foundry_repro::Repro::NotYet { .. } => {
                    Err(format!("uri: {name:?} has no reproducer yet"))
                }
            },
            other => Err(format!(
                "uri: {other:?}: expected sequence or foundry after the test's name"
            )),
        };
    }
    Err(format!(
        "uri: no resource {uri:?}: rudder serves {REPORT}, {LCOV}, {TESTS}{{test}}/sequence, {TESTS}{{test}}/foundry and {SOURCES}{{path}}"
    ))
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_are_percent_encoded_both_ways() {
        for s in [
            "echidna_x",
            "transfer(address,uint256)",
            "src/a b/Ü.sol",
            "50%",
        ] {
            assert_eq!(super::decode(&super::encode(s)).as_deref(), Some(s));
        }
        assert_eq!(super::encode("f(uint256) x"), "f(uint256)%20x");
        assert_eq!(super::decode("%G1"), None);
    }
}
