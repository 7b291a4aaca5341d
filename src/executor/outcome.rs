//! How a call ended: success, revert (with its decoded reason), halt; panic
//! codes and what they mean.

use super::*;
use revm::context::result::{ExecutionResult, HaltReason, Output};

/// How a call ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Success { output: Bytes },
    Revert { reason: RevertReason },
    Halt { reason: Halt },
}

/// Why a call halted without returning or reverting.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Halt {
    /// The EVM stopped it (out of gas, an invalid opcode, a stack error…).
    Evm(HaltReason),
    /// revm refused the transaction before running it (the message says why).
    Rejected(String),
}

impl std::fmt::Display for Halt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Halt::Evm(r) => write!(f, "{r:?}"),
            Halt::Rejected(m) => write!(f, "rejected: {m}"),
        }
    }
}

/// A decoded revert.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RevertReason {
    /// `Error(string)`: `require(…, "msg")` and `revert("msg")`.
    Error(String),
    /// `Panic(uint256)`: 0x01 assert, 0x11 overflow, 0x12 division by zero, …
    Panic(U256),
    /// Anything else (custom errors, bare `revert()`).
    Raw(Bytes),
}

impl Outcome {
    /// What tells two failures apart (the kind and its reason bytes), for
    /// "a reason not seen before".
    pub fn hash_key(&self) -> (u8, &[u8]) {
        match self {
            Outcome::Success { .. } => (0, &[]),
            Outcome::Revert {
                reason: RevertReason::Error(m),
            } => (1, m.as_bytes()),
            Outcome::Revert {
                reason: RevertReason::Panic(c),
            } => (2, c.as_le_slice()),
            Outcome::Revert {
                reason: RevertReason::Raw(b),
            } => (3, b.as_ref()),
            Outcome::Halt {
                reason: Halt::Rejected(m),
            } => (4, m.as_bytes()),
            Outcome::Halt {
                reason: Halt::Evm(_),
            } => (5, &[]),
        }
    }

    /// The outcome in one word: `success`, `revert`, `panic` (a
    /// `Panic(uint256)` revert) or `halt`. Every answer that classifies a
    /// call uses this.
    pub fn word(&self) -> &'static str {
        match self {
            Outcome::Success { .. } => "success",
            Outcome::Revert {
                reason: RevertReason::Panic(_),
            } => "panic",
            Outcome::Revert { .. } => "revert",
            Outcome::Halt { .. } => "halt",
        }
    }

    pub fn is_success(&self) -> bool {
        matches!(self, Outcome::Success { .. })
    }

    /// Checked arithmetic overflowed or underflowed: `Panic(0x11)`.
    pub fn is_overflow(&self) -> bool {
        matches!(self, Outcome::Revert { reason: RevertReason::Panic(c) } if *c == U256::from(0x11))
    }

    /// An assertion failure: `Panic(0x01)`, or the designated invalid opcode
    /// that solc before 0.8 emitted for `assert`.
    pub fn is_assertion_failure(&self) -> bool {
        match self {
            Outcome::Revert {
                reason: RevertReason::Panic(code),
            } => *code == U256::from(1),
            Outcome::Halt {
                reason: Halt::Evm(HaltReason::InvalidFEOpcode),
            } => true,
            _ => false,
        }
    }
}

impl Outcome {
    /// A revert whose message starts with "assertion failed": forge-std's
    /// `assert*` (through `vm.assert*`) and hevm's assertion cheatcodes.
    pub fn is_assertion_message(&self) -> bool {
        matches!(self, Outcome::Revert { reason: RevertReason::Error(m) } if m.starts_with("assertion failed"))
    }

    /// `vm.assume` rejected the call's input: no failure.
    pub fn is_assume_rejection(&self) -> bool {
        matches!(self, Outcome::Revert { reason: RevertReason::Error(m) }
            if m == super::cheatcodes::ASSUME_REJECTED)
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Success { .. } => f.write_str("success"),
            Outcome::Revert {
                reason: RevertReason::Error(m),
            } => write!(f, "reverted: {m:?}"),
            Outcome::Revert {
                reason: RevertReason::Panic(c),
            } => write!(f, "panic 0x{c:02x} ({})", panic_meaning(*c)),
            Outcome::Revert {
                reason: RevertReason::Raw(b),
            } if b.is_empty() => f.write_str("reverted"),
            Outcome::Revert {
                reason: RevertReason::Raw(b),
            } => write!(f, "reverted with {b}"),
            Outcome::Halt { reason } => write!(f, "halted: {reason}"),
        }
    }
}

/// What solc's panic codes mean.
pub fn panic_meaning(code: U256) -> &'static str {
    match code.saturating_to::<u64>() {
        0x00 => "generic compiler panic",
        0x01 => "assertion failed",
        0x11 => "arithmetic overflow or underflow",
        0x12 => "division or modulo by zero",
        0x21 => "invalid enum value",
        0x22 => "bad storage byte array encoding",
        0x31 => "pop on empty array",
        0x32 => "array index out of bounds",
        0x41 => "out of memory",
        0x51 => "call to uninitialized function",
        _ => "unknown panic",
    }
}

/// Decodes revert data.
pub fn decode_revert(data: &[u8]) -> RevertReason {
    const ERROR: [u8; 4] = [0x08, 0xc3, 0x79, 0xa0];
    const PANIC: [u8; 4] = [0x4e, 0x48, 0x7b, 0x71];
    if data.len() >= 4 + 32 && data[..4] == PANIC {
        return RevertReason::Panic(U256::from_be_slice(&data[4..36]));
    }
    if data.len() >= 4 && data[..4] == ERROR {
        use alloy_dyn_abi::{DynSolType, DynSolValue};
        if let Ok(DynSolValue::String(s)) = DynSolType::String.abi_decode(&data[4..]) {
            return RevertReason::Error(s);
        }
    }
    RevertReason::Raw(Bytes::copy_from_slice(data))
}

/// The result of one call.
#[derive(Clone, Debug)]
pub struct CallResult {
    pub outcome: Outcome,
    pub gas_used: u64,
    pub logs: Vec<Log>,
    /// Whether an `AssertionFailed(..)` event was emitted anywhere in the
    /// call, in a frame that then reverted too (as Echidna reads events
    /// from the call's trace, not from the logs that survive).
    pub asserted: bool,
}

impl CallResult {
    /// What the call produced for the `$n` references of later calls of
    /// its sequence (`None`: it failed).
    pub fn produced(&self, tx: &crate::tx::Tx) -> Option<crate::reference::Produced> {
        match &self.outcome {
            Outcome::Success { output } => {
                Some(crate::reference::Produced::of(tx, output, &self.logs))
            }
            _ => None,
        }
    }
}

pub(super) fn convert(result: ExecutionResult<HaltReason>) -> CallResult {
    let gas_used = result.tx_gas_used();
    match result {
        ExecutionResult::Success { output, logs, .. } => CallResult {
            outcome: Outcome::Success {
                output: match output {
                    Output::Call(b) => b,
                    Output::Create(b, _) => b,
                },
            },
            gas_used,
            logs,
            asserted: false,
        },
        ExecutionResult::Revert { output, logs, .. } => CallResult {
            outcome: Outcome::Revert {
                reason: decode_revert(&output),
            },
            gas_used,
            logs,
            asserted: false,
        },
        ExecutionResult::Halt { reason, logs, .. } => CallResult {
            outcome: Outcome::Halt {
                reason: Halt::Evm(reason),
            },
            gas_used,
            logs,
            asserted: false,
        },
    }
}
