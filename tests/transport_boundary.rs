//! The transport is the only road to another PE: outside the modules that own
//! the node-wide state (`transport/`, `heap/`, `wait/`, `runtime/`,
//! `world.rs` (this PE's waiters on its own bells), `job.rs`, `launcher/`,
//! and `stuck/`, which publishes this PE's place in its slot and reads every
//! slot to find a job that can never finish, as `oshrun` does for its hang
//! reports), no code reads another PE's slot of the control block, rings
//! another PE's bell, sleeps on a futex, or computes an address in another
//! PE's segment. Each of those must be a `Transport` operation, so that a
//! transport whose peers are not mapped can be plugged in.
//!
//! A source scan (like a lint): items under `#[cfg(test)]` are not scanned.

use std::path::{Path, PathBuf};
use syn::spanned::Spanned;
use syn::visit::Visit;

/// Directories and files of `src/` that may touch node-wide state directly.
const OWNERS: &[&str] = &[
    "transport/",
    "heap/",
    "wait/",
    "runtime/",
    "world.rs",
    "job.rs",
    "launcher/",
    "bin/",
    // Writes only this PE's place (and its threads') in its slot; reads every
    // slot of a node, for the library's verdict, oshrun's hang reports and a
    // node's own watcher across nodes; rings the bells only to have the
    // waiters answer its probe: an observer, like the launcher.
    "stuck/",
];

/// Text that reaches another PE, or node-wide state, around the trait.
const FORBIDDEN: &[(&str, &str)] = &[
    ("control.slot(", "a PE's slot of the control block"),
    ("whereabouts", "where a PE runs (use Transport::locate / may_share_cpu)"),
    ("wake.sync", "a PE's bell (use Transport::wake)"),
    ("wake.memory", "a PE's bell"),
    ("notify(", "ringing a bell (the transport rings after its writes)"),
    ("notify_after_seqcst(", "ringing a bell (use Transport::wake)"),
    ("futex::", "a futex (use Transport::sleep_on_word)"),
];

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The file's text with every `#[cfg(test)]` item blanked (its lines kept
/// empty, so line numbers stay right): test code may reach anything.
fn code(p: &Path) -> String {
    let text = std::fs::read_to_string(p).unwrap();
    let file = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let mut tests = TestItems(Vec::new());
    tests.visit_file(&file);
    let skip = |line: usize| tests.0.iter().any(|&(a, b)| (a..=b).contains(&line));
    text.lines()
        .enumerate()
        .map(|(i, l)| if skip(i + 1) { "" } else { l })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The line ranges of the items under `#[cfg(test)]`, wherever they are.
struct TestItems(Vec<(usize, usize)>);

fn is_test(attrs: &[syn::Attribute]) -> bool {
    attrs
        .iter()
        .any(|a| matches!(&a.meta, syn::Meta::List(l) if l.path.is_ident("cfg") && l.tokens.to_string() == "test"))
}

macro_rules! skip_test_items {
    ($($visit:ident: $item:ty),*) => {$(
        fn $visit(&mut self, i: &'ast $item) {
            match is_test(&i.attrs) {
                true => self.0.push((i.span().start().line, i.span().end().line)),
                false => syn::visit::$visit(self, i),
            }
        }
    )*};
}

impl<'ast> Visit<'ast> for TestItems {
    skip_test_items!(
        visit_item_fn: syn::ItemFn,
        visit_item_mod: syn::ItemMod,
        visit_item_const: syn::ItemConst,
        visit_item_static: syn::ItemStatic,
        visit_item_impl: syn::ItemImpl,
        visit_item_use: syn::ItemUse,
        visit_item_struct: syn::ItemStruct,
        visit_item_macro: syn::ItemMacro,
        visit_impl_item_fn: syn::ImplItemFn
    );
}

#[test]
fn only_test_items_are_skipped() {
    let dir = std::env::temp_dir().join(format!("transport_boundary_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("x.rs");
    std::fs::write(
        &f,
        "#[cfg(test)]\nfn a() { futex::x() }\nfn b() { wake.sync }\n#[cfg(test)]\nmod tests {\n    fn t() { notify() }\n}\n",
    )
    .unwrap();
    let text = code(&f);
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(
        text.contains("wake.sync") && !text.contains("futex::") && !text.contains("notify"),
        "{text}"
    );
}

#[test]
fn nothing_outside_the_transport_reaches_another_pe() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    files.sort();
    assert!(files.len() > 50, "found the sources under src/");
    let mut found = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(&src).unwrap().to_string_lossy().replace('\\', "/");
        if OWNERS.iter().any(|o| rel.starts_with(o)) {
            continue;
        }
        let text = code(f);
        for (needle, what) in FORBIDDEN {
            if text.contains(needle) {
                found.push(format!("src/{rel}: `{needle}` ({what})"));
            }
        }
    }
    assert!(
        found.is_empty(),
        "code reaching another PE around the transport:\n{}",
        found.join("\n")
    );
}

/// `World`'s accessors of node-wide state that only the core calls. What
/// types cannot say: Rust's visibility cannot let `coll/`, `team/` and
/// `runtime/` call a method that `ffi/`, their sibling, may not. The rest is
/// the compiler's: `World`'s segments, heap allocator and page tables are
/// private fields (a `rt.heap.lock()` in the shim does not compile), and
/// outside the owners nothing holds a `Segments` to compute another PE's
/// address with. The shim asks `own_offset`, `in_heap`, `globals` and
/// `psync_footprint`, or calls a core function.
const CORE_ONLY: &[&str] = &[
    "control",
    "set_state",
    "psync",
    "allocator",
    "reach",
    "tables_budget",
    "library_region",
];

/// Calls `.name(` of `names` in `text`.
fn calls<'a>(text: &str, names: &[&'a str]) -> Vec<&'a str> {
    names
        .iter()
        .copied()
        .filter(|n| text.contains(&format!(".{n}(")))
        .collect()
}

#[test]
fn the_shim_reaches_core_state_only_through_the_core() {
    let ffi = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/ffi");
    let mut files = Vec::new();
    sources(&ffi, &mut files);
    assert!(files.len() > 20, "found the shim's sources");
    let mut found = Vec::new();
    for f in &files {
        for name in calls(&code(f), CORE_ONLY) {
            found.push(format!("{}: `.{name}(`", f.strip_prefix(&ffi).unwrap().display()));
        }
    }
    assert!(
        found.is_empty(),
        "the shim touches core state (ask a World method or a core function):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_call_scan_sees_core_calls() {
    assert_eq!(calls("rt.control().slot(0)", CORE_ONLY), ["control"]);
    assert_eq!(calls("rt\n    .psync()\n    .accounting", CORE_ONLY), ["psync"]);
    assert!(
        calls(
            "rt.psync_footprint(None); rt.own_offset(a, 0); rt.in_heap(a)",
            CORE_ONLY
        )
        .is_empty()
    );
}
