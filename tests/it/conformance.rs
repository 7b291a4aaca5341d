//! The MCP conformance suite (tests/e2e/conformance): every tool rudder serves
//! with `--tools all`, called through each official client SDK over stdio
//! (`rudder mcp`) and streamable HTTP (`rudder fuzz --mcp-http`), with the
//! valid and the refused call tools.json lists for it. A valid answer must
//! pass the tool's output schema (an independent validator and the SDK's
//! own); a refused call must be an error result whose JSON text names the
//! family's code and the bad field. A tool served but not listed in
//! tools.json (or listed but not served) fails the suite.
//!
//! The official MCP Inspector, in CLI mode over stdio, must show a refused
//! call as a tool error carrying rudder's error code (inspector.mjs).
//!
//! scripts/setup-python.sh installs the Python SDK into .venv (PyPI);
//! scripts/setup-node.sh installs the TypeScript SDK, ajv and the Inspector's
//! CLI (@modelcontextprotocol/inspector-cli) into
//! tests/e2e/conformance/node_modules (npm, pinned by its package-lock.json).

use crate::common::clients::{node, python, run_driver};

/// Runs one driver against this build's rudder; it must pass every check
/// on both transports.
fn conformance(interpreter: &str, driver: &str, sdk: &str) {
    let stdout = run_driver(interpreter, driver, &[]);
    for transport in ["stdio", "http"] {
        assert!(
            stdout.contains(&format!("{sdk} {transport}: ")),
            "no {transport} summary:\n{stdout}"
        );
    }
    assert_eq!(
        stdout.trim().lines().last(),
        Some("conformance: all checks passed"),
        "{stdout}"
    );
}

#[test]
fn python_sdk_conformance_over_stdio_and_http() {
    conformance(&python(), "tests/e2e/conformance/conformance.py", "python");
}

#[test]
fn typescript_sdk_conformance_over_stdio_and_http() {
    conformance(
        &node(),
        "tests/e2e/conformance/conformance.mjs",
        "typescript",
    );
}

/// The MCP Inspector's CLI (`mcp-inspector-cli --cli`, launching `rudder
/// mcp`) lists the tools, shows a refused inject_transaction as a tool error
/// (isError) whose JSON carries INVALID_INPUT and the field, and shows a
/// status call as no error.
#[test]
fn mcp_inspector_cli_shows_a_refused_call_as_a_tool_error() {
    let stdout = run_driver(&node(), "tests/e2e/conformance/inspector.mjs", &[]);
    assert_eq!(
        stdout.trim().lines().last(),
        Some(
            "inspector cli stdio: tools/list ok, refused inject_transaction shown as \
             tool error INVALID_INPUT (sequence[0]), status ok"
        ),
        "{stdout}"
    );
}

/// Prompts and resources (tests/e2e/conformance/prompts_resources.*): the
/// list_changed notification when an injected sequence falsifies a test,
/// every resource listed and read, every prompt got, the refusals named, through
/// the pinned and the current Python SDK and the TypeScript SDK.
#[test]
fn prompts_and_resources_through_every_official_client() {
    for (interpreter, driver, sdk) in [
        (
            python(),
            "tests/e2e/conformance/prompts_resources.py",
            "python",
        ),
        (
            crate::common::clients::python_current(),
            "tests/e2e/conformance/prompts_resources.py",
            "python",
        ),
        (
            node(),
            "tests/e2e/conformance/prompts_resources.mjs",
            "typescript",
        ),
    ] {
        let stdout = run_driver(&interpreter, driver, &[]);
        assert!(
            stdout.contains(&format!(
                "{sdk} prompts and resources: list_changed received, 5 resources read, 3 templates, 3 prompts got, 4 refusals ok"
            )),
            "{stdout}"
        );
        assert_eq!(
            stdout.trim().lines().last(),
            Some("prompts and resources: all checks passed"),
            "{stdout}"
        );
    }
}
