//! Campaign configuration: Echidna-compatible YAML keys, Echidna's defaults,
//! and CLI overrides on top. A wrong type fails with the key's name; an
//! unknown key is reported back as a warning, never silently ignored.

pub mod foundry;
mod medusa;
mod words;
mod yaml;

pub use words::parse_duration;

use alloy_primitives::{Address, U256, address};
use serde_yaml_ng::Value;
use std::path::{Path, PathBuf};
use thiserror::Error;
pub use yaml::parse_address;
use yaml::{
    as_bool, as_string, as_u64, as_u256, constructor_args, describe, key_err, pairs,
    quote_big_integers, string_list,
};

/// Echidna's default deployer.
pub const DEFAULT_DEPLOYER: Address = address!("0000000000000000000000000000000000030000");
/// Echidna's default senders.
pub const DEFAULT_SENDERS: [Address; 3] = [
    address!("0000000000000000000000000000000000010000"),
    address!("0000000000000000000000000000000000020000"),
    address!("0000000000000000000000000000000000030000"),
];
/// Echidna's default address of the contract under test.
pub const DEFAULT_CONTRACT_ADDR: Address = address!("00a329c0648769a73afac7f9381e08fb43dbea72");
/// Recent traces kept per run unless configured (`traceWindow`).
pub const DEFAULT_TRACE_WINDOW: usize = 1_000;

#[derive(Debug, Error, PartialEq, Eq)]
pub enum ConfigError {
    #[error("config {path}: {message}")]
    File { path: PathBuf, message: String },
    #[error("config key `{key}`: {message}")]
    Key { key: String, message: String },
}

/// What the campaign looks for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TestMode {
    /// `echidna_*` bool functions must stay true.
    #[default]
    Property,
    /// No call may fail an `assert` (Panic 0x01).
    Assertion,
    /// Maximise `{prefix}*` functions returning int256 (`echidna_opt_*` by
    /// convention).
    Optimization,
    /// Only cover code.
    Exploration,
    /// No call may overflow or underflow checked arithmetic (Panic 0x11,
    /// solc ≥ 0.8); each function is a test, as in assertion mode.
    Overflow,
    /// Forge's fuzz tests (Echidna's `foundry` mode): a `test*` function's
    /// call must not revert; with `seqLen` > 1, `invariant*` functions
    /// too.
    Foundry,
}

impl TestMode {
    /// The mode's name, as `--test-mode` and `testMode` take it.
    pub fn as_str(self) -> &'static str {
        match self {
            TestMode::Property => "property",
            TestMode::Assertion => "assertion",
            TestMode::Optimization => "optimization",
            TestMode::Exploration => "exploration",
            TestMode::Overflow => "overflow",
            TestMode::Foundry => "foundry",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "property" => TestMode::Property,
            "assertion" => TestMode::Assertion,
            "optimization" => TestMode::Optimization,
            "exploration" => TestMode::Exploration,
            "overflow" => TestMode::Overflow,
            "foundry" => TestMode::Foundry,
            _ => return None,
        })
    }
}

/// A contract's constructor arguments (`constructorArgs`), as text the call
/// parser reads once the constructor's parameter types are known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConstructorArgs {
    /// `Vault: "1000, 0x00…10000, \"vault\""`: Solidity literals, in order.
    Text(String),
    /// `Vault: [1000, "0x00…10000", vault]`: one value per parameter, in
    /// order (a bare word for a `string` parameter is that string).
    List(Vec<String>),
    /// `Vault: {_limit: 1000, _owner: "0x…"}` (Medusa's shape): by
    /// parameter name.
    Named(Vec<(String, String)>),
}

/// Everything a campaign needs besides the target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    pub test_mode: TestMode,
    /// Total calls over all workers before the campaign ends
    /// ([`UNLIMITED`]: until it is stopped).
    pub test_limit: u64,
    /// Whether the file or a flag set `testLimit` (an agent-driven run
    /// without one fuzzes until it is stopped or its `timeout`; a Foundry
    /// suite without one runs forge's `runs × depth`).
    pub limit_given: bool,
    pub seq_len: usize,
    /// Whether the file or a flag set `seqLen` (a Foundry suite without one
    /// takes forge's `depth`).
    pub seq_len_given: bool,
    pub shrink_limit: u64,
    /// Worker threads; `None`: the machine's available parallelism.
    pub workers: Option<usize>,
    pub seed: Option<u64>,
    pub corpus_dir: Option<PathBuf>,
    pub senders: Vec<Address>,
    pub deployer: Address,
    pub contract_addr: Address,
    /// Test prefix (`echidna_`): properties are `{prefix}*` functions
    /// returning bool, optimization tests `{prefix}*` returning int256.
    pub prefix: String,
    pub filter_functions: Vec<String>,
    /// `true`: `filter_functions` is a blacklist; `false`: a whitelist.
    pub filter_blacklist: bool,
    pub max_time_delay: u64,
    pub max_block_delay: u64,
    /// Largest gas price of a fuzzed call, in wei (`maxGasprice`; 0: all 0).
    pub max_gas_price: u128,
    pub max_value: U256,
    /// How long the campaign runs at most (`timeout`, `--timeout`: `30`,
    /// `0.5`, `90s`, `5m`, `1.5h`); `None`: no time limit.
    pub timeout: Option<std::time::Duration>,
    /// Stop the whole campaign at the first falsified test.
    pub stop_on_fail: bool,
    /// Keep workers alive (idle, waiting for injections) after the test limit.
    pub keep_alive: bool,
    /// How workers share the CPU (`workerPriority`, `--worker-priority`).
    pub worker_priority: WorkerPriority,
    /// Whether a check is skipped while nothing it read changed
    /// (`checkCache`, `--check-cache`).
    pub check_cache: CheckCacheMode,
    /// Sender of property and optimization checks (`psender`).
    pub psender: Address,
    /// Balance of the deployer and every sender (`balanceAddr`).
    pub balance_addr: U256,
    /// Balance given to the target at deployment (`balanceContract`).
    pub balance_contract: U256,
    /// A property check using more gas than this fails (`propMaxGas`).
    pub prop_max_gas: u64,
    /// Gas limit of each fuzzed call (`testMaxGas`).
    pub test_max_gas: u64,
    /// Largest deployable runtime code (`codeSize`; initcode may be twice
    /// that). Echidna's default, [`DEFAULT_CODE_SIZE`]: no limit.
    pub code_size: u64,
    /// Leave `view` and `pure` functions out of the fuzzed calls (`excludeViewPure`).
    pub exclude_view_pure: bool,
    /// A fuzzed call that reverts (other than an `assume` rejecting its
    /// input) breaks every property (`failOnRevert`; a Foundry suite's
    /// `[invariant] fail_on_revert`).
    pub fail_on_revert: bool,
    /// Call every contract deployed with the target (found by its runtime
    /// code among the project's contracts), not only the target
    /// (`allContracts`).
    pub all_contracts: bool,
    /// Fork mode: the RPC node whose chain state the campaign runs on
    /// (`rpcUrl`, `ECHIDNA_RPC_URL`, `--fork-url`).
    pub rpc_url: Option<String>,
    /// The block to fork at (`rpcBlock`, `ECHIDNA_RPC_BLOCK`,
    /// `--fork-block-number`); none: the node's latest, pinned at start.
    pub rpc_block: Option<u64>,
    /// Where fetched chain state is kept between runs (`rpcCacheDir`;
    /// default: the user's cache directory, `rudder/rpc`).
    pub rpc_cache_dir: Option<PathBuf>,
    /// A Foundry project's `[rpc_endpoints]` (alias, URL), for the fork
    /// cheatcodes of its suites.
    pub rpc_endpoints: Vec<(String, String)>,
    /// Hold the output directory for the run, refusing one another run
    /// holds (`rudder fuzz` and `rudder mcp` do; off for embedders, whose
    /// tests may open campaigns side by side).
    pub lock_out_dir: bool,
    /// Refuse a campaign with nothing to check in its mode (no test found
    /// and no spec kept from an earlier run), before anything is written
    /// (`rudder fuzz` and `rudder mcp` do; an embedder may add specs later).
    pub require_tests: bool,
    /// Contracts of the project to deploy at fixed addresses before the
    /// target (`deployContracts: [["0x1f", "Name"], …]`).
    pub deploy_contracts: Vec<(Address, String)>,
    /// Constructor arguments per contract name (`constructorArgs`), for the
    /// target and for `deployContracts`.
    pub constructor_args: Vec<(String, ConstructorArgs)>,
    /// Raw creation bytecode to deploy at fixed addresses (`deployBytecodes`).
    pub deploy_bytecodes: Vec<(Address, Vec<u8>)>,
    /// Libraries to deploy and link (`solcLibs`); linking also happens for
    /// any library the bytecode references.
    pub solc_libs: Vec<String>,
    /// Allow the `ffi` cheatcode to run commands (`allowFFI`, off by default).
    pub allow_ffi: bool,
    /// Coverage report formats written at the end of a run (`coverageFormats`:
    /// `lcov`, as `covered.RUN.lcov`).
    pub coverage_formats: Vec<String>,
    /// The contract to fuzz when the command line names none (a Medusa
    /// config's first `targetContracts` entry).
    pub target_contract: Option<String>,
    /// What to fuzz when the command line names nothing (a Medusa config's
    /// `compilation.platformConfig.target`, relative to the config file).
    pub compilation_target: Option<PathBuf>,
    /// Where coverage reports go (`coverageDir`, default: the corpus directory).
    pub coverage_dir: Option<PathBuf>,
    /// Where each falsified test is written at the end of a run as a Foundry
    /// test that replays its shrunk sequence (`reproDir`, `--repro-dir`;
    /// off by default).
    pub repro_dir: Option<PathBuf>,
    /// The compiler of a `.sol` target (`solc`, `--solc`): a solc binary or
    /// an npm solc package folder (default: `RUDDER_SOLC`, else the first
    /// found that the sources' pragmas allow).
    pub solc: Option<PathBuf>,
    /// Keep the SQLite event journal (`{corpusDir}/journal.sqlite`) that the
    /// events family queries (rudder's key `journal`, on by default).
    pub journal: bool,
    /// Keep executed sequences as traces in the journal (`traces`, on by
    /// default; needs the journal): the traces family queries them.
    pub traces: bool,
    /// Recent ordinary sequences kept as traces per run (`traceWindow`).
    pub trace_window: usize,
    /// Comparison feedback (`comparisonFeedback`, on by default): the
    /// operands of the comparisons behind half-covered branches become
    /// argument values for the parameters they came from.
    pub comparison_feedback: bool,
    /// State feedback (`stateFeedback`, on by default): a sequence that
    /// writes a storage slot of the target a value it has not had (a cell
    /// of a maze, a phase) is kept in the corpus like one that reached new
    /// code.
    pub state_feedback: bool,
    /// Enabler detours (`enablerFeedback`, on by default): a call that
    /// reverted at a guard other functions' writes can satisfy (read from
    /// the code graph) is sometimes followed by one of those functions, then
    /// by itself again.
    pub enabler_feedback: bool,
    /// Where the campaign is shared with other nodes (`shared`:
    /// `s3://BUCKET/PREFIX`, `file:///PATH`; `None`: this process alone).
    /// See [`crate::shared`].
    pub shared: Option<String>,
    /// This node's name in the shared store (`nodeId`; default: the one it
    /// had in this corpus directory, else `node-$JOB_COMPLETION_INDEX`, else
    /// hostname-pid).
    pub node_id: Option<String>,
    /// How often the node syncs with the shared store (`sharedSyncMs`).
    pub shared_sync_ms: u64,
    /// Batches written by the nodes since the last compacted generation
    /// before the compactor writes the next (`sharedCompactAfter`; 0: never;
    /// see [`crate::shared`]).
    pub shared_compact_after: u64,
    /// Whether this node keeps hunting a test another node of the shared
    /// campaign falsified (`keepHunting`; default false: it takes the other
    /// node's reproducer, replayed here, and stops checking the test). When
    /// set, the other node's finding is noted (`status.shared.hunting`) and
    /// the test stays open here, so this node may find its own
    /// counterexample — another bug behind the same property, or a shorter
    /// sequence.
    pub keep_hunting: bool,
}

/// The most workers a campaign accepts (more are refused; more than the
/// machine's cores is allowed with a warning from the CLI).
pub const MAX_WORKERS: usize = 256;
/// The largest `traceWindow` accepted.
pub const MAX_TRACE_WINDOW: usize = 1_000_000;
/// The longest sequence accepted (`seqLen`). Echidna's default is 100.
pub const MAX_SEQ_LEN: usize = 10_000;

/// The CLI flag a config key is also set by (for error messages).
pub fn flag_of(key: &str) -> String {
    match key {
        "workers" => "--workers".into(),
        "seqLen" => "--seq-len".into(),
        "testLimit" => "--test-limit".into(),
        "testMode" => "--test-mode".into(),
        "workerPriority" => "--worker-priority".into(),
        "checkCache" => "--check-cache".into(),
        "shared" => "--shared".into(),
        "nodeId" => "--node-id".into(),
        "sharedSyncMs" => "--shared-sync-ms".into(),
        "sharedCompactAfter" => "--shared-compact-after".into(),
        "keepHunting" => "--keep-hunting".into(),
        other => format!("config key `{other}`"),
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            test_mode: TestMode::Property,
            test_limit: 50_000,
            seq_len: 100,
            shrink_limit: 5_000,
            workers: None,
            seed: None,
            corpus_dir: None,
            senders: DEFAULT_SENDERS.to_vec(),
            deployer: DEFAULT_DEPLOYER,
            contract_addr: DEFAULT_CONTRACT_ADDR,
            prefix: "echidna_".into(),
            filter_functions: Vec::new(),
            filter_blacklist: true,
            max_time_delay: 604_800,
            max_block_delay: 60_480,
            max_gas_price: 0,
            max_value: U256::from(100u64) * U256::from(10u64).pow(U256::from(18)),
            limit_given: false,
            seq_len_given: false,
            timeout: None,
            stop_on_fail: false,
            keep_alive: false,
            worker_priority: WorkerPriority::Normal,
            check_cache: CheckCacheMode::On,
            psender: DEFAULT_SENDERS[0],
            balance_addr: U256::from(0xffff_ffffu64) * U256::from(10u64).pow(U256::from(18)),
            balance_contract: U256::ZERO,
            prop_max_gas: 12_500_000,
            test_max_gas: 12_500_000,
            code_size: DEFAULT_CODE_SIZE,
            exclude_view_pure: false,
            fail_on_revert: false,
            all_contracts: false,
            rpc_url: None,
            rpc_block: None,
            rpc_cache_dir: None,
            rpc_endpoints: Vec::new(),
            lock_out_dir: false,
            require_tests: false,
            deploy_contracts: Vec::new(),
            constructor_args: Vec::new(),
            deploy_bytecodes: Vec::new(),
            solc_libs: Vec::new(),
            allow_ffi: false,
            coverage_formats: Vec::new(),
            target_contract: None,
            compilation_target: None,
            coverage_dir: None,
            repro_dir: None,
            solc: None,
            journal: true,
            traces: true,
            trace_window: DEFAULT_TRACE_WINDOW,
            comparison_feedback: true,
            state_feedback: true,
            enabler_feedback: true,
            shared: None,
            node_id: None,
            shared_sync_ms: crate::shared::DEFAULT_SYNC_MS,
            shared_compact_after: crate::shared::DEFAULT_COMPACT_AFTER,
            keep_hunting: false,
        }
    }
}

/// A shared-store error's message without its field (the config error
/// names the key itself).
fn strip_field(e: &crate::shared::SharedError) -> String {
    match e {
        crate::shared::SharedError::Invalid { message, .. } => message.clone(),
        other => other.to_string(),
    }
}

/// `testLimit` of a campaign that fuzzes until it is stopped (an agent's
/// session with no limit given).
pub const UNLIMITED: u64 = u64::MAX;

/// `codeSize` by default: Echidna's `0xffffffff`, no practical limit (a
/// harness may be larger than EIP-170 allows on chain).
pub const DEFAULT_CODE_SIZE: u64 = 0xffff_ffff;

/// Keys rudder reads; other Echidna keys are accepted with a warning.
const KNOWN: &[&str] = &[
    "testMode",
    "testLimit",
    "seqLen",
    "shrinkLimit",
    "workers",
    "seed",
    "corpusDir",
    "sender",
    "deployer",
    "contractAddr",
    "prefix",
    "filterFunctions",
    "filterBlacklist",
    "maxTimeDelay",
    "maxBlockDelay",
    "maxGasprice",
    "maxValue",
    "timeout",
    "stopOnFail",
    "psender",
    "balanceAddr",
    "balanceContract",
    "propMaxGas",
    "testMaxGas",
    "codeSize",
    "excludeViewPure",
    "failOnRevert",
    "allContracts",
    "rpcUrl",
    "rpcBlock",
    "rpcCacheDir",
    "deployContracts",
    "constructorArgs",
    "deployBytecodes",
    "solcLibs",
    "allowFFI",
    "coverageFormats",
    "coverageDir",
    "reproDir",
    "solc",
    "journal",
    "traces",
    "traceWindow",
    "comparisonFeedback",
    "stateFeedback",
    "enablerFeedback",
    "workerPriority",
    "checkCache",
    "shared",
    "nodeId",
    "sharedSyncMs",
    "sharedCompactAfter",
    "keepHunting",
];

/// Echidna's keys rudder reads but does not act on, each with what rudder
/// does instead: said once in a warning that names the key, not as an
/// unknown key with the list of known ones.
const ECHIDNA_UNUSED: &[(&str, &str)] = &[
    ("coverage", "rudder always records coverage"),
    (
        "coverageExcludes",
        "coverage reports list every source reached",
    ),
    ("allEvents", "the traces keep every event"),
    (
        "cryticArgs",
        "rudder compiles with solc or reads the build the target names",
    ),
    (
        "solcArgs",
        "rudder compiles with solc or reads the build the target names",
    ),
    (
        "disableSlither",
        "rudder mines constants from the bytecode and sources itself",
    ),
    ("dictFreq", "the dictionary's share is rudder's own"),
    ("mutConsts", "mutation weights are rudder's own"),
    ("format", "use --format (text, json, junit, github)"),
    ("quiet", "logs go to stderr; set RUST_LOG"),
    ("server", "use `rudder mcp --http ADDR`"),
    ("projectName", "reports name the target contract"),
    ("etherscanApiKey", "fork mode reads code from the node"),
    (
        "disableOnchainSources",
        "fork mode reads code from the node",
    ),
    ("testDestruction", "self-destruct tests are not run"),
    (
        "symExec",
        "rudder has no symbolic worker; its solving stage runs on its own",
    ),
    ("symExecTargets", "rudder has no symbolic worker"),
    ("symExecTimeout", "rudder has no symbolic worker"),
    ("symExecNSolvers", "rudder has no symbolic worker"),
    ("symExecMaxIters", "rudder has no symbolic worker"),
    ("symExecAskSMTIters", "rudder has no symbolic worker"),
    ("symExecMaxExplore", "rudder has no symbolic worker"),
    ("symExecSMTSolver", "rudder has no symbolic worker"),
];

/// Whether `filterFunctions` entry `entry` names the function `name` with
/// signature `signature` (by name, signature, or `Contract.signature`).
fn filter_names(entry: &str, name: &str, signature: &str) -> bool {
    entry == name
        || entry == signature
        || entry
            .strip_suffix(signature)
            .is_some_and(|c| c.ends_with('.'))
}

/// The coverage reports `coverageFormats` may ask for (Echidna's three).
pub const COVERAGE_FORMATS: [&str; 3] = ["txt", "html", "lcov"];

/// Whether property, optimization and spec checks are skipped while
/// nothing they read changed (see `campaign::check_cache`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CheckCacheMode {
    /// Skipped while what they read holds (re-run now and then anyway).
    #[default]
    On,
    /// Every check runs after every call (Echidna's and forge's way).
    Off,
    /// Every check runs, and a skip that would have answered differently
    /// stops the worker with a panic naming the test (for tests).
    Verify,
}

impl CheckCacheMode {
    pub const CHOICES: &'static str = "on, off or verify";

    pub fn parse(s: &str) -> Option<CheckCacheMode> {
        match s {
            "on" => Some(CheckCacheMode::On),
            "off" => Some(CheckCacheMode::Off),
            "verify" => Some(CheckCacheMode::Verify),
            _ => None,
        }
    }
}

/// How workers share the CPU with the rest of the machine.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WorkerPriority {
    /// The process's own priority, as batch work (`SCHED_BATCH` on Linux):
    /// a fair share beside other programs, and a control-plane thread that
    /// wakes up still runs first.
    #[default]
    Normal,
    /// Behind everything else (nice +10 as well): the campaign takes what
    /// other programs leave.
    Low,
}

impl WorkerPriority {
    pub fn parse(s: &str) -> Option<WorkerPriority> {
        match s {
            "normal" => Some(WorkerPriority::Normal),
            "low" => Some(WorkerPriority::Low),
            _ => None,
        }
    }
}

impl Config {
    /// Reads an Echidna-style YAML file over the defaults. Returns the config
    /// and one warning per key rudder does not use.
    pub fn from_yaml_file(path: &Path) -> Result<(Config, Vec<String>), ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError::File {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        let read = Self::from_yaml_str(&text).map(|(mut c, w)| {
            // A Medusa config's target is relative to where it lives.
            if let Some(t) = c.compilation_target.take() {
                let dir = path.parent().unwrap_or(Path::new("."));
                c.compilation_target = Some(if t.is_relative() { dir.join(t) } else { t });
            }
            (c, w)
        });
        read.map_err(|e| match e {
            ConfigError::Key { key, message } => ConfigError::File {
                path: path.to_path_buf(),
                message: format!("key `{key}`: {message}"),
            },
            ConfigError::File { message, .. } => ConfigError::File {
                path: path.to_path_buf(),
                message,
            },
        })
    }

    pub fn from_yaml_str(text: &str) -> Result<(Config, Vec<String>), ConfigError> {
        let doc: Value =
            serde_yaml_ng::from_str(&quote_big_integers(text)).map_err(|e| ConfigError::File {
                path: PathBuf::from("<yaml>"),
                message: format!("not YAML: {e}"),
            })?;
        // `--config medusa.json`: Medusa's keys, by their paths.
        if medusa::is_medusa(&doc) {
            return medusa::from_value(&doc);
        }
        let mut c = Config::default();
        let mut warnings = Vec::new();
        let map = match doc {
            Value::Null => return Ok((c, warnings)),
            Value::Mapping(m) => m,
            other => {
                return Err(ConfigError::File {
                    path: PathBuf::from("<yaml>"),
                    message: format!("expected a mapping of keys, found {}", describe(&other)),
                });
            }
        };
        for (k, v) in &map {
            let key = k
                .as_str()
                .ok_or_else(|| key_err(&format!("{k:?}"), "keys must be strings"))?;
            match key {
                "testMode" => {
                    let s = as_string(key, v)?;
                    c.test_mode = TestMode::parse(&s).ok_or_else(|| {
                        key_err(
                            key,
                            format!(
                                "expected property, assertion, overflow, optimization, exploration or foundry, found {s:?}"
                            ),
                        )
                    })?;
                }
                "testLimit" => {
                    c.test_limit = as_u64(key, v)?;
                    c.limit_given = true;
                }
                "seqLen" => {
                    c.seq_len = as_u64(key, v)?.min(usize::MAX as u64) as usize;
                    c.seq_len_given = true;
                }
                "shrinkLimit" => c.shrink_limit = as_u64(key, v)?,
                "workers" => match as_u64(key, v)? {
                    // Echidna's "symbolic worker only": rudder has none, so
                    // its fuzzing workers run (a warning says so).
                    0 => warnings.push(
                        "config key `workers`: 0 (Echidna's symbolic-only setting) is not used by rudder: it runs its fuzzing workers (--workers or the cores available)"
                            .into(),
                    ),
                    n => c.workers = Some(n.min(usize::MAX as u64) as usize),
                },
                // A seed as a number or as the decimal string reports print.
                "seed" => {
                    c.seed = Some(match v {
                        Value::String(s) => s.trim().parse::<u64>().map_err(|_| {
                            key_err(key, format!("expected a 64-bit integer, found {s:?}"))
                        })?,
                        other => as_u64(key, other)?,
                    })
                }
                "corpusDir" => c.corpus_dir = Some(PathBuf::from(as_string(key, v)?)),
                "sender" => {
                    let list = v.as_sequence().ok_or_else(|| {
                        key_err(
                            key,
                            format!("expected a list of addresses, found {}", describe(v)),
                        )
                    })?;
                    if list.is_empty() {
                        return Err(key_err(key, "needs at least one address"));
                    }
                    c.senders = list
                        .iter()
                        .map(|a| parse_address(key, a))
                        .collect::<Result<_, _>>()?;
                }
                "deployer" => c.deployer = parse_address(key, v)?,
                "contractAddr" => c.contract_addr = parse_address(key, v)?,
                "prefix" => c.prefix = as_string(key, v)?,
                "filterFunctions" => {
                    let list = v.as_sequence().ok_or_else(|| {
                        key_err(
                            key,
                            format!("expected a list of names, found {}", describe(v)),
                        )
                    })?;
                    c.filter_functions = list
                        .iter()
                        .map(|s| as_string(key, s))
                        .collect::<Result<_, _>>()?;
                }
                "filterBlacklist" => c.filter_blacklist = as_bool(key, v)?,
                "maxTimeDelay" => c.max_time_delay = as_u64(key, v)?,
                "maxBlockDelay" => c.max_block_delay = as_u64(key, v)?,
                "maxGasprice" => c.max_gas_price = as_u64(key, v)?.into(),
                "maxValue" => c.max_value = as_u256(key, v)?,
                "balanceAddr" => c.balance_addr = as_u256(key, v)?,
                "balanceContract" => c.balance_contract = as_u256(key, v)?,
                "psender" => c.psender = parse_address(key, v)?,
                "propMaxGas" => c.prop_max_gas = as_u64(key, v)?,
                "testMaxGas" => c.test_max_gas = as_u64(key, v)?,
                "codeSize" => c.code_size = as_u64(key, v)?,
                "excludeViewPure" => c.exclude_view_pure = as_bool(key, v)?,
                "failOnRevert" => c.fail_on_revert = as_bool(key, v)?,
                // `multi-abi`: Echidna's older name of the same key.
                "allContracts" | "multi-abi" => c.all_contracts = as_bool(key, v)?,
                "rpcUrl" => c.rpc_url = Some(as_string(key, v)?).filter(|u| !u.is_empty()),
                "rpcBlock" => c.rpc_block = Some(as_u64(key, v)?),
                "rpcCacheDir" => c.rpc_cache_dir = Some(PathBuf::from(as_string(key, v)?)),
                "allowFFI" => c.allow_ffi = as_bool(key, v)?,
                "journal" => c.journal = as_bool(key, v)?,
                "traces" => c.traces = as_bool(key, v)?,
                "comparisonFeedback" => c.comparison_feedback = as_bool(key, v)?,
                "stateFeedback" => c.state_feedback = as_bool(key, v)?,
                "enablerFeedback" => c.enabler_feedback = as_bool(key, v)?,
                "traceWindow" => {
                    c.trace_window = usize::try_from(as_u64(key, v)?)
                        .ok()
                        .filter(|n| *n <= MAX_TRACE_WINDOW)
                        .ok_or_else(|| {
                            key_err(key, format!("must be at most {MAX_TRACE_WINDOW}"))
                        })?
                }
                "solcLibs" => c.solc_libs = string_list(key, v)?,
                "coverageFormats" => {
                    c.coverage_formats = string_list(key, v)?;
                    if let Some(f) = c
                        .coverage_formats
                        .iter()
                        .find(|f| !COVERAGE_FORMATS.contains(&f.as_str()))
                    {
                        return Err(key_err(
                            key,
                            format!(
                                "{f:?} is not a coverage format: expected \"txt\", \"html\" or \"lcov\""
                            ),
                        ));
                    }
                }
                "coverageDir" => c.coverage_dir = Some(PathBuf::from(as_string(key, v)?)),
                "reproDir" => c.repro_dir = Some(PathBuf::from(as_string(key, v)?)),
                "solc" => c.solc = Some(PathBuf::from(as_string(key, v)?)),
                "shared" => c.shared = Some(as_string(key, v)?),
                "nodeId" => c.node_id = Some(as_string(key, v)?),
                "sharedSyncMs" => c.shared_sync_ms = as_u64(key, v)?,
                "sharedCompactAfter" => c.shared_compact_after = as_u64(key, v)?,
                "keepHunting" => c.keep_hunting = as_bool(key, v)?,
                "checkCache" => {
                    // YAML reads a bare `on`/`off` as a string here (1.2).
                    let s = match v {
                        Value::Bool(b) => if *b { "on" } else { "off" }.to_string(),
                        _ => as_string(key, v)?,
                    };
                    c.check_cache = CheckCacheMode::parse(&s).ok_or_else(|| {
                        key_err(
                            key,
                            format!("expected {}, found {s:?}", CheckCacheMode::CHOICES),
                        )
                    })?;
                }
                "workerPriority" => {
                    let s = as_string(key, v)?;
                    c.worker_priority = WorkerPriority::parse(&s).ok_or_else(|| {
                        key_err(key, format!("expected normal or low, found {s:?}"))
                    })?;
                }
                "deployContracts" => {
                    c.deploy_contracts = pairs(key, v)?
                        .into_iter()
                        .map(|(a, name)| Ok((a, as_string(key, &name)?)))
                        .collect::<Result<_, ConfigError>>()?;
                }
                "constructorArgs" => c.constructor_args = constructor_args(key, v)?,
                "deployBytecodes" => {
                    c.deploy_bytecodes = pairs(key, v)?
                        .into_iter()
                        .map(|(a, code)| {
                            let hex = as_string(key, &code)?;
                            let bytes = alloy_primitives::hex::decode(hex.trim_start_matches("0x"))
                                .map_err(|e| key_err(key, format!("bytecode is not hex: {e}")))?;
                            Ok((a, bytes))
                        })
                        .collect::<Result<_, ConfigError>>()?;
                }
                "timeout" => {
                    c.timeout = match v {
                        Value::Null => None,
                        Value::Number(n) => Some(parse_duration(&n.to_string()).map_err(|e| key_err(key, e))?),
                        Value::String(s) => Some(parse_duration(s).map_err(|e| key_err(key, e))?),
                        other => {
                            return Err(key_err(
                                key,
                                format!("expected a duration (30, 0.5, 90s, 5m, 1.5h), found {}", describe(other)),
                            ));
                        }
                    }
                }
                "stopOnFail" => c.stop_on_fail = as_bool(key, v)?,
                other if let Some((_, instead)) = ECHIDNA_UNUSED.iter().find(|(k, _)| *k == other) => {
                    warnings.push(format!("config key `{other}` (Echidna's) is not used by rudder: {instead}"))
                }
                other => warnings.push(match words::nearest_key(other, KNOWN) {
                    Some(near) => format!(
                        "config key `{other}` is not used by rudder: did you mean `{near}`? (the key is ignored)"
                    ),
                    None => format!(
                        "config key `{other}` is not used by rudder (known keys: {})",
                        KNOWN.join(", ")
                    ),
                }),
            }
        }
        c.validate()?;
        Ok((c, warnings))
    }

    /// Checks the limits: workers in `1..=MAX_WORKERS`, sequence length in
    /// `1..=MAX_SEQ_LEN`, at least one sender. The error names the key.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if let Some(w) = self.workers
            && !(1..=MAX_WORKERS).contains(&w)
        {
            return Err(key_err(
                "workers",
                format!("{w} is outside 1..={MAX_WORKERS}"),
            ));
        }
        if !(1..=MAX_SEQ_LEN).contains(&self.seq_len) {
            return Err(key_err(
                "seqLen",
                format!("{} is outside 1..={MAX_SEQ_LEN}", self.seq_len),
            ));
        }
        if self.senders.is_empty() {
            return Err(key_err("sender", "needs at least one address"));
        }
        if let Some(url) = &self.shared {
            crate::shared::SharedUrl::parse("shared", url)
                .map_err(|e| key_err("shared", strip_field(&e)))?;
        }
        if let Some(id) = &self.node_id {
            crate::shared::NodeId::parse("nodeId", id)
                .map_err(|e| key_err("nodeId", strip_field(&e)))?;
        }
        let sync = crate::shared::SYNC_MS_RANGE;
        if !sync.contains(&self.shared_sync_ms) {
            return Err(key_err(
                "sharedSyncMs",
                format!(
                    "{} is outside {}..={}",
                    self.shared_sync_ms,
                    sync.start(),
                    sync.end()
                ),
            ));
        }
        Ok(())
    }

    /// The number of workers this config runs.
    pub fn worker_count(&self) -> usize {
        self.workers.unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
        })
    }

    /// Whether a function name passes `filterFunctions`.
    pub fn function_allowed(&self, name: &str, signature: &str) -> bool {
        if self.filter_functions.is_empty() {
            return true;
        }
        let listed = self
            .filter_functions
            .iter()
            .any(|f| filter_names(f, name, signature));
        listed != self.filter_blacklist
    }

    /// The `filterFunctions` entries that name none of `functions` (name,
    /// signature): a misspelt entry filters nothing, which the user should
    /// hear of.
    pub fn unmatched_filters<'a>(&'a self, functions: &[(&str, String)]) -> Vec<&'a str> {
        self.filter_functions
            .iter()
            .filter(|f| !functions.iter().any(|(n, s)| filter_names(f, n, s)))
            .map(String::as_str)
            .collect()
    }
}

#[cfg(test)]
mod tests;
