//! What a node takes from the others: it reads their logs and heartbeats,
//! downloads their corpus entries, runs their injections, and adopts a
//! finding or an optimum only once its sequence, replayed here, still
//! falsifies or reaches it.

use super::*;
use crate::campaign::SpecRefused;
use crate::campaign::spec::{Spec, SpecSource};

/// New nodes are looked for every this many syncs (a list of `nodes/`).
const NODE_LIST_EVERY: u64 = 5;

/// How reading a node's log ended, with the corpus entries it downloaded.
enum LogRead {
    Whole(usize),
    /// At a batch that is not there (deleted after a compaction).
    Gap(usize),
}

impl LogRead {
    fn downloaded(self) -> usize {
        match self {
            LogRead::Whole(n) | LogRead::Gap(n) => n,
        }
    }
}

impl Engine {
    /// Takes another node's optimization value when it beats this node's
    /// and its sequence, replayed here, reaches it. Returns whether it did.
    fn adopt_optimum(&self, stored: &StoredOptimum, from: &str) -> Result<bool, String> {
        let Some(case) = self
            .tests
            .cases()
            .find(|c| c.name == stored.test && c.kind.seeks_value())
        else {
            return Ok(false);
        };
        let value: alloy_primitives::I256 = stored
            .value
            .parse()
            .map_err(|e| format!("value {:?}: {e}", stored.value))?;
        let abis = self.target.abis();
        let seq: Vec<Tx> = stored
            .sequence
            .iter()
            .map(|t| t.to_tx(abis))
            .collect::<Result<_, _>>()?;
        // The larger value wins; at the same value, the shorter sequence
        // (ties: the smaller hash), as for findings.
        let current = self.tests.optimum(case.id);
        let same_value = match &current {
            Some(o) if o.value > value => return Ok(false),
            Some(o) if o.value == value => {
                let mine = (o.sequence.len(), tx_sha(&o.sequence));
                if (seq.len(), calls_sha(&stored.sequence)) >= mine {
                    return Ok(false);
                }
                true
            }
            _ => false,
        };
        let reached = {
            let _row = self.corpus_files.replaying();
            let mut ex = self.target.executor(self.workers);
            Oracle::new(self, &mut ex)
                .check(Goal::Reaches(case, value), &seq)
                .is_some()
        };
        if !reached {
            tracing::warn!(
                "node {from}'s value {value} of {} is not reached here; not taken",
                case.name
            );
            return Ok(false);
        }
        if same_value {
            self.tests.replace_optimum_sequence(case.id, value, seq);
            self.persist_optimum(case.id);
            return Ok(true);
        }
        let improved = self.tests.offer(case.id, value, || Optimum {
            value,
            sequence: seq,
            worker: None,
            found_ms: crate::eventlog::now_ms(),
        });
        if improved {
            self.persist_optimum(case.id);
        }
        Ok(improved)
    }

    /// Takes another node's reproducer: replayed here, it must still fail;
    /// it then closes the open test (with `keepHunting`, the test stays
    /// open and the finding is only noted), or replaces this node's
    /// counterexample when shorter (ties: the smaller hash).
    fn adopt_finding(&self, stored: &StoredReproducer, from: &str) -> Result<Adoption, String> {
        let Some(case) = self.tests.cases().find(|c| c.name == stored.test) else {
            return Ok(Adoption::No); // a spec this node does not have (yet)
        };
        let abis = self.target.abis();
        let load = |v: &[StoredTx]| -> Result<Vec<Tx>, String> {
            v.iter().map(|t| t.to_tx(abis)).collect()
        };
        let original = load(&stored.original)?;
        let shrunk = load(&stored.shrunk)?;
        let seq = if shrunk.is_empty() {
            &original
        } else {
            &shrunk
        };
        let current = self.tests.falsified(case.id);
        match &current {
            Some(cur) => {
                let mine = (cur.sequence().len(), tx_sha(cur.sequence()));
                if !cur.shrink_done || (seq.len(), tx_sha(seq)) >= mine {
                    return Ok(Adoption::No);
                }
            }
            None if !self.tests.is_open(case.id) => return Ok(Adoption::No),
            None => {}
        }
        let hit = {
            let _row = self.corpus_files.replaying();
            let mut ex = self.target.executor(self.workers);
            Oracle::new(self, &mut ex).check(Goal::Fails(case), seq)
        };
        let Some(hit) = hit else {
            tracing::warn!(
                "node {from}'s reproducer of {} does not fail here; not taken",
                case.name
            );
            return Ok(Adoption::No);
        };
        match current {
            None if self.config.keep_hunting => {
                tracing::info!(
                    "test {} falsified by node {from} in {} calls; still hunting it here (keepHunting)",
                    case.name,
                    seq.len()
                );
                return Ok(Adoption::Hunting(seq.len() as u64));
            }
            None => {
                tracing::info!("test {} falsified by node {from}", case.name);
                let settled = super::super::engine::Settled {
                    found_by: FoundBy::Shared,
                    first_found_by: None,
                    reason: stored.reason.clone(),
                    original,
                    shrunk,
                    shrink_steps: 0,
                    gas_used: hit.gas,
                };
                self.settle_falsified(case, settled, true);
            }
            Some(cur) => {
                let mut better = (*cur).clone();
                better.shrunk = seq.clone();
                better.shrink_done = true;
                self.tests.set_falsified(case.id, better);
                self.persist_reproducer(case.id);
            }
        }
        Ok(Adoption::Taken)
    }
}

/// What a node did with another node's finding.
enum Adoption {
    /// Nothing: not better, not failing here, or a test it does not have.
    No,
    /// It closed the test, or replaced a longer counterexample.
    Taken,
    /// It noted it (`keepHunting`) and keeps the test open: a reproducer
    /// of this many calls.
    Hunting(u64),
}

impl Node {
    /// Reads every other node's new batches (and heartbeat); applies them
    /// (before the campaign starts: downloads their entries, keeps the rest).
    pub(super) fn pull(&mut self, control: Option<&Control>) -> Result<(), SharedError> {
        // New nodes are found by listing nodes/ at the first syncs and then
        // every NODE_LIST_EVERY syncs.
        if self.counters.syncs < 2 || self.counters.syncs.is_multiple_of(NODE_LIST_EVERY) {
            self.known_nodes = self
                .bucket
                .children(key::NODES)?
                .into_iter()
                .filter(|n| n != self.node.as_str())
                .filter_map(|n| NodeId::parse("node", &n).ok())
                .collect();
        }
        let mut downloaded = 0;
        let now = crate::eventlog::now_ms();
        for other in self.known_nodes.clone() {
            let n = other.to_string();
            let beat = self
                .bucket
                .get(&key::heartbeat(&other))?
                .and_then(|b| serde_json::from_slice::<Heartbeat>(&b).ok());
            let cursor = self.state.cursors.get(&n).copied();
            let unread = cursor.map_or(0, |c| c + 1);
            // A node's heartbeat says how many batches it has written: its
            // log is listed only when that is more than this node has read,
            // or once when the heartbeat has stopped moving (a node killed
            // between a batch and its next heartbeat), or when it has none.
            let list = match &beat {
                Some(h) if h.batches > unread => true,
                Some(h) => {
                    now.saturating_sub(h.ts_ms) > 5 * self.interval_ms
                        && self.listed_stale.insert((n.clone(), h.ts_ms))
                }
                None => true,
            };
            if let Some(h) = beat {
                self.heartbeats.insert(n.clone(), h);
            }
            if !list {
                continue;
            }
            downloaded += match self.read_log(&other, control, true)? {
                LogRead::Whole(n) => n,
                // Batches this node had not read were deleted (it was away
                // while the others compacted): the newest generation holds
                // them; then the log after it, gaps and all (a gap no
                // generation covers is a batch lost with its writer's disk).
                LogRead::Gap(n) => {
                    n + self.catch_up(control)?
                        + self.read_log(&other, control, false)?.downloaded()
                }
            };
        }
        if downloaded > 0
            && let Some(c) = control
        {
            let r = c.engine().reload_corpus(None);
            for m in r.malformed {
                tracing::warn!("shared corpus entry {}: {}", m.file, m.error);
            }
        }
        Ok(())
    }

    /// Reads `other`'s batches after this node's cursor, in order, and
    /// applies them; when `strict`, stops at a gap (a batch deleted or
    /// missing) and says so, else reads past it.
    fn read_log(
        &mut self,
        other: &NodeId,
        control: Option<&Control>,
        strict: bool,
    ) -> Result<LogRead, SharedError> {
        let n = other.to_string();
        let cursor = self.state.cursors.get(&n).copied();
        let mut expected = cursor.map_or(0, |c| c + 1);
        let mut downloaded = 0;
        let after = cursor.map(key::batch_name);
        for name in self
            .bucket
            .list_after(&key::batches(other), after.as_deref())?
        {
            let Some(seq) = key::batch_seq(&name) else {
                continue;
            };
            if seq != expected && strict {
                return Ok(LogRead::Gap(downloaded));
            }
            let path = format!("{}/{name}", key::batches(other));
            let Some(bytes) = self.bucket.get(&path)? else {
                if strict {
                    return Ok(LogRead::Gap(downloaded));
                }
                self.state.cursors.insert(n.clone(), seq);
                continue;
            };
            let batch = serde_json::from_slice::<Batch>(&bytes).unwrap_or_else(|e| {
                tracing::warn!("shared campaign: {path} is not a batch ({e}); skipped");
                Batch::default()
            });
            downloaded += self.download_entries(&batch)?;
            match control {
                Some(c) => self.apply(Some(c), &n, batch),
                None => self.deferred.push((n.clone(), batch)),
            }
            self.state.cursors.insert(n.clone(), seq);
            expected = seq + 1;
        }
        Ok(LogRead::Whole(downloaded))
    }

    /// Downloads a batch's corpus entries this node does not have into the
    /// corpus directory (a reload or the resume replays them).
    pub(super) fn download_entries(&mut self, batch: &Batch) -> Result<usize, SharedError> {
        let abis = self.target.abis();
        let mut n = 0;
        for sha in &batch.entries {
            if self.state.entries.contains(sha) {
                continue;
            }
            let Some(bytes) = self.bucket.get(&key::entry(sha))? else {
                continue;
            };
            let txs: Result<Vec<Tx>, String> = serde_json::from_slice::<StoredEntry>(&bytes)
                .map_err(|e| e.to_string())
                .and_then(|e| e.txs.iter().map(|t| t.to_tx(abis)).collect());
            match txs {
                Ok(txs) => {
                    let path = self.layout.corpus_entry(&txs);
                    if !path.exists() {
                        if let Err(e) = write_atomic(&path, &bytes) {
                            tracing::warn!("shared campaign: {}: {e}", path.display());
                            continue;
                        }
                        n += 1;
                        self.counters.pulled_entries += 1;
                    }
                }
                Err(e) => tracing::warn!("shared corpus entry {sha}: not taken: {e}"),
            }
            self.state.entries.insert(sha.clone());
        }
        Ok(n)
    }

    /// Applies a batch's findings, injections and specs.
    pub(super) fn apply(&mut self, control: Option<&Control>, from: &str, batch: Batch) {
        let Some(control) = control else {
            return;
        };
        let engine = control.engine().clone();
        for spec in batch.specs {
            let Ok(src) = serde_json::from_value::<SpecSource>(spec) else {
                continue;
            };
            let name = src.name.clone();
            self.state.specs.insert(name.clone());
            match Spec::parse(src, &engine.target.functions) {
                Ok(s) => match engine.add_spec(s) {
                    Ok(_) => tracing::info!("spec {name:?} added by node {from}"),
                    Err(SpecRefused::Duplicate(_)) => {}
                    Err(e) => tracing::warn!("spec {name:?} of node {from} not added: {e}"),
                },
                Err(e) => tracing::warn!("spec {name:?} of node {from} not added: {e}"),
            }
        }
        let hunting = &mut self.counters.hunting;
        let learned_tests = &mut self.state.learned;
        take_each(
            &self.bucket,
            batch.findings,
            &mut self.state.findings,
            ("finding", from),
            |r: &StoredReproducer| {
                let taken = match engine.adopt_finding(r, from)? {
                    Adoption::No => false,
                    Adoption::Taken => true,
                    Adoption::Hunting(calls) => {
                        note_hunting(hunting, &r.test, from, calls);
                        true
                    }
                };
                if taken {
                    learned_tests.insert(r.test.clone());
                }
                Ok(taken)
            },
        );
        self.counters.learned_findings = self.state.learned.len() as u64;
        self.counters.learned_optima += take_each(
            &self.bucket,
            batch.optima,
            &mut self.state.optima,
            ("optimum", from),
            |o: &StoredOptimum| engine.adopt_optimum(o, from),
        );
        for inj in batch.injections {
            match control.inject_shared(&inj.sequence, inj.repeat, from) {
                Ok(_) => self.counters.shared_injections += 1,
                Err(e) => tracing::warn!("injection of node {from} not run here: {e}"),
            }
        }
    }
}

/// Notes that node `from` falsified `test` in `calls` calls, keeping the
/// shortest per test (ties: the first seen).
fn note_hunting(hunting: &mut Vec<HuntingStatus>, test: &str, from: &str, calls: u64) {
    match hunting.iter_mut().find(|h| h.test == test) {
        Some(h) if calls < h.calls => {
            h.node = from.to_string();
            h.calls = calls;
        }
        Some(_) => {}
        None => hunting.push(HuntingStatus {
            test: test.to_string(),
            node: from.to_string(),
            calls,
        }),
    }
}

/// Reads each object `keys` names that `known` does not hold and hands it
/// to `adopt`; returns how many `adopt` took. An object not there (yet) or
/// out of reach stays unknown, so it is read again with its batch; one that
/// is not a `T` is reported (as `what.0` of node `what.1`) and not read again.
fn take_each<T: serde::de::DeserializeOwned>(
    bucket: &Bucket,
    keys: Vec<String>,
    known: &mut BTreeSet<String>,
    what: (&str, &str),
    mut adopt: impl FnMut(&T) -> Result<bool, String>,
) -> u64 {
    let (kind, from) = what;
    let mut taken = 0;
    for k in keys {
        if known.contains(&k) {
            continue;
        }
        let Ok(Some(bytes)) = bucket.get(&k) else {
            continue;
        };
        known.insert(k.clone());
        match serde_json::from_slice::<T>(&bytes) {
            Ok(item) => match adopt(&item) {
                Ok(true) => taken += 1,
                Ok(false) => {}
                Err(e) => tracing::warn!("{kind} {k} of node {from}: {e}"),
            },
            Err(e) => tracing::warn!("{kind} {k} of node {from}: not readable: {e}"),
        }
    }
    taken
}
