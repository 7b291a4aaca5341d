// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// A constant-product AMM in the style of Uniswap V2: two tokens, a pair that is its own LP token
/// (minimum liquidity locked, swap fee enforced by the product check, a cumulative price), a router
/// with slippage and deadline checks, a fixed-window TWAP oracle and a keeper-filled limit-order
/// book. Time comes from the harness, which a handler advances. `AmmHarness` deploys it all,
/// funds three actors and exposes handlers.

interface IClock {
    function timestamp() external view returns (uint256);
}

/// Minimal ERC20 shared by the two tokens and the pair's LP share.
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
        uint256 allowed = allowance[from][msg.sender];
        if (allowed != type(uint256).max) {
            require(allowed >= amount, "erc20: allowance");
            allowance[from][msg.sender] = allowed - amount;
        }
        _transfer(from, to, amount);
        return true;
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
        balanceOf[from] -= amount;
        totalSupply -= amount;
    }
}

contract AmmToken is ERC20 {
    address public immutable minter = msg.sender;

    function mint(address to, uint256 amount) external {
        require(msg.sender == minter, "token: minter");
        _mint(to, amount);
    }
}

/// The pair is its own LP token.
contract Pair is ERC20 {
    uint256 public constant MINIMUM_LIQUIDITY = 1000;
    address public constant DEAD = address(0xdead);

    AmmToken public immutable token0;
    AmmToken public immutable token1;
    IClock public immutable clock;

    uint256 public reserve0;
    uint256 public reserve1;
    uint256 public blockTimestampLast;
    uint256 public price0CumulativeLast;
    uint256 private unlocked = 1;

    modifier lock() {
        _lock();
        _;
        unlocked = 1;
    }

    function _lock() private {
        require(unlocked == 1, "pair: locked");
        unlocked = 0;
    }

    constructor(AmmToken t0, AmmToken t1, IClock c) {
        (token0, token1, clock) = (t0, t1, c);
    }

    function getReserves() public view returns (uint256, uint256, uint256) {
        return (reserve0, reserve1, blockTimestampLast);
    }

    /// Cumulative price of token0 in token1 (fixed point), extrapolated to now.
    function currentCumulative0() external view returns (uint256 cumulative, uint256 at) {
        at = clock.timestamp();
        cumulative = price0CumulativeLast;
        if (at > blockTimestampLast && reserve0 != 0 && reserve1 != 0) {
            cumulative += (reserve1 * 1e18 / reserve0) * (at - blockTimestampLast);
        }
    }

    function _update(uint256 balance0, uint256 balance1, uint256 r0, uint256 r1) private {
        uint256 now_ = clock.timestamp();
        uint256 elapsed = now_ - blockTimestampLast;
        reserve0 = balance0;
        reserve1 = balance1;
        if (elapsed > 0 && r0 != 0 && r1 != 0) {
            price0CumulativeLast += (reserve1 * 1e18 / reserve0) * elapsed;
        }
        blockTimestampLast = now_;
    }

    function _balances() private view returns (uint256, uint256) {
        return (token0.balanceOf(address(this)), token1.balanceOf(address(this)));
    }

    function mint(address to) external lock returns (uint256 liquidity) {
        (uint256 r0, uint256 r1) = (reserve0, reserve1);
        (uint256 balance0, uint256 balance1) = _balances();
        uint256 amount0 = balance0 - r0;
        uint256 amount1 = balance1 - r1;
        uint256 supply = totalSupply;
        if (supply == 0) {
            liquidity = _sqrt(amount0 * amount1) - MINIMUM_LIQUIDITY;
            _mint(DEAD, MINIMUM_LIQUIDITY);
        } else {
            uint256 l0 = amount0 * supply / r0;
            uint256 l1 = amount1 * supply / r1;
            liquidity = l0 < l1 ? l0 : l1;
        }
        require(liquidity > 0, "pair: mint");
        _mint(to, liquidity);
        _update(balance0, balance1, r0, r1);
    }

    function burn(address to) external lock returns (uint256 amount0, uint256 amount1) {
        (uint256 r0, uint256 r1) = (reserve0, reserve1);
        (uint256 balance0, uint256 balance1) = _balances();
        uint256 liquidity = balanceOf[address(this)];
        uint256 supply = totalSupply;
        amount0 = liquidity * balance0 / supply;
        amount1 = liquidity * balance1 / supply;
        require(amount0 > 0 && amount1 > 0, "pair: burn");
        _burn(address(this), liquidity);
        token0.transfer(to, amount0);
        token1.transfer(to, amount1);
        (balance0, balance1) = _balances();
        _update(balance0, balance1, r0, r1);
    }

    function swap(uint256 amount0Out, uint256 amount1Out, address to) external lock {
        require(amount0Out > 0 || amount1Out > 0, "pair: output");
        (uint256 r0, uint256 r1) = (reserve0, reserve1);
        require(amount0Out < r0 && amount1Out < r1, "pair: liquidity");
        require(to != address(token0) && to != address(token1), "pair: to");
        if (amount0Out > 0) token0.transfer(to, amount0Out);
        if (amount1Out > 0) token1.transfer(to, amount1Out);
        (uint256 balance0, uint256 balance1) = _balances();
        uint256 amount0In = balance0 > r0 - amount0Out ? balance0 - (r0 - amount0Out) : 0;
        uint256 amount1In = balance1 > r1 - amount1Out ? balance1 - (r1 - amount1Out) : 0;
        require(amount0In > 0 || amount1In > 0, "pair: input");
        uint256 adjusted0 = balance0 * 1000 - amount0In * 3;
        uint256 adjusted1 = balance1 * 1000 - amount1In * 3;
        require(adjusted0 * adjusted1 >= r0 * r1 * 1000000, "pair: K");
        _update(balance0, balance1, r0, r1);
    }

    function skim(address to) external lock {
        (uint256 balance0, uint256 balance1) = _balances();
        token0.transfer(to, balance0 - reserve0);
        token1.transfer(to, balance1 - reserve1);
    }

    function sync() external lock {
        (uint256 balance0, uint256 balance1) = _balances();
        _update(balance0, balance1, reserve0, reserve1);
    }

    function _sqrt(uint256 y) private pure returns (uint256 z) {
        if (y > 3) {
            z = y;
            uint256 x = y / 2 + 1;
            while (x < z) {
                z = x;
                x = (y / x + x) / 2;
            }
        } else if (y != 0) {
            z = 1;
        }
    }
}

contract TwapOracle {
    uint256 public constant PERIOD = 1 hours;
    Pair public immutable pair;
    bool public initialized;
    uint256 public cumulativeLast;
    uint256 public timestampLast;
    uint256 public average0;

    constructor(Pair p) { pair = p; }

    function update() external {
        (uint256 cumulative, uint256 at) = pair.currentCumulative0();
        if (!initialized) {
            (uint256 r0, uint256 r1,) = pair.getReserves();
            require(r0 != 0 && r1 != 0, "oracle: empty");
            initialized = true;
        } else {
            uint256 elapsed = at - timestampLast;
            require(elapsed >= PERIOD, "oracle: period");
            average0 = (cumulative - cumulativeLast) / elapsed;
        }
        (cumulativeLast, timestampLast) = (cumulative, at);
    }
}

contract Router {
    Pair public immutable pair;
    AmmToken public immutable token0;
    AmmToken public immutable token1;
    IClock public immutable clock;

    constructor(Pair p, IClock c) {
        (pair, token0, token1, clock) = (p, p.token0(), p.token1(), c);
    }

    modifier ensure(uint256 deadline) {
        _ensure(deadline);
        _;
    }

    function _ensure(uint256 deadline) private view {
        require(deadline >= clock.timestamp(), "router: expired");
    }

    function quote(uint256 amountA, uint256 reserveA, uint256 reserveB) public pure returns (uint256) {
        require(amountA > 0, "router: amount");
        require(reserveA > 0 && reserveB > 0, "router: liquidity");
        return amountA * reserveB / reserveA;
    }

    function getAmountOut(uint256 amountIn, uint256 reserveIn, uint256 reserveOut) public pure returns (uint256) {
        require(amountIn > 0, "router: input");
        require(reserveIn > 0 && reserveOut > 0, "router: liquidity");
        uint256 withFee = amountIn * 997;
        return withFee * reserveOut / (reserveIn * 1000 + withFee);
    }

    function addLiquidity(uint256 amount0Desired, uint256 amount1Desired, uint256 amount0Min, uint256 amount1Min, address to, uint256 deadline)
        external
        ensure(deadline)
        returns (uint256 amount0, uint256 amount1, uint256 liquidity)
    {
        (uint256 r0, uint256 r1,) = pair.getReserves();
        if (r0 == 0 && r1 == 0) {
            (amount0, amount1) = (amount0Desired, amount1Desired);
        } else {
            uint256 amount1Optimal = quote(amount0Desired, r0, r1);
            if (amount1Optimal <= amount1Desired) {
                require(amount1Optimal >= amount1Min, "router: amount1");
                (amount0, amount1) = (amount0Desired, amount1Optimal);
            } else {
                uint256 amount0Optimal = quote(amount1Desired, r1, r0);
                require(amount0Optimal <= amount0Desired, "router: excess0");
                require(amount0Optimal >= amount0Min, "router: amount0");
                (amount0, amount1) = (amount0Optimal, amount1Desired);
            }
        }
        token0.transferFrom(msg.sender, address(pair), amount0);
        token1.transferFrom(msg.sender, address(pair), amount1);
        liquidity = pair.mint(to);
    }

    function removeLiquidity(uint256 liquidity, uint256 amount0Min, uint256 amount1Min, address to, uint256 deadline)
        external
        ensure(deadline)
        returns (uint256 amount0, uint256 amount1)
    {
        pair.transferFrom(msg.sender, address(pair), liquidity);
        (amount0, amount1) = pair.burn(to);
        require(amount0 >= amount0Min && amount1 >= amount1Min, "router: amount");
    }

    function swapExactIn(uint256 amountIn, uint256 amountOutMin, bool zeroForOne, address to, uint256 deadline)
        external
        ensure(deadline)
        returns (uint256 amountOut)
    {
        (uint256 r0, uint256 r1,) = pair.getReserves();
        amountOut = zeroForOne ? getAmountOut(amountIn, r0, r1) : getAmountOut(amountIn, r1, r0);
        require(amountOut >= amountOutMin, "router: slippage");
        (zeroForOne ? token0 : token1).transferFrom(msg.sender, address(pair), amountIn);
        if (zeroForOne) pair.swap(0, amountOut, to);
        else pair.swap(amountOut, 0, to);
    }
}

/// Limit orders: a maker escrows the input, a keeper fills the order through
/// the router while it is live; once it has expired the maker takes the
/// escrow back.
contract LimitOrderBook {
    uint256 public constant MIN_VALIDITY = 1 hours;
    uint256 public constant MAX_VALIDITY = 30 days;

    struct Order {
        address maker;
        bool zeroForOne;
        uint256 amountIn;
        uint256 minOut;
        uint256 deadline;
        bool filled;
        bool cancelled;
    }

    Router public immutable router;
    IClock public immutable clock;
    AmmToken public immutable token0;
    AmmToken public immutable token1;
    Order[] public orders;

    constructor(Router r, IClock c) {
        (router, clock, token0, token1) = (r, c, r.token0(), r.token1());
        token0.approve(address(r), type(uint256).max);
        token1.approve(address(r), type(uint256).max);
    }

    function orderCount() external view returns (uint256) { return orders.length; }

    function place(bool zeroForOne, uint256 amountIn, uint256 minOut, uint256 validFor) external returns (uint256 id) {
        require(amountIn > 0, "book: zero amount");
        require(validFor >= MIN_VALIDITY && validFor <= MAX_VALIDITY, "book: validity");
        (zeroForOne ? token0 : token1).transferFrom(msg.sender, address(this), amountIn);
        id = orders.length;
        orders.push(Order(msg.sender, zeroForOne, amountIn, minOut, clock.timestamp() + validFor, false, false));
    }

    function execute(uint256 id) external returns (uint256 amountOut) {
        Order storage o = orders[id];
        require(!o.filled, "book: filled");
        require(clock.timestamp() <= o.deadline, "book: expired");
        o.filled = true;
        amountOut = router.swapExactIn(o.amountIn, o.minOut, o.zeroForOne, o.maker, o.deadline);
    }

    function cancel(uint256 id) external {
        Order storage o = orders[id];
        require(msg.sender == o.maker, "book: not maker");
        require(!o.filled && !o.cancelled, "book: closed");
        require(clock.timestamp() >= o.deadline, "book: live");
        o.cancelled = true;
        (o.zeroForOne ? token0 : token1).transfer(o.maker, o.amountIn);
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

contract AmmHarness {
    uint256 internal constant FUNDING = 1_000_000 ether;
    uint256 internal constant MAX_ORDERS = 12;

    uint256 public timestamp = block.timestamp;
    AmmToken public token0;
    AmmToken public token1;
    Pair public pair;
    Router public router;
    TwapOracle public oracle;
    LimitOrderBook public book;
    Actor[3] public actors;

    // ghost: product of the reserves after the last handler; set when a
    // handler other than a removal lowered it
    uint256 internal ghostK;
    bool internal ghostKDropped;
    // ghost: the last round trip made on a pool without pending donations
    uint256 internal ghostTripIn;
    uint256 internal ghostTripOut;
    // ghost: spot prices held for a positive time in the current oracle window
    uint256 internal ghostSpot;
    uint256 internal ghostSpotSince;
    uint256 internal ghostHeldMin = type(uint256).max;
    uint256 internal ghostHeldMax;
    // ghost: the last TWAP the oracle produced and the range it had to lie in
    bool internal ghostTwapChecked;
    uint256 internal ghostTwap;
    uint256 internal ghostTwapMin;
    uint256 internal ghostTwapMax;

    constructor() {
        token0 = new AmmToken();
        token1 = new AmmToken();
        pair = new Pair(token0, token1, IClock(address(this)));
        router = new Router(pair, IClock(address(this)));
        oracle = new TwapOracle(pair);
        book = new LimitOrderBook(router, IClock(address(this)));
        address[5] memory tokens = [address(token0), address(token1), address(token0), address(token1), address(pair)];
        address[5] memory spenders = [address(router), address(router), address(book), address(book), address(router)];
        for (uint256 i = 0; i < 3; i++) {
            Actor a = new Actor();
            actors[i] = a;
            token0.mint(address(a), FUNDING);
            token1.mint(address(a), FUNDING);
            for (uint256 j = 0; j < 5; j++) {
                a.exec(tokens[j], abi.encodeCall(ERC20.approve, (spenders[j], type(uint256).max)));
            }
        }
    }

    // ---------------------------------------------------------------- helpers

    function _actor(uint8 idx) internal view returns (Actor) {
        return actors[idx % 3];
    }

    function _tokenIn(bool zeroForOne) internal view returns (AmmToken) {
        return zeroForOne ? token0 : token1;
    }

    function _swapExactIn(Actor act, bool zeroForOne, uint256 amountIn) internal returns (uint256) {
        bytes memory ret = act.exec(
            address(router), abi.encodeCall(Router.swapExactIn, (amountIn, 0, zeroForOne, address(act), timestamp))
        );
        return abi.decode(ret, (uint256));
    }

    /// Bookkeeping after every handler that may move the reserves.
    function _after(bool removal) internal {
        (uint256 r0, uint256 r1,) = pair.getReserves();
        uint256 k = r0 * r1;
        if (!removal && k < ghostK) ghostKDropped = true;
        ghostK = k;
        uint256 spot = (r0 == 0 || r1 == 0) ? 0 : r1 * 1e18 / r0;
        if (spot != ghostSpot) {
            if (timestamp > ghostSpotSince) _held(ghostSpot);
            ghostSpot = spot;
            ghostSpotSince = timestamp;
        }
    }

    function _held(uint256 spot) internal {
        if (spot < ghostHeldMin) ghostHeldMin = spot;
        if (spot > ghostHeldMax) ghostHeldMax = spot;
    }

    // --------------------------------------------------------------- handlers

    function warp(uint32 secs) public {
        timestamp += secs;
    }

    function addLiquidity(uint8 actorIdx, uint256 amount0, uint256 amount1) public {
        Actor act = _actor(actorIdx);
        amount0 = amount0 % (token0.balanceOf(address(act)) + 1);
        amount1 = amount1 % (token1.balanceOf(address(act)) + 1);
        act.exec(address(router), abi.encodeCall(Router.addLiquidity, (amount0, amount1, 0, 0, address(act), timestamp)));
        _after(false);
    }

    function removeLiquidity(uint8 actorIdx, uint256 liquidity) public {
        Actor act = _actor(actorIdx);
        liquidity = liquidity % (pair.balanceOf(address(act)) + 1);
        act.exec(address(router), abi.encodeCall(Router.removeLiquidity, (liquidity, 0, 0, address(act), timestamp)));
        _after(true);
    }

    function swapExactIn(uint8 actorIdx, bool zeroForOne, uint256 amountIn) public {
        Actor act = _actor(actorIdx);
        _swapExactIn(act, zeroForOne, amountIn % (_tokenIn(zeroForOne).balanceOf(address(act)) + 1));
        _after(false);
    }

    /// Swap in, then swap the whole output straight back.
    function roundTrip(uint8 actorIdx, bool zeroForOne, uint256 amountIn) public {
        Actor act = _actor(actorIdx);
        amountIn = amountIn % (_tokenIn(zeroForOne).balanceOf(address(act)) + 1);
        (uint256 r0, uint256 r1,) = pair.getReserves();
        bool clean = token0.balanceOf(address(pair)) == r0 && token1.balanceOf(address(pair)) == r1;
        uint256 back = _swapExactIn(act, !zeroForOne, _swapExactIn(act, zeroForOne, amountIn));
        if (clean) (ghostTripIn, ghostTripOut) = (amountIn, back);
        _after(false);
    }

    function donate(uint8 actorIdx, bool inToken0, uint256 amount) public {
        Actor act = _actor(actorIdx);
        AmmToken t = _tokenIn(inToken0);
        amount = amount % (t.balanceOf(address(act)) + 1);
        act.exec(address(t), abi.encodeCall(ERC20.transfer, (address(pair), amount)));
    }

    function sync() public {
        pair.sync();
        _after(false);
    }

    function skim(uint8 actorIdx) public {
        pair.skim(address(_actor(actorIdx)));
        _after(false);
    }

    function oracleUpdate() public {
        bool wasInitialized = oracle.initialized();
        oracle.update();
        if (wasInitialized) {
            if (timestamp > ghostSpotSince) _held(ghostSpot);
            (ghostTwapChecked, ghostTwap) = (true, oracle.average0());
            (ghostTwapMin, ghostTwapMax) = (ghostHeldMin, ghostHeldMax);
        }
        (ghostHeldMin, ghostHeldMax, ghostSpotSince) = (type(uint256).max, 0, timestamp);
    }

    function placeOrder(uint8 actorIdx, bool zeroForOne, uint256 amountIn, uint16 slippageBps, uint32 validFor) public {
        require(book.orderCount() < MAX_ORDERS, "harness: cap");
        Actor act = _actor(actorIdx);
        amountIn = amountIn % (_tokenIn(zeroForOne).balanceOf(address(act)) + 1);
        (uint256 r0, uint256 r1,) = pair.getReserves();
        uint256 quoted = zeroForOne ? router.getAmountOut(amountIn, r0, r1) : router.getAmountOut(amountIn, r1, r0);
        uint256 minOut = quoted * (10000 - slippageBps % 10001) / 10000;
        uint256 validity = book.MIN_VALIDITY() + uint256(validFor) % (book.MAX_VALIDITY() - book.MIN_VALIDITY() + 1);
        act.exec(address(book), abi.encodeCall(LimitOrderBook.place, (zeroForOne, amountIn, minOut, validity)));
    }

    function executeOrder(uint8 orderIdx) public {
        uint256 n = book.orderCount();
        require(n > 0, "harness: none");
        book.execute(orderIdx % n);
        _after(false);
    }

    function cancelOrder(uint8 orderIdx) public {
        uint256 n = book.orderCount();
        require(n > 0, "harness: none");
        uint256 id = orderIdx % n;
        (address maker,,,,,,) = book.orders(id);
        Actor(maker).exec(address(book), abi.encodeCall(LimitOrderBook.cancel, (id)));
    }

    // ------------------------------------------------------------- properties

    /// The product of the reserves never falls, except when liquidity is removed.
    function echidna_k_never_decreases() public view returns (bool) {
        return !ghostKDropped;
    }

    /// The pair always holds at least its recorded reserves.
    function echidna_reserves_backed() public view returns (bool) {
        return token0.balanceOf(address(pair)) >= pair.reserve0() && token1.balanceOf(address(pair)) >= pair.reserve1();
    }

    /// Every LP share is held by an actor, the dead address or the pair itself.
    function echidna_lp_supply_accounted() public view returns (bool) {
        uint256 sum = pair.balanceOf(pair.DEAD()) + pair.balanceOf(address(pair));
        for (uint256 i = 0; i < 3; i++) {
            sum += pair.balanceOf(address(actors[i]));
        }
        return sum == pair.totalSupply();
    }

    /// Swapping in and straight back never returns more than was put in.
    function echidna_no_free_round_trip() public view returns (bool) {
        return ghostTripOut <= ghostTripIn;
    }

    /// A TWAP lies within the spot prices that held during its window.
    function echidna_twap_within_observed_range() public view returns (bool) {
        return !ghostTwapChecked || (ghostTwap >= ghostTwapMin && ghostTwap <= ghostTwapMax);
    }

    /// The order book holds the escrow of every open order.
    function echidna_order_book_solvent() public view returns (bool) {
        uint256[2] memory open;
        uint256 n = book.orderCount();
        for (uint256 i = 0; i < n; i++) {
            (, bool zeroForOne, uint256 amountIn,,, bool filled, bool cancelled) = book.orders(i);
            if (!filled && !cancelled) open[zeroForOne ? 0 : 1] += amountIn;
        }
        return token0.balanceOf(address(book)) >= open[0] && token1.balanceOf(address(book)) >= open[1];
    }
}
