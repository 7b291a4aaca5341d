// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {FoundryAsserts} from "./chimera/Base.sol";
import {TargetFunctions} from "./TargetFunctions.sol";

// forge test --match-contract CryticToFoundry
contract CryticToFoundry is TargetFunctions, FoundryAsserts {
    function setUp() public {
        setup();
    }

    function test_stake_then_accrue() public {
        pool_stake(1e18);
        pool_accrue();
    }
}
// changed after the full build: recompiled by a plain forge build
