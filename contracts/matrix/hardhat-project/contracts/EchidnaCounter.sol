// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {Counter} from "./Counter.sol";

/// Echidna-style harness: the fuzzer calls Counter's functions on this
/// contract and checks the `echidna_*` properties after each call.
contract EchidnaCounter is Counter {
    /// Holds: increment saturates at MAX and decrement floors at zero.
    function echidna_count_capped() external view returns (bool) {
        return count <= MAX;
    }

    /// Breaks: arm(42) and then fire(7), with no other arm(..) in between.
    function echidna_not_jammed() external view returns (bool) {
        return !jammed;
    }
}
