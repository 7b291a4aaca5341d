//! The JSON Schemas the campaign tools advertise: seed 002's, to the letter,
//! except where the seed contradicts itself (see DESIGN.md and the README):
//!
//! * `prioritize_function.functionSignature` and `inject_transaction.sequence`
//!   items: the seed's pattern `^[a-zA-Z_][a-zA-Z0-9_]*\([^)]*\)$` rejects
//!   tuple parameters and nested calls; ours accept canonical signatures with
//!   tuples (no spaces) and calls with nested parentheses and `{…}` options.
//! * `dump_lcov`'s output is declared as a plain string; an MCP output schema
//!   must be an object, so the LCOV text is the tool's text content and the
//!   structured result wraps it (`lcov`) or says where it was written (`path`).
//! * `read_logs` output `eventType`: the seed's five values plus rudder's
//!   documented extensions.
//!
//! The `$schema` and `title` keywords are kept as the seed has them.

use serde_json::{Value, json};

/// Canonical ABI signature: a name, then types without spaces, tuples allowed.
pub const SIGNATURE_PATTERN: &str = r"^[a-zA-Z_$][a-zA-Z0-9_$]*\([a-zA-Z0-9_,()\[\]]*\)$";
/// A call: a name, optional `{options}`, then parenthesised arguments.
pub const CALL_PATTERN: &str = r"^\s*[a-zA-Z_$][a-zA-Z0-9_$]*\s*(\{[^}]*\})?\s*\(.*\)\s*$";

const EVENT_TYPES: [&str; 5] = [
    "PropertyFalsified",
    "TransactionExecuted",
    "CoverageIncreased",
    "WorkerStarted",
    "WorkerStopped",
];

/// Extensions rudder emits beyond the seed's five event types.
pub const EXTENDED_EVENT_TYPES: [&str; 4] = [
    "TestShrunk",
    "InjectionExecuted",
    "OptimizationImproved",
    "WorkerPanicked",
];

const DRAFT7: &str = "http://json-schema.org/draft-07/schema#";

fn tx_item() -> Value {
    json!({
        "type": "object",
        "properties": {
            "index": {"type": "integer"},
            "call": {"type": "string", "description": "Solidity-like syntax (Clarification #1)"},
            "sender": {"type": "string"},
            "value": {"type": "string"},
            "gasUsed": {"type": "integer"}
        },
        "required": ["index", "call", "sender", "value"]
    })
}

/// (name, description, input schema, output schema) of every campaign tool.
pub fn campaign_tools() -> Vec<(&'static str, &'static str, Value, Value)> {
    let all_event_types: Vec<&str> = EVENT_TYPES
        .iter()
        .chain(EXTENDED_EVENT_TYPES.iter())
        .copied()
        .collect();
    vec![
        (
            "read_logs",
            "Retrieve campaign event logs from EventLog ring buffer (newest first; at most the 2500 most recent). TransactionExecuted events are aggregated per worker every 250 ms. eventType values beyond the filter's five: TestShrunk, InjectionExecuted, OptimizationImproved, WorkerPanicked.",
            json!({
                "$schema": DRAFT7,
                "type": "object",
                "title": "ReadLogsInput",
                "description": "Retrieve campaign event logs from EventLog ring buffer",
                "properties": {
                    "count": {"type": "integer", "minimum": 1, "maximum": 2500, "default": 100,
                              "description": "Number of most recent events to retrieve"},
                    "eventType": {"type": "string", "enum": EVENT_TYPES,
                                  "description": "Filter by event type (optional)"},
                    "workerId": {"type": "integer", "minimum": 0, "description": "Filter by worker ID (optional)"}
                },
                "additionalProperties": false
            }),
            json!({
                "$schema": DRAFT7,
                "type": "object",
                "title": "ReadLogsOutput",
                "properties": {
                    "events": {"type": "array", "items": {
                        "type": "object",
                        "properties": {
                            "timestamp": {"type": "string", "format": "date-time", "description": "ISO 8601 timestamp"},
                            "eventType": {"type": "string", "enum": all_event_types, "description": "Event category"},
                            "workerId": {"type": "integer", "minimum": 0, "description": "Worker that generated event"},
                            "data": {"type": "object", "description": "Event-specific JSON payload"}
                        },
                        "required": ["timestamp", "eventType", "workerId", "data"]
                    }},
                    "totalCount": {"type": "integer", "minimum": 0, "maximum": 2500,
                                   "description": "Total events in EventLog buffer"}
                },
                "required": ["events", "totalCount"]
            }),
        ),
        (
            "show_coverage",
            "Retrieve line and branch coverage statistics (percentages rounded to one decimal; overallCoverage is line coverage weighted by each contract's executable lines).",
            json!({
                "$schema": DRAFT7,
                "type": "object",
                "title": "ShowCoverageInput",
                "description": "Retrieve line and branch coverage statistics",
                "properties": {
                    "contract": {"type": "string", "description": "Filter by contract name (optional)"}
                },
                "additionalProperties": false
            }),
            json!({
                "$schema": DRAFT7,
                "type": "object",
                "title": "ShowCoverageOutput",
                "properties": {
                    "contracts": {"type": "array", "items": {
                        "type": "object",
                        "properties": {
                            "name": {"type": "string"},
                            "lineCoverage": {"type": "number", "minimum": 0, "maximum": 100},
                            "branchCoverage": {"type": "number", "minimum": 0, "maximum": 100}
                        },
                        "required": ["name", "lineCoverage", "branchCoverage"]
                    }},
                    "overallCoverage": {"type": "number", "minimum": 0, "maximum": 100,
                                        "description": "Weighted average across all contracts"}
                },
                "required": ["contracts", "overallCoverage"]
            }),
        ),
        (
            "dump_lcov",
            "Export coverage in LCOV format. Without outputPath the LCOV text is the tool's text content (and `lcov` in the structured result); with outputPath the file is written inside the campaign's exports folder ({outDir}/exports; relative paths resolve there; `..`, paths leaving it (symlinks included) and the campaign's own files are INVALID_INPUT) and its path returned.",
            json!({
                "$schema": DRAFT7,
                "type": "object",
                "title": "DumpLcovInput",
                "description": "Export coverage in LCOV format",
                "properties": {
                    "outputPath": {"type": "string", "description": "Output file path (optional, defaults to stdout)"}
                },
                "additionalProperties": false
            }),
            json!({
                "$schema": DRAFT7,
                "type": "object",
                "title": "DumpLcovOutput",
                "description": "LCOV-formatted text is the text content; this object wraps it (lcov) or names the written file (path)",
                "properties": {
                    "lcov": {"type": "string", "contentMediaType": "text/plain"},
                    "path": {"type": "string"},
                    "bytes": {"type": "integer", "minimum": 0},
                    "files": {"type": "integer", "minimum": 0}
                },
                "required": ["bytes", "files"]
            }),
        ),
        (
            "get_corpus_size",
            "Get transaction count in corpus (every call of every corpus sequence).",
            json!({
                "$schema": DRAFT7,
                "type": "object",
                "title": "GetCorpusSizeInput",
                "description": "Get transaction count in corpus (no parameters)",
                "additionalProperties": false
            }),
            json!({
                "$schema": DRAFT7,
                "type": "object",
                "title": "GetCorpusSizeOutput",
                "properties": {
                    "size": {"type": "integer", "minimum": 0, "description": "Number of transactions in corpus"}
                },
                "required": ["size"]
            }),
        ),
        (
            "inspect_corpus_transactions",
            "Paginated corpus transaction inspection, in corpus index order.",
            json!({
                "$schema": DRAFT7,
                "type": "object",
                "title": "InspectCorpusInput",
                "description": "Paginated corpus transaction inspection",
                "properties": {
                    "offset": {"type": "integer", "minimum": 0, "default": 0, "description": "Pagination offset"},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20,
                              "description": "Max transactions to return per page"}
                },
                "additionalProperties": false
            }),
            json!({
                "$schema": DRAFT7,
                "type": "object",
                "title": "InspectCorpusOutput",
                "properties": {
                    "transactions": {"type": "array", "items": tx_item()},
                    "total": {"type": "integer", "description": "Total corpus size"}
                },
                "required": ["transactions", "total"]
            }),
        ),
        (
            "find_transaction_in_corpus",
            "Search corpus for matching transactions (corpus scan order; at most 1000 matches listed, count is the full number).",
            json!({
                "$schema": DRAFT7,
                "type": "object",
                "title": "FindTransactionInput",
                "description": "Search corpus for matching transactions",
                "properties": {
                    "functionSignature": {"type": "string", "description": "Function signature (e.g., 'transfer(address,uint256)')"},
                    "sender": {"type": "string", "pattern": "^0x[0-9a-fA-F]{40}$", "description": "Sender address filter"},
                    "minValue": {"type": "string", "description": "Minimum ETH value in wei"}
                },
                "anyOf": [
                    {"required": ["functionSignature"]},
                    {"required": ["sender"]},
                    {"required": ["minValue"]}
                ],
                "additionalProperties": false
            }),
            json!({
                "$schema": DRAFT7,
                "type": "object",
                "title": "FindTransactionOutput",
                "properties": {
                    "matches": {"type": "array", "items": tx_item()},
                    "count": {"type": "integer", "minimum": 0, "description": "Number of matching transactions"}
                },
                "required": ["matches", "count"]
            }),
        ),
        (
            "inject_transaction",
            "Inject transaction sequence to all workers: every worker runs it from the deployed state at its next call boundary. Calls are Solidity-like: transfer(0x…, 100), deposit{value: 1 ether}(), set((1, true)); per-call {from: …, value: …, delay: …, blocks: …} override sender and value.",
            json!({
                "$schema": DRAFT7,
                "type": "object",
                "title": "InjectTransactionInput",
                "description": "Inject transaction sequence to all workers (Clarification #5)",
                "properties": {
                    "sequence": {
                        "type": "array",
                        "items": {
                            "type": "string",
                            "description": "Solidity-like function call (Clarification #1)",
                            "pattern": CALL_PATTERN,
                            "examples": [
                                "transfer(0x1234567890abcdef1234567890abcdef12345678, 100)",
                                "approve(0xabcd..., 1000000000000000000)",
                                "deposit()"
                            ]
                        },
                        "minItems": 1,
                        "maxItems": 100,
                        "description": "Ordered list of function calls"
                    },
                    "sender": {"type": "string", "pattern": "^0x[0-9a-fA-F]{40}$",
                               "default": "0x0000000000000000000000000000000000010000",
                               "description": "Transaction sender address"},
                    "value": {"type": "string", "default": "0", "pattern": "^[0-9]+$",
                              "description": "ETH value in wei (decimal string)"}
                },
                "required": ["sequence"],
                "additionalProperties": false
            }),
            json!({
                "$schema": DRAFT7,
                "type": "object",
                "title": "InjectTransactionOutput",
                "properties": {
                    "success": {"type": "boolean"},
                    "message": {"type": "string", "description": "Human-readable result"},
                    "injectedCount": {"type": "integer", "minimum": 0, "description": "Number of transactions injected"}
                },
                "required": ["success", "message", "injectedCount"]
            }),
        ),
        (
            "prioritize_function",
            "Add function to prioritization set (90% weighting, Clarification #2): when the set is non-empty, 90% of generated calls pick from it (weighted), 10% from the whole ABI. Prioritizing a function again adds 1 to its weight. Canonical signatures with tuples are accepted, e.g. set((int16,uint8,address,bool)).",
            json!({
                "$schema": DRAFT7,
                "type": "object",
                "title": "PrioritizeFunctionInput",
                "description": "Add function to prioritization set (90% weighting, Clarification #2)",
                "properties": {
                    "functionSignature": {
                        "type": "string",
                        "pattern": SIGNATURE_PATTERN,
                        "description": "Canonical ABI function signature (no spaces)",
                        "examples": ["transfer(address,uint256)", "approve(address,uint256)", "depositETH()"]
                    }
                },
                "required": ["functionSignature"],
                "additionalProperties": false
            }),
            json!({
                "$schema": DRAFT7,
                "type": "object",
                "title": "PrioritizeFunctionOutput",
                "properties": {
                    "success": {"type": "boolean"},
                    "message": {"type": "string"},
                    "prioritizedFunctions": {"type": "array", "items": {"type": "string"},
                                             "description": "Current set of prioritized functions"}
                },
                "required": ["success", "message", "prioritizedFunctions"]
            }),
        ),
        (
            "clear_priorities",
            "Reset prioritization set to empty (no parameters).",
            json!({
                "$schema": DRAFT7,
                "type": "object",
                "title": "ClearPrioritiesInput",
                "description": "Reset prioritization set to empty (no parameters)",
                "additionalProperties": false
            }),
            json!({
                "$schema": DRAFT7,
                "type": "object",
                "title": "ClearPrioritiesOutput",
                "properties": {
                    "success": {"type": "boolean"},
                    "message": {"type": "string"},
                    "clearedCount": {"type": "integer", "minimum": 0, "description": "Number of functions that were prioritized"}
                },
                "required": ["success", "message", "clearedCount"]
            }),
        ),
        (
            "status",
            "Campaign status: target, config, workers, calls, calls/s, coverage, corpus size, priorities and each test's state (passing, falsified with its counterexample, shrinking, or an optimization's best value).",
            json!({
                "$schema": DRAFT7,
                "type": "object",
                "title": "StatusInput",
                "description": "Campaign status (no parameters)",
                "additionalProperties": false
            }),
            json!({
                "$schema": DRAFT7,
                "type": "object",
                "title": "StatusOutput",
                "properties": {
                    "runId": {"type": "string"},
                    "contract": {"type": "string"},
                    "mode": {"type": "string"},
                    "running": {"type": "boolean"},
                    "workers": {"type": "integer", "minimum": 0},
                    "calls": {"type": "integer", "minimum": 0},
                    "callsPerSecond": {"type": "number", "minimum": 0},
                    "elapsedSeconds": {"type": "number", "minimum": 0},
                    "lineCoverage": {"type": "number", "minimum": 0, "maximum": 100},
                    "branchCoverage": {"type": "number", "minimum": 0, "maximum": 100},
                    "corpusSize": {"type": "integer", "minimum": 0},
                    "corpusSequences": {"type": "integer", "minimum": 0},
                    "prioritizedFunctions": {"type": "array", "items": {"type": "string"}},
                    "config": {"type": "object"},
                    "tests": {"type": "array", "items": {
                        "type": "object",
                        "properties": {
                            "name": {"type": "string"},
                            "kind": {"type": "string", "enum": ["property", "assertion", "optimization"]},
                            "status": {"type": "string", "enum": ["passing", "falsified", "shrinking", "optimized", "open"]},
                            "counterexample": {"type": "array", "items": {"type": "string"}},
                            "value": {"type": "string"}
                        },
                        "required": ["name", "kind", "status"]
                    }}
                },
                "required": ["runId", "contract", "mode", "running", "workers", "calls", "callsPerSecond", "corpusSize", "tests"]
            }),
        ),
    ]
}

/// The seed's error response schema.
pub fn error_response() -> Value {
    json!({
        "$schema": DRAFT7,
        "type": "object",
        "title": "ErrorResponse",
        "properties": {
            "success": {"type": "boolean", "enum": [false]},
            "error": {
                "type": "object",
                "properties": {
                    "code": {"type": "string", "enum": ["INVALID_INPUT", "TOOL_NOT_FOUND", "EXECUTION_TIMEOUT", "INTERNAL_ERROR"]},
                    "message": {"type": "string", "description": "Human-readable error description"},
                    "details": {"type": "object", "description": "Additional error context"}
                },
                "required": ["code", "message"]
            }
        },
        "required": ["success", "error"]
    })
}
