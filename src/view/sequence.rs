//! A sequence laid out for people, shared by the HTML report and the
//! dashboard: per call its sender, value, delays, decoded arguments and,
//! once replayed on an isolated copy of the deployed state (nothing of the
//! campaign changes), its return values, events and revert reason — the data
//! `run_sequence` returns.

use crate::campaign::CampaignRead;
use crate::campaign::run_report::{CallReport, NamedValue, named_values};
use crate::tx::Tx;
use serde::Serialize;
use std::time::Instant;

/// One call of a sequence.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CallView {
    /// The call as the parser prints it (what `inject_transaction` takes).
    pub call: String,
    pub function: String,
    /// The deployed contract the call goes to when it is not the target.
    pub contract: Option<String>,
    /// Lowercase hex.
    pub sender: String,
    /// Wei, decimal.
    pub value: String,
    pub delay_seconds: u64,
    pub delay_blocks: u64,
    pub args: Vec<NamedValue>,
    /// What the call did when the sequence was replayed (`None`: not
    /// replayed, or the replay ran out of time before it).
    pub result: Option<CallReport>,
}

/// A whole sequence.
#[derive(Clone, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SequenceView {
    pub calls: Vec<CallView>,
    /// Whether every call was replayed.
    pub replayed: bool,
    /// Tests some call of the replay broke, in the order they first failed.
    pub falsified: Vec<String>,
}

impl SequenceView {
    /// `txs` laid out without running them.
    pub fn printed(read: &CampaignRead, txs: &[Tx]) -> SequenceView {
        let printed = read.print_sequence(txs);
        let calls = txs
            .iter()
            .zip(printed)
            .map(|(tx, call)| CallView {
                call,
                function: tx.function.name.clone(),
                contract: tx.to.map(|to| {
                    read.target()
                        .others
                        .iter()
                        .find(|c| c.address == to)
                        .map_or_else(|| format!("{to:#x}"), |c| c.name.clone())
                }),
                sender: format!("{:#x}", tx.sender),
                value: tx.value.to_string(),
                delay_seconds: tx.delay.seconds,
                delay_blocks: tx.delay.blocks,
                args: named_values(&tx.function.inputs, &tx.args),
                result: None,
            })
            .collect();
        SequenceView {
            calls,
            replayed: false,
            falsified: Vec::new(),
        }
    }

    /// `txs` laid out and replayed once from the deployed state on an
    /// isolated executor, until `deadline`.
    pub fn replayed(read: &CampaignRead, txs: &[Tx], deadline: Instant) -> SequenceView {
        let mut view = SequenceView::printed(read, txs);
        let (_, report) = read.dry_run(txs, deadline, None, None);
        let ran = report.calls.len();
        for (call, result) in view.calls.iter_mut().zip(report.calls) {
            call.result = Some(result);
        }
        view.replayed = report.complete && ran == txs.len();
        view.falsified = report.falsified;
        view
    }
}
