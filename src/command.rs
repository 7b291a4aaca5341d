//! The commands that steer a campaign's workers, typed once: what the
//! command log (`mcp-commands.jsonl`) and the journal's `ControlCommand`
//! rows hold, what `--replay-commands` and a shared campaign replay, what
//! the events snapshot folds and the execution trace graph reads from a
//! tool call. A command is written as `{"command": NAME, "arguments": …}`
//! (the tool's name and arguments), its answer as `result`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A command that changes what the workers do.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "command", content = "arguments", rename_all = "snake_case")]
pub enum Command {
    /// Calls every worker runs next (`inject_transaction`).
    InjectTransaction(Inject),
    /// A function workers call more (`prioritize_function`).
    PrioritizeFunction(Prioritize),
    /// Back to the uniform choice of functions (`clear_priorities`).
    ClearPriorities(Clear),
}

/// `inject_transaction`'s arguments as logged: the calls as written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Inject {
    pub sequence: Vec<String>,
    /// Times each worker runs it (1 when absent).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub repeat: u32,
    /// The node of a shared campaign it came from (not replayed to the
    /// others again).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared_from: Option<String>,
}

/// `prioritize_function`'s arguments.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Prioritize {
    pub function_signature: String,
    #[serde(default = "one")]
    pub weight: u32,
}

/// `clear_priorities` takes nothing.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clear {}

fn one() -> u32 {
    1
}

fn is_one(n: &u32) -> bool {
    *n == 1
}

impl Command {
    /// The command a tool call with these arguments makes, if the tool is
    /// one of them and its arguments have the logged shape (`None` for
    /// other tools and for arguments the tool would refuse).
    pub fn from_tool(tool: &str, arguments: &Value) -> Option<Command> {
        let tagged = serde_json::json!({ "command": tool, "arguments": arguments });
        serde_json::from_value(tagged).ok()
    }

    /// The arguments alone, as logged.
    pub fn arguments(&self) -> Value {
        serde_json::to_value(self).expect("commands serialize")["arguments"].take()
    }

    /// The function it names, if any.
    pub fn function(&self) -> Option<&str> {
        match self {
            Command::PrioritizeFunction(p) => Some(&p.function_signature),
            _ => None,
        }
    }
}

/// What a command answered.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum CommandResult {
    /// Refused (bad input, too many queued): nothing changed.
    Failed { error: String },
    #[serde(rename_all = "camelCase")]
    Injected {
        injection: u64,
        injected_count: usize,
        workers: usize,
    },
    #[serde(rename_all = "camelCase")]
    Prioritized { prioritized_functions: Vec<String> },
    #[serde(rename_all = "camelCase")]
    Cleared { cleared_count: usize },
}

impl CommandResult {
    pub fn failed(&self) -> bool {
        matches!(self, CommandResult::Failed { .. })
    }
}

/// A command with its answer: a line of the command log (beside its
/// timestamp and run) and a `ControlCommand` row of the journal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Logged {
    #[serde(flatten)]
    pub command: Command,
    pub result: CommandResult,
}

impl Logged {
    /// Reads a logged command; `Ok(None)` for a command this version does
    /// not replay (another tool's), an error naming what is wrong for a
    /// known command whose arguments or answer do not parse.
    pub fn parse(v: &Value) -> Result<Option<Logged>, String> {
        let name = v.get("command").and_then(Value::as_str).unwrap_or("");
        if !Self::NAMES.contains(&name) {
            return Ok(None);
        }
        let tagged = serde_json::json!({
            "command": name,
            "arguments": v.get("arguments").cloned().unwrap_or_else(|| serde_json::json!({})),
        });
        let command = serde_json::from_value(tagged).map_err(|e| format!("{name}: {e}"))?;
        let result = serde_json::from_value(v.get("result").cloned().unwrap_or(Value::Null))
            .map_err(|e| format!("{name}: result: {e}"))?;
        Ok(Some(Logged { command, result }))
    }

    /// The commands' names (serde's `snake_case` of the variants; a test
    /// checks each one reads back).
    const NAMES: [&'static str; 3] = [
        "inject_transaction",
        "prioritize_function",
        "clear_priorities",
    ];
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_command_is_written_as_the_tool_and_its_arguments() {
        let c = Command::InjectTransaction(Inject {
            sequence: vec!["set(7)".into()],
            repeat: 1,
            shared_from: None,
        });
        let line = serde_json::to_value(Logged {
            command: c.clone(),
            result: CommandResult::Injected {
                injection: 3,
                injected_count: 1,
                workers: 2,
            },
        })
        .unwrap();
        assert_eq!(
            line,
            json!({"command": "inject_transaction", "arguments": {"sequence": ["set(7)"]},
                   "result": {"injection": 3, "injectedCount": 1, "workers": 2}})
        );
        assert_eq!(Logged::parse(&line).unwrap().unwrap().command, c);
        assert_eq!(c.arguments(), json!({"sequence": ["set(7)"]}));
    }

    #[test]
    fn every_command_and_answer_reads_back() {
        for (v, name) in [
            (
                json!({"command": "prioritize_function", "arguments": {"functionSignature": "f()", "weight": 2},
                       "result": {"prioritizedFunctions": ["f()"]}}),
                "prioritize_function",
            ),
            (
                json!({"command": "clear_priorities", "arguments": {}, "result": {"clearedCount": 1}}),
                "clear_priorities",
            ),
            (
                json!({"command": "inject_transaction", "arguments": {"sequence": ["g()"], "repeat": 4, "sharedFrom": "n1"},
                       "result": {"error": "sequence[0]: no function g"}}),
                "inject_transaction",
            ),
        ] {
            let l = Logged::parse(&v).unwrap().unwrap();
            assert_eq!(serde_json::to_value(&l.command).unwrap()["command"], name);
            assert_eq!(serde_json::to_value(&l).unwrap(), v, "round trip");
        }
        assert!(Logged::parse(&v_of("submit_new_spec")).unwrap().is_none());
        for name in Logged::NAMES {
            assert!(
                Command::from_tool(name, &json!({"sequence": [], "functionSignature": "f()"}))
                    .is_some(),
                "{name}"
            );
        }
        let bad =
            json!({"command": "prioritize_function", "arguments": {"weight": 2}, "result": {}});
        assert!(
            Logged::parse(&bad)
                .unwrap_err()
                .contains("functionSignature")
        );
    }

    #[test]
    fn a_tool_call_is_a_command_when_it_has_the_logged_shape() {
        let c = Command::from_tool("prioritize_function", &json!({"functionSignature": "f()"}));
        assert_eq!(c.as_ref().and_then(Command::function), Some("f()"));
        assert!(Command::from_tool("inject_transaction", &json!({"sequence": "f()"})).is_none());
        assert!(Command::from_tool("read_logs", &json!({})).is_none());
    }

    fn v_of(name: &str) -> Value {
        json!({"command": name, "arguments": {}, "result": {}})
    }
}
