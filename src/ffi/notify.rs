//! Notification sets (`shmemx.h`): `shmemx_notify_*`, one flag per message
//! (see `crate::notify` and `docs/notifications.md`).
//!
//! PE arguments are world PE numbers on the default context and numbers in
//! the context's team on a created one, as for RMA; the PE must belong to the
//! team the set was allocated on. Misuse (a pointer that is not a live set,
//! an index out of range, a flag set READY twice, a count of 0 or above the
//! maximum) is a fatal error naming the routine, the PE and the value.

use super::check;
use super::handle::{CtxHandle, TeamHandle};
use crate::error::{Error, ErrorKind, fatal};
use crate::notify::{self, MAX_FLAGS, READY, Set};
use crate::runtime::{self, Runtime};
use crate::transport::Transport;
use core::ffi::{c_int, c_void};

/// `shmemx_notify_t`: opaque to C, which only holds pointers to it.
#[repr(C)]
pub(crate) struct NotifyObject {
    _opaque: [u8; 0],
}

fn usage(routine: &'static str, text: String) -> ! {
    fatal(&Error::new(routine, ErrorKind::Usage(text)))
}

/// The live set given as argument `set`.
#[inline]
fn set_arg(rt: &Runtime, routine: &'static str, p: *mut NotifyObject) -> Set {
    match notify::lookup(rt, p as usize) {
        Some(s) => s,
        None => not_a_set(routine, p),
    }
}

#[cold]
fn not_a_set(routine: &'static str, p: *mut NotifyObject) -> ! {
    usage(
        routine,
        format!(
            "{} = {p:p} is not a notification set (one returned by shmemx_notify_alloc or \
             shmemx_team_notify_alloc and not yet freed)",
            check::label(routine, "set")
        ),
    )
}

/// The set and the flag index argument `i`, which must be below its count.
#[inline]
fn flag_arg(rt: &Runtime, routine: &'static str, p: *mut NotifyObject, i: usize) -> (Set, usize) {
    let s = set_arg(rt, routine, p);
    if i >= s.count {
        bad_index(routine, i, s.count)
    }
    (s, i)
}

#[cold]
fn bad_index(routine: &'static str, i: usize, count: usize) -> ! {
    usage(
        routine,
        format!(
            "{} is {}, but the notification set has {count} flags (0 to {})",
            check::label(routine, "i"),
            i as isize,
            count - 1
        ),
    )
}

/// Allocates on `team` (the argument `team`, or the world), collectively over
/// its members.
fn alloc_on(routine: &'static str, team: TeamHandle, nflags: usize) -> *mut NotifyObject {
    let rt = runtime::get(routine);
    let t = check::team(routine, "team", team);
    if nflags == 0 || nflags > MAX_FLAGS {
        fatal(&Error::new(
            routine,
            ErrorKind::InvalidArgument {
                name: "nflags",
                value: (nflags as isize).to_string(),
                why: "a notification set has 1 to 1048576 flags",
            },
        ))
    }
    let barrier = || super::team::team_barrier(rt, routine, &t);
    match rt
        .notifies
        .alloc(rt, &rt.spaces, team.raw(), t.group(), nflags, barrier)
    {
        Ok(addr) => addr as *mut NotifyObject,
        Err(e) => usage(routine, format!("no memory for {nflags} notification flags: {e}")),
    }
}

pub(crate) fn alloc(routine: &'static str, nflags: usize) -> *mut NotifyObject {
    runtime::get(routine);
    alloc_on(routine, TeamHandle::WORLD, nflags)
}

pub(crate) fn team_alloc(routine: &'static str, team: TeamHandle, nflags: usize) -> *mut NotifyObject {
    runtime::get(routine);
    alloc_on(routine, team, nflags)
}

/// Collective over the set's team; NULL does nothing.
pub(crate) fn free(routine: &'static str, p: *mut NotifyObject) {
    let rt = runtime::get(routine);
    if p.is_null() {
        return;
    }
    set_arg(rt, routine, p);
    let Some(team) = rt.notifies.team_of(p as usize) else {
        not_a_set(routine, p)
    };
    let t = rt.teams.lookup(team).unwrap_or_else(|| {
        fatal(&Error::new(
            routine,
            ErrorKind::Internal(format!("the notification set's team {team:#x} is gone")),
        ))
    });
    rt.transport.quiet();
    super::team::team_barrier(rt, routine, &t);
    rt.notifies.release(rt, &rt.spaces, p as usize);
}

pub(crate) fn count(routine: &'static str, p: *mut NotifyObject) -> usize {
    let rt = runtime::get(routine);
    set_arg(rt, routine, p).count
}

/// The symmetric address of flag `i` (a `sig_addr` for `put_signal`).
pub(crate) fn flag(routine: &'static str, p: *mut NotifyObject, i: usize) -> *mut u64 {
    let rt = runtime::get(routine);
    let (s, i) = flag_arg(rt, routine, p, i);
    s.flag_addr(i) as *mut u64
}

pub(crate) fn state(routine: &'static str, p: *mut NotifyObject, i: usize) -> c_int {
    let rt = runtime::get(routine);
    let (s, i) = flag_arg(rt, routine, p, i);
    s.state(i).min(c_int::MAX as u64) as c_int
}

pub(crate) fn set(routine: &'static str, p: *mut NotifyObject, i: usize) {
    let rt = runtime::get(routine);
    let (s, i) = flag_arg(rt, routine, p, i);
    if notify::set(rt, &s, i) == READY {
        usage(
            routine,
            format!(
                "flag {i} of the notification set {p:p} was already READY: it was set twice without \
                 being consumed in between, so a notification was lost"
            ),
        )
    }
}

pub(crate) fn reset(routine: &'static str, p: *mut NotifyObject, i: usize) {
    let rt = runtime::get(routine);
    let (s, i) = flag_arg(rt, routine, p, i);
    notify::reset(rt, &s, i);
}

pub(crate) fn reset_all(routine: &'static str, p: *mut NotifyObject) {
    let rt = runtime::get(routine);
    let s = set_arg(rt, routine, p);
    for i in 0..s.count {
        notify::reset(rt, &s, i);
    }
}

pub(crate) fn test(routine: &'static str, p: *mut NotifyObject, i: usize) -> c_int {
    let rt = runtime::get(routine);
    // Programs poll this in a loop: serve a network transport on each try.
    rt.transport.progress();
    let (s, i) = flag_arg(rt, routine, p, i);
    notify::try_consume(rt, &s, i) as c_int
}

pub(crate) fn wait(routine: &'static str, p: *mut NotifyObject, i: usize) {
    let rt = runtime::get(routine);
    let (s, i) = flag_arg(rt, routine, p, i);
    notify::wait(rt, &s, i, routine);
}

/// `SHMEMX_NOTIFY_NONE` when nothing is READY.
pub(crate) fn test_any(routine: &'static str, p: *mut NotifyObject) -> usize {
    let rt = runtime::get(routine);
    rt.transport.progress();
    let s = set_arg(rt, routine, p);
    notify::try_consume_any(rt, &s).unwrap_or(usize::MAX)
}

pub(crate) fn wait_any(routine: &'static str, p: *mut NotifyObject) -> usize {
    let rt = runtime::get(routine);
    let s = set_arg(rt, routine, p);
    notify::wait_any(rt, &s, routine)
}

pub(crate) fn wait_some(routine: &'static str, p: *mut NotifyObject, indices: *mut usize, max: usize) -> usize {
    let rt = runtime::get(routine);
    let s = set_arg(rt, routine, p);
    if max == 0 {
        fatal(&Error::new(
            routine,
            ErrorKind::InvalidArgument {
                name: "max",
                value: "0".into(),
                why: "wait_some consumes at least one notification, so it needs room for one index",
            },
        ))
    }
    if indices.is_null() {
        check::null_pointer(routine, "indices")
    }
    // SAFETY: the caller's array of `max` indices (non-NULL, checked).
    let out = unsafe { std::slice::from_raw_parts_mut(indices, max) };
    notify::wait_some(rt, &s, out, routine)
}

/// Puts `nbytes` from `source` to `dest` on `pe`, then sets flag `i` of
/// `pe`'s copy READY.
fn put_on(
    routine: &'static str,
    ctx: CtxHandle,
    p: *mut NotifyObject,
    i: usize,
    dest: *mut c_void,
    source: *const c_void,
    nbytes: usize,
    pe: c_int,
    nbi: bool,
) {
    let rt = runtime::get(routine);
    let (s, i) = flag_arg(rt, routine, p, i);
    // Delivered by the next quiet across nodes, the blocking form too.
    let t = check::ctx_target(rt, routine, ctx, pe, crate::pcntr::Op::WRITE_NBI);
    if s.group.rank_of(t.pe).is_none() {
        usage(
            routine,
            format!(
                "{} is {pe}: PE {} is not a member of the notification set's team \
                 (world PEs {} + i * {}, i < {}), so it has no copy of the set",
                check::label(routine, "pe"),
                t.pe,
                s.group.start,
                s.group.stride,
                s.group.size
            ),
        )
    }
    let off = if nbytes == 0 {
        crate::heap::SymOffset(0)
    } else {
        check::local(routine, "source", source, true);
        check::remote(rt, routine, "dest", dest as usize, nbytes, t)
    };
    // SAFETY: `t.pe` is a member of the set's team (checked above), the
    // destination range is symmetric on it and the source non-NULL (checked).
    unsafe { notify::put(rt, &s, i, t.pe, (off, source as *const u8, nbytes), nbi) };
}

pub(crate) fn put(
    routine: &'static str,
    p: *mut NotifyObject,
    i: usize,
    dest: *mut c_void,
    source: *const c_void,
    nbytes: usize,
    pe: c_int,
) {
    put_on(routine, CtxHandle::DEFAULT, p, i, dest, source, nbytes, pe, false)
}

pub(crate) fn put_nbi(
    routine: &'static str,
    p: *mut NotifyObject,
    i: usize,
    dest: *mut c_void,
    source: *const c_void,
    nbytes: usize,
    pe: c_int,
) {
    put_on(routine, CtxHandle::DEFAULT, p, i, dest, source, nbytes, pe, true)
}

pub(crate) fn ctx_put(
    routine: &'static str,
    ctx: CtxHandle,
    p: *mut NotifyObject,
    i: usize,
    dest: *mut c_void,
    source: *const c_void,
    nbytes: usize,
    pe: c_int,
) {
    put_on(routine, ctx, p, i, dest, source, nbytes, pe, false)
}

pub(crate) fn ctx_put_nbi(
    routine: &'static str,
    ctx: CtxHandle,
    p: *mut NotifyObject,
    i: usize,
    dest: *mut c_void,
    source: *const c_void,
    nbytes: usize,
    pe: c_int,
) {
    put_on(routine, ctx, p, i, dest, source, nbytes, pe, true)
}
