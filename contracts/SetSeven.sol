// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// A property broken by one specific argument followed by a second call.
/// Falsified by: set(7); go()
contract SetSeven {
    uint256 public x;
    bool public gone;

    function set(uint256 v) public {
        x = v;
    }

    function go() public {
        if (x == 7) {
            gone = true;
        }
    }

    function echidna_not_gone() public view returns (bool) {
        return !gone;
    }
}
