//! What a campaign is built from, step by step (see
//! [`Campaign::from_project`](super::Campaign::from_project)): the suite's
//! configuration, the EVM settings, the callable functions, the run's
//! identity, the dictionary, the journal with what families kept there, and
//! the specs of earlier runs.

use super::*;

/// The configuration of a run on `contract`: a Foundry invariant suite's
/// (its setUp() deploys the system, its target lists say what is called,
/// its `invariant*` functions are the properties unless it also has
/// `echidna_` ones; `foundry.toml`'s `[invariant]` applies; forge's deployer
/// and test address) or `config` as given. Also: whether it is a suite, and
/// the notes the suite's settings left.
pub(super) fn suite_config(
    project: &Project,
    contract: &crate::artifacts::Contract,
    config: Config,
) -> Result<(Config, bool, Vec<String>), CampaignError> {
    // Foundry mode fuzzes the contract itself (Echidna's rule), not a
    // suite's targets.
    let foundry = crate::executor::foundry::is_suite(&contract.abi)
        && config.test_mode != crate::config::TestMode::Foundry;
    let mut config = config;
    if !foundry {
        return Ok((config, false, Vec::new()));
    }
    if config.prefix == Config::default().prefix
        && !contract
            .abi
            .functions()
            .any(|f| f.name.starts_with(&config.prefix))
    {
        config.prefix = crate::executor::foundry::INVARIANT_PREFIX.into();
    }
    use crate::config::foundry::{InvariantSettings, project_toml, read};
    let settings = match project_toml(&project.origin) {
        Some(path) => read(&path).map_err(|e| CampaignError::Setup(e.to_string()))?,
        None => InvariantSettings::default(),
    };
    let notes = config
        .apply_invariant_settings(&settings)
        .map_err(|e| CampaignError::Setup(e.to_string()))?;
    // Where forge deploys a suite (its default sender creates the test
    // contract): every contract setUp() creates lands where it does in
    // forge, so reproducers name the same addresses.
    config.rpc_endpoints = settings.rpc_endpoints.clone();
    let defaults = Config::default();
    if config.deployer == defaults.deployer {
        config.deployer = crate::executor::foundry::FORGE_DEPLOYER;
    }
    if config.contract_addr == defaults.contract_addr {
        config.contract_addr = crate::executor::foundry::FORGE_TEST_ADDRESS;
    }
    Ok((config, true, notes))
}

/// Fork mode asked by the configuration (`rpcUrl`): opens the fork (the
/// block pinned, its cache read) and makes its block the initial one.
pub(super) fn fork(config: &Config, settings: &mut EvmSettings) -> Result<(), CampaignError> {
    if let Some(url) = &config.rpc_url {
        let dir = config
            .rpc_cache_dir
            .clone()
            .unwrap_or_else(crate::executor::fork::default_cache_dir);
        let source = crate::executor::fork::ForkSource::open(url, config.rpc_block, &dir)
            .map_err(|e| CampaignError::Setup(format!("rpcUrl: {e}")))?;
        let b = source.block();
        tracing::info!(
            url = %source.shown_url(),
            block = b.number,
            chain = b.chain_id,
            cache = %source.cache_file().display(),
            "fork mode: the chain's state at block {} (chain {})",
            b.number,
            b.chain_id
        );
        settings.block_number = b.number;
        settings.timestamp = b.timestamp;
        settings.backend = crate::executor::fork::Backend::Fork(source);
    }
    Ok(())
}

/// What the deployment and every executor take from the configuration.
pub(super) fn evm_settings(config: &Config, foundry: bool) -> EvmSettings {
    EvmSettings {
        deployer: config.deployer,
        senders: config.senders.clone(),
        contract_addr: config.contract_addr,
        balance: config.balance_addr,
        balance_contract: config.balance_contract,
        gas_limit: config.test_max_gas,
        prop_gas_limit: config.prop_max_gas,
        code_size: config.code_size,
        deploy_contracts: config.deploy_contracts.clone(),
        deploy_bytecodes: config.deploy_bytecodes.clone(),
        constructor_args: config.constructor_args.clone(),
        allow_ffi: config.allow_ffi,
        all_contracts: config.all_contracts,
        foundry,
        rpc_endpoints: config.rpc_endpoints.clone(),
        rpc_cache_dir: config.rpc_cache_dir.clone(),
        ..EvmSettings::default()
    }
}

/// The functions workers call: the target's (not a Foundry suite's own),
/// then (with `allContracts`, or a suite's targets) those of every other
/// contract deployed with it, each call sent to its address; less the
/// properties, view/pure functions when excluded, and the filter's.
pub(super) fn callable_functions(
    config: &Config,
    target: &Target,
    foundry: bool,
) -> Result<Vec<Callable>, CampaignError> {
    let own = (!foundry).then_some((None, &target.functions));
    let callees = own.into_iter().chain(
        target
            .others
            .iter()
            .map(|c| (Some((c.address, c.name.as_str())), &c.functions)),
    );
    let mut callable: Vec<Callable> = Vec::new();
    for (to, functions) in callees {
        for f in functions {
            if !called(config, f) {
                continue;
            }
            let mut c = Callable::new(f.clone()).map_err(CampaignError::Setup)?;
            c.to = to.map(|(a, _)| a);
            c.contract = to.map(|(_, n)| Arc::from(n));
            callable.push(c);
        }
    }
    Ok(callable)
}

/// Whether workers call `f`: not a test (nor any function with the test
/// prefix, as in Echidna), not filtered, not a view when those are
/// excluded; in foundry mode only functions that take arguments (Echidna's
/// rule there: `setUp`, `invariant*` and getters are not fuzzed).
fn called(config: &Config, f: &alloy_json_abi::Function) -> bool {
    use alloy_json_abi::StateMutability::{Pure, View};
    if config.test_mode == crate::config::TestMode::Foundry && f.inputs.is_empty() {
        return false;
    }
    !(f.name.starts_with(&config.prefix)
        || (config.exclude_view_pure && matches!(f.state_mutability, View | Pure))
        || !config.function_allowed(&f.name, &f.signature()))
}

/// A contract a suite's calls may create, with the functions workers call
/// once one is created ([`crate::executor::CreatedTarget`]).
#[derive(Debug)]
pub(crate) struct CreatedCallables {
    pub target: crate::executor::CreatedTarget,
    /// Its functions, each still without an address.
    pub callables: Vec<Callable>,
}

pub(super) fn created_callables(
    config: &Config,
    target: &Target,
) -> Result<Vec<CreatedCallables>, CampaignError> {
    let mut out = Vec::new();
    for t in &target.created_targets {
        let name: Arc<str> = Arc::from(t.name.as_str());
        let mut callables = Vec::new();
        for f in t.functions.iter().filter(|f| called(config, f)) {
            let mut c = Callable::new(f.clone()).map_err(CampaignError::Setup)?;
            c.contract = Some(name.clone());
            callables.push(c);
        }
        if !callables.is_empty() {
            out.push(CreatedCallables {
                target: t.clone(),
                callables,
            });
        }
    }
    Ok(out)
}

/// The run's seed (given, or from the clock and the process id), its start
/// and its id (start time and seed).
pub(super) fn run_identity(config: &Config) -> (u64, u64, String) {
    let seed = config.seed.unwrap_or_else(|| {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0);
        t ^ (std::process::id() as u64).rotate_left(32)
    });
    let started_ms = now_ms();
    let run_id = format!(
        "{}-{:04x}",
        rfc3339(started_ms).replace([':', '-'], "").replace('.', ""),
        seed as u16
    );
    (seed, started_ms, run_id)
}

/// The dictionary's first words: constants of the code and sources, the
/// addresses that matter (senders, deployer, target, every deployed
/// contract, zero) and the block the sequences start from.
pub(super) fn mine_dictionary(
    project: &Project,
    contract: &crate::artifacts::Contract,
    config: &Config,
    target: &Target,
) -> Dictionary {
    let mut addresses = config.senders.clone();
    addresses.extend([
        config.deployer,
        target.address,
        alloy_primitives::Address::ZERO,
    ]);
    for a in &target.deployed_contracts {
        if !addresses.contains(a) {
            addresses.push(*a);
        }
    }
    let sources: Vec<&str> = project
        .sources
        .iter()
        .filter_map(|s| s.text.as_deref())
        .collect();
    let mut dictionary = Dictionary::mine(
        &[&contract.runtime_code, &contract.creation_code],
        &sources,
        addresses,
    );
    // Calls a `bytes` argument may carry: every function of the target
    // and of the contracts beside it that changes state (filtered ones
    // too: a callback may reach what no sender can).
    dictionary.add_callbacks(
        target
            .functions
            .iter()
            .chain(target.others.iter().flat_map(|o| o.functions.iter()))
            .map(|f| &**f),
    );
    // The block the sequences start from: contracts compare against it.
    dictionary.add_constants([
        alloy_primitives::U256::from(target.settings.timestamp),
        alloy_primitives::U256::from(target.settings.block_number),
    ]);
    dictionary
}

/// The corpus directory's SQLite journal (with `journal` on), and what the
/// families kept there in earlier runs: the ETG's attempts and the agent's
/// decisions.
pub(super) fn open_journal(
    config: &Config,
    layout: &persist::Layout,
    run_id: &str,
    started_ms: u64,
    contract: &str,
    render: &Arc<Renderer>,
) -> Result<
    (
        Option<crate::journal::Journal>,
        crate::graph::etg::Etg,
        crate::ops::OpsState,
    ),
    CampaignError,
> {
    let etg = crate::graph::etg::Etg::new(run_id);
    let ops = crate::ops::OpsState::default();
    if !config.journal {
        return Ok((None, etg, ops));
    }
    let journal = crate::journal::Journal::open(
        &layout.journal_db(),
        run_id,
        started_ms,
        contract,
        render.clone(),
        // The families' own tables.
        &[crate::graph::rows::SCHEMA, crate::ops::rows::SCHEMA],
    )
    .map_err(|e| CampaignError::Setup(e.to_string()))?;
    let read = |what: &str, f: &dyn Fn(&rusqlite::Connection) -> Result<(), String>| {
        if let Err(e) = journal
            .reader()
            .map_err(|e| e.to_string())
            .and_then(|r| f(r.conn()))
        {
            tracing::warn!("{what} of earlier runs not loaded: {e}");
        }
    };
    read("ETG", &|c| {
        let events = crate::graph::rows::load_etg(c).map_err(|e| e.to_string())?;
        etg.load(events);
        Ok(())
    });
    read("decisions", &|c| {
        let old = crate::ops::rows::load_decisions(c).map_err(|e| e.to_string())?;
        ops.decisions.load(old);
        Ok(())
    });
    Ok((Some(journal), etg, ops))
}

/// The specs submitted to earlier runs of this corpus directory, added to
/// `tests` (one that no longer parses, or whose name is taken, is left out
/// with a warning).
pub(super) fn load_saved_specs(layout: &persist::Layout, target: &Target, tests: &TestStore) {
    for src in load_specs(&layout.specs()) {
        let name = src.name.clone();
        match spec::Spec::parse(src, &target.functions) {
            Ok(spec) => {
                let added = tests.add(0, |id, store| {
                    if store.cases().any(|c| c.name == spec.source.name) {
                        return Err(());
                    }
                    Ok(spec_case(id, spec))
                });
                if !matches!(added, Ok(Some(_))) {
                    tracing::warn!(
                        "spec {name:?} of specs.json not loaded (duplicate name or too many tests)"
                    );
                }
            }
            Err(e) => tracing::warn!("spec {name:?} of specs.json not loaded: {e}"),
        }
    }
}
