// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// A staking pool paying 1% of the stake per weekly epoch (epochs counted
/// from the Unix epoch, as many protocols do). Planted bug: `accrue` pays a
/// whole epoch when the clock crosses an epoch boundary, however short the
/// stake was, so whether a run finds it depends on the absolute time the
/// campaign started at (tests/it/matrix.rs; reproducers must replay it).
contract EpochPool {
    uint256 public constant EPOCH = 1 weeks;
    mapping(address => uint256) public staked;
    mapping(address => uint256) public epochOf;
    mapping(address => uint256) public rewards;
    uint256 public totalStaked;

    function epoch() public view returns (uint256) {
        return block.timestamp / EPOCH;
    }

    function stake(uint256 amount) external {
        accrue(msg.sender);
        staked[msg.sender] += amount;
        totalStaked += amount;
        epochOf[msg.sender] = epoch();
    }

    function unstake(uint256 amount) external {
        require(staked[msg.sender] >= amount, "more than staked");
        accrue(msg.sender);
        staked[msg.sender] -= amount;
        totalStaked -= amount;
    }

    function accrue(address who) public {
        uint256 e = epoch();
        if (e > epochOf[who]) {
            rewards[who] += (staked[who] * (e - epochOf[who])) / 100;
            epochOf[who] = e;
        }
    }
}
