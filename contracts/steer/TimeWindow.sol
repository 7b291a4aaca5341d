// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// Kind: a sender window and a time window.
/// A daily auction: `arm` (by anyone) names another sender as the nominee
/// and records when it was armed; `fire` works only for the nominee, only if
/// the arming happened at exactly 13:00:00 UTC, and only within ten minutes,
/// two days later. Why blind fuzzing misses it: the time of day that
/// matters is the *earlier* call's timestamp, compared in a later call where
/// it is storage, so no feedback reaches the delay that fixed it; a random
/// arming time is right once a day in seconds, and the caller must also be
/// the nominee. (A window computed from an argument, `block.timestamp >=
/// armedAt + wait * 3 + 1 hours`, was solved blind on one seed of two:
/// timestamp comparisons feed delays.)
/// What the graph tells an agent: `fire` compares msg.sender with
/// `nominee`, `armedAt % 1 days` with 13 hours, and block.timestamp with
/// `armedAt + 2 days`; `armedAt` is written by `arm` from block.timestamp,
/// and the public getter tells the time an arming without delay gets.
/// (No solution in comments: rudder mines numbers from the source.)
contract TimeWindow {
    address public nominee;
    uint256 public armedAt;
    bool public fired;

    function arm(address next) external {
        require(next != msg.sender && next != address(0), "bad nominee");
        nominee = next;
        armedAt = block.timestamp;
    }

    function fire() external {
        if (msg.sender == nominee && armedAt % 1 days == 13 hours) {
            if (block.timestamp >= armedAt + 2 days && block.timestamp < armedAt + 2 days + 10 minutes) {
                fired = true;
            }
        }
    }

    function echidna_not_fired() public view returns (bool) {
        return !fired;
    }
}
