//! The ops family: the sixteen TradeStream tools, under their
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

use super::conventions::{TtlCache, mark, page};
use super::errors::ToolError;
use super::family::{Access, Conventions, Family, FamilyName, Gate, ToolAnswer, ToolDef};
use crate::campaign::oracle::DryStop;
use crate::campaign::signals::{Direction, Signal, Strategy};
use crate::campaign::spec::{Spec, SpecSource};
use crate::campaign::{CampaignRead, FamilyState, SpecRefused, Steer, rfc3339};
use crate::corpus::Origin;
use crate::eventlog::now_ms;
use crate::ops::{Metric, Sample};
use crate::tx::Tx;
use alloy_primitives::U256;
use serde::Serialize;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

mod market;
mod specs;
mod strategies;
mod types;

pub use types::*;

/// Cache TTLs, one per tool, written once.
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

// ---------------------------------------------------------------- family

/// The ops family over one campaign.
#[derive(Clone)]
pub struct OpsTools {
    campaign: CampaignRead,
    /// Specs go to the campaign's tests through steering.
    steer: Steer,
    /// Decisions.
    state: FamilyState,
    cache: Arc<TtlCache>,
}

impl OpsTools {
    pub fn new(campaign: CampaignRead, steer: Steer, state: FamilyState) -> Self {
        OpsTools {
            campaign,
            steer,
            state,
            cache: Arc::new(TtlCache::default()),
        }
    }

    fn campaign(&self) -> &CampaignRead {
        &self.campaign
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
            ToolError::coded(
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
        let s = self.campaign();
        s.ops().history.with_now(s.sample_now())
    }

    fn contract_symbol(&self, symbol: &str) -> Result<(), ToolError> {
        let name = &self.campaign().target().contract.name;
        if symbol == name || symbol == "*" {
            Ok(())
        } else {
            Err(ToolError::coded(
                "INVALID_SYMBOL",
                "symbol",
                format!("{symbol:?}: the campaign's contract is {name:?} (or `*`)"),
            ))
        }
    }

    /// The callable function with signature `sig`.
    fn callable(&self, sig: &str, field: &str) -> Result<usize, ToolError> {
        let s = self.campaign();
        s.callable()
            .iter()
            .position(|c| c.function.signature() == sig)
            .ok_or_else(|| {
                let all: Vec<String> = s
                    .callable()
                    .iter()
                    .map(|c| c.function.signature())
                    .collect();
                ToolError::coded(
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
            ToolError::coded(
                "INVALID_TIMEFRAME",
                "timeframe",
                format!("{timeframe:?}: a width such as 1m, 5m, 15m, 1h, 4h, 1d, 10s or 500ms"),
            )
        })
    }

    // ------------------------------------------------------- market data
}

fn fresh<A: Serialize>(answer: A) -> Result<ToolAnswer, ToolError> {
    let mut v = serde_json::to_value(answer).map_err(|e| ToolError::internal(e.to_string()))?;
    mark(&mut v, Default::default());
    Ok(ToolAnswer {
        structured: v,
        text: None,
    })
}

fn dry_run(
    s: &CampaignRead,
    txs: &[Tx],
    gate: &Gate,
) -> Result<(Vec<DryCall>, Vec<String>), ToolError> {
    dry_run_from(s, txs, gate, None, None)
}

/// Runs `txs` once on an isolated executor from the deployed state (at
/// block time `start` if later), stopping before a call whose block time
/// passes `end` (the campaign's dry run, [`CampaignRead::dry_run`]); each call's
/// outcome, gas, new coverage points and failing tests.
fn dry_run_from(
    s: &CampaignRead,
    txs: &[Tx],
    gate: &Gate,
    start: Option<u64>,
    end: Option<u64>,
) -> Result<(Vec<DryCall>, Vec<String>), ToolError> {
    let (run, report) = s.dry_run(txs, gate.deadline(), start, end);
    if run.stop == DryStop::Deadline {
        return Err(ToolError::coded(
            "BACKTEST_TIMEOUT",
            "calls",
            format!(
                "ran {} of {} calls within the budget",
                run.steps.len(),
                txs.len()
            ),
        ));
    }
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

/// The shared conventions and the sixteen campaign analogues.
pub const NAME: FamilyName = FamilyName("ops");

impl Family for OpsTools {
    fn name(&self) -> FamilyName {
        NAME
    }

    fn conventions(&self) -> Conventions {
        // The ops family wraps refusals in its envelope.
        Conventions {
            metadata: Some("campaign"),
            error_envelope: true,
        }
    }

    fn tools(&self) -> Vec<ToolDef> {
        use Access::{Blocking, Inline};
        vec![
            ToolDef::method::<PriceParams, PriceAnswer, _>(
                "get_current_price",
                "The latest value of a campaign metric (symbol), its change over the last hour and day, and calls in the last day as volume. Cached 5 s (force_refresh bypasses).",
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
                "For one function (symbol: its signature) a recommendation (BUY: prioritize, SELL: deprioritize, HOLD: leave) from a strategy, with the evidence in parameters. Cached 10 s.",
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
                "The code behind a test or function (spec_id: a test's name or a signature) from the code graph: span, state read and written, callers; for a test, the entry points writing what it reads, with call statistics. Status: DEPLOYED (the test), VALIDATED (succeeded), CANDIDATE (never succeeded), RETIRED (not called). Cached 30 s.",
                Inline,
                self,
                Self::implementations,
            ),
            ToolDef::method::<SubmitSpecParams, SubmitSpecAnswer, _>(
                "submit_new_spec",
                "Adds an invariant while the campaign runs: entry_conditions are relations (==, !=, <, <=, >, >=) between a view call and a constant or view call, all holding after every call; a holding exit condition exempts the state. Checked like an echidna_ property by every worker, shrunk when it fails, kept in specs.json, reloaded on resume.",
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
                "Replays a sequence (strategy_id) on a fresh deployment in an isolated EVM from start_date's block time to end_date: per call outcome, gas, coverage it would add, failing properties; totals as return (new points), win rate (calls that succeeded), drawdown (longest run without new coverage). Changes nothing.",
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
