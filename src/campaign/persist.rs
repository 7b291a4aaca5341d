//! Nothing lost: the corpus directory (one JSON file per corpus entry and per
//! falsified test, each written to a temporary file, fsynced and renamed) and
//! the event journal (JSON lines, one file per run). A single writer thread
//! does the disk work so workers never wait on `fsync`; it syncs the journal
//! at least once a second and at shutdown.

use crate::tx::{StoredTx, Tx};
use crossbeam::channel::{Receiver, RecvTimeoutError, Sender};
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Writes `bytes` to `path` atomically: temp file, fsync, rename, fsync dir.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("file"),
        std::process::id()
    ));
    {
        let mut f = File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
    }
    std::fs::rename(&tmp, path)?;
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// A corpus entry on disk.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredEntry {
    pub origin: crate::corpus::Origin,
    pub new_points: u32,
    pub txs: Vec<StoredTx>,
}

/// A falsified test on disk.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredReproducer {
    pub test: String,
    pub kind: crate::campaign::properties::TestKind,
    pub reason: String,
    pub original: Vec<StoredTx>,
    pub shrunk: Vec<StoredTx>,
    pub shrink_done: bool,
}

impl<'de> Deserialize<'de> for crate::campaign::properties::TestKind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use crate::campaign::properties::TestKind;
        let s = String::deserialize(d)?;
        Ok(match s.as_str() {
            "property" => TestKind::Property,
            "assertion" => TestKind::Assertion,
            "optimization" => TestKind::Optimization,
            "overflow" => TestKind::Overflow,
            other => {
                return Err(serde::de::Error::custom(format!(
                    "unknown test kind {other}"
                )));
            }
        })
    }
}

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
    /// A file to write atomically.
    File(PathBuf, Vec<u8>),
    /// A line to append to a log file (synced with the journal).
    Append(PathBuf, String),
    /// Sync everything now and acknowledge.
    Flush(Sender<()>),
}

/// The writer thread's handle.
#[derive(Clone)]
pub struct Writer {
    tx: Sender<WriteJob>,
}

impl Writer {
    /// Starts the writer thread; the journal goes to `journal` (created,
    /// appended). Returns the handle and the thread.
    pub fn start(journal: PathBuf) -> std::io::Result<(Writer, std::thread::JoinHandle<()>)> {
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
            .spawn(move || writer_loop(BufWriter::new(file), rx))?;
        Ok((Writer { tx }, handle))
    }

    pub fn send(&self, job: WriteJob) {
        let _ = self.tx.send(job);
    }

    /// Blocks until everything sent so far is on disk.
    pub fn flush(&self) {
        let (ack, done) = crossbeam::channel::bounded(1);
        if self.tx.send(WriteJob::Flush(ack)).is_ok() {
            let _ = done.recv_timeout(Duration::from_secs(10));
        }
    }
}

fn writer_loop(mut journal: BufWriter<File>, rx: Receiver<WriteJob>) {
    let mut last_sync = Instant::now();
    let mut dirty = false;
    let mut logs: std::collections::HashMap<PathBuf, File> = std::collections::HashMap::new();
    let sync_logs = |logs: &mut std::collections::HashMap<PathBuf, File>| {
        for f in logs.values() {
            let _ = f.sync_data();
        }
    };
    loop {
        match rx.recv_timeout(Duration::from_millis(250)) {
            Ok(WriteJob::Journal(line)) => {
                let _ = journal.write_all(line.as_bytes());
                let _ = journal.write_all(b"\n");
                dirty = true;
            }
            Ok(WriteJob::File(path, bytes)) => {
                if let Err(e) = write_atomic(&path, &bytes) {
                    tracing::error!("writing {}: {e}", path.display());
                }
            }
            Ok(WriteJob::Append(path, line)) => {
                if !logs.contains_key(&path) {
                    if let Some(d) = path.parent() {
                        let _ = std::fs::create_dir_all(d);
                    }
                    match OpenOptions::new().create(true).append(true).open(&path) {
                        Ok(f) => {
                            logs.insert(path.clone(), f);
                        }
                        Err(e) => tracing::error!("opening {}: {e}", path.display()),
                    }
                }
                if let Some(f) = logs.get_mut(&path) {
                    let _ = f.write_all(format!("{line}\n").as_bytes());
                    dirty = true;
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
        if dirty && last_sync.elapsed() >= Duration::from_secs(1) {
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
        let (w, h) = Writer::start(j.clone()).unwrap();
        w.send(WriteJob::Journal("{\"a\":1}".into()));
        w.send(WriteJob::File(dir.path().join("x.json"), b"{}".to_vec()));
        w.flush();
        assert_eq!(std::fs::read_to_string(&j).unwrap(), "{\"a\":1}\n");
        assert!(dir.path().join("x.json").exists());
        drop(w);
        h.join().unwrap();
    }
}
