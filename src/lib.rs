//! # rshmem: OpenSHMEM for one node and across nodes
//!
//! OpenSHMEM 1.6 and rshmem's extensions (`shmemx.h`). PEs of one node
//! share memory; PEs of other nodes are reached through UCX or MPI-3 RMA
//! (`transport::hybrid`).
//!
//! C programs link against this crate through `shmem.h`; Rust code only sees the
//! crate-internal API below.
//!
//! ## Nomenclature
//! - **PE** (processing element): one process of the job, numbered `0..npes`.
//! - **Symmetric**: an object that exists at the same offset on every PE, so a PE
//!   names a peer's copy by its own address. The symmetric heap and the program's
//!   global/static data are symmetric.
//! - **Segment**: one PE's symmetric memory (globals copy, then heap), a slice of the
//!   job's shared memory file. Every PE maps every segment, so a put is a store.
//!
//! ## Layers
//! Each module depends only on modules below it.
//! ```text
//!   C program ──> ffi/ (the only exports: argument checks, panic boundary)
//!                  │
//!                 runtime/ (owns the process state; init/finalize, errors)
//!                  │
//!                 memory (shmem_malloc & co once checked)
//!                  │
//!                 team/ ── semaphore/ ── notify/ ── space/ (teams, UPC semaphores,
//!                                         notification sets, spaces)
//!                  │
//!                 coll/ (collective entry points and algorithms)   sim (virtual jobs)
//!                  │
//!                 world (a PE's low-level context)  lock (distributed locks)
//!                  │
//!                 psync/ (sync-memory strategies)  transport/  wait/  stuck/  heap/
//!                  │
//!                 config  constants  job  types (leaves)
//!   oshrun ──────> launcher/ ── stuck/ (where PEs block, hang reports) ── job
//!   oshcc ───────> wrapper ── tools (tool names, shared with build.rs)
//! ```
//! Dependencies point down; `tests/module_cycles.rs` checks it.
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(unreachable_pub)]
#![warn(missing_docs)]
// The module docs are read with --document-private-items (CONTRIBUTING, CI):
// a public module's header may name its crate-private parts.
#![allow(rustdoc::private_intra_doc_links)]

pub(crate) mod coll;
pub(crate) mod config;
pub(crate) mod constants;
pub(crate) mod context;
pub(crate) mod ct;
pub(crate) mod error;
pub(crate) mod ffi;
pub(crate) mod heap;
pub mod job;
pub mod launcher;
pub(crate) mod lock;
pub(crate) mod memory;
pub(crate) mod nbc;
pub(crate) mod notify;
pub(crate) mod pcntr;
pub mod psync;
pub(crate) mod runtime;
pub(crate) mod semaphore;
pub mod sim;
pub(crate) mod space;
pub(crate) mod stuck;
pub(crate) mod team;
pub mod tools;
pub(crate) mod transport;
pub(crate) mod types;
pub(crate) mod wait;
pub(crate) mod world;
pub mod wrapper;

/// The public headers as generated from the type table by `build.rs`.
/// `include/` holds committed copies (`cargo xtask gen-header` refreshes them).
pub mod headers {
    /// `shmem.h`: the OpenSHMEM API.
    pub const SHMEM_H: &str = include_str!(concat!(env!("OUT_DIR"), "/shmem.h"));
    /// `shmemx.h`: rshmem's extensions.
    pub const SHMEMX_H: &str = include_str!(concat!(env!("OUT_DIR"), "/shmemx.h"));
    /// `pshmem.h`: the profiling (`pshmem_*`) names of the API.
    pub const PSHMEM_H: &str = include_str!(concat!(env!("OUT_DIR"), "/pshmem.h"));
    /// `pshmemx.h`: the profiling names of the extensions.
    pub const PSHMEMX_H: &str = include_str!(concat!(env!("OUT_DIR"), "/pshmemx.h"));
    /// The old include paths (`<mpp/shmem.h>`, ...), which include the above.
    pub const MPP_SHMEM_H: &str = include_str!(concat!(env!("OUT_DIR"), "/mpp/shmem.h"));
    /// `mpp/shmemx.h`: the old include path of `shmemx.h`.
    pub const MPP_SHMEMX_H: &str = include_str!(concat!(env!("OUT_DIR"), "/mpp/shmemx.h"));
    /// `mpp/pshmem.h`: the old include path of `pshmem.h`.
    pub const MPP_PSHMEM_H: &str = include_str!(concat!(env!("OUT_DIR"), "/mpp/pshmem.h"));
    /// (file name under `include/`, contents)
    pub const ALL: &[(&str, &str)] = &[
        ("shmem.h", SHMEM_H),
        ("shmemx.h", SHMEMX_H),
        ("pshmem.h", PSHMEM_H),
        ("pshmemx.h", PSHMEMX_H),
        ("mpp/shmem.h", MPP_SHMEM_H),
        ("mpp/shmemx.h", MPP_SHMEMX_H),
        ("mpp/pshmem.h", MPP_PSHMEM_H),
    ];
    /// The type tables as C X-macros for the test programs (`c_tests/table.h`).
    pub const TEST_TABLE_H: &str = include_str!(concat!(env!("OUT_DIR"), "/table.h"));
}

/// Files generated from the crate's tables and committed: (path from the
/// repository root, contents).
pub fn generated_files() -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = headers::ALL
        .iter()
        .map(|(name, text)| (format!("include/{name}"), text.to_string()))
        .collect();
    files.push(("c_tests/table.h".into(), headers::TEST_TABLE_H.to_string()));
    files.push(("docs/env.md".into(), config::env_markdown()));
    files
}
