//! The one source of truth for the typed C API: type tables, typed routine
//! families, untyped prototypes and constants.
//!
//! This file is plain data with no dependencies: `build.rs` includes it with
//! `#[path]` to generate `$OUT_DIR/exports.rs` (one `#[no_mangle]` function per
//! symbol, each a one-line call into a generic shim in `ffi/`) and
//! `$OUT_DIR/shmem.h` (prototypes and C11 `_Generic` selectors). The library
//! constants and handle types are in `constants.rs`, read the same way.
#![allow(dead_code)]

/// One C element type.
pub struct Ty {
    /// TYPENAME in routine names (`shmem_<name>_put`).
    pub name: &'static str,
    /// The C type as written in prototypes.
    pub c: &'static str,
    /// The distinct C base type it is on LP64 Linux (`int64_t` is `long`); C11
    /// `_Generic` lists may name each base type once.
    pub base: &'static str,
    /// The Rust type the shims are instantiated with.
    pub rust: &'static str,
}

const fn ty(name: &'static str, c: &'static str, base: &'static str, rust: &'static str) -> Ty {
    Ty { name, c, base, rust }
}

/// The 24 standard RMA types (OpenSHMEM 1.5, Table "stdrmatypes"), in spec order.
pub const RMA_TYPES: &[Ty] = &[
    ty("float", "float", "float", "f32"),
    ty("double", "double", "double", "f64"),
    ty("longdouble", "long double", "long double", "crate::types::LongDouble"),
    ty("char", "char", "char", "core::ffi::c_char"),
    ty("schar", "signed char", "signed char", "i8"),
    ty("short", "short", "short", "i16"),
    ty("int", "int", "int", "i32"),
    ty("long", "long", "long", "i64"),
    ty("longlong", "long long", "long long", "i64"),
    ty("uchar", "unsigned char", "unsigned char", "u8"),
    ty("ushort", "unsigned short", "unsigned short", "u16"),
    ty("uint", "unsigned int", "unsigned int", "u32"),
    ty("ulong", "unsigned long", "unsigned long", "u64"),
    ty("ulonglong", "unsigned long long", "unsigned long long", "u64"),
    ty("int8", "int8_t", "signed char", "i8"),
    ty("int16", "int16_t", "short", "i16"),
    ty("int32", "int32_t", "int", "i32"),
    ty("int64", "int64_t", "long", "i64"),
    ty("uint8", "uint8_t", "unsigned char", "u8"),
    ty("uint16", "uint16_t", "unsigned short", "u16"),
    ty("uint32", "uint32_t", "unsigned int", "u32"),
    ty("uint64", "uint64_t", "unsigned long", "u64"),
    ty("size", "size_t", "unsigned long", "usize"),
    ty("ptrdiff", "ptrdiff_t", "long", "isize"),
];

/// The complex types of the sum and product reductions (not RMA types). Their
/// C spelling is a typedef of the header: `double _Complex` in C, the same type
/// under `__extension__` in C++.
pub const COMPLEX_TYPES: &[Ty] = &[
    ty(
        "complexd",
        "rshmem_complexd",
        "rshmem_complexd",
        "crate::types::ComplexD",
    ),
    ty(
        "complexf",
        "rshmem_complexf",
        "rshmem_complexf",
        "crate::types::ComplexF",
    ),
];

/// Team-based AND/OR/XOR reduction types (OpenSHMEM 1.5 Table "teamreducetypes").
pub const REDUCE_BITWISE: &[&str] = &[
    "uchar",
    "ushort",
    "uint",
    "ulong",
    "ulonglong",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "size",
];
/// Team-based MAX/MIN reduction types.
pub const REDUCE_MINMAX: &[&str] = &[
    "char",
    "schar",
    "short",
    "int",
    "long",
    "longlong",
    "ptrdiff",
    "uchar",
    "ushort",
    "uint",
    "ulong",
    "ulonglong",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "size",
    "float",
    "double",
    "longdouble",
];
/// Team-based SUM/PROD reduction types, also those of the 1.6 scans.
pub const REDUCE_ARITH: &[&str] = &[
    "char",
    "schar",
    "short",
    "int",
    "long",
    "longlong",
    "ptrdiff",
    "uchar",
    "ushort",
    "uint",
    "ulong",
    "ulonglong",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "size",
    "float",
    "double",
    "longdouble",
    "complexd",
    "complexf",
];
/// Deprecated `_to_all` AND/OR/XOR types.
pub const TO_ALL_BITWISE: &[&str] = &["short", "int", "long", "longlong"];
/// Deprecated `_to_all` MAX/MIN types.
pub const TO_ALL_MINMAX: &[&str] = &["short", "int", "long", "longlong", "float", "double", "longdouble"];
/// Deprecated `_to_all` SUM/PROD types.
pub const TO_ALL_ARITH: &[&str] = &[
    "short",
    "int",
    "long",
    "longlong",
    "float",
    "double",
    "longdouble",
    "complexd",
    "complexf",
];

/// Standard AMO types; also the point-to-point synchronisation types of 1.5.
pub const AMO_STD: &[&str] = &[
    "int",
    "long",
    "longlong",
    "uint",
    "ulong",
    "ulonglong",
    "int32",
    "int64",
    "uint32",
    "uint64",
    "size",
    "ptrdiff",
];
/// Deprecated point-to-point types that keep their typed wait/test names.
pub const WAIT_DEPRECATED: &[&str] = &["short", "ushort"];

/// Extended AMO types: the standard ones and the two floating types.
pub const AMO_EXT: &[&str] = &[
    "float",
    "double",
    "int",
    "long",
    "longlong",
    "uint",
    "ulong",
    "ulonglong",
    "int32",
    "int64",
    "uint32",
    "uint64",
    "size",
    "ptrdiff",
];
/// Bitwise AMO types.
pub const AMO_BIT: &[&str] = &["uint", "ulong", "ulonglong", "int32", "int64", "uint32", "uint64"];
/// Types of the deprecated `shmem_TYPE_fetch/_set/_swap` names.
pub const DEPRECATED_AMO_EXT: &[&str] = &["float", "double", "int", "long", "longlong"];
/// Types of the deprecated `shmem_TYPE_cswap/_finc/_inc/_fadd/_add` names.
pub const DEPRECATED_AMO_STD: &[&str] = &["int", "long", "longlong"];
/// Types of the deprecated `shmem_TYPE_wait` names.
pub const DEPRECATED_WAIT: &[&str] = &["short", "int", "long", "longlong"];

/// Which types a family is stamped over.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Types {
    /// All of [`RMA_TYPES`].
    Rma,
    /// [`AMO_STD`], then [`WAIT_DEPRECATED`] (the latter not in the generic).
    Wait,
    /// Exactly these types, all in the generic.
    Of(&'static [&'static str]),
}

/// Element sizes in bits of the sized forms (`shmem_put32`), with the Rust
/// element type (same size, C-compatible alignment).
pub const SIZES: &[(u32, &str)] = &[(8, "u8"), (16, "u16"), (32, "u32"), (64, "u64"), (128, "[u64; 2]")];

/// A family of typed routines that share one signature and one shim.
pub struct Family {
    /// Name with `{T}` for the TYPENAME, e.g. `shmem_{T}_put`.
    pub typed: &'static str,
    /// Name of the sized forms with `{N}`, e.g. `shmem_put{N}`, if any.
    pub sized: Option<&'static str>,
    /// Name of the byte form, e.g. `shmem_putmem`, if any.
    pub mem: Option<&'static str>,
    /// C return type; `TYPE` stands for the element type.
    pub ret: &'static str,
    /// C parameters (type, name); `TYPE` stands for the element type.
    pub params: &'static [(&'static str, &'static str)],
    pub types: Types,
    /// Whether `shmem_ctx_*` forms with a leading `shmem_ctx_t ctx` exist.
    pub ctx: bool,
    /// Whether the shim takes a context (the default one for forms without).
    pub shim_ctx: bool,
    /// The generic shim the export calls, under `crate::ffi`.
    pub shim: &'static str,
    /// C11 generic name and the index (among `params`) of the argument whose
    /// type selects the routine.
    pub generic: Option<(&'static str, usize)>,
}

/// A family without context forms, sized or byte forms, or generic.
const fn fam(
    typed: &'static str,
    ret: &'static str,
    params: &'static [(&'static str, &'static str)],
    types: Types,
    shim: &'static str,
) -> Family {
    Family {
        typed,
        sized: None,
        mem: None,
        ret,
        params,
        types,
        ctx: false,
        shim_ctx: false,
        shim,
        generic: None,
    }
}

impl Family {
    /// Adds the `shmem_ctx_*` forms.
    const fn ctx(mut self) -> Self {
        self.ctx = true;
        self.shim_ctx = true;
        self
    }
    /// No context forms, but the shim takes the default context.
    const fn default_ctx(mut self) -> Self {
        self.shim_ctx = true;
        self
    }
    const fn sized(mut self, pattern: &'static str) -> Self {
        self.sized = Some(pattern);
        self
    }
    const fn mem(mut self, name: &'static str) -> Self {
        self.mem = Some(name);
        self
    }
    /// C11 generic selecting on the first argument (after a context).
    const fn generic(mut self, name: &'static str) -> Self {
        self.generic = Some((name, 0));
        self
    }
    /// C11 generic selecting on argument `arg` (0-based).
    const fn generic_at(mut self, name: &'static str, arg: usize) -> Self {
        self.generic = Some((name, arg));
        self
    }
}

const DEST_SRC_N_PE: &[(&str, &str)] = &[
    ("TYPE *", "dest"),
    ("const TYPE *", "source"),
    ("size_t", "nelems"),
    ("int", "pe"),
];
const STRIDED: &[(&str, &str)] = &[
    ("TYPE *", "dest"),
    ("const TYPE *", "source"),
    ("ptrdiff_t", "dst"),
    ("ptrdiff_t", "sst"),
    ("size_t", "nelems"),
    ("int", "pe"),
];
const BLOCK_STRIDED: &[(&str, &str)] = &[
    ("TYPE *", "dest"),
    ("const TYPE *", "source"),
    ("ptrdiff_t", "dst"),
    ("ptrdiff_t", "sst"),
    ("size_t", "bsize"),
    ("size_t", "nblocks"),
    ("int", "pe"),
];
const PUT_SIGNAL: &[(&str, &str)] = &[
    ("TYPE *", "dest"),
    ("const TYPE *", "source"),
    ("size_t", "nelems"),
    ("uint64_t *", "sig_addr"),
    ("uint64_t", "signal"),
    ("int", "sig_op"),
    ("int", "pe"),
];
const AMO_SOURCE: &[(&str, &str)] = &[("const TYPE *", "source"), ("int", "pe")];
const AMO_DEST: &[(&str, &str)] = &[("TYPE *", "dest"), ("int", "pe")];
const AMO_VALUE: &[(&str, &str)] = &[("TYPE *", "dest"), ("TYPE", "value"), ("int", "pe")];
const AMO_CSWAP: &[(&str, &str)] = &[("TYPE *", "dest"), ("TYPE", "cond"), ("TYPE", "value"), ("int", "pe")];
const NBI_SOURCE: &[(&str, &str)] = &[("TYPE *", "fetch"), ("const TYPE *", "source"), ("int", "pe")];
const NBI_DEST: &[(&str, &str)] = &[("TYPE *", "fetch"), ("TYPE *", "dest"), ("int", "pe")];
const NBI_VALUE: &[(&str, &str)] = &[
    ("TYPE *", "fetch"),
    ("TYPE *", "dest"),
    ("TYPE", "value"),
    ("int", "pe"),
];
const NBI_CSWAP: &[(&str, &str)] = &[
    ("TYPE *", "fetch"),
    ("TYPE *", "dest"),
    ("TYPE", "cond"),
    ("TYPE", "value"),
    ("int", "pe"),
];
const WAIT_ONE: &[(&str, &str)] = &[("TYPE *", "ivar"), ("int", "cmp"), ("TYPE", "cmp_value")];
const WAIT_SET: &[(&str, &str)] = &[
    ("TYPE *", "ivars"),
    ("size_t", "nelems"),
    ("const int *", "status"),
    ("int", "cmp"),
    ("TYPE", "cmp_value"),
];
const WAIT_SOME: &[(&str, &str)] = &[
    ("TYPE *", "ivars"),
    ("size_t", "nelems"),
    ("size_t *", "indices"),
    ("const int *", "status"),
    ("int", "cmp"),
    ("TYPE", "cmp_value"),
];
const WAIT_SET_VECTOR: &[(&str, &str)] = &[
    ("TYPE *", "ivars"),
    ("size_t", "nelems"),
    ("const int *", "status"),
    ("int", "cmp"),
    ("const TYPE *", "cmp_values"),
];
const WAIT_SOME_VECTOR: &[(&str, &str)] = &[
    ("TYPE *", "ivars"),
    ("size_t", "nelems"),
    ("size_t *", "indices"),
    ("const int *", "status"),
    ("int", "cmp"),
    ("const TYPE *", "cmp_values"),
];

const TEAM_BCAST: &[(&str, &str)] = &[
    ("shmem_team_t", "team"),
    ("TYPE *", "dest"),
    ("const TYPE *", "source"),
    ("size_t", "nelems"),
    ("int", "PE_root"),
];
const TEAM_DEST_SRC_N: &[(&str, &str)] = &[
    ("shmem_team_t", "team"),
    ("TYPE *", "dest"),
    ("const TYPE *", "source"),
    ("size_t", "nelems"),
];
const TEAM_STRIDED: &[(&str, &str)] = &[
    ("shmem_team_t", "team"),
    ("TYPE *", "dest"),
    ("const TYPE *", "source"),
    ("ptrdiff_t", "dst"),
    ("ptrdiff_t", "sst"),
    ("size_t", "nelems"),
];
const TEAM_REDUCE: &[(&str, &str)] = &[
    ("shmem_team_t", "team"),
    ("TYPE *", "dest"),
    ("const TYPE *", "source"),
    ("size_t", "nreduce"),
];
const TO_ALL: &[(&str, &str)] = &[
    ("TYPE *", "dest"),
    ("const TYPE *", "source"),
    ("int", "nreduce"),
    ("int", "PE_start"),
    ("int", "logPE_stride"),
    ("int", "PE_size"),
    ("TYPE *", "pWrk"),
    ("long *", "pSync"),
];

const STD: Types = Types::Of(AMO_STD);
const EXT: Types = Types::Of(AMO_EXT);
const BIT: Types = Types::Of(AMO_BIT);

/// Every typed family, in the order the header lists them.
pub const FAMILIES: &[Family] = &[
    // Remote memory access.
    fam("shmem_{T}_put", "void", DEST_SRC_N_PE, Types::Rma, "rma::put")
        .ctx()
        .sized("shmem_put{N}")
        .mem("shmem_putmem")
        .generic("shmem_put"),
    fam("shmem_{T}_get", "void", DEST_SRC_N_PE, Types::Rma, "rma::get")
        .ctx()
        .sized("shmem_get{N}")
        .mem("shmem_getmem")
        .generic("shmem_get"),
    fam("shmem_{T}_put_nbi", "void", DEST_SRC_N_PE, Types::Rma, "rma::put")
        .ctx()
        .sized("shmem_put{N}_nbi")
        .mem("shmem_putmem_nbi")
        .generic("shmem_put_nbi"),
    fam("shmem_{T}_get_nbi", "void", DEST_SRC_N_PE, Types::Rma, "rma::get")
        .ctx()
        .sized("shmem_get{N}_nbi")
        .mem("shmem_getmem_nbi")
        .generic("shmem_get_nbi"),
    fam("shmem_{T}_p", "void", AMO_VALUE, Types::Rma, "rma::p")
        .ctx()
        .generic("shmem_p"),
    fam("shmem_{T}_g", "TYPE", AMO_SOURCE, Types::Rma, "rma::g")
        .ctx()
        .generic("shmem_g"),
    fam("shmem_{T}_iput", "void", STRIDED, Types::Rma, "rma::iput")
        .ctx()
        .sized("shmem_iput{N}")
        .generic("shmem_iput"),
    fam("shmem_{T}_iget", "void", STRIDED, Types::Rma, "rma::iget")
        .ctx()
        .sized("shmem_iget{N}")
        .generic("shmem_iget"),
    // OpenSHMEM 1.6 block-strided RMA.
    fam("shmem_{T}_ibput", "void", BLOCK_STRIDED, Types::Rma, "rma::ibput")
        .ctx()
        .sized("shmem_ibput{N}")
        .generic("shmem_ibput"),
    fam("shmem_{T}_ibget", "void", BLOCK_STRIDED, Types::Rma, "rma::ibget")
        .ctx()
        .sized("shmem_ibget{N}")
        .generic("shmem_ibget"),
    // Put with signal.
    fam(
        "shmem_{T}_put_signal",
        "void",
        PUT_SIGNAL,
        Types::Rma,
        "signal::put_signal",
    )
    .ctx()
    .sized("shmem_put{N}_signal")
    .mem("shmem_putmem_signal")
    .generic("shmem_put_signal"),
    fam(
        "shmem_{T}_put_signal_nbi",
        "void",
        PUT_SIGNAL,
        Types::Rma,
        "signal::put_signal",
    )
    .ctx()
    .sized("shmem_put{N}_signal_nbi")
    .mem("shmem_putmem_signal_nbi")
    .generic("shmem_put_signal_nbi"),
    // Atomic memory operations.
    fam("shmem_{T}_atomic_fetch", "TYPE", AMO_SOURCE, EXT, "amo::fetch")
        .ctx()
        .generic("shmem_atomic_fetch"),
    fam("shmem_{T}_atomic_set", "void", AMO_VALUE, EXT, "amo::set")
        .ctx()
        .generic("shmem_atomic_set"),
    fam(
        "shmem_{T}_atomic_compare_swap",
        "TYPE",
        AMO_CSWAP,
        STD,
        "amo::compare_swap",
    )
    .ctx()
    .generic("shmem_atomic_compare_swap"),
    fam("shmem_{T}_atomic_swap", "TYPE", AMO_VALUE, EXT, "amo::swap")
        .ctx()
        .generic("shmem_atomic_swap"),
    fam("shmem_{T}_atomic_fetch_inc", "TYPE", AMO_DEST, STD, "amo::fetch_inc")
        .ctx()
        .generic("shmem_atomic_fetch_inc"),
    fam("shmem_{T}_atomic_inc", "void", AMO_DEST, STD, "amo::inc")
        .ctx()
        .generic("shmem_atomic_inc"),
    fam("shmem_{T}_atomic_fetch_add", "TYPE", AMO_VALUE, STD, "amo::fetch_add")
        .ctx()
        .generic("shmem_atomic_fetch_add"),
    fam("shmem_{T}_atomic_add", "void", AMO_VALUE, STD, "amo::add")
        .ctx()
        .generic("shmem_atomic_add"),
    fam("shmem_{T}_atomic_fetch_and", "TYPE", AMO_VALUE, BIT, "amo::fetch_and")
        .ctx()
        .generic("shmem_atomic_fetch_and"),
    fam("shmem_{T}_atomic_and", "void", AMO_VALUE, BIT, "amo::and")
        .ctx()
        .generic("shmem_atomic_and"),
    fam("shmem_{T}_atomic_fetch_or", "TYPE", AMO_VALUE, BIT, "amo::fetch_or")
        .ctx()
        .generic("shmem_atomic_fetch_or"),
    fam("shmem_{T}_atomic_or", "void", AMO_VALUE, BIT, "amo::or")
        .ctx()
        .generic("shmem_atomic_or"),
    fam("shmem_{T}_atomic_fetch_xor", "TYPE", AMO_VALUE, BIT, "amo::fetch_xor")
        .ctx()
        .generic("shmem_atomic_fetch_xor"),
    fam("shmem_{T}_atomic_xor", "void", AMO_VALUE, BIT, "amo::xor")
        .ctx()
        .generic("shmem_atomic_xor"),
    // Non-blocking fetching atomics: the result lands in *fetch.
    fam("shmem_{T}_atomic_fetch_nbi", "void", NBI_SOURCE, EXT, "amo::fetch_nbi")
        .ctx()
        .generic("shmem_atomic_fetch_nbi"),
    fam(
        "shmem_{T}_atomic_compare_swap_nbi",
        "void",
        NBI_CSWAP,
        STD,
        "amo::compare_swap_nbi",
    )
    .ctx()
    .generic("shmem_atomic_compare_swap_nbi"),
    fam("shmem_{T}_atomic_swap_nbi", "void", NBI_VALUE, EXT, "amo::swap_nbi")
        .ctx()
        .generic("shmem_atomic_swap_nbi"),
    fam(
        "shmem_{T}_atomic_fetch_inc_nbi",
        "void",
        NBI_DEST,
        STD,
        "amo::fetch_inc_nbi",
    )
    .ctx()
    .generic("shmem_atomic_fetch_inc_nbi"),
    fam(
        "shmem_{T}_atomic_fetch_add_nbi",
        "void",
        NBI_VALUE,
        STD,
        "amo::fetch_add_nbi",
    )
    .ctx()
    .generic("shmem_atomic_fetch_add_nbi"),
    fam(
        "shmem_{T}_atomic_fetch_and_nbi",
        "void",
        NBI_VALUE,
        BIT,
        "amo::fetch_and_nbi",
    )
    .ctx()
    .generic("shmem_atomic_fetch_and_nbi"),
    fam(
        "shmem_{T}_atomic_fetch_or_nbi",
        "void",
        NBI_VALUE,
        BIT,
        "amo::fetch_or_nbi",
    )
    .ctx()
    .generic("shmem_atomic_fetch_or_nbi"),
    fam(
        "shmem_{T}_atomic_fetch_xor_nbi",
        "void",
        NBI_VALUE,
        BIT,
        "amo::fetch_xor_nbi",
    )
    .ctx()
    .generic("shmem_atomic_fetch_xor_nbi"),
    // Deprecated atomic names (default context only).
    fam(
        "shmem_{T}_fetch",
        "TYPE",
        AMO_SOURCE,
        Types::Of(DEPRECATED_AMO_EXT),
        "amo::fetch",
    )
    .default_ctx()
    .generic("shmem_fetch"),
    fam(
        "shmem_{T}_set",
        "void",
        AMO_VALUE,
        Types::Of(DEPRECATED_AMO_EXT),
        "amo::set",
    )
    .default_ctx()
    .generic("shmem_set"),
    fam(
        "shmem_{T}_swap",
        "TYPE",
        AMO_VALUE,
        Types::Of(DEPRECATED_AMO_EXT),
        "amo::swap",
    )
    .default_ctx()
    .generic("shmem_swap"),
    fam(
        "shmem_{T}_cswap",
        "TYPE",
        AMO_CSWAP,
        Types::Of(DEPRECATED_AMO_STD),
        "amo::compare_swap",
    )
    .default_ctx()
    .generic("shmem_cswap"),
    fam(
        "shmem_{T}_finc",
        "TYPE",
        AMO_DEST,
        Types::Of(DEPRECATED_AMO_STD),
        "amo::fetch_inc",
    )
    .default_ctx()
    .generic("shmem_finc"),
    fam(
        "shmem_{T}_inc",
        "void",
        AMO_DEST,
        Types::Of(DEPRECATED_AMO_STD),
        "amo::inc",
    )
    .default_ctx()
    .generic("shmem_inc"),
    fam(
        "shmem_{T}_fadd",
        "TYPE",
        AMO_VALUE,
        Types::Of(DEPRECATED_AMO_STD),
        "amo::fetch_add",
    )
    .default_ctx()
    .generic("shmem_fadd"),
    fam(
        "shmem_{T}_add",
        "void",
        AMO_VALUE,
        Types::Of(DEPRECATED_AMO_STD),
        "amo::add",
    )
    .default_ctx()
    .generic("shmem_add"),
    // Point-to-point synchronisation.
    fam("shmem_{T}_wait_until", "void", WAIT_ONE, Types::Wait, "p2p::wait_until").generic("shmem_wait_until"),
    fam("shmem_{T}_test", "int", WAIT_ONE, Types::Wait, "p2p::test").generic("shmem_test"),
    fam("shmem_{T}_wait_until_all", "void", WAIT_SET, STD, "p2p::wait_until_all").generic("shmem_wait_until_all"),
    fam(
        "shmem_{T}_wait_until_any",
        "size_t",
        WAIT_SET,
        STD,
        "p2p::wait_until_any",
    )
    .generic("shmem_wait_until_any"),
    fam(
        "shmem_{T}_wait_until_some",
        "size_t",
        WAIT_SOME,
        STD,
        "p2p::wait_until_some",
    )
    .generic("shmem_wait_until_some"),
    fam(
        "shmem_{T}_wait_until_all_vector",
        "void",
        WAIT_SET_VECTOR,
        STD,
        "p2p::wait_until_all_vector",
    )
    .generic("shmem_wait_until_all_vector"),
    fam(
        "shmem_{T}_wait_until_any_vector",
        "size_t",
        WAIT_SET_VECTOR,
        STD,
        "p2p::wait_until_any_vector",
    )
    .generic("shmem_wait_until_any_vector"),
    fam(
        "shmem_{T}_wait_until_some_vector",
        "size_t",
        WAIT_SOME_VECTOR,
        STD,
        "p2p::wait_until_some_vector",
    )
    .generic("shmem_wait_until_some_vector"),
    fam("shmem_{T}_test_all", "int", WAIT_SET, STD, "p2p::test_all").generic("shmem_test_all"),
    fam("shmem_{T}_test_any", "size_t", WAIT_SET, STD, "p2p::test_any").generic("shmem_test_any"),
    fam("shmem_{T}_test_some", "size_t", WAIT_SOME, STD, "p2p::test_some").generic("shmem_test_some"),
    fam(
        "shmem_{T}_test_all_vector",
        "int",
        WAIT_SET_VECTOR,
        STD,
        "p2p::test_all_vector",
    )
    .generic("shmem_test_all_vector"),
    fam(
        "shmem_{T}_test_any_vector",
        "size_t",
        WAIT_SET_VECTOR,
        STD,
        "p2p::test_any_vector",
    )
    .generic("shmem_test_any_vector"),
    fam(
        "shmem_{T}_test_some_vector",
        "size_t",
        WAIT_SOME_VECTOR,
        STD,
        "p2p::test_some_vector",
    )
    .generic("shmem_test_some_vector"),
    // Deprecated: wait until *ivar != cmp_value.
    fam(
        "shmem_{T}_wait",
        "void",
        &[("TYPE *", "ivar"), ("TYPE", "cmp_value")],
        Types::Of(DEPRECATED_WAIT),
        "p2p::wait",
    ),
    // Team-based collectives.
    fam("shmem_{T}_broadcast", "int", TEAM_BCAST, Types::Rma, "coll::broadcast")
        .mem("shmem_broadcastmem")
        .generic_at("shmem_broadcast", 1),
    fam("shmem_{T}_collect", "int", TEAM_DEST_SRC_N, Types::Rma, "coll::collect")
        .mem("shmem_collectmem")
        .generic_at("shmem_collect", 1),
    fam(
        "shmem_{T}_fcollect",
        "int",
        TEAM_DEST_SRC_N,
        Types::Rma,
        "coll::fcollect",
    )
    .mem("shmem_fcollectmem")
    .generic_at("shmem_fcollect", 1),
    fam(
        "shmem_{T}_alltoall",
        "int",
        TEAM_DEST_SRC_N,
        Types::Rma,
        "coll::alltoall",
    )
    .mem("shmem_alltoallmem")
    .generic_at("shmem_alltoall", 1),
    fam(
        "shmem_{T}_alltoalls",
        "int",
        TEAM_STRIDED,
        Types::Rma,
        "coll::alltoalls",
    )
    .mem("shmem_alltoallsmem")
    .generic_at("shmem_alltoalls", 1),
    fam(
        "shmem_{T}_and_reduce",
        "int",
        TEAM_REDUCE,
        Types::Of(REDUCE_BITWISE),
        "coll::and_reduce",
    )
    .generic_at("shmem_and_reduce", 1),
    fam(
        "shmem_{T}_or_reduce",
        "int",
        TEAM_REDUCE,
        Types::Of(REDUCE_BITWISE),
        "coll::or_reduce",
    )
    .generic_at("shmem_or_reduce", 1),
    fam(
        "shmem_{T}_xor_reduce",
        "int",
        TEAM_REDUCE,
        Types::Of(REDUCE_BITWISE),
        "coll::xor_reduce",
    )
    .generic_at("shmem_xor_reduce", 1),
    fam(
        "shmem_{T}_max_reduce",
        "int",
        TEAM_REDUCE,
        Types::Of(REDUCE_MINMAX),
        "coll::max_reduce",
    )
    .generic_at("shmem_max_reduce", 1),
    fam(
        "shmem_{T}_min_reduce",
        "int",
        TEAM_REDUCE,
        Types::Of(REDUCE_MINMAX),
        "coll::min_reduce",
    )
    .generic_at("shmem_min_reduce", 1),
    fam(
        "shmem_{T}_sum_reduce",
        "int",
        TEAM_REDUCE,
        Types::Of(REDUCE_ARITH),
        "coll::sum_reduce",
    )
    .generic_at("shmem_sum_reduce", 1),
    fam(
        "shmem_{T}_prod_reduce",
        "int",
        TEAM_REDUCE,
        Types::Of(REDUCE_ARITH),
        "coll::prod_reduce",
    )
    .generic_at("shmem_prod_reduce", 1),
    // OpenSHMEM 1.6 scans.
    fam(
        "shmem_{T}_sum_inscan",
        "int",
        TEAM_DEST_SRC_N,
        Types::Of(REDUCE_ARITH),
        "coll::sum_inscan",
    )
    .generic_at("shmem_sum_inscan", 1),
    fam(
        "shmem_{T}_sum_exscan",
        "int",
        TEAM_DEST_SRC_N,
        Types::Of(REDUCE_ARITH),
        "coll::sum_exscan",
    )
    .generic_at("shmem_sum_exscan", 1),
    // Deprecated active-set reductions.
    fam(
        "shmem_{T}_and_to_all",
        "void",
        TO_ALL,
        Types::Of(TO_ALL_BITWISE),
        "coll::and_to_all",
    ),
    fam(
        "shmem_{T}_or_to_all",
        "void",
        TO_ALL,
        Types::Of(TO_ALL_BITWISE),
        "coll::or_to_all",
    ),
    fam(
        "shmem_{T}_xor_to_all",
        "void",
        TO_ALL,
        Types::Of(TO_ALL_BITWISE),
        "coll::xor_to_all",
    ),
    fam(
        "shmem_{T}_max_to_all",
        "void",
        TO_ALL,
        Types::Of(TO_ALL_MINMAX),
        "coll::max_to_all",
    ),
    fam(
        "shmem_{T}_min_to_all",
        "void",
        TO_ALL,
        Types::Of(TO_ALL_MINMAX),
        "coll::min_to_all",
    ),
    fam(
        "shmem_{T}_sum_to_all",
        "void",
        TO_ALL,
        Types::Of(TO_ALL_ARITH),
        "coll::sum_to_all",
    ),
    fam(
        "shmem_{T}_prod_to_all",
        "void",
        TO_ALL,
        Types::Of(TO_ALL_ARITH),
        "coll::prod_to_all",
    ),
];

/// (type name, family pattern) pairs whose exports are written by hand because
/// Rust cannot pass that type by value with the C ABI (`long double`).
pub const HAND_WRITTEN: &[(&str, &str)] = &[("longdouble", "shmem_{T}_p"), ("longdouble", "shmem_{T}_g")];

/// An untyped routine: its prototype, the Rust function implementing it and
/// whether it is hidden when the C11 generic of the same name is active.
pub struct Proto {
    pub decl: &'static str,
    /// Path under `crate::ffi` of `fn(routine: &'static str, args...)`; empty
    /// when both the `shmem_` and `pshmem_` exports are written by hand.
    pub rust: &'static str,
    pub c11_hidden: bool,
}

const fn p(decl: &'static str, rust: &'static str) -> Proto {
    Proto {
        decl,
        rust,
        c11_hidden: false,
    }
}

/// A deprecated C routine whose name a C11 generic macro takes over.
const fn hidden(decl: &'static str, rust: &'static str) -> Proto {
    Proto {
        decl,
        rust,
        c11_hidden: true,
    }
}

/// Exported by hand (variadic, or `long double` by value).
const fn hand(decl: &'static str) -> Proto {
    Proto {
        decl,
        rust: "",
        c11_hidden: false,
    }
}

/// Untyped routines, grouped as in the spec. `build.rs` generates their
/// `shmem_` and `pshmem_` exports; `tests/abi.rs` checks both directions.
pub const PLAIN: &[(&str, &[Proto])] = &[
    (
        "Library setup, exit and query",
        &[
            p("void shmem_init(void)", "setup::init"),
            p(
                "int shmem_init_thread(int requested, int *provided)",
                "setup::init_thread",
            ),
            p("void shmem_query_thread(int *provided)", "setup::query_thread"),
            p("void shmem_finalize(void)", "setup::finalize"),
            p("int shmem_my_pe(void)", "setup::my_pe"),
            p("int shmem_n_pes(void)", "setup::n_pes"),
            p("int shmem_pe_accessible(int pe)", "setup::pe_accessible"),
            p(
                "int shmem_addr_accessible(const void *addr, int pe)",
                "setup::addr_accessible",
            ),
            p("void *shmem_ptr(const void *dest, int pe)", "setup::ptr"),
            p(
                "void shmem_info_get_version(int *major, int *minor)",
                "setup::info_get_version",
            ),
            p("void shmem_info_get_name(char *name)", "setup::info_get_name"),
            p(
                "SHMEM_NORETURN void shmem_global_exit(int status)",
                "setup::global_exit",
            ),
            hand("void shmem_pcontrol(int level, ...)"),
            p(
                "void shmem_query_initialized(int *initialized)",
                "setup::query_initialized",
            ),
        ],
    ),
    (
        "Memory management",
        &[
            p("void *shmem_malloc(size_t size)", "memory::malloc"),
            p("void *shmem_calloc(size_t count, size_t size)", "memory::calloc"),
            p("void *shmem_align(size_t alignment, size_t size)", "memory::align"),
            p("void *shmem_realloc(void *ptr, size_t size)", "memory::realloc"),
            p("void shmem_free(void *ptr)", "memory::free"),
            p(
                "void *shmem_malloc_with_hints(size_t size, long hints)",
                "memory::malloc_with_hints",
            ),
        ],
    ),
    (
        "Communication contexts",
        &[
            p(
                "int shmem_ctx_create(long options, shmem_ctx_t *ctx)",
                "context::create",
            ),
            p("void shmem_ctx_destroy(shmem_ctx_t ctx)", "context::destroy"),
            p(
                "int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team)",
                "context::get_team",
            ),
            p(
                "int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx)",
                "context::team_create",
            ),
        ],
    ),
    (
        "Teams",
        &[
            p("int shmem_team_my_pe(shmem_team_t team)", "team::my_pe"),
            p("int shmem_team_n_pes(shmem_team_t team)", "team::n_pes"),
            p(
                "int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config)",
                "team::get_config",
            ),
            p(
                "int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team)",
                "team::translate_pe",
            ),
            p(
                "int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size, const shmem_team_config_t *config, long config_mask, shmem_team_t *new_team)",
                "team::split_strided",
            ),
            p(
                "int shmem_team_split_2d(shmem_team_t parent_team, int xrange, const shmem_team_config_t *xaxis_config, long xaxis_mask, shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config, long yaxis_mask, shmem_team_t *yaxis_team)",
                "team::split_2d",
            ),
            p("void shmem_team_destroy(shmem_team_t team)", "team::destroy"),
            p("int shmem_team_sync(shmem_team_t team)", "team::sync"),
            p(
                "void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe)",
                "team::ptr",
            ),
        ],
    ),
    (
        "Signalling",
        &[
            p("uint64_t shmem_signal_fetch(const uint64_t *sig_addr)", "signal::fetch"),
            p(
                "uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)",
                "signal::wait_until",
            ),
            p(
                "void shmem_signal_set(uint64_t *sig_addr, uint64_t signal, int pe)",
                "signal::set",
            ),
            p(
                "void shmem_ctx_signal_set(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe)",
                "signal::ctx_set",
            ),
            p(
                "void shmem_signal_add(uint64_t *sig_addr, uint64_t signal, int pe)",
                "signal::add",
            ),
            p(
                "void shmem_ctx_signal_add(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe)",
                "signal::ctx_add",
            ),
        ],
    ),
    (
        "Memory ordering and synchronisation",
        &[
            p("void shmem_fence(void)", "order::fence"),
            p("void shmem_ctx_fence(shmem_ctx_t ctx)", "order::ctx_fence"),
            p("void shmem_quiet(void)", "order::quiet"),
            p("void shmem_ctx_quiet(shmem_ctx_t ctx)", "order::ctx_quiet"),
            p(
                "void shmem_pe_quiet(const int *target_pes, size_t npes)",
                "order::pe_quiet",
            ),
            p(
                "void shmem_ctx_pe_quiet(shmem_ctx_t ctx, const int *target_pes, size_t npes)",
                "order::ctx_pe_quiet",
            ),
            p("void shmem_barrier_all(void)", "order::barrier_all"),
            p("void shmem_sync_all(void)", "order::sync_all"),
        ],
    ),
    (
        "Deprecated active-set collectives",
        &[
            p(
                "void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync)",
                "coll::barrier",
            ),
            p(
                "void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync)",
                "coll::sync",
            ),
            p(
                "void shmem_broadcast32(void *dest, const void *source, size_t nelems, int PE_root, int PE_start, int logPE_stride, int PE_size, long *pSync)",
                "coll::broadcast_aset::<u32>",
            ),
            p(
                "void shmem_broadcast64(void *dest, const void *source, size_t nelems, int PE_root, int PE_start, int logPE_stride, int PE_size, long *pSync)",
                "coll::broadcast_aset::<u64>",
            ),
            p(
                "void shmem_collect32(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync)",
                "coll::collect_aset::<u32>",
            ),
            p(
                "void shmem_collect64(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync)",
                "coll::collect_aset::<u64>",
            ),
            p(
                "void shmem_fcollect32(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync)",
                "coll::fcollect_aset::<u32>",
            ),
            p(
                "void shmem_fcollect64(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync)",
                "coll::fcollect_aset::<u64>",
            ),
            p(
                "void shmem_alltoall32(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync)",
                "coll::alltoall_aset::<u32>",
            ),
            p(
                "void shmem_alltoall64(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync)",
                "coll::alltoall_aset::<u64>",
            ),
            p(
                "void shmem_alltoalls32(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync)",
                "coll::alltoalls_aset::<u32>",
            ),
            p(
                "void shmem_alltoalls64(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync)",
                "coll::alltoalls_aset::<u64>",
            ),
        ],
    ),
    (
        "Distributed locks",
        &[
            p("void shmem_set_lock(long *lock)", "lock::set_lock"),
            p("int shmem_test_lock(long *lock)", "lock::test_lock"),
            p("void shmem_clear_lock(long *lock)", "lock::clear_lock"),
        ],
    ),
    (
        "Deprecated names still in the specification",
        &[
            p("void start_pes(int npes)", "setup::start_pes"),
            p("int _my_pe(void)", "setup::my_pe"),
            p("int _num_pes(void)", "setup::n_pes"),
            p("void *shmalloc(size_t size)", "memory::malloc"),
            p("void shfree(void *ptr)", "memory::free"),
            p("void *shrealloc(void *ptr, size_t size)", "memory::realloc"),
            p("void *shmemalign(size_t alignment, size_t size)", "memory::align"),
            p("void shmem_wait(long *ivar, long cmp_value)", "p2p::wait::<i64>"),
            hidden(
                "void shmem_wait_until(long *ivar, int cmp, long cmp_value)",
                "p2p::wait_until::<i64>",
            ),
            hidden(
                "long shmem_swap(long *target, long value, int pe)",
                "amo::swap_default::<i64>",
            ),
        ],
    ),
];

/// Extensions declared in `shmemx.h` (no `pshmem_` twins: profiling covers the
/// specification's routines).
pub const SHMEMX: &[Proto] = &[
    p(
        "int shmemx_psync_footprint(shmemx_psync_footprint_t *fp)",
        "team::psync_footprint",
    ),
    p(
        "int shmemx_team_psync_footprint(shmem_team_t team, shmemx_psync_footprint_t *fp)",
        "team::team_psync_footprint",
    ),
];
