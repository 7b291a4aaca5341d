//! The events family's parameters and answers, and their limits.

use super::*;

/// Events a page holds at most (the seed's limit).
pub const MAX_PAGE: u64 = 1000;
/// Sequences a page holds at most.
pub const MAX_SEQUENCE_PAGE: u64 = 100;
/// Rows one sequence lists at most.
pub const MAX_SEQUENCE_EVENTS: usize = 1000;
/// Roots `query_event_sequence` examines when looking for incomplete ones.
pub const MAX_SCANNED_ROOTS: usize = 5000;
/// The seed's JSON path pattern.
pub const PATH_PATTERN: &str = r"^\$\.[a-zA-Z0-9_\.]+$";
/// Answers are cut (and `truncated` set) past this many bytes of events.
pub const MAX_ANSWER_BYTES: usize = 4 << 20;

pub(super) const SEED_TYPES: [(&str, &[Kind]); 7] = [
    ("TradeExecution", &[Kind::CallExecuted]),
    ("OrderRejection", &[Kind::InputRejected]),
    (
        "IndicatorCalculation",
        &[Kind::TestShrunk, Kind::OptimizationImproved],
    ),
    ("PositionUpdate", &[Kind::CoverageIncreased]),
    (
        "StateChange",
        &[
            Kind::RunStarted,
            Kind::WorkerStarted,
            Kind::WorkerStopped,
            Kind::ControlCommand,
            Kind::InjectionExecuted,
            Kind::InjectionSummary,
        ],
    ),
    ("MarketDataEvent", &[Kind::TransactionExecuted]),
    (
        "RiskEvent",
        &[Kind::PropertyFalsified, Kind::WorkerPanicked],
    ),
];

/// The kinds an `eventType` names (a campaign kind or a seed type).
pub(super) fn kinds_of(name: &str) -> Option<Vec<Kind>> {
    if let Some(k) = Kind::parse(name) {
        return Some(vec![k]);
    }
    SEED_TYPES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, ks)| ks.to_vec())
}

pub(super) fn event_types(_: &mut SchemaGenerator) -> Schema {
    let names: Vec<&str> = Kind::ALL
        .iter()
        .map(|k| k.as_str())
        .chain(SEED_TYPES.iter().map(|(n, _)| *n))
        .collect();
    json_schema!({ "type": "string", "enum": names })
}

pub(super) fn event_type_list(_: &mut SchemaGenerator) -> Schema {
    let names: Vec<&str> = Kind::ALL
        .iter()
        .map(|k| k.as_str())
        .chain(SEED_TYPES.iter().map(|(n, _)| *n))
        .collect();
    json_schema!({ "type": "array", "items": { "type": "string", "enum": names } })
}

pub(super) fn default_page_size() -> u64 {
    100
}

pub(super) fn default_sequence_page() -> u64 {
    50
}

pub(super) fn default_depth() -> u32 {
    10
}

pub(super) fn default_aggregations() -> Vec<Aggregation> {
    vec![Aggregation::Count, Aggregation::Avg]
}

pub(super) fn yes() -> bool {
    true
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
pub enum EntityType {
    FunctionSignature,
    Sender,
    Property,
    WorkerId,
    InjectionId,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Aggregation {
    Count,
    Sum,
    Avg,
    Min,
    Max,
    Stddev,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
pub enum ErrorSeverity {
    Error,
    Warning,
}

/// Retrieve a run's events of one type (a campaign kind or the seed's type), optionally within a time window.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GetEventsByTypeInput {
    /// The campaign run (status lists them)
    pub run_id: String,
    /// Type of events to retrieve
    #[schemars(schema_with = "event_types")]
    pub event_type: String,
    /// Start of time range (inclusive), RFC 3339
    pub start_time: Option<String>,
    /// End of time range (inclusive), RFC 3339
    pub end_time: Option<String>,
    /// Filter by severity level
    pub severity: Option<Severity>,
    /// Number of events per page
    #[serde(default = "default_page_size")]
    #[schemars(range(min = 1, max = MAX_PAGE))]
    pub page_size: u64,
    /// Zero-based page index
    #[serde(default)]
    pub page_index: u64,
}

/// Retrieve a run's events about one entity (a function, a sender, a property, a worker or an injection), in journal order.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GetEventsByEntityInput {
    /// The campaign run (status lists them)
    pub run_id: String,
    /// Type of entity to query
    pub entity_type: EntityType,
    /// Value of the entity identifier (a canonical signature, a 0x address, a property name, a number)
    #[schemars(length(min = 1, max = 1024))]
    pub entity_value: String,
    /// Filter by event types (empty = all types)
    #[serde(default)]
    #[schemars(schema_with = "event_type_list")]
    pub event_types: Vec<String>,
    /// Number of events per page
    #[serde(default = "default_page_size")]
    #[schemars(range(min = 1, max = MAX_PAGE))]
    pub page_size: u64,
    /// Zero-based page index
    #[serde(default)]
    pub page_index: u64,
}

/// Compute count, sum, avg, min, max, stddev of a numeric event property.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AggregateMetricsInput {
    /// The campaign run (status lists them)
    pub run_id: String,
    /// Type of events to aggregate
    #[schemars(schema_with = "event_types")]
    pub event_type: String,
    /// JSON path to the property to aggregate (e.g. '$.gasUsed', '$.newPoints', '$.durationUs')
    #[schemars(regex(pattern = PATH_PATTERN), length(max = 256))]
    pub property_path: String,
    /// Aggregation functions to compute
    #[serde(default = "default_aggregations")]
    pub aggregations: Vec<Aggregation>,
    /// Start of time range (inclusive), RFC 3339
    pub start_time: Option<String>,
    /// End of time range (inclusive), RFC 3339
    pub end_time: Option<String>,
}

/// The campaign's state at a time or event, reconstructed from the journal.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GetStateSnapshotInput {
    /// The campaign run (status lists them)
    pub run_id: String,
    /// Timestamp to query state for (RFC 3339); one of timestamp and eventId
    pub timestamp: Option<String>,
    /// The event to query state after (its eventId); one of timestamp and eventId
    pub event_id: Option<String>,
    /// Filter priorities and per-function figures to this function signature (the seed's securitySymbol)
    pub security_symbol: Option<String>,
    /// Include properties with their status (the seed's indicators)
    #[serde(default = "yes")]
    pub include_indicators: bool,
    /// Include injections accepted but not yet run by every worker (the seed's active orders)
    #[serde(default = "yes")]
    pub include_active_orders: bool,
}

/// Follow parent links: an event and what descends from it, or every chain whose root has the pattern's first type.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct QueryEventSequenceInput {
    /// The campaign run (status lists them)
    pub run_id: String,
    /// Starting event ID for the sequence
    pub root_event_id: Option<String>,
    /// With rootEventId: answer the chain of parent links from the root down to this event
    pub until_event_id: Option<String>,
    /// Expected event type sequence to match, in order
    #[serde(default)]
    #[schemars(schema_with = "event_type_list")]
    pub sequence_pattern: Vec<String>,
    /// Only sequences missing an expected type
    #[serde(default)]
    pub find_incomplete: bool,
    /// Maximum depth of event chain to traverse
    #[serde(default = "default_depth")]
    #[schemars(range(min = 1, max = 50))]
    pub max_depth: u32,
    /// Number of sequences per page
    #[serde(default = "default_sequence_page")]
    #[schemars(range(min = 1, max = MAX_SEQUENCE_PAGE))]
    pub page_size: u64,
    /// Zero-based page index
    #[serde(default)]
    pub page_index: u64,
}

/// Events with validation errors: calls that reverted (decoded reasons) and rejected injections and tool inputs.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GetValidationErrorsInput {
    /// The campaign run (status lists them)
    pub run_id: String,
    /// Filter by error severity
    pub severity_filter: Option<ErrorSeverity>,
    /// Number of events per page
    #[serde(default = "default_page_size")]
    #[schemars(range(min = 1, max = MAX_PAGE))]
    pub page_size: u64,
    /// Zero-based page index
    #[serde(default)]
    pub page_index: u64,
}

/// One journal event.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EventEntity {
    pub event_id: String,
    pub run_id: String,
    #[schemars(extend("format" = "date-time"))]
    pub timestamp: String,
    pub event_type: String,
    pub severity: String,
    pub category: String,
    #[schemars(extend("type" = "object"))]
    pub properties: Value,
    pub parent_event_id: Option<String>,
    pub validation_errors: Option<Vec<Value>>,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PageMetadata {
    pub total_count: u64,
    pub returned_count: u64,
    pub page_index: u64,
    pub page_size: u64,
    pub has_more: bool,
    pub query_time_ms: u64,
    /// The page was cut short of pageSize to keep the answer under 4 MiB.
    pub truncated: bool,
}

#[derive(Serialize, JsonSchema)]
pub struct EventQueryResult {
    pub events: Vec<EventEntity>,
    pub metadata: PageMetadata,
}

#[derive(Serialize, JsonSchema)]
pub struct AggregationValues {
    pub count: u64,
    pub sum: Option<f64>,
    pub avg: Option<f64>,
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub stddev: Option<f64>,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AggregationMetadata {
    /// Events matched by type and time (count: those with a number at the path).
    pub total_events: u64,
    pub query_time_ms: u64,
    pub event_type: String,
    pub property_path: String,
}

#[derive(Serialize, JsonSchema)]
pub struct AggregationResult {
    pub aggregations: AggregationValues,
    pub metadata: AggregationMetadata,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotProperty {
    pub name: String,
    /// passing, falsified, shrinking
    pub status: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub falsified_at: Option<String>,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotWorker {
    pub worker_id: u32,
    pub running: bool,
    pub calls: u64,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CampaignState {
    /// Coverage points reached (the seed's PnL).
    pub coverage_points: u64,
    /// Corpus sequences (the seed's positions).
    pub corpus_size: u64,
    pub calls: u64,
    pub properties: Vec<SnapshotProperty>,
    pub prioritized_functions: Vec<String>,
    pub workers: Vec<SnapshotWorker>,
    /// Injections accepted and not yet run by every worker (the seed's active orders).
    pub pending_injections: Vec<u64>,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotMetadata {
    pub query_time_ms: u64,
    /// Replayed from journal events (true), or read from the live stores (false).
    pub reconstructed: bool,
    /// The last event the state includes.
    pub as_of_event_id: Option<String>,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StateSnapshot {
    pub timestamp: String,
    pub run_id: String,
    pub state: CampaignState,
    pub metadata: SnapshotMetadata,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EventSequence {
    pub root_event_id: String,
    pub events: Vec<EventEntity>,
    pub complete: bool,
    pub missing_event_types: Vec<String>,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SequenceMetadata {
    pub total_sequences: u64,
    pub returned_count: u64,
    pub page_index: u64,
    pub page_size: u64,
    pub has_more: bool,
    pub query_time_ms: u64,
}

#[derive(Serialize, JsonSchema)]
pub struct EventSequenceResult {
    pub sequences: Vec<EventSequence>,
    pub metadata: SequenceMetadata,
}
