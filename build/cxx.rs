//! C++ overloads of the generic names (`shmem_put`, `shmem_g`,
//! `shmem_atomic_fetch_add`, ...), as Sandia OpenSHMEM provides them: C++ has
//! no `_Generic`, so each C11 generic becomes one `static inline` function per
//! type it selects among, with and without a context exactly where the C11
//! macro accepts both. Made from the same table and type lists as the C11
//! macros (`type_list`), so the two cannot drift apart.

use super::{Family, c_param, parse_decl, type_list, with_ctx};
use crate::protos::PLAIN;
use std::fmt::Write as _;

/// Overloads of the generic name of every family in `families`; `rename`
/// maps each `shmem_` name to the one to emit (identity, or the `shmemx_`
/// alias).
pub fn overloads<'a>(families: impl Iterator<Item = &'a Family>, rename: impl Fn(&str) -> String) -> String {
    let mut out = String::new();
    for f in families {
        let Some((gname, arg)) = f.generic else {
            continue;
        };
        let gname = rename(gname);
        let mut seen = Vec::new();
        for t in type_list(f.types) {
            // One overload per distinct C type (`int64_t` is `long`).
            if seen.contains(&t.base) {
                continue;
            }
            seen.push(t.base);
            let params: Vec<(String, &str)> = f.params.iter().map(|(c, n)| (c_param(c, t.base), *n)).collect();
            if has_c_linkage_twin(&gname, &params) {
                continue;
            }
            let ret = f.ret.replace("TYPE", t.base);
            let typed = f.typed.replace("{T}", t.name);
            let ret_kw = if ret == "void" { "" } else { "return " };
            let decl = |ctx: bool| {
                let mut ps: Vec<String> = Vec::new();
                let mut args: Vec<&str> = Vec::new();
                if ctx {
                    ps.push("shmem_ctx_t ctx".into());
                    args.push("ctx");
                }
                for (c, n) in &params {
                    ps.push(format!("{c} {n}").replace("* ", "*"));
                    args.push(n);
                }
                let callee = rename(&if ctx { with_ctx(&typed) } else { typed.clone() });
                format!(
                    "static inline {ret} {gname}({}) {{ {ret_kw}{callee}({}); }}",
                    ps.join(", "),
                    args.join(", ")
                )
            };
            let _ = writeln!(out, "{}", decl(false));
            // As the C11 macro: a context form where the routine selects on
            // its first argument and has `shmem_ctx_*` forms.
            if f.ctx && arg == 0 {
                let _ = writeln!(out, "{}", decl(true));
            }
        }
    }
    out
}

/// True when a C function of the same name and parameter types is declared
/// (the deprecated `shmem_wait_until(long *, int, long)` and `shmem_swap(long
/// *, long, int)`): C++ forbids a second function with that signature, and
/// the C one already does what the overload would.
fn has_c_linkage_twin(name: &str, params: &[(String, &str)]) -> bool {
    PLAIN.iter().flat_map(|(_, protos)| protos.iter()).any(|p| {
        let (_, n, ps) = parse_decl(p.decl);
        n == name && ps.len() == params.len() && ps.iter().zip(params).all(|((a, _), (b, _))| a == b)
    })
}
