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

/// The assertion cheatcodes forge-std's assertions call (forge-std >= 1.8).
interface AssertionCheats {
    function assertGe(uint256 left, uint256 right, string calldata err) external pure;
    function assertTrue(bool condition) external pure;
}

/// A Foundry invariant suite in the handler pattern.
contract BankInvariantTest is InvariantTargets {
    AssertionCheats private constant VM = AssertionCheats(address(uint160(uint256(keccak256("hevm cheat code")))));

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

    /// The bank holds at least what the handler's ghosts say is left
    /// (through forge's assertion cheatcodes, as forge-std's assertGe does).
    function invariant_solvent() public view {
        VM.assertGe(bank.total(), handler.ghostDeposits() - handler.ghostWithdrawals(), "insolvent");
        VM.assertTrue(address(handler.bank()) == address(bank));
    }

    /// Nothing is ever withdrawn that was not deposited.
    function invariant_withdrawals_bounded() public view {
        assert(handler.ghostWithdrawals() <= handler.ghostDeposits());
    }
}
// changed after that: recompiled alone by a plain forge build
