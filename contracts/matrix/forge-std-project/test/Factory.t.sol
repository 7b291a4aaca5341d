// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {Test} from "forge-std/Test.sol";

/// Made by the factory during a run. When a suite names no
/// `targetContracts`, forge makes a contract created during a run a target
/// for the rest of that run (known by its code); rudder does the same.
contract Pool {
    bool public drained;

    function drain() external {
        drained = true;
    }
}

contract PoolFactory {
    Pool[] public pools;

    function create() external returns (Pool pool) {
        require(pools.length < 4, "four pools at most");
        pool = new Pool();
        pools.push(pool);
    }

    function count() external view returns (uint256) {
        return pools.length;
    }
}

/// Every pool the factory made, checked.
abstract contract NoPoolDrained is Test {
    PoolFactory factory;

    function invariant_no_pool_drained() public view {
        for (uint256 i = 0; i < factory.count(); i++) {
            assertFalse(factory.pools(i).drained(), "a pool was drained");
        }
    }
}

/// Broken: the factory is a target by default, the pool it creates becomes
/// one, and its `drain()` is called.
contract FactoryInvariants is NoPoolDrained {
    function setUp() public {
        factory = new PoolFactory();
    }
}

/// Holds: created pools are of an excluded artifact.
contract FactoryExcludedInvariants is NoPoolDrained {
    function setUp() public {
        factory = new PoolFactory();
        excludeArtifact("Pool");
    }
}

/// Holds: with `targetContracts` named, created contracts are no targets.
contract FactoryTargetedInvariants is NoPoolDrained {
    function setUp() public {
        factory = new PoolFactory();
        targetContract(address(factory));
    }
}
