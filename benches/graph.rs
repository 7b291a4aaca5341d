//! The graph family at the size of a real project, in one run:
//! 1. indexing a generated multi-contract project of about 5,000 lines (20
//!    files; libraries, bases with modifiers, external calls, nested guards):
//!    loading its artifact, building the graph, and `graph_index_project`
//!    over every file through the whole tool path;
//! 2. `graph_context_for_files` latency (p50/p99, files and functions) with
//!    the campaign's worker busy on the project's last contract;
//! 3. `etg_query_similar_attempts` over 2,000 logged attempts.
//!
//! Run: `cargo bench --bench graph` (`RUDDER_BENCH_QUICK=1`: 4 files). The
//! project is compiled once with the bundled solcjs (contracts/build.sh
//! installs it) and cached under target/graph-bench/.

mod common;

use rudder::artifacts::Project;
use rudder::campaign::Campaign;
use rudder::config::Config;
use rudder::graph::CodeGraph;
use rudder::mcp::RudderServer;
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const FUNCTIONS: usize = 10;

/// One generated file: a library, a base with a modifier, and a contract
/// that calls the previous file's contract through its interface.
fn file(i: usize) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "// SPDX-License-Identifier: MIT\npragma solidity ^0.8.0;\n"
    );
    if i > 0 {
        let _ = writeln!(s, "import \"./G{}.sol\";\n", i - 1);
    }
    let _ = writeln!(
        s,
        "library L{i} {{\n    uint256 internal constant K = {};\n\n    function mix(uint256 a, uint256 b) internal pure returns (uint256) {{\n        unchecked {{\n            return (a ^ (b * K)) + (a >> 3);\n        }}\n    }}\n\n    function clamp(uint256 a, uint256 hi) internal pure returns (uint256) {{\n        if (a > hi) {{\n            return hi;\n        }}\n        return a;\n    }}\n}}\n",
        7919 * (i + 1)
    );
    let _ = writeln!(
        s,
        "contract B{i} {{\n    address public admin;\n    uint256 public count;\n\n    constructor() {{\n        admin = msg.sender;\n    }}\n\n    modifier onlyAdmin() {{\n        require(msg.sender == admin, \"admin\");\n        _;\n    }}\n\n    function bump() internal {{\n        count += 1;\n    }}\n}}\n"
    );
    let _ = writeln!(
        s,
        "interface I{i} {{\n    function poke(uint256 a) external returns (uint256);\n}}\n"
    );
    let _ = writeln!(s, "contract C{i} is B{i}, I{i} {{");
    let _ = writeln!(
        s,
        "    uint256 public constant LIMIT = {};\n    uint256 public s0;\n    uint256 public s1;\n    uint256 public s2;\n    uint256 public s3;\n    mapping(address => uint256) public credit;\n    I{} public prev;\n    event Hit(uint256 k, uint256 t);\n",
        1000 + i,
        i.saturating_sub(1)
    );
    for k in 0..FUNCTIONS {
        let _ = writeln!(
            s,
            "    function f{k}(uint256 a, uint16 b, address who) public {{\n        uint256 t = L{i}.mix(a, {k});\n        if (t % {m} == {r} && b > LIMIT) {{\n            require(who != address(0), \"zero\");\n            s{x} += L{i}.clamp(t, 1e30);\n            credit[who] += {k};\n            emit Hit({k}, t);\n            if (keccak256(abi.encode(a, b)) == bytes32(uint256({k}))) {{\n                s0 = 0;\n            }}\n        }} else if (a < {c}) {{\n            s{y} = helper{h}(a);\n        }}\n        bump();\n    }}\n",
            m = 7 + k,
            r = k % 5,
            x = k % 4,
            c = 100 * (k + 1),
            y = (k + 1) % 4,
            h = k % 3
        );
    }
    for h in 0..3 {
        let _ = writeln!(
            s,
            "    function helper{h}(uint256 a) internal view returns (uint256) {{\n        if (a == s{h} + {h}) {{\n            return a * 2;\n        }}\n        return a + count;\n    }}\n"
        );
    }
    let _ = writeln!(
        s,
        "    function poke(uint256 a) external returns (uint256) {{\n        s0 = a;\n        return a + 1;\n    }}\n\n    function forward(uint256 a) public onlyAdmin {{\n        if (address(prev) != address(0)) {{\n            s1 = prev.poke(a);\n        }}\n    }}\n\n    function setPrev(address p) public onlyAdmin {{\n        prev = I{}(p);\n    }}\n\n    function echidna_bounded() public view returns (bool) {{\n        return s3 < 1e40;\n    }}\n}}",
        i.saturating_sub(1)
    );
    s
}

/// The standard-JSON output of the generated project (compiled once).
fn project(files: usize) -> Option<PathBuf> {
    let dir = PathBuf::from(format!("target/graph-bench/{files}"));
    let out = dir.join("out.json");
    if out.is_file() {
        return Some(out);
    }
    let solc = Path::new("contracts/.tools/node_modules/solc");
    if !solc.join("package.json").is_file() {
        println!("SKIPPED: no solcjs in contracts/.tools (run contracts/build.sh)");
        return None;
    }
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let mut sources = serde_json::Map::new();
    let mut lines = 0;
    for i in 0..files {
        let text = file(i);
        lines += text.lines().count();
        let path = format!("{}/src/G{i}.sol", dir.display());
        std::fs::write(&path, &text).unwrap();
        sources.insert(path, json!({ "content": text }));
    }
    println!("generated {files} files, {lines} lines; compiling with solcjs…");
    let input = json!({
        "language": "Solidity",
        "sources": sources,
        "settings": {
            "optimizer": { "enabled": false },
            "evmVersion": "cancun",
            "outputSelection": { "*": { "": ["ast"], "*": ["abi", "evm.bytecode.object", "evm.bytecode.sourceMap", "evm.bytecode.linkReferences", "evm.deployedBytecode.object", "evm.deployedBytecode.sourceMap"] } }
        }
    });
    let script = format!(
        "const s=require('{}');let d='';process.stdin.on('data',c=>d+=c);process.stdin.on('end',()=>process.stdout.write(s.compile(d,{{import:p=>({{contents:require('fs').readFileSync(p,'utf8')}})}})));",
        std::fs::canonicalize(solc).unwrap().display()
    );
    let mut child = std::process::Command::new("node")
        .arg("-e")
        .arg(script)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("node");
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.to_string().as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    let v: Value = serde_json::from_slice(&o.stdout).expect("solc output");
    let errors: Vec<&Value> = v["errors"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|e| e["severity"] == "error")
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    std::fs::write(&out, o.stdout).unwrap();
    Some(out)
}

fn main() {
    let quick = common::quick();
    let files = if quick { 4 } else { 20 };
    let Some(artifact) = project(files) else {
        return;
    };
    let rt = common::runtime(2);

    // 1. Indexing.
    let t = Instant::now();
    let p = Project::load(&artifact).unwrap();
    let load = t.elapsed();
    let lines: usize = p
        .sources
        .iter()
        .filter_map(|s| s.text.as_ref())
        .map(|t| t.lines().count())
        .sum();
    let mut builds = Vec::new();
    let mut g = CodeGraph::default();
    for _ in 0..5 {
        let t = Instant::now();
        let sources: Vec<_> = p.sources.iter().map(|s| (&p, s, true)).collect();
        g = CodeGraph::build(&sources);
        builds.push(t.elapsed().as_nanos() as u64);
    }
    let edges = g.edges().len();
    let decisions: usize = g.functions.iter().map(|f| f.decisions.len()).sum();

    let dir = tempfile::tempdir().unwrap();
    let mut c = Campaign::new(
        &artifact,
        Some(&format!("C{}", files - 1)),
        Config {
            workers: Some(1),
            seed: Some(1),
            test_limit: u64::MAX,
            timeout: Some(std::time::Duration::from_secs(600)),
            ..Config::default()
        },
        Some(dir.path().to_path_buf()),
    )
    .unwrap();
    c.start().unwrap();
    let server = RudderServer::new(c.control());
    let root = std::env::current_dir().unwrap().display().to_string();
    let paths: Vec<String> = p.sources.iter().map(|s| s.path.clone()).collect();
    let call = |name: &str, args: Value| {
        let Value::Object(m) = args else {
            unreachable!()
        };
        let t = Instant::now();
        let r = rt.block_on(server.run_tool(name, Some(m)));
        let ns = t.elapsed().as_nanos() as u64;
        assert_ne!(r.is_error, Some(true), "{name}: {:?}", r.structured_content);
        (ns, r.structured_content.unwrap())
    };
    let (index_tool, v) = call(
        "graph_index_project",
        json!({ "project_root": root, "files": paths }),
    );
    assert_eq!(v["indexed_files"].as_array().unwrap().len(), files);
    // Again, the graph built: what a later call costs.
    let (index_again, _) = call(
        "graph_index_project",
        json!({ "project_root": root, "files": paths }),
    );
    std::thread::sleep(Duration::from_secs(if quick { 1 } else { 3 }));

    // 2. Context queries with the worker busy.
    let n = if quick { 50 } else { 500 };
    let mut by_file = Vec::new();
    let mut by_fn = Vec::new();
    let mut gaps = 0;
    for i in 0..n {
        let f = &paths[i % paths.len()];
        let (ns, v) = call(
            "graph_context_for_files",
            json!({ "project_root": root, "files": [f] }),
        );
        gaps = gaps.max(v["contexts"][0]["gaps"].as_array().unwrap().len());
        by_file.push(ns);
        let func = format!("C{}.f{}", i % files, i % FUNCTIONS);
        let (ns, _) = call(
            "graph_context_for_files",
            json!({ "project_root": root, "files": [func], "max_tokens": 512 }),
        );
        by_fn.push(ns);
    }

    // 3. Similar attempts over many logged ones.
    let attempts = if quick { 200 } else { 2_000 };
    for a in 0..attempts {
        c.families().etg.log(
            &format!("a{a}"),
            rudder::graph::etg::EtgKind::ToolStart,
            a as u64,
            json!({ "tool": "inject_transaction", "arguments": { "sequence": [format!("f{}({}, {}, 0x00000000000000000000000000000000000000{:02x})", a % FUNCTIONS, a, a % 2000, a % 256)] } }),
            false,
            None,
        );
        c.families().etg.log(
            &format!("a{a}"),
            rudder::graph::etg::EtgKind::Checkpoint,
            a as u64,
            json!({ "message": format!("guard of f{} in G{}.sol:{}", a % FUNCTIONS, a % files, 40 + a % 200) }),
            false,
            None,
        );
    }
    let mut similar = Vec::new();
    for i in 0..n.min(200) {
        let (ns, v) = call(
            "etg_query_similar_attempts",
            json!({ "query": format!("f{}(5, 1200, 0x00000000000000000000000000000000000000aa) guard of f{} in G{}.sol", i % FUNCTIONS, i % FUNCTIONS, i % files) }),
        );
        assert!(!v["matches"].as_array().unwrap().is_empty());
        similar.push(ns);
    }
    let cov = c.families().graph.coverage();
    let graph = c.families().graph.graph();
    let live_file = graph
        .files
        .iter()
        .find(|f| f.path.ends_with(&format!("G{}.sol", files - 1)))
        .unwrap();
    let (mut mapped, mut total) = (0, 0);
    for f in graph.functions.iter().filter(|f| f.file == live_file.path) {
        for d in &f.decisions {
            total += 1;
            mapped += cov.decision(live_file.source_id, d).mapped as usize;
        }
    }
    let all_gaps = c.families().graph.gaps();
    c.stop();
    let calls = c.read().stats().calls();
    let report = c.wait();
    let _ = report;

    let p = |v: &mut Vec<u64>, q| common::fmt_ns(common::percentile(v, q));
    println!("\n== graph family: {files} files, {lines} lines ==");
    println!(
        "graph: {} contracts, {} functions, {} state variables, {decisions} decisions, {edges} edges",
        g.contracts.len(),
        g.functions.len(),
        g.state_vars.len()
    );
    println!(
        "load artifact (JSON + AST):      {}",
        common::fmt_ns(load.as_nanos() as u64)
    );
    println!("build graph (median of 5):       {}", p(&mut builds, 50.0));
    println!(
        "graph_index_project (all files): first call {} (waits for the startup build), again {}",
        common::fmt_ns(index_tool),
        common::fmt_ns(index_again)
    );
    println!(
        "index total (load + build):      {}",
        common::fmt_ns(load.as_nanos() as u64 + common::percentile(&mut builds, 50.0))
    );
    println!(
        "graph_context_for_files (file, {n} calls, up to {gaps} gaps): p50 {} p99 {}",
        p(&mut by_file, 50.0),
        p(&mut by_file, 99.0)
    );
    println!(
        "graph_context_for_files (function): p50 {} p99 {}",
        p(&mut by_fn, 50.0),
        p(&mut by_fn, 99.0)
    );
    println!(
        "etg_query_similar_attempts ({attempts} attempts): p50 {} p99 {}",
        p(&mut similar, 50.0),
        p(&mut similar, 99.0)
    );
    println!("worker calls meanwhile: {calls}");
    println!(
        "deployed file: {mapped}/{total} decisions tied to JUMPIs; {} gaps left: {:?}",
        all_gaps.len(),
        all_gaps
            .iter()
            .take(3)
            .map(|g| format!(
                "{}:{} {} {}",
                g.file,
                g.line,
                g.condition,
                g.missing.as_str()
            ))
            .collect::<Vec<_>>()
    );
}
