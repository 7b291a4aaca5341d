// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

interface FoundryModeVm {
    function assume(bool condition) external pure;
    function assertTrue(bool condition) external pure;
}

/// Forge-style fuzz tests for foundry mode (`testMode: foundry`, Echidna's
/// name): each `test*` function with arguments is a test whose call must
/// not revert; `vm.assume` rejections are not failures; `setUp()` runs
/// first (the contract declares `IS_TEST`); with sequences longer than one
/// call, `invariant*` functions must not revert either (tests/it/campaign.rs).
contract FoundryModeTests {
    bool public IS_TEST = true;
    FoundryModeVm constant vm = FoundryModeVm(0x7109709ECfa91a80626fF3989D68f67F5b1DD12D);
    uint256 public limit;
    uint256 public total;

    function setUp() public {
        limit = 1000;
    }

    /// Broken by any x above the limit setUp() sets (a revert).
    function testStaysUnderTheLimit(uint256 x) public view {
        require(limit != 0, "setUp() did not run");
        require(x <= limit, "over the limit");
    }

    /// Holds: inputs over 10 are rejected by vm.assume, not failed.
    function testAssumedSmall(uint256 x) public pure {
        vm.assume(x < 10);
        require(x < 10, "assume let a large input through");
    }

    /// Broken through forge-std's assertion cheatcode when a == b != 0.
    function testDistinct(uint256 a, uint256 b) public pure {
        vm.assertTrue(a != b || a == 0);
    }

    /// A fuzzed function that is not a test (its name does not start with
    /// `test`): its reverts break nothing.
    function add(uint256 x) public {
        require(x < 100, "too much at once");
        total += x;
    }

    /// Broken once the calls of a sequence add up past 150 (seqLen > 1).
    function invariant_total_small() public view {
        require(total <= 150, "total too large");
    }
}

/// Assertion mode (tests/it/campaign.rs): a revert whose message starts
/// with "assertion failed" (forge-std's `assert*`, through the cheatcode)
/// fails the call's test; any other revert does not.
contract AssertionMessages {
    FoundryModeVm constant vm = FoundryModeVm(0x7109709ECfa91a80626fF3989D68f67F5b1DD12D);

    function distinct(uint256 a, uint256 b) public pure {
        vm.assertTrue(a != b || a == 0);
    }

    function guarded(uint256 x) public pure {
        require(x < 5, "a plain revert");
    }
}
