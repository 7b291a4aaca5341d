// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {CryticAsserts} from "./chimera/Base.sol";
import {TargetFunctions} from "./TargetFunctions.sol";

// echidna . --contract CryticTester --config echidna.yaml
contract CryticTester is TargetFunctions, CryticAsserts {
    constructor() payable {
        setup();
    }
}
