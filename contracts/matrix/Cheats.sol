// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

// hevm / Foundry cheatcodes, one check per function: each `check_*` calls a
// cheatcode and asserts its effect (the tests call every one and expect
// success). The constructor warps and rolls: sequences start there.

interface Vm {
    function warp(uint256) external;
    function roll(uint256) external;
    function fee(uint256) external;
    function chainId(uint256) external;
    function coinbase(address) external;
    function prevrandao(bytes32) external;
    function difficulty(uint256) external;
    function prank(address) external;
    function prank(address, address) external;
    function startPrank(address) external;
    function stopPrank() external;
    function deal(address, uint256) external;
    function store(address, bytes32, bytes32) external;
    function load(address, bytes32) external returns (bytes32);
    function etch(address, bytes calldata) external;
    function addr(uint256) external returns (address);
    function sign(uint256, bytes32) external returns (uint8, bytes32, bytes32);
    function label(address, string calldata) external;
    function getNonce(address) external returns (uint64);
    function setNonce(address, uint64) external;
    function assume(bool) external;
    function toString(uint256) external returns (string memory);
    function toString(address) external returns (string memory);
    function ffi(string[] calldata) external returns (bytes memory);
    function notACheatcode() external;
}

contract Callee {
    function whoCalls() external view returns (address, address) {
        return (msg.sender, tx.origin);
    }
}

contract Cheats {
    Vm constant vm = Vm(address(uint160(uint256(keccak256("hevm cheat code")))));
    Callee callee = new Callee();
    uint256 public slot0 = 7;

    constructor() {
        vm.warp(1_700_000_000);
        vm.roll(18_000_000);
    }

    function check_constructor_block() external view {
        assert(block.timestamp >= 1_700_000_000);
        assert(block.number >= 18_000_000);
    }

    function check_warp() external {
        vm.warp(2_000_000_000);
        assert(block.timestamp == 2_000_000_000);
    }

    function check_roll() external {
        vm.roll(20_000_000);
        assert(block.number == 20_000_000);
    }

    function check_fee() external {
        vm.fee(7 gwei);
        assert(block.basefee == 7 gwei);
    }

    function check_chainId() external {
        vm.chainId(31337);
        assert(block.chainid == 31337);
    }

    function check_coinbase() external {
        vm.coinbase(address(0xbeef));
        assert(block.coinbase == address(0xbeef));
    }

    function check_prevrandao() external {
        vm.prevrandao(bytes32(uint256(42)));
        assert(block.prevrandao == 42);
    }

    function check_difficulty() external {
        vm.difficulty(43);
        assert(block.prevrandao == 43);
    }

    function check_prank() external {
        vm.prank(address(0xabc));
        (address sender, ) = callee.whoCalls();
        assert(sender == address(0xabc));
        (address again, ) = callee.whoCalls();
        assert(again == address(this));
    }

    function check_prank_origin() external {
        vm.prank(address(0xabc), address(0xdef));
        (address sender, address origin) = callee.whoCalls();
        assert(sender == address(0xabc) && origin == address(0xdef));
    }

    function check_startPrank_stopPrank() external {
        vm.startPrank(address(0x123));
        (address a, ) = callee.whoCalls();
        (address b, ) = callee.whoCalls();
        vm.stopPrank();
        (address c, ) = callee.whoCalls();
        assert(a == address(0x123) && b == address(0x123) && c == address(this));
    }

    function check_deal() external {
        vm.deal(address(0x777), 5 ether);
        assert(address(0x777).balance == 5 ether);
    }

    function check_store_load() external {
        vm.store(address(this), bytes32(uint256(1)), bytes32(uint256(99)));
        assert(slot0 == 99);
        assert(vm.load(address(this), bytes32(uint256(1))) == bytes32(uint256(99)));
    }

    function check_etch() external {
        // PUSH1 0x2a PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN: returns 42.
        vm.etch(address(0x5555), hex"602a60005260206000f3");
        (bool ok, bytes memory out) = address(0x5555).staticcall("");
        assert(ok && abi.decode(out, (uint256)) == 42);
    }

    function check_addr_sign() external {
        address signer = vm.addr(1);
        assert(signer == 0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf);
        bytes32 digest = keccak256("rudder");
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(1, digest);
        assert(ecrecover(digest, v, r, s) == signer);
    }

    function check_label() external {
        vm.label(address(callee), "callee");
    }

    function check_nonces() external {
        vm.setNonce(address(0x999), 12);
        assert(vm.getNonce(address(0x999)) == 12);
    }

    function check_assume_true() external {
        vm.assume(true);
    }

    function check_toString() external {
        assert(keccak256(bytes(vm.toString(uint256(1234)))) == keccak256("1234"));
        assert(
            keccak256(bytes(vm.toString(address(0xbeef)))) ==
                keccak256("0x000000000000000000000000000000000000bEEF")
        );
    }

    // These two must revert: assume(false) rejects, an unknown cheatcode
    // reverts naming its selector, ffi is off by default.
    function reject_assume_false() external {
        vm.assume(false);
    }

    function reject_unknown() external {
        vm.notACheatcode();
    }

    function reject_ffi() external {
        string[] memory cmd = new string[](2);
        cmd[0] = "echo";
        cmd[1] = "0x1234";
        vm.ffi(cmd);
    }

    // A property a campaign breaks with warp inside a call.
    uint256 private marked;

    function travel(uint256 t) external {
        vm.warp(t);
        if (block.timestamp > 3_000_000_000) {
            marked = 1;
        }
    }

    function echidna_not_far_future() external view returns (bool) {
        return marked == 0;
    }
}
