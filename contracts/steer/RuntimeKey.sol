// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// Kind: a constant assembled at run time (not a literal in the bytecode).
/// `open` wants the stored key to equal an FNV-style mix of the contract's
/// own address, computed when `open` runs; `setKey` stores any key.
/// Why blind fuzzing misses it: the wanted key exists only at run time (its
/// pieces are literals, the key is not), and it is compared in `open`, which
/// has no parameter to set, with a value written by an earlier call.
/// What the graph tells an agent: `open` is blocked on `key == want`, the
/// local `want` is an expression of address(this) and two literals, the
/// address is the target's (the `target` tool), and `key` is written by
/// `setKey`: evaluate it, set the key, open.
contract RuntimeKey {
    uint256 private key;
    bool public opened;

    function setKey(uint256 k) external {
        key = k;
    }

    function open() external {
        uint256 want = (uint256(uint160(address(this))) * 0x100000001b3) ^ 0xcbf29ce484222325;
        if (key == want) {
            opened = true;
        }
    }

    function echidna_not_opened() public view returns (bool) {
        return !opened;
    }
}
