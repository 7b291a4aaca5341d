// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// Typed ladders: each climb has five nested guards over five differently
/// typed parameters (ranges, equalities to constants, to a function of
/// another parameter, negative bounds, moduli, near-maximum bounds). A
/// fuzzer that only draws values blindly stops at the second or third rung.
contract Ladder {
    bool public reachedA;
    bool public reachedB;
    bool public reachedC;

    function climbA(uint8 a, uint16 b, int32 c, bool d, uint64 e) public {
        if (a > 100 && a < 120) {
            if (b == 31337) {
                if (c < -40000) {
                    if (d) {
                        if (e % 977 == 611 && e > 1e12) {
                            reachedA = true;
                        }
                    }
                }
            }
        }
    }

    function climbB(int64 c, uint32 e, uint8 a, bool d, uint16 b) public {
        if (c > -90 && c < -70) {
            if (e == uint32(a) * 1000 + 7) {
                if (a >= 50) {
                    if (!d) {
                        if (b % 64 == 17 && b > 40000) {
                            reachedB = true;
                        }
                    }
                }
            }
        }
    }

    function climbC(uint128 x, int8 s, uint64 y, bool f, uint24 z) public {
        if (x > 2 ** 100 && x < 2 ** 100 + 2 ** 64) {
            if (s == -77) {
                if (uint128(y) == x - 2 ** 100 + 5) {
                    if (f) {
                        if (z >= 16777200) {
                            reachedC = true;
                        }
                    }
                }
            }
        }
    }

    function echidna_climb_a() public view returns (bool) {
        return !reachedA;
    }

    function echidna_climb_b() public view returns (bool) {
        return !reachedB;
    }

    function echidna_climb_c() public view returns (bool) {
        return !reachedC;
    }
}
