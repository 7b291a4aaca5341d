// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// A property that random fuzzing practically never breaks: the key is a
/// 256-bit preimage of a hash, so no dictionary constant reveals it.
/// Falsified by unlock(KEY); KEY is in tests/control.rs, not here, because
/// rudder mines number literals from sources for its dictionary.
contract MagicHash {
    // keccak256(abi.encode(key)) for the key above; the key itself is not in the bytecode.
    bytes32 public constant HASH = 0x47c862633f04d50d6621d86d91658073ad652a262e3cb6f6dcb51be7816ff0a1;
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
