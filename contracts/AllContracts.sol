// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// Created by the hub: reached only when every deployed contract is a
/// target (`allContracts: true`), as in Echidna.
contract Vault {
    uint256 public stash;
    bool public broken;

    function put(uint256 amount) public {
        stash += amount % 1000;
    }

    function crack(uint256 code) public {
        if (stash > 0 && code == 4242) {
            broken = true;
        }
    }
}

/// The target. `name` also takes raw strings: a `string` on chain is any
/// bytes, and no UTF-8 text starts with 0xff.
contract Hub {
    Vault public vault;
    bool public rawSeen;
    uint256 public pings;

    constructor() {
        vault = new Vault();
    }

    function ping() public {
        pings += 1;
    }

    function name(string memory s) public {
        bytes memory b = bytes(s);
        if (b.length > 0 && uint8(b[0]) == 0xff) {
            rawSeen = true;
        }
    }

    function echidna_vault_intact() public view returns (bool) {
        return !vault.broken();
    }

    function echidna_text_only() public view returns (bool) {
        return !rawSeen;
    }
}
