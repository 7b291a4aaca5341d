//! The coverage inspector: records every executed program counter and every
//! `JUMPI` direction of the target's code into the worker's coverage row, and
//! keeps the words of emitted logs for the argument dictionary. With
//! comparison feedback on, it also keeps the operands of the comparison that
//! decided each branch this worker has seen go one way only: what the
//! generator needs to satisfy the guard (input-to-state, as CmpLog/RedQueen).

use super::cheatcodes::{CHEATCODE_ADDRESS, Cheatcodes, Ctx};
use super::reads::ReadLog;
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
const SLOAD: u8 = 0x54;
const SSTORE: u8 = 0x55;
const REVERT: u8 = 0xfd;

/// Storage reads of the target's code remembered per call at most (until a
/// half-covered branch marks them as guards).
const LOADS_PER_CALL: usize = 16;

/// Guard slots remembered at most (per worker).
const GUARD_SLOTS: usize = 1024;

/// Storage writes of the target's code kept per call at most.
pub const WRITES_PER_CALL: usize = 32;

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

/// Where a reverted call failed: the `REVERT` of the target's code that
/// started it (not a caller forwarding it) and the last branch decided
/// before it, the guard whose failure led there (`require`, `if (..)
/// revert`, a checked operation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RevertSite {
    pub code: CodeId,
    pub pc: u32,
    /// The last `JUMPI` of the target's code before the revert, if any.
    pub guard: Option<(CodeId, u32)>,
}

/// Bytes of a revert's data kept with its site (a selector and a few words:
/// enough for a message or a custom error's arguments).
pub const REVERT_DATA_KEPT: usize = 260;

/// Logs a transaction keeps for its failure's message (the last ones).
pub(crate) const MESSAGES_KEPT: usize = 16;

/// Inspector that records coverage for known code objects.
pub struct CoverageInspector {
    pub(crate) recorder: Recorder,
    /// Runtime code by address.
    pub(crate) runtime: Vec<(Address, CodeId)>,
    /// The code id the next CREATE frame runs (set for the deployment).
    pub(crate) next_creation: Option<CodeId>,
    /// The address the next creation takes (a deployment at its final
    /// address, as Echidna's: the constructor's `address(this)` is where
    /// the contract stays).
    pub(crate) next_create_at: Option<Address>,
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
    /// Whether `last_cmp` is a `SUB` (its branch tests the difference).
    last_sub: bool,
    /// Comparisons that decided half-covered branches, since last drained.
    pub(crate) cmps: Vec<Comparison>,
    /// Whether storage writes are kept (`stateFeedback`).
    pub(crate) writes_on: bool,
    /// Whether the call may have changed state beyond what reverts undo:
    /// a storage write, a value transfer, a creation, a self-destruct, a
    /// cheatcode, or a frame of code the inspector does not follow (set
    /// while `writes_on`; see [`Executor::last_call_inert`]).
    ///
    /// [`Executor::last_call_inert`]: super::Executor::last_call_inert
    pub(crate) wrote: bool,
    /// The target's storage writes (code, slot, value) since last drained,
    /// at most [`WRITES_PER_CALL`], of guard slots: (code, slot, the state
    /// written: see [`GuardField::state`]).
    pub(crate) writes: Vec<(CodeId, U256, u64)>,
    /// Slots read in this call and not yet known as guards (code, the
    /// account the frame runs as, slot).
    pub(crate) loads: Vec<(CodeId, Address, U256)>,
    /// Guard slots and their guard fields: a slot whose value, or a field
    /// packed in it, an equality deciding a branch this worker has seen go
    /// one way only compared with a value, in the call that read it (`x ==
    /// 3`, `phase == Phase.Open`), with the values each field was compared
    /// with. A write to a guard slot is a state: which compared value each
    /// field now holds (a balance that an overflow check or `require(balance
    /// >= amount)` reads is an ordering, not a state; an allowance compared
    /// with `type(uint256).max` has two states).
    guards: std::collections::HashMap<(CodeId, U256), Vec<GuardField>>,
    /// The operand pairs each branch's comparison last had (hashes): a pair
    /// seen again teaches nothing, so a branch that stays half covered with
    /// the same operands (a length check, a replayed prefix) is not logged
    /// again, while one whose operands follow the arguments keeps coming.
    site_pairs: std::collections::HashMap<(CodeId, u32), [u64; SITE_MEMORY]>,
    /// What the check running now reads (see [`super::reads`]).
    pub(crate) reads: ReadLog,
    /// `topic0` of the `AssertionFailed(..)` events watched (empty: none).
    pub(crate) assertion_topics: Vec<B256>,
    /// Whether one of them was emitted since the transaction began, in any
    /// frame (one that reverted afterwards included).
    pub(crate) asserted: bool,
    /// Whether every log is kept in [`messages`](Self::messages), from
    /// frames that reverted too (a failure explained in its author's words:
    /// see [`super::errors::ErrorBook::explain`]).
    pub(crate) messages_on: bool,
    /// The last logs of the running transaction (at most
    /// [`MESSAGES_KEPT`]), with `messages_on`.
    pub(crate) messages: Vec<Log>,
    /// Whether each opcode is looked at for more than coverage: a check's
    /// reads, storage accesses after `vm.record()`, or a traced call's
    /// terms (one test per opcode for all; see [`rewatch`](Self::rewatch)).
    watching: bool,
    /// Whether the running transaction called a cheatcode (its effects on
    /// the block and the cheatcode state outlive a revert).
    pub(crate) cheated: bool,
    /// The path-condition tracker (on for a traced call only).
    pub(crate) sym: super::symbolic::Tracker,
    /// The last `JUMPI` of the target's code in the running transaction.
    last_jumpi: Option<(CodeId, u32)>,
    /// The operands of the comparison that decided it (with comparison
    /// feedback on): a guard that failed, and by how much.
    last_jumpi_cmp: Option<(CmpKind, U256, U256)>,
    /// The operands of the guard behind the running transaction's revert
    /// (see [`revert_site`](Self::revert_site)), when known.
    revert_cmp: Option<(CmpKind, U256, U256)>,
    /// Where the running transaction's revert started, the depth of the
    /// frame that reverted (see [`RevertSite`]) and
    /// what it reverted with (at most [`REVERT_DATA_KEPT`] bytes).
    pub(crate) revert_site: Option<(RevertSite, usize, alloy_primitives::Bytes)>,
}

/// Operand pairs remembered per branch.
const SITE_MEMORY: usize = 4;

/// Where storage word `word` holds `v` (nonzero), whole or as a
/// byte-aligned field at least `min_bits` wide: the mask of the lowest
/// such field of `v`'s own byte length (or `min_bits`) that equals it
/// (solc packs small variables into one slot).
fn holds(word: U256, v: U256, min_bits: usize) -> Option<U256> {
    if v.is_zero() {
        return None;
    }
    let width = v.bit_len().max(min_bits).div_ceil(8).min(32);
    // Bytes, little-endian: field k is bytes k..k + width of the word (one
    // slice comparison per offset, not a 256-bit shift and mask: this runs
    // for every slot a guard's call read, on every such guard).
    let (w, x) = (word.to_le_bytes::<32>(), v.to_le_bytes::<32>());
    let field = &x[..width];
    // The first byte rejects most offsets without a slice comparison.
    let k = (0..=32 - width).find(|&k| w[k] == field[0] && w[k..k + width] == *field)?;
    let mask = if width == 32 {
        U256::MAX
    } else {
        (U256::ONE << (width * 8)) - U256::ONE
    };
    Some(mask << (k * 8))
}

/// Fields per guard slot at most, and values compared per field.
const GUARD_FIELDS: usize = 8;
const FIELD_VALUES: usize = 32;

/// A field of a guard slot (a byte-aligned mask) and the values equalities
/// compared it with.
#[derive(Clone, Debug)]
pub(crate) struct GuardField {
    mask: U256,
    shift: usize,
    values: Vec<U256>,
}

impl GuardField {
    /// The state of guard fields `fields` in storage word `word`: which
    /// compared value each holds (or none), hashed.
    pub(crate) fn state(fields: &[GuardField], word: U256) -> u64 {
        let mut h = 0x9e37_79b9_7f4a_7c15u64;
        for f in fields {
            let v = (word & f.mask) >> f.shift;
            let hit = f.values.iter().position(|c| *c == v).map_or(0, |i| i + 1);
            h = (h ^ hit as u64)
                .wrapping_mul(0x0100_0000_01b3)
                .rotate_left(17);
        }
        h
    }

    /// Notes that the field `mask` of a guard slot was compared with `value`.
    fn note(fields: &mut Vec<GuardField>, mask: U256, value: U256) {
        let shift = mask.trailing_zeros();
        let i = match fields.iter().position(|f| f.mask == mask) {
            Some(i) => i,
            None if fields.len() < GUARD_FIELDS => {
                fields.push(GuardField {
                    mask,
                    shift,
                    values: Vec::new(),
                });
                fields.len() - 1
            }
            None => return,
        };
        let values = &mut fields[i].values;
        if values.len() < FIELD_VALUES && !values.contains(&value) {
            values.push(value);
        }
    }
}

/// The precompiles' addresses (0x01 to 0x11 on the forks revm runs, with
/// room): they change no state.
fn is_precompile(a: Address) -> bool {
    a[..18].iter().all(|b| *b == 0) && u16::from_be_bytes([a[18], a[19]]) <= 0x100
}

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
            next_create_at: None,
            frames: Vec::with_capacity(8),
            enabled: true,
            log_words: Vec::new(),
            cheats: Cheatcodes::default(),
            created: Vec::new(),
            cmp_on: false,
            cmp_all: false,
            path_branches: 0,
            last_cmp: None,
            last_sub: false,
            cmps: Vec::new(),
            writes_on: false,
            wrote: false,
            writes: Vec::new(),
            loads: Vec::new(),
            guards: Default::default(),
            site_pairs: Default::default(),
            reads: ReadLog::default(),
            assertion_topics: Vec::new(),
            asserted: false,
            messages_on: false,
            messages: Vec::new(),
            watching: false,
            cheated: false,
            sym: Default::default(),
            last_jumpi: None,
            last_jumpi_cmp: None,
            revert_cmp: None,
            revert_site: None,
        }
    }

    /// By how much the guard behind the running transaction's revert missed
    /// (with comparison feedback on): the distance between the operands of
    /// the comparison that decided it (a clock against a deadline, a
    /// balance against an amount).
    pub(crate) fn revert_shortfall(&self) -> Option<U256> {
        let (_, a, b) = self.revert_cmp?;
        let d = if a > b { a - b } else { b - a };
        (!d.is_zero()).then_some(d)
    }

    /// Starts a transaction's revert bookkeeping afresh.
    pub(crate) fn new_transaction(&mut self) {
        self.last_jumpi = None;
        self.last_jumpi_cmp = None;
        self.revert_site = None;
        self.revert_cmp = None;
    }

    /// Sets [`watching`](Self::watching) from what it stands for: called
    /// whenever a check's read log or the cheatcode state changes.
    pub(crate) fn rewatch(&mut self) {
        self.watching = self.reads.on || self.cheats.expect.accesses.is_some() || self.sym.on;
    }

    fn runtime_of(&self, address: Address) -> Option<CodeId> {
        self.runtime
            .iter()
            .find(|(a, _)| *a == address)
            .map(|(_, id)| *id)
    }
}

impl CoverageInspector {
    /// Notes where a revert starts. A frame that reverts after a deeper
    /// frame of the same transaction did forwards or wraps that failure
    /// (solc's bubbling, a proxy's `require(ok, ..)`), and the deeper site
    /// stands: the guard that failed first is the one to satisfy. Cold:
    /// once per reverting frame.
    #[inline(never)]
    fn reverting(&mut self, code: CodeId, pc: u32, interp: &Interpreter) {
        use revm::interpreter::interpreter_types::MemoryTr;
        let depth = self.frames.len();
        if self
            .revert_site
            .as_ref()
            .is_some_and(|(_, d, _)| *d > depth)
        {
            return;
        }
        let data = match (interp.stack.peek(0), interp.stack.peek(1)) {
            (Ok(offset), Ok(len)) => {
                let (offset, len) = (
                    offset.saturating_to::<usize>(),
                    len.saturating_to::<usize>(),
                );
                let len = len.min(REVERT_DATA_KEPT);
                match offset.checked_add(len) {
                    Some(end) if end <= interp.memory.size() => {
                        alloy_primitives::Bytes::copy_from_slice(
                            &interp.memory.slice_len(offset, len),
                        )
                    }
                    _ => alloy_primitives::Bytes::new(),
                }
            }
            _ => alloy_primitives::Bytes::new(),
        };
        self.revert_site = Some((
            RevertSite {
                code,
                pc,
                guard: self.last_jumpi,
            },
            depth,
            data,
        ));
        self.revert_cmp = self.last_jumpi_cmp;
    }

    /// Remembers the operands of a comparison (cold: only with feedback on).
    #[inline(never)]
    fn compared(&mut self, interp: &Interpreter, op: u8) {
        let (Ok(a), b) = (interp.stack.peek(0), interp.stack.peek(1)) else {
            return;
        };
        match op {
            // ISZERO of a boolean is a negation; the comparison that made
            // the boolean stays the one deciding the branch.
            ISZERO if a > U256::ONE => {
                self.last_cmp = Some((CmpKind::Eq, a, U256::ZERO));
                self.last_sub = false;
            }
            ISZERO => {}
            EQ | SUB => {
                self.last_cmp = b.ok().map(|b| (CmpKind::Eq, a, b));
                self.last_sub = op == SUB;
            }
            LT..=SGT => self.last_cmp = b.ok().map(|b| (CmpKind::Order, a, b)),
            _ => {}
        }
    }

    /// A branch at `pc` was decided on `cond` while slots read in this
    /// call wait: if an equality decided it (its result, or the difference
    /// solc tests for `x == C`: an earlier comparison the branch does not
    /// test, such as the `SUB` of an ABI encoder's lengths, is not one) and
    /// it is still half covered, the slots it compared are guards.
    #[inline(never)]
    fn guard_decided(&mut self, code: CodeId, pc: usize, cond: U256, ctx: &Ctx) {
        if let Some((CmpKind::Eq, a, b)) = self.last_cmp
            && (if self.last_sub {
                cond == a.wrapping_sub(b)
            } else {
                cond <= U256::ONE
            })
            && !self.recorder.both_ways(code, pc)
        {
            self.guarded(ctx, a, b);
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

    /// Keeps a write of the target's code to a guard slot, or a read of a
    /// slot not yet known as one (cold: only with state feedback on).
    #[inline(never)]
    fn storage(&mut self, code: CodeId, interp: &Interpreter, op: u8) {
        let Ok(slot) = interp.stack.peek(0) else {
            return;
        };
        if op == SSTORE {
            self.wrote = true;
            if self.writes.len() < WRITES_PER_CALL
                && let Some(fields) = self.guards.get(&(code, slot))
                && let Ok(value) = interp.stack.peek(1)
            {
                self.writes
                    .push((code, slot, GuardField::state(fields, value)));
            }
        } else if self.loads.len() < LOADS_PER_CALL
            && self.guards.len() < GUARD_SLOTS
            && !self.loads.iter().any(|l| l.0 == code && l.2 == slot)
        {
            let account = interp.input.target_address;
            self.loads.push((code, account, slot));
        }
    }

    /// An equality of `a` and `b` decided a branch still half covered: the
    /// slots read in this call whose current value holds either (a nonzero
    /// operand, whole or as a byte-aligned field) are guards from now on,
    /// that field one of their guard fields.
    #[cold]
    fn guarded(&mut self, ctx: &Ctx, a: U256, b: U256) {
        let state = &ctx.journaled_state.state;
        let mut i = 0;
        while i < self.loads.len() {
            let (code, account, slot) = self.loads[i];
            let word = state
                .get(&account)
                .and_then(|acc| acc.storage.get(&slot))
                .map(|s| s.present_value);
            // The field is as wide as the value it holds or the value it
            // was compared with, whichever is wider.
            let found = word.and_then(|w| {
                let (ab, bb) = (a.bit_len(), b.bit_len());
                holds(w, a, bb)
                    .map(|m| (m, b))
                    .or_else(|| holds(w, b, ab).map(|m| (m, a)))
            });
            if let Some((mask, compared)) = found {
                GuardField::note(self.guards.entry((code, slot)).or_default(), mask, compared);
                self.loads.swap_remove(i);
            } else {
                i += 1;
            }
        }
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

impl CoverageInspector {
    /// Notes a storage read or write for `vm.accesses` (after `vm.record()`;
    /// a write counts as a read too, as in forge).
    #[cold]
    fn record_access(&mut self, interp: &Interpreter) {
        let op = interp.bytecode.opcode();
        if op != SLOAD && op != SSTORE {
            return;
        }
        let Ok(slot) = interp.stack.peek(0) else {
            return;
        };
        let Some(accesses) = self.cheats.expect.accesses.as_deref_mut() else {
            return;
        };
        let (reads, writes) = accesses.entry(interp.input.target_address).or_default();
        let slot = B256::from(slot.to_be_bytes::<32>());
        if reads.len() < super::cheatcodes::ACCESSES_PER_ACCOUNT {
            reads.push(slot);
        }
        if op == SSTORE && writes.len() < super::cheatcodes::ACCESSES_PER_ACCOUNT {
            writes.push(slot);
        }
    }
}

impl Inspector<Ctx> for CoverageInspector {
    // Runs once per opcode: it must be inlined into revm's interpreter loop.
    #[inline(always)]
    fn step(&mut self, interp: &mut Interpreter, _context: &mut Ctx) {
        if self.watching {
            if self.reads.on {
                self.reads.step(interp);
            }
            if self.cheats.expect.accesses.is_some() {
                self.record_access(interp);
            }
            if self.sym.on && self.frames.len() == 1 {
                let recorder = &self.recorder;
                self.sym
                    .step(interp, self.frames[0], |c, pc| !recorder.both_ways(c, pc));
            }
        }
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
            self.last_jumpi = Some((code, pc as u32));
            self.recorder.branch(code, pc, !cond.is_zero());
            if !self.loads.is_empty() {
                self.guard_decided(code, pc, cond, _context);
            }
            if self.cmp_on {
                self.last_jumpi_cmp = self.last_cmp;
                self.branch_decided(code, pc, cond);
            } else {
                self.last_cmp = None;
            }
        } else if (self.cmp_on || self.writes_on) && ((LT..=ISZERO).contains(&op) || op == SUB) {
            self.compared(interp, op);
        } else if self.writes_on && (op == SSTORE || op == SLOAD) {
            self.storage(code, interp, op);
        } else if op == REVERT {
            self.reverting(code, pc as u32, interp);
        }
    }

    fn log(&mut self, _context: &mut Ctx, log: Log) {
        self.cheats.expect.on_log(&log);
        if self.messages_on {
            if self.messages.len() == MESSAGES_KEPT {
                self.messages.remove(0);
            }
            self.messages.push(log.clone());
        }
        if !self.assertion_topics.is_empty()
            && log
                .topics()
                .first()
                .is_some_and(|t| self.assertion_topics.contains(t))
        {
            self.asserted = true;
        }
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
        if self.reads.on {
            // A check that moves value changes state; one that asks a
            // cheatcode for more than a pure function of its arguments
            // reads what a read set cannot hold.
            if inputs.transfers_value()
                || (inputs.bytecode_address == CHEATCODE_ADDRESS
                    && !super::cheatcodes::is_pure(&inputs.input.bytes(context)))
            {
                self.reads.opaque = true;
            } else {
                self.reads.called(inputs.bytecode_address);
            }
        }
        if inputs.bytecode_address == CHEATCODE_ADDRESS {
            // call_end runs for this answer too: keep the frames balanced.
            let caller_frame = self.frames.len().wrapping_sub(1);
            self.frames.push(None);
            self.wrote = true;
            self.cheated = true;
            let answer = self.cheats.call(context, inputs);
            self.cheats.expect.arm(caller_frame);
            self.rewatch();
            return Some(answer);
        }
        // forge-std's console (`bound` logs through it): no code runs
        // there, and it takes no prank, expectation or mock.
        if inputs.bytecode_address == super::cheatcodes::CONSOLE_ADDRESS {
            self.frames.push(None);
            return None;
        }
        self.cheats.apply_prank(context, inputs);
        let depth = context.journaled_state.depth;
        if let Some(mocked) = self
            .cheats
            .expect
            .on_call(context, inputs, depth, self.frames.len())
        {
            self.frames.push(None);
            self.wrote = true;
            return Some(mocked);
        }
        let code = self.runtime_of(inputs.bytecode_address);
        // Code not followed (its writes are not seen) might write; a
        // precompile does not.
        if inputs.transfers_value() || (code.is_none() && !is_precompile(inputs.bytecode_address)) {
            self.wrote = true;
        }
        self.frames.push(code);
        None
    }

    fn call_end(&mut self, context: &mut Ctx, inputs: &CallInputs, outcome: &mut CallOutcome) {
        self.frames.pop();
        self.cheats.frame_ended(context.journaled_state.depth);
        self.cheats.expect.on_call_end(
            self.frames.len(),
            context.journaled_state.depth,
            inputs,
            outcome,
        );
    }

    fn create(&mut self, context: &mut Ctx, inputs: &mut CreateInputs) -> Option<CreateOutcome> {
        self.cheats.apply_prank_create(context, inputs);
        let depth = context.journaled_state.depth;
        self.cheats.expect.claim(depth, self.frames.len());
        self.wrote = true;
        self.reads.opaque = true;
        if let Some(address) = self.next_create_at.take() {
            inputs.set_scheme(revm::context_interface::CreateScheme::Custom { address });
        }
        let code = self.next_creation.take();
        self.frames.push(code);
        None
    }

    fn selfdestruct(&mut self, _contract: Address, _target: Address, _value: U256) {
        self.wrote = true;
        self.reads.opaque = true;
    }

    fn create_end(
        &mut self,
        context: &mut Ctx,
        _inputs: &CreateInputs,
        outcome: &mut CreateOutcome,
    ) {
        self.frames.pop();
        self.cheats.frame_ended(context.journaled_state.depth);
        self.cheats.expect.on_create_end(self.frames.len(), outcome);
        if let Some(a) = outcome.address
            && outcome.result.is_ok()
            && self.created.len() < 64
        {
            self.created.push(a);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_storage_word_holds_whole_values_and_packed_fields() {
        let word = U256::from(0x0304u64) | (U256::from(0xdead_beefu64) << 64);
        // The whole word, each packed byte, the uint32 at byte 8.
        let field = |bytes: u32, at: usize| ((U256::ONE << (bytes * 8)) - U256::ONE) << (at * 8);
        assert_eq!(holds(word, word, 0), Some(field(12, 0)));
        assert_eq!(holds(word, U256::from(4), 0), Some(field(1, 0)));
        assert_eq!(holds(word, U256::from(3), 0), Some(field(1, 1)));
        assert_eq!(
            holds(word, U256::from(0xdead_beefu64), 0),
            Some(field(4, 8))
        );
        // As wide as asked: 4 in two bytes is 0x0304 at byte 0, no field.
        assert_eq!(holds(word, U256::from(4), 16), None);
        assert_eq!(holds(word, U256::from(0x0304), 9), Some(field(2, 0)));
        // Not byte-aligned, not present, zero (every word holds it).
        assert_eq!(holds(word, U256::from(0x30), 0), None);
        assert_eq!(holds(word, U256::from(5), 0), None);
        assert_eq!(holds(word, U256::ZERO, 0), None);
        assert_eq!(holds(U256::MAX, U256::MAX, 0), Some(U256::MAX));
    }

    /// The byte-slice search finds what shifting and masking the word finds
    /// (the definition), on packed words made of the values looked for.
    #[test]
    fn holds_agrees_with_shift_and_mask() {
        fn by_shifts(word: U256, v: U256, min_bits: usize) -> Option<U256> {
            if v.is_zero() {
                return None;
            }
            let bits = v.bit_len().max(min_bits).div_ceil(8) * 8;
            let mask = if bits >= 256 {
                U256::MAX
            } else {
                (U256::ONE << bits) - U256::ONE
            };
            (0..=(256 - bits) / 8)
                .find(|k| (word >> (k * 8)) & mask == v)
                .map(|k| mask << (k * 8))
        }
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..20_000 {
            let v = U256::from(next() >> (next() % 64));
            let at = (next() % 24) as usize;
            let word = (v << (at * 8)) | U256::from(next() & 0xff) | (U256::from(next()) << 192);
            let min_bits = [0, 8, 16, 64, 160, 256][(next() % 6) as usize];
            assert_eq!(
                holds(word, v, min_bits),
                by_shifts(word, v, min_bits),
                "{word:x} {v:x} {min_bits}"
            );
        }
    }

    #[test]
    fn a_guard_state_is_which_compared_value_each_field_holds() {
        let (x, y) = (U256::from(0xffu64), U256::from(0xff00u64));
        let mut fields = Vec::new();
        GuardField::note(&mut fields, x, U256::from(1));
        GuardField::note(&mut fields, x, U256::from(4));
        GuardField::note(&mut fields, y, U256::from(3));
        let at = |x: u64, y: u64| GuardField::state(&fields, U256::from(x | y << 8));
        // Distinct cells made of compared values are distinct states.
        assert_ne!(at(1, 3), at(4, 3));
        assert_ne!(at(1, 3), at(1, 0));
        // Values never compared are one state per field: no new state.
        assert_eq!(at(7, 0), at(9, 2));
        // Bytes outside the fields do not matter.
        assert_eq!(
            at(1, 3),
            GuardField::state(&fields, U256::from(0x0301u64) | (U256::ONE << 100))
        );
    }
}
