//! The typed symbols of the C API, expanded from `src/ffi/table.rs`, and the
//! parsing of the untyped prototypes of `src/ffi/protos.rs`: shared by
//! `build.rs` (exports and headers) and `trace/build.rs` (the trace layer's
//! wrappers), which include this file with `#[path]`.

#![allow(dead_code)]

use crate::table::*;

/// One concrete typed symbol.
#[derive(Clone)]
pub struct Sym {
    /// Index of its family in `FAMILIES`.
    pub family: usize,
    pub name: String,
    /// C spelling of TYPE ("void" for sized and mem forms).
    pub c_ty: String,
    pub rust_ty: String,
    pub ctx: bool,
    /// Rust export is written by hand (declared only).
    pub hand_written: bool,
}

/// The `shmem_ctx_` form of a `shmem_` name.
pub fn with_ctx(name: &str) -> String {
    name.replacen("shmem_", "shmem_ctx_", 1)
}

/// The element types of a type set, in table order.
pub fn type_list(t: Types) -> Vec<&'static Ty> {
    let find = |n: &str| {
        RMA_TYPES
            .iter()
            .chain(COMPLEX_TYPES)
            .find(|t| t.name == n)
            .expect("type in RMA_TYPES or COMPLEX_TYPES")
    };
    match t {
        Types::Rma => RMA_TYPES.iter().collect(),
        Types::Wait => AMO_STD.iter().chain(WAIT_DEPRECATED).map(|n| find(n)).collect(),
        Types::Of(list) => list.iter().map(|n| find(n)).collect(),
    }
}

/// Every typed symbol of `FAMILIES`: each type, sized and byte form, with
/// its context form first where the family has one.
pub fn symbols() -> Vec<Sym> {
    let mut v = Vec::new();
    for (fi, f) in FAMILIES.iter().enumerate() {
        let mut forms: Vec<(String, String, String, bool)> = Vec::new();
        for t in type_list(f.types) {
            let hand = HAND_WRITTEN.iter().any(|(n, fam)| *n == t.name && *fam == f.typed);
            forms.push((
                f.typed.replace("{T}", t.name),
                t.c.to_string(),
                t.rust.to_string(),
                hand,
            ));
        }
        if let Some(s) = f.sized {
            for (bits, rust) in SIZES {
                forms.push((
                    s.replace("{N}", &bits.to_string()),
                    "void".into(),
                    rust.to_string(),
                    false,
                ));
            }
        }
        if let Some(m) = f.mem {
            forms.push((m.to_string(), "void".into(), "u8".into(), false));
        }
        for (name, c_ty, rust_ty, hand) in forms {
            if f.ctx {
                v.push(Sym {
                    family: fi,
                    name: with_ctx(&name),
                    c_ty: c_ty.clone(),
                    rust_ty: rust_ty.clone(),
                    ctx: true,
                    hand_written: hand,
                });
            }
            v.push(Sym {
                family: fi,
                name,
                c_ty,
                rust_ty,
                ctx: false,
                hand_written: hand,
            });
        }
    }
    v
}

/// The `pshmem_` profiling name of a `shmem_` routine.
pub fn profiling_name(name: &str) -> Option<String> {
    (name.starts_with("shmem_") || name.starts_with("shmemx_")).then(|| format!("p{name}"))
}

/// A parsed untyped prototype: (return type, name, [(type, name)]).
pub fn parse_decl(decl: &str) -> (String, String, Vec<(String, String)>) {
    let decl = decl.trim_start_matches("SHMEM_NORETURN ");
    let open = decl.find('(').expect("prototype has a parameter list");
    let head = &decl[..open];
    let split = head.rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap();
    let (ret, name) = (head[..=split].trim().to_string(), head[split + 1..].to_string());
    let inner = decl[open + 1..].trim_end_matches(')');
    let params = if inner == "void" {
        Vec::new()
    } else {
        inner
            .split(',')
            .map(|p| {
                let p = p.trim();
                let at = p.rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap();
                (p[..=at].trim().to_string(), p[at + 1..].to_string())
            })
            .collect()
    };
    (ret, name, params)
}

/// Rust spelling of an untyped C type of the prototypes: pointers (nested),
/// the C scalar types, and through `named` the API's own types (handles,
/// objects), which the library and the trace layer spell differently. `who`
/// names the caller in the panic for a type neither knows.
pub fn c_to_rust_with(c: &str, named: &dyn Fn(&str) -> Option<&'static str>, who: &str) -> String {
    let c = c.trim();
    if let Some(inner) = c.strip_suffix('*') {
        let inner = inner.trim();
        return match inner.strip_prefix("const ") {
            Some(pointee) => format!("*const {}", c_to_rust_with(pointee, named, who)),
            None => format!("*mut {}", c_to_rust_with(inner, named, who)),
        };
    }
    let scalar = match c {
        "void" => Some("core::ffi::c_void"),
        "char" => Some("core::ffi::c_char"),
        "int" => Some("core::ffi::c_int"),
        "long" => Some("core::ffi::c_long"),
        "size_t" => Some("usize"),
        "ptrdiff_t" => Some("isize"),
        "uint64_t" => Some("u64"),
        "double" => Some("f64"),
        _ => None,
    };
    match named(c).or(scalar) {
        Some(r) => r.to_string(),
        None => panic!("{who}: no Rust spelling for C type {c:?}"),
    }
}
