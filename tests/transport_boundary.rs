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

/// The file's text before its unit tests.
fn code(p: &Path) -> String {
    let text = std::fs::read_to_string(p).unwrap();
    match text.find("#[cfg(test)]") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

/// `peer_addr(` calls whose PE argument is not this PE's (`….me`).
fn peer_addr_of_others(text: &str) -> Vec<String> {
    text.match_indices("peer_addr(")
        .filter_map(|(i, m)| {
            let args = &text[i + m.len()..];
            let pe = args.split(',').next().unwrap_or("").trim();
            (!pe.ends_with(".me")).then(|| format!("peer_addr({pe}, …)"))
        })
        .collect()
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
        for call in peer_addr_of_others(&text) {
            found.push(format!(
                "src/{rel}: `{call}`: another PE's address (use Transport::local_ptr)"
            ));
        }
    }
    assert!(
        found.is_empty(),
        "code reaching another PE around the transport:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_scan_recognises_own_and_other_addresses() {
    assert!(peer_addr_of_others("rt.segs.peer_addr(rt.me, off)").is_empty());
    assert!(peer_addr_of_others("segs.peer_addr(segs.me, SymOffset(x))").is_empty());
    assert_eq!(peer_addr_of_others("rt.segs.peer_addr(pe, off)"), ["peer_addr(pe, …)"]);
    assert_eq!(peer_addr_of_others("c.rt.segs.peer_addr(\n c.g.pe(k),\n off)").len(), 1);
}

/// Fields of the `World` that only the core touches: the shim (`src/ffi/`)
/// asks through `World`'s narrow methods (`own_offset`, `in_heap`,
/// `globals`, `psync_footprint`) or a core function, so that locking the
/// heap, writing the control block or the pSync state from a shim fails
/// here. (`transport`, `config` and the hot path's `short_elems` and
/// `thread_level` are read there on purpose.)
const CORE_STATE: &[&str] = &["segs", "heap", "control", "psync", "tables", "policy"];

/// `.field` accesses of `fields` in `text` (not `.field_more` or `.fields(`).
fn field_uses<'a>(text: &str, fields: &[&'a str]) -> Vec<&'a str> {
    let mut out = Vec::new();
    for &f in fields {
        let needle = format!(".{f}");
        for (i, _) in text.match_indices(&needle) {
            let next = text[i + needle.len()..].chars().next().unwrap_or(' ');
            if !(next.is_alphanumeric() || next == '_' || next == '(') {
                out.push(f);
            }
        }
    }
    out
}

#[test]
fn the_shim_reaches_core_state_only_through_the_core() {
    let ffi = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/ffi");
    let mut files = Vec::new();
    sources(&ffi, &mut files);
    assert!(files.len() > 20, "found the shim's sources");
    let mut found = Vec::new();
    for f in &files {
        for field in field_uses(&code(f), CORE_STATE) {
            found.push(format!("{}: `.{field}`", f.strip_prefix(&ffi).unwrap().display()));
        }
    }
    assert!(
        found.is_empty(),
        "the shim touches core state (ask a World method or a core function):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_field_scan_sees_a_heap_lock() {
    assert_eq!(field_uses("let g = rt.heap.lock();", CORE_STATE), ["heap"]);
    assert_eq!(field_uses("rt\n    .segs\n    .offset_of(a, 0)", CORE_STATE), ["segs"]);
    assert!(field_uses("rt.heap_offset(a); rt.policy_of(x); rt.tables(", CORE_STATE).is_empty());
}
