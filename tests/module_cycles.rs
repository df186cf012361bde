//! The module graph of `src/` runs downhill: no module depends on `ffi` (the
//! exports sit on top), the leaf helpers depend on no other module, and the
//! remaining top-level modules form no cycle.
//!
//! The graph is read by parsing every `.rs` file under `src/` with `syn`:
//! a file belongs to its top-level module (`src/team/mod.rs`, `src/team/x.rs`
//! → `team`; `src/lock.rs` → `lock`; `src/lib.rs` and `src/bin/` are the
//! roots and are skipped), and depends on each top-level module named by a
//! `crate::` (or `$crate::`) path, including `use crate::{a::b, c}` groups,
//! or by a `super::` path that climbs out of its top-level module. Comments
//! and literals are not paths, so prose and messages never count. Macro
//! bodies and arguments stay unparsed tokens, so their paths are read from
//! the tokens and count for the file that defines or invokes the macro. Code
//! generated into `$OUT_DIR` (the typed exports) is `ffi`'s and is not read.
//!
//! `cargo test --test module_cycles -- --nocapture` prints the whole graph.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::{Path, PathBuf};

use proc_macro2::{Ident, TokenStream, TokenTree};
use syn::visit::{self, Visit};
use syn::{ItemMod, Macro, UseName, UseRename, UseTree};

/// Modules that other modules build on and that themselves depend on no
/// module outside this set: plain data and parsing with no process state.
/// `types` (the C type table), `constants` (the values of `shmem.h`, also
/// read by `build.rs`), `config` (environment settings, parsed once),
/// `error` (how a PE reports a misuse and stops; the runtime registers its
/// exit path with it, so every module can report without depending on the
/// runtime), `job`
/// (the contract between `oshrun` and the PEs) and `tools` (tool names, also
/// read by `build.rs`).
const LEAVES: &[&str] = &["config", "constants", "error", "job", "tools", "types"];

/// The top: the C exports. Nothing may depend on it.
const TOP: &str = "ffi";

/// One use of another top-level module: where it is and the path as written.
struct Use {
    line: usize,
    target: String,
    path: String,
}

/// A path segment as written, with its line.
type Seg = (String, usize);

fn seg(ident: &Ident) -> Seg {
    (ident.to_string(), ident.span().start().line)
}

/// Collects the uses of top-level modules while walking one file.
struct Scan {
    /// How deep the current module sits below the crate root.
    depth: usize,
    uses: Vec<Use>,
}

impl Scan {
    /// Keeps a path that names a crate-root item: `crate::x` (`$crate::x`),
    /// or `super::...::x` with as many `super`s as the module is deep (the
    /// caller keeps the names that are modules); says whether it kept one.
    fn record(&mut self, segs: &[Seg]) -> bool {
        let climbs = segs.iter().take_while(|(s, _)| s == "super").count();
        let root = match segs.first() {
            Some((s, _)) if s == "crate" || s == "$crate" => 1,
            _ if climbs > 0 && climbs == self.depth => climbs,
            _ => return false,
        };
        let Some((name, line)) = segs.get(root).filter(|(s, _)| s != "self") else {
            return false;
        };
        let path = segs.iter().map(|(s, _)| s.as_str()).collect::<Vec<_>>();
        let (line, target, path) = (*line, name.clone(), path.join("::"));
        self.uses.push(Use { line, target, path });
        true
    }

    /// The paths of a `use` tree: one per entry of a group right after the
    /// root (`crate::{a::b, c}`), else one up to its first group.
    fn use_tree(&mut self, tree: &UseTree, mut segs: Vec<Seg>) {
        match tree {
            UseTree::Path(p) => {
                segs.push(seg(&p.ident));
                self.use_tree(&p.tree, segs);
            }
            UseTree::Name(UseName { ident, .. }) | UseTree::Rename(UseRename { ident, .. }) => {
                segs.push(seg(ident));
                self.record(&segs);
            }
            UseTree::Glob(_) => {
                self.record(&segs);
            }
            UseTree::Group(g) => {
                if !self.record(&segs) {
                    g.items.iter().for_each(|t| self.use_tree(t, segs.clone()));
                }
            }
        }
    }

    /// The paths in a macro's tokens, which syn leaves unparsed: each
    /// `name::name...` run (`$crate` is one name), and a `use` group after one.
    fn macro_tokens(&mut self, tokens: TokenStream) {
        let t: Vec<TokenTree> = tokens.into_iter().collect();
        let punct = |k: usize, c: char| matches!(t.get(k), Some(TokenTree::Punct(p)) if p.as_char() == c);
        let ident = |k: usize| match t.get(k) {
            Some(TokenTree::Ident(i)) => Some(i),
            _ => None,
        };
        let mut k = 0;
        while k < t.len() {
            let dollar = punct(k, '$') && ident(k + 1).is_some_and(|i| i == "crate");
            let Some(first) = ident(k + dollar as usize) else {
                if let TokenTree::Group(g) = &t[k] {
                    self.macro_tokens(g.stream());
                }
                k += 1;
                continue;
            };
            let (name, line) = seg(first);
            let mut segs = vec![(if dollar { format!("${name}") } else { name }, line)];
            k += 1 + dollar as usize;
            while punct(k, ':') && punct(k + 1, ':') {
                if let Some(i) = ident(k + 2) {
                    segs.push(seg(i));
                } else if let Some(TokenTree::Group(g)) = t.get(k + 2)
                    && let Ok(tree) = syn::parse2::<UseTree>(TokenTree::Group(g.clone()).into())
                {
                    self.use_tree(&tree, std::mem::take(&mut segs));
                } else {
                    break;
                }
                k += 3;
            }
            self.record(&segs);
        }
    }
}

impl<'ast> Visit<'ast> for Scan {
    fn visit_path(&mut self, p: &'ast syn::Path) {
        self.record(&p.segments.iter().map(|s| seg(&s.ident)).collect::<Vec<_>>());
        visit::visit_path(self, p);
    }

    fn visit_use_tree(&mut self, tree: &'ast UseTree) {
        self.use_tree(tree, Vec::new());
    }

    fn visit_item_mod(&mut self, m: &'ast ItemMod) {
        // An inline `mod x { }` is one level deeper for its `super::`s.
        let inline = m.content.is_some() as usize;
        self.depth += inline;
        visit::visit_item_mod(self, m);
        self.depth -= inline;
    }

    fn visit_macro(&mut self, m: &'ast Macro) {
        self.macro_tokens(m.tokens.clone());
        visit::visit_macro(self, m);
    }
}

/// The uses of top-level modules in one file whose module sits `depth`
/// levels below the crate root (`src/lock.rs`, `src/team/mod.rs`: 1;
/// `src/team/x.rs`: 2). Paths to the crate root's own items
/// (`crate::headers`) are returned too; the caller keeps the known modules.
fn scan(src: &str, depth: usize) -> syn::Result<Vec<Use>> {
    let mut s = Scan { depth, uses: vec![] };
    s.visit_file(&syn::parse_file(src)?);
    Ok(s.uses)
}

// ---------------------------------------------------------------------------
// The graph.

/// Every edge `from -> to` between top-level modules, with every place it is used.
type Graph = BTreeMap<String, BTreeMap<String, Vec<(PathBuf, Use)>>>;

/// Every `.rs` file under `dir`: its path from the crate root and its text.
fn rust_files(dir: &Path, out: &mut Vec<(PathBuf, String)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let rel = path.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap().to_path_buf();
            out.push((rel, std::fs::read_to_string(&path).unwrap()));
        }
    }
}

/// The top-level module of a file (path relative to `src/`) and how deep its
/// own module sits below the crate root; `None` for the roots.
fn module_of(rel: &Path) -> Option<(String, usize)> {
    let parts: Vec<&str> = rel.iter().map(|p| p.to_str().unwrap()).collect();
    let top = parts[0].trim_end_matches(".rs");
    if top == "lib" || top == "bin" || top == "main" {
        return None;
    }
    let last = *parts.last().unwrap();
    // a/b/mod.rs is module a::b; a/b/c.rs is module a::b::c.
    let depth = if last == "mod.rs" { parts.len() - 1 } else { parts.len() };
    Some((top.to_string(), depth))
}

/// The modules and the graph of the files of `src/`, each given as its path
/// from the crate root and its text.
fn graph(files: &[(PathBuf, String)]) -> (BTreeSet<String>, Graph) {
    let module_of = |file: &Path| module_of(file.strip_prefix("src").unwrap());
    let modules: BTreeSet<String> = files.iter().filter_map(|(f, _)| module_of(f).map(|(m, _)| m)).collect();
    let mut graph = Graph::new();
    for (file, text) in files {
        let Some((module, depth)) = module_of(file) else {
            continue;
        };
        let uses = scan(text, depth).unwrap_or_else(|e| {
            let at = e.span().start();
            panic!("{}:{}:{}: {e}", file.display(), at.line, at.column + 1)
        });
        let edges = graph.entry(module.clone()).or_default();
        for u in uses {
            if u.target != module && modules.contains(&u.target) {
                edges.entry(u.target.clone()).or_default().push((file.clone(), u));
            }
        }
    }
    (modules, graph)
}

fn where_(sites: &[(PathBuf, Use)]) -> String {
    let (file, u) = &sites[0];
    format!("{}:{} `{}`", file.display(), u.line, u.path)
}

/// The shortest way from `from` to every module it reaches (breadth-first,
/// names in order).
fn ways<'a>(graph: &'a Graph, from: &'a str) -> BTreeMap<&'a str, Vec<&'a str>> {
    let mut ways = BTreeMap::from([(from, vec![from])]);
    let mut queue = VecDeque::from([from]);
    while let Some(v) = queue.pop_front() {
        for w in graph.get(v).into_iter().flat_map(|tos| tos.keys()) {
            if !ways.contains_key(w.as_str()) {
                let way = [&ways[v][..], &[w.as_str()]].concat();
                ways.insert(w, way);
                queue.push_back(w);
            }
        }
    }
    ways
}

/// Every cycle: the modules that reach one another, and one cycle through
/// each edge among them (the edge, then the shortest way back), which
/// together show every edge that keeps them knotted.
fn cycles(graph: &Graph) -> Vec<(Vec<&str>, Vec<Vec<&str>>)> {
    let ways: BTreeMap<&str, _> = graph.keys().map(|v| (v.as_str(), ways(graph, v))).collect();
    let reach = |v: &str, w: &str| ways.get(v).and_then(|to| to.get(w));
    let mut knots = BTreeMap::<Vec<&str>, Vec<Vec<&str>>>::new();
    for (a, b) in graph
        .iter()
        .flat_map(|(a, tos)| tos.keys().map(move |b| (a.as_str(), b.as_str())))
    {
        let Some(back) = reach(b, a) else { continue };
        let comp = ways[a].keys().filter(|w| reach(w, a).is_some()).copied().collect();
        // The cycle without its closing name, rotated to start at the
        // smallest, so that each is printed once.
        let mut cycle = [&[a], &back[..back.len() - 1]].concat();
        let start = (0..cycle.len()).min_by_key(|&k| cycle[k]).unwrap();
        cycle.rotate_left(start);
        cycle.push(cycle[0]);
        let cycles = knots.entry(comp).or_default();
        if !cycles.contains(&cycle) {
            cycles.push(cycle);
        }
    }
    knots.into_iter().collect()
}

/// What breaks the rules: a module that depends on `ffi`, a leaf that
/// depends on another module, a cycle; each with one place per edge.
fn check(graph: &Graph) -> Vec<String> {
    let mut failures = Vec::new();

    // (a) Nothing depends on the exports.
    for (from, tos) in graph {
        if let Some(sites) = tos.get(TOP) {
            failures.push(format!(
                "`{from}` depends on `{TOP}`, the top layer: move what it takes into a leaf \
                 or its own module ({} and {} more)",
                where_(sites),
                sites.len() - 1
            ));
        }
    }

    // (b) Leaves depend on leaves only.
    for leaf in LEAVES {
        for (to, sites) in graph.get(*leaf).into_iter().flatten() {
            if !LEAVES.contains(&to.as_str()) {
                failures.push(format!(
                    "leaf `{leaf}` depends on `{to}`, which is not a leaf: {}",
                    where_(sites)
                ));
            }
        }
    }

    // (c) No cycle.
    for (comp, cycles) in cycles(graph) {
        let mut msg = format!("cycle among {}:", comp.join(", "));
        for cycle in cycles {
            msg.push_str(&format!("\n    {}", cycle.join(" -> ")));
            for pair in cycle.windows(2) {
                let sites = &graph[pair[0]][pair[1]];
                msg.push_str(&format!("\n      {} -> {}: {}", pair[0], pair[1], where_(sites)));
            }
        }
        failures.push(msg);
    }
    failures
}

#[test]
fn modules_run_downhill() {
    let mut files = Vec::new();
    rust_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut files);
    let (modules, graph) = graph(&files);
    println!("module graph (from -> to):");
    for (from, tos) in &graph {
        let names: Vec<&str> = tos.keys().map(String::as_str).collect();
        println!("  {from} -> {}", names.join(", "));
    }
    for leaf in LEAVES {
        assert!(
            modules.contains(*leaf),
            "LEAVES names `{leaf}`, which is not a module of src/"
        );
    }
    let failures = check(&graph);
    assert!(
        failures.is_empty(),
        "the module graph does not run downhill:\n  {}",
        failures.join("\n  ")
    );
}

// ---------------------------------------------------------------------------
// The scan on small snippets.

fn targets(src: &str, depth: usize) -> Vec<String> {
    scan(src, depth).unwrap().into_iter().map(|u| u.target).collect()
}

#[test]
fn scan_reads_use_paths_groups_and_macros() {
    assert_eq!(targets("use crate::team::Team;", 1), ["team"]);
    assert_eq!(
        targets("use crate::{coll::Coll, psync, types::{A, B}};", 1),
        ["coll", "psync", "types"]
    );
    assert_eq!(targets("use crate::{self as c, lock};", 1), ["lock"]);
    assert_eq!(targets("fn f() { let x = crate::runtime::get().pe; }", 1), ["runtime"]);
    assert_eq!(
        targets("fn f() -> crate::heap::Heap<crate::wait::W> {}", 1),
        ["heap", "wait"]
    );
    let u = &scan("\n\nuse crate::{a,\n  space::arena::X};", 1).unwrap()[1];
    assert_eq!((u.line, u.path.as_str()), (4, "crate::space::arena::X"));
    // Macro bodies and arguments are tokens: paths there count too.
    let src = "macro_rules! m { ($x:ident) => { $crate::heap::f($x); use crate::{lock, wait::W}; } }
               fn f() { assert!(crate::team::ok(), \"{}\", crate::coll::N); }";
    assert_eq!(targets(src, 1), ["heap", "lock", "wait", "team", "coll"]);
    assert_eq!(scan(src, 1).unwrap()[0].path, "$crate::heap::f");
}

#[test]
fn scan_ignores_comments_strings_and_visibility() {
    let src = r##"
        //! crate::psync
        // use crate::ffi;
        /// [`crate::team`]
        /* crate::coll /* nested crate::space */ crate::lock */
        fn f() {
            let s = "crate::runtime";
            let r = r#"crate::heap " still"#;
            let c = '"'; let q = '\''; let l: &'static str = "x"; let b = b'"';
            println!("crate::config {}", s);
        }
        pub(crate) fn g() {}
        use crate::wait;
    "##;
    assert_eq!(targets(src, 1), ["wait"]);
}

#[test]
fn scan_resolves_super_that_leaves_the_module() {
    // In src/team/mod.rs (depth 1), super:: is the crate root.
    assert_eq!(targets("use super::coll::Coll;", 1), ["coll"]);
    // In src/team/split.rs (depth 2), super:: is team itself; super::super:: the root.
    assert_eq!(targets("use super::Team; use super::super::psync;", 2), ["psync"]);
    // Inside an inline module, one more level.
    let src = "mod tests { use super::x; use super::super::{lock, wait::W}; }\nuse super::heap;";
    assert_eq!(targets(src, 1), ["lock", "wait", "heap"]);
    // pub(super) is visibility, not a path.
    assert_eq!(targets("pub(super) fn f() {}", 1), Vec::<String>::new());
}

#[test]
fn cycles_are_found_and_printed_per_edge() {
    let graph = |edges: &[(&str, &str)]| {
        let mut g = Graph::new();
        for (a, b) in edges {
            g.entry(a.to_string()).or_default().insert(b.to_string(), Vec::new());
        }
        g
    };
    let g = graph(&[("a", "b"), ("b", "a"), ("b", "c"), ("c", "a"), ("c", "d")]);
    let knotted = [vec!["a", "b", "a"], vec!["a", "b", "c", "a"]];
    assert_eq!(cycles(&g), [(vec!["a", "b", "c"], knotted.to_vec())]);
    assert!(cycles(&graph(&[("a", "b"), ("b", "c")])).is_empty());
}

#[test]
fn violations_are_reported_with_their_place() {
    let files = [
        ("src/ffi/mod.rs", ""),
        ("src/heap/mod.rs", "use crate::ffi;"),
        (
            "src/config/mod.rs",
            "macro_rules! m {\n () => { crate::runtime::get() } }",
        ),
        ("src/runtime/mod.rs", ""),
        ("src/coll/mod.rs", "fn f() { crate::team::Team::new(); }"),
        ("src/team/split.rs", "use super::super::coll::{C, D};"),
    ];
    let files: Vec<_> = files.map(|(f, text)| (PathBuf::from(f), text.to_string())).into();
    assert_eq!(
        check(&graph(&files).1),
        [
            "`heap` depends on `ffi`, the top layer: move what it takes into a leaf or its own module \
             (src/heap/mod.rs:1 `crate::ffi` and 0 more)",
            "leaf `config` depends on `runtime`, which is not a leaf: src/config/mod.rs:2 `crate::runtime::get`",
            "cycle among coll, team:\n    coll -> team -> coll\n      \
             coll -> team: src/coll/mod.rs:1 `crate::team::Team::new`\n      \
             team -> coll: src/team/split.rs:1 `super::super::coll`",
        ]
    );
}

#[test]
fn module_of_maps_files_to_top_level_modules() {
    assert_eq!(module_of(Path::new("team/mod.rs")), Some(("team".into(), 1)));
    assert_eq!(module_of(Path::new("team/split.rs")), Some(("team".into(), 2)));
    assert_eq!(
        module_of(Path::new("runtime/bootstrap/oshrun.rs")),
        Some(("runtime".into(), 3))
    );
    assert_eq!(module_of(Path::new("lock.rs")), Some(("lock".into(), 1)));
    assert_eq!(module_of(Path::new("lib.rs")), None);
    assert_eq!(module_of(Path::new("bin/oshrun.rs")), None);
}
