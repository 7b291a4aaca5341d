// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Saturating steps for the counter (internal, so inlined: no linking).
library Steps {
    /// `x + by`, but never above `cap`.
    function addCapped(uint256 x, uint256 by, uint256 cap) internal pure returns (uint256) {
        uint256 y = x + by;
        return y > cap ? cap : y;
    }

    /// `x - by`, but never below zero.
    function subFloored(uint256 x, uint256 by) internal pure returns (uint256) {
        return by > x ? 0 : x - by;
    }
}
