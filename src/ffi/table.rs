//! The one source of truth for the typed C API: type tables, typed routine
//! families, untyped prototypes and constants.
//!
//! This file is plain data with no dependencies: `build.rs` includes it with
//! `#[path]` to generate `$OUT_DIR/exports.rs` (one `#[no_mangle]` function per
//! symbol, each a one-line call into a generic shim in `ffi/`) and
//! `$OUT_DIR/shmem.h` (prototypes, constants, C11 `_Generic` selectors). The crate
//! includes it too, so constants such as `SHMEM_CMP_EQ` have one value.
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

/// Which types a family is stamped over.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Types {
    /// All of [`RMA_TYPES`].
    Rma,
    /// [`AMO_STD`], then [`WAIT_DEPRECATED`] (the latter not in the generic).
    Wait,
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
    /// The generic shim the export calls, under `crate::ffi`.
    pub shim: &'static str,
    /// C11 generic name and the index (among `params`) of the argument whose
    /// type selects the routine.
    pub generic: Option<(&'static str, usize)>,
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

/// Every typed family, in the order the header lists them.
pub const FAMILIES: &[Family] = &[
    Family {
        typed: "shmem_{T}_put",
        sized: Some("shmem_put{N}"),
        mem: Some("shmem_putmem"),
        ret: "void",
        params: DEST_SRC_N_PE,
        types: Types::Rma,
        ctx: true,
        shim: "rma::put",
        generic: Some(("shmem_put", 0)),
    },
    Family {
        typed: "shmem_{T}_get",
        sized: Some("shmem_get{N}"),
        mem: Some("shmem_getmem"),
        ret: "void",
        params: DEST_SRC_N_PE,
        types: Types::Rma,
        ctx: true,
        shim: "rma::get",
        generic: Some(("shmem_get", 0)),
    },
    Family {
        typed: "shmem_{T}_put_nbi",
        sized: Some("shmem_put{N}_nbi"),
        mem: Some("shmem_putmem_nbi"),
        ret: "void",
        params: DEST_SRC_N_PE,
        types: Types::Rma,
        ctx: true,
        shim: "rma::put",
        generic: Some(("shmem_put_nbi", 0)),
    },
    Family {
        typed: "shmem_{T}_get_nbi",
        sized: Some("shmem_get{N}_nbi"),
        mem: Some("shmem_getmem_nbi"),
        ret: "void",
        params: DEST_SRC_N_PE,
        types: Types::Rma,
        ctx: true,
        shim: "rma::get",
        generic: Some(("shmem_get_nbi", 0)),
    },
    Family {
        typed: "shmem_{T}_p",
        sized: None,
        mem: None,
        ret: "void",
        params: &[("TYPE *", "dest"), ("TYPE", "value"), ("int", "pe")],
        types: Types::Rma,
        ctx: true,
        shim: "rma::p",
        generic: Some(("shmem_p", 0)),
    },
    Family {
        typed: "shmem_{T}_g",
        sized: None,
        mem: None,
        ret: "TYPE",
        params: &[("const TYPE *", "source"), ("int", "pe")],
        types: Types::Rma,
        ctx: true,
        shim: "rma::g",
        generic: Some(("shmem_g", 0)),
    },
    Family {
        typed: "shmem_{T}_iput",
        sized: Some("shmem_iput{N}"),
        mem: None,
        ret: "void",
        params: STRIDED,
        types: Types::Rma,
        ctx: true,
        shim: "rma::iput",
        generic: Some(("shmem_iput", 0)),
    },
    Family {
        typed: "shmem_{T}_iget",
        sized: Some("shmem_iget{N}"),
        mem: None,
        ret: "void",
        params: STRIDED,
        types: Types::Rma,
        ctx: true,
        shim: "rma::iget",
        generic: Some(("shmem_iget", 0)),
    },
    Family {
        typed: "shmem_{T}_wait_until",
        sized: None,
        mem: None,
        ret: "void",
        params: &[("TYPE *", "ivar"), ("int", "cmp"), ("TYPE", "cmp_value")],
        types: Types::Wait,
        ctx: false,
        shim: "p2p::wait_until",
        generic: Some(("shmem_wait_until", 0)),
    },
    Family {
        typed: "shmem_{T}_test",
        sized: None,
        mem: None,
        ret: "int",
        params: &[("TYPE *", "ivar"), ("int", "cmp"), ("TYPE", "cmp_value")],
        types: Types::Wait,
        ctx: false,
        shim: "p2p::test",
        generic: Some(("shmem_test", 0)),
    },
];

/// (type name, family pattern) pairs whose exports are written by hand because
/// Rust cannot pass that type by value with the C ABI (`long double`).
pub const HAND_WRITTEN: &[(&str, &str)] = &[("longdouble", "shmem_{T}_p"), ("longdouble", "shmem_{T}_g")];

/// An untyped routine: its prototype and whether it is hidden when the C11
/// generic of the same name is active.
pub struct Proto {
    pub decl: &'static str,
    pub c11_hidden: bool,
}

const fn p(decl: &'static str) -> Proto {
    Proto {
        decl,
        c11_hidden: false,
    }
}

/// Untyped routines, grouped as in the spec. Their Rust definitions are written
/// by hand in `ffi/`; `tests/abi.rs` checks both directions.
pub const PLAIN: &[(&str, &[Proto])] = &[
    (
        "Library setup, exit and query",
        &[
            p("void shmem_init(void)"),
            p("int shmem_init_thread(int requested, int *provided)"),
            p("void shmem_query_thread(int *provided)"),
            p("void shmem_finalize(void)"),
            p("int shmem_my_pe(void)"),
            p("int shmem_n_pes(void)"),
            p("int shmem_pe_accessible(int pe)"),
            p("int shmem_addr_accessible(const void *addr, int pe)"),
            p("void *shmem_ptr(const void *dest, int pe)"),
            p("void shmem_info_get_version(int *major, int *minor)"),
            p("void shmem_info_get_name(char *name)"),
            p("SHMEM_NORETURN void shmem_global_exit(int status)"),
            p("void shmem_pcontrol(int level, ...)"),
            p("void shmem_query_initialized(int *initialized)"),
        ],
    ),
    (
        "Memory management",
        &[
            p("void *shmem_malloc(size_t size)"),
            p("void *shmem_calloc(size_t count, size_t size)"),
            p("void *shmem_align(size_t alignment, size_t size)"),
            p("void *shmem_realloc(void *ptr, size_t size)"),
            p("void shmem_free(void *ptr)"),
            p("void *shmem_malloc_with_hints(size_t size, long hints)"),
        ],
    ),
    (
        "Memory ordering and synchronisation",
        &[
            p("void shmem_fence(void)"),
            p("void shmem_ctx_fence(shmem_ctx_t ctx)"),
            p("void shmem_quiet(void)"),
            p("void shmem_ctx_quiet(shmem_ctx_t ctx)"),
            p("void shmem_barrier_all(void)"),
            p("void shmem_sync_all(void)"),
        ],
    ),
    (
        "Deprecated names still in the specification",
        &[
            p("void start_pes(int npes)"),
            p("int _my_pe(void)"),
            p("int _num_pes(void)"),
            p("void *shmalloc(size_t size)"),
            p("void shfree(void *ptr)"),
            p("void *shrealloc(void *ptr, size_t size)"),
            p("void *shmemalign(size_t alignment, size_t size)"),
        ],
    ),
];

// ---- Constants (OpenSHMEM 1.5 "Library Constants"); values follow Sandia OpenSHMEM.

pub const SHMEM_MAJOR_VERSION: i64 = 1;
pub const SHMEM_MINOR_VERSION: i64 = 5;
pub const SHMEM_MAX_NAME_LEN: i64 = 256;
pub const SHMEM_VENDOR_STRING: &str = "rshmem";

pub const SHMEM_THREAD_SINGLE: i64 = 0;
pub const SHMEM_THREAD_FUNNELED: i64 = 1;
pub const SHMEM_THREAD_SERIALIZED: i64 = 2;
pub const SHMEM_THREAD_MULTIPLE: i64 = 3;

pub const SHMEM_CMP_EQ: i64 = 1;
pub const SHMEM_CMP_NE: i64 = 2;
pub const SHMEM_CMP_GT: i64 = 3;
pub const SHMEM_CMP_GE: i64 = 4;
pub const SHMEM_CMP_LT: i64 = 5;
pub const SHMEM_CMP_LE: i64 = 6;

pub const SHMEM_SIGNAL_SET: i64 = 0;
pub const SHMEM_SIGNAL_ADD: i64 = 1;

pub const SHMEM_CTX_PRIVATE: i64 = 1 << 0;
pub const SHMEM_CTX_SERIALIZED: i64 = 1 << 1;
pub const SHMEM_CTX_NOSTORE: i64 = 1 << 2;

pub const SHMEM_TEAM_NUM_CONTEXTS: i64 = 1 << 0;

pub const SHMEM_MALLOC_ATOMICS_REMOTE: i64 = 1 << 0;
pub const SHMEM_MALLOC_SIGNAL_REMOTE: i64 = 1 << 1;

pub const SHMEM_SYNC_VALUE: i64 = 0;
pub const SHMEM_SYNC_SIZE: i64 = 35;
pub const SHMEM_BCAST_SYNC_SIZE: i64 = 35;
pub const SHMEM_REDUCE_SYNC_SIZE: i64 = 35;
pub const SHMEM_BARRIER_SYNC_SIZE: i64 = 35;
pub const SHMEM_COLLECT_SYNC_SIZE: i64 = 35;
pub const SHMEM_ALLTOALL_SYNC_SIZE: i64 = 35;
pub const SHMEM_ALLTOALLS_SYNC_SIZE: i64 = 35;
pub const SHMEM_REDUCE_MIN_WRKDATA_SIZE: i64 = 1;

/// Integer constants emitted as `#define NAME value` (also under the deprecated
/// `_NAME` spelling where `deprecated_alias` is true).
pub const INT_CONSTANTS: &[(&str, i64, bool)] = &[
    ("SHMEM_MAJOR_VERSION", SHMEM_MAJOR_VERSION, true),
    ("SHMEM_MINOR_VERSION", SHMEM_MINOR_VERSION, true),
    ("SHMEM_MAX_NAME_LEN", SHMEM_MAX_NAME_LEN, true),
    ("SHMEM_THREAD_SINGLE", SHMEM_THREAD_SINGLE, false),
    ("SHMEM_THREAD_FUNNELED", SHMEM_THREAD_FUNNELED, false),
    ("SHMEM_THREAD_SERIALIZED", SHMEM_THREAD_SERIALIZED, false),
    ("SHMEM_THREAD_MULTIPLE", SHMEM_THREAD_MULTIPLE, false),
    ("SHMEM_CMP_EQ", SHMEM_CMP_EQ, true),
    ("SHMEM_CMP_NE", SHMEM_CMP_NE, true),
    ("SHMEM_CMP_GT", SHMEM_CMP_GT, true),
    ("SHMEM_CMP_GE", SHMEM_CMP_GE, true),
    ("SHMEM_CMP_LT", SHMEM_CMP_LT, true),
    ("SHMEM_CMP_LE", SHMEM_CMP_LE, true),
    ("SHMEM_SIGNAL_SET", SHMEM_SIGNAL_SET, false),
    ("SHMEM_SIGNAL_ADD", SHMEM_SIGNAL_ADD, false),
    ("SHMEM_CTX_PRIVATE", SHMEM_CTX_PRIVATE, false),
    ("SHMEM_CTX_SERIALIZED", SHMEM_CTX_SERIALIZED, false),
    ("SHMEM_CTX_NOSTORE", SHMEM_CTX_NOSTORE, false),
    ("SHMEM_TEAM_NUM_CONTEXTS", SHMEM_TEAM_NUM_CONTEXTS, false),
    ("SHMEM_MALLOC_ATOMICS_REMOTE", SHMEM_MALLOC_ATOMICS_REMOTE, false),
    ("SHMEM_MALLOC_SIGNAL_REMOTE", SHMEM_MALLOC_SIGNAL_REMOTE, false),
    ("SHMEM_SYNC_VALUE", SHMEM_SYNC_VALUE, true),
    ("SHMEM_SYNC_SIZE", SHMEM_SYNC_SIZE, false),
    ("SHMEM_BCAST_SYNC_SIZE", SHMEM_BCAST_SYNC_SIZE, true),
    ("SHMEM_REDUCE_SYNC_SIZE", SHMEM_REDUCE_SYNC_SIZE, true),
    ("SHMEM_BARRIER_SYNC_SIZE", SHMEM_BARRIER_SYNC_SIZE, true),
    ("SHMEM_COLLECT_SYNC_SIZE", SHMEM_COLLECT_SYNC_SIZE, true),
    ("SHMEM_ALLTOALL_SYNC_SIZE", SHMEM_ALLTOALL_SYNC_SIZE, false),
    ("SHMEM_ALLTOALLS_SYNC_SIZE", SHMEM_ALLTOALLS_SYNC_SIZE, false),
    ("SHMEM_REDUCE_MIN_WRKDATA_SIZE", SHMEM_REDUCE_MIN_WRKDATA_SIZE, true),
];

/// Hand-written C placed before the prototypes: handle types and their
/// link-time constants.
pub const PREAMBLE: &str = r#"/* Opaque handles. A NULL handle is invalid. */
typedef struct rshmem_ctx *shmem_ctx_t;
typedef struct rshmem_team *shmem_team_t;

/* Team configuration (OpenSHMEM 1.5: one field). */
typedef struct {
    int num_contexts;
} shmem_team_config_t;

#define SHMEM_CTX_INVALID ((shmem_ctx_t) NULL)
#define SHMEM_TEAM_INVALID ((shmem_team_t) NULL)

/* Link-time constant handles. */
extern shmem_ctx_t SHMEM_CTX_DEFAULT;

#if defined(__cplusplus) && __cplusplus >= 201103L
#define SHMEM_NORETURN [[noreturn]]
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define SHMEM_NORETURN _Noreturn
#elif defined(__GNUC__)
#define SHMEM_NORETURN __attribute__((__noreturn__))
#else
#define SHMEM_NORETURN
#endif
"#;
