//! The type sets of the typed C API: every element type with its C and Rust
//! spelling, and which types each family of routines is stamped over (OpenSHMEM
//! 1.5 tables). Plain data, read by `build.rs` through `table.rs`.
#![allow(dead_code)]

/// One C element type.
pub(crate) struct Ty {
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
pub(crate) const RMA_TYPES: &[Ty] = &[
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
pub(crate) const COMPLEX_TYPES: &[Ty] = &[
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
pub(crate) const REDUCE_BITWISE: &[&str] = &[
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
pub(crate) const REDUCE_MINMAX: &[&str] = &[
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
pub(crate) const REDUCE_ARITH: &[&str] = &[
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
pub(crate) const TO_ALL_BITWISE: &[&str] = &["short", "int", "long", "longlong"];
/// Deprecated `_to_all` MAX/MIN types.
pub(crate) const TO_ALL_MINMAX: &[&str] = &["short", "int", "long", "longlong", "float", "double", "longdouble"];
/// Deprecated `_to_all` SUM/PROD types.
pub(crate) const TO_ALL_ARITH: &[&str] = &[
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
pub(crate) const AMO_STD: &[&str] = &[
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
/// Point-to-point types of OpenSHMEM 1.4 that 1.5 dropped; kept in every
/// wait/test family and its generic, as Sandia OpenSHMEM and Open MPI do.
pub(crate) const WAIT_DEPRECATED: &[&str] = &["short", "ushort"];

/// Extended AMO types: the standard ones and the two floating types.
pub(crate) const AMO_EXT: &[&str] = &[
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
/// The last three are Open MPI OSHMEM's (its `shmem.h` declares the signed
/// bitwise atomics outside the specification's table); after `int32` and
/// `int64`, which the C11 generics select for `int` and `long`.
pub(crate) const AMO_BIT: &[&str] = &[
    "uint",
    "ulong",
    "ulonglong",
    "int32",
    "int64",
    "uint32",
    "uint64",
    "int",
    "long",
    "longlong",
];
/// Types of the deprecated `shmem_TYPE_fetch/_set/_swap` names.
pub(crate) const DEPRECATED_AMO_EXT: &[&str] = &["float", "double", "int", "long", "longlong"];
/// Types of the deprecated `shmem_TYPE_cswap/_finc/_inc/_fadd/_add` names.
pub(crate) const DEPRECATED_AMO_STD: &[&str] = &["int", "long", "longlong"];
/// Types of Open MPI OSHMEM's `shmemx_TYPE_p`/`_g` and fixed-width active-set
/// reductions (`shmemx_int16_sum_to_all`, ...).
pub(crate) const OSHMEM_SHORT_UP: &[&str] = &["int16", "int32", "int64"];
/// Types of OSHMEM's `shmemx_` atomics under their pre-1.4 names
/// (`shmemx_int32_fadd`, ...) and of its `shmemx_TYPE_wait(_until)`.
pub(crate) const OSHMEM_AMO: &[&str] = &["int32", "int64"];
/// Types of OSHMEM's `shmemx_` bitwise atomics.
pub(crate) const OSHMEM_BIT: &[&str] = &["int32", "int64", "uint32", "uint64"];
/// Types of the deprecated `shmem_TYPE_wait` names.
pub(crate) const DEPRECATED_WAIT: &[&str] = &["short", "int", "long", "longlong"];

/// Which types a family is stamped over.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Types {
    /// All of [`RMA_TYPES`].
    Rma,
    /// [`AMO_STD`], then [`WAIT_DEPRECATED`]: the point-to-point types.
    Wait,
    /// Exactly these types, all in the generic.
    Of(&'static [&'static str]),
}

/// Element sizes in bits of the sized forms (`shmem_put32`), with the Rust
/// element type (same size, C-compatible alignment).
pub(crate) const SIZES: &[(u32, &str)] = &[(8, "u8"), (16, "u16"), (32, "u32"), (64, "u64"), (128, "[u64; 2]")];
