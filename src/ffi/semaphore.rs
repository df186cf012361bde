//! UPC-style semaphores and signalling puts (`shmemx.h`): `shmemx_sem_*`,
//! `shmemx_memput_signal[_async]`, with the semantics of Berkeley UPC's
//! `bupc_sem_*` (see `crate::semaphore`).
//!
//! PE arguments are world PE numbers, as for RMA on the default context; the
//! PE must belong to the team the semaphore was allocated on. Misuse (a
//! pointer that is not a live semaphore, invalid flags, a value above
//! `SHMEMX_SEM_MAXVALUE`, an N form with n > 1 on a boolean semaphore) is a
//! fatal error naming the routine, the PE and the value.

use super::check;
use super::handle::TeamHandle;
use crate::error::{Error, ErrorKind, fatal};
use crate::heap::SymOffset;
use crate::runtime::{self, Runtime};
use crate::semaphore::{self, MAXVALUE, PostError, Sem};
use crate::transport::Transport;
use core::ffi::{c_int, c_void};

/// `shmemx_sem_t`: opaque to C, which only holds pointers to it.
#[repr(C)]
pub(crate) struct SemObject {
    _opaque: [u8; 0],
}

fn usage(routine: &'static str, text: String) -> ! {
    fatal(&Error::new(routine, ErrorKind::Usage(text)))
}

/// The live semaphore given as argument `sem`.
#[inline]
fn sem(rt: &Runtime, routine: &'static str, p: *mut SemObject) -> Sem {
    match semaphore::lookup(rt, p as usize) {
        Some(s) => s,
        None => not_a_semaphore(routine, p),
    }
}

#[cold]
fn not_a_semaphore(routine: &'static str, p: *mut SemObject) -> ! {
    usage(
        routine,
        format!(
            "{} = {p:p} is not a semaphore (one returned by shmemx_sem_alloc or \
             shmemx_team_sem_alloc and not yet freed)",
            check::label(routine, "sem")
        ),
    )
}

/// `n` of an N form: at most the maximum, and 1 on a boolean semaphore.
#[inline]
fn count(routine: &'static str, s: &Sem, n: usize) -> u64 {
    let n = n as u64;
    let arg = check::label(routine, "n");
    if n > MAXVALUE {
        usage(routine, format!("{arg} is {n}, above SHMEMX_SEM_MAXVALUE ({MAXVALUE})"))
    }
    if s.boolean() && n > 1 {
        usage(
            routine,
            format!("{arg} is {n}, but the semaphore is boolean (SHMEMX_SEM_BOOLEAN): n must be 1"),
        )
    }
    n
}

/// The world PE `pe`, which must hold a copy of `s`.
#[inline]
fn member(rt: &Runtime, routine: &'static str, s: &Sem, pe: c_int) -> usize {
    let pe = check::pe(rt, routine, pe);
    if s.group.rank_of(pe).is_none() {
        usage(
            routine,
            format!(
                "{} is {pe}, which is not a member of the semaphore's team \
                 (world PEs {} + i * {}, i < {}): it has no copy of the semaphore",
                check::label(routine, "pe"),
                s.group.start,
                s.group.stride,
                s.group.size
            ),
        )
    }
    pe
}

/// The argument `flags`, normalised (0 = integer, multi-producer, multi-consumer).
fn flags(routine: &'static str, flags: c_int) -> c_int {
    semaphore::normalize(flags).unwrap_or_else(|why| {
        fatal(&Error::new(
            routine,
            ErrorKind::InvalidArgument {
                name: "flags",
                value: format!("{flags:#x}"),
                why,
            },
        ))
    })
}

/// Allocates on `team` (the argument `team`, or the world), collectively over
/// its members.
fn alloc_on(routine: &'static str, team: TeamHandle, flags: c_int) -> *mut SemObject {
    let rt = runtime::get(routine);
    let t = check::team(routine, "team", team);
    let barrier = || super::team::team_barrier(rt, routine, &t);
    match rt
        .semaphores
        .alloc(rt, &rt.spaces, team.raw(), t.group(), flags, barrier)
    {
        Ok(addr) => addr as *mut SemObject,
        Err(e) => usage(routine, format!("no memory for the semaphore: {e}")),
    }
}

pub(crate) fn team_alloc(routine: &'static str, team: TeamHandle, f: c_int) -> *mut SemObject {
    runtime::get(routine);
    alloc_on(routine, team, flags(routine, f))
}

pub(crate) fn alloc(routine: &'static str, f: c_int) -> *mut SemObject {
    runtime::get(routine);
    alloc_on(routine, TeamHandle::WORLD, flags(routine, f))
}

/// Collective over the semaphore's team; NULL does nothing.
pub(crate) fn free(routine: &'static str, p: *mut SemObject) {
    let rt = runtime::get(routine);
    if p.is_null() {
        return;
    }
    sem(rt, routine, p);
    let Some(team) = rt.semaphores.team_of(p as usize) else {
        not_a_semaphore(routine, p)
    };
    let t = rt.teams.lookup(team).unwrap_or_else(|| {
        fatal(&Error::new(
            routine,
            ErrorKind::Internal(format!("the semaphore's team {team:#x} is gone")),
        ))
    });
    rt.transport.quiet();
    super::team::team_barrier(rt, routine, &t);
    rt.semaphores.release(rt, &rt.spaces, p as usize);
}

/// Posts `n` to `pe`'s copy, after the put `data` if given.
fn post_on(
    rt: &Runtime,
    routine: &'static str,
    s: &Sem,
    n: u64,
    pe: usize,
    data: Option<(SymOffset, *const u8, usize)>,
) {
    // SAFETY: `pe` was checked to be a member of the semaphore's team, and
    // `data` (from memput_signal) was checked there.
    if let Err(PostError::AboveMax(v)) = unsafe { semaphore::post(rt, s, n, pe, data) } {
        usage(
            routine,
            format!("posting {n} raised the semaphore on PE {pe} to {v}, above SHMEMX_SEM_MAXVALUE ({MAXVALUE})"),
        )
    }
}

pub(crate) fn post(routine: &'static str, p: *mut SemObject, pe: c_int) {
    let rt = runtime::get(routine);
    let s = sem(rt, routine, p);
    let pe = member(rt, routine, &s, pe);
    post_on(rt, routine, &s, 1, pe, None);
}

pub(crate) fn post_n(routine: &'static str, p: *mut SemObject, n: usize, pe: c_int) {
    let rt = runtime::get(routine);
    let s = sem(rt, routine, p);
    let n = count(routine, &s, n);
    let pe = member(rt, routine, &s, pe);
    post_on(rt, routine, &s, n, pe, None);
}

pub(crate) fn wait(routine: &'static str, p: *mut SemObject) {
    let rt = runtime::get(routine);
    let s = sem(rt, routine, p);
    semaphore::wait(rt, &s, 1, routine);
}

pub(crate) fn wait_n(routine: &'static str, p: *mut SemObject, n: usize) {
    let rt = runtime::get(routine);
    let s = sem(rt, routine, p);
    let n = count(routine, &s, n);
    semaphore::wait(rt, &s, n, routine);
}

pub(crate) fn try_one(routine: &'static str, p: *mut SemObject) -> c_int {
    let rt = runtime::get(routine);
    // Programs poll this in a loop on their own semaphore: serve the
    // posters' requests (a network transport's progress) on each try.
    rt.transport.progress();
    let s = sem(rt, routine, p);
    semaphore::try_take(rt, &s, 1) as c_int
}

pub(crate) fn try_n(routine: &'static str, p: *mut SemObject, n: usize) -> c_int {
    let rt = runtime::get(routine);
    rt.transport.progress();
    let s = sem(rt, routine, p);
    let n = count(routine, &s, n);
    semaphore::try_take(rt, &s, n) as c_int
}

/// Puts `nbytes` to `dest` on `pe`, then posts `n` to the semaphore there:
/// the post is seen only after all the data. Returns when `src` may be
/// reused (the put is complete on return on this transport).
pub(crate) fn memput_signal(
    routine: &'static str,
    dest: *mut c_void,
    src: *const c_void,
    nbytes: usize,
    p: *mut SemObject,
    n: usize,
    pe: c_int,
) {
    let rt = runtime::get(routine);
    let s = sem(rt, routine, p);
    let n = count(routine, &s, n);
    let pe = member(rt, routine, &s, pe);
    let data = (nbytes > 0).then(|| {
        check::local(routine, "src", src, true);
        let target = check::Target { pe, space: 0 };
        let off = check::remote(rt, routine, "dest", dest as usize, nbytes, target);
        (off, src as *const u8, nbytes)
    });
    // The data, then the post's sequentially consistent update, which
    // orders the data before it.
    post_on(rt, routine, &s, n, pe, data);
}

/// May return before `src` is reusable; here it never does (every put is
/// complete on return), so it is the blocking form.
pub(crate) fn memput_signal_async(
    routine: &'static str,
    dest: *mut c_void,
    src: *const c_void,
    nbytes: usize,
    p: *mut SemObject,
    n: usize,
    pe: c_int,
) {
    memput_signal(routine, dest, src, nbytes, p, n, pe)
}
