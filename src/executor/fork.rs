//! Fork mode: the chain's state at a block, read from an RPC node as the
//! campaign touches it.
//!
//! Every executor's state is a [`revm::database::CacheDB`] over a
//! [`Backend`]: empty (the default: a fresh chain) or a [`ForkSource`].
//! An account, its code or a storage slot the executor has not seen is
//! asked of the backend once per executor (the executor's cache keeps it
//! across sequences, as it keeps the deployment); the fork source asks the
//! node once per campaign (its cache is shared by every worker) and keeps
//! the answers on disk, keyed by chain id and block, so that a re-run at
//! the same block reads nothing from the node and runs with the node gone.
//! What the cache lacks while the node cannot be reached is an error that
//! names the account or slot, never a zero.

use alloy_primitives::{Address, B256, Bytes, U256, keccak256};
use crossbeam::channel::{Sender, bounded, unbounded};
use parking_lot::{Mutex, RwLock};
use revm::bytecode::Bytecode;
use revm::database::EmptyDB;
use revm::database_interface::{DBErrorMarker, DatabaseRef};
use revm::primitives::StorageKey;
use revm::state::AccountInfo;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Why the fork could not answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("fork: {0}")]
pub struct ForkError(pub String);

/// `url` with what may be a credential hidden, for reports, answers and
/// messages: a user and password (`https://***@host`), every query value
/// (`?key=***`), and a path segment that looks like an API key (16 or more
/// letters, digits, `-` or `_`, with a digit and a letter among them, as
/// in Alchemy's `/v2/KEY` and Infura's `/v3/KEY`).
pub fn redacted(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let cut = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(cut);
    let host = authority
        .rsplit_once('@')
        .map_or(authority.to_string(), |(_, h)| format!("***@{h}"));
    let (path, query) = tail.split_once('?').unwrap_or((tail, ""));
    let keyish = |seg: &str| {
        seg.len() >= 16
            && seg
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            && seg.chars().any(|c| c.is_ascii_digit())
            && seg.chars().any(|c| c.is_ascii_alphabetic())
    };
    let path: Vec<&str> = path
        .split('/')
        .map(|seg| if keyish(seg) { "***" } else { seg })
        .collect();
    let mut out = String::new();
    if !scheme.is_empty() {
        out.push_str(scheme);
        out.push_str("://");
    }
    out.push_str(&host);
    out.push_str(&path.join("/"));
    if !query.is_empty() {
        let (query, fragment) = query
            .split_once('#')
            .map_or((query, None), |(q, f)| (q, Some(f)));
        let hidden: Vec<String> = query
            .split('&')
            .map(|kv| match kv.split_once('=') {
                Some((k, _)) => format!("{k}=***"),
                None => kv.to_string(),
            })
            .collect();
        out.push('?');
        out.push_str(&hidden.join("&"));
        if let Some(f) = fragment {
            out.push('#');
            out.push_str(f);
        }
    }
    out
}

impl DBErrorMarker for ForkError {}

/// The block values of the fork block: the campaign's initial block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ForkBlock {
    pub number: u64,
    pub timestamp: u64,
    pub base_fee: u64,
    pub coinbase: Address,
    pub chain_id: u64,
}

/// An account as the node gave it.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct Account {
    balance: U256,
    nonce: u64,
    code: Bytes,
}

/// What has been read from the node at the fork block: the file's shape.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Cache {
    /// The node's URL when it was written (for people; not a key).
    url: String,
    block: Option<ForkBlock>,
    accounts: BTreeMap<Address, Account>,
    storage: BTreeMap<Address, BTreeMap<U256, U256>>,
    block_hashes: BTreeMap<u64, B256>,
}

/// Attempts per request: a node that answers 429 or 5xx, times out or
/// drops the connection is asked again after 0.25, 0.5, 1 and 2 s (or the
/// `Retry-After` it sent, up to 10 s).
const ATTEMPTS: u32 = 5;

/// Posts `body` to the node, retrying what may pass (rate limits, a busy
/// or restarting node); a 4xx other than 429, or an answer that is not
/// JSON, is final.
fn post_with_retries(
    client: &reqwest::blocking::Client,
    url: &str,
    body: &Value,
    attempts: u32,
) -> Result<Value, String> {
    let mut last = String::new();
    for attempt in 0..attempts {
        let mut wait = Duration::from_millis(250 << attempt);
        match client.post(url).json(body).send() {
            Ok(r) if r.status().as_u16() == 429 || r.status().is_server_error() => {
                if let Some(secs) = r
                    .headers()
                    .get(reqwest::header::RETRY_AFTER)
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.trim().parse::<u64>().ok())
                {
                    wait = Duration::from_secs(secs.min(10));
                }
                last = format!("HTTP {}", r.status());
            }
            Ok(r) => {
                let r = r
                    .error_for_status()
                    .map_err(|e| e.without_url().to_string())?;
                return r.json::<Value>().map_err(|e| {
                    format!(
                        "it answered something other than JSON-RPC (is the URL a node's?): {}",
                        e.without_url()
                    )
                });
            }
            Err(e) if e.is_timeout() || e.is_connect() || e.is_request() => {
                last = e.without_url().to_string()
            }
            Err(e) => return Err(e.without_url().to_string()),
        }
        if attempt + 1 < attempts {
            std::thread::sleep(wait);
        }
    }
    Err(format!(
        "{last} (after {attempts} attempt{})",
        if attempts == 1 { "" } else { "s" }
    ))
}

/// One JSON-RPC request and where its answer goes.
type Job = (Value, Sender<Result<Value, String>>);

/// The node: requests go to a thread of its own (a blocking HTTP client
/// must not run inside an async runtime, and the campaign may be built in
/// one).
struct Node {
    jobs: Sender<Job>,
}

impl Node {
    fn spawn(url: &str) -> Result<Node, ForkError> {
        let (jobs, rx) = unbounded::<Job>();
        let url = url.to_string();
        crate::net::tls();
        std::thread::Builder::new()
            .name("rudder-rpc".into())
            .spawn(move || {
                let client = match reqwest::blocking::Client::builder()
                    .timeout(Duration::from_secs(30))
                    .build()
                {
                    Ok(c) => c,
                    Err(e) => {
                        let e = e.without_url().to_string();
                        for (_, reply) in rx {
                            let _ = reply.send(Err(e.clone()));
                        }
                        return;
                    }
                };
                // A node that failed a whole round of attempts is asked once
                // per request until it answers again (every worker waits on
                // a fetch: minutes of retries per read would stall them).
                let mut up = true;
                for (body, reply) in rx {
                    let answer =
                        post_with_retries(&client, &url, &body, if up { ATTEMPTS } else { 1 });
                    up = answer.is_ok();
                    let _ = reply.send(answer);
                }
            })
            .map_err(|e| ForkError(format!("cannot start the RPC thread: {e}")))?;
        Ok(Node { jobs })
    }

    /// Calls (method, params) as one batch; the results in order.
    fn batch(&self, calls: &[(&str, Value)]) -> Result<Vec<Value>, String> {
        let body: Vec<Value> = calls
            .iter()
            .enumerate()
            .map(|(i, (m, p))| json!({"jsonrpc": "2.0", "id": i, "method": m, "params": p}))
            .collect();
        let (tx, rx) = bounded(1);
        self.jobs
            .send((Value::Array(body), tx))
            .map_err(|_| "the RPC thread is gone".to_string())?;
        let answer = rx
            .recv()
            .map_err(|_| "the RPC thread is gone".to_string())??;
        let items = match answer {
            Value::Array(items) => items,
            // A node that answers a batch with one error object.
            other => return Err(format!("not a batch answer: {other}")),
        };
        let mut out = vec![Value::Null; calls.len()];
        for item in items {
            let id = item["id"].as_u64().unwrap_or(u64::MAX) as usize;
            if let Some(e) = item.get("error").filter(|e| !e.is_null()) {
                return Err(format!(
                    "{} failed: {e}",
                    calls.get(id).map_or("?", |c| c.0)
                ));
            }
            if let Some(slot) = out.get_mut(id) {
                *slot = item["result"].clone();
            }
        }
        Ok(out)
    }
}

fn quantity(v: &Value, what: &str) -> Result<U256, String> {
    v.as_str()
        .and_then(|s| U256::from_str_radix(s.trim_start_matches("0x"), 16).ok())
        .ok_or_else(|| format!("{what}: not a hex quantity: {v}"))
}

fn hex_bytes(v: &Value, what: &str) -> Result<Bytes, String> {
    v.as_str()
        .and_then(|s| alloy_primitives::hex::decode(s).ok())
        .map(Bytes::from)
        .ok_or_else(|| format!("{what}: not hex data: {v}"))
}

/// The state of a chain at one block, read through a node and kept on disk.
pub struct ForkSource {
    url: String,
    block: ForkBlock,
    node: Option<Node>,
    cache: RwLock<Cache>,
    /// Code by hash, for the executor's `code_by_hash`.
    codes: RwLock<HashMap<B256, Bytecode>>,
    /// One fetch at a time: a slot two workers miss together is asked once.
    fetching: Mutex<()>,
    file: PathBuf,
    dirty: AtomicBool,
    last_write: Mutex<Instant>,
    requests: AtomicU64,
    /// Whether something the cache lacks was asked for with the node gone.
    missed: AtomicBool,
}

/// Two backends are the same when they read the same source.
impl PartialEq for Backend {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Backend::Empty, Backend::Empty) => true,
            (Backend::Fork(a), Backend::Fork(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl Eq for Backend {}

impl std::fmt::Debug for ForkSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ForkSource")
            .field("url", &redacted(&self.url))
            .field("block", &self.block)
            .finish()
    }
}

/// Where fork caches live unless `rpcCacheDir` says: the user's cache
/// directory (`$XDG_CACHE_HOME`, else `~/.cache`), `rudder/rpc`.
pub fn default_cache_dir() -> PathBuf {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("rudder").join("rpc")
}

impl ForkSource {
    /// The chain behind `url` at `block` (`None`: the node's latest, pinned
    /// now). Reads the cache of that chain and block under `cache_dir`;
    /// when the node cannot be reached, runs from that cache alone.
    pub fn open(
        url: &str,
        block: Option<u64>,
        cache_dir: &Path,
    ) -> Result<Arc<ForkSource>, ForkError> {
        let node = Node::spawn(url)?;
        let probe = node.batch(&[("eth_chainId", json!([])), ("eth_blockNumber", json!([]))]);
        let (node, chain_id, number) = match probe {
            Ok(r) => {
                let chain = quantity(&r[0], "eth_chainId").map_err(ForkError)?;
                let latest = quantity(&r[1], "eth_blockNumber").map_err(ForkError)?;
                (
                    Some(node),
                    Some(chain.to::<u64>()),
                    block.unwrap_or(latest.to::<u64>()),
                )
            }
            Err(why) => {
                let Some(b) = block else {
                    return Err(ForkError(format!(
                        "the node at {} cannot be reached ({why}); without rpcBlock there is no block to run from the cache",
                        redacted(url)
                    )));
                };
                tracing::warn!(
                    url = redacted(url),
                    why,
                    "the node cannot be reached: running from the fork cache alone"
                );
                (None, None, b)
            }
        };
        let file = match chain_id {
            Some(c) => cache_dir.join(c.to_string()).join(format!("{number}.json")),
            None => find_cached(cache_dir, number).ok_or_else(|| {
                ForkError(format!(
                    "the node at {} cannot be reached and no fork cache of block {number} is under {}",
                    redacted(url),
                    cache_dir.display()
                ))
            })?,
        };
        remove_stale_temporaries(&file);
        let mut cache: Cache = match std::fs::read(&file) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map_err(|e| ForkError(format!("{}: not a fork cache: {e}", file.display())))?,
            Err(_) => Cache::default(),
        };
        let header = match (cache.block, &node) {
            (Some(b), _) => b,
            (None, Some(n)) => {
                let r = n
                    .batch(&[(
                        "eth_getBlockByNumber",
                        json!([format!("0x{number:x}"), false]),
                    )])
                    .map_err(ForkError)?;
                let b = &r[0];
                if b.is_null() {
                    return Err(ForkError(format!("the node has no block {number}")));
                }
                let field = |k: &str| quantity(&b[k], k).map_err(ForkError);
                ForkBlock {
                    number,
                    timestamp: field("timestamp")?.to::<u64>(),
                    base_fee: b
                        .get("baseFeePerGas")
                        .filter(|v| !v.is_null())
                        .map(|v| quantity(v, "baseFeePerGas"))
                        .transpose()
                        .map_err(ForkError)?
                        .map_or(0, |v| v.saturating_to::<u64>()),
                    coinbase: b["miner"]
                        .as_str()
                        .and_then(|s| s.parse().ok())
                        .unwrap_or_default(),
                    chain_id: chain_id.unwrap_or(1),
                }
            }
            (None, None) => {
                return Err(ForkError(format!(
                    "{}: the cache has no block header",
                    file.display()
                )));
            }
        };
        cache.block = Some(header);
        cache.url = redacted(url);
        let codes = cache
            .accounts
            .values()
            .filter(|a| !a.code.is_empty())
            .map(|a| (keccak256(&a.code), Bytecode::new_raw(a.code.clone())))
            .collect();
        let source = Arc::new(ForkSource {
            url: url.to_string(),
            block: header,
            node,
            cache: RwLock::new(cache),
            codes: RwLock::new(codes),
            fetching: Mutex::new(()),
            file,
            dirty: AtomicBool::new(true),
            last_write: Mutex::new(Instant::now()),
            requests: AtomicU64::new(0),
            missed: AtomicBool::new(false),
        });
        source.write()?;
        Ok(source)
    }

    /// The node's URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The node's URL as reports show it (see [`redacted`]).
    pub fn shown_url(&self) -> String {
        redacted(&self.url)
    }

    /// The fork block's values.
    pub fn block(&self) -> ForkBlock {
        self.block
    }

    /// Where the cache is kept.
    pub fn cache_file(&self) -> &Path {
        &self.file
    }

    /// Requests made to the node since the source was opened (batches).
    pub fn requests(&self) -> u64 {
        self.requests.load(Ordering::Relaxed)
    }

    /// Writes the cache to its file if it changed (atomically: a new file
    /// renamed over the old one).
    pub fn write(&self) -> Result<(), ForkError> {
        if !self.dirty.swap(false, Ordering::AcqRel) {
            return Ok(());
        }
        let bytes = serde_json::to_vec(&*self.cache.read())
            .map_err(|e| ForkError(format!("cannot serialize the cache: {e}")))?;
        let fail = |e: std::io::Error| {
            self.dirty.store(true, Ordering::Release);
            ForkError(format!("{}: {e}", self.file.display()))
        };
        if let Some(dir) = self.file.parent() {
            std::fs::create_dir_all(dir).map_err(fail)?;
        }
        let tmp = self
            .file
            .with_extension(format!("json.{}.tmp", std::process::id()));
        std::fs::write(&tmp, &bytes).map_err(fail)?;
        std::fs::rename(&tmp, &self.file).map_err(fail)?;
        *self.last_write.lock() = Instant::now();
        Ok(())
    }

    /// A fetch: from the cache, else from the node (then cached).
    fn fetch<T>(
        &self,
        what: impl Fn() -> String,
        cached: impl Fn(&Cache) -> Option<T>,
        ask: impl FnOnce(&Node) -> Result<T, String>,
        keep: impl FnOnce(&mut Cache, &T),
    ) -> Result<T, ForkError> {
        if let Some(v) = cached(&self.cache.read()) {
            return Ok(v);
        }
        let _one = self.fetching.lock();
        if let Some(v) = cached(&self.cache.read()) {
            return Ok(v);
        }
        let Some(node) = &self.node else {
            let e = ForkError(format!(
                "{} at block {} is not in the fork cache ({}) and the node at {} cannot be reached",
                what(),
                self.block.number,
                self.file.display(),
                redacted(&self.url)
            ));
            // Each call that needs it halts with this reason; said once here
            // too, as the campaign goes on without that state.
            if !self.missed.swap(true, Ordering::Relaxed) {
                tracing::error!("{e}; calls that read it halt");
            }
            return Err(e);
        };
        self.requests.fetch_add(1, Ordering::Relaxed);
        let v = ask(node).map_err(|e| {
            let e = ForkError(format!("{}: {e}", what()));
            // The node dropped mid-run: what the cache holds still serves;
            // a call needing more halts with the reason. Said once.
            if !self.missed.swap(true, Ordering::Relaxed) {
                tracing::warn!(
                    "the node at {} stopped answering ({e}); the campaign goes on from the fork cache, and calls that read state it lacks halt",
                    redacted(&self.url)
                );
            }
            e
        })?;
        keep(&mut self.cache.write(), &v);
        self.dirty.store(true, Ordering::Release);
        if self.last_write.lock().elapsed() >= Duration::from_secs(1)
            && let Err(e) = self.write()
        {
            tracing::warn!(error = %e, "the fork cache could not be written");
        }
        Ok(v)
    }

    fn tag(&self) -> String {
        format!("0x{:x}", self.block.number)
    }

    fn account(&self, a: Address) -> Result<Account, ForkError> {
        let acc = self.fetch(
            || format!("account {a}"),
            |c| c.accounts.get(&a).cloned(),
            |n| {
                let r = n.batch(&[
                    ("eth_getBalance", json!([a, self.tag()])),
                    ("eth_getTransactionCount", json!([a, self.tag()])),
                    ("eth_getCode", json!([a, self.tag()])),
                ])?;
                Ok(Account {
                    balance: quantity(&r[0], "eth_getBalance")?,
                    nonce: quantity(&r[1], "eth_getTransactionCount")?.saturating_to(),
                    code: hex_bytes(&r[2], "eth_getCode")?,
                })
            },
            |c, acc| {
                c.accounts.insert(a, acc.clone());
            },
        )?;
        if !acc.code.is_empty() {
            self.codes
                .write()
                .entry(keccak256(&acc.code))
                .or_insert_with(|| Bytecode::new_raw(acc.code.clone()));
        }
        Ok(acc)
    }

    fn slot(&self, a: Address, key: U256) -> Result<U256, ForkError> {
        self.fetch(
            || format!("storage slot {key:#x} of {a}"),
            |c| c.storage.get(&a).and_then(|s| s.get(&key)).copied(),
            |n| {
                let r = n.batch(&[(
                    "eth_getStorageAt",
                    json!([a, format!("{key:#x}"), self.tag()]),
                )])?;
                quantity(&r[0], "eth_getStorageAt")
            },
            |c, v| {
                c.storage.entry(a).or_default().insert(key, *v);
            },
        )
    }

    fn block_hash(&self, number: u64) -> Result<B256, ForkError> {
        self.fetch(
            || format!("the hash of block {number}"),
            |c| c.block_hashes.get(&number).copied(),
            |n| {
                let r = n.batch(&[(
                    "eth_getBlockByNumber",
                    json!([format!("0x{number:x}"), false]),
                )])?;
                r[0]["hash"]
                    .as_str()
                    .and_then(|s| s.parse().ok())
                    .ok_or_else(|| format!("no hash for block {number}"))
            },
            |c, h| {
                c.block_hashes.insert(number, *h);
            },
        )
    }
}

impl Drop for ForkSource {
    fn drop(&mut self) {
        if let Err(e) = self.write() {
            tracing::warn!(error = %e, "the fork cache could not be written");
        }
    }
}

/// Removes what a killed run left of its writes of `file` (`file.PID.tmp`
/// older than a minute: a live run renames its own within milliseconds).
fn remove_stale_temporaries(file: &Path) {
    let (Some(dir), Some(name)) = (file.parent(), file.file_name().and_then(|n| n.to_str())) else {
        return;
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let n = e.file_name();
        let n = n.to_string_lossy();
        let stale = e
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age >= Duration::from_secs(60));
        if n.starts_with(&format!("{name}.")) && n.ends_with(".tmp") && stale {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// A cache file of `block` under `dir` (any chain), for a node that cannot
/// be reached.
fn find_cached(dir: &Path, block: u64) -> Option<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path().join(format!("{block}.json")))
        .filter(|p| p.is_file())
        .collect();
    found.sort();
    found.into_iter().next()
}

/// What an executor's state reads below what it holds: nothing (a fresh
/// chain) or a fork.
#[derive(Clone, Debug, Default)]
pub enum Backend {
    #[default]
    Empty,
    Fork(Arc<ForkSource>),
}

impl Backend {
    /// The fork block's number (none: not a fork).
    pub fn fork_block(&self) -> Option<u64> {
        match self {
            Backend::Empty => None,
            Backend::Fork(f) => Some(f.block().number),
        }
    }
}

impl DatabaseRef for Backend {
    type Error = ForkError;

    fn basic_ref(&self, address: Address) -> Result<Option<AccountInfo>, ForkError> {
        match self {
            Backend::Empty => Ok(None),
            Backend::Fork(f) => {
                let acc = f.account(address)?;
                if acc.balance.is_zero() && acc.nonce == 0 && acc.code.is_empty() {
                    return Ok(None);
                }
                let code = Bytecode::new_raw(acc.code.clone());
                Ok(Some(AccountInfo::new(
                    acc.balance,
                    acc.nonce,
                    code.hash_slow(),
                    code,
                )))
            }
        }
    }

    fn code_by_hash_ref(&self, code_hash: B256) -> Result<Bytecode, ForkError> {
        match self {
            Backend::Empty => Ok(Bytecode::default()),
            Backend::Fork(f) => Ok(f.codes.read().get(&code_hash).cloned().unwrap_or_default()),
        }
    }

    fn storage_ref(&self, address: Address, index: StorageKey) -> Result<U256, ForkError> {
        match self {
            Backend::Empty => Ok(U256::ZERO),
            Backend::Fork(f) => f.slot(address, index),
        }
    }

    fn block_hash_ref(&self, number: u64) -> Result<B256, ForkError> {
        match self {
            Backend::Empty => Ok(EmptyDB::default()
                .block_hash_ref(number)
                .unwrap_or_default()),
            Backend::Fork(f) => f.block_hash(number),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_urls_credentials_are_hidden_and_the_rest_kept() {
        for (url, shown) in [
            ("http://127.0.0.1:8545", "http://127.0.0.1:8545"),
            (
                "https://eth-mainnet.g.alchemy.com/v2/aB3dE5gH7jK9mN1pQ3",
                "https://eth-mainnet.g.alchemy.com/v2/***",
            ),
            (
                "https://mainnet.infura.io/v3/0123456789abcdef0123456789abcdef",
                "https://mainnet.infura.io/v3/***",
            ),
            (
                "https://user:secret@node.example/rpc",
                "https://***@node.example/rpc",
            ),
            (
                "https://rpc.example/?apikey=abc&chain=1#x",
                "https://rpc.example/?apikey=***&chain=***#x",
            ),
            ("https://rpc.ankr.com/eth", "https://rpc.ankr.com/eth"),
        ] {
            assert_eq!(redacted(url), shown, "{url}");
        }
    }

    /// A node that cannot be reached and a cache of the block holding one
    /// account: that account is read from the cache; another account, or a
    /// slot the cache lacks, is an error naming it, not a zero.
    #[test]
    fn without_the_node_what_the_cache_lacks_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let kept = Address::repeat_byte(0x11);
        let mut cache = Cache {
            url: "http://127.0.0.1:1".into(),
            block: Some(ForkBlock {
                number: 7,
                timestamp: 1_700_000_000,
                base_fee: 3,
                coinbase: Address::ZERO,
                chain_id: 5,
            }),
            ..Cache::default()
        };
        cache.accounts.insert(
            kept,
            Account {
                balance: U256::from(9),
                nonce: 1,
                code: Bytes::from_static(&[0x60, 0x00]),
            },
        );
        cache
            .storage
            .entry(kept)
            .or_default()
            .insert(U256::from(1), U256::from(42));
        let file = dir.path().join("5").join("7.json");
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, serde_json::to_vec(&cache).unwrap()).unwrap();

        let f = ForkSource::open("http://127.0.0.1:1", Some(7), dir.path()).unwrap();
        assert_eq!(f.block().chain_id, 5);
        assert_eq!(f.cache_file(), file);
        let b = Backend::Fork(f);
        let info = b.basic_ref(kept).unwrap().unwrap();
        assert_eq!((info.balance, info.nonce), (U256::from(9), 1));
        assert_eq!(
            b.code_by_hash_ref(info.code_hash).unwrap().original_bytes(),
            Bytes::from_static(&[0x60, 0x00])
        );
        assert_eq!(b.storage_ref(kept, U256::from(1)).unwrap(), U256::from(42));
        let e = b.storage_ref(kept, U256::from(2)).unwrap_err().to_string();
        assert!(
            e.contains("storage slot 0x2 of") && e.contains("block 7"),
            "{e}"
        );
        let other = Address::repeat_byte(0x22);
        let e = b.basic_ref(other).unwrap_err().to_string();
        assert!(e.contains(&format!("account {other}")), "{e}");
        // No cache of another block: nothing to run from.
        let e = ForkSource::open("http://127.0.0.1:1", Some(8), dir.path()).unwrap_err();
        assert!(e.to_string().contains("no fork cache of block 8"), "{e}");
    }
}
