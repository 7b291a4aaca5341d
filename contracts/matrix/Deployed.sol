// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

// What a harness's constructor sees must hold for the whole campaign: the
// target is created at its final address (its `address(this)` and the owner
// it hands to contracts it creates are where it stays), and `balanceContract`
// arrives as the deployment's value (a payable constructor may check it).

contract Vault {
    address public owner;
    uint256 public minted;

    constructor(address owner_) {
        owner = owner_;
    }

    function mint(uint256 amount) external {
        require(msg.sender == owner, "not the owner");
        minted += amount;
    }
}

contract DeployedHarness {
    Vault public vault;
    address public selfAtDeploy;
    uint256 public balanceAtDeploy;

    constructor() payable {
        require(msg.value == 1000, "balanceContract must be the deployment's value");
        require(address(this).balance == 1000, "funded while constructing");
        vault = new Vault(address(this));
        selfAtDeploy = address(this);
        balanceAtDeploy = address(this).balance;
    }

    // The harness owns the vault: this succeeds, and a large enough mint
    // breaks the property below (hidden if the harness had moved).
    function mint(uint256 amount) public {
        vault.mint(amount % 1000);
    }

    function echidna_self_is_where_the_constructor_ran() public view returns (bool) {
        return selfAtDeploy == address(this);
    }

    function echidna_vault_is_owned_by_the_harness() public view returns (bool) {
        return vault.owner() == address(this);
    }

    function echidna_funded_at_deployment() public view returns (bool) {
        return balanceAtDeploy == 1000;
    }

    function echidna_minted_stays_small() public view returns (bool) {
        return vault.minted() < 1500;
    }
}
