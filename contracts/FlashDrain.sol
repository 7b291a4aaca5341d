// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// A flash-loan pool that charges a fixed fee per loan, and a receiver that
/// accepts any loan and pays the fee from its own ether: anyone can drain
/// the receiver by taking loans on its behalf, but only ten loans in a row
/// to the same receiver do it (each call alone changes no storage a fuzzer
/// watches: the fee moves ether). Repeating a call that worked, with the
/// same arguments, is what breaks it.
contract LoanReceiver {
    address public immutable pool;

    constructor(address p) payable {
        pool = p;
    }

    function onFlashLoan(uint256 fee) external payable {
        require(msg.sender == pool, "only the pool lends");
        (bool ok, ) = pool.call{value: msg.value + fee}("");
        require(ok, "repay failed");
    }
}

contract FeePool {
    uint256 public constant FEE = 1 ether;

    constructor() payable {}

    function flashLoan(address receiver, uint256 amount) external {
        uint256 before = address(this).balance;
        require(amount <= before, "not enough ether");
        LoanReceiver(receiver).onFlashLoan{value: amount}(FEE);
        require(address(this).balance >= before + FEE, "not paid back");
    }

    receive() external payable {}
}

contract FlashDrain {
    FeePool public pool;
    LoanReceiver public receiver;
    uint256 public notes;
    mapping(uint256 => uint256) public board;

    /// Deployed with 1,010 ether (`balanceContract`): 1,000 for the pool,
    /// 10 for the receiver.
    constructor() payable {
        pool = new FeePool{value: 1000 ether}();
        receiver = new LoanReceiver{value: 10 ether}(address(pool));
    }

    function loan(address to, uint256 amount) public {
        pool.flashLoan(to, amount);
    }

    function note(uint256 x) public {
        notes += x % 7;
    }

    function write(uint256 key, uint256 value) public {
        board[key % 16] = value;
    }

    function clear(uint256 key) public {
        delete board[key % 16];
    }

    function echidna_receiver_keeps_its_ether() public view returns (bool) {
        return address(receiver).balance >= 1 ether;
    }
}
