// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// Exercises argument generation and call parsing: overloads and many ABI
/// types. `echidna_ok` is broken when `mix` sees a specific combination.
contract AbiKitchen {
    struct Order {
        int16 price;
        uint8 qty;
        address owner;
        bool open;
    }

    uint256 public hits;
    bool public broken;
    bytes public lastBytes;
    string public lastString;
    Order public lastOrder;

    function poke(uint8 a) public {
        hits += a;
    }

    function poke(uint256 a, bool flag) public {
        if (flag) hits += a % 1000;
    }

    function poke(address who) public {
        if (who == msg.sender) hits += 1;
    }

    function ints(int8 a, int64 b, int256 c) public {
        if (a < 0 && b > 0 && c != 0) hits += 1;
    }

    function blobs(bytes calldata data, bytes4 tag, bytes32 word, string calldata label) public {
        lastBytes = data;
        lastString = label;
        if (tag == bytes4(0xdeadbeef) && word != bytes32(0)) hits += 1;
    }

    function arrays(uint16[] calldata xs, address[2] calldata pair, bool[][] calldata grid) public {
        if (xs.length > 2 && pair[0] != pair[1] && grid.length > 0) hits += xs.length;
    }

    function set(Order calldata o) public {
        lastOrder = o;
    }

    function mix(Order calldata o, uint32 n) public {
        if (o.price == -5 && o.qty == 3 && o.open && n == 77) {
            broken = true;
        }
    }

    function pay() public payable {
        if (msg.value > 1 ether) hits += 1;
    }

    function echidna_ok() public view returns (bool) {
        return !broken;
    }
}
