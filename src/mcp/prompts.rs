//! The steering tasks an agent host offers its user as commands (MCP
//! prompts): investigate an uncovered branch, triage a falsified test,
//! widen the coverage of a contract. Each prompt's message carries the
//! campaign's state for the task (the uncovered lines, the test's reason
//! and sequence, the coverage per source) and names the tools that do the
//! work, so the agent starts from facts rather than a blank page.

use crate::campaign::CampaignRead;
use crate::coverage::lcov::FileCoverage;
use rmcp::model::{GetPromptResult, Prompt, PromptArgument, PromptMessage, Role};
use std::fmt::Write;

pub const INVESTIGATE: &str = "investigate_uncovered_branch";
pub const TRIAGE: &str = "triage_falsified_test";
pub const WIDEN: &str = "widen_coverage";

fn argument(name: &str, description: &str, required: bool) -> PromptArgument {
    PromptArgument::new(name)
        .with_description(description)
        .with_required(required)
}

/// The prompts, with their arguments.
pub fn list() -> Vec<Prompt> {
    vec![
        Prompt::new(
            INVESTIGATE,
            Some("Find why a branch of the target is never taken and steer the workers to it."),
            Some(vec![
                argument("file", "A source path (default: the source with the most uncovered lines).", false),
                argument("line", "A line of that source to look at (default: its first uncovered line).", false),
            ]),
        )
        .with_title("Investigate an uncovered branch"),
        Prompt::new(
            TRIAGE,
            Some("Explain a falsified test: a real bug or a harness fault, the smallest condition that breaks it, and a fix."),
            Some(vec![argument("test", "The falsified test's name (as status lists it).", true)]),
        )
        .with_title("Triage a falsified test"),
        Prompt::new(
            WIDEN,
            Some("Raise the coverage of a contract: find the functions that revert or are never reached and steer the workers to them."),
            Some(vec![argument(
                "contract",
                "A contract or source name to focus on (default: the whole target).",
                false,
            )]),
        )
        .with_title("Widen coverage of a contract"),
    ]
}

fn uncovered(f: &FileCoverage) -> Vec<u32> {
    f.lines
        .iter()
        .filter(|(_, h)| **h == 0)
        .map(|(l, _)| *l)
        .collect()
}

/// The prompt `name` filled in with `args` and the campaign's state, or
/// why not (the message names the argument).
pub fn get(
    read: &CampaignRead,
    name: &str,
    args: &serde_json::Map<String, serde_json::Value>,
) -> Result<GetPromptResult, String> {
    let arg = |k: &str| -> Result<Option<String>, String> {
        match args.get(k) {
            None | Some(serde_json::Value::Null) => Ok(None),
            Some(serde_json::Value::String(s)) if s.is_empty() => Ok(None),
            Some(serde_json::Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(format!("arguments.{k}: expected a string, found {other}")),
        }
    };
    let report = read.report();
    let mut m = String::new();
    let description;
    match name {
        INVESTIGATE => {
            let cov = read.coverage_report();
            let file = match arg("file")? {
                Some(p) => cov
                    .files
                    .iter()
                    .find(|f| f.path == p || f.path.ends_with(&p))
                    .ok_or_else(|| {
                        let paths: Vec<&str> = cov.files.iter().map(|f| f.path.as_str()).collect();
                        format!(
                            "arguments.file: no source {p:?} in the coverage; sources: {}",
                            paths.join(", ")
                        )
                    })?,
                None => cov
                    .files
                    .iter()
                    .max_by_key(|f| uncovered(f).len())
                    .ok_or("arguments.file: the target has no source with coverage")?,
            };
            let missing = uncovered(file);
            let line =
                match arg("line")? {
                    Some(l) => Some(l.parse::<u32>().map_err(|_| {
                        format!("arguments.line: expected a line number, found {l:?}")
                    })?),
                    None => missing.first().copied(),
                };
            description = format!("Investigate uncovered code in {}", file.path);
            let _ = writeln!(
                m,
                "The fuzzing campaign on {} has not reached some code in `{}`.",
                report.contract, file.path
            );
            let _ = writeln!(
                m,
                "That source: {} of {} lines covered; uncovered lines: {}.",
                file.lines_hit(),
                file.lines.len(),
                missing
                    .iter()
                    .take(40)
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            if let Some(l) = line {
                let _ = writeln!(m, "Start from line {l}.");
            }
            m.push_str(
                "\nSteps:\n\
                 1. `graph_context_for_files` on that file: the guard in front of the line, what it reads, and which functions write it.\n\
                 2. `revert_census` and `test_vacuity`: which calls revert there and why.\n\
                 3. `evaluate_predicates` to read the guard's inputs on states the campaign reached.\n\
                 4. Build a sequence that sets those inputs and try it with `run_sequence` (calls in Solidity syntax, `?` for values the workers draw, `$1` for an earlier call's result).\n\
                 5. When it reaches the line, hand it to the workers with `inject_transaction` and `prioritize_function` the functions on the path; check with `show_coverage`.\n\
                 Say what blocked the line and which sequence reaches it.\n",
            );
        }
        TRIAGE => {
            let test = arg("test")?.ok_or("arguments.test: required (a falsified test's name)")?;
            let t = report
                .falsified_test(&test)
                .map_err(|e| format!("arguments.test: {e}"))?;
            description = format!("Triage {test}");
            let _ = writeln!(
                m,
                "The fuzzing campaign on {} falsified the {} test `{}`: {}.",
                report.contract,
                t.kind.as_str(),
                t.name,
                t.reason.as_deref().unwrap_or("falsified")
            );
            if let Some(Some(at)) = crate::view::ci::locations(read)
                .into_iter()
                .zip(&report.tests)
                .find(|(_, r)| r.name == test)
                .map(|(l, _)| l)
            {
                let _ = writeln!(m, "The test is at {}:{}.", at.file, at.line);
            }
            m.push_str("The shrunk sequence that breaks it:\n");
            for c in &t.sequence {
                let _ = writeln!(m, "  {c}");
            }
            let _ = writeln!(
                m,
                "\nIts Foundry reproducer is the resource rudder://tests/{}/foundry.",
                t.name
            );
            m.push_str(
                "\nSteps:\n\
                 1. Read the test and the functions the sequence calls (the sources are resources too).\n\
                 2. Vary the sequence with `run_sequence` (other values, a call left out, another sender) to find the smallest condition under which the test fails.\n\
                 3. Decide: a bug in the contract under test, or a fault of the harness or the property itself.\n\
                 Answer with the root cause, the condition, and the fix you propose.\n",
            );
        }
        WIDEN => {
            let focus = arg("contract")?;
            let cov = read.coverage_report();
            let files: Vec<&FileCoverage> = (cov.files.iter())
                .filter(|f| focus.as_ref().is_none_or(|c| f.path.contains(c.as_str())))
                .collect();
            if files.is_empty() {
                let paths: Vec<&str> = cov.files.iter().map(|f| f.path.as_str()).collect();
                return Err(format!(
                    "arguments.contract: no source matches {:?}; sources: {}",
                    focus.unwrap_or_default(),
                    paths.join(", ")
                ));
            }
            description = format!(
                "Widen coverage of {}",
                focus.as_deref().unwrap_or(&report.contract)
            );
            let _ = writeln!(
                m,
                "The fuzzing campaign on {} has made {} calls; coverage per source:",
                report.contract, report.calls
            );
            for f in files {
                let (b, bh) = f.branch_outcomes();
                let _ = writeln!(
                    m,
                    "  {}: lines {}/{}, branches {bh}/{b}",
                    f.path,
                    f.lines_hit(),
                    f.lines.len()
                );
            }
            m.push_str(
                "\nSteps:\n\
                 1. `target`: the functions, and whether workers call them.\n\
                 2. `revert_census`: the functions whose calls revert most, with the failing guard.\n\
                 3. For each, find what makes the guard pass (`graph_context_for_files`, `evaluate_predicates`) and try it with `run_sequence`.\n\
                 4. `inject_transaction` the sequences that pass, `prioritize_function` the functions they enable; compare `show_coverage` before and after.\n\
                 Report what you changed and the coverage it gained.\n",
            );
        }
        other => {
            let names: Vec<String> = list().into_iter().map(|p| p.name).collect();
            return Err(format!(
                "name: no prompt {other:?}; prompts: {}",
                names.join(", ")
            ));
        }
    }
    Ok(
        GetPromptResult::new(vec![PromptMessage::new_text(Role::User, m)])
            .with_description(description),
    )
}
