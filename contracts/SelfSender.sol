// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// A harness deployed with `deployer` and `contractAddr` at one address and
/// fuzzed from that same address (a configuration some public Echidna
/// harnesses use: the harness sends its own calls). The constructor needs
/// the value it is sent; only a call from the harness' own address breaks
/// the first property.
contract SelfSender {
    uint256 public constant START = 100 ether;
    bool public calledByItself;
    uint256 public pokes;

    constructor() payable {
        require(msg.value == START, "created with its value");
    }

    function poke() external {
        pokes += 1;
        if (msg.sender == address(this)) {
            calledByItself = true;
        }
    }

    function echidna_never_called_by_itself() external view returns (bool) {
        return !calledByItself;
    }

    function echidna_kept_its_value() external view returns (bool) {
        return address(this).balance >= START;
    }
}
