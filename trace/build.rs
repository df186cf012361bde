//! Generates `$OUT_DIR/wrappers.rs`, the trace layer's `shmem_` routines, from
//! the library's own tables (`src/ffi/table.rs`, `src/ffi/protos.rs`), which
//! it includes with `#[path]` as the library's `build.rs` does: every routine
//! of the C API that communicates, waits or orders gets a wrapper, every type
//! of every family, so a new routine is traced without a change here.
//!
//! Each wrapper takes a timestamp, calls the library's `pshmem_` twin with the
//! same arguments, takes another and records the event (`src/lib.rs`). Left
//! out: the cheap queries (`SKIP`), the routines without a `pshmem_` twin
//! (the deprecated names such as `shmalloc`), `shmem_global_exit` (it does not
//! return), the variadic `shmem_pcontrol`, the four `long double` by-value
//! routines Rust cannot describe (`HAND_WRITTEN`), and the set-up routines the
//! layer writes by hand (`HAND`).

#[path = "../src/ffi/protos.rs"]
mod protos;
#[path = "../build/syms.rs"]
mod syms;
#[path = "../src/ffi/table.rs"]
mod table;
#[path = "../src/ffi/type_sets.rs"]
mod type_sets;

use std::fmt::Write as _;
use syms::*;
use table::FAMILIES;

/// Queries: cheap, frequent, and nothing to see on a timeline.
const SKIP: &[&str] = &[
    "shmem_my_pe",
    "shmem_n_pes",
    "shmem_pe_accessible",
    "shmem_addr_accessible",
    "shmem_ptr",
    "shmem_info_get_version",
    "shmem_info_get_name",
    "shmem_query_thread",
    "shmem_query_initialized",
    "shmem_team_my_pe",
    "shmem_team_n_pes",
    "shmem_team_get_config",
    "shmem_team_translate_pe",
    "shmem_team_ptr",
    "shmem_ctx_get_team",
    "shmemx_psync_footprint",
    "shmemx_team_psync_footprint",
    "shmemx_space_get_team",
    "shmemx_notify_count",
    "shmemx_notify_flag",
    "shmemx_notify_state",
];

/// Written by hand in `src/lib.rs` (they start and end the trace).
const HAND: &[&str] = &["shmem_init", "shmem_init_thread", "shmem_finalize"];

/// The `shmemx_` alias of a `shmem_` name (as `build/compat.rs` makes them).
fn alias(name: &str) -> String {
    name.replacen("shmem_", "shmemx_", 1)
}

/// Bytes of one element of a table type (its Rust spelling).
fn elem_size(rust: &str) -> usize {
    match rust {
        "u8" | "i8" | "core::ffi::c_char" => 1,
        "u16" | "i16" => 2,
        "u32" | "i32" | "f32" => 4,
        "u64" | "i64" | "f64" | "usize" | "isize" | "crate::types::ComplexF" => 8,
        "[u64; 2]" | "crate::types::LongDouble" | "crate::types::ComplexD" => 16,
        other => panic!("trace/build.rs: no size for element type {other:?}"),
    }
}

/// The Rust type of an element passed by value, if Rust can pass it as C does.
fn by_value(rust: &str) -> Option<&str> {
    (!rust.starts_with("crate::") && !rust.starts_with('[')).then_some(rust)
}

/// Rust spelling of an untyped C type, for the layer: handles and opaque
/// objects are pointers, the one structure passed by value is the library's.
fn c_to_rust(c: &str) -> String {
    let named = |t: &str| match t {
        "shmem_team_config_t"
        | "shmem_ctx_session_config_t"
        | "shmemx_psync_footprint_t"
        | "shmemx_sem_t"
        | "shmemx_notify_t"
        | "shmemx_pcntr_t" => Some("core::ffi::c_void"),
        "shmemx_ct_t" => Some("*mut core::ffi::c_char"),
        "shmem_ctx_t" | "shmem_team_t" | "shmem_req_h" | "shmemx_space_t" | "shmemx_gettid_fn_t" => {
            Some("*mut core::ffi::c_void")
        }
        "shmemx_space_config_t" => Some("crate::SpaceConfig"),
        _ => None,
    };
    c_to_rust_with(c, &named, "trace/build.rs")
}

/// The event category of a routine, from the module of its shim in the
/// library (`rma::put`, `coll::barrier`, ...) and its name.
fn category(shim: &str, name: &str) -> &'static str {
    let base = name.trim_start_matches("shmemx_").trim_start_matches("shmem_");
    let module = shim.split("::").next().unwrap_or("");
    let is_sync = matches!(base, "barrier_all" | "sync_all" | "barrier" | "sync" | "team_sync");
    if is_sync {
        return "SYNC";
    }
    match module {
        "rma" => "RMA",
        "amo" => "AMO",
        "signal" if base.contains("wait") => "WAIT",
        "signal" => "SIGNAL",
        "p2p" => "WAIT",
        "coll" => "COLL",
        "order" => "ORDER",
        "lock" => "LOCK",
        "semaphore" if base.contains("memput") => "SIGNAL",
        "semaphore" if base.contains("wait") => "WAIT",
        "semaphore" => "SEM",
        "notify" if base.contains("wait") => "WAIT",
        "notify" if base.contains("put") => "SIGNAL",
        "notify" => "NOTIFY",
        "ct" if base.ends_with("mem_ct") => "RMA",
        "ct" if base.contains("wait") => "WAIT",
        _ => "SETUP",
    }
}

/// One wrapper to generate.
struct Wrapper {
    name: String,
    category: &'static str,
    /// (name, Rust type) of the C parameters, in order.
    params: Vec<(String, String)>,
    /// Rust return type, empty for `void`.
    ret: String,
    /// Expression of the peer PE (an `i32`).
    peer: String,
    /// Expression of the bytes (a `u64`).
    bytes: String,
}

fn typed(sym: &Sym) -> Option<Wrapper> {
    let f = &FAMILIES[sym.family];
    let elem = elem_size(&sym.rust_ty);
    let mut params = Vec::new();
    if sym.ctx {
        params.push(("ctx".to_string(), "*mut core::ffi::c_void".to_string()));
    }
    for (c, n) in f.params {
        let ty = match *c {
            "TYPE *" => "*mut core::ffi::c_void".to_string(),
            "const TYPE *" => "*const core::ffi::c_void".to_string(),
            "TYPE" => by_value(&sym.rust_ty)?.to_string(),
            other => c_to_rust(other),
        };
        params.push((n.to_string(), ty));
    }
    let ret = match f.ret {
        "void" => String::new(),
        "TYPE" => by_value(&sym.rust_ty)?.to_string(),
        other => c_to_rust(other),
    };
    let has = |n: &str| f.params.iter().any(|(_, p)| *p == n);
    let peer = peer_of(has("pe"), has("PE_root"));
    let count = if has("bsize") {
        "(bsize as u64).wrapping_mul(nblocks as u64)".to_string()
    } else if let Some(n) = ["nelems", "nreduce"].into_iter().find(|n| has(n)) {
        format!("({n} as u64)")
    } else if f.shim.starts_with("amo::") || f.ret == "TYPE" || has("value") {
        // One element: an atomic, `shmem_p`, `shmem_g`.
        "1u64".to_string()
    } else {
        "0u64".to_string()
    };
    Some(Wrapper {
        name: sym.name.clone(),
        category: category(f.shim, &sym.name),
        params,
        ret,
        peer,
        bytes: format!("{count}.wrapping_mul({elem})"),
    })
}

fn peer_of(pe: bool, root: bool) -> String {
    if pe {
        "pe as i32".into()
    } else if root {
        "PE_root as i32".into()
    } else {
        "-1".into()
    }
}

fn untyped(decl: &str, shim: &str, name: &str) -> Wrapper {
    let (ret, _, cparams) = parse_decl(decl);
    let params: Vec<(String, String)> = cparams.iter().map(|(t, n)| (n.clone(), c_to_rust(t))).collect();
    let has = |n: &str| params.iter().any(|(p, _)| p == n);
    // The element size of the active-set collectives is in their names.
    let elem = if name.ends_with("32") { 4 } else { 8 };
    let bytes = if has("nbytes") {
        "nbytes as u64".to_string()
    } else if has("nelems") {
        format!("(nelems as u64).wrapping_mul({elem})")
    } else if has("signal") {
        "8u64".to_string()
    } else {
        "0u64".to_string()
    };
    Wrapper {
        name: name.to_string(),
        category: category(shim, name),
        peer: peer_of(has("pe"), has("PE_root")),
        bytes,
        params,
        ret: if ret == "void" { String::new() } else { c_to_rust(&ret) },
    }
}

fn wrappers() -> Vec<Wrapper> {
    let mut v = Vec::new();
    for sym in symbols() {
        let shmemx = FAMILIES[sym.family].shmemx;
        if sym.hand_written {
            continue;
        }
        if let Some(w) = typed(&sym) {
            if shmemx {
                let mut a = typed(&sym).expect("same symbol");
                a.name = alias(&sym.name);
                v.push(a);
            }
            v.push(w);
        }
    }
    for protos in protos::PLAIN
        .iter()
        .map(|(_, p)| *p)
        .chain(std::iter::once(protos::SHMEMX))
    {
        for p in protos.iter() {
            let (_, name, _) = parse_decl(p.decl);
            let wrapped = !p.rust.is_empty()
                && !p.decl.starts_with("SHMEM_NORETURN")
                && (name.starts_with("shmem_") || name.starts_with("shmemx_"))
                && !SKIP.contains(&name.as_str())
                && !HAND.contains(&name.as_str());
            if !wrapped {
                continue;
            }
            v.push(untyped(p.decl, p.rust, &name));
            if p.shmemx {
                v.push(untyped(p.decl, p.rust, &alias(&name)));
            }
        }
    }
    v.sort_by(|a, b| a.name.cmp(&b.name));
    v.dedup_by(|a, b| a.name == b.name);
    v
}

fn generate(ws: &[Wrapper]) -> String {
    let mut s = String::from(
        "// Generated by trace/build.rs from src/ffi/table.rs and protos.rs. Do not edit.\n\n\
         /// Every traced routine, by its index in the records: name and category.\n\
         pub static ROUTINES: &[(&str, crate::Category)] = &[\n",
    );
    for w in ws {
        let _ = writeln!(s, "    ({:?}, crate::Category::{}),", w.name, camel(w.category));
    }
    s.push_str("];\n\n/// The `pshmem_` twin each routine forwards to, by the same index.\n");
    s.push_str("static TWINS: &[&core::ffi::CStr] = &[\n");
    for w in ws {
        let _ = writeln!(s, "    c\"p{}\",", w.name);
    }
    s.push_str("];\n\n/// The twins' addresses, looked up on first use.\n");
    let _ = writeln!(
        s,
        "static RESOLVED: [core::sync::atomic::AtomicPtr<core::ffi::c_void>; {}] =\n    [const {{ core::sync::atomic::AtomicPtr::new(core::ptr::null_mut()) }}; {}];\n",
        ws.len(),
        ws.len()
    );
    for (id, w) in ws.iter().enumerate() {
        let params: Vec<String> = w.params.iter().map(|(n, t)| format!("{n}: {t}")).collect();
        let types: Vec<&str> = w.params.iter().map(|(_, t)| t.as_str()).collect();
        let args: Vec<&str> = w.params.iter().map(|(n, _)| n.as_str()).collect();
        let ret = if w.ret.is_empty() {
            String::new()
        } else {
            format!(" -> {}", w.ret)
        };
        let _ = writeln!(
            s,
            "#[unsafe(no_mangle)]
#[allow(non_snake_case, clippy::too_many_arguments, clippy::unnecessary_cast, clippy::let_unit_value)]
pub extern \"C\" fn {name}({params}){ret} {{
    type Twin = unsafe extern \"C\" fn({types}){ret};
    let trace_twin_ = crate::twin({id}, &RESOLVED, TWINS);
    // SAFETY: `trace_twin_` is the library's `p{name}`, whose C type is this
    // one (both are generated from the same prototype).
    let trace_twin_: Twin = unsafe {{ core::mem::transmute::<*mut core::ffi::c_void, Twin>(trace_twin_) }};
    let trace_start_ = crate::clock::now();
    // SAFETY: the caller's arguments, passed on unchanged.
    let trace_result_ = unsafe {{ trace_twin_({args}) }};
    crate::record({id}, trace_start_, {peer}, {bytes});
    trace_result_
}}
",
            name = w.name,
            params = params.join(", "),
            types = types.join(", "),
            args = args.join(", "),
            peer = w.peer,
            bytes = w.bytes,
        );
    }
    s
}

/// `RMA` -> `Rma`.
fn camel(c: &str) -> String {
    let mut out = c[..1].to_string();
    out.push_str(&c[1..].to_lowercase());
    out
}

fn main() {
    for f in [
        "../src/ffi/table.rs",
        "../src/ffi/table_nb.rs",
        "../src/ffi/protos.rs",
        "../src/ffi/type_sets.rs",
        "../build/syms.rs",
        "build.rs",
    ] {
        println!("cargo:rerun-if-changed={f}");
    }
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    std::fs::write(out.join("wrappers.rs"), generate(&wrappers())).expect("write wrappers.rs");
}
