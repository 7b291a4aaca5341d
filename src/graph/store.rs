//! The code graph a campaign serves: which files are indexed (from which
//! compilation), the graph built over them, and the contexts the graph
//! family answers with. Writers (index, update) are serialized and swap in
//! a new graph whole; readers load the current one without waiting.

use super::join::{self, Coverage, Gap};
use super::{CodeGraph, Constant, FunctionNode};
use crate::artifacts::{Project, Source};
use crate::executor::Target;
use arc_swap::ArcSwap;
use parking_lot::Mutex;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use thiserror::Error;

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum GraphError {
    /// Bad input: `field` names the argument (`files[2]`).
    #[error("{field}: {message}")]
    Invalid { field: String, message: String },
}

fn invalid(field: impl Into<String>, message: impl Into<String>) -> GraphError {
    GraphError::Invalid {
        field: field.into(),
        message: message.into(),
    }
}

/// The files of the graph and where each comes from.
#[derive(Clone)]
struct Indexed {
    graph: Arc<CodeGraph>,
    /// Compilations the files come from (0: the campaign's own).
    projects: Vec<Arc<Project>>,
    /// path → (project index, source id).
    files: BTreeMap<String, (usize, u32)>,
}

impl Indexed {
    fn rebuild(&mut self, live: &Project) {
        let mut sources: Vec<(&Project, &Source, bool)> = Vec::new();
        for (path, &(p, id)) in &self.files {
            let project = &self.projects[p];
            if let Some(s) = project.source_by_id(id).filter(|s| &s.path == path) {
                sources.push((project, s, is_live(live, project, s)));
            }
        }
        self.graph = Arc::new(CodeGraph::build(&sources));
    }
}

/// Whether `s` of `project` is the text the campaign runs.
fn is_live(live: &Project, project: &Project, s: &Source) -> bool {
    std::ptr::eq(live, project)
        || live
            .sources
            .iter()
            .any(|l| l.path == s.path && l.id == s.id && l.text.is_some() && l.text == s.text)
}

/// What an index or update did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct IndexOutcome {
    pub files: Vec<String>,
    pub version: String,
    /// What the user should know (a file changed on disk since it was
    /// compiled, a file indexed from another compilation has no coverage).
    pub warnings: Vec<String>,
}

/// One file's (or function's) context.
#[derive(Clone, Debug, Serialize)]
pub struct FileContext {
    pub file: String,
    pub summary: String,
    pub symbols: Vec<String>,
    pub gaps: Vec<Gap>,
    pub truncated: bool,
}

/// The campaign's code graph.
pub struct GraphStore {
    target: Arc<Target>,
    state: OnceLock<ArcSwap<Indexed>>,
    write: Mutex<()>,
    /// The graph joined with coverage, as last computed (see
    /// [`GraphStore::joined`]).
    joined: Mutex<Option<Arc<Joined>>>,
}

/// The graph joined with coverage: what every context answer reads.
struct Joined {
    version: String,
    points: u64,
    at: std::time::Instant,
    coverage: Coverage,
    gaps: Vec<Gap>,
}

/// How long a join stays the answer while coverage has not grown: hit
/// counts move on every call, the gaps only with new coverage.
const JOIN_FRESH: std::time::Duration = std::time::Duration::from_secs(5);

impl std::fmt::Debug for GraphStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GraphStore").finish_non_exhaustive()
    }
}

impl GraphStore {
    pub fn new(target: Arc<Target>) -> Self {
        GraphStore {
            target,
            state: OnceLock::new(),
            write: Mutex::new(()),
            joined: Mutex::new(None),
        }
    }

    /// The graph joined with coverage: computed again when the graph
    /// changed, when coverage grew, or after [`JOIN_FRESH`]; otherwise the
    /// last join (on a protocol the join takes tens of milliseconds, and an
    /// agent asks on a plateau, where coverage does not grow).
    fn joined(&self, graph: &CodeGraph) -> Arc<Joined> {
        let points = self.target.coverage.points();
        let mut slot = self.joined.lock();
        if let Some(j) = slot.as_ref()
            && j.version == graph.version
            && j.points == points
            && j.at.elapsed() < JOIN_FRESH
        {
            return j.clone();
        }
        let coverage = Coverage::of(&self.target);
        let gaps = join::gaps(graph, &coverage);
        let j = Arc::new(Joined {
            version: graph.version.clone(),
            points,
            at: std::time::Instant::now(),
            coverage,
            gaps,
        });
        *slot = Some(j.clone());
        j
    }

    fn live(&self) -> &Arc<Project> {
        &self.target.project
    }

    fn state(&self) -> &ArcSwap<Indexed> {
        self.state.get_or_init(|| {
            let live = self.live().clone();
            let files = live
                .sources
                .iter()
                .filter(|s| s.ast.is_some())
                .map(|s| (s.path.clone(), (0, s.id)))
                .collect();
            let mut idx = Indexed {
                graph: Arc::default(),
                projects: vec![live.clone()],
                files,
            };
            idx.rebuild(&live);
            ArcSwap::from_pointee(idx)
        })
    }

    /// The version of the graph, if it was built (without building it).
    pub fn version(&self) -> Option<String> {
        self.state.get().map(|s| s.load().graph.version.clone())
    }

    /// Builds the graph of the campaign's sources now (the campaign does
    /// this on a thread of its own at start, so that the first tool call
    /// finds it ready).
    pub fn warm(&self) {
        self.state();
    }

    /// The current graph (built on first use from the campaign's sources).
    pub fn graph(&self) -> Arc<CodeGraph> {
        self.state().load().graph.clone()
    }

    /// Coverage of the running code, as of now.
    pub fn coverage(&self) -> Coverage {
        Coverage::of(&self.target)
    }

    /// How often the function a test runs (`signature` of `contract` or
    /// the nearest base declaring it) got past its own preconditions
    /// (see [`super::vacuity`]); `None` when the graph has no such function
    /// with coverage.
    pub fn vacuity(&self, contract: &str, signature: &str) -> Option<super::vacuity::Vacuity> {
        let graph = self.graph();
        let f = super::vacuity::test_function(&graph, contract, signature)?;
        let file = graph.files.iter().find(|x| x.path == f.file && x.live)?;
        let source = self.target.project.source_by_id(file.source_id)?;
        let text = source.text.as_deref()?;
        let joined = self.joined(&graph);
        Some(super::vacuity::of(
            &joined.coverage,
            f,
            file.source_id,
            text,
        ))
    }

    /// Uncovered branches of the whole graph, blocking ones first.
    pub fn gaps(&self) -> Vec<Gap> {
        self.joined(&self.graph()).gaps.clone()
    }

    /// Indexes `files` (relative to `project_root`): sources of the
    /// campaign's compilation, or compiled artifacts (standard-JSON,
    /// build-info, a Foundry `out/`) whose sources join the graph. Files
    /// already indexed stay. All-or-nothing: a bad entry changes nothing.
    pub fn index(
        &self,
        project_root: &str,
        files: &[String],
        commit: impl FnOnce() -> bool,
    ) -> Result<IndexOutcome, GraphError> {
        let root = check_root(project_root)?;
        let _w = self.write.lock();
        let mut next = (**self.state().load()).clone();
        let mut out = IndexOutcome::default();
        for (i, f) in files.iter().enumerate() {
            let field = format!("files[{i}]");
            let added = self.resolve(&mut next, &root, f, &field, &mut out.warnings)?;
            out.files.extend(added);
        }
        out.files.sort();
        out.files.dedup();
        self.swap(next, commit, out)
    }

    /// Rebuilds `next`'s graph unless its files are the current ones, and
    /// makes it current if `commit` allows.
    fn swap(
        &self,
        mut next: Indexed,
        commit: impl FnOnce() -> bool,
        mut out: IndexOutcome,
    ) -> Result<IndexOutcome, GraphError> {
        let current = self.state().load();
        let same = current.files == next.files
            && current.projects.len() == next.projects.len()
            && current
                .projects
                .iter()
                .zip(&next.projects)
                .all(|(a, b)| Arc::ptr_eq(a, b));
        if same {
            out.version = current.graph.version.clone();
            return Ok(out);
        }
        next.rebuild(self.live());
        if !commit() {
            return Err(invalid("graph", "out of time before the graph changed"));
        }
        out.version = next.graph.version.clone();
        self.state().store(Arc::new(next));
        Ok(out)
    }

    /// Re-indexes `changed` (each from a rebuilt artifact: the one it was
    /// indexed from, re-read, or one named in the list) and removes
    /// `deleted`. A source whose text on disk differs from every artifact
    /// rudder can read is refused, naming it: rebuild first.
    pub fn update(
        &self,
        project_root: &str,
        changed: &[String],
        deleted: &[String],
        commit: impl FnOnce() -> bool,
    ) -> Result<IndexOutcome, GraphError> {
        let root = check_root(project_root)?;
        let _w = self.write.lock();
        let mut next = (**self.state().load()).clone();
        let mut out = IndexOutcome::default();
        for (i, d) in deleted.iter().enumerate() {
            let path = find_indexed(&next, &root, d)
                .ok_or_else(|| invalid(format!("deleted[{i}]"), not_indexed(&next, d)))?;
            next.files.remove(&path);
            out.files.push(path);
        }
        // Artifacts re-read this call, by origin: read each once.
        let mut reloaded: BTreeMap<PathBuf, Arc<Project>> = BTreeMap::new();
        for (i, f) in changed.iter().enumerate() {
            let field = format!("added_or_modified[{i}]");
            if is_artifact(&root.join(f)) {
                let added = self.resolve(&mut next, &root, f, &field, &mut out.warnings)?;
                out.files.extend(added);
                continue;
            }
            let disk = std::fs::read_to_string(root.join(f)).ok();
            let path = find_indexed(&next, &root, f);
            let origin = path
                .as_ref()
                .map(|p| next.projects[next.files[p].0].origin.clone())
                .unwrap_or_else(|| self.live().origin.clone());
            let project = match reloaded.get(&origin) {
                Some(p) => p.clone(),
                None => {
                    let p = Arc::new(Project::load(&origin).map_err(|e| {
                        invalid(&field, format!("re-reading {}: {e}", origin.display()))
                    })?);
                    reloaded.insert(origin.clone(), p.clone());
                    p
                }
            };
            let source = project
                .sources
                .iter()
                .find(|s| Some(&s.path) == path.as_ref() || path_matches(&s.path, f, &root))
                .ok_or_else(|| {
                    invalid(
                        &field,
                        format!(
                            "{f} is not a source of {} (rebuild it with the file, or pass the artifact that holds it)",
                            origin.display()
                        ),
                    )
                })?;
            if let (Some(disk), Some(text)) = (&disk, &source.text)
                && disk != text
            {
                return Err(invalid(
                    &field,
                    format!(
                        "{f} changed on disk but {} still holds the old text: rebuild it, then call graph_update_files again",
                        origin.display()
                    ),
                ));
            }
            if source.ast.is_none() {
                return Err(invalid(
                    &field,
                    format!(
                        "{} holds no AST for {f}: build with the AST in the output",
                        origin.display()
                    ),
                ));
            }
            let p = push_project(&mut next, project.clone());
            if !is_live(self.live(), &project, source) {
                out.warnings.push(format!(
                    "{}: not the compilation the campaign runs; it has no coverage until the campaign is restarted on the new build",
                    source.path
                ));
            }
            next.files.insert(source.path.clone(), (p, source.id));
            out.files.push(source.path.clone());
        }
        out.files.sort();
        out.files.dedup();
        self.swap(next, commit, out)
    }

    /// Adds the file or artifact `f` to `next`; returns the paths indexed.
    fn resolve(
        &self,
        next: &mut Indexed,
        root: &Path,
        f: &str,
        field: &str,
        warnings: &mut Vec<String>,
    ) -> Result<Vec<String>, GraphError> {
        if f.trim().is_empty() {
            return Err(invalid(field, "empty path"));
        }
        let full = root.join(f);
        if is_artifact(&full) {
            let project = Project::load(&full).map_err(|e| invalid(field, e.to_string()))?;
            let project = Arc::new(project);
            let with_ast: Vec<&Source> =
                project.sources.iter().filter(|s| s.ast.is_some()).collect();
            if with_ast.is_empty() {
                return Err(invalid(
                    field,
                    format!("{f} holds no AST (build it with the AST in the output)"),
                ));
            }
            let p = push_project(next, project.clone());
            let mut out = Vec::new();
            for s in with_ast {
                // The campaign's own compilation of a file wins (it has
                // coverage) when the texts agree.
                if is_live(self.live(), &project, s)
                    && next.files.get(&s.path).is_some_and(|e| e.0 == 0)
                {
                    out.push(s.path.clone());
                    continue;
                }
                if !is_live(self.live(), &project, s) {
                    warnings.push(format!(
                        "{}: indexed from {f}, not the compilation the campaign runs: no coverage",
                        s.path
                    ));
                }
                next.files.insert(s.path.clone(), (p, s.id));
                out.push(s.path.clone());
            }
            return Ok(out);
        }
        let live = self.live();
        let source = live
            .sources
            .iter()
            .find(|s| same_name(&s.path, f))
            .or_else(|| live.sources.iter().find(|s| path_matches(&s.path, f, root)))
            .ok_or_else(|| {
                invalid(
                    field,
                    format!(
                        "{f} is not a source of the campaign's compilation (sources: {}); pass a compiled artifact that holds it (solc standard-JSON, a build-info file or a Foundry out/ directory)",
                        live.sources.iter().map(|s| s.path.as_str()).collect::<Vec<_>>().join(", ")
                    ),
                )
            })?;
        if source.ast.is_none() {
            return Err(invalid(
                field,
                format!(
                    "the campaign's artifact holds no AST for {f}: build with the AST in the output (solc `ast`, forge's default)"
                ),
            ));
        }
        if let (Ok(disk), Some(text)) = (std::fs::read_to_string(&full), &source.text)
            && &disk != text
        {
            warnings.push(format!(
                "{f} changed on disk since it was compiled: the graph shows the compiled text (rebuild, then graph_update_files)"
            ));
        }
        next.files.insert(source.path.clone(), (0, source.id));
        Ok(vec![source.path.clone()])
    }

    /// The context of each entry of `files` (a path, or a function as
    /// `name`, `Contract.name` or a signature), coverage gaps first, in
    /// about `max_tokens` tokens each (four characters a token).
    pub fn context(
        &self,
        project_root: &str,
        files: &[String],
        max_tokens: usize,
    ) -> Result<Vec<FileContext>, GraphError> {
        let root = check_root(project_root)?;
        let state = self.state().load();
        let graph = &state.graph;
        enum Want<'a> {
            File(String),
            Functions(&'a str),
            /// A state variable (or its public getter): the functions that
            /// read or write it.
            Variable(&'a str, Vec<String>),
        }
        let mut wants = Vec::new();
        for (i, f) in files.iter().enumerate() {
            let variables: Vec<String> = graph
                .state_vars
                .iter()
                .filter(|v| v.name == *f || v.qualified() == *f)
                .map(|v| v.qualified())
                .collect();
            if let Some(path) = find_indexed(&state, &root, f) {
                wants.push(Want::File(path));
            } else if graph.functions_named(f).next().is_some() {
                wants.push(Want::Functions(f.as_str()));
            } else if !variables.is_empty() {
                wants.push(Want::Variable(f.as_str(), variables));
            } else {
                return Err(invalid(format!("files[{i}]"), not_indexed(&state, f)));
            }
        }
        let joined = self.joined(graph);
        let (cov, gaps) = (&joined.coverage, &joined.gaps);
        let budget = max_tokens.saturating_mul(4);
        Ok(wants
            .into_iter()
            .map(|w| match w {
                Want::File(path) => {
                    let fns: Vec<&FunctionNode> =
                        graph.functions.iter().filter(|f| f.file == path).collect();
                    render(graph, cov, gaps, &path, &fns, budget, true)
                }
                Want::Functions(name) => {
                    let fns: Vec<&FunctionNode> = graph.functions_named(name).collect();
                    render(graph, cov, gaps, name, &fns, budget, false)
                }
                Want::Variable(name, qualified) => {
                    let touches = |f: &&FunctionNode| {
                        qualified
                            .iter()
                            .any(|q| f.reads.contains(q) || f.writes.contains(q))
                    };
                    let fns: Vec<&FunctionNode> = graph.functions.iter().filter(touches).collect();
                    render(graph, cov, gaps, name, &fns, budget, false)
                }
            })
            .collect())
    }
}

fn push_project(next: &mut Indexed, project: Arc<Project>) -> usize {
    if let Some(i) = next.projects.iter().position(|p| Arc::ptr_eq(p, &project)) {
        return i;
    }
    next.projects.push(project);
    next.projects.len() - 1
}

fn check_root(project_root: &str) -> Result<PathBuf, GraphError> {
    let root = PathBuf::from(project_root);
    if !root.is_absolute() {
        return Err(invalid(
            "project_root",
            format!("{project_root:?} is not an absolute path"),
        ));
    }
    if !root.is_dir() {
        return Err(invalid(
            "project_root",
            format!("{project_root} is not a directory"),
        ));
    }
    Ok(root)
}

fn is_artifact(full: &Path) -> bool {
    full.is_dir() || full.extension().is_some_and(|e| e == "json")
}

/// Whether `compiled` and `f` are the same path, or one ends with the other
/// at a `/`.
fn same_name(compiled: &str, f: &str) -> bool {
    let f = f.trim_start_matches("./");
    compiled == f || compiled.ends_with(&format!("/{f}")) || f.ends_with(&format!("/{compiled}"))
}

/// Whether compiled path `compiled` names the file `f` given relative to
/// `root`: by name (see [`same_name`]), or the same file on disk.
fn path_matches(compiled: &str, f: &str, root: &Path) -> bool {
    let f = f.trim_start_matches("./");
    if compiled == f || compiled.ends_with(&format!("/{f}")) || f.ends_with(&format!("/{compiled}"))
    {
        return true;
    }
    let a = std::fs::canonicalize(root.join(f));
    let b = std::fs::canonicalize(compiled).or_else(|_| std::fs::canonicalize(root.join(compiled)));
    matches!((a, b), (Ok(a), Ok(b)) if a == b)
}

fn find_indexed(state: &Indexed, root: &Path, f: &str) -> Option<String> {
    state
        .files
        .keys()
        .find(|p| p.as_str() == f)
        .or_else(|| state.files.keys().find(|p| same_name(p, f)))
        .or_else(|| state.files.keys().find(|p| path_matches(p, f, root)))
        .cloned()
}

fn not_indexed(state: &Indexed, f: &str) -> String {
    let some: Vec<&str> = state.files.keys().take(12).map(String::as_str).collect();
    format!(
        "{f} is neither an indexed file nor a function or state variable of the graph (indexed: {}{})",
        some.join(", "),
        if state.files.len() > some.len() {
            ", …"
        } else {
            ""
        }
    )
}

/// A file's or functions' context: a header with coverage, the gaps with
/// what they depend on, then contracts and functions, within `budget`
/// characters (gaps and the least covered functions first).
fn render(
    graph: &CodeGraph,
    cov: &Coverage,
    gaps: &[Gap],
    name: &str,
    fns: &[&FunctionNode],
    budget: usize,
    whole_file: bool,
) -> FileContext {
    let source_id = |path: &str| {
        graph
            .files
            .iter()
            .find(|x| x.path == path && x.live)
            .map(|x| x.source_id)
    };
    let mine: Vec<Gap> = gaps
        .iter()
        .filter(|g| {
            if whole_file {
                g.file == name
            } else {
                fns.iter().any(|f| f.qualified() == g.function)
            }
        })
        .cloned()
        .collect();
    let mut lines_total = 0;
    let mut lines_hit = 0;
    let mut per_fn = Vec::new();
    for f in fns {
        let c = source_id(&f.file)
            .map(|id| cov.function(id, f))
            .unwrap_or_default();
        lines_total += c.lines;
        lines_hit += c.lines_hit;
        per_fn.push((*f, c));
    }
    // Least covered first; functions without executable lines last.
    per_fn.sort_by(|(a, ca), (b, cb)| {
        let ratio = |c: &join::FunctionCoverage| {
            if c.lines == 0 {
                2.0
            } else {
                c.lines_hit as f64 / c.lines as f64
            }
        };
        ratio(ca)
            .partial_cmp(&ratio(cb))
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.span.start.cmp(&b.span.start))
    });
    let live = fns.iter().all(|f| source_id(&f.file).is_some());
    let mut head = String::new();
    let _ = write!(
        head,
        "{name}: {} functions; lines covered {lines_hit}/{lines_total}; {} uncovered branches",
        fns.len(),
        mine.len()
    );
    if !live {
        head.push_str(" (not the running compilation: no coverage)");
    } else if cov.optimized {
        head.push_str(" (optimized build: coverage approximate)");
    }
    head.push('\n');
    let mut items: Vec<String> = Vec::new();
    let mut symbols: Vec<String> = Vec::new();
    for g in &mine {
        let mut s = format!(
            "GAP {}:{} {} `{}` {} in {}",
            g.file,
            g.line,
            g.kind,
            g.condition,
            g.missing.as_str(),
            g.signature
        );
        if g.evaluated > 0 {
            let _ = write!(s, " (evaluated {}x)", g.evaluated);
        }
        let list = |label: &str, v: &[String], s: &mut String| {
            if !v.is_empty() {
                let _ = write!(s, "; {label} {}", v.join(", "));
            }
        };
        list("params", &g.params, &mut s);
        list("state", &g.state, &mut s);
        if !g.constants.is_empty() {
            let c: Vec<String> = g.constants.iter().map(Constant::text).collect();
            let _ = write!(s, "; constants {}", c.join(", "));
        }
        let locals: Vec<String> = g
            .local_defs
            .iter()
            .map(|l| match &l.init {
                Some(init) => format!("{} = {init}", l.name),
                None => l.name.clone(),
            })
            .collect();
        list("via locals", &locals, &mut s);
        list("env", &g.env, &mut s);
        list("calls", &g.calls, &mut s);
        list("state set by", &g.state_writers, &mut s);
        list("reached from", &g.entry_points, &mut s);
        items.push(s);
        symbols.push(g.function.clone());
    }
    if whole_file {
        for c in graph.contracts.iter().filter(|c| c.file == name) {
            let mut s = format!("{} {}", c.kind, c.name);
            if !c.bases.is_empty() {
                let _ = write!(s, " is {}", c.bases.join(", "));
            }
            let vars: Vec<String> = graph
                .state_vars
                .iter()
                .filter(|v| v.contract == c.name && v.file == c.file)
                .map(|v| match &v.value {
                    Some(val) if v.constant => format!("{} {} = {val}", v.ty, v.name),
                    _ => format!("{} {}", v.ty, v.name),
                })
                .collect();
            if !vars.is_empty() {
                let _ = write!(s, "; state: {}", vars.join("; "));
            }
            items.push(s);
            symbols.push(c.name.clone());
        }
    }
    for (f, c) in &per_fn {
        let mut s = format!(
            "{} {}.{} L{}-{} {} {}",
            f.kind,
            f.contract,
            f.signature,
            f.span.line_start,
            f.span.line_end,
            f.visibility,
            f.mutability
        );
        if let Some(sel) = &f.selector {
            let _ = write!(s, " [{sel}]");
        }
        if !f.modifiers.is_empty() {
            let _ = write!(s, " modifiers {}", f.modifiers.join(", "));
        }
        if c.lines > 0 {
            let _ = write!(s, "; lines {}/{}", c.lines_hit, c.lines);
            if !c.uncovered_lines.is_empty() {
                let shown: Vec<String> = c
                    .uncovered_lines
                    .iter()
                    .take(8)
                    .map(u32::to_string)
                    .collect();
                let _ = write!(
                    s,
                    " (uncovered {}{})",
                    shown.join(","),
                    if c.uncovered_lines.len() > 8 {
                        ",…"
                    } else {
                        ""
                    }
                );
            }
        }
        if !f.reads.is_empty() {
            let _ = write!(s, "; reads {}", f.reads.join(", "));
        }
        if !f.writes.is_empty() {
            let _ = write!(s, "; writes {}", f.writes.join(", "));
        }
        if !f.calls.is_empty() {
            let calls: Vec<String> = f
                .calls
                .iter()
                .map(|c| format!("{} ({})", c.callee, c.kind.as_str()))
                .collect();
            let _ = write!(s, "; calls {}", calls.join(", "));
        }
        let callers = graph.callers_of(&f.qualified());
        if !callers.is_empty() {
            let _ = write!(s, "; called by {}", callers.join(", "));
        }
        items.push(s);
        symbols.push(f.qualified());
    }
    let mut summary = head;
    let mut truncated = false;
    let mut kept_symbols = Vec::new();
    let mut kept_gaps = mine.len();
    for (i, (item, sym)) in items.iter().zip(&symbols).enumerate() {
        if summary.len() + item.len() + 1 > budget && i > 0 {
            kept_gaps = kept_gaps.min(i);
            let _ = write!(
                summary,
                "… {} more items (raise max_tokens)",
                items.len() - i
            );
            truncated = true;
            break;
        }
        summary.push_str(item);
        summary.push('\n');
        kept_symbols.push(sym.clone());
    }
    kept_symbols.dedup();
    let mut seen = std::collections::BTreeSet::new();
    kept_symbols.retain(|s| seen.insert(s.clone()));
    // The gaps the summary holds (the structured list keeps to the budget
    // as the summary does: the rest are counted in its last line).
    let mut mine = mine;
    mine.truncate(kept_gaps);
    FileContext {
        file: name.to_string(),
        summary: summary.trim_end().to_string(),
        symbols: kept_symbols,
        gaps: mine,
        truncated,
    }
}
