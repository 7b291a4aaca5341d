// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// Kind: a precondition spread across several contracts.
/// The hub deploys an oracle, a registry and a vault, and only forwards to
/// them. `settle` needs, for the same sender, a given tier in the registry
/// and a vault deposit exactly equal to an affine function of the oracle's
/// price. Why blind fuzzing misses it: both sides of the deposit equality
/// are return values of other contracts (no parameter of `settle` is
/// compared), the price is whatever the last `quote` posted, and the
/// deposit is the sum of that sender's `fund`s, so the wanted amount exists
/// only at run time, as the operand of a comparison in another call.
/// What the graph tells an agent: `settle` reads Registry.tier,
/// Vault.deposits and Oracle.price; their writers are reached through the
/// hub's `enroll`, `fund` and `quote`. (No solution in comments: rudder mines
/// numbers from the source; see manifest.json.)
contract Oracle {
    address private immutable owner;
    uint256 public price;

    constructor() {
        owner = msg.sender;
    }

    function post(uint256 p) external {
        require(msg.sender == owner, "owner");
        price = p;
    }
}

contract Registry {
    address private immutable owner;
    mapping(address => uint8) public tier;

    constructor() {
        owner = msg.sender;
    }

    function enroll(address who, uint8 t) external {
        require(msg.sender == owner, "owner");
        tier[who] = t;
    }
}

contract Vault {
    address private immutable owner;
    mapping(address => uint256) public deposits;

    constructor() {
        owner = msg.sender;
    }

    function credit(address who, uint256 amount) external {
        require(msg.sender == owner, "owner");
        deposits[who] += amount;
    }
}

contract CrossHub {
    Oracle private immutable oracle;
    Registry private immutable registry;
    Vault private immutable vault;
    bool public settled;

    constructor() {
        oracle = new Oracle();
        registry = new Registry();
        vault = new Vault();
    }

    function quote(uint32 p) external {
        require(p >= 1000, "price too low");
        oracle.post(p);
    }

    function enroll(uint8 t) external {
        require(t <= 5, "no such tier");
        registry.enroll(msg.sender, t);
    }

    function fund(uint64 amount) external {
        vault.credit(msg.sender, amount);
    }

    function settle() external {
        if (registry.tier(msg.sender) == 4) {
            if (vault.deposits(msg.sender) == oracle.price() * 3 + 17) {
                settled = true;
            }
        }
    }

    function echidna_not_settled() public view returns (bool) {
        return !settled;
    }
}
