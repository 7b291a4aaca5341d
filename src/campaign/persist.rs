//! Nothing lost: the corpus directory (one JSON file per corpus entry and per
//! falsified test, each written to a temporary file, fsynced and renamed) and
//! the event journal (JSON lines, one file per run). A single writer thread
//! does the disk work so workers never wait on `fsync`; it syncs the journal
//! at least once a second and at shutdown.

use crate::eventlog::Event;
use crate::tx::{StoredTx, Tx};
use crossbeam::channel::{Receiver, RecvTimeoutError, Sender};
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Writes `bytes` to `path` atomically: temp file, fsync, rename, fsync dir.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    // An unpredictable name, created exclusively (O_CREAT|O_EXCL never
    // follows a symlink planted at that name): nobody can redirect the write.
    let tmp = dir.join(format!(
        ".{}.{:016x}.tmp",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("file"),
        rand::random::<u64>()
    ));
    let written = (|| {
        let mut f = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    // rename replaces a symlink at `path` itself; it never writes through it.
    std::fs::rename(&tmp, path)?;
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// A corpus entry on disk.
/// Why an export path was refused.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("{0}")]
    Refused(String),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Resolves `requested` (relative to `exports`, or absolute inside it) to
/// a file path inside the exports folder, after following every symlink of
/// its folders; refuses `..`, paths that leave the folder, and paths inside
/// any of `protected` (corpus, reproducers, journals, command log).
pub fn export_path(
    exports: &Path,
    requested: &str,
    protected: &[&Path],
) -> Result<PathBuf, ExportError> {
    use std::path::Component;
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| ExportError::Io { path, source }
    };
    // What no file system takes is a refusal of the input, not an I/O
    // failure of the campaign's: a NUL byte, a name over 255 bytes, a path
    // over 4,096 (Linux's NAME_MAX and PATH_MAX).
    if requested.contains('\0') {
        return Err(ExportError::Refused(format!(
            "{requested:?} contains a NUL byte"
        )));
    }
    if requested.len() > 4096 || requested.split('/').any(|c| c.len() > 255) {
        return Err(ExportError::Refused(format!(
            "{:?}… is too long (a name has at most 255 bytes, a path 4,096)",
            requested.chars().take(40).collect::<String>()
        )));
    }
    std::fs::create_dir_all(exports).map_err(io(exports))?;
    let base = std::fs::canonicalize(exports).map_err(io(exports))?;
    let req = Path::new(requested);
    let rel = if req.is_absolute() {
        let abs_exports = std::path::absolute(exports).unwrap_or_else(|_| exports.to_path_buf());
        req.strip_prefix(&base)
            .or_else(|_| req.strip_prefix(&abs_exports))
            .map(Path::to_path_buf)
            .map_err(|_| {
                ExportError::Refused(format!(
                    "{requested:?} is outside the exports folder {}",
                    base.display()
                ))
            })?
    } else {
        req.to_path_buf()
    };
    if rel.as_os_str().is_empty()
        || rel.file_name().is_none()
        || rel
            .components()
            .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
    {
        return Err(ExportError::Refused(format!(
            "{requested:?} must name a file inside the exports folder {} (no `..`)",
            base.display()
        )));
    }
    let joined = base.join(&rel);
    let parent = joined.parent().unwrap_or(&base);
    std::fs::create_dir_all(parent).map_err(io(parent))?;
    let real_parent = std::fs::canonicalize(parent).map_err(io(parent))?;
    if !real_parent.starts_with(&base) {
        return Err(ExportError::Refused(format!(
            "{requested:?} leaves the exports folder {} through a symlink",
            base.display()
        )));
    }
    let file = real_parent.join(joined.file_name().expect("checked above"));
    for p in protected {
        if let Ok(real) = std::fs::canonicalize(p)
            && file.starts_with(&real)
        {
            return Err(ExportError::Refused(format!(
                "{requested:?} is inside {}, which holds the campaign's own files",
                real.display()
            )));
        }
    }
    if std::fs::symlink_metadata(&file).is_ok_and(|m| m.is_dir()) {
        return Err(ExportError::Refused(format!("{requested:?} is a folder")));
    }
    Ok(file)
}

/// Where a campaign's files live. The only place that knows the corpus
/// directory's layout and the output directory's:
///
/// ```text
/// {corpusDir}/coverage/{hash}.json        corpus entries
/// {corpusDir}/reproducers/{test}.json     falsified tests (shrunk or not)
/// {corpusDir}/optimization/{test}.json    optimization tests' best sequences
/// {corpusDir}/mcp-commands.jsonl          the command log
/// {corpusDir}/journal.sqlite              every run's events (the events family)
/// {outDir}/journal/run-{runId}.jsonl      the event journal
/// {outDir}/exports/                       files tools export (LCOV)
/// ```
#[derive(Clone, Debug)]
pub struct Layout {
    out_dir: PathBuf,
    corpus_dir: PathBuf,
    run_id: String,
}

/// An output directory held by one run (`.rudder.lock`, an advisory
/// `flock` released when the run ends or its process dies): a second
/// run on the same directory would interleave its journal, corpus and
/// reproducers with this one's.
#[derive(Debug)]
pub struct OutDirLock {
    _file: File,
}

impl OutDirLock {
    /// Takes `dir` for this run, or says which run holds it.
    pub fn acquire(dir: &Path) -> Result<OutDirLock, String> {
        use std::os::fd::AsRawFd;
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let path = dir.join(".rudder.lock");
        let mut file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&path)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        // SAFETY: `flock` on a descriptor this function owns (kept open in
        // the returned lock); it reads and writes no memory of ours.
        let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        if rc != 0 {
            let holder = std::fs::read_to_string(&path).unwrap_or_default();
            let holder = holder.trim();
            return Err(format!(
                "{} is in use by another rudder run{}; give this run another --out-dir, or stop that one",
                dir.display(),
                if holder.is_empty() {
                    String::new()
                } else {
                    format!(" ({holder})")
                }
            ));
        }
        let _ = file.set_len(0);
        let _ = write!(file, "pid {}", std::process::id());
        let _ = file.flush();
        Ok(OutDirLock { _file: file })
    }
}

impl Layout {
    pub fn new(out_dir: PathBuf, corpus_dir: PathBuf, run_id: String) -> Self {
        Layout {
            out_dir,
            corpus_dir,
            run_id,
        }
    }

    pub fn out_dir(&self) -> &Path {
        &self.out_dir
    }

    pub fn corpus_dir(&self) -> &Path {
        &self.corpus_dir
    }

    /// The folder of corpus entries.
    pub fn coverage_dir(&self) -> PathBuf {
        self.corpus_dir.join("coverage")
    }

    /// The file of the corpus entry `txs`.
    pub fn corpus_entry(&self, txs: &[Tx]) -> PathBuf {
        self.coverage_dir()
            .join(format!("{}.json", sequence_hash(txs)))
    }

    /// The reproducer file of test `name`.
    pub fn reproducer(&self, name: &str) -> PathBuf {
        self.corpus_dir
            .join("reproducers")
            .join(format!("{}.json", file_stem(name)))
    }

    /// The best-sequence file of optimization test `name`.
    pub fn optimum(&self, name: &str) -> PathBuf {
        self.corpus_dir
            .join("optimization")
            .join(format!("{}.json", file_stem(name)))
    }

    /// The specs added at run time (`submit_new_spec`).
    pub fn specs(&self) -> PathBuf {
        self.corpus_dir.join(SPECS_FILE)
    }

    /// A node's state in a shared campaign (its cursors, what it has
    /// pushed): `{corpusDir}/shared-node.json`.
    pub fn shared_state(&self) -> PathBuf {
        self.corpus_dir.join("shared-node.json")
    }

    /// The SQLite journal of every run on this corpus directory.
    pub fn journal_db(&self) -> PathBuf {
        Layout::journal_db_in(&self.corpus_dir)
    }

    /// The SQLite journal of corpus directory `corpus_dir` (read by
    /// `rudder report` before any campaign is set up).
    pub fn journal_db_in(corpus_dir: &Path) -> PathBuf {
        corpus_dir.join("journal.sqlite")
    }

    /// The corpus directory of output directory `out_dir` when none is
    /// given (`corpusDir`).
    pub fn default_corpus_dir(out_dir: &Path) -> PathBuf {
        out_dir.join("corpus")
    }

    /// The command log (`mcp-commands.jsonl`).
    pub fn command_log(&self) -> PathBuf {
        self.corpus_dir.join("mcp-commands.jsonl")
    }

    /// This run's event journal.
    pub fn journal(&self) -> PathBuf {
        self.out_dir
            .join("journal")
            .join(format!("run-{}.jsonl", self.run_id))
    }

    /// The LCOV report `coverageFormats: [lcov]` writes into `dir`.
    pub fn lcov_report(&self, dir: &Path) -> PathBuf {
        self.coverage_report(dir, "lcov")
    }

    /// The coverage report of `format` (`coverageFormats`: lcov, txt,
    /// html) in `dir`, as Echidna names it.
    pub fn coverage_report(&self, dir: &Path, format: &str) -> PathBuf {
        dir.join(format!("covered.{}.{format}", self.run_id))
    }

    /// The folder exports are written to.
    pub fn exports_dir(&self) -> PathBuf {
        self.out_dir.join("exports")
    }

    /// Where an export named `requested` goes (see [`export_path`]): inside
    /// [`Self::exports_dir`], never over the corpus, reproducers, journals
    /// or the command log.
    pub fn export_path(&self, requested: &str) -> Result<PathBuf, ExportError> {
        let journal = self.journal();
        let journal_dir = journal.parent().unwrap_or(&self.out_dir);
        export_path(
            &self.exports_dir(),
            requested,
            &[&self.corpus_dir, journal_dir],
        )
    }
}

/// Creates `dir` if needed and checks a file can be created, written,
/// synced and removed in it.
pub fn probe_writable(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let probe = dir.join(format!(".rudder-probe-{}", std::process::id()));
    let r = (|| {
        let mut f = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&probe)?;
        f.write_all(b"probe")?;
        f.sync_all()
    })();
    let _ = std::fs::remove_file(&probe);
    r
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredEntry {
    pub origin: crate::corpus::Origin,
    pub new_points: u32,
    pub txs: Vec<StoredTx>,
}

/// An optimization test's best value and the sequence that reaches it, on
/// disk (`optimization/`) and in a shared store (`optima/`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredOptimum {
    pub test: String,
    /// The value, a decimal `int256`.
    pub value: String,
    pub sequence: Vec<StoredTx>,
}

/// A falsified test on disk.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredReproducer {
    pub test: String,
    pub kind: crate::campaign::properties::TestKind,
    pub reason: String,
    /// Who found it in the run that first did (`worker`, `deployment`,
    /// `shared`): a later run that replays the file keeps it. Absent in
    /// files older than it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub found_by: Option<String>,
    pub original: Vec<StoredTx>,
    pub shrunk: Vec<StoredTx>,
    pub shrink_done: bool,
}

/// The specs added at run time, in the corpus directory.
pub const SPECS_FILE: &str = "specs.json";

/// A stable name for a sequence: FNV-1a of its calldata, senders and values.
pub fn sequence_hash(txs: &[Tx]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |bytes: &[u8]| {
        for b in bytes {
            h ^= *b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    for tx in txs {
        feed(&tx.calldata());
        feed(tx.sender.as_slice());
        feed(&tx.value.to_be_bytes::<32>());
        feed(&tx.delay.seconds.to_be_bytes());
        feed(&tx.delay.blocks.to_be_bytes());
    }
    format!("{h:016x}")
}

/// A file name safe for a test name.
pub fn file_stem(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// What the writer thread does.
pub enum WriteJob {
    /// One journal line (already rendered).
    Journal(String),
    /// One event, rendered into a journal line by the writer thread (so the
    /// worker that emitted it never formats JSON).
    Event(Event),
    /// A file to write atomically.
    File(PathBuf, Vec<u8>),
    /// A line to append to a log file (synced with the journal).
    Append(PathBuf, String),
    /// Appends, syncs, then acknowledges: for lines that must be durable
    /// before the caller answers (the command log). Lines queued together
    /// share one sync (group commit).
    AppendDurable(PathBuf, String, Sender<()>),
    /// Sync everything now and acknowledge.
    Flush(Sender<()>),
}

/// Turns an event into its journal line (on the writer thread).
pub type RenderLine = Arc<dyn Fn(&Event) -> String + Send + Sync>;

/// The writer thread's handle.
#[derive(Clone)]
pub struct Writer {
    tx: Sender<WriteJob>,
}

impl Writer {
    /// Starts the writer thread; the journal goes to `journal` (created,
    /// appended), events rendered by `render`. Returns the handle and the
    /// thread.
    pub fn start(
        journal: PathBuf,
        render: RenderLine,
    ) -> std::io::Result<(Writer, std::thread::JoinHandle<()>)> {
        if let Some(d) = journal.parent() {
            std::fs::create_dir_all(d)?;
        }
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&journal)?;
        let (tx, rx) = crossbeam::channel::unbounded();
        let handle = std::thread::Builder::new()
            .name("rudder-writer".into())
            .spawn(move || writer_loop(BufWriter::new(file), rx, render))?;
        Ok((Writer { tx }, handle))
    }

    pub fn send(&self, job: WriteJob) {
        let _ = self.tx.send(job);
    }

    /// Appends `line` to `path` and blocks until it is synced to disk (or
    /// `timeout` passes; returns whether it was acknowledged).
    pub fn append_durable(&self, path: PathBuf, line: String, timeout: Duration) -> bool {
        let (ack, done) = crossbeam::channel::bounded(1);
        self.tx
            .send(WriteJob::AppendDurable(path, line, ack))
            .is_ok()
            && done.recv_timeout(timeout).is_ok()
    }

    /// Blocks until everything sent so far is on disk.
    pub fn flush(&self) {
        let (ack, done) = crossbeam::channel::bounded(1);
        if self.tx.send(WriteJob::Flush(ack)).is_ok() {
            let _ = done.recv_timeout(Duration::from_secs(10));
        }
    }
}

/// Appends one line to the log at `path`, opening it on first use.
fn append(logs: &mut std::collections::HashMap<PathBuf, File>, path: &Path, line: &str) {
    if !logs.contains_key(path) {
        if let Some(d) = path.parent() {
            let _ = std::fs::create_dir_all(d);
        }
        match OpenOptions::new().create(true).append(true).open(path) {
            Ok(f) => {
                logs.insert(path.to_path_buf(), f);
            }
            Err(e) => tracing::error!("opening {}: {e}", path.display()),
        }
    }
    if let Some(f) = logs.get_mut(path) {
        let _ = f.write_all(format!("{line}\n").as_bytes());
    }
}

fn writer_loop(mut journal: BufWriter<File>, rx: Receiver<WriteJob>, render: RenderLine) {
    let started = Instant::now();
    let mut last_sync = Instant::now();
    let mut dirty = false;
    let mut logs: std::collections::HashMap<PathBuf, File> = std::collections::HashMap::new();
    let sync_logs = |logs: &mut std::collections::HashMap<PathBuf, File>| {
        for f in logs.values() {
            let _ = f.sync_data();
        }
    };
    loop {
        match rx.recv_timeout(Duration::from_millis(50)) {
            Ok(WriteJob::Journal(line)) => {
                let _ = journal.write_all(line.as_bytes());
                let _ = journal.write_all(b"\n");
                dirty = true;
            }
            Ok(WriteJob::Event(e)) => {
                let _ = journal.write_all(render(&e).as_bytes());
                let _ = journal.write_all(b"\n");
                dirty = true;
            }
            Ok(WriteJob::File(path, bytes)) => {
                if let Err(e) = write_atomic(&path, &bytes) {
                    tracing::error!("writing {}: {e}", path.display());
                }
            }
            Ok(WriteJob::Append(path, line)) => {
                append(&mut logs, &path, &line);
                dirty = true;
            }
            Ok(WriteJob::AppendDurable(path, line, ack)) => {
                append(&mut logs, &path, &line);
                let mut acks = vec![ack];
                // Group commit: everything already queued shares this sync.
                while let Ok(job) = rx.try_recv() {
                    match job {
                        WriteJob::AppendDurable(p, l, a) => {
                            append(&mut logs, &p, &l);
                            acks.push(a);
                        }
                        WriteJob::Append(p, l) => append(&mut logs, &p, &l),
                        WriteJob::Journal(line) => {
                            let _ = journal.write_all(line.as_bytes());
                            let _ = journal.write_all(b"\n");
                        }
                        WriteJob::Event(e) => {
                            let _ = journal.write_all(render(&e).as_bytes());
                            let _ = journal.write_all(b"\n");
                        }
                        WriteJob::File(p, bytes) => {
                            if let Err(e) = write_atomic(&p, &bytes) {
                                tracing::error!("writing {}: {e}", p.display());
                            }
                        }
                        WriteJob::Flush(a) => acks.push(a),
                    }
                }
                let _ = journal.flush();
                let _ = journal.get_ref().sync_data();
                sync_logs(&mut logs);
                dirty = false;
                for a in acks {
                    let _ = a.send(());
                }
            }
            Ok(WriteJob::Flush(ack)) => {
                let _ = journal.flush();
                let _ = journal.get_ref().sync_data();
                sync_logs(&mut logs);
                dirty = false;
                let _ = ack.send(());
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => break,
        }
        // The first second syncs every 100 ms: a run killed right after it
        // started still leaves its first events on disk.
        let period = if started.elapsed() < Duration::from_secs(1) {
            Duration::from_millis(100)
        } else {
            Duration::from_secs(1)
        };
        if dirty && last_sync.elapsed() >= period {
            let _ = journal.flush();
            let _ = journal.get_ref().sync_data();
            sync_logs(&mut logs);
            dirty = false;
            last_sync = Instant::now();
        }
    }
    let _ = journal.flush();
    let _ = journal.get_ref().sync_data();
    sync_logs(&mut logs);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exports_stay_in_their_folder_whatever_the_symlinks() {
        let dir = tempfile::tempdir().unwrap();
        let exports = dir.path().join("out/exports");
        let corpus = dir.path().join("out/corpus");
        std::fs::create_dir_all(&corpus).unwrap();
        let ok = export_path(&exports, "cov/run.lcov", &[&corpus]).unwrap();
        assert!(ok.starts_with(std::fs::canonicalize(&exports).unwrap()));
        let long_name = format!("{}.lcov", "n".repeat(300));
        let long_path = "d/".repeat(2100) + "x.lcov";
        for bad in [
            "../corpus/x.json",
            "/etc/passwd",
            "",
            "a/../../x",
            "a\0b.lcov",
            &long_name,
            &long_path,
        ] {
            let e = export_path(&exports, bad, &[&corpus]).unwrap_err();
            assert!(matches!(e, ExportError::Refused(_)), "{bad:?}: {e}");
        }
        // A symlinked folder inside the exports folder that points out of it.
        std::os::unix::fs::symlink(&corpus, exports.join("sneaky")).unwrap();
        let e = export_path(&exports, "sneaky/mcp-commands.jsonl", &[&corpus]).unwrap_err();
        assert!(e.to_string().contains("symlink"), "{e}");
        // A symlink planted at the file name is replaced, never written through.
        let victim = dir.path().join("victim.txt");
        std::fs::write(&victim, b"precious").unwrap();
        std::os::unix::fs::symlink(&victim, exports.join("planted.lcov")).unwrap();
        let p = export_path(&exports, "planted.lcov", &[&corpus]).unwrap();
        write_atomic(&p, b"lcov").unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        assert_eq!(std::fs::read(&p).unwrap(), b"lcov");
        // A corpus folder configured inside the exports folder is protected.
        let inner = exports.join("corpus");
        std::fs::create_dir_all(&inner).unwrap();
        assert!(export_path(&exports, "corpus/x.json", &[&inner]).is_err());
    }

    #[test]
    fn atomic_write_replaces_whole_files() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a/b.json");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        let leftovers: Vec<_> = std::fs::read_dir(p.parent().unwrap())
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty());
    }

    #[test]
    fn the_writer_appends_journal_lines_and_flushes() {
        let dir = tempfile::tempdir().unwrap();
        let j = dir.path().join("journal/run.jsonl");
        let render: RenderLine = Arc::new(|e: &Event| format!("{{\"seq\":{}}}", e.seq.0));
        let (w, h) = Writer::start(j.clone(), render).unwrap();
        w.send(WriteJob::Journal("{\"a\":1}".into()));
        w.send(WriteJob::Event(Event {
            seq: crate::ids::Seq(7),
            timestamp_ms: 0,
            worker: crate::ids::WorkerId(0),
            payload: crate::eventlog::Payload::WorkerStarted { seed: 1 },
        }));
        w.send(WriteJob::File(dir.path().join("x.json"), b"{}".to_vec()));
        w.flush();
        // Events are rendered on the writer thread, in order with raw lines.
        assert_eq!(
            std::fs::read_to_string(&j).unwrap(),
            "{\"a\":1}\n{\"seq\":7}\n"
        );
        assert!(dir.path().join("x.json").exists());
        drop(w);
        h.join().unwrap();
    }
}
