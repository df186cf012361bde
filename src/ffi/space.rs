//! Spaces (`shmemx.h`): OSHMPI's `shmemx_space_*` routines, so programs
//! written for it compile unchanged, and the team-scoped forms
//! (`shmemx_space_attach_team`, `_detach_team`, `_free`, `_get_team`).
//!
//! A misused space (an invalid handle, allocating in a detached space,
//! destroying or detaching one still in use) is a fatal error, as other
//! misuse is; running out of room inside a space returns NULL (with the
//! reason under `SHMEM_DEBUG`), as `shmem_malloc` does; running out of
//! contexts returns non-zero, as `shmem_ctx_create` does.

use super::check;
use super::handle::{CtxHandle, SpaceHandle, TeamHandle};
use crate::config::human_bytes;
use crate::error::{self, Error, ErrorKind, fatal};
use crate::heap::SymOffset;
use crate::heap::alloc::MIN_ALIGN;
use crate::runtime::{self, Runtime};
use crate::space::{self, Refusal, Space, SpaceError};
use crate::transport::Transport;
use core::ffi::{c_int, c_long, c_void};
use std::sync::Arc;

/// `shmemx_memkind_t`.
pub(crate) const SHMEMX_MEM_HOST: c_int = 0;
pub(crate) const SHMEMX_MEM_CUDA: c_int = 1;
pub(crate) const SHMEMX_MEM_ZE: c_int = 2;

pub(crate) use super::space_config::SpaceConfig;

fn misuse(routine: &'static str, e: SpaceError) -> ! {
    fatal(&Error::new(routine, ErrorKind::Usage(e.to_string())))
}

/// The space behind the handle argument `space`, or a fatal error.
fn space_of(routine: &'static str, h: SpaceHandle) -> Arc<Space> {
    runtime::get(routine).spaces.lookup(h.raw()).unwrap_or_else(|e| {
        fatal(&Error::new(
            routine,
            ErrorKind::Usage(format!("{}: {e}", check::label(routine, "space"))),
        ))
    })
}

/// `void shmemx_space_create(shmemx_space_config_t, shmemx_space_t *)`: local.
pub(crate) fn create(routine: &'static str, config: SpaceConfig, out: *mut SpaceHandle) {
    let rt = runtime::get(routine);
    if out.is_null() {
        check::null_pointer(routine, "space");
    }
    let bad = |name: &'static str, value: String, why: &'static str| -> ! {
        fatal(&Error::new(routine, ErrorKind::InvalidArgument { name, value, why }))
    };
    match config.memkind {
        SHMEMX_MEM_HOST => {}
        SHMEMX_MEM_CUDA => bad(
            "space_config.memkind",
            "SHMEMX_MEM_CUDA".into(),
            "rshmem serves host memory only (SHMEMX_MEM_HOST)",
        ),
        SHMEMX_MEM_ZE => bad(
            "space_config.memkind",
            "SHMEMX_MEM_ZE".into(),
            "rshmem serves host memory only (SHMEMX_MEM_HOST)",
        ),
        k => bad("space_config.memkind", k.to_string(), "not a shmemx_memkind_t"),
    }
    if config.sheap_size == 0 {
        bad("space_config.sheap_size", "0".into(), "a space needs at least one byte");
    }
    if config.num_contexts < 0 {
        bad(
            "space_config.num_contexts",
            config.num_contexts.to_string(),
            "must not be negative",
        );
    }
    let arena = space::arena::capacity(rt);
    if config.sheap_size > arena {
        fatal(&Error::new(
            routine,
            ErrorKind::Usage(format!(
                "space_config.sheap_size = {} is larger than the space arena ({}); raise SHMEM_SPACE_ARENA_SIZE",
                config.sheap_size,
                human_bytes(arena as u128)
            )),
        ))
    }
    let raw = rt.spaces.create(space::Config {
        sheap_size: config.sheap_size,
        num_contexts: config.num_contexts as usize,
    });
    // SAFETY: a non-null out-pointer supplied by the caller.
    unsafe { out.write(SpaceHandle::from_raw(raw)) };
}

/// Local; refused while the space is attached or has contexts.
pub(crate) fn destroy(routine: &'static str, h: SpaceHandle) {
    let rt = runtime::get(routine);
    space_of(routine, h);
    if let Err(e) = rt.spaces.destroy(h.raw()) {
        misuse(routine, e)
    }
}

/// Collective over `team` only: the members agree on an extent free on all
/// of them.
pub(crate) fn attach_team(routine: &'static str, h: SpaceHandle, team: TeamHandle) {
    let rt = runtime::get(routine);
    space_of(routine, h);
    let t = check::team(routine, "team", team);
    let _guard = rt.spaces.lifecycle();
    let barrier = || super::team::team_barrier(rt, routine, &t);
    if let Err(e) = rt.spaces.attach(rt, h.raw(), team.raw(), t.group(), barrier) {
        misuse(routine, e)
    }
}

pub(crate) fn attach(routine: &'static str, h: SpaceHandle) {
    attach_team(routine, h, TeamHandle::WORLD)
}

/// Collective over `team`; refused while the space holds allocations (the
/// same answer on every member: allocation is collective) or contexts (this
/// PE's own; the error ends the job, so the others do not wait for it).
pub(crate) fn detach_team(routine: &'static str, h: SpaceHandle, team: TeamHandle) {
    let rt = runtime::get(routine);
    space_of(routine, h);
    let t = check::team(routine, "team", team);
    let s = rt
        .spaces
        .check_detach(h.raw(), team.raw())
        .unwrap_or_else(|e| misuse(routine, e));
    if let Err(e) = s.idle() {
        misuse(routine, e)
    }
    // Nobody may still be using the memory on any member.
    rt.transport.quiet();
    super::team::team_barrier(rt, routine, &t);
    let _guard = rt.spaces.lifecycle();
    if let Err(e) = rt.spaces.detach(rt, &s) {
        misuse(routine, e)
    }
}

pub(crate) fn detach(routine: &'static str, h: SpaceHandle) {
    detach_team(routine, h, TeamHandle::WORLD)
}

/// The attached space's team, for the allocation routines: a PE that has not
/// attached the space (one outside its team) gets an error, not a hang.
fn attached(routine: &'static str, s: &Space) -> (Arc<crate::team::Team>, SymOffset) {
    let (team, base) = s.attached().unwrap_or_else(|e| misuse(routine, e));
    let t = runtime::get(routine).teams.lookup(team).unwrap_or_else(|| {
        fatal(&Error::new(
            routine,
            ErrorKind::Internal(format!(
                "the space's team {team:#x} is gone while the space is attached"
            )),
        ))
    });
    (t, base)
}

/// Allocates in the space on every member of its team, then waits for them
/// (and only them). NULL on every member when the space cannot satisfy it.
fn allocate(routine: &'static str, h: SpaceHandle, size: usize, align: usize, zero: bool) -> *mut c_void {
    let rt = runtime::get(routine);
    let s = space_of(routine, h);
    let (team, base) = attached(routine, &s);
    let refused = |r: Refusal| {
        let why = match r {
            Refusal::NotPowerOfTwo { align } => format!("alignment {align} is not a power of two"),
            Refusal::LargerThanSpace { align, sheap_size } => {
                format!("alignment {align} exceeds {sheap_size}, the size of this space")
            }
            Refusal::LargerThanShared { align, largest } => {
                format!("alignment {align} exceeds {largest}, the largest one every member's copy can share")
            }
            Refusal::Exhausted(e) => format!(
                "{}: {} of the space's {} are free, the largest free block is {} \
                 (create the space with a larger sheap_size)",
                e.request(),
                human_bytes(e.free_total as u128),
                human_bytes(s.config.sheap_size as u128),
                human_bytes(e.largest_free as u128)
            ),
        };
        error::debug(routine, format_args!("{why}"));
    };
    s.allocate(rt, routine, (team.coll(), base), (size, align, zero), refused)
        .unwrap_or_else(|e| misuse(routine, e)) as *mut c_void
}

pub(crate) fn malloc(routine: &'static str, h: SpaceHandle, size: usize) -> *mut c_void {
    allocate(routine, h, size, MIN_ALIGN, false)
}

/// `count` elements of `size` bytes, zeroed (OSHMPI allocates only `size`).
pub(crate) fn calloc(routine: &'static str, h: SpaceHandle, count: usize, size: usize) -> *mut c_void {
    match count.checked_mul(size) {
        Some(total) => allocate(routine, h, total, MIN_ALIGN, true),
        None => {
            runtime::get(routine);
            attached(routine, &space_of(routine, h));
            error::debug(routine, format_args!("{count} x {size} bytes overflows"));
            std::ptr::null_mut()
        }
    }
}

pub(crate) fn align(routine: &'static str, h: SpaceHandle, alignment: usize, size: usize) -> *mut c_void {
    allocate(routine, h, size, alignment, false)
}

/// `shmemx_space_free`: collective over the space's team.
pub(crate) fn free(routine: &'static str, h: SpaceHandle, ptr: *mut c_void) {
    let rt = runtime::get(routine);
    space_of(routine, h);
    if ptr.is_null() {
        return;
    }
    free_in(rt, routine, h.raw(), ptr)
}

/// Frees `ptr`, which must be a block of space `raw` (also `shmem_free` on
/// space memory). Waits for the team first: nobody may still use the block.
pub(crate) fn free_in(rt: &Runtime, routine: &'static str, raw: usize, ptr: *mut c_void) {
    let s = space_of(routine, SpaceHandle::from_raw(raw));
    let (team, base) = attached(routine, &s);
    if let Err(e) = s.free_at(rt, routine, (team.coll(), base), ptr as usize) {
        misuse(routine, e)
    }
}

/// 0 and the team the space is attached to; non-zero and
/// `SHMEM_TEAM_INVALID` if it is not attached (or not a space).
pub(crate) fn get_team(routine: &'static str, h: SpaceHandle, team: *mut TeamHandle) -> c_int {
    let rt = runtime::get(routine);
    if team.is_null() {
        check::null_pointer(routine, "team");
    }
    let found = rt
        .spaces
        .lookup(h.raw())
        .and_then(|s| s.team().ok_or(SpaceError::NotAttached));
    let (result, code) = match found {
        Ok(t) => (TeamHandle::from_raw(t), 0),
        Err(e) => {
            error::debug(routine, format_args!("{e}"));
            (TeamHandle::INVALID, 1)
        }
    };
    // SAFETY: a non-null out-pointer supplied by the caller.
    unsafe { team.write(result) };
    code
}

/// A context that may only access the space's memory, numbering PEs as the
/// space's team does. Non-zero (and `SHMEM_CTX_INVALID`) once the space's
/// `num_contexts` contexts exist.
pub(crate) fn create_ctx(routine: &'static str, h: SpaceHandle, options: c_long, ctx: *mut CtxHandle) -> c_int {
    runtime::get(routine);
    if ctx.is_null() {
        check::null_pointer(routine, "ctx");
    }
    let s = space_of(routine, h);
    let team = match s.open_context() {
        Ok(team) => team,
        Err(e @ SpaceError::TooManyContexts(_)) => {
            error::debug(routine, format_args!("{e}"));
            // SAFETY: a non-null out-pointer supplied by the caller.
            unsafe { ctx.write(CtxHandle::INVALID) };
            return 1;
        }
        Err(e) => misuse(routine, e),
    };
    let code = super::context::create_on(routine, team, h.raw(), options, ctx);
    if code != 0 {
        s.close_context();
    }
    code
}
