//! A node of a shared campaign (the store and its merge rules:
//! [`crate::shared`]). One thread per campaign, `rudder-sync`, makes every
//! request; workers never wait for the network — except a worker that has
//! just falsified a test, which waits (at most [`FINDING_WAIT`], once per
//! test) for the reproducer to be in the store before it reports it, so a
//! node killed right after a report has lost nothing.
//!
//! What a node owes the store is always on its own disk first (corpus
//! files, reproducers, `specs.json`, the command log); `shared-node.json`
//! in the corpus directory says what of it is in the store already and how
//! far the node has read every other node's log. Storage out of reach: the
//! node fuzzes on, and the next sync that gets through pushes what is owed.
//! A restarted node reads its cursors and downloads only what is new.

use super::persist::{StoredEntry, StoredOptimum, StoredReproducer, write_atomic};
use super::properties::{FoundBy, Optimum, TestCase};
use super::{CampaignError, Control, Engine, Goal, Layout, Oracle};
use crate::command::{Command, Logged};
use crate::config::Config;
use crate::executor::Target;
use crate::shared::{
    Batch, Bucket, CoverageBits, Generation, Heartbeat, Manifest, NodeId, SharedError,
    SharedInjection, SharedUrl, key, merge_coverage, sha256_hex,
};

mod adopt;
mod collect;
mod compact;
use crate::tx::{StoredTx, Tx};
use arc_swap::ArcSwap;
use crossbeam::channel::{Receiver, Sender, bounded, unbounded};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long a worker that falsified a test waits for its reproducer to be
/// in the store before reporting it anyway (it is on local disk already;
/// the next sync that gets through pushes it).
pub const FINDING_WAIT: Duration = Duration::from_secs(3);

/// A node of the campaign as `status` shows it.
#[derive(Clone, Debug, Default, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NodeStatus {
    pub node: String,
    /// This process.
    pub this: bool,
    pub calls: u64,
    pub calls_per_second: f64,
    /// Coverage points the node has reached.
    pub points: u64,
    pub corpus: u64,
    pub falsified: u64,
    /// Milliseconds since the node last wrote its heartbeat.
    pub age_ms: u64,
    /// The node's campaign has ended.
    pub ended: bool,
    /// Items the node has found and not yet pushed.
    pub pending: u64,
}

/// A test another node falsified that this node keeps hunting
/// (`keepHunting`).
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HuntingStatus {
    /// The test's name.
    pub test: String,
    /// The node whose reproducer is the shortest seen.
    pub node: String,
    /// Its length in calls (shrunk when the node had shrunk it).
    pub calls: u64,
}

/// The shared campaign as this node last saw it.
#[derive(Clone, Debug, Default, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SharedStatus {
    /// Where the campaign is shared.
    pub url: String,
    /// This node's name.
    pub node: String,
    /// Whether the last sync reached the store.
    pub reachable: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    /// When the last sync ended (ms since the epoch).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_sync_ms: Option<u64>,
    pub sync_interval_ms: u64,
    pub syncs: u64,
    /// Requests this node has made to the store.
    pub requests: u64,
    /// Items found here, not yet in the store.
    pub pending: u64,
    /// Corpus entries this node put in the store.
    pub pushed_entries: u64,
    /// Corpus entries this node took from other nodes.
    pub pulled_entries: u64,
    /// Falsified tests learned from other nodes (replayed here, still failing).
    pub learned_findings: u64,
    /// Tests other nodes falsified that this node keeps hunting
    /// (`keepHunting`): their reproducers failed here too, and the tests stay
    /// open here until this node finds its own counterexample.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hunting: Vec<HuntingStatus>,
    /// Optimization values learned from other nodes (replayed here, reached).
    pub learned_optima: u64,
    /// Injections other nodes were given, run here.
    pub shared_injections: u64,
    /// Coverage points reached by any node (their bitmaps merged by OR).
    pub campaign_points: u64,
    /// The newest compacted generation of the store this node has read or
    /// written (0: none yet).
    pub generation: u64,
    /// Generations this node wrote (as the compactor: the live node with
    /// the smallest name).
    pub generations_written: u64,
    /// Batches this node deleted, once every live node had read past them.
    pub batches_deleted: u64,
    /// Calls over every node (their last heartbeats).
    pub total_calls: u64,
    pub total_calls_per_second: f64,
    /// Every node that has written a heartbeat, this one included.
    pub nodes: Vec<NodeStatus>,
}

struct Urgent {
    key: String,
    bytes: Vec<u8>,
    done: Sender<bool>,
}

/// What the campaign holds of its sync thread: the way to hand it a
/// finding at once, and what it last saw.
pub struct Link {
    pub node: NodeId,
    pub url: String,
    urgent: Sender<Urgent>,
    status: ArcSwap<SharedStatus>,
}

impl std::fmt::Debug for Link {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Link")
            .field("node", &self.node)
            .field("url", &self.url)
            .finish()
    }
}

impl Link {
    pub fn status(&self) -> SharedStatus {
        (**self.status.load()).clone()
    }

    /// The other nodes' calls (from their last heartbeats) and the coverage
    /// points of every node merged by OR, as of the last sync (no copy of
    /// the status).
    pub fn campaign_totals(&self) -> (u64, u64) {
        let s = self.status.load();
        let others = s.nodes.iter().filter(|n| !n.this).map(|n| n.calls).sum();
        (others, s.campaign_points)
    }
}

enum Msg {
    Start(Control),
    Finish,
}

/// The sync thread, as the campaign drives it.
pub(super) struct SyncThread {
    msgs: Sender<Msg>,
    handle: Option<JoinHandle<()>>,
}

impl SyncThread {
    /// Starts syncing (after the corpus directory was replayed).
    pub(super) fn start(&self, control: Control) {
        let _ = self.msgs.send(Msg::Start(control));
    }

    /// Makes a last sync (everything owed, a final heartbeat) and ends the thread.
    pub(super) fn finish(&mut self) {
        let _ = self.msgs.send(Msg::Finish);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

impl Drop for SyncThread {
    fn drop(&mut self) {
        self.finish();
    }
}

/// The manifest of this campaign: its code and the configuration that
/// decides the deployed state and what a sequence or a test means.
fn manifest(config: &Config, target: &Target) -> Manifest {
    use serde_json::json;
    let mut code = BTreeMap::new();
    // The coverage bitmaps of two nodes line up only when their code
    // objects do: every object's contract, kind and length, in order.
    for (id, info) in target.coverage.codes() {
        code.insert(
            format!("#{:03} {} {:?}", id.0, info.contract, info.kind),
            format!("{} bytes", info.len),
        );
    }
    code.insert(
        target.contract.name.clone(),
        sha256_hex(
            &[
                &target.contract.creation_code[..],
                &target.contract.runtime_code[..],
            ]
            .concat(),
        ),
    );
    let deploy_contracts: Vec<String> = config
        .deploy_contracts
        .iter()
        .map(|(a, n)| format!("{a}:{n}"))
        .collect();
    let deploy_bytecodes: Vec<String> = config
        .deploy_bytecodes
        .iter()
        .map(|(a, b)| format!("{a}:{}", sha256_hex(b)))
        .collect();
    let cfg: BTreeMap<String, serde_json::Value> = [
        ("testMode", json!(config.test_mode.as_str())),
        ("prefix", json!(config.prefix)),
        ("sender", json!(config.senders)),
        ("deployer", json!(config.deployer)),
        ("contractAddr", json!(config.contract_addr)),
        ("psender", json!(config.psender)),
        ("balanceAddr", json!(config.balance_addr.to_string())),
        (
            "balanceContract",
            json!(config.balance_contract.to_string()),
        ),
        ("codeSize", json!(config.code_size)),
        ("filterFunctions", json!(config.filter_functions)),
        ("filterBlacklist", json!(config.filter_blacklist)),
        ("allContracts", json!(config.all_contracts)),
        // Nodes of one campaign fork at the same block (each may ask its
        // own node).
        ("rpcBlock", json!(target.settings.backend.fork_block())),
        ("deployContracts", json!(deploy_contracts)),
        ("deployBytecodes", json!(deploy_bytecodes)),
        ("solcLibs", json!(config.solc_libs)),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    Manifest {
        format: Manifest::FORMAT,
        contract: target.contract.name.clone(),
        code,
        config: cfg,
    }
}

use crate::shared::sequence_sha as calls_sha;

fn tx_sha(txs: &[Tx]) -> String {
    calls_sha(
        &txs.iter()
            .map(|t| StoredTx::from_tx(t, None))
            .collect::<Vec<_>>(),
    )
}

/// The store key of a reproducer: its test and the sequence that is its answer.
fn finding_key(r: &StoredReproducer) -> String {
    let seq = if r.shrunk.is_empty() {
        &r.original
    } else {
        &r.shrunk
    };
    key::finding(&super::persist::file_stem(&r.test), &calls_sha(seq))
}

/// What this node has of the store, kept in `shared-node.json`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct LocalState {
    url: String,
    node: String,
    /// The next batch this node writes.
    next_batch: u64,
    /// The last batch applied of every other node.
    cursors: BTreeMap<String, u64>,
    /// Corpus entries (SHA-256 names) the store has that this node knows of.
    entries: BTreeSet<String>,
    /// Findings (keys) the store has that this node knows of.
    findings: BTreeSet<String>,
    /// Optimization values (keys) the store has that this node knows of.
    optima: BTreeSet<String>,
    /// Runtime specs (names) in the store.
    specs: BTreeSet<String>,
    /// How far the command log has been shared (bytes).
    command_log_offset: u64,
    /// The newest compacted generation this node has read or written.
    generation: u64,
    /// The newest generation whose batches this node deleted.
    pruned: u64,
    /// Tests this node learned falsified from other nodes (one each, however
    /// many reproducers of it were replayed).
    learned: BTreeSet<String>,
    /// With `keepHunting`: the other nodes' findings noted and still hunted
    /// here (kept across a restart, which does not read them again).
    hunting: Vec<HuntingStatus>,
}

impl LocalState {
    fn load(layout: &Layout) -> Option<LocalState> {
        serde_json::from_slice(&std::fs::read(layout.shared_state()).ok()?).ok()
    }
}

#[derive(Default)]
struct Pending {
    entries: Vec<(String, Vec<u8>)>,
    /// A finding's key and, unless it is in the store already, its bytes.
    findings: Vec<(String, Option<Vec<u8>>)>,
    optima: Vec<(String, Vec<u8>)>,
    specs: Vec<(String, serde_json::Value)>,
    injections: Vec<SharedInjection>,
    /// The command-log offset the injections above were read up to.
    command_log_offset: Option<u64>,
    names: HashSet<String>,
}

impl Pending {
    fn len(&self) -> usize {
        self.entries.len()
            + self.findings.len()
            + self.optima.len()
            + self.specs.len()
            + self.injections.len()
    }
}

struct Node {
    bucket: Bucket,
    node: NodeId,
    manifest: Manifest,
    layout: Layout,
    link: Arc<Link>,
    state: LocalState,
    pending: Pending,
    corpus_cursor: usize,
    /// Batches read before the campaign started: their findings,
    /// injections and specs are applied once it has.
    deferred: Vec<(String, Batch)>,
    heartbeats: BTreeMap<String, Heartbeat>,
    /// Other nodes' coverage, with the points it had when read.
    coverage: BTreeMap<String, (u64, Vec<Vec<u8>>)>,
    pushed_points: Option<u64>,
    counters: SharedStatus,
    rate: Option<(Instant, u64)>,
    calls_per_second: f64,
    warned: Option<Instant>,
    interval_ms: u64,
    /// The other nodes (from the last listing of `nodes/`).
    known_nodes: Vec<NodeId>,
    /// Stale heartbeats (node, its time) whose log was listed once.
    listed_stale: HashSet<(String, u64)>,
    /// The target's ABIs and the campaign's executor row, for pulled entries.
    target: Arc<Target>,
    /// The newest compacted generation read or written.
    newest: Option<Generation>,
    /// Batches since the last generation before this node writes the next
    /// (when it is the compactor; 0: never).
    compact_after: u64,
}

/// Joins the shared store named in `config` (if any) before any work:
/// checks the campaign's manifest, reads this node's state, downloads the
/// corpus entries other nodes have added since (the resume then replays
/// them), and starts the sync thread, which waits for
/// [`SyncThread::start`].
pub(super) fn join(
    config: &Config,
    target: &Arc<Target>,
    layout: &Layout,
) -> Result<Option<(Arc<Link>, SyncThread)>, CampaignError> {
    let Some(url) = &config.shared else {
        return Ok(None);
    };
    let setup = |e: SharedError| CampaignError::Setup(format!("shared campaign: {e}"));
    let url = SharedUrl::parse("shared", url).map_err(setup)?;
    let saved = LocalState::load(layout).filter(|s| s.url == url.to_string());
    let node = match (&config.node_id, &saved) {
        (Some(id), _) => NodeId::parse("nodeId", id).map_err(setup)?,
        (None, Some(s)) => {
            NodeId::parse("nodeId", &s.node).unwrap_or_else(|_| NodeId::default_for_host())
        }
        (None, None) => NodeId::default_for_host(),
    };
    let mut state = match saved {
        Some(mut s) => {
            if s.node != node.as_str() {
                // Another name in this directory: its cursors still hold,
                // its own log starts anew under the new name.
                s.node = node.to_string();
                s.next_batch = 0;
            }
            s
        }
        None => LocalState {
            url: url.to_string(),
            node: node.to_string(),
            // Commands given before the campaign was shared stay local.
            command_log_offset: std::fs::metadata(layout.command_log()).map_or(0, |m| m.len()),
            ..LocalState::default()
        },
    };
    // Tests hunted under `keepHunting`, now off: their findings are read
    // again (`Node::stop_hunting`).
    let hunted = if config.keep_hunting {
        Vec::new()
    } else {
        std::mem::take(&mut state.hunting)
    };
    let (urgent_tx, urgent_rx) = unbounded();
    let (msgs_tx, msgs_rx) = unbounded();
    let (ready_tx, ready_rx) = bounded(1);
    let link = Arc::new(Link {
        node: node.clone(),
        url: url.to_string(),
        urgent: urgent_tx,
        status: ArcSwap::from_pointee(SharedStatus {
            url: url.to_string(),
            node: node.to_string(),
            sync_interval_ms: config.shared_sync_ms,
            ..SharedStatus::default()
        }),
    });
    let manifest = manifest(config, target);
    let layout = layout.clone();
    let thread_link = link.clone();
    let target = target.clone();
    let interval = Duration::from_millis(config.shared_sync_ms);
    let compact_after = config.shared_compact_after;
    let handle = std::thread::Builder::new()
        .name("rudder-sync".into())
        .spawn(move || {
            let bucket = match Bucket::open(&url) {
                Ok(b) => b,
                Err(e) => {
                    let _ = ready_tx.send(Err(e));
                    return;
                }
            };
            let mut node = Node {
                bucket,
                node,
                manifest,
                layout,
                link: thread_link,
                state,
                pending: Pending::default(),
                corpus_cursor: 0,
                deferred: Vec::new(),
                heartbeats: BTreeMap::new(),
                coverage: BTreeMap::new(),
                pushed_points: None,
                counters: SharedStatus::default(),
                rate: None,
                calls_per_second: 0.0,
                warned: None,
                interval_ms: interval.as_millis() as u64,
                known_nodes: Vec::new(),
                listed_stale: HashSet::new(),
                target,
                newest: None,
                compact_after,
            };
            node.counters.hunting = node.state.hunting.clone();
            node.counters.learned_findings = node.state.learned.len() as u64;
            match node.stop_hunting(hunted).and_then(|()| node.join()) {
                Ok(()) => {
                    let _ = ready_tx.send(Ok(()));
                }
                Err(e) => {
                    let _ = ready_tx.send(Err(e));
                    return;
                }
            }
            node.run(msgs_rx, urgent_rx, interval);
        })
        .map_err(|source| CampaignError::Io {
            path: "<rudder-sync thread>".into(),
            source,
        })?;
    let thread = SyncThread {
        msgs: msgs_tx,
        handle: Some(handle),
    };
    match ready_rx.recv() {
        Ok(Ok(())) => Ok(Some((link, thread))),
        Ok(Err(e)) => Err(setup(e)),
        Err(_) => Err(CampaignError::Setup(
            "shared campaign: the sync thread ended before joining".into(),
        )),
    }
}

impl Engine {
    /// Puts a falsified test's counterexample in the shared store before
    /// the worker reports it (waits at most [`FINDING_WAIT`]); nothing when
    /// the campaign is not shared.
    pub(super) fn share_finding_now(&self, case: &TestCase, seq: &[Tx], reason: &str) {
        let Some(link) = &self.sharing else {
            return;
        };
        let stored = StoredReproducer {
            test: case.name.clone(),
            kind: case.kind,
            reason: reason.to_string(),
            found_by: Some(super::properties::FoundBy::Worker.as_str().to_string()),
            original: seq.iter().map(|t| StoredTx::from_tx(t, None)).collect(),
            shrunk: Vec::new(),
            shrink_done: false,
        };
        let Ok(bytes) = serde_json::to_vec(&stored) else {
            return;
        };
        let (done, wait) = bounded(1);
        let sent = link.urgent.send(Urgent {
            key: finding_key(&stored),
            bytes,
            done,
        });
        if sent.is_ok() && !matches!(wait.recv_timeout(FINDING_WAIT), Ok(true)) {
            tracing::warn!(
                "test {} falsified; the shared store did not take it within {FINDING_WAIT:?} (it is on local disk; the next sync pushes it)",
                case.name
            );
        }
    }

    /// The shared campaign as this node last saw it (`None`: not shared).
    pub fn shared_status(&self) -> Option<SharedStatus> {
        self.sharing.as_ref().map(|l| l.status())
    }
}

impl Node {
    fn join(&mut self) -> Result<(), SharedError> {
        let bytes = serde_json::to_vec_pretty(&self.manifest).expect("manifest serializes");
        if !self.bucket.put_new(key::MANIFEST, bytes)? {
            let theirs = self.bucket.get(key::MANIFEST)?.unwrap_or_default();
            let differs = match serde_json::from_slice::<Manifest>(&theirs) {
                Ok(m) => self.manifest.differences(&m),
                Err(e) => vec![format!("its campaign.json is not a rudder campaign ({e})")],
            };
            if !differs.is_empty() {
                return Err(SharedError::OtherCampaign {
                    url: self.bucket.url().to_string(),
                    differs,
                });
            }
        }
        // A node killed between writing a batch and saving its state wrote
        // batches its state does not count: never write over them.
        let after = self.state.next_batch.checked_sub(1).map(key::batch_name);
        let own = self
            .bucket
            .list_after(&key::batches(&self.node), after.as_deref())?;
        if let Some(last) = own.iter().filter_map(|n| key::batch_seq(n)).max() {
            self.state.next_batch = self.state.next_batch.max(last + 1);
        }
        // What the newest generation holds of the others is read from it
        // (their batches it holds may be gone); it also holds this node's
        // own log up to a point, whose numbers are never written again.
        self.catch_up(None)?;
        if let Some(last) = self
            .newest
            .as_ref()
            .and_then(|g| g.last(self.node.as_str()))
        {
            self.state.next_batch = self.state.next_batch.max(last + 1);
        }
        // What is in the corpus directory and not (known to be) in the
        // store is owed: entries found before a crash, or before sharing.
        for path in super::corpus_dir::entry_files(&self.layout.coverage_dir()) {
            let Ok(bytes) = std::fs::read(&path) else {
                continue;
            };
            let Ok(entry) = serde_json::from_slice::<StoredEntry>(&bytes) else {
                continue;
            };
            let sha = calls_sha(&entry.txs);
            if !self.state.entries.contains(&sha) && self.pending.names.insert(sha.clone()) {
                self.pending.entries.push((sha, bytes));
            }
        }
        self.pull(None)?;
        self.save_state();
        Ok(())
    }

    /// A node that hunted tests other nodes falsified (`keepHunting`) and
    /// runs on without it reads their findings again, as any node that
    /// does not hunt would have: the tests close here as falsified. (Its
    /// cursors are past the batches that named them; the findings are read
    /// from the store by test.)
    fn stop_hunting(&mut self, hunted: Vec<HuntingStatus>) -> Result<(), SharedError> {
        for h in hunted {
            let prefix = key::finding(&super::persist::file_stem(&h.test), "");
            let prefix = prefix.trim_end_matches(".json").trim_end_matches('/');
            let keys: Vec<String> = self
                .bucket
                .list_after(prefix, None)?
                .into_iter()
                .map(|k| format!("{prefix}/{k}"))
                .collect();
            for k in &keys {
                self.state.findings.remove(k);
            }
            tracing::info!(
                "test {} was hunted here (keepHunting, now off): node {}'s finding taken",
                h.test,
                h.node
            );
            let batch = Batch {
                node: h.node.clone(),
                findings: keys,
                ..Batch::default()
            };
            self.deferred.push((h.node, batch));
        }
        Ok(())
    }

    fn run(&mut self, msgs: Receiver<Msg>, urgent: Receiver<Urgent>, interval: Duration) {
        let Ok(Msg::Start(control)) = msgs.recv() else {
            return; // finished (or dropped) before it started
        };
        for (from, batch) in std::mem::take(&mut self.deferred) {
            self.apply(Some(&control), &from, batch);
        }
        let mut next = Instant::now();
        loop {
            let wait = next.saturating_duration_since(Instant::now());
            crossbeam::select! {
                recv(urgent) -> u => {
                    if let Ok(u) = u {
                        self.urgent(u);
                    }
                }
                recv(msgs) -> m => {
                    if !matches!(m, Ok(Msg::Start(_))) {
                        self.sync(&control, true);
                        return;
                    }
                }
                default(wait) => {
                    self.sync(&control, false);
                    next = Instant::now() + interval;
                }
            }
        }
    }

    /// A worker's new finding: into the store now, with a batch of its own
    /// naming it, so that every node learns it even if this one dies next.
    fn urgent(&mut self, u: Urgent) {
        if self.state.findings.contains(&u.key) {
            let _ = u.done.send(true);
            return;
        }
        let stored = self.bucket.put(&u.key, u.bytes.clone()).and_then(|()| {
            let batch = Batch {
                node: self.node.to_string(),
                seq: self.state.next_batch,
                ts_ms: crate::eventlog::now_ms(),
                findings: vec![u.key.clone()],
                ..Batch::default()
            };
            self.put_batch(&batch)
        });
        let ok = matches!(stored, Ok(true));
        if ok {
            self.state.findings.insert(u.key.clone());
            self.save_state();
        } else if self.pending.names.insert(u.key.clone()) {
            // Named (and put, if it was not) by the next sync that gets through.
            self.pending.findings.push((u.key, Some(u.bytes)));
        }
        let _ = u.done.send(ok);
    }

    /// Writes `batch` under the next number: `Ok(false)` when that number
    /// was taken (by an earlier life of this node), which is then skipped.
    fn put_batch(&mut self, batch: &Batch) -> Result<bool, SharedError> {
        let name = format!(
            "{}/{}",
            key::batches(&self.node),
            key::batch_name(self.state.next_batch)
        );
        let bytes = serde_json::to_vec(batch).expect("batches serialize");
        let created = self.bucket.put_new(&name, bytes)?;
        self.state.next_batch += 1;
        Ok(created)
    }

    fn sync(&mut self, control: &Control, last: bool) {
        let engine = control.engine().clone();
        self.collect(&engine);
        let r = self
            .push()
            .and_then(|()| self.pull(Some(control)))
            .and_then(|()| self.beat(&engine, last))
            .and_then(|()| if last { Ok(()) } else { self.compact() });
        self.counters.syncs += 1;
        match r {
            Ok(()) => {
                self.counters.reachable = true;
                self.counters.last_error = None;
                self.counters.last_sync_ms = Some(crate::eventlog::now_ms());
            }
            Err(e) => {
                self.counters.reachable = false;
                // Once a minute in the log; every time in `status`.
                if self
                    .warned
                    .is_none_or(|t| t.elapsed() >= Duration::from_secs(60))
                {
                    tracing::warn!(
                        "shared campaign: sync failed (fuzzing goes on; retried every interval): {e}"
                    );
                    self.warned = Some(Instant::now());
                }
                self.counters.last_error = Some(e.to_string());
            }
        }
        // A test this node has since falsified itself is hunted no more.
        self.counters.hunting.retain(|h| {
            engine
                .tests
                .cases()
                .find(|c| c.name == h.test)
                .is_some_and(|c| engine.tests.is_open(c.id))
        });
        self.state.hunting = self.counters.hunting.clone();
        self.save_state();
        self.publish(&engine);
    }

    /// Writes this node's coverage (when it grew) and heartbeat; reads the
    /// coverage of nodes whose points changed.
    fn beat(&mut self, engine: &Engine, last: bool) -> Result<(), SharedError> {
        let points = engine.target.coverage.points();
        let grew = self.pushed_points != Some(points);
        if grew {
            let bits = CoverageBits::pack(&engine.target.coverage.seen_bytes());
            self.bucket.put(
                &key::coverage(&self.node),
                serde_json::to_vec(&bits).expect("coverage serializes"),
            )?;
            self.pushed_points = Some(points);
        }
        // Another node's bitmap is read again only when its points moved.
        let stale: Vec<(String, u64)> = self
            .heartbeats
            .iter()
            .filter(|(n, h)| {
                n.as_str() != self.node.as_str()
                    && self.coverage.get(*n).is_none_or(|(p, _)| *p != h.points)
            })
            .map(|(n, h)| (n.clone(), h.points))
            .collect();
        let merge = grew || !stale.is_empty();
        for (n, p) in stale {
            let Ok(id) = NodeId::parse("node", &n) else {
                continue;
            };
            if let Some(b) = self.bucket.get(&key::coverage(&id))?
                && let Ok(bits) = serde_json::from_slice::<CoverageBits>(&b)
                && let Some(codes) = bits.unpack()
            {
                self.coverage.insert(n, (p, codes));
            }
        }
        if merge {
            let mut merged = engine.target.coverage.seen_bytes();
            for (_, codes) in self.coverage.values() {
                merge_coverage(&mut merged, codes);
            }
            self.counters.campaign_points = merged
                .iter()
                .flatten()
                .map(|b| u64::from(b.count_ones()))
                .sum();
        }
        let calls = engine.stats.calls();
        let now = Instant::now();
        if let Some((t, c)) = self.rate {
            let dt = now.duration_since(t).as_secs_f64();
            if dt > 0.0 {
                self.calls_per_second = calls.saturating_sub(c) as f64 / dt;
            }
        }
        self.rate = Some((now, calls));
        let h = Heartbeat {
            node: self.node.to_string(),
            run_id: engine.run_id.clone(),
            ts_ms: crate::eventlog::now_ms(),
            started_ms: engine.started_ms,
            calls,
            calls_per_second: self.calls_per_second,
            points,
            corpus: engine.corpus.len() as u64,
            falsified: engine.tests.falsified_count() as u64,
            batches: self.state.next_batch,
            cursors: self.state.cursors.clone(),
            pending: self.pending.len() as u64,
            ended: last,
            syncs: self.counters.syncs + 1,
            // This request included.
            requests: self.bucket.requests() + 1,
            pushed_entries: self.counters.pushed_entries,
            pulled_entries: self.counters.pulled_entries,
            generation: self.state.generation,
        };
        self.bucket.put(
            &key::heartbeat(&self.node),
            serde_json::to_vec(&h).expect("heartbeats serialize"),
        )?;
        self.heartbeats.insert(self.node.to_string(), h);
        Ok(())
    }

    fn save_state(&self) {
        let bytes = serde_json::to_vec(&self.state).expect("state serializes");
        if let Err(e) = write_atomic(&self.layout.shared_state(), &bytes) {
            tracing::warn!("{}: {e}", self.layout.shared_state().display());
        }
    }

    fn publish(&mut self, engine: &Engine) {
        let now = crate::eventlog::now_ms();
        let nodes: Vec<NodeStatus> = self
            .heartbeats
            .values()
            .map(|h| NodeStatus {
                node: h.node.clone(),
                this: h.node == self.node.as_str(),
                calls: h.calls,
                calls_per_second: h.calls_per_second,
                points: h.points,
                corpus: h.corpus,
                falsified: h.falsified,
                age_ms: now.saturating_sub(h.ts_ms),
                ended: h.ended,
                pending: h.pending,
            })
            .collect();
        let mut s = self.counters.clone();
        s.url = self.link.url.clone();
        s.node = self.node.to_string();
        s.sync_interval_ms = engine.config.shared_sync_ms;
        s.requests = self.bucket.requests();
        s.generation = self.state.generation;
        s.pending = self.pending.len() as u64;
        s.total_calls = nodes.iter().map(|n| n.calls).sum();
        s.total_calls_per_second = nodes
            .iter()
            .filter(|n| !n.ended)
            .map(|n| n.calls_per_second)
            .sum();
        s.nodes = nodes;
        self.link.status.store(Arc::new(s));
    }
}
