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
