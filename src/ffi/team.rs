//! Team management: `shmem_team_*`, and the footprint queries of `shmemx.h`.
//!
//! Queries on an invalid or destroyed team return the specification's error
//! values (-1, or non-zero) and explain why under `SHMEM_DEBUG`; splits with
//! invalid arguments return non-zero on every PE of the parent (which all
//! pass the same arguments) before any communication but the argument
//! check's (`SHMEM_CHECK_COLLECTIVES`, which compares them first).
//! Destroying a predefined or unknown team, or running a collective on one,
//! is a fatal error.

use super::check;
use super::constants::SHMEM_TEAM_NUM_CONTEXTS;
use super::handle::TeamHandle;
use crate::coll::Group;
use crate::coll::agree::SplitArgs;
use crate::coll::check::{Record, What};
use crate::error::{self, Error, ErrorKind, fatal};
use crate::psync::Footprint;
use crate::runtime::{self, Runtime};
use crate::team::{SplitError, Team};
use core::ffi::{c_int, c_long, c_void};
use std::sync::Arc;

/// `shmem_team_config_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct TeamConfig {
    pub num_contexts: c_int,
}

/// The team given as argument `name`, or `None` after a debug message
/// saying why not.
fn live(routine: &'static str, name: &'static str, h: TeamHandle) -> Option<Arc<Team>> {
    let t = runtime::get(routine).teams.lookup(h.raw());
    if t.is_none() {
        error::debug(
            routine,
            format_args!("{}", ErrorKind::InvalidTeam { name, raw: h.raw() }.text(routine)),
        );
    }
    t
}

pub(crate) fn my_pe(routine: &'static str, h: TeamHandle) -> c_int {
    runtime::get(routine);
    live(routine, "team", h).map_or(-1, |t| t.my_rank as c_int)
}

pub(crate) fn n_pes(routine: &'static str, h: TeamHandle) -> c_int {
    runtime::get(routine);
    live(routine, "team", h).map_or(-1, |t| t.size as c_int)
}

pub(crate) fn get_config(routine: &'static str, h: TeamHandle, mask: c_long, config: *mut TeamConfig) -> c_int {
    runtime::get(routine);
    let Some(t) = live(routine, "team", h) else { return 1 };
    // 1.6: with an empty mask nothing is read or written, and config may be
    // NULL; a NULL config with a mask would be written through.
    if mask == 0 {
        return 0;
    }
    if config.is_null() {
        check::null_pointer(routine, "config");
    }
    if mask & SHMEM_TEAM_NUM_CONTEXTS != 0 {
        // SAFETY: a non-null pointer to the caller's config structure.
        unsafe { (*config).num_contexts = t.num_contexts };
    }
    0
}

pub(crate) fn translate_pe(routine: &'static str, src: TeamHandle, src_pe: c_int, dest: TeamHandle) -> c_int {
    runtime::get(routine);
    let (Some(s), Some(d)) = (live(routine, "src_team", src), live(routine, "dest_team", dest)) else {
        return -1;
    };
    if src_pe < 0 || src_pe as usize >= s.size {
        error::debug(
            routine,
            format_args!(
                "{} is {src_pe}, outside [0, {}]",
                check::label(routine, "src_pe"),
                s.size as i64 - 1
            ),
        );
        return -1;
    }
    d.group().rank_of(s.pe(src_pe as usize)).map_or(-1, |r| r as c_int)
}

fn num_contexts(config: *const TeamConfig, mask: c_long) -> c_int {
    if mask & SHMEM_TEAM_NUM_CONTEXTS != 0 && !config.is_null() {
        // SAFETY: a non-null pointer to the caller's config structure.
        unsafe { (*config).num_contexts }
    } else {
        0
    }
}

/// Writes `h` through a team out-pointer.
fn out(routine: &'static str, name: &'static str, p: *mut TeamHandle, h: TeamHandle) {
    if p.is_null() {
        check::null_pointer(routine, name);
    }
    // SAFETY: a non-null out-pointer supplied by the caller.
    unsafe { p.write(h) };
}

/// A rejected split: a debug message, `SHMEM_TEAM_INVALID` out, non-zero back.
fn reject(routine: &'static str, outs: &[*mut TeamHandle], why: std::fmt::Arguments<'_>) -> c_int {
    error::debug(routine, why);
    for &p in outs {
        if !p.is_null() {
            // SAFETY: a non-null out-pointer supplied by the caller.
            unsafe { p.write(TeamHandle::INVALID) };
        }
    }
    1
}

/// Turns the results of `team::create` into handles and a return code.
fn finish(routine: &'static str, results: Vec<Result<Option<usize>, SplitError>>, outs: &[*mut TeamHandle]) -> c_int {
    let mut code = 0;
    for (r, &p) in results.into_iter().zip(outs) {
        let h = match r {
            Ok(Some(raw)) => TeamHandle::from_raw(raw),
            Ok(None) => TeamHandle::INVALID,
            Err(SplitError::NoSyncMemory(why)) => {
                error::debug(
                    routine,
                    format_args!("no synchronisation memory for the new team: {why}"),
                );
                code = 1;
                TeamHandle::INVALID
            }
        };
        // SAFETY: checked non-null by the caller.
        unsafe { p.write(h) };
    }
    code
}

pub(crate) fn split_strided(
    routine: &'static str,
    parent: TeamHandle,
    start: c_int,
    stride: c_int,
    size: c_int,
    config: *const TeamConfig,
    mask: c_long,
    new_team: *mut TeamHandle,
) -> c_int {
    let rt = runtime::get(routine);
    out(routine, "new_team", new_team, TeamHandle::INVALID);
    let Some(p) = live(routine, "parent_team", parent) else {
        return reject(routine, &[new_team], format_args!("the parent team is not valid"));
    };
    // Every PE of the parent calls, those outside the new team too.
    check::agree(rt, routine, (&p, parent), || {
        let args = [start as i64 as u64, stride as i64 as u64, size as i64 as u64];
        Record::new(routine, What::SplitStrided, "", 0, &args)
    });
    let n = p.size as i64;
    let (start, stride, size) = (start as i64, stride as i64, size as i64);
    if size <= 0 || size > n {
        return reject(
            routine,
            &[new_team],
            format_args!(
                "{} is {size}, outside [1, {n}] (the parent team's size)",
                check::label(routine, "size")
            ),
        );
    }
    if start < 0 || start >= n {
        return reject(
            routine,
            &[new_team],
            format_args!("{} is {start}, outside [0, {}]", check::label(routine, "start"), n - 1),
        );
    }
    if stride == 0 && size != 1 {
        return reject(
            routine,
            &[new_team],
            format_args!(
                "{} is 0 with size {size}: only a team of one PE may have stride 0",
                check::label(routine, "stride")
            ),
        );
    }
    let last = start + (size - 1) * stride;
    if last < 0 || last >= n {
        return reject(
            routine,
            &[new_team],
            format_args!(
                "start {start}, stride {stride} and size {size} reach parent rank {last}, outside [0, {}]",
                n - 1
            ),
        );
    }
    let sub = Group {
        start: p.start + start as isize * p.stride,
        stride: stride as isize * p.stride,
        size: size as usize,
        rank: 0,
    };
    let mine = sub
        .rank_of(rt.me)
        .map(|rank| (Group { rank, ..sub }, num_contexts(config, mask)));
    let args = SplitArgs {
        what: What::SplitStrided,
        args: [start as u64, stride as u64, size as u64],
    };
    finish(
        routine,
        rt.teams.create(rt, &rt.spaces, routine, (&p, Some(args)), &[mine]),
        &[new_team],
    )
}

pub(crate) fn split_2d(
    routine: &'static str,
    parent: TeamHandle,
    xrange: c_int,
    xaxis_config: *const TeamConfig,
    xaxis_mask: c_long,
    xaxis_team: *mut TeamHandle,
    yaxis_config: *const TeamConfig,
    yaxis_mask: c_long,
    yaxis_team: *mut TeamHandle,
) -> c_int {
    let rt = runtime::get(routine);
    out(routine, "xaxis_team", xaxis_team, TeamHandle::INVALID);
    out(routine, "yaxis_team", yaxis_team, TeamHandle::INVALID);
    let outs = [xaxis_team, yaxis_team];
    let Some(p) = live(routine, "parent_team", parent) else {
        return reject(routine, &outs, format_args!("the parent team is not valid"));
    };
    check::agree(rt, routine, (&p, parent), || {
        Record::new(routine, What::Split2d, "", 0, &[xrange as i64 as u64])
    });
    if xrange <= 0 {
        return reject(
            routine,
            &outs,
            format_args!("{} is {xrange}: it must be positive", check::label(routine, "xrange")),
        );
    }
    // A range wider than the parent makes one row: the parent itself.
    let xr = (xrange as usize).min(p.size);
    let (x, y) = (p.my_rank % xr, p.my_rank / xr);
    let row = Group {
        start: p.start + (y * xr) as isize * p.stride,
        stride: p.stride,
        size: xr.min(p.size - y * xr),
        rank: x,
    };
    let column = Group {
        start: p.start + x as isize * p.stride,
        stride: xr as isize * p.stride,
        size: (p.size - x).div_ceil(xr),
        rank: y,
    };
    let mine = [
        Some((row, num_contexts(xaxis_config, xaxis_mask))),
        Some((column, num_contexts(yaxis_config, yaxis_mask))),
    ];
    let args = SplitArgs {
        what: What::Split2d,
        args: [xrange as i64 as u64, 0, 0],
    };
    finish(
        routine,
        rt.teams.create(rt, &rt.spaces, routine, (&p, Some(args)), &mine),
        &outs,
    )
}

/// Destroys a team; `SHMEM_TEAM_INVALID` is ignored, as the specification
/// says (a PE outside a split may pass what the split gave it).
pub(crate) fn destroy(routine: &'static str, h: TeamHandle) {
    let rt = runtime::get(routine);
    if h == TeamHandle::INVALID {
        return;
    }
    if let Some(t) = rt.teams.lookup(h.raw())
        && let Some(name) = t.predefined
    {
        fatal(&Error::new(
            routine,
            ErrorKind::InvalidArgument {
                name: "team",
                value: name.into(),
                why: "a predefined team cannot be destroyed",
            },
        ))
    }
    if let Some(t) = rt.teams.lookup(h.raw()) {
        crate::nbc::before_team_destroy(rt, routine, t.coll().nbc_key());
        check::agree(rt, routine, (&t, h), || {
            Record::new(routine, What::TeamDestroy, "", 0, &[])
        });
    }
    let spaces = rt.spaces.attached_to(h.raw());
    if !spaces.is_empty() {
        fatal(&Error::new(
            routine,
            ErrorKind::Usage(crate::space::SpaceError::TeamHasSpaces(spaces).to_string()),
        ))
    }
    let sems = rt.semaphores.count_on(h.raw());
    if sems > 0 {
        fatal(&Error::new(
            routine,
            ErrorKind::Usage(format!(
                "{sems} semaphore(s) allocated on the team still exist; free them first (shmemx_sem_free)"
            )),
        ))
    }
    let sets = rt.notifies.count_on(h.raw());
    if sets > 0 {
        fatal(&Error::new(
            routine,
            ErrorKind::Usage(format!(
                "{sets} notification set(s) allocated on the team still exist; free them first (shmemx_notify_free)"
            )),
        ))
    }
    if rt.teams.destroy(rt, &rt.spaces, routine, h.raw()).is_none() {
        fatal(&Error::new(
            routine,
            ErrorKind::InvalidTeam {
                name: "team",
                raw: h.raw(),
            },
        ))
    }
}

/// `shmem_team_sync`: a barrier over the team without completing puts.
pub(crate) fn sync(routine: &'static str, h: TeamHandle) -> c_int {
    let rt = runtime::get(routine);
    let t = check::team(routine, "team", h);
    check::agree(rt, routine, (&*t, h), || {
        Record::new(routine, What::TeamSync, "", 0, &[])
    });
    team_barrier(rt, routine, &t);
    0
}

/// A barrier over `t`; the strategy learns that it completed.
pub(crate) fn team_barrier(rt: &Runtime, routine: &'static str, t: &Team) {
    crate::coll::team_sync(rt, routine, t.coll());
}

/// `shmem_team_ptr` (1.6): the address of `dest` on team rank `pe`, if this PE
/// can load and store there; NULL otherwise (or for a bad team or PE).
pub(crate) fn ptr(routine: &'static str, h: TeamHandle, dest: *const c_void, pe: c_int) -> *mut c_void {
    let rt = runtime::get(routine);
    let Some(t) = live(routine, "team", h) else {
        return std::ptr::null_mut();
    };
    if pe < 0 || pe as usize >= t.size {
        error::debug(
            routine,
            format_args!(
                "{} is {pe}, outside [0, {}]",
                check::label(routine, "pe"),
                t.size as i64 - 1
            ),
        );
        return std::ptr::null_mut();
    }
    let target = t.pe(pe as usize);
    let Some(off) = rt.spaces.symmetric_on(rt, dest as usize, 1, target) else {
        error::debug(
            routine,
            format_args!(
                "{} = {dest:p} is not symmetric memory of team PE {pe}",
                check::label(routine, "dest")
            ),
        );
        return std::ptr::null_mut();
    };
    if target == rt.me {
        // This PE's own object, at the address the program knows it by (as
        // shmem_ptr answers).
        return dest as *mut c_void;
    }
    use crate::transport::Transport;
    rt.transport
        .local_ptr(target, off)
        .map_or(std::ptr::null_mut(), |p| p.as_ptr() as *mut c_void)
}

fn write_footprint(routine: &'static str, fp: *mut Footprint, v: Footprint) {
    if fp.is_null() {
        check::null_pointer(routine, "fp");
    }
    // SAFETY: a non-null pointer to the caller's structure.
    unsafe { fp.write(v) };
}

/// `shmemx_psync_footprint`: this PE's synchronisation memory, all teams,
/// and the messages its collectives sent.
pub(crate) fn psync_footprint(routine: &'static str, fp: *mut Footprint) -> c_int {
    let rt = runtime::get(routine);
    let v = rt.psync_footprint(None);
    write_footprint(routine, fp, v);
    0
}

/// `shmemx_team_psync_footprint`: the synchronisation memory one team holds
/// on this PE (-1 for an invalid team; see `SyncState::team_footprint`).
pub(crate) fn team_psync_footprint(routine: &'static str, h: TeamHandle, fp: *mut Footprint) -> c_int {
    let rt = runtime::get(routine);
    let Some(t) = live(routine, "team", h) else { return -1 };
    let v = rt.psync_footprint(Some(&t.sync));
    write_footprint(routine, fp, v);
    0
}
