// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// A contract another one reads through calls.
contract Gauge {
    uint256 public level;

    function raise(uint256 x) external {
        level += x;
    }
}

/// Properties that read every kind of state a check can read — another
/// contract's storage through a call, the contract's balance, code at an
/// address, the block timestamp and number — and one that writes. Each is
/// broken only through what it reads: a check skipped while something it
/// read changed would miss the break (tests/check_cache.rs runs this with
/// checks skipped, not skipped, and verified, and compares the runs).
contract CheckReads {
    Gauge public gauge = new Gauge();
    /// Where this contract's next `new` puts its contract (nonce 2).
    address public immutable next;
    uint256 public deadline;
    uint256 public markedBlock;
    uint256 public checks;

    constructor() {
        next = address(
            uint160(uint256(keccak256(abi.encodePacked(bytes1(0xd6), bytes1(0x94), address(this), bytes1(0x02)))))
        );
    }

    function raise(uint8 x) public {
        gauge.raise(x);
    }

    function deposit() public payable {}

    function arm() public {
        deadline = block.timestamp + 3 days;
    }

    function mark() public {
        markedBlock = block.number;
    }

    function spawn() public {
        new Gauge();
    }

    function echidna_gauge_low() public view returns (bool) {
        return gauge.level() < 600;
    }

    function echidna_poor() public view returns (bool) {
        return address(this).balance < 300 ether;
    }

    function echidna_nothing_at_next() public view returns (bool) {
        return next.code.length == 0;
    }

    function echidna_before_deadline() public view returns (bool) {
        return deadline == 0 || block.timestamp < deadline;
    }

    function echidna_same_era() public view returns (bool) {
        return markedBlock == 0 || block.number < markedBlock + 100_000;
    }

    /// Writes on every check: never skipped (it would answer differently).
    function echidna_checked_rarely() public returns (bool) {
        checks += 1;
        return checks < 50;
    }
}
