//! The module graph of `src/` runs downhill: no module depends on `ffi` (the
//! exports sit on top), the leaf helpers depend on no other module, and the
//! remaining top-level modules form no cycle.
//!
//! The graph is read from the source text, std only: every `.rs` file under
//! `src/` belongs to its top-level module (`src/team/mod.rs`, `src/team/x.rs`
//! → `team`; `src/lock.rs` → `lock`; `src/lib.rs` and `src/bin/` are the
//! roots and are skipped), and a file depends on each top-level module named
//! by a `crate::` (or `$crate::`) path, including `use crate::{a::b, c}`
//! groups, or by a `super::` path that climbs out of its top-level module.
//! Comments and the contents of string and character literals are blanked
//! first, so prose and messages never count. Macro bodies are plain text here,
//! so their paths count for the file that defines the macro. Code generated
//! into `$OUT_DIR` (the typed exports) is `ffi`'s and is not read.
//!
//! `cargo test --test module_cycles -- --nocapture` prints the whole graph.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::{Path, PathBuf};

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
#[derive(Clone, Debug, PartialEq, Eq)]
struct Use {
    line: usize,
    target: String,
    path: String,
}

// ---------------------------------------------------------------------------
// Lexing: blank comments and literal contents, then split into tokens.

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The text with comments and the contents of string and character literals
/// replaced by spaces. Newlines are kept, so line numbers stay right.
fn strip(src: &str) -> String {
    let s: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let blank = |out: &mut String, c: char| out.push(if c == '\n' { '\n' } else { ' ' });
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        let next = s.get(i + 1).copied();
        let prev_ident = i > 0 && is_ident_char(s[i - 1]);
        if c == '/' && next == Some('/') {
            while i < s.len() && s[i] != '\n' {
                blank(&mut out, s[i]);
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            // Block comments nest in Rust.
            let mut depth = 0;
            while i < s.len() {
                if s[i] == '/' && s.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if s[i] == '*' && s.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, s[i]);
                    i += 1;
                }
            }
        } else if let Some(hashes) = raw_string_start(&s, i, prev_ident) {
            // r"..", r#".."#, br#".."#: no escapes, ends at `"` plus the hashes.
            while s[i] != '"' {
                out.push(s[i]);
                i += 1;
            }
            out.push('"');
            i += 1;
            while i < s.len() {
                if s[i] == '"' && (1..=hashes).all(|k| s.get(i + k) == Some(&'#')) {
                    out.push('"');
                    out.extend(std::iter::repeat_n('#', hashes));
                    i += 1 + hashes;
                    break;
                }
                blank(&mut out, s[i]);
                i += 1;
            }
        } else if c == '"' {
            out.push('"');
            i += 1;
            while i < s.len() && s[i] != '"' {
                if s[i] == '\\' && i + 1 < s.len() {
                    blank(&mut out, s[i]);
                    i += 1;
                }
                blank(&mut out, s[i]);
                i += 1;
            }
            out.push('"');
            i += 1;
        } else if c == '\'' && (!prev_ident || byte_prefix(&s, i)) {
            // A character literal ('a', '\n', '"', b'"'), or else a lifetime or label.
            let end = if next == Some('\\') {
                (i + 3..s.len()).find(|&j| s[j] == '\'')
            } else if s.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            match end {
                Some(end) => {
                    out.push('\'');
                    for &ch in &s[i + 1..end] {
                        blank(&mut out, ch);
                    }
                    out.push('\'');
                    i = end + 1;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// Whether the quote at `i` follows a lone `b` (a byte literal, `b'x'`).
fn byte_prefix(s: &[char], i: usize) -> bool {
    i >= 1 && s[i - 1] == 'b' && (i < 2 || !is_ident_char(s[i - 2]))
}

/// If a raw string literal starts at `i`, the number of its `#`s.
fn raw_string_start(s: &[char], i: usize, prev_ident: bool) -> Option<usize> {
    if prev_ident {
        return None;
    }
    let mut j = i;
    if s[j] == 'b' || s[j] == 'c' {
        j += 1;
    }
    if s.get(j) != Some(&'r') {
        return None;
    }
    j += 1;
    let hashes = s[j..].iter().take_while(|&&c| c == '#').count();
    (s.get(j + hashes) == Some(&'"')).then_some(hashes)
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Token {
    text: String,
    line: usize,
}

/// Identifiers (with `$crate` as one), `::`, and single punctuation characters.
fn tokens(stripped: &str) -> Vec<Token> {
    let s: Vec<char> = stripped.chars().collect();
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if is_ident_char(c) || (c == '$' && s.get(i + 1).is_some_and(|&n| is_ident_char(n))) {
            let start = i;
            i += 1;
            while i < s.len() && is_ident_char(s[i]) {
                i += 1;
            }
            out.push(Token {
                text: s[start..i].iter().collect(),
                line,
            });
        } else if c == ':' && s.get(i + 1) == Some(&':') {
            out.push(Token {
                text: "::".into(),
                line,
            });
            i += 2;
        } else {
            out.push(Token {
                text: c.to_string(),
                line,
            });
            i += 1;
        }
    }
    out
}

// ---------------------------------------------------------------------------
// Scanning: the top-level modules one file names.

fn is_ident(t: &str) -> bool {
    t.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_') && t.chars().all(is_ident_char)
}

/// The uses of top-level modules in one file whose module sits `file_depth`
/// levels below the crate root (`src/lock.rs`, `src/team/mod.rs`: 1;
/// `src/team/x.rs`: 2). Paths that stay inside the crate root's own items
/// (`crate::headers`) are returned too; the caller keeps the known modules.
fn scan(src: &str, file_depth: usize) -> Vec<Use> {
    let t = tokens(&strip(src));
    let text = |k: usize| t.get(k).map_or("", |tok| tok.text.as_str());
    let mut uses = Vec::new();
    // Brace depth, and the brace depths at which inline `mod x {` blocks opened.
    let mut braces = 0usize;
    let mut inline_mods: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < t.len() {
        let prev = if i > 0 { text(i - 1) } else { "" };
        match text(i) {
            "{" => {
                if i >= 2 && text(i - 2) == "mod" && is_ident(text(i - 1)) {
                    inline_mods.push(braces);
                }
                braces += 1;
            }
            "}" => {
                braces = braces.saturating_sub(1);
                if inline_mods.last() == Some(&braces) {
                    inline_mods.pop();
                }
            }
            "crate" | "$crate" if text(i + 1) == "::" && prev != "::" => {
                uses.extend(root_targets(&t, i + 2, text(i)));
            }
            "super" if text(i + 1) == "::" && prev != "::" => {
                let mut k = i;
                let mut climbs = 0;
                while text(k) == "super" && text(k + 1) == "::" {
                    climbs += 1;
                    k += 2;
                }
                if climbs == file_depth + inline_mods.len() {
                    let written = vec!["super"; climbs].join("::");
                    uses.extend(root_targets(&t, k, &written));
                }
                i = k;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    uses
}

/// The crate-root names that a path continues with at token `k`, after its
/// `crate::` (or `super::...::`) prefix: one name, or each entry of a group.
fn root_targets(t: &[Token], k: usize, prefix: &str) -> Vec<Use> {
    let text = |k: usize| t.get(k).map_or("", |tok| tok.text.as_str());
    let path_from = |k: usize| {
        let mut p = format!("{prefix}::{}", text(k));
        let mut j = k + 1;
        while text(j) == "::" && is_ident(text(j + 1)) {
            p.push_str("::");
            p.push_str(text(j + 1));
            j += 2;
        }
        p
    };
    let at = |k: usize| Use {
        line: t[k].line,
        target: text(k).to_string(),
        path: path_from(k),
    };
    if is_ident(text(k)) && text(k) != "self" {
        return vec![at(k)];
    }
    if text(k) != "{" {
        return Vec::new();
    }
    // A group: the first name of every entry at the group's own level.
    let mut out = Vec::new();
    let mut depth = 0;
    let mut entry_start = true;
    for j in k..t.len() {
        match text(j) {
            "{" => {
                depth += 1;
                entry_start = depth == 1;
            }
            "}" => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            "," if depth == 1 => entry_start = true,
            name if entry_start && depth == 1 => {
                if is_ident(name) && name != "self" {
                    out.push(at(j));
                }
                entry_start = false;
            }
            _ => {}
        }
    }
    out
}

// ---------------------------------------------------------------------------
// The graph.

/// Every edge `from -> to` between top-level modules, with every place it is used.
type Graph = BTreeMap<String, BTreeMap<String, Vec<(PathBuf, Use)>>>;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
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

fn graph() -> (BTreeSet<String>, Graph) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = root.join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let modules: BTreeSet<String> = files
        .iter()
        .filter_map(|f| module_of(f.strip_prefix(&src).unwrap()).map(|(m, _)| m))
        .collect();
    let mut graph = Graph::new();
    for file in &files {
        let Some((module, depth)) = module_of(file.strip_prefix(&src).unwrap()) else {
            continue;
        };
        let text = std::fs::read_to_string(file).unwrap();
        let rel = file.strip_prefix(root).unwrap().to_path_buf();
        let edges = graph.entry(module.clone()).or_default();
        for u in scan(&text, depth) {
            if u.target != module && modules.contains(&u.target) {
                edges.entry(u.target.clone()).or_default().push((rel.clone(), u));
            }
        }
    }
    (modules, graph)
}

fn where_(sites: &[(PathBuf, Use)]) -> String {
    let (file, u) = &sites[0];
    format!("{}:{} `{}`", file.display(), u.line, u.path)
}

/// The nodes of every cycle: strongly connected components with two or more
/// modules (Tarjan's algorithm).
fn cycle_components(nodes: &BTreeSet<String>, edges: &BTreeSet<(String, String)>) -> Vec<Vec<String>> {
    struct State<'a> {
        edges: &'a BTreeSet<(String, String)>,
        index: BTreeMap<String, usize>,
        low: BTreeMap<String, usize>,
        stack: Vec<String>,
        on_stack: BTreeSet<String>,
        out: Vec<Vec<String>>,
    }
    fn visit(s: &mut State, v: &str) {
        let n = s.index.len();
        s.index.insert(v.into(), n);
        s.low.insert(v.into(), n);
        s.stack.push(v.into());
        s.on_stack.insert(v.into());
        let succ: Vec<String> = s.edges.iter().filter(|(a, _)| a == v).map(|(_, b)| b.clone()).collect();
        for w in succ {
            if !s.index.contains_key(&w) {
                visit(s, &w);
                let lw = s.low[&w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if s.on_stack.contains(&w) {
                let iw = s.index[&w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on_stack.remove(&w);
                comp.push(w.clone());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                s.out.push(comp);
            }
        }
    }
    let mut s = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in nodes {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.out
}

/// One cycle through each edge inside a component: the edge, then the
/// shortest way back. Together they show every edge that keeps it knotted.
fn cycles_in(comp: &[String], edges: &BTreeSet<(String, String)>) -> Vec<Vec<String>> {
    let inside = |(a, b): &(String, String)| comp.contains(a) && comp.contains(b);
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for (a, b) in edges.iter().filter(|e| inside(e)) {
        // Breadth-first from b back to a, inside the component.
        let mut parent: BTreeMap<&String, &String> = BTreeMap::new();
        let mut queue = VecDeque::from([b]);
        let mut reached = b == a;
        while let Some(v) = queue.pop_front() {
            if v == a {
                reached = true;
                break;
            }
            for (_, w) in edges.iter().filter(|e| &e.0 == v && inside(e)) {
                if w != b && !parent.contains_key(w) {
                    parent.insert(w, v);
                    queue.push_back(w);
                }
            }
        }
        if !reached {
            continue;
        }
        let mut back = vec![a.clone()];
        let mut v = a;
        while v != b {
            v = parent[v];
            back.push(v.clone());
        }
        back.reverse(); // b .. a
        let mut cycle = vec![a.clone()];
        cycle.extend(back);
        // Rotate to start at the smallest name, so each cycle is printed once.
        let body = &cycle[..cycle.len() - 1];
        let start = (0..body.len()).min_by_key(|&k| &body[k]).unwrap();
        let mut canon: Vec<String> = body[start..].iter().chain(&body[..start]).cloned().collect();
        canon.push(canon[0].clone());
        if seen.insert(canon.clone()) {
            out.push(canon);
        }
    }
    out
}

fn edge_set(graph: &Graph) -> BTreeSet<(String, String)> {
    graph
        .iter()
        .flat_map(|(a, tos)| tos.keys().map(move |b| (a.clone(), b.clone())))
        .collect()
}

#[test]
fn modules_run_downhill() {
    let (modules, graph) = graph();
    println!("module graph (from -> to):");
    for (from, tos) in &graph {
        let names: Vec<&str> = tos.keys().map(String::as_str).collect();
        println!("  {from} -> {}", names.join(", "));
    }
    let mut failures = Vec::new();

    // (a) Nothing depends on the exports.
    for (from, tos) in &graph {
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
    let leaves_up = |a: &str, b: &str| LEAVES.contains(&a) && !LEAVES.contains(&b);
    for leaf in LEAVES {
        assert!(
            modules.contains(*leaf),
            "LEAVES names `{leaf}`, which is not a module of src/"
        );
        for (to, sites) in graph.get(*leaf).into_iter().flatten() {
            if leaves_up(leaf, to) {
                failures.push(format!(
                    "leaf `{leaf}` depends on `{to}`, which is not a leaf: {}",
                    where_(sites)
                ));
            }
        }
    }

    // (c) No cycle.
    let checked = edge_set(&graph);
    for comp in cycle_components(&modules, &checked) {
        let mut msg = format!("cycle among {}:", comp.join(", "));
        for cycle in cycles_in(&comp, &checked) {
            msg.push_str(&format!("\n    {}", cycle.join(" -> ")));
            for pair in cycle.windows(2) {
                let sites = &graph[&pair[0]][&pair[1]];
                msg.push_str(&format!("\n      {} -> {}: {}", pair[0], pair[1], where_(sites)));
            }
        }
        failures.push(msg);
    }

    assert!(
        failures.is_empty(),
        "the module graph does not run downhill:\n  {}",
        failures.join("\n  ")
    );
}

// ---------------------------------------------------------------------------
// The parser on small snippets.

fn targets(src: &str, depth: usize) -> Vec<String> {
    scan(src, depth).into_iter().map(|u| u.target).collect()
}

#[test]
fn parser_reads_use_paths_and_groups() {
    assert_eq!(targets("use crate::team::Team;", 1), ["team"]);
    assert_eq!(
        targets("use crate::{coll::Coll, psync, types::{A, B}};", 1),
        ["coll", "psync", "types"]
    );
    assert_eq!(targets("use crate::{self as c, lock};", 1), ["lock"]);
    assert_eq!(targets("let x = crate::runtime::get().pe;", 1), ["runtime"]);
    assert_eq!(
        targets("fn f() -> crate::heap::Heap { $crate::wait::spin() }", 1),
        ["heap", "wait"]
    );
    let u = &scan("\n\nuse crate::{a,\n  space::arena::X};", 1)[1];
    assert_eq!((u.line, u.path.as_str()), (4, "crate::space::arena::X"));
}

#[test]
fn parser_ignores_comments_strings_and_visibility() {
    let src = r##"
        // use crate::ffi;
        /// [`crate::team`]
        //! crate::psync
        /* crate::coll /* nested crate::space */ crate::lock */
        let s = "crate::runtime";
        let r = r#"crate::heap " still"#;
        let c = '"'; let q = '\''; let l: &'static str = "x"; let b = b'"';
        pub(crate) fn f() {}
        use crate::wait;
    "##;
    assert_eq!(targets(src, 1), ["wait"]);
}

#[test]
fn parser_resolves_super_that_leaves_the_module() {
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
    let e = |a: &str, b: &str| (a.to_string(), b.to_string());
    let edges: BTreeSet<_> = [e("a", "b"), e("b", "a"), e("b", "c"), e("c", "a"), e("c", "d")].into();
    let nodes: BTreeSet<String> = ["a", "b", "c", "d"].map(String::from).into();
    let comps = cycle_components(&nodes, &edges);
    assert_eq!(comps, [["a", "b", "c"].map(String::from).to_vec()]);
    let cycles = cycles_in(&comps[0], &edges);
    assert_eq!(cycles, [vec!["a", "b", "a"], vec!["a", "b", "c", "a"]]);
    assert!(cycle_components(&nodes, &[e("a", "b"), e("b", "c")].into()).is_empty());
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
