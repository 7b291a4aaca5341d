//! Falsified tests written as Foundry tests: a contract that inherits the
//! suite (or harness), replays the shrunk sequence with `vm.prank`,
//! `vm.warp`, `vm.roll` and `vm.deal`, and then checks the broken test, so
//! that `forge test` fails on it. Users paste it into their suite as a
//! regression test.
//!
//! A call that sets a prank itself (a handler calling `vm.prank` or
//! `vm.startPrank`) is sent by the test contract, without a prank: forge
//! refuses a prank inside a pranked call.
//!
//! Calls are replayed as their exact calldata (a comment above each shows
//! it in the call syntax), so any ABI type replays without a Solidity
//! literal for it. Addresses are literal: for a Foundry suite they are
//! forge's own, since rudder deploys a suite where forge does (deployer
//! and test contract address, hence every contract `setUp()` creates).

use super::Engine;
use super::properties::TestCase;
use crate::tx::Tx;
use std::fmt::Write;

/// The Solidity identifier of a test's reproducer contract.
pub fn contract_name(suite: &str, test: &str) -> String {
    format!("{suite}_{}_Repro", ident(test))
}

/// A test's reproducer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Repro {
    /// The test is falsified: the reproducer's contract name and source.
    Written { contract: String, solidity: String },
    /// Not falsified (yet); the contract name it will have.
    NotYet { contract: String },
}

/// The reproducer of the test named `test`, or why there can be none (no
/// such test, or one no reproducer can be written for).
pub fn for_test(engine: &Engine, test: &str) -> Result<Repro, String> {
    let case = engine
        .tests
        .cases()
        .find(|c| c.name == test)
        .ok_or_else(|| {
            let names: Vec<&str> = engine.tests.cases().map(|c| c.name.as_str()).collect();
            format!(
                "test: {test:?} is not a test of this campaign; its tests: {}",
                names.join(", ")
            )
        })?;
    if let Some(why) = unsupported(engine, case) {
        return Err(format!("test: no Foundry reproducer for {test:?}: {why}"));
    }
    let contract = contract_name(&engine.target.contract.name, &case.name);
    Ok(match engine.tests.falsified(case.id) {
        Some(f) => Repro::Written {
            solidity: reproducer(engine, case, &f.reason, f.sequence()),
            contract,
        },
        None => Repro::NotYet { contract },
    })
}

/// Why a reproducer cannot be written for `case` (none when it can).
pub fn unsupported(engine: &Engine, case: &TestCase) -> Option<String> {
    if case.kind.seeks_value() {
        return Some("optimization tests have no failure to reproduce".into());
    }
    if case.spec.is_some() {
        return Some("an invariant added at run time is not Solidity".into());
    }
    if engine
        .target
        .contract
        .abi
        .constructor
        .as_ref()
        .is_some_and(|c| !c.inputs.is_empty())
    {
        return Some(format!(
            "{}'s constructor takes arguments: a test contract cannot inherit it as is",
            engine.target.contract.name
        ));
    }
    None
}

/// The reproducer of `case` broken by `seq`, as a Solidity source.
pub fn reproducer(engine: &Engine, case: &TestCase, reason: &str, seq: &[Tx]) -> String {
    let t = &engine.target;
    let suite = &t.contract.name;
    let name = contract_name(suite, &case.name);
    let printed = engine.print_sequence(seq);
    let mut s = String::new();
    let _ = writeln!(s, "// SPDX-License-Identifier: UNLICENSED");
    let _ = writeln!(
        s,
        "// Written by rudder: {} of {suite} fails ({}) after the {}-call sequence below.",
        case.name,
        reason.replace('\n', " "),
        seq.len()
    );
    let _ = writeln!(
        s,
        "// Run it: forge test --match-contract {name} --match-test test_"
    );
    let _ = writeln!(s, "pragma solidity >=0.6.2;\n");
    let _ = writeln!(s, "import \"{}\";\n", t.contract.source);
    let _ = writeln!(s, "interface RudderVm {{");
    for f in [
        "prank(address)",
        "deal(address, uint256)",
        "warp(uint256)",
        "roll(uint256)",
    ] {
        let _ = writeln!(s, "    function {f} external;");
    }
    let _ = writeln!(s, "}}\n");
    // The campaign deployed the harness (and ran a suite's setUp) at its
    // own start block, not forge's (timestamp 1, block 1): a base whose
    // constructor runs before the harness's sets it, so a harness that
    // derives an epoch or a deadline from it is set up as in the campaign
    // (forge keeps a constructor's warp for setUp and the test).
    let _ = writeln!(s, "contract {name}_Clock {{");
    let _ = writeln!(s, "    constructor() {{");
    let _ = writeln!(
        s,
        "        RudderVm(0x7109709ECfa91a80626fF3989D68f67F5b1DD12D).warp({});",
        crate::executor::INITIAL_TIMESTAMP
    );
    let _ = writeln!(
        s,
        "        RudderVm(0x7109709ECfa91a80626fF3989D68f67F5b1DD12D).roll({});",
        crate::executor::INITIAL_BLOCK_NUMBER
    );
    let _ = writeln!(s, "    }}");
    let _ = writeln!(s, "}}\n");
    let _ = writeln!(s, "contract {name} is {name}_Clock, {suite} {{");
    let _ = writeln!(s, "    function test_{}() public {{", ident(&case.name));
    let _ = writeln!(
        s,
        "        RudderVm vm_ = RudderVm(0x7109709ECfa91a80626fF3989D68f67F5b1DD12D);"
    );
    let _ = writeln!(
        s,
        "        vm_.warp({});\n        vm_.roll({});",
        t.settings.timestamp, t.settings.block_number
    );
    let last = seq.len().saturating_sub(1);
    let pranks = self_pranking(engine, seq);
    for (i, (tx, text)) in seq.iter().zip(&printed).enumerate() {
        let _ = writeln!(s, "        // {}. {text}", i + 1);
        if tx.delay.seconds > 0 {
            let _ = writeln!(
                s,
                "        vm_.warp(block.timestamp + {});",
                tx.delay.seconds
            );
        }
        if tx.delay.blocks > 0 {
            let _ = writeln!(s, "        vm_.roll(block.number + {});", tx.delay.blocks);
        }
        if !tx.value.is_zero() {
            // The value comes from whoever sends the call.
            let from = if pranks[i] {
                "address(this)".to_string()
            } else {
                tx.sender.to_checksum(None)
            };
            let _ = writeln!(
                s,
                "        vm_.deal({from}, {from}.balance + {});",
                tx.value
            );
        }
        if pranks[i] {
            let _ = writeln!(
                s,
                "        // Sent by this contract, not {}: the call pranks itself, and forge refuses a prank inside a pranked call.",
                tx.sender.to_checksum(None)
            );
        } else {
            let _ = writeln!(s, "        vm_.prank({});", tx.sender.to_checksum(None));
        }
        let to = match tx.to {
            None => "address(this)".to_string(),
            // Solidity takes address literals checksummed.
            Some(a) => a.to_checksum(None),
        };
        let data = alloy_primitives::hex::encode(tx.calldata());
        // An assertion test fails on its call: that call's revert is the failure.
        // With failOnRevert, any call that reverts is the failure.
        let must_pass = (i == last && case.kind.is_per_call())
            || (engine.config.fail_on_revert && case.breaks_on_revert());
        let helper = if must_pass { "_callOrRevert" } else { "_call" };
        let _ = writeln!(s, "        {helper}({to}, {}, hex\"{data}\");", tx.value);
    }
    if case.kind.must_hold() {
        if case.function.outputs.is_empty() {
            let _ = writeln!(s, "        {}();", case.name);
        } else {
            let _ = writeln!(
                s,
                "        require({0}(), \"{0} returned false\");",
                case.name
            );
        }
    }
    let _ = writeln!(s, "    }}\n");
    let _ = writeln!(
        s,
        "    function _call(address to, uint256 value, bytes memory data) private {{"
    );
    let _ = writeln!(
        s,
        "        (bool ok, ) = to.call{{value: value}}(data);\n        ok; // a reverted call changes nothing, as in the campaign"
    );
    let _ = writeln!(s, "    }}\n");
    let _ = writeln!(
        s,
        "    function _callOrRevert(address to, uint256 value, bytes memory data) private {{"
    );
    let _ = writeln!(
        s,
        "        (bool ok, bytes memory out) = to.call{{value: value}}(data);"
    );
    let _ = writeln!(s, "        if (!ok) {{");
    let _ = writeln!(
        s,
        "            assembly {{ revert(add(out, 32), mload(out)) }}"
    );
    let _ = writeln!(s, "        }}");
    let _ = writeln!(s, "    }}");
    let _ = writeln!(s, "}}");
    s
}

/// For each call of `seq`, whether it sets a prank itself (replayed once
/// from the deployed state).
fn self_pranking(engine: &Engine, seq: &[Tx]) -> Vec<bool> {
    if !engine.target.uses_cheatcodes {
        return vec![false; seq.len()];
    }
    let mut ex = engine.target.executor(engine.workers);
    ex.set_recording(false);
    ex.reset();
    seq.iter()
        .map(|tx| {
            let before = ex.pranks_set();
            ex.call(tx);
            ex.pranks_set() != before
        })
        .collect()
}

fn ident(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}
