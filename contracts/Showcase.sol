// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// What the HTML report and the dashboard are tested on: a property a short
/// sequence falsifies, a line no call reaches, a revert reason and a source
/// line that are markup and must be shown as text:
/// <script>document.title = "the report ran the target's text"</script>
contract Showcase {
    uint256 public stage;

    event Staged(address indexed by, uint256 stage);

    function step(uint256 key) public {
        require(key != 666, "<b>666</b> is refused");
        if (stage == 0 && key == 3) {
            stage = 1;
        } else if (stage == 1 && key == 7) {
            stage = 2;
        }
        emit Staged(msg.sender, stage);
    }

    function twice(uint256 x) public pure returns (uint256) {
        if (x == 1 && x == 2) {
            return 42; // no x is both: never run
        }
        return x * 2;
    }

    function echidna_stage_below_two() public view returns (bool) {
        return stage < 2;
    }

    function echidna_always() public pure returns (bool) {
        return true;
    }
}
