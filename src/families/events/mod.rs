//! The events family: six query tools over the journal
//! (`{corpusDir}/journal.sqlite`), every run's events with parent links.
//!
//! The seed speaks of a trading backtest; in rudder a run is a campaign run
//! (`runId`, listed by `status.runs`) and the seed's event types name groups
//! of the campaign's own kinds (both are accepted):
//!
//! | seed type | campaign kinds |
//! |---|---|
//! | TradeExecution | CallExecuted |
//! | OrderRejection | InputRejected |
//! | IndicatorCalculation | TestShrunk, OptimizationImproved |
//! | PositionUpdate | CoverageIncreased |
//! | StateChange | RunStarted, WorkerStarted, WorkerStopped, ControlCommand, InjectionExecuted, InjectionSummary |
//! | MarketDataEvent | TransactionExecuted |
//! | RiskEvent | PropertyFalsified, WorkerPanicked |
//!
//! Entities: `FunctionSignature` (the seed's SecuritySymbol), `Sender`,
//! `Property` (IndicatorName), `WorkerId` (PositionId), `InjectionId`
//! (OrderId). Bad input is `INVALID_INPUT` naming the field, with the seed's
//! own code in `details.seedCode` (`RUN_NOT_FOUND`, `INVALID_TIME_RANGE`, …).

use super::errors::{ErrorCode, ToolError};
use super::family::{Access, Conventions, Family, FamilyName, Gate, ToolAnswer, ToolDef};
use super::journal_read::JournalRead;
use crate::campaign::{CampaignRead, rfc3339};
use crate::journal::query::{self, Entity, Filter, QueryError};
use crate::journal::{Journal, Kind, Severity};
use rusqlite::types::Value as Sql;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::time::Instant;

mod types;
pub use types::*;

fn invalid(field: &str, seed_code: &str, message: String) -> ToolError {
    ToolError::invalid(format!("{field}: {message}"))
        .with_details(json!({ "field": field, "seedCode": seed_code }))
}

fn query_error(e: QueryError, tool: &str) -> ToolError {
    match e {
        QueryError::Timeout => ToolError::timeout(tool),
        QueryError::UnknownRun(r) => invalid("runId", "RUN_NOT_FOUND", format!("no run {r:?}")),
        QueryError::UnknownEvent { field, id } => invalid(
            field,
            "EVENT_NOT_FOUND",
            format!("no event {id:?} in this run"),
        ),
        QueryError::Invalid { field, message } => invalid(&field, "INVALID_PARAMETER", message),
        QueryError::Sqlite(e) => ToolError {
            code: ErrorCode::InternalError,
            message: format!("journal: {e}"),
            details: Some(json!({ "seedCode": "DATABASE_ERROR" })),
        },
    }
}

fn time(field: &str, v: &Option<String>) -> Result<Option<u64>, ToolError> {
    v.as_deref()
        .map(|t| {
            humantime::parse_rfc3339_weak(t.trim_end_matches('Z'))
                .ok()
                .and_then(|st| st.duration_since(std::time::UNIX_EPOCH).ok())
                .map(|d| d.as_millis() as u64)
                .ok_or_else(|| {
                    invalid(
                        field,
                        "INVALID_PARAMETER",
                        format!("{t:?} is not an RFC 3339 time (e.g. 2026-01-31T12:00:00Z)"),
                    )
                })
        })
        .transpose()
}

fn time_range(
    start: &Option<String>,
    end: &Option<String>,
) -> Result<(Option<u64>, Option<u64>), ToolError> {
    let (from, to) = (time("startTime", start)?, time("endTime", end)?);
    if let (Some(f), Some(t)) = (from, to)
        && f > t
    {
        return Err(invalid(
            "startTime",
            "INVALID_TIME_RANGE",
            "StartTime must be before or equal to EndTime".into(),
        ));
    }
    Ok((from, to))
}

fn event_id(field: &str, v: &str) -> Result<i64, ToolError> {
    v.parse::<i64>().ok().filter(|i| *i > 0).ok_or_else(|| {
        invalid(
            field,
            "INVALID_PARAMETER",
            format!("{v:?} is not an eventId"),
        )
    })
}

fn entity_of(e: &query::Row) -> EventEntity {
    EventEntity {
        event_id: e.id.to_string(),
        run_id: e.run_id.clone(),
        timestamp: rfc3339(e.ts_ms),
        event_type: e.kind.as_str().to_string(),
        severity: e.severity.as_str().to_string(),
        category: e.category.as_str().to_string(),
        properties: e.properties.clone(),
        parent_event_id: e.parent.map(|p| p.to_string()),
        validation_errors: e
            .validation_errors
            .as_ref()
            .and_then(|v| v.as_array().cloned()),
    }
}

/// The events tools over one campaign's journal.
#[derive(Clone)]
pub struct EventsTools {
    journal: JournalRead,
    /// The live campaign, for a snapshot at or after the live run's end.
    campaign: CampaignRead,
}

/// The event journal's query tools.
pub const NAME: FamilyName = FamilyName("events");

impl Family for EventsTools {
    fn name(&self) -> FamilyName {
        NAME
    }

    fn conventions(&self) -> Conventions {
        Conventions {
            metadata: Some("journal"),
            ..Conventions::default()
        }
    }

    fn tools(&self) -> Vec<ToolDef> {
        let tools = vec![
            ToolDef::method::<GetEventsByTypeInput, EventQueryResult, _>(
                "get_events_by_type",
                "A run's journal events of one type (eventType lists them: calls executed, coverage gains, falsifications, shrinking, injections, commands, rejected input, worker lifecycle), optionally within a time window, paginated (1000 a page at most), in journal order. runId: see status.runs.",
                Access::Blocking,
                self,
                Self::by_type,
            ),
            ToolDef::method::<GetEventsByEntityInput, EventQueryResult, _>(
                "get_events_by_entity",
                "Retrieve a run's journal events about one entity, in journal order: FunctionSignature (the seed's SecuritySymbol; canonical, e.g. transfer(address,uint256)), Sender (0x address), Property (a test's name; the seed's IndicatorName), WorkerId (PositionId), InjectionId (OrderId).",
                Access::Blocking,
                self,
                Self::by_entity,
            ),
            ToolDef::method::<AggregateMetricsInput, AggregationResult, _>(
                "aggregate_metrics",
                "count/sum/avg/min/max/stddev (population) of a numeric property over a run's events of one type, without listing them. Typed: $.gasUsed, $.durationUs, $.newPoints, $.corpusSize; any other JSON path ($.calls, $.reverts, …) is read from the events' properties. Only numbers count (count <= metadata.totalEvents).",
                Access::Blocking,
                self,
                Self::aggregate,
            ),
            ToolDef::method::<GetStateSnapshotInput, StateSnapshot, _>(
                "get_state_snapshot",
                "The campaign's state at a time or after an event, replayed from the journal: coverage points (PnL), corpus size (positions), calls, properties (indicators), priorities, workers, injections not yet run everywhere (active orders). At or after the live run's last event: from the live stores (reconstructed: false).",
                Access::Blocking,
                self,
                Self::snapshot,
            ),
            ToolDef::method::<QueryEventSequenceInput, EventSequenceResult, _>(
                "query_event_sequence",
                "Follow parent links (call -> sequence -> worker -> run; shrink -> falsification -> falsifying call; injection run -> command). With rootEventId: that event and its descendants to maxDepth (untilEventId: just the chain between). Without: chains rooted at the pattern's first type (SequenceStarted by default), complete when they hold the pattern in order; findIncomplete keeps the others (at most 5000 roots).",
                Access::Blocking,
                self,
                Self::sequence,
            ),
            ToolDef::method::<GetValidationErrorsInput, EventQueryResult, _>(
                "get_validation_errors",
                "A run's events with validation errors: calls that reverted, panicked or halted (decoded reasons; Warning, Error when they falsified a test) and rejected injections and tool inputs (Error).",
                Access::Blocking,
                self,
                Self::validation_errors,
            ),
        ];
        // The snapshot also reads the live stores: not shared.
        self.journal.memoize(tools, &["get_state_snapshot"])
    }
}

impl EventsTools {
    pub fn new(journal: JournalRead, campaign: CampaignRead) -> Self {
        EventsTools { journal, campaign }
    }

    fn journal(&self) -> Result<&Journal, ToolError> {
        self.journal.journal().ok_or_else(|| {
            ToolError::invalid(
                "runId: this campaign keeps no journal (started with the journal off)",
            )
            .with_details(json!({ "field": "runId", "seedCode": "RUN_NOT_FOUND" }))
        })
    }

    /// Runs `f` on a read connection within the call's budget, after
    /// checking that `run` exists.
    fn read<T>(
        &self,
        run: &str,
        gate: &Gate,
        f: impl FnOnce(&rusqlite::Connection) -> Result<T, QueryError>,
    ) -> Result<T, ToolError> {
        JournalRead::with_reader(self.journal()?, gate, |c| {
            if !query::run_exists(c, run)? {
                return Err(QueryError::UnknownRun(run.to_string()));
            }
            f(c)
        })?
        .map_err(|e| query_error(e, gate.tool()))
    }

    fn page(
        &self,
        filter: Filter,
        index: u64,
        size: u64,
        gate: &Gate,
    ) -> Result<ToolAnswer, ToolError> {
        let started = Instant::now();
        let run = filter.run.clone();
        let page = self.read(&run, gate, |c| query::events(c, &filter, index, size))?;
        let mut bytes = 0;
        let mut events = Vec::with_capacity(page.rows.len());
        let mut truncated = false;
        for r in &page.rows {
            bytes += r.stored_bytes + 256;
            if bytes > MAX_ANSWER_BYTES && !events.is_empty() {
                truncated = true;
                break;
            }
            events.push(entity_of(r));
        }
        let returned = events.len() as u64;
        ToolAnswer::json(&EventQueryResult {
            events,
            metadata: PageMetadata {
                total_count: page.total,
                returned_count: returned,
                page_index: index,
                page_size: size,
                has_more: index.saturating_mul(size) + returned < page.total,
                query_time_ms: started.elapsed().as_millis() as u64,
                truncated,
            },
        })
    }

    fn by_type(&self, a: GetEventsByTypeInput, gate: &Gate) -> Result<ToolAnswer, ToolError> {
        let kinds = kinds_of(&a.event_type).ok_or_else(|| {
            invalid(
                "eventType",
                "INVALID_PARAMETER",
                format!("unknown type {:?}", a.event_type),
            )
        })?;
        let (from_ms, to_ms) = time_range(&a.start_time, &a.end_time)?;
        let filter = Filter {
            run: a.run_id,
            kinds,
            from_ms,
            to_ms,
            severities: a.severity.into_iter().collect(),
            ..Filter::default()
        };
        self.page(filter, a.page_index, a.page_size, gate)
    }

    fn by_entity(&self, a: GetEventsByEntityInput, gate: &Gate) -> Result<ToolAnswer, ToolError> {
        let mut kinds = Vec::new();
        for (i, t) in a.event_types.iter().enumerate() {
            kinds.extend(kinds_of(t).ok_or_else(|| {
                invalid(
                    &format!("eventTypes[{i}]"),
                    "INVALID_PARAMETER",
                    format!("unknown type {t:?}"),
                )
            })?);
        }
        let v = a.entity_value.trim();
        let number = |what: &str| {
            v.parse::<i64>().map(Sql::Integer).map_err(|_| {
                invalid(
                    "entityValue",
                    "INVALID_PARAMETER",
                    format!("{v:?} is not a {what}"),
                )
            })
        };
        let (entity, value) = match a.entity_type {
            EntityType::FunctionSignature => (Entity::FunctionSignature, Sql::Text(v.into())),
            EntityType::Sender => {
                let addr = crate::parser::parse_address(v)
                    .map_err(|e| invalid("entityValue", "INVALID_PARAMETER", e.to_string()))?;
                (Entity::Sender, Sql::Text(format!("{addr:#x}")))
            }
            EntityType::Property => (Entity::Property, Sql::Text(v.into())),
            EntityType::WorkerId => (Entity::WorkerId, number("worker id")?),
            EntityType::InjectionId => (Entity::InjectionId, number("injection id")?),
        };
        let filter = Filter {
            run: a.run_id,
            kinds,
            entity: Some((entity, value)),
            ..Filter::default()
        };
        self.page(filter, a.page_index, a.page_size, gate)
    }

    fn aggregate(&self, a: AggregateMetricsInput, gate: &Gate) -> Result<ToolAnswer, ToolError> {
        let started = Instant::now();
        let kinds = kinds_of(&a.event_type).ok_or_else(|| {
            invalid(
                "eventType",
                "INVALID_PARAMETER",
                format!("unknown type {:?}", a.event_type),
            )
        })?;
        // The server checked the pattern; checked again here because the
        // path reaches SQL (as a bound parameter, never spliced).
        if !a.property_path.starts_with("$.")
            || !a.property_path[2..]
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
            || a.property_path.len() < 3
        {
            return Err(invalid(
                "propertyPath",
                "INVALID_JSON_PATH",
                format!(
                    "{:?} is not a JSON path to a field: expected `$.` and then field names joined by dots (letters, digits, `_`), e.g. `$.gasUsed` or `$.newPoints`",
                    a.property_path
                ),
            ));
        }
        let (from_ms, to_ms) = time_range(&a.start_time, &a.end_time)?;
        let filter = Filter {
            run: a.run_id.clone(),
            kinds,
            from_ms,
            to_ms,
            ..Filter::default()
        };
        let agg = self.read(&a.run_id, gate, |c| {
            query::aggregate(c, &filter, &a.property_path)
        })?;
        let want = |x: Aggregation| a.aggregations.contains(&x);
        ToolAnswer::json(&AggregationResult {
            aggregations: AggregationValues {
                count: agg.count,
                sum: agg.sum.filter(|_| want(Aggregation::Sum)),
                avg: agg.avg.filter(|_| want(Aggregation::Avg)),
                min: agg.min.filter(|_| want(Aggregation::Min)),
                max: agg.max.filter(|_| want(Aggregation::Max)),
                stddev: agg.stddev.filter(|_| want(Aggregation::Stddev)),
            },
            metadata: AggregationMetadata {
                total_events: agg.rows,
                query_time_ms: started.elapsed().as_millis() as u64,
                event_type: a.event_type,
                property_path: a.property_path,
            },
        })
    }

    fn snapshot(&self, a: GetStateSnapshotInput, gate: &Gate) -> Result<ToolAnswer, ToolError> {
        let started = Instant::now();
        if a.timestamp.is_none() == a.event_id.is_none() {
            return Err(invalid(
                "timestamp",
                "INVALID_PARAMETER",
                "give exactly one of timestamp and eventId".into(),
            ));
        }
        let at_ms = time("timestamp", &a.timestamp)?;
        let at_event = a
            .event_id
            .as_deref()
            .map(|e| event_id("eventId", e))
            .transpose()?;
        let run = a.run_id.clone();
        let live = run == self.journal.run_id();
        let s = &self.campaign;
        let symbol = a.security_symbol.clone();
        let built = self.read(&run, gate, |c| {
            let cutoff = match (at_event, at_ms) {
                (Some(id), _) => {
                    query::event(c, &run, id)?.ok_or_else(|| QueryError::UnknownEvent {
                        field: "eventId",
                        id: id.to_string(),
                    })?;
                    Some(id)
                }
                (None, Some(ms)) => query::last_id_at(c, &run, ms)?,
                _ => None,
            };
            let last = query::last_id_at(c, &run, u64::MAX >> 1)?;
            let cutoff = cutoff.unwrap_or(0);
            let reconstructed = !(live && at_event.is_none() && Some(cutoff) == last);
            let replayed = crate::journal::replay::replay(c, &run, cutoff)?;
            let mut state = CampaignState {
                coverage_points: replayed.coverage_points,
                corpus_size: replayed.corpus_size,
                calls: replayed.calls(),
                properties: Vec::new(),
                prioritized_functions: Vec::new(),
                workers: Vec::new(),
                pending_injections: Vec::new(),
            };
            if a.include_indicators {
                state.properties = (replayed.falsified.iter())
                    .map(|t| SnapshotProperty {
                        name: t.name.clone(),
                        status: if t.shrunk { "falsified" } else { "shrinking" }.into(),
                        falsified_at: Some(rfc3339(t.at_ms)),
                    })
                    .collect();
            }
            if a.include_active_orders {
                state.pending_injections = replayed.pending_injections();
            }
            state.prioritized_functions = (replayed.priorities.into_iter())
                .filter(|p| symbol.as_ref().is_none_or(|s| s == p))
                .collect();
            state.workers = (replayed.workers.into_iter())
                .map(|w| SnapshotWorker {
                    worker_id: w.worker,
                    running: w.running,
                    calls: w.calls,
                })
                .collect();
            Ok((state, reconstructed, cutoff))
        })?;
        let (mut state, reconstructed, cutoff) = built;
        if !reconstructed {
            // The live run, now: the stores are the truth.
            let report = s.report();
            state.coverage_points = s.target().coverage.points();
            state.corpus_size = s.corpus().len() as u64;
            state.calls = report.calls;
            if a.include_indicators {
                state.properties = report
                    .tests
                    .iter()
                    .map(|t| SnapshotProperty {
                        name: t.name.clone(),
                        status: t.status.as_str().into(),
                        falsified_at: None,
                    })
                    .collect();
            }
            state.prioritized_functions = s
                .priorities()
                .snapshot()
                .signatures()
                .into_iter()
                .filter(|p| a.security_symbol.as_ref().is_none_or(|sym| sym == p))
                .collect();
        } else if a.include_indicators && live {
            // Properties never falsified by the cutoff were passing.
            for c in s.tests().cases() {
                if !state.properties.iter().any(|p| p.name == c.name) {
                    state.properties.push(SnapshotProperty {
                        name: c.name.clone(),
                        status: "passing".into(),
                        falsified_at: None,
                    });
                }
            }
        }
        ToolAnswer::json(&StateSnapshot {
            timestamp: a
                .timestamp
                .clone()
                .unwrap_or_else(|| rfc3339(crate::eventlog::now_ms())),
            run_id: a.run_id,
            state,
            metadata: SnapshotMetadata {
                query_time_ms: started.elapsed().as_millis() as u64,
                reconstructed,
                as_of_event_id: (cutoff > 0).then(|| cutoff.to_string()),
            },
        })
    }

    fn sequence(&self, a: QueryEventSequenceInput, gate: &Gate) -> Result<ToolAnswer, ToolError> {
        let started = Instant::now();
        let mut pattern: Vec<Vec<Kind>> = Vec::new();
        for (i, t) in a.sequence_pattern.iter().enumerate() {
            pattern.push(kinds_of(t).ok_or_else(|| {
                invalid(
                    &format!("sequencePattern[{i}]"),
                    "INVALID_PARAMETER",
                    format!("unknown type {t:?}"),
                )
            })?);
        }
        let root = a
            .root_event_id
            .as_deref()
            .map(|r| event_id("rootEventId", r))
            .transpose()?;
        let until = a
            .until_event_id
            .as_deref()
            .map(|r| event_id("untilEventId", r))
            .transpose()?;
        if until.is_some() && root.is_none() {
            return Err(invalid(
                "untilEventId",
                "INVALID_PARAMETER",
                "needs rootEventId".into(),
            ));
        }
        let check = |rows: &[query::Row]| -> (bool, Vec<String>) {
            // The pattern's types must appear in order (a subsequence).
            let mut missing = Vec::new();
            let mut at = 0;
            for (i, kinds) in pattern.iter().enumerate() {
                match rows[at..].iter().position(|r| kinds.contains(&r.kind)) {
                    Some(p) => at += p + 1,
                    None => missing.push(a.sequence_pattern[i].clone()),
                }
            }
            (missing.is_empty(), missing)
        };
        let run = a.run_id.clone();
        let (sequences, total) = self.read(&run, gate, |c| {
            if let Some(root) = root {
                query::event(c, &run, root)?.ok_or_else(|| QueryError::UnknownEvent {
                    field: "rootEventId",
                    id: root.to_string(),
                })?;
                let rows = match until {
                    Some(u) => {
                        query::event(c, &run, u)?.ok_or_else(|| QueryError::UnknownEvent {
                            field: "untilEventId",
                            id: u.to_string(),
                        })?;
                        query::path_between(c, &run, root, u, a.max_depth as usize + 1)?
                            .unwrap_or_default()
                    }
                    None => query::descendants(c, &run, root, a.max_depth, MAX_SEQUENCE_EVENTS)?.0,
                };
                let (complete, missing) = check(&rows);
                let keep = !a.find_incomplete || !complete;
                let seqs = if keep && a.page_index == 0 {
                    vec![(root, rows, complete, missing)]
                } else {
                    Vec::new()
                };
                return Ok((seqs, keep as u64));
            }
            let root_kinds = pattern
                .first()
                .cloned()
                .unwrap_or(vec![Kind::SequenceStarted]);
            let filter = Filter {
                run: run.clone(),
                kinds: root_kinds,
                ..Filter::default()
            };
            if !a.find_incomplete {
                let page = query::events(c, &filter, a.page_index, a.page_size)?;
                let mut out = Vec::new();
                for r in page.rows {
                    let (rows, _) =
                        query::descendants(c, &run, r.id, a.max_depth, MAX_SEQUENCE_EVENTS)?;
                    let (complete, missing) = check(&rows);
                    out.push((r.id, rows, complete, missing));
                }
                return Ok((out, page.total));
            }
            let roots = query::events(c, &filter, 0, MAX_SCANNED_ROOTS as u64)?;
            let mut incomplete = Vec::new();
            for r in roots.rows {
                let (rows, _) =
                    query::descendants(c, &run, r.id, a.max_depth, MAX_SEQUENCE_EVENTS)?;
                let (complete, missing) = check(&rows);
                if !complete {
                    incomplete.push((r.id, rows, complete, missing));
                }
            }
            let total = incomplete.len() as u64;
            let skip = a.page_index.saturating_mul(a.page_size) as usize;
            Ok((
                incomplete
                    .into_iter()
                    .skip(skip)
                    .take(a.page_size as usize)
                    .collect(),
                total,
            ))
        })?;
        let returned = sequences.len() as u64;
        ToolAnswer::json(&EventSequenceResult {
            sequences: sequences
                .into_iter()
                .map(|(root, rows, complete, missing)| EventSequence {
                    root_event_id: root.to_string(),
                    events: rows.iter().map(entity_of).collect(),
                    complete,
                    missing_event_types: missing,
                })
                .collect(),
            metadata: SequenceMetadata {
                total_sequences: total,
                returned_count: returned,
                page_index: a.page_index,
                page_size: a.page_size,
                has_more: a.page_index.saturating_mul(a.page_size) + returned < total,
                query_time_ms: started.elapsed().as_millis() as u64,
            },
        })
    }

    fn validation_errors(
        &self,
        a: GetValidationErrorsInput,
        gate: &Gate,
    ) -> Result<ToolAnswer, ToolError> {
        let filter = Filter {
            run: a.run_id,
            invalid_only: true,
            severities: match a.severity_filter {
                Some(ErrorSeverity::Error) => vec![Severity::Error],
                Some(ErrorSeverity::Warning) => vec![Severity::Warning],
                None => Vec::new(),
            },
            ..Filter::default()
        };
        self.page(filter, a.page_index, a.page_size, gate)
    }
}
