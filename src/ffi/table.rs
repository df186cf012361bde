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
