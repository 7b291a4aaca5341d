// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

import {Score} from "./Linked.sol";

// A multi-contract Foundry project: a second file importing the library.
contract Vaulted {
    uint256 private total;

    function add(uint256 by) external {
        total = Score.bump(total, by);
    }

    function echidna_total_small() external view returns (bool) {
        return total < 150;
    }
}
// changed after the full build: recompiled alone by a plain forge build
