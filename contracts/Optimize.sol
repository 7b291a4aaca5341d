// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// Optimization mode target: echidna_opt_score is maximised at 1020, reached by
/// play(255) twice (score = 2 * x + previous x).
contract Optimize {
    int256 public score;
    uint8 public last;

    function play(uint8 x) public {
        score = int256(uint256(x)) * 2 + int256(uint256(last)) * 2;
        last = x;
    }

    function reset() public {
        score = 0;
        last = 0;
    }

    function echidna_opt_score() public view returns (int256) {
        return score;
    }
}
