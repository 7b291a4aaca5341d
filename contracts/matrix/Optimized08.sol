// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

// Built with the optimizer on (and again with via-IR): source maps full of
// `-1` entries, merged blocks, immutables.
contract Optimized08 {
    uint256 private immutable threshold;
    mapping(address => uint256) private balance;
    uint256 private total;

    constructor() {
        threshold = 1000;
    }

    function deposit(uint256 amount) external {
        require(amount <= 500, "too much at once");
        balance[msg.sender] += amount;
        total += amount;
    }

    function withdraw(uint256 amount) external {
        require(balance[msg.sender] >= amount, "not enough");
        balance[msg.sender] -= amount;
        total -= amount;
    }

    function echidna_total_below_threshold() external view returns (bool) {
        return total < threshold;
    }
}
