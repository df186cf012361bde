//! Generates the typed C API from `src/ffi/table.rs`:
//! - `$OUT_DIR/exports.rs`: one `#[no_mangle] extern "C"` function per typed
//!   symbol, each a one-line call into a generic shim (all logic stays in
//!   hand-written generic Rust);
//! - `$OUT_DIR/shmem.h` and `$OUT_DIR/shmemx.h`: the public headers, with
//!   the C++ overloads of the generic names (`build/cxx.rs`);
//! - `librshmem_mpi.so`, the MPI shim, when an MPI is installed (`build/mpi.rs`),
//!   and `librshmem_ucx.so`, the UCX shim, when UCX is (`build/ucx.rs`);
//! - `pshmem.h`, `pshmemx.h`, and the `mpp/` headers and `shmemx_` aliases
//!   other implementations ship (`build/compat.rs`).
//!
//! `include/` holds committed copies of the headers; `cargo xtask gen-header`
//! refreshes them and `tests/header_fresh.rs` fails when they are stale.

#[path = "src/ffi/table.rs"]
mod table;

#[path = "src/constants.rs"]
mod constants;
#[path = "src/ffi/protos.rs"]
mod protos;
#[path = "src/tools.rs"]
mod tools;
#[path = "src/ffi/type_sets.rs"]
mod type_sets;

#[path = "build/compat.rs"]
mod compat;
#[path = "build/cxx.rs"]
mod cxx;
#[path = "build/mpi.rs"]
mod mpi;
#[path = "build/syms.rs"]
mod syms;
#[path = "build/ucx.rs"]
mod ucx;

use constants::*;
use protos::*;
use std::fmt::Write as _;
use syms::*;
use table::*;

fn main() {
    println!("cargo:rerun-if-changed=src/ffi/table.rs");
    println!("cargo:rerun-if-changed=src/ffi/table_nb.rs");
    println!("cargo:rerun-if-changed=src/constants.rs");
    println!("cargo:rerun-if-changed=src/ffi/protos.rs");
    println!("cargo:rerun-if-changed=src/ffi/type_sets.rs");
    println!("cargo:rerun-if-changed=src/tools.rs");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=build/compat.rs");
    println!("cargo:rerun-if-changed=build/cxx.rs");
    println!("cargo:rerun-if-changed=build/mpi.rs");
    println!("cargo:rerun-if-changed=build/syms.rs");
    println!("cargo:rerun-if-changed=build/ucx.rs");
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    let syms = symbols();
    let aliases = compat::alias_syms(&syms);
    let exported: Vec<Sym> = syms.iter().chain(&aliases).cloned().collect();
    std::fs::write(out.join("exports.rs"), rust_exports(&exported)).expect("write exports.rs");
    std::fs::write(out.join("shmem.h"), shmem_h(&syms)).expect("write shmem.h");
    let oshmem: Vec<Sym> = syms.iter().filter(|s| FAMILIES[s.family].oshmem).cloned().collect();
    std::fs::write(out.join("shmemx.h"), shmemx_h(&aliases, &oshmem)).expect("write shmemx.h");
    std::fs::write(out.join("pshmem.h"), pshmem_h(&syms)).expect("write pshmem.h");
    std::fs::write(out.join("pshmemx.h"), compat::pshmemx_h(&aliases, &oshmem)).expect("write pshmemx.h");
    std::fs::create_dir_all(out.join("mpp")).expect("create mpp/");
    for h in ["shmem.h", "shmemx.h", "pshmem.h"] {
        std::fs::write(out.join("mpp").join(h), compat::mpp_h(h)).expect("write mpp/ header");
    }
    std::fs::write(out.join("table.h"), c_test_table()).expect("write table.h");
    std::fs::write(out.join("params.rs"), param_table(&exported)).expect("write params.rs");
    profile_tools(&out);
    let mpi_built = mpi::build(tools::profile_dir(&out).as_deref(), &out);
    ucx::build(tools::profile_dir(&out).as_deref(), &out, mpi_built);
}

/// Completes the tools in the profile directory (`target/<profile>/`) that
/// cargo cannot make itself, so a plain `cargo build` gives them: the C++
/// wrapper's names with `+` (links to `oshcxx`) and `pkgconfig/rshmem.pc`.
/// Also tells the wrapper where that directory is (`RSHMEM_PROFILE_DIR`): a
/// wrapper run from there uses the sources' `include/` and the build's
/// library; run from anywhere else it is an installed one and uses only
/// `../include` and `../lib`.
fn profile_tools(out: &std::path::Path) {
    let Some(dir) = tools::profile_dir(out) else {
        println!(
            "cargo:warning=OUT_DIR {} is not <profile>/build/<package>/out: oshc++ and rshmem.pc not made",
            out.display()
        );
        println!("cargo:rustc-env=RSHMEM_PROFILE_DIR=");
        return;
    };
    println!("cargo:rustc-env=RSHMEM_PROFILE_DIR={}", dir.display());
    if let Err(e) = tools::link_cxx_aliases(&dir) {
        println!(
            "cargo:warning=cannot link the C++ wrapper's aliases in {}: {e}",
            dir.display()
        );
    }
    let manifest = std::path::PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let pc = tools::pkg_config(None, &manifest.join("include"), &dir, tools::VERSION);
    let written = std::fs::create_dir_all(dir.join("pkgconfig"))
        .and_then(|()| std::fs::write(dir.join("pkgconfig/rshmem.pc"), pc));
    if let Err(e) = written {
        println!("cargo:warning=cannot write {}/pkgconfig/rshmem.pc: {e}", dir.display());
    }
}

/// `params.rs`: every routine with the names of its C parameters, sorted by
/// routine, so that error messages derive an argument's position from the
/// prototype (`error::params`) instead of a number written in a shim.
fn param_table(syms: &[Sym]) -> String {
    let mut rows: Vec<(String, Vec<String>)> = Vec::new();
    for sym in syms {
        let mut names: Vec<String> = Vec::new();
        if sym.ctx {
            names.push("ctx".into());
        }
        names.extend(FAMILIES[sym.family].params.iter().map(|(_, n)| n.to_string()));
        rows.push((sym.name.clone(), names));
    }
    for protos in PLAIN.iter().map(|(_, p)| *p).chain(std::iter::once(SHMEMX)) {
        for p in protos.iter() {
            let (_, name, params) = parse_decl(p.decl);
            let names: Vec<String> = params.into_iter().map(|(_, n)| n).filter(|n| !n.is_empty()).collect();
            if p.shmemx {
                rows.push((compat::alias(&name), names.clone()));
            }
            rows.push((name, names));
        }
    }
    rows.sort();
    rows.dedup_by(|a, b| a.0 == b.0);
    let mut s = String::from(
        "// Generated by build.rs from src/ffi/table.rs and protos.rs. Do not edit.\n\n\
         /// Every routine and the names of its parameters, sorted by routine.\n\
         pub(crate) static PARAMS: &[(&str, &[&str])] = &[\n",
    );
    for (name, params) in rows {
        let list: Vec<String> = params.iter().map(|p| format!("{p:?}")).collect();
        let _ = writeln!(s, "    ({name:?}, &[{}]),", list.join(", "));
    }
    s.push_str("];\n");
    s
}

/// `pshmem.h`: the profiling name of every `shmem_` routine (OpenSHMEM 1.5
/// section 10). Types and constants come from `shmem.h`; generics have no
/// profiling form.
fn pshmem_h(syms: &[Sym]) -> String {
    let mut h = String::from(
        "/*
 * pshmem.h: profiling entry points of rshmem (every shmem_ routine as pshmem_).
 *
 * Generated by build.rs from src/ffi/table.rs. Do not edit.
 */
#ifndef RSHMEM_PSHMEM_H
#define RSHMEM_PSHMEM_H

#include <shmem.h>

#ifdef __cplusplus
extern \"C\" {
#endif

",
    );
    for (_, protos) in PLAIN {
        for p in *protos {
            let (_, name, _) = parse_decl(p.decl);
            if let Some(pname) = profiling_name(&name) {
                let _ = writeln!(h, "{};", p.decl.replacen(&format!("{name}("), &format!("{pname}("), 1));
            }
        }
    }
    for sym in syms.iter().filter(|s| !FAMILIES[s.family].oshmem) {
        let proto = prototype(sym);
        let pname = profiling_name(&sym.name).expect("typed routines are shmem_ names");
        let _ = writeln!(
            h,
            "{}",
            proto.replacen(&format!(" {}(", sym.name), &format!(" {pname}("), 1)
        );
    }
    h.push_str("\n#ifdef __cplusplus\n} /* extern \"C\" */\n#endif\n\n#endif /* RSHMEM_PSHMEM_H */\n");
    h
}

/// `c_tests/table.h`: the type tables as X-macros, so the C tests cover every
/// type of every family from the same source as the library.
fn c_test_table() -> String {
    let mut h = String::from(
        "/*
 * table.h: the type tables of src/ffi/table.rs as X-macros for the C tests.
 * X(TYPENAME, TYPE) for each type; X(N) for each size in bits.
 *
 * Generated by build.rs. Do not edit: run `cargo xtask gen-header`.
 */
#ifndef RSHMEM_TEST_TABLE_H
#define RSHMEM_TEST_TABLE_H
",
    );
    let lists: [(&str, Types); 15] = [
        ("RMA_TYPES", Types::Rma),
        ("AMO_STD_TYPES", Types::Of(AMO_STD)),
        ("AMO_EXT_TYPES", Types::Of(AMO_EXT)),
        ("AMO_BIT_TYPES", Types::Of(AMO_BIT)),
        ("P2P_TYPES", Types::Wait),
        ("P2P_DEPRECATED_TYPES", Types::Of(WAIT_DEPRECATED)),
        ("DEPRECATED_AMO_EXT_TYPES", Types::Of(DEPRECATED_AMO_EXT)),
        ("DEPRECATED_AMO_STD_TYPES", Types::Of(DEPRECATED_AMO_STD)),
        ("DEPRECATED_WAIT_TYPES", Types::Of(DEPRECATED_WAIT)),
        ("REDUCE_BITWISE_TYPES", Types::Of(REDUCE_BITWISE)),
        ("REDUCE_MINMAX_TYPES", Types::Of(REDUCE_MINMAX)),
        ("REDUCE_ARITH_TYPES", Types::Of(REDUCE_ARITH)),
        ("TO_ALL_BITWISE_TYPES", Types::Of(TO_ALL_BITWISE)),
        ("TO_ALL_MINMAX_TYPES", Types::Of(TO_ALL_MINMAX)),
        ("TO_ALL_ARITH_TYPES", Types::Of(TO_ALL_ARITH)),
    ];
    for (name, types) in lists {
        let items: Vec<String> = type_list(types)
            .iter()
            .map(|t| format!("X({}, {})", t.name, t.c))
            .collect();
        let _ = writeln!(h, "\n#define RSHMEM_{name}(X) \\\n    {}", items.join(" \\\n    "));
    }
    let sizes: Vec<String> = SIZES.iter().map(|(n, _)| format!("X({n})")).collect();
    let _ = writeln!(h, "\n#define RSHMEM_SIZES(X) {}", sizes.join(" "));
    h.push_str("\n#endif /* RSHMEM_TEST_TABLE_H */\n");
    h
}

fn rust_param(c: &str, r: &str) -> String {
    match c {
        "TYPE *" => format!("*mut {r}"),
        "const TYPE *" => format!("*const {r}"),
        "TYPE" => r.to_string(),
        other => c_to_rust(other),
    }
}

/// Rust spelling of an untyped C parameter or return type.
fn c_to_rust(c: &str) -> String {
    let named = |t: &str| match t {
        "shmem_ctx_t" => Some("crate::ffi::handle::CtxHandle"),
        "shmem_team_t" => Some("crate::ffi::handle::TeamHandle"),
        "shmem_req_h" => Some("crate::ffi::nbc::ReqHandle"),
        "shmem_team_config_t" => Some("crate::ffi::team::TeamConfig"),
        "shmem_ctx_session_config_t" => Some("crate::ffi::context::SessionConfig"),
        "shmemx_psync_footprint_t" => Some("crate::psync::Footprint"),
        "shmemx_space_config_t" => Some("crate::ffi::space::SpaceConfig"),
        "shmemx_space_t" => Some("crate::ffi::handle::SpaceHandle"),
        "shmemx_sem_t" => Some("crate::ffi::semaphore::SemObject"),
        "shmemx_notify_t" => Some("crate::ffi::notify::NotifyObject"),
        "shmemx_gettid_fn_t" => Some("crate::ffi::context::GettidFn"),
        "shmemx_ct_t" => Some("crate::ffi::ct::CtHandle"),
        "shmemx_pcntr_t" => Some("crate::ffi::ct::Pcntr"),
        _ => None,
    };
    c_to_rust_with(c, &named, "table.rs")
}

fn c_param(c: &str, ty: &str) -> String {
    c.replace("TYPE", ty)
}

fn rust_exports(syms: &[Sym]) -> String {
    let mut s = String::from("// Generated by build.rs from src/ffi/table.rs. Do not edit.\n\n");
    for sym in syms.iter().filter(|s| !s.hand_written) {
        let f = &FAMILIES[sym.family];
        let mut params: Vec<String> = Vec::new();
        let mut args: Vec<String> = vec![format!("{:?}", sym.name)];
        if sym.ctx {
            params.push("ctx: crate::ffi::handle::CtxHandle".into());
            args.push("ctx".into());
        } else if f.shim_ctx {
            args.push("crate::ffi::handle::CtxHandle::DEFAULT".into());
        }
        for (c, n) in f.params {
            params.push(format!("{n}: {}", rust_param(c, &sym.rust_ty)));
            args.push(n.to_string());
        }
        let ret = match f.ret {
            "void" => String::new(),
            "TYPE" => format!(" -> {}", sym.rust_ty),
            other => format!(" -> {}", c_to_rust(other)),
        };
        let body = format!("crate::ffi::{}::<{}>({})", f.shim, sym.rust_ty, args.join(", "));
        export(&mut s, &sym.name, &params.join(", "), &ret, &body);
    }
    for protos in PLAIN.iter().map(|(_, p)| *p).chain(std::iter::once(SHMEMX)) {
        for p in protos.iter().filter(|p| !p.rust.is_empty()) {
            let (ret, name, cparams) = parse_decl(p.decl);
            let params: Vec<String> = cparams.iter().map(|(t, n)| format!("{n}: {}", c_to_rust(t))).collect();
            let mut args = vec![format!("{name:?}")];
            args.extend(cparams.iter().map(|(_, n)| n.clone()));
            let ret = if p.decl.starts_with("SHMEM_NORETURN") {
                " -> !".to_string()
            } else if ret == "void" {
                String::new()
            } else {
                format!(" -> {}", c_to_rust(&ret))
            };
            let body = format!("crate::ffi::{}({})", p.rust, args.join(", "));
            export(&mut s, &name, &params.join(", "), &ret, &body);
            if p.shmemx {
                // The alias names itself in error messages.
                let alias = compat::alias(&name);
                let body = body.replacen(&format!("{name:?}"), &format!("{alias:?}"), 1);
                export(&mut s, &alias, &params.join(", "), &ret, &body);
            }
        }
    }
    s
}

/// Writes the export `name` and its `pshmem_` twin. Both call the same Rust
/// code directly, so a tool that defines its own `shmem_X` and calls
/// `pshmem_X` reaches the library, never itself. Errors name the `shmem_`
/// routine.
fn export(s: &mut String, name: &str, params: &str, ret: &str, body: &str) {
    for export_name in std::iter::once(name.to_string()).chain(profiling_name(name)) {
        let _ = writeln!(
            s,
            "#[unsafe(no_mangle)]\npub extern \"C\" fn {export_name}({params}){ret} {{\n    crate::ffi::guard({name:?}, || {body})\n}}\n"
        );
    }
}

fn prototype(sym: &Sym) -> String {
    let f = &FAMILIES[sym.family];
    let mut params: Vec<String> = Vec::new();
    if sym.ctx {
        params.push("shmem_ctx_t ctx".into());
    }
    for (c, n) in f.params {
        params.push(format!("{} {n}", c_param(c, &sym.c_ty)).replace("* ", "*"));
    }
    let ret = f.ret.replace("TYPE", &sym.c_ty);
    format!("{ret} {}({});", sym.name, params.join(", "))
}

const HEADER_TOP: &str = "/*
 * shmem.h: OpenSHMEM 1.6 C API of rshmem.
 *
 * Generated by build.rs from src/ffi/table.rs. Do not edit: change the table and
 * run `cargo xtask gen-header`.
 */
";

fn shmem_h(syms: &[Sym]) -> String {
    let mut h = String::from(HEADER_TOP);
    h.push_str("#ifndef RSHMEM_SHMEM_H\n#define RSHMEM_SHMEM_H\n\n#include <stddef.h>\n#include <stdint.h>\n\n");
    h.push_str("/* Library constants */\n");
    for (name, value, alias) in INT_CONSTANTS {
        let _ = writeln!(h, "#define {name} {value}");
        if *alias {
            let _ = writeln!(h, "#define _{name} {name}");
        }
    }
    let _ = writeln!(
        h,
        "#define SHMEM_VENDOR_STRING {:?}\n#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING\n",
        SHMEM_VENDOR_STRING
    );
    // Open MPI OSHMEM's spelling of the specification's version, which its
    // programs (its own examples among them) test before using the API; a
    // version, not a claim to be OSHMEM (tools that adapt to OSHMEM test
    // OSHMEM_MAJOR_VERSION, see README's design notes).
    h.push_str(
        "/* Open MPI OSHMEM's number for the specification's version (its programs test it) */\n\
         #define OSHMEM_SPEC_VERSION (SHMEM_MAJOR_VERSION * 10000 + SHMEM_MINOR_VERSION * 100)\n\n",
    );
    h.push_str(PREAMBLE);
    h.push_str("\n#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__cplusplus)\n#define RSHMEM_C11_GENERICS 1\n#endif\n");
    h.push_str("\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n");
    for (group, protos) in PLAIN {
        let _ = writeln!(h, "\n/* {group} */");
        for p in *protos {
            if p.c11_hidden {
                let _ = writeln!(h, "#ifndef RSHMEM_C11_GENERICS\n{};\n#endif", p.decl);
            } else {
                let _ = writeln!(h, "{};", p.decl);
            }
        }
    }
    for (fi, f) in FAMILIES.iter().enumerate().filter(|(_, f)| !f.oshmem) {
        let _ = writeln!(h, "\n/* {} */", f.typed.replace("{T}", "TYPENAME"));
        for sym in syms.iter().filter(|s| s.family == fi) {
            let _ = writeln!(h, "{}", prototype(sym));
        }
    }
    h.push_str("\n#ifdef __cplusplus\n} /* extern \"C\" */\n#endif\n");
    h.push_str(&cxx_section());
    h.push_str(&generics());
    h.push_str("\n#endif /* RSHMEM_SHMEM_H */\n");
    h
}

/// C11 `_Generic` selectors. The first argument selects the routine, or is a
/// context, in which case the second one does. `&*(x)` decays arrays (and is
/// valid for a context handle); `(x)+0` is used at the inner level because the
/// second argument of a call without a context may be a value, not a pointer.
fn generics() -> String {
    let mut g = String::from(
        "\n#ifdef RSHMEM_C11_GENERICS
/* C11 generic interfaces. */
#define RSHMEM_C11_ARG0(a, ...) (a)
#define RSHMEM_C11_ARG1(a, b, ...) (b)
/* Selected when a context is followed by an unsupported type: the call then
 * fails to compile (too many arguments). */
void rshmem_c11_generic_type_not_supported(void);
",
    );
    for f in FAMILIES {
        if let Some(m) = generic_macro(f, |n| n.to_string()) {
            g.push_str(&m);
        }
    }
    // shmem_sync(team) is shmem_team_sync; shmem_sync(PE_start, ...) the
    // deprecated active-set routine, declared above as a function.
    g.push_str(
        "#define shmem_sync(...) \\\n    _Generic(RSHMEM_C11_ARG0(__VA_ARGS__, 0), \\\n        shmem_team_t: shmem_team_sync, \\\n        default: shmem_sync)(__VA_ARGS__)\n",
    );
    // 1.6: shmem_signal_add/set(ctx, ...) is the context routine; without a
    // context, the function declared above.
    for op in ["add", "set"] {
        let _ = writeln!(
            g,
            "#define shmem_signal_{op}(...) \\\n    _Generic(&*RSHMEM_C11_ARG0(__VA_ARGS__, 0), \\\n        shmem_ctx_t: shmem_ctx_signal_{op}, \\\n        default: shmem_signal_{op})(__VA_ARGS__)"
        );
    }
    g.push_str("#endif /* RSHMEM_C11_GENERICS */\n");
    g
}

/// The C11 `_Generic` macro of family `f`, if it has a generic name; `rename`
/// maps each `shmem_` name (the generic's and the routines') to the one to
/// emit, so the `shmemx_` aliases get their generics from the same code.
fn generic_macro(f: &Family, rename: impl Fn(&str) -> String) -> Option<String> {
    let (gname, arg) = f.generic?;
    let gname = rename(gname);
    let mut g = String::new();
    let const_dispatch = f.params[arg].0.starts_with("const");
    let mut seen = Vec::new();
    let mut assoc = |prefix_ctx: bool| -> Vec<String> {
        seen.clear();
        let mut out = Vec::new();
        for t in type_list(f.types) {
            if seen.contains(&t.base) {
                continue;
            }
            seen.push(t.base);
            let name = f.typed.replace("{T}", t.name);
            let name = rename(&if prefix_ctx { with_ctx(&name) } else { name });
            out.push(format!("{} *: {name}", t.base));
            if const_dispatch {
                out.push(format!("const {} *: {name}", t.base));
            }
        }
        out
    };
    let plain = assoc(false);
    if f.ctx && arg == 0 {
        let ctx = assoc(true);
        let _ = writeln!(
            g,
            "#define {gname}(...) \\\n    _Generic(&*RSHMEM_C11_ARG0(__VA_ARGS__, 0), \\\n        shmem_ctx_t: _Generic(RSHMEM_C11_ARG1(__VA_ARGS__, 0) + 0, \\\n            {}, \\\n            default: rshmem_c11_generic_type_not_supported), \\\n        {})(__VA_ARGS__)",
            ctx.join(", \\\n            "),
            plain.join(", \\\n        ")
        );
    } else {
        assert!(arg <= 1, "{gname}: generics select on argument 0 or 1");
        let _ = writeln!(
            g,
            "#define {gname}(...) \\\n    _Generic(&*RSHMEM_C11_ARG{arg}(__VA_ARGS__, 0), \\\n        {})(__VA_ARGS__)",
            plain.join(", \\\n        ")
        );
    }
    Some(g)
}

/// The C++ overloads of the generic names, and `shmem_sync(team)` and the
/// context forms of `shmem_signal_add`/`_set` as the C11 generics have them.
fn cxx_section() -> String {
    let mut s = String::from(
        "\n#ifdef __cplusplus\n/* C++ overloads of the generic interfaces (C11 has _Generic macros). */\n",
    );
    s.push_str(&cxx::overloads(FAMILIES.iter(), |n| n.to_string()));
    s.push_str("static inline int shmem_sync(shmem_team_t team) { return shmem_team_sync(team); }\n");
    for op in ["add", "set"] {
        let _ = writeln!(
            s,
            "static inline void shmem_signal_{op}(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe) {{ shmem_ctx_signal_{op}(ctx, sig_addr, signal, pe); }}"
        );
    }
    s.push_str("#endif /* __cplusplus */\n");
    s
}

fn shmemx_h(aliases: &[Sym], oshmem: &[Sym]) -> String {
    let mut h = String::from(
        "/*
 * shmemx.h: rshmem extensions to OpenSHMEM.
 *
 * Generated by build.rs from src/ffi/table.rs. Do not edit.
 */
#ifndef RSHMEM_SHMEMX_H
#define RSHMEM_SHMEMX_H

#include <shmem.h>

/* Synchronisation memory reserved for collectives on this PE (or by one team):
 * bytes of flags and of scratch, now and at most, and how many teams hold some;
 * what the traditional one-array-per-team scheme would hold for the same teams;
 * and the messages this PE's collectives sent. See docs/psync.md. */
typedef struct {
    const char *strategy; /* SHMEM_PSYNC_STRATEGY in effect */
    size_t flags_current, flags_peak;
    size_t scratch_current, scratch_peak;
    size_t teams_current, teams_peak;
    /* flags of one traditional array per live team (now, at most), and per team ever created */
    size_t baseline_current, baseline_peak, baseline_never_freed;
    unsigned long long collectives;    /* team collectives run, splits and destroys included */
    unsigned long long sync_messages;  /* remote flag writes by the collective algorithms */
    unsigned long long extra_messages; /* remote flag writes the strategy added */
} shmemx_psync_footprint_t;

/* Spaces: symmetric memory that belongs to a team (see docs/spaces.md). The
 * types and the first routines are OSHMPI's, so programs written for it
 * compile unchanged; shmemx_space_attach_team and the routines after it
 * scope a space to a team. */
typedef void *shmemx_space_t;
typedef void *shmemx_device_handle_t;
typedef enum {
    SHMEMX_MEM_HOST, /* the only kind rshmem serves */
    SHMEMX_MEM_CUDA,
    SHMEMX_MEM_ZE
} shmemx_memkind_t;
typedef enum {
    SHMEMX_SPACE_LAT_PREFERRED = 1,
    SHMEMX_SPACE_MR_PREFERRED = 2
} shmemx_space_hint_t;
typedef struct {
    size_t sheap_size;                    /* bytes of allocations per member */
    int num_contexts;                     /* contexts the space may have at once */
    shmemx_memkind_t memkind;
    shmemx_device_handle_t device_handle; /* unused for host memory */
    long hints;                           /* accepted, no effect */
} shmemx_space_config_t;

/* UPC-style semaphores (Berkeley UPC's bupc_sem_*, see docs/semaphores.md):
 * a symmetric object, each PE's copy owned by that PE. Flag values are
 * BUPC_SEM_*'s; 0 means integer, multi-producer, multi-consumer. */
typedef struct shmemx_sem_s shmemx_sem_t;
#define SHMEMX_SEM_BOOLEAN 1   /* post sets the value to 1 */
#define SHMEMX_SEM_INTEGER 2   /* post adds, wait subtracts */
#define SHMEMX_SEM_SPRODUCER 4 /* one producer thread (a hint) */
#define SHMEMX_SEM_MPRODUCER 8
#define SHMEMX_SEM_SCONSUMER 16 /* one consumer thread (a hint) */
#define SHMEMX_SEM_MCONSUMER 32
#define SHMEMX_SEM_MAXVALUE 65535

/* Sandia OpenSHMEM's shmemx_register_gettid takes the program's thread-id
 * function (for threads that are not the kernel's); this is its type. */
typedef uint64_t (*shmemx_gettid_fn_t)(void);

/* Sandia OpenSHMEM's hint for shmem_malloc_with_hints: no barrier at the
 * routine's exit (every PE still gets the same block; synchronise before
 * another PE accesses it). */
#define SHMEMX_MALLOC_NO_BARRIER (1l << 2)

/* OSSS-UCX's properties for shmemx_query_interoperability. */
enum interoperability {
    UPC_THREADS_ARE_PES = 0, /* never here */
    MPI_PROCESSES_ARE_PES,   /* PE number = rank in MPI_COMM_WORLD (under mpirun) */
    SHMEM_INITIALIZES_MPI,   /* shmem_init called MPI_Init */
    MPI_INITIALIZES_SHMEM    /* never here */
};

/* Open MPI OSHMEM's hints for shmemx_malloc_with_hint: all served by the same
 * memory here. */
enum {
    SHMEM_HINT_NONE = 0,
    SHMEM_HINT_LOW_LAT_MEM = 1 << 0,
    SHMEM_HINT_HIGH_BW_MEM = 1 << 1,
    SHMEM_HINT_NEAR_NIC_MEM = 1 << 2,
    SHMEM_HINT_DEVICE_GPU_MEM = 1 << 3,
    SHMEM_HINT_DEVICE_NIC_MEM = 1 << 4,
    SHMEM_HINT_PSYNC = 1 << 16,
    SHMEM_HINT_PWORK = 1 << 17,
    SHMEM_HINT_ATOMICS = 1 << 18
};

/* Notification sets: one flag per message, set when the message is ready and
 * consumed when it is used (see docs/notifications.md). Every member of the
 * set's team has a copy; a flag is a uint64_t on its own cache line. */
typedef struct shmemx_notify_s shmemx_notify_t;
#define SHMEMX_NOTIFY_EMPTY 0    /* never set since allocation or reset */
#define SHMEMX_NOTIFY_READY 1    /* set, not yet consumed */
#define SHMEMX_NOTIFY_CONSUMED 2 /* consumed; may be set again */
#define SHMEMX_NOTIFY_NONE ((size_t)-1) /* shmemx_notify_test_any: none was READY */

/* Sandia OpenSHMEM's counting puts: a counter is a target-side count of
 * the shmemx_putmem_ct and shmemx_getmem_ct that reached this PE's memory
 * through it. Every PE creates its counters in the same order, so a handle
 * names the same counter on every PE (see docs/compatibility.md). */
typedef char *shmemx_ct_t;

/* Sandia OpenSHMEM's performance counters (shmemx_pcntr_get_all): the
 * operations a context issued (pending_*) and completed, and those other PEs
 * issued on this PE's memory (target). Counted under RSHMEM_PCNTR=1 only;
 * otherwise all read 0. */
typedef struct {
    uint64_t pending_put;
    uint64_t pending_get;
    uint64_t completed_put;
    uint64_t completed_get;
    uint64_t target;
} shmemx_pcntr_t;

#ifdef __cplusplus
extern \"C\" {
#endif

/* The PEs that share memory with the calling PE (Sandia OpenSHMEM's
 * predefined team): on one node, every PE, like SHMEM_TEAM_WORLD, under a
 * handle of its own. */
extern shmem_team_t SHMEMX_TEAM_NODE;

",
    );
    for p in SHMEMX {
        let _ = writeln!(h, "{};", p.decl);
    }
    let (decls, after) = compat::shmemx_aliases(aliases);
    h.push_str(&decls);
    let (decls, macros) = compat::oshmem_names(oshmem);
    h.push_str(&decls);
    h.push_str("\n#ifdef __cplusplus\n} /* extern \"C\" */\n#endif\n");
    h.push_str(&after);
    h.push_str(&macros);
    h.push_str("\n#endif /* RSHMEM_SHMEMX_H */\n");
    h
}
