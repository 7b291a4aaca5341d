//! The coverage inspector: records every executed program counter and every
//! `JUMPI` direction of the target's code into the worker's coverage row, and
//! keeps the words of emitted logs for the argument dictionary. With
//! comparison feedback on, it also keeps the operands of the comparison that
//! decided each branch this worker has seen go one way only: what the
//! generator needs to satisfy the guard (input-to-state, as CmpLog/RedQueen).

use super::cheatcodes::{CHEATCODE_ADDRESS, Cheatcodes, Ctx};
use crate::coverage::{CodeId, Recorder};
use alloy_primitives::{Address, B256, Log, U256};
use revm::Inspector;
use revm::interpreter::interpreter_types::Jumps;
use revm::interpreter::{CallInputs, CallOutcome, CreateInputs, CreateOutcome, Interpreter};

/// JUMPI.
const JUMPI: u8 = 0x57;
const LT: u8 = 0x10;
const SGT: u8 = 0x13;
const EQ: u8 = 0x14;
const ISZERO: u8 = 0x15;
/// solc tests `x == CONST` as `SUB` then `JUMPI` (jump when non-zero).
const SUB: u8 = 0x03;

/// Comparisons kept per call at most (distinct branches).
pub const COMPARISONS_PER_CALL: usize = 16;

/// Comparisons kept for a call whose whole path is logged.
pub const COMPARISONS_ON_PATH: usize = 48;

/// What a comparison tested.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpKind {
    /// `EQ`, or `ISZERO` of a value (compared with zero).
    Eq,
    /// `LT`, `GT`, `SLT`, `SGT`: an ordering.
    Order,
}

/// The operands of the comparison that decided a half-covered branch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Comparison {
    pub kind: CmpKind,
    pub a: U256,
    pub b: U256,
    /// The program counter of the branch it decided.
    pub site: u32,
}

/// Inspector that records coverage for known code objects.
pub struct CoverageInspector {
    pub(crate) recorder: Recorder,
    /// Runtime code by address.
    pub(crate) runtime: Vec<(Address, CodeId)>,
    /// The code id the next CREATE frame runs (set for the deployment).
    pub(crate) next_creation: Option<CodeId>,
    /// One entry per open frame: the code id it runs, if known.
    frames: Vec<Option<CodeId>>,
    /// When false, nothing is recorded (property checks).
    pub(crate) enabled: bool,
    /// Words seen in logs (topics and 32-byte data chunks) since last drained.
    pub(crate) log_words: Vec<B256>,
    /// Cheatcode state (pranks, labels); calls to the cheatcode address are
    /// answered here.
    pub(crate) cheats: Cheatcodes,
    /// Contracts created since last drained (bounded), for the dictionary.
    pub(crate) created: Vec<Address>,
    /// Whether comparisons are logged (`comparisonFeedback`).
    pub(crate) cmp_on: bool,
    /// Whether every comparison on the path is logged, not only those of
    /// half-covered branches with operands not seen before (the
    /// input-to-state stage's candidate calls).
    pub(crate) cmp_all: bool,
    /// Branches decided on the path while the whole path is logged (how
    /// far a candidate got).
    pub(crate) path_branches: u32,
    /// The latest comparison of the target's code, waiting for its branch.
    last_cmp: Option<(CmpKind, U256, U256)>,
    /// Comparisons that decided half-covered branches, since last drained.
    pub(crate) cmps: Vec<Comparison>,
    /// The operand pairs each branch's comparison last had (hashes): a pair
    /// seen again teaches nothing, so a branch that stays half covered with
    /// the same operands (a length check, a replayed prefix) is not logged
    /// again, while one whose operands follow the arguments keeps coming.
    site_pairs: std::collections::HashMap<(CodeId, u32), [u64; SITE_MEMORY]>,
}

/// Operand pairs remembered per branch.
const SITE_MEMORY: usize = 4;

fn pair_hash(a: U256, b: U256) -> u64 {
    let (a, b) = (a.as_limbs(), b.as_limbs());
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for x in a.iter().chain(b) {
        h = (h ^ x).wrapping_mul(0x0100_0000_01b3).rotate_left(29);
    }
    h | 1
}

impl CoverageInspector {
    pub fn new(recorder: Recorder, runtime: Vec<(Address, CodeId)>) -> Self {
        CoverageInspector {
            recorder,
            runtime,
            next_creation: None,
            frames: Vec::with_capacity(8),
            enabled: true,
            log_words: Vec::new(),
            cheats: Cheatcodes::default(),
            created: Vec::new(),
            cmp_on: false,
            cmp_all: false,
            path_branches: 0,
            last_cmp: None,
            cmps: Vec::new(),
            site_pairs: Default::default(),
        }
    }

    fn runtime_of(&self, address: Address) -> Option<CodeId> {
        self.runtime
            .iter()
            .find(|(a, _)| *a == address)
            .map(|(_, id)| *id)
    }
}

impl CoverageInspector {
    /// Remembers the operands of a comparison (cold: only with feedback on).
    #[inline(never)]
    fn compared(&mut self, interp: &Interpreter, op: u8) {
        let (Ok(a), b) = (interp.stack.peek(0), interp.stack.peek(1)) else {
            return;
        };
        match op {
            // ISZERO of a boolean is a negation; the comparison that made
            // the boolean stays the one deciding the branch.
            ISZERO if a > U256::ONE => self.last_cmp = Some((CmpKind::Eq, a, U256::ZERO)),
            ISZERO => {}
            EQ | SUB => self.last_cmp = b.ok().map(|b| (CmpKind::Eq, a, b)),
            LT..=SGT => self.last_cmp = b.ok().map(|b| (CmpKind::Order, a, b)),
            _ => {}
        }
    }

    /// A branch at `pc` was decided: keep the comparison behind it if this
    /// worker has seen the branch go one way only (or every one, when the
    /// whole path is logged).
    #[inline(never)]
    fn branch_decided(&mut self, code: CodeId, pc: usize, cond: U256) {
        self.path_branches += self.cmp_all as u32;
        let Some((kind, a, b)) = self.last_cmp.take() else {
            return;
        };
        // An equality that held carries nothing to try; a difference is the
        // branch's condition only if it is what the JUMPI tests.
        if kind == CmpKind::Eq && (a == b || (cond > U256::ONE && cond != a.wrapping_sub(b))) {
            return;
        }
        // With the whole path logged, every branch's comparison is kept;
        // otherwise only a half-covered branch's, with operands it has not
        // had lately.
        let cap = if self.cmp_all {
            COMPARISONS_ON_PATH
        } else {
            COMPARISONS_PER_CALL
        };
        let site = pc as u32;
        if self.cmps.len() >= cap
            || self.cmps.iter().any(|c| c.site == site)
            || (!self.cmp_all
                && (self.recorder.both_ways(code, pc) || !self.fresh_pair(code, site, a, b)))
        {
            return;
        }
        self.cmps.push(Comparison { kind, a, b, site });
    }

    /// Whether branch `site` of `code` had not had operands `a`, `b`
    /// lately (and remembers them).
    fn fresh_pair(&mut self, code: CodeId, site: u32, a: U256, b: U256) -> bool {
        let h = pair_hash(a, b);
        let seen = self.site_pairs.entry((code, site)).or_default();
        let fresh = !seen.contains(&h);
        if fresh {
            seen.rotate_right(1);
            seen[0] = h;
        }
        fresh
    }
}

impl Inspector<Ctx> for CoverageInspector {
    // Runs once per opcode: it must be inlined into revm's interpreter loop.
    #[inline(always)]
    fn step(&mut self, interp: &mut Interpreter, _context: &mut Ctx) {
        if !self.enabled {
            return;
        }
        let Some(Some(code)) = self.frames.last().copied() else {
            return;
        };
        let pc = interp.bytecode.pc();
        self.recorder.hit(code, pc);
        let op = interp.bytecode.opcode();
        if op == JUMPI
            && let Ok(cond) = interp.stack.peek(1)
        {
            self.recorder.branch(code, pc, !cond.is_zero());
            if self.cmp_on {
                self.branch_decided(code, pc, cond);
            }
        } else if self.cmp_on && ((LT..=ISZERO).contains(&op) || op == SUB) {
            self.compared(interp, op);
        }
    }

    fn log(&mut self, _context: &mut Ctx, log: Log) {
        if self.log_words.len() < 64 {
            self.log_words.extend(log.data.topics().iter().copied());
            for chunk in log.data.data.chunks(32) {
                if chunk.len() == 32 {
                    self.log_words.push(B256::from_slice(chunk));
                }
            }
        }
    }

    fn call(&mut self, context: &mut Ctx, inputs: &mut CallInputs) -> Option<CallOutcome> {
        if inputs.bytecode_address == CHEATCODE_ADDRESS {
            // call_end runs for this answer too: keep the frames balanced.
            self.frames.push(None);
            return Some(self.cheats.call(context, inputs));
        }
        self.cheats.apply_prank(context, inputs);
        let code = self.runtime_of(inputs.bytecode_address);
        self.frames.push(code);
        None
    }

    fn call_end(&mut self, _context: &mut Ctx, _inputs: &CallInputs, _outcome: &mut CallOutcome) {
        self.frames.pop();
    }

    fn create(&mut self, _context: &mut Ctx, _inputs: &mut CreateInputs) -> Option<CreateOutcome> {
        let code = self.next_creation.take();
        self.frames.push(code);
        None
    }

    fn create_end(
        &mut self,
        _context: &mut Ctx,
        _inputs: &CreateInputs,
        outcome: &mut CreateOutcome,
    ) {
        self.frames.pop();
        if let Some(a) = outcome.address
            && outcome.result.is_ok()
            && self.created.len() < 16
        {
            self.created.push(a);
        }
    }
}
