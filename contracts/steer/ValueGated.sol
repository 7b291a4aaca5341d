// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// Kind: a value-gated path (an exact msg.value).
/// `buy` takes a hundred units or more and succeeds only when the ether sent
/// is exactly the price, units × PRICE + FEE. Why blind fuzzing misses it:
/// msg.value is drawn from [0, maxValue] (a hundred ether) or from the
/// dictionary (PRICE, FEE and the other constants), never a total; the
/// price depends on the argument, and input-to-state rewrites arguments,
/// not the value sent, while the comparison's operands (msg.value and the
/// price) are not values of `units` or offsets of it.
/// What the graph tells an agent: `buy` is blocked on
/// `msg.value == uint256(units) * PRICE + FEE` after `units >= 100`; both
/// constants are named with their values: pick units, send the price.
/// (Comments here carry no solution: rudder mines numbers from the source,
/// comments included; while this one gave the answer, blind solved it.)
contract ValueGated {
    uint256 private constant PRICE = 0.0137 ether;
    uint256 private constant FEE = 0.0042 ether;
    bool public bought;

    function buy(uint16 units) external payable {
        require(units >= 100 && units <= 1000, "units out of range");
        if (msg.value == uint256(units) * PRICE + FEE) {
            bought = true;
        }
    }

    function echidna_not_bought() public view returns (bool) {
        return !bought;
    }
}
