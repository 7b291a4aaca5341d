// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// Kind: an ordering of many calls (eight steps) each gated on state.
/// Each step shifts its own 4-bit code into `trail` (the last eight steps
/// are kept); `dispatch` ships only when the trail spells the one order
/// weigh, load, seal, sign, stamp, pay, log, ship. Why blind fuzzing misses
/// it: every step always succeeds and runs the same code whatever the
/// order, so no step is new coverage, and `trail` equals the target only
/// once the whole order is right (no intermediate state is worth keeping);
/// a random order of eight steps is right once in sixteen million.
/// What the graph tells an agent: `dispatch` is blocked on `trail == TARGET`,
/// `trail` is written by the eight steps, each with its own code; the
/// target's hex digits, read left to right, are the codes in call order.
contract OrderTrail {
    uint256 private trail;
    bool public dispatched;

    function push(uint256 code) private {
        require(!dispatched, "already dispatched");
        trail = ((trail << 4) | code) & 0xffffffff;
    }

    function load() external { push(0x1); }
    function weigh() external { push(0x2); }
    function seal() external { push(0x3); }
    function stamp() external { push(0x4); }
    function sign() external { push(0x5); }
    function ship() external { push(0x6); }
    function log() external { push(0x7); }
    function pay() external { push(0x8); }

    function dispatch() external {
        if (trail == 0x21354876) {
            dispatched = true;
        }
    }

    function echidna_not_dispatched() public view returns (bool) {
        return !dispatched;
    }
}
