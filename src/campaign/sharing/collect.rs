//! What this node puts in the shared store: what it found since the last
//! sync (corpus entries, findings, optima, its own injections from the
//! command log) gathered into `pending`, then written as one batch.

use super::*;

impl Node {
    /// What this node has found since the last sync, into `pending`.
    pub(super) fn collect(&mut self, engine: &Engine) {
        // Entries by index from the cursor: no walk over what was read.
        while let Some(e) = engine
            .corpus
            .get(crate::ids::EntryId(self.corpus_cursor as u64))
        {
            self.corpus_cursor += 1;
            if e.origin == crate::corpus::Origin::Replayed {
                continue;
            }
            let stored = StoredEntry {
                origin: e.origin,
                new_points: e.new_points,
                txs: e
                    .txs
                    .iter()
                    .zip(e.gas_used.iter())
                    .map(|(t, g)| StoredTx::from_tx(t, Some(*g)))
                    .collect(),
            };
            let sha = calls_sha(&stored.txs);
            if !self.state.entries.contains(&sha) && self.pending.names.insert(sha.clone()) {
                let bytes = serde_json::to_vec(&stored).expect("entries serialize");
                self.pending.entries.push((sha, bytes));
            }
        }
        for case in engine.tests.cases() {
            // Mid-shrink sequences stay home: the original went out when it
            // was found, the shrunk one goes when shrinking is done.
            if let Some(f) = engine.tests.falsified(case.id)
                && f.found_by != FoundBy::Shared
                && (f.shrink_done || f.shrunk.is_empty())
                && let Some(stored) = engine.stored_reproducer(case.id)
            {
                let k = finding_key(&stored);
                if !self.state.findings.contains(&k) && self.pending.names.insert(k.clone()) {
                    let bytes = serde_json::to_vec(&stored).expect("reproducers serialize");
                    self.pending.findings.push((k, Some(bytes)));
                }
            }
            if case.kind.seeks_value()
                && let Some(o) = engine.stored_optimum(case.id)
            {
                let k = key::optimum(
                    &crate::campaign::persist::file_stem(&o.test),
                    &calls_sha(&o.sequence),
                );
                if !self.state.optima.contains(&k) && self.pending.names.insert(k.clone()) {
                    let bytes = serde_json::to_vec(&o).expect("optima serialize");
                    self.pending.optima.push((k, bytes));
                }
            }
            if let Some(spec) = &case.spec
                && !self.state.specs.contains(&case.name)
                && self.pending.names.insert(format!("spec:{}", case.name))
                && let Ok(v) = serde_json::to_value(&spec.source)
            {
                self.pending.specs.push((case.name.clone(), v));
            }
        }
        self.collect_injections(&engine.layout);
    }

    /// Injections given to this node since the last share, from its
    /// command log (not those it ran for another node).
    pub(super) fn collect_injections(&mut self, layout: &Layout) {
        let from = self
            .pending
            .command_log_offset
            .unwrap_or(self.state.command_log_offset);
        // Only what was appended since `from` is read.
        let mut new = Vec::new();
        let read = std::fs::File::open(layout.command_log()).and_then(|mut f| {
            use std::io::{Read, Seek};
            f.seek(std::io::SeekFrom::Start(from))?;
            f.read_to_end(&mut new)
        });
        if read.is_err() {
            return;
        }
        // Whole lines only: a line being appended is read next time.
        let Some(end) = new.iter().rposition(|b| *b == b'\n') else {
            return;
        };
        for line in new[..end].split(|b| *b == b'\n') {
            let Ok(v) = serde_json::from_slice::<serde_json::Value>(line) else {
                continue;
            };
            // This node's own injections that ran; not those it was given.
            let Ok(Some(Logged {
                command: Command::InjectTransaction(inject),
                result,
            })) = Logged::parse(&v)
            else {
                continue;
            };
            if result.failed() || inject.shared_from.is_some() || inject.sequence.is_empty() {
                continue;
            }
            self.pending.injections.push(SharedInjection {
                sequence: inject.sequence,
                repeat: inject.repeat,
                batch: None,
            });
        }
        self.pending.command_log_offset = Some(from + end as u64 + 1);
    }

    /// Puts what is pending in the store and names it in one new batch.
    pub(super) fn push(&mut self) -> Result<(), SharedError> {
        if self.pending.len() == 0 {
            if let Some(o) = self.pending.command_log_offset.take() {
                self.state.command_log_offset = o;
            }
            return Ok(());
        }
        let n_entries = self
            .pending
            .entries
            .len()
            .min(crate::shared::MAX_BATCH_ITEMS);
        let n_findings = self
            .pending
            .findings
            .len()
            .min(crate::shared::MAX_BATCH_ITEMS);
        for (sha, bytes) in &self.pending.entries[..n_entries] {
            self.bucket.put(&key::entry(sha), bytes.clone())?;
        }
        for (k, bytes) in &self.pending.findings[..n_findings] {
            if let Some(b) = bytes {
                self.bucket.put(k, b.clone())?;
            }
        }
        for (k, bytes) in &self.pending.optima {
            self.bucket.put(k, bytes.clone())?;
        }
        let batch = Batch {
            node: self.node.to_string(),
            seq: self.state.next_batch,
            ts_ms: crate::eventlog::now_ms(),
            optima: self.pending.optima.iter().map(|(k, _)| k.clone()).collect(),
            entries: self.pending.entries[..n_entries]
                .iter()
                .map(|(s, _)| s.clone())
                .collect(),
            findings: self.pending.findings[..n_findings]
                .iter()
                .map(|(k, _)| k.clone())
                .collect(),
            injections: self.pending.injections.clone(),
            specs: self.pending.specs.iter().map(|(_, v)| v.clone()).collect(),
        };
        if !self.put_batch(&batch)? {
            return Ok(()); // the number was taken: the next sync takes the next one
        }
        for (sha, _) in self.pending.entries.drain(..n_entries) {
            self.pending.names.remove(&sha);
            self.state.entries.insert(sha);
            self.counters.pushed_entries += 1;
        }
        for (k, _) in self.pending.findings.drain(..n_findings) {
            self.pending.names.remove(&k);
            self.state.findings.insert(k);
        }
        for (k, _) in self.pending.optima.drain(..) {
            self.pending.names.remove(&k);
            self.state.optima.insert(k);
        }
        for (name, _) in self.pending.specs.drain(..) {
            self.pending.names.remove(&format!("spec:{name}"));
            self.state.specs.insert(name);
        }
        self.pending.injections.clear();
        if let Some(o) = self.pending.command_log_offset.take() {
            self.state.command_log_offset = o;
        }
        Ok(())
    }
}
