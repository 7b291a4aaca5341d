//! Path conditions over a call's arguments: while a call runs traced, a
//! shadow of the outermost frame's stack (and of its memory words) holds,
//! for each value computed from the calldata, the term that computed it
//! (`ADD(word 2, MUL(13, word 1))`), and every `JUMPI` whose condition is
//! such a term is kept with the direction it went. A solver can then look
//! for arguments that keep a path's branches as they went and turn one of
//! them the other way (see `campaign::generate::solve`), which
//! input-to-state alone cannot when several comparisons of wrapped sums and
//! products must hold together.
//!
//! Only the frame the call enters is followed: values that cross into
//! another frame, storage, or an opcode not modelled here (`KECCAK256`,
//! `ADDMOD`) become plain values, so a condition built on them is not kept.
//! The terms are exact EVM arithmetic; a solution is still run for real
//! before it counts.

use crate::coverage::CodeId;
use alloy_primitives::{I256, U256};
use revm::interpreter::Interpreter;
use revm::interpreter::interpreter_types::Jumps;

/// Terms one traced call may build at most (beyond them, values are plain).
pub const MAX_TERMS: usize = 4096;

/// Branches on terms kept per traced call at most.
pub const MAX_BRANCHES: usize = 256;

/// Memory words whose terms are remembered at most.
const MAX_MEMORY: usize = 64;

/// Index of a term in its trace.
pub type TermId = u32;

pub const ADD: u8 = 0x01;
pub const MUL: u8 = 0x02;
pub const SUB: u8 = 0x03;
pub const DIV: u8 = 0x04;
pub const SDIV: u8 = 0x05;
pub const MOD: u8 = 0x06;
pub const SMOD: u8 = 0x07;
pub const EXP: u8 = 0x0a;
pub const SIGNEXTEND: u8 = 0x0b;
pub const LT: u8 = 0x10;
pub const GT: u8 = 0x11;
pub const SLT: u8 = 0x12;
pub const SGT: u8 = 0x13;
pub const EQ: u8 = 0x14;
pub const ISZERO: u8 = 0x15;
pub const AND: u8 = 0x16;
pub const OR: u8 = 0x17;
pub const XOR: u8 = 0x18;
pub const NOT: u8 = 0x19;
pub const BYTE: u8 = 0x1a;
pub const SHL: u8 = 0x1b;
pub const SHR: u8 = 0x1c;
pub const SAR: u8 = 0x1d;
const CALLDATALOAD: u8 = 0x35;
const MLOAD: u8 = 0x51;
const MSTORE: u8 = 0x52;
const JUMPI: u8 = 0x57;

/// A value computed from the calldata.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Term {
    /// The calldata word at byte `4 + 32 * k` (the `k`-th head word).
    Word(u16),
    /// A plain value an operation met.
    Const(U256),
    /// `op(a, b)`, `a` the top of the stack (`SUB`: `a - b`; `LT`: `a < b`;
    /// `SHL`: `b << a`).
    Bin(u8, TermId, TermId),
    /// `ISZERO` or `NOT`.
    Un(u8, TermId),
}

/// A branch decided on a term: its condition, the way it went, and where.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SymBranch {
    pub cond: TermId,
    /// Whether the jump was taken (the condition nonzero).
    pub taken: bool,
    pub code: CodeId,
    pub pc: u32,
    /// Whether this worker had seen the branch go one way only when the
    /// traced call ran (the other way is something to reach).
    pub half: bool,
}

/// The terms and branches of one traced call.
#[derive(Clone, Debug, Default)]
pub struct SymTrace {
    pub terms: Vec<Term>,
    pub branches: Vec<SymBranch>,
}

/// The tracker the inspector runs while a call is traced.
#[derive(Debug, Default)]
pub(crate) struct Tracker {
    pub(crate) on: bool,
    pub(crate) trace: SymTrace,
    /// The term of each stack slot of the outermost frame, bottom first.
    stack: Vec<Option<TermId>>,
    /// Terms stored at word-aligned memory offsets.
    memory: Vec<(U256, TermId)>,
}

impl Tracker {
    /// Starts tracing a call.
    pub(crate) fn begin(&mut self) {
        self.on = true;
        self.trace.terms.clear();
        self.trace.branches.clear();
        self.stack.clear();
        self.memory.clear();
    }

    /// Stops tracing and hands the trace over.
    pub(crate) fn end(&mut self) -> SymTrace {
        self.on = false;
        self.stack.clear();
        self.memory.clear();
        std::mem::take(&mut self.trace)
    }

    fn term(&mut self, t: Term) -> Option<TermId> {
        if self.trace.terms.len() >= MAX_TERMS {
            return None;
        }
        self.trace.terms.push(t);
        Some((self.trace.terms.len() - 1) as TermId)
    }

    /// The term of the stack slot `n` from the top, or the value there as a
    /// constant.
    fn operand(&mut self, interp: &Interpreter, n: usize) -> Option<TermId> {
        let len = self.stack.len();
        match self.stack[len - 1 - n] {
            Some(t) => Some(t),
            None => {
                let v = interp.stack.peek(n).ok()?;
                self.term(Term::Const(v))
            }
        }
    }

    fn pop(&mut self, n: usize) {
        let len = self.stack.len();
        self.stack.truncate(len - n.min(len));
    }

    /// Follows the opcode about to run in the outermost frame (`code`, if
    /// the inspector knows it; `half`: whether a branch at this pc has gone
    /// one way only).
    #[inline(never)]
    pub(crate) fn step(
        &mut self,
        interp: &Interpreter,
        code: Option<CodeId>,
        half: impl Fn(CodeId, usize) -> bool,
    ) {
        // The shadow follows the real stack's height: an opcode modelled
        // wrongly (or one that failed) costs terms, never a misplaced one.
        let height = interp.stack.len();
        if self.stack.len() != height {
            self.stack.resize(height, None);
        }
        let op = interp.bytecode.opcode();
        let len = self.stack.len();
        let symbolic = |i: usize| len > i && self.stack[len - 1 - i].is_some();
        match op {
            0x80..=0x8f => {
                let n = (op - 0x7f) as usize;
                if len >= n {
                    self.stack.push(self.stack[len - n]);
                }
            }
            0x90..=0x9f => {
                let n = (op - 0x8f) as usize;
                if len > n {
                    self.stack.swap(len - 1, len - 1 - n);
                }
            }
            CALLDATALOAD if len >= 1 => {
                let word = match (self.stack[len - 1], interp.stack.peek(0)) {
                    (None, Ok(off)) if off >= U256::from(4) && off < U256::from(4 + 32 * 1024) => {
                        let off = off.to::<usize>() - 4;
                        (off % 32 == 0).then_some((off / 32) as u16)
                    }
                    _ => None,
                };
                self.pop(1);
                let t = word.and_then(|w| self.term(Term::Word(w)));
                self.stack.push(t);
            }
            ISZERO | NOT if len >= 1 => {
                let t = match self.stack[len - 1] {
                    Some(a) => self.term(Term::Un(op, a)),
                    None => None,
                };
                self.pop(1);
                self.stack.push(t);
            }
            ADD..=SMOD | EXP | SIGNEXTEND | LT..=EQ | AND..=XOR | BYTE..=SAR if len >= 2 => {
                let t = if symbolic(0) || symbolic(1) {
                    match (self.operand(interp, 0), self.operand(interp, 1)) {
                        (Some(a), Some(b)) => self.term(Term::Bin(op, a, b)),
                        _ => None,
                    }
                } else {
                    None
                };
                self.pop(2);
                self.stack.push(t);
            }
            MLOAD if len >= 1 => {
                let t = match (self.stack[len - 1], interp.stack.peek(0)) {
                    (None, Ok(off)) => self.memory.iter().find(|m| m.0 == off).map(|m| m.1),
                    _ => None,
                };
                self.pop(1);
                self.stack.push(t);
            }
            MSTORE if len >= 2 => {
                if let Ok(off) = interp.stack.peek(0) {
                    // Words overlapping this one lose their terms.
                    self.memory.retain(|m| m.0.abs_diff(off) >= U256::from(32));
                    if let (None, Some(t)) = (self.stack[len - 1], self.stack[len - 2])
                        && self.memory.len() < MAX_MEMORY
                    {
                        self.memory.push((off, t));
                    }
                }
                self.pop(2);
            }
            JUMPI if len >= 2 => {
                if let (Some(cond), Some(code), Ok(value)) =
                    (self.stack[len - 2], code, interp.stack.peek(1))
                    && self.trace.branches.len() < MAX_BRANCHES
                {
                    let pc = interp.bytecode.pc();
                    self.trace.branches.push(SymBranch {
                        cond,
                        taken: !value.is_zero(),
                        code,
                        pc: pc as u32,
                        half: half(code, pc),
                    });
                }
                self.pop(2);
            }
            _ => {
                if let Some(info) = revm::bytecode::opcode::OpCode::new(op) {
                    self.pop(info.inputs() as usize);
                    let outputs = info.outputs() as usize;
                    self.stack.extend(std::iter::repeat_n(None, outputs));
                }
                // Opcodes that write memory other than by `MSTORE` (copies,
                // `MSTORE8`, calls' return data) forget what it held.
                if matches!(
                    op,
                    0x37 | 0x39 | 0x3c | 0x3e | 0x53 | 0x5e | 0xf1 | 0xf2 | 0xf4 | 0xfa
                ) {
                    self.memory.clear();
                }
            }
        }
    }
}

/// `op(a, b)` as the EVM computes it.
pub fn apply(op: u8, a: U256, b: U256) -> U256 {
    let bool_word = |x: bool| if x { U256::ONE } else { U256::ZERO };
    let signed = |x: U256| x ^ (U256::ONE << 255);
    match op {
        ADD => a.wrapping_add(b),
        MUL => a.wrapping_mul(b),
        SUB => a.wrapping_sub(b),
        DIV => a.checked_div(b).unwrap_or_default(),
        SDIV if b.is_zero() => U256::ZERO,
        SDIV => I256::from_raw(a).wrapping_div(I256::from_raw(b)).into_raw(),
        MOD => a.checked_rem(b).unwrap_or_default(),
        SMOD if b.is_zero() => U256::ZERO,
        SMOD => I256::from_raw(a).wrapping_rem(I256::from_raw(b)).into_raw(),
        EXP => a.wrapping_pow(b),
        SIGNEXTEND => sign_extend(a, b),
        LT => bool_word(a < b),
        GT => bool_word(a > b),
        SLT => bool_word(signed(a) < signed(b)),
        SGT => bool_word(signed(a) > signed(b)),
        EQ => bool_word(a == b),
        AND => a & b,
        OR => a | b,
        XOR => a ^ b,
        BYTE if a < U256::from(32) => (b >> (8 * (31 - a.to::<usize>()))) & U256::from(0xff),
        BYTE => U256::ZERO,
        SHL if a < U256::from(256) => b << a.to::<usize>(),
        SHR if a < U256::from(256) => b >> a.to::<usize>(),
        SHL | SHR => U256::ZERO,
        SAR => {
            let shift = if a < U256::from(256) {
                a.to::<usize>()
            } else {
                255
            };
            I256::from_raw(b).asr(shift).into_raw()
        }
        _ => U256::ZERO,
    }
}

/// `SIGNEXTEND(k, x)`: `x` sign-extended from its byte `k` (0: lowest).
pub fn sign_extend(k: U256, x: U256) -> U256 {
    if k >= U256::from(31) {
        return x;
    }
    let bit = k.to::<usize>() * 8 + 7;
    let mask = (U256::ONE << (bit + 1)) - U256::ONE;
    if x.bit(bit) { x | !mask } else { x & mask }
}

impl SymTrace {
    /// The values of terms `0..=upto` for calldata head words `words`
    /// (a word not given is zero), into `vals`.
    pub fn eval(&self, words: &[U256], upto: TermId, vals: &mut Vec<U256>) {
        vals.clear();
        self.eval_more(words, upto, vals);
    }

    /// The values of terms `vals.len()..=upto` for `words`, after those
    /// already in `vals` (which must be these words' values); returns how
    /// many terms were evaluated.
    pub fn eval_more(&self, words: &[U256], upto: TermId, vals: &mut Vec<U256>) -> u64 {
        let from = vals.len();
        if from > upto as usize {
            return 0;
        }
        for t in &self.terms[from..=upto as usize] {
            let v = match *t {
                Term::Word(k) => words.get(k as usize).copied().unwrap_or_default(),
                Term::Const(v) => v,
                Term::Bin(op, a, b) => apply(op, vals[a as usize], vals[b as usize]),
                Term::Un(ISZERO, a) => U256::from(vals[a as usize].is_zero() as u8),
                Term::Un(_, a) => !vals[a as usize],
            };
            vals.push(v);
        }
        (upto as usize + 1 - from) as u64
    }

    /// For each head word below 64, the first term that reads it (the
    /// number of terms if none does): a change of the word leaves the
    /// values of the terms before it as they were.
    pub fn first_reads(&self) -> [TermId; 64] {
        let mut first = [self.terms.len() as TermId; 64];
        for (i, t) in self.terms.iter().enumerate().rev() {
            if let Term::Word(k) = *t
                && k < 64
            {
                first[k as usize] = i as TermId;
            }
        }
        first
    }

    /// For every term, the head words (0..64) it depends on.
    pub fn dependencies(&self) -> Vec<u64> {
        let mut deps: Vec<u64> = Vec::with_capacity(self.terms.len());
        for t in &self.terms {
            let d = match *t {
                Term::Word(k) if k < 64 => 1u64 << k,
                Term::Word(_) | Term::Const(_) => 0,
                Term::Bin(_, a, b) => deps[a as usize] | deps[b as usize],
                Term::Un(_, a) => deps[a as usize],
            };
            deps.push(d);
        }
        deps
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_compute_what_the_evm_computes() {
        let u = U256::from;
        let minus = |x: u64| U256::ZERO.wrapping_sub(u(x));
        assert_eq!(apply(SUB, u(3), u(5)), minus(2));
        assert_eq!(apply(LT, u(3), u(5)), U256::ONE);
        assert_eq!(apply(SLT, minus(1), u(0)), U256::ONE);
        assert_eq!(apply(SGT, minus(1), u(0)), U256::ZERO);
        assert_eq!(apply(SDIV, minus(7), u(2)), minus(3));
        assert_eq!(apply(SMOD, minus(7), u(2)), minus(1));
        assert_eq!(apply(DIV, u(7), U256::ZERO), U256::ZERO);
        assert_eq!(apply(SHL, u(8), u(1)), u(256));
        assert_eq!(apply(SHR, u(300), U256::MAX), U256::ZERO);
        assert_eq!(apply(SAR, u(4), minus(32)), minus(2));
        assert_eq!(apply(BYTE, u(31), u(0x1234)), u(0x34));
        assert_eq!(apply(SIGNEXTEND, u(0), u(0xff)), U256::MAX);
        assert_eq!(apply(SIGNEXTEND, u(0), u(0x17f)), u(0x7f));
        assert_eq!(apply(EXP, u(2), u(256)), U256::ZERO);
    }
}
