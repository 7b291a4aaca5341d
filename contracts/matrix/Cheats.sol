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
    function expectRevert() external;
    function expectRevert(bytes4) external;
    function expectRevert(bytes calldata) external;
    function mockCall(address, bytes calldata, bytes calldata) external;
    function mockCallRevert(address, bytes calldata, bytes calldata) external;
    function clearMockedCalls() external;
    struct Log {
        bytes32[] topics;
        bytes data;
        address emitter;
    }
    function recordLogs() external;
    function getRecordedLogs() external returns (Log[] memory);
    function record() external;
    function accesses(address) external returns (bytes32[] memory reads, bytes32[] memory writes);
    function envOr(string calldata, uint256) external view returns (uint256);
    function envExists(string calldata) external view returns (bool);
    function envUint(string calldata) external view returns (uint256);
    function getBlockTimestamp() external view returns (uint256);
    function getBlockNumber() external view returns (uint256);
    function assertApproxEqRel(uint256, uint256, uint256) external pure;
    function expectEmit() external;
    function expectEmit(bool, bool, bool, bool, address) external;
    function expectCall(address, bytes calldata) external;
    function expectCall(address, bytes calldata, uint64) external;
    function getCode(string calldata) external returns (bytes memory);
    function getDeployedCode(string calldata) external returns (bytes memory);
    function getLabel(address) external returns (string memory);
    function startBroadcast(address) external;
    function stopBroadcast() external;
    function pauseGasMetering() external;
    function mockCalls(address, bytes calldata, bytes[] calldata) external;
    function expectPartialRevert(bytes4) external;
    function assumeNoRevert() external;
    function parseUint(string calldata) external pure returns (uint256);
    function parseInt(string calldata) external pure returns (int256);
    function parseAddress(string calldata) external pure returns (address);
    function parseBool(string calldata) external pure returns (bool);
    function resumeGasMetering() external;
}

contract Callee {
    error Nope();
    error Code(uint256 code);
    event Shout(uint256 loud);

    uint256 public stored;

    function whoCalls() external view returns (address, address) {
        return (msg.sender, tx.origin);
    }

    function fail() external pure returns (uint256) {
        require(false, "nope");
        return 1;
    }

    function failCustom() external pure {
        revert Nope();
    }

    function failCode(uint256 code) external pure {
        revert Code(code);
    }

    function price() external pure returns (uint256) {
        return 1;
    }

    function priceOf(uint256 id) external pure returns (uint256) {
        return id;
    }

    function shout(uint256 loud) external {
        emit Shout(loud);
    }

    function put(uint256 v) external {
        stored = v;
    }
}

contract Made {
    address public creator = msg.sender;
}

contract NeverMade {
    constructor() {
        revert("no");
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

    function check_expectRevert() external {
        vm.expectRevert();
        uint256 got = callee.fail();
        // A call that reverted as expected looks successful, returning zeros.
        assert(got == 0);
        vm.expectRevert(bytes("nope"));
        callee.fail();
        vm.expectRevert(Callee.Nope.selector);
        callee.failCustom();
        // It applied to one call only.
        (address sender, ) = callee.whoCalls();
        assert(sender == address(this));
    }

    function check_mockCall() external {
        vm.mockCall(address(callee), abi.encodeWithSelector(Callee.price.selector), abi.encode(uint256(7)));
        assert(callee.price() == 7);
        // The longest matching calldata prefix answers.
        vm.mockCall(address(callee), abi.encodeWithSelector(Callee.priceOf.selector), abi.encode(uint256(8)));
        vm.mockCall(address(callee), abi.encodeWithSelector(Callee.priceOf.selector, 1), abi.encode(uint256(9)));
        assert(callee.priceOf(1) == 9 && callee.priceOf(2) == 8);
        vm.clearMockedCalls();
        assert(callee.price() == 1 && callee.priceOf(2) == 2);
        // An address without code answers once mocked.
        address oracle = address(0x0facade);
        vm.mockCall(oracle, abi.encodeWithSelector(Callee.price.selector), abi.encode(uint256(5)));
        assert(Callee(oracle).price() == 5);
    }

    function check_mockCallRevert() external {
        vm.mockCallRevert(address(callee), abi.encodeWithSelector(Callee.price.selector), abi.encodeWithSignature("Error(string)", "mocked"));
        try callee.price() returns (uint256) {
            assert(false);
        } catch Error(string memory m) {
            assert(keccak256(bytes(m)) == keccak256("mocked"));
        }
    }

    function check_recordLogs() external {
        vm.recordLogs();
        callee.shout(5);
        Vm.Log[] memory logs = vm.getRecordedLogs();
        assert(logs.length == 1 && logs[0].emitter == address(callee));
        assert(logs[0].topics[0] == keccak256("Shout(uint256)"));
        assert(abi.decode(logs[0].data, (uint256)) == 5);
        // Taken: the next read starts empty.
        assert(vm.getRecordedLogs().length == 0);
    }

    function check_record_accesses() external {
        vm.record();
        callee.put(3);
        (bytes32[] memory reads, bytes32[] memory writes) = vm.accesses(address(callee));
        assert(writes.length == 1 && writes[0] == bytes32(0));
        assert(reads.length >= 1);
    }

    function check_env() external view {
        assert(vm.envOr("RUDDER_CHEATS_UNSET_VARIABLE", uint256(7)) == 7);
        assert(!vm.envExists("RUDDER_CHEATS_UNSET_VARIABLE"));
    }

    function check_block_getters() external {
        vm.warp(1_800_000_000);
        vm.roll(19_000_000);
        assert(vm.getBlockTimestamp() == 1_800_000_000 && vm.getBlockNumber() == 19_000_000);
    }

    function check_assertApproxEqRel() external pure {
        vm.assertApproxEqRel(101, 100, 0.01e18);
    }

    function check_prank_create() external {
        vm.prank(address(0xabc));
        Made m = new Made();
        assert(m.creator() == address(0xabc));
        Made n = new Made();
        assert(n.creator() == address(this));
    }

    /// Starts a prank (creating two contracts under it, from an address
    /// with no code) and never stops it: the prank ends with this call.
    function leave_a_prank() external {
        vm.startPrank(address(0xdead));
        new Made();
        new Made();
    }

    /// Run after `leave_a_prank` in a later transaction: nothing is pranked.
    function check_no_prank_left() external {
        (address sender, ) = callee.whoCalls();
        assert(sender == address(this));
        Made m = new Made();
        assert(m.creator() == address(this));
    }

    /// A cheatcode call costs nothing, as in hevm: `gas()` around it moves
    /// by the few instructions that make the call, not 2,600 for a cold
    /// account (nor 100 for a warm one).
    function check_a_cheatcode_call_costs_nothing() external {
        bytes memory data = abi.encodeWithSignature("assume(bool)", true);
        address target = address(vm);
        uint256 first;
        uint256 second;
        assembly {
            let g := gas()
            pop(call(gas(), target, 0, add(data, 0x20), mload(data), 0, 0))
            first := sub(g, gas())
            g := gas()
            pop(call(gas(), target, 0, add(data, 0x20), mload(data), 0, 0))
            second := sub(g, gas())
        }
        assert(first < 100 && second < 100);
    }

    function check_expectRevert_create() external {
        vm.expectRevert(bytes("no"));
        new NeverMade();
        (address sender, ) = callee.whoCalls();
        assert(sender == address(this));
    }

    function check_console_takes_no_prank() external {
        vm.prank(address(0xabc));
        // What forge-std's bound() does before a handler's call.
        (bool ok, ) = address(0x000000000000000000636F6e736F6c652e6c6f67).staticcall(abi.encodeWithSignature("log(string)", "x"));
        assert(ok);
        (address sender, ) = callee.whoCalls();
        assert(sender == address(0xabc));
    }

    event Shout(uint256 loud);

    function check_expectEmit() external {
        vm.expectEmit();
        emit Shout(5);
        callee.shout(5);
        // The data not compared, the emitter checked.
        vm.expectEmit(true, true, true, false, address(callee));
        emit Shout(1);
        callee.shout(6);
        // A static call in between settles nothing; the next call does.
        vm.expectEmit();
        emit Shout(7);
        callee.price();
        callee.shout(7);
    }

    function check_expectCall() external {
        vm.expectCall(address(callee), abi.encodeWithSelector(Callee.put.selector));
        vm.expectCall(address(callee), abi.encodeWithSelector(Callee.priceOf.selector, 2), 2);
        callee.put(1);
        callee.priceOf(2);
        callee.priceOf(3);
        callee.priceOf(2);
    }

    function check_getCode_getDeployedCode() external {
        bytes memory code = vm.getCode("Cheats.sol:Made");
        address m;
        assembly {
            m := create(0, add(code, 0x20), mload(code))
        }
        assert(Made(m).creator() == address(this));
        assert(keccak256(code) == keccak256(type(Made).creationCode));
        assert(keccak256(vm.getDeployedCode("Made")) == keccak256(m.code));
        // A file's name alone names its contract of that name.
        assert(keccak256(vm.getDeployedCode("Cheats.sol")) == keccak256(address(this).code));
    }

    function check_getLabel() external {
        vm.label(address(callee), "callee");
        assert(keccak256(bytes(vm.getLabel(address(callee)))) == keccak256("callee"));
    }

    function check_broadcast() external {
        vm.startBroadcast(address(0xb0b));
        (address sender, address origin) = callee.whoCalls();
        Made m = new Made();
        vm.stopBroadcast();
        assert(sender == address(0xb0b) && origin == address(0xb0b));
        assert(m.creator() == address(0xb0b));
        (sender, ) = callee.whoCalls();
        assert(sender == address(this));
    }

    function check_gas_metering() external {
        vm.pauseGasMetering();
        callee.put(2);
        vm.resumeGasMetering();
    }

    function check_mockCalls() external {
        bytes[] memory answers = new bytes[](2);
        answers[0] = abi.encode(uint256(10));
        answers[1] = abi.encode(uint256(20));
        vm.mockCalls(address(callee), abi.encodeWithSelector(Callee.price.selector), answers);
        // One answer per call, the last one kept.
        assert(callee.price() == 10);
        assert(callee.price() == 20);
        assert(callee.price() == 20);
    }

    function check_expectPartialRevert() external {
        vm.expectPartialRevert(Callee.Code.selector);
        callee.failCode(7);
    }

    function check_assumeNoRevert_passes() external {
        vm.assumeNoRevert();
        callee.put(1);
    }

    function check_parse() external view {
        assert(vm.parseUint("42") == 42 && vm.parseUint("0x2a") == 42);
        assert(vm.parseInt("-5") == -5);
        assert(vm.parseAddress("0x0000000000000000000000000000000000000abc") == address(0xabc));
        assert(vm.parseBool("true"));
    }

    // These must revert, each with its message.
    function reject_assumeNoRevert() external {
        vm.assumeNoRevert();
        callee.fail();
    }

    function reject_parseUint() external view {
        vm.parseUint("forty-two");
    }

    function reject_expectEmit_other_data() external {
        vm.expectEmit();
        emit Shout(5);
        callee.shout(6);
    }

    function reject_expectEmit_without_a_call() external {
        vm.expectEmit();
        emit Shout(5);
    }

    function reject_expectCall_not_made() external {
        vm.expectCall(address(callee), abi.encodeWithSelector(Callee.put.selector, 9));
        callee.put(1);
    }

    function reject_getCode_unknown() external {
        vm.getCode("Nowhere.sol:Nothing");
    }

    function reject_expectRevert_without_a_call() external {
        vm.expectRevert();
    }

    function reject_expectRevert_without_revert() external {
        vm.expectRevert();
        callee.whoCalls();
    }

    function reject_expectRevert_other_error() external {
        vm.expectRevert(bytes("other"));
        callee.fail();
    }

    function reject_envUint_unset() external view {
        vm.envUint("RUDDER_CHEATS_UNSET_VARIABLE");
    }

    function reject_assertApproxEqRel() external pure {
        vm.assertApproxEqRel(102, 100, 0.01e18);
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
