// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// A property broken only after time passes between two calls.
/// Falsified by: lock(); (wait >= 1 day) release()
contract TimeLock {
    uint256 public lockedAt;
    bool public released;

    function lock() public {
        lockedAt = block.timestamp;
    }

    function release() public {
        require(lockedAt != 0, "not locked");
        require(block.timestamp >= lockedAt + 1 days, "too early");
        released = true;
    }

    function echidna_never_released() public view returns (bool) {
        return !released;
    }
}
