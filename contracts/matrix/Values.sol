// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

// Values a fuzzer must try that no random draw finds: addresses of contracts
// created at run time, string literals of the source, the contract's own
// constants as msg.value and as time delays, the initial block timestamp.

contract Child {
    function ping() external pure returns (uint256) {
        return 1;
    }
}

contract Values {
    address private child;
    bool private childPoked;
    bool private opened;
    bool private bought;
    bool private waited;
    bool private nowSeen;
    uint256 private immutable start;

    constructor() {
        start = block.timestamp;
    }

    function make() external {
        child = address(new Child());
    }

    function poke(address a) external {
        if (child != address(0) && a == child) {
            childPoked = true;
        }
    }

    function guess(string calldata s) external {
        if (keccak256(bytes(s)) == keccak256("open sesame")) {
            opened = true;
        }
    }

    function buy() external payable {
        if (msg.value == 31337) {
            bought = true;
        }
    }

    function wait() external {
        if (block.timestamp == start + 12345) {
            waited = true;
        }
    }

    function stamp(uint256 t) external {
        if (t == start) {
            nowSeen = true;
        }
    }

    function echidna_child_not_poked() external view returns (bool) {
        return !childPoked;
    }

    function echidna_not_opened() external view returns (bool) {
        return !opened;
    }

    function echidna_not_bought() external view returns (bool) {
        return !bought;
    }

    function echidna_not_waited() external view returns (bool) {
        return !waited;
    }

    function echidna_now_not_seen() external view returns (bool) {
        return !nowSeen;
    }
}
