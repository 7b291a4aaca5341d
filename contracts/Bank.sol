// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

// A multi-contract target for the code graph: a library, an interface, a
// base with a modifier, a contract created by the constructor, external and
// internal calls, and a guard no fuzzer passes by chance.

library Fees {
    uint256 internal constant BPS = 10_000;

    function cut(uint256 amount, uint256 bps) internal pure returns (uint256) {
        return amount * bps / BPS;
    }
}

interface IOracle {
    function price() external view returns (uint256);
}

contract Oracle is IOracle {
    uint256 public p = 100;

    function price() external view returns (uint256) {
        return p;
    }
}

contract Owned {
    address public owner;

    constructor() {
        owner = msg.sender;
    }

    modifier onlyOwner() {
        require(msg.sender == owner, "not owner");
        _;
    }
}

contract Bank is Owned {
    bytes32 public constant SECRET = 0x8f5cd7ff0e8a9a72b4e8c27de4d5a3b1b2f8e0d9c6a7b3e1f0d2c4b6a8e9f1d3;
    uint16 public constant LIMIT = 1000;
    mapping(address => uint256) public balances;
    uint256 public total;
    bool public opened;
    IOracle public oracle;

    constructor() {
        oracle = new Oracle();
    }

    function deposit(uint256 amount) public {
        require(amount > 0 && amount < 1e24, "amount");
        balances[msg.sender] += amount;
        total += amount;
    }

    function withdraw(uint256 amount) public {
        require(balances[msg.sender] >= amount, "balance");
        balances[msg.sender] -= amount;
        total -= amount - fee(amount);
    }

    function fee(uint256 amount) internal view returns (uint256) {
        return Fees.cut(amount, oracle.price());
    }

    function open(uint256 key, uint16 slot) public {
        if (keccak256(abi.encodePacked(key)) == SECRET && slot > LIMIT) {
            opened = true;
        }
    }

    function setOracle(address o) public onlyOwner {
        oracle = IOracle(o);
    }

    function echidna_closed() public view returns (bool) {
        return !opened;
    }
}
