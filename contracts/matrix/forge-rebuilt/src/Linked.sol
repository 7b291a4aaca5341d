// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

// An external library: its public functions are called with DELEGATECALL at
// an address linked into the contract's bytecode.
library Score {
    function bump(uint256 current, uint256 by) public pure returns (uint256) {
        require(by > 0 && by < 100, "bad step");
        return current + by;
    }
}

library Limits {
    function capped(uint256 v) public pure returns (bool) {
        return v < 250;
    }
}

contract Linked {
    uint256 private score;

    function play(uint256 by) external {
        score = Score.bump(score, by);
    }

    function echidna_score_capped() external view returns (bool) {
        return Limits.capped(score);
    }
}
