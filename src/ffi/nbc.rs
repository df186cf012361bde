//! Non-blocking collective shims (`shmem_*_nb`, `shmem_req_*`, and the
//! `shmemx_req_*` routines on several requests); see `crate::nbc`.
//!
//! An initiation checks what can be checked alone, now, so that a bad
//! argument is reported by the routine the program called: the team, the
//! request pointer and the symmetry of the buffers. It then queues a job
//! that runs the blocking shim of `ffi::coll` with the same arguments (under
//! the `_nb` routine's name, for its own checks and the agreement of
//! `SHMEM_CHECK_COLLECTIVES`).

use super::check;
use super::coll;
use super::handle::TeamHandle;
use crate::error::{Error, ErrorKind, fatal};
use crate::nbc::{self, Meta};
use crate::runtime::{self, Runtime};
use crate::types::{Arith, Bitwise, Ordered, ShmemType};
use core::ffi::{c_int, c_void};
use std::mem::size_of;

/// A `shmem_req_h` as passed through the C ABI: `nbc`'s handle, never
/// dereferenced; null is `SHMEM_REQ_INVALID`.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ReqHandle(pub *mut c_void);

impl ReqHandle {
    pub(crate) const INVALID: ReqHandle = ReqHandle(std::ptr::null_mut());
}

/// The request argument of an initiation, checked.
fn request_out(routine: &'static str, request: *mut ReqHandle) -> *mut ReqHandle {
    if request.is_null() {
        fatal(&Error::new(
            routine,
            ErrorKind::InvalidArgument {
                name: "request",
                value: "NULL".into(),
                why: "must point to a shmem_req_h that receives the request",
            },
        ))
    }
    request
}

/// Checks the team and the buffers (`buffers(members)`: `(name, address,
/// bytes)` each; 0 bytes: the address is not checked), then queues `job` and
/// stores the request.
fn initiate(
    routine: &'static str,
    team: TeamHandle,
    buffers: impl FnOnce(usize) -> [(&'static str, usize, usize); 2],
    request: *mut ReqHandle,
    job: impl FnOnce() + Send + 'static,
) -> c_int {
    let rt: &'static Runtime = runtime::get(routine);
    let out = request_out(routine, request);
    let t = check::team(routine, "team", team);
    let buffers = buffers(t.size);
    for &(name, addr, len) in &buffers {
        if len > 0 {
            check::sym_group(rt, routine, name, addr, len, t.group());
        }
    }
    let meta = Meta {
        routine,
        team: t.coll().nbc_key(),
        buffers: buffers.map(|(_, a, n)| (a, n)),
    };
    let h = nbc::start(rt, meta, Box::new(job));
    // SAFETY: `out` is non-null (checked) and points to the caller's handle.
    unsafe { out.write(ReqHandle(h as usize as *mut c_void)) };
    0
}

/// Bytes of `n` elements of `T`, `times` over.
fn bytes<T>(routine: &'static str, name: &'static str, n: usize, times: usize) -> usize {
    check::bytes(routine, name, n, size_of::<T>() * times.max(1))
}

pub(crate) fn broadcast_nb<T: ShmemType + 'static>(
    routine: &'static str,
    team: TeamHandle,
    dest: *mut T,
    source: *const T,
    nelems: usize,
    root: c_int,
    request: *mut ReqHandle,
) -> c_int {
    let len = bytes::<T>(routine, "nelems", nelems, 1);
    let (d, s) = (dest as usize, source as usize);
    let bufs = move |_| [("dest", d, len), ("source", s, len)];
    initiate(routine, team, bufs, request, move || {
        coll::broadcast::<T>(routine, team, d as *mut T, s as *const T, nelems, root);
    })
}

pub(crate) fn collect_nb<T: ShmemType + 'static>(
    routine: &'static str,
    team: TeamHandle,
    dest: *mut T,
    source: *const T,
    nelems: usize,
    request: *mut ReqHandle,
) -> c_int {
    // The destination's size is known once the members have published
    // theirs; here its own block must be symmetric.
    let len = bytes::<T>(routine, "nelems", nelems, 1);
    let (d, s) = (dest as usize, source as usize);
    let bufs = move |_| [("dest", d, len), ("source", s, len)];
    initiate(routine, team, bufs, request, move || {
        coll::collect::<T>(routine, team, d as *mut T, s as *const T, nelems);
    })
}

pub(crate) fn fcollect_nb<T: ShmemType + 'static>(
    routine: &'static str,
    team: TeamHandle,
    dest: *mut T,
    source: *const T,
    nelems: usize,
    request: *mut ReqHandle,
) -> c_int {
    let (d, s) = (dest as usize, source as usize);
    let bufs = move |n| {
        [
            ("dest", d, bytes::<T>(routine, "nelems", nelems, n)),
            ("source", s, bytes::<T>(routine, "nelems", nelems, 1)),
        ]
    };
    initiate(routine, team, bufs, request, move || {
        coll::fcollect::<T>(routine, team, d as *mut T, s as *const T, nelems);
    })
}

pub(crate) fn alltoall_nb<T: ShmemType + 'static>(
    routine: &'static str,
    team: TeamHandle,
    dest: *mut T,
    source: *const T,
    nelems: usize,
    request: *mut ReqHandle,
) -> c_int {
    let (d, s) = (dest as usize, source as usize);
    let bufs = move |n| {
        let len = bytes::<T>(routine, "nelems", nelems, n);
        [("dest", d, len), ("source", s, len)]
    };
    initiate(routine, team, bufs, request, move || {
        coll::alltoall::<T>(routine, team, d as *mut T, s as *const T, nelems);
    })
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn alltoalls_nb<T: ShmemType + 'static>(
    routine: &'static str,
    team: TeamHandle,
    dest: *mut T,
    source: *const T,
    dst: isize,
    sst: isize,
    nelems: usize,
    request: *mut ReqHandle,
) -> c_int {
    let (d, s) = (dest as usize, source as usize);
    let bufs = move |n: usize| {
        let per = nelems.saturating_mul(n);
        let span = |name, stride| coll::strided_span(routine, name, per, stride, size_of::<T>());
        [("dest", d, span("dst", dst)), ("source", s, span("sst", sst))]
    };
    initiate(routine, team, bufs, request, move || {
        coll::alltoalls::<T>(routine, team, d as *mut T, s as *const T, dst, sst, nelems);
    })
}

/// A reduction or scan: `n` elements in `dest` and `source` alike, run by
/// the blocking shim `blocking`.
fn elementwise_nb<T: ShmemType + 'static>(
    routine: &'static str,
    (team, dest, source, n): (TeamHandle, *mut T, *const T, usize),
    count: &'static str,
    request: *mut ReqHandle,
    blocking: fn(&'static str, TeamHandle, *mut T, *const T, usize) -> c_int,
) -> c_int {
    let len = bytes::<T>(routine, count, n, 1);
    let (d, s) = (dest as usize, source as usize);
    let bufs = move |_| [("dest", d, len), ("source", s, len)];
    initiate(routine, team, bufs, request, move || {
        blocking(routine, team, d as *mut T, s as *const T, n);
    })
}

macro_rules! elementwise_nbs {
    ($($name:ident: $bound:ident => $blocking:ident, $count:literal),*) => {$(
        pub(crate) fn $name<T: ShmemType + $bound + 'static>(
            routine: &'static str,
            team: TeamHandle,
            dest: *mut T,
            source: *const T,
            n: usize,
            request: *mut ReqHandle,
        ) -> c_int {
            elementwise_nb(routine, (team, dest, source, n), $count, request, coll::$blocking::<T>)
        }
    )*};
}
elementwise_nbs!(
    and_reduce_nb: Bitwise => and_reduce, "nreduce",
    or_reduce_nb: Bitwise => or_reduce, "nreduce",
    xor_reduce_nb: Bitwise => xor_reduce, "nreduce",
    max_reduce_nb: Ordered => max_reduce, "nreduce",
    min_reduce_nb: Ordered => min_reduce, "nreduce",
    sum_reduce_nb: Arith => sum_reduce, "nreduce",
    prod_reduce_nb: Arith => prod_reduce, "nreduce",
    sum_inscan_nb: Arith => sum_inscan, "nelems",
    sum_exscan_nb: Arith => sum_exscan, "nelems"
);

/// `shmem_team_sync_nb` (and `shmem_sync_nb`): a team barrier, without
/// completing puts, as `shmem_team_sync`.
pub(crate) fn sync_nb(routine: &'static str, team: TeamHandle, request: *mut ReqHandle) -> c_int {
    initiate(
        routine,
        team,
        |_| [("", 0, 0); 2],
        request,
        move || {
            super::team::sync(routine, team);
        },
    )
}

/// The handle at `request`: `None` for a null pointer or `SHMEM_REQ_INVALID`.
fn handle_at(request: *const ReqHandle) -> Option<nbc::Handle> {
    if request.is_null() {
        return None;
    }
    // SAFETY: non-null; the caller passes the address of a shmem_req_h.
    let h = unsafe { request.read() };
    (h != ReqHandle::INVALID).then_some(h.0 as usize as nbc::Handle)
}

fn set_invalid(request: *mut ReqHandle) {
    // SAFETY: as in handle_at (only called after it found a handle there).
    unsafe { request.write(ReqHandle::INVALID) }
}

/// `shmem_req_test`: 0 when the request has completed (it is then freed and
/// set to `SHMEM_REQ_INVALID`), 1 while it has not, -1 for an invalid one.
pub(crate) fn req_test(routine: &'static str, request: *mut ReqHandle) -> c_int {
    let rt = runtime::get(routine);
    let Some(h) = handle_at(request) else { return -1 };
    if nbc::test(rt, routine, "request", h) {
        set_invalid(request);
        return 0;
    }
    1
}

/// `shmem_req_wait`: 0 once the request has completed (freed and set to
/// `SHMEM_REQ_INVALID`); -1 for an invalid one.
pub(crate) fn req_wait(routine: &'static str, request: *mut ReqHandle) -> c_int {
    let rt = runtime::get(routine);
    let Some(h) = handle_at(request) else { return -1 };
    nbc::wait(rt, routine, "request", h);
    set_invalid(request);
    0
}

/// The `i`-th of `n` requests at `requests` (checked non-null when `n > 0`).
fn nth(routine: &'static str, requests: *mut ReqHandle, i: usize) -> *mut ReqHandle {
    if requests.is_null() {
        fatal(&Error::new(
            routine,
            ErrorKind::InvalidArgument {
                name: "requests",
                value: "NULL".into(),
                why: "must point to the array of nreqs request handles",
            },
        ))
    }
    // SAFETY: the caller passes an array of n handles; i < n.
    unsafe { requests.add(i) }
}

/// `shmemx_req_wait_all`: waits for every valid request of the array (each
/// then set to `SHMEM_REQ_INVALID`); 0, or -1 when none was valid.
pub(crate) fn req_wait_all(routine: &'static str, requests: *mut ReqHandle, n: usize) -> c_int {
    let rt = runtime::get(routine);
    let mut any = false;
    for i in 0..n {
        let r = nth(routine, requests, i);
        if let Some(h) = handle_at(r) {
            nbc::wait(rt, routine, "requests", h);
            set_invalid(r);
            any = true;
        }
    }
    if any || n == 0 { 0 } else { -1 }
}

/// `shmemx_req_test_all`: 0 when every valid request of the array has
/// completed (those are then freed and set invalid), 1 otherwise (the
/// completed ones are freed all the same), -1 when none was valid.
pub(crate) fn req_test_all(routine: &'static str, requests: *mut ReqHandle, n: usize) -> c_int {
    let rt = runtime::get(routine);
    let (mut any, mut pending) = (false, false);
    for i in 0..n {
        let r = nth(routine, requests, i);
        if let Some(h) = handle_at(r) {
            any = true;
            if nbc::test(rt, routine, "requests", h) {
                set_invalid(r);
            } else {
                pending = true;
            }
        }
    }
    match (any || n == 0, pending) {
        (false, _) => -1,
        (true, true) => 1,
        (true, false) => 0,
    }
}

/// `shmemx_req_wait_any`: waits until one valid request of the array has
/// completed, frees it, sets it invalid and returns its index;
/// `SIZE_MAX` when none is valid.
pub(crate) fn req_wait_any(routine: &'static str, requests: *mut ReqHandle, n: usize) -> usize {
    let rt = runtime::get(routine);
    let valid: Vec<(usize, nbc::Handle)> = (0..n)
        .filter_map(|i| handle_at(nth(routine, requests, i)).map(|h| (i, h)))
        .collect();
    let Some(&(first, h0)) = valid.first() else {
        return usize::MAX;
    };
    let found = || {
        valid
            .iter()
            .find(|(_, h)| nbc::is_done(routine, "requests", *h))
            .copied()
    };
    let (i, h) = match found() {
        Some(x) => x,
        None if valid.len() == 1 => (first, h0),
        None => {
            let mut hit = None;
            rt.sync_waiter().wait_at(
                || rt.post(crate::stuck::Kind::Coll, routine, 0),
                || {
                    // Without workers, only waiting runs the jobs: the first
                    // request's queue (initiation order) goes first.
                    hit = found();
                    hit.is_some() || !nbc::has_workers()
                },
                || format!("{routine}: one of {} non-blocking collectives to finish", valid.len()),
            );
            hit.unwrap_or((first, h0))
        }
    };
    nbc::wait(rt, routine, "requests", h);
    set_invalid(nth(routine, requests, i));
    i
}

/// `shmemx_req_test_some`: completes (frees, sets invalid) every valid
/// request of the array that has completed, writes their indices to
/// `indices` (room for `n`) and returns how many; `SIZE_MAX` when none is
/// valid.
pub(crate) fn req_test_some(routine: &'static str, requests: *mut ReqHandle, n: usize, indices: *mut usize) -> usize {
    let rt = runtime::get(routine);
    let (mut any, mut done) = (false, 0usize);
    for i in 0..n {
        let r = nth(routine, requests, i);
        if let Some(h) = handle_at(r) {
            any = true;
            if nbc::test(rt, routine, "requests", h) {
                set_invalid(r);
                if !indices.is_null() {
                    // SAFETY: the caller gives room for n indices; done < n.
                    unsafe { indices.add(done).write(i) };
                }
                done += 1;
            }
        }
    }
    if !any && n > 0 { usize::MAX } else { done }
}
