//! The ops family's parameters and answers (the TradeStream shapes, typed).

use crate::families::conventions::Pagination;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

fn no() -> bool {
    false
}
fn zero() -> u64 {
    0
}
fn five() -> u64 {
    5
}
fn ten() -> u64 {
    10
}
fn fifty() -> u64 {
    50
}
fn hundred() -> u64 {
    100
}
fn one_hour() -> String {
    "1h".into()
}

// ---------------------------------------------------------------- params

/// The latest value of a campaign metric, and how it moved.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PriceParams {
    /// The metric: calls, calls_per_s, coverage_points, corpus_size, open_properties, falsified, sequences, campaign_calls, campaign_calls_per_s, campaign_coverage_points (the campaign_ ones over every node of a shared campaign)
    pub symbol: String,
    /// Bypass cache and fetch fresh data
    #[serde(default = "no")]
    pub force_refresh: bool,
}

#[derive(Serialize, JsonSchema)]
pub struct PriceAnswer {
    /// The metric's value now
    pub price: f64,
    /// Change over the last hour (or since the campaign started)
    pub change_1h: f64,
    pub change_24h: f64,
    /// Calls executed in the last 24 hours
    pub volume_24h: f64,
    pub timestamp: String,
}

/// Time-bucketed open/high/low/close of a campaign metric.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CandlesParams {
    /// The metric (see get_current_price)
    pub symbol: String,
    /// Bucket width: the seed's 1m, 5m, 15m, 1h, 4h, 1d, or any `N` + ms, s, m, h, d
    #[serde(default = "one_hour")]
    pub timeframe: String,
    #[serde(default = "hundred")]
    #[schemars(range(max = 1000))]
    pub limit: u64,
    #[serde(default = "zero")]
    pub offset: u64,
    #[serde(default = "no")]
    pub force_refresh: bool,
}

#[derive(Serialize, JsonSchema, Clone)]
pub struct CandleItem {
    pub timestamp: String,
    pub open: f64,
    pub high: f64,
    pub low: f64,
    pub close: f64,
    /// Calls executed in the bucket
    pub volume: f64,
}

#[derive(Serialize, JsonSchema)]
pub struct CandlesAnswer {
    /// Newest bucket first
    pub items: Vec<CandleItem>,
    pub pagination: Pagination,
}

/// Coverage growth and stagnation.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VolatilityParams {
    /// A metric (coverage_points for coverage growth) or a function signature (its own coverage)
    pub symbol: String,
    /// Bucket width (as get_candles)
    #[serde(default = "one_hour")]
    pub timeframe: String,
    #[serde(default = "no")]
    pub force_refresh: bool,
}

#[derive(Serialize, JsonSchema)]
pub struct FunctionGrowth {
    pub function: String,
    pub new_points: u64,
    /// Milliseconds since its calls last found new coverage (null: never)
    pub ms_since_new_coverage: Option<u64>,
}

#[derive(Serialize, JsonSchema)]
pub struct VolatilityAnswer {
    /// Standard deviation of the metric's change per bucket
    pub volatility: f64,
    /// Mean high-low range of the buckets
    pub atr: f64,
    /// Highest minus lowest value over the whole history
    pub high_low_range: f64,
    /// Mean change per bucket over the history
    #[schemars(extend("x-extension" = true))]
    pub growth_per_bucket: f64,
    /// Milliseconds since the campaign (or the function) last found new coverage
    #[schemars(extend("x-extension" = true))]
    pub stagnation_ms: Option<u64>,
    /// Per function, least recently productive first (coverage symbols)
    #[schemars(extend("x-extension" = true))]
    pub per_function: Vec<FunctionGrowth>,
}

/// The campaign's budget.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BalanceParams {}

#[derive(Serialize, JsonSchema)]
pub struct WorkerBudget {
    pub worker: u32,
    pub calls: u64,
    pub sequences: u64,
    pub injections: u64,
    pub running: bool,
}

#[derive(Serialize, JsonSchema)]
pub struct BalanceAnswer {
    /// testLimit: the calls the campaign may execute
    pub total_balance: f64,
    /// Calls left
    pub available_balance: f64,
    /// Calls executed
    pub margin_used: f64,
    /// Calls the workers would still execute before the timeout at the current rate, minus the calls left (negative: the timeout ends the campaign first; 0 without a timeout)
    pub unrealized_pnl: f64,
    #[schemars(extend("x-extension" = true))]
    pub elapsed_ms: u64,
    #[schemars(extend("x-extension" = true))]
    pub time_left_ms: Option<u64>,
    #[schemars(extend("x-extension" = true))]
    pub calls_per_s: f64,
    #[schemars(extend("x-extension" = true))]
    pub workers: Vec<WorkerBudget>,
}

/// What each worker is doing now.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PositionsParams {
    /// Only workers whose last call was this function (signature), or the contract's name for all
    pub symbol: Option<String>,
    #[serde(default = "fifty")]
    #[schemars(range(max = 200))]
    pub limit: u64,
    #[serde(default = "zero")]
    pub offset: u64,
}

#[derive(Serialize, JsonSchema, Clone)]
pub struct PositionItem {
    /// The target contract
    pub symbol: String,
    /// LONG: the worker runs; SHORT: it stopped
    pub side: String,
    /// Calls of the running sequence executed so far
    pub size: f64,
    /// Campaign coverage points when the sequence started
    pub entry_price: f64,
    /// Campaign coverage points now
    pub current_price: f64,
    /// Points new to the campaign the sequence found so far
    pub unrealized_pnl: f64,
    pub opened_at: String,
    #[schemars(extend("x-extension" = true))]
    pub worker: u32,
    /// random, mutation, injected
    #[schemars(extend("x-extension" = true))]
    pub source: Option<String>,
    #[schemars(extend("x-extension" = true))]
    pub planned_calls: u32,
    #[schemars(extend("x-extension" = true))]
    pub last_function: Option<String>,
    #[schemars(extend("x-extension" = true))]
    pub calls: u64,
    #[schemars(extend("x-extension" = true))]
    pub ms_since_new_coverage: Option<u64>,
}

#[derive(Serialize, JsonSchema)]
pub struct PositionsAnswer {
    pub items: Vec<PositionItem>,
    pub pagination: Pagination,
}

#[derive(Deserialize, JsonSchema, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    BUY,
    SELL,
}

/// Check a call against the ABI and dry-run it on a fresh deployment.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TradeParams {
    /// The call, in the call syntax: `transfer(0x10000, 100)`
    pub symbol: String,
    /// BUY: the call is expected to succeed every time; SELL: expected to revert
    pub side: Side,
    /// How many times to run it in a row (1 to 100)
    pub size: f64,
    /// Wei sent with each call
    pub price: Option<f64>,
}

#[derive(Serialize, JsonSchema, Clone)]
pub struct DryCall {
    pub call: String,
    /// success, revert, panic or halt
    pub outcome: String,
    pub reason: Option<String>,
    pub gas_used: u64,
    /// Points the call reached that the campaign has not
    pub new_coverage_points: u32,
    /// Properties (and specs) that fail after it
    pub failing: Vec<String>,
}

#[derive(Serialize, JsonSchema)]
pub struct TradeAnswer {
    /// Whether the runs met the side's expectation
    pub valid: bool,
    pub reason: String,
    /// Runs that succeeded before the first revert
    pub max_size: f64,
    /// Share of runs that reverted
    pub risk_score: f64,
    #[schemars(extend("x-extension" = true))]
    pub calls: Vec<DryCall>,
}

/// Generation strategies ranked.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TopStrategiesParams {
    /// The target contract's name (or `*`)
    pub symbol: String,
    #[serde(default = "five")]
    #[schemars(range(max = 100))]
    pub limit: u64,
    #[serde(default = "zero")]
    pub offset: u64,
    /// sharpe: new coverage per thousand calls; accuracy: share of calls that did not revert; return: new coverage points
    #[serde(default)]
    pub metric: RankMetric,
    #[serde(default = "no")]
    pub force_refresh: bool,
}

#[derive(Deserialize, JsonSchema, Clone, Copy, Default, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum RankMetric {
    #[default]
    Sharpe,
    Accuracy,
    Return,
}

#[derive(Serialize, JsonSchema, Clone)]
pub struct StrategyItem {
    /// random, mutation, injected, replayed
    pub strategy_id: String,
    pub name: String,
    pub score: f64,
    /// New coverage points per thousand calls
    pub sharpe: f64,
    /// Share of calls that did not revert
    pub accuracy: f64,
    /// Calls
    pub signals_count: u64,
    #[schemars(extend("x-extension" = true))]
    pub new_points: u64,
}

#[derive(Serialize, JsonSchema)]
pub struct TopStrategiesAnswer {
    pub items: Vec<StrategyItem>,
    pub pagination: Pagination,
}

/// A recommendation for one function, with its evidence.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SignalParams {
    /// coverage (uncovered branches it reaches), constants (values its blocked conditions compare with), reverts (how often it fails), or all
    pub strategy_id: String,
    /// The function's signature: `transfer(address,uint256)`
    pub symbol: String,
    #[serde(default = "no")]
    pub force_refresh: bool,
}

#[derive(Serialize, JsonSchema, Clone)]
pub struct SignalAnswer {
    /// BUY: prioritize it; SELL: deprioritize it; HOLD: leave it
    pub signal: String,
    pub confidence: f64,
    /// When its calls last found new coverage (the campaign's start if never)
    pub triggered_at: String,
    /// The evidence: recommendation, gaps, candidate values, revert rate
    pub parameters: SignalEvidence,
}

/// Why a signal says what it says.
#[derive(Serialize, JsonSchema, Clone)]
pub struct SignalEvidence {
    /// coverage, constants, reverts or all
    pub strategy: String,
    /// prioritize (BUY), deprioritize (SELL) or leave (HOLD)
    pub recommendation: String,
    /// The function's signature
    pub function: String,
    pub calls: u64,
    pub revert_rate: f64,
    /// Coverage points its calls found first
    pub new_points: u64,
    /// Uncovered branches it is an entry point of (the first 8)
    pub gaps: Vec<GapEvidence>,
    /// How many of them are never true
    pub blocking_gaps: u64,
    /// Constants the gaps compare with: argument values worth trying
    pub candidate_values: Vec<CandidateValue>,
}

/// An uncovered branch behind a signal (the graph family's gap, in short).
#[derive(Serialize, JsonSchema, Clone)]
pub struct GapEvidence {
    pub file: String,
    pub line: u32,
    pub condition: String,
    /// never true, never false or never reached
    pub missing: String,
    pub params: Vec<String>,
    pub state: Vec<String>,
    pub state_writers: Vec<String>,
}

/// A constant a gap compares with.
#[derive(Serialize, JsonSchema, Clone)]
pub struct CandidateValue {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub value: String,
}

/// Each strategy's signal for one function.
#[derive(Serialize, JsonSchema, Clone)]
pub struct StrategySignals {
    pub coverage: String,
    pub constants: String,
    pub reverts: String,
}

/// Signals merged over strategies and functions.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConsensusParams {
    /// The contract's name (every function) or one function's signature
    pub symbol: String,
    #[serde(default = "no")]
    pub force_refresh: bool,
}

#[derive(Serialize, JsonSchema, Clone)]
pub struct RankedFunction {
    pub function: String,
    /// Sum of its signals (BUY +confidence, SELL −confidence)
    pub score: f64,
    pub signals: StrategySignals,
}

#[derive(Serialize, JsonSchema)]
pub struct ConsensusAnswer {
    pub bullish_count: u64,
    pub bearish_count: u64,
    pub neutral_count: u64,
    pub consensus: String,
    pub confidence: f64,
    /// Functions, most worth prioritizing first
    #[schemars(extend("x-extension" = true))]
    pub ranked: Vec<RankedFunction>,
}

#[derive(Deserialize, JsonSchema, Clone, Copy, Default, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub enum SpecSourceFilter {
    /// The target's own tests (echidna_ properties, assertions)
    CANONICAL,
    /// Specs submitted at run time
    LLM_GENERATED,
    #[default]
    ALL,
}

/// Properties ranked by how long they held.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TopSpecsParams {
    #[serde(default = "ten")]
    #[schemars(range(max = 100))]
    pub limit: u64,
    #[serde(default = "zero")]
    pub offset: u64,
    #[serde(default)]
    pub source: SpecSourceFilter,
    #[serde(default = "no")]
    pub force_refresh: bool,
}

#[derive(Serialize, JsonSchema, Clone)]
pub struct SpecItem {
    /// The test's name
    pub spec_id: String,
    pub name: String,
    /// Functions it reads
    pub indicators: Vec<String>,
    /// Thousands of calls after which it held
    pub avg_sharpe: f64,
    /// Entry points that write what it reads (code graph)
    pub implementations_count: u64,
    /// open or falsified
    #[schemars(extend("x-extension" = true))]
    pub status: String,
    #[schemars(extend("x-extension" = true))]
    pub kind: String,
    #[schemars(extend("x-extension" = true))]
    pub source: String,
    /// Calls after which it was checked (and held, while open)
    #[schemars(extend("x-extension" = true))]
    pub evaluations: u64,
    #[schemars(extend("x-extension" = true))]
    pub reason: Option<String>,
    #[schemars(extend("x-extension" = true))]
    pub counterexample: Vec<String>,
}

#[derive(Serialize, JsonSchema)]
pub struct TopSpecsAnswer {
    pub items: Vec<SpecItem>,
    pub pagination: Pagination,
}

#[derive(Deserialize, JsonSchema, Clone, Copy, Default, PartialEq, Eq)]
pub enum ImplStatus {
    /// Callable, never succeeded yet
    CANDIDATE,
    /// Callable, succeeded at least once
    #[default]
    VALIDATED,
    /// The property or spec itself
    DEPLOYED,
    /// Not callable by the fuzzer (internal, or a view excluded)
    RETIRED,
    ALL,
}

/// The code behind a property or function.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ImplementationsParams {
    /// A test's name or a function's signature
    pub spec_id: String,
    #[serde(default)]
    pub status: ImplStatus,
    #[serde(default = "ten")]
    #[schemars(range(max = 100))]
    pub limit: u64,
    #[serde(default = "zero")]
    pub offset: u64,
    #[serde(default = "no")]
    pub force_refresh: bool,
}

#[derive(Serialize, JsonSchema, Clone)]
pub struct ImplItem {
    /// Contract.signature
    pub impl_id: String,
    /// file, lines, reads, writes, callers
    pub parameters: Value,
    /// The contract
    pub symbol: String,
    /// New coverage per thousand of its calls
    pub forward_sharpe: f64,
    /// Share of its calls that did not revert
    pub forward_accuracy: f64,
    pub status: String,
}

#[derive(Serialize, JsonSchema)]
pub struct ImplementationsAnswer {
    pub items: Vec<ImplItem>,
    pub pagination: Pagination,
}

/// Add an invariant while the campaign runs.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SubmitSpecParams {
    /// The test's name (letters, digits, `_.-`)
    pub name: String,
    pub description: Option<String>,
    /// View functions it watches (names or signatures)
    pub indicators: Vec<String>,
    /// Relations that must all hold after every call: `totalSupply() <= 1000000`, `balanceOf(0x10000) <= totalSupply()`
    pub entry_conditions: Vec<String>,
    /// Relations under which the spec is not checked (any holding exempts): `paused() == true`
    pub exit_conditions: Vec<String>,
    /// Free values kept with the spec
    pub parameters: Vec<Value>,
    pub reasoning: Option<String>,
}

#[derive(Serialize, JsonSchema)]
pub struct SubmitSpecAnswer {
    pub spec_id: String,
    pub created: bool,
    pub validation_errors: Vec<String>,
}

#[derive(Deserialize, JsonSchema, Clone, Copy, PartialEq, Eq, Debug)]
pub enum Action {
    BUY,
    SELL,
    HOLD,
}

impl Action {
    pub fn as_str(self) -> &'static str {
        match self {
            Action::BUY => "BUY",
            Action::SELL => "SELL",
            Action::HOLD => "HOLD",
        }
    }
}

/// Record a steering decision.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SaveDecisionParams {
    /// What the decision is about: a function, a metric, a test or the contract
    pub symbol: String,
    /// BUY: prioritize; SELL: deprioritize; HOLD: leave
    pub action: Action,
    /// 0 to 1
    pub confidence: f64,
    pub opportunity_score: Option<f64>,
    pub reasoning: String,
    pub tool_calls: Option<Vec<Value>>,
}

#[derive(Serialize, JsonSchema)]
pub struct SaveDecisionAnswer {
    pub decision_id: String,
    pub saved: bool,
}

/// Recent decisions, newest first.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecentDecisionsParams {
    pub symbol: Option<String>,
    #[serde(default = "ten")]
    #[schemars(range(max = 100))]
    pub limit: u64,
    #[serde(default = "zero")]
    pub offset: u64,
    pub action: Option<Action>,
    #[serde(default = "no")]
    pub force_refresh: bool,
}

#[derive(Serialize, JsonSchema, Clone)]
pub struct DecisionItem {
    pub decision_id: String,
    pub symbol: String,
    pub action: String,
    pub confidence: f64,
    pub opportunity_score: Option<f64>,
    pub reasoning: String,
    pub created_at: String,
    #[schemars(extend("x-extension" = true))]
    pub run_id: String,
}

#[derive(Serialize, JsonSchema)]
pub struct RecentDecisionsAnswer {
    pub items: Vec<DecisionItem>,
    pub pagination: Pagination,
}

/// Replay a sequence on a fresh deployment in an isolated EVM.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BacktestParams {
    /// What to replay: `inline` (the calls given), `corpus:N` (corpus entry N) or `test:NAME` (the falsified test's counterexample)
    pub strategy_id: String,
    /// The target contract's name
    pub symbol: String,
    /// Block time the replay starts at (YYYY-MM-DD; default: the deployment's)
    pub start_date: Option<String>,
    /// Calls whose block time passes this day's end are not run
    pub end_date: Option<String>,
    /// The calls for `inline`, in the call syntax (at most 100)
    #[schemars(extend("x-extension" = true))]
    pub calls: Option<Vec<String>>,
}

#[derive(Serialize, JsonSchema)]
pub struct BacktestAnswer {
    /// Coverage points the replay reached that the campaign has not
    pub total_return: f64,
    /// New points per call
    pub sharpe_ratio: f64,
    /// Longest run of calls without new coverage
    pub max_drawdown: f64,
    /// Share of calls that did not revert
    pub win_rate: f64,
    /// Calls run
    pub trades: u64,
    #[schemars(extend("x-extension" = true))]
    pub calls: Vec<DryCall>,
    /// Tests that failed at some point of the replay
    #[schemars(extend("x-extension" = true))]
    pub falsified: Vec<String>,
}

/// Per-function statistics.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PerformanceParams {
    /// A function's signature, or `all`
    pub strategy_id: String,
    /// The contract's name (optional)
    pub symbol: Option<String>,
    /// Accepted for the seed's sake: the statistics cover the running campaign
    #[serde(default)]
    pub period: Period,
    #[serde(default = "no")]
    pub force_refresh: bool,
}

#[derive(Deserialize, JsonSchema, Clone, Copy, Default)]
pub enum Period {
    #[serde(rename = "1w")]
    W1,
    #[serde(rename = "1m")]
    M1,
    #[default]
    #[serde(rename = "3m")]
    M3,
    #[serde(rename = "6m")]
    M6,
    #[serde(rename = "1y")]
    Y1,
}

#[derive(Serialize, JsonSchema, Clone)]
pub struct FunctionPerformance {
    pub function: String,
    pub calls: u64,
    pub generated: u64,
    pub reverts: u64,
    pub revert_rate: f64,
    /// Failures by kind: error (Error(string)), panic, custom (custom error or no data), halt
    pub reverts_by_kind: Value,
    pub new_points: u64,
    pub gas_p50: Option<u64>,
    pub gas_p90: Option<u64>,
    pub gas_p99: Option<u64>,
    pub last_new_coverage: Option<String>,
}

#[derive(Serialize, JsonSchema)]
pub struct PerformanceAnswer {
    /// Calls
    pub total_signals: u64,
    /// Share of calls that did not revert
    pub accuracy: f64,
    /// New coverage points per thousand calls
    pub avg_return: f64,
    /// New coverage points per thousand generated calls
    pub sharpe: f64,
    /// Per function (the seed's per-month rows)
    pub performance_by_month: Vec<FunctionPerformance>,
}
