//! Names and headers other implementations ship, so programs written for
//! them compile and link unchanged:
//! - the `shmemx_` names Sandia OpenSHMEM (SOS) gave routines before
//!   OpenSHMEM 1.6 made them standard (families and prototypes marked
//!   `.shmemx()` in the tables), each with its `pshmemx_` twin, declared in
//!   `shmemx.h` (with their C11 generics and C++ overloads, as SOS has them)
//!   and `pshmemx.h`;
//! - `mpp/shmem.h`, `mpp/shmemx.h`, `mpp/pshmem.h`: the old include paths
//!   (SOS and Open MPI install them), which only include the real headers.

use super::{Sym, generic_macro, parse_decl, profiling_name, prototype};
use crate::protos::{PLAIN, Proto, SHMEMX};
use crate::table::FAMILIES;
use std::fmt::Write as _;

/// The `shmemx_` alias of a `shmem_` name (`shmem_ctx_int_ibput` becomes
/// `shmemx_ctx_int_ibput`, as in SOS).
pub fn alias(name: &str) -> String {
    name.replacen("shmem_", "shmemx_", 1)
}

/// The aliases of the typed routines of every `.shmemx()` family.
pub fn alias_syms(syms: &[Sym]) -> Vec<Sym> {
    syms.iter()
        .filter(|s| FAMILIES[s.family].shmemx)
        .map(|s| Sym {
            name: alias(&s.name),
            ..s.clone()
        })
        .collect()
}

/// The untyped prototypes that have a `shmemx_` alias.
pub fn alias_protos() -> impl Iterator<Item = &'static Proto> {
    PLAIN.iter().flat_map(|(_, p)| p.iter()).filter(|p| p.shmemx)
}

/// `decl` with its routine renamed by `rename`.
fn renamed(decl: &str, rename: impl Fn(&str) -> String) -> String {
    let (_, name, _) = parse_decl(decl);
    decl.replacen(&format!("{name}("), &format!("{}(", rename(&name)), 1)
}

/// The part of `shmemx.h` after the extension prototypes: the aliases'
/// prototypes (inside `extern "C"`), then their C11 generics and C++
/// overloads (after it).
pub fn shmemx_aliases(aliases: &[Sym]) -> (String, String) {
    let mut decls = String::from(
        "\n/* Sandia OpenSHMEM's names for routines OpenSHMEM 1.6 made standard: the\n * same routines as their shmem_ names. */\n",
    );
    for p in alias_protos() {
        let _ = writeln!(decls, "{};", renamed(p.decl, alias));
    }
    for s in aliases {
        let _ = writeln!(decls, "{}", prototype(s));
    }
    let families = || FAMILIES.iter().filter(|f| f.shmemx);
    // The signal routines: SOS's generic takes a context as first argument.
    let ctx_signal = || alias_protos().filter(|p| p.decl.contains("shmem_ctx_signal_"));
    let mut after = String::from("\n#ifdef __cplusplus\n/* C++ overloads of the generic shmemx_ names. */\n");
    after.push_str(&super::cxx::overloads(families(), alias));
    for p in ctx_signal() {
        let (ret, name, params) = parse_decl(p.decl);
        let plain = alias(&name.replacen("shmem_ctx_", "shmem_", 1));
        let ps: Vec<String> = params
            .iter()
            .map(|(t, n)| format!("{t} {n}").replace("* ", "*"))
            .collect();
        let args: Vec<&str> = params.iter().map(|(_, n)| n.as_str()).collect();
        let _ = writeln!(
            after,
            "static inline {ret} {plain}({}) {{ {}({}); }}",
            ps.join(", "),
            alias(&name),
            args.join(", ")
        );
    }
    after.push_str("#elif defined(RSHMEM_C11_GENERICS)\n/* C11 generic shmemx_ names. */\n");
    for f in families() {
        if let Some(m) = generic_macro(f, alias) {
            after.push_str(&m);
        }
    }
    for p in ctx_signal() {
        let (_, name, _) = parse_decl(p.decl);
        let plain = alias(&name.replacen("shmem_ctx_", "shmem_", 1));
        let _ = writeln!(
            after,
            "#define {plain}(...) \\\n    _Generic(RSHMEM_C11_ARG0(__VA_ARGS__, 0), \\\n        shmem_ctx_t: {}, \\\n        default: {plain})(__VA_ARGS__)",
            alias(&name)
        );
    }
    after.push_str("#endif\n");
    (decls, after)
}

/// Open MPI OSHMEM's typed `shmemx_` routines (the `.oshmem()` families):
/// their prototypes (inside `extern "C"`), and the macros OSHMEM's
/// `shmemx.h` ends with, which give some of them their `shmem_` names
/// (`shmem_int32_fadd` for `shmemx_int32_fadd`).
pub fn oshmem_names(syms: &[Sym]) -> (String, String) {
    let mut decls = String::from(
        "\n/* Open MPI OSHMEM's extensions: fixed-width p/g, its pre-1.4 atomic names and\n * bitwise atomics on fixed widths, waits, and fixed-width active-set reductions.\n * The same routines as their standard counterparts. */\n",
    );
    let mut macros = String::from("\n/* Open MPI OSHMEM's shmem_ names for its extensions. */\n");
    for s in syms {
        let _ = writeln!(decls, "{}", prototype(s));
        if FAMILIES[s.family].oshmem_macro {
            let _ = writeln!(macros, "#define {} {}", s.name.replacen("shmemx_", "shmem_", 1), s.name);
        }
    }
    (decls, macros)
}

/// `pshmemx.h`: the `pshmemx_` profiling name of every `shmemx_` routine.
pub fn pshmemx_h(aliases: &[Sym], oshmem: &[Sym]) -> String {
    let mut h = String::from(
        "/*
 * pshmemx.h: profiling entry points of the rshmem extensions (every shmemx_
 * routine as pshmemx_).
 *
 * Generated by build.rs from src/ffi/table.rs. Do not edit.
 */
#ifndef RSHMEM_PSHMEMX_H
#define RSHMEM_PSHMEMX_H

#include <shmemx.h>

#ifdef __cplusplus
extern \"C\" {
#endif

",
    );
    let p = |n: &str| profiling_name(n).expect("shmemx_ names have profiling names");
    for proto in SHMEMX {
        let _ = writeln!(h, "{};", renamed(proto.decl, p));
    }
    for proto in alias_protos() {
        let _ = writeln!(h, "{};", renamed(proto.decl, |n| p(&alias(n))));
    }
    for s in aliases.iter().chain(oshmem) {
        let proto = prototype(s);
        let _ = writeln!(
            h,
            "{}",
            proto.replacen(&format!(" {}(", s.name), &format!(" {}(", p(&s.name)), 1)
        );
    }
    h.push_str("\n#ifdef __cplusplus\n} /* extern \"C\" */\n#endif\n\n#endif /* RSHMEM_PSHMEMX_H */\n");
    h
}

/// `mpp/<header>`: the old include path of `<header>`.
pub fn mpp_h(header: &str) -> String {
    let guard = format!("RSHMEM_MPP_{}", header.replace('.', "_").to_uppercase());
    format!(
        "/*
 * mpp/{header}: the include path older OpenSHMEM programs use (Sandia
 * OpenSHMEM and Open MPI install it too); the same as <{header}>.
 *
 * Generated by build.rs. Do not edit.
 */
#ifndef {guard}
#define {guard}

#include <{header}>

#endif /* {guard} */
"
    )
}
