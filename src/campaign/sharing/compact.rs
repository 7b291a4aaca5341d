//! Pruning the shared store: compacted generations, and the deletion of
//! the batches they hold once every live node has read past them.
//!
//! The merge rules are `shared::Generation`'s; this is when a node applies
//! them: a node joining (or finding a gap in a log) reads the newest
//! generation; the compactor — the live node with the smallest name —
//! writes the next one after `sharedCompactAfter` batches, and deletes the
//! batches of a generation (and the generations before it) once the
//! heartbeats show every live node's cursors past it.

use super::{Control, Node};
use crate::shared::{
    Batch, Generation, Heartbeat, LIVE_INTERVALS, LIVE_MIN_MS, NodeId, SharedError, compactor,
    is_live, key,
};

impl Node {
    /// Reads the newest generation in the store into `self.newest` (one
    /// list, and one read when it is not the one held).
    pub(super) fn load_newest(&mut self) -> Result<(), SharedError> {
        let names = self.bucket.list_after(key::GENERATIONS, None)?;
        let Some(number) = names.iter().filter_map(|n| key::batch_seq(n)).max() else {
            return Ok(());
        };
        if self.newest.as_ref().is_some_and(|g| g.number >= number) {
            return Ok(());
        }
        let path = format!("{}/{}", key::GENERATIONS, key::generation_name(number));
        // None: deleted under a newer one between the list and the read.
        if let Some(bytes) = self.bucket.get(&path)? {
            match serde_json::from_slice::<Generation>(&bytes) {
                Ok(g) => self.newest = Some(g),
                Err(e) => tracing::warn!("shared campaign: {path} is not a generation ({e})"),
            }
        }
        Ok(())
    }

    /// Applies what the newest generation holds and this node has not read
    /// (of every other node: entries downloaded, findings, optima, specs and
    /// the injections past its cursor applied, or kept for the start), and
    /// moves the cursors past it. Returns the entries downloaded.
    pub(super) fn catch_up(&mut self, control: Option<&Control>) -> Result<usize, SharedError> {
        self.load_newest()?;
        let Some(g) = self.newest.clone() else {
            return Ok(0);
        };
        let mut downloaded = 0;
        for node in g.nodes.keys() {
            if node == self.node.as_str() {
                continue;
            }
            let cursor = self.state.cursors.get(node).copied();
            let Some(batch) = g.unread(node, cursor) else {
                continue;
            };
            let last = batch.seq;
            downloaded += self.download_entries(&batch)?;
            match control {
                Some(c) => self.apply(Some(c), node, batch),
                None => self.deferred.push((node.clone(), batch)),
            }
            self.state.cursors.insert(node.clone(), last);
        }
        if g.number > self.state.generation {
            self.state.generation = g.number;
        }
        Ok(downloaded)
    }

    /// The live nodes' heartbeats (this one's included, as last written).
    fn live(&self) -> Vec<Heartbeat> {
        let now = crate::eventlog::now_ms();
        let live_ms = (LIVE_INTERVALS * self.interval_ms).max(LIVE_MIN_MS);
        self.heartbeats
            .values()
            .filter(|h| is_live(h, now, live_ms))
            .cloned()
            .collect()
    }

    /// When this node is the compactor: writes the next generation once
    /// enough batches were written since the last, and deletes what every
    /// live node has read past.
    pub(super) fn compact(&mut self) -> Result<(), SharedError> {
        if self.compact_after == 0 {
            return Ok(());
        }
        let live = self.live();
        if compactor(&live) != Some(self.node.as_str()) {
            return Ok(());
        }
        let since = self
            .newest
            .clone()
            .unwrap_or_default()
            .batches_since(self.heartbeats.iter().map(|(n, h)| (n.as_str(), h.batches)));
        if since >= self.compact_after {
            self.write_generation()?;
        }
        self.prune(&live)
    }

    /// Writes the generation after the newest in the store: it, plus every
    /// node's batches after what it holds (read again from the store).
    fn write_generation(&mut self) -> Result<(), SharedError> {
        self.load_newest()?;
        let base = self.newest.clone().unwrap_or_default();
        let mut next = base.next(self.node.as_str(), crate::eventlog::now_ms());
        let mut nodes = self.known_nodes.clone();
        nodes.push(self.node.clone());
        for other in &nodes {
            let n = other.to_string();
            let after = next.last(&n).map(key::batch_name);
            for name in self
                .bucket
                .list_after(&key::batches(other), after.as_deref())?
            {
                let Some(seq) = key::batch_seq(&name) else {
                    continue;
                };
                if seq != next.last(&n).map_or(0, |l| l + 1) {
                    break; // a gap: the generation holds the log up to it
                }
                let path = format!("{}/{name}", key::batches(other));
                let Some(bytes) = self.bucket.get(&path)? else {
                    break;
                };
                // A batch that does not parse is held as read, with nothing in it
                // (as a reader takes it).
                let mut batch = serde_json::from_slice::<Batch>(&bytes).unwrap_or_default();
                batch.seq = seq;
                next.absorb(&n, &batch);
            }
        }
        if next.nodes == base.nodes {
            return Ok(()); // nothing new (the batches counted are gone or empty)
        }
        next.settle();
        let path = format!("{}/{}", key::GENERATIONS, key::generation_name(next.number));
        let bytes = serde_json::to_vec(&next).expect("generations serialize");
        if self.bucket.put_new(&path, bytes)? {
            tracing::info!(
                "shared campaign: generation {} written ({} batches held)",
                next.number,
                next.nodes.values().map(|b| b.seq + 1).sum::<u64>()
            );
            self.state.generation = next.number;
            self.counters.generations_written += 1;
            self.newest = Some(next);
        } else {
            self.load_newest()?; // another compactor was first
        }
        Ok(())
    }

    /// Deletes the batches the newest generation holds, and the generations
    /// before it, once every live node has read past it.
    fn prune(&mut self, live: &[Heartbeat]) -> Result<(), SharedError> {
        let Some(g) = self.newest.clone() else {
            return Ok(());
        };
        let live: Vec<&Heartbeat> = live.iter().collect();
        if g.number <= self.state.pruned || !g.read_by_all(&live) {
            return Ok(());
        }
        let mut deleted = 0u64;
        for (n, held) in &g.nodes {
            let Ok(id) = NodeId::parse("node", n) else {
                continue;
            };
            for name in self.bucket.list_after(&key::batches(&id), None)? {
                match key::batch_seq(&name) {
                    Some(seq) if seq <= held.seq => {
                        self.bucket
                            .delete(&format!("{}/{name}", key::batches(&id)))?;
                        deleted += 1;
                    }
                    Some(_) => break, // names sort by number
                    None => {}
                }
            }
        }
        for name in self.bucket.list_after(key::GENERATIONS, None)? {
            if key::batch_seq(&name).is_some_and(|n| n < g.number) {
                self.bucket
                    .delete(&format!("{}/{name}", key::GENERATIONS))?;
            }
        }
        self.state.pruned = g.number;
        self.counters.batches_deleted += deleted;
        tracing::info!(
            "shared campaign: {deleted} batches held by generation {} deleted (every live node read past them)",
            g.number
        );
        Ok(())
    }
}
