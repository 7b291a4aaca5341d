// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// A share-based vault in the style of ERC4626 with a Yearn-like strategy: deposit, mint, withdraw
/// and redeem with rounding in the vault's favour, a deposit limit, one strategy the manager lends
/// idle assets to, harvests that report profit (performance fee in shares, profit unlocked over
/// time) or loss, and a withdrawal queue: a request burns shares and sets assets aside, claimable
/// after a cooldown within a window; a lapsed request is folded back into shares.
/// Time comes from the harness, which a handler advances. `VaultHarness` deploys it all, funds
/// three actors and exposes handlers.

interface IClock {
    function timestamp() external view returns (uint256);
}

abstract contract ERC20 {
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    function approve(address spender, uint256 amount) external returns (bool) {
        allowance[msg.sender][spender] = amount;
        return true;
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        _transfer(msg.sender, to, amount);
        return true;
    }

    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        _spendAllowance(from, msg.sender, amount);
        _transfer(from, to, amount);
        return true;
    }

    function _spendAllowance(address owner, address spender, uint256 amount) internal {
        uint256 allowed = allowance[owner][spender];
        if (allowed != type(uint256).max) {
            require(allowed >= amount, "erc20: allowance");
            allowance[owner][spender] = allowed - amount;
        }
    }

    function _transfer(address from, address to, uint256 amount) internal {
        require(balanceOf[from] >= amount, "erc20: balance");
        balanceOf[from] -= amount;
        balanceOf[to] += amount;
    }

    function _mint(address to, uint256 amount) internal {
        totalSupply += amount;
        balanceOf[to] += amount;
    }

    function _burn(address from, uint256 amount) internal {
        require(balanceOf[from] >= amount, "erc20: burn");
        balanceOf[from] -= amount;
        totalSupply -= amount;
    }
}

contract Asset is ERC20 {
    address public immutable minter = msg.sender;

    function mint(address to, uint256 amount) external {
        require(msg.sender == minter, "asset: minter");
        _mint(to, amount);
    }
}

/// Holds what the vault lends it; gains arrive as transfers, losses leave to a sink.
contract Strategy {
    Asset public immutable asset;
    address public immutable vault;
    address public immutable keeper;

    constructor(Asset a, address v, address k) {
        (asset, vault, keeper) = (a, v, k);
    }

    function totalAssets() public view returns (uint256) {
        return asset.balanceOf(address(this));
    }

    function withdraw(uint256 amount) external returns (uint256 out) {
        require(msg.sender == vault, "strategy: vault");
        uint256 balance = totalAssets();
        out = amount < balance ? amount : balance;
        asset.transfer(vault, out);
    }

    function realizeLoss(uint256 amount) external {
        require(msg.sender == keeper, "strategy: keeper");
        asset.transfer(address(0xdead), amount);
    }
}

contract ShareVault is ERC20 {
    uint256 public constant FEE_BPS = 1000;
    uint256 public constant PROFIT_UNLOCK = 6 hours;
    uint256 public constant COOLDOWN = 1 days;
    uint256 public constant CLAIM_WINDOW = 2 days;
    uint256 public constant DEPOSIT_LIMIT = 2_000_000 ether;

    struct Request {
        address owner;
        uint256 assets;
        uint256 claimableAt;
        uint256 expiresAt;
        bool claimed;
        bool reclaimed;
    }

    Asset public immutable asset;
    IClock public immutable clock;
    address public immutable manager;
    address public immutable feeRecipient;
    Strategy public strategy;
    uint256 public totalDebt;
    uint256 public lockedAtReport;
    uint256 public lastReport;
    uint256 public totalQueued;
    Request[] public requests;

    constructor(Asset a, IClock c, address fees) {
        (asset, clock, manager, feeRecipient) = (a, c, msg.sender, fees);
    }

    function requestCount() external view returns (uint256) {
        return requests.length;
    }

    function setStrategy(Strategy s) external {
        require(msg.sender == manager && address(strategy) == address(0), "vault: strategy");
        strategy = s;
    }

    // ------------------------------------------------------------ accounting

    function lockedProfit() public view returns (uint256) {
        uint256 elapsed = clock.timestamp() - lastReport;
        if (elapsed >= PROFIT_UNLOCK) return 0;
        return lockedAtReport * (PROFIT_UNLOCK - elapsed) / PROFIT_UNLOCK;
    }

    /// Assets that back the shares: idle and lent, less profit still locked and assets set aside
    /// for withdrawal requests.
    function totalAssets() public view returns (uint256) {
        return asset.balanceOf(address(this)) + totalDebt - lockedProfit() - totalQueued;
    }

    function convertToShares(uint256 assets) public view returns (uint256) {
        uint256 supply = totalSupply;
        return supply == 0 ? assets : assets * supply / totalAssets();
    }

    function convertToAssets(uint256 shares) public view returns (uint256) {
        uint256 supply = totalSupply;
        return supply == 0 ? shares : shares * totalAssets() / supply;
    }

    function previewMint(uint256 shares) public view returns (uint256) {
        uint256 supply = totalSupply;
        return supply == 0 ? shares : _divUp(shares * totalAssets(), supply);
    }

    function previewWithdraw(uint256 assets) public view returns (uint256) {
        uint256 supply = totalSupply;
        return supply == 0 ? assets : _divUp(assets * supply, totalAssets());
    }

    function maxDeposit(address) public view returns (uint256) {
        uint256 assets = totalAssets();
        return assets >= DEPOSIT_LIMIT ? 0 : DEPOSIT_LIMIT - assets;
    }

    function _divUp(uint256 x, uint256 d) internal pure returns (uint256) {
        return x == 0 ? 0 : (x - 1) / d + 1;
    }

    // ------------------------------------------------------------ user flows

    function deposit(uint256 assets, address receiver) external returns (uint256 shares) {
        require(assets <= maxDeposit(receiver), "vault: deposit limit");
        shares = convertToShares(assets);
        require(shares != 0, "vault: zero shares");
        asset.transferFrom(msg.sender, address(this), assets);
        _mint(receiver, shares);
    }

    function mint(uint256 shares, address receiver) external returns (uint256 assets) {
        assets = previewMint(shares);
        require(assets <= maxDeposit(receiver), "vault: deposit limit");
        asset.transferFrom(msg.sender, address(this), assets);
        _mint(receiver, shares);
    }

    function withdraw(uint256 assets, address receiver, address owner) external returns (uint256 shares) {
        shares = previewWithdraw(assets);
        if (msg.sender != owner) _spendAllowance(owner, msg.sender, shares);
        _burn(owner, shares);
        _ensureIdle(totalQueued + assets);
        asset.transfer(receiver, assets);
    }

    function redeem(uint256 shares, address receiver, address owner) external returns (uint256 assets) {
        assets = convertToAssets(shares);
        require(assets != 0, "vault: zero assets");
        if (msg.sender != owner) _spendAllowance(owner, msg.sender, shares);
        _burn(owner, shares);
        _ensureIdle(totalQueued + assets);
        asset.transfer(receiver, assets);
    }

    /// Queue a redemption: the shares burn now, their assets are set aside at today's price.
    function requestRedeem(uint256 shares) external returns (uint256 id) {
        uint256 assets = convertToAssets(shares);
        require(assets != 0, "vault: zero assets");
        _burn(msg.sender, shares);
        _ensureIdle(totalQueued + assets);
        totalQueued += assets;
        uint256 claimableAt = clock.timestamp() + COOLDOWN;
        id = requests.length;
        requests.push(Request(msg.sender, assets, claimableAt, claimableAt + CLAIM_WINDOW, false, false));
    }

    function claim(uint256 id) external {
        Request storage r = requests[id];
        require(msg.sender == r.owner, "vault: not owner");
        uint256 now_ = clock.timestamp();
        require(now_ >= r.claimableAt && now_ <= r.expiresAt, "vault: not claimable");
        require(!r.claimed, "vault: claimed");
        r.claimed = true;
        _release(r.assets);
        asset.transfer(r.owner, r.assets);
    }

    /// Once its window has passed, an unclaimed request turns back into shares at today's price.
    function reclaim(uint256 id) external {
        Request storage r = requests[id];
        require(msg.sender == r.owner, "vault: not owner");
        require(clock.timestamp() >= r.expiresAt, "vault: window open");
        require(!r.claimed && !r.reclaimed, "vault: settled");
        r.reclaimed = true;
        uint256 shares = convertToShares(r.assets);
        _release(r.assets);
        _mint(r.owner, shares);
    }

    function _release(uint256 assets) internal {
        totalQueued = totalQueued > assets ? totalQueued - assets : 0;
    }

    function _ensureIdle(uint256 needed) internal {
        uint256 idle = asset.balanceOf(address(this));
        if (idle < needed) {
            uint256 want = needed - idle;
            if (want > totalDebt) want = totalDebt;
            totalDebt -= strategy.withdraw(want);
        }
        require(asset.balanceOf(address(this)) >= needed, "vault: liquidity");
    }

    // -------------------------------------------------------------- strategy

    function allocate(uint256 amount) external {
        require(msg.sender == manager, "vault: manager");
        require(amount <= asset.balanceOf(address(this)) - totalQueued, "vault: idle");
        totalDebt += amount;
        asset.transfer(address(strategy), amount);
    }

    /// Books the strategy's result: a gain raises the debt, pays the fee in shares and is locked,
    /// unlocking over time; a loss is absorbed by locked profit first, then by the share price.
    function harvest() external {
        uint256 current = strategy.totalAssets();
        uint256 debt = totalDebt;
        uint256 locked = lockedProfit();
        lastReport = clock.timestamp();
        if (current > debt) {
            uint256 gain = current - debt;
            uint256 fee = gain * FEE_BPS / 10000;
            lockedAtReport = locked + gain - fee;
            totalDebt = current;
            uint256 supply = totalSupply;
            uint256 base = totalAssets() - fee;
            _mint(feeRecipient, (supply == 0 || base == 0) ? fee : fee * supply / base);
        } else {
            uint256 loss = debt - current;
            if (loss < locked) {
                // absorbed by profit that is still locked: the share price does not move
                lockedAtReport = locked - loss;
            } else {
                lockedAtReport = 0;
                totalDebt = current;
            }
        }
    }
}

/// A user: the harness acts through it; reverts bubble up unchanged.
contract Actor {
    address public immutable harness = msg.sender;

    function exec(address target, bytes calldata data) external returns (bytes memory) {
        require(msg.sender == harness, "actor: harness");
        (bool ok, bytes memory ret) = target.call(data);
        if (!ok) {
            assembly {
                revert(add(ret, 32), mload(ret))
            }
        }
        return ret;
    }
}

contract VaultHarness {
    uint256 internal constant FUNDING = 1_000_000 ether;
    uint256 internal constant MAX_REQUESTS = 12;
    address internal constant FEES = address(0xfee);

    uint256 public timestamp = block.timestamp;
    Asset public asset;
    ShareVault public vault;
    Strategy public strategy;
    Actor[3] public actors;

    // ghost: totals and supply before the current handler; set when the handler may book a loss
    uint256 internal ghostPreAssets;
    uint256 internal ghostPreSupply;
    bool internal ghostLossBooked;
    // ghost: a strategy loss not yet reported by a harvest
    bool internal ghostLossPending;
    // ghost: the last deposit
    uint256 internal ghostDepositAssets;
    uint256 internal ghostDepositShares;
    // ghost: set when a user flow rounded in the user's favour
    bool internal ghostUserFavoured;
    // ghost: set when a harvest minted fee shares worth more than the fee on its gain
    bool internal ghostFeeOvercharged;

    constructor() {
        asset = new Asset();
        vault = new ShareVault(asset, IClock(address(this)), FEES);
        strategy = new Strategy(asset, address(vault), address(this));
        vault.setStrategy(strategy);
        for (uint256 i = 0; i < 3; i++) {
            Actor a = new Actor();
            actors[i] = a;
            asset.mint(address(a), FUNDING);
            a.exec(address(asset), abi.encodeCall(ERC20.approve, (address(vault), type(uint256).max)));
        }
    }

    // ---------------------------------------------------------------- helpers

    function _actor(uint8 idx) internal view returns (Actor) {
        return actors[idx % 3];
    }

    function _pre() internal {
        (ghostPreAssets, ghostPreSupply, ghostLossBooked) = (vault.totalAssets(), vault.totalSupply(), false);
    }

    function _call(Actor act, bytes memory data) internal {
        act.exec(address(vault), data);
    }

    // --------------------------------------------------------------- handlers

    function warp(uint32 secs) public {
        _pre();
        timestamp += secs;
    }

    function deposit(uint8 actorIdx, uint256 assets) public {
        _pre();
        Actor act = _actor(actorIdx);
        assets = assets % (asset.balanceOf(address(act)) + 1);
        uint256 before = vault.balanceOf(address(act));
        _call(act, abi.encodeCall(ShareVault.deposit, (assets, address(act))));
        uint256 shares = vault.balanceOf(address(act)) - before;
        (ghostDepositAssets, ghostDepositShares) = (assets, shares);
        if (ghostPreSupply > 0 && shares * ghostPreAssets > assets * ghostPreSupply) ghostUserFavoured = true;
    }

    function mint(uint8 actorIdx, uint256 shares) public {
        _pre();
        Actor act = _actor(actorIdx);
        uint256 before = asset.balanceOf(address(act));
        shares = shares % (before + 1);
        _call(act, abi.encodeCall(ShareVault.mint, (shares, address(act))));
        uint256 paid = before - asset.balanceOf(address(act));
        if (ghostPreSupply > 0 && paid * ghostPreSupply < shares * ghostPreAssets) ghostUserFavoured = true;
    }

    function withdraw(uint8 actorIdx, uint256 assets) public {
        _pre();
        Actor act = _actor(actorIdx);
        assets = assets % (vault.convertToAssets(vault.balanceOf(address(act))) + 1);
        uint256 before = vault.balanceOf(address(act));
        _call(act, abi.encodeCall(ShareVault.withdraw, (assets, address(act), address(act))));
        uint256 burned = before - vault.balanceOf(address(act));
        if (burned * ghostPreAssets < assets * ghostPreSupply) ghostUserFavoured = true;
    }

    function redeem(uint8 actorIdx, uint256 shares) public {
        _pre();
        Actor act = _actor(actorIdx);
        shares = shares % (vault.balanceOf(address(act)) + 1);
        uint256 before = asset.balanceOf(address(act));
        _call(act, abi.encodeCall(ShareVault.redeem, (shares, address(act), address(act))));
        uint256 got = asset.balanceOf(address(act)) - before;
        if (got * ghostPreSupply > shares * ghostPreAssets) ghostUserFavoured = true;
    }

    function donate(uint8 actorIdx, uint256 assets) public {
        _pre();
        Actor act = _actor(actorIdx);
        assets = assets % (asset.balanceOf(address(act)) + 1);
        act.exec(address(asset), abi.encodeCall(ERC20.transfer, (address(vault), assets)));
    }

    function allocate(uint256 amount) public {
        _pre();
        vault.allocate(amount % (asset.balanceOf(address(vault)) - vault.totalQueued() + 1));
    }

    function strategyGain(uint256 amount) public {
        _pre();
        asset.mint(address(strategy), amount % (strategy.totalAssets() + 1));
    }

    function strategyLoss(uint256 amount) public {
        _pre();
        amount = amount % (strategy.totalAssets() + 1);
        strategy.realizeLoss(amount);
        if (amount > 0) ghostLossPending = true;
    }

    function harvest() public {
        _pre();
        uint256 current = strategy.totalAssets();
        uint256 debt = vault.totalDebt();
        uint256 feeBefore = vault.balanceOf(FEES);
        uint256 supplyBefore = vault.totalSupply();
        vault.harvest();
        ghostLossBooked = current < debt;
        ghostLossPending = false;
        uint256 feeShares = vault.balanceOf(FEES) - feeBefore;
        uint256 fee = current > debt ? (current - debt) * vault.FEE_BPS() / 10000 : 0;
        if (supplyBefore > 0 && feeShares * vault.totalAssets() > fee * vault.totalSupply()) ghostFeeOvercharged = true;
    }

    function requestRedeem(uint8 actorIdx, uint256 shares) public {
        _pre();
        require(vault.requestCount() < MAX_REQUESTS, "harness: cap");
        Actor act = _actor(actorIdx);
        shares = shares % (vault.balanceOf(address(act)) + 1);
        uint256 owed = vault.convertToAssets(shares);
        _call(act, abi.encodeCall(ShareVault.requestRedeem, (shares)));
        if (owed * ghostPreSupply > shares * ghostPreAssets) ghostUserFavoured = true;
    }

    function claim(uint8 requestIdx) public {
        _pre();
        uint256 n = vault.requestCount();
        require(n > 0, "harness: none");
        uint256 id = requestIdx % n;
        (address owner,,,,,) = vault.requests(id);
        _call(Actor(owner), abi.encodeCall(ShareVault.claim, (id)));
    }

    function reclaim(uint8 requestIdx) public {
        _pre();
        uint256 n = vault.requestCount();
        require(n > 0, "harness: none");
        uint256 id = requestIdx % n;
        (address owner,,,,,) = vault.requests(id);
        _call(Actor(owner), abi.encodeCall(ShareVault.reclaim, (id)));
    }

    // ------------------------------------------------------------- properties

    /// The share price never falls, except through a harvest that books a loss.
    function echidna_share_price_monotonic() public view returns (bool) {
        uint256 supply = vault.totalSupply();
        if (ghostLossBooked || ghostPreSupply == 0 || supply == 0) return true;
        return vault.totalAssets() * ghostPreSupply >= ghostPreAssets * supply;
    }

    /// A deposit of assets always mints shares.
    function echidna_deposit_mints_shares() public view returns (bool) {
        return ghostDepositAssets == 0 || ghostDepositShares > 0;
    }

    /// Once losses are reported, idle and lent assets cover the queue and every share.
    function echidna_solvent() public view returns (bool) {
        if (ghostLossPending) return true;
        uint256 held = asset.balanceOf(address(vault)) + strategy.totalAssets();
        return held >= vault.totalQueued() + vault.totalAssets();
    }

    /// Deposits, mints, withdrawals, redemptions and requests round in the vault's favour.
    function echidna_rounding_favors_vault() public view returns (bool) {
        return !ghostUserFavoured;
    }

    /// Every share is held by an actor or the fee recipient.
    function echidna_share_supply_accounted() public view returns (bool) {
        uint256 sum = vault.balanceOf(FEES);
        for (uint256 i = 0; i < 3; i++) {
            sum += vault.balanceOf(address(actors[i]));
        }
        return sum == vault.totalSupply();
    }

    /// The performance fee never takes more than its cut of the reported gain.
    function echidna_fee_within_cut() public view returns (bool) {
        return !ghostFeeOvercharged;
    }
}
