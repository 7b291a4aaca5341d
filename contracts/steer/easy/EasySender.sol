// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// Easy: a deposit from one sender, then a withdrawal by a different sender
/// (one of three configured senders, so a third of random pairs qualify).
contract EasySender {
    address public depositor;
    bool public drained;

    function deposit() external payable {
        if (msg.value > 0) depositor = msg.sender;
    }

    function withdraw() external {
        if (depositor != address(0) && msg.sender != depositor) drained = true;
    }

    function echidna_not_drained() public view returns (bool) {
        return !drained;
    }
}
