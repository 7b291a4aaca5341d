// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

interface Hevm {
    function warp(uint256) external;
    function roll(uint256) external;
    function store(address, bytes32, bytes32) external;
    function deal(address, uint256) external;
    function startPrank(address) external;
    function stopPrank() external;
}

/// Properties whose state cheatcodes change behind the calls' backs (a
/// slot written with `store`, a balance set with `deal`, time moved with
/// `warp` and `roll`, a prank left running): tests/check_cache.rs checks
/// that skipped checks see every such change.
contract CheckCheats {
    Hevm constant hevm = Hevm(0x7109709ECfa91a80626fF3989D68f67F5b1DD12D);
    uint256 public level;
    address public holder = address(0xbeef);

    function poke(uint16 v) public {
        hevm.store(address(this), bytes32(uint256(0)), bytes32(uint256(v)));
    }

    function fund(uint64 v) public {
        hevm.deal(holder, v);
    }

    function later(uint32 s) public {
        hevm.warp(block.timestamp + s);
    }

    function higher(uint16 n) public {
        hevm.roll(block.number + n);
    }

    function hold() public {
        hevm.startPrank(holder);
    }

    function release() public {
        hevm.stopPrank();
    }

    function echidna_level_low() public view returns (bool) {
        return level < 60_000;
    }

    function echidna_holder_poor() public view returns (bool) {
        return holder.balance < 1 << 63;
    }

    function echidna_early() public view returns (bool) {
        return block.timestamp < 1_524_785_992 + 40 days;
    }

    function echidna_low_block() public view returns (bool) {
        return block.number < 4_370_000 + 400_000;
    }
}
