//! Deploying the target: libraries and `deployContracts` first, the
//! harness created at its final address with `balanceContract` as its value,
//! Foundry suites' `setUp`, code registered for coverage.

use super::*;

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
pub(super) fn same_contract(artifact: &[u8], deployed: &[u8]) -> bool {
    artifact.len() == deployed.len()
        && artifact
            .iter()
            .zip(deployed)
            .all(|(a, d)| *a == 0 || a == d)
}

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

/// Whether the project emits `AssertionFailed` events: one is declared in a
/// contract's ABI, or a contract's code holds the topic of a common shape
/// (an event declared in an interface or library).
fn declares_assertion_events(project: &Project) -> bool {
    let common: Vec<B256> = [
        "AssertionFailed()",
        "AssertionFailed(string)",
        "AssertionFailed(uint256)",
    ]
    .into_iter()
    .map(alloy_primitives::keccak256)
    .collect();
    project.contracts.iter().any(|c| {
        c.abi.events().any(|e| e.name == "AssertionFailed")
            || c.runtime_code
                .windows(32)
                .any(|w| common.iter().any(|t| w == t.as_slice()))
    })
}

/// Runs a CREATE of `code` from the deployer and commits it, at address
/// `at` when given (the constructor runs there: its `address(this)`, and the
/// owner it hands to contracts it creates, are where the contract stays).
/// Returns where the contract lives.
/// Sends the creation of a contract whose address is the deployer's own.
const DEPLOYER_STAND_IN: Address =
    alloy_primitives::address!("00000000000000000000000000000000000dE910");

fn create(
    evm: &mut Evm,
    settings: &EvmSettings,
    name: &str,
    code: Bytes,
    value: U256,
    at: Option<Address>,
) -> Result<Address, ExecError> {
    // hevm creates a transaction's contract over whatever account holds its
    // address, and an Echidna config may give `deployer` and `contractAddr`
    // the same one (0x10000). revm refuses an address with a nonce, and a
    // creation bumps its sender's nonce before it looks: such a creation is
    // sent from a stand-in given the value (the constructor's `msg.sender`),
    // and the account it lands on keeps the rest of its balance.
    let caller = match at {
        Some(a) if a == settings.deployer => {
            use revm::Database;
            let db = &mut evm.ctx.journaled_state.database;
            let mut info =
                (db.basic(a).map_err(|e| ExecError::Evm(e.to_string()))?).unwrap_or_default();
            info.balance = info.balance.saturating_sub(value);
            info.nonce = 0;
            db.insert_account_info(a, info);
            let stand_in = AccountInfo {
                balance: value,
                ..Default::default()
            };
            db.insert_account_info(DEPLOYER_STAND_IN, stand_in);
            DEPLOYER_STAND_IN
        }
        _ => settings.deployer,
    };
    let mut tx = tx_env(settings, caller, TxKind::Create, code, value);
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

/// The code coverage tracks, and the contracts it belongs to.
struct Codes<'p> {
    codes: Vec<CodeObject>,
    infos: Vec<CodeInfo>,
    /// The target's libraries, dependencies before dependents.
    libraries: Vec<&'p Contract>,
    /// Each library's runtime code id (by qualified name).
    library_codes: Vec<(String, CodeId)>,
    /// With `allContracts` or a Foundry suite: every other contract of the
    /// project with runtime code, and its code id when its source map reads.
    candidates: Vec<(&'p Contract, Option<CodeId>)>,
}

/// The target's creation (id 0) and runtime (id 1) code, each linked
/// library's runtime code (ids from 2, in link order: its lines appear in
/// LCOV under the library's source), and every other contract that may be
/// deployed with the target (covered once found there; with `allContracts`
/// or a suite also called, and without a readable source map still called,
/// not covered).
fn code_objects<'p>(project: &'p Project, contract: &'p Contract) -> Result<Codes<'p>, ExecError> {
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
    let mut codes = Vec::new();
    let mut infos = Vec::new();
    for (kind, map, len) in [
        (
            CodeKind::Creation,
            creation_map,
            contract.creation_code.len(),
        ),
        (CodeKind::Runtime, runtime_map, contract.runtime_code.len()),
    ] {
        codes.push(CodeObject {
            id: CodeId(codes.len() as u32),
            kind,
            contract: contract.name.clone(),
            map,
        });
        infos.push(CodeInfo {
            contract: contract.name.clone(),
            kind,
            len,
        });
    }
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
    // Every other contract the deployment may create is covered once found
    // deployed (a harness' protocol: Echidna covers every contract of the
    // project); with `allContracts` or a suite it is called too.
    let mut candidates: Vec<(&Contract, Option<CodeId>)> = Vec::new();
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
    Ok(Codes {
        codes,
        infos,
        libraries,
        library_codes,
        candidates,
    })
}

/// The state before the first deployment: the senders and the deployer
/// funded (the deployer also pays the target's value and, to a payable
/// constructor, `balanceContract` — as Echidna sends it: a constructor may
/// spend or check its funds), and code at the cheatcode address when the
/// project uses cheatcodes. Also: the endowment sent with the target.
fn genesis(
    project: &Project,
    contract: &Contract,
    settings: &EvmSettings,
) -> (super::StateDb, U256) {
    let mut db = CacheDB::new(settings.backend.clone());
    let endowment = if payable_constructor(contract) {
        settings.balance_contract
    } else {
        U256::ZERO
    };
    let mut funded = settings.senders.clone();
    funded.push(settings.deployer);
    for a in funded {
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
    if uses_cheatcodes(project) {
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
    (db, endowment)
}

fn payable_constructor(contract: &Contract) -> bool {
    contract
        .abi
        .constructor
        .as_ref()
        .is_some_and(|c| c.state_mutability == alloy_json_abi::StateMutability::Payable)
}

/// Where each deployment went.
struct Deployed {
    /// The target.
    address: Address,
    /// Libraries, `deployContracts` and `deployBytecodes`, by name.
    predeployed: Vec<(String, Address)>,
    /// Addresses whose runtime code is covered (libraries so far).
    runtime_codes: Vec<(Address, CodeId)>,
}

/// Deploys the libraries (dependencies first), then what the config asks
/// to deploy (`deployContracts`, linked; `deployBytecodes`), then the
/// target at `contractAddr` with `deployValue` plus `endowment`: each
/// constructor runs where its contract stays.
fn deploy_all(
    evm: &mut Evm,
    project: &Project,
    contract: &Contract,
    settings: &EvmSettings,
    codes: &Codes<'_>,
    endowment: U256,
) -> Result<Deployed, ExecError> {
    let code_err = |what: String| ExecError::Code {
        contract: contract.name.clone(),
        what,
    };
    let mut runtime_codes: Vec<(Address, CodeId)> = Vec::new();
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
    for lib in &codes.libraries {
        let code = link(&predeployed, lib)?;
        let a = create(evm, settings, &lib.name, code, U256::ZERO, None)?;
        if let Some((_, id)) = codes
            .library_codes
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
                let a = create(evm, settings, &lib.name, code, U256::ZERO, None)?;
                predeployed.push((lib.qualified_name(), a));
            }
        }
        let code = with_args(link(&predeployed, c)?, c)?;
        let a = create(evm, settings, name, code, U256::ZERO, Some(*at))?;
        predeployed.push((c.qualified_name(), a));
    }
    for (at, code) in &settings.deploy_bytecodes {
        let label = format!("bytecode at {at}");
        let a = create(
            evm,
            settings,
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
        evm,
        settings,
        &contract.name,
        creation,
        settings.deploy_value.saturating_add(endowment),
        Some(settings.contract_addr),
    )?;
    Ok(Deployed {
        address,
        predeployed,
        runtime_codes,
    })
}

/// Every contract with code after deployment (sorted); those callable
/// beside the target: deployed contracts that are `candidates` (and, in a
/// suite, among its targets, with its selected functions); and every
/// deployed contract of the project with its whole ABI (what predicates
/// may read). Their runtime code joins `runtime_codes` for coverage.
fn discover_others(
    db: &super::StateDb,
    target: Address,
    candidates: &[(&Contract, Option<CodeId>)],
    suite: Option<&foundry::SuiteTargets>,
    project: &Project,
    runtime_codes: &mut Vec<(Address, CodeId)>,
    callable: bool,
) -> (Vec<Address>, Vec<crate::tx::Callee>, Vec<crate::tx::Callee>) {
    let mut deployed: Vec<Address> = db
        .cache
        .accounts
        .iter()
        .filter(|(a, acc)| {
            **a != cheatcodes::CHEATCODE_ADDRESS
                && acc.info.code.as_ref().is_some_and(|c| !c.is_empty())
        })
        .map(|(a, _)| *a)
        .collect();
    deployed.sort();
    let mut others: Vec<crate::tx::Callee> = Vec::new();
    let mut readable: Vec<crate::tx::Callee> = Vec::new();
    for a in &deployed {
        // Libraries are no candidates; the target is itself.
        if *a == target {
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
        readable.push(crate::tx::Callee {
            name: c.name.clone(),
            address: *a,
            functions: abi_functions(&c.abi),
        });
        if !callable {
            continue;
        }
        let mut functions = abi_functions(&c.abi);
        if let Some(t) = suite {
            match t.selection(*a, &c.name, &c.source) {
                None => continue,
                Some(Some(only)) => {
                    functions.retain(|f| only.contains(&f.selector()) && t.calls(*a, f.selector()))
                }
                Some(None) => functions.retain(|f| t.calls_function(*a, f)),
            }
        }
        others.push(crate::tx::Callee {
            name: c.name.clone(),
            address: *a,
            functions,
        });
    }
    // `targetInterfaces`: an address called through the functions of the
    // artifacts named (the first contract of each name), in place of what
    // `setUp` left there.
    // Entries naming the same address are one (their functions merged).
    let mut interfaces: Vec<(Address, Vec<&String>)> = Vec::new();
    for (at, names) in suite.map_or(&[][..], |t| &t.interfaces[..]) {
        match interfaces.iter_mut().find(|(a, _)| a == at) {
            Some((_, all)) => all.extend(names),
            None => interfaces.push((*at, names.iter().collect())),
        }
    }
    for (at, names) in &interfaces {
        let mut functions: Vec<Arc<Function>> = Vec::new();
        for id in names {
            let abi = project
                .contracts
                .iter()
                .find(|c| foundry::artifact_is(id, &c.name, &c.source))
                .map(|c| &c.abi)
                .or_else(|| {
                    let mut i = project.interfaces.iter();
                    i.find(|c| foundry::artifact_is(id, &c.name, &c.source))
                        .map(|c| &c.abi)
                });
            let Some(abi) = abi else {
                continue;
            };
            for f in abi_functions(abi) {
                if !functions.iter().any(|g| g.selector() == f.selector()) {
                    functions.push(f);
                }
            }
        }
        let t = suite.expect("interfaces come from a suite");
        functions.retain(|f| t.calls_function(*at, f));
        // Names that resolve to nothing leave the address as it was.
        if functions.is_empty() {
            continue;
        }
        others.retain(|o| o.address != *at);
        others.push(crate::tx::Callee {
            name: names
                .iter()
                .map(|n| n.as_str())
                .collect::<Vec<_>>()
                .join("+"),
            address: *at,
            functions,
        });
    }
    (deployed, others, readable)
}

/// The contracts a suite's calls may create that become targets (forge:
/// when `targetContracts` is empty), with the functions its artifact lists
/// leave (an address named in no list: only the artifact lists apply).
fn created_targets(
    candidates: &[(&Contract, Option<CodeId>)],
    suite: &foundry::SuiteTargets,
    test: &Contract,
) -> Vec<super::CreatedTarget> {
    candidates
        .iter()
        .filter(|(c, _)| !(c.name == test.name && c.source == test.source))
        .filter_map(|(c, id)| {
            let mut functions = abi_functions(&c.abi);
            match suite.selection(Address::ZERO, &c.name, &c.source)? {
                Some(only) => functions.retain(|f| only.contains(&f.selector())),
                None => functions.retain(|f| suite.calls_function(Address::ZERO, f)),
            }
            (!functions.is_empty()).then(|| super::CreatedTarget {
                name: c.name.clone(),
                runtime: c.runtime_code.clone(),
                functions,
                code: *id,
            })
        })
        .collect()
}

/// A contract's functions as workers call them (its fallback included).
fn abi_functions(abi: &alloy_json_abi::JsonAbi) -> Vec<Arc<Function>> {
    let mut functions: Vec<Arc<Function>> = abi.functions().map(|f| Arc::new(f.clone())).collect();
    if let Some(f) = fallback_function(abi) {
        functions.push(Arc::new(f));
    }
    functions
}

impl Target {
    /// Every non-anonymous event the project's ABIs declare (once per
    /// signature and inputs): what a `$n.argument` reference may read.
    pub fn events(&self) -> Vec<Arc<alloy_json_abi::Event>> {
        let mut out: Vec<Arc<alloy_json_abi::Event>> = Vec::new();
        for c in &self.project.contracts {
            for e in c.abi.events().filter(|e| !e.anonymous) {
                if !out.iter().any(|k| k.name == e.name && k.inputs == e.inputs) {
                    out.push(Arc::new(e.clone()));
                }
            }
        }
        out
    }

    /// Deploys `contract` of `project` at `settings.contract_addr` (its
    /// constructor runs there), after its libraries and what the config
    /// asks to deploy; runs a Foundry suite's `setUp()`. `workers` coverage
    /// rows are made, plus one for the campaign.
    pub fn deploy(
        project: Arc<Project>,
        contract: &Contract,
        settings: EvmSettings,
        workers: usize,
    ) -> Result<Target, ExecError> {
        if contract.runtime_code.len() as u64 > settings.code_size {
            return Err(ExecError::Code {
                contract: contract.name.clone(),
                what: format!(
                    "runtime code is {} bytes, over the code size limit of {} (EIP-170); set `codeSize` in the config to deploy it anyway",
                    contract.runtime_code.len(),
                    settings.code_size
                ),
            });
        }
        let codes = code_objects(&project, contract)?;
        let coverage = Arc::new(CoverageMap::new(codes.infos.clone(), workers + 1));
        let campaign_row = workers;
        let (db, endowment) = genesis(&project, contract, &settings);
        let mut insp = CoverageInspector::new(coverage.recorder(campaign_row), Vec::new());
        insp.cheats = cheatcodes::Cheatcodes::new(settings.allow_ffi);
        insp.cheats.forks = cheatcodes::forks::ForkBook::for_setup(
            settings.rpc_endpoints.clone(),
            settings
                .rpc_cache_dir
                .clone()
                .unwrap_or_else(super::fork::default_cache_dir),
        );
        let mut evm = build_evm(db, &settings, insp);
        let Deployed {
            address,
            predeployed,
            mut runtime_codes,
        } = deploy_all(&mut evm, &project, contract, &settings, &codes, endowment)?;
        let code_book = Arc::new(cheatcodes::CodeBook::new(&project, |lib| {
            predeployed.iter().find(|(n, _)| n == lib).map(|(_, a)| *a)
        }));
        evm.inspector.cheats.code = code_book.clone();
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
            // A test contract (DSTest's `IS_TEST`) outside a suite gets its
            // setUp() too, in every mode, as Echidna runs it.
            if contract.abi.function("IS_TEST").is_some() {
                foundry::set_up(&mut evm, &settings, &contract.name, &contract.abi, address)?;
            }
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
        let setup_mocks = evm.inspector.cheats.expect.mocks_only();
        let mut db = std::mem::take(&mut evm.ctx.journaled_state.database);
        // The chain set-up forked (`createSelectFork`), if it did.
        settings.backend = db.db.clone();
        let active_fork = evm.inspector.cheats.forks.active;
        // A constructor that is not payable got no funds: the target is
        // credited `balanceContract` once it ran.
        if !payable_constructor(contract)
            && !settings.balance_contract.is_zero()
            && let Some(acc) = db.cache.accounts.get_mut(&address)
        {
            acc.info.balance = settings.balance_contract;
        }
        let (deployed_contracts, mut others, readable) = discover_others(
            &db,
            address,
            &codes.candidates,
            suite.as_ref(),
            &project,
            &mut runtime_codes,
            settings.all_contracts || settings.foundry,
        );
        if let Some(t) = &suite {
            settings.senders = t.senders(&settings.senders);
            // A suite that targets itself: calls to its own functions.
            let own = t.own_functions(address, &abi_functions(&contract.abi));
            if !own.is_empty() {
                others.insert(
                    0,
                    crate::tx::Callee {
                        name: contract.name.clone(),
                        address,
                        functions: own,
                    },
                );
            }
        }
        let created_targets = match &suite {
            Some(t) if t.contracts.is_empty() => created_targets(&codes.candidates, t, contract),
            _ => Vec::new(),
        };
        let Codes { codes, .. } = codes;
        Ok(Target {
            assertion_topics: assertion_topics(&project),
            assertion_events: declares_assertion_events(&project),
            uses_cheatcodes: uses_cheatcodes(&project),
            setup_mocks,
            code_book,
            errors: super::errors::ErrorBook::of(&project),
            created_functions: {
                let mut all: Vec<Arc<Function>> = Vec::new();
                for f in created_targets.iter().flat_map(|t| &t.functions) {
                    if !all.iter().any(|g| g.signature() == f.signature()) {
                        all.push(f.clone());
                    }
                }
                all
            },
            created_targets,
            functions: abi_functions(&contract.abi),
            project,
            contract: contract.clone(),
            settings,
            address,
            codes,
            coverage,
            deployed: db,
            campaign_row,
            predeployed,
            runtime_codes,
            deployed_contracts,
            others: others.into(),
            readable: readable.into(),
            active_fork,
            initial_block,
            initial_chain_id,
        })
    }
}
