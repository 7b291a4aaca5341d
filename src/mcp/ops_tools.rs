//! The ops family (seed 001): the sixteen TradeStream tools, under their
//! seed names, as analogues over the running campaign. Each description
//! says what its seed fields mean here; the README has the whole mapping.
//!
//! * market data: a campaign *metric* is the symbol (`calls_per_s`,
//!   `coverage_points`, …): `get_current_price`, `get_candles`,
//!   `get_volatility` (coverage growth and stagnation, also per function).
//! * trading: `get_balance` (the call and time budget), `get_positions`
//!   (what each worker runs now), `validate_trade` (a call checked and
//!   dry-run on a fresh deployment, nothing injected).
//! * strategies: generation strategies ranked (`get_top_strategies`),
//!   per-function recommendations with evidence (`get_strategy_signal`),
//!   merged (`get_strategy_consensus`).
//! * specs: properties ranked (`get_top_specs`), the code behind one
//!   (`get_implementations`), invariants added at run time
//!   (`submit_new_spec`).
//! * memory: `save_decision`, `get_recent_decisions` (journal database).
//! * backtest: `run_backtest` (an isolated replay), `get_historical_performance`
//!   (per-function statistics).
//!
//! Handlers parse, read the stores and shape; the statistics live in
//! [`crate::campaign::Stats`], the history in [`crate::ops`], specs in
//! [`crate::campaign::spec`].

use super::conventions::{Pagination, TtlCache, mark, page};
use super::errors::ToolError;
use super::family::{Access, Family, FamilyName, Gate, ToolAnswer, ToolDef};
use crate::campaign::oracle::{DryStop, Oracle};
use crate::campaign::run_report;
use crate::campaign::spec::{Spec, SpecSource};
use crate::campaign::{Control, SpecRefused, Stores, rfc3339};
use crate::corpus::Origin;
use crate::eventlog::now_ms;
use crate::ops::{Metric, Sample};
use crate::tx::Tx;
use alloy_primitives::U256;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

/// Cache TTLs: seed 001's table, written once.
mod ttl {
    use std::time::Duration;
    pub const TOP_STRATEGIES: Duration = Duration::from_secs(30);
    pub const STRATEGY_SIGNAL: Duration = Duration::from_secs(10);
    pub const STRATEGY_CONSENSUS: Duration = Duration::from_secs(30);
    pub const CURRENT_PRICE: Duration = Duration::from_secs(5);
    pub const CANDLES: Duration = Duration::from_secs(60);
    pub const VOLATILITY: Duration = Duration::from_secs(30);
    pub const RECENT_DECISIONS: Duration = Duration::from_secs(30);
    pub const TOP_SPECS: Duration = Duration::from_secs(60);
    pub const IMPLEMENTATIONS: Duration = Duration::from_secs(30);
    pub const HISTORICAL_PERFORMANCE: Duration = Duration::from_secs(300);
}

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
    /// The metric: calls, calls_per_s, coverage_points, corpus_size, open_properties, falsified, sequences
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
    pub parameters: Value,
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
    pub signals: Value,
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
    fn as_str(self) -> &'static str {
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

// ---------------------------------------------------------------- family

/// The ops family over one campaign.
#[derive(Clone)]
pub struct OpsTools {
    control: Control,
    cache: Arc<TtlCache>,
}

impl OpsTools {
    pub fn new(control: &Control) -> Self {
        OpsTools {
            control: control.clone(),
            cache: Arc::new(TtlCache::default()),
        }
    }

    fn stores(&self) -> &Arc<Stores> {
        self.control.stores()
    }

    /// A cached read: `key` names the call (tool, arguments, data version).
    fn cached<A: Serialize>(
        &self,
        key: String,
        ttl: Duration,
        force: bool,
        f: impl FnOnce() -> Result<A, ToolError>,
    ) -> Result<ToolAnswer, ToolError> {
        let (mut v, c) = self.cache.get_or_compute(&key, Some(ttl), force, || {
            serde_json::to_value(f()?).map_err(|e| ToolError::internal(e.to_string()))
        })?;
        mark(&mut v, c);
        Ok(ToolAnswer {
            structured: v,
            text: None,
        })
    }

    fn metric(&self, symbol: &str) -> Result<Metric, ToolError> {
        Metric::parse(symbol).ok_or_else(|| {
            ToolError::seed001(
                "INVALID_SYMBOL",
                "symbol",
                format!(
                    "{symbol:?} is not a campaign metric; metrics: {}",
                    Metric::names()
                ),
            )
        })
    }

    fn samples(&self) -> Vec<Sample> {
        let s = self.stores();
        s.ops.history.with_now(s.sample_now())
    }

    fn contract_symbol(&self, symbol: &str) -> Result<(), ToolError> {
        let name = &self.stores().target.contract.name;
        if symbol == name || symbol == "*" {
            Ok(())
        } else {
            Err(ToolError::seed001(
                "INVALID_SYMBOL",
                "symbol",
                format!("{symbol:?}: the campaign's contract is {name:?} (or `*`)"),
            ))
        }
    }

    /// The callable function with signature `sig`.
    fn callable(&self, sig: &str, field: &str) -> Result<usize, ToolError> {
        let s = self.stores();
        s.callable
            .iter()
            .position(|c| c.function.signature() == sig)
            .ok_or_else(|| {
                let all: Vec<String> = s.callable.iter().map(|c| c.function.signature()).collect();
                ToolError::seed001(
                    "INVALID_SYMBOL",
                    field,
                    format!(
                        "{sig:?} is not a function the campaign calls; functions: {}",
                        all.join(", ")
                    ),
                )
            })
    }

    fn width(&self, timeframe: &str) -> Result<u64, ToolError> {
        crate::ops::parse_width(timeframe).ok_or_else(|| {
            ToolError::seed001(
                "INVALID_TIMEFRAME",
                "timeframe",
                format!("{timeframe:?}: a width such as 1m, 5m, 15m, 1h, 4h, 1d, 10s or 500ms"),
            )
        })
    }

    // ------------------------------------------------------- market data

    fn current_price(&self, p: PriceParams, _: &Gate) -> Result<ToolAnswer, ToolError> {
        let metric = self.metric(&p.symbol)?;
        self.cached(
            format!("price:{}", p.symbol),
            ttl::CURRENT_PRICE,
            p.force_refresh,
            || {
                let samples = self.samples();
                let now = *samples.last().expect("with_now adds one");
                let value_at = |ago_ms: u64| -> f64 {
                    let t = now.t_ms.saturating_sub(ago_ms);
                    let i = samples
                        .partition_point(|s| s.t_ms < t)
                        .min(samples.len() - 1);
                    metric.value(&samples[i], i.checked_sub(1).map(|j| &samples[j]))
                };
                let n = samples.len();
                let price = metric.value(&now, n.checked_sub(2).map(|j| &samples[j]));
                let day = 86_400_000;
                let first_calls = samples
                    .iter()
                    .find(|s| s.t_ms + day >= now.t_ms)
                    .map_or(0, |s| s.calls);
                Ok(PriceAnswer {
                    price,
                    change_1h: price - value_at(3_600_000),
                    change_24h: price - value_at(day),
                    volume_24h: now.calls.saturating_sub(first_calls) as f64
                        + if samples.first().is_some_and(|s| s.t_ms + day >= now.t_ms) {
                            first_calls as f64
                        } else {
                            0.0
                        },
                    timestamp: rfc3339(now.t_ms),
                })
            },
        )
    }

    fn candles(&self, p: CandlesParams, _: &Gate) -> Result<ToolAnswer, ToolError> {
        let metric = self.metric(&p.symbol)?;
        let width = self.width(&p.timeframe)?;
        self.cached(
            format!("candles:{}:{width}:{}:{}", p.symbol, p.limit, p.offset),
            ttl::CANDLES,
            p.force_refresh,
            || {
                let mut all = crate::ops::candles(&self.samples(), metric, width);
                all.reverse();
                let all: Vec<CandleItem> = all
                    .into_iter()
                    .map(|c| CandleItem {
                        timestamp: rfc3339(c.start_ms),
                        open: c.open,
                        high: c.high,
                        low: c.low,
                        close: c.close,
                        volume: c.volume,
                    })
                    .collect();
                let (items, pagination) = page(all, p.offset, p.limit);
                Ok(CandlesAnswer { items, pagination })
            },
        )
    }

    fn volatility(&self, p: VolatilityParams, _: &Gate) -> Result<ToolAnswer, ToolError> {
        let width = self.width(&p.timeframe)?;
        let s = self.stores().clone();
        // A function's own coverage, or a metric.
        let function = match Metric::parse(&p.symbol) {
            Some(_) => None,
            None if p.symbol.contains('(') => Some(self.callable(&p.symbol, "symbol")?),
            None => {
                self.metric(&p.symbol)?;
                None
            }
        };
        let metric = Metric::parse(&p.symbol).unwrap_or(Metric::CoveragePoints);
        self.cached(
            format!("volatility:{}:{width}", p.symbol),
            ttl::VOLATILITY,
            p.force_refresh,
            || {
                let candles = crate::ops::candles(&self.samples(), metric, width);
                if candles.len() < 2 {
                    return Err(ToolError::seed001(
                        "INSUFFICIENT_DATA",
                        "timeframe",
                        format!(
                            "{} bucket(s) of {} so far; at least 2 are needed (a narrower timeframe has more)",
                            candles.len(),
                            p.timeframe
                        ),
                    ));
                }
                let changes: Vec<f64> = candles.windows(2).map(|w| w[1].close - w[0].close).collect();
                let mean = changes.iter().sum::<f64>() / changes.len() as f64;
                let var = changes.iter().map(|c| (c - mean).powi(2)).sum::<f64>()
                    / changes.len() as f64;
                let atr = candles.iter().map(|c| c.high - c.low).sum::<f64>() / candles.len() as f64;
                let hi = candles.iter().map(|c| c.high).fold(f64::MIN, f64::max);
                let lo = candles.iter().map(|c| c.low).fold(f64::MAX, f64::min);
                let now = now_ms();
                let since = |ms: u64| (ms > 0).then(|| now.saturating_sub(ms));
                let totals = s.stats.function_totals();
                let mut per_function: Vec<FunctionGrowth> = totals
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| function.is_none_or(|f| f == *i))
                    .map(|(i, t)| FunctionGrowth {
                        function: s.callable[i].function.signature(),
                        new_points: t.new_points,
                        ms_since_new_coverage: since(t.last_new_ms),
                    })
                    .collect();
                per_function.sort_by_key(|f| std::cmp::Reverse(f.ms_since_new_coverage.unwrap_or(u64::MAX)));
                let campaign_last = s
                    .stats
                    .workers
                    .iter()
                    .map(|w| w.last_new_ms.load(std::sync::atomic::Ordering::Relaxed))
                    .max()
                    .unwrap_or(0);
                let stagnation_ms = match function {
                    Some(i) => since(totals[i].last_new_ms),
                    None => since(campaign_last),
                };
                Ok(VolatilityAnswer {
                    volatility: var.sqrt(),
                    atr,
                    high_low_range: hi - lo,
                    growth_per_bucket: mean,
                    stagnation_ms,
                    per_function,
                })
            },
        )
    }

    // ------------------------------------------------------------ trading

    fn balance(&self, _: BalanceParams, _: &Gate) -> Result<ToolAnswer, ToolError> {
        let s = self.stores();
        let r = std::sync::atomic::Ordering::Relaxed;
        let used = s.stats.calls();
        let limit = s.config.test_limit;
        let left = limit.saturating_sub(used);
        let elapsed_ms = s.started.elapsed().as_millis() as u64;
        let rate = if elapsed_ms > 0 {
            used as f64 * 1000.0 / elapsed_ms as f64
        } else {
            0.0
        };
        let time_left_ms = s
            .config
            .timeout
            .map(|t| (t * 1000).saturating_sub(elapsed_ms));
        let unrealized = match time_left_ms {
            Some(ms) => (rate * ms as f64 / 1000.0).min(f64::MAX) - left as f64,
            None => 0.0,
        };
        let workers = (0..s.workers())
            .map(|i| {
                let w = &s.stats.workers[i];
                WorkerBudget {
                    worker: i as u32,
                    calls: w.calls.load(r),
                    sequences: w.sequences.load(r),
                    injections: w.injections.load(r),
                    running: w.running.load(r),
                }
            })
            .collect();
        fresh(BalanceAnswer {
            total_balance: limit as f64,
            available_balance: left as f64,
            margin_used: used as f64,
            unrealized_pnl: unrealized,
            elapsed_ms,
            time_left_ms,
            calls_per_s: rate,
            workers,
        })
    }

    fn positions(&self, p: PositionsParams, _: &Gate) -> Result<ToolAnswer, ToolError> {
        let s = self.stores();
        let contract = s.target.contract.name.clone();
        let filter = match p.symbol.as_deref() {
            None => None,
            Some(sym) if sym == contract || sym == "*" => None,
            Some(sym) => Some(self.callable(sym, "symbol")?),
        };
        let r = std::sync::atomic::Ordering::Relaxed;
        let points = s.target.coverage.points();
        let now = now_ms();
        let all: Vec<PositionItem> = (0..s.workers())
            .filter_map(|i| {
                let w = &s.stats.workers[i];
                let pos = w.position.snapshot();
                if filter.is_some() && pos.last_function != filter {
                    return None;
                }
                let last = w.last_new_ms.load(r);
                Some(PositionItem {
                    symbol: contract.clone(),
                    side: if w.running.load(r) { "LONG" } else { "SHORT" }.into(),
                    size: pos.done as f64,
                    entry_price: pos.start_points as f64,
                    current_price: points as f64,
                    unrealized_pnl: pos.points as f64,
                    opened_at: rfc3339(if pos.started_ms > 0 {
                        pos.started_ms
                    } else {
                        s.started_ms
                    }),
                    worker: i as u32,
                    source: pos.source.map(|o| o.as_str().to_string()),
                    planned_calls: pos.planned,
                    last_function: pos
                        .last_function
                        .map(|k| s.callable[k].function.signature()),
                    calls: w.calls.load(r),
                    ms_since_new_coverage: (last > 0).then(|| now.saturating_sub(last)),
                })
            })
            .collect();
        let (items, pagination) = page(all, p.offset, p.limit);
        fresh(PositionsAnswer { items, pagination })
    }

    fn validate_trade(&self, p: TradeParams, gate: &Gate) -> Result<ToolAnswer, ToolError> {
        let s = self.stores();
        if !(p.size >= 1.0 && p.size <= 100.0 && p.size.fract() == 0.0) {
            return Err(ToolError::seed001(
                "INVALID_SIZE",
                "size",
                format!("{}: a whole number of runs from 1 to 100", p.size),
            ));
        }
        let value = match p.price {
            None => U256::ZERO,
            Some(v) if v >= 0.0 && v.fract() == 0.0 && v < 1e77 => {
                U256::from_str_radix(&format!("{v:.0}"), 10).unwrap_or_default()
            }
            Some(v) => {
                return Err(ToolError::seed001(
                    "INVALID_PARAMETER",
                    "price",
                    format!("{v}: wei, a whole number ≥ 0"),
                ));
            }
        };
        let txs = self
            .control
            .parse_calls(std::slice::from_ref(&p.symbol), None, value)
            .map_err(|e| ToolError::seed001("INVALID_SYMBOL", "symbol", e.to_string()))?;
        let [tx] = txs.as_slice() else {
            return Err(ToolError::seed001(
                "INVALID_SYMBOL",
                "symbol",
                format!("{:?}: one call (run it several times with size)", p.symbol),
            ));
        };
        let runs = vec![tx.clone(); p.size as usize];
        let (calls, _) = dry_run(s, &runs, gate)?;
        let failed = calls.iter().position(|c| c.outcome != "success");
        let max_size = failed.unwrap_or(calls.len()) as f64;
        let reverted = calls.iter().filter(|c| c.outcome != "success").count();
        let (valid, reason) = match (p.side, failed) {
            (Side::BUY, None) => (true, format!("succeeded {} time(s)", calls.len())),
            (Side::BUY, Some(i)) => (
                false,
                format!(
                    "run {} failed: {}",
                    i + 1,
                    calls[i]
                        .reason
                        .clone()
                        .unwrap_or_else(|| calls[i].outcome.clone())
                ),
            ),
            (Side::SELL, Some(0)) => (
                true,
                format!(
                    "reverted as expected: {}",
                    calls[0]
                        .reason
                        .clone()
                        .unwrap_or_else(|| calls[0].outcome.clone())
                ),
            ),
            (Side::SELL, _) => (false, "the first run succeeded; expected a revert".into()),
        };
        fresh(TradeAnswer {
            valid,
            reason,
            max_size,
            risk_score: reverted as f64 / calls.len().max(1) as f64,
            calls,
        })
    }

    // --------------------------------------------------------- strategies

    fn top_strategies(&self, p: TopStrategiesParams, _: &Gate) -> Result<ToolAnswer, ToolError> {
        self.contract_symbol(&p.symbol)?;
        let metric = p.metric;
        self.cached(
            format!("strategies:{}:{}:{}", metric as u8, p.limit, p.offset),
            ttl::TOP_STRATEGIES,
            p.force_refresh,
            || {
                let s = self.stores();
                let r = std::sync::atomic::Ordering::Relaxed;
                let mut all: Vec<StrategyItem> = Origin::ALL
                    .iter()
                    .map(|o| {
                        let i = o.index();
                        let sum = |f: fn(&crate::campaign::WorkerStats) -> &[std::sync::atomic::AtomicU64; Origin::COUNT]| -> u64 {
                            s.stats.workers.iter().map(|w| f(w)[i].load(r)).sum()
                        };
                        let calls = sum(|w| &w.origin_calls);
                        let reverts = sum(|w| &w.origin_reverts);
                        let points = sum(|w| &w.origin_points);
                        let sharpe = if calls > 0 { points as f64 * 1000.0 / calls as f64 } else { 0.0 };
                        let accuracy = if calls > 0 { 1.0 - reverts as f64 / calls as f64 } else { 0.0 };
                        StrategyItem {
                            strategy_id: o.as_str().into(),
                            name: match o {
                                Origin::Random => "fresh random sequences (dictionary and comparison values among the arguments)",
                                Origin::Mutation => "mutations of corpus entries (frontier first, comparison operands, splicing)",
                                Origin::Injected => "sequences injected through the control plane",
                                Origin::Replayed => "corpus entries replayed on resume",
                            }
                            .into(),
                            score: match metric {
                                RankMetric::Sharpe => sharpe,
                                RankMetric::Accuracy => accuracy,
                                RankMetric::Return => points as f64,
                            },
                            sharpe,
                            accuracy,
                            signals_count: calls,
                            new_points: points,
                        }
                    })
                    .collect();
                all.sort_by(|a, b| b.score.total_cmp(&a.score));
                let (items, pagination) = page(all, p.offset, p.limit);
                Ok(TopStrategiesAnswer { items, pagination })
            },
        )
    }

    fn strategy_signal(&self, p: SignalParams, _: &Gate) -> Result<ToolAnswer, ToolError> {
        let strategy = SignalStrategy::parse(&p.strategy_id)?;
        let k = self.callable(&p.symbol, "symbol")?;
        self.cached(
            format!("signal:{}:{}", p.strategy_id, p.symbol),
            ttl::STRATEGY_SIGNAL,
            p.force_refresh,
            || {
                Ok(signal(
                    self.stores(),
                    k,
                    strategy,
                    &self.stores().graph.gaps(),
                    &self.stores().stats.function_totals(),
                ))
            },
        )
    }

    fn strategy_consensus(&self, p: ConsensusParams, _: &Gate) -> Result<ToolAnswer, ToolError> {
        let s = self.stores().clone();
        let only = if p.symbol == s.target.contract.name || p.symbol == "*" {
            None
        } else {
            Some(self.callable(&p.symbol, "symbol").map_err(|_| {
                ToolError::seed001(
                    "INVALID_SYMBOL",
                    "symbol",
                    format!(
                        "{:?}: the contract's name ({}) or a function's signature",
                        p.symbol, s.target.contract.name
                    ),
                )
            })?)
        };
        if s.callable.is_empty() {
            return Err(ToolError::seed001(
                "NO_ACTIVE_STRATEGIES",
                "symbol",
                "the campaign calls no function",
            ));
        }
        self.cached(
            format!("consensus:{}", p.symbol),
            ttl::STRATEGY_CONSENSUS,
            p.force_refresh,
            || {
                let gaps = s.graph.gaps();
                let totals = s.stats.function_totals();
                let (mut bull, mut bear, mut neutral) = (0u64, 0u64, 0u64);
                let mut ranked = Vec::new();
                for k in 0..s.callable.len() {
                    if only.is_some_and(|o| o != k) {
                        continue;
                    }
                    let mut score = 0.0;
                    let mut signals = serde_json::Map::new();
                    for st in SignalStrategy::EACH {
                        let a = signal(&s, k, st, &gaps, &totals);
                        match a.signal.as_str() {
                            "BUY" => {
                                bull += 1;
                                score += a.confidence;
                            }
                            "SELL" => {
                                bear += 1;
                                score -= a.confidence;
                            }
                            _ => neutral += 1,
                        }
                        signals.insert(st.as_str().into(), json!(a.signal));
                    }
                    ranked.push(RankedFunction {
                        function: s.callable[k].function.signature(),
                        score,
                        signals: Value::Object(signals),
                    });
                }
                ranked.sort_by(|a, b| b.score.total_cmp(&a.score));
                let total = (bull + bear + neutral).max(1) as f64;
                let net = (bull as f64 - bear as f64) / total;
                let consensus = match net {
                    n if n >= 0.6 => "STRONG_BUY",
                    n if n >= 0.2 => "BUY",
                    n if n <= -0.6 => "STRONG_SELL",
                    n if n <= -0.2 => "SELL",
                    _ => "NEUTRAL",
                };
                Ok(ConsensusAnswer {
                    bullish_count: bull,
                    bearish_count: bear,
                    neutral_count: neutral,
                    consensus: consensus.into(),
                    confidence: net.abs(),
                    ranked,
                })
            },
        )
    }

    // -------------------------------------------------------------- specs

    fn top_specs(&self, p: TopSpecsParams, _: &Gate) -> Result<ToolAnswer, ToolError> {
        let s = self.stores().clone();
        let version = (s.tests.len(), s.tests.falsified_count());
        self.cached(
            format!(
                "specs:{}:{}:{}:{version:?}",
                p.source as u8, p.limit, p.offset
            ),
            ttl::TOP_SPECS,
            p.force_refresh,
            || {
                let graph = s.graph.graph();
                let calls = s.stats.calls();
                let mut all: Vec<SpecItem> = s
                    .tests
                    .cases()
                    .filter(|c| match p.source {
                        SpecSourceFilter::ALL => true,
                        SpecSourceFilter::CANONICAL => c.spec.is_none(),
                        SpecSourceFilter::LLM_GENERATED => c.spec.is_some(),
                    })
                    .map(|c| {
                        let (added, closed) = s.tests.evaluated_between(c.id).unwrap_or((0, None));
                        let evaluations = closed.unwrap_or(calls).saturating_sub(added);
                        let f = s.tests.falsified(c.id);
                        let indicators = match &c.spec {
                            Some(spec) => spec.reads.clone(),
                            None => vec![c.function.signature()],
                        };
                        let reads: Vec<String> = graph
                            .functions
                            .iter()
                            .filter(|g| {
                                indicators.iter().any(|i| {
                                    g.signature == *i && g.contract == s.target.contract.name
                                })
                            })
                            .flat_map(|g| g.reads.clone())
                            .collect();
                        let mut writers: Vec<String> =
                            reads.iter().flat_map(|v| graph.writers_of(v)).collect();
                        writers.sort();
                        writers.dedup();
                        SpecItem {
                            spec_id: c.name.clone(),
                            name: c.name.clone(),
                            indicators,
                            avg_sharpe: evaluations as f64 / 1000.0,
                            implementations_count: writers.len() as u64,
                            status: if f.is_some() { "falsified" } else { "open" }.into(),
                            kind: format!("{:?}", c.kind).to_lowercase(),
                            source: if c.spec.is_some() {
                                "LLM_GENERATED"
                            } else {
                                "CANONICAL"
                            }
                            .into(),
                            evaluations,
                            reason: f.as_ref().map(|f| f.reason.clone()),
                            counterexample: f
                                .as_ref()
                                .map(|f| s.print_sequence(f.sequence()))
                                .unwrap_or_default(),
                        }
                    })
                    .collect();
                // Open first, longest held first.
                all.sort_by(|a, b| {
                    (a.status != "open", std::cmp::Reverse(a.evaluations))
                        .cmp(&(b.status != "open", std::cmp::Reverse(b.evaluations)))
                });
                let (items, pagination) = page(all, p.offset, p.limit);
                Ok(TopSpecsAnswer { items, pagination })
            },
        )
    }

    fn implementations(&self, p: ImplementationsParams, _: &Gate) -> Result<ToolAnswer, ToolError> {
        let s = self.stores().clone();
        let test = s.tests.cases().find(|c| c.name == p.spec_id).cloned();
        let is_function = s
            .target
            .functions
            .iter()
            .any(|f| f.signature() == p.spec_id);
        if test.is_none() && !is_function {
            let tests: Vec<String> = s.tests.cases().map(|c| c.name.clone()).collect();
            return Err(ToolError::seed001(
                "SPEC_NOT_FOUND",
                "spec_id",
                format!(
                    "{:?} is neither a test nor a function signature; tests: {}",
                    p.spec_id,
                    tests.join(", ")
                ),
            ));
        }
        self.cached(
            format!("impl:{}:{}:{}:{}", p.spec_id, p.status as u8, p.limit, p.offset),
            ttl::IMPLEMENTATIONS,
            p.force_refresh,
            || {
                let graph = s.graph.graph();
                let contract = s.target.contract.name.clone();
                let node = |sig: &str| {
                    graph
                        .functions
                        .iter()
                        .find(|g| g.signature == sig && g.contract == contract)
                        .or_else(|| graph.functions.iter().find(|g| g.signature == sig))
                };
                // The functions it is about, then what writes their state
                // (a test) or calls them (a function).
                let roots: Vec<String> = match &test {
                    Some(c) => match &c.spec {
                        Some(spec) => spec.reads.clone(),
                        None => vec![c.function.signature()],
                    },
                    None => vec![p.spec_id.clone()],
                };
                let mut related: Vec<(String, &'static str)> = Vec::new();
                for r in &roots {
                    related.push((r.clone(), "root"));
                    if let Some(n) = node(r) {
                        if test.is_some() {
                            for v in &n.reads {
                                for w in graph.writers_of(v) {
                                    let sig = w.split_once('.').map_or(w.clone(), |(_, s)| s.to_string());
                                    related.push((sig, "writer"));
                                }
                            }
                        } else {
                            for c in graph.callers_of(&n.qualified()) {
                                related.push((c, "caller"));
                            }
                        }
                    }
                }
                let mut seen = std::collections::HashSet::new();
                related.retain(|(sig, _)| seen.insert(sig.clone()));
                let totals = s.stats.function_totals();
                let all: Vec<ImplItem> = related
                    .iter()
                    .map(|(sig, role)| {
                        let n = node(sig);
                        let k = s.callable.iter().position(|c| c.function.signature() == *sig);
                        let t = k.map(|k| &totals[k]);
                        let calls = t.map_or(0, |t| t.calls);
                        let status = match (test.is_some() && *role == "root", t) {
                            (true, _) => "DEPLOYED",
                            (false, None) => "RETIRED",
                            (false, Some(t)) if t.calls > t.reverts => "VALIDATED",
                            (false, Some(_)) => "CANDIDATE",
                        };
                        ImplItem {
                            impl_id: format!(
                                "{}.{sig}",
                                n.map_or(contract.clone(), |n| n.contract.clone())
                            ),
                            parameters: json!({
                                "role": role,
                                "file": n.map(|n| n.file.clone()),
                                "line_start": n.map(|n| n.span.line_start),
                                "line_end": n.map(|n| n.span.line_end),
                                "reads": n.map(|n| n.reads.clone()).unwrap_or_default(),
                                "writes": n.map(|n| n.writes.clone()).unwrap_or_default(),
                                "callers": n.map(|n| graph.callers_of(&n.qualified())).unwrap_or_default(),
                                "calls": calls,
                            }),
                            symbol: n.map_or(contract.clone(), |n| n.contract.clone()),
                            forward_sharpe: t.map_or(0.0, |t| {
                                if t.calls > 0 { t.new_points as f64 * 1000.0 / t.calls as f64 } else { 0.0 }
                            }),
                            forward_accuracy: t.map_or(0.0, |t| {
                                if t.calls > 0 { 1.0 - t.reverts as f64 / t.calls as f64 } else { 0.0 }
                            }),
                            status: status.into(),
                        }
                    })
                    .filter(|i| {
                        p.status == ImplStatus::ALL
                            || i.status
                                == match p.status {
                                    ImplStatus::CANDIDATE => "CANDIDATE",
                                    ImplStatus::VALIDATED => "VALIDATED",
                                    ImplStatus::DEPLOYED => "DEPLOYED",
                                    ImplStatus::RETIRED => "RETIRED",
                                    ImplStatus::ALL => unreachable!(),
                                }
                    })
                    .collect();
                let (items, pagination) = page(all, p.offset, p.limit);
                Ok(ImplementationsAnswer { items, pagination })
            },
        )
    }

    fn submit_spec(&self, p: SubmitSpecParams, gate: &Gate) -> Result<ToolAnswer, ToolError> {
        let s = self.stores();
        let src = SpecSource {
            name: p.name,
            description: p.description.unwrap_or_default(),
            indicators: p.indicators,
            entry_conditions: p.entry_conditions,
            exit_conditions: p.exit_conditions,
            parameters: p.parameters,
            reasoning: p.reasoning.unwrap_or_default(),
            submitted_ms: now_ms(),
        };
        let spec = Spec::parse(src, &s.target.functions)
            .map_err(|e| ToolError::seed001(e.code, &e.field, e.to_string()))?;
        if s.tests.cases().any(|c| c.name == spec.source.name) {
            return Err(ToolError::seed001(
                "DUPLICATE_NAME",
                "name",
                format!("a test named {:?} exists already", spec.source.name),
            ));
        }
        gate.commit("submit_new_spec")?;
        let name = spec.source.name.clone();
        match s.add_spec(spec) {
            Ok(_) => {}
            Err(SpecRefused::Duplicate(n)) => {
                return Err(ToolError::seed001(
                    "DUPLICATE_NAME",
                    "name",
                    format!("a test named {n:?} exists already"),
                ));
            }
            Err(SpecRefused::Full(n)) => {
                return Err(ToolError::seed001(
                    "SCHEMA_VALIDATION_ERROR",
                    "name",
                    format!("the campaign has {n} tests, the most it can check"),
                ));
            }
            Err(e @ SpecRefused::Io { .. }) => {
                return Err(ToolError::seed001("DATABASE_ERROR", "name", e.to_string()));
            }
            Err(SpecRefused::Invalid(e)) => {
                return Err(ToolError::seed001(e.code, &e.field, e.to_string()));
            }
        }
        fresh(SubmitSpecAnswer {
            spec_id: name,
            created: true,
            validation_errors: Vec::new(),
        })
    }

    // ------------------------------------------------------------- memory

    fn save_decision(&self, p: SaveDecisionParams, gate: &Gate) -> Result<ToolAnswer, ToolError> {
        let s = self.stores();
        let symbol = p.symbol.trim();
        if symbol.is_empty() || symbol.len() > 256 || symbol.chars().any(char::is_control) {
            return Err(ToolError::seed001(
                "INVALID_SYMBOL",
                "symbol",
                "1 to 256 printable characters: a function, a metric, a test or the contract",
            ));
        }
        if !(0.0..=1.0).contains(&p.confidence) {
            return Err(ToolError::seed001(
                "INVALID_CONFIDENCE",
                "confidence",
                format!("{}: between 0 and 1", p.confidence),
            ));
        }
        if p.reasoning.len() > crate::ops::MAX_REASONING {
            return Err(ToolError::seed001(
                "REASONING_TOO_LONG",
                "reasoning",
                format!(
                    "{} bytes; at most {}",
                    p.reasoning.len(),
                    crate::ops::MAX_REASONING
                ),
            ));
        }
        if p.opportunity_score.is_some_and(|o| !o.is_finite()) {
            return Err(ToolError::seed001(
                "INVALID_PARAMETER",
                "opportunity_score",
                "a finite number",
            ));
        }
        gate.commit("save_decision")?;
        let created_ms = now_ms();
        let decision_id = format!("dec-{}-{:04}", s.run_id, s.ops.decisions.len() + 1);
        s.save_decision(crate::ops::Decision {
            decision_id: decision_id.clone(),
            run_id: s.run_id.clone(),
            symbol: symbol.to_string(),
            action: p.action.as_str().into(),
            confidence: p.confidence,
            opportunity_score: p.opportunity_score,
            reasoning: p.reasoning,
            tool_calls: Value::Array(p.tool_calls.unwrap_or_default()),
            created_ms,
        });
        fresh(SaveDecisionAnswer {
            decision_id,
            saved: true,
        })
    }

    fn recent_decisions(
        &self,
        p: RecentDecisionsParams,
        _: &Gate,
    ) -> Result<ToolAnswer, ToolError> {
        let s = self.stores().clone();
        let version = s.ops.decisions.len();
        self.cached(
            format!(
                "decisions:{:?}:{:?}:{}:{}:{version}",
                p.symbol, p.action, p.limit, p.offset
            ),
            ttl::RECENT_DECISIONS,
            p.force_refresh,
            || {
                let all: Vec<DecisionItem> = s
                    .ops
                    .decisions
                    .recent(p.symbol.as_deref(), p.action.map(Action::as_str))
                    .into_iter()
                    .map(|d| DecisionItem {
                        decision_id: d.decision_id,
                        symbol: d.symbol,
                        action: d.action,
                        confidence: d.confidence,
                        opportunity_score: d.opportunity_score,
                        reasoning: d.reasoning,
                        created_at: rfc3339(d.created_ms),
                        run_id: d.run_id,
                    })
                    .collect();
                let (items, pagination) = page(all, p.offset, p.limit);
                Ok(RecentDecisionsAnswer { items, pagination })
            },
        )
    }

    // ----------------------------------------------------------- backtest

    fn backtest(&self, p: BacktestParams, gate: &Gate) -> Result<ToolAnswer, ToolError> {
        let s = self.stores();
        self.contract_symbol(&p.symbol)?;
        let day = |field: &str, d: &Option<String>| -> Result<Option<u64>, ToolError> {
            d.as_deref()
                .map(|d| {
                    parse_date(d).ok_or_else(|| {
                        ToolError::seed001(
                            "INVALID_PARAMETER",
                            field,
                            format!("{d:?}: a date YYYY-MM-DD"),
                        )
                    })
                })
                .transpose()
        };
        let start = day("start_date", &p.start_date)?;
        let end = day("end_date", &p.end_date)?.map(|e| e + 86_399);
        if let (Some(a), Some(b)) = (start, end)
            && a > b
        {
            return Err(ToolError::seed001(
                "INVALID_DATE_RANGE",
                "start_date",
                "start_date must not be after end_date",
            ));
        }
        let txs: Vec<Tx> = match p.strategy_id.split_once(':') {
            _ if p.strategy_id == "inline" => {
                let calls = p.calls.unwrap_or_default();
                self.control
                    .parse_calls(&calls, None, U256::ZERO)
                    .map_err(|e| {
                        let e = ToolError::from(e);
                        ToolError::seed001("INVALID_PARAMETER", "calls", e.message)
                    })?
            }
            Some(("corpus", n)) => n
                .parse::<u64>()
                .ok()
                .and_then(|n| s.corpus.get(crate::ids::EntryId(n)))
                .map(|e| e.txs.clone())
                .ok_or_else(|| {
                    ToolError::seed001(
                        "STRATEGY_NOT_FOUND",
                        "strategy_id",
                        format!(
                            "{}: the corpus has entries 0 to {}",
                            p.strategy_id,
                            s.corpus.len() as i64 - 1
                        ),
                    )
                })?,
            Some(("test", name)) => s
                .tests
                .cases()
                .find(|c| c.name == name)
                .and_then(|c| s.tests.falsified(c.id))
                .map(|f| f.sequence().to_vec())
                .ok_or_else(|| {
                    ToolError::seed001(
                        "STRATEGY_NOT_FOUND",
                        "strategy_id",
                        format!("{}: no falsified test of that name", p.strategy_id),
                    )
                })?,
            _ => {
                return Err(ToolError::seed001(
                    "STRATEGY_NOT_FOUND",
                    "strategy_id",
                    format!("{:?}: inline, corpus:N or test:NAME", p.strategy_id),
                ));
            }
        };
        if txs.len() > crate::campaign::control::MAX_INJECTED_CALLS {
            return Err(ToolError::seed001(
                "INVALID_PARAMETER",
                "calls",
                format!(
                    "{} calls; at most {}",
                    txs.len(),
                    crate::campaign::control::MAX_INJECTED_CALLS
                ),
            ));
        }
        let (calls, falsified) = dry_run_from(s, &txs, gate, start, end)?;
        let trades = calls.len() as u64;
        let points: u64 = calls.iter().map(|c| c.new_coverage_points as u64).sum();
        let wins = calls.iter().filter(|c| c.outcome == "success").count();
        let mut dry = 0u64;
        let mut max_dry = 0u64;
        for c in &calls {
            if c.new_coverage_points == 0 {
                dry += 1;
                max_dry = max_dry.max(dry);
            } else {
                dry = 0;
            }
        }
        fresh(BacktestAnswer {
            total_return: points as f64,
            sharpe_ratio: if trades > 0 {
                points as f64 / trades as f64
            } else {
                0.0
            },
            max_drawdown: max_dry as f64,
            win_rate: if trades > 0 {
                wins as f64 / trades as f64
            } else {
                0.0
            },
            trades,
            calls,
            falsified,
        })
    }

    fn performance(&self, p: PerformanceParams, _: &Gate) -> Result<ToolAnswer, ToolError> {
        if let Some(sym) = &p.symbol {
            self.contract_symbol(sym)?;
        }
        let only =
            if p.strategy_id == "all" {
                None
            } else {
                Some(self.callable(&p.strategy_id, "strategy_id").map_err(|e| {
                    ToolError::seed001("STRATEGY_NOT_FOUND", "strategy_id", e.message)
                })?)
            };
        let _ = p.period;
        self.cached(
            format!("performance:{}", p.strategy_id),
            ttl::HISTORICAL_PERFORMANCE,
            p.force_refresh,
            || {
                let s = self.stores();
                let totals = s.stats.function_totals();
                let rows: Vec<FunctionPerformance> = totals
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| only.is_none_or(|o| o == *k))
                    .map(|(k, t)| {
                        let errors = t.reverts.saturating_sub(t.panics + t.raw_reverts + t.halts);
                        FunctionPerformance {
                            function: s.callable[k].function.signature(),
                            calls: t.calls,
                            generated: t.generated,
                            reverts: t.reverts,
                            revert_rate: if t.calls > 0 { t.reverts as f64 / t.calls as f64 } else { 0.0 },
                            reverts_by_kind: json!({
                                "error": errors, "panic": t.panics, "custom": t.raw_reverts, "halt": t.halts
                            }),
                            new_points: t.new_points,
                            gas_p50: t.gas_quantile(0.5),
                            gas_p90: t.gas_quantile(0.9),
                            gas_p99: t.gas_quantile(0.99),
                            last_new_coverage: (t.last_new_ms > 0).then(|| rfc3339(t.last_new_ms)),
                        }
                    })
                    .collect();
                let calls: u64 = rows.iter().map(|r| r.calls).sum();
                let generated: u64 = rows.iter().map(|r| r.generated).sum();
                let reverts: u64 = rows.iter().map(|r| r.reverts).sum();
                let points: u64 = rows.iter().map(|r| r.new_points).sum();
                if calls == 0 {
                    return Err(ToolError::seed001(
                        "NO_PERFORMANCE_DATA",
                        "strategy_id",
                        format!("{}: no call executed yet", p.strategy_id),
                    ));
                }
                Ok(PerformanceAnswer {
                    total_signals: calls,
                    accuracy: 1.0 - reverts as f64 / calls as f64,
                    avg_return: points as f64 * 1000.0 / calls as f64,
                    sharpe: if generated > 0 { points as f64 * 1000.0 / generated as f64 } else { 0.0 },
                    performance_by_month: rows,
                })
            },
        )
    }
}

/// An answer computed now (not cached).
fn fresh<A: Serialize>(answer: A) -> Result<ToolAnswer, ToolError> {
    let mut v = serde_json::to_value(answer).map_err(|e| ToolError::internal(e.to_string()))?;
    mark(&mut v, Default::default());
    Ok(ToolAnswer {
        structured: v,
        text: None,
    })
}

/// The strategies behind a function's signal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SignalStrategy {
    Coverage,
    Constants,
    Reverts,
    All,
}

impl SignalStrategy {
    const EACH: [SignalStrategy; 3] = [
        SignalStrategy::Coverage,
        SignalStrategy::Constants,
        SignalStrategy::Reverts,
    ];

    fn as_str(self) -> &'static str {
        match self {
            SignalStrategy::Coverage => "coverage",
            SignalStrategy::Constants => "constants",
            SignalStrategy::Reverts => "reverts",
            SignalStrategy::All => "all",
        }
    }

    fn parse(s: &str) -> Result<Self, ToolError> {
        [
            SignalStrategy::Coverage,
            SignalStrategy::Constants,
            SignalStrategy::Reverts,
            SignalStrategy::All,
        ]
        .into_iter()
        .find(|x| x.as_str() == s)
        .ok_or_else(|| {
            ToolError::seed001(
                "STRATEGY_NOT_FOUND",
                "strategy_id",
                format!("{s:?}: coverage, constants, reverts or all"),
            )
        })
    }
}

/// Calls below which a revert rate says little.
const MIN_CALLS_FOR_REVERTS: u64 = 100;

/// The signal of strategy `st` for callable function `k`.
fn signal(
    s: &Stores,
    k: usize,
    st: SignalStrategy,
    gaps: &[crate::graph::join::Gap],
    totals: &[crate::campaign::FunctionTotals],
) -> SignalAnswer {
    let sig = s.callable[k].function.signature();
    let entry = format!("{}.{sig}", s.target.contract.name);
    let t = &totals[k];
    let reaches: Vec<&crate::graph::join::Gap> = gaps
        .iter()
        .filter(|g| g.entry_points.contains(&entry))
        .collect();
    let blocking = reaches
        .iter()
        .filter(|g| g.missing == crate::graph::join::Missing::NeverTrue)
        .count();
    let revert_rate = if t.calls > 0 {
        t.reverts as f64 / t.calls as f64
    } else {
        0.0
    };
    let constants: Vec<Value> = reaches
        .iter()
        .flat_map(|g| g.constants.iter())
        .map(|c| json!({ "name": c.name, "value": c.value }))
        .collect();
    let gap_json: Vec<Value> = reaches
        .iter()
        .take(8)
        .map(|g| {
            json!({
                "file": g.file, "line": g.line, "condition": g.condition,
                "missing": g.missing.as_str(), "params": g.params, "state": g.state,
                "state_writers": g.state_writers,
            })
        })
        .collect();
    let (signal, confidence) = match st {
        SignalStrategy::Coverage if reaches.is_empty() => ("HOLD", 0.5),
        SignalStrategy::Coverage => (
            "BUY",
            (0.5 + 0.1 * blocking as f64 + 0.05 * reaches.len() as f64).min(1.0),
        ),
        SignalStrategy::Constants if constants.is_empty() => ("HOLD", 0.5),
        SignalStrategy::Constants => ("BUY", (0.5 + 0.1 * constants.len() as f64).min(0.9)),
        SignalStrategy::Reverts if t.calls < MIN_CALLS_FOR_REVERTS => ("HOLD", 0.3),
        SignalStrategy::Reverts if revert_rate >= 0.9 && reaches.is_empty() => {
            ("SELL", revert_rate)
        }
        SignalStrategy::Reverts => ("HOLD", 1.0 - revert_rate),
        SignalStrategy::All => {
            let each: Vec<SignalAnswer> = SignalStrategy::EACH
                .iter()
                .map(|x| signal(s, k, *x, gaps, totals))
                .collect();
            let net: f64 = each
                .iter()
                .map(|a| match a.signal.as_str() {
                    "BUY" => a.confidence,
                    "SELL" => -a.confidence,
                    _ => 0.0,
                })
                .sum();
            match net {
                n if n > 0.0 => ("BUY", (n / 2.0).min(1.0)),
                n if n < 0.0 => ("SELL", (-n).min(1.0)),
                _ => ("HOLD", 0.5),
            }
        }
    };
    let recommendation = match signal {
        "BUY" => "prioritize",
        "SELL" => "deprioritize",
        _ => "leave",
    };
    SignalAnswer {
        signal: signal.into(),
        confidence,
        triggered_at: rfc3339(if t.last_new_ms > 0 {
            t.last_new_ms
        } else {
            s.started_ms
        }),
        parameters: json!({
            "strategy": st.as_str(),
            "recommendation": recommendation,
            "function": sig,
            "calls": t.calls,
            "revert_rate": revert_rate,
            "new_points": t.new_points,
            "gaps": gap_json,
            "blocking_gaps": blocking,
            "candidate_values": constants,
        }),
    }
}

/// `YYYY-MM-DD` → Unix seconds at 00:00 UTC.
fn parse_date(d: &str) -> Option<u64> {
    let mut it = d.split('-');
    let (y, m, dd) = (
        it.next()?.parse::<i64>().ok()?,
        it.next()?.parse::<i64>().ok()?,
        it.next()?.parse::<i64>().ok()?,
    );
    if it.next().is_some() || !(1970..=9999).contains(&y) || !(1..=12).contains(&m) {
        return None;
    }
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days_in = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if !(1..=days_in[(m - 1) as usize]).contains(&dd) {
        return None;
    }
    // Days from the civil date (Howard Hinnant's algorithm).
    let y2 = if m <= 2 { y - 1 } else { y };
    let era = y2.div_euclid(400);
    let yoe = y2 - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + dd - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    u64::try_from(days * 86_400).ok()
}

fn dry_run(s: &Stores, txs: &[Tx], gate: &Gate) -> Result<(Vec<DryCall>, Vec<String>), ToolError> {
    dry_run_from(s, txs, gate, None, None)
}

/// Runs `txs` once on an isolated executor from the deployed state (at
/// block time `start` if later), stopping before a call whose block time
/// passes `end` (the campaign's dry run, [`run_report`]); each call's
/// outcome, gas, new coverage points and failing tests.
fn dry_run_from(
    s: &Stores,
    txs: &[Tx],
    gate: &Gate,
    start: Option<u64>,
    end: Option<u64>,
) -> Result<(Vec<DryCall>, Vec<String>), ToolError> {
    let mut ex = s.target.isolated_executor();
    let run = Oracle::new(s, &mut ex).dry_run(txs, gate.deadline(), start, end);
    if run.stop == DryStop::Deadline {
        return Err(ToolError::seed001(
            "BACKTEST_TIMEOUT",
            "calls",
            format!(
                "ran {} of {} calls within the budget",
                run.steps.len(),
                txs.len()
            ),
        ));
    }
    let report = run_report::describe(s, txs, &run);
    let calls = report
        .calls
        .into_iter()
        .map(|c| DryCall {
            call: c.call,
            outcome: c.outcome,
            reason: c.reason,
            gas_used: c.gas_used,
            new_coverage_points: c.new_coverage_points,
            failing: c.failing,
        })
        .collect();
    Ok((calls, report.falsified))
}

impl Family for OpsTools {
    fn name(&self) -> FamilyName {
        FamilyName::Ops
    }

    fn tools(&self) -> Vec<ToolDef> {
        use Access::{Blocking, Inline};
        vec![
            ToolDef::method::<PriceParams, PriceAnswer, _>(
                "get_current_price",
                "The latest value of a campaign metric (symbol: calls, calls_per_s, coverage_points, corpus_size, open_properties, falsified, sequences), its change over the last hour and day, and calls in the last day as volume. Cached 5 s (force_refresh bypasses).",
                Inline,
                self,
                Self::current_price,
            ),
            ToolDef::method::<CandlesParams, CandlesAnswer, _>(
                "get_candles",
                "Open/high/low/close of a campaign metric per time bucket (any width: 1s, 1m, 1h, …), newest first, with the calls executed in each bucket as volume. Cached 60 s.",
                Inline,
                self,
                Self::candles,
            ),
            ToolDef::method::<VolatilityParams, VolatilityAnswer, _>(
                "get_volatility",
                "Coverage growth and stagnation: the spread of a metric's change per bucket, the mean bucket range, time since new coverage (the campaign's, or one function's when symbol is a signature) and every function's last new coverage. Cached 30 s.",
                Inline,
                self,
                Self::volatility,
            ),
            ToolDef::method::<BalanceParams, BalanceAnswer, _>(
                "get_balance",
                "The campaign's budget: calls allowed by testLimit, used and left, time left before the timeout, the call rate, and each worker's counters. Never cached.",
                Inline,
                self,
                Self::balance,
            ),
            ToolDef::method::<PositionsParams, PositionsAnswer, _>(
                "get_positions",
                "What each worker runs now: its sequence's source (random, mutation, injected), planned and executed calls, its last function, the new coverage it found so far, and time since the worker last found new coverage. Never cached.",
                Inline,
                self,
                Self::positions,
            ),
            ToolDef::method::<TradeParams, TradeAnswer, _>(
                "validate_trade",
                "Checks a call (symbol, in the call syntax) against the ABI and dry-runs it size times on a fresh deployment in an isolated EVM, sending price wei: outcome, gas, coverage it would add, properties failing after it. BUY expects success, SELL a revert. Injects nothing and changes no store.",
                Blocking,
                self,
                Self::validate_trade,
            ),
            ToolDef::method::<TopStrategiesParams, TopStrategiesAnswer, _>(
                "get_top_strategies",
                "Generation strategies (random sequences, corpus mutation, injected, replayed) ranked by new coverage per thousand calls (sharpe), share of calls that did not revert (accuracy) or new coverage (return). Cached 30 s.",
                Inline,
                self,
                Self::top_strategies,
            ),
            ToolDef::method::<SignalParams, SignalAnswer, _>(
                "get_strategy_signal",
                "For one function (symbol: its signature), a recommendation — BUY: prioritize, SELL: deprioritize, HOLD: leave — from a strategy (coverage: uncovered branches it reaches; constants: the values its blocked conditions compare with; reverts: how often it fails; all), with the evidence in parameters. Cached 10 s.",
                Inline,
                self,
                Self::strategy_signal,
            ),
            ToolDef::method::<ConsensusParams, ConsensusAnswer, _>(
                "get_strategy_consensus",
                "Every function's signals from every strategy, counted (bullish = prioritize) and merged into one ranked list of functions, most worth prioritizing first. Cached 30 s.",
                Inline,
                self,
                Self::strategy_consensus,
            ),
            ToolDef::method::<TopSpecsParams, TopSpecsAnswer, _>(
                "get_top_specs",
                "The campaign's properties (CANONICAL: the target's tests; LLM_GENERATED: specs submitted at run time) ranked open first by how many calls they held for, with status, reason and counterexample. Cached 60 s (a new spec or falsification refreshes it).",
                Inline,
                self,
                Self::top_specs,
            ),
            ToolDef::method::<ImplementationsParams, ImplementationsAnswer, _>(
                "get_implementations",
                "The code behind a test or function (spec_id: a test's name or a function's signature), from the code graph: source span, state read and written, callers; for a test, the entry points writing what it reads, each with its call statistics. Status: DEPLOYED (the test itself), VALIDATED (succeeded), CANDIDATE (never succeeded), RETIRED (not called by the fuzzer). Cached 30 s.",
                Inline,
                self,
                Self::implementations,
            ),
            ToolDef::method::<SubmitSpecParams, SubmitSpecAnswer, _>(
                "submit_new_spec",
                "Adds an invariant while the campaign runs: entry_conditions are relations (==, !=, <, <=, >, >=) between a view call and a constant or another view call, all of which must hold after every call; an exit condition that holds exempts the state. Checked by every worker like an echidna_ property, shrunk when it fails, kept in specs.json and reloaded on resume.",
                Blocking,
                self,
                Self::submit_spec,
            ),
            ToolDef::method::<SaveDecisionParams, SaveDecisionAnswer, _>(
                "save_decision",
                "Keeps a steering decision (BUY: prioritize, SELL: deprioritize, HOLD: leave) with its rationale in the journal database; answered once committed. Decisions of earlier runs of the corpus directory come back on resume.",
                Blocking,
                self,
                Self::save_decision,
            ),
            ToolDef::method::<RecentDecisionsParams, RecentDecisionsAnswer, _>(
                "get_recent_decisions",
                "The agent's decisions, newest first, by symbol and action. Cached 30 s (a new decision refreshes it).",
                Inline,
                self,
                Self::recent_decisions,
            ),
            ToolDef::method::<BacktestParams, BacktestAnswer, _>(
                "run_backtest",
                "Replays a sequence (strategy_id: inline with calls, corpus:N, or test:NAME) on a fresh deployment in an isolated EVM, from start_date's block time, up to end_date: per call outcome, gas, coverage it would add and properties failing; totals as return (new points), win rate (calls that succeeded), drawdown (longest run without new coverage). Changes no store.",
                Blocking,
                self,
                Self::backtest,
            ),
            ToolDef::method::<PerformanceParams, PerformanceAnswer, _>(
                "get_historical_performance",
                "Per-function statistics of the campaign (strategy_id: a signature or all): calls, reverts by kind (Error(string), panic, custom error, halt), coverage contributed, gas percentiles (p50/p90/p99, within 50%), last new coverage. Cached 5 min (force_refresh bypasses).",
                Inline,
                self,
                Self::performance,
            ),
        ]
    }
}
