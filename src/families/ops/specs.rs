//! Specs, memory and backtests: properties ranked, the code behind one,
//! invariants added at run time, decisions, isolated replays, per-function
//! performance.

use super::*;

impl OpsTools {
    // -------------------------------------------------------------- specs

    pub(super) fn top_specs(&self, p: TopSpecsParams, _: &Gate) -> Result<ToolAnswer, ToolError> {
        let s = self.campaign().clone();
        let version = (s.tests().len(), s.tests().falsified_count());
        self.cached(
            format!(
                "specs:{}:{}:{}:{version:?}",
                p.source as u8, p.limit, p.offset
            ),
            ttl::TOP_SPECS,
            p.force_refresh,
            || {
                let graph = s.graph().graph();
                let calls = s.stats().calls();
                let mut all: Vec<SpecItem> = s
                    .tests()
                    .cases()
                    .filter(|c| match p.source {
                        SpecSourceFilter::ALL => true,
                        SpecSourceFilter::CANONICAL => c.spec.is_none(),
                        SpecSourceFilter::LLM_GENERATED => c.spec.is_some(),
                    })
                    .map(|c| {
                        let (added, closed) =
                            s.tests().evaluated_between(c.id).unwrap_or((0, None));
                        let evaluations = closed.unwrap_or(calls).saturating_sub(added);
                        let f = s.tests().falsified(c.id);
                        let indicators = match &c.spec {
                            Some(spec) => spec.reads.clone(),
                            None => vec![c.function.signature()],
                        };
                        let reads: Vec<String> = graph
                            .functions
                            .iter()
                            .filter(|g| {
                                indicators.iter().any(|i| {
                                    g.signature == *i && g.contract == s.target().contract.name
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

    pub(super) fn implementations(
        &self,
        p: ImplementationsParams,
        _: &Gate,
    ) -> Result<ToolAnswer, ToolError> {
        let s = self.campaign().clone();
        let test = s.tests().cases().find(|c| c.name == p.spec_id).cloned();
        let is_function = s
            .target()
            .functions
            .iter()
            .any(|f| f.signature() == p.spec_id);
        if test.is_none() && !is_function {
            let tests: Vec<String> = s.tests().cases().map(|c| c.name.clone()).collect();
            return Err(ToolError::coded(
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
                let graph = s.graph().graph();
                let contract = s.target().contract.name.clone();
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
                let totals = s.stats().function_totals();
                let all: Vec<ImplItem> = related
                    .iter()
                    .map(|(sig, role)| {
                        let n = node(sig);
                        let k = s.callable().iter().position(|c| c.function.signature() == *sig);
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

    pub(super) fn submit_spec(
        &self,
        p: SubmitSpecParams,
        gate: &Gate,
    ) -> Result<ToolAnswer, ToolError> {
        let s = self.campaign();
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
        let spec = Spec::parse(src, &s.target().functions)
            .map_err(|e| ToolError::coded(e.code, &e.field, e.to_string()))?;
        if s.tests().cases().any(|c| c.name == spec.source.name) {
            return Err(ToolError::coded(
                "DUPLICATE_NAME",
                "name",
                format!("a test named {:?} exists already", spec.source.name),
            ));
        }
        gate.commit()?;
        let name = spec.source.name.clone();
        match self.steer.add_spec(spec) {
            Ok(_) => {}
            Err(SpecRefused::Duplicate(n)) => {
                return Err(ToolError::coded(
                    "DUPLICATE_NAME",
                    "name",
                    format!("a test named {n:?} exists already"),
                ));
            }
            Err(SpecRefused::Full(n)) => {
                return Err(ToolError::coded(
                    "SCHEMA_VALIDATION_ERROR",
                    "name",
                    format!("the campaign has {n} tests, the most it can check"),
                ));
            }
            Err(e @ SpecRefused::Io { .. }) => {
                return Err(ToolError::coded("DATABASE_ERROR", "name", e.to_string()));
            }
            Err(SpecRefused::Invalid(e)) => {
                return Err(ToolError::coded(e.code, &e.field, e.to_string()));
            }
        }
        fresh(SubmitSpecAnswer {
            spec_id: name,
            created: true,
            validation_errors: Vec::new(),
        })
    }

    // ------------------------------------------------------------- memory

    pub(super) fn save_decision(
        &self,
        p: SaveDecisionParams,
        gate: &Gate,
    ) -> Result<ToolAnswer, ToolError> {
        let s = self.campaign();
        let symbol = p.symbol.trim();
        if symbol.is_empty() || symbol.len() > 256 || symbol.chars().any(char::is_control) {
            return Err(ToolError::coded(
                "INVALID_SYMBOL",
                "symbol",
                "1 to 256 printable characters: a function, a metric, a test or the contract",
            ));
        }
        if !(0.0..=1.0).contains(&p.confidence) {
            return Err(ToolError::coded(
                "INVALID_CONFIDENCE",
                "confidence",
                format!("{}: between 0 and 1", p.confidence),
            ));
        }
        if p.reasoning.len() > crate::ops::MAX_REASONING {
            return Err(ToolError::coded(
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
            return Err(ToolError::coded(
                "INVALID_PARAMETER",
                "opportunity_score",
                "a finite number",
            ));
        }
        gate.commit()?;
        let created_ms = now_ms();
        let decision_id = format!("dec-{}-{:04}", s.run_id(), s.ops().decisions.len() + 1);
        self.state.save_decision(crate::ops::Decision {
            decision_id: decision_id.clone(),
            run_id: s.run_id().to_string(),
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

    pub(super) fn recent_decisions(
        &self,
        p: RecentDecisionsParams,
        _: &Gate,
    ) -> Result<ToolAnswer, ToolError> {
        let s = self.campaign().clone();
        let version = s.ops().decisions.len();
        self.cached(
            format!(
                "decisions:{:?}:{:?}:{}:{}:{version}",
                p.symbol, p.action, p.limit, p.offset
            ),
            ttl::RECENT_DECISIONS,
            p.force_refresh,
            || {
                let all: Vec<DecisionItem> = s
                    .ops()
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

    pub(super) fn backtest(&self, p: BacktestParams, gate: &Gate) -> Result<ToolAnswer, ToolError> {
        let s = self.campaign();
        self.contract_symbol(&p.symbol)?;
        let day = |field: &str, d: &Option<String>| -> Result<Option<u64>, ToolError> {
            d.as_deref()
                .map(|d| {
                    crate::ops::parse_date(d).ok_or_else(|| {
                        ToolError::coded(
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
            return Err(ToolError::coded(
                "INVALID_DATE_RANGE",
                "start_date",
                "start_date must not be after end_date",
            ));
        }
        let txs: Vec<Tx> = match p.strategy_id.split_once(':') {
            _ if p.strategy_id == "inline" => {
                let calls = p.calls.unwrap_or_default();
                self.steer
                    .parse_calls(&calls, None, U256::ZERO)
                    .map_err(|e| {
                        let e = ToolError::from(e);
                        ToolError::coded("INVALID_PARAMETER", "calls", e.message)
                    })?
            }
            Some(("corpus", n)) => n
                .parse::<u64>()
                .ok()
                .and_then(|n| s.corpus().get(crate::ids::EntryId(n)))
                .map(|e| e.txs.clone())
                .ok_or_else(|| {
                    ToolError::coded(
                        "STRATEGY_NOT_FOUND",
                        "strategy_id",
                        format!(
                            "{}: the corpus has entries 0 to {}",
                            p.strategy_id,
                            s.corpus().len() as i64 - 1
                        ),
                    )
                })?,
            Some(("test", name)) => s
                .tests()
                .cases()
                .find(|c| c.name == name)
                .and_then(|c| s.tests().falsified(c.id))
                .map(|f| f.sequence().to_vec())
                .ok_or_else(|| {
                    ToolError::coded(
                        "STRATEGY_NOT_FOUND",
                        "strategy_id",
                        format!("{}: no falsified test of that name", p.strategy_id),
                    )
                })?,
            _ => {
                return Err(ToolError::coded(
                    "STRATEGY_NOT_FOUND",
                    "strategy_id",
                    format!("{:?}: inline, corpus:N or test:NAME", p.strategy_id),
                ));
            }
        };
        if txs.len() > crate::campaign::control::MAX_INJECTED_CALLS {
            return Err(ToolError::coded(
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

    pub(super) fn performance(
        &self,
        p: PerformanceParams,
        _: &Gate,
    ) -> Result<ToolAnswer, ToolError> {
        if let Some(sym) = &p.symbol {
            self.contract_symbol(sym)?;
        }
        let only =
            if p.strategy_id == "all" {
                None
            } else {
                Some(self.callable(&p.strategy_id, "strategy_id").map_err(|e| {
                    ToolError::coded("STRATEGY_NOT_FOUND", "strategy_id", e.message)
                })?)
            };
        let _ = p.period;
        self.cached(
            format!("performance:{}", p.strategy_id),
            ttl::HISTORICAL_PERFORMANCE,
            p.force_refresh,
            || {
                let s = self.campaign();
                let totals = s.stats().function_totals();
                let rows: Vec<FunctionPerformance> = totals
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| only.is_none_or(|o| o == *k))
                    .map(|(k, t)| {
                        let errors = t.reverts.saturating_sub(t.panics + t.raw_reverts + t.halts);
                        FunctionPerformance {
                            function: s.callable()[k].function.signature(),
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
                    return Err(ToolError::coded(
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
