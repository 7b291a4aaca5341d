// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// A property that only an expensive call breaks (`maxGasprice`): with
/// every call priced 0 it holds; priced above 50 gwei, `buy()` breaks it.
contract Priced {
    uint256 public paid;

    function buy() public {
        if (tx.gasprice > 50 gwei) {
            paid = tx.gasprice;
        }
    }

    function echidna_cheap() public view returns (bool) {
        return paid == 0;
    }
}
