// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {Asserts} from "./chimera/Base.sol";
import {Setup} from "./Setup.sol";

abstract contract Properties is Setup, Asserts {
    /// Optimization tests (`prefix: "optimize_"`, int256): how much the
    /// harness got staked, and how much reward it collected.
    function optimize_staked() public view returns (int256) {
        return int256(pool.staked(address(this)));
    }

    function optimize_rewards() public view returns (int256) {
        return int256(pool.rewards(address(this)));
    }
}
