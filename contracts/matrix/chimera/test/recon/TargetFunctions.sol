// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {Properties} from "./Properties.sol";

abstract contract TargetFunctions is Properties {
    function pool_stake(uint256 amount) public {
        amount = (amount % 1e24) + 1;
        pool.stake(amount);
        stakedAt = block.timestamp;
    }

    function pool_unstake(uint256 amount) public {
        pool.unstake(amount % (pool.staked(address(this)) + 1));
    }

    /// No reward before a whole epoch has passed since the last stake.
    function pool_accrue() public {
        uint256 before = pool.rewards(address(this));
        pool.accrue(address(this));
        if (block.timestamp - stakedAt < pool.EPOCH()) {
            t(pool.rewards(address(this)) == before, "reward before a whole epoch");
        }
    }
}
