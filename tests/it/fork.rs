//! Fork mode against a real node: anvil (installed by
//! scripts/setup-anvil.sh) gets a vault planted at a fixed address (its
//! runtime code, its owner in storage, its ether); contracts/ForkVault.sol's
//! harness can drain it only with that state. rudder forks the node (the
//! latest block, pinned), breaks the property, keeps what it read on disk,
//! and a second run at the same block with the node gone breaks it from
//! the cache alone; what the cache lacks then is an error naming it.

use rudder::campaign::Campaign;
use rudder::config::{Config, TestMode};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const VAULT: &str = "0x00000000000000000000000000000000C0FfeE00";
/// Where rudder deploys the harness (Echidna's `contractAddr`): the owner.
const HARNESS: &str = "0x00a329c0648769a73afac7f9381e08fb43dbea72";

struct Anvil {
    child: Child,
    url: String,
}

impl Drop for Anvil {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn anvil() -> Anvil {
    let out = Command::new("bash")
        .arg("scripts/setup-anvil.sh")
        .stderr(Stdio::inherit())
        .output()
        .expect("bash runs");
    assert!(out.status.success(), "scripts/setup-anvil.sh failed");
    let bin = String::from_utf8(out.stdout).unwrap();
    let bin = PathBuf::from(bin.lines().last().expect("a path").trim());
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new(bin)
        .args(["--port", &port.to_string(), "--quiet"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("anvil starts");
    let node = Anvil {
        child,
        url: format!("http://127.0.0.1:{port}"),
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    while rpc(&node.url, "eth_blockNumber", json!([])).is_err() {
        assert!(Instant::now() < deadline, "anvil did not answer");
        std::thread::sleep(Duration::from_millis(50));
    }
    node
}

fn rpc(url: &str, method: &str, params: Value) -> Result<Value, String> {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    rudder::net::tls();
    let r: Value = reqwest::blocking::Client::new()
        .post(url)
        .json(&body)
        .send()
        .and_then(|r| r.json())
        .map_err(|e| e.to_string())?;
    match r.get("error") {
        Some(e) if !e.is_null() => Err(format!("{method}: {e}")),
        _ => Ok(r["result"].clone()),
    }
}

/// The planted vault's runtime code, from the artifact.
fn vault_code() -> String {
    let a: Value =
        serde_json::from_slice(&std::fs::read("contracts/out/ForkVault.json").unwrap()).unwrap();
    let hex = a["contracts"]["contracts/ForkVault.sol"]["PlantedVault"]["evm"]["deployedBytecode"]
        ["object"]
        .as_str()
        .unwrap();
    format!("0x{hex}")
}

/// Plants the vault (code, owner, 10 ether) and mines a block holding it;
/// that block's number.
fn plant(url: &str) -> u64 {
    rpc(url, "anvil_setCode", json!([VAULT, vault_code()])).unwrap();
    let owner = format!("0x{:0>64}", HARNESS.trim_start_matches("0x"));
    rpc(url, "anvil_setStorageAt", json!([VAULT, "0x0", owner])).unwrap();
    rpc(
        url,
        "anvil_setBalance",
        json!([VAULT, "0x8ac7230489e80000"]),
    )
    .unwrap();
    rpc(url, "evm_mine", json!([])).unwrap();
    let n = rpc(url, "eth_blockNumber", json!([])).unwrap();
    u64::from_str_radix(n.as_str().unwrap().trim_start_matches("0x"), 16).unwrap()
}

fn config(url: Option<&str>, block: Option<u64>, cache: &Path) -> Config {
    Config {
        test_mode: TestMode::Property,
        workers: Some(1),
        seed: Some(5),
        test_limit: 300_000,
        timeout: Some(Duration::from_secs(120)),
        stop_on_fail: true,
        rpc_url: url.map(str::to_string),
        rpc_block: block,
        rpc_cache_dir: Some(cache.to_path_buf()),
        ..Config::default()
    }
}

/// `rudder fuzz --contract ForkingVaultHarness` with `RUDDER_FORK_URL` in
/// its environment and no fork flags: its JSON report.
fn forking_harness(url: &str, cache: &Path) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let yaml = dir.path().join("config.yaml");
    std::fs::write(&yaml, "seed: 5\ntestLimit: 300000\nstopOnFail: true\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_rudder"))
        .args(["fuzz", "contracts/out/ForkVault.json"])
        .args(["--contract", "ForkingVaultHarness", "--workers", "1"])
        .args(["--timeout", "120", "--format", "json", "--no-ui"])
        .arg("--config")
        .arg(&yaml)
        .arg("--rpc-cache-dir")
        .arg(cache)
        .arg("--out-dir")
        .arg(dir.path().join("out"))
        .env("RUDDER_FORK_URL", url)
        .stderr(Stdio::inherit())
        .output()
        .expect("rudder runs");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "a JSON report ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

fn run(config: Config, out: &Path) -> Result<rudder::campaign::Report, String> {
    let mut c = Campaign::new(
        Path::new("contracts/out/ForkVault.json"),
        None,
        config,
        Some(out.to_path_buf()),
    )
    .map_err(|e| e.to_string())?;
    c.start().map_err(|e| e.to_string())?;
    Ok(c.wait())
}

fn drained(r: &rudder::campaign::Report) -> bool {
    r.tests
        .iter()
        .any(|t| t.name == "echidna_vault_keeps_its_ether" && t.status.is_falsified())
}

#[test]
fn a_vault_planted_on_a_node_is_drained_through_the_fork_and_again_from_the_cache_alone() {
    let cache = tempfile::tempdir().unwrap();
    let node = anvil();
    let block = plant(&node.url);

    // On a fresh chain there is nothing to drain.
    let out = tempfile::tempdir().unwrap();
    let mut fresh = config(None, None, cache.path());
    fresh.test_limit = 20_000;
    let r = run(fresh, out.path()).unwrap();
    assert!(!drained(&r), "no vault without the fork");

    // The fork at the node's latest block (pinned at start); `status` and
    // `target` say so while it runs.
    let out = tempfile::tempdir().unwrap();
    let mut c = Campaign::new(
        Path::new("contracts/out/ForkVault.json"),
        None,
        config(Some(&node.url), None, cache.path()),
        Some(out.path().to_path_buf()),
    )
    .unwrap();
    c.start().unwrap();
    let server = crate::common::server(c.control());
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    for tool in ["status", "target"] {
        let a = rt.block_on(crate::common::call(&server, tool, json!({})));
        assert_eq!(
            (
                &a["fork"]["block"],
                &a["fork"]["chainId"],
                &a["fork"]["url"]
            ),
            (&json!(block), &json!(31337), &json!(node.url)),
            "{tool}: {a}"
        );
    }
    let r = c.wait();
    assert!(drained(&r), "the fork's vault is drained: {:?}", r.tests);
    let file = cache.path().join("31337").join(format!("{block}.json"));
    let kept: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(kept["block"]["number"], block);
    assert!(
        kept["accounts"]
            .as_object()
            .unwrap()
            .keys()
            .any(|a| a.eq_ignore_ascii_case(VAULT)),
        "the vault's account is cached: {kept}"
    );

    // A harness that forks by itself (`createSelectFork` in its
    // constructor, as a suite's setUp() does), with no fork flags; the URL
    // comes from the environment (`vm.envString`), set for the child alone.
    let r = forking_harness(&node.url, cache.path());
    let status = |name: &str| {
        r["tests"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .map(|t| t["status"].clone())
    };
    assert_eq!(
        status("echidna_vault_keeps_its_ether"),
        Some(json!("falsified")),
        "the constructor's fork is drained: {}",
        r["tests"]
    );
    assert_eq!(
        status("echidna_the_fork_stays_selected"),
        Some(json!("passing")),
        "activeFork() answers the fork selected: {}",
        r["tests"]
    );
    assert_eq!(r["fork"]["block"], block);

    // The node gone: the same block runs from the cache alone.
    let url = node.url.clone();
    drop(node);
    let out = tempfile::tempdir().unwrap();
    let r = run(config(Some(&url), Some(block), cache.path()), out.path()).unwrap();
    assert!(drained(&r), "drained again from the cache: {:?}", r.tests);

    // Without a cache of that block, or a block at all, it cannot start,
    // and says why.
    let empty = tempfile::tempdir().unwrap();
    let e = run(config(Some(&url), Some(block), empty.path()), out.path()).unwrap_err();
    assert!(
        e.contains("cannot be reached") && e.contains(&format!("block {block}")),
        "{e}"
    );
    let e = run(config(Some(&url), None, cache.path()), out.path()).unwrap_err();
    assert!(e.contains("without rpcBlock"), "{e}");
}

/// A counting proxy of our own in front of the node, on loopback: it
/// answers the first `refuse` HTTP requests with 429 (a rate-limited
/// provider), forwards the rest, and counts every JSON-RPC call it
/// forwarded by (method, params).
struct Proxy {
    url: String,
    calls: std::sync::Arc<std::sync::Mutex<std::collections::HashMap<String, u32>>>,
    refused: std::sync::Arc<std::sync::atomic::AtomicU32>,
}

fn proxy(node: &str, refuse: u32) -> Proxy {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::sync::atomic::Ordering;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let calls = std::sync::Arc::new(std::sync::Mutex::new(std::collections::HashMap::new()));
    let refused = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
    let (node, counted, refusals) = (node.to_string(), calls.clone(), refused.clone());
    std::thread::spawn(move || {
        rudder::net::tls();
        let client = reqwest::blocking::Client::new();
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut length = 0usize;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
            }
            let mut body = vec![0u8; length];
            if reader.read_exact(&mut body).is_err() {
                continue;
            }
            let mut out = stream;
            if refusals.load(Ordering::SeqCst) < refuse {
                refusals.fetch_add(1, Ordering::SeqCst);
                let _ = out.write_all(
                    b"HTTP/1.1 429 Too Many Requests\r\nRetry-After: 0\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                );
                continue;
            }
            let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
            let items = match &request {
                Value::Array(items) => items.clone(),
                one => vec![one.clone()],
            };
            for item in items {
                let key = format!("{} {}", item["method"], item["params"]);
                *counted.lock().unwrap().entry(key).or_insert(0) += 1;
            }
            let answer = client
                .post(&node)
                .header("content-type", "application/json")
                .body(body)
                .send()
                .and_then(|r| r.bytes())
                .unwrap_or_default();
            let _ = out.write_all(
                format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    answer.len()
                )
                .as_bytes(),
            );
            let _ = out.write_all(&answer);
        }
    });
    Proxy {
        url,
        calls,
        refused,
    }
}

/// Four workers on a fresh cache, through a provider that rate-limits the
/// first requests: the refused requests are retried (the run forks and
/// drains the vault), and the node sees each account, slot and code
/// request once, however many workers read it.
#[test]
fn four_workers_fetch_each_slot_once_and_a_rate_limit_is_waited_out() {
    let cache = tempfile::tempdir().unwrap();
    let node = anvil();
    let block = plant(&node.url);
    let p = proxy(&node.url, 3);
    let out = tempfile::tempdir().unwrap();
    let mut c = config(Some(&p.url), Some(block), cache.path());
    c.workers = Some(4);
    let r = run(c, out.path()).unwrap();
    assert!(drained(&r), "drained through the proxy: {:?}", r.tests);
    assert_eq!(
        p.refused.load(std::sync::atomic::Ordering::SeqCst),
        3,
        "the 429s were answered"
    );
    let calls = p.calls.lock().unwrap();
    let repeated: Vec<_> = calls.iter().filter(|(_, n)| **n > 1).collect();
    assert!(repeated.is_empty(), "asked more than once: {repeated:?}");
    assert!(
        calls.keys().any(|k| k.contains("eth_getStorageAt")),
        "the vault's slot was read through the proxy: {calls:?}"
    );
}

/// Bad input at start: a node that cannot be reached, a URL that answers
/// something other than JSON-RPC, a block past the chain's head. Each is
/// exit 2 naming `rpcUrl`, and nothing is written to the cache.
#[test]
fn a_bad_fork_url_or_block_is_exit_2_naming_it_and_the_cache_stays_empty() {
    use std::io::{Read, Write};
    // A web server, not a node.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let web = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for mut s in listener.incoming().flatten() {
            let mut buf = [0u8; 4096];
            let _ = s.read(&mut buf);
            let page = "<html><body>hello</body></html>";
            let _ = s.write_all(
                format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{page}",
                    page.len()
                )
                .as_bytes(),
            );
        }
    });
    let node = anvil();
    let head = plant(&node.url);
    let future = (head + 1000).to_string();
    let cases: [(&str, &[&str], &str); 3] = [
        ("http://127.0.0.1:1", &[], "cannot be reached"),
        (&web, &[], "other than JSON-RPC"),
        (&node.url, &["--fork-block-number", &future], "no block"),
    ];
    for (url, more, needle) in cases {
        let cache = tempfile::tempdir().unwrap();
        let out = tempfile::tempdir().unwrap();
        let o = Command::new(env!("CARGO_BIN_EXE_rudder"))
            .args([
                "fuzz",
                "contracts/out/ForkVault.json",
                "--no-ui",
                "--fork-url",
                url,
            ])
            .args(more)
            .arg("--rpc-cache-dir")
            .arg(cache.path())
            .arg("--out-dir")
            .arg(out.path().join("out"))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{url}: {stderr}");
        assert!(
            stderr.contains("rpcUrl") && stderr.contains(needle),
            "{url}: {stderr}"
        );
        assert_eq!(
            std::fs::read_dir(cache.path()).unwrap().count(),
            0,
            "{url}: nothing cached"
        );
    }
}

/// The cache file survives SIGKILL at any moment (the short kill loop;
/// `KILLS=50` for the long one): after each kill it is absent or a whole
/// cache of the block, and the next run reads it.
#[test]
fn the_fork_cache_survives_sigkill_mid_run() {
    let kills: u32 = std::env::var("KILLS")
        .ok()
        .and_then(|k| k.parse().ok())
        .unwrap_or(6);
    let cache = tempfile::tempdir().unwrap();
    let node = anvil();
    let block = plant(&node.url);
    let file = cache.path().join("31337").join(format!("{block}.json"));
    for k in 0..kills {
        let out = tempfile::tempdir().unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_rudder"))
            .args([
                "fuzz",
                "contracts/out/ForkVault.json",
                "--no-ui",
                "--workers",
                "2",
            ])
            .args([
                "--contract",
                "ForkVaultHarness",
                "--test-mode",
                "exploration",
            ])
            .args(["--timeout", "30", "--fork-url", &node.url])
            .args(["--fork-block-number", &block.to_string()])
            .arg("--rpc-cache-dir")
            .arg(cache.path())
            .arg("--out-dir")
            .arg(out.path().join("out"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(200 + 230 * u64::from(k % 7)));
        unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
        let _ = child.wait();
        if let Ok(bytes) = std::fs::read(&file) {
            let kept: Value = serde_json::from_slice(&bytes)
                .unwrap_or_else(|e| panic!("kill {k}: the cache is not whole: {e}"));
            assert_eq!(kept["block"]["number"], block, "kill {k}");
        }
    }
    // The next run reads it (and drains the vault).
    let out = tempfile::tempdir().unwrap();
    let r = run(
        config(Some(&node.url), Some(block), cache.path()),
        out.path(),
    )
    .unwrap();
    assert!(drained(&r), "{:?}", r.tests);
}
