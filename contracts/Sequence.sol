// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// A property broken only by a three-call sequence in order, with a specific
/// argument in the middle. Falsified by: open(); turn(42); close()
contract Sequence {
    uint8 public stage;
    uint256 public turns;

    function open() public {
        stage = 1;
    }

    function turn(uint256 k) public {
        if (stage == 1 && k == 42) {
            stage = 2;
        } else {
            stage = 0;
        }
        turns += 1;
    }

    function close() public {
        if (stage == 2) {
            stage = 3;
        } else {
            stage = 0;
        }
    }

    function noise(uint256 a, bool b) public pure returns (uint256) {
        return b ? a / 2 : a;
    }

    function echidna_not_closed() public view returns (bool) {
        return stage != 3;
    }
}
