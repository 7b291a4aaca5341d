// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// Lending: a compact money-market protocol in one file.
///
/// The protocol has fungible test assets, a clock the deployer advances, a
/// price oracle with staleness and deviation guards, a kinked interest-rate
/// model, one share-token market per asset (supply for shares at an exchange
/// rate, borrow against a global borrow index, reserves cut from interest),
/// and a risk engine (markets entered as collateral, collateral factors,
/// close factor, liquidation incentive, borrow and supply caps, pauses, and
/// an isolation mode for a risky collateral asset).
///
/// LendingHarness deploys the protocol, lists the markets, funds a handful of
/// actor proxies and exposes handler functions with fuzzer-friendly
/// arguments. Handlers record ghost state; the echidna properties read it.

/// Fixed-point helpers. Every mantissa is scaled by EXP_SCALE.
library LendMath {
    uint256 internal constant EXP_SCALE = 1e18;
    uint256 internal constant BPS = 10_000;

    /// The product of two mantissas, truncated.
    function mulExp(uint256 a, uint256 b) internal pure returns (uint256) {
        return (a * b) / EXP_SCALE;
    }

    /// The quotient of two mantissas, truncated.
    function divExp(uint256 a, uint256 b) internal pure returns (uint256) {
        require(b != 0, "math: division by zero");
        return (a * EXP_SCALE) / b;
    }

    /// A mantissa applied to a plain amount, truncated.
    function mulScalarTruncate(uint256 expMantissa, uint256 scalar) internal pure returns (uint256) {
        return (expMantissa * scalar) / EXP_SCALE;
    }

    /// A mantissa applied to a plain amount, truncated, then added to another amount.
    function mulScalarTruncateAddUInt(uint256 expMantissa, uint256 scalar, uint256 addend)
        internal
        pure
        returns (uint256)
    {
        return mulScalarTruncate(expMantissa, scalar) + addend;
    }

    /// A plain amount divided by a mantissa, truncated.
    function divScalarByExpTruncate(uint256 scalar, uint256 expMantissa) internal pure returns (uint256) {
        require(expMantissa != 0, "math: division by zero");
        return (scalar * EXP_SCALE) / expMantissa;
    }

    /// A plain amount divided by a mantissa, rounded up.
    function divScalarByExpRoundUp(uint256 scalar, uint256 expMantissa) internal pure returns (uint256) {
        require(expMantissa != 0, "math: division by zero");
        uint256 numerator = scalar * EXP_SCALE;
        return (numerator + expMantissa - 1) / expMantissa;
    }

    /// A share of an amount in basis points, truncated.
    function bpsOf(uint256 amount, uint256 bps) internal pure returns (uint256) {
        return (amount * bps) / BPS;
    }

    function min(uint256 a, uint256 b) internal pure returns (uint256) {
        return a < b ? a : b;
    }

    function max(uint256 a, uint256 b) internal pure returns (uint256) {
        return a > b ? a : b;
    }

    function absDiff(uint256 a, uint256 b) internal pure returns (uint256) {
        return a > b ? a - b : b - a;
    }
}

/// A plain fungible token with a minter, used for every underlying asset.
contract LendToken {
    string public name;
    string public symbol;
    uint8 public immutable decimals;
    uint256 public totalSupply;
    address public minter;

    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);
    event MinterChanged(address indexed previousMinter, address indexed newMinter);

    constructor(string memory name_, string memory symbol_, uint8 decimals_) {
        name = name_;
        symbol = symbol_;
        decimals = decimals_;
        minter = msg.sender;
        emit MinterChanged(address(0), msg.sender);
    }

    modifier onlyMinter() {
        require(msg.sender == minter, "token: caller is not the minter");
        _;
    }

    function setMinter(address newMinter) external onlyMinter {
        require(newMinter != address(0), "token: minter is the zero address");
        emit MinterChanged(minter, newMinter);
        minter = newMinter;
    }

    function approve(address spender, uint256 amount) external returns (bool) {
        _approve(msg.sender, spender, amount);
        return true;
    }

    function increaseAllowance(address spender, uint256 addedValue) external returns (bool) {
        _approve(msg.sender, spender, allowance[msg.sender][spender] + addedValue);
        return true;
    }

    function decreaseAllowance(address spender, uint256 subtractedValue) external returns (bool) {
        uint256 current = allowance[msg.sender][spender];
        require(current >= subtractedValue, "token: decreased allowance below zero");
        _approve(msg.sender, spender, current - subtractedValue);
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

    function mint(address to, uint256 amount) external onlyMinter {
        require(to != address(0), "token: mint to the zero address");
        totalSupply += amount;
        balanceOf[to] += amount;
        emit Transfer(address(0), to, amount);
    }

    function burn(uint256 amount) external {
        uint256 balance = balanceOf[msg.sender];
        require(balance >= amount, "token: burn amount exceeds balance");
        balanceOf[msg.sender] = balance - amount;
        totalSupply -= amount;
        emit Transfer(msg.sender, address(0), amount);
    }

    function _transfer(address from, address to, uint256 amount) internal {
        require(from != address(0), "token: transfer from the zero address");
        require(to != address(0), "token: transfer to the zero address");
        uint256 fromBalance = balanceOf[from];
        require(fromBalance >= amount, "token: transfer amount exceeds balance");
        balanceOf[from] = fromBalance - amount;
        balanceOf[to] += amount;
        emit Transfer(from, to, amount);
    }

    function _approve(address owner, address spender, uint256 amount) internal {
        require(owner != address(0), "token: approve from the zero address");
        require(spender != address(0), "token: approve to the zero address");
        allowance[owner][spender] = amount;
        emit Approval(owner, spender, amount);
    }

    function _spendAllowance(address owner, address spender, uint256 amount) internal {
        uint256 current = allowance[owner][spender];
        if (current != type(uint256).max) {
            require(current >= amount, "token: insufficient allowance");
            allowance[owner][spender] = current - amount;
        }
    }
}

/// The protocol's notion of time. Its keeper moves it forward; nothing moves
/// it back. Markets accrue interest and the oracle ages prices against it.
contract Clock {
    address public immutable keeper;
    uint256 public immutable genesis;
    uint256 public current;

    event Advanced(uint256 from, uint256 to);

    constructor(uint256 start) {
        keeper = msg.sender;
        genesis = start;
        current = start;
    }

    function advance(uint256 secondsForward) external returns (uint256) {
        require(msg.sender == keeper, "clock: caller is not the keeper");
        uint256 previous = current;
        current = previous + secondsForward;
        emit Advanced(previous, current);
        return current;
    }

    function elapsed() external view returns (uint256) {
        return current - genesis;
    }
}

/// Per-asset prices posted by an admin feed, in the protocol's value unit
/// per whole token (a mantissa). A price older than the maximum age is stale
/// and the checked getter refuses it; a posted price may not move further
/// from the previous one than the deviation bound.
contract PriceOracle {
    struct Feed {
        uint256 price;
        uint256 previousPrice;
        uint256 updatedAt;
        uint32 rounds;
    }

    uint256 public constant BPS = 10_000;

    address public admin;
    Clock public immutable clock;
    uint256 public maxPriceAge;
    uint256 public maxDeviationBps;

    mapping(address => Feed) internal feeds;

    event PricePosted(address indexed asset, uint256 previousPrice, uint256 price, uint256 updatedAt);
    event MaxPriceAgeChanged(uint256 previousAge, uint256 newAge);
    event MaxDeviationChanged(uint256 previousBps, uint256 newBps);
    event AdminChanged(address indexed previousAdmin, address indexed newAdmin);

    constructor(Clock clock_, uint256 maxPriceAge_, uint256 maxDeviationBps_) {
        require(maxDeviationBps_ <= BPS, "oracle: deviation bound too large");
        admin = msg.sender;
        clock = clock_;
        maxPriceAge = maxPriceAge_;
        maxDeviationBps = maxDeviationBps_;
    }

    modifier onlyAdmin() {
        require(msg.sender == admin, "oracle: caller is not the admin");
        _;
    }

    function setAdmin(address newAdmin) external onlyAdmin {
        require(newAdmin != address(0), "oracle: admin is the zero address");
        emit AdminChanged(admin, newAdmin);
        admin = newAdmin;
    }

    function setMaxPriceAge(uint256 newAge) external onlyAdmin {
        require(newAge > 0, "oracle: zero price age");
        emit MaxPriceAgeChanged(maxPriceAge, newAge);
        maxPriceAge = newAge;
    }

    function setMaxDeviation(uint256 newBps) external onlyAdmin {
        require(newBps <= BPS, "oracle: deviation bound too large");
        emit MaxDeviationChanged(maxDeviationBps, newBps);
        maxDeviationBps = newBps;
    }

    /// Posts a price. The first price of an asset is free; later ones must
    /// stay within the deviation bound of the price they replace.
    function setPrice(address asset, uint256 price) external onlyAdmin {
        require(asset != address(0), "oracle: asset is the zero address");
        require(price > 0, "oracle: zero price");
        Feed storage feed = feeds[asset];
        if (feed.price != 0) {
            require(withinDeviation(feed.price, price), "oracle: price moved too far");
        }
        feed.previousPrice = feed.price;
        feed.price = price;
        feed.updatedAt = clock.current();
        feed.rounds += 1;
        emit PricePosted(asset, feed.previousPrice, price, feed.updatedAt);
    }

    function withinDeviation(uint256 previousPrice, uint256 nextPrice) public view returns (bool) {
        uint256 diff = previousPrice > nextPrice ? previousPrice - nextPrice : nextPrice - previousPrice;
        return diff * BPS <= previousPrice * maxDeviationBps;
    }

    function isFresh(address asset) public view returns (bool) {
        Feed storage feed = feeds[asset];
        if (feed.price == 0) {
            return false;
        }
        return clock.current() - feed.updatedAt <= maxPriceAge;
    }

    function ageOf(address asset) external view returns (uint256) {
        return clock.current() - feeds[asset].updatedAt;
    }

    /// The checked price: set and not stale.
    function getPrice(address asset) external view returns (uint256) {
        Feed storage feed = feeds[asset];
        require(feed.price != 0, "oracle: no price for asset");
        require(clock.current() - feed.updatedAt <= maxPriceAge, "oracle: stale price");
        return feed.price;
    }

    /// The last posted price, however old.
    function lastPrice(address asset) external view returns (uint256) {
        return feeds[asset].price;
    }

    function feedOf(address asset)
        external
        view
        returns (uint256 price, uint256 previousPrice, uint256 updatedAt, uint32 rounds)
    {
        Feed storage feed = feeds[asset];
        return (feed.price, feed.previousPrice, feed.updatedAt, feed.rounds);
    }
}

/// A jump-rate model: the borrow rate grows linearly with utilization up to
/// the kink, and with a steeper slope above it. Rates are per second.
contract KinkedRateModel {
    uint256 public constant SECONDS_PER_YEAR = 365 days;

    uint256 public immutable baseRatePerSecond;
    uint256 public immutable multiplierPerSecond;
    uint256 public immutable jumpMultiplierPerSecond;
    uint256 public immutable kink;

    event RateModelCreated(uint256 baseRatePerSecond, uint256 multiplierPerSecond, uint256 jumpPerSecond, uint256 kink);

    constructor(uint256 baseRatePerYear, uint256 multiplierPerYear, uint256 jumpMultiplierPerYear, uint256 kink_) {
        require(kink_ > 0 && kink_ <= LendMath.EXP_SCALE, "rates: kink out of range");
        baseRatePerSecond = baseRatePerYear / SECONDS_PER_YEAR;
        multiplierPerSecond = (multiplierPerYear * LendMath.EXP_SCALE) / (SECONDS_PER_YEAR * kink_);
        jumpMultiplierPerSecond = jumpMultiplierPerYear / SECONDS_PER_YEAR;
        kink = kink_;
        emit RateModelCreated(
            baseRatePerYear / SECONDS_PER_YEAR,
            (multiplierPerYear * LendMath.EXP_SCALE) / (SECONDS_PER_YEAR * kink_),
            jumpMultiplierPerYear / SECONDS_PER_YEAR,
            kink_
        );
    }

    /// Borrows over the assets the suppliers own (cash plus borrows less
    /// reserves), capped at one.
    function utilizationRate(uint256 cash, uint256 borrows, uint256 reserves) public pure returns (uint256) {
        if (borrows == 0) {
            return 0;
        }
        uint256 gross = cash + borrows;
        if (gross <= reserves) {
            return LendMath.EXP_SCALE;
        }
        uint256 util = (borrows * LendMath.EXP_SCALE) / (gross - reserves);
        return util > LendMath.EXP_SCALE ? LendMath.EXP_SCALE : util;
    }

    function getBorrowRate(uint256 cash, uint256 borrows, uint256 reserves) public view returns (uint256) {
        uint256 util = utilizationRate(cash, borrows, reserves);
        if (util <= kink) {
            return LendMath.mulExp(util, multiplierPerSecond) + baseRatePerSecond;
        }
        uint256 normalRate = LendMath.mulExp(kink, multiplierPerSecond) + baseRatePerSecond;
        uint256 excessUtil = util - kink;
        return LendMath.mulExp(excessUtil, jumpMultiplierPerSecond) + normalRate;
    }

    function getSupplyRate(uint256 cash, uint256 borrows, uint256 reserves, uint256 reserveFactor)
        public
        view
        returns (uint256)
    {
        uint256 oneMinusReserveFactor = LendMath.EXP_SCALE - reserveFactor;
        uint256 borrowRate = getBorrowRate(cash, borrows, reserves);
        uint256 rateToPool = LendMath.mulExp(borrowRate, oneMinusReserveFactor);
        return LendMath.mulExp(utilizationRate(cash, borrows, reserves), rateToPool);
    }

    function annualBorrowRate(uint256 cash, uint256 borrows, uint256 reserves) external view returns (uint256) {
        return getBorrowRate(cash, borrows, reserves) * SECONDS_PER_YEAR;
    }
}

/// One money market: suppliers deposit the underlying for shares priced at
/// the exchange rate; borrowers take the underlying against collateral the
/// risk engine values; interest accrues on a global borrow index and a cut
/// of it goes to reserves. Liquidators repay a borrower's debt here and seize
/// shares of a collateral market.
contract Market {
    struct BorrowSnapshot {
        uint256 principal;
        uint256 interestIndex;
    }

    struct AccrualVars {
        uint256 currentTime;
        uint256 priorTime;
        uint256 cashPrior;
        uint256 borrowsPrior;
        uint256 reservesPrior;
        uint256 indexPrior;
        uint256 borrowRate;
        uint256 simpleInterestFactor;
        uint256 interestAccumulated;
    }

    struct RedeemVars {
        uint256 exchangeRate;
        uint256 redeemTokens;
        uint256 redeemAmount;
    }

    struct SeizeVars {
        uint256 protocolSeizeTokens;
        uint256 liquidatorSeizeTokens;
        uint256 exchangeRate;
        uint256 protocolSeizeAmount;
    }

    uint256 public constant BORROW_RATE_MAX_PER_SECOND = 158548959918;
    uint256 public constant RESERVE_FACTOR_MAX = 1e18;
    uint256 public constant PROTOCOL_SEIZE_SHARE_MAX = 0.1e18;
    uint8 public constant decimals = 18;

    string public name;
    string public symbol;

    address public admin;
    LendToken public immutable underlying;
    Clock public immutable clock;
    Comptroller public comptroller;
    KinkedRateModel public rateModel;

    uint256 public immutable initialExchangeRate;
    uint256 public reserveFactor;
    uint256 public protocolSeizeShare;

    uint256 public accrualTime;
    uint256 public borrowIndex;
    uint256 public totalBorrows;
    uint256 public totalReserves;
    uint256 public totalSupply;

    mapping(address => uint256) internal accountTokens;
    mapping(address => BorrowSnapshot) internal accountBorrows;

    bool internal locked;

    event AccrueInterest(uint256 cashPrior, uint256 interestAccumulated, uint256 borrowIndex, uint256 totalBorrows);
    event Mint(address indexed minter, uint256 mintAmount, uint256 mintTokens);
    event Redeem(address indexed redeemer, uint256 redeemAmount, uint256 redeemTokens);
    event Borrow(address indexed borrower, uint256 borrowAmount, uint256 accountBorrows, uint256 totalBorrows);
    event RepayBorrow(
        address indexed payer,
        address indexed borrower,
        uint256 repayAmount,
        uint256 accountBorrows,
        uint256 totalBorrows
    );
    event LiquidateBorrow(
        address indexed liquidator,
        address indexed borrower,
        uint256 repayAmount,
        address collateralMarket,
        uint256 seizeTokens
    );
    event Transfer(address indexed from, address indexed to, uint256 amount);
    event ReservesAdded(address indexed benefactor, uint256 addAmount, uint256 newTotalReserves);
    event ReservesReduced(address indexed admin, uint256 reduceAmount, uint256 newTotalReserves);
    event NewReserveFactor(uint256 oldReserveFactor, uint256 newReserveFactor);
    event NewProtocolSeizeShare(uint256 oldShare, uint256 newShare);
    event NewRateModel(address oldModel, address newModel);
    event NewAdmin(address oldAdmin, address newAdmin);

    constructor(
        LendToken underlying_,
        Comptroller comptroller_,
        KinkedRateModel rateModel_,
        Clock clock_,
        uint256 initialExchangeRate_,
        uint256 reserveFactor_,
        string memory name_,
        string memory symbol_
    ) {
        require(initialExchangeRate_ > 0, "market: zero initial exchange rate");
        require(reserveFactor_ <= RESERVE_FACTOR_MAX, "market: reserve factor too large");
        admin = msg.sender;
        underlying = underlying_;
        comptroller = comptroller_;
        rateModel = rateModel_;
        clock = clock_;
        initialExchangeRate = initialExchangeRate_;
        reserveFactor = reserveFactor_;
        protocolSeizeShare = 0.028e18;
        accrualTime = clock_.current();
        borrowIndex = LendMath.EXP_SCALE;
        name = name_;
        symbol = symbol_;
    }

    modifier nonReentrant() {
        require(!locked, "market: re-entered");
        locked = true;
        _;
        locked = false;
    }

    modifier onlyAdmin() {
        require(msg.sender == admin, "market: caller is not the admin");
        _;
    }

    // ---------------------------------------------------------------- views

    function balanceOf(address account) external view returns (uint256) {
        return accountTokens[account];
    }

    function getCash() public view returns (uint256) {
        return underlying.balanceOf(address(this));
    }

    function isFresh() public view returns (bool) {
        return accrualTime == clock.current();
    }

    /// The debt of an account at the stored borrow index.
    function borrowBalanceStored(address account) public view returns (uint256) {
        BorrowSnapshot storage snapshot = accountBorrows[account];
        if (snapshot.principal == 0) {
            return 0;
        }
        return (snapshot.principal * borrowIndex) / snapshot.interestIndex;
    }

    /// Underlying per share: what the suppliers own (cash plus borrows less
    /// reserves) over the shares outstanding.
    function exchangeRateStored() public view returns (uint256) {
        uint256 supply = totalSupply;
        if (supply == 0) {
            return initialExchangeRate;
        }
        uint256 backing = getCash() + totalBorrows - totalReserves;
        return LendMath.divExp(backing, supply);
    }

    function getAccountSnapshot(address account) external view returns (uint256, uint256, uint256) {
        return (accountTokens[account], borrowBalanceStored(account), exchangeRateStored());
    }

    function borrowRatePerSecond() external view returns (uint256) {
        return rateModel.getBorrowRate(getCash(), totalBorrows, totalReserves);
    }

    function supplyRatePerSecond() external view returns (uint256) {
        return rateModel.getSupplyRate(getCash(), totalBorrows, totalReserves, reserveFactor);
    }

    function utilization() external view returns (uint256) {
        return rateModel.utilizationRate(getCash(), totalBorrows, totalReserves);
    }

    function underlyingOfShares(uint256 shares) external view returns (uint256) {
        return LendMath.mulScalarTruncate(exchangeRateStored(), shares);
    }

    function accountBorrowSnapshot(address account) external view returns (uint256 principal, uint256 interestIndex) {
        BorrowSnapshot storage snapshot = accountBorrows[account];
        return (snapshot.principal, snapshot.interestIndex);
    }

    // ------------------------------------------------------ current values

    function exchangeRateCurrent() external nonReentrant returns (uint256) {
        accrueInterest();
        return exchangeRateStored();
    }

    function borrowBalanceCurrent(address account) external nonReentrant returns (uint256) {
        accrueInterest();
        return borrowBalanceStored(account);
    }

    function balanceOfUnderlying(address account) external nonReentrant returns (uint256) {
        accrueInterest();
        return LendMath.mulScalarTruncate(exchangeRateStored(), accountTokens[account]);
    }

    // ------------------------------------------------------------- interest

    /// Brings borrows, reserves and the borrow index up to the clock.
    function accrueInterest() public returns (uint256) {
        AccrualVars memory v;
        v.currentTime = clock.current();
        v.priorTime = accrualTime;
        if (v.priorTime == v.currentTime) {
            return 0;
        }
        v.cashPrior = getCash();
        v.borrowsPrior = totalBorrows;
        v.reservesPrior = totalReserves;
        v.indexPrior = borrowIndex;

        v.borrowRate = rateModel.getBorrowRate(v.cashPrior, v.borrowsPrior, v.reservesPrior);
        require(v.borrowRate <= BORROW_RATE_MAX_PER_SECOND, "market: borrow rate is absurdly high");

        v.simpleInterestFactor = v.borrowRate * (v.currentTime - v.priorTime);
        v.interestAccumulated = LendMath.mulScalarTruncate(v.simpleInterestFactor, v.borrowsPrior);

        accrualTime = v.currentTime;
        borrowIndex = LendMath.mulScalarTruncateAddUInt(v.simpleInterestFactor, v.indexPrior, v.indexPrior);
        totalBorrows = v.interestAccumulated + v.borrowsPrior;
        totalReserves = LendMath.mulScalarTruncateAddUInt(reserveFactor, v.interestAccumulated, v.reservesPrior);

        emit AccrueInterest(v.cashPrior, v.interestAccumulated, borrowIndex, totalBorrows);
        return v.interestAccumulated;
    }

    // ----------------------------------------------------------- supplying

    function mint(uint256 mintAmount) external nonReentrant returns (uint256) {
        accrueInterest();
        return mintFresh(msg.sender, mintAmount);
    }

    function mintFresh(address minter, uint256 mintAmount) internal returns (uint256 mintTokens) {
        require(mintAmount > 0, "market: zero mint amount");
        comptroller.mintAllowed(address(this), minter, mintAmount);
        require(isFresh(), "market: interest not accrued");

        uint256 exchangeRate = exchangeRateStored();
        uint256 actualMintAmount = doTransferIn(minter, mintAmount);
        mintTokens = LendMath.divScalarByExpTruncate(actualMintAmount, exchangeRate);
        require(mintTokens > 0, "market: mint amount too small");

        totalSupply += mintTokens;
        accountTokens[minter] += mintTokens;

        emit Mint(minter, actualMintAmount, mintTokens);
        emit Transfer(address(this), minter, mintTokens);
    }

    function redeem(uint256 redeemTokens) external nonReentrant returns (uint256) {
        accrueInterest();
        return redeemFresh(msg.sender, redeemTokens, 0);
    }

    function redeemUnderlying(uint256 redeemAmount) external nonReentrant returns (uint256) {
        accrueInterest();
        return redeemFresh(msg.sender, 0, redeemAmount);
    }

    /// Shares to burn for an exact amount of the underlying.
    function sharesForUnderlying(uint256 amount, uint256 exchangeRate) public pure returns (uint256) {
        return LendMath.divScalarByExpTruncate(amount, exchangeRate);
    }

    function redeemFresh(address redeemer, uint256 redeemTokensIn, uint256 redeemAmountIn)
        internal
        returns (uint256)
    {
        require(redeemTokensIn == 0 || redeemAmountIn == 0, "market: redeem by shares or by amount");
        require(isFresh(), "market: interest not accrued");

        RedeemVars memory v;
        v.exchangeRate = exchangeRateStored();
        if (redeemTokensIn > 0) {
            v.redeemTokens = redeemTokensIn;
            v.redeemAmount = LendMath.mulScalarTruncate(v.exchangeRate, redeemTokensIn);
        } else {
            v.redeemTokens = sharesForUnderlying(redeemAmountIn, v.exchangeRate);
            v.redeemAmount = redeemAmountIn;
        }
        require(v.redeemTokens > 0 && v.redeemAmount > 0, "market: zero redeem");
        require(accountTokens[redeemer] >= v.redeemTokens, "market: redeem exceeds shares");

        comptroller.redeemAllowed(address(this), redeemer, v.redeemTokens);
        require(getCash() >= v.redeemAmount, "market: insufficient cash");

        totalSupply -= v.redeemTokens;
        accountTokens[redeemer] -= v.redeemTokens;
        doTransferOut(redeemer, v.redeemAmount);

        emit Transfer(redeemer, address(this), v.redeemTokens);
        emit Redeem(redeemer, v.redeemAmount, v.redeemTokens);
        return v.redeemAmount;
    }

    // ----------------------------------------------------------- borrowing

    function borrow(uint256 borrowAmount) external nonReentrant returns (uint256) {
        comptroller.borrowGuard(address(this), borrowAmount);
        accrueInterest();
        return borrowFresh(msg.sender, borrowAmount);
    }

    function borrowFresh(address borrower, uint256 borrowAmount) internal returns (uint256) {
        require(borrowAmount > 0, "market: zero borrow amount");
        require(isFresh(), "market: interest not accrued");
        comptroller.borrowAllowed(address(this), borrower, borrowAmount);
        require(getCash() >= borrowAmount, "market: insufficient cash");

        uint256 accountBorrowsPrev = borrowBalanceStored(borrower);
        uint256 accountBorrowsNew = accountBorrowsPrev + borrowAmount;
        uint256 totalBorrowsNew = totalBorrows + borrowAmount;

        accountBorrows[borrower].principal = accountBorrowsNew;
        accountBorrows[borrower].interestIndex = borrowIndex;
        totalBorrows = totalBorrowsNew;

        doTransferOut(borrower, borrowAmount);
        emit Borrow(borrower, borrowAmount, accountBorrowsNew, totalBorrowsNew);
        return borrowAmount;
    }

    function repayBorrow(uint256 repayAmount) external nonReentrant returns (uint256) {
        accrueInterest();
        return repayBorrowFresh(msg.sender, msg.sender, repayAmount);
    }

    function repayBorrowBehalf(address borrower, uint256 repayAmount) external nonReentrant returns (uint256) {
        accrueInterest();
        return repayBorrowFresh(msg.sender, borrower, repayAmount);
    }

    /// Repays at most the whole debt; returns what was actually paid.
    function repayBorrowFresh(address payer, address borrower, uint256 repayAmount) internal returns (uint256) {
        require(isFresh(), "market: interest not accrued");
        comptroller.repayBorrowAllowed(address(this), payer, borrower, repayAmount);

        uint256 accountBorrowsPrev = borrowBalanceStored(borrower);
        uint256 repayAmountFinal = repayAmount > accountBorrowsPrev ? accountBorrowsPrev : repayAmount;
        require(repayAmountFinal > 0, "market: nothing to repay");

        uint256 actualRepayAmount = doTransferIn(payer, repayAmountFinal);
        uint256 accountBorrowsNew = accountBorrowsPrev - actualRepayAmount;
        uint256 totalBorrowsNew = totalBorrows > actualRepayAmount ? totalBorrows - actualRepayAmount : 0;

        accountBorrows[borrower].principal = accountBorrowsNew;
        accountBorrows[borrower].interestIndex = borrowIndex;
        totalBorrows = totalBorrowsNew;

        comptroller.repayBorrowVerify(address(this), borrower, actualRepayAmount);
        emit RepayBorrow(payer, borrower, actualRepayAmount, accountBorrowsNew, totalBorrowsNew);
        return actualRepayAmount;
    }

    // --------------------------------------------------------- liquidation

    /// Repays part of a shortfall account's debt in this market and seizes
    /// shares of the collateral market, at a premium.
    function liquidateBorrow(address borrower, uint256 repayAmount, Market collateral)
        external
        nonReentrant
        returns (uint256)
    {
        accrueInterest();
        if (address(collateral) != address(this)) {
            collateral.accrueInterest();
        }
        return liquidateBorrowFresh(msg.sender, borrower, repayAmount, collateral);
    }

    function liquidateBorrowFresh(address liquidator, address borrower, uint256 repayAmount, Market collateral)
        internal
        returns (uint256 actualRepayAmount)
    {
        comptroller.liquidateBorrowAllowed(address(this), address(collateral), liquidator, borrower, repayAmount);
        require(borrower != liquidator, "market: liquidator is borrower");
        require(repayAmount > 0, "market: zero liquidation repay");
        require(repayAmount != type(uint256).max, "market: unbounded liquidation repay");
        require(isFresh(), "market: interest not accrued");
        require(collateral.isFresh(), "market: collateral interest not accrued");

        actualRepayAmount = repayBorrowFresh(liquidator, borrower, repayAmount);

        uint256 seizeTokens =
            comptroller.liquidateCalculateSeizeTokens(address(this), address(collateral), actualRepayAmount);
        require(seizeTokens > 0, "market: liquidation seizes nothing");
        require(collateral.balanceOf(borrower) >= seizeTokens, "market: liquidation seizes too much");

        if (address(collateral) == address(this)) {
            seizeInternal(address(this), liquidator, borrower, seizeTokens);
        } else {
            collateral.seize(liquidator, borrower, seizeTokens);
        }

        emit LiquidateBorrow(liquidator, borrower, actualRepayAmount, address(collateral), seizeTokens);
    }

    /// Called by the market a liquidation repaid in.
    function seize(address liquidator, address borrower, uint256 seizeTokens) external nonReentrant {
        seizeInternal(msg.sender, liquidator, borrower, seizeTokens);
    }

    function seizeInternal(address seizerMarket, address liquidator, address borrower, uint256 seizeTokens)
        internal
    {
        comptroller.seizeAllowed(address(this), seizerMarket, liquidator, borrower, seizeTokens);
        require(borrower != liquidator, "market: liquidator is borrower");
        require(accountTokens[borrower] >= seizeTokens, "market: seize exceeds shares");

        SeizeVars memory v;
        v.protocolSeizeTokens = LendMath.mulScalarTruncate(protocolSeizeShare, seizeTokens);
        v.liquidatorSeizeTokens = seizeTokens - v.protocolSeizeTokens;
        v.exchangeRate = exchangeRateStored();
        v.protocolSeizeAmount = LendMath.mulScalarTruncate(v.exchangeRate, v.protocolSeizeTokens);

        totalReserves += v.protocolSeizeAmount;
        totalSupply -= v.protocolSeizeTokens;
        accountTokens[borrower] -= seizeTokens;
        accountTokens[liquidator] += v.liquidatorSeizeTokens;

        emit Transfer(borrower, liquidator, v.liquidatorSeizeTokens);
        emit Transfer(borrower, address(this), v.protocolSeizeTokens);
        emit ReservesAdded(address(this), v.protocolSeizeAmount, totalReserves);
    }

    // ------------------------------------------------------ share transfers

    function transfer(address dst, uint256 amount) external nonReentrant returns (bool) {
        return transferTokens(msg.sender, dst, amount);
    }

    function transferTokens(address src, address dst, uint256 amount) internal returns (bool) {
        require(src != dst, "market: transfer to self");
        require(dst != address(0), "market: transfer to the zero address");
        require(accountTokens[src] >= amount, "market: transfer exceeds shares");
        comptroller.transferAllowed(address(this), src, dst, amount);

        accountTokens[src] -= amount;
        accountTokens[dst] += amount;
        emit Transfer(src, dst, amount);
        return true;
    }

    // --------------------------------------------------------------- admin

    function _setAdmin(address newAdmin) external onlyAdmin {
        require(newAdmin != address(0), "market: admin is the zero address");
        emit NewAdmin(admin, newAdmin);
        admin = newAdmin;
    }

    function _setReserveFactor(uint256 newReserveFactor) external onlyAdmin nonReentrant {
        accrueInterest();
        require(newReserveFactor <= RESERVE_FACTOR_MAX, "market: reserve factor too large");
        emit NewReserveFactor(reserveFactor, newReserveFactor);
        reserveFactor = newReserveFactor;
    }

    function _setProtocolSeizeShare(uint256 newShare) external onlyAdmin {
        require(newShare <= PROTOCOL_SEIZE_SHARE_MAX, "market: seize share too large");
        emit NewProtocolSeizeShare(protocolSeizeShare, newShare);
        protocolSeizeShare = newShare;
    }

    function _setRateModel(KinkedRateModel newModel) external onlyAdmin nonReentrant {
        accrueInterest();
        emit NewRateModel(address(rateModel), address(newModel));
        rateModel = newModel;
    }

    function _addReserves(uint256 addAmount) external nonReentrant returns (uint256) {
        accrueInterest();
        uint256 actualAddAmount = doTransferIn(msg.sender, addAmount);
        totalReserves += actualAddAmount;
        emit ReservesAdded(msg.sender, actualAddAmount, totalReserves);
        return actualAddAmount;
    }

    function _reduceReserves(uint256 reduceAmount) external onlyAdmin nonReentrant {
        accrueInterest();
        require(getCash() >= reduceAmount, "market: insufficient cash");
        require(reduceAmount <= totalReserves, "market: reduce exceeds reserves");
        totalReserves -= reduceAmount;
        doTransferOut(admin, reduceAmount);
        emit ReservesReduced(admin, reduceAmount, totalReserves);
    }

    // ---------------------------------------------------- token movements

    function doTransferIn(address from, uint256 amount) internal returns (uint256) {
        uint256 balanceBefore = underlying.balanceOf(address(this));
        require(underlying.transferFrom(from, address(this), amount), "market: transfer in failed");
        uint256 balanceAfter = underlying.balanceOf(address(this));
        return balanceAfter - balanceBefore;
    }

    function doTransferOut(address to, uint256 amount) internal {
        require(underlying.transfer(to, amount), "market: transfer out failed");
    }
}

/// The risk engine: which markets are listed, which markets an account uses
/// as collateral, how much it may borrow, when it may be liquidated and for
/// how much.
contract Comptroller {
    struct MarketConfig {
        bool listed;
        bool isolated;
        bool borrowable;
        bool borrowableInIsolation;
        bool mintPaused;
        bool borrowPaused;
        uint256 collateralFactor;
        uint256 borrowCap;
        uint256 supplyCap;
    }

    /// A liquidity question: the account, and optionally a market where it
    /// would redeem some shares or borrow some more.
    struct LiquidityQuery {
        address account;
        address modify;
        uint256 redeemTokens;
        uint256 borrowAmount;
        bool requireFresh;
    }

    struct LiquidityVars {
        uint256 sumCollateral;
        uint256 sumBorrowPlusEffects;
        uint256 tokens;
        uint256 borrowBalance;
        uint256 exchangeRate;
        uint256 price;
        uint256 tokensToDenom;
    }

    struct SeizeCalcVars {
        uint256 priceBorrowed;
        uint256 priceCollateral;
        uint256 exchangeRate;
        uint256 numerator;
        uint256 denominator;
        uint256 ratio;
    }

    uint256 public constant COLLATERAL_FACTOR_MAX = 0.9e18;
    uint256 public constant CLOSE_FACTOR_MIN = 0.05e18;
    uint256 public constant CLOSE_FACTOR_MAX = 0.9e18;
    uint256 public constant LIQUIDATION_INCENTIVE_MIN = 1e18;
    uint256 public constant LIQUIDATION_INCENTIVE_MAX = 1.5e18;

    address public admin;
    address public pauseGuardian;
    PriceOracle public oracle;
    Clock public immutable clock;

    uint256 public closeFactor;
    uint256 public liquidationIncentive;
    uint256 public minCloseValue;
    uint256 public maxAssets;
    uint256 public isolationDebtCeiling;
    uint256 public isolatedDebt;
    bool public seizePaused;
    bool public transferPaused;

    mapping(address => MarketConfig) internal configs;
    address[] internal allMarkets;
    mapping(address => address[]) internal accountAssets;
    mapping(address => mapping(address => bool)) internal membership;

    event MarketListed(address indexed market, bool isolated, bool borrowable, bool borrowableInIsolation);
    event MarketEntered(address indexed market, address indexed account);
    event MarketExited(address indexed market, address indexed account);
    event NewCollateralFactor(address indexed market, uint256 oldFactor, uint256 newFactor);
    event NewBorrowCap(address indexed market, uint256 newCap);
    event NewSupplyCap(address indexed market, uint256 newCap);
    event NewCloseFactor(uint256 oldCloseFactor, uint256 newCloseFactor);
    event NewLiquidationIncentive(uint256 oldIncentive, uint256 newIncentive);
    event NewMinCloseValue(uint256 oldValue, uint256 newValue);
    event NewIsolationDebtCeiling(uint256 oldCeiling, uint256 newCeiling);
    event IsolatedDebtChanged(address indexed account, uint256 previousDebt, uint256 newDebt);
    event NewPriceOracle(address oldOracle, address newOracle);
    event NewPauseGuardian(address oldGuardian, address newGuardian);
    event ActionPaused(address indexed market, string action, bool paused);
    event GlobalActionPaused(string action, bool paused);

    constructor(PriceOracle oracle_, Clock clock_) {
        admin = msg.sender;
        pauseGuardian = msg.sender;
        oracle = oracle_;
        clock = clock_;
        closeFactor = 0.5e18;
        liquidationIncentive = 1.08e18;
        minCloseValue = 1_000e18;
        maxAssets = 4;
    }

    modifier onlyAdmin() {
        require(msg.sender == admin, "comptroller: caller is not the admin");
        _;
    }

    modifier onlyAdminOrGuardian() {
        require(msg.sender == admin || msg.sender == pauseGuardian, "comptroller: caller cannot pause");
        _;
    }

    // ------------------------------------------------------------- listing

    function _supportMarket(Market market, bool isolated, bool borrowable, bool borrowableInIsolation)
        external
        onlyAdmin
    {
        address m = address(market);
        require(!configs[m].listed, "comptroller: market already listed");
        require(address(market.comptroller()) == address(this), "comptroller: market belongs elsewhere");
        require(!(isolated && borrowableInIsolation), "comptroller: isolated asset borrowable in isolation");
        configs[m].listed = true;
        configs[m].isolated = isolated;
        configs[m].borrowable = borrowable;
        configs[m].borrowableInIsolation = borrowableInIsolation;
        allMarkets.push(m);
        emit MarketListed(m, isolated, borrowable, borrowableInIsolation);
    }

    function _setCollateralFactor(address market, uint256 newFactor) external onlyAdmin {
        MarketConfig storage config = configs[market];
        require(config.listed, "comptroller: market not listed");
        require(newFactor <= COLLATERAL_FACTOR_MAX, "comptroller: collateral factor too large");
        if (newFactor != 0) {
            require(oracle.lastPrice(address(Market(market).underlying())) != 0, "comptroller: no price");
        }
        emit NewCollateralFactor(market, config.collateralFactor, newFactor);
        config.collateralFactor = newFactor;
    }

    function _setBorrowCap(address market, uint256 newCap) external onlyAdmin {
        require(configs[market].listed, "comptroller: market not listed");
        configs[market].borrowCap = newCap;
        emit NewBorrowCap(market, newCap);
    }

    function _setSupplyCap(address market, uint256 newCap) external onlyAdmin {
        require(configs[market].listed, "comptroller: market not listed");
        configs[market].supplyCap = newCap;
        emit NewSupplyCap(market, newCap);
    }

    function _setCloseFactor(uint256 newCloseFactor) external onlyAdmin {
        require(newCloseFactor >= CLOSE_FACTOR_MIN, "comptroller: close factor too small");
        require(newCloseFactor <= CLOSE_FACTOR_MAX, "comptroller: close factor too large");
        emit NewCloseFactor(closeFactor, newCloseFactor);
        closeFactor = newCloseFactor;
    }

    function _setLiquidationIncentive(uint256 newIncentive) external onlyAdmin {
        require(newIncentive >= LIQUIDATION_INCENTIVE_MIN, "comptroller: incentive below par");
        require(newIncentive <= LIQUIDATION_INCENTIVE_MAX, "comptroller: incentive too large");
        emit NewLiquidationIncentive(liquidationIncentive, newIncentive);
        liquidationIncentive = newIncentive;
    }

    function _setMinCloseValue(uint256 newValue) external onlyAdmin {
        emit NewMinCloseValue(minCloseValue, newValue);
        minCloseValue = newValue;
    }

    function _setIsolationDebtCeiling(uint256 newCeiling) external onlyAdmin {
        emit NewIsolationDebtCeiling(isolationDebtCeiling, newCeiling);
        isolationDebtCeiling = newCeiling;
    }

    function _setMaxAssets(uint256 newMaxAssets) external onlyAdmin {
        require(newMaxAssets > 0, "comptroller: zero max assets");
        maxAssets = newMaxAssets;
    }

    function _setPriceOracle(PriceOracle newOracle) external onlyAdmin {
        emit NewPriceOracle(address(oracle), address(newOracle));
        oracle = newOracle;
    }

    function _setPauseGuardian(address newGuardian) external onlyAdmin {
        emit NewPauseGuardian(pauseGuardian, newGuardian);
        pauseGuardian = newGuardian;
    }

    /// The guardian may pause; only the admin may unpause.
    function _setMintPaused(address market, bool state) external onlyAdminOrGuardian {
        require(configs[market].listed, "comptroller: market not listed");
        require(msg.sender == admin || state, "comptroller: only admin can unpause");
        configs[market].mintPaused = state;
        emit ActionPaused(market, "Mint", state);
    }

    function _setBorrowPaused(address market, bool state) external onlyAdminOrGuardian {
        require(configs[market].listed, "comptroller: market not listed");
        require(msg.sender == admin || state, "comptroller: only admin can unpause");
        configs[market].borrowPaused = state;
        emit ActionPaused(market, "Borrow", state);
    }

    function _setSeizePaused(bool state) external onlyAdminOrGuardian {
        require(msg.sender == admin || state, "comptroller: only admin can unpause");
        seizePaused = state;
        emit GlobalActionPaused("Seize", state);
    }

    function _setTransferPaused(bool state) external onlyAdminOrGuardian {
        require(msg.sender == admin || state, "comptroller: only admin can unpause");
        transferPaused = state;
        emit GlobalActionPaused("Transfer", state);
    }

    // --------------------------------------------------------------- views

    function getAllMarkets() external view returns (address[] memory) {
        return allMarkets;
    }

    function marketCount() external view returns (uint256) {
        return allMarkets.length;
    }

    function getAssetsIn(address account) external view returns (address[] memory) {
        return accountAssets[account];
    }

    function checkMembership(address account, address market) external view returns (bool) {
        return membership[market][account];
    }

    function isListed(address market) external view returns (bool) {
        return configs[market].listed;
    }

    function isIsolated(address market) external view returns (bool) {
        return configs[market].isolated;
    }

    function isBorrowable(address market) external view returns (bool) {
        return configs[market].borrowable;
    }

    function isBorrowableInIsolation(address market) external view returns (bool) {
        return configs[market].borrowableInIsolation;
    }

    function collateralFactor(address market) external view returns (uint256) {
        return configs[market].collateralFactor;
    }

    function borrowCap(address market) external view returns (uint256) {
        return configs[market].borrowCap;
    }

    function supplyCap(address market) external view returns (uint256) {
        return configs[market].supplyCap;
    }

    function mintPaused(address market) external view returns (bool) {
        return configs[market].mintPaused;
    }

    function borrowPaused(address market) external view returns (bool) {
        return configs[market].borrowPaused;
    }

    /// An account is in isolation mode while it uses an isolated asset as
    /// collateral; it may then use no other collateral and borrow only the
    /// assets marked borrowable in isolation, up to a protocol-wide ceiling.
    function isIsolationMode(address account) public view returns (bool) {
        address[] storage assets = accountAssets[account];
        for (uint256 i = 0; i < assets.length; i++) {
            if (configs[assets[i]].isolated) {
                return true;
            }
        }
        return false;
    }

    // ---------------------------------------------------------- membership

    function enterMarkets(address[] calldata markets) external returns (uint256 entered) {
        for (uint256 i = 0; i < markets.length; i++) {
            if (_addToMarket(markets[i], msg.sender)) {
                entered += 1;
            }
        }
    }

    function enterMarket(address market) external returns (bool) {
        return _addToMarket(market, msg.sender);
    }

    function _addToMarket(address market, address account) internal returns (bool) {
        MarketConfig storage config = configs[market];
        require(config.listed, "comptroller: market not listed");
        if (membership[market][account]) {
            return false;
        }
        if (config.isolated) {
            require(accountAssets[account].length == 0, "comptroller: isolated collateral must stand alone");
            require(!_hasDebtAnywhere(account), "comptroller: repay debts before isolation");
        } else {
            require(!isIsolationMode(account), "comptroller: account is in isolation mode");
        }
        require(accountAssets[account].length < maxAssets, "comptroller: too many markets");
        membership[market][account] = true;
        accountAssets[account].push(market);
        emit MarketEntered(market, account);
        return true;
    }

    /// Stops using a market as collateral. Refused while the account owes
    /// this market anything, or when the collateral is still needed.
    function exitMarket(address market) external returns (bool) {
        address account = msg.sender;
        (uint256 tokensHeld, uint256 amountOwed,) = Market(market).getAccountSnapshot(account);
        require(amountOwed == 0, "comptroller: borrow balance outstanding");
        if (!membership[market][account]) {
            return false;
        }
        if (_hasOutstandingDebt(account)) {
            redeemAllowed(market, account, tokensHeld);
        }
        _removeMembership(market, account);
        emit MarketExited(market, account);
        return true;
    }

    function _removeMembership(address market, address account) internal {
        membership[market][account] = false;
        address[] storage assets = accountAssets[account];
        uint256 len = assets.length;
        uint256 index = len;
        for (uint256 i = 0; i < len; i++) {
            if (assets[i] == market) {
                index = i;
                break;
            }
        }
        require(index < len, "comptroller: membership list corrupted");
        assets[index] = assets[len - 1];
        assets.pop();
    }

    /// Whether the account still owes anything against its collateral.
    function _hasOutstandingDebt(address account) internal view returns (bool) {
        address[] storage assets = accountAssets[account];
        for (uint256 i = 0; i < assets.length; i++) {
            if (Market(assets[i]).borrowBalanceStored(account) > 0) {
                return true;
            }
        }
        return false;
    }

    /// Whether the account owes any listed market anything.
    function _hasDebtAnywhere(address account) internal view returns (bool) {
        for (uint256 i = 0; i < allMarkets.length; i++) {
            if (Market(allMarkets[i]).borrowBalanceStored(account) > 0) {
                return true;
            }
        }
        return false;
    }

    // ----------------------------------------------------------- liquidity

    /// Collateral value above debt (liquidity) or debt above collateral value
    /// (shortfall), at checked prices.
    function getAccountLiquidity(address account) external view returns (uint256, uint256) {
        return _liquidity(LiquidityQuery(account, address(0), 0, 0, true));
    }

    /// The same, as if the account redeemed some shares or borrowed more.
    function getHypotheticalAccountLiquidity(
        address account,
        address modify,
        uint256 redeemTokens,
        uint256 borrowAmount
    ) external view returns (uint256, uint256) {
        return _liquidity(LiquidityQuery(account, modify, redeemTokens, borrowAmount, true));
    }

    /// The same at the last posted prices, however old.
    function getAccountLiquidityAtLastPrices(address account) external view returns (uint256, uint256) {
        return _liquidity(LiquidityQuery(account, address(0), 0, 0, false));
    }

    function accountCollateralValue(address account) external view returns (uint256 total) {
        for (uint256 i = 0; i < allMarkets.length; i++) {
            address market = allMarkets[i];
            if (!membership[market][account]) {
                continue;
            }
            (uint256 tokens,, uint256 rate) = Market(market).getAccountSnapshot(account);
            uint256 price = _priceOf(market, false);
            total += LendMath.mulScalarTruncate(_tokensToDenom(market, rate, price), tokens);
        }
    }

    function accountDebtValue(address account) external view returns (uint256 total) {
        for (uint256 i = 0; i < allMarkets.length; i++) {
            address market = allMarkets[i];
            uint256 debt = Market(market).borrowBalanceStored(account);
            if (debt == 0) {
                continue;
            }
            total += LendMath.mulScalarTruncate(_priceOf(market, false), debt);
        }
    }

    function _liquidity(LiquidityQuery memory q) internal view returns (uint256, uint256) {
        LiquidityVars memory v;
        uint256 count = allMarkets.length;
        for (uint256 i = 0; i < count; i++) {
            _accumulateMarket(v, q, allMarkets[i]);
        }
        if (v.sumCollateral > v.sumBorrowPlusEffects) {
            return (v.sumCollateral - v.sumBorrowPlusEffects, 0);
        }
        return (0, v.sumBorrowPlusEffects - v.sumCollateral);
    }

    /// Adds one market's collateral and debt (and the hypothetical effects
    /// of the query) to the running sums. Prices are read only for markets
    /// that contribute.
    function _accumulateMarket(LiquidityVars memory v, LiquidityQuery memory q, address market) internal view {
        bool member = membership[market][q.account];
        bool modified = market == q.modify;
        (v.tokens, v.borrowBalance, v.exchangeRate) = Market(market).getAccountSnapshot(q.account);

        bool countsCollateral = member && v.tokens > 0;
        bool hasEffects = modified && (q.borrowAmount > 0 || (member && q.redeemTokens > 0));
        if (!countsCollateral && v.borrowBalance == 0 && !hasEffects) {
            return;
        }

        v.price = _priceOf(market, q.requireFresh);
        if (member) {
            v.tokensToDenom = _tokensToDenom(market, v.exchangeRate, v.price);
            v.sumCollateral = LendMath.mulScalarTruncateAddUInt(v.tokensToDenom, v.tokens, v.sumCollateral);
        }
        v.sumBorrowPlusEffects = LendMath.mulScalarTruncateAddUInt(v.price, v.borrowBalance, v.sumBorrowPlusEffects);

        if (modified) {
            if (member) {
                v.sumBorrowPlusEffects =
                    LendMath.mulScalarTruncateAddUInt(v.tokensToDenom, q.redeemTokens, v.sumBorrowPlusEffects);
            }
            v.sumBorrowPlusEffects =
                LendMath.mulScalarTruncateAddUInt(v.price, q.borrowAmount, v.sumBorrowPlusEffects);
        }
    }

    /// Value of one share as collateral: factor times exchange rate times price.
    function _tokensToDenom(address market, uint256 exchangeRate, uint256 price) internal view returns (uint256) {
        uint256 factorTimesRate = LendMath.mulExp(configs[market].collateralFactor, exchangeRate);
        return LendMath.mulExp(factorTimesRate, price);
    }

    function _priceOf(address market, bool requireFresh) internal view returns (uint256 price) {
        address asset = address(Market(market).underlying());
        price = requireFresh ? oracle.getPrice(asset) : oracle.lastPrice(asset);
        require(price > 0, "comptroller: price not set");
    }

    // -------------------------------------------------------- market hooks

    function mintAllowed(address market, address minter, uint256 mintAmount) external view {
        MarketConfig storage config = configs[market];
        require(config.listed, "comptroller: market not listed");
        require(!config.mintPaused, "comptroller: mint is paused");
        require(minter != address(0), "comptroller: zero minter");
        uint256 cap = config.supplyCap;
        if (cap != 0) {
            Market m = Market(market);
            uint256 supplied = LendMath.mulScalarTruncate(m.exchangeRateStored(), m.totalSupply());
            require(supplied + mintAmount <= cap, "comptroller: market supply cap reached");
        }
    }

    /// Redeeming shares of a market the account does not use as collateral
    /// needs no liquidity check.
    function redeemAllowed(address market, address redeemer, uint256 redeemTokens) public view {
        require(configs[market].listed, "comptroller: market not listed");
        if (!membership[market][redeemer]) {
            return;
        }
        (, uint256 shortfall) = _liquidity(LiquidityQuery(redeemer, market, redeemTokens, 0, true));
        require(shortfall == 0, "comptroller: insufficient liquidity");
    }

    /// Cheap checks a market runs before it does any work for a borrow.
    function borrowGuard(address market, uint256 borrowAmount) external view {
        MarketConfig storage config = configs[market];
        require(config.listed, "comptroller: market not listed");
        require(config.borrowable, "comptroller: market not borrowable");
        require(!config.borrowPaused, "comptroller: borrow is paused");
        uint256 cap = config.borrowCap;
        if (cap != 0) {
            uint256 nextTotalBorrows = Market(market).totalBorrows() + borrowAmount;
            require(nextTotalBorrows <= cap, "comptroller: market borrow cap reached");
        }
    }

    /// The liquidity and isolation checks of a borrow, called by the market
    /// once its interest is accrued; records isolated debt.
    function borrowAllowed(address market, address borrower, uint256 borrowAmount) external {
        require(msg.sender == market, "comptroller: sender must be the market");
        MarketConfig storage config = configs[market];
        require(config.listed, "comptroller: market not listed");
        require(config.borrowable, "comptroller: market not borrowable");

        bool isolation = isIsolationMode(borrower);
        if (isolation) {
            require(config.borrowableInIsolation, "comptroller: asset not borrowable in isolation");
            require(isolatedDebt + borrowAmount <= isolationDebtCeiling, "comptroller: isolation ceiling reached");
        }

        (, uint256 shortfall) = _liquidity(LiquidityQuery(borrower, market, 0, borrowAmount, true));
        require(shortfall == 0, "comptroller: insufficient liquidity");

        if (isolation) {
            uint256 previous = isolatedDebt;
            isolatedDebt = previous + borrowAmount;
            emit IsolatedDebtChanged(borrower, previous, isolatedDebt);
        }
    }

    function repayBorrowAllowed(address market, address payer, address borrower, uint256 repayAmount)
        external
        view
    {
        require(configs[market].listed, "comptroller: market not listed");
        require(payer != address(0) && borrower != address(0), "comptroller: zero account");
        repayAmount;
    }

    /// Releases isolated debt as an isolated account repays.
    function repayBorrowVerify(address market, address borrower, uint256 actualRepayAmount) external {
        require(msg.sender == market, "comptroller: sender must be the market");
        require(configs[market].listed, "comptroller: market not listed");
        if (!configs[market].borrowableInIsolation || !isIsolationMode(borrower)) {
            return;
        }
        uint256 previous = isolatedDebt;
        isolatedDebt = previous > actualRepayAmount ? previous - actualRepayAmount : 0;
        emit IsolatedDebtChanged(borrower, previous, isolatedDebt);
    }

    /// A liquidation is allowed against an account in shortfall, for at most
    /// the close factor of its debt in the repaid market (all of it when the
    /// debt is too small to be worth splitting). The repaid asset's price must
    /// be current, since the seized amount is computed from it.
    function liquidateBorrowAllowed(
        address marketBorrowed,
        address marketCollateral,
        address liquidator,
        address borrower,
        uint256 repayAmount
    ) external view {
        require(configs[marketBorrowed].listed, "comptroller: borrowed market not listed");
        require(configs[marketCollateral].listed, "comptroller: collateral market not listed");
        require(liquidator != address(0), "comptroller: zero liquidator");
        _priceOf(marketBorrowed, true);

        (, uint256 shortfall) = _liquidity(LiquidityQuery(borrower, address(0), 0, 0, false));
        require(shortfall > 0, "comptroller: account not in shortfall");

        uint256 borrowBalance = Market(marketBorrowed).borrowBalanceStored(borrower);
        uint256 maxClose = maxCloseAmount(marketBorrowed, borrowBalance);
        require(repayAmount <= maxClose, "comptroller: too much repay");
    }

    function maxCloseAmount(address marketBorrowed, uint256 borrowBalance) public view returns (uint256) {
        marketBorrowed;
        if (borrowBalance <= minCloseValue) {
            return borrowBalance;
        }
        return LendMath.mulScalarTruncate(closeFactor, borrowBalance);
    }

    function seizeAllowed(
        address marketCollateral,
        address marketBorrowed,
        address liquidator,
        address borrower,
        uint256 seizeTokens
    ) external view {
        require(!seizePaused, "comptroller: seize is paused");
        require(configs[marketCollateral].listed, "comptroller: collateral market not listed");
        require(configs[marketBorrowed].listed, "comptroller: borrowed market not listed");
        require(
            address(Market(marketCollateral).comptroller()) == address(Market(marketBorrowed).comptroller()),
            "comptroller: markets disagree"
        );
        require(liquidator != borrower, "comptroller: liquidator is borrower");
        seizeTokens;
    }

    function transferAllowed(address market, address src, address dst, uint256 transferTokens) external view {
        require(!transferPaused, "comptroller: transfer is paused");
        require(dst != address(0), "comptroller: zero destination");
        redeemAllowed(market, src, transferTokens);
    }

    /// Collateral shares a liquidator receives for repaying an amount:
    /// repaid value times the incentive, in shares of the collateral market.
    function liquidateCalculateSeizeTokens(address marketBorrowed, address marketCollateral, uint256 actualRepayAmount)
        external
        view
        returns (uint256)
    {
        SeizeCalcVars memory v;
        v.priceBorrowed = _priceOf(marketBorrowed, false);
        v.priceCollateral = _priceOf(marketCollateral, false);
        v.exchangeRate = Market(marketBorrowed).exchangeRateStored();
        v.numerator = LendMath.mulExp(liquidationIncentive, v.priceBorrowed);
        v.denominator = LendMath.mulExp(v.priceCollateral, v.exchangeRate);
        v.ratio = LendMath.divExp(v.numerator, v.denominator);
        return LendMath.mulScalarTruncate(v.ratio, actualRepayAmount);
    }
}

/// A user of the protocol, driven by the harness. Every protocol call it
/// makes comes from its own address; a protocol revert propagates.
contract Actor {
    address public immutable owner;
    uint256 public immutable id;

    constructor(uint256 id_) {
        owner = msg.sender;
        id = id_;
    }

    modifier onlyOwner() {
        require(msg.sender == owner, "actor: caller is not the owner");
        _;
    }

    function approveMax(LendToken token, address spender) external onlyOwner {
        require(token.approve(spender, type(uint256).max), "actor: approve failed");
    }

    function supply(Market market, uint256 amount) external onlyOwner returns (uint256) {
        return market.mint(amount);
    }

    function redeemShares(Market market, uint256 shares) external onlyOwner returns (uint256) {
        return market.redeem(shares);
    }

    function redeemAmount(Market market, uint256 amount) external onlyOwner returns (uint256) {
        return market.redeemUnderlying(amount);
    }

    function borrowFrom(Market market, uint256 amount) external onlyOwner returns (uint256) {
        return market.borrow(amount);
    }

    function repay(Market market, uint256 amount) external onlyOwner returns (uint256) {
        return market.repayBorrow(amount);
    }

    function repayFor(Market market, address borrower, uint256 amount) external onlyOwner returns (uint256) {
        return market.repayBorrowBehalf(borrower, amount);
    }

    function liquidate(Market repayMarket, address borrower, uint256 amount, Market seizeMarket)
        external
        onlyOwner
        returns (uint256)
    {
        return repayMarket.liquidateBorrow(borrower, amount, seizeMarket);
    }

    function enter(Comptroller comptroller, address market) external onlyOwner returns (bool) {
        return comptroller.enterMarket(market);
    }

    function exit(Comptroller comptroller, address market) external onlyOwner returns (bool) {
        return comptroller.exitMarket(market);
    }

    function sendShares(Market market, address to, uint256 shares) external onlyOwner returns (bool) {
        return market.transfer(to, shares);
    }

    function sendTokens(LendToken token, address to, uint256 amount) external onlyOwner returns (bool) {
        return token.transfer(to, amount);
    }
}

/// The harness the fuzzer deploys. Its constructor builds the protocol,
/// lists four markets (a stable asset, two volatile ones, and an isolated
/// governance asset that is collateral only), seeds each market with
/// liquidity and funds three actors. Handlers take small indices and raw
/// amounts, map them onto actors, markets and balances, act through the
/// actor proxies and record ghost state for the properties.
contract LendingHarness {
    uint256 internal constant ACTOR_COUNT = 3;
    uint256 internal constant MARKET_COUNT = 4;
    uint256 internal constant USD = 0;
    uint256 internal constant ETH = 1;
    uint256 internal constant BTC = 2;
    uint256 internal constant GOV = 3;

    uint256 internal constant START_TIME = 1_700_000_000;
    uint256 internal constant MAX_TIME_STEP = 1 days;
    uint256 internal constant MAX_PRICE_AGE = 1 days;
    uint256 internal constant MAX_DEVIATION_BPS = 2_000;
    uint256 internal constant INITIAL_EXCHANGE_RATE = 0.02e18;

    uint256 internal constant HEALTH_TOLERANCE = 1e9;
    uint256 internal constant RATE_TOLERANCE_DIVISOR = 1e9;
    uint256 internal constant SEIZE_TOLERANCE_DIVISOR = 1e6;
    uint256 internal constant SEIZE_TOLERANCE_FLOOR = 1e6;
    uint256 internal constant BORROW_SUM_TOLERANCE = 1e6;
    uint256 internal constant BORROW_SUM_TOLERANCE_DIVISOR = 1e12;

    /// What happened to one actor.
    struct AccountGhost {
        uint32 deposits;
        uint32 withdrawals;
        uint32 borrows;
        uint32 repays;
        uint32 exits;
        uint32 liquidationsSuffered;
        uint32 liquidationsPerformed;
        uint256 lastBorrowTime;
    }

    /// What flowed through one market, and its state before the last handler.
    struct MarketGhost {
        uint256 cash;
        uint256 deposited;
        uint256 redeemed;
        uint256 borrowed;
        uint256 repaid;
        uint256 rateSnapshot;
        uint256 reservesSnapshot;
    }

    /// Breaches a handler observed right after a successful protocol call.
    struct Violations {
        bool pausedAction;
        bool repayIncreasedDebt;
        bool unhealthyAfterBorrow;
        bool unhealthyAfterWithdraw;
        bool unhealthyAfterExit;
        bool liquidatedHealthyAccount;
        bool closeFactorExceeded;
        bool seizeAboveIncentive;
        bool borrowCapExceeded;
        bool redeemOverpaid;
    }

    struct LiquidationCase {
        uint256 liquidatorIdx;
        uint256 borrowerIdx;
        uint256 repayIdx;
        uint256 seizeIdx;
        address liquidator;
        address borrower;
        bool shortfallKnown;
        uint256 shortfall;
        uint256 debtBefore;
        uint256 sharesBefore;
        uint256 liquidatorTokensBefore;
        uint256 collateralRate;
    }

    struct RedeemCase {
        uint256 actorIdx;
        uint256 marketIdx;
        address account;
        bool member;
        uint256 sharesBefore;
        uint256 tokensBefore;
        uint256 rate;
    }

    Clock public clock;
    PriceOracle public oracle;
    Comptroller public comptroller;
    KinkedRateModel public stableModel;
    KinkedRateModel public volatileModel;
    LendToken[4] public tokens;
    Market[4] public markets;
    Actor[3] public actors;

    mapping(uint256 => AccountGhost) internal ghostAccounts;
    /// Keyed by actor and market (the sub-id): whether that borrow is open.
    mapping(uint256 => bool) internal ghostBorrowOpen;
    MarketGhost[4] internal ghostMarkets;
    Violations internal violations;

    uint256 public ghostLiquidations;
    uint256 public ghostPriceUpdates;
    uint256 public ghostTimeAdvanced;

    constructor() {
        clock = new Clock(START_TIME);
        oracle = new PriceOracle(clock, MAX_PRICE_AGE, MAX_DEVIATION_BPS);
        comptroller = new Comptroller(oracle, clock);
        stableModel = new KinkedRateModel(0.02e18, 0.1e18, 1.5e18, 0.8e18);
        volatileModel = new KinkedRateModel(0.02e18, 0.2e18, 3e18, 0.65e18);
        _deployAssets();
        _deployMarkets();
        _listMarkets();
        _configureRisk();
        _createActors();
        _seedLiquidity();
        _snapshotMarkets();
    }

    // --------------------------------------------------------------- setup

    function _deployAssets() internal {
        tokens[USD] = new LendToken("Test Dollar", "tUSD", 18);
        tokens[ETH] = new LendToken("Test Ether", "tETH", 18);
        tokens[BTC] = new LendToken("Test Bitcoin", "tBTC", 18);
        tokens[GOV] = new LendToken("Test Governance", "tGOV", 18);
    }

    function _deployMarkets() internal {
        markets[USD] = new Market(
            tokens[USD], comptroller, stableModel, clock, INITIAL_EXCHANGE_RATE, 0.1e18, "Lending Dollar", "lUSD"
        );
        markets[ETH] = new Market(
            tokens[ETH], comptroller, volatileModel, clock, INITIAL_EXCHANGE_RATE, 0.2e18, "Lending Ether", "lETH"
        );
        markets[BTC] = new Market(
            tokens[BTC], comptroller, volatileModel, clock, INITIAL_EXCHANGE_RATE, 0.2e18, "Lending Bitcoin", "lBTC"
        );
        markets[GOV] = new Market(
            tokens[GOV],
            comptroller,
            volatileModel,
            clock,
            INITIAL_EXCHANGE_RATE,
            0.25e18,
            "Lending Governance",
            "lGOV"
        );
    }

    function _listMarkets() internal {
        comptroller._supportMarket(markets[USD], false, true, true);
        comptroller._supportMarket(markets[ETH], false, true, false);
        comptroller._supportMarket(markets[BTC], false, true, false);
        comptroller._supportMarket(markets[GOV], true, false, false);
        oracle.setPrice(address(tokens[USD]), 1e18);
        oracle.setPrice(address(tokens[ETH]), 2_000e18);
        oracle.setPrice(address(tokens[BTC]), 30_000e18);
        oracle.setPrice(address(tokens[GOV]), 5e18);
    }

    function _configureRisk() internal {
        comptroller._setCollateralFactor(address(markets[USD]), 0.8e18);
        comptroller._setCollateralFactor(address(markets[ETH]), 0.75e18);
        comptroller._setCollateralFactor(address(markets[BTC]), 0.7e18);
        comptroller._setCollateralFactor(address(markets[GOV]), 0.5e18);
        comptroller._setBorrowCap(address(markets[USD]), 600_000e18);
        comptroller._setBorrowCap(address(markets[ETH]), 300e18);
        comptroller._setBorrowCap(address(markets[BTC]), 20e18);
        comptroller._setSupplyCap(address(markets[GOV]), 700_000e18);
        comptroller._setIsolationDebtCeiling(100_000e18);
    }

    function _createActors() internal {
        uint256[4] memory grants = [uint256(1_000_000e18), 500e18, 30e18, 200_000e18];
        for (uint256 i = 0; i < ACTOR_COUNT; i++) {
            Actor actor = new Actor(i);
            actors[i] = actor;
            for (uint256 j = 0; j < MARKET_COUNT; j++) {
                tokens[j].mint(address(actor), grants[j]);
                actor.approveMax(tokens[j], address(markets[j]));
            }
        }
    }

    /// The harness itself is the first supplier of every market, so no
    /// market ever runs empty of shares.
    function _seedLiquidity() internal {
        uint256[4] memory seeds = [uint256(2_000_000e18), 1_000e18, 60e18, 200_000e18];
        for (uint256 j = 0; j < MARKET_COUNT; j++) {
            tokens[j].mint(address(this), seeds[j]);
            require(tokens[j].approve(address(markets[j]), type(uint256).max), "harness: approve failed");
            markets[j].mint(seeds[j]);
            ghostMarkets[j].cash = seeds[j];
            ghostMarkets[j].deposited = seeds[j];
        }
    }

    // ------------------------------------------------------------- helpers

    modifier recordsSnapshot() {
        _snapshotMarkets();
        _;
    }

    /// Remembers each market's exchange rate and reserves before a handler acts.
    function _snapshotMarkets() internal {
        for (uint256 i = 0; i < MARKET_COUNT; i++) {
            ghostMarkets[i].rateSnapshot = markets[i].exchangeRateStored();
            ghostMarkets[i].reservesSnapshot = markets[i].totalReserves();
        }
    }

    function _actorIndex(uint8 raw) internal pure returns (uint256) {
        return uint256(raw) % ACTOR_COUNT;
    }

    function _marketIndex(uint8 raw) internal pure returns (uint256) {
        return uint256(raw) % MARKET_COUNT;
    }

    function _subId(uint256 actorIdx, uint256 marketIdx) internal pure returns (uint256) {
        return actorIdx * MARKET_COUNT + marketIdx;
    }

    function _syncBorrowGhost(uint256 actorIdx, uint256 marketIdx) internal {
        uint256 debt = markets[marketIdx].borrowBalanceStored(address(actors[actorIdx]));
        ghostBorrowOpen[_subId(actorIdx, marketIdx)] = debt > 0;
    }

    function _ghostHasActiveBorrows(uint256 actorIdx) internal view returns (bool) {
        for (uint256 j = 0; j < MARKET_COUNT; j++) {
            if (ghostBorrowOpen[_subId(actorIdx, j)]) {
                return true;
            }
        }
        return false;
    }

    function _hasAnyDebt(address account) internal view returns (bool) {
        for (uint256 j = 0; j < MARKET_COUNT; j++) {
            if (markets[j].borrowBalanceStored(account) > 0) {
                return true;
            }
        }
        return false;
    }

    /// The account's shortfall at checked prices; unknown while a price it
    /// depends on is stale.
    function _freshShortfall(address account) internal view returns (bool known, uint256 shortfall) {
        try comptroller.getAccountLiquidity(account) returns (uint256, uint256 s) {
            return (true, s);
        } catch {
            return (false, 0);
        }
    }

    function _unhealthy(address account) internal view returns (bool) {
        (bool known, uint256 shortfall) = _freshShortfall(account);
        return known && shortfall > HEALTH_TOLERANCE;
    }

    function _sumShares(uint256 marketIdx) internal view returns (uint256 sum) {
        Market market = markets[marketIdx];
        sum = market.balanceOf(address(this));
        for (uint256 i = 0; i < ACTOR_COUNT; i++) {
            sum += market.balanceOf(address(actors[i]));
        }
    }

    function _sumClaims(uint256 marketIdx) internal view returns (uint256 sum) {
        Market market = markets[marketIdx];
        uint256 rate = market.exchangeRateStored();
        sum = LendMath.mulScalarTruncate(rate, market.balanceOf(address(this)));
        for (uint256 i = 0; i < ACTOR_COUNT; i++) {
            sum += LendMath.mulScalarTruncate(rate, market.balanceOf(address(actors[i])));
        }
    }

    function _sumAccountBorrows(uint256 marketIdx) internal view returns (uint256 sum) {
        Market market = markets[marketIdx];
        for (uint256 i = 0; i < ACTOR_COUNT; i++) {
            sum += market.borrowBalanceStored(address(actors[i]));
        }
    }

    // ------------------------------------------------------------ handlers

    function enterMarket(uint8 actorIdx, uint8 marketIdx) external recordsSnapshot {
        Actor actor = actors[_actorIndex(actorIdx)];
        actor.enter(comptroller, address(markets[_marketIndex(marketIdx)]));
    }

    function exitMarket(uint8 actorIdx, uint8 marketIdx) external recordsSnapshot {
        uint256 ai = _actorIndex(actorIdx);
        address account = address(actors[ai]);
        address market = address(markets[_marketIndex(marketIdx)]);
        bool wasMember = comptroller.checkMembership(account, market);
        actors[ai].exit(comptroller, market);
        if (!wasMember) {
            return;
        }
        ghostAccounts[ai].exits += 1;
        if (_ghostHasActiveBorrows(ai) && _unhealthy(account)) {
            violations.unhealthyAfterExit = true;
        }
    }

    function deposit(uint8 actorIdx, uint8 marketIdx, uint256 amount) external recordsSnapshot {
        uint256 ai = _actorIndex(actorIdx);
        uint256 mi = _marketIndex(marketIdx);
        Actor actor = actors[ai];
        Market market = markets[mi];
        uint256 balance = tokens[mi].balanceOf(address(actor));
        amount = amount % (balance + 1);

        actor.supply(market, amount);

        if (comptroller.mintPaused(address(market))) {
            violations.pausedAction = true;
        }
        MarketGhost storage g = ghostMarkets[mi];
        g.cash += amount;
        g.deposited += amount;
        ghostAccounts[ai].deposits += 1;
    }

    function withdraw(uint8 actorIdx, uint8 marketIdx, uint256 shares) external recordsSnapshot {
        RedeemCase memory c = _openRedeem(actorIdx, marketIdx);
        shares = shares % (c.sharesBefore + 1);
        actors[c.actorIdx].redeemShares(markets[c.marketIdx], shares);
        _closeRedeem(c);
    }

    function withdrawUnderlying(uint8 actorIdx, uint8 marketIdx, uint256 amount) external recordsSnapshot {
        RedeemCase memory c = _openRedeem(actorIdx, marketIdx);
        uint256 redeemable = LendMath.mulScalarTruncate(c.rate, c.sharesBefore);
        amount = amount % (redeemable + 1);
        actors[c.actorIdx].redeemAmount(markets[c.marketIdx], amount);
        _closeRedeem(c);
    }

    function _openRedeem(uint8 actorIdx, uint8 marketIdx) internal returns (RedeemCase memory c) {
        c.actorIdx = _actorIndex(actorIdx);
        c.marketIdx = _marketIndex(marketIdx);
        c.account = address(actors[c.actorIdx]);
        Market market = markets[c.marketIdx];
        market.accrueInterest();
        c.member = comptroller.checkMembership(c.account, address(market));
        c.sharesBefore = market.balanceOf(c.account);
        c.tokensBefore = tokens[c.marketIdx].balanceOf(c.account);
        c.rate = market.exchangeRateStored();
    }

    function _closeRedeem(RedeemCase memory c) internal {
        uint256 burned = c.sharesBefore - markets[c.marketIdx].balanceOf(c.account);
        uint256 received = tokens[c.marketIdx].balanceOf(c.account) - c.tokensBefore;
        MarketGhost storage g = ghostMarkets[c.marketIdx];
        g.cash -= received;
        g.redeemed += received;
        ghostAccounts[c.actorIdx].withdrawals += 1;

        if (LendMath.mulScalarTruncate(c.rate, burned) < received) {
            violations.redeemOverpaid = true;
        }
        if (c.member && _hasAnyDebt(c.account) && _unhealthy(c.account)) {
            violations.unhealthyAfterWithdraw = true;
        }
    }

    function transferShares(uint8 fromIdx, uint8 toIdx, uint8 marketIdx, uint256 amount) external recordsSnapshot {
        uint256 fi = _actorIndex(fromIdx);
        Market market = markets[_marketIndex(marketIdx)];
        address src = address(actors[fi]);
        bool member = comptroller.checkMembership(src, address(market));
        amount = amount % (market.balanceOf(src) + 1);

        actors[fi].sendShares(market, address(actors[_actorIndex(toIdx)]), amount);

        if (comptroller.transferPaused()) {
            violations.pausedAction = true;
        }
        if (member && _hasAnyDebt(src) && _unhealthy(src)) {
            violations.unhealthyAfterWithdraw = true;
        }
    }

    function borrow(uint8 actorIdx, uint8 marketIdx, uint256 amount) external recordsSnapshot {
        uint256 ai = _actorIndex(actorIdx);
        uint256 mi = _marketIndex(marketIdx);
        Market market = markets[mi];
        amount = amount % (market.getCash() + 1);

        actors[ai].borrowFrom(market, amount);

        MarketGhost storage g = ghostMarkets[mi];
        g.cash -= amount;
        g.borrowed += amount;
        ghostAccounts[ai].borrows += 1;
        ghostAccounts[ai].lastBorrowTime = clock.current();
        ghostBorrowOpen[_subId(ai, mi)] = true;
        _checkAfterBorrow(ai, mi);
    }

    function _checkAfterBorrow(uint256 ai, uint256 mi) internal {
        Market market = markets[mi];
        if (comptroller.borrowPaused(address(market))) {
            violations.pausedAction = true;
        }
        uint256 cap = comptroller.borrowCap(address(market));
        if (cap != 0 && market.totalBorrows() > cap) {
            violations.borrowCapExceeded = true;
        }
        if (_unhealthy(address(actors[ai]))) {
            violations.unhealthyAfterBorrow = true;
        }
    }

    function repay(uint8 actorIdx, uint8 marketIdx, uint256 amount) external recordsSnapshot {
        uint256 ai = _actorIndex(actorIdx);
        _repayFor(ai, ai, _marketIndex(marketIdx), amount);
    }

    function repayOnBehalf(uint8 payerIdx, uint8 borrowerIdx, uint8 marketIdx, uint256 amount)
        external
        recordsSnapshot
    {
        _repayFor(_actorIndex(payerIdx), _actorIndex(borrowerIdx), _marketIndex(marketIdx), amount);
    }

    function _repayFor(uint256 pi, uint256 bi, uint256 mi, uint256 amount) internal {
        Market market = markets[mi];
        address payer = address(actors[pi]);
        address borrower = address(actors[bi]);
        market.accrueInterest();
        uint256 debtBefore = market.borrowBalanceStored(borrower);
        uint256 balanceBefore = tokens[mi].balanceOf(payer);
        amount = amount % (balanceBefore + 1);

        if (pi == bi) {
            actors[pi].repay(market, amount);
        } else {
            actors[pi].repayFor(market, borrower, amount);
        }

        uint256 paid = balanceBefore - tokens[mi].balanceOf(payer);
        if (market.borrowBalanceStored(borrower) > debtBefore) {
            violations.repayIncreasedDebt = true;
        }
        MarketGhost storage g = ghostMarkets[mi];
        g.cash += paid;
        g.repaid += paid;
        ghostAccounts[bi].repays += 1;
        _syncBorrowGhost(bi, mi);
    }

    function liquidate(uint8 liquidatorIdx, uint8 borrowerIdx, uint8 repayMarket, uint8 seizeMarket, uint256 amount)
        external
        recordsSnapshot
    {
        LiquidationCase memory c = _openLiquidation(liquidatorIdx, borrowerIdx, repayMarket, seizeMarket);
        amount = amount % (c.liquidatorTokensBefore + 1);
        actors[c.liquidatorIdx].liquidate(markets[c.repayIdx], c.borrower, amount, markets[c.seizeIdx]);
        _closeLiquidation(c);
    }

    function _openLiquidation(uint8 liquidatorIdx, uint8 borrowerIdx, uint8 repayMarket, uint8 seizeMarket)
        internal
        returns (LiquidationCase memory c)
    {
        c.liquidatorIdx = _actorIndex(liquidatorIdx);
        c.borrowerIdx = _actorIndex(borrowerIdx);
        c.repayIdx = _marketIndex(repayMarket);
        c.seizeIdx = _marketIndex(seizeMarket);
        c.liquidator = address(actors[c.liquidatorIdx]);
        c.borrower = address(actors[c.borrowerIdx]);

        markets[c.repayIdx].accrueInterest();
        markets[c.seizeIdx].accrueInterest();

        (c.shortfallKnown, c.shortfall) = _freshShortfall(c.borrower);
        c.debtBefore = markets[c.repayIdx].borrowBalanceStored(c.borrower);
        c.sharesBefore = markets[c.seizeIdx].balanceOf(c.borrower);
        c.liquidatorTokensBefore = tokens[c.repayIdx].balanceOf(c.liquidator);
        c.collateralRate = markets[c.seizeIdx].exchangeRateStored();
    }

    function _closeLiquidation(LiquidationCase memory c) internal {
        uint256 repaid = c.liquidatorTokensBefore - tokens[c.repayIdx].balanceOf(c.liquidator);
        uint256 seized = c.sharesBefore - markets[c.seizeIdx].balanceOf(c.borrower);

        MarketGhost storage g = ghostMarkets[c.repayIdx];
        g.cash += repaid;
        g.repaid += repaid;
        ghostAccounts[c.borrowerIdx].liquidationsSuffered += 1;
        ghostAccounts[c.liquidatorIdx].liquidationsPerformed += 1;
        ghostLiquidations += 1;
        _syncBorrowGhost(c.borrowerIdx, c.repayIdx);

        if (comptroller.seizePaused()) {
            violations.pausedAction = true;
        }
        if (!c.shortfallKnown || c.shortfall == 0) {
            violations.liquidatedHealthyAccount = true;
        }
        if (_exceedsCloseFactor(c.repayIdx, c.debtBefore, repaid)) {
            violations.closeFactorExceeded = true;
        }
        if (_exceedsIncentive(c, repaid, seized)) {
            violations.seizeAboveIncentive = true;
        }
    }

    /// More than the close factor of the debt was repaid, and the debt was
    /// worth more than the dust bound below which a full close is allowed.
    function _exceedsCloseFactor(uint256 repayIdx, uint256 debtBefore, uint256 repaid) internal view returns (bool) {
        uint256 maxClose = LendMath.mulScalarTruncate(comptroller.closeFactor(), debtBefore);
        if (repaid <= maxClose) {
            return false;
        }
        uint256 price = oracle.lastPrice(address(tokens[repayIdx]));
        uint256 debtValue = LendMath.mulScalarTruncate(price, debtBefore);
        return debtValue > comptroller.minCloseValue();
    }

    /// The seized shares were worth more than the repaid value times the
    /// liquidation incentive (beyond rounding).
    function _exceedsIncentive(LiquidationCase memory c, uint256 repaid, uint256 seized) internal view returns (bool) {
        uint256 priceBorrowed = oracle.lastPrice(address(tokens[c.repayIdx]));
        uint256 priceCollateral = oracle.lastPrice(address(tokens[c.seizeIdx]));
        uint256 seizedUnderlying = LendMath.mulScalarTruncate(c.collateralRate, seized);
        uint256 seizedValue = LendMath.mulScalarTruncate(priceCollateral, seizedUnderlying);
        uint256 repaidValue = LendMath.mulScalarTruncate(priceBorrowed, repaid);
        uint256 allowed = LendMath.mulScalarTruncate(comptroller.liquidationIncentive(), repaidValue);
        return seizedValue > allowed + allowed / SEIZE_TOLERANCE_DIVISOR + SEIZE_TOLERANCE_FLOOR;
    }

    /// Moves one asset's price by at most the oracle's deviation bound.
    function setPrice(uint8 marketIdx, uint256 price) external recordsSnapshot {
        address asset = address(tokens[_marketIndex(marketIdx)]);
        uint256 previous = oracle.lastPrice(asset);
        uint256 bps = price % (2 * MAX_DEVIATION_BPS + 1);
        uint256 next;
        if (bps <= MAX_DEVIATION_BPS) {
            next = previous - LendMath.bpsOf(previous, MAX_DEVIATION_BPS - bps);
        } else {
            next = previous + LendMath.bpsOf(previous, bps - MAX_DEVIATION_BPS);
        }
        oracle.setPrice(asset, next);
        ghostPriceUpdates += 1;
    }

    /// Moves the protocol clock forward and accrues one market.
    function accrue(uint8 marketIdx, uint32 secondsForward) external recordsSnapshot {
        uint256 step = uint256(secondsForward) % (MAX_TIME_STEP + 1);
        if (step > 0) {
            clock.advance(step);
            ghostTimeAdvanced += step;
        }
        markets[_marketIndex(marketIdx)].accrueInterest();
    }

    /// The guardian's switches: mint or borrow of one market, or seizing and
    /// share transfers everywhere.
    function setPause(uint8 marketIdx, uint8 action, bool paused) external recordsSnapshot {
        address market = address(markets[_marketIndex(marketIdx)]);
        uint256 kind = uint256(action) % 4;
        if (kind == 0) {
            comptroller._setMintPaused(market, paused);
        } else if (kind == 1) {
            comptroller._setBorrowPaused(market, paused);
        } else if (kind == 2) {
            comptroller._setSeizePaused(paused);
        } else {
            comptroller._setTransferPaused(paused);
        }
    }

    // ---------------------------------------------------------- properties

    /// Each market holds exactly the cash its flows say, and what its
    /// suppliers can claim never exceeds what it owns.
    function echidna_market_solvent() public view returns (bool) {
        for (uint256 j = 0; j < MARKET_COUNT; j++) {
            Market market = markets[j];
            uint256 cash = market.getCash();
            if (cash != ghostMarkets[j].cash) {
                return false;
            }
            uint256 gross = cash + market.totalBorrows();
            uint256 reserves = market.totalReserves();
            if (gross < reserves) {
                return false;
            }
            if (_sumClaims(j) > gross - reserves) {
                return false;
            }
        }
        return true;
    }

    /// Shares outstanding are exactly the shares held.
    function echidna_shares_match_balances() public view returns (bool) {
        for (uint256 j = 0; j < MARKET_COUNT; j++) {
            if (_sumShares(j) != markets[j].totalSupply()) {
                return false;
            }
        }
        return true;
    }

    /// A market's total borrows equal the sum of its accounts' debts, up to
    /// rounding.
    function echidna_total_borrows_match_accounts() public view returns (bool) {
        for (uint256 j = 0; j < MARKET_COUNT; j++) {
            uint256 total = markets[j].totalBorrows();
            uint256 sum = _sumAccountBorrows(j);
            uint256 tolerance = BORROW_SUM_TOLERANCE + total / BORROW_SUM_TOLERANCE_DIVISOR;
            if (LendMath.absDiff(total, sum) > tolerance) {
                return false;
            }
        }
        return true;
    }

    /// No handler lowers a market's exchange rate (beyond rounding).
    function echidna_exchange_rate_never_decreases() public view returns (bool) {
        for (uint256 j = 0; j < MARKET_COUNT; j++) {
            uint256 snapshot = ghostMarkets[j].rateSnapshot;
            if (snapshot == 0) {
                continue;
            }
            uint256 current = markets[j].exchangeRateStored();
            if (current + snapshot / RATE_TOLERANCE_DIVISOR < snapshot) {
                return false;
            }
        }
        return true;
    }

    /// No handler lowers a market's reserves.
    function echidna_reserves_never_decrease() public view returns (bool) {
        for (uint256 j = 0; j < MARKET_COUNT; j++) {
            if (markets[j].totalReserves() < ghostMarkets[j].reservesSnapshot) {
                return false;
            }
        }
        return true;
    }

    /// No mint, borrow, seize or share transfer succeeded while paused.
    function echidna_no_action_in_paused_market() public view returns (bool) {
        return !violations.pausedAction;
    }

    /// A repay never leaves the borrower owing more than before it.
    function echidna_repay_never_increases_debt() public view returns (bool) {
        return !violations.repayIncreasedDebt;
    }

    /// After any successful borrow the borrower is within its liquidity.
    function echidna_borrow_leaves_account_healthy() public view returns (bool) {
        return !violations.unhealthyAfterBorrow;
    }

    /// After a successful withdraw or share transfer out of a collateral
    /// market, an indebted account is within its liquidity.
    function echidna_withdraw_leaves_account_healthy() public view returns (bool) {
        return !violations.unhealthyAfterWithdraw;
    }

    /// An account in isolation mode uses only the isolated collateral and
    /// owes only assets borrowable in isolation; isolated debt stays under
    /// its ceiling.
    function echidna_isolation_rules() public view returns (bool) {
        if (comptroller.isolatedDebt() > comptroller.isolationDebtCeiling()) {
            return false;
        }
        address isolatedMarket = address(markets[GOV]);
        for (uint256 i = 0; i < ACTOR_COUNT; i++) {
            address account = address(actors[i]);
            if (!comptroller.checkMembership(account, isolatedMarket)) {
                continue;
            }
            if (comptroller.getAssetsIn(account).length != 1) {
                return false;
            }
            for (uint256 j = 0; j < MARKET_COUNT; j++) {
                bool allowed = comptroller.isBorrowableInIsolation(address(markets[j]));
                if (!allowed && markets[j].borrowBalanceStored(account) > 0) {
                    return false;
                }
            }
        }
        return true;
    }

    /// A borrower that stops using a market as collateral stays within its
    /// liquidity.
    function echidna_exit_leaves_borrower_healthy() public view returns (bool) {
        return !violations.unhealthyAfterExit;
    }

    /// Only accounts in shortfall at checked prices are liquidated.
    function echidna_liquidation_only_shortfall() public view returns (bool) {
        return !violations.liquidatedHealthyAccount;
    }

    /// A liquidation repays at most the close factor of the debt, unless
    /// the debt is dust.
    function echidna_close_factor_respected() public view returns (bool) {
        return !violations.closeFactorExceeded;
    }

    /// Seized collateral is worth at most the repaid value times the
    /// liquidation incentive.
    function echidna_seize_bounded_by_incentive() public view returns (bool) {
        return !violations.seizeAboveIncentive;
    }

    /// A successful borrow never leaves a market's total borrows above its cap.
    function echidna_borrow_cap_respected() public view returns (bool) {
        return !violations.borrowCapExceeded;
    }

    /// A redeem pays out no more than the burned shares are worth.
    function echidna_redeem_never_overpays() public view returns (bool) {
        return !violations.redeemOverpaid;
    }

    // --------------------------------------------------------------- views

    function accountGhost(uint8 actorIdx)
        external
        view
        returns (uint32 deposits, uint32 borrows, uint32 repays, uint32 liquidationsSuffered)
    {
        AccountGhost storage a = ghostAccounts[_actorIndex(actorIdx)];
        return (a.deposits, a.borrows, a.repays, a.liquidationsSuffered);
    }

    function marketGhost(uint8 marketIdx)
        external
        view
        returns (uint256 cash, uint256 deposited, uint256 redeemed, uint256 borrowed, uint256 repaid)
    {
        MarketGhost storage g = ghostMarkets[_marketIndex(marketIdx)];
        return (g.cash, g.deposited, g.redeemed, g.borrowed, g.repaid);
    }

    function hasActiveBorrows(uint8 actorIdx) external view returns (bool) {
        return _ghostHasActiveBorrows(_actorIndex(actorIdx));
    }
}
