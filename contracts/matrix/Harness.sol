// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

// Echidna's harness conventions in one place (each case is its own contract;
// tests pick them with --contract).

// Only properties: nothing else to call. The property is false after
// deployment and must be reported as falsified, not "passing after 0 calls".
contract OnlyProperties {
    uint256 private x = 3;

    function echidna_x_is_zero() external view returns (bool) {
        return x == 0;
    }

    function echidna_x_is_three() external view returns (bool) {
        return x == 3;
    }
}

// `echidna_revert_*` must revert to pass.
contract RevertProperties {
    bool private unlocked;

    function unlock(uint256 code) external {
        if (code == 42) {
            unlocked = true;
        }
    }

    function echidna_revert_while_locked() external view returns (bool) {
        require(unlocked, "locked");
        return true;
    }

    function echidna_revert_always() external pure returns (bool) {
        revert("always");
    }
}

// Assertion mode: emitting AssertionFailed(..) is an assertion failure.
contract AssertionEvents {
    event AssertionFailed(string reason);

    uint256 private last;

    function check(uint256 v) external {
        if (v > last + 1000) {
            emit AssertionFailed("jumped too far");
        }
        last = v;
    }

    function fine(uint256 v) external {
        last = v % 1000;
    }
}

// Assertion mode, as Echidna reads events: an AssertionFailed emitted by a
// call that then reverts still fails it (the event is in the call's trace),
// and one emitted by another contract the call reaches fails the calling
// function. A revert before the event, or an empty external call, does not.
contract AssertionReverted {
    event AssertionFailed(uint256 value);

    function emitsThenReverts(uint256 v) external {
        if (v > 128) {
            emit AssertionFailed(v);
            revert("undone, but seen");
        }
    }

    function revertsFirst(uint256 v) external {
        require(v > v, "never past here");
        emit AssertionFailed(v);
    }
}

contract AssertingHelper {
    event AssertionFailed(string reason);

    function check(uint256 v) external {
        if (v > 128) {
            emit AssertionFailed("helper saw a large value");
        }
    }

    function nothing() external {}
}

contract AssertionExternal {
    AssertingHelper private helper = new AssertingHelper();

    function callsHelper(uint256 v) external {
        helper.check(v);
    }

    function callsNothing(uint256) external {
        helper.nothing();
    }
}

// Echidna fills `bytes` arguments with calls: `transfer` answers only the
// contract itself (and is filtered out of the fuzzed calls), reached
// through `callback`, which calls itself with the data it is given.
contract SelfCallback {
    bool private moved;

    function transfer(uint256 amount) external {
        require(msg.sender == address(this), "only through a callback");
        if (amount > 0) {
            moved = true;
        }
    }

    function callback(bytes calldata data) external {
        (bool ok, ) = address(this).call(data);
        ok;
    }

    function echidna_never_moved() external view returns (bool) {
        return !moved;
    }
}

// Optimization mode: a value no call raises is reached by the empty
// sequence (Echidna reports it with no transactions).
contract OptimizeAtDeployment {
    int256 private level = 5;

    function lower(uint256 by) external {
        level -= int256(by % 3);
    }

    function echidna_opt_level() external view returns (int256) {
        return level;
    }
}

// Overflow mode: checked arithmetic that can overflow.
contract Overflowing {
    uint8 private small;

    function grow(uint8 by) external {
        small += by;
    }

    function safe(uint8 by) external {
        small = by / 2;
    }
}

// A property whose failure message carries a number: the reason reported
// is the shrunk sequence's (what the reproducer replays), not the reason of
// the first sequence that falsified it.
contract ReasonOfShrunk {
    error TooMuch(uint256 total);

    uint256 private total;

    function add(uint256 x) external {
        total += x % 1000;
    }

    function echidna_total_small() external view returns (bool) {
        if (total > 100) revert TooMuch(total);
        return true;
    }
}
