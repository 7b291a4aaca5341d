// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {BaseSetup} from "./chimera/Base.sol";
import {EpochPool} from "../../src/EpochPool.sol";

abstract contract Setup is BaseSetup {
    EpochPool pool;
    /// When this harness last staked (the harness derives its clock from
    /// the chain's, as Recon suites do).
    uint256 stakedAt;

    function setup() internal virtual override {
        pool = new EpochPool();
        stakedAt = block.timestamp;
    }
}
