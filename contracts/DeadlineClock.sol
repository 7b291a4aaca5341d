// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

interface IClock {
    function now_() external view returns (uint256);
}

/// The escrow of Deadline.sol behind a handler harness, reading the time
/// through an interface the harness implements (as protocol suites pass a
/// clock): the code graph cannot tell that `warp` moves what the escrow's
/// guards read, so the enabler is found by trying it, and learned.
contract Escrow {
    IClock public immutable clock;
    uint256 public deadline;
    uint256 public paid;
    bool public claimed;
    bool public refunded;

    constructor(IClock c) {
        clock = c;
    }

    function open(uint64 salt) external {
        require(deadline == 0, "opened");
        deadline = clock.now_() + 1 days + (uint256(keccak256(abi.encode(salt))) % 1 days);
    }

    function claim() external {
        require(deadline != 0 && clock.now_() <= deadline, "closed");
        require(!claimed, "claimed");
        claimed = true;
        paid += 100;
    }

    function refund() external {
        require(deadline != 0 && clock.now_() >= deadline, "not yet");
        require(!claimed && !refunded, "settled");
        refunded = true;
        paid += 100;
    }
}

contract DeadlineClock is IClock {
    uint256 public time = 1;
    Escrow public escrow = new Escrow(this);

    function now_() external view returns (uint256) {
        return time;
    }

    function warp(uint32 secs) external {
        time += secs;
    }

    function open(uint64 salt) external {
        escrow.open(salt);
    }

    function claim() external {
        escrow.claim();
    }

    function refund() external {
        escrow.refund();
    }

    function echidna_pays_once() external view returns (bool) {
        return escrow.paid() <= 100;
    }
}
