// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

interface IOracle {
    function price() external view returns (uint256);
}

/// A plain ERC-20 (balances in a mapping, as forge-std's `deal` expects).
contract Token {
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;
    uint256 public totalSupply;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    function transfer(address to, uint256 value) external returns (bool) {
        _move(msg.sender, to, value);
        return true;
    }

    function approve(address spender, uint256 value) external returns (bool) {
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        require(allowed >= value, "allowance");
        if (allowed != type(uint256).max) allowance[from][msg.sender] = allowed - value;
        _move(from, to, value);
        return true;
    }

    function _move(address from, address to, uint256 value) private {
        require(balanceOf[from] >= value, "balance");
        balanceOf[from] -= value;
        balanceOf[to] += value;
        emit Transfer(from, to, value);
    }
}

/// A share vault. The bug: `withdraw` rounds the assets it pays up, so once
/// a share is worth a fraction of an asset, holders are owed more than the
/// vault holds.
contract Vault {
    error Insufficient(uint256 have, uint256 want);
    error Paused();

    event Deposit(address indexed who, uint256 assets, uint256 shares);
    event Withdraw(address indexed who, uint256 assets, uint256 shares);

    Token public immutable asset;
    IOracle public immutable oracle;
    uint256 public immutable cap;
    address public immutable guardian;
    mapping(address => uint256) public sharesOf;
    uint256 public totalShares;
    bool public paused;

    constructor(Token asset_, IOracle oracle_, uint256 cap_, address guardian_) {
        asset = asset_;
        oracle = oracle_;
        cap = cap_;
        guardian = guardian_;
    }

    function totalAssets() public view returns (uint256) {
        return asset.balanceOf(address(this));
    }

    /// What redeeming `shares` pays now.
    function previewWithdraw(uint256 shares) public view returns (uint256) {
        if (shares == 0) return 0;
        return (shares * totalAssets() + totalShares - 1) / totalShares;
    }

    /// The value of the vault's assets in the oracle's unit.
    function value() external view returns (uint256) {
        return totalAssets() * oracle.price() / 1e18;
    }

    function oraclePrice() external view returns (uint256) {
        return oracle.price();
    }

    function deposit(uint256 assets) external returns (uint256 shares) {
        if (paused) revert Paused();
        require(totalAssets() + assets <= cap, "cap");
        shares = totalShares == 0 ? assets : assets * totalShares / totalAssets();
        require(shares > 0, "no shares");
        asset.transferFrom(msg.sender, address(this), assets);
        sharesOf[msg.sender] += shares;
        totalShares += shares;
        emit Deposit(msg.sender, assets, shares);
    }

    function withdraw(uint256 shares) external returns (uint256 assets) {
        if (paused) revert Paused();
        uint256 have = sharesOf[msg.sender];
        if (shares > have) revert Insufficient(have, shares);
        assets = previewWithdraw(shares);
        sharesOf[msg.sender] = have - shares;
        totalShares -= shares;
        asset.transfer(msg.sender, assets);
        emit Withdraw(msg.sender, assets, shares);
    }

    function pause() external {
        require(msg.sender == guardian, "guardian");
        paused = true;
    }
}
