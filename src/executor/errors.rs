//! The project's custom errors by selector: why a call or a property
//! reverted, said in the words of its source (`TooMuch(101)`), not in hex;
//! and the events property libraries emit just before they fail
//! (crytic/properties' `AssertEqFail("Invalid: 1000!=999, reason: …")`,
//! `AssertionFailed(..)`, DSTest's `log_named_*`), read back as the
//! failure's message.

use super::{Outcome, RevertReason};
use crate::artifacts::Project;
use crate::tx::write_value;
use alloy_dyn_abi::{ErrorExt, EventExt};
use alloy_json_abi::{Error as AbiError, Event as AbiEvent};
use alloy_primitives::{B256, Log};
use std::collections::HashMap;

/// Every custom error the project's contracts declare, by selector (one
/// per distinct parameter list).
#[derive(Debug, Default)]
pub struct ErrorBook {
    by_selector: HashMap<[u8; 4], Vec<AbiError>>,
    /// The message events the project declares, by `topic0`.
    messages: HashMap<B256, (MessageKind, AbiEvent)>,
}

/// How a message event explains a failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum MessageKind {
    /// An assertion library's failure event (`AssertFail`, `AssertEqFail`,
    /// `AssertGteFail`, …, `AssertionFailed`): the last one is the message.
    Assertion,
    /// DSTest's `log*` events (and Chimera's `Log`): the last few together
    /// are the message (`log("Error: a == b not satisfied [uint]")`, then
    /// the operands).
    Log,
}

/// DSTest log events a failure's message reads at most (an assertion's
/// headline and its two operands).
const LOGS_IN_MESSAGE: usize = 3;

impl MessageKind {
    fn of(event: &AbiEvent) -> Option<MessageKind> {
        let n = event.name.as_str();
        if n == "AssertionFailed"
            || (n.starts_with("Assert") && (n.ends_with("Fail") || n.ends_with("Failed")))
        {
            Some(MessageKind::Assertion)
        } else if n == "log" || n.starts_with("log_") || n == "Log" {
            // DSTest's `log*`; Recon's Chimera `Log(string)` before its
            // `assert(false)`.
            Some(MessageKind::Log)
        } else {
            None
        }
    }
}

impl ErrorBook {
    pub fn of(project: &Project) -> Self {
        let mut by_selector: HashMap<[u8; 4], Vec<AbiError>> = HashMap::new();
        let abis = project
            .contracts
            .iter()
            .map(|c| &c.abi)
            .chain(project.interfaces.iter().map(|i| &i.abi));
        let mut messages = HashMap::new();
        for abi in abis {
            for e in abi.errors() {
                let v = by_selector.entry(e.selector().0).or_default();
                if !v.iter().any(|k| k.inputs == e.inputs) {
                    v.push(e.clone());
                }
            }
            for e in abi.events() {
                if let Some(kind) = MessageKind::of(e)
                    && !e.anonymous
                {
                    messages
                        .entry(e.selector())
                        .or_insert_with(|| (kind, e.clone()));
                }
            }
        }
        ErrorBook {
            by_selector,
            messages,
        }
    }

    /// Whether the project declares any message event (without one there
    /// is no message to read back).
    pub fn has_messages(&self) -> bool {
        !self.messages.is_empty()
    }

    /// The message a failing call's `logs` (its last logs, from frames that
    /// reverted too) carry: the last assertion library event, decoded with
    /// its arguments (`AssertEqFail("Invalid: 1000!=999, reason: …")`), or
    /// else the last DSTest `log*` events together; `None` without either.
    pub fn message(&self, logs: &[Log]) -> Option<String> {
        let decoded = |log: &Log| -> Option<(MessageKind, String)> {
            let (kind, event) = self.messages.get(log.topics().first()?)?;
            let d = event
                .decode_log_parts(log.topics().iter().copied(), &log.data.data)
                .ok()?;
            // Arguments in declaration order: indexed ones from the topics.
            let (mut indexed, mut body) = (d.indexed.iter(), d.body.iter());
            let mut args = String::new();
            for (i, p) in event.inputs.iter().enumerate() {
                let v = if p.indexed {
                    indexed.next()
                } else {
                    body.next()
                };
                if i > 0 {
                    args.push_str(", ");
                }
                match v {
                    Some(v) => write_value(&mut args, v),
                    None => args.push('?'),
                }
            }
            Some((*kind, format!("{}({args})", event.name)))
        };
        let all: Vec<(MessageKind, String)> = logs.iter().filter_map(decoded).collect();
        if let Some((_, m)) = all.iter().rev().find(|(k, _)| *k == MessageKind::Assertion) {
            return Some(m.clone());
        }
        let n = all.len();
        (n > 0).then(|| {
            all[n.saturating_sub(LOGS_IN_MESSAGE)..]
                .iter()
                .map(|(_, m)| m.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        })
    }

    /// `reason` with the message `logs` carry ([`message`](Self::message)):
    /// `emitted AssertEqFail("…"), then panic 0x01 (assertion failed)`.
    pub fn explain(&self, reason: String, logs: &[Log]) -> String {
        let Some(m) = self.message(logs) else {
            return reason;
        };
        if reason.contains(&m) {
            return reason;
        }
        // "emitted AssertionFailed[, then …]" names the event already.
        match reason.strip_prefix("emitted AssertionFailed") {
            Some(rest) => format!("emitted {m}{rest}"),
            None => format!("emitted {m}, then {reason}"),
        }
    }

    /// Revert data `data` as `Name(arg, …)` when a declared error decodes it.
    pub fn decode(&self, data: &[u8]) -> Option<String> {
        let selector: [u8; 4] = data.get(..4)?.try_into().ok()?;
        self.by_selector.get(&selector)?.iter().find_map(|e| {
            let d = e.decode_error(data).ok()?;
            let mut args = String::new();
            for (i, v) in d.body.iter().enumerate() {
                if i > 0 {
                    args.push_str(", ");
                }
                write_value(&mut args, v);
            }
            Some(format!("{}({args})", e.name))
        })
    }

    /// What `outcome` says, a custom error decoded.
    pub fn describe(&self, outcome: &Outcome) -> String {
        if let Outcome::Revert {
            reason: RevertReason::Raw(data),
        } = outcome
            && let Some(e) = self.decode(data)
        {
            return format!("reverted with {e}");
        }
        outcome.to_string()
    }
}
