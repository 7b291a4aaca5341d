//! What a check read: the storage slots, balances, code and block fields a
//! property, optimization function or spec's views loaded while they ran.
//!
//! A view's answer is a function of what it read (the EVM is deterministic,
//! and a check's own transaction — sender, calldata, gas limit — is the same
//! every time). So while every value it read still holds, running it again
//! would read the same values, take the same path and answer the same: the
//! check can be skipped. [`Executor::begin_reads`] starts recording,
//! [`Executor::end_reads`] resolves what was read to the values it had
//! ([`ReadSet`]), and [`Executor::reads_hold`] compares those with the state
//! the executor is in now, wherever it came from (calls, a reset, a restored
//! snapshot, a cheatcode's `store` or `deal`).
//!
//! What cannot be recorded this way makes the check uncacheable (it then
//! runs every time, as before): a write (`SSTORE`, a value transfer, a
//! creation, a self-destruct — a check that changes state would answer
//! differently the next time), a block field other than the number and the
//! timestamp, a cheatcode that is not a pure function of its arguments, an
//! active prank (the caller is not the configured one), or more reads than
//! [`MAX_READS`].
//!
//! [`Executor::begin_reads`]: super::Executor::begin_reads
//! [`Executor::end_reads`]: super::Executor::end_reads
//! [`Executor::reads_hold`]: super::Executor::reads_hold

use alloy_primitives::{Address, B256, U256};
use revm::interpreter::Interpreter;
use revm::interpreter::interpreter_types::Jumps;

/// Distinct slots, balances and code objects one check may read and stay
/// cacheable (a property that walks a long array is cheaper to run than to
/// compare).
pub const MAX_READS: usize = 128;

const BLOCKHASH: u8 = 0x40;
const COINBASE: u8 = 0x41;
const TIMESTAMP: u8 = 0x42;
const NUMBER: u8 = 0x43;
const PREVRANDAO: u8 = 0x44;
const GASLIMIT: u8 = 0x45;
const CHAINID: u8 = 0x46;
const SELFBALANCE: u8 = 0x47;
const BASEFEE: u8 = 0x48;
const BLOBHASH: u8 = 0x49;
const BLOBBASEFEE: u8 = 0x4a;
const BALANCE: u8 = 0x31;
const EXTCODESIZE: u8 = 0x3b;
const EXTCODECOPY: u8 = 0x3c;
const EXTCODEHASH: u8 = 0x3f;
const SLOAD: u8 = 0x54;
const SSTORE: u8 = 0x55;
const CREATE: u8 = 0xf0;
const CREATE2: u8 = 0xf5;
const SELFDESTRUCT: u8 = 0xff;

/// The reads of the check running now (kept by the inspector).
#[derive(Debug, Default)]
pub(crate) struct ReadLog {
    /// Whether reads are being recorded.
    pub(crate) on: bool,
    slots: Vec<(Address, U256)>,
    balances: Vec<Address>,
    codes: Vec<Address>,
    timestamp: bool,
    number: bool,
    /// Something was read or done that a [`ReadSet`] cannot hold.
    pub(crate) opaque: bool,
}

fn push<T: PartialEq>(v: &mut Vec<T>, x: T) {
    if !v.contains(&x) {
        v.push(x);
    }
}

impl ReadLog {
    pub(crate) fn start(&mut self, opaque: bool) {
        self.on = true;
        self.slots.clear();
        self.balances.clear();
        self.codes.clear();
        self.timestamp = false;
        self.number = false;
        self.opaque = opaque;
    }

    fn full(&self) -> bool {
        self.slots.len() + self.balances.len() + self.codes.len() >= MAX_READS
    }

    /// Notes what the instruction about to run reads (cold: only while a
    /// check runs).
    #[inline(never)]
    pub(crate) fn step(&mut self, interp: &Interpreter) {
        if self.opaque {
            return;
        }
        let op = interp.bytecode.opcode();
        let here = interp.input.target_address;
        let arg = || interp.stack.peek(0).ok();
        let account = |w: U256| Address::from_word(B256::from(w));
        match op {
            SLOAD => {
                if let Some(slot) = arg() {
                    push(&mut self.slots, (here, slot));
                }
            }
            BALANCE => {
                if let Some(w) = arg() {
                    push(&mut self.balances, account(w));
                }
            }
            SELFBALANCE => push(&mut self.balances, here),
            EXTCODESIZE | EXTCODECOPY | EXTCODEHASH => {
                if let Some(w) = arg() {
                    push(&mut self.codes, account(w));
                }
            }
            TIMESTAMP => self.timestamp = true,
            NUMBER | BLOCKHASH => self.number = true,
            COINBASE | PREVRANDAO | GASLIMIT | CHAINID | BASEFEE | BLOBHASH | BLOBBASEFEE
            | SSTORE | CREATE | CREATE2 | SELFDESTRUCT => self.opaque = true,
            _ => {}
        }
        if self.full() {
            self.opaque = true;
        }
    }

    /// A call to `code` (its code is read).
    pub(crate) fn called(&mut self, code: Address) {
        if !self.opaque {
            push(&mut self.codes, code);
            if self.full() {
                self.opaque = true;
            }
        }
    }

    /// Resolves what was read to its values now (right after the check ran);
    /// `None` if the check cannot be cached.
    pub(crate) fn finish(
        &mut self,
        slot: impl Fn(Address, U256) -> U256,
        account: impl Fn(Address) -> (U256, B256),
        (number, timestamp): (u64, u64),
        mocks: u64,
    ) -> Option<ReadSet> {
        self.on = false;
        if self.opaque {
            return None;
        }
        Some(ReadSet {
            slots: self
                .slots
                .iter()
                .map(|&(a, s)| (a, s, slot(a, s)))
                .collect(),
            balances: self.balances.iter().map(|&a| (a, account(a).0)).collect(),
            codes: self.codes.iter().map(|&a| (a, account(a).1)).collect(),
            timestamp: self.timestamp.then_some(timestamp),
            number: self.number.then_some(number),
            mocks,
        })
    }
}

/// What one check read, with the values it read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadSet {
    slots: Vec<(Address, U256, U256)>,
    balances: Vec<(Address, U256)>,
    codes: Vec<(Address, B256)>,
    timestamp: Option<u64>,
    number: Option<u64>,
    /// The mocked calls it ran under ([`Expectations::mocks_hash`]).
    ///
    /// [`Expectations::mocks_hash`]: super::cheatcodes::Expectations::mocks_hash
    mocks: u64,
}

impl ReadSet {
    /// Whether every value read still holds: `slot` and `account` answer
    /// the current state, `block` the current (number, timestamp).
    pub(crate) fn holds(
        &self,
        slot: impl Fn(Address, U256) -> U256,
        account: impl Fn(Address) -> (U256, B256),
        (number, timestamp): (u64, u64),
        mocks: u64,
    ) -> bool {
        self.mocks == mocks
            && self.timestamp.is_none_or(|t| t == timestamp)
            && self.number.is_none_or(|n| n == number)
            && self.slots.iter().all(|&(a, s, v)| slot(a, s) == v)
            && self.balances.iter().all(|&(a, b)| account(a).0 == b)
            && self.codes.iter().all(|&(a, h)| account(a).1 == h)
    }

    /// Values read (slots, balances and code objects).
    pub fn len(&self) -> usize {
        self.slots.len() + self.balances.len() + self.codes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0 && self.timestamp.is_none() && self.number.is_none()
    }
}
