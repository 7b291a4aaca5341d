// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// A vault whose answers an agent reads back from `run_sequence`: named
/// return values, an event with an indexed address and a string, a custom
/// error with arguments, a panic, and a property one deposit breaks.
contract Vault {
    error TooMuch(uint256 asked, uint256 available);

    event Deposited(address indexed who, uint256 amount, string memo);

    uint256 public total;

    function deposit(uint256 amount, string calldata memo) public returns (uint256 newTotal, bool big) {
        total += amount;
        emit Deposited(msg.sender, amount, memo);
        return (total, amount > 100);
    }

    function withdraw(uint256 amount) public {
        if (amount > total) revert TooMuch(amount, total);
        total -= amount;
    }

    function share(uint256 parts) public view returns (uint256) {
        return total / parts;
    }

    function echidna_total_small() public view returns (bool) {
        return total < 1000;
    }
}
