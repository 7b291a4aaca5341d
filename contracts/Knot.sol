// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// Knots: guards that hold only together. Each knot ties its parameters
/// through wrapped sums and products (unchecked arithmetic) and signed
/// orderings, so that meeting one comparison at a time breaks another one
/// already met: an input-to-state stage that turns one comparison cannot
/// untie them, a path-condition solver that keeps the path can.
contract Knot {
    event AssertionFailed(string message);

    bool public tiedA;
    bool public tiedB;
    bool public tiedC;
    bool public tiedD;

    /// Feasible: c = 2^40 + 1, a = 13c + 7, d = 2^40 + 5 (d * c wraps to
    /// 6 * 2^40 + 5), b = a + c + 1.
    function knotA(uint64 a, uint64 b, uint64 c, uint64 d) external {
        unchecked {
            if (b > a + c) {
                if (b < d + a) {
                    if (d < d * c) {
                        if (a == 13 * c + 7) {
                            if (c > 1 << 40) {
                                tiedA = true;
                            }
                        }
                    }
                }
            }
        }
    }

    /// Feasible: x < -5 and 1000x < y < 999x, e.g. x = -6, y = -5995.
    function knotB(int32 x, int64 y, bool up) external {
        unchecked {
            if (x < -5) {
                if (y > int64(x) * 1000) {
                    if (y < int64(x) * 999) {
                        if (up) {
                            tiedB = true;
                        }
                    }
                }
            }
        }
    }

    /// Feasible, and only as a whole: the three equalities close a cycle
    /// (a = 3d + a * d, so a * (1 - d) = 3d: a root modulo 2^64 for every
    /// even d), e.g. d = 1002 and a = 3006 * (-1001)^-1 mod 2^64. Each
    /// equality met on its own breaks the one before it.
    function knotC(uint64 a, uint64 b, uint64 c, uint64 d) external {
        unchecked {
            if (a == b + c) {
                if (b == 3 * d) {
                    if (c == a * d) {
                        if (d > 1000) {
                            tiedC = true;
                        }
                    }
                }
            }
        }
    }

    /// Feasible only for a few roots of the first guard: `a >= a + 40`
    /// wraps for a = -r, 1 <= r <= 40; b < r; w is within 39 below a, and
    /// a * g = -rg must stay above it (r(g - 1) < 39); m * a = -mr wraps
    /// to some e with k < e < h < g <= b, so g >= 3 and r is 4 to 19
    /// (e.g. r = 5: a = -5, b = 4, w = -44, g = 3, h = 2, e = 1 with m =
    /// -(5^-1) mod 2^64, k = 0). A path that took another root cannot be
    /// mended one argument at a time: six arguments move together.
    function knotD(uint64 a, uint64 b, uint64 w, uint64 g, uint64 h, uint64 m, uint64 k)
        external
    {
        unchecked {
            if (a >= a + 40) {
                if (a <= b + a) {
                    if (a < w + 40) {
                        if (g > h) {
                            if (w < a * g) {
                                if (h > m * a) {
                                    if (k < a * m) {
                                        if (b >= g) {
                                            tiedD = true;
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    function echidna_a_holds() external view returns (bool) {
        return !tiedA;
    }

    function echidna_b_holds() external view returns (bool) {
        return !tiedB;
    }

    function echidna_c_holds() external view returns (bool) {
        return !tiedC;
    }

    function echidna_d_holds() external view returns (bool) {
        return !tiedD;
    }
}
