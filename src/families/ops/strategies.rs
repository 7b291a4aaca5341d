//! Strategies: generation strategies ranked, per-function signals
//! ([`crate::campaign::signals`]) and their consensus.

use super::*;

impl OpsTools {
    pub(super) fn top_strategies(
        &self,
        p: TopStrategiesParams,
        _: &Gate,
    ) -> Result<ToolAnswer, ToolError> {
        self.contract_symbol(&p.symbol)?;
        let metric = p.metric;
        self.cached(
            format!("strategies:{}:{}:{}", metric as u8, p.limit, p.offset),
            ttl::TOP_STRATEGIES,
            p.force_refresh,
            || {
                let s = self.campaign();
                let r = std::sync::atomic::Ordering::Relaxed;
                let mut all: Vec<StrategyItem> = Origin::ALL
                    .iter()
                    .map(|o| {
                        let i = o.index();
                        let sum = |f: fn(&crate::campaign::WorkerStats) -> &[std::sync::atomic::AtomicU64; Origin::COUNT]| -> u64 {
                            s.stats().workers.iter().map(|w| f(w)[i].load(r)).sum()
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

    pub(super) fn strategy_signal(
        &self,
        p: SignalParams,
        _: &Gate,
    ) -> Result<ToolAnswer, ToolError> {
        let strategy = Strategy::parse(&p.strategy_id).ok_or_else(|| {
            ToolError::coded(
                "STRATEGY_NOT_FOUND",
                "strategy_id",
                format!("{:?}: coverage, constants, reverts or all", p.strategy_id),
            )
        })?;
        let k = self.callable(&p.symbol, "symbol")?;
        self.cached(
            format!("signal:{}:{}", p.strategy_id, p.symbol),
            ttl::STRATEGY_SIGNAL,
            p.force_refresh,
            || {
                let s = self.campaign();
                let gaps = s.graph().gaps();
                let signal = s.signal(k, strategy, &gaps, &s.stats().function_totals());
                Ok(SignalAnswer::from(&signal))
            },
        )
    }

    pub(super) fn strategy_consensus(
        &self,
        p: ConsensusParams,
        _: &Gate,
    ) -> Result<ToolAnswer, ToolError> {
        let s = self.campaign().clone();
        let only = if p.symbol == s.target().contract.name || p.symbol == "*" {
            None
        } else {
            Some(self.callable(&p.symbol, "symbol").map_err(|_| {
                ToolError::coded(
                    "INVALID_SYMBOL",
                    "symbol",
                    format!(
                        "{:?}: the contract's name ({}) or a function's signature",
                        p.symbol,
                        s.target().contract.name
                    ),
                )
            })?)
        };
        if s.callable().is_empty() {
            return Err(ToolError::coded(
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
                let gaps = s.graph().gaps();
                let totals = s.stats().function_totals();
                let (mut bull, mut bear, mut neutral) = (0u64, 0u64, 0u64);
                let mut ranked = Vec::new();
                for k in 0..s.callable().len() {
                    if only.is_some_and(|o| o != k) {
                        continue;
                    }
                    let [coverage, constants, reverts] =
                        Strategy::EACH.map(|st| s.signal(k, st, &gaps, &totals));
                    let mut score = 0.0;
                    for x in [&coverage, &constants, &reverts] {
                        match x.direction {
                            Direction::Prioritize => bull += 1,
                            Direction::Deprioritize => bear += 1,
                            Direction::Leave => neutral += 1,
                        }
                        score += x.direction.score(x.confidence);
                    }
                    let word = |x: &Signal| x.direction.ops_word().to_string();
                    ranked.push(RankedFunction {
                        function: s.callable()[k].function.signature(),
                        score,
                        signals: StrategySignals {
                            coverage: word(&coverage),
                            constants: word(&constants),
                            reverts: word(&reverts),
                        },
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
}

impl From<&Signal<'_>> for SignalAnswer {
    fn from(x: &Signal<'_>) -> Self {
        SignalAnswer {
            signal: x.direction.ops_word().into(),
            confidence: x.confidence,
            triggered_at: rfc3339(x.triggered_ms),
            parameters: SignalEvidence {
                strategy: x.strategy.as_str().into(),
                recommendation: x.direction.as_str().into(),
                function: x.function.clone(),
                calls: x.calls,
                revert_rate: x.revert_rate,
                new_points: x.new_points,
                gaps: x
                    .gaps
                    .iter()
                    .take(8)
                    .map(|g| GapEvidence {
                        file: g.file.clone(),
                        line: g.line,
                        condition: g.condition.clone(),
                        missing: g.missing.as_str().into(),
                        params: g.params.clone(),
                        state: g.state.clone(),
                        state_writers: g.state_writers.clone(),
                    })
                    .collect(),
                blocking_gaps: x.blocking as u64,
                candidate_values: x
                    .candidate_values()
                    .map(|c| CandidateValue {
                        name: c.name.clone(),
                        value: c.value.clone(),
                    })
                    .collect(),
            },
        }
    }
}
