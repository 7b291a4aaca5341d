//! The journal: every event of every run, in one embedded SQLite database per
//! corpus directory (`{corpusDir}/journal.sqlite`, WAL), queryable by the
//! events family while the campaign appends.
//!
//! What it holds, beyond the 2500 events the ring keeps: the run and worker
//! lifecycle, the workers' aggregated execution batches, every call that
//! raised coverage, reverted with a reason its worker had not seen, falsified
//! a test or belonged to an injection (each under a synthesized sequence
//! event), property and optimization results, shrink steps, injections,
//! every control command and every rejected tool input. Each row has an id,
//! a parent id (call → sequence → worker → run), entity keys (function
//! signature, sender, property, worker, injection), a timestamp and typed
//! numbers (gas, duration, coverage delta, corpus size) beside its JSON
//! properties.
//!
//! Who writes: one journal thread drains a bounded channel and inserts in
//! batched transactions ([`BATCH_ROWS`] rows or [`BATCH_INTERVAL`]). Workers
//! never touch SQLite: they send compact records. Under overload the
//! droppable kinds (execution batches, ordinary calls, coverage steps) are
//! dropped and counted ([`Journal::dropped`]); falsifications, shrink
//! results, lifecycle events, injections, commands and rejections wait for
//! room instead. A kill loses at most the batch not yet committed; WAL keeps
//! the database consistent.
//!
//! The same database holds the trace store ([`traces`]: executed sequences
//! and their calls, queried by [`trace_query`]); the same thread writes it.
//!
//! Order: ids follow the journal thread's order, and timestamps are made
//! non-decreasing in that order (events of different workers reach the
//! thread a few milliseconds apart), so "between two times" is an id range
//! and pages in id order never shift while the campaign appends.

mod writer;
use writer::*;
pub mod query;
pub mod replay;
pub mod rollup;
pub mod trace_query;
pub mod traces;

use crate::corpus::Origin;
use crate::eventlog::{Event, EventKind, Payload};
use crate::executor::Outcome;
use crate::ids::WorkerId;
use crate::tx::Tx;
use crossbeam::channel::{Receiver, RecvTimeoutError, Sender, TrySendError};
use parking_lot::{Mutex, RwLock};
use rollup::{EntityValue, Rollups};
use rusqlite::{Connection, OpenFlags, params};
use serde::Serialize;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Records queued for the journal thread at most.
pub const CHANNEL_CAPACITY: usize = 65_536;
/// Rows per transaction at most.
pub const BATCH_ROWS: usize = 2_000;
/// A batch is committed at least this often.
pub const BATCH_INTERVAL: Duration = Duration::from_millis(50);
/// Pooled read connections kept at most (more are opened on demand).
const POOLED_READERS: usize = 8;

#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    #[error("journal {path}: {source}")]
    Sqlite {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error("journal: {0}")]
    Io(#[from] std::io::Error),
}

macro_rules! kinds {
    ($($(#[$doc:meta])* $name:ident => $sev:ident, $cat:ident, $drop:expr;)*) => {
        /// What a journal row records.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, schemars::JsonSchema)]
        pub enum Kind { $($(#[$doc])* $name,)* }

        impl Kind {
            pub const ALL: &'static [Kind] = &[$(Kind::$name,)*];

            pub fn as_str(self) -> &'static str {
                match self { $(Kind::$name => stringify!($name),)* }
            }

            /// The severity rows of this kind usually carry.
            pub fn severity(self) -> Severity {
                match self { $(Kind::$name => Severity::$sev,)* }
            }

            /// The seed's category of this kind.
            pub fn category(self) -> Category {
                match self { $(Kind::$name => Category::$cat,)* }
            }

            /// Whether rows of this kind may be dropped under overload.
            pub fn droppable(self) -> bool {
                match self { $(Kind::$name => $drop,)* }
            }
        }
    };
}

/// The journal's kinds: its own, then the campaign's event kinds, declared
/// once in [`crate::eventlog`]'s vocabulary.
macro_rules! journal_kinds {
    (
        $($(#[$doc:meta])* $name:ident => $sev:ident, $cat:ident, $drop:expr;)*
        ;
        $(
            $(#[$edoc:meta])*
            $ename:ident = $code:literal { $($field:ident : $ty:ty),* $(,)? } => $esev:ident, $ecat:ident, $edrop:expr;
        )*
    ) => {
        kinds! {
            $($(#[$doc])* $name => $sev, $cat, $drop;)*
            $($(#[$edoc])* $ename => $esev, $ecat, $edrop;)*
        }

        impl From<EventKind> for Kind {
            fn from(k: EventKind) -> Kind {
                match k { $(EventKind::$ename => Kind::$ename,)* }
            }
        }
    };
}

crate::eventlog::with_event_kinds!(journal_kinds! {
    /// A run began (the root of every other row of the run).
    RunStarted => Info, Performance, false;
    /// A sequence that holds a journaled call (parent: the worker).
    SequenceStarted => Debug, Execution, true;
    /// One call: it raised coverage, reverted with a new reason, falsified a
    /// test or was injected (parent: its sequence).
    CallExecuted => Info, Execution, true;
    /// A state-changing control command (inject, prioritize, clear).
    ControlCommand => Info, Execution, false;
    /// A tool call or injection rejected for bad input.
    InputRejected => Warning, Execution, false;
});

impl Kind {
    pub fn parse(name: &str) -> Option<Kind> {
        Kind::ALL.iter().copied().find(|k| k.as_str() == name)
    }
}

/// The seed's severities.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub enum Severity {
    Error,
    Warning,
    Info,
    Debug,
}

impl Severity {
    pub const ALL: [Severity; 4] = [
        Severity::Error,
        Severity::Warning,
        Severity::Info,
        Severity::Debug,
    ];

    pub fn parse(name: &str) -> Option<Severity> {
        Severity::ALL.into_iter().find(|s| s.as_str() == name)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "Error",
            Severity::Warning => "Warning",
            Severity::Info => "Info",
            Severity::Debug => "Debug",
        }
    }
}

/// The seed's categories.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub enum Category {
    Execution,
    MarketData,
    Indicators,
    Risk,
    Performance,
}

impl Category {
    pub const ALL: [Category; 5] = [
        Category::Execution,
        Category::MarketData,
        Category::Indicators,
        Category::Risk,
        Category::Performance,
    ];

    pub fn parse(name: &str) -> Option<Category> {
        Category::ALL.into_iter().find(|c| c.as_str() == name)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Category::Execution => "Execution",
            Category::MarketData => "MarketData",
            Category::Indicators => "Indicators",
            Category::Risk => "Risk",
            Category::Performance => "Performance",
        }
    }
}

/// A call worth keeping, as a worker hands it over (rendered by the journal
/// thread, never by the worker).
#[derive(Clone, Debug)]
pub struct CallRecord {
    pub worker: WorkerId,
    /// The worker's sequence number (its count of sequences so far).
    pub sequence: u64,
    pub source: Origin,
    /// The call's position in its sequence.
    pub position: u32,
    pub ts_ms: u64,
    pub tx: Tx,
    pub outcome: Outcome,
    pub gas: u64,
    pub duration_ns: u64,
    pub new_points: u32,
    pub falsified: bool,
    /// The injection the call belongs to.
    pub injection: Option<u64>,
}

/// What goes to the journal thread.
pub enum Record {
    Event(Event),
    Call(Box<CallRecord>),
    /// A state-changing control command and its result.
    Command {
        ts_ms: u64,
        logged: crate::command::Logged,
        injection: Option<u64>,
    },
    /// A tool call or injection rejected for bad input.
    Rejected {
        ts_ms: u64,
        tool: String,
        field: String,
        message: String,
    },
    /// An executed sequence kept as a trace (see [`traces`]).
    Trace(Box<traces::TraceRecord>),
    /// A tool family's own rows (the ETG, code graph versions, decisions):
    /// the journal commits them in order with the rest and names no family.
    Family(Box<dyn FamilyRows>),
    /// Commit everything queued so far, then acknowledge.
    Flush(Sender<()>),
}

impl Record {
    fn droppable(&self) -> bool {
        match self {
            Record::Event(e) => Kind::from(e.kind()).droppable(),
            Record::Call(c) => !c.falsified && c.injection.is_none(),
            Record::Trace(t) => t.role == traces::TraceRole::Recent,
            Record::Family(rows) => rows.droppable(),
            _ => false,
        }
    }
}

/// Rows a tool family keeps in the journal's database. Its tables come with
/// the schemas given to [`Journal::open`]; the writer thread runs
/// [`FamilyRows::insert`] in its transaction, in order with every other
/// record.
pub trait FamilyRows: Send {
    fn insert(&self, tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<()>;
    /// Whether the record may give way under overload (a read tool's
    /// automatic log); a record of a state change may not.
    fn droppable(&self) -> bool {
        false
    }
}

/// What the journal needs to write a row's text, from whoever owns the
/// stores the events refer to (the campaign's `Renderer`): the journal reads
/// no campaign state itself.
pub trait Render: Send + Sync {
    /// The `data` object of an event.
    fn data(&self, e: &Event) -> Value;
    /// One call in the project's call syntax.
    fn call(&self, tx: &Tx) -> String;
    /// A test's name.
    fn test_name(&self, test: crate::ids::TestId) -> String;
}

/// A run the database holds.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunInfo {
    pub run_id: String,
    pub started: String,
    pub contract: String,
    /// Rows journaled so far.
    pub events: u64,
}

/// Counters the journal thread keeps for readers.
#[derive(Default)]
struct Shared {
    /// Rows per (run, kind), updated after each commit.
    counts: RwLock<HashMap<(String, Kind), u64>>,
    /// Records dropped under overload (droppable kinds only).
    dropped: AtomicU64,
    /// Rows committed.
    written: AtomicU64,
    /// Transactions committed: what readers saw changes only when it does.
    version: AtomicU64,
    /// Queries running now (see [`Journal::admit`]).
    running: parking_lot::Mutex<usize>,
    admitted: parking_lot::Condvar,
}

/// A query's place among the ones running; freed when dropped.
pub struct Admission<'a> {
    shared: &'a Shared,
}

impl Drop for Admission<'_> {
    fn drop(&mut self) {
        *self.shared.running.lock() -= 1;
        self.shared.admitted.notify_one();
    }
}

/// Queries that run at once at most: one per core (at least two). More
/// would only share the cores, so that under a burst every query slows
/// down and most miss their deadline; the others wait their turn.
fn max_running() -> usize {
    static N: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *N.get_or_init(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(2)
            .max(2)
    })
}

/// The handle: send records, open read connections, read counters.
#[derive(Clone)]
pub struct Journal {
    tx: Sender<Record>,
    path: PathBuf,
    run_id: String,
    shared: Arc<Shared>,
    readers: Arc<Mutex<Vec<Connection>>>,
}

impl std::fmt::Debug for Journal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Journal").field("path", &self.path).finish()
    }
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS runs (
  run_id TEXT PRIMARY KEY,
  started_ms INTEGER NOT NULL,
  contract TEXT NOT NULL,
  root_id INTEGER
);
CREATE TABLE IF NOT EXISTS events (
  id INTEGER PRIMARY KEY,
  run_id TEXT NOT NULL,
  ts_ms INTEGER NOT NULL,
  kind TEXT NOT NULL,
  severity TEXT NOT NULL,
  category TEXT NOT NULL,
  worker INTEGER,
  parent_id INTEGER,
  function TEXT,
  sender TEXT,
  property TEXT,
  injection INTEGER,
  gas INTEGER,
  duration_us INTEGER,
  coverage_delta INTEGER,
  corpus_size INTEGER,
  properties TEXT NOT NULL,
  validation_errors TEXT
);
CREATE INDEX IF NOT EXISTS events_run_kind ON events(run_id, kind, id);
CREATE INDEX IF NOT EXISTS events_run_ts ON events(run_id, ts_ms, id);
CREATE INDEX IF NOT EXISTS events_parent ON events(parent_id);
CREATE INDEX IF NOT EXISTS events_function ON events(run_id, function, id) WHERE function IS NOT NULL;
CREATE INDEX IF NOT EXISTS events_sender ON events(run_id, sender, id) WHERE sender IS NOT NULL;
CREATE INDEX IF NOT EXISTS events_property ON events(run_id, property, id) WHERE property IS NOT NULL;
CREATE INDEX IF NOT EXISTS events_worker ON events(run_id, worker, id) WHERE worker IS NOT NULL;
CREATE INDEX IF NOT EXISTS events_injection ON events(run_id, injection, id) WHERE injection IS NOT NULL;
CREATE INDEX IF NOT EXISTS events_invalid ON events(run_id, id) WHERE validation_errors IS NOT NULL;
CREATE INDEX IF NOT EXISTS events_run_kind_severity ON events(run_id, kind, severity, id);
CREATE INDEX IF NOT EXISTS events_kind_worker ON events(run_id, kind, worker, id) WHERE worker IS NOT NULL;
";

/// `PRAGMA user_version` once the rollups of every row are in place; a
/// database of an older rudder has its rollups rebuilt when opened.
const ROLLUPS_VERSION: i64 = 2;

/// Recomputes the rollups and entity counts of every row (a database
/// written before rollups existed).
fn rebuild_rollups(conn: &mut Connection) -> rusqlite::Result<u64> {
    let tx = conn.transaction()?;
    tx.execute_batch("DELETE FROM rollups; DELETE FROM entity_counts;")?;
    let mut acc = Rollups::default();
    let mut n = 0u64;
    {
        let mut stmt = tx.prepare(
            "SELECT id, run_id, ts_ms, kind, severity, worker, function, sender, property,
               injection, properties FROM events ORDER BY id",
        )?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let (Some(kind), Some(severity)) = (
                Kind::parse(&r.get::<_, String>(3)?),
                Severity::parse(&r.get::<_, String>(4)?),
            ) else {
                continue;
            };
            let props: Value =
                serde_json::from_str(&r.get::<_, String>(10)?).unwrap_or(Value::Null);
            let text = |i: usize| -> rusqlite::Result<Option<EntityValue>> {
                Ok(r.get::<_, Option<String>>(i)?.map(EntityValue::Text))
            };
            let int = |i: usize| -> rusqlite::Result<Option<EntityValue>> {
                Ok(r.get::<_, Option<i64>>(i)?.map(EntityValue::Int))
            };
            acc.add_row(
                &r.get::<_, String>(1)?,
                kind,
                severity,
                r.get::<_, i64>(2)?.max(0) as u64,
                r.get(0)?,
                &props,
                &[
                    ("worker", int(5)?),
                    ("function", text(6)?),
                    ("sender", text(7)?),
                    ("property", text(8)?),
                    ("injection", int(9)?),
                ],
            );
            n += 1;
            if n.is_multiple_of(50_000) {
                acc.flush(&tx)?;
            }
        }
    }
    acc.flush(&tx)?;
    tx.pragma_update(None, "user_version", ROLLUPS_VERSION)?;
    tx.commit()?;
    Ok(n)
}

fn sqlite(path: &Path) -> impl Fn(rusqlite::Error) -> JournalError + '_ {
    move |source| JournalError::Sqlite {
        path: path.to_path_buf(),
        source,
    }
}

impl Journal {
    /// Opens (or creates) the database at `path`, registers run `run_id`
    /// and starts the journal thread, which renders events with `render`.
    pub fn open(
        path: &Path,
        run_id: &str,
        started_ms: u64,
        contract: &str,
        render: Arc<dyn Render>,
        family_schemas: &[&str],
    ) -> Result<Journal, JournalError> {
        if let Some(d) = path.parent() {
            std::fs::create_dir_all(d)?;
        }
        let err = sqlite(path);
        let mut conn = Connection::open(path).map_err(&err)?;
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(&err)?;
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(&err)?;
        conn.busy_timeout(Duration::from_secs(5)).map_err(&err)?;
        conn.execute_batch(SCHEMA).map_err(&err)?;
        conn.execute_batch(rollup::SCHEMA).map_err(&err)?;
        conn.execute_batch(traces::SCHEMA).map_err(&err)?;
        for schema in family_schemas {
            conn.execute_batch(schema).map_err(&err)?;
        }
        let version: i64 = conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .map_err(&err)?;
        if version < ROLLUPS_VERSION {
            let rows = rebuild_rollups(&mut conn).map_err(&err)?;
            if rows > 0 {
                tracing::info!(
                    "journal {}: rollups rebuilt over {rows} rows",
                    path.display()
                );
            }
        }
        let shared = Arc::new(Shared::default());
        {
            let mut counts = shared.counts.write();
            let mut stmt = conn
                .prepare("SELECT run_id, kind, COUNT(*) FROM events GROUP BY run_id, kind")
                .map_err(&err)?;
            let rows = stmt
                .query_map([], |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, String>(1)?,
                        r.get::<_, i64>(2)?,
                    ))
                })
                .map_err(&err)?;
            for row in rows {
                let (run, kind, n) = row.map_err(&err)?;
                if let Some(k) = Kind::parse(&kind) {
                    counts.insert((run, k), n as u64);
                }
            }
        }
        let mut writer = Writer {
            render,
            run_id: run_id.to_string(),
            last_ts: 0,
            root: None,
            workers: HashMap::new(),
            sequences: HashMap::new(),
            last_call: HashMap::new(),
            falsified: HashMap::new(),
            commands: HashMap::new(),
            pending: HashMap::new(),
            rollups: Rollups::default(),
            traces: traces::TraceWriter::default(),
            shared: shared.clone(),
        };
        {
            let tx = conn.transaction().map_err(&err)?;
            tx.execute(
                "INSERT OR IGNORE INTO runs (run_id, started_ms, contract) VALUES (?1, ?2, ?3)",
                params![run_id, started_ms as i64, contract],
            )
            .map_err(&err)?;
            let root = writer
                .insert(
                    &tx,
                    Row {
                        kind: Kind::RunStarted,
                        ts_ms: started_ms,
                        properties: json!({ "runId": run_id, "contract": contract }),
                        ..Row::default()
                    },
                )
                .map_err(&err)?;
            tx.execute(
                "UPDATE runs SET root_id = ?1 WHERE run_id = ?2",
                params![root, run_id],
            )
            .map_err(&err)?;
            writer.rollups.flush(&tx).map_err(&err)?;
            tx.commit().map_err(&err)?;
            writer.root = Some(root);
            writer.publish_counts();
        }
        let (tx, rx) = crossbeam::channel::bounded(CHANNEL_CAPACITY);
        let thread_path = path.to_path_buf();
        std::thread::Builder::new()
            .name("rudder-journal".into())
            .spawn(move || writer.run(conn, rx, &thread_path))?;
        Ok(Journal {
            tx,
            path: path.to_path_buf(),
            run_id: run_id.to_string(),
            shared,
            readers: Arc::new(Mutex::new(Vec::new())),
        })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The run this handle writes.
    pub fn run_id(&self) -> &str {
        &self.run_id
    }

    /// Hands a record to the journal thread. Droppable records are dropped
    /// (and counted) when the queue is full; the others wait for room.
    pub fn send(&self, record: Record) {
        if record.droppable() {
            if let Err(TrySendError::Full(_)) = self.tx.try_send(record) {
                self.shared.dropped.fetch_add(1, Ordering::Relaxed);
            }
        } else {
            let _ = self.tx.send(record);
        }
    }

    /// Records dropped under overload so far.
    pub fn dropped(&self) -> u64 {
        self.shared.dropped.load(Ordering::Relaxed)
    }

    /// Rows committed so far (all runs, this process).
    pub fn written(&self) -> u64 {
        self.shared.written.load(Ordering::Relaxed)
    }

    /// Transactions committed so far: two reads at the same version see the
    /// same database (one writer, the journal thread).
    pub fn version(&self) -> u64 {
        self.shared.version.load(Ordering::Acquire)
    }

    /// Rows of `kind` committed for `run`.
    pub fn count(&self, run: &str, kind: Kind) -> u64 {
        self.shared
            .counts
            .read()
            .get(&(run.to_string(), kind))
            .copied()
            .unwrap_or(0)
    }

    /// Copies everything committed so far from the write-ahead log into the
    /// database file and empties the log where no reader holds it (a
    /// campaign's end: `journal.sqlite` alone then holds the whole journal,
    /// for a CI job that keeps only that file). Failures are logged.
    pub fn checkpoint(&self) {
        let done = Connection::open(&self.path).and_then(|c| {
            c.busy_timeout(Duration::from_secs(5))?;
            c.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        });
        if let Err(e) = done {
            tracing::warn!("journal {}: checkpoint: {e}", self.path.display());
        }
    }

    /// Blocks until everything sent so far is committed (or 10 s pass).
    pub fn flush(&self) {
        let (ack, done) = crossbeam::channel::bounded(1);
        if self.tx.send(Record::Flush(ack)).is_ok() {
            let _ = done.recv_timeout(Duration::from_secs(10));
        }
    }

    /// Waits for a query slot until `deadline` (`None`: the deadline passed
    /// first). Readers that hold one run on a core of their own.
    pub fn admit(&self, deadline: Instant) -> Option<Admission<'_>> {
        let mut running = self.shared.running.lock();
        while *running >= max_running() {
            if self
                .shared
                .admitted
                .wait_until(&mut running, deadline)
                .timed_out()
                && *running >= max_running()
            {
                return None;
            }
        }
        *running += 1;
        Some(Admission {
            shared: &self.shared,
        })
    }

    /// A read connection (pooled), returned to the pool when dropped.
    pub fn reader(&self) -> Result<Reader, JournalError> {
        let conn = match self.readers.lock().pop() {
            Some(c) => c,
            None => {
                let err = sqlite(&self.path);
                let c = Connection::open_with_flags(
                    &self.path,
                    OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
                )
                .map_err(&err)?;
                c.busy_timeout(Duration::from_secs(1)).map_err(&err)?;
                // Readers map the file (the OS page cache is shared between
                // them) and keep a larger page cache than SQLite's 2 MB:
                // scans of a million-row journal read pages, not the disk.
                c.pragma_update(None, "mmap_size", 1i64 << 31)
                    .map_err(&err)?;
                c.pragma_update(None, "cache_size", -16_384i64)
                    .map_err(&err)?;
                c
            }
        };
        Ok(Reader {
            conn: Some(conn),
            pool: self.readers.clone(),
            path: self.path.clone(),
        })
    }

    /// Every run the database holds, oldest first.
    pub fn runs(&self) -> Result<Vec<RunInfo>, JournalError> {
        let r = self.reader()?;
        let err = sqlite(&self.path);
        let mut stmt = r
            .conn()
            .prepare_cached(
                "SELECT run_id, started_ms, contract FROM runs ORDER BY started_ms, run_id",
            )
            .map_err(&err)?;
        let rows = stmt
            .query_map([], |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, i64>(1)?,
                    row.get::<_, String>(2)?,
                ))
            })
            .map_err(&err)?;
        let counts = self.shared.counts.read();
        let mut out = Vec::new();
        for row in rows {
            let (run_id, started, contract) = row.map_err(&err)?;
            let events = counts
                .iter()
                .filter(|((r, _), _)| *r == run_id)
                .map(|(_, n)| *n)
                .sum();
            out.push(RunInfo {
                started: crate::eventlog::rfc3339(started as u64),
                run_id,
                contract,
                events,
            });
        }
        Ok(out)
    }
}

/// A pooled read connection.
pub struct Reader {
    conn: Option<Connection>,
    pool: Arc<Mutex<Vec<Connection>>>,
    path: PathBuf,
}

impl Reader {
    pub fn conn(&self) -> &Connection {
        self.conn.as_ref().expect("present until dropped")
    }

    pub fn conn_mut(&mut self) -> &mut Connection {
        self.conn.as_mut().expect("present until dropped")
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Reader {
    fn drop(&mut self) {
        if let Some(mut c) = self.conn.take() {
            let _ = c.progress_handler(0, None::<fn() -> bool>);
            let mut pool = self.pool.lock();
            if pool.len() < POOLED_READERS {
                pool.push(c);
            }
        }
    }
}
