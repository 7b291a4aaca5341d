pragma solidity ^0.5.0;

// solc 0.5: an unnamed payable fallback is the only way to reach `armed`.
contract Pre06 {
    bool private armed;
    bool private fired;

    function() external payable {
        armed = true;
    }

    function fire() public {
        if (armed) {
            fired = true;
        }
    }

    function echidna_never_fired() public view returns (bool) {
        return !fired;
    }
}
