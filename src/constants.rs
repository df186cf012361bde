//! The library constants of `shmem.h` (OpenSHMEM 1.6 "Library Constants") and
//! the handle types written before the prototypes.
//!
//! Plain data with no dependencies, like `ffi/table.rs`: `build.rs` includes
//! it with `#[path]` to write the header, and the crate uses the same values,
//! so a constant such as `SHMEM_CMP_EQ` has one definition. It sits outside
//! `ffi` because lower modules use the values too (the thread levels in
//! `runtime`, the pSync sizes in `psync`) and nothing may depend on `ffi`;
//! `ffi::constants` names the same module for the shims.
#![allow(dead_code)]

// Values follow Sandia OpenSHMEM.

pub(crate) const SHMEM_MAJOR_VERSION: i64 = 1;
pub(crate) const SHMEM_MINOR_VERSION: i64 = 6;
pub(crate) const SHMEM_MAX_NAME_LEN: i64 = 256;
pub(crate) const SHMEM_VENDOR_STRING: &str = "rshmem";
/// rshmem's own version (the package's), as numbers: OSSS-UCX's
/// `SHMEM_VENDOR_{MAJOR,MINOR,PATCH}_VERSION`, which no other header defines
/// differently, so programs that test them for OSSS-UCX read rshmem's.
pub(crate) const SHMEM_VENDOR_MAJOR_VERSION: i64 = version_part(env!("CARGO_PKG_VERSION_MAJOR"));
pub(crate) const SHMEM_VENDOR_MINOR_VERSION: i64 = version_part(env!("CARGO_PKG_VERSION_MINOR"));
pub(crate) const SHMEM_VENDOR_PATCH_VERSION: i64 = version_part(env!("CARGO_PKG_VERSION_PATCH"));

/// A decimal version component, at compile time.
const fn version_part(s: &str) -> i64 {
    let b = s.as_bytes();
    let mut v = 0;
    let mut i = 0;
    while i < b.len() {
        assert!(b[i].is_ascii_digit(), "a version component is decimal");
        v = v * 10 + (b[i] - b'0') as i64;
        i += 1;
    }
    v
}

pub(crate) const SHMEM_THREAD_SINGLE: i64 = 0;
pub(crate) const SHMEM_THREAD_FUNNELED: i64 = 1;
pub(crate) const SHMEM_THREAD_SERIALIZED: i64 = 2;
pub(crate) const SHMEM_THREAD_MULTIPLE: i64 = 3;

pub(crate) const SHMEM_CMP_EQ: i64 = 1;
pub(crate) const SHMEM_CMP_NE: i64 = 2;
pub(crate) const SHMEM_CMP_GT: i64 = 3;
pub(crate) const SHMEM_CMP_GE: i64 = 4;
pub(crate) const SHMEM_CMP_LT: i64 = 5;
pub(crate) const SHMEM_CMP_LE: i64 = 6;

pub(crate) const SHMEM_SIGNAL_SET: i64 = 0;
pub(crate) const SHMEM_SIGNAL_ADD: i64 = 1;

pub(crate) const SHMEM_CTX_PRIVATE: i64 = 1 << 0;
pub(crate) const SHMEM_CTX_SERIALIZED: i64 = 1 << 1;
pub(crate) const SHMEM_CTX_NOSTORE: i64 = 1 << 2;

pub(crate) const SHMEM_TEAM_NUM_CONTEXTS: i64 = 1 << 0;

/// Session option (`shmem_ctx_session_start`'s `options`).
pub(crate) const SHMEM_CTX_SESSION_BATCH: i64 = 1 << 0;
/// Session configuration mask bit: use `total_ops`.
pub(crate) const SHMEM_CTX_SESSION_TOTAL_OPS: i64 = 1 << 0;

pub(crate) const SHMEM_MALLOC_ATOMICS_REMOTE: i64 = 1 << 0;
pub(crate) const SHMEM_MALLOC_SIGNAL_REMOTE: i64 = 1 << 1;

pub(crate) const SHMEM_SYNC_VALUE: i64 = 0;
/// The largest of the sizes below.
pub(crate) const SHMEM_SYNC_SIZE: i64 = SHMEM_REDUCE_SYNC_SIZE;
/// The flags plus the inbox of the pushed (eager) active-set collectives:
/// broadcast, reductions, fcollect and alltoall (`psync::INBOX_PSYNC_BYTES`,
/// checked there).
pub(crate) const SHMEM_BCAST_SYNC_SIZE: i64 = 80 + 4096;
pub(crate) const SHMEM_REDUCE_SYNC_SIZE: i64 = 80 + 4096;
pub(crate) const SHMEM_BARRIER_SYNC_SIZE: i64 = 80;
pub(crate) const SHMEM_COLLECT_SYNC_SIZE: i64 = 80 + 4096;
pub(crate) const SHMEM_ALLTOALL_SYNC_SIZE: i64 = 80 + 4096;
pub(crate) const SHMEM_ALLTOALLS_SYNC_SIZE: i64 = 80;
pub(crate) const SHMEM_REDUCE_MIN_WRKDATA_SIZE: i64 = 1;

/// Integer constants emitted as `#define NAME value` (also under the deprecated
/// `_NAME` spelling where `deprecated_alias` is true).
pub(crate) const INT_CONSTANTS: &[(&str, i64, bool)] = &[
    ("SHMEM_MAJOR_VERSION", SHMEM_MAJOR_VERSION, true),
    ("SHMEM_MINOR_VERSION", SHMEM_MINOR_VERSION, true),
    ("SHMEM_MAX_NAME_LEN", SHMEM_MAX_NAME_LEN, true),
    ("SHMEM_VENDOR_MAJOR_VERSION", SHMEM_VENDOR_MAJOR_VERSION, false),
    ("SHMEM_VENDOR_MINOR_VERSION", SHMEM_VENDOR_MINOR_VERSION, false),
    ("SHMEM_VENDOR_PATCH_VERSION", SHMEM_VENDOR_PATCH_VERSION, false),
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
    ("SHMEM_CTX_SESSION_BATCH", SHMEM_CTX_SESSION_BATCH, false),
    ("SHMEM_CTX_SESSION_TOTAL_OPS", SHMEM_CTX_SESSION_TOTAL_OPS, false),
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
pub(crate) const PREAMBLE: &str = r#"/* rshmem: a number to test, and Sandia OpenSHMEM's two header markers.
 * Tools that adapt to an implementation by its macros (shmem4py) recognise
 * SOS by SHMEM_DEF_H and SHMEM_FUNCTION_ATTRIBUTES; rshmem declares every
 * routine SOS's shmem.h does, so they may take it for SOS. The attribute
 * macro is empty, as in SOS's usual build (docs/compatibility.md). */
#define RSHMEM 1
#ifndef SHMEM_DEF_H
#define SHMEM_DEF_H 1
#endif
#ifndef SHMEM_FUNCTION_ATTRIBUTES
#define SHMEM_FUNCTION_ATTRIBUTES
#endif

/* Opaque handles. A NULL handle is invalid. */
typedef struct rshmem_ctx *shmem_ctx_t;
typedef struct rshmem_team *shmem_team_t;
/* A non-blocking collective's request (the draft of OpenSHMEM pull request
 * 456; see docs/nonblocking-collectives.md). */
typedef struct rshmem_req *shmem_req_h;

/* Team configuration (OpenSHMEM 1.5: one field). */
typedef struct {
    int num_contexts;
} shmem_team_config_t;

/* Session configuration (OpenSHMEM 1.6: one field, a hint). */
typedef struct {
    size_t total_ops;
} shmem_ctx_session_config_t;

#define SHMEM_CTX_INVALID ((shmem_ctx_t) NULL)
#define SHMEM_TEAM_INVALID ((shmem_team_t) NULL)
#define SHMEM_REQ_INVALID ((shmem_req_h) NULL)

/* Link-time constant handles. */
extern shmem_ctx_t SHMEM_CTX_DEFAULT;
extern shmem_team_t SHMEM_TEAM_WORLD;
extern shmem_team_t SHMEM_TEAM_SHARED;

/* Element types of the complex reductions: `double _Complex` and
 * `float _Complex`, also usable from C++ (GNU extension). */
#ifdef __cplusplus
__extension__ typedef _Complex double rshmem_complexd;
__extension__ typedef _Complex float rshmem_complexf;
#else
typedef double _Complex rshmem_complexd;
typedef float _Complex rshmem_complexf;
#endif

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
