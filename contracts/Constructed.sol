// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// A target whose constructor takes arguments (`constructorArgs` in the
/// config): a limit, an owner and a tag. `echidna_configured` holds only when
/// the deployment got exactly 25, 0x10000 and "vault"; `echidna_below_limit`
/// falls once small additions pass the limit.
contract Constructed {
    uint256 public limit;
    address public owner;
    string public tag;
    uint256 public total;

    constructor(uint256 _limit, address _owner, string memory _tag) payable {
        limit = _limit;
        owner = _owner;
        tag = _tag;
    }

    function add(uint256 x) public {
        if (x <= 10) {
            total += x;
        }
    }

    function echidna_configured() public view returns (bool) {
        return limit == 25 && owner == address(0x10000) && keccak256(bytes(tag)) == keccak256("vault");
    }

    function echidna_below_limit() public view returns (bool) {
        return total < limit;
    }
}
