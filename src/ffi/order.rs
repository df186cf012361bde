//! Memory ordering and whole-job synchronisation.
//!
//! The transport keeps no per-context state, so a context's `quiet` and
//! `fence` (which need only complete and order that context's operations,
//! `_nbi` ones included) are the transport's whole `quiet` and `fence`, the
//! default context's: stronger than required, never weaker. See
//! docs/memory-model.md.

use super::check;
use super::handle::CtxHandle;
use crate::coll;
use crate::coll::check::{Record, What};
use crate::error::{Error, ErrorKind, fatal};
use crate::runtime::{self, Runtime};
use crate::transport::Transport;
use core::ffi::c_int;

pub(crate) fn fence(routine: &'static str) {
    runtime::get(routine).transport.fence()
}

/// The runtime for a fence or quiet on `ctx`, once the context is checked;
/// `None` for `SHMEM_CTX_INVALID`, on which they do nothing, as the
/// specification says: PEs outside a team may pass the context its
/// creation left them.
fn on_ctx(routine: &'static str, ctx: CtxHandle) -> Option<&'static Runtime> {
    let rt = runtime::get(routine);
    if ctx == CtxHandle::INVALID {
        return None;
    }
    check::ctx(rt, routine, ctx);
    Some(rt)
}

/// `SHMEM_CTX_INVALID` does nothing ([`on_ctx`]).
pub(crate) fn ctx_fence(routine: &'static str, ctx: CtxHandle) {
    if let Some(rt) = on_ctx(routine, ctx) {
        rt.transport.fence()
    }
}

pub(crate) fn quiet(routine: &'static str) {
    runtime::get(routine).transport.quiet()
}

/// `SHMEM_CTX_INVALID` does nothing ([`on_ctx`]).
pub(crate) fn ctx_quiet(routine: &'static str, ctx: CtxHandle) {
    if let Some(rt) = on_ctx(routine, ctx) {
        rt.transport.quiet()
    }
}

/// OSSS-UCX's `shmemx_fence_test`: 1 when the fence's ordering holds now
/// (it is then made), 0 while it waits for a peer's answer, which the call
/// asked for (`Transport::fence_test`).
pub(crate) fn fence_test(routine: &'static str) -> c_int {
    c_int::from(runtime::get(routine).transport.fence_test())
}

/// `SHMEM_CTX_INVALID` has nothing outstanding: 1 ([`on_ctx`]).
pub(crate) fn ctx_fence_test(routine: &'static str, ctx: CtxHandle) -> c_int {
    on_ctx(routine, ctx).map_or(1, |rt| c_int::from(rt.transport.fence_test()))
}

/// OSSS-UCX's `shmemx_quiet_test`: 1 when every earlier operation is
/// complete (and visible, as after a quiet), 0 while not; the call starts
/// what the quiet would wait for, so a later one answers 1
/// (`Transport::quiet_test`).
pub(crate) fn quiet_test(routine: &'static str) -> c_int {
    c_int::from(runtime::get(routine).transport.quiet_test())
}

/// `SHMEM_CTX_INVALID` has nothing outstanding: 1 ([`on_ctx`]).
pub(crate) fn ctx_quiet_test(routine: &'static str, ctx: CtxHandle) -> c_int {
    on_ctx(routine, ctx).map_or(1, |rt| c_int::from(rt.transport.quiet_test()))
}

/// Completes the operations to the listed PEs (OpenSHMEM 1.6). Every PE
/// number is checked; the completion itself is a whole quiet.
pub(crate) fn pe_quiet(routine: &'static str, target_pes: *const c_int, npes: usize) {
    ctx_pe_quiet(routine, CtxHandle::DEFAULT, target_pes, npes)
}

/// `SHMEM_CTX_INVALID` does nothing: the routine has the semantics of
/// `shmem_ctx_quiet`, restricted to some PEs.
pub(crate) fn ctx_pe_quiet(routine: &'static str, ctx: CtxHandle, target_pes: *const c_int, npes: usize) {
    let rt = runtime::get(routine);
    if ctx == CtxHandle::INVALID {
        return;
    }
    check::ctx(rt, routine, ctx);
    if npes > 0 {
        let pes = check::array(routine, "target_pes", target_pes, npes);
        // PE numbers are the context's: ranks of its team for a team's
        // (or a space's) context.
        let team = match ctx.object(&rt.contexts).map(|o| o.team()) {
            Some(raw) if raw != crate::team::WORLD => crate::runtime::get(routine).teams.lookup(raw).map(|t| t.size),
            _ => None,
        };
        for &pe in pes {
            match team {
                Some(size) if pe < 0 || pe as usize >= size => fatal(&Error::new(
                    routine,
                    ErrorKind::PeOutOfRange {
                        name: "target_pes",
                        pe: pe as i64,
                        npes: size,
                    },
                )),
                Some(_) => {}
                None => {
                    check::pe_in(rt, routine, "target_pes", pe);
                }
            }
        }
    }
    rt.transport.quiet()
}

pub(crate) fn barrier_all(routine: &'static str) {
    let rt = runtime::get(routine);
    check::agree_world(rt, routine, || world_barrier(routine));
    coll::barrier_all(rt, routine)
}

pub(crate) fn sync_all(routine: &'static str) {
    let rt = runtime::get(routine);
    check::agree_world(rt, routine, || world_barrier(routine));
    coll::sync_all(rt, routine)
}

/// The argument check's record of a world barrier (no arguments).
fn world_barrier(routine: &'static str) -> Record {
    Record::new(routine, What::WorldBarrier, "", 0, &[])
}
