pragma solidity ^0.4.24;

// solc 0.4: constructor by name-less keyword, `assert` as the invalid opcode.
contract Legacy04 {
    uint256 private stage;
    address public owner;

    constructor() public {
        owner = msg.sender;
    }

    function step(uint256 key) public {
        if (stage == 0 && key == 17) {
            stage = 1;
        } else if (stage == 1 && key > 1000) {
            stage = 2;
        }
    }

    function echidna_stage_below_two() public view returns (bool) {
        return stage < 2;
    }
}
