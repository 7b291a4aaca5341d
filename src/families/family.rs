//! The seam every tool family plugs into.
//!
//! A family is one directory under `src/families/` that returns its tools as
//! [`ToolDef`]s. Each tool is declared from a typed parameter struct and a
//! typed answer struct (`serde` + `schemars::JsonSchema`, doc comments as
//! descriptions): the advertised input and output schemas are generated from
//! them ([`schema_for`]), so a limit or default is written once, on the type.
//! The server ([`crate::mcp::server`]) composes the families a run selects and
//! owns what is common to every tool: validation against the advertised
//! schema, the 100 ms budget, and the commit-or-expire [`Gate`].
//!
//! Schema generation is draft-07, subschemas inlined, with one documented
//! post-processing step ([`Draft7Tidy`]): optional parameters are expressed by
//! being absent from `required` (never by a `null` type), and Rust's integer
//! formats (`uint32`, `int64`, …), which draft-07 does not define, are dropped;
//! unit enums are plain `enum` lists; and a field rudder adds to a seed's
//! answer (marked [`EXTENSION`]) is declared but not `required`, so the
//! seed's `required` lists stand to the letter.

use super::errors::ToolError;
use schemars::JsonSchema;
use schemars::generate::{Contract, SchemaSettings};
use schemars::transform::{RestrictFormats, Transform, transform_subschemas};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Instant;

/// A tool family's name (`--tools campaign,events,…`). rudder's own are
/// listed in [`REGISTRY`](super::REGISTRY); an embedding program names its
/// own ([`crate::mcp::RudderServer::with_extra`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FamilyName(pub &'static str);

impl FamilyName {
    /// Every family in the registry, in its order.
    pub fn all() -> Vec<FamilyName> {
        super::REGISTRY.iter().map(|r| r.name).collect()
    }

    pub fn as_str(self) -> &'static str {
        self.0
    }

    /// Parses a comma-separated list (`campaign,events`); `all` selects
    /// every family. An unknown name is an error naming it and the choices.
    pub fn parse_list(list: &str) -> Result<Vec<FamilyName>, String> {
        let choices = || {
            let names: Vec<&str> = super::REGISTRY.iter().map(|r| r.name.0).collect();
            format!("families: {}, all", names.join(", "))
        };
        let mut out = Vec::new();
        for word in list.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            if word == "all" {
                out.extend(0..super::REGISTRY.len());
                continue;
            }
            let i = super::REGISTRY
                .iter()
                .position(|r| r.name.0 == word)
                .ok_or_else(|| format!("unknown tool family {word:?}; {}", choices()))?;
            out.push(i);
        }
        if out.is_empty() {
            return Err(format!("no tool family named; {}", choices()));
        }
        out.sort();
        out.dedup();
        Ok(out.into_iter().map(|i| super::REGISTRY[i].name).collect())
    }
}

/// What a tool returns: the structured result and, when it is not the JSON
/// itself, the text content (`dump_lcov`'s LCOV text).
#[derive(Clone)]
pub struct ToolAnswer {
    pub structured: Value,
    pub text: Option<String>,
}

impl ToolAnswer {
    /// A structured answer whose text content is its JSON.
    pub fn json<A: Serialize>(answer: &A) -> Result<Self, ToolError> {
        let structured = serde_json::to_value(answer)
            .map_err(|e| ToolError::internal(format!("shaping the answer: {e}")))?;
        Ok(ToolAnswer {
            structured,
            text: None,
        })
    }

    /// A structured answer with its own text content.
    pub fn with_text<A: Serialize>(answer: &A, text: String) -> Result<Self, ToolError> {
        let mut a = Self::json(answer)?;
        a.text = Some(text);
        Ok(a)
    }
}

/// How the server runs a tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// A cheap read from lock-free snapshots: answered on the async task,
    /// without a hop to the blocking pool (microseconds; a hop costs a
    /// thread wake-up, which is what a busy machine makes slow).
    Inline,
    /// A call that writes, syncs or does real work (a coverage report, a
    /// file, the command log): run on the blocking pool under the budget,
    /// with the gate deciding commit or expiry.
    Blocking,
}

type Handler = Arc<dyn Fn(Value, &Gate) -> Result<ToolAnswer, ToolError> + Send + Sync>;

/// One tool: its advertised name, description and schemas, and its handler.
#[derive(Clone)]
pub struct ToolDef {
    pub name: &'static str,
    pub description: String,
    pub input: Value,
    pub output: Option<Value>,
    pub access: Access,
    /// Whether families observe calls of this tool ([`Family::observe`]:
    /// the ETG's `tool_start` and `tool_end`); a tool that writes the ETG
    /// itself says no.
    pub logged: bool,
    handler: Handler,
    memo: Option<Arc<Memo>>,
}

/// Answers of a read tool whose answer depends only on its arguments and a
/// version of the data it reads (the journal's commit count): identical
/// calls at the same version share one computation — one that arrives while
/// it runs waits for it (until its own deadline) instead of running again —
/// and its answer until the version moves.
pub struct Memo {
    version: Box<dyn Fn() -> u64 + Send + Sync>,
    state: parking_lot::Mutex<MemoState>,
    ready: parking_lot::Condvar,
}

#[derive(Default)]
struct MemoState {
    /// Arguments → (version, answer).
    done: std::collections::HashMap<String, (u64, Result<ToolAnswer, ToolError>)>,
    /// (arguments, version) being computed.
    running: std::collections::HashSet<(String, u64)>,
}

static MEMOS_ON: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// Turns every memo of the process on or off (on by default). Benches turn
/// them off to measure the queries themselves.
pub fn set_memos(on: bool) {
    MEMOS_ON.store(on, Ordering::Relaxed);
}

/// Answers a memo keeps at most (then it starts over).
const MEMO_ANSWERS: usize = 256;

impl Memo {
    fn call(
        &self,
        tool: &str,
        args: Value,
        gate: &Gate,
        compute: impl FnOnce(Value, &Gate) -> Result<ToolAnswer, ToolError>,
    ) -> Result<ToolAnswer, ToolError> {
        if !MEMOS_ON.load(Ordering::Relaxed) {
            return compute(args, gate);
        }
        // serde_json's maps are sorted: equal arguments print equally.
        let key = args.to_string();
        let version = (self.version)();
        let mut state = self.state.lock();
        loop {
            if let Some((v, answer)) = state.done.get(&key)
                && *v == version
            {
                return answer.clone();
            }
            if !state.running.contains(&(key.clone(), version)) {
                break;
            }
            if self
                .ready
                .wait_until(&mut state, gate.deadline())
                .timed_out()
            {
                return Err(ToolError::timeout(tool));
            }
        }
        state.running.insert((key.clone(), version));
        drop(state);
        let answer = compute(args, gate);
        let mut state = self.state.lock();
        state.running.remove(&(key.clone(), version));
        // A timeout says nothing about the next call; anything else (an
        // answer, a refused input) is what the same call gets again.
        let keep = !matches!(&answer, Err(e) if e.code != super::errors::ErrorCode::InvalidInput);
        if keep {
            if state.done.len() >= MEMO_ANSWERS {
                state.done.clear();
            }
            state.done.insert(key, (version, answer.clone()));
        }
        drop(state);
        self.ready.notify_all();
        answer
    }
}

impl ToolDef {
    /// A tool from its parameter type `P` and answer type `A`. The handler
    /// receives the parameters already validated against `P`'s schema and
    /// deserialized; it calls [`Gate::commit`] before it changes state.
    pub fn new<P, A, F>(name: &'static str, description: &str, access: Access, f: F) -> Self
    where
        P: DeserializeOwned + JsonSchema,
        A: JsonSchema,
        F: Fn(P, &Gate) -> Result<ToolAnswer, ToolError> + Send + Sync + 'static,
    {
        ToolDef {
            name,
            description: description.to_string(),
            input: schema_for::<P>(),
            output: Some(output_schema_for::<A>()),
            access,
            handler: Arc::new(move |args, gate| {
                let p: P = serde_json::from_value(args).map_err(|e| {
                    ToolError::invalid(format!("arguments: {e}"))
                        .with_details(serde_json::json!({ "field": "arguments" }))
                })?;
                f(p, gate)
            }),
            memo: None,
            logged: true,
        }
    }

    /// A tool whose calls families do not observe (not logged in the ETG).
    pub fn unlogged(mut self) -> Self {
        self.logged = false;
        self
    }

    /// Shares answers among identical calls at the same `version` of the
    /// data the tool reads (see [`Memo`]).
    pub fn memoized(mut self, version: impl Fn() -> u64 + Send + Sync + 'static) -> Self {
        self.memo = Some(Arc::new(Memo {
            version: Box::new(version),
            state: Default::default(),
            ready: Default::default(),
        }));
        self
    }

    /// A tool answered by method `m` of a family value `family` (cloned into
    /// the handler): `ToolDef::method::<Params, Answer, _>(name, description,
    /// access, self, Self::handler)`.
    pub fn method<P, A, S>(
        name: &'static str,
        description: &str,
        access: Access,
        family: &S,
        m: fn(&S, P, &Gate) -> Result<ToolAnswer, ToolError>,
    ) -> Self
    where
        P: DeserializeOwned + JsonSchema + 'static,
        A: JsonSchema,
        S: Clone + Send + Sync + 'static,
    {
        let family = family.clone();
        Self::new::<P, A, _>(name, description, access, move |p, gate| {
            m(&family, p, gate)
        })
    }

    /// Sets the advertised default of input property `field` to a value
    /// known only at run time (the campaign's configured sender).
    pub fn with_default(mut self, field: &str, value: Value) -> Self {
        if let Some(p) = self.input.pointer_mut(&format!("/properties/{field}"))
            && let Value::Object(m) = p
        {
            m.insert("default".into(), value);
        }
        self
    }

    pub fn call(&self, args: Value, gate: &Gate) -> Result<ToolAnswer, ToolError> {
        match &self.memo {
            Some(m) => m.call(self.name, args, gate, |a, g| (self.handler)(a, g)),
            None => (self.handler)(args, gate),
        }
    }
}

/// A family of tools over one campaign.
pub trait Family: Send + Sync {
    fn name(&self) -> FamilyName;
    /// The family's tools, in the order they are advertised.
    fn tools(&self) -> Vec<ToolDef>;
    /// How the server shapes this family's answers and refusals.
    fn conventions(&self) -> Conventions {
        Conventions::default()
    }
    /// Sees every answered call of a tool that is [`ToolDef::logged`]
    /// (any family's, and names no tool knows), after its answer: the graph
    /// family logs it in the ETG. Runs on the call's path: it must be cheap.
    fn observe(&self, _call: &Observed<'_>) {}
}

/// The MCP session a call came from (one per stdio server, one per HTTP
/// session): what a family keys per-session state by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SessionId(pub u64);

impl SessionId {
    /// A session id no other session of this process has.
    pub fn next() -> Self {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        SessionId(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

/// An answered call, as [`Family::observe`] sees it.
pub struct Observed<'a> {
    pub session: SessionId,
    pub tool: &'a str,
    pub arguments: &'a Map<String, Value>,
    /// When the call arrived (ms since the Unix epoch).
    pub started_ms: u64,
    pub elapsed_us: u64,
    pub result: &'a Result<ToolAnswer, ToolError>,
    /// Whether the handler changed state (a read's record may give way under
    /// overload; a change's may not).
    pub committed: bool,
}

/// How the server shapes a family's answers: declared by the family (the
/// server names no family).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Conventions {
    /// The `_metadata` on every answer and in every output schema,
    /// naming this data source (`journal`, `code_graph`, `campaign`);
    /// `None`: answers keep their exact schemas (the campaign tools').
    pub metadata: Option<&'static str>,
    /// Refusals in the ops envelope (`success: false`, `error`,
    /// `_metadata`) rather than the plain error object.
    pub error_envelope: bool,
}

impl Default for Conventions {
    fn default() -> Self {
        Conventions {
            metadata: Some("campaign"),
            error_envelope: false,
        }
    }
}

/// The draft-07 schema of parameters `T`, as every tool advertises it (see
/// the module doc for the one post-processing step).
pub fn schema_for<T: JsonSchema>() -> Value {
    generate::<T>(Contract::Deserialize)
}

/// The draft-07 schema of answers `T`: what serializing one produces (a
/// field skipped when empty is not `required`).
pub fn output_schema_for<T: JsonSchema>() -> Value {
    generate::<T>(Contract::Serialize)
}

fn generate<T: JsonSchema>(contract: Contract) -> Value {
    let keep_nulls = matches!(contract, Contract::Serialize);
    let generator = SchemaSettings::draft07()
        .with(|s| {
            s.inline_subschemas = true;
            s.contract = contract;
        })
        .with_transform(Draft7Tidy {
            // Answers may carry `null` where the type says so (`Option`
            // fields serialized as null): their schema admits it. Parameters
            // are absent instead, never null.
            keep_nulls,
        })
        .with_transform(RestrictFormats::default())
        .into_generator();
    generator.into_root_schema_for::<T>().to_value()
}

/// Marks a field rudder adds to a seed's answer:
/// `#[schemars(extend("x-extension" = true))]`. [`Draft7Tidy`] keeps it out
/// of `required` and drops the marker.
pub const EXTENSION: &str = "x-extension";

/// Removes `null` from a property's type (`["string", "null"]` → `"string"`)
/// or from its `anyOf` alternatives.
fn strip_null(prop: &mut Value) {
    let Some(obj) = prop.as_object_mut() else {
        return;
    };
    if let Some(Value::Array(types)) = obj.get("type") {
        let kept: Vec<Value> = types
            .iter()
            .filter(|t| t.as_str() != Some("null"))
            .cloned()
            .collect();
        let v = if kept.len() == 1 {
            kept[0].clone()
        } else {
            Value::Array(kept)
        };
        obj.insert("type".into(), v);
    }
    if let Some(Value::Array(alts)) = obj.get("anyOf") {
        let kept: Vec<Value> = alts
            .iter()
            .filter(|a| a.get("type").and_then(Value::as_str) != Some("null"))
            .cloned()
            .collect();
        if kept.len() == 1 && obj.len() == 1 {
            // `anyOf: [X]` alone is X.
            if let Value::Object(inner) = kept[0].clone() {
                obj.remove("anyOf");
                obj.extend(inner);
            }
        } else {
            obj.insert("anyOf".into(), Value::Array(kept));
        }
    }
}

/// Optional values are absent, not `null`: `{"type": ["string", "null"]}`
/// becomes `{"type": "string"}` and `null` alternatives leave `anyOf`. The
/// server's validation then refuses an explicit `null` with a message that
/// names the field, as it always has.
#[derive(Clone)]
pub struct Draft7Tidy {
    /// Output schemas keep `null` in optional properties' types.
    pub keep_nulls: bool,
}

impl Transform for Draft7Tidy {
    fn transform(&mut self, schema: &mut schemars::Schema) {
        if let Some(obj) = schema.as_object_mut() {
            // A field rudder adds to a seed's answer is declared, but left out
            // of `required`, so the seed's `required` list stands as written.
            let extensions: Vec<String> = obj
                .get("properties")
                .and_then(Value::as_object)
                .map(|props| {
                    props
                        .iter()
                        .filter(|(_, p)| p.get(EXTENSION).is_some())
                        .map(|(k, _)| k.clone())
                        .collect()
                })
                .unwrap_or_default();
            if let Some(Value::Array(req)) = obj.get_mut("required") {
                req.retain(|r| {
                    !r.as_str()
                        .is_some_and(|r| extensions.iter().any(|e| e == r))
                });
            }
            obj.remove(EXTENSION);
            // An optional parameter is absent, not `null`: no null default.
            if obj.get("default").is_some_and(Value::is_null) {
                obj.remove("default");
            }
            // A unit enum whose variants carry doc comments derives as
            // `oneOf: [{const, description}…]`: advertise the plain `enum`.
            if let Some(Value::Array(alts)) = obj.get("oneOf")
                && !alts.is_empty()
                && alts
                    .iter()
                    .all(|a| a.get("const").is_some_and(Value::is_string))
            {
                let names: Vec<Value> = alts.iter().map(|a| a["const"].clone()).collect();
                obj.remove("oneOf");
                obj.insert("type".into(), Value::String("string".into()));
                obj.insert("enum".into(), Value::Array(names));
            }
            // An optional property (not `required`) is absent, never null;
            // a required one may be null (`parentEventId: null`) and keeps it.
            let required: Vec<String> = obj
                .get("required")
                .and_then(Value::as_array)
                .map(|r| {
                    r.iter()
                        .filter_map(|v| v.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default();
            if let Some(Value::Object(props)) = obj.get_mut("properties")
                && !self.keep_nulls
            {
                for (name, prop) in props.iter_mut() {
                    if !required.contains(name) {
                        strip_null(prop);
                    }
                }
            }
        }
        transform_subschemas(self, schema);
    }
}

/// The point of no return of a tool call. A handler calls [`Gate::commit`]
/// right before it changes state; the server calls [`Gate::expire`] when the
/// budget runs out. Exactly one of them wins, so a call that timed out never
/// changed anything, and one that committed is awaited to its end.
#[derive(Clone, Debug)]
pub struct Gate {
    deadline: Instant,
    state: Arc<AtomicU8>,
    session: Option<SessionId>,
    /// The tool called (its [`ToolDef::name`]; empty outside a server).
    tool: &'static str,
}

const RUNNING: u8 = 0;
const COMMITTED: u8 = 1;
const EXPIRED: u8 = 2;

impl Gate {
    pub fn new(deadline: Instant) -> Self {
        Gate {
            deadline,
            state: Arc::new(AtomicU8::new(RUNNING)),
            session: None,
            tool: "",
        }
    }

    /// The gate of a call made by MCP session `session`.
    pub fn for_session(mut self, session: SessionId) -> Self {
        self.session = Some(session);
        self
    }

    /// The gate of a call of `tool` (the server sets it from the tool's
    /// definition: handlers name their tool through it, never again).
    pub fn for_tool(mut self, tool: &'static str) -> Self {
        self.tool = tool;
        self
    }

    /// The tool called.
    pub fn tool(&self) -> &'static str {
        self.tool
    }

    /// The calling session (absent for calls made outside a server).
    pub fn session(&self) -> Option<SessionId> {
        self.session
    }

    /// Whether the handler claimed the right to change state.
    pub fn committed(&self) -> bool {
        self.state.load(Ordering::Acquire) == COMMITTED
    }

    /// Claims the right to change state; fails once the budget is spent.
    pub fn commit(&self) -> Result<(), ToolError> {
        if Instant::now() >= self.deadline {
            let _ = self.expire();
        }
        match self
            .state
            .compare_exchange(RUNNING, COMMITTED, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => Ok(()),
            Err(COMMITTED) => Ok(()),
            Err(_) => Err(ToolError::timeout(self.tool)),
        }
    }

    /// Marks the call expired; false if the handler already committed.
    pub fn expire(&self) -> bool {
        match self
            .state
            .compare_exchange(RUNNING, EXPIRED, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => true,
            Err(s) => s == EXPIRED,
        }
    }

    pub fn deadline(&self) -> Instant {
        self.deadline
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_parse_with_errors_naming_the_word() {
        assert_eq!(
            FamilyName::parse_list("events, campaign,events").unwrap(),
            [FamilyName("campaign"), FamilyName("events")]
        );
        assert_eq!(FamilyName::parse_list("all").unwrap(), FamilyName::all());
        let e = FamilyName::parse_list("campaign,bogus").unwrap_err();
        assert!(e.contains("\"bogus\"") && e.contains("traces"), "{e}");
        assert!(FamilyName::parse_list(" , ").is_err());
    }

    #[test]
    fn exactly_one_of_commit_and_expire_wins() {
        let g = Gate::new(Instant::now() + std::time::Duration::from_secs(5));
        assert!(g.commit().is_ok());
        assert!(!g.expire());
        let g = Gate::new(Instant::now() + std::time::Duration::from_secs(5));
        assert!(g.expire());
        assert!(g.commit().is_err());
        let past = Gate::new(Instant::now());
        assert!(past.commit().is_err());
    }

    #[derive(serde::Deserialize, JsonSchema)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    #[allow(dead_code)]
    /// Doc becomes the description.
    struct Example {
        /// A count.
        #[schemars(range(min = 1, max = 10))]
        #[serde(default = "three")]
        count: u32,
        name: Option<String>,
    }

    fn three() -> u32 {
        3
    }

    #[test]
    fn schemas_are_draft7_without_nulls_or_rust_formats() {
        let s = schema_for::<Example>();
        assert_eq!(s["$schema"], "http://json-schema.org/draft-07/schema#");
        assert_eq!(s["title"], "Example");
        assert_eq!(s["description"], "Doc becomes the description.");
        assert_eq!(s["additionalProperties"], false);
        assert_eq!(
            s["properties"]["count"],
            serde_json::json!({"type": "integer", "minimum": 1, "maximum": 10, "default": 3, "description": "A count."})
        );
        assert_eq!(
            s["properties"]["name"],
            serde_json::json!({"type": "string"})
        );
        assert!(s.get("required").is_none(), "{s}");
    }
}

#[cfg(test)]
mod memo_tests {
    use super::*;
    use std::sync::atomic::AtomicU64;
    use std::time::Duration;

    fn memo(version: Arc<AtomicU64>) -> Memo {
        Memo {
            version: Box::new(move || version.load(Ordering::SeqCst)),
            state: Default::default(),
            ready: Default::default(),
        }
    }

    fn gate() -> Gate {
        Gate::new(Instant::now() + Duration::from_secs(5))
    }

    #[test]
    fn identical_calls_share_one_computation_until_the_version_moves() {
        let version = Arc::new(AtomicU64::new(1));
        let m = memo(version.clone());
        let runs = AtomicU64::new(0);
        let compute = |a: Value, _: &Gate| {
            runs.fetch_add(1, Ordering::SeqCst);
            Ok(ToolAnswer {
                structured: a,
                text: None,
            })
        };
        let args = serde_json::json!({"b": 1, "a": [1, 2]});
        for _ in 0..3 {
            let r = m.call("t", args.clone(), &gate(), compute).ok().unwrap();
            assert_eq!(r.structured, args);
        }
        assert_eq!(runs.load(Ordering::SeqCst), 1);
        // Other arguments are another computation.
        m.call("t", serde_json::json!({"a": 2}), &gate(), compute)
            .ok();
        assert_eq!(runs.load(Ordering::SeqCst), 2);
        // New data: computed again, never the old answer.
        version.store(2, Ordering::SeqCst);
        m.call("t", args.clone(), &gate(), compute).ok();
        assert_eq!(runs.load(Ordering::SeqCst), 3);
    }

    #[test]
    fn refused_input_is_kept_and_timeouts_are_not() {
        let m = memo(Arc::new(AtomicU64::new(7)));
        let runs = AtomicU64::new(0);
        let refuse = |_: Value, _: &Gate| {
            runs.fetch_add(1, Ordering::SeqCst);
            Err(ToolError::invalid("x: bad"))
        };
        let time_out = |_: Value, _: &Gate| {
            runs.fetch_add(1, Ordering::SeqCst);
            Err(ToolError::timeout("t"))
        };
        for _ in 0..2 {
            assert!(
                m.call("t", serde_json::json!({"x": 1}), &gate(), refuse)
                    .is_err()
            );
        }
        assert_eq!(runs.load(Ordering::SeqCst), 1);
        for _ in 0..2 {
            assert!(
                m.call("t", serde_json::json!({"y": 1}), &gate(), time_out)
                    .is_err()
            );
        }
        assert_eq!(runs.load(Ordering::SeqCst), 3);
    }

    #[test]
    fn concurrent_identical_calls_wait_for_the_one_running() {
        let m = Arc::new(memo(Arc::new(AtomicU64::new(1))));
        let runs = Arc::new(AtomicU64::new(0));
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let m = m.clone();
                let runs = runs.clone();
                std::thread::spawn(move || {
                    m.call("t", serde_json::json!({"q": 1}), &gate(), |a, _| {
                        runs.fetch_add(1, Ordering::SeqCst);
                        std::thread::sleep(Duration::from_millis(50));
                        Ok(ToolAnswer {
                            structured: a,
                            text: None,
                        })
                    })
                    .ok()
                    .map(|r| r.structured)
                })
            })
            .collect();
        for t in threads {
            assert_eq!(t.join().unwrap(), Some(serde_json::json!({"q": 1})));
        }
        assert_eq!(runs.load(Ordering::SeqCst), 1);
    }
}
