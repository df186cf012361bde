//! The transport is the only road to another PE: outside the modules that own
//! the node-wide state (`transport/`, `heap/`, `wait/`, `runtime/`,
//! `world.rs` (this PE's waiters on its own bells), `job.rs`, `launcher/`,
//! and `hang/`, which only reads the slots for hang reports, as `oshrun`
//! does), no code reads another PE's slot of the control block, rings
//! another PE's bell, sleeps on a futex, or computes an address in another
//! PE's segment. Each of those must be a `Transport` operation, so that a
//! transport whose peers are not mapped can be plugged in.
//!
//! A source scan (like a lint): unit tests at the end of a file
//! (`#[cfg(test)]` onwards) are not scanned.

use std::path::{Path, PathBuf};

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
    // Reads (never writes) every slot of a node, for oshrun's hang reports and
    // a node's own watcher across nodes: an observer, like the launcher.
    "hang/",
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

/// The file's text before its unit tests.
fn code(p: &Path) -> String {
    let text = std::fs::read_to_string(p).unwrap();
    match text.find("#[cfg(test)]") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
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
