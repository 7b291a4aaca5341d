// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

// The shape of Recon's Chimera bases (written here; the fixture has no
// dependencies): a setup() every harness runs, and asserts that Echidna,
// Medusa and forge each report their own way.

abstract contract BaseSetup {
    function setup() internal virtual;
}

abstract contract Asserts {
    function t(bool b, string memory reason) internal virtual;
}

/// Echidna and Medusa: a failed assert (and the reason in an event).
abstract contract CryticAsserts is Asserts {
    event Log(string);

    function t(bool b, string memory reason) internal virtual override {
        if (!b) {
            emit Log(reason);
            assert(false);
        }
    }
}

/// forge: a revert with the reason.
abstract contract FoundryAsserts is Asserts {
    function t(bool b, string memory reason) internal virtual override {
        require(b, reason);
    }
}
