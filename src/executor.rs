//! The EVM side: deploy the target once ([`Target::deploy`]), then give each
//! worker an [`Executor`] that runs calls against that deployed state with
//! full control of sender, value and block, recording coverage.
//!
//! State handling: the post-deployment state is a `CacheDB` that every
//! executor clones once. A sequence's calls run with `transact_one`, which
//! keeps their changes in revm's journal; [`Executor::reset`] drops the
//! journal without committing, so the next sequence starts from the deployed
//! state again at no copying cost.

use crate::artifacts::{Contract, Project};
use crate::coverage::{CodeId, CodeInfo, CodeKind, CoverageMap, SourceMap};
use crate::tx::Tx;
use alloy_json_abi::Function;
use alloy_primitives::{Address, B256, Bytes, Log, TxKind, U256};
use revm::context::result::{ExecutionResult, HaltReason, Output};
use revm::context::{BlockEnv, CfgEnv, Context, TxEnv};
use revm::database::{CacheDB, EmptyDB};
use revm::handler::{MainBuilder, MainContext, MainnetContext, MainnetEvm};
use revm::primitives::hardfork::SpecId;
use revm::state::AccountInfo;
use revm::{ExecuteEvm, InspectEvm};
use std::sync::Arc;
use thiserror::Error;

pub mod cheatcodes;
pub mod foundry;
pub mod inspector;

pub use inspector::{CmpKind, Comparison, CoverageInspector};

/// Echidna's default addresses (configuration defaults, declared there).
pub use crate::config::{DEFAULT_CONTRACT_ADDR, DEFAULT_DEPLOYER, DEFAULT_SENDERS};
/// Gas available to each deployment (constructors may do a lot).
pub const DEPLOY_GAS_LIMIT: u64 = 1_000_000_000;

/// Echidna's initial block.
pub const INITIAL_BLOCK_NUMBER: u64 = 4_370_000;
pub const INITIAL_TIMESTAMP: u64 = 1_524_785_992;

#[derive(Debug, Error)]
pub enum ExecError {
    #[error("deploying {contract} failed: {outcome}")]
    Deploy { contract: String, outcome: String },
    #[error("contract {contract}: {what}")]
    Code { contract: String, what: String },
    #[error("the EVM refused the transaction: {0}")]
    Evm(String),
}

/// Where and how the target is deployed and called.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EvmSettings {
    pub deployer: Address,
    pub senders: Vec<Address>,
    pub contract_addr: Address,
    /// Balance given to the deployer and every sender.
    pub balance: U256,
    /// Ether sent with the deployment.
    pub deploy_value: U256,
    /// Gas limit of each fuzzed call (`testMaxGas`).
    pub gas_limit: u64,
    /// Gas limit of property checks; running out fails the property (`propMaxGas`).
    pub prop_gas_limit: u64,
    pub block_number: u64,
    pub timestamp: u64,
    /// Balance of the target after deployment (`balanceContract`).
    pub balance_contract: U256,
    /// Largest runtime code (EIP-170); init code may be twice this (EIP-3860).
    pub code_size: u64,
    /// Contracts of the project (by name) to deploy at fixed addresses first.
    pub deploy_contracts: Vec<(Address, String)>,
    /// Creation bytecode to deploy at fixed addresses first.
    pub deploy_bytecodes: Vec<(Address, Vec<u8>)>,
    /// Constructor arguments by contract name (`constructorArgs`).
    pub constructor_args: Vec<(String, crate::config::ConstructorArgs)>,
    /// Let the `ffi` cheatcode run commands (`allowFFI`).
    pub allow_ffi: bool,
    /// Find the other contracts deployed with the target, cover their
    /// code and let calls go to them (`allContracts`).
    pub all_contracts: bool,
    /// The target is a Foundry invariant suite: run its `setUp()` after
    /// deployment and call the contracts (selectors, senders) its target
    /// lists name, not the suite itself ([`foundry`]).
    pub foundry: bool,
}

impl Default for EvmSettings {
    fn default() -> Self {
        EvmSettings {
            deployer: DEFAULT_DEPLOYER,
            senders: DEFAULT_SENDERS.to_vec(),
            contract_addr: DEFAULT_CONTRACT_ADDR,
            balance: U256::from(0xffff_ffffu64) * U256::from(10u64).pow(U256::from(18)),
            deploy_value: U256::ZERO,
            gas_limit: 12_500_000,
            prop_gas_limit: 12_500_000,
            block_number: INITIAL_BLOCK_NUMBER,
            timestamp: INITIAL_TIMESTAMP,
            balance_contract: U256::ZERO,
            code_size: crate::config::DEFAULT_CODE_SIZE,
            deploy_contracts: Vec::new(),
            deploy_bytecodes: Vec::new(),
            constructor_args: Vec::new(),
            allow_ffi: false,
            all_contracts: false,
            foundry: false,
        }
    }
}

/// The ABI-encoded constructor arguments of `c` from `given` (empty when
/// the constructor takes none). A constructor that takes arguments needs
/// them; values are parsed as in calls (`1 ether`, `0x…`, `"text"`, tuples).
pub fn constructor_input(
    c: &Contract,
    given: Option<&crate::config::ConstructorArgs>,
    deployer: Address,
) -> Result<Vec<u8>, String> {
    use crate::config::ConstructorArgs;
    let inputs = c
        .abi
        .constructor
        .as_ref()
        .map(|k| k.inputs.clone())
        .unwrap_or_default();
    let params = || {
        inputs
            .iter()
            .map(|p| {
                if p.name.is_empty() {
                    p.selector_type().into_owned()
                } else {
                    format!("{} {}", p.selector_type(), p.name)
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let given = match (inputs.is_empty(), given) {
        (true, None) => return Ok(Vec::new()),
        (true, Some(_)) => {
            return Err(format!(
                "constructorArgs gives arguments for {}, whose constructor takes none",
                c.name
            ));
        }
        (false, None) => {
            return Err(format!(
                "the constructor takes ({}); give them in the config, e.g. `constructorArgs: {{{}: \"…\"}}` (Solidity literals in order, a list, or a mapping by parameter name)",
                params(),
                c.name
            ));
        }
        (false, Some(g)) => g,
    };
    // One literal per parameter: a `string` parameter's plain value is
    // that string (quoted here); anything else is read as written.
    let typed = |p: &alloy_json_abi::Param, raw: &str| {
        if p.ty == "string" && !raw.trim_start().starts_with(['"', '\'']) {
            let mut s = String::new();
            crate::tx::write_value(&mut s, &alloy_dyn_abi::DynSolValue::String(raw.to_string()));
            s
        } else {
            raw.to_string()
        }
    };
    let text = match given {
        ConstructorArgs::Text(t) => t.clone(),
        ConstructorArgs::List(values) => {
            if values.len() != inputs.len() {
                return Err(format!(
                    "constructorArgs gives {} values; the constructor takes {}: ({})",
                    values.len(),
                    inputs.len(),
                    params()
                ));
            }
            inputs
                .iter()
                .zip(values)
                .map(|(p, v)| typed(p, v))
                .collect::<Vec<_>>()
                .join(", ")
        }
        ConstructorArgs::Named(pairs) => {
            if let Some((unknown, _)) = pairs
                .iter()
                .find(|(n, _)| !inputs.iter().any(|p| p.name == *n))
            {
                return Err(format!(
                    "constructorArgs names {unknown:?}, not a parameter of the constructor ({})",
                    params()
                ));
            }
            let mut out = Vec::new();
            for p in &inputs {
                let Some((_, v)) = pairs.iter().find(|(n, _)| *n == p.name) else {
                    return Err(format!(
                        "constructorArgs has no value for {:?} (the constructor takes ({}))",
                        p.name,
                        params()
                    ));
                };
                out.push(typed(p, v));
            }
            out.join(", ")
        }
    };
    let ctor = Arc::new(Function {
        name: "constructor".into(),
        inputs: inputs.clone(),
        outputs: Vec::new(),
        state_mutability: alloy_json_abi::StateMutability::NonPayable,
    });
    let defaults = crate::parser::CallDefaults {
        sender: deployer,
        ..Default::default()
    };
    let txs = crate::parser::parse_txs(&format!("constructor({text})"), &[ctor], &defaults)
        .map_err(|e| format!("constructorArgs {text:?}: {e}"))?;
    let [tx] = txs.as_slice() else {
        return Err(format!(
            "constructorArgs {text:?}: expected one argument list"
        ));
    };
    Ok(alloy_dyn_abi::DynSolValue::Tuple(tx.args.clone()).abi_encode_params())
}

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
}

fn convert(result: ExecutionResult<HaltReason>) -> CallResult {
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
        },
        ExecutionResult::Revert { output, logs, .. } => CallResult {
            outcome: Outcome::Revert {
                reason: decode_revert(&output),
            },
            gas_used,
            logs,
        },
        ExecutionResult::Halt { reason, logs, .. } => CallResult {
            outcome: Outcome::Halt {
                reason: Halt::Evm(reason),
            },
            gas_used,
            logs,
        },
    }
}

/// A code object of the target with its source map, for coverage reports.
#[derive(Clone, Debug)]
pub struct CodeObject {
    pub id: CodeId,
    pub kind: CodeKind,
    pub contract: String,
    pub map: SourceMap,
}

/// The deployed target, shared by every worker.
pub struct Target {
    pub project: Arc<Project>,
    pub contract: Contract,
    pub settings: EvmSettings,
    pub address: Address,
    /// Every function in the ABI, in ABI order.
    pub functions: Vec<Arc<Function>>,
    pub codes: Vec<CodeObject>,
    pub coverage: Arc<CoverageMap>,
    /// `topic0` of every `AssertionFailed(..)` event of the project: emitting
    /// one fails the call's assertion test, as in Echidna.
    pub assertion_topics: Vec<B256>,
    /// Contracts deployed before the target (libraries, `deployContracts`,
    /// `deployBytecodes`): name and address.
    pub predeployed: Vec<(String, Address)>,
    /// Where each covered runtime code runs: the target (code 1) and each
    /// linked library.
    pub runtime_codes: Vec<(Address, CodeId)>,
    /// Whether some code of the project calls the cheatcode address: then
    /// every call runs under the inspector (which answers cheatcodes), even
    /// where coverage is not recorded.
    pub uses_cheatcodes: bool,
    /// The block after deployment (constructors may `warp`, `roll`, `fee`…);
    /// each sequence starts from it.
    initial_block: BlockEnv,
    initial_chain_id: u64,
    /// Every account with code after deployment (the target, libraries,
    /// contracts its constructor created): argument values worth trying.
    pub deployed_contracts: Vec<Address>,
    /// With `allContracts`: the other contracts deployed with the target
    /// whose code is one of the project's, which calls may go to.
    pub others: Arc<[crate::tx::Callee]>,
    deployed: CacheDB<EmptyDB>,
    /// Coverage row used for deployment and campaign-side calls.
    pub campaign_row: usize,
}

impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Target")
            .field("contract", &self.contract.name)
            .field("address", &self.address)
            .finish()
    }
}

/// Registers `c`'s runtime code for coverage: its code id.
fn add_runtime(
    codes: &mut Vec<CodeObject>,
    infos: &mut Vec<CodeInfo>,
    c: &Contract,
    map: SourceMap,
) -> CodeId {
    let id = CodeId(codes.len() as u32);
    codes.push(CodeObject {
        id,
        kind: CodeKind::Runtime,
        contract: c.name.clone(),
        map,
    });
    infos.push(CodeInfo {
        contract: c.name.clone(),
        kind: CodeKind::Runtime,
        len: c.runtime_code.len(),
    });
    id
}

/// Whether `deployed` runtime code is `artifact`'s: the same length and the
/// same bytes wherever the artifact's are not zero (immutables and linked
/// library addresses are zeros in the artifact, filled in on chain).
fn same_contract(artifact: &[u8], deployed: &[u8]) -> bool {
    artifact.len() == deployed.len()
        && artifact
            .iter()
            .zip(deployed)
            .all(|(a, d)| *a == 0 || a == d)
}

type Evm = MainnetEvm<MainnetContext<CacheDB<EmptyDB>>, CoverageInspector>;

fn build_evm(db: CacheDB<EmptyDB>, settings: &EvmSettings, insp: CoverageInspector) -> Evm {
    Context::mainnet()
        .with_db(db)
        .modify_cfg_chained(|cfg: &mut CfgEnv| {
            cfg.set_spec_and_mainnet_gas_params(SpecId::CANCUN);
            cfg.disable_nonce_check = true;
            // Fuzzed calls are priced by `maxGasprice`, not by the block's
            // base fee (which `vm.fee` may raise): as in hevm, a price below
            // it is no reason to refuse a call.
            cfg.disable_base_fee = true;
            let size = usize::try_from(settings.code_size).unwrap_or(usize::MAX);
            cfg.limit_contract_code_size = Some(size);
            cfg.limit_contract_initcode_size = Some(size.saturating_mul(2));
        })
        .modify_block_chained(|b: &mut BlockEnv| {
            b.number = U256::from(settings.block_number);
            b.timestamp = U256::from(settings.timestamp);
            b.gas_limit = u64::MAX;
            b.basefee = 0;
        })
        .build_mainnet_with_inspector(insp)
}

fn tx_env(
    settings: &EvmSettings,
    caller: Address,
    kind: TxKind,
    data: Bytes,
    value: U256,
) -> TxEnv {
    TxEnv {
        caller,
        kind,
        data,
        value,
        gas_limit: settings.gas_limit,
        gas_price: 0,
        chain_id: None,
        ..TxEnv::default()
    }
}

pub use crate::tx::{FALLBACK, is_fallback};

/// The pseudo-function for a contract with a `receive` or `fallback`
/// (payable if either is).
fn fallback_function(abi: &alloy_json_abi::JsonAbi) -> Option<Function> {
    use alloy_json_abi::StateMutability;
    if abi.function(FALLBACK).is_some() {
        return None; // a real function of that name (solc < 0.6): leave it be
    }
    let payable = abi.receive.is_some()
        || abi
            .fallback
            .as_ref()
            .is_some_and(|f| f.state_mutability == StateMutability::Payable);
    (abi.receive.is_some() || abi.fallback.is_some()).then(|| Function {
        name: FALLBACK.into(),
        inputs: Vec::new(),
        outputs: Vec::new(),
        state_mutability: if payable {
            StateMutability::Payable
        } else {
            StateMutability::NonPayable
        },
    })
}

/// Whether any code of the project mentions the cheatcode address.
fn uses_cheatcodes(project: &Project) -> bool {
    let needle = cheatcodes::CHEATCODE_ADDRESS;
    project.contracts.iter().any(|c| {
        // The address itself, or the string it is derived from when solc
        // hashes it at run time (`keccak256("hevm cheat code")`, optimizer off).
        [&c.creation_code, &c.runtime_code].iter().any(|code| {
            code.windows(20).any(|w| w == needle.as_slice())
                || code.windows(15).any(|w| w == b"hevm cheat code")
        })
    })
}

/// `topic0` of each `AssertionFailed` event declared anywhere in the project.
fn assertion_topics(project: &Project) -> Vec<B256> {
    let mut topics: Vec<B256> = project
        .contracts
        .iter()
        .flat_map(|c| c.abi.events())
        .filter(|e| e.name == "AssertionFailed")
        .map(|e| e.selector())
        .collect();
    // Common shapes, for events declared only in an interface or library.
    for sig in [
        "AssertionFailed()",
        "AssertionFailed(string)",
        "AssertionFailed(uint256)",
    ] {
        topics.push(alloy_primitives::keccak256(sig));
    }
    topics.sort();
    topics.dedup();
    topics
}

/// Runs a CREATE of `code` from the deployer and commits it, at address
/// `at` when given (the constructor runs there: its `address(this)`, and the
/// owner it hands to contracts it creates, are where the contract stays).
/// Returns where the contract lives.
fn create(
    evm: &mut Evm,
    settings: &EvmSettings,
    name: &str,
    code: Bytes,
    value: U256,
    at: Option<Address>,
) -> Result<Address, ExecError> {
    let mut tx = tx_env(settings, settings.deployer, TxKind::Create, code, value);
    // Deployments are not fuzzed calls: `testMaxGas` does not bound them.
    tx.gas_limit = DEPLOY_GAS_LIMIT;
    evm.inspector.next_create_at = at;
    let result = evm.inspect_one_tx(tx).map_err(|e| {
        evm.inspector.next_create_at = None;
        let text = e.to_string();
        if text.contains("initcode size") {
            ExecError::Deploy {
                contract: name.to_string(),
                outcome: format!(
                    "{text} (creation code over {} bytes, twice `codeSize`; raise `codeSize` to allow it)",
                    settings.code_size.saturating_mul(2)
                ),
            }
        } else {
            ExecError::Evm(text)
        }
    })?;
    let state = evm.finalize();
    let created = match &result {
        ExecutionResult::Success {
            output: Output::Create(_, Some(a)),
            ..
        } => *a,
        other => {
            let mut outcome = convert(other.clone()).outcome.to_string();
            if outcome.contains("CreateContractSizeLimit") {
                outcome.push_str(&format!(
                    " (runtime code over {} bytes, EIP-170; raise `codeSize` to allow it)",
                    settings.code_size
                ));
            }
            return Err(ExecError::Deploy {
                contract: name.to_string(),
                outcome,
            });
        }
    };
    use revm::DatabaseCommit;
    evm.ctx.journaled_state.database.commit(state);
    Ok(created)
}

impl Target {
    /// Deploys `contract` of `project` from the deployer and moves it to
    /// `settings.contract_addr`. `workers` coverage rows are made, plus one
    /// for the campaign.
    pub fn deploy(
        project: Arc<Project>,
        contract: &Contract,
        settings: EvmSettings,
        workers: usize,
    ) -> Result<Target, ExecError> {
        let code_err = |what: String| ExecError::Code {
            contract: contract.name.clone(),
            what,
        };
        let creation_map = SourceMap::new(
            contract.creation_map.as_deref().unwrap_or(""),
            &contract.creation_code,
        )
        .map_err(|e| code_err(format!("creation source map: {e}")))?;
        let runtime_map = SourceMap::new(
            contract.runtime_map.as_deref().unwrap_or(""),
            &contract.runtime_code,
        )
        .map_err(|e| code_err(format!("runtime source map: {e}")))?;
        let mut codes = vec![
            CodeObject {
                id: CodeId(0),
                kind: CodeKind::Creation,
                contract: contract.name.clone(),
                map: creation_map,
            },
            CodeObject {
                id: CodeId(1),
                kind: CodeKind::Runtime,
                contract: contract.name.clone(),
                map: runtime_map,
            },
        ];
        let mut infos = vec![
            CodeInfo {
                contract: contract.name.clone(),
                kind: CodeKind::Creation,
                len: contract.creation_code.len(),
            },
            CodeInfo {
                contract: contract.name.clone(),
                kind: CodeKind::Runtime,
                len: contract.runtime_code.len(),
            },
        ];
        // The runtime code of each linked library is covered too (its lines
        // appear in LCOV under the library's source): code ids from 2, in
        // link order.
        let libraries = project
            .link_order(contract)
            .map_err(|e| code_err(e.to_string()))?;
        let mut library_codes: Vec<(String, CodeId)> = Vec::new();
        for lib in &libraries {
            let Some(text) = lib.runtime_map.as_deref() else {
                continue;
            };
            let Ok(map) = SourceMap::new(text, &lib.runtime_code) else {
                tracing::warn!(
                    "library {}: its runtime source map does not read; its lines are not in coverage",
                    lib.name
                );
                continue;
            };
            let id = add_runtime(&mut codes, &mut infos, lib, map);
            library_codes.push((lib.qualified_name(), id));
        }
        // With `allContracts`, every other contract of the project that has
        // runtime code may be deployed with the target (by its constructor
        // or `deployContracts`): its code is covered once found there.
        // (Without a readable source map it is still called, not covered.)
        let mut candidates: Vec<(&Contract, Option<CodeId>)> = Vec::new();
        if settings.all_contracts || settings.foundry {
            for c in &project.contracts {
                if c.is_library
                    || c.runtime_code.is_empty()
                    || c.qualified_name() == contract.qualified_name()
                {
                    continue;
                }
                let id = c
                    .runtime_map
                    .as_deref()
                    .and_then(|text| SourceMap::new(text, &c.runtime_code).ok())
                    .map(|map| add_runtime(&mut codes, &mut infos, c, map));
                candidates.push((c, id));
            }
        }
        let coverage = Arc::new(CoverageMap::new(infos, workers + 1));
        let campaign_row = workers;

        if contract.runtime_code.len() as u64 > settings.code_size {
            return Err(code_err(format!(
                "runtime code is {} bytes, over the code size limit of {} (EIP-170); set `codeSize` in the config to deploy it anyway",
                contract.runtime_code.len(),
                settings.code_size
            )));
        }
        let mut db = CacheDB::new(EmptyDB::default());
        // `balanceContract` is the deployment's value when the constructor
        // is payable (as Echidna sends it: a constructor may spend or check
        // its funds); otherwise it is credited once the constructor ran.
        let payable_constructor = contract
            .abi
            .constructor
            .as_ref()
            .is_some_and(|c| c.state_mutability == alloy_json_abi::StateMutability::Payable);
        let endowment = if payable_constructor {
            settings.balance_contract
        } else {
            U256::ZERO
        };
        let mut funded = settings.senders.clone();
        funded.push(settings.deployer);
        for a in funded {
            // The deployer pays the endowment on top of its own balance.
            let extra = if a == settings.deployer {
                endowment.saturating_add(settings.deploy_value)
            } else {
                U256::ZERO
            };
            db.insert_account_info(
                a,
                AccountInfo {
                    balance: settings.balance.saturating_add(extra),
                    ..Default::default()
                },
            );
        }
        if uses_cheatcodes(&project) {
            // Solidity checks `extcodesize` before a call that returns
            // nothing: the cheatcode address needs code (never run: the
            // inspector answers those calls), as in hevm and Foundry.
            let code = revm::bytecode::Bytecode::new_raw(Bytes::from_static(&[0x00]));
            db.insert_account_info(
                cheatcodes::CHEATCODE_ADDRESS,
                AccountInfo {
                    code_hash: code.hash_slow(),
                    code: Some(code),
                    ..Default::default()
                },
            );
        }
        let mut insp = CoverageInspector::new(coverage.recorder(campaign_row), Vec::new());
        insp.cheats = cheatcodes::Cheatcodes::new(settings.allow_ffi);
        let mut evm = build_evm(db, &settings, insp);
        let mut runtime_codes: Vec<(Address, CodeId)> = Vec::new();
        // Libraries first (dependencies before dependents), then what the
        // config asks to deploy, then the target.
        let mut predeployed: Vec<(String, Address)> = Vec::new();
        let link = |done: &[(String, Address)], c: &Contract| {
            c.linked_creation_code(|lib| done.iter().find(|(n, _)| n == lib).map(|(_, a)| *a))
                .map_err(|e| code_err(e.to_string()))
        };
        // Creation code followed by the constructor's encoded arguments.
        let with_args = |code: Bytes, c: &Contract| -> Result<Bytes, ExecError> {
            let given = settings
                .constructor_args
                .iter()
                .find(|(n, _)| *n == c.name || *n == c.qualified_name())
                .map(|(_, a)| a);
            let args =
                constructor_input(c, given, settings.deployer).map_err(|what| ExecError::Code {
                    contract: c.name.clone(),
                    what,
                })?;
            Ok([code.as_ref(), &args].concat().into())
        };
        for lib in libraries {
            let code = link(&predeployed, lib)?;
            let a = create(&mut evm, &settings, &lib.name, code, U256::ZERO, None)?;
            if let Some((_, id)) = library_codes
                .iter()
                .find(|(n, _)| *n == lib.qualified_name())
            {
                runtime_codes.push((a, *id));
                evm.inspector.runtime.push((a, *id));
            }
            predeployed.push((lib.qualified_name(), a));
        }
        for (at, name) in &settings.deploy_contracts {
            let c = project.by_name(name).ok_or_else(|| {
                code_err(format!(
                    "deployContracts: no contract named {name:?} in the project"
                ))
            })?;
            for lib in project.link_order(c).map_err(|e| code_err(e.to_string()))? {
                if !predeployed.iter().any(|(n, _)| *n == lib.qualified_name()) {
                    let code = link(&predeployed, lib)?;
                    let a = create(&mut evm, &settings, &lib.name, code, U256::ZERO, None)?;
                    predeployed.push((lib.qualified_name(), a));
                }
            }
            let code = with_args(link(&predeployed, c)?, c)?;
            let a = create(&mut evm, &settings, name, code, U256::ZERO, Some(*at))?;
            predeployed.push((c.qualified_name(), a));
        }
        for (at, code) in &settings.deploy_bytecodes {
            let label = format!("bytecode at {at}");
            let a = create(
                &mut evm,
                &settings,
                &label,
                code.clone().into(),
                U256::ZERO,
                Some(*at),
            )?;
            predeployed.push((label, a));
        }
        let creation = with_args(link(&predeployed, contract)?, contract)?;
        evm.inspector.next_creation = Some(CodeId(0));
        let address = create(
            &mut evm,
            &settings,
            &contract.name,
            creation,
            settings.deploy_value.saturating_add(endowment),
            Some(settings.contract_addr),
        )?;
        // A Foundry suite's setUp() deploys the system under test.
        let suite = if settings.foundry {
            foundry::set_up(&mut evm, &settings, &contract.name, &contract.abi, address)?;
            Some(foundry::targets(
                &mut evm,
                &settings,
                &contract.abi,
                address,
            ))
        } else {
            None
        };
        evm.inspector.recorder.commit();
        runtime_codes.insert(0, (address, CodeId(1)));
        // Cheatcodes in constructors move the block: sequences start there.
        let mut settings = settings;
        let initial_block = evm.ctx.block.clone();
        let initial_chain_id = evm.ctx.cfg.chain_id;
        settings.block_number = initial_block.number.saturating_to();
        settings.timestamp = initial_block.timestamp.saturating_to();
        let mut db = std::mem::take(&mut evm.ctx.journaled_state.database);
        if !payable_constructor
            && !settings.balance_contract.is_zero()
            && let Some(acc) = db.cache.accounts.get_mut(&address)
        {
            acc.info.balance = settings.balance_contract;
        }
        let assertion_topics = assertion_topics(&project);
        let mut deployed_contracts: Vec<Address> = db
            .cache
            .accounts
            .iter()
            .filter(|(a, acc)| {
                **a != cheatcodes::CHEATCODE_ADDRESS
                    && acc.info.code.as_ref().is_some_and(|c| !c.is_empty())
            })
            .map(|(a, _)| *a)
            .collect();
        deployed_contracts.sort();
        let mut others: Vec<crate::tx::Callee> = Vec::new();
        for a in &deployed_contracts {
            // Libraries are no candidates; the target is itself.
            if *a == address {
                continue;
            }
            let Some(code) = db
                .cache
                .accounts
                .get(a)
                .and_then(|acc| acc.info.code.as_ref())
            else {
                continue;
            };
            let runtime = code.original_byte_slice();
            let Some((c, id)) = candidates
                .iter()
                .find(|(c, _)| same_contract(&c.runtime_code, runtime))
            else {
                continue;
            };
            if let Some(id) = id {
                runtime_codes.push((*a, *id));
            }
            if suite.as_ref().is_some_and(|t| !t.targets(*a)) {
                continue;
            }
            let mut functions: Vec<Arc<Function>> =
                c.abi.functions().map(|f| Arc::new(f.clone())).collect();
            if let Some(f) = fallback_function(&c.abi) {
                functions.push(Arc::new(f));
            }
            if let Some(t) = &suite {
                functions.retain(|f| t.calls(*a, f.selector()));
            }
            others.push(crate::tx::Callee {
                name: c.name.clone(),
                address: *a,
                functions,
            });
        }
        let uses_cheatcodes = uses_cheatcodes(&project);
        let mut functions: Vec<Arc<Function>> = contract
            .abi
            .functions()
            .map(|f| Arc::new(f.clone()))
            .collect();
        if let Some(f) = fallback_function(&contract.abi) {
            functions.push(Arc::new(f));
        }
        if let Some(t) = &suite {
            settings.senders = t.senders(&settings.senders);
        }
        Ok(Target {
            project,
            contract: contract.clone(),
            settings,
            address,
            functions,
            codes,
            coverage,
            deployed: db,
            campaign_row,
            assertion_topics,
            predeployed,
            runtime_codes,
            uses_cheatcodes,
            deployed_contracts,
            others: others.into(),
            initial_block,
            initial_chain_id,
        })
    }

    /// An executor over a fresh copy of the deployed state, recording into
    /// coverage row `row`.
    pub fn executor(self: &Arc<Self>, row: usize) -> Executor {
        let mut insp =
            CoverageInspector::new(self.coverage.recorder(row), self.runtime_codes.clone());
        insp.cheats = cheatcodes::Cheatcodes::new(self.settings.allow_ffi);
        let mut evm = build_evm(self.deployed.clone(), &self.settings, insp);
        evm.ctx.block = self.initial_block.clone();
        evm.ctx.cfg.chain_id = self.initial_chain_id;
        Executor {
            evm,
            target: self.clone(),
            block_number: self.settings.block_number,
            timestamp: self.settings.timestamp,
            recording: true,
            views: 0,
            states: StatesSeen::default(),
            new_states: 0,
            inert: false,
        }
    }

    /// An executor over a fresh copy of the deployed state that changes
    /// nothing shared: its coverage is only compared with the campaign's
    /// (`commit_coverage` answers what would be new, publishing nothing).
    pub fn isolated_executor(self: &Arc<Self>) -> Executor {
        let mut ex = self.executor(0);
        ex.evm.inspector.recorder = self.coverage.scratch_recorder();
        ex
    }

    /// The coverage report of the target's sources right now.
    pub fn coverage_report(&self) -> crate::coverage::CoverageReport {
        let codes: Vec<_> = self
            .codes
            .iter()
            .map(|c| crate::coverage::lcov::CodeSource {
                id: c.id,
                contract: &c.contract,
                map: &c.map,
            })
            .collect();
        crate::coverage::CoverageReport::build(&self.project, &codes, &self.coverage)
    }

    /// Balance of `who` in the deployed state.
    pub fn deployed_balance(&self, who: Address) -> U256 {
        self.deployed
            .cache
            .accounts
            .get(&who)
            .map_or(U256::ZERO, |a| a.info.balance)
    }
}

/// A sequence's state between two calls ([`Executor::snapshot`]).
#[derive(Clone)]
pub struct Snapshot {
    /// The accounts the calls touched (the journal's other fields are
    /// empty or constant between two calls).
    state: revm::state::EvmState,
    transaction_id: revm::state::TransactionId,
    block_number: u64,
    timestamp: u64,
    /// Block, chain id and cheatcode state, for targets that use cheatcodes.
    cheats: Option<Box<(BlockEnv, u64, cheatcodes::Cheatcodes)>>,
}

impl std::fmt::Debug for Snapshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Snapshot")
            .field("accounts", &self.state.len())
            .field("block_number", &self.block_number)
            .field("timestamp", &self.timestamp)
            .finish()
    }
}

/// A worker's EVM over the deployed state.
pub struct Executor {
    evm: Evm,
    target: Arc<Target>,
    block_number: u64,
    timestamp: u64,
    recording: bool,
    views: u64,
    /// Storage states this executor's calls reached (`stateFeedback`).
    states: StatesSeen,
    /// Storage states the last call reached first.
    new_states: u32,
    /// Whether the last call left the state as it was.
    inert: bool,
}

/// States remembered per storage slot at most.
const STATES_PER_SLOT: usize = 64;

/// Slots remembered per code object at most (a mapping keyed by an
/// argument has as many slots as keys).
const SLOTS_PER_CODE: usize = 32;

/// States per code object at most: a 5x5 maze has 25 cells, and a target
/// whose guard slots take more states than this (a token's balances that
/// some equality compared) must not flood the corpus with them.
const STATES_PER_CODE: usize = 64;

/// The storage states a worker's calls reached (per guard slot, which of
/// the values equalities compared them with its guard fields hold: see the
/// inspector), up to [`STATES_PER_SLOT`] states and [`SLOTS_PER_CODE`]
/// slots. A write of a state a slot has not had is a new state: the
/// sequence that made it is kept like one that reached new code (a cell of
/// a maze, a phase of a protocol), so the guards that read it can be
/// reached from there.
#[derive(Default)]
struct StatesSeen {
    slots: std::collections::HashMap<(CodeId, U256), Vec<u64>>,
    /// Slots and states remembered per code object.
    per_code: std::collections::HashMap<CodeId, (usize, usize)>,
}

impl StatesSeen {
    /// Whether `state` of `slot` of `code` was not reached before (and
    /// remembers it).
    fn reached(&mut self, code: CodeId, slot: U256, state: u64) -> bool {
        let (slots, total) = self.per_code.entry(code).or_default();
        if *total >= STATES_PER_CODE {
            return false;
        }
        let states = match self.slots.get_mut(&(code, slot)) {
            Some(v) => v,
            None if *slots < SLOTS_PER_CODE => {
                *slots += 1;
                self.slots.entry((code, slot)).or_default()
            }
            None => return false,
        };
        if states.len() >= STATES_PER_SLOT || states.contains(&state) {
            return false;
        }
        states.push(state);
        *total += 1;
        true
    }
}

impl Executor {
    pub fn target(&self) -> &Arc<Target> {
        &self.target
    }

    /// Back to the deployed state and the initial block.
    pub fn reset(&mut self) {
        let _ = self.evm.finalize();
        self.block_number = self.target.settings.block_number;
        self.timestamp = self.target.settings.timestamp;
        if self.target.uses_cheatcodes {
            self.evm.ctx.block = self.target.initial_block.clone();
            self.evm.ctx.cfg.chain_id = self.target.initial_chain_id;
            self.evm.inspector.cheats.reset();
        }
    }

    /// The sequence's state between two calls (storage, balances, block,
    /// cheatcode state): [`restore`](Self::restore) makes the next call run
    /// as if the calls before it had just run, for the price of a copy of
    /// the accounts they touched.
    pub fn snapshot(&self) -> Snapshot {
        let ctx = &self.evm.ctx;
        Snapshot {
            state: ctx.journaled_state.inner.state.clone(),
            transaction_id: ctx.journaled_state.inner.transaction_id,
            block_number: self.block_number,
            timestamp: self.timestamp,
            cheats: self.target.uses_cheatcodes.then(|| {
                Box::new((
                    ctx.block.clone(),
                    ctx.cfg.chain_id,
                    self.evm.inspector.cheats.clone(),
                ))
            }),
        }
    }

    /// Back to `snapshot` (taken by this executor, between two calls).
    pub fn restore(&mut self, snapshot: &Snapshot) {
        let _ = self.evm.finalize();
        let journal = &mut self.evm.ctx.journaled_state.inner;
        journal.state.clone_from(&snapshot.state);
        journal.transaction_id = snapshot.transaction_id;
        self.block_number = snapshot.block_number;
        self.timestamp = snapshot.timestamp;
        if let Some(c) = &snapshot.cheats {
            let (block, chain_id, cheats) = &**c;
            self.evm.ctx.block = block.clone();
            self.evm.ctx.cfg.chain_id = *chain_id;
            self.evm.inspector.cheats = cheats.clone();
        }
    }

    /// Moves the block time to `timestamp` if it is later (a replay
    /// starting at a given date).
    pub fn advance_time_to(&mut self, timestamp: u64) {
        self.timestamp = self.timestamp.max(timestamp);
    }

    /// Current (block number, timestamp).
    pub fn block(&self) -> (u64, u64) {
        (self.block_number, self.timestamp)
    }

    fn set_block(&mut self) {
        self.evm.ctx.block.number = U256::from(self.block_number);
        self.evm.ctx.block.timestamp = U256::from(self.timestamp);
    }

    /// Turns coverage recording of [`call`](Self::call) on or off (the
    /// shrinker's replays do not count as coverage).
    pub fn set_recording(&mut self, on: bool) {
        self.recording = on;
    }

    /// Runs `tx` after its delay, recording coverage. State changes persist
    /// until [`reset`](Self::reset).
    pub fn call(&mut self, tx: &Tx) -> CallResult {
        self.block_number = self.block_number.saturating_add(tx.delay.blocks);
        self.timestamp = self.timestamp.saturating_add(tx.delay.seconds);
        self.set_block();
        self.evm.inspector.enabled = self.recording;
        self.evm.inspector.cmps.clear();
        self.evm.inspector.path_branches = 0;
        self.evm.inspector.loads.clear();
        self.evm.inspector.wrote = false;
        let mut env = tx_env(
            &self.target.settings,
            tx.sender,
            TxKind::Call(tx.to.unwrap_or(self.target.address)),
            Bytes::from(tx.calldata()),
            tx.value,
        );
        env.gas_price = tx.gas_price;
        let r = self.run(env, true);
        // Inert: undone by a revert, or seen whole and nothing written (no
        // gas paid either: a gas price moves the sender's balance).
        let seen = self.evm.inspector.enabled && self.evm.inspector.writes_on;
        self.inert = tx.gas_price == 0
            && match r.outcome {
                Outcome::Success { .. } => seen && !self.evm.inspector.wrote && tx.value.is_zero(),
                _ => true,
            };
        self.new_states = 0;
        // A reverted call's writes were undone: no state was reached.
        if matches!(r.outcome, Outcome::Success { .. }) {
            for &(code, slot, state) in &self.evm.inspector.writes {
                self.new_states += self.states.reached(code, slot, state) as u32;
            }
        }
        self.evm.inspector.writes.clear();
        r
    }

    /// Whether the last [`call`](Self::call) certainly left the EVM state
    /// as it was (reverted, or wrote nothing with state feedback on, which
    /// watches writes): dropping it from a sequence changes nothing the
    /// calls after it see, once its delay is carried to the next.
    pub fn last_call_inert(&self) -> bool {
        self.inert
    }

    /// Storage states the last [`call`](Self::call) reached first (with
    /// state feedback on): slot values not written before.
    pub fn new_states(&self) -> u32 {
        self.new_states
    }

    /// Turns state feedback on or off (`stateFeedback`).
    pub fn set_state_feedback(&mut self, on: bool) {
        self.evm.inspector.writes_on = on;
    }

    /// Calls `function` with no arguments from `sender` (property and
    /// optimization checks). Coverage is recorded for one check in 64, enough
    /// to cover the property functions' own lines at a fraction of the cost.
    pub fn call_view(&mut self, function: &Arc<Function>, sender: Address) -> CallResult {
        self.set_block();
        self.views = self.views.wrapping_add(1);
        let record = self.recording && self.views % 64 == 1;
        self.evm.inspector.enabled = record;
        let mut env = tx_env(
            &self.target.settings,
            sender,
            TxKind::Call(self.target.address),
            Bytes::copy_from_slice(&crate::tx::selector_of(function)[..]),
            U256::ZERO,
        );
        env.gas_limit = self.target.settings.prop_gas_limit;
        self.run(env, record)
    }

    /// A view call with its calldata (a spec's condition), under the
    /// property gas limit, without coverage.
    pub fn call_view_data(&mut self, data: Bytes, sender: Address) -> CallResult {
        self.set_block();
        self.evm.inspector.enabled = false;
        let mut env = tx_env(
            &self.target.settings,
            sender,
            TxKind::Call(self.target.address),
            data,
            U256::ZERO,
        );
        env.gas_limit = self.target.settings.prop_gas_limit;
        self.run(env, false)
    }

    /// Runs raw calldata (used by benches and tests).
    pub fn call_raw(
        &mut self,
        sender: Address,
        data: Bytes,
        value: U256,
        inspect: bool,
    ) -> CallResult {
        self.set_block();
        let env = tx_env(
            &self.target.settings,
            sender,
            TxKind::Call(self.target.address),
            data,
            value,
        );
        self.run(env, inspect)
    }

    fn run(&mut self, env: TxEnv, inspect: bool) -> CallResult {
        let r = if (inspect && self.evm.inspector.enabled) || self.target.uses_cheatcodes {
            self.evm.inspect_one_tx(env)
        } else {
            self.evm.transact_one(env)
        };
        if self.target.uses_cheatcodes {
            // `warp` and `roll` last for the rest of the sequence.
            self.block_number = self.evm.ctx.block.number.saturating_to();
            self.timestamp = self.evm.ctx.block.timestamp.saturating_to();
        }
        match r {
            Ok(res) => convert(res),
            Err(e) => CallResult {
                outcome: Outcome::Halt {
                    reason: Halt::Rejected(e.to_string()),
                },
                gas_used: 0,
                logs: Vec::new(),
            },
        }
    }

    /// Publishes coverage first seen since the last call of this; returns
    /// the number of points new to the campaign.
    pub fn commit_coverage(&mut self) -> u32 {
        self.evm.inspector.recorder.commit()
    }

    /// Takes the addresses of contracts created since the last call of this
    /// (seen only when the call ran under the inspector).
    pub fn take_created(&mut self) -> Vec<Address> {
        std::mem::take(&mut self.evm.inspector.created)
    }

    /// Turns comparison feedback on or off (`comparisonFeedback`).
    pub fn set_comparisons(&mut self, on: bool) {
        self.evm.inspector.cmp_on = on;
    }

    /// Logs every comparison on the path of the next calls, not only those
    /// of half-covered branches (the input-to-state stage's candidates).
    pub fn set_comparisons_on_path(&mut self, on: bool) {
        self.evm.inspector.cmp_all = on;
    }

    /// Branches the last [`call`](Self::call) decided, if it logged its
    /// whole path (0 otherwise).
    pub fn path_branches(&self) -> u32 {
        self.evm.inspector.path_branches
    }

    /// The comparisons that decided half-covered branches during the last
    /// [`call`](Self::call) (empty with feedback off).
    pub fn comparisons(&self) -> &[Comparison] {
        &self.evm.inspector.cmps
    }

    /// Takes the words seen in logs since the last call.
    pub fn take_log_words(&mut self) -> Vec<B256> {
        std::mem::take(&mut self.evm.inspector.log_words)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tx::Delay;
    use alloy_dyn_abi::DynSolValue;
    use std::path::Path;

    pub(crate) fn target(name: &str) -> Arc<Target> {
        let project =
            Arc::new(Project::load(Path::new(&format!("contracts/out/{name}.json"))).unwrap());
        let contract = project.contract(None).unwrap().clone();
        Arc::new(Target::deploy(project, &contract, EvmSettings::default(), 1).unwrap())
    }

    fn tx(t: &Target, sig: &str, args: Vec<DynSolValue>, sender: Address, delay: Delay) -> Tx {
        Tx {
            function: t
                .functions
                .iter()
                .find(|f| f.signature() == sig)
                .unwrap()
                .clone(),
            args,
            sender,
            value: U256::ZERO,
            delay,
            gas_price: 0,
            to: None,
        }
    }

    fn prop(ex: &mut Executor, name: &str) -> bool {
        let f = ex
            .target()
            .functions
            .iter()
            .find(|f| f.name == name)
            .unwrap()
            .clone();
        match ex.call_view(&f, DEFAULT_SENDERS[0]).outcome {
            Outcome::Success { output } => output.last() == Some(&1),
            _ => false,
        }
    }

    #[test]
    fn comparisons_behind_half_covered_branches_are_logged_once_per_pair() {
        use alloy_primitives::I256;
        let t = target("Ladder");
        let mut ex = t.executor(0);
        ex.set_comparisons(true);
        let sig = "climbA(uint8,uint16,int32,bool,uint64)";
        let args = |a: u64| {
            vec![
                DynSolValue::Uint(U256::from(a), 8),
                DynSolValue::Uint(U256::from(7), 16),
                DynSolValue::Int(I256::try_from(-5).unwrap(), 32),
                DynSolValue::Bool(true),
                DynSolValue::Uint(U256::from(9), 64),
            ]
        };
        let s = DEFAULT_SENDERS[0];
        // First rung fails: `a > 100` with a = 5 is logged.
        ex.call(&tx(&t, sig, args(5), s, Delay::NONE));
        let first: Vec<_> = ex.comparisons().to_vec();
        assert!(
            first.iter().any(|c| c.kind == CmpKind::Order
                && (c.a, c.b) == (U256::from(5), U256::from(100))),
            "{first:?}"
        );
        // First rung passes: now `b == 31337` (solc: SUB then JUMPI) is the
        // frontier, and the first rung, seen both ways, is not logged.
        ex.call(&tx(&t, sig, args(110), s, Delay::NONE));
        let second = ex.comparisons().to_vec();
        assert!(
            second
                .iter()
                .any(|c| c.kind == CmpKind::Eq && (c.a, c.b) == (U256::from(7), U256::from(31337))),
            "{second:?}"
        );
        assert!(!second.iter().any(|c| c.b == U256::from(100)), "{second:?}");
        // The same operands again teach nothing: not logged twice.
        ex.call(&tx(&t, sig, args(110), s, Delay::NONE));
        assert!(
            !ex.comparisons().iter().any(|c| c.b == U256::from(31337)),
            "{:?}",
            ex.comparisons()
        );
        // Off: nothing.
        ex.set_comparisons(false);
        ex.call(&tx(&t, sig, args(111), s, Delay::NONE));
        assert!(ex.comparisons().is_empty());
    }

    #[test]
    fn set_seven_then_go_breaks_the_property_and_reset_restores_it() {
        let t = target("SetSeven");
        let mut ex = t.executor(0);
        let s = DEFAULT_SENDERS[0];
        assert!(prop(&mut ex, "echidna_not_gone"));
        let r = ex.call(&tx(
            &t,
            "set(uint256)",
            vec![DynSolValue::Uint(U256::from(7), 256)],
            s,
            Delay::NONE,
        ));
        assert!(r.outcome.is_success());
        assert!(r.gas_used > 21_000);
        ex.call(&tx(&t, "go()", vec![], s, Delay::NONE));
        assert!(!prop(&mut ex, "echidna_not_gone"));
        ex.reset();
        assert!(prop(&mut ex, "echidna_not_gone"));
        assert!(ex.commit_coverage() > 0);
    }

    #[test]
    fn restoring_a_snapshot_brings_back_storage_and_block_between_calls() {
        let t = target("SetSeven");
        let mut ex = t.executor(0);
        let s = DEFAULT_SENDERS[0];
        let set = |v: u64, delay| {
            tx(
                &t,
                "set(uint256)",
                vec![DynSolValue::Uint(U256::from(v), 256)],
                s,
                delay,
            )
        };
        ex.call(&set(7, Delay::NONE));
        let later = Delay {
            blocks: 3,
            seconds: 60,
        };
        ex.call(&set(7, later));
        let snap = ex.snapshot();
        let block = ex.block();
        // Overwritten, and time moves on: `go` after it breaks nothing.
        ex.call(&set(8, later));
        ex.call(&tx(&t, "go()", vec![], s, Delay::NONE));
        assert!(prop(&mut ex, "echidna_not_gone"));
        assert_ne!(ex.block(), block);
        // Back to `x == 7`: `go` breaks the property, at the snapshot's block.
        ex.restore(&snap);
        assert_eq!(ex.block(), block);
        ex.call(&tx(&t, "go()", vec![], s, Delay::NONE));
        assert!(!prop(&mut ex, "echidna_not_gone"));
        // The snapshot is reusable, and reset still leaves it behind.
        ex.restore(&snap);
        ex.call(&set(8, Delay::NONE));
        ex.call(&tx(&t, "go()", vec![], s, Delay::NONE));
        assert!(prop(&mut ex, "echidna_not_gone"));
        ex.reset();
        ex.call(&tx(&t, "go()", vec![], s, Delay::NONE));
        assert!(prop(&mut ex, "echidna_not_gone"));
    }

    #[test]
    fn a_guard_slot_written_a_compared_value_is_a_new_state() {
        let t = target("SetSeven");
        let mut ex = t.executor(0);
        let s = DEFAULT_SENDERS[0];
        let set = |v: U256| {
            tx(
                &t,
                "set(uint256)",
                vec![DynSolValue::Uint(v, 256)],
                s,
                Delay::NONE,
            )
        };
        // Off by default: nothing is counted.
        ex.call(&set(U256::from(7)));
        assert_eq!(ex.new_states(), 0);
        ex.set_state_feedback(true);
        // `x` guards nothing yet: writing it reaches no state.
        ex.call(&set(U256::from(4)));
        assert_eq!(ex.new_states(), 0);
        // `go` reads `x` (4) and compares it with 7 for a branch seen one
        // way only: from now on `x` is a guard slot.
        ex.call(&tx(&t, "go()", vec![], s, Delay::NONE));
        assert_eq!(ex.new_states(), 0, "go writes nothing");
        // States of `x`: 7 (the value `go` compared it with), or another.
        ex.call(&set(U256::from(5)));
        assert_eq!(ex.new_states(), 1, "another value than 7, first written");
        ex.call(&set(U256::from(6)));
        assert_eq!(ex.new_states(), 0, "another again");
        ex.call(&set(U256::from(7)));
        assert_eq!(ex.new_states(), 1, "7");
        // Seen across sequences: reset forgets the state, not what was seen.
        ex.reset();
        ex.call(&set(U256::from(7)));
        assert_eq!(ex.new_states(), 0);
        ex.call(&set(U256::from(1u64 << 40)));
        assert_eq!(ex.new_states(), 0);
        // A call that writes nothing reaches nothing.
        ex.call(&tx(&t, "go()", vec![], s, Delay::NONE));
        assert_eq!(ex.new_states(), 0);
    }

    #[test]
    fn a_call_is_inert_when_it_reverted_or_wrote_nothing_seen_whole() {
        let t = target("SetSeven");
        let mut ex = t.executor(0);
        let s = DEFAULT_SENDERS[0];
        let call = |ex: &mut Executor, sig: &str, args: Vec<DynSolValue>| {
            ex.call(&tx(&t, sig, args, s, Delay::NONE));
            ex.last_call_inert()
        };
        let seven = || vec![DynSolValue::Uint(U256::from(7), 256)];
        // Writes are watched only with state feedback on: until then no
        // successful call is known to be inert.
        assert!(!call(&mut ex, "go()", vec![]));
        ex.set_state_feedback(true);
        assert!(
            call(&mut ex, "go()", vec![]),
            "x is not 7: go writes nothing"
        );
        assert!(call(&mut ex, "x()", vec![]), "a getter");
        assert!(!call(&mut ex, "set(uint256)", seven()));
        assert!(!call(&mut ex, "go()", vec![]), "x is 7: go writes gone");
        // A value sent moves a balance: not inert, even to a function that
        // writes nothing (SetSeven has none payable: the call reverts, and a
        // reverted call is inert whatever it sent).
        let mut paid = tx(&t, "x()", vec![], s, Delay::NONE);
        paid.value = U256::from(1);
        ex.call(&paid);
        assert!(ex.last_call_inert(), "reverted: not payable");
        // A gas price moves the sender's balance, reverted or not.
        let mut priced = tx(&t, "x()", vec![], s, Delay::NONE);
        priced.gas_price = 1;
        ex.call(&priced);
        assert!(!ex.last_call_inert());
        // Recording off (a replayed prefix): writes are not watched.
        ex.set_recording(false);
        assert!(!call(&mut ex, "x()", vec![]));
        ex.set_recording(true);
        assert!(call(&mut ex, "x()", vec![]));
    }

    #[test]
    fn states_seen_are_bounded_per_slot_and_per_code() {
        let mut seen = StatesSeen::default();
        let code = CodeId(0);
        let slot = U256::from(3);
        for v in 0..STATES_PER_SLOT as u64 {
            assert!(seen.reached(code, slot, v));
            assert!(!seen.reached(code, slot, v));
        }
        assert!(!seen.reached(code, slot, 1000));
        // Slots: the first SLOTS_PER_CODE of a code object.
        let other = CodeId(1);
        for k in 0..SLOTS_PER_CODE as u64 {
            assert!(seen.reached(other, U256::from(100 + k), 0));
        }
        assert!(!seen.reached(other, U256::from(99), 0));
        // States: STATES_PER_CODE of a code object in all.
        for v in 1..=(STATES_PER_CODE - SLOTS_PER_CODE) as u64 {
            assert!(seen.reached(other, U256::from(100 + v % 4), v));
        }
        assert!(!seen.reached(other, U256::from(100), 1 << 40));
        // Another code object has its own.
        assert!(seen.reached(CodeId(2), U256::from(99), 0));
    }

    #[test]
    fn decodes_error_strings_and_time_delays() {
        let t = target("TimeLock");
        let mut ex = t.executor(0);
        let s = DEFAULT_SENDERS[1];
        let r = ex.call(&tx(&t, "release()", vec![], s, Delay::NONE));
        assert_eq!(
            r.outcome,
            Outcome::Revert {
                reason: RevertReason::Error("not locked".into())
            }
        );
        ex.call(&tx(&t, "lock()", vec![], s, Delay::NONE));
        let early = ex.call(&tx(
            &t,
            "release()",
            vec![],
            s,
            Delay {
                seconds: 3600,
                blocks: 1,
            },
        ));
        assert_eq!(early.outcome.to_string(), "reverted: \"too early\"");
        let late = ex.call(&tx(
            &t,
            "release()",
            vec![],
            s,
            Delay {
                seconds: 86_400,
                blocks: 1,
            },
        ));
        assert!(late.outcome.is_success(), "{}", late.outcome);
        assert!(!prop(&mut ex, "echidna_never_released"));
    }

    #[test]
    fn decodes_assertion_panics() {
        let t = target("Assertion");
        let mut ex = t.executor(0);
        let s = DEFAULT_SENDERS[0];
        let u = |v: u64| DynSolValue::Uint(U256::from(v), 128);
        ex.call(&tx(&t, "deposit(uint128)", vec![u(5)], s, Delay::NONE));
        let ok = ex.call(&tx(&t, "withdraw(uint128)", vec![u(5)], s, Delay::NONE));
        assert!(ok.outcome.is_success());
        let bad = ex.call(&tx(&t, "withdraw(uint128)", vec![u(1)], s, Delay::NONE));
        assert!(bad.outcome.is_assertion_failure(), "{}", bad.outcome);
        assert_eq!(bad.outcome.to_string(), "panic 0x01 (assertion failed)");
    }

    #[test]
    fn sender_matters() {
        let t = target("OnlySender");
        let mut ex = t.executor(0);
        ex.call(&tx(&t, "claim()", vec![], DEFAULT_SENDERS[0], Delay::NONE));
        assert!(prop(&mut ex, "echidna_unclaimed"));
        ex.call(&tx(&t, "claim()", vec![], DEFAULT_SENDERS[1], Delay::NONE));
        assert!(!prop(&mut ex, "echidna_unclaimed"));
    }

    #[test]
    fn every_bundled_contract_deploys_and_answers_its_properties() {
        for name in [
            "AbiKitchen",
            "Assertion",
            "MagicHash",
            "OnlySender",
            "Optimize",
            "Sequence",
            "SetSeven",
            "TimeLock",
            "Token",
        ] {
            let t = target(name);
            let mut ex = t.executor(0);
            for f in t
                .functions
                .iter()
                .filter(|f| f.name.starts_with("echidna_"))
            {
                let r = ex.call_view(f, DEFAULT_SENDERS[0]);
                assert!(r.outcome.is_success(), "{name}.{}: {}", f.name, r.outcome);
            }
        }
    }

    #[test]
    fn coverage_maps_calls_to_source_lines() {
        let t = target("SetSeven");
        let mut ex = t.executor(0);
        let s = DEFAULT_SENDERS[0];
        ex.call(&tx(
            &t,
            "set(uint256)",
            vec![DynSolValue::Uint(U256::from(3), 256)],
            s,
            Delay::NONE,
        ));
        ex.call(&tx(&t, "go()", vec![], s, Delay::NONE));
        ex.commit_coverage();
        let report = t.coverage_report();
        let f = &report.files[0];
        assert_eq!(f.path, "contracts/SetSeven.sol");
        // line 11: `x = v;` ran; line 16: `gone = true;` did not (x != 7).
        assert!(f.lines[&11] > 0, "{:?}", f.lines);
        assert_eq!(f.lines.get(&16), Some(&0), "{:?}", f.lines);
        // The `if (x == 7)` branch ran one way only.
        let (outcomes, hit) = f.branch_outcomes();
        assert_eq!((outcomes, hit), (2, 1), "{:?}", f.branches);
        // The constructor-less contract still has its creation code covered.
        assert!(t.coverage.points() > 0);
    }
}
