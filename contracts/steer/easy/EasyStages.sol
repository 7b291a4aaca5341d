// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// Easy: three calls in order, each gated on a stage and on an argument
/// compared with a literal (each step is new coverage, and the stage an
/// equality reads is a state worth keeping).
contract EasyStages {
    uint8 public stage;

    function one(uint16 x) external {
        if (stage == 0 && x == 1111) stage = 1;
    }

    function two(uint16 x) external {
        if (stage == 1 && x == 2222) stage = 2;
    }

    function three(uint16 x) external {
        if (stage == 2 && x == 3333) stage = 3;
    }

    function echidna_not_done() public view returns (bool) {
        return stage != 3;
    }
}
