// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {Test, Vm} from "forge-std/Test.sol";
import {StdInvariant} from "forge-std/StdInvariant.sol";
import {IOracle, Token, Vault} from "../src/Vault.sol";

/// The handler the fuzzer calls: bounded inputs, actors, ghost variables,
/// tokens dealt through forge-std's `deal` (stdstore: record and accesses),
/// an overdraft that must revert (`expectRevert`), events read back
/// (`recordLogs`), a withdrawal's event and payment expected (`expectEmit`,
/// `expectCall`).
contract VaultHandler is Test {
    event Withdraw(address indexed who, uint256 assets, uint256 shares);

    Vault public immutable vault;
    Token public immutable token;
    address[] public actors;
    uint256 public ghostDeposited;
    uint256 public ghostWithdrawn;
    uint256 public ghostDonated;

    constructor(Vault vault_, Token token_) {
        vault = vault_;
        token = token_;
        actors.push(makeAddr("alice"));
        actors.push(makeAddr("bob"));
        actors.push(makeAddr("carol"));
    }

    function actorCount() external view returns (uint256) {
        return actors.length;
    }

    function deposit(uint256 actorSeed, uint256 amount) external {
        address actor = actors[bound(actorSeed, 0, actors.length - 1)];
        amount = bound(amount, 1, 1e24);
        if (vault.totalShares() != 0 && amount * vault.totalShares() < vault.totalAssets()) return;
        deal(address(token), actor, token.balanceOf(actor) + amount);
        vm.startPrank(actor);
        token.approve(address(vault), amount);
        vm.recordLogs();
        vault.deposit(amount);
        Vm.Log[] memory logs = vm.getRecordedLogs();
        vm.stopPrank();
        uint256 deposits;
        for (uint256 i = 0; i < logs.length; i++) {
            if (logs[i].emitter == address(vault) && logs[i].topics[0] == Vault.Deposit.selector) deposits++;
        }
        assertEq(deposits, 1, "one Deposit event per deposit");
        ghostDeposited += amount;
    }

    function withdraw(uint256 actorSeed, uint256 shares) external {
        address actor = actors[bound(actorSeed, 0, actors.length - 1)];
        uint256 held = vault.sharesOf(actor);
        if (held == 0) return;
        shares = bound(shares, 1, held);
        uint256 assets = vault.previewWithdraw(shares);
        vm.expectEmit(true, false, false, true, address(vault));
        emit Withdraw(actor, assets, shares);
        vm.expectCall(address(token), abi.encodeCall(Token.transfer, (actor, assets)));
        vm.prank(actor);
        ghostWithdrawn += vault.withdraw(shares);
    }

    function overdraw(uint256 actorSeed, uint256 extra) external {
        address actor = actors[bound(actorSeed, 0, actors.length - 1)];
        uint256 held = vault.sharesOf(actor);
        extra = bound(extra, 1, 1e30);
        vm.prank(actor);
        vm.expectRevert(abi.encodeWithSelector(Vault.Insufficient.selector, held, held + extra));
        vault.withdraw(held + extra);
    }

    function donate(uint256 amount) external {
        amount = bound(amount, 1, 1e21);
        deal(address(token), address(this), amount);
        token.transfer(address(vault), amount);
        ghostDonated += amount;
    }

    function wait(uint256 dt) external {
        vm.warp(block.timestamp + bound(dt, 1, 7 days));
    }
}

/// Poked through the interface a suite names, never through its own ABI.
interface IPoke {
    function poke() external;
}

contract Pokeable {
    uint256 public pokes;
    bool public broken;

    function poke() external {
        pokes++;
    }

    function breakIt() external {
        broken = true;
    }
}

/// The invariant suite, as Foundry users write it.
contract VaultInvariants is Test {
    Token token;
    Vault vault;
    VaultHandler handler;
    address oracle;

    function setUp() public {
        oracle = makeAddr("oracle");
        vm.mockCall(oracle, abi.encodeWithSelector(IOracle.price.selector), abi.encode(uint256(1e18)));
        uint256 cap = vm.envOr("VAULT_CAP", uint256(1e27));
        token = Token(deployCode("Vault.sol:Token"));
        vault = new Vault(token, IOracle(oracle), cap, makeAddr("guardian"));
        handler = new VaultHandler(vault, token);
        targetContract(address(handler));
        bytes4[] memory selectors = new bytes4[](5);
        selectors[0] = VaultHandler.deposit.selector;
        selectors[1] = VaultHandler.withdraw.selector;
        selectors[2] = VaultHandler.overdraw.selector;
        selectors[3] = VaultHandler.donate.selector;
        selectors[4] = VaultHandler.wait.selector;
        targetSelector(FuzzSelector({addr: address(handler), selectors: selectors}));
    }

    /// The vault can pay every holder what `withdraw` would pay them.
    function invariant_solvent() public view {
        uint256 owed;
        for (uint256 i = 0; i < handler.actorCount(); i++) {
            owed += vault.previewWithdraw(vault.sharesOf(handler.actors(i)));
        }
        assertGe(vault.totalAssets(), owed, "vault cannot pay every holder");
    }

    /// Tokens in the vault are what went in less what came out.
    function invariant_books() public view {
        assertEq(
            token.balanceOf(address(vault)),
            handler.ghostDeposited() + handler.ghostDonated() - handler.ghostWithdrawn(),
            "books"
        );
    }

    /// Broken on purpose, by the first withdrawal that succeeds: shows the
    /// handler's `withdraw` (under `expectEmit` and `expectCall`) goes through.
    function invariant_nothing_withdrawn() public view {
        assertEq(handler.ghostWithdrawn(), 0, "withdrawn");
    }

    /// The oracle answers as setUp mocked it, in every run.
    function invariant_oracle_price() public view {
        assertApproxEqRel(vault.oraclePrice(), 1e18, 0.001e18);
        assertEq(vault.value(), vault.totalAssets());
    }

    /// At the end of each run every holder can take everything out.
    function afterInvariant() public {
        for (uint256 i = 0; i < handler.actorCount(); i++) {
            address actor = handler.actors(i);
            uint256 held = vault.sharesOf(actor);
            if (held == 0) continue;
            vm.prank(actor);
            vault.withdraw(held);
        }
        assertEq(vault.totalShares(), 0);
    }
}

/// The same system, targeted by artifact: the handler through
/// `targetArtifact`, a second contract through an interface
/// (`targetInterface`) that leaves out its other function.
contract VaultArtifactInvariants is Test {
    Vault vault;
    VaultHandler handler;
    Pokeable pokeable;

    function setUp() public {
        address oracle = makeAddr("oracle");
        vm.mockCall(oracle, abi.encodeWithSelector(IOracle.price.selector), abi.encode(uint256(1e18)));
        Token token = new Token();
        vault = new Vault(token, IOracle(oracle), 1e27, makeAddr("guardian"));
        handler = new VaultHandler(vault, token);
        pokeable = new Pokeable();
        targetArtifact("VaultHandler");
        string[] memory poke = new string[](1);
        poke[0] = "IPoke";
        targetInterface(FuzzInterface({addr: address(pokeable), artifacts: poke}));
    }

    /// Broken by rounding, through the handler alone.
    function invariant_solvent() public view {
        uint256 owed;
        for (uint256 i = 0; i < handler.actorCount(); i++) {
            owed += vault.previewWithdraw(vault.sharesOf(handler.actors(i)));
        }
        assertGe(vault.totalAssets(), owed, "vault cannot pay every holder");
    }

    /// Broken by the first `poke` (the interface is a target).
    function invariant_never_poked() public view {
        assertEq(pokeable.pokes(), 0, "poked");
    }

    /// Holds: `breakIt` is not in the interface.
    function invariant_never_broken() public view {
        assertFalse(pokeable.broken(), "broken");
    }

    /// Holds: the vault itself is no target (only VaultHandler's artifact is).
    function invariant_not_paused() public view {
        assertFalse(vault.paused(), "paused");
    }

    /// Checked once, at the end of each run: broken by three pokes in one.
    function afterInvariant() public view {
        assertLt(pokeable.pokes(), 3, "poked three times in one run");
    }
}
