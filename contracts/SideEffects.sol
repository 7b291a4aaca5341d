// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

contract Made {
    uint256 public one = 1;
}

/// Properties that write: each check must run on a copy of the state, its
/// writes, logs, balance moves and created contracts undone once its answer
/// is read (Echidna and forge run properties so). Kept, the first check's
/// write would make the second one fail for nothing: none of these
/// properties can be falsified.
contract SideEffects {
    event Checked(uint256 count);

    bool public checked;
    uint256 public checks;
    uint256 public total;
    address public made;

    function add(uint256 x) public {
        total += x % 1000;
    }

    function reset() public {
        total = 0;
    }

    /// True the first time, false on every later check if its write is kept.
    function echidna_writes_once() public returns (bool) {
        if (checked) {
            return false;
        }
        checked = true;
        return true;
    }

    /// Counts its own checks and logs the count: it must always read 0.
    function echidna_counts_itself() public returns (bool) {
        checks += 1;
        emit Checked(checks);
        return checks == 1;
    }

    /// Creates a contract: on a copy of the state there is never one before.
    function echidna_creates_once() public returns (bool) {
        if (made != address(0)) {
            return false;
        }
        made = address(new Made());
        return true;
    }

    /// A real property beside them: still falsified as before.
    function echidna_total_small() public view returns (bool) {
        return total < 1990;
    }
}
