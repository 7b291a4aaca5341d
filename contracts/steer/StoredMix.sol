// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// Kind: a guard on a value computed in an earlier call and stored.
/// `mix` packs its two 64-bit arguments into one word and scrambles it with a
/// salt; `open`, a later call with no parameters, compares the stored word
/// with a constant. Why blind fuzzing misses it: the comparison in `open`
/// involves no parameter of `open`, so comparison feedback and input-to-state
/// have nothing to set; the target is in the bytecode but fits neither
/// argument of `mix`, and what `mix` must receive (the target xor the salt,
/// split in halves) appears nowhere.
/// What the graph tells an agent: `open` is blocked on `packed == TARGET`;
/// `packed` is written only by `mix`, whose one line says how to invert it.
/// (Comments here carry no solution: rudder mines numbers from the source,
/// comments included. The answer is in manifest.json.)
contract StoredMix {
    uint256 private constant SALT = 0x5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a;
    uint256 private constant TARGET = 0x9d3f1c2be07a4d5e3b86a1f04c2d7e91;
    uint256 private packed; // no getter: its value never shows up in return data
    bool public opened;

    function mix(uint64 hi, uint64 lo) public {
        packed = ((uint256(hi) << 64) | uint256(lo)) ^ SALT;
    }

    function open() public {
        if (packed == TARGET) {
            opened = true;
        }
    }

    function echidna_not_opened() public view returns (bool) {
        return !opened;
    }
}
