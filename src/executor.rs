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
use revm::context::result::{ExecutionResult, Output};
use revm::context::{BlockEnv, CfgEnv, Context, TxEnv};
use revm::database::CacheDB;
use revm::handler::{MainBuilder, MainContext, MainnetContext, MainnetEvm};
use revm::primitives::hardfork::SpecId;
use revm::state::AccountInfo;
use revm::{ExecuteEvm, InspectEvm};
use std::sync::Arc;
use thiserror::Error;

pub mod cheatcodes;
mod constructor;
mod deploy;
pub mod errors;
pub mod fork;
pub mod foundry;
pub mod inspector;
mod outcome;
pub mod reads;
pub mod symbolic;
mod view;

pub use constructor::constructor_input;
pub use outcome::*;

pub use inspector::{CmpKind, Comparison, CoverageInspector};
pub use reads::ReadSet;

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
    /// What the state reads below the deployment: a fresh chain, or a
    /// fork ([`fork`]), whose block values are the initial block's.
    pub backend: fork::Backend,
    /// A Foundry project's `[rpc_endpoints]` (alias, URL), for the fork
    /// cheatcodes.
    pub rpc_endpoints: Vec<(String, String)>,
    /// Where fork caches live (`rpcCacheDir`; default
    /// [`fork::default_cache_dir`]).
    pub rpc_cache_dir: Option<std::path::PathBuf>,
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
            backend: fork::Backend::Empty,
            rpc_endpoints: Vec::new(),
            rpc_cache_dir: None,
        }
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

/// Property and optimization checks an executor records coverage for
/// before it samples one in 64 (see [`Executor::call_view`]).
pub const VIEWS_ALWAYS_RECORDED: u64 = 64;

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
    /// Whether the project declares an `AssertionFailed` event: then every
    /// call runs under the inspector, which sees events of frames that
    /// reverted too (see [`CallResult::asserted`]).
    pub assertion_events: bool,
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
    /// Calls mocked by the constructor or `setUp` (`vm.mockCall`): they
    /// answer in every sequence.
    pub(crate) setup_mocks: cheatcodes::Expectations,
    /// The project's contracts for `getCode` / `getDeployedCode`.
    pub(crate) code_book: Arc<cheatcodes::CodeBook>,
    /// The project's custom errors, to say why something reverted.
    pub errors: errors::ErrorBook,
    /// A Foundry suite without `targetContracts`: the contracts its calls
    /// may create that become targets for the rest of their sequence.
    pub created_targets: Vec<CreatedTarget>,
    /// Their functions, each signature once (to read calls to them back).
    pub created_functions: Vec<Arc<Function>>,
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
    /// Every other deployed contract whose code is one of the project's,
    /// with its whole ABI: what a predicate may read (`getCash{to: 0x…}()`).
    pub readable: Arc<[crate::tx::Callee]>,
    /// The fork id `setUp()` selected (`activeFork()`), if it forked.
    active_fork: Option<u64>,
    deployed: StateDb,
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

/// An executor's state: what it holds over what the backend reads (a
/// fresh chain, or a fork).
pub(crate) type StateDb = CacheDB<fork::Backend>;

type Evm = MainnetEvm<MainnetContext<StateDb>, CoverageInspector>;

fn build_evm(db: StateDb, settings: &EvmSettings, insp: CoverageInspector) -> Evm {
    Context::mainnet()
        .with_db(db)
        .modify_cfg_chained(|cfg: &mut CfgEnv| {
            cfg.set_spec_and_mainnet_gas_params(SpecId::CANCUN);
            cfg.disable_nonce_check = true;
            // A sender may hold code (an Echidna config may send from the
            // target's own address), as in hevm and Foundry.
            cfg.disable_eip3607 = true;
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
            if let fork::Backend::Fork(f) = &settings.backend {
                b.basefee = f.block().base_fee;
                b.beneficiary = f.block().coinbase;
            }
        })
        .modify_cfg_chained(|cfg: &mut CfgEnv| {
            if let fork::Backend::Fork(f) = &settings.backend {
                cfg.chain_id = f.block().chain_id;
            }
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

/// A contract of the project that a Foundry suite's calls may create: when
/// the suite names no `targetContracts`, forge makes every contract created
/// during a run a target for the rest of that run, knowing it by its code.
#[derive(Clone, Debug)]
pub struct CreatedTarget {
    pub name: String,
    /// The artifact's runtime code (zeros where links and immutables go).
    pub runtime: Bytes,
    /// The functions called (the suite's artifact lists applied).
    pub functions: Vec<Arc<Function>>,
    /// Its code's id in the coverage map, when its source map reads.
    pub code: Option<CodeId>,
}

impl CreatedTarget {
    /// Whether `code` (deployed) is this contract's.
    pub fn is(&self, code: &[u8]) -> bool {
        deploy::same_contract(&self.runtime, code)
    }
}

impl Target {
    /// The functions calls may name: the target's, the other contracts',
    /// and those of contracts created at run time.
    pub fn abis(&self) -> crate::tx::Abis<'_> {
        crate::tx::Abis {
            target: &self.functions,
            others: &self.others,
            created: &self.created_functions,
        }
    }

    /// The block every sequence starts from (after deployment): number and
    /// timestamp.
    pub fn initial_block(&self) -> (u64, u64) {
        (
            self.initial_block.number.saturating_to(),
            self.initial_block.timestamp.saturating_to(),
        )
    }

    /// An executor over a fresh copy of the deployed state, recording into
    /// coverage row `row`.
    pub fn executor(self: &Arc<Self>, row: usize) -> Executor {
        let mut insp =
            CoverageInspector::new(self.coverage.recorder(row), self.runtime_codes.clone());
        insp.cheats = cheatcodes::Cheatcodes::new(self.settings.allow_ffi);
        insp.cheats.expect.clone_from(&self.setup_mocks);
        insp.cheats.code = self.code_book.clone();
        insp.cheats.forks.active = self.active_fork;
        if self.assertion_events {
            insp.assertion_topics = self.assertion_topics.clone();
        }
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
        // A contract of the project the deployment did not create is not
        // reported (unless a sequence created it and ran it since).
        let codes: Vec<_> = self
            .codes
            .iter()
            .filter(|c| {
                c.id.0 < 2
                    || self.runtime_codes.iter().any(|(_, id)| *id == c.id)
                    || self.coverage.counts(c.id).hits.iter().any(|h| *h > 0)
            })
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

/// The current value of a storage slot and of an account's balance and code
/// hash: the sequence's journal where it has loaded them, else the deployed
/// state (revm's own order).
fn state_lookups(
    ctx: &cheatcodes::Ctx,
) -> (
    impl Fn(Address, U256) -> U256 + '_,
    impl Fn(Address) -> (U256, B256) + '_,
) {
    let journal = &ctx.journaled_state;
    let (state, db) = (&journal.inner.state, &journal.database.cache.accounts);
    let slot = move |a: Address, s: U256| {
        if let Some(acc) = state.get(&a) {
            if let Some(v) = acc.storage.get(&s) {
                return v.present_value;
            }
            if acc.is_created() {
                return U256::ZERO;
            }
        }
        db.get(&a)
            .and_then(|acc| acc.storage.get(&s).copied())
            .unwrap_or_default()
    };
    let account = move |a: Address| {
        let info = state
            .get(&a)
            .map(|acc| &acc.info)
            .or_else(|| db.get(&a).map(|acc| &acc.info));
        info.map_or((U256::ZERO, revm::primitives::KECCAK_EMPTY), |i| {
            (i.balance, i.code_hash)
        })
    };
    (slot, account)
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
        self.evm
            .inspector
            .runtime
            .truncate(self.target.runtime_codes.len());
        self.block_number = self.target.settings.block_number;
        self.timestamp = self.target.settings.timestamp;
        if self.target.uses_cheatcodes {
            self.evm.ctx.block = self.target.initial_block.clone();
            self.evm.ctx.cfg.chain_id = self.target.initial_chain_id;
            self.evm.inspector.cheats.reset();
            let expect = &mut self.evm.inspector.cheats.expect;
            expect.clone_from(&self.target.setup_mocks);
            self.evm.inspector.rewatch();
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
        self.evm
            .inspector
            .runtime
            .truncate(self.target.runtime_codes.len());
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
            self.evm.inspector.rewatch();
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
        self.evm.inspector.cheated = false;
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
                // A cheatcode's effects (block, pranks, mocks) outlive a revert.
                _ => !self.evm.inspector.cheated,
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

    /// How many pranks (`vm.prank`, `vm.startPrank`) the code this executor
    /// ran has set: a call that sets one pranks itself.
    pub fn pranks_set(&self) -> u64 {
        self.evm.inspector.cheats.pranks_set
    }

    /// Where the last [`call`](Self::call) (or check) reverted, if it did
    /// in the target's code with coverage recorded, and what the revert
    /// that started it returned (see [`inspector::RevertSite`]).
    pub fn last_revert(&self) -> Option<(inspector::RevertSite, &Bytes)> {
        self.evm
            .inspector
            .revert_site
            .as_ref()
            .map(|(site, _, data)| (*site, data))
    }

    /// By how much the guard behind the last call's revert missed.
    pub fn last_revert_shortfall(&self) -> Option<U256> {
        self.evm.inspector.revert_shortfall()
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
    /// Which checks is decided by the top bits of the check counter's
    /// Fibonacci hash, not by the counter modulo 64: checks cycle through the
    /// properties, and with n properties, n dividing 64, `views % 64 == 1`
    /// would record the same property every time and never the others
    /// (their lines uncovered, `FNDA:0`). The hash of any arithmetic
    /// progression of the counter is equidistributed, so each property is
    /// recorded about once in 64 of its checks; an executor's first
    /// [`VIEWS_ALWAYS_RECORDED`] checks are all recorded.
    pub fn call_view(&mut self, function: &Arc<Function>, sender: Address) -> CallResult {
        let gas = self.target.settings.prop_gas_limit;
        self.call_view_with_gas(function, sender, gas)
    }

    /// [`call_view`](Self::call_view) under gas limit `gas` (a Foundry
    /// suite's `afterInvariant` runs under the calls' limit).
    pub fn call_view_with_gas(
        &mut self,
        function: &Arc<Function>,
        sender: Address,
        gas: u64,
    ) -> CallResult {
        self.set_block();
        let record = self.next_view_records();
        self.skip_view();
        self.evm.inspector.enabled = record;
        let mut env = tx_env(
            &self.target.settings,
            sender,
            TxKind::Call(self.target.address),
            Bytes::copy_from_slice(&crate::tx::selector_of(function)[..]),
            U256::ZERO,
        );
        env.gas_limit = gas;
        self.run_view(env, record)
    }

    /// Whether the next [`call_view`](Self::call_view) records coverage.
    pub fn next_view_records(&self) -> bool {
        self.recording
            && (self.views < VIEWS_ALWAYS_RECORDED
                || self.views.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58 == 0)
    }

    /// Counts a check as [`call_view`](Self::call_view) does without
    /// running it (a check answered from what it read): which checks record
    /// coverage stays what it would have been, so a campaign's coverage and
    /// corpus do not depend on how many checks were skipped.
    pub fn skip_view(&mut self) {
        // Checks made with recording off (shrinking, replays) do not count.
        if self.recording {
            self.views = self.views.wrapping_add(1);
        }
    }

    /// A view call with its calldata (a spec's condition), under the
    /// property gas limit, without coverage.
    pub fn call_view_data(&mut self, data: Bytes, sender: Address) -> CallResult {
        self.call_view_at(self.target.address, data, sender)
    }

    /// [`call_view_data`](Self::call_view_data) to the contract at `to`.
    pub fn call_view_at(&mut self, to: Address, data: Bytes, sender: Address) -> CallResult {
        self.set_block();
        self.evm.inspector.enabled = false;
        let mut env = tx_env(
            &self.target.settings,
            sender,
            TxKind::Call(to),
            data,
            U256::ZERO,
        );
        env.gas_limit = self.target.settings.prop_gas_limit;
        self.run_view(env, false)
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

    /// Starts recording what the next view calls read (a check: see
    /// [`reads`]); [`end_reads`](Self::end_reads) ends it.
    pub fn begin_reads(&mut self) {
        let pranking = self.evm.inspector.cheats.pranking();
        self.evm.inspector.reads.start(pranking);
        self.evm.inspector.rewatch();
    }

    /// What the view calls since [`begin_reads`](Self::begin_reads) read,
    /// with the values they read; `None` when that cannot be told (a write,
    /// a cheatcode that is not pure, an unusual block field: see [`reads`]).
    pub fn end_reads(&mut self) -> Option<ReadSet> {
        let block = self.block();
        let (slot, account) = state_lookups(&self.evm.ctx);
        let mocks = self.evm.inspector.cheats.expect.mocks_hash();
        let reads = self.evm.inspector.reads.finish(slot, account, block, mocks);
        self.evm.inspector.rewatch();
        reads
    }

    /// Whether every value `reads` holds is still what this executor's
    /// state holds (then the check that read them answers as it did).
    pub fn reads_hold(&self, reads: &ReadSet) -> bool {
        if self.evm.inspector.cheats.pranking() {
            return false;
        }
        let (slot, account) = state_lookups(&self.evm.ctx);
        let mocks = self.evm.inspector.cheats.expect.mocks_hash();
        reads.holds(slot, account, self.block(), mocks)
    }

    fn run(&mut self, env: TxEnv, inspect: bool) -> CallResult {
        self.run_in(env, inspect, false)
    }

    /// Runs a check ([`call_view`](Self::call_view) and its kin) on a copy
    /// of the state: what it wrote, logged, created or moved is undone once
    /// its answer is read, and so are the block and prank a cheatcode in it
    /// set (Echidna and forge run properties so). A property that writes
    /// cannot fail for its own write, and the next call sees the state the
    /// last call left.
    fn run_view(&mut self, env: TxEnv, inspect: bool) -> CallResult {
        let insp = &self.evm.inspector;
        let (created, writes) = (insp.created.len(), insp.writes.len());
        let cheats = self.target.uses_cheatcodes.then(|| {
            (
                self.evm.ctx.block.clone(),
                self.evm.ctx.cfg.chain_id,
                self.evm.inspector.cheats.saved_prank(),
            )
        });
        let r = self.run_in(env, inspect, true);
        if let Some((block, chain_id, prank)) = cheats {
            self.evm.ctx.block = block;
            self.evm.ctx.cfg.chain_id = chain_id;
            self.evm.inspector.cheats.restore_prank(prank);
        }
        let insp = &mut self.evm.inspector;
        insp.created.truncate(created);
        insp.writes.truncate(writes);
        r
    }

    /// Runs `env`; with `discard`, its state changes are undone at its end
    /// ([`view::Discarding`]).
    fn run_in(&mut self, env: TxEnv, inspect: bool, discard: bool) -> CallResult {
        let insp = &self.evm.inspector;
        let inspected = (inspect && (insp.enabled || self.target.assertion_events))
            || self.target.uses_cheatcodes
            || insp.messages_on;
        // Inspected only to learn what it reads: what the inspector keeps
        // besides (log words, created contracts) is dropped, as if it had
        // run without it.
        let kept =
            (!inspected && insp.reads.on).then_some((insp.log_words.len(), insp.created.len()));
        self.evm.inspector.asserted = false;
        self.evm.inspector.messages.clear();
        self.evm.inspector.cheats.expect.new_transaction();
        self.evm.inspector.new_transaction();
        let inspect = inspected || kept.is_some();
        let r = if discard {
            view::run_discarding(&mut self.evm, env, inspect)
        } else if inspect {
            self.evm.inspect_one_tx(env)
        } else {
            self.evm.transact_one(env)
        };
        if let Some((words, created)) = kept {
            self.evm.inspector.log_words.truncate(words);
            self.evm.inspector.created.truncate(created);
        }
        if self.target.uses_cheatcodes && !discard {
            // `warp` and `roll` last for the rest of the sequence.
            self.block_number = self.evm.ctx.block.number.saturating_to();
            self.timestamp = self.evm.ctx.block.timestamp.saturating_to();
        }
        match r {
            Ok(res) => {
                let mut r = convert(res);
                r.asserted = self.evm.inspector.asserted;
                r
            }
            Err(e) => CallResult {
                outcome: Outcome::Halt {
                    reason: Halt::Rejected(e.to_string()),
                },
                gas_used: 0,
                logs: Vec::new(),
                asserted: false,
            },
        }
    }

    /// Turns on or off keeping the logs of each call, from frames that
    /// reverted too, for [`last_messages`](Self::last_messages) (every call
    /// then runs under the inspector: for explaining a failure, not for the
    /// fuzzing loop).
    pub fn set_messages(&mut self, on: bool) {
        self.evm.inspector.messages_on = on;
        self.evm.inspector.messages.clear();
    }

    /// The last logs of the last call or check, with
    /// [`set_messages`](Self::set_messages) on.
    pub fn last_messages(&self) -> &[Log] {
        &self.evm.inspector.messages
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

    /// The runtime code at `a` in the sequence's state (a contract its
    /// calls created), if any.
    pub fn created_code(&self, a: Address) -> Option<Bytes> {
        let acc = self.evm.ctx.journaled_state.inner.state.get(&a)?;
        let code = acc.info.code.as_ref()?;
        (!code.is_empty()).then(|| code.original_bytes())
    }

    /// The contracts the sequence's calls created so far (code in its state
    /// where the deployed state has none), by address.
    pub fn created_contracts(&self) -> Vec<Address> {
        let deployed = &self.target.deployed.cache.accounts;
        let mut out: Vec<Address> = self
            .evm
            .ctx
            .journaled_state
            .inner
            .state
            .iter()
            .filter(|(a, acc)| {
                acc.info.code.as_ref().is_some_and(|c| !c.is_empty())
                    && deployed
                        .get(*a)
                        .is_none_or(|d| d.info.code.as_ref().is_none_or(|c| c.is_empty()))
            })
            .map(|(a, _)| *a)
            .collect();
        out.sort();
        out
    }

    /// Covers the code at `a` as code `id` until the sequence ends (a
    /// contract created at run time).
    pub fn cover_at(&mut self, a: Address, id: CodeId) {
        self.evm.inspector.runtime.push((a, id));
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

    /// Runs `tx` as [`call`](Self::call) does while tracing the path
    /// conditions its arguments decide (see [`symbolic`]).
    pub fn call_traced(&mut self, tx: &Tx) -> (CallResult, symbolic::SymTrace) {
        self.evm.inspector.sym.begin();
        self.evm.inspector.rewatch();
        let r = self.call(tx);
        let trace = self.evm.inspector.sym.end();
        self.evm.inspector.rewatch();
        (r, trace)
    }

    /// Takes the words seen in logs since the last call.
    pub fn take_log_words(&mut self) -> Vec<B256> {
        std::mem::take(&mut self.evm.inspector.log_words)
    }
}

#[cfg(test)]
pub(crate) mod tests;
