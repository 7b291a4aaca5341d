//! The corpus directory read into the campaign: once at resume, and again
//! whenever an agent asks (`reload_corpus`) for entries that another process,
//! another campaign or a person put there. Every file read or written is
//! remembered, so a reload replays only what is new; a file that cannot be
//! read is reported by name each time and left where it is.

use super::Engine;
use super::oracle::Oracle;
use crate::corpus::Origin;
use crate::journal::Record;
use crate::journal::traces::{TraceRecord, TraceRole};
use crate::tx::Tx;
use parking_lot::Mutex;
use schemars::JsonSchema;
use serde::Serialize;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The corpus files the campaign has read or written.
#[derive(Debug, Default)]
pub struct CorpusFiles {
    known: Mutex<HashSet<PathBuf>>,
    /// One reader at a time (it replays on the campaign's executor row).
    reading: Mutex<()>,
}

impl CorpusFiles {
    /// Remembers a file as read (or written by this campaign); false when
    /// it was already known.
    pub fn mark(&self, path: PathBuf) -> bool {
        self.known.lock().insert(path)
    }

    /// Holds the campaign's own executor row (replays outside the workers
    /// take it one at a time).
    pub(super) fn replaying(&self) -> parking_lot::MutexGuard<'_, ()> {
        self.reading.lock()
    }
}

/// A corpus file that could not be loaded.
#[derive(Clone, Debug, Serialize, JsonSchema, PartialEq, Eq)]
pub struct Malformed {
    /// Its path.
    pub file: String,
    /// Why: not JSON of a corpus entry, or a call the target's ABI does not have.
    pub error: String,
}

/// What a read of the corpus directory did.
#[derive(Clone, Debug, Default, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Reload {
    /// New entries replayed and added to the corpus.
    pub added: usize,
    /// Files already in the corpus (read or written before).
    pub already_known: usize,
    /// Coverage points the new entries reached that the campaign had not.
    pub new_coverage_points: u64,
    /// Files that could not be loaded (left in place, reported again on the next reload).
    pub malformed: Vec<Malformed>,
    /// New files not replayed before the deadline (a further reload goes on with them).
    pub remaining: usize,
}

/// The corpus entry files in `dir`, sorted: rudder's (`.json`) and
/// Echidna's (`.txt`, [`crate::interop::echidna`]).
pub(super) fn entry_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json" || is_echidna(p)))
        .collect();
    files.sort();
    files
}

/// An Echidna transaction file (its corpus and reproducers are `HASH.txt`).
fn is_echidna(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "txt")
}

/// Where Medusa keeps call sequences in its corpus directory (newest
/// layout first), and its falsified tests' sequences.
const MEDUSA_DIRS: [&str; 4] = [
    "call_sequences/immutable",
    "call_sequences/mutable",
    "call_sequences",
    "test_results",
];

/// A Medusa call-sequence file: a `.json` in one of [`MEDUSA_DIRS`].
fn is_medusa(corpus_dir: &Path, path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "json")
        && MEDUSA_DIRS
            .iter()
            .any(|d| path.parent() == Some(&corpus_dir.join(d)))
}

/// Another fuzzer's files in the corpus directory beyond `coverage/`:
/// Echidna's reproducers (`reproducers/*.txt`, beside rudder's own `.json`
/// ones) and Medusa's call sequences, sorted.
fn foreign_files(corpus_dir: &Path) -> Vec<PathBuf> {
    let list = |dir: PathBuf, keep: &dyn Fn(&Path) -> bool| -> Vec<PathBuf> {
        std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file() && keep(p))
            .collect()
    };
    let mut files = list(corpus_dir.join("reproducers"), &is_echidna);
    for d in MEDUSA_DIRS {
        files.extend(list(corpus_dir.join(d), &|p| is_medusa(corpus_dir, p)));
    }
    files.sort();
    files
}

impl Engine {
    /// Reads the corpus directory's entries the campaign does not know yet,
    /// replays each for its coverage and adds it to the corpus, until
    /// `deadline`. Nothing on disk changes. While another replay holds the
    /// campaign's replay row (a shared campaign's sync replaying what other
    /// nodes found) until the deadline, nothing is replayed and every new
    /// file is `remaining`.
    pub fn reload_corpus(&self, deadline: Option<Instant>) -> Reload {
        self.read_corpus_dir(deadline, None)
    }

    /// As [`reload_corpus`](Self::reload_corpus); with `foreign`, also
    /// reads Echidna's reproducers, and keeps there the sequences read
    /// from another fuzzer's files: their tests were never checked by
    /// rudder, so resume checks them ([`super::Campaign`]'s `resume`).
    pub(super) fn read_corpus_dir(
        &self,
        deadline: Option<Instant>,
        mut foreign: Option<&mut Vec<Vec<Tx>>>,
    ) -> Reload {
        let one = match deadline {
            Some(d) => self.corpus_files.reading.try_lock_until(d),
            None => Some(self.corpus_files.reading.lock()),
        };
        let mut files = entry_files(&self.layout.coverage_dir());
        if foreign.is_some() {
            files.extend(foreign_files(self.layout.corpus_dir()));
        }
        let total = files.len();
        let fresh: Vec<PathBuf> = {
            let known = self.corpus_files.known.lock();
            files.into_iter().filter(|p| !known.contains(p)).collect()
        };
        let mut out = Reload {
            already_known: total - fresh.len(),
            ..Reload::default()
        };
        if one.is_none() {
            out.remaining = fresh.len();
            return out;
        }
        if fresh.is_empty() {
            return out;
        }
        let abis = self.target.abis();
        let mut ex = self.target.executor(self.workers);
        let mut oracle = Oracle::new(self, &mut ex);
        let tracing = self.keeps_traces();
        for (i, path) in fresh.iter().enumerate() {
            if deadline.is_some_and(|d| Instant::now() >= d) {
                out.remaining = fresh.len() - i;
                break;
            }
            let malformed = |error: String| Malformed {
                file: path.display().to_string(),
                error,
            };
            let echidna = is_echidna(path);
            let medusa = is_medusa(self.layout.corpus_dir(), path);
            let read = std::fs::read(path).map_err(|e| e.to_string());
            let (txs, gas) = if echidna || medusa {
                let txs = read.and_then(|b| {
                    if echidna {
                        crate::interop::echidna::read(&b, abis, self.target.address)
                            .map_err(|e| format!("not an Echidna transaction file: {e}"))
                    } else {
                        crate::interop::medusa::read(&b, abis, self.target.address)
                            .map_err(|e| format!("not a Medusa call sequence: {e}"))
                    }
                });
                let gas = vec![0; txs.as_ref().map_or(0, Vec::len)];
                (txs, gas)
            } else {
                let stored = read.and_then(|b| {
                    serde_json::from_slice::<super::persist::StoredEntry>(&b)
                        .map_err(|e| format!("not a corpus entry: {e}"))
                });
                match stored {
                    Ok(stored) => (
                        stored.txs.iter().map(|t| t.to_tx(abis)).collect(),
                        stored.txs.iter().map(|t| t.gas_used.unwrap_or(0)).collect(),
                    ),
                    Err(e) => (Err(e), Vec::new()),
                }
            };
            let txs: Vec<Tx> = match txs {
                Ok(t) => t,
                Err(e) => {
                    out.malformed.push(malformed(e));
                    continue;
                }
            };
            // Replayed entries are traces too (`list_traces` on a resumed
            // campaign shows what it started from).
            let (new, traced) = if tracing {
                let (new, obs) = oracle.replay_observed(&txs);
                (new, Some((txs.clone(), obs)))
            } else {
                (oracle.replay_for_coverage(&txs), None)
            };
            if (echidna || medusa)
                && let Some(f) = foreign.as_deref_mut()
            {
                f.push(txs.clone());
            }
            // A file under another name holding a sequence the corpus has is
            // known content: it is not added twice.
            if let Some(entry) = self.add_corpus(None, Origin::Replayed, new, txs, gas) {
                out.added += 1;
                out.new_coverage_points += u64::from(new);
                if let Some((txs, obs)) = traced {
                    let mut t = TraceRecord::new(TraceRole::Corpus, Origin::Replayed, txs, obs);
                    t.corpus_entry = Some(entry.id.0);
                    t.window = self.config.trace_window;
                    self.journal_send(|| Record::Trace(Box::new(t)));
                }
            } else {
                out.already_known += 1;
            }
            self.corpus_files.mark(path.clone());
        }
        out
    }
}

/// A format [`export`] writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportFormat {
    /// Echidna's corpus directory: `coverage/HASH.txt` and
    /// `reproducers/HASH.txt`, each a JSON array of its transactions
    /// ([`crate::interop::echidna`]).
    Echidna,
    /// Medusa's corpus directory: `call_sequences/mutable/HASH.json` and
    /// `test_results/HASH.json` ([`crate::interop::medusa`]).
    Medusa,
}

/// What [`export`] wrote.
#[derive(Clone, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Exported {
    /// Corpus sequences written.
    pub sequences: usize,
    /// Falsified tests' sequences written (the shrunk one, else the original).
    pub reproducers: usize,
    /// Files that could not be read or converted (left out, with why).
    pub skipped: Vec<Malformed>,
}

/// Writes the corpus directory `corpus_dir` (its entries and reproducers)
/// into `dest` in another fuzzer's layout, so that fuzzer resumes from it:
/// calls to the target go to `target` (the other fuzzer's contract
/// address), each with `gas`. Nothing in `corpus_dir` changes; files are
/// written atomically and named by their sequence's hash.
pub fn export(
    corpus_dir: &Path,
    dest: &Path,
    format: ExportFormat,
    target: alloy_primitives::Address,
    gas: u64,
) -> std::io::Result<Exported> {
    let mut out = Exported::default();
    let convert = |txs: &[crate::tx::StoredTx]| -> Result<Vec<Tx>, String> {
        txs.iter().map(|t| t.to_tx_by_signature()).collect()
    };
    let write = |reproducer: bool, txs: Vec<Tx>| -> std::io::Result<()> {
        let hash = super::persist::sequence_hash(&txs);
        let (json, path) = match format {
            ExportFormat::Echidna => (
                crate::interop::echidna::write(&txs, target, gas),
                dest.join(if reproducer {
                    "reproducers"
                } else {
                    "coverage"
                })
                .join(format!("{hash}.txt")),
            ),
            ExportFormat::Medusa => (
                crate::interop::medusa::write(&txs, target, gas),
                dest.join(if reproducer {
                    "test_results"
                } else {
                    "call_sequences/mutable"
                })
                .join(format!("{hash}.json")),
            ),
        };
        super::persist::write_atomic(&path, json.to_string().as_bytes())
    };
    let skip = |out: &mut Exported, path: &Path, error: String| {
        out.skipped.push(Malformed {
            file: path.display().to_string(),
            error,
        })
    };
    for path in entry_files(&corpus_dir.join("coverage")) {
        if is_echidna(&path) {
            continue;
        }
        let entry = std::fs::read(&path)
            .map_err(|e| e.to_string())
            .and_then(|b| {
                serde_json::from_slice::<super::persist::StoredEntry>(&b)
                    .map_err(|e| format!("not a corpus entry: {e}"))
            });
        match entry.and_then(|e| convert(&e.txs)) {
            Ok(txs) => {
                write(false, txs)?;
                out.sequences += 1;
            }
            Err(e) => skip(&mut out, &path, e),
        }
    }
    for path in entry_files(&corpus_dir.join("reproducers")) {
        if is_echidna(&path) {
            continue;
        }
        let stored = std::fs::read(&path)
            .map_err(|e| e.to_string())
            .and_then(|b| {
                serde_json::from_slice::<super::persist::StoredReproducer>(&b)
                    .map_err(|e| format!("not a reproducer: {e}"))
            });
        let txs = stored.and_then(|r| {
            convert(if r.shrunk.is_empty() {
                &r.original
            } else {
                &r.shrunk
            })
        });
        match txs {
            Ok(txs) => {
                write(true, txs)?;
                out.reproducers += 1;
            }
            Err(e) => skip(&mut out, &path, e),
        }
    }
    Ok(out)
}
