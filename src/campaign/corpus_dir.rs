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

/// The corpus entry files in `dir`, sorted.
pub(super) fn entry_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
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
        let one = match deadline {
            Some(d) => self.corpus_files.reading.try_lock_until(d),
            None => Some(self.corpus_files.reading.lock()),
        };
        let files = entry_files(&self.layout.coverage_dir());
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
            let stored = match std::fs::read(path)
                .map_err(|e| e.to_string())
                .and_then(|b| {
                    serde_json::from_slice::<super::persist::StoredEntry>(&b)
                        .map_err(|e| format!("not a corpus entry: {e}"))
                }) {
                Ok(s) => s,
                Err(e) => {
                    out.malformed.push(malformed(e));
                    continue;
                }
            };
            let txs: Result<Vec<Tx>, String> = stored.txs.iter().map(|t| t.to_tx(abis)).collect();
            let txs = match txs {
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
            let gas = stored.txs.iter().map(|t| t.gas_used.unwrap_or(0)).collect();
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
