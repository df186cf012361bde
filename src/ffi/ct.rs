//! Sandia OpenSHMEM's counting puts and performance counters (`shmemx.h`):
//! `shmemx_ct_*`, `shmemx_putmem_ct`, `shmemx_getmem_ct` (`crate::ct`) and
//! `shmemx_pcntr_*` (`crate::pcntr`).
//!
//! Misuse is a fatal error naming the routine and the PE: a handle that is
//! not a live counter (never created, freed, garbage), a NULL handle pointer
//! or result pointer, a PE out of range, a remote address that is not
//! symmetric, every counter in use. PE arguments are world PE numbers (the
//! routines have no context).

use super::check;
use super::handle::CtxHandle;
use crate::ct::{self, Ct, Invalid};
use crate::error::{Error, ErrorKind, fatal};
use crate::runtime::{self, Runtime};
use core::ffi::{c_char, c_int, c_long, c_void};
use std::sync::atomic::{AtomicBool, Ordering};

/// `shmemx_ct_t` (`char *` in C, as in SOS): this PE's address of the
/// counter's word, never dereferenced without `ct::Counters::lookup`.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CtHandle(pub *mut c_char);

/// `shmemx_pcntr_t`, laid out as SOS declares it.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Pcntr {
    pub pending_put: u64,
    pub pending_get: u64,
    pub completed_put: u64,
    pub completed_get: u64,
    pub target: u64,
}

fn usage(routine: &'static str, text: String) -> ! {
    fatal(&Error::new(routine, ErrorKind::Usage(text)))
}

/// The live counter `h` (the argument `ct`).
#[inline]
fn counter(rt: &Runtime, routine: &'static str, h: CtHandle) -> Ct {
    match rt.cts.lookup(h.0 as usize) {
        Ok(c) => c,
        Err(why) => invalid(routine, h, why),
    }
}

#[cold]
fn invalid(routine: &'static str, h: CtHandle, why: Invalid) -> ! {
    let arg = check::label(routine, "ct");
    usage(
        routine,
        match why {
            Invalid::NotACounter => format!(
                "{arg} = {:p} is not a counter (one shmemx_ct_create gave and shmemx_ct_free has not freed)",
                h.0
            ),
            Invalid::NotLive(i) => format!(
                "{arg} = {:p} is counter {i}, which is not live: freed by shmemx_ct_free, or not created \
                 since this shmem_init",
                h.0
            ),
        },
    )
}

/// The handle the pointer argument `ct` points to.
fn handle_at(routine: &'static str, ct: *mut CtHandle) -> CtHandle {
    if ct.is_null() {
        null(routine, "ct")
    }
    // SAFETY: a non-null `shmemx_ct_t *` of the caller, as the API requires.
    unsafe { ct.read() }
}

#[cold]
fn null(routine: &'static str, name: &'static str) -> ! {
    fatal(&Error::new(
        routine,
        ErrorKind::InvalidArgument {
            name,
            value: "NULL".into(),
            why: "a NULL pointer where the routine needs one to a variable",
        },
    ))
}

pub(crate) fn create(routine: &'static str, ct: *mut CtHandle) {
    let rt = runtime::get(routine);
    if ct.is_null() {
        null(routine, "ct")
    }
    let Some(c) = rt.cts.create(rt) else {
        usage(
            routine,
            format!(
                "every one of this PE's {} counters is in use ({} live): free one with shmemx_ct_free first",
                ct::MAX,
                rt.cts.live()
            ),
        )
    };
    // SAFETY: a non-null `shmemx_ct_t *` of the caller (checked).
    unsafe { ct.write(CtHandle(c.handle() as *mut c_char)) }
}

pub(crate) fn free(routine: &'static str, ct: *mut CtHandle) {
    let rt = runtime::get(routine);
    let c = counter(rt, routine, handle_at(routine, ct));
    rt.cts.free(&c);
    // SAFETY: a non-null `shmemx_ct_t *` of the caller (checked); NULL is
    // never a counter, so a later use of it is reported.
    unsafe { ct.write(CtHandle(std::ptr::null_mut())) }
}

pub(crate) fn get(routine: &'static str, ct: CtHandle) -> c_long {
    let rt = runtime::get(routine);
    let c = counter(rt, routine, ct);
    // A program may poll the count itself: across nodes, other PEs' adds
    // land as this PE lets the engine progress (a no-op on one node).
    crate::transport::Transport::progress(&rt.transport);
    c.get()
}

pub(crate) fn set(routine: &'static str, ct: CtHandle, value: c_long) {
    let rt = runtime::get(routine);
    ct::set(rt, &counter(rt, routine, ct), value)
}

pub(crate) fn wait(routine: &'static str, ct: CtHandle, wait_for: c_long) {
    let rt = runtime::get(routine);
    ct::wait(rt, &counter(rt, routine, ct), wait_for, routine)
}

/// The checked arguments of a counting put or get: the live counter, the
/// target PE and the offset there of the `len` symmetric bytes at `remote`
/// (argument `remote_name`); `local` (argument `local_name`) must not be
/// NULL when `len > 0`.
fn transfer_args(
    rt: &Runtime,
    routine: &'static str,
    ct: CtHandle,
    (remote_name, remote): (&'static str, usize),
    (local_name, local): (&'static str, *const c_void),
    len: usize,
    pe: c_int,
) -> (Ct, usize, crate::heap::SymOffset) {
    let c = counter(rt, routine, ct);
    let pe = check::pe(rt, routine, pe);
    let off = check::remote(rt, routine, remote_name, remote, len, check::Target { pe, space: 0 });
    check::local(routine, local_name, local, len > 0);
    (c, pe, off)
}

pub(crate) fn putmem_ct(
    routine: &'static str,
    ct: CtHandle,
    target: *mut c_void,
    source: *const c_void,
    len: usize,
    pe: c_int,
) {
    let rt = runtime::get(routine);
    let (c, pe, off) = transfer_args(
        rt,
        routine,
        ct,
        ("target", target as usize),
        ("source", source),
        len,
        pe,
    );
    // SAFETY: the target range is symmetric (checked), the source the
    // caller's buffer of `len` bytes (not NULL when len > 0, checked).
    unsafe { ct::put(rt, &c, pe, off, source as *const u8, len) }
}

pub(crate) fn getmem_ct(
    routine: &'static str,
    ct: CtHandle,
    target: *mut c_void,
    source: *const c_void,
    len: usize,
    pe: c_int,
) {
    let rt = runtime::get(routine);
    let (c, pe, off) = transfer_args(
        rt,
        routine,
        ct,
        ("source", source as usize),
        ("target", target),
        len,
        pe,
    );
    // SAFETY: the source range is symmetric (checked), the target the
    // caller's buffer of `len` bytes (not NULL when len > 0, checked).
    unsafe { ct::get(rt, &c, pe, off, target as *mut u8, len) }
}

/// Whether a getter has said that counting is off (once per process).
static SAID_OFF: AtomicBool = AtomicBool::new(false);

/// The counters of context `ctx` as SOS's `shmemx_pcntr_t`, after checking
/// the context; all 0 when counting is off (with one line saying so, the
/// first time, under `SHMEM_DEBUG` or `RSHMEM_VERBOSE`: a program that prints
/// zeroes otherwise never learns why).
fn all(routine: &'static str, ctx: Option<CtxHandle>, (name, out): (&'static str, *mut u64)) -> Pcntr {
    let rt = runtime::get(routine);
    let obj = ctx.map(|ctx| {
        check::ctx(rt, routine, ctx);
        ctx.object(&rt.contexts).expect("check::ctx reports invalid contexts")
    });
    if out.is_null() {
        null(routine, name)
    }
    if !rt.config.pcntr {
        if (rt.config.debug || rt.config.verbose) && !SAID_OFF.swap(true, Ordering::Relaxed) {
            eprintln!(
                "rshmem: {routine} (PE {} of {}): performance counting is off, every counter reads 0; \
                 set RSHMEM_PCNTR=1 on every PE to count",
                rt.me, rt.npes
            );
        }
        return Pcntr::default();
    }
    // Other nodes' target counts are posted adds, which land as this PE
    // lets the engine progress.
    crate::transport::Transport::progress(&rt.transport);
    let [iw, ir, cw, cr] = obj.map_or([0; 4], |o| o.counts.snapshot(rt));
    Pcntr {
        pending_put: iw,
        pending_get: ir,
        completed_put: cw,
        completed_get: cr,
        target: rt.cts.target_count(),
    }
}

/// Stores one field of [`all`] at `out` (checked non-null there).
fn one(routine: &'static str, ctx: Option<CtxHandle>, out: *mut u64, field: fn(&Pcntr) -> u64) {
    let v = field(&all(routine, ctx, ("cntr_value", out)));
    // SAFETY: the caller's non-null `uint64_t *` (checked in `all`).
    unsafe { out.write_unaligned(v) }
}

pub(crate) fn issued_write(routine: &'static str, ctx: CtxHandle, cntr_value: *mut u64) {
    one(routine, Some(ctx), cntr_value, |p| p.pending_put)
}

pub(crate) fn issued_read(routine: &'static str, ctx: CtxHandle, cntr_value: *mut u64) {
    one(routine, Some(ctx), cntr_value, |p| p.pending_get)
}

pub(crate) fn completed_write(routine: &'static str, ctx: CtxHandle, cntr_value: *mut u64) {
    one(routine, Some(ctx), cntr_value, |p| p.completed_put)
}

pub(crate) fn completed_read(routine: &'static str, ctx: CtxHandle, cntr_value: *mut u64) {
    one(routine, Some(ctx), cntr_value, |p| p.completed_get)
}

pub(crate) fn completed_target(routine: &'static str, cntr_value: *mut u64) {
    one(routine, None, cntr_value, |p| p.target)
}

pub(crate) fn get_all(routine: &'static str, ctx: CtxHandle, pcntr: *mut Pcntr) {
    let v = all(routine, Some(ctx), ("pcntr", pcntr as *mut u64));
    // SAFETY: the caller's non-null `shmemx_pcntr_t *` (checked in `all`).
    unsafe { pcntr.write_unaligned(v) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pcntr_is_five_words() {
        assert_eq!(std::mem::size_of::<Pcntr>(), 40);
    }
}
