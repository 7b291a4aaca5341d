// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// A correct minimal token: its properties hold, so a campaign must pass.
contract Token {
    uint256 public constant SUPPLY = 1_000_000 ether;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;
    uint256 public totalSupply;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    constructor() {
        totalSupply = SUPPLY;
        balanceOf[address(0x10000)] = SUPPLY / 2;
        balanceOf[address(0x20000)] = SUPPLY / 2;
    }

    function transfer(address to, uint256 value) public returns (bool) {
        _move(msg.sender, to, value);
        return true;
    }

    function approve(address spender, uint256 value) public returns (bool) {
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) public returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        require(allowed >= value, "allowance");
        if (allowed != type(uint256).max) {
            allowance[from][msg.sender] = allowed - value;
        }
        _move(from, to, value);
        return true;
    }

    function _move(address from, address to, uint256 value) internal {
        require(to != address(0), "zero address");
        require(balanceOf[from] >= value, "balance");
        balanceOf[from] -= value;
        balanceOf[to] += value;
        emit Transfer(from, to, value);
    }

    function echidna_supply_constant() public view returns (bool) {
        return totalSupply == SUPPLY;
    }

    function echidna_holder_bounded() public view returns (bool) {
        return balanceOf[address(0x10000)] <= SUPPLY && balanceOf[address(0x20000)] <= SUPPLY;
    }
}
