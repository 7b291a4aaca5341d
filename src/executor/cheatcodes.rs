//! hevm / Foundry cheatcodes at `0x7109709ECfa91a80626fF3989D68f67F5b1DD12D`:
//! what Echidna harnesses and Foundry invariant tests call (`hevm.warp`,
//! `vm.prank`, `vm.deal`, `vm.store`, …). The inspector answers calls to that
//! address itself; nothing runs there. An unknown cheatcode reverts with a
//! message naming its selector. `ffi` runs a command only when the config
//! says `allowFFI: true`.

use alloy_dyn_abi::{DynSolValue, JsonAbiExt};
use alloy_json_abi::Function;
use alloy_primitives::{Address, B256, Bytes, U256, address, hex};
use revm::bytecode::Bytecode;
use revm::context_interface::JournalTr;
use revm::context_interface::journaled_state::account::JournaledAccountTr;
use revm::handler::MainnetContext;
use revm::interpreter::{CallInputs, CallOutcome, Gas, InstructionResult, InterpreterResult};
use std::collections::HashMap;
use std::sync::OnceLock;

mod assertions;
mod env;
mod expect;
pub(crate) mod forks;
mod observe;

use assertions::{Assertion, assertion_signatures, check_assertion};
pub(crate) use expect::{ACCESSES_PER_ACCOUNT, Expectations};

/// The cheatcode address (`address(uint160(uint256(keccak256("hevm cheat code"))))`).
pub const CHEATCODE_ADDRESS: Address = address!("7109709ecfa91a80626ff3989d68f67f5b1dd12d");

/// Why a call reverts when `vm.assume` rejects its input: no failure, even
/// when reverted calls fail (`failOnRevert`).
pub const ASSUME_REJECTED: &str = "vm.assume rejected the input";

/// forge-std's console (`console.log`, and `bound`'s log of its result).
pub const CONSOLE_ADDRESS: Address = address!("000000000000000000636f6e736f6c652e6c6f67");

pub(crate) type Ctx = MainnetContext<super::StateDb>;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cheat {
    Warp,
    Roll,
    Fee,
    ChainId,
    Coinbase,
    Prevrandao,
    Prank,
    StartPrank,
    StopPrank,
    Deal,
    Store,
    Load,
    Etch,
    Addr,
    Sign,
    Label,
    GetNonce,
    SetNonce,
    Assume,
    ToString,
    Ffi,
    /// forge-std's assertions.
    Assert(Assertion),
    Env(env::EnvType),
    EnvOr(env::EnvType),
    /// `setEnv(name, value)`: seen by `env*` and by `ffi`'s commands.
    SetEnv,
    /// `parseUint(string)` and the other `parse*` of a type.
    Parse(env::EnvType),
    AssumeNoRevert,
    EnvExists,
    GetBlockTimestamp,
    GetBlockNumber,
    ExpectRevert,
    ExpectPartialRevert,
    MockCall,
    MockCallRevert,
    ClearMockedCalls,
    RecordLogs,
    GetRecordedLogs,
    Record,
    Accesses,
    ExpectEmit,
    ExpectCall,
    GetCode,
    GetDeployedCode,
    GetLabel,
    Broadcast,
    StartBroadcast,
    /// Answered and ignored (`pauseGasMetering`: calls have gas to spare).
    Nothing,
    CreateFork,
    CreateSelectFork,
    SelectFork,
    RollFork,
    ActiveFork,
}

const SIGNATURES: &[(&str, Cheat)] = &[
    ("warp(uint256)", Cheat::Warp),
    ("createFork(string)(uint256)", Cheat::CreateFork),
    ("createFork(string,uint256)(uint256)", Cheat::CreateFork),
    ("createSelectFork(string)(uint256)", Cheat::CreateSelectFork),
    (
        "createSelectFork(string,uint256)(uint256)",
        Cheat::CreateSelectFork,
    ),
    ("selectFork(uint256)", Cheat::SelectFork),
    ("rollFork(uint256)", Cheat::RollFork),
    ("rollFork(uint256,uint256)", Cheat::RollFork),
    ("activeFork()(uint256)", Cheat::ActiveFork),
    ("roll(uint256)", Cheat::Roll),
    ("fee(uint256)", Cheat::Fee),
    ("chainId(uint256)", Cheat::ChainId),
    ("coinbase(address)", Cheat::Coinbase),
    ("prevrandao(bytes32)", Cheat::Prevrandao),
    ("prevrandao(uint256)", Cheat::Prevrandao),
    ("difficulty(uint256)", Cheat::Prevrandao),
    ("prank(address)", Cheat::Prank),
    ("prank(address,address)", Cheat::Prank),
    ("startPrank(address)", Cheat::StartPrank),
    ("startPrank(address,address)", Cheat::StartPrank),
    ("stopPrank()", Cheat::StopPrank),
    ("deal(address,uint256)", Cheat::Deal),
    ("store(address,bytes32,bytes32)", Cheat::Store),
    ("load(address,bytes32)(bytes32)", Cheat::Load),
    ("etch(address,bytes)", Cheat::Etch),
    ("addr(uint256)(address)", Cheat::Addr),
    ("sign(uint256,bytes32)(uint8,bytes32,bytes32)", Cheat::Sign),
    ("label(address,string)", Cheat::Label),
    ("getNonce(address)(uint64)", Cheat::GetNonce),
    ("setNonce(address,uint64)", Cheat::SetNonce),
    ("assume(bool)", Cheat::Assume),
    ("toString(address)(string)", Cheat::ToString),
    ("toString(uint256)(string)", Cheat::ToString),
    ("toString(int256)(string)", Cheat::ToString),
    ("toString(bool)(string)", Cheat::ToString),
    ("toString(bytes32)(string)", Cheat::ToString),
    ("toString(bytes)(string)", Cheat::ToString),
    ("ffi(string[])(bytes)", Cheat::Ffi),
    ("setEnv(string,string)", Cheat::SetEnv),
    ("getBlockTimestamp()(uint256)", Cheat::GetBlockTimestamp),
    ("getBlockNumber()(uint256)", Cheat::GetBlockNumber),
    ("expectRevert()", Cheat::ExpectRevert),
    ("expectRevert(bytes4)", Cheat::ExpectRevert),
    ("expectRevert(bytes)", Cheat::ExpectRevert),
    ("expectPartialRevert(bytes4)", Cheat::ExpectPartialRevert),
    ("assumeNoRevert()", Cheat::AssumeNoRevert),
    ("mockCalls(address,bytes,bytes[])", Cheat::MockCall),
    ("mockCalls(address,uint256,bytes,bytes[])", Cheat::MockCall),
    ("allowCheatcodes(address)", Cheat::Nothing),
    ("mockCall(address,bytes,bytes)", Cheat::MockCall),
    ("mockCall(address,uint256,bytes,bytes)", Cheat::MockCall),
    ("mockCallRevert(address,bytes,bytes)", Cheat::MockCallRevert),
    (
        "mockCallRevert(address,uint256,bytes,bytes)",
        Cheat::MockCallRevert,
    ),
    ("clearMockedCalls()", Cheat::ClearMockedCalls),
    ("recordLogs()", Cheat::RecordLogs),
    (
        "getRecordedLogs()((bytes32[],bytes,address)[])",
        Cheat::GetRecordedLogs,
    ),
    ("record()", Cheat::Record),
    ("accesses(address)(bytes32[],bytes32[])", Cheat::Accesses),
    ("expectEmit()", Cheat::ExpectEmit),
    ("expectEmit(address)", Cheat::ExpectEmit),
    ("expectEmit(bool,bool,bool,bool)", Cheat::ExpectEmit),
    ("expectEmit(bool,bool,bool,bool,address)", Cheat::ExpectEmit),
    ("expectCall(address,bytes)", Cheat::ExpectCall),
    ("expectCall(address,uint256,bytes)", Cheat::ExpectCall),
    ("expectCall(address,bytes,uint64)", Cheat::ExpectCall),
    (
        "expectCall(address,uint256,bytes,uint64)",
        Cheat::ExpectCall,
    ),
    ("getCode(string)(bytes)", Cheat::GetCode),
    ("getDeployedCode(string)(bytes)", Cheat::GetDeployedCode),
    ("getLabel(address)(string)", Cheat::GetLabel),
    ("broadcast()", Cheat::Broadcast),
    ("broadcast(address)", Cheat::Broadcast),
    ("broadcast(uint256)", Cheat::Broadcast),
    ("startBroadcast()", Cheat::StartBroadcast),
    ("startBroadcast(address)", Cheat::StartBroadcast),
    ("startBroadcast(uint256)", Cheat::StartBroadcast),
    ("stopBroadcast()", Cheat::StopPrank),
    ("pauseGasMetering()", Cheat::Nothing),
    ("resumeGasMetering()", Cheat::Nothing),
];

/// Each cheatcode's function, selector (hashed once) and meaning.
fn table() -> &'static [(Function, alloy_primitives::Selector, Cheat)] {
    static TABLE: OnceLock<Vec<(Function, alloy_primitives::Selector, Cheat)>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let asserts = assertion_signatures();
        SIGNATURES
            .iter()
            .map(|(s, c)| (s.to_string(), *c))
            .chain(asserts)
            .chain(env::env_signatures())
            .map(|(s, c)| {
                let f = Function::parse(&s).expect("cheatcode signatures parse");
                let selector = f.selector();
                (f, selector, c)
            })
            .collect()
    })
}

/// Whether the cheatcode call `data` answers a pure function of its
/// arguments (assertions, `addr`, `sign`, `toString`, `label`, `assume`,
/// and the environment, fixed for the process):
/// a check that makes only such calls can be skipped while what it read
/// holds (see [`super::reads`]).
pub fn is_pure(data: &[u8]) -> bool {
    data.len() >= 4
        && table().iter().any(|(_, s, c)| {
            s[..] == data[..4]
                && matches!(
                    c,
                    Cheat::Addr
                        | Cheat::Sign
                        | Cheat::Label
                        | Cheat::ToString
                        | Cheat::Assume
                        | Cheat::Assert(_)
                        | Cheat::Env(_)
                        | Cheat::EnvOr(_)
                        | Cheat::Parse(_)
                        | Cheat::EnvExists
                        | Cheat::GetCode
                        | Cheat::GetDeployedCode
                        | Cheat::Nothing
                )
        })
}

/// The signatures rudder answers besides the assertions and `env*` (for
/// docs and tests).
pub fn supported() -> impl Iterator<Item = &'static str> {
    SIGNATURES.iter().map(|(s, _)| *s)
}

/// EIP-2929's account access costs (what a call to the cheatcode address
/// was charged besides the gas it passed on).
const COLD_ACCESS: u64 = 2_600;
const WARM_ACCESS: u64 = 100;

/// An active prank: calls made by `prankster` from `depth` appear to come
/// from `sender` (and, when set, the transaction from `origin`).
#[derive(Clone, Debug)]
struct Prank {
    prankster: Address,
    sender: Address,
    origin: Option<Address>,
    depth: usize,
    single: bool,
}

/// A prank saved by [`Cheatcodes::saved_prank`].
pub(crate) struct SavedPrank(Option<Prank>);

/// Cheatcode state of one EVM: pranks, labels, expectations, mocks,
/// recordings (reset with each sequence).
#[derive(Clone, Debug, Default)]
pub struct Cheatcodes {
    prank: Option<Prank>,
    /// `expectRevert`, mocked calls, recorded logs and storage accesses.
    pub(crate) expect: Expectations,
    /// Pranks set so far (`prank`, `startPrank`), never reset.
    pub(crate) pranks_set: u64,
    /// Names given with `label`, shown nowhere yet but kept for traces.
    pub labels: HashMap<Address, String>,
    /// `allowFFI`: whether `ffi` may run commands.
    pub allow_ffi: bool,
    /// The project's contracts, for `getCode` / `getDeployedCode`.
    pub code: std::sync::Arc<CodeBook>,
    /// Variables set with `setEnv`, over the process's environment (for
    /// the `env*` cheatcodes and the commands `ffi` runs); the process's
    /// own environment is never changed.
    env_set: std::sync::Arc<HashMap<String, String>>,
    /// Foundry's forks (`createSelectFork` and the others, in set-up).
    pub forks: forks::ForkBook,
    /// The journal's length when a call to the cheatcode address last
    /// found it warmed by its own instruction (this transaction).
    warm_entry: Option<usize>,
}

/// A contract of the project as `getCode` finds it.
#[derive(Debug)]
struct CodeEntry {
    name: String,
    source: String,
    /// Linked creation code (`Err`: why it cannot be linked).
    creation: Result<Bytes, String>,
    runtime: Bytes,
}

/// The project's contracts by name and source, for `getCode` and
/// `getDeployedCode` (forge-std's `deployCode`).
#[derive(Debug, Default)]
pub struct CodeBook {
    entries: Vec<CodeEntry>,
}

impl CodeBook {
    /// Every contract of `project`, its creation code linked against the
    /// libraries `address_of` knows.
    pub fn new(
        project: &crate::artifacts::Project,
        address_of: impl Fn(&str) -> Option<Address>,
    ) -> Self {
        let entries = project
            .contracts
            .iter()
            .map(|c| CodeEntry {
                name: c.name.clone(),
                source: c.source.clone(),
                creation: c
                    .linked_creation_code(&address_of)
                    .map_err(|e| e.to_string()),
                runtime: c.runtime_code.clone(),
            })
            .collect();
        CodeBook { entries }
    }

    /// The contract `what` names as forge reads it: `Name`, `File.sol`
    /// (its contract of the file's name), `path/File.sol:Name`, or an
    /// artifact path `out/File.sol/Name.json`; a trailing `:version` is
    /// ignored (one compilation here).
    fn find(&self, what: &str) -> Result<&CodeEntry, String> {
        let (file, name) = if let Some(json) = what.strip_suffix(".json") {
            let p = std::path::Path::new(json);
            let file = p
                .parent()
                .and_then(|d| d.file_name())
                .and_then(|f| f.to_str());
            (file, p.file_name().and_then(|f| f.to_str()).unwrap_or(json))
        } else {
            let mut parts = what.split(':');
            let first = parts.next().unwrap_or_default();
            let second = parts
                .next()
                .filter(|s| !s.is_empty() && !s.chars().all(|c| c.is_ascii_digit() || c == '.'));
            if first.ends_with(".sol") {
                let stem = std::path::Path::new(first)
                    .file_stem()
                    .and_then(|f| f.to_str())
                    .unwrap_or(first);
                (Some(first), second.unwrap_or(stem))
            } else {
                (None, first)
            }
        };
        let in_file = |source: &str| {
            file.is_none_or(|f| {
                let f = f.trim_start_matches("./");
                source == f
                    || source.ends_with(&format!("/{f}"))
                    || std::path::Path::new(source)
                        .file_name()
                        .is_some_and(|n| n == f)
            })
        };
        let mut found: Vec<&CodeEntry> = Vec::new();
        for e in self
            .entries
            .iter()
            .filter(|e| e.name == name && in_file(&e.source))
        {
            if !found.iter().any(|f| f.runtime == e.runtime) {
                found.push(e);
            }
        }
        match found.as_slice() {
            [one] => Ok(one),
            [] => Err(format!(
                "no matching artifact found for {what:?} among the project's contracts"
            )),
            many => Err(format!(
                "multiple matching artifacts found for {what:?}: {}; name the file (`path/File.sol:{name}`)",
                many.iter()
                    .map(|e| format!("{}:{}", e.source, e.name))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }
}

fn word(v: &DynSolValue) -> U256 {
    match v {
        DynSolValue::Uint(u, _) => *u,
        DynSolValue::Int(i, _) => i.into_raw(),
        DynSolValue::FixedBytes(b, _) => U256::from_be_bytes(b.0),
        DynSolValue::Bool(b) => U256::from(*b as u8),
        DynSolValue::Address(a) => U256::from_be_slice(a.as_slice()),
        _ => U256::ZERO,
    }
}

fn addr(v: &DynSolValue) -> Address {
    v.as_address().unwrap_or_default()
}

fn b32(v: &DynSolValue) -> B256 {
    B256::from(word(v).to_be_bytes::<32>())
}

/// `Error(string)` revert data.
pub fn revert_data(message: &str) -> Bytes {
    let mut data = vec![0x08, 0xc3, 0x79, 0xa0];
    data.extend(DynSolValue::String(message.to_string()).abi_encode_params());
    data.into()
}

impl Cheatcodes {
    pub fn new(allow_ffi: bool) -> Self {
        Cheatcodes {
            allow_ffi,
            ..Default::default()
        }
    }

    /// Whether a prank is set (a check's caller would not be its own).
    pub fn pranking(&self) -> bool {
        self.prank.is_some()
    }

    /// The prank in force, to put back with
    /// [`restore_prank`](Self::restore_prank) after a check that may set one.
    pub(crate) fn saved_prank(&self) -> SavedPrank {
        SavedPrank(self.prank.clone())
    }

    pub(crate) fn restore_prank(&mut self, saved: SavedPrank) {
        self.prank = saved.0;
    }

    /// Forgets pranks, expectations, mocks and recordings (a new sequence
    /// starts from the deployed state).
    pub fn reset(&mut self) {
        self.prank = None;
        self.expect = Expectations::default();
    }

    /// Ends a prank whose frame has returned: a prank (single or started)
    /// lives in the frame that set it, so one a call left running does not
    /// leak into the next transaction or a later test (hevm's and Echidna's
    /// scope). `depth` is the depth the returning frame's caller runs at.
    pub(crate) fn frame_ended(&mut self, depth: usize) {
        if self.prank.as_ref().is_some_and(|p| depth < p.depth) {
            self.prank = None;
        }
        if depth == 0 {
            self.warm_entry = None;
        }
    }

    /// Rewrites the caller of a call made while a prank is active.
    pub(crate) fn apply_prank(&mut self, ctx: &mut Ctx, inputs: &mut CallInputs) {
        let Some(p) = &self.prank else { return };
        if inputs.caller != p.prankster || ctx.journaled_state.depth != p.depth {
            return;
        }
        inputs.caller = p.sender;
        if let Some(o) = p.origin {
            ctx.tx.caller = o;
        }
        if p.single {
            self.prank = None;
        }
    }

    /// Rewrites the creator of a contract created while a prank is active
    /// (its address then follows the pranked sender's nonce, as in forge
    /// and hevm).
    pub(crate) fn apply_prank_create(
        &mut self,
        ctx: &mut Ctx,
        inputs: &mut revm::interpreter::CreateInputs,
    ) {
        let Some(p) = &self.prank else { return };
        if inputs.caller() != p.prankster || ctx.journaled_state.depth != p.depth {
            return;
        }
        inputs.set_call(p.sender);
        if let Some(o) = p.origin {
            ctx.tx.caller = o;
        }
        if p.single {
            self.prank = None;
        }
    }

    /// Answers a call to [`CHEATCODE_ADDRESS`]. As in hevm, the call costs
    /// nothing: the gas it was given comes back with what the calling
    /// instruction charged to reach the address (2,600 when this call
    /// warmed it, 100 when it was warm), so a contract measuring `gas()`
    /// around a cheatcode sees only its own instructions.
    pub(crate) fn call(&mut self, ctx: &mut Ctx, inputs: &CallInputs) -> CallOutcome {
        // The calling instruction warmed the address when the journal's
        // last entry says so and is not the one an earlier call found.
        let journal = &ctx.journaled_state.journal;
        let warmed_now = matches!(
            journal.last(),
            Some(revm::context::journal::JournalEntry::AccountWarmed { address })
                if *address == inputs.bytecode_address
        ) && self.warm_entry != Some(journal.len());
        if warmed_now {
            self.warm_entry = Some(journal.len());
        }
        let access = if warmed_now { COLD_ACCESS } else { WARM_ACCESS };
        let data = inputs.input.bytes(ctx);
        let (result, output) = match self.run(ctx, inputs.caller, &data) {
            Ok(out) => (InstructionResult::Return, out),
            Err(message) => (InstructionResult::Revert, revert_data(&message)),
        };
        CallOutcome::new(
            InterpreterResult::new(result, output, Gas::new(inputs.gas_limit + access)),
            inputs.return_memory_offset.clone(),
        )
    }

    fn run(&mut self, ctx: &mut Ctx, caller: Address, data: &[u8]) -> Result<Bytes, String> {
        if data.len() < 4 {
            return Err("cheatcode call without a selector".into());
        }
        let Some((f, _, cheat)) = table().iter().find(|(_, s, _)| s[..] == data[..4]) else {
            return Err(format!(
                "unknown cheatcode 0x{} (rudder supports forge-std's assert* and: {})",
                hex::encode(&data[..4]),
                SIGNATURES
                    .iter()
                    .map(|(s, _)| *s)
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        };
        let args = f
            .abi_decode_input(&data[4..])
            .map_err(|e| format!("cheatcode {}: bad arguments: {e}", f.signature()))?;
        fn db_err<E: std::fmt::Debug>(e: E) -> String {
            format!("state access failed: {e:?}")
        }
        let out: Vec<DynSolValue> = match cheat {
            Cheat::Warp => {
                ctx.block.timestamp = word(&args[0]);
                vec![]
            }
            Cheat::Roll => {
                ctx.block.number = word(&args[0]);
                vec![]
            }
            Cheat::Fee => {
                ctx.block.basefee = word(&args[0]).saturating_to();
                vec![]
            }
            Cheat::ChainId => {
                ctx.cfg.chain_id = word(&args[0]).saturating_to();
                vec![]
            }
            Cheat::Coinbase => {
                ctx.block.beneficiary = addr(&args[0]);
                vec![]
            }
            Cheat::Prevrandao => {
                ctx.block.prevrandao = Some(b32(&args[0]));
                ctx.block.difficulty = word(&args[0]);
                vec![]
            }
            Cheat::Prank | Cheat::StartPrank => {
                self.pranks_set += 1;
                self.prank = Some(Prank {
                    prankster: caller,
                    sender: addr(&args[0]),
                    origin: args.get(1).map(addr),
                    depth: ctx.journaled_state.depth,
                    single: *cheat == Cheat::Prank,
                });
                vec![]
            }
            Cheat::StopPrank => {
                self.prank = None;
                vec![]
            }
            Cheat::Deal => {
                let mut acc = ctx
                    .journaled_state
                    .load_account_mut(addr(&args[0]))
                    .map_err(db_err)?
                    .data;
                acc.set_balance(word(&args[1]));
                vec![]
            }
            Cheat::Store => {
                let who = addr(&args[0]);
                ctx.journaled_state.load_account(who).map_err(db_err)?;
                ctx.journaled_state
                    .sstore(who, word(&args[1]), word(&args[2]))
                    .map_err(db_err)?;
                vec![]
            }
            Cheat::Load => {
                let who = addr(&args[0]);
                ctx.journaled_state.load_account(who).map_err(db_err)?;
                let v = ctx
                    .journaled_state
                    .sload(who, word(&args[1]))
                    .map_err(db_err)?
                    .data;
                vec![DynSolValue::FixedBytes(
                    B256::from(v.to_be_bytes::<32>()),
                    32,
                )]
            }
            Cheat::Etch => {
                let who = addr(&args[0]);
                let code = args[1].as_bytes().unwrap_or_default().to_vec();
                ctx.journaled_state.load_account(who).map_err(db_err)?;
                ctx.journaled_state
                    .set_code(who, Bytecode::new_raw(code.into()));
                vec![]
            }
            Cheat::Addr => vec![DynSolValue::Address(address_of_key(&args[0])?)],
            Cheat::Sign => {
                let key = signing_key(&args[0])?;
                let digest = b32(&args[1]);
                let (sig, recid) = key
                    .sign_prehash_recoverable(digest.as_slice())
                    .map_err(|e| format!("sign: {e}"))?;
                let bytes = sig.to_bytes();
                vec![
                    DynSolValue::Uint(U256::from(27 + recid.to_byte()), 8),
                    DynSolValue::FixedBytes(B256::from_slice(&bytes[..32]), 32),
                    DynSolValue::FixedBytes(B256::from_slice(&bytes[32..]), 32),
                ]
            }
            Cheat::Label => {
                let name = args[1].as_str().unwrap_or_default().to_string();
                self.labels.insert(addr(&args[0]), name);
                vec![]
            }
            Cheat::GetNonce => {
                let who = addr(&args[0]);
                let nonce = ctx
                    .journaled_state
                    .load_account(who)
                    .map_err(db_err)?
                    .data
                    .info
                    .nonce;
                vec![DynSolValue::Uint(U256::from(nonce), 64)]
            }
            Cheat::SetNonce => {
                let mut acc = ctx
                    .journaled_state
                    .load_account_mut(addr(&args[0]))
                    .map_err(db_err)?
                    .data;
                acc.set_nonce(word(&args[1]).saturating_to());
                vec![]
            }
            Cheat::Assume => {
                if word(&args[0]).is_zero() {
                    return Err(ASSUME_REJECTED.into());
                }
                vec![]
            }
            Cheat::ToString => vec![DynSolValue::String(to_string(&args[0]))],
            Cheat::Ffi => vec![DynSolValue::Bytes(self.ffi(&args[0])?)],
            Cheat::SetEnv => {
                let (name, value) = (args[0].as_str(), args[1].as_str());
                let name = name.unwrap_or_default();
                if name.is_empty() || name.contains(['=', '\0']) {
                    return Err(format!("vm.setEnv: {name:?} is not a variable name"));
                }
                std::sync::Arc::make_mut(&mut self.env_set)
                    .insert(name.to_string(), value.unwrap_or_default().to_string());
                vec![]
            }
            Cheat::Assert(a) => {
                check_assertion(*a, &args)?;
                vec![]
            }
            Cheat::Env(t) => {
                let name = args[0].as_str().unwrap_or_default();
                vec![env::read(*t, name, self.env_var(name))?]
            }
            Cheat::EnvOr(t) => {
                let name = args[0].as_str().unwrap_or_default();
                vec![env::read_or(*t, self.env_var(name), &args[1])]
            }
            Cheat::EnvExists => vec![DynSolValue::Bool(
                self.env_var(args[0].as_str().unwrap_or_default()).is_some(),
            )],
            Cheat::GetBlockTimestamp => vec![DynSolValue::Uint(ctx.block.timestamp, 256)],
            Cheat::GetBlockNumber => vec![DynSolValue::Uint(ctx.block.number, 256)],
            Cheat::ExpectRevert | Cheat::ExpectPartialRevert => {
                let data = args.first().map(|v| match v {
                    DynSolValue::FixedBytes(b, 4) => Bytes::copy_from_slice(&b[..4]),
                    v => Bytes::from(v.as_bytes().unwrap_or_default().to_vec()),
                });
                let partial = *cheat == Cheat::ExpectPartialRevert;
                self.expect
                    .expect_revert(ctx.journaled_state.depth, data, partial)?;
                vec![]
            }
            Cheat::AssumeNoRevert => {
                self.expect.assume_no_revert(ctx.journaled_state.depth);
                vec![]
            }
            Cheat::Parse(t) => vec![env::parse_text(*t, args[0].as_str().unwrap_or_default())?],
            Cheat::MockCall | Cheat::MockCallRevert => {
                // (callee, [value,] data, response or responses).
                let with_value = args.len() == 4;
                let bytes =
                    |v: &DynSolValue| Bytes::from(v.as_bytes().unwrap_or_default().to_vec());
                let mut responses: Vec<Bytes> = match &args[args.len() - 1] {
                    DynSolValue::Array(all) => all.iter().map(bytes).collect(),
                    one => vec![bytes(one)],
                };
                if responses.is_empty() {
                    return Err("vm.mockCalls: no return data given".into());
                }
                let m = expect::MockArgs {
                    callee: addr(&args[0]),
                    value: with_value.then(|| word(&args[1])),
                    data: bytes(&args[args.len() - 2]),
                    response: responses.remove(0),
                    more: responses.into(),
                    reverts: *cheat == Cheat::MockCallRevert,
                };
                self.expect.mock(ctx, m)?;
                vec![]
            }
            Cheat::ClearMockedCalls => {
                self.expect.clear_mocks();
                vec![]
            }
            Cheat::RecordLogs => {
                self.expect.record_logs();
                vec![]
            }
            Cheat::GetRecordedLogs => vec![self.expect.take_logs()],
            Cheat::Record => {
                self.expect.record();
                vec![]
            }
            Cheat::Accesses => self.expect.accesses_of(addr(&args[0])),
            Cheat::ExpectEmit => {
                let flag = |i: usize| args.get(i).and_then(|v| v.as_bool()).unwrap_or(true);
                let checks = if args.len() >= 4 {
                    [flag(0), flag(1), flag(2), flag(3)]
                } else {
                    [true; 4]
                };
                let emitter = args.last().and_then(|v| v.as_address());
                self.expect
                    .observed
                    .expect_emit(ctx.journaled_state.depth, checks, emitter);
                vec![]
            }
            Cheat::ExpectCall => {
                // (callee, [value,] data[, count])
                let (value, rest) = match &args[1] {
                    DynSolValue::Uint(v, _) => (Some(*v), &args[2..]),
                    _ => (None, &args[1..]),
                };
                let data = Bytes::from(rest[0].as_bytes().unwrap_or_default().to_vec());
                let count = rest.get(1).map(|c| word(c).saturating_to());
                self.expect
                    .observed
                    .expect_call(addr(&args[0]), value, data, count)?;
                vec![]
            }
            Cheat::GetCode | Cheat::GetDeployedCode => {
                let what = args[0].as_str().unwrap_or_default();
                let e = self.code.find(what).map_err(|m| {
                    format!(
                        "vm.{}: {m}",
                        if *cheat == Cheat::GetCode {
                            "getCode"
                        } else {
                            "getDeployedCode"
                        }
                    )
                })?;
                let code = if *cheat == Cheat::GetCode {
                    e.creation
                        .clone()
                        .map_err(|m| format!("vm.getCode({what:?}): {m}"))?
                } else {
                    e.runtime.clone()
                };
                vec![DynSolValue::Bytes(code.to_vec())]
            }
            Cheat::GetLabel => {
                let who = addr(&args[0]);
                vec![DynSolValue::String(
                    self.labels
                        .get(&who)
                        .cloned()
                        .unwrap_or_else(|| format!("unlabeled:{who}")),
                )]
            }
            Cheat::Broadcast | Cheat::StartBroadcast => {
                // As forge in a test: calls (and creations) of this frame
                // come from the broadcaster, as sender and origin.
                let who = match args.first() {
                    None => ctx.tx.caller,
                    Some(DynSolValue::Address(a)) => *a,
                    Some(key) => address_of_key(key)?,
                };
                self.pranks_set += 1;
                self.prank = Some(Prank {
                    prankster: caller,
                    sender: who,
                    origin: Some(who),
                    depth: ctx.journaled_state.depth,
                    single: *cheat == Cheat::Broadcast,
                });
                vec![]
            }
            Cheat::Nothing => vec![],
            Cheat::CreateFork
            | Cheat::CreateSelectFork
            | Cheat::SelectFork
            | Cheat::RollFork
            | Cheat::ActiveFork => self.fork_cheat(ctx, *cheat, &args)?,
        };
        Ok(if out.is_empty() {
            Bytes::new()
        } else {
            DynSolValue::Tuple(out).abi_encode_params().into()
        })
    }

    /// Environment variable `name`: as `setEnv` set it, else the process's.
    fn env_var(&self, name: &str) -> Option<String> {
        match self.env_set.get(name) {
            Some(v) => Some(v.clone()),
            None => std::env::var(name).ok(),
        }
    }

    /// Runs `argv` when `allowFFI` is on, with the variables `setEnv` set
    /// over the process's environment; returns its stdout (hex-decoded
    /// when it is hex, `0x` or not, as Foundry and hevm do).
    fn ffi(&self, argv: &DynSolValue) -> Result<Vec<u8>, String> {
        if !self.allow_ffi {
            return Err(
                "ffi is disabled: set `allowFFI: true` in the config to let contracts run commands"
                    .into(),
            );
        }
        let args: Vec<String> = argv
            .as_array()
            .unwrap_or_default()
            .iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect();
        let (cmd, rest) = args.split_first().ok_or("ffi needs a command")?;
        let out = std::process::Command::new(cmd)
            .args(rest)
            .envs(self.env_set.iter())
            .stdin(std::process::Stdio::null())
            .output()
            .map_err(|e| format!("ffi {cmd}: {e}"))?;
        let text = String::from_utf8_lossy(&out.stdout);
        let trimmed = text.trim();
        Ok(hex::decode(trimmed.strip_prefix("0x").unwrap_or(trimmed))
            .unwrap_or_else(|_| trimmed.as_bytes().to_vec()))
    }
}

/// The address of private key `v`.
fn address_of_key(v: &DynSolValue) -> Result<Address, String> {
    let key = signing_key(v)?;
    let point = key.verifying_key().to_encoded_point(false);
    let hash = alloy_primitives::keccak256(&point.as_bytes()[1..]);
    Ok(Address::from_slice(&hash[12..]))
}

fn signing_key(v: &DynSolValue) -> Result<k256::ecdsa::SigningKey, String> {
    k256::ecdsa::SigningKey::from_slice(&word(v).to_be_bytes::<32>())
        .map_err(|_| "the private key must be in 1..secp256k1n".to_string())
}

fn to_string(v: &DynSolValue) -> String {
    match v {
        DynSolValue::Address(a) => a.to_checksum(None),
        DynSolValue::Uint(u, _) => u.to_string(),
        DynSolValue::Int(i, _) => i.to_string(),
        DynSolValue::Bool(b) => b.to_string(),
        DynSolValue::FixedBytes(b, _) => format!("{b}"),
        DynSolValue::Bytes(b) => format!("0x{}", hex::encode(b)),
        other => format!("{other:?}"),
    }
}
