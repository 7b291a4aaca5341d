// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// Kind: a deep nested comparison chain (six rungs) over shifted and xored
/// arguments. Why blind fuzzing misses it: comparison feedback and
/// input-to-state solve a parameter compared with a value, an offset or a
/// residue of it; here the first rungs compare a shifted parameter and an
/// xor of two parameters, which are neither, so the fuzzer must draw them
/// at random, and each later rung needs the earlier ones.
/// What the graph tells an agent: each rung's condition; solved in order,
/// each rung fixes one more parameter by inverting a shift or an xor.
contract DeepChain {
    bool public reached;

    function probe(uint64 a, uint64 b, uint32 c, uint16 d, int64 e, bool f) external {
        if (a >> 40 == 0x9e3779) {
            if (a ^ b == 0x0123456789abcdef) {
                if (c ^ uint32(b) == 0xcafef00d) {
                    if (d == uint16(c >> 8) ^ 0x5555) {
                        if (e < -int64(uint64(d)) * 1000) {
                            if (f) {
                                reached = true;
                            }
                        }
                    }
                }
            }
        }
    }

    function echidna_not_reached() public view returns (bool) {
        return !reached;
    }
}
