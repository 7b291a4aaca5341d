//! Foundry invariant suites: a test contract whose `setUp()` deploys the
//! system (cheatcodes included) and says what the fuzzer calls through
//! forge-std's `StdInvariant` lists (`targetContracts()`, `targetSenders()`,
//! `targetSelectors()` and their `exclude*` counterparts), with
//! `invariant*` functions that must not revert after any call.
//!
//! Forge's defaults where the suite says nothing: every contract deployed
//! in `setUp` (other than the test contract) is a target, every function of
//! it is called, the configured senders send. Artifact lists
//! (`targetArtifacts`, `excludeArtifacts`, `targetArtifactSelectors`) filter
//! the contracts `setUp` deployed by their contract (`Name` or
//! `path/File.sol:Name`); `targetInterfaces` adds an address called through
//! the functions of the artifacts it names.

use super::{DEPLOY_GAS_LIMIT, Evm, EvmSettings, ExecError, convert, tx_env};
use alloy_dyn_abi::{DynSolType, DynSolValue};
use alloy_json_abi::{Function, JsonAbi};
use alloy_primitives::{Address, Bytes, Selector, U256};
use revm::context::TxEnv;
use revm::primitives::TxKind;
use revm::{ExecuteEvm, InspectEvm};
use std::sync::Arc;

/// Forge's default sender, which deploys test contracts.
pub const FORGE_DEPLOYER: Address =
    alloy_primitives::address!("1804c8AB1F12E6bbf3894d4083f33e07309d1f38");

/// Where forge deploys a test contract.
pub const FORGE_TEST_ADDRESS: Address =
    alloy_primitives::address!("7FA9385bE102ac3EAc297483Dd6233D62b3e1496");

/// The name of a Foundry invariant function (`invariant_x`, `invariantX`).
pub const INVARIANT_PREFIX: &str = "invariant";

/// The function forge calls at the end of each run of an invariant suite
/// (it must not revert).
pub const AFTER_INVARIANT: &str = "afterInvariant";

/// Whether `abi` is that of a Foundry invariant suite: it declares an
/// `invariant*` function, or a `setUp()` with forge-std's target lists.
pub fn is_suite(abi: &JsonAbi) -> bool {
    abi.functions()
        .any(|f| f.name.starts_with(INVARIANT_PREFIX) && f.inputs.is_empty())
        || (abi.function("setUp").is_some() && abi.function("targetContracts").is_some())
}

/// What a suite's `StdInvariant` lists say after `setUp()`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SuiteTargets {
    pub contracts: Vec<Address>,
    pub excluded_contracts: Vec<Address>,
    pub senders: Vec<Address>,
    pub excluded_senders: Vec<Address>,
    /// Per contract, the only selectors called.
    pub selectors: Vec<(Address, Vec<Selector>)>,
    /// Per contract, selectors never called.
    pub excluded_selectors: Vec<(Address, Vec<Selector>)>,
    /// `targetArtifacts`: only contracts of these artifacts are targets.
    pub artifacts: Vec<String>,
    /// `excludeArtifacts`: contracts of these artifacts are not.
    pub excluded_artifacts: Vec<String>,
    /// `targetArtifactSelectors`: contracts of these artifacts are targets,
    /// with only these selectors (whatever the other lists say).
    pub artifact_selectors: Vec<(String, Vec<Selector>)>,
    /// `targetInterfaces`: addresses called through the functions of the
    /// artifacts named.
    pub interfaces: Vec<(Address, Vec<String>)>,
}

/// Whether a suite's function named `name` is one forge never fuzzes: a
/// test, `setUp`, `beforeTestSetup`, `afterInvariant` or a fixture.
fn reserved(name: &str) -> bool {
    ["test", "invariant", "statefulFuzz", "fixture", "table"]
        .iter()
        .any(|p| name.starts_with(p))
        || ["setUp", "beforeTestSetup", "afterInvariant"]
            .iter()
            .any(|n| name.eq_ignore_ascii_case(n))
}

/// Whether artifact identifier `id` (`Name`, or `path/File.sol:Name` as
/// forge spells it, relative to the project) names contract `name` of
/// source file `source`.
pub fn artifact_is(id: &str, name: &str, source: &str) -> bool {
    match id.rsplit_once(':') {
        None => id == name,
        Some((path, n)) => {
            n == name
                && (path == source
                    || source.ends_with(&format!("/{path}"))
                    || path.ends_with(&format!("/{source}")))
        }
    }
}

impl SuiteTargets {
    /// Whether calls may go to the contract at `a` (the suite's own address
    /// is never a default target).
    pub fn targets(&self, a: Address) -> bool {
        (self.contracts.is_empty() || self.contracts.contains(&a))
            && !self.excluded_contracts.contains(&a)
    }

    /// Whether the function with `selector` of the contract at `a` is called.
    pub fn calls(&self, a: Address, selector: Selector) -> bool {
        let listed = |l: &[(Address, Vec<Selector>)]| {
            l.iter()
                .find(|(at, _)| *at == a)
                .map(|(_, s)| s.contains(&selector))
        };
        listed(&self.selectors).unwrap_or(true)
            && !listed(&self.excluded_selectors).unwrap_or(false)
    }

    /// Whether `targetSelectors` or `excludeSelectors` name `a`: forge then
    /// makes it a target whatever the contract and artifact lists say.
    pub fn names_selectors_of(&self, a: Address) -> bool {
        self.selectors
            .iter()
            .chain(&self.excluded_selectors)
            .any(|(at, s)| *at == a && !s.is_empty())
    }

    /// Whether function `f` of a target at `a` is called: as forge, view
    /// and pure functions only when `targetSelectors` lists them.
    pub fn calls_function(&self, a: Address, f: &Function) -> bool {
        use alloy_json_abi::StateMutability::{Pure, View};
        let listed = self.selectors.iter().any(|(at, _)| *at == a);
        self.calls(a, f.selector()) && (listed || !matches!(f.state_mutability, View | Pure))
    }

    /// The suite's own functions the fuzzer calls when the suite at `me` is
    /// its own target (named by `targetContracts`, `targetSelectors` or
    /// `excludeSelectors`, as forge reads them): those `targetSelectors`
    /// lists, else every state-changing function that is no test, `setUp`,
    /// `afterInvariant` or fixture; less `excludeSelectors`. Empty otherwise.
    pub fn own_functions(&self, me: Address, functions: &[Arc<Function>]) -> Vec<Arc<Function>> {
        if !(self.contracts.contains(&me) || self.names_selectors_of(me)) {
            return Vec::new();
        }
        let listed = self.selectors.iter().any(|(at, _)| *at == me);
        functions
            .iter()
            .filter(|f| self.calls_function(me, f) && (listed || !reserved(&f.name)))
            .cloned()
            .collect()
    }

    /// Which functions of the contract `setUp` left at `a` (of artifact
    /// `name` in `source`) are called: `None` when it is no target,
    /// `Some(None)` for all (less excluded selectors), `Some(Some(list))`
    /// for those of `targetArtifactSelectors` alone. As forge: an artifact
    /// with selectors is a target whatever the other lists say; otherwise
    /// the contract lists apply, then the excluded artifacts, then (when
    /// any artifact is targeted) only targeted artifacts remain.
    pub fn selection(&self, a: Address, name: &str, source: &str) -> Option<Option<Vec<Selector>>> {
        let is = |id: &String| artifact_is(id, name, source);
        if let Some((_, sels)) = self.artifact_selectors.iter().find(|(id, _)| is(id)) {
            return Some(Some(sels.clone()));
        }
        if self.names_selectors_of(a) {
            return Some(None);
        }
        if !self.targets(a) || self.excluded_artifacts.iter().any(is) {
            return None;
        }
        let any_targeted = !self.artifacts.is_empty() || !self.artifact_selectors.is_empty();
        if any_targeted && !self.artifacts.iter().any(is) {
            return None;
        }
        Some(None)
    }

    /// The senders of fuzzed calls: the suite's `targetSenders` (less the
    /// excluded), or `configured` less the excluded when it names none.
    pub fn senders(&self, configured: &[Address]) -> Vec<Address> {
        let base = if self.senders.is_empty() {
            configured
        } else {
            &self.senders
        };
        let out: Vec<Address> = base
            .iter()
            .filter(|a| !self.excluded_senders.contains(a))
            .copied()
            .collect();
        if out.is_empty() {
            configured.to_vec()
        } else {
            out
        }
    }
}

fn call(
    evm: &mut Evm,
    settings: &EvmSettings,
    to: Address,
    data: Bytes,
    commit: bool,
) -> Result<super::CallResult, ExecError> {
    let mut tx: TxEnv = tx_env(
        settings,
        settings.deployer,
        TxKind::Call(to),
        data,
        U256::ZERO,
    );
    tx.gas_limit = DEPLOY_GAS_LIMIT;
    let result = evm
        .inspect_one_tx(tx)
        .map_err(|e| ExecError::Evm(e.to_string()))?;
    let state = evm.finalize();
    if commit && result.is_success() {
        use revm::DatabaseCommit;
        evm.ctx.journaled_state.database.commit(state);
    }
    Ok(convert(result))
}

/// Runs the suite's `setUp()` (when it has one) from the deployer, as forge
/// does before fuzzing; an error names the revert.
pub(super) fn set_up(
    evm: &mut Evm,
    settings: &EvmSettings,
    name: &str,
    abi: &JsonAbi,
    suite: Address,
) -> Result<(), ExecError> {
    let Some(f) = abi
        .function("setUp")
        .and_then(|fs| fs.iter().find(|f| f.inputs.is_empty()))
    else {
        return Ok(());
    };
    let r = call(evm, settings, suite, f.selector().to_vec().into(), true)?;
    if !r.outcome.is_success() {
        return Err(ExecError::Deploy {
            contract: name.to_string(),
            outcome: format!("setUp() {}", r.outcome),
        });
    }
    Ok(())
}

/// Reads the suite's target and exclude lists (a list the contract does
/// not declare is empty).
pub(super) fn targets(
    evm: &mut Evm,
    settings: &EvmSettings,
    abi: &JsonAbi,
    suite: Address,
) -> SuiteTargets {
    let mut read = |name: &str, ty: &str| -> Vec<DynSolValue> {
        let Some(f) = abi
            .function(name)
            .and_then(|fs| fs.iter().find(|f| f.inputs.is_empty()))
        else {
            return Vec::new();
        };
        let Ok(r) = call(evm, settings, suite, f.selector().to_vec().into(), false) else {
            return Vec::new();
        };
        let super::Outcome::Success { output } = r.outcome else {
            return Vec::new();
        };
        let ty: DynSolType = ty.parse().expect("a valid type");
        match ty.abi_decode(&output) {
            Ok(DynSolValue::Array(v)) => v,
            _ => Vec::new(),
        }
    };
    let strings = |v: Vec<DynSolValue>| -> Vec<String> {
        v.into_iter()
            .filter_map(|x| x.as_str().map(str::to_string))
            .collect()
    };
    let four = |s: &DynSolValue| -> Vec<Selector> {
        s.as_array()
            .unwrap_or_default()
            .iter()
            .filter_map(|w| match w {
                DynSolValue::FixedBytes(b, 4) => Some(Selector::from_slice(&b[..4])),
                _ => None,
            })
            .collect()
    };
    let artifact_selectors = read("targetArtifactSelectors", "(string,bytes4[])[]")
        .into_iter()
        .filter_map(|x| {
            let DynSolValue::Tuple(t) = x else {
                return None;
            };
            Some((t.first()?.as_str()?.to_string(), four(t.get(1)?)))
        })
        .collect();
    let interfaces = read("targetInterfaces", "(address,string[])[]")
        .into_iter()
        .filter_map(|x| {
            let DynSolValue::Tuple(t) = x else {
                return None;
            };
            let names = t.get(1)?.as_array()?.iter();
            let names = names.filter_map(|n| n.as_str().map(str::to_string));
            Some((t.first()?.as_address()?, names.collect()))
        })
        .collect();
    let addresses = |v: Vec<DynSolValue>| -> Vec<Address> {
        v.into_iter().filter_map(|x| x.as_address()).collect()
    };
    let selectors = |v: Vec<DynSolValue>| -> Vec<(Address, Vec<Selector>)> {
        v.into_iter()
            .filter_map(|x| {
                let DynSolValue::Tuple(t) = x else {
                    return None;
                };
                Some((t.first()?.as_address()?, four(t.get(1)?)))
            })
            .collect()
    };
    SuiteTargets {
        contracts: addresses(read("targetContracts", "address[]")),
        excluded_contracts: addresses(read("excludeContracts", "address[]")),
        senders: addresses(read("targetSenders", "address[]")),
        excluded_senders: addresses(read("excludeSenders", "address[]")),
        selectors: selectors(read("targetSelectors", "(address,bytes4[])[]")),
        excluded_selectors: selectors(read("excludeSelectors", "(address,bytes4[])[]")),
        artifacts: strings(read("targetArtifacts", "string[]")),
        excluded_artifacts: strings(read("excludeArtifacts", "string[]")),
        artifact_selectors,
        interfaces,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_narrow_targets_selectors_and_senders_as_forge_does() {
        let a = Address::repeat_byte(1);
        let b = Address::repeat_byte(2);
        let s1 = Selector::repeat_byte(7);
        let s2 = Selector::repeat_byte(8);
        let none = SuiteTargets::default();
        assert!(none.targets(a) && none.calls(a, s1));
        assert_eq!(none.senders(&[a]), vec![a]);
        let t = SuiteTargets {
            contracts: vec![a],
            excluded_contracts: vec![b],
            senders: vec![a, b],
            excluded_senders: vec![b],
            selectors: vec![(a, vec![s1])],
            excluded_selectors: vec![(b, vec![s2])],
            ..Default::default()
        };
        assert!(t.targets(a) && !t.targets(b));
        assert!(t.calls(a, s1) && !t.calls(a, s2));
        assert!(t.calls(b, s1) && !t.calls(b, s2));
        assert_eq!(t.senders(&[Address::ZERO]), vec![a]);
    }

    #[test]
    fn artifact_lists_select_setup_contracts_as_forge_does() {
        assert!(artifact_is("Vault", "Vault", "src/Vault.sol"));
        assert!(artifact_is("src/Vault.sol:Vault", "Vault", "src/Vault.sol"));
        assert!(artifact_is(
            "src/Vault.sol:Vault",
            "Vault",
            "/home/u/p/src/Vault.sol"
        ));
        assert!(!artifact_is(
            "src/Other.sol:Vault",
            "Vault",
            "src/Vault.sol"
        ));
        assert!(!artifact_is("Vaul", "Vault", "src/Vault.sol"));
        let (a, b) = (Address::repeat_byte(1), Address::repeat_byte(2));
        let s1 = Selector::repeat_byte(7);
        let t = SuiteTargets {
            artifacts: vec!["Vault".into()],
            ..Default::default()
        };
        assert_eq!(t.selection(a, "Vault", "src/V.sol"), Some(None));
        assert_eq!(t.selection(a, "Token", "src/T.sol"), None);
        // Selectors of an artifact make it a target even when excluded.
        let t = SuiteTargets {
            excluded_contracts: vec![a],
            excluded_artifacts: vec!["Token".into()],
            artifact_selectors: vec![("Token".into(), vec![s1])],
            ..Default::default()
        };
        assert_eq!(t.selection(a, "Token", "src/T.sol"), Some(Some(vec![s1])));
        // Targeted artifacts (by selectors) leave others out.
        assert_eq!(t.selection(b, "Vault", "src/V.sol"), None);
        let t = SuiteTargets {
            excluded_artifacts: vec!["src/T.sol:Token".into()],
            ..Default::default()
        };
        assert_eq!(t.selection(a, "Token", "src/T.sol"), None);
        assert_eq!(t.selection(a, "Vault", "src/V.sol"), Some(None));
    }
}
