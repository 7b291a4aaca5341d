// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

// One probe per Echidna config key whose effect a contract can observe.

contract Oracle {
    function answer() external pure returns (uint256) {
        return 42;
    }
}

contract Keys {
    // psender: the caller of property checks.
    function echidna_called_by_psender() external view returns (bool) {
        return msg.sender == address(0x20000);
    }

    // propMaxGas: a property that needs ~150k gas fails when the limit is lower.
    function echidna_expensive() external view returns (bool) {
        uint256 acc;
        for (uint256 i = 0; i < 400; i++) {
            acc ^= uint256(keccak256(abi.encode(i)));
        }
        return acc != 1;
    }

    // balanceAddr: the senders' balance.
    function echidna_sender_rich() external view returns (bool) {
        return address(0x10000).balance == 777 ether;
    }

    // deployContracts / deployBytecodes: code at fixed addresses.
    function echidna_oracle_deployed() external view returns (bool) {
        return address(0x1f).code.length > 0 && Oracle(address(0x1f)).answer() == 42;
    }

    function echidna_bytecode_deployed() external view returns (bool) {
        return address(0x2f).code.length > 0;
    }

    // testMaxGas: calls get this much gas.
    uint256 public spent;

    function burn() external {
        uint256 acc;
        for (uint256 i = 0; i < 400; i++) {
            acc ^= uint256(keccak256(abi.encode(i)));
        }
        spent = acc;
    }

    // excludeViewPure: these are never called when it is on.
    function look() external view returns (uint256) {
        return spent;
    }

    function compute(uint256 x) external pure returns (uint256) {
        return x * 2;
    }
}
