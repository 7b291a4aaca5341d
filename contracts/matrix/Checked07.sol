pragma solidity ^0.7.0;

// solc 0.7 (unchecked arithmetic everywhere): a wrap-around breaks the property.
contract Checked07 {
    uint8 private level = 250;

    function add(uint8 n) public {
        require(n < 10);
        level += n;
    }

    function echidna_level_high() public view returns (bool) {
        return level >= 250;
    }
}
