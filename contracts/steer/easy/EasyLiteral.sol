// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// Easy: a parameter compared with a literal (comparison feedback sets it on
/// the first call that meets the comparison).
contract EasyLiteral {
    bool public unlocked;

    function unlock(uint32 x) external {
        if (x == 0xc0ffee) {
            unlocked = true;
        }
    }

    function echidna_locked() public view returns (bool) {
        return !unlocked;
    }
}
