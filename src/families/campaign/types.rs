//! The campaign tools' parameters and answers (their published JSON Schemas, exactly), with
//! rudder's additions marked as extensions.

use super::*;

/// Canonical ABI signature: a name, then types without spaces, tuples allowed.
pub const SIGNATURE_PATTERN: &str = r"^[a-zA-Z_$][a-zA-Z0-9_$]*(\([a-zA-Z0-9_,()\[\]]*\))?$";
/// A call: a name, optional `{options}`, then parenthesised arguments.
pub const CALL_PATTERN: &str = r"^\s*[a-zA-Z_$][a-zA-Z0-9_$]*\s*(\{[^}]*\})?\s*\(.*\)\s*$";
/// An address as the campaign tools' schemas write it (EIP-55 is checked on top).
pub const ADDRESS_PATTERN: &str = "^0x[0-9a-fA-F]{40}$";
/// What a value that fails one of the patterns above should have been, in
/// words, with where it went wrong (a schema's regex quoted back helps no
/// one); `None` for another pattern.
pub fn explain_pattern(pattern: &str, value: &str) -> Option<String> {
    let v = value.trim();
    let why = match pattern {
        CALL_PATTERN => {
            let hint = if v.is_empty() {
                "it is empty".to_string()
            } else if !v.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_' || c == '$') {
                format!("it must start with the function's name, not {:?}", &v[..v.chars().next().map_or(0, char::len_utf8)])
            } else if !v.contains('(') {
                "it has no argument list: add (…) after the name, () for none".to_string()
            } else if !v.ends_with(')') {
                format!("it must end with the argument list's `)`; it ends with {:?}", v.chars().last().map(String::from).unwrap_or_default())
            } else {
                "only `{from: …, value: …}` options may stand between the name and `(`".to_string()
            };
            format!("expected a call written as in Solidity, `name(arg, …)` or `name{{from: 0x…, value: …}}(arg, …)` (e.g. `transfer(0xAbC…, 100)`, `?` for any value): {hint}")
        }
        ADDRESS_PATTERN => format!(
            "expected an address, 0x and 40 hex digits; found {} characters",
            v.chars().count()
        ),
        SIGNATURE_PATTERN => "expected a function's name or its canonical signature without spaces, `name(type,…)` (e.g. `transfer(address,uint256)`)".to_string(),
        "^[0-9]+$" => "expected a decimal integer written as a string (e.g. \"1000\")".to_string(),
        _ => return None,
    };
    Some(why)
}

/// Matches listed by `find_transaction_in_corpus` (its `count` is exact).
pub const MAX_FIND_MATCHES: usize = 1000;
pub(super) fn all_event_types(_: &mut SchemaGenerator) -> Schema {
    let names: Vec<&str> = EventKind::ALL.iter().map(|k| k.as_str()).collect();
    json_schema!({ "type": "string", "enum": names })
}

// ---- read_logs ----

/// Retrieve campaign event logs from EventLog ring buffer
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReadLogsInput {
    /// Number of most recent events to retrieve
    #[serde(default = "default_count")]
    #[schemars(range(min = 1, max = DEFAULT_CAPACITY))]
    pub count: usize,
    /// Filter by event type (optional): every type read_logs returns
    #[serde(default)]
    #[schemars(schema_with = "all_event_types")]
    pub event_type: Option<String>,
    /// Filter by worker ID (optional)
    pub worker_id: Option<u32>,
}

pub(super) fn default_count() -> usize {
    100
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LogEvent {
    /// ISO 8601 timestamp
    #[schemars(extend("format" = "date-time"))]
    pub timestamp: String,
    /// Event category
    #[schemars(schema_with = "all_event_types")]
    pub event_type: &'static str,
    /// Worker that generated event
    pub worker_id: u32,
    /// Event-specific JSON payload
    #[schemars(extend("type" = "object"))]
    pub data: Value,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReadLogsOutput {
    pub events: Vec<LogEvent>,
    /// Total events in EventLog buffer
    #[schemars(range(max = DEFAULT_CAPACITY))]
    pub total_count: usize,
}

// ---- show_coverage ----

/// Retrieve line and branch coverage statistics
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShowCoverageInput {
    /// Filter by contract name (optional)
    pub contract: Option<String>,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ContractCoverage {
    pub name: String,
    #[schemars(range(min = 0, max = 100))]
    pub line_coverage: f64,
    #[schemars(range(min = 0, max = 100))]
    pub branch_coverage: f64,
    /// Executable lines of the contract's sources.
    #[schemars(extend("x-extension" = true))]
    pub lines: usize,
    #[schemars(extend("x-extension" = true))]
    pub lines_hit: usize,
    /// Branch outcomes (two per conditional jump).
    #[schemars(extend("x-extension" = true))]
    pub branches: usize,
    #[schemars(extend("x-extension" = true))]
    pub branches_hit: usize,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ShowCoverageOutput {
    pub contracts: Vec<ContractCoverage>,
    /// Weighted average across all contracts
    #[schemars(range(min = 0, max = 100))]
    pub overall_coverage: f64,
}

// ---- dump_lcov ----

/// Export coverage in LCOV format
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DumpLcovInput {
    /// Output file path (optional, defaults to stdout)
    pub output_path: Option<String>,
}

/// LCOV-formatted text is the text content; this object wraps it (lcov) or names the written file (path)
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DumpLcovOutput {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("contentMediaType" = "text/plain"))]
    pub lcov: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    pub bytes: usize,
    pub files: usize,
}

// ---- write_html_report ----

/// Write the self-contained HTML report
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WriteHtmlReportInput {
    /// Folder the report (index.html) is written to, inside the exports
    /// folder (default: `report`).
    pub output_path: Option<String>,
}

/// Where the report was written and what it shows
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WriteHtmlReportOutput {
    /// The report's index.html.
    pub path: String,
    pub bytes: usize,
    /// Source files shown.
    pub files: usize,
    pub tests: usize,
    /// Falsified tests whose shrunk sequence was replayed in full within
    /// the time budget (the others are shown as printed).
    pub replayed: usize,
}

// ---- get_corpus_size ----

/// Get transaction count in corpus (no parameters)
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetCorpusSizeInput {}

#[derive(Serialize, JsonSchema)]
pub struct GetCorpusSizeOutput {
    /// Number of transactions in corpus
    pub size: u64,
    /// Number of sequences (corpus entries) those transactions belong to.
    #[schemars(extend("x-extension" = true))]
    pub sequences: usize,
}

// ---- inspect_corpus_transactions / find_transaction_in_corpus ----

// One corpus transaction (no doc comment: it would become the items'
// description, which the seed does not have).
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TxItem {
    #[schemars(with = "i64")]
    pub index: u64,
    /// Solidity-like syntax
    pub call: String,
    pub sender: String,
    pub value: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<i64>")]
    pub gas_used: Option<u64>,
    /// The corpus entry (sequence) the transaction belongs to.
    #[schemars(extend("x-extension" = true))]
    pub entry_id: u64,
    /// Its position in that sequence.
    #[schemars(extend("x-extension" = true))]
    pub position: usize,
}

/// Paginated corpus transaction inspection
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InspectCorpusInput {
    /// Pagination offset
    #[serde(default)]
    pub offset: u64,
    /// Max transactions to return per page
    #[serde(default = "default_limit")]
    #[schemars(range(min = 1, max = 100))]
    pub limit: usize,
}

pub(super) fn default_limit() -> usize {
    20
}

#[derive(Serialize, JsonSchema)]
pub struct InspectCorpusOutput {
    pub transactions: Vec<TxItem>,
    /// Total corpus size
    #[schemars(with = "i64")]
    pub total: u64,
}

/// Search corpus for matching transactions
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(extend("anyOf" = [
    {"required": ["functionSignature"]},
    {"required": ["sender"]},
    {"required": ["minValue"]}
]))]
pub struct FindTransactionInput {
    /// Function signature (e.g., 'transfer(address,uint256)')
    pub function_signature: Option<String>,
    /// Sender address filter
    #[schemars(regex(pattern = ADDRESS_PATTERN))]
    pub sender: Option<String>,
    /// Minimum ETH value in wei
    pub min_value: Option<String>,
}

#[derive(Serialize, JsonSchema)]
pub struct FindTransactionOutput {
    pub matches: Vec<TxItem>,
    /// Number of matching transactions
    pub count: u64,
}

// ---- inject_transaction ----

/// Solidity-like function call
#[derive(Deserialize, JsonSchema)]
#[serde(transparent)]
#[schemars(extend("examples" = [
    "transfer(0x1234567890abcdef1234567890abcdef12345678, 100)",
    "approve(0xabcd..., 1000000000000000000)",
    "deposit()"
]))]
pub struct CallText(#[schemars(regex(pattern = CALL_PATTERN))] pub String);

/// A call (inject_transaction's syntax)
#[derive(Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct CallLine(#[schemars(regex(pattern = CALL_PATTERN))] pub String);

/// Inject transaction sequence to all workers
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InjectTransactionInput {
    /// Ordered list of function calls
    #[schemars(length(min = 1, max = MAX_INJECTED_CALLS))]
    pub sequence: Vec<CallText>,
    /// Transaction sender address
    #[schemars(regex(pattern = ADDRESS_PATTERN))]
    pub sender: Option<String>,
    /// ETH value in wei (decimal string)
    #[serde(default = "zero")]
    #[schemars(regex(pattern = "^[0-9]+$"))]
    pub value: String,
    /// How many times each worker runs the sequence; every `?` in it is
    /// drawn anew each time.
    #[serde(default = "one")]
    #[schemars(range(min = 1, max = crate::campaign::control::MAX_REPEAT))]
    pub repeat: u32,
}

pub(super) fn one() -> u32 {
    1
}

pub(super) fn zero() -> String {
    "0".into()
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InjectTransactionOutput {
    pub success: bool,
    /// Human-readable result
    pub message: String,
    /// Number of transactions injected
    pub injected_count: usize,
    /// The injection's id, as `InjectionExecuted` events and the command log name it.
    #[schemars(extend("x-extension" = true))]
    pub injection_id: u64,
}

// ---- prioritize_function / clear_priorities ----

/// Add function to prioritization set (90% weighting)
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PrioritizeFunctionInput {
    /// Canonical ABI function signature (no spaces), or a bare name when
    /// it names one function
    #[schemars(regex(pattern = SIGNATURE_PATTERN))]
    #[schemars(extend("examples" = ["transfer(address,uint256)", "approve(address,uint256)", "depositETH()"]))]
    pub function_signature: String,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PrioritizeFunctionOutput {
    pub success: bool,
    pub message: String,
    /// Current set of prioritized functions
    pub prioritized_functions: Vec<String>,
}

/// Reset prioritization set to empty (no parameters)
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClearPrioritiesInput {}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClearPrioritiesOutput {
    pub success: bool,
    pub message: String,
    /// Number of functions that were prioritized
    pub cleared_count: usize,
}

// ---- status ----

/// Campaign status (no parameters)
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StatusInput {}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StatusTest {
    pub name: String,
    pub kind: TestKind,
    pub status: TestStatus,
    /// The counterexample (falsified, shrinking) or best sequence (optimization).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub counterexample: Vec<String>,
    /// An optimization test's best value (decimal).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StatusConfig {
    pub test_mode: crate::config::TestMode,
    /// `testLimit` as a decimal string (it can exceed 2^53), or
    /// `unlimited` for a campaign that fuzzes until it is stopped.
    pub test_limit: String,
    pub seq_len: usize,
    /// `shrinkLimit` as a decimal string.
    pub shrink_limit: String,
    /// The run's seed as a decimal string (JavaScript clients lose
    /// integers above 2^53).
    pub seed: String,
    pub senders: Vec<String>,
    pub corpus_dir: String,
    pub out_dir: String,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StatusOutput {
    /// This run's id (journal file names carry it).
    pub run_id: String,
    pub contract: String,
    pub mode: crate::config::TestMode,
    pub running: bool,
    /// Whether workers still generate calls (false once `endReason` is
    /// set; a kept-alive campaign then still runs injections).
    pub fuzzing: bool,
    /// Why fuzzing ended: testLimit, timeout, stopOnFail, allTestsDecided,
    /// signal, clientLeft or stopped; absent while it goes on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_reason: Option<crate::campaign::EndReason>,
    pub workers: usize,
    pub calls: u64,
    #[schemars(range(min = 0))]
    pub calls_per_second: f64,
    #[schemars(range(min = 0))]
    pub elapsed_seconds: f64,
    #[schemars(range(min = 0, max = 100))]
    pub line_coverage: f64,
    #[schemars(range(min = 0, max = 100))]
    pub branch_coverage: f64,
    pub corpus_size: u64,
    pub corpus_sequences: usize,
    pub prioritized_functions: Vec<String>,
    pub config: StatusConfig,
    pub tests: Vec<StatusTest>,
    /// The runs the journal of this corpus directory holds (the `runId`s the
    /// events family answers for), oldest first; empty when the journal is off.
    pub runs: Vec<crate::journal::RunInfo>,
    /// Journal rows dropped under overload (execution batches and ordinary
    /// calls only; never falsifications or commands).
    pub journal_dropped: u64,
    /// A shared campaign (`--shared`): every node as this one last saw it,
    /// merged totals, and this node's sync. Absent when not shared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shared: Option<crate::campaign::sharing::SharedStatus>,
    /// Fork mode: the node (credentials hidden), block, chain and cache
    /// file. Absent when the campaign runs on a chain of its own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fork: Option<crate::campaign::report::ForkSummary>,
}

// ---- target ----

/// What the campaign fuzzes (no parameters)
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TargetInput {}

// ---- run_sequence ----

/// Run a call sequence once on a copy of the deployed state
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunSequenceInput {
    /// Calls in order (`?` drawn once, `$n` filled as it runs)
    #[schemars(length(min = 1, max = MAX_INJECTED_CALLS))]
    pub sequence: Vec<CallLine>,
    /// Transaction sender address
    #[schemars(regex(pattern = ADDRESS_PATTERN))]
    pub sender: Option<String>,
    /// ETH value in wei (decimal string)
    #[serde(default = "zero")]
    #[schemars(regex(pattern = "^[0-9]+$"))]
    pub value: String,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunSequenceOutput {
    pub success: bool,
    #[serde(flatten)]
    pub report: crate::campaign::run_report::SequenceReport,
}

// ---- reload_corpus ----

/// Re-read the corpus directory (no parameters)
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReloadCorpusInput {}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReloadCorpusOutput {
    pub success: bool,
    /// Human-readable result
    pub message: String,
    #[serde(flatten)]
    pub reload: crate::campaign::corpus_dir::Reload,
    /// Corpus sequences after the reload.
    pub corpus_sequences: usize,
}

// ---- foundry_reproducer ----

/// A falsified test as a Foundry test
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FoundryReproducerInput {
    /// The falsified test's name (as `status` lists it)
    #[schemars(length(min = 1, max = 200))]
    pub test: String,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FoundryReproducerOutput {
    pub success: bool,
    pub test: String,
    /// Whether the test is falsified (no reproducer until it is).
    pub falsified: bool,
    /// The reproducer's contract name.
    pub contract: String,
    /// A file name for it (`{contract}.t.sol`), to put in the project's test folder.
    pub file_name: String,
    /// The Solidity source (null until the test is falsified): `forge test
    /// --match-contract {contract} --match-test test_` fails on it.
    pub solidity: Option<String>,
}

// ---- evaluate_predicates ----

/// View calls read on reached states
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EvaluatePredicatesInput {
    /// One view call each
    #[schemars(length(min = 1, max = crate::campaign::predicates::MAX_PREDICATES))]
    pub predicates: Vec<CallLine>,
    /// Read along this sequence, not the corpus
    #[serde(default)]
    #[schemars(length(min = 1, max = MAX_INJECTED_CALLS))]
    pub sequence: Option<Vec<CallLine>>,
    /// Newest corpus entries to replay
    #[serde(default = "default_predicate_entries")]
    #[schemars(range(min = 1, max = crate::campaign::predicates::MAX_ENTRIES))]
    pub entries: usize,
}

fn default_predicate_entries() -> usize {
    20
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EvaluatePredicatesOutput {
    pub success: bool,
    #[serde(flatten)]
    pub report: crate::campaign::predicates::PredicateReport,
}

// ---- revert_census ----

/// Where calls revert, per function, over a recent window
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RevertCensusInput {
    /// One function (signature or a bare name); omitted: all called
    #[serde(default)]
    #[schemars(regex(pattern = SIGNATURE_PATTERN))]
    pub function_signature: Option<String>,
    /// Seconds ending now (in 10 s buckets)
    #[serde(default = "default_census_window")]
    #[schemars(range(min = 1, max = crate::campaign::census::MAX_WINDOW_SECONDS))]
    pub window_seconds: u64,
    /// Reasons per function at most
    #[serde(default = "default_census_top")]
    #[schemars(range(min = 1, max = 20))]
    pub top: usize,
}

fn default_census_window() -> u64 {
    60
}

fn default_census_top() -> usize {
    5
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RevertCensusOutput {
    /// The window counted, in seconds (whole buckets)
    pub window_seconds: u64,
    /// Functions with the most reverts in the window first
    pub functions: Vec<CensusFunction>,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CensusFunction {
    pub function_signature: String,
    /// The contract called, when not the target
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contract: Option<String>,
    /// In the window: calls, reverted calls, successful calls
    pub calls: u64,
    pub reverts: u64,
    pub successes: u64,
    /// reverts / calls in the window (0 without calls)
    pub revert_share: f64,
    /// Since the campaign started
    pub total_calls: u64,
    pub total_reverts: u64,
    pub reasons: Vec<CensusReason>,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CensusReason {
    /// What the failing frame reverted with, decoded (a message, a custom
    /// error with its arguments, a panic code), before any caller wrapped it
    pub reason: String,
    /// error (a message), panic, custom (a custom error), empty (no data) or
    /// halt (out of gas, invalid opcode)
    pub kind: &'static str,
    /// Reverts in the window with this reason at this place
    pub count: u64,
    /// count / the function's reverts in the window
    pub share: f64,
    /// Where the revert started (the REVERT's source line)
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revert_at: Option<SourcePlace>,
    /// The branch decided last before the revert: the guard that failed
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guard: Option<CensusGuard>,
    /// The last call seen failing there, in call syntax
    pub sample: String,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SourcePlace {
    pub file: String,
    pub line: u32,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CensusGuard {
    pub file: String,
    pub line: u32,
    /// `Contract.name` of the function holding it
    #[serde(skip_serializing_if = "Option::is_none")]
    pub function: Option<String>,
    /// require, if, assert, while, for, ternary; absent: a branch of no
    /// statement (a checked operation, an ABI decoder's check)
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// The condition's source text
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
    /// State variables the condition reads (`Contract.name`)
    pub state: Vec<String>,
    /// Locals it reads, with what they were set to (`name = expression`):
    /// where it reads state through a helper
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub locals: Vec<String>,
    /// Functions the condition calls
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub calls: Vec<String>,
    /// Entry points whose writes can change what it reads (themselves or
    /// through the functions they call), the campaign's own first
    pub enablers: Vec<CensusEnabler>,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CensusEnabler {
    /// `Contract.signature`
    pub function: String,
    /// Whether workers call it (prioritize_function and inject_transaction
    /// take it)
    pub callable: bool,
}

// ---- test_vacuity ----

/// How often each test got past its own preconditions
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TestVacuityInput {
    /// One test's name; omitted: every test
    #[serde(default)]
    #[schemars(length(min = 1, max = 200))]
    pub test: Option<String>,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TestVacuityOutput {
    /// The most vacuous tests first
    pub tests: Vec<TestVacuity>,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TestVacuity {
    pub test: String,
    /// property, assertion, optimization or overflow
    pub kind: &'static str,
    /// `Contract.name` of the function the test runs, with its place
    /// (absent: the code graph has no coverage of it)
    #[serde(skip_serializing_if = "Option::is_none")]
    pub function: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// Runs seen reaching its first precondition (a sample: checks record
    /// coverage for some of their runs), and runs past the last one
    pub runs: u64,
    pub passed: u64,
    /// The share of runs a precondition stopped (0 without runs or
    /// preconditions): 1 means the test has checked nothing yet
    pub share_stopped: f64,
    /// Its `require`s, `assert`s and `if`s that leave early, at its top
    /// level, in source order
    pub preconditions: Vec<PreconditionOut>,
    /// The precondition that stopped the most runs
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped_most_by: Option<PreconditionOut>,
}

#[derive(Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PreconditionOut {
    pub line: u32,
    /// require, assert or if (an early exit)
    pub kind: &'static str,
    pub condition: String,
    pub evaluated: u64,
    pub passed: u64,
    pub stopped: u64,
    /// State variables it reads (`Contract.name`)
    pub state: Vec<String>,
}
