// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// Failures explained in their author's words. Assertion libraries (such as
/// crytic/properties) emit an event with a message just before they fail an
/// `assert`; the revert drops the event from the logs, so the fuzzer must
/// read it from the call's trace and report it with the failure.
///
/// A token with a planted bug: `transfer` takes one unit too many from the
/// sender when the amount is 999. Assertion mode: `transfer(to, 999)` fails
/// with `AssertEqFail("Invalid: …, reason: Wrong source balance after
/// transfer")`. Property mode: `echidna_supply_kept` fails with
/// `AssertFail("supply moved by 1")` after `burn(777)` (a second planted
/// bug: a burn that forgets to take the balance).
contract Messages {
    event AssertFail(string);
    event AssertEqFail(string);

    mapping(address => uint256) public balanceOf;
    uint256 public supply = 3_000_000;

    constructor() {
        balanceOf[address(0x10000)] = 1_000_000;
        balanceOf[address(0x20000)] = 1_000_000;
        balanceOf[address(0x30000)] = 1_000_000;
    }

    function transfer(address to, uint256 amount) public {
        uint256 before = balanceOf[msg.sender];
        if (to == msg.sender || amount > before) {
            return;
        }
        uint256 taken = amount == 999 ? amount + 1 : amount;
        balanceOf[msg.sender] -= taken;
        balanceOf[to] += amount;
        if (taken != amount) {
            supply -= 1;
        }
        equal(balanceOf[msg.sender], before - amount, "Wrong source balance after transfer");
    }

    function burn(uint256 amount) public {
        if (amount == 777) {
            supply -= 1;
        }
    }

    function echidna_supply_kept() public returns (bool) {
        check(supply == 3_000_000, string.concat("supply moved by ", decimal(3_000_000 - supply)));
        return true;
    }

    function equal(uint256 a, uint256 b, string memory reason) internal {
        if (a != b) {
            emit AssertEqFail(string.concat("Invalid: ", decimal(a), "!=", decimal(b), ", reason: ", reason));
            assert(false);
        }
    }

    function check(bool ok, string memory reason) internal {
        if (!ok) {
            emit AssertFail(reason);
            assert(false);
        }
    }

    function decimal(uint256 v) internal pure returns (string memory) {
        if (v == 0) {
            return "0";
        }
        bytes memory digits = new bytes(78);
        uint256 n = 0;
        while (v > 0) {
            digits[77 - n] = bytes1(uint8(48 + (v % 10)));
            v /= 10;
            n += 1;
        }
        bytes memory out = new bytes(n);
        for (uint256 i = 0; i < n; i++) {
            out[i] = digits[78 - n + i];
        }
        return string(out);
    }
}
