// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// A vault that exists only on a chain: tests plant its runtime code, its
/// owner (slot 0) and its ether on a local node, and rudder reaches it in
/// fork mode. On a fresh chain there is nothing at its address.
contract PlantedVault {
    address public owner;

    function withdraw(uint256 amount) external {
        require(msg.sender == owner, "not the owner");
        payable(msg.sender).transfer(amount);
    }

    receive() external payable {}
}

interface ForkCheats {
    function createSelectFork(string calldata urlOrAlias) external returns (uint256);
    function activeFork() external view returns (uint256);
    function envString(string calldata name) external view returns (string memory);
}

/// The same harness forking by itself, as a Foundry suite's setUp() does:
/// `createSelectFork` with the node's URL from `RUDDER_FORK_URL`. Fuzzed
/// with `--contract ForkingVaultHarness` and no fork flags.
contract ForkingVaultHarness {
    ForkCheats constant VM = ForkCheats(0x7109709ECfa91a80626fF3989D68f67F5b1DD12D);
    PlantedVault constant VAULT = PlantedVault(payable(0x00000000000000000000000000000000C0FfeE00));
    uint256 public planted;
    uint256 public forkId;

    constructor() {
        forkId = VM.createSelectFork(VM.envString("RUDDER_FORK_URL"));
        planted = address(VAULT).balance;
    }

    function pull(uint256 amount) public {
        VAULT.withdraw(amount);
    }

    receive() external payable {}

    function echidna_vault_keeps_its_ether() public view returns (bool) {
        return address(VAULT).balance >= planted;
    }

    function echidna_the_fork_stays_selected() public view returns (bool) {
        return VM.activeFork() == forkId;
    }
}

/// The harness fuzzed: deployed where rudder deploys a target
/// (0x00a329c0648769a73afac7f9381e08fb43dbea72), which the planted vault
/// names as its owner. Its property holds on a fresh chain (nothing to
/// drain) and breaks on the fork, where `pull` can empty the vault.
contract ForkVaultHarness {
    PlantedVault constant VAULT = PlantedVault(payable(0x00000000000000000000000000000000C0FfeE00));
    uint256 public planted;

    constructor() {
        planted = address(VAULT).balance;
    }

    function pull(uint256 amount) public {
        VAULT.withdraw(amount);
    }

    receive() external payable {}

    function echidna_vault_keeps_its_ether() public view returns (bool) {
        return address(VAULT).balance >= planted;
    }
}
