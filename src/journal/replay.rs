//! A run's state at a past moment, replayed from its journal: coverage and
//! corpus size, the tests falsified by then, the priority set, the
//! injections still running and each worker's calls. The events family's
//! `get_state_snapshot` answers from it (reshaped at that boundary).

use super::Kind;
use super::query::{self, QueryError};
use crate::command::{Command, CommandResult, Logged};
use rusqlite::Connection;
use serde_json::Value;
use std::collections::BTreeMap;

/// The state a run's journal tells, up to and including row `cutoff`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Replayed {
    pub coverage_points: u64,
    pub corpus_size: u64,
    /// Tests falsified by then, in the order they were (a test falsified
    /// again, after a resume, counts once, at its last falsification).
    pub falsified: Vec<FalsifiedTest>,
    /// The priority set after the last command that changed it.
    pub priorities: Vec<String>,
    /// Each injection accepted by then, with how many workers had run it.
    pub injections: BTreeMap<u64, usize>,
    /// Each worker that had started, by id.
    pub workers: Vec<WorkerState>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FalsifiedTest {
    pub name: String,
    pub at_ms: u64,
    /// Whether its shrinking had finished.
    pub shrunk: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct WorkerState {
    pub worker: u32,
    /// Started and not stopped by then.
    pub running: bool,
    /// Its calls by then (its last batch, or its stop).
    pub calls: u64,
}

impl Replayed {
    /// Calls of every worker by then.
    pub fn calls(&self) -> u64 {
        self.workers.iter().map(|w| w.calls).sum()
    }

    /// Injections some worker had not run yet (`workers` of them run each).
    pub fn pending_injections(&self) -> Vec<u64> {
        let workers = self.workers.len().max(1);
        (self.injections.iter())
            .filter(|(_, ran)| **ran < workers)
            .map(|(id, _)| *id)
            .collect()
    }
}

/// Replays run `run` up to row `cutoff` (0: nothing).
pub fn replay(conn: &Connection, run: &str, cutoff: i64) -> Result<Replayed, QueryError> {
    let cov = query::last_of(conn, run, Kind::CoverageIncreased, cutoff)?;
    let num = |k: &str| {
        cov.as_ref()
            .and_then(|r| r.properties[k].as_u64())
            .unwrap_or(0)
    };
    let mut state = Replayed {
        coverage_points: num("totalPoints"),
        corpus_size: num("corpusSize"),
        ..Replayed::default()
    };
    let rows = query::all_of(
        conn,
        run,
        &[
            Kind::PropertyFalsified,
            Kind::TestShrunk,
            Kind::ControlCommand,
            Kind::InjectionExecuted,
        ],
        cutoff,
    )?;
    let test = |r: &query::Row| r.properties["property"].as_str().unwrap_or("").to_string();
    for r in &rows {
        match r.kind {
            Kind::PropertyFalsified => {
                let name = test(r);
                state.falsified.retain(|t| t.name != name);
                state.falsified.push(FalsifiedTest {
                    name,
                    at_ms: r.ts_ms,
                    shrunk: false,
                });
            }
            Kind::TestShrunk if r.properties["done"] == Value::Bool(true) => {
                let name = test(r);
                if let Some(t) = state.falsified.iter_mut().find(|t| t.name == name) {
                    t.shrunk = true;
                }
            }
            Kind::ControlCommand => {
                let Ok(Some(logged)) = Logged::parse(&r.properties) else {
                    continue;
                };
                match (logged.command, logged.result) {
                    (
                        Command::PrioritizeFunction(_),
                        CommandResult::Prioritized {
                            prioritized_functions,
                        },
                    ) => state.priorities = prioritized_functions,
                    (Command::ClearPriorities(_), _) => state.priorities.clear(),
                    (Command::InjectTransaction(_), CommandResult::Injected { injection, .. }) => {
                        state.injections.insert(injection, 0);
                    }
                    _ => {}
                }
            }
            Kind::InjectionExecuted => {
                if let Some(id) = r.properties["injection"].as_u64() {
                    *state.injections.entry(id).or_insert(0) += 1;
                }
            }
            _ => {}
        }
    }
    state.workers = workers(conn, run, cutoff)?;
    Ok(state)
}

/// Each worker's start, and its last batch and stop at or before the cutoff
/// (a short backward index walk per worker, not a scan of every batch).
fn workers(conn: &Connection, run: &str, cutoff: i64) -> Result<Vec<WorkerState>, QueryError> {
    let mut started: Vec<i64> = conn
        .prepare_cached(
            "SELECT worker FROM events WHERE run_id = ?1 AND kind = ?3
             AND id <= ?2 AND worker IS NOT NULL ORDER BY id",
        )?
        .query_map(
            rusqlite::params![run, cutoff, Kind::WorkerStarted.as_str()],
            |r| r.get(0),
        )?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    // A restarted worker logs a second start: one walk each.
    started.sort_unstable();
    started.dedup();
    let mut out = Vec::with_capacity(started.len());
    for w in started {
        let mut state = WorkerState {
            worker: w as u32,
            running: true,
            calls: 0,
        };
        // The last batch, then the stop (which overrides it).
        for kind in [Kind::TransactionExecuted, Kind::WorkerStopped] {
            let last: Option<String> = conn
                .prepare_cached(
                    "SELECT properties FROM events WHERE run_id = ?1 AND worker = ?2
                     AND id <= ?3 AND kind = ?4 ORDER BY id DESC LIMIT 1",
                )?
                .query_map(rusqlite::params![run, w, cutoff, kind.as_str()], |r| {
                    r.get(0)
                })?
                .next()
                .transpose()?;
            let Some(p) = last else { continue };
            let p: Value = serde_json::from_str(&p).unwrap_or(Value::Null);
            if kind == Kind::WorkerStopped {
                state.running = false;
                state.calls = p["calls"].as_u64().unwrap_or(state.calls);
            } else {
                state.calls = p["workerTotalCalls"].as_u64().unwrap_or(state.calls);
            }
        }
        out.push(state);
    }
    Ok(out)
}
