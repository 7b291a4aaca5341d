pragma solidity ^0.6.0;

// solc 0.6: `receive` (empty calldata with value) then a function call.
contract Receive06 {
    uint256 private received;

    receive() external payable {
        received += msg.value;
    }

    function echidna_nothing_received() public view returns (bool) {
        return received == 0;
    }
}
