// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// The Foundry-invariant form of SideEffects.sol: a suite (setUp and
/// invariant_* functions) whose invariants write. forge runs each invariant
/// on a copy of the state; so must rudder, and none of them breaks.
contract Counter {
    address public immutable owner = msg.sender;
    uint256 public count;
    uint256 public marks;

    function bump(uint256 by) public {
        count += by % 10;
    }

    /// Only the suite marks (a fuzzed sender's call reverts).
    function mark() public {
        require(msg.sender == owner, "only the suite");
        marks += 1;
    }
}

contract SideEffectsSuite {
    Counter public counter;
    bool public checked;

    function setUp() public {
        counter = new Counter();
    }

    /// Reverts on every check after the first if its write is kept.
    function invariant_writes_once() public {
        require(!checked, "a check saw the write of an earlier check");
        checked = true;
    }

    /// Writes another contract's state through a call: undone as well.
    function invariant_marks_through_a_call() public {
        require(counter.marks() == 0, "a check saw the mark of an earlier check");
        counter.mark();
    }

    /// Runs at the end of each sequence; its writes are undone too.
    function afterInvariant() public {
        require(!checked, "afterInvariant saw an invariant's write");
        checked = true;
    }
}
