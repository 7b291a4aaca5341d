//! The coverage inspector: records every executed program counter and every
//! `JUMPI` direction of the target's code into the worker's coverage row, and
//! keeps the words of emitted logs for the argument dictionary.

use super::cheatcodes::{CHEATCODE_ADDRESS, Cheatcodes, Ctx};
use crate::coverage::{CodeId, Recorder};
use alloy_primitives::{Address, B256, Log};
use revm::Inspector;
use revm::interpreter::interpreter_types::Jumps;
use revm::interpreter::{CallInputs, CallOutcome, CreateInputs, CreateOutcome, Interpreter};

/// JUMPI.
const JUMPI: u8 = 0x57;

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
        }
    }

    fn runtime_of(&self, address: Address) -> Option<CodeId> {
        self.runtime
            .iter()
            .find(|(a, _)| *a == address)
            .map(|(_, id)| *id)
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
        if interp.bytecode.opcode() == JUMPI
            && let Ok(cond) = interp.stack.peek(1)
        {
            self.recorder.branch(code, pc, !cond.is_zero());
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
