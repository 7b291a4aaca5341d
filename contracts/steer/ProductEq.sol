// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// Kind: a large-magnitude equality on a product of two arguments.
/// `setScale` stores one factor, `claim` gives the other (each at least
/// two to the 64th); their product must be exactly ten to the 57th.
/// Why blind fuzzing misses it: input-to-state solves a × b == k when a and
/// b are arguments of the same call (a factor pair by trial division); here
/// one factor is storage written by an earlier call, so `claim` sees
/// scale × b, neither b nor an offset of it, and a random scale almost
/// never divides the target (only products of powers of two and five do).
/// (The single-call form with both factors as named constants was solved
/// blind.)
/// What the graph tells an agent: `claim` is blocked on
/// `uint256(scale) * uint256(b) == 10 ** 57`; `scale` is written by
/// `setScale`; any split of the power of ten into two in-range factors works.
contract ProductEq {
    uint128 public scale;
    bool public cracked;

    function setScale(uint128 s) external {
        require(s >= 2 ** 64, "scale too small");
        scale = s;
    }

    function claim(uint128 b) external {
        require(b >= 2 ** 64, "factor too small");
        if (uint256(scale) * uint256(b) == 10 ** 57) {
            cracked = true;
        }
    }

    function echidna_not_cracked() public view returns (bool) {
        return !cracked;
    }
}
