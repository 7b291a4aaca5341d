//! Market data and trading: campaign metrics, the budget, the workers, a
//! call checked and dry-run.

use super::*;

impl OpsTools {
    pub(super) fn current_price(&self, p: PriceParams, _: &Gate) -> Result<ToolAnswer, ToolError> {
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

    pub(super) fn candles(&self, p: CandlesParams, _: &Gate) -> Result<ToolAnswer, ToolError> {
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

    pub(super) fn volatility(
        &self,
        p: VolatilityParams,
        _: &Gate,
    ) -> Result<ToolAnswer, ToolError> {
        let width = self.width(&p.timeframe)?;
        let s = self.campaign().clone();
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
                    return Err(ToolError::coded(
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
                let totals = s.stats().function_totals();
                let mut per_function: Vec<FunctionGrowth> = totals
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| function.is_none_or(|f| f == *i))
                    .map(|(i, t)| FunctionGrowth {
                        function: s.callable()[i].function.signature(),
                        new_points: t.new_points,
                        ms_since_new_coverage: since(t.last_new_ms),
                    })
                    .collect();
                per_function.sort_by_key(|f| std::cmp::Reverse(f.ms_since_new_coverage.unwrap_or(u64::MAX)));
                let campaign_last = s
                    .stats()
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

    pub(super) fn balance(&self, _: BalanceParams, _: &Gate) -> Result<ToolAnswer, ToolError> {
        let s = self.campaign();
        let r = std::sync::atomic::Ordering::Relaxed;
        let used = s.stats().calls();
        let limit = s.config().test_limit;
        let left = limit.saturating_sub(used);
        let elapsed_ms = s.started().elapsed().as_millis() as u64;
        let rate = if elapsed_ms > 0 {
            used as f64 * 1000.0 / elapsed_ms as f64
        } else {
            0.0
        };
        let time_left_ms = s
            .config()
            .timeout
            .map(|t| (t.as_millis() as u64).saturating_sub(elapsed_ms));
        let unrealized = match time_left_ms {
            Some(ms) => (rate * ms as f64 / 1000.0).min(f64::MAX) - left as f64,
            None => 0.0,
        };
        let workers = (0..s.workers())
            .map(|i| {
                let w = &s.stats().workers[i];
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

    pub(super) fn positions(&self, p: PositionsParams, _: &Gate) -> Result<ToolAnswer, ToolError> {
        let s = self.campaign();
        let contract = s.target().contract.name.clone();
        let filter = match p.symbol.as_deref() {
            None => None,
            Some(sym) if sym == contract || sym == "*" => None,
            Some(sym) => Some(self.callable(sym, "symbol")?),
        };
        let r = std::sync::atomic::Ordering::Relaxed;
        let points = s.target().coverage.points();
        let now = now_ms();
        let all: Vec<PositionItem> = (0..s.workers())
            .filter_map(|i| {
                let w = &s.stats().workers[i];
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
                        s.started_ms()
                    }),
                    worker: i as u32,
                    source: pos.source.map(|o| o.as_str().to_string()),
                    planned_calls: pos.planned,
                    last_function: pos
                        .last_function
                        .map(|k| s.callable()[k].function.signature()),
                    calls: w.calls.load(r),
                    ms_since_new_coverage: (last > 0).then(|| now.saturating_sub(last)),
                })
            })
            .collect();
        let (items, pagination) = page(all, p.offset, p.limit);
        fresh(PositionsAnswer { items, pagination })
    }

    pub(super) fn validate_trade(
        &self,
        p: TradeParams,
        gate: &Gate,
    ) -> Result<ToolAnswer, ToolError> {
        let s = self.campaign();
        if !(p.size >= 1.0 && p.size <= 100.0 && p.size.fract() == 0.0) {
            return Err(ToolError::coded(
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
                return Err(ToolError::coded(
                    "INVALID_PARAMETER",
                    "price",
                    format!("{v}: wei, a whole number ≥ 0"),
                ));
            }
        };
        let txs = self
            .steer
            .parse_calls(std::slice::from_ref(&p.symbol), None, value)
            .map_err(|e| ToolError::coded("INVALID_SYMBOL", "symbol", e.to_string()))?;
        let [tx] = txs.as_slice() else {
            return Err(ToolError::coded(
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
}
