// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// Easy: a sum of two arguments equal to a large constant (input-to-state
/// sets one argument to the gap).
contract EasySum {
    bool public hit;

    function add(uint128 a, uint128 b) external {
        if (uint256(a) + uint256(b) == 0x1234567890abcdef1234567890) hit = true;
    }

    function echidna_no_hit() public view returns (bool) {
        return !hit;
    }
}
