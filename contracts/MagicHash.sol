// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// A property that random fuzzing practically never breaks: the key is a
/// 256-bit preimage of a hash, so no dictionary constant reveals it.
/// Falsified by: unlock(0x6c6f6f6b206f757420666f7220746865206d616769632076616c75652121212121)
contract MagicHash {
    // keccak256(abi.encode(key)) for the key above; the key itself is not in the bytecode.
    bytes32 public constant HASH = 0xec2f683f5b345a5105b695101320b0af6003d466a15c97e32604d7b608b406b6;
    bool public unlocked;
    uint256 public tries;

    function unlock(uint256 key) public {
        tries += 1;
        if (keccak256(abi.encode(key)) == HASH) {
            unlocked = true;
        }
    }

    function echidna_locked() public view returns (bool) {
        return !unlocked;
    }
}
