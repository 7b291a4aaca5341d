//! What the shared store holds, its names, and how items merge.

use super::SharedError;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The SHA-256 of `bytes`, in hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The SHA-256 name of a call sequence: of each call's signature,
/// calldata, sender, value, delays, gas price and callee, in that order
/// (not the gas it used, which differs between the nodes that ran it, nor
/// its printed form, which follows from the calldata).
pub fn sequence_sha(txs: &[rudder_calls::tx::StoredTx]) -> String {
    let mut text = String::new();
    for t in txs {
        use std::fmt::Write as _;
        let _ = writeln!(
            text,
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
            t.signature,
            t.calldata.to_ascii_lowercase(),
            t.sender,
            t.value,
            t.delay,
            t.blocks,
            t.gas_price.as_deref().unwrap_or("0"),
            t.to.map(|a| a.to_string()).unwrap_or_default()
        );
    }
    sha256_hex(text.as_bytes())
}

/// A node's name in the store: 1 to 64 of `A-Z a-z 0-9 . _ -`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct NodeId(String);

impl NodeId {
    /// Checks `id`; the error names `field`.
    pub fn parse(field: &'static str, id: &str) -> Result<NodeId, SharedError> {
        let ok = (1..=64).contains(&id.len())
            && id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || b == b'-')
            && id != "."
            && id != "..";
        if ok {
            Ok(NodeId(id.to_string()))
        } else {
            Err(SharedError::Invalid {
                field,
                message: format!("{id:?}: 1 to 64 of letters, digits, '.', '_' and '-'"),
            })
        }
    }

    /// The default: `node-{JOB_COMPLETION_INDEX}` in a Kubernetes Indexed
    /// Job, else `{hostname}-{pid}`.
    pub fn default_for_host() -> NodeId {
        if let Ok(i) = std::env::var("JOB_COMPLETION_INDEX")
            && let Ok(id) = NodeId::parse("JOB_COMPLETION_INDEX", &format!("node-{}", i.trim()))
        {
            return id;
        }
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .ok()
            .or_else(|| std::env::var("HOSTNAME").ok())
            .unwrap_or_else(|| "node".into());
        let host: String = host
            .trim()
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                    c
                } else {
                    '-'
                }
            })
            .take(48)
            .collect();
        let host = if host.is_empty() { "node".into() } else { host };
        NodeId(format!("{host}-{}", std::process::id()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for NodeId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The names of the shared store (see the module doc).
pub mod key {
    use super::NodeId;

    pub const MANIFEST: &str = "campaign.json";
    pub const NODES: &str = "nodes";
    /// The folder of compacted generations (`generations/{gen:012}.json`).
    pub const GENERATIONS: &str = "generations";

    /// Generation `gen`, relative to [`GENERATIONS`] (zero-padded, so the
    /// newest sorts last).
    pub fn generation_name(number: u64) -> String {
        format!("{number:012}.json")
    }

    /// A corpus entry by the SHA-256 of its calls.
    pub fn entry(sha: &str) -> String {
        format!("corpus/{sha}.json")
    }

    /// A reproducer of test `test_stem` by the SHA-256 of its sequence.
    pub fn finding(test_stem: &str, sha: &str) -> String {
        format!("findings/{test_stem}/{sha}.json")
    }

    /// An optimization test's value, by the SHA-256 of the sequence reaching it.
    pub fn optimum(test_stem: &str, sha: &str) -> String {
        format!("optima/{test_stem}/{sha}.json")
    }

    /// The folder of a node's batches.
    pub fn batches(node: &NodeId) -> String {
        format!("nodes/{node}/batches")
    }

    /// Batch `seq` of `node`, relative to [`batches`] (zero-padded, so the
    /// names sort in order and a cursor is the last name read).
    pub fn batch_name(seq: u64) -> String {
        format!("{seq:012}.json")
    }

    /// The number of a batch or generation name (`None`: not one).
    pub fn batch_seq(name: &str) -> Option<u64> {
        name.strip_suffix(".json")?.parse().ok()
    }

    pub fn heartbeat(node: &NodeId) -> String {
        format!("nodes/{node}/heartbeat.json")
    }

    pub fn coverage(node: &NodeId) -> String {
        format!("nodes/{node}/coverage.json")
    }
}

/// What a campaign is: nodes join only a campaign whose manifest equals
/// theirs (the same code, deployed the same way, the same tests).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Manifest {
    pub format: u32,
    pub contract: String,
    /// SHA-256 of each code object's bytecode, by name (the coverage
    /// bitmaps of two nodes line up only when these do).
    pub code: BTreeMap<String, String>,
    /// The configuration that decides the deployed state and what a
    /// sequence or a test means (not the budget, workers or seeds).
    pub config: BTreeMap<String, serde_json::Value>,
}

impl Manifest {
    pub const FORMAT: u32 = 1;

    /// What differs from `theirs`, one line per key (empty: the same campaign).
    pub fn differences(&self, theirs: &Manifest) -> Vec<String> {
        let mut out = Vec::new();
        if self.format != theirs.format {
            out.push(format!(
                "format: the store has {}, this rudder writes {}",
                theirs.format, self.format
            ));
        }
        if self.contract != theirs.contract {
            out.push(format!(
                "contract: the store has {}, this node fuzzes {}",
                theirs.contract, self.contract
            ));
        }
        let mut diff_map =
            |what: &str, mine: &BTreeMap<String, String>, other: &BTreeMap<String, String>| {
                let keys: std::collections::BTreeSet<&String> =
                    mine.keys().chain(other.keys()).collect();
                for k in keys {
                    match (mine.get(k), other.get(k)) {
                        (Some(a), Some(b)) if a == b => {}
                        (a, b) => out.push(format!(
                            "{what} {k}: the store has {}, this node has {}",
                            b.map_or("nothing", |s| s.as_str()),
                            a.map_or("nothing", |s| s.as_str())
                        )),
                    }
                }
            };
        diff_map("code of", &self.code, &theirs.code);
        let as_text = |m: &BTreeMap<String, serde_json::Value>| -> BTreeMap<String, String> {
            m.iter().map(|(k, v)| (k.clone(), v.to_string())).collect()
        };
        diff_map("config", &as_text(&self.config), &as_text(&theirs.config));
        out
    }
}

/// An injection given to one node, for every node to run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SharedInjection {
    /// The calls as printed (`?` wildcards kept).
    pub sequence: Vec<String>,
    pub repeat: u32,
    /// In a generation: the batch that named it (a reader whose cursor is
    /// past that batch ran it already). Absent in a batch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch: Option<u64>,
}

/// One entry of a node's append-only log. Immutable once written.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Batch {
    pub node: String,
    pub seq: u64,
    pub ts_ms: u64,
    /// SHA-256 names of corpus entries (`corpus/{sha}.json`).
    #[serde(default)]
    pub entries: Vec<String>,
    /// Keys of findings (`findings/{test}/{sha}.json`).
    #[serde(default)]
    pub findings: Vec<String>,
    /// Keys of optimization values (`optima/{test}/{sha}.json`).
    #[serde(default)]
    pub optima: Vec<String>,
    #[serde(default)]
    pub injections: Vec<SharedInjection>,
    /// Runtime specs as `submit_new_spec` took them (their stored form).
    #[serde(default)]
    pub specs: Vec<serde_json::Value>,
}

impl Batch {
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
            && self.findings.is_empty()
            && self.optima.is_empty()
            && self.injections.is_empty()
            && self.specs.is_empty()
    }
}

/// A compacted generation: every node's batches up to a point, merged into
/// one object per node, so that a node joining late (or coming back after
/// the batches it had not read were deleted) reads one object instead of the
/// whole log. Written once under `generations/{gen}.json` by one node
/// ([`compactor`]); generation `n + 1` holds everything generation `n` held.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Generation {
    pub number: u64,
    /// The node that wrote it, and when.
    pub writer: String,
    pub ts_ms: u64,
    /// Per node: the items of its batches `0..=last`, merged (the batch's
    /// `seq` is that last batch).
    pub nodes: BTreeMap<String, Batch>,
}

impl Generation {
    /// The generation after `self`: the same items, numbered one more.
    pub fn next(&self, writer: &str, ts_ms: u64) -> Generation {
        Generation {
            number: self.number + 1,
            writer: writer.to_string(),
            ts_ms,
            nodes: self.nodes.clone(),
        }
    }

    /// The last batch of `node` this generation holds (`None`: none of it).
    pub fn last(&self, node: &str) -> Option<u64> {
        self.nodes.get(node).map(|b| b.seq)
    }

    /// Merges `node`'s `batch` in. Batches are taken in order: one at or
    /// below what the generation holds of the node is already in (false).
    pub fn absorb(&mut self, node: &str, batch: &Batch) -> bool {
        if self.last(node).is_some_and(|last| batch.seq <= last) {
            return false;
        }
        let into = self.nodes.entry(node.to_string()).or_insert_with(|| Batch {
            node: node.to_string(),
            ..Batch::default()
        });
        into.seq = batch.seq;
        into.ts_ms = into.ts_ms.max(batch.ts_ms);
        into.entries.extend(batch.entries.iter().cloned());
        into.findings.extend(batch.findings.iter().cloned());
        into.optima.extend(batch.optima.iter().cloned());
        into.specs.extend(batch.specs.iter().cloned());
        into.injections
            .extend(batch.injections.iter().map(|i| SharedInjection {
                batch: Some(batch.seq),
                ..i.clone()
            }));
        true
    }

    /// Sorts and de-duplicates the named items (a name in two batches is
    /// one item; injections stay as many as were given).
    pub fn settle(&mut self) {
        for b in self.nodes.values_mut() {
            for v in [&mut b.entries, &mut b.findings, &mut b.optima] {
                v.sort();
                v.dedup();
            }
        }
    }

    /// What a node whose cursor on `node` is `cursor` has not read of it:
    /// the merged items, injections past the cursor only (`None`: it has
    /// read all of it).
    pub fn unread(&self, node: &str, cursor: Option<u64>) -> Option<Batch> {
        let b = self.nodes.get(node)?;
        if cursor.is_some_and(|c| c >= b.seq) {
            return None;
        }
        let mut b = b.clone();
        b.injections
            .retain(|i| cursor.is_none_or(|c| i.batch.is_none_or(|s| s > c)));
        Some(b)
    }

    /// Batches written since this generation, by the nodes' next batch
    /// numbers (`node -> batches written`).
    pub fn batches_since<'a>(&self, written: impl IntoIterator<Item = (&'a str, u64)>) -> u64 {
        written
            .into_iter()
            .map(|(n, w)| w.saturating_sub(self.last(n).map_or(0, |l| l + 1)))
            .sum()
    }

    /// Whether every live node has read past this generation: each one's
    /// cursor on every other node is at or beyond what the generation holds
    /// of it. Only then may the batches it holds be deleted (a node that is
    /// not live and comes back reads the generation instead).
    pub fn read_by_all(&self, live: &[&Heartbeat]) -> bool {
        live.iter().all(|h| {
            self.nodes
                .iter()
                .all(|(n, b)| n == &h.node || h.cursors.get(n).is_some_and(|c| *c >= b.seq))
        })
    }
}

/// The node that compacts: the live node with the smallest name. Two nodes
/// that disagree (their views of the heartbeats differ) both try; the store
/// keeps the first generation written under a number.
pub fn compactor<'a>(live: impl IntoIterator<Item = &'a Heartbeat>) -> Option<&'a str> {
    live.into_iter().map(|h| h.node.as_str()).min()
}

/// Whether `h` is live at `now_ms`: not ended, and heard from within `live_ms`.
pub fn is_live(h: &Heartbeat, now_ms: u64, live_ms: u64) -> bool {
    !h.ended && now_ms.saturating_sub(h.ts_ms) <= live_ms
}

/// A node's state as it last wrote it (what `status` shows of the others).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Heartbeat {
    pub node: String,
    pub run_id: String,
    pub ts_ms: u64,
    pub started_ms: u64,
    pub calls: u64,
    pub calls_per_second: f64,
    pub points: u64,
    pub corpus: u64,
    pub falsified: u64,
    /// The next batch this node will write (all below are in the store).
    pub batches: u64,
    /// The last batch applied of each other node.
    #[serde(default)]
    pub cursors: BTreeMap<String, u64>,
    /// Items found here and not yet in the store.
    #[serde(default)]
    pub pending: u64,
    /// Whether this node's campaign has ended.
    #[serde(default)]
    pub ended: bool,
    /// Syncs this node has made, and requests to the store in them.
    #[serde(default)]
    pub syncs: u64,
    #[serde(default)]
    pub requests: u64,
    /// Corpus entries this node put in the store, and took from it.
    #[serde(default)]
    pub pushed_entries: u64,
    #[serde(default)]
    pub pulled_entries: u64,
    /// The newest compacted generation this node has read or written.
    #[serde(default)]
    pub generation: u64,
}

/// A node's coverage: per code object (in the manifest's order), a bitmap
/// of the coverage points reached, base64.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CoverageBits {
    pub points: u64,
    pub codes: Vec<String>,
}

impl CoverageBits {
    /// Packs per-code point bytes (one byte per PC, its bits the points).
    pub fn pack(codes: &[Vec<u8>]) -> CoverageBits {
        use base64::Engine as _;
        let points = codes
            .iter()
            .flatten()
            .map(|b| u64::from(b.count_ones()))
            .sum();
        CoverageBits {
            points,
            codes: codes
                .iter()
                .map(|c| base64::engine::general_purpose::STANDARD.encode(c))
                .collect(),
        }
    }

    /// The per-code bytes (`None`: not base64).
    pub fn unpack(&self) -> Option<Vec<Vec<u8>>> {
        use base64::Engine as _;
        self.codes
            .iter()
            .map(|c| base64::engine::general_purpose::STANDARD.decode(c).ok())
            .collect()
    }
}

/// ORs `other` into `into` (codes and PCs beyond either's length are kept
/// as they are); returns how many points `other` added.
pub fn merge_coverage(into: &mut Vec<Vec<u8>>, other: &[Vec<u8>]) -> u64 {
    let mut added = 0;
    if into.len() < other.len() {
        into.resize(other.len(), Vec::new());
    }
    for (mine, theirs) in into.iter_mut().zip(other) {
        if mine.len() < theirs.len() {
            mine.resize(theirs.len(), 0);
        }
        for (a, b) in mine.iter_mut().zip(theirs) {
            added += u64::from((b & !*a).count_ones());
            *a |= b;
        }
    }
    added
}

/// The campaign's answer among candidate reproducers of one test, each
/// `(calls, sha)`: the shortest, ties broken by the smaller hash (so every
/// node picks the same one, whatever order it learned them in).
pub fn best_finding<'a>(
    candidates: impl IntoIterator<Item = (usize, &'a str)>,
) -> Option<(usize, &'a str)> {
    candidates.into_iter().min()
}

#[cfg(test)]
mod tests {
    use super::super::{Bucket, SharedUrl};
    use super::*;

    fn memory(name: &str) -> Bucket {
        Bucket::open(&SharedUrl::parse("shared", &format!("memory://{name}")).unwrap()).unwrap()
    }

    #[test]
    fn urls_and_node_ids_name_the_field() {
        for bad in [
            "bucket",
            "s3://B/x",
            "s3://ab",
            "ftp://x",
            "file://relative/path",
            "s3://bucket/../x",
        ] {
            let e = SharedUrl::parse("--shared", bad).unwrap_err();
            assert!(e.to_string().starts_with("--shared: "), "{bad}: {e}");
        }
        for good in [
            "s3://my-bucket",
            "s3://my-bucket/a/b/",
            "file:///tmp/x",
            "memory://t",
        ] {
            SharedUrl::parse("shared", good).unwrap();
        }
        assert!(NodeId::parse("--node-id", "a/b").is_err());
        assert!(NodeId::parse("--node-id", "").is_err());
        assert!(NodeId::parse("--node-id", "..").is_err());
        NodeId::parse("--node-id", "node-3.eu_west").unwrap();
        let d = NodeId::default_for_host();
        NodeId::parse("x", d.as_str()).unwrap();
    }

    #[test]
    fn manifest_differences_name_each_key() {
        let mine = Manifest {
            format: 1,
            contract: "Token".into(),
            code: [("Token".to_string(), "aa".to_string())].into(),
            config: [
                ("testMode".to_string(), serde_json::json!("property")),
                ("senders".to_string(), serde_json::json!(["0x10"])),
            ]
            .into(),
        };
        assert!(mine.differences(&mine).is_empty());
        let mut theirs = mine.clone();
        theirs.code.insert("Token".into(), "bb".into());
        theirs
            .config
            .insert("testMode".into(), serde_json::json!("assertion"));
        let d = mine.differences(&theirs);
        assert_eq!(d.len(), 2, "{d:?}");
        assert!(
            d[0].contains("code of Token: the store has bb, this node has aa"),
            "{d:?}"
        );
        assert!(d[1].contains("config testMode"), "{d:?}");
    }

    #[test]
    fn coverage_merges_by_or_and_counts_what_is_new() {
        let mut a = vec![vec![0b0001, 0], vec![0b1000]];
        let b = vec![vec![0b0011, 0b0100, 0b1], vec![0b1000], vec![0b1]];
        assert_eq!(merge_coverage(&mut a, &b), 4);
        assert_eq!(a, vec![vec![0b0011, 0b0100, 0b1], vec![0b1000], vec![0b1]]);
        // Idempotent and commutative: applying again adds nothing.
        assert_eq!(merge_coverage(&mut a, &b), 0);
        let packed = CoverageBits::pack(&a);
        assert_eq!(packed.points, 6);
        assert_eq!(packed.unpack().unwrap(), a);
    }

    #[test]
    fn the_shortest_finding_wins_whatever_the_order() {
        let c = [(5, "bb"), (3, "ff"), (3, "aa"), (9, "00")];
        let mut rev = c;
        rev.reverse();
        assert_eq!(best_finding(c), Some((3, "aa")));
        assert_eq!(best_finding(rev), Some((3, "aa")));
        assert_eq!(best_finding(std::iter::empty()), None);
    }

    #[test]
    fn batches_are_read_with_a_cursor_and_objects_only_grow() {
        let b = memory("items-cursor");
        let node = NodeId::parse("n", "n1").unwrap();
        for seq in 0..3 {
            let batch = Batch {
                node: "n1".into(),
                seq,
                entries: vec![format!("e{seq}")],
                ..Default::default()
            };
            let k = format!("{}/{}", key::batches(&node), key::batch_name(seq));
            assert!(b.put_new(&k, serde_json::to_vec(&batch).unwrap()).unwrap());
            // A batch is immutable: a second write under its name is refused.
            assert!(!b.put_new(&k, b"other".to_vec()).unwrap());
        }
        let all = b.list_after(&key::batches(&node), None).unwrap();
        assert_eq!(all.len(), 3);
        let after = b
            .list_after(&key::batches(&node), Some(&key::batch_name(0)))
            .unwrap();
        assert_eq!(after, vec![key::batch_name(1), key::batch_name(2)]);
        assert_eq!(key::batch_seq(&after[1]), Some(2));
        let none = b
            .list_after(&key::batches(&node), Some(&key::batch_name(2)))
            .unwrap();
        assert!(none.is_empty());
        // Nodes are the folders under nodes/.
        b.put(
            &key::heartbeat(&NodeId::parse("n", "n2").unwrap()),
            b"{}".to_vec(),
        )
        .unwrap();
        assert_eq!(b.children(key::NODES).unwrap(), vec!["n1", "n2"]);
        assert_eq!(b.get("missing.json").unwrap(), None);
    }

    fn batch(node: &str, seq: u64, entries: &[&str], injections: usize) -> Batch {
        Batch {
            node: node.into(),
            seq,
            ts_ms: 1000 + seq,
            entries: entries.iter().map(|e| e.to_string()).collect(),
            injections: (0..injections)
                .map(|i| SharedInjection {
                    sequence: vec![format!("f({seq}, {i})")],
                    repeat: 1,
                    batch: None,
                })
                .collect(),
            ..Batch::default()
        }
    }

    #[test]
    fn a_generation_merges_each_nodes_batches_once_and_in_order() {
        let mut g = Generation::default().next("a", 1);
        assert_eq!(g.number, 1);
        assert!(g.absorb("a", &batch("a", 0, &["e1", "e2"], 1)));
        assert!(g.absorb("a", &batch("a", 1, &["e2", "e3"], 0)));
        assert!(g.absorb("b", &batch("b", 0, &["e1"], 2)));
        // At least once: a batch held already changes nothing.
        assert!(!g.absorb("a", &batch("a", 1, &["zz"], 5)));
        assert!(!g.absorb("a", &batch("a", 0, &["zz"], 5)));
        g.settle();
        assert_eq!(g.last("a"), Some(1));
        assert_eq!(g.last("b"), Some(0));
        assert_eq!(g.last("c"), None);
        assert_eq!(g.nodes["a"].entries, vec!["e1", "e2", "e3"]);
        // Injections are not merged: each one given is run once.
        assert_eq!(g.nodes["b"].injections.len(), 2);
        assert_eq!(g.nodes["a"].injections[0].batch, Some(0));

        // The next generation holds everything this one does.
        let mut h = g.next("b", 2);
        assert!(h.absorb("a", &batch("a", 2, &["e4"], 1)));
        for (n, b) in &g.nodes {
            assert!(b.entries.iter().all(|e| h.nodes[n].entries.contains(e)));
            assert!(h.last(n) >= Some(b.seq));
        }
        assert_eq!(h.number, 2);

        // What a reader has not read: nothing at or past the generation's
        // last batch; injections only past its cursor.
        assert!(h.unread("a", Some(2)).is_none());
        assert!(h.unread("a", Some(7)).is_none());
        let u = h.unread("a", Some(0)).unwrap();
        assert_eq!(u.seq, 2);
        assert_eq!(
            u.injections.iter().map(|i| i.batch).collect::<Vec<_>>(),
            vec![Some(2)],
            "the injection of batch 0 ran already"
        );
        assert_eq!(h.unread("a", None).unwrap().injections.len(), 2);
        assert!(h.unread("c", None).is_none());

        // Batches since: per node, those past the generation's last.
        assert_eq!(h.batches_since([("a", 3), ("b", 1), ("c", 4)]), 4);
        assert_eq!(h.batches_since([("a", 1)]), 0);

        // It round-trips as stored.
        let back: Generation = serde_json::from_slice(&serde_json::to_vec(&h).unwrap()).unwrap();
        assert_eq!(back, h);
    }

    #[test]
    fn batches_are_deletable_only_when_every_live_node_read_past_them() {
        let mut g = Generation::default().next("a", 1);
        g.absorb("a", &batch("a", 4, &[], 0));
        g.absorb("b", &batch("b", 2, &[], 0));
        let beat = |node: &str, cursors: &[(&str, u64)], ts_ms: u64, ended: bool| Heartbeat {
            node: node.into(),
            ts_ms,
            ended,
            cursors: cursors.iter().map(|(n, c)| (n.to_string(), *c)).collect(),
            ..Heartbeat::default()
        };
        let a = beat("a", &[("b", 2)], 100, false);
        let b_behind = beat("b", &[("a", 3)], 100, false);
        let b_past = beat("b", &[("a", 9)], 100, false);
        let c_new = beat("c", &[], 100, false);
        assert!(g.read_by_all(&[&a, &b_past]));
        assert!(
            !g.read_by_all(&[&a, &b_behind]),
            "b has not read a's batch 4"
        );
        assert!(!g.read_by_all(&[&a, &b_past, &c_new]), "c has read nothing");
        assert!(g.read_by_all(&[]));

        // Live: not ended and heard from lately; the compactor is the live
        // node with the smallest name.
        let old = beat("0", &[], 10, false);
        let gone = beat("1", &[], 100, true);
        assert!(!is_live(&old, 200, 100));
        assert!(!is_live(&gone, 100, 100));
        assert!(is_live(&a, 200, 100));
        let all = [old, gone, b_past, a];
        let live: Vec<&Heartbeat> = all.iter().filter(|h| is_live(h, 200, 100)).collect();
        assert_eq!(compactor(live.iter().copied()), Some("a"));
        assert_eq!(compactor(std::iter::empty()), None);
    }

    #[test]
    fn deleted_objects_are_gone_and_deleting_twice_is_harmless() {
        let b = memory("items-delete");
        b.put("generations/000000000001.json", b"{}".to_vec())
            .unwrap();
        b.delete("generations/000000000001.json").unwrap();
        assert_eq!(b.get("generations/000000000001.json").unwrap(), None);
        b.delete("generations/000000000001.json").unwrap();
        assert_eq!(key::batch_seq(&key::generation_name(12)), Some(12));
    }
}
