// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// Properties that hold without checking anything until state is reached:
/// `echidna_loans_backed` returns early while nothing is lent (a vacuous
/// check, as many handler suites' properties are on an empty protocol);
/// `echidna_checked` has no precondition. `lend` reverts unless the pool
/// was funded, so the early exit stops most checks (the test_vacuity tool
/// reports it).
contract Vacuous {
    uint256 public pool;
    uint256 public lent;
    uint256 public repaid;

    function fund(uint256 amount) public {
        require(amount > 0 && amount < 1e30, "amount");
        pool += amount;
    }

    function lend(uint256 amount) public {
        require(pool > 0, "no pool");
        amount = amount % (pool + 1);
        pool -= amount;
        lent += amount;
    }

    function repay(uint256 amount) public {
        amount = amount % (lent + 1);
        lent -= amount;
        repaid += amount;
    }

    function echidna_loans_backed() public view returns (bool) {
        if (lent == 0) {
            return true;
        }
        return lent <= lent + pool;
    }

    function echidna_checked() public view returns (bool) {
        return repaid <= 1e31;
    }
}
