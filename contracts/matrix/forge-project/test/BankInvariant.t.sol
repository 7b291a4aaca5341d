// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// The system under test: a bank whose books drift by one wei on a large
/// withdrawal.
contract Bank {
    mapping(address => uint256) public balanceOf;
    uint256 public total;

    function deposit(address who, uint256 amount) external {
        balanceOf[who] += amount;
        total += amount;
    }

    function withdraw(address who, uint256 amount) external {
        require(balanceOf[who] >= amount, "insufficient");
        balanceOf[who] -= amount;
        // The bug: a large withdrawal takes one wei too little off the books.
        total -= amount > 1000 ? amount - 1 : amount;
    }
}

/// The handler the fuzzer calls: bounded inputs, ghost variables.
contract BankHandler {
    Bank public immutable bank;
    uint256 public ghostDeposits;
    uint256 public ghostWithdrawals;

    constructor(Bank b) {
        bank = b;
    }

    function deposit(uint256 amount) external {
        amount = amount % 1e24;
        bank.deposit(msg.sender, amount);
        ghostDeposits += amount;
    }

    function withdraw(uint256 amount) external {
        uint256 held = bank.balanceOf(msg.sender);
        if (held == 0) return;
        amount = amount % (held + 1);
        bank.withdraw(msg.sender, amount);
        ghostWithdrawals += amount;
    }
}

/// The selectors Foundry's invariant runner reads from a test contract
/// (the interface of forge-std's StdInvariant), kept here so that the
/// project builds offline without forge-std.
abstract contract InvariantTargets {
    address[] private targets;
    address[] private excluded;

    function targetContract(address a) internal {
        targets.push(a);
    }

    function excludeContract(address a) internal {
        excluded.push(a);
    }

    function targetContracts() public view returns (address[] memory) {
        return targets;
    }

    function excludeContracts() public view returns (address[] memory) {
        return excluded;
    }
}

/// A Foundry invariant suite in the handler pattern.
contract BankInvariantTest is InvariantTargets {
    Bank bank;
    BankHandler handler;

    function setUp() public {
        bank = new Bank();
        handler = new BankHandler(bank);
        targetContract(address(handler));
    }

    /// The bank's books equal what went in minus what came out.
    function invariant_books_balance() public view {
        require(bank.total() == handler.ghostDeposits() - handler.ghostWithdrawals(), "books drifted");
    }

    /// Nothing is ever withdrawn that was not deposited.
    function invariant_withdrawals_bounded() public view {
        assert(handler.ghostWithdrawals() <= handler.ghostDeposits());
    }
}
