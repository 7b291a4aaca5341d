// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

// One of each Solidity construct the code graph reads, for its unit tests
// (src/graph/ast.rs): contract kinds, state variables, functions of every
// kind, calls of every kind, reads and writes of every shape, and decisions
// of every kind with what their conditions depend on. Not a fuzzing target.

interface IFeed {
    function price() external view returns (uint256);
}

library MathLib {
    function min(uint256 a, uint256 b) internal pure returns (uint256) {
        return a < b ? a : b;
    }
}

abstract contract Base {
    address public owner;

    modifier onlyOwner() {
        require(msg.sender == owner, "not owner");
        _;
    }

    function hook(uint256 x) internal virtual returns (uint256);
}

contract Counter {
    uint256 public n;

    function bump() external {
        n += 1;
    }
}

contract GraphConstructs is Base {
    enum Phase {
        Closed,
        Open
    }

    struct Position {
        uint256 amount;
        uint64 at;
    }

    uint256 public constant LIMIT = 100;
    uint256 public immutable start;
    uint256 public total;
    mapping(address => uint256) public balances;
    mapping(address => Position) public positions;
    uint256[] public history;
    Phase public phase;
    IFeed public feed;
    Counter public counter;

    constructor(IFeed f) {
        owner = msg.sender;
        start = block.timestamp;
        feed = f;
    }

    receive() external payable {
        total += msg.value;
    }

    fallback() external {
        total = 0;
    }

    function _credit(address who, uint256 amount) internal {
        balances[who] += amount;
    }

    function hook(uint256 x) internal pure override returns (uint256) {
        return x * 2;
    }

    function deposit() external payable {
        require(msg.value > 0, "nothing sent");
        _credit(msg.sender, msg.value);
        total++;
    }

    function withdraw(uint256 amount) external {
        uint256 have = balances[msg.sender];
        if (amount > have) {
            revert("too much");
        }
        balances[msg.sender] -= amount;
    }

    function open(Phase p) external onlyOwner {
        assert(p != Phase.Closed || phase == Phase.Open);
        phase = p;
    }

    function record(uint256 v) external {
        if (v >= LIMIT) {
            return;
        }
        history.push(v);
        positions[msg.sender].amount = v;
        positions[msg.sender].at = uint64(block.timestamp);
    }

    function forget() external {
        delete positions[msg.sender];
    }

    function late() external view returns (bool) {
        return block.timestamp > start + 1 days ? true : false;
    }

    function sum(uint256 k) external view returns (uint256 s) {
        for (uint256 i = 0; i < history.length && i < k; i++) {
            s += history[i];
        }
        while (s > 1000) {
            s /= 2;
        }
    }

    function smallest(uint256 a) external view returns (uint256) {
        return MathLib.min(a, total);
    }

    function quote() external view returns (uint256) {
        return feed.price() + hook(1);
    }

    function cap() external {
        total = LIMIT * 2;
    }

    function busy() external view returns (bool) {
        return counter.n() > LIMIT ? true : false;
    }

    function spawn() external {
        counter = new Counter();
        counter.bump();
    }
}
