// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// Assertion mode target: `withdraw` breaks its own postcondition when the
/// amount is exactly the stored balance plus one, via an unchecked underflow.
/// Falsified by: deposit(x); withdraw(y) with y > x (assert fails, Panic(0x01))
contract Assertion {
    uint256 public balance;

    function deposit(uint128 amount) public {
        balance += amount;
    }

    function withdraw(uint128 amount) public {
        uint256 before = balance;
        unchecked {
            balance -= amount;
        }
        assert(balance <= before);
    }

    function divide(uint256 a, uint256 b) public pure returns (uint256) {
        return a / (b | 1);
    }
}
