// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// An escrow with its own clock (moved by `warp`, as handler harnesses do)
/// and an off-by-one at its deadline: claims are open until the deadline
/// inclusive, refunds from the deadline inclusive, and `claim` does not
/// check for a refund. At exactly the deadline a refund and then a claim
/// both pay. The deadline is `open`'s argument hashed, so no constant of the
/// code leads to it: reaching that second needs a `warp` of exactly the
/// distance a reverted `refund` fell short by.
contract Deadline {
    uint256 public clock = 1;
    uint256 public deadline;
    uint256 public paid;
    bool public claimed;
    bool public refunded;

    function warp(uint32 secs) external {
        clock += secs;
    }

    function open(uint64 salt) external {
        require(deadline == 0, "opened");
        deadline = clock + 1 days + (uint256(keccak256(abi.encode(salt))) % 1 days);
    }

    function claim() external {
        require(deadline != 0 && clock <= deadline, "closed");
        require(!claimed, "claimed");
        claimed = true;
        paid += 100;
    }

    function refund() external {
        require(deadline != 0 && clock >= deadline, "not yet");
        require(!claimed && !refunded, "settled");
        refunded = true;
        paid += 100;
    }

    function echidna_pays_once() external view returns (bool) {
        return paid <= 100;
    }
}
