// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// A property broken only when a particular sender (0x20000) calls.
/// Falsified by: claim() from 0x0000000000000000000000000000000000020000
contract OnlySender {
    address public constant ALICE = address(0x20000);
    bool public claimed;
    uint256 public attempts;

    function claim() public {
        attempts += 1;
        if (msg.sender == ALICE) {
            claimed = true;
        }
    }

    function echidna_unclaimed() public view returns (bool) {
        return !claimed;
    }
}
