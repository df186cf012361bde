//! Turning raw C arguments into checked values. Every failure is fatal and
//! names the routine, the argument (position and name) and the bad value.
//!
//! Argument positions are given as in the form without a context; the report
//! adds one for `shmem_ctx_*` routines, where the context comes first.

use super::handle::{CtxHandle, DEFAULT_CTX_OBJECT, TeamHandle};
use crate::coll::check::Record;
use crate::error::{Error, ErrorKind, fatal};
use crate::heap::SymOffset;
use crate::pcntr::Op;
use crate::runtime::Runtime;
use crate::team::Team;
use crate::types::Cmp;
use core::ffi::c_int;

pub(crate) use crate::error::params::label;

/// The argument `pe`, a world PE number.
#[inline]
pub(crate) fn pe(rt: &Runtime, routine: &'static str, pe: c_int) -> usize {
    pe_in(rt, routine, "pe", pe)
}

/// A world PE number given by argument `name` (or read from the array
/// argument `name`, `target_pes`).
#[inline]
pub(crate) fn pe_in(rt: &Runtime, routine: &'static str, name: &'static str, pe: c_int) -> usize {
    if pe >= 0 && (pe as usize) < rt.npes {
        return pe as usize;
    }
    bad_pe(routine, name, pe, rt.npes)
}

#[cold]
fn bad_pe(routine: &'static str, name: &'static str, pe: c_int, npes: usize) -> ! {
    fatal(&Error::new(
        routine,
        ErrorKind::PeOutOfRange {
            name,
            pe: pe as i64,
            npes,
        },
    ))
}

/// Offset of the `len` bytes at `addr`, which must be symmetric (a local
/// object the caller waits on or passes to a collective's own checks).
#[inline]
pub(crate) fn sym(rt: &Runtime, routine: &'static str, name: &'static str, addr: usize, len: usize) -> SymOffset {
    match rt.own_offset(addr, len) {
        Some(off) => off,
        None => match rt.spaces.resolve(rt, addr, len) {
            Some((off, _)) => off,
            None => not_symmetric(routine, name, addr, len),
        },
    }
}

/// Where a remote access goes: the world PE, and the space the context was
/// created from (0: a context that may access any symmetric memory).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Target {
    pub pe: usize,
    pub space: usize,
}

/// Offset of the `len` bytes at `addr`, which must be symmetric memory of
/// the target PE (and of the context's space, for a space's context).
#[inline]
pub(crate) fn remote(
    rt: &Runtime,
    routine: &'static str,
    name: &'static str,
    addr: usize,
    len: usize,
    t: Target,
) -> SymOffset {
    if t.space == 0
        && let Some(off) = rt.own_offset(addr, len)
    {
        return off;
    }
    remote_in_space(rt, routine, name, addr, len, t)
}

/// The slow path of [`remote`]: memory of a space, which only its team's
/// members have.
#[cold]
fn remote_in_space(
    rt: &Runtime,
    routine: &'static str,
    name: &'static str,
    addr: usize,
    len: usize,
    t: Target,
) -> SymOffset {
    let arg = label(routine, name);
    let found = rt.spaces.resolve(rt, addr, len);
    if t.space != 0 && found.is_none_or(|(_, m)| m.space != t.space) {
        fatal(&Error::new(
            routine,
            ErrorKind::Usage(format!(
                "the context was created from space {:#x} and may only access that space's memory; \
                 {arg} = {addr:#x} ({len} bytes) is not in it",
                t.space
            )),
        ))
    }
    match found {
        Some((off, m)) if m.serves(t.pe) => off,
        Some((_, m)) => fatal(&Error::new(
            routine,
            ErrorKind::Usage(format!(
                "{arg} = {addr:#x} is in {}, attached to team {:#x}; \
                 PE {} is not a member of that team, so the address names nothing there",
                if m.space == 0 {
                    "a notification set".to_string()
                } else {
                    format!("space {:#x}", m.space)
                },
                m.team,
                t.pe
            )),
        )),
        None => not_symmetric(routine, name, addr, len),
    }
}

/// Offset of the `len` bytes at `addr`, which must be symmetric on every
/// member of `g` (the buffers of a collective).
pub(crate) fn sym_group(
    rt: &Runtime,
    routine: &'static str,
    name: &'static str,
    addr: usize,
    len: usize,
    g: crate::coll::Group,
) -> SymOffset {
    if let Some(off) = rt.own_offset(addr, len) {
        return off;
    }
    match rt.spaces.resolve(rt, addr, len) {
        Some((off, m)) => {
            if let Some(r) = (0..g.size).find(|&r| !m.serves(g.pe(r))) {
                fatal(&Error::new(
                    routine,
                    ErrorKind::Usage(format!(
                        "{} = {addr:#x} is in space {:#x}, attached to team {:#x}; \
                         PE {} (rank {r} of the collective) is not a member of that team",
                        label(routine, name),
                        m.space,
                        m.team,
                        g.pe(r)
                    )),
                ))
            }
            off
        }
        None => not_symmetric(routine, name, addr, len),
    }
}

#[cold]
fn not_symmetric(routine: &'static str, name: &'static str, addr: usize, len: usize) -> ! {
    fatal(&Error::new(routine, ErrorKind::NotSymmetric { name, addr, len }))
}

/// `nelems` (argument `name`) elements of `size` bytes, or a fatal error if
/// that overflows.
#[inline]
pub(crate) fn bytes(routine: &'static str, name: &'static str, nelems: usize, size: usize) -> usize {
    nelems
        .checked_mul(size)
        .unwrap_or_else(|| too_large(routine, name, nelems))
}

/// Argument `name` (an element count) makes the transfer overflow.
#[cold]
pub(crate) fn too_large(routine: &'static str, name: &'static str, value: usize) -> ! {
    fatal(&Error::new(
        routine,
        ErrorKind::InvalidArgument {
            name,
            value: value.to_string(),
            why: "the transfer is larger than the address space",
        },
    ))
}

#[inline]
pub(crate) fn ctx(rt: &Runtime, routine: &'static str, ctx: CtxHandle) {
    if !ctx.is_valid(&rt.contexts) {
        bad_ctx(routine, ctx)
    }
}

#[cold]
fn bad_ctx(routine: &'static str, ctx: CtxHandle) -> ! {
    fatal(&Error::new(
        routine,
        ErrorKind::InvalidContext {
            name: "ctx",
            addr: ctx.0 as usize,
        },
    ))
}

/// A `SHMEM_CTX_PRIVATE` context used by a thread other than the one that
/// created it (the specification leaves that undefined; it is harmless here,
/// where contexts keep no per-thread state): one warning per routine. Thread
/// ids are `shmemx_register_gettid`'s, or the kernel's.
pub(crate) fn private_owner(routine: &'static str, ctx: CtxHandle, obj: &crate::context::CtxObject) {
    let Some(owner) = obj.owner() else { return };
    let me = crate::context::thread_id();
    if owner != me {
        crate::error::warn_once(routine, || {
            format!(
                "{} = {:#x} is a SHMEM_CTX_PRIVATE context of thread {owner}, used by thread {me}",
                label(routine, "ctx"),
                ctx.0 as usize
            )
        });
    }
}

#[inline]
pub(crate) fn cmp(routine: &'static str, cmp: c_int) -> Cmp {
    Cmp::from_c(cmp).unwrap_or_else(|| {
        fatal(&Error::new(
            routine,
            ErrorKind::InvalidArgument {
                name: "cmp",
                value: cmp.to_string(),
                why: "not one of SHMEM_CMP_EQ, _NE, _GT, _GE, _LT, _LE",
            },
        ))
    })
}

/// Offset of one `T` at `addr`, which must be symmetric and aligned (a word
/// that is loaded, stored or updated atomically).
#[inline]
pub(crate) fn word<T>(rt: &Runtime, routine: &'static str, name: &'static str, addr: usize) -> SymOffset {
    let off = sym(rt, routine, name, addr, std::mem::size_of::<T>());
    aligned::<T>(routine, name, addr);
    off
}

/// [`word`] on the target of a remote access.
#[inline(always)]
pub(crate) fn remote_word<T>(
    rt: &Runtime,
    routine: &'static str,
    name: &'static str,
    addr: usize,
    t: Target,
) -> SymOffset {
    let off = remote(rt, routine, name, addr, std::mem::size_of::<T>(), t);
    aligned::<T>(routine, name, addr);
    off
}

/// Fails unless `addr` is aligned for a `T` (atomic accesses need it).
#[inline]
pub(crate) fn aligned<T>(routine: &'static str, name: &'static str, addr: usize) {
    if !addr.is_multiple_of(std::mem::align_of::<T>()) {
        fatal(&Error::new(
            routine,
            ErrorKind::InvalidArgument {
                name,
                value: format!("{addr:#x}"),
                why: "not aligned for its type",
            },
        ))
    }
}

/// The caller's array of `n` elements at `ptr` (non-null when `n > 0`).
#[inline]
pub(crate) fn array<'a, T>(routine: &'static str, name: &'static str, ptr: *const T, n: usize) -> &'a [T] {
    if n == 0 {
        return &[];
    }
    if ptr.is_null() {
        fatal(&Error::new(
            routine,
            ErrorKind::InvalidArgument {
                name,
                value: "NULL".into(),
                why: "a NULL array with a non-zero element count",
            },
        ))
    }
    // SAFETY: the API requires `n` readable elements at a non-null `ptr`.
    unsafe { std::slice::from_raw_parts(ptr, n) }
}

/// The local side of a transfer (argument `name`): any memory of the caller,
/// symmetric or not, but not NULL when there is something to move (`nonempty`;
/// NULL with nothing to move is legal, as the specification allows).
#[inline]
pub(crate) fn local<T>(routine: &'static str, name: &'static str, ptr: *const T, nonempty: bool) {
    if nonempty && ptr.is_null() {
        null_pointer(routine, name)
    }
}

/// A NULL where the routine needs a buffer.
#[cold]
pub(crate) fn null_pointer(routine: &'static str, name: &'static str) -> ! {
    fatal(&Error::new(
        routine,
        ErrorKind::InvalidArgument {
            name,
            value: "NULL".into(),
            why: "a NULL pointer where the routine needs a buffer",
        },
    ))
}

/// The live team the handle argument `name` names, or a fatal "not a valid
/// team" error.
#[inline]
pub(crate) fn team(routine: &'static str, name: &'static str, h: TeamHandle) -> TeamArg {
    let teams = &crate::runtime::get(routine).teams;
    if let Some(t) = teams.predefined(h.raw()) {
        return TeamArg::Predefined(t);
    }
    match teams.lookup(h.raw()) {
        Some(t) => TeamArg::Created(t),
        None => fatal(&Error::new(routine, ErrorKind::InvalidTeam { name, raw: h.raw() })),
    }
}

/// A team argument, checked: a predefined team (borrowed for the life of
/// the process, see `Teams::predefined`) or a created one (counted, so that
/// it outlives a concurrent destroy).
pub(crate) enum TeamArg {
    Predefined(&'static crate::team::Team),
    Created(std::sync::Arc<crate::team::Team>),
}

impl std::ops::Deref for TeamArg {
    type Target = crate::team::Team;
    #[inline]
    fn deref(&self) -> &crate::team::Team {
        match self {
            TeamArg::Predefined(t) => t,
            TeamArg::Created(t) => t,
        }
    }
}

/// The target of a remote access on `ctx`: its PE argument `pe_arg`, checked
/// against the world for the default context and translated from the
/// context's team otherwise, and the space the context was created from, if
/// any. `op` is what the call does, for the performance counters
/// (`crate::pcntr`): the fast path compares `pe_arg` with
/// [`World::ctx_pes`](crate::world::World::ctx_pes), 0 when counting is on,
/// so that it never reads `op` and every counted call takes the cold path.
#[inline]
pub(crate) fn ctx_target(rt: &Runtime, routine: &'static str, ctx: CtxHandle, pe_arg: c_int, op: Op) -> Target {
    if ctx == CtxHandle::DEFAULT {
        if pe_arg >= 0 && (pe_arg as usize) < rt.ctx_pes {
            return Target {
                pe: pe_arg as usize,
                space: 0,
            };
        }
        return default_ctx_counted(rt, routine, pe_arg, op);
    }
    created_ctx_target(rt, routine, ctx, pe_arg, op)
}

/// The default context's PE out of [`World::ctx_pes`](crate::world::World::ctx_pes):
/// a bad PE, or a call to count.
#[cold]
fn default_ctx_counted(rt: &Runtime, routine: &'static str, pe_arg: c_int, op: Op) -> Target {
    let pe = pe(rt, routine, pe_arg);
    if rt.config.pcntr {
        crate::pcntr::count(rt, &DEFAULT_CTX_OBJECT.counts, op, pe, rt.cts.target_word());
    }
    Target { pe, space: 0 }
}

#[cold]
fn created_ctx_target(rt: &Runtime, routine: &'static str, ctx: CtxHandle, pe_arg: c_int, op: Op) -> Target {
    let Some(obj) = ctx.object(&rt.contexts) else {
        self::ctx(rt, routine, ctx);
        unreachable!("check::ctx reports invalid contexts");
    };
    if crate::error::debug_enabled() {
        private_owner(routine, ctx, obj);
    }
    let space = obj.space();
    let raw = obj.team();
    let pe = if raw == crate::team::WORLD {
        pe(rt, routine, pe_arg)
    } else {
        let Some(t) = crate::runtime::get(routine).teams.lookup(raw) else {
            fatal(&Error::new(
                routine,
                ErrorKind::Usage(format!(
                    "the context's team ({raw:#x}) has been destroyed; destroy its contexts first"
                )),
            ))
        };
        if pe_arg < 0 || pe_arg as usize >= t.size {
            bad_pe(routine, "pe", pe_arg, t.size)
        }
        t.pe(pe_arg as usize)
    };
    if rt.config.pcntr {
        crate::pcntr::count(rt, &obj.counts, op, pe, rt.cts.target_word());
    }
    Target { pe, space }
}

/// `SHMEM_CHECK_COLLECTIVES`: the members of team `t` (the caller's handle
/// `h`, for the message) agree on the arguments of this call, which
/// `record` describes (`coll::check`), before it does anything else; a
/// disagreement ends the job. Off, this is one predictable branch and the
/// record is never made.
#[inline(always)]
pub(crate) fn agree(rt: &Runtime, routine: &'static str, (t, h): (&Team, TeamHandle), record: impl FnOnce() -> Record) {
    if rt.config.check_collectives {
        let name = || team_name(t, h);
        crate::coll::check::agree(rt, routine, t.coll(), &name, record());
    }
}

/// [`agree`] on the world team, for the routines collective over all PEs
/// (the world barriers, the symmetric heap).
#[inline(always)]
pub(crate) fn agree_world(rt: &Runtime, routine: &'static str, record: impl FnOnce() -> Record) {
    if rt.config.check_collectives
        && let Some(world) = rt.teams.predefined(crate::team::WORLD)
    {
        agree(rt, routine, (world, TeamHandle::WORLD), record)
    }
}

/// A team as messages name it: a predefined team by its C name, another by
/// its handle and its members.
pub(crate) fn team_name(t: &Team, h: TeamHandle) -> String {
    match t.predefined {
        Some(name) => name.to_string(),
        None => format!(
            "team {:#x} (world PEs {} + i * {}, i < {})",
            h.raw(),
            t.start,
            t.stride,
            t.size
        ),
    }
}
