//! The `rudder` command line: a thin layer over the library.

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand, ValueEnum};
use rudder::campaign::{Campaign, Report};
use rudder::config::Config;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Parser)]
#[command(
    name = "rudder",
    version,
    about = "Smart-contract fuzzing with an MCP control plane"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a fuzzing campaign and print the report.
    Fuzz(FuzzArgs),
    /// Run a campaign and serve its MCP control plane over stdio (for agents
    /// that launch rudder). The report goes to stderr when the client leaves.
    Mcp(FuzzArgs),
    /// Write the HTML report of a past run from its output folder: the run's
    /// corpus and reproducers replayed for coverage and sequences, its
    /// figures and charts read from its journal. Fuzzes nothing.
    Report(ReportArgs),
    /// Move a corpus between fuzzers (`rudder corpus export --format
    /// echidna|medusa DIR`). Reading another fuzzer's corpus needs no
    /// command: `--corpus-dir` replays Echidna's and Medusa's files as it
    /// finds them.
    Corpus {
        #[command(subcommand)]
        action: CorpusCommand,
    },
}

#[derive(Subcommand)]
enum CorpusCommand {
    /// Write a corpus directory's entries and reproducers in another
    /// fuzzer's layout, for that fuzzer to resume from. Reads only the
    /// corpus directory (no target needed); changes nothing in it.
    Export(ExportArgs),
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum ExportFormat {
    /// Echidna's corpusDir: coverage/HASH.txt, reproducers/HASH.txt.
    Echidna,
    /// Medusa's corpus directory: call_sequences/mutable/HASH.json,
    /// test_results/HASH.json.
    Medusa,
}

#[derive(Args)]
struct ExportArgs {
    /// Where to write (created if missing): the other fuzzer's corpus directory.
    dest: PathBuf,
    #[arg(long, value_enum)]
    format: ExportFormat,
    /// The run's output directory (its corpus is OUT_DIR/corpus).
    #[arg(long, required_unless_present = "corpus_dir")]
    out_dir: Option<PathBuf>,
    /// The corpus directory to export (default: OUT_DIR/corpus).
    #[arg(long)]
    corpus_dir: Option<PathBuf>,
    /// The YAML config the other fuzzer runs with: its `testMaxGas` is each
    /// call's gas, its `contractAddr` (Echidna) or the first address its
    /// `deployer` creates (Medusa) where calls to the target go.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Where calls to the target go in the other fuzzer (overrides the
    /// config's).
    #[arg(long, value_name = "ADDRESS")]
    target_address: Option<alloy_primitives::Address>,
}

#[derive(Args)]
struct ReportArgs {
    /// The target the run fuzzed (as given to `rudder fuzz`).
    target: PathBuf,
    /// The contract the run fuzzed (default: the one defined last in the file).
    #[arg(long)]
    contract: Option<String>,
    /// The run's YAML config (its senders, filters and deployment shape the
    /// replay; its test mode and sequence length are read from the journal).
    #[arg(long)]
    config: Option<PathBuf>,
    /// The run's output directory (its corpus is OUT_DIR/corpus).
    #[arg(long, required_unless_present = "corpus_dir")]
    out_dir: Option<PathBuf>,
    /// The run's corpus directory (default: OUT_DIR/corpus).
    #[arg(long)]
    corpus_dir: Option<PathBuf>,
    /// The run to report, by its id (default: the journal's latest run).
    #[arg(long, value_name = "RUN_ID")]
    run: Option<String>,
    /// Where to write the report (DIR/index.html).
    #[arg(long, value_name = "DIR")]
    html: PathBuf,
    /// Also write the LCOV of the replayed corpus here.
    #[arg(long)]
    lcov: Option<PathBuf>,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum Format {
    Text,
    Json,
    /// JUnit XML: a testsuite for the target, a testcase per test, a
    /// failure (reason and shrunk sequence) per falsified test.
    Junit,
    /// The text report, then a GitHub Actions `::error` annotation per
    /// falsified test at its source line.
    Github,
}

#[derive(Args, Clone)]
struct FuzzArgs {
    /// The target: a .sol file, solc standard-JSON output, a build-info file
    /// (Foundry's or Hardhat's), a Foundry project or its out/ directory, or a
    /// Hardhat project or its artifacts/ directory (default: a medusa.json
    /// config's compilation target).
    #[arg(required_unless_present = "config")]
    target: Option<PathBuf>,
    /// The contract to fuzz (default: the one defined last in the file; the last with a test-prefixed function when another has none).
    #[arg(long)]
    contract: Option<String>,
    /// Echidna-compatible YAML config.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Worker threads (default: available cores).
    #[arg(long)]
    workers: Option<usize>,
    /// The run's seed (default: random, printed in the report); with one
    /// worker the same seed replays the same run.
    #[arg(long)]
    seed: Option<u64>,
    /// Total calls before the campaign ends (default 50000; with none
    /// given, under `rudder mcp`, --keep-alive or --timeout: until stopped
    /// or the timeout).
    #[arg(long)]
    test_limit: Option<u64>,
    /// Calls per sequence.
    #[arg(long)]
    seq_len: Option<usize>,
    /// property, assertion, overflow, optimization, exploration or foundry.
    #[arg(long)]
    test_mode: Option<String>,
    /// Stop after this long: seconds (30, 0.5) or with a unit (90s, 5m, 1.5h).
    #[arg(long, value_parser = rudder::config::parse_duration)]
    timeout: Option<std::time::Duration>,
    /// Where corpus entries and reproducers are kept (default: OUT_DIR/corpus).
    #[arg(long)]
    corpus_dir: Option<PathBuf>,
    /// Output directory (journal, corpus, LCOV) (default: rudder-out/CONTRACT).
    #[arg(long)]
    out_dir: Option<PathBuf>,
    /// Write each falsified test here at the end as a Foundry test
    /// (`forge test` replays it and fails).
    #[arg(long)]
    repro_dir: Option<PathBuf>,
    /// The compiler for a .sol target: a solc binary, or an npm solc
    /// package folder (default: RUDDER_SOLC, else the first found that the
    /// sources' pragmas allow: ./node_modules/solc, solc, solcjs).
    #[arg(long)]
    solc: Option<PathBuf>,
    /// How workers share the CPU: normal (a fair share beside other
    /// programs; the default) or low (behind everything else).
    #[arg(long)]
    worker_priority: Option<String>,
    /// Whether a property, optimization or spec check is skipped while
    /// nothing it read changed: on (the default), off (every check after
    /// every call), or verify (every check, comparing each skip).
    #[arg(long)]
    check_cache: Option<String>,
    /// Fork mode: run on this RPC node's chain state (reads accounts, code
    /// and storage as calls touch them; `rpcUrl` in the config; else
    /// ECHIDNA_RPC_URL).
    #[arg(long, value_name = "URL")]
    fork_url: Option<String>,
    /// The block to fork at (default: the node's latest, pinned at start;
    /// `rpcBlock`; else ECHIDNA_RPC_BLOCK).
    #[arg(long, value_name = "N")]
    fork_block_number: Option<u64>,
    /// Where fork state read from the node is kept between runs (default:
    /// the user's cache directory, rudder/rpc; `rpcCacheDir`).
    #[arg(long, value_name = "DIR")]
    rpc_cache_dir: Option<PathBuf>,
    /// Write LCOV here at the end.
    #[arg(long)]
    lcov: Option<PathBuf>,
    /// Write JSON here at the end: when each source line was first reached
    /// and each test falsified, in seconds since the start (time-to-coverage).
    #[arg(long, value_name = "FILE")]
    timeline: Option<PathBuf>,
    /// Write a self-contained HTML report (DIR/index.html) at the end:
    /// sources with covered and uncovered lines and branches, every test
    /// with its shrunk sequence replayed call by call, charts over time.
    #[arg(long, value_name = "DIR")]
    report_html: Option<PathBuf>,
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// Show the live dashboard (the default when stdout is a terminal and
    /// --format is text): workers, tests, the falsified sequences, coverage
    /// over time, events and the agent's commands; q stops the campaign.
    #[arg(long, conflicts_with = "no_ui")]
    ui: bool,
    /// Print a progress line instead of the dashboard.
    #[arg(long)]
    no_ui: bool,
    /// Replay a command log (mcp-commands.jsonl) into the new campaign.
    #[arg(long)]
    replay_commands: Option<PathBuf>,
    /// Serve MCP over streamable HTTP at http://ADDR/mcp (loopback only
    /// unless --mcp-allow-remote) while the campaign runs.
    #[arg(long, num_args = 0..=1, default_missing_value = rudder::mcp::transport::DEFAULT_HTTP_ADDR)]
    mcp_http: Option<std::net::SocketAddr>,
    /// Allow a non-loopback --mcp-http address (requires --mcp-token).
    #[arg(long)]
    mcp_allow_remote: bool,
    /// Bearer token HTTP clients must send (Authorization: Bearer TOKEN).
    #[arg(long, env = "RUDDER_MCP_TOKEN")]
    mcp_token: Option<String>,
    /// Open MCP HTTP sessions at most; more are refused with 503.
    #[arg(long, default_value_t = rudder::mcp::transport::DEFAULT_MAX_SESSIONS)]
    mcp_max_sessions: usize,
    /// Close an MCP HTTP session idle for this many seconds.
    #[arg(long, default_value_t = rudder::mcp::transport::DEFAULT_SESSION_IDLE.as_secs())]
    mcp_session_idle: u64,
    /// Keep workers alive after the test limit, serving injections, until
    /// stopped (Ctrl-C) or the timeout.
    #[arg(long)]
    keep_alive: bool,
    /// Keep no SQLite journal ({corpusDir}/journal.sqlite); the events
    /// family then has nothing to answer from.
    #[arg(long)]
    no_journal: bool,
    /// Keep no traces (executed sequences) in the journal; the traces
    /// family then has nothing to answer from.
    #[arg(long)]
    no_traces: bool,
    /// Advertise each tool's output schema in tools/list (for clients that
    /// validate answers or generate types; it more than doubles the list an
    /// agent loads).
    #[arg(long)]
    output_schemas: bool,
    /// Share the campaign with other nodes through object storage:
    /// s3://BUCKET/PREFIX (credentials, region and endpoint from the AWS_*
    /// variables) or file:///PATH (a folder every node sees).
    #[arg(long, value_name = "URL")]
    shared: Option<String>,
    /// This node's name in the shared campaign (default: the name it had
    /// in this corpus directory, else node-$JOB_COMPLETION_INDEX, else
    /// hostname-pid).
    #[arg(long, value_name = "ID")]
    node_id: Option<String>,
    /// How often the node syncs with the shared store, in milliseconds.
    #[arg(long, value_name = "MS")]
    shared_sync_ms: Option<u64>,
    /// Batches written by the nodes since the last compacted generation
    /// before the next is written (0: never compact; default 1000).
    #[arg(long, value_name = "BATCHES")]
    shared_compact_after: Option<u64>,
    /// Keep hunting a test another node of the shared campaign falsified
    /// (default: take its reproducer and stop checking the test).
    #[arg(long)]
    keep_hunting: bool,
    /// The MCP tool families to serve, comma-separated: campaign, events,
    /// traces, graph, ops, or all.
    #[arg(long, default_value = "all", value_parser = parse_families)]
    tools: Families,
}

#[derive(Clone)]
struct Families(Vec<rudder::mcp::FamilyName>);

fn parse_families(s: &str) -> Result<Families, String> {
    rudder::mcp::FamilyName::parse_list(s).map(Families)
}

/// The YAML config at `path`, or the defaults.
fn yaml_config(path: Option<&PathBuf>) -> Result<Config, String> {
    let Some(p) = path else {
        return Ok(Config::default());
    };
    let (c, warnings) = Config::from_yaml_file(p).map_err(|e| e.to_string())?;
    for w in warnings {
        tracing::warn!("{w}");
    }
    Ok(c)
}

/// Limits are checked once, by the library; here the key is named as a flag.
fn validate(config: &Config) -> Result<(), String> {
    config.validate().map_err(|e| match e {
        rudder::config::ConfigError::Key { key, message } => {
            format!("{}: {message}", rudder::config::flag_of(&key))
        }
        other => other.to_string(),
    })
}

fn load_config(a: &FuzzArgs) -> Result<Config, String> {
    let mut config = yaml_config(a.config.as_ref())?;
    if let Some(w) = a.workers {
        config.workers = Some(w);
    }
    if let Some(s) = a.seed {
        config.seed = Some(s);
    }
    if let Some(n) = a.test_limit {
        config.test_limit = n;
        config.limit_given = true;
    }
    if let Some(n) = a.seq_len {
        config.seq_len = n;
        config.seq_len_given = true;
    }
    if let Some(m) = &a.test_mode {
        config.test_mode = rudder::config::TestMode::parse(m).ok_or_else(|| {
            format!("--test-mode: expected property, assertion, overflow, optimization, exploration or foundry, found {m:?}")
        })?;
    }
    if let Some(t) = a.timeout {
        config.timeout = Some(t);
    }
    if let Some(d) = &a.corpus_dir {
        config.corpus_dir = Some(d.clone());
    }
    if let Some(p) = &a.worker_priority {
        config.worker_priority = rudder::config::WorkerPriority::parse(p)
            .ok_or_else(|| format!("--worker-priority: expected normal or low, found {p:?}"))?;
    }
    if let Some(m) = &a.check_cache {
        config.check_cache = rudder::config::CheckCacheMode::parse(m).ok_or_else(|| {
            format!(
                "--check-cache: expected {}, found {m:?}",
                rudder::config::CheckCacheMode::CHOICES
            )
        })?;
    }
    if let Some(d) = &a.repro_dir {
        config.repro_dir = Some(d.clone());
    }
    if let Some(p) = &a.solc {
        config.solc = Some(p.clone());
    }
    // Fork mode: a flag, else the config, else Echidna's variables.
    if let Some(u) = a
        .fork_url
        .clone()
        .or_else(|| {
            std::env::var("ECHIDNA_RPC_URL")
                .ok()
                .filter(|_| config.rpc_url.is_none())
        })
        .filter(|u| !u.is_empty())
    {
        config.rpc_url = Some(u);
    }
    if let Some(b) = a.fork_block_number {
        config.rpc_block = Some(b);
    } else if config.rpc_block.is_none()
        && let Ok(b) = std::env::var("ECHIDNA_RPC_BLOCK")
        && !b.is_empty()
    {
        config.rpc_block = Some(
            b.trim()
                .parse()
                .map_err(|_| format!("ECHIDNA_RPC_BLOCK: expected a block number, found {b:?}"))?,
        );
    }
    if let Some(d) = &a.rpc_cache_dir {
        config.rpc_cache_dir = Some(d.clone());
    }
    config.keep_alive = a.keep_alive;
    config.lock_out_dir = true;
    config.require_tests = true;
    // An agent's campaign (`rudder mcp`, `--keep-alive`) given no limit
    // fuzzes until its client leaves or it is signalled: the agent steers a
    // running campaign, not one that ended before it connected.
    if a.keep_alive && a.test_limit.is_none() && !config.limit_given {
        config.test_limit = rudder::config::UNLIMITED;
    }
    // `--timeout` alone is a budget in time: the run is not cut at the
    // default 50,000 calls a second in (a config file's `timeout` keeps
    // Echidna's meaning, both limits).
    if a.timeout.is_some() && !config.limit_given {
        config.test_limit = rudder::config::UNLIMITED;
    }
    if let Some(u) = &a.shared {
        config.shared = Some(u.clone());
    }
    if let Some(n) = &a.node_id {
        config.node_id = Some(n.clone());
    }
    if let Some(ms) = a.shared_sync_ms {
        config.shared_sync_ms = ms;
    }
    if let Some(n) = a.shared_compact_after {
        config.shared_compact_after = n;
    }
    if a.keep_hunting {
        config.keep_hunting = true;
    }
    if a.no_journal {
        config.journal = false;
    }
    if a.no_traces {
        config.traces = false;
    }
    validate(&config)?;
    if let Some(w) = config.workers {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        if w > cores {
            tracing::warn!(
                "--workers {w} is more than the {cores} cores here: workers will share cores"
            );
        }
    }
    Ok(config)
}

fn progress_line(c: &Campaign) -> String {
    let s = c.read();
    let calls = s.stats().calls();
    let secs = s.elapsed().as_secs_f64().max(1e-3);
    // Shrinking replays are not calls of the campaign: say so, or a long
    // shrink reads as a stall.
    let (shrinking, replays) = s
        .tests()
        .cases()
        .filter_map(|c| s.tests().falsified(c.id))
        .filter(|f| !f.shrink_done)
        .fold((0, 0), |(n, r), f| (n + 1, r + f.shrink_steps));
    let shrinking = if shrinking > 0 {
        format!(" ({shrinking} shrinking, {replays} replays so far)")
    } else {
        String::new()
    };
    format!(
        "calls {calls} ({:.0}/s) | coverage {} points | corpus {} | tests {} open, {} falsified{shrinking}",
        calls as f64 / secs,
        s.target().coverage.points(),
        s.corpus().len(),
        s.tests().len() - s.tests().falsified_count(),
        s.tests().falsified_count()
    )
}

/// Loads the config, builds and starts the campaign, starts the MCP runtime
/// (with Ctrl-C stopping the campaign) and replays `--replay-commands`.
/// `None`: a usage error was printed (exit code 2).
fn launch(a: &FuzzArgs) -> Result<Option<(Campaign, tokio::runtime::Runtime)>> {
    let usage = |e: &dyn std::fmt::Display| {
        eprintln!("error: {e}");
        Ok(None)
    };
    let config = match load_config(a) {
        Ok(c) => c,
        Err(e) => return usage(&e),
    };
    let Some(target) = a
        .target
        .clone()
        .or_else(|| config.compilation_target.clone())
    else {
        return usage(
            &"no target: give one (a .sol file, a build, a Foundry or Hardhat project), or a \
              medusa.json whose compilation.platformConfig.target names it",
        );
    };
    let mut campaign =
        match Campaign::new(&target, a.contract.as_deref(), config, a.out_dir.clone()) {
            Ok(c) => c,
            Err(e) => return usage(&e),
        };
    campaign.start().context("starting workers")?;
    for w in &campaign.warnings {
        tracing::warn!("{w}");
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .thread_name("rudder-mcp")
        .build()
        .context("starting the MCP runtime")?;
    let stop = campaign.control();
    runtime.spawn(async move {
        if signalled().await {
            stop.stop_because(rudder::campaign::EndReason::Signal);
        }
    });
    if let Some(log) = &a.replay_commands {
        match campaign.control().replay_commands(log) {
            Ok(n) => tracing::info!("replayed {n} commands from {}", log.display()),
            Err(e) => {
                campaign.stop();
                return usage(&format!("--replay-commands: {e}"));
            }
        }
    }
    Ok(Some((campaign, runtime)))
}

/// Resolves at the first SIGINT or SIGTERM (false if neither can be
/// listened for).
async fn signalled() -> bool {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let Ok(mut term) = signal(SignalKind::terminate()) else {
            return tokio::signal::ctrl_c().await.is_ok();
        };
        tokio::select! {
            r = tokio::signal::ctrl_c() => r.is_ok(),
            _ = term.recv() => true,
        }
    }
    #[cfg(not(unix))]
    {
        tokio::signal::ctrl_c().await.is_ok()
    }
}

fn fuzz(a: FuzzArgs) -> Result<i32> {
    let http = a.mcp_http.map(|addr| rudder::mcp::transport::HttpOptions {
        addr,
        token: a.mcp_token.clone(),
        allow_remote: a.mcp_allow_remote,
        max_sessions: a.mcp_max_sessions,
        session_idle: Duration::from_secs(a.mcp_session_idle.max(1)),
    });
    if let Some(Err(e)) = http.as_ref().map(|o| o.validate()) {
        eprintln!("error: {e}");
        return Ok(2);
    }
    let Some((campaign, runtime)) = launch(&a)? else {
        return Ok(2);
    };
    if let Some(opts) = http {
        let server = rudder::mcp::RudderServer::with_families(campaign.control(), &a.tools.0)
            .with_output_schemas(a.output_schemas);
        match runtime.block_on(rudder::mcp::transport::serve_http(server, opts)) {
            Ok((bound, _task)) => eprintln!("MCP (streamable HTTP) at http://{bound}/mcp"),
            Err(e) => {
                campaign.stop();
                eprintln!("error: {e}");
                return Ok(2);
            }
        }
    }
    let dashboard =
        a.ui || (!a.no_ui && a.format == Format::Text && std::io::stdout().is_terminal());
    if dashboard {
        let read = campaign.control().read();
        let control = campaign.control();
        // After the end the last frame stays until q, as people read it;
        // without a keyboard there is no one to press q.
        let linger = std::io::stdin().is_terminal();
        rudder::view::dashboard::run(&read, linger, || {
            control.stop_because(rudder::campaign::EndReason::Stopped)
        })
        .context("running the dashboard")?;
        return report_and_exit(campaign, &a);
    }
    let tty = std::io::stderr().is_terminal();
    let bar = tty.then(|| {
        let b = indicatif::ProgressBar::new_spinner();
        b.enable_steady_tick(Duration::from_millis(200));
        b
    });
    let mut last_line = std::time::Instant::now();
    while !campaign.is_finished() {
        std::thread::sleep(Duration::from_millis(10));
        if let Some(b) = &bar {
            b.set_message(progress_line(&campaign));
        } else if last_line.elapsed() >= Duration::from_secs(5) {
            eprintln!("{}", progress_line(&campaign));
            last_line = std::time::Instant::now();
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    report_and_exit(campaign, &a)
}

/// Finishes the campaign, prints its report; the exit code.
fn report_and_exit(campaign: Campaign, a: &FuzzArgs) -> Result<i32> {
    let read = campaign.read();
    let report = finish(campaign, a)?;
    print!("{}", render(&report, &read, a.format)?);
    Ok(if report.any_falsified() { 1 } else { 0 })
}

/// The report in the format asked for.
fn render(report: &Report, read: &rudder::campaign::CampaignRead, f: Format) -> Result<String> {
    use rudder::view::ci;
    Ok(match f {
        Format::Text => report.text(),
        Format::Json => serde_json::to_string_pretty(report)? + "\n",
        Format::Junit => ci::junit(report, &ci::locations(read)),
        Format::Github => ci::github(report, &ci::locations(read)),
    })
}

/// Waits for the campaign's end and writes its LCOV and HTML report when
/// asked.
fn finish(campaign: rudder::Campaign, a: &FuzzArgs) -> Result<Report> {
    let read = campaign.control().read();
    // `coverageFormats: [html]`: the HTML report as covered.RUN.html.
    let html_coverage = (campaign.read().config().coverage_formats.iter())
        .any(|f| f == "html")
        .then(|| {
            let dir = campaign.coverage_report_dir();
            campaign.read().layout().coverage_report(&dir, "html")
        });
    let mut report: Report = campaign.wait();
    if let Some(path) = html_coverage {
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        let html = rudder::view::html::render(&read, deadline).html;
        rudder::campaign::persist::write_atomic(&path, html.as_bytes())
            .with_context(|| format!("writing the HTML coverage report to {}", path.display()))?;
    }
    if let Some(path) = &a.lcov {
        let text = read.coverage_report().lcov_text();
        rudder::campaign::persist::write_atomic(path, text.as_bytes())
            .with_context(|| format!("writing LCOV to {}", path.display()))?;
        report.lcov = Some(path.display().to_string());
    }
    if let Some(path) = &a.timeline {
        let timeline = rudder::view::timeline::Timeline::of(&report, &read.coverage_report());
        let json = serde_json::to_vec_pretty(&timeline).expect("a timeline serialises");
        rudder::campaign::persist::write_atomic(path, &json)
            .with_context(|| format!("writing the timeline to {}", path.display()))?;
    }
    if let Some(dir) = &a.report_html {
        // Replaying the falsified sequences is quick; the bound only keeps a
        // pathological target from holding the exit.
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        let (path, _) = rudder::view::html::write(&read, dir, deadline)
            .with_context(|| format!("writing the HTML report to {}", dir.display()))?;
        report.html = Some(path.display().to_string());
    }
    Ok(report)
}

/// `rudder report`: replays the run's corpus and reproducers (one worker, no
/// fuzzing, nothing journaled) and writes the HTML report with the run's
/// figures and charts from its journal.
fn past_report(a: ReportArgs) -> Result<i32> {
    let usage = |e: &dyn std::fmt::Display| {
        eprintln!("error: {e}");
        Ok(2)
    };
    use rudder::campaign::persist::Layout;
    use rudder::view::html::{HtmlError, load_history};
    let corpus_dir = match (&a.corpus_dir, &a.out_dir) {
        (Some(d), _) => d.clone(),
        (None, Some(out)) => Layout::default_corpus_dir(out),
        (None, None) => return usage(&"--out-dir: the run's output directory is needed"),
    };
    // The journal first: a run that is not there is an error before any work.
    let history = match load_history(&Layout::journal_db_in(&corpus_dir), a.run.as_deref()) {
        Ok(h) => h,
        Err(e) => {
            let flag = match (&e, &a.corpus_dir) {
                (HtmlError::NoRun { .. }, _) => "--run",
                (_, Some(_)) => "--corpus-dir",
                (_, None) => "--out-dir",
            };
            return usage(&format!("{flag}: {e}"));
        }
    };
    let mut config = match yaml_config(a.config.as_ref()) {
        Ok(c) => c,
        Err(e) => return usage(&e),
    };
    // The run's own mode and sequence length, as its journal kept them: a
    // replay in another mode would not see what the run found.
    if let Some(s) = &history.settings {
        if let Some(mode) = rudder::config::TestMode::parse(&s.test_mode) {
            config.test_mode = mode;
        }
        config.seq_len = s.seq_len;
        config.seq_len_given = true;
    }
    // A replay: what the run found, re-run once; nothing new is looked for,
    // journaled or shared, and the run's folder is only read (the replay's
    // own event log goes to a scratch folder).
    config.test_limit = 0;
    config.limit_given = true;
    config.workers = Some(1);
    config.timeout = None;
    config.keep_alive = false;
    config.journal = false;
    config.traces = false;
    config.shared = None;
    config.repro_dir = None;
    // Nothing written into the run's folder: no LCOV beside its corpus, no
    // optimum shrunk further and saved over the run's.
    config.coverage_formats.clear();
    config.shrink_limit = 0;
    config.corpus_dir = Some(corpus_dir);
    if let Err(e) = validate(&config) {
        return usage(&e);
    }
    let scratch = std::env::temp_dir().join(format!("rudder-report-{}", std::process::id()));
    let campaign = Campaign::new(
        &a.target,
        a.contract.as_deref(),
        config,
        Some(scratch.clone()),
    );
    let result = match campaign {
        Ok(c) => replay_and_write(c, &a, &history),
        Err(e) => usage(&e),
    };
    let _ = std::fs::remove_dir_all(&scratch);
    result
}

/// The rest of `rudder report`, once the replay is set up.
fn replay_and_write(
    mut campaign: Campaign,
    a: &ReportArgs,
    history: &rudder::ops::rows::RunHistory,
) -> Result<i32> {
    let read = campaign.read();
    let name = &read.target().contract.name;
    if &history.contract != name {
        eprintln!(
            "error: --contract: run {} fuzzed {}, not {name}",
            history.run_id, history.contract
        );
        return Ok(2);
    }
    campaign.start().context("replaying the run's corpus")?;
    let read = campaign.control().read();
    let report = campaign.wait();
    if let Some(path) = &a.lcov {
        let text = read.coverage_report().lcov_text();
        rudder::campaign::persist::write_atomic(path, text.as_bytes())
            .with_context(|| format!("writing LCOV to {}", path.display()))?;
    }
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let (path, html) = rudder::view::html::write_of(
        &read,
        &a.html,
        deadline,
        rudder::view::html::History::Past(history),
    )
    .with_context(|| format!("writing the HTML report to {}", a.html.display()))?;
    let last = history.samples.last().copied().unwrap_or_default();
    println!(
        "{}: run {} of {} ({} calls, {} samples; {} of {} tests falsified, {} corpus sequences replayed)",
        path.display(),
        history.run_id,
        history.contract,
        last.calls,
        history.samples.len(),
        report
            .tests
            .iter()
            .filter(|t| t.status.is_falsified())
            .count(),
        html.tests,
        report.corpus_sequences,
    );
    Ok(0)
}

fn mcp_stdio(mut a: FuzzArgs) -> Result<i32> {
    if a.ui {
        eprintln!(
            "error: --ui: under `rudder mcp` stdout belongs to the MCP transport; watch the campaign with `rudder fuzz --ui --mcp-http` instead"
        );
        return Ok(2);
    }
    a.keep_alive = true;
    let Some((campaign, runtime)) = launch(&a)? else {
        return Ok(2);
    };
    let server = rudder::mcp::RudderServer::with_families(campaign.control(), &a.tools.0)
        .with_output_schemas(a.output_schemas);
    let served = runtime.block_on(rudder::mcp::transport::serve_stdio(server));
    campaign.stop_because(rudder::campaign::EndReason::ClientLeft);
    let read = campaign.read();
    let report = finish(campaign, &a)?;
    // stdout belongs to the MCP transport: the report goes to stderr, in
    // the format asked for.
    eprint!("{}", render(&report, &read, a.format)?);
    served.context("serving MCP over stdio")?;
    Ok(if report.any_falsified() { 1 } else { 0 })
}

/// `rudder corpus export`: the corpus in another fuzzer's layout.
fn export_corpus(a: ExportArgs) -> Result<i32> {
    let config = match yaml_config(a.config.as_ref()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: --config: {e}");
            return Ok(2);
        }
    };
    let corpus = (a.corpus_dir.clone())
        .or_else(|| a.out_dir.as_ref().map(|o| o.join("corpus")))
        .expect("clap requires --out-dir or --corpus-dir");
    if !corpus.is_dir() {
        eprintln!(
            "error: --corpus-dir: {} is not a directory",
            corpus.display()
        );
        return Ok(2);
    }
    // Echidna calls the target at `contractAddr`; Medusa deploys its first
    // target as the deployer's first creation.
    let (format, target) = match a.format {
        ExportFormat::Echidna => (
            rudder::campaign::corpus_dir::ExportFormat::Echidna,
            config.contract_addr,
        ),
        ExportFormat::Medusa => (
            rudder::campaign::corpus_dir::ExportFormat::Medusa,
            config.deployer.create(0),
        ),
    };
    let target = a.target_address.unwrap_or(target);
    let done =
        rudder::campaign::corpus_dir::export(&corpus, &a.dest, format, target, config.test_max_gas)
            .with_context(|| format!("writing to {}", a.dest.display()))?;
    for s in &done.skipped {
        eprintln!("skipped {}: {}", s.file, s.error);
    }
    println!(
        "wrote {} corpus sequence{} and {} reproducer{} to {}",
        done.sequences,
        if done.sequences == 1 { "" } else { "s" },
        done.reproducers,
        if done.reproducers == 1 { "" } else { "s" },
        a.dest.display()
    );
    Ok(0)
}

fn main() {
    // Colour only on a terminal, and never with NO_COLOR set (logs written
    // to a file or a pipe stay plain text).
    let colour = std::io::stderr().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(colour)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            std::process::exit(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let code = match cli.command {
        Command::Fuzz(a) => fuzz(a),
        Command::Mcp(a) => mcp_stdio(a),
        Command::Report(a) => past_report(a),
        Command::Corpus {
            action: CorpusCommand::Export(a),
        } => export_corpus(a),
    };
    match code {
        Ok(c) => std::process::exit(c),
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::exit(2);
        }
    }
}
