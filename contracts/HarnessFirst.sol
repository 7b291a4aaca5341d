// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// The harness is defined first and creates the contract it tests: with no
/// --contract, the harness is fuzzed, not the last contract of the file
/// (the contract another one creates is what that one deploys).
contract HarnessFirst {
    Counter public counter = new Counter();

    function bump(uint8 by) external {
        counter.add(by);
        assert(counter.total() < 1000);
    }
}

contract Counter {
    uint256 public total;

    function add(uint256 x) external {
        total += x;
    }
}
