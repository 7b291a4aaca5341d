// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {Test} from "forge-std/Test.sol";

contract Flag {
    bool public raised;

    function raise() external {
        raised = true;
    }

    function lower() external {
        raised = false;
    }
}

/// Handler functions written in the suite itself: `targetContract(address(this))`
/// makes forge call its state-changing functions (no tests, no `setUp`, no
/// views).
contract SelfTargetInvariants is Test {
    uint256 public bumps;

    function setUp() public {
        targetContract(address(this));
    }

    function bump() external {
        bumps++;
    }

    /// Broken by `bump()`.
    function invariant_never_bumped() public view {
        assertEq(bumps, 0, "bumped");
    }
}

/// Two flags; `b` is raised only if it is a target.
abstract contract TwoFlags is Test {
    Flag a;
    Flag b;

    function deployFlags() internal {
        a = new Flag();
        b = new Flag();
        targetContract(address(a));
    }

    /// Broken by `raise()` on `b`.
    function invariant_b_never_raised() public view {
        assertFalse(b.raised(), "b raised");
    }
}

/// A contract `targetSelectors` names is a target, even when
/// `targetContracts` does not name it (forge adds it).
contract SelectorTargetInvariants is TwoFlags {
    function setUp() public {
        deployFlags();
        bytes4[] memory raise = new bytes4[](1);
        raise[0] = Flag.raise.selector;
        targetSelector(FuzzSelector({addr: address(b), selectors: raise}));
    }
}

/// So is a contract `excludeSelectors` names: forge makes it a target with
/// its other functions.
contract ExcludedSelectorTargetInvariants is TwoFlags {
    function setUp() public {
        deployFlags();
        bytes4[] memory lower = new bytes4[](1);
        lower[0] = Flag.lower.selector;
        excludeSelector(FuzzSelector({addr: address(b), selectors: lower}));
    }
}

contract Risky {
    uint256 public done;

    function act(uint256 x) external {
        require(x % 7 != 3, "risky input");
        done++;
    }
}

/// Reverts fail the invariants when `fail_on_revert` is on (here inline for
/// forge; rudder reads `[invariant] fail_on_revert` from foundry.toml, or
/// `failOnRevert` from its config): `act(3)` breaks it, with its reason.
contract FailOnRevertInvariants is Test {
    Risky risky;

    function setUp() public {
        risky = new Risky();
    }

    /// forge-config: default.invariant.fail-on-revert = true
    function invariant_acts_do_not_revert() public view {
        assertLe(risky.done(), type(uint256).max);
    }
}
