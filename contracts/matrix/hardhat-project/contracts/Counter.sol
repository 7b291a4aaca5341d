// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {Steps} from "./lib/Steps.sol";

/// A capped counter with a two-step jam: arm(42), then fire(7) while armed.
/// Arming with any other code disarms; reset() clears everything.
contract Counter {
    uint256 public constant MAX = 1000;

    uint256 public count;
    bool public armed;
    bool public jammed;

    event Counted(address indexed by, uint256 count);
    event Jammed(address indexed by);

    function increment(uint8 by) external {
        require(!jammed, "jammed");
        count = Steps.addCapped(count, by, MAX);
        emit Counted(msg.sender, count);
    }

    function decrement(uint8 by) external {
        require(!jammed, "jammed");
        count = Steps.subFloored(count, by);
        emit Counted(msg.sender, count);
    }

    function arm(uint8 code) external {
        armed = code == 42;
    }

    function fire(uint8 code) external {
        require(armed, "not armed");
        if (code == 7) {
            jammed = true;
            emit Jammed(msg.sender);
        }
    }

    function reset() external {
        count = 0;
        armed = false;
        jammed = false;
    }
}
