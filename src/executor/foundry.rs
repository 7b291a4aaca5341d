//! Foundry invariant suites: a test contract whose `setUp()` deploys the
//! system (cheatcodes included) and says what the fuzzer calls through
//! forge-std's `StdInvariant` lists (`targetContracts()`, `targetSenders()`,
//! `targetSelectors()` and their `exclude*` counterparts), with
//! `invariant*` functions that must not revert after any call.
//!
//! Forge's defaults where the suite says nothing: every contract deployed
//! in `setUp` (other than the test contract) is a target, every function of
//! it is called, the configured senders send.

use super::{DEPLOY_GAS_LIMIT, Evm, EvmSettings, ExecError, convert, tx_env};
use alloy_dyn_abi::{DynSolType, DynSolValue};
use alloy_json_abi::JsonAbi;
use alloy_primitives::{Address, Bytes, Selector, U256};
use revm::context::TxEnv;
use revm::primitives::TxKind;
use revm::{ExecuteEvm, InspectEvm};

/// Forge's default sender, which deploys test contracts.
pub const FORGE_DEPLOYER: Address =
    alloy_primitives::address!("1804c8AB1F12E6bbf3894d4083f33e07309d1f38");

/// Where forge deploys a test contract.
pub const FORGE_TEST_ADDRESS: Address =
    alloy_primitives::address!("7FA9385bE102ac3EAc297483Dd6233D62b3e1496");

/// The name of a Foundry invariant function (`invariant_x`, `invariantX`).
pub const INVARIANT_PREFIX: &str = "invariant";

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
    let addresses = |v: Vec<DynSolValue>| -> Vec<Address> {
        v.into_iter().filter_map(|x| x.as_address()).collect()
    };
    let selectors = |v: Vec<DynSolValue>| -> Vec<(Address, Vec<Selector>)> {
        v.into_iter()
            .filter_map(|x| {
                let DynSolValue::Tuple(t) = x else {
                    return None;
                };
                let a = t.first()?.as_address()?;
                let DynSolValue::Array(s) = t.get(1)? else {
                    return None;
                };
                let sels = s
                    .iter()
                    .filter_map(|w| match w {
                        DynSolValue::FixedBytes(b, 4) => Some(Selector::from_slice(&b[..4])),
                        _ => None,
                    })
                    .collect();
                Some((a, sels))
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
        };
        assert!(t.targets(a) && !t.targets(b));
        assert!(t.calls(a, s1) && !t.calls(a, s2));
        assert!(t.calls(b, s1) && !t.calls(b, s2));
        assert_eq!(t.senders(&[Address::ZERO]), vec![a]);
    }
}
