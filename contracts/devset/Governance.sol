// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// Token governance in the style of Compound's Governor with a timelock: a voting token with
/// delegation and timestamp checkpoints, a governor (proposal threshold, voting delay and period,
/// quorum, a guardian who may cancel), a timelock that queues operations with a delay and lets
/// anyone execute them within a grace period, and a treasury the timelock owns. A proposal pays
/// treasury funds to a recipient. Time comes from the harness, which a handler advances.
/// `GovHarness` deploys it all, hands the voting token to three actors and the treasury, and
/// exposes handlers.

interface IClock {
    function timestamp() external view returns (uint256);
}

abstract contract ERC20 {
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;

    function transfer(address to, uint256 amount) external returns (bool) {
        _transfer(msg.sender, to, amount);
        return true;
    }

    function _transfer(address from, address to, uint256 amount) internal virtual {
        require(balanceOf[from] >= amount, "erc20: balance");
        balanceOf[from] -= amount;
        balanceOf[to] += amount;
    }

    function _mint(address to, uint256 amount) internal {
        totalSupply += amount;
        balanceOf[to] += amount;
    }
}

contract Stable is ERC20 {
    constructor(address to, uint256 amount) {
        _mint(to, amount);
    }
}

/// Voting token: an account's votes are the balances delegated to it, checkpointed over time.
contract VoteToken is ERC20 {
    struct Checkpoint {
        uint256 fromTime;
        uint256 votes;
    }

    IClock public immutable clock;
    address public immutable minter = msg.sender;
    mapping(address => address) public delegates;
    mapping(address => Checkpoint[]) internal checkpoints;

    constructor(IClock c) {
        clock = c;
    }

    function mint(address to, uint256 amount) external {
        require(msg.sender == minter && totalSupply == 0, "votes: minted");
        _mint(to, amount);
    }

    function delegate(address delegatee) external {
        address previous = delegates[msg.sender];
        delegates[msg.sender] = delegatee;
        _moveVotes(previous, delegatee, balanceOf[msg.sender]);
    }

    function getVotes(address account) public view returns (uint256) {
        uint256 n = checkpoints[account].length;
        return n == 0 ? 0 : checkpoints[account][n - 1].votes;
    }

    function getPastVotes(address account, uint256 at) public view returns (uint256) {
        require(at < clock.timestamp(), "votes: not yet determined");
        Checkpoint[] storage ckpts = checkpoints[account];
        uint256 low = 0;
        uint256 high = ckpts.length;
        while (low < high) {
            uint256 mid = (low + high) / 2;
            if (ckpts[mid].fromTime > at) high = mid;
            else low = mid + 1;
        }
        return low == 0 ? 0 : ckpts[low - 1].votes;
    }

    function _transfer(address from, address to, uint256 amount) internal override {
        super._transfer(from, to, amount);
        _moveVotes(delegates[from], delegates[to], amount);
    }

    function _moveVotes(address src, address dst, uint256 amount) internal {
        if (src == dst || amount == 0) return;
        if (src != address(0)) _writeCheckpoint(src, getVotes(src) - amount);
        if (dst != address(0)) _writeCheckpoint(dst, getVotes(dst) + amount);
    }

    function _writeCheckpoint(address account, uint256 votes) internal {
        Checkpoint[] storage ckpts = checkpoints[account];
        uint256 now_ = clock.timestamp();
        uint256 n = ckpts.length;
        if (n > 0 && ckpts[n - 1].fromTime == now_) ckpts[n - 1].votes = votes;
        else ckpts.push(Checkpoint(now_, votes));
    }
}

/// Queues operations for at least DELAY; once due, anyone may execute one within the grace period.
contract Timelock {
    uint256 public constant DELAY = 2 days;
    uint256 public constant GRACE_PERIOD = 14 days;

    IClock public immutable clock;
    address public admin;
    mapping(bytes32 => uint256) public queuedEta;
    mapping(bytes32 => bool) public done;

    constructor(IClock c) {
        (clock, admin) = (c, msg.sender);
    }

    function setAdmin(address next) external {
        require(msg.sender == admin, "timelock: admin");
        admin = next;
    }

    function hashOperation(address target, bytes memory data, uint256 eta, bytes32 salt) public pure returns (bytes32) {
        return keccak256(abi.encode(target, data, eta, salt));
    }

    function queue(address target, bytes calldata data, uint256 eta, bytes32 salt) external returns (bytes32 id) {
        require(msg.sender == admin, "timelock: admin");
        require(eta >= clock.timestamp() + DELAY, "timelock: eta too soon");
        id = hashOperation(target, data, eta, salt);
        require(queuedEta[id] == 0 && !done[id], "timelock: known operation");
        queuedEta[id] = eta;
    }

    function cancel(bytes32 id) external {
        require(msg.sender == admin, "timelock: admin");
        require(queuedEta[id] != 0, "timelock: not queued");
        queuedEta[id] = 0;
    }

    function execute(address target, bytes calldata data, uint256 eta, bytes32 salt) external {
        bytes32 id = hashOperation(target, data, eta, salt);
        require(queuedEta[id] != 0, "timelock: not queued");
        uint256 now_ = clock.timestamp();
        require(now_ >= eta, "timelock: not due");
        require(now_ <= eta + GRACE_PERIOD, "timelock: stale");
        queuedEta[id] = 0;
        done[id] = true;
        (bool ok,) = target.call(data);
        require(ok, "timelock: call failed");
    }
}

contract Treasury {
    Stable public immutable stable;
    address public immutable owner;

    constructor(Stable s, address timelock) {
        (stable, owner) = (s, timelock);
    }

    function pay(address to, uint256 amount) external {
        require(msg.sender == owner, "treasury: owner");
        stable.transfer(to, amount);
    }
}

contract Governor {
    enum State { Pending, Active, Defeated, Succeeded, Queued, Expired, Executed, Canceled }

    uint256 public constant VOTING_DELAY = 1 days;
    uint256 public constant VOTING_PERIOD = 3 days;
    uint256 public constant THRESHOLD_BPS = 100;
    uint256 public constant QUORUM_BPS = 1500;

    struct Proposal {
        address proposer;
        address recipient;
        uint256 amount;
        uint256 start;
        uint256 end;
        uint256 forVotes;
        uint256 againstVotes;
        uint256 abstainVotes;
        uint256 eta;
        bool canceled;
    }

    VoteToken public immutable token;
    Timelock public immutable timelock;
    Treasury public immutable treasury;
    IClock public immutable clock;
    address public immutable guardian;
    Proposal[] public proposals;
    mapping(uint256 => mapping(address => bool)) public hasVoted;

    constructor(VoteToken t, Timelock tl, Treasury tr, IClock c, address g) {
        (token, timelock, treasury, clock, guardian) = (t, tl, tr, c, g);
    }

    function proposalCount() external view returns (uint256) {
        return proposals.length;
    }

    function quorum() public view returns (uint256) {
        return token.totalSupply() * QUORUM_BPS / 10000;
    }

    function action(uint256 id) public view returns (address target, bytes memory data) {
        Proposal storage p = proposals[id];
        return (address(treasury), abi.encodeCall(Treasury.pay, (p.recipient, p.amount)));
    }

    function operationId(uint256 id) public view returns (bytes32) {
        (address target, bytes memory data) = action(id);
        return timelock.hashOperation(target, data, proposals[id].eta, bytes32(id));
    }

    function propose(address recipient, uint256 amount) external returns (uint256 id) {
        uint256 now_ = clock.timestamp();
        uint256 threshold = token.totalSupply() * THRESHOLD_BPS / 10000;
        require(token.getPastVotes(msg.sender, now_ - 1) >= threshold, "gov: below threshold");
        id = proposals.length;
        uint256 start = now_ + VOTING_DELAY;
        proposals.push(Proposal(msg.sender, recipient, amount, start, start + VOTING_PERIOD, 0, 0, 0, 0, false));
    }

    function state(uint256 id) public view returns (State) {
        Proposal storage p = proposals[id];
        uint256 now_ = clock.timestamp();
        if (p.canceled) return State.Canceled;
        if (p.eta != 0 && timelock.done(operationId(id))) return State.Executed;
        if (now_ <= p.start) return State.Pending;
        if (now_ < p.end) return State.Active;
        if (p.forVotes <= p.againstVotes || p.forVotes < quorum()) return State.Defeated;
        if (p.eta == 0) return State.Succeeded;
        if (now_ > p.eta + timelock.GRACE_PERIOD()) return State.Expired;
        return State.Queued;
    }

    /// support: 0 against, 1 for, 2 abstain. Weight is the voter's votes when voting opened.
    function castVote(uint256 id, uint8 support) external {
        Proposal storage p = proposals[id];
        uint256 now_ = clock.timestamp();
        require(!p.canceled, "gov: canceled");
        require(now_ > p.start && now_ <= p.end, "gov: voting closed");
        require(support <= 2, "gov: support");
        require(!hasVoted[id][msg.sender], "gov: voted");
        uint256 weight = token.getVotes(msg.sender);
        require(weight > 0, "gov: no votes");
        hasVoted[id][msg.sender] = true;
        if (support == 0) p.againstVotes += weight;
        else if (support == 1) p.forVotes += weight;
        else p.abstainVotes += weight;
    }

    function queue(uint256 id) external {
        require(state(id) == State.Succeeded, "gov: not succeeded");
        Proposal storage p = proposals[id];
        p.eta = clock.timestamp() + timelock.DELAY();
        (address target, bytes memory data) = action(id);
        timelock.queue(target, data, p.eta, bytes32(id));
    }

    function execute(uint256 id) external {
        require(state(id) == State.Queued, "gov: not queued");
        (address target, bytes memory data) = action(id);
        timelock.execute(target, data, proposals[id].eta, bytes32(id));
    }

    /// The proposer or the guardian may cancel a proposal that has not been executed.
    function cancel(uint256 id) external {
        Proposal storage p = proposals[id];
        require(msg.sender == p.proposer || msg.sender == guardian, "gov: not allowed");
        State s = state(id);
        require(s != State.Executed && s != State.Canceled, "gov: final");
        p.canceled = true;
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

contract GovHarness {
    uint256 internal constant SUPPLY = 1_000_000 ether;
    uint256 internal constant TREASURY_FUNDS = 5_000_000 ether;
    uint256 internal constant MAX_PROPOSALS = 12;

    uint256 public timestamp = block.timestamp;
    VoteToken public token;
    Stable public stable;
    Timelock public timelock;
    Treasury public treasury;
    Governor public governor;
    Actor[3] public actors;

    // ghost: treasury funds paid out by executed operations
    uint256 internal ghostPaid;
    // ghost: when each proposal was queued; set when one executed before its delay
    mapping(uint256 => uint256) internal ghostQueuedAt;
    bool internal ghostEarlyExecution;

    constructor() {
        IClock clock = IClock(address(this));
        token = new VoteToken(clock);
        timelock = new Timelock(clock);
        stable = new Stable(address(this), TREASURY_FUNDS);
        treasury = new Treasury(stable, address(timelock));
        stable.transfer(address(treasury), TREASURY_FUNDS);
        governor = new Governor(token, timelock, treasury, clock, address(this));
        timelock.setAdmin(address(governor));
        for (uint256 i = 0; i < 3; i++) {
            actors[i] = new Actor();
        }
        token.mint(address(this), SUPPLY);
        token.transfer(address(actors[0]), SUPPLY / 4);
        token.transfer(address(actors[1]), SUPPLY * 3 / 20);
        token.transfer(address(actors[2]), SUPPLY / 10);
        token.transfer(address(treasury), SUPPLY / 2);
    }

    // ---------------------------------------------------------------- helpers

    function _actor(uint8 idx) internal view returns (Actor) {
        return actors[idx % 3];
    }

    function _proposal(uint8 idx) internal view returns (uint256) {
        uint256 n = governor.proposalCount();
        require(n > 0, "harness: none");
        return idx % n;
    }

    function _executed(uint256 id) internal {
        (,, uint256 amount,,,,,,,) = governor.proposals(id);
        ghostPaid += amount;
        if (timestamp < ghostQueuedAt[id] + timelock.DELAY()) ghostEarlyExecution = true;
    }

    // --------------------------------------------------------------- handlers

    function warp(uint32 secs) public {
        timestamp += secs;
    }

    function delegate(uint8 fromIdx, uint8 toIdx) public {
        _actor(fromIdx).exec(address(token), abi.encodeCall(VoteToken.delegate, (address(_actor(toIdx)))));
    }

    function transferVotes(uint8 fromIdx, uint8 toIdx, uint256 amount) public {
        Actor from = _actor(fromIdx);
        amount = amount % (token.balanceOf(address(from)) + 1);
        from.exec(address(token), abi.encodeCall(ERC20.transfer, (address(_actor(toIdx)), amount)));
    }

    function propose(uint8 proposerIdx, uint8 recipientIdx, uint256 amount) public {
        require(governor.proposalCount() < MAX_PROPOSALS, "harness: cap");
        amount = amount % (stable.balanceOf(address(treasury)) + 1);
        _actor(proposerIdx).exec(address(governor), abi.encodeCall(Governor.propose, (address(_actor(recipientIdx)), amount)));
    }

    function castVote(uint8 voterIdx, uint8 proposalIdx, uint8 support) public {
        uint256 id = _proposal(proposalIdx);
        _actor(voterIdx).exec(address(governor), abi.encodeCall(Governor.castVote, (id, support % 3)));
    }

    function queue(uint8 proposalIdx) public {
        uint256 id = _proposal(proposalIdx);
        governor.queue(id);
        ghostQueuedAt[id] = timestamp;
    }

    function execute(uint8 proposalIdx) public {
        uint256 id = _proposal(proposalIdx);
        governor.execute(id);
        _executed(id);
    }

    /// A keeper executes a due operation on the timelock directly.
    function executeOnTimelock(uint8 proposalIdx) public {
        uint256 id = _proposal(proposalIdx);
        (address target, bytes memory data) = governor.action(id);
        (,,,,,,,, uint256 eta,) = governor.proposals(id);
        timelock.execute(target, data, eta, bytes32(id));
        _executed(id);
    }

    function cancel(uint8 actorIdx, uint8 proposalIdx) public {
        uint256 id = _proposal(proposalIdx);
        _actor(actorIdx).exec(address(governor), abi.encodeCall(Governor.cancel, (id)));
    }

    function guardianCancel(uint8 proposalIdx) public {
        governor.cancel(_proposal(proposalIdx));
    }

    // ------------------------------------------------------------- properties

    /// An executed proposal had a majority for it and reached quorum.
    function echidna_executed_had_majority() public view returns (bool) {
        uint256 n = governor.proposalCount();
        for (uint256 i = 0; i < n; i++) {
            (,,,,, uint256 forVotes, uint256 againstVotes,, uint256 eta,) = governor.proposals(i);
            if (eta != 0 && timelock.done(governor.operationId(i))) {
                if (forVotes <= againstVotes || forVotes < governor.quorum()) return false;
            }
        }
        return true;
    }

    /// The votes counted on a proposal never exceed the token supply.
    function echidna_votes_within_supply() public view returns (bool) {
        uint256 n = governor.proposalCount();
        for (uint256 i = 0; i < n; i++) {
            (,,,,, uint256 forVotes, uint256 againstVotes, uint256 abstainVotes,,) = governor.proposals(i);
            if (forVotes + againstVotes + abstainVotes > token.totalSupply()) return false;
        }
        return true;
    }

    /// A canceled proposal's operation never executes.
    function echidna_canceled_never_executes() public view returns (bool) {
        uint256 n = governor.proposalCount();
        for (uint256 i = 0; i < n; i++) {
            (,,,,,,,, uint256 eta, bool canceled) = governor.proposals(i);
            if (canceled && eta != 0 && timelock.done(governor.operationId(i))) return false;
        }
        return true;
    }

    /// Treasury funds leave only through executed operations.
    function echidna_treasury_moves_only_by_execution() public view returns (bool) {
        return stable.balanceOf(address(treasury)) + ghostPaid == TREASURY_FUNDS;
    }

    /// No operation executes before the timelock delay has passed since it was queued.
    function echidna_execution_after_delay() public view returns (bool) {
        return !ghostEarlyExecution;
    }

    /// Votes delegated to the actors equal the balances of the actors who delegated.
    function echidna_votes_conserved() public view returns (bool) {
        uint256 votes;
        uint256 delegated;
        for (uint256 i = 0; i < 3; i++) {
            address a = address(actors[i]);
            votes += token.getVotes(a);
            if (token.delegates(a) != address(0)) delegated += token.balanceOf(a);
        }
        return votes == delegated;
    }
}
