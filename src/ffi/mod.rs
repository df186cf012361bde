//! The C ABI: the only module that exports symbols.
//!
//! Every export is `guard(routine, || shim(...))`: the shim converts and checks
//! the raw C arguments (`check`) and calls the safe core; `guard` stops any
//! panic at the boundary and turns it into the same one-line fatal report as a
//! usage error, so nothing unwinds into C. Every export and its `pshmem_`
//! profiling twin are generated from `table.rs` by `build.rs` into
//! `generated.rs`, except the variadic `shmem_pcontrol` and the `long double`
//! by-value routines, written by hand. The shims are one file per chapter of
//! the specification.
// Exports take raw C pointers; the shims check them before use.
#![allow(clippy::not_unsafe_ptr_arg_deref)]
// Shims mirror C signatures, some of which are long.
#![allow(clippy::too_many_arguments)]

pub(crate) mod amo;
pub(crate) mod bounds;
pub(crate) mod check;
pub(crate) mod coll;
pub(crate) mod context;
pub(crate) mod ct;
// Parameter names follow the C prototypes (`PE_root`, `pSync`).
#[allow(non_snake_case)]
mod generated;
pub(crate) mod handle;
pub(crate) mod lock;
mod longdouble;
pub(crate) mod memory;
pub(crate) mod nbc;
pub(crate) mod notify;
pub(crate) mod order;
pub(crate) mod p2p;
pub(crate) mod protos;
pub(crate) mod rma;
pub(crate) mod semaphore;
pub(crate) mod setup;
pub(crate) mod signal;
pub(crate) mod space;
// Shared with the trace layer (trace/src/lib.rs), which exports it.
#[allow(unreachable_pub)]
pub(crate) mod space_config;
pub(crate) mod table;
pub(crate) mod team;
pub(crate) mod transfer;
pub(crate) mod type_sets;

/// The library constants live below every module that uses them; C sees them
/// through the header, Rust shims through this name.
pub(crate) use crate::constants;

use crate::error::{Error, ErrorKind, fatal};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Runs an export's body; a panic becomes a fatal internal-error report.
#[inline(always)]
pub(crate) fn guard<R>(routine: &'static str, body: impl FnOnce() -> R) -> R {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(r) => r,
        Err(payload) => panicked(routine, payload),
    }
}

#[cold]
fn panicked(routine: &'static str, payload: Box<dyn std::any::Any + Send>) -> ! {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    fatal(&Error::new(routine, ErrorKind::Internal(what)))
}
