//! Put-with-signal and the signal routines (`shmem_signal_fetch`,
//! `_wait_until`, and the 1.6 `shmem_signal_set`/`_add`).
//!
//! A signal is a symmetric `uint64_t` updated atomically after the data it
//! announces (see `Transport::put_signal`); readers load it with acquire
//! ordering, so the data is visible once the signal is.

use super::constants::{SHMEM_SIGNAL_ADD, SHMEM_SIGNAL_SET};
use super::handle::CtxHandle;
use super::{bounds, check, transfer};
use crate::error::{Error, ErrorKind, fatal};
use crate::heap::SymOffset;
use crate::pcntr::Op;
use crate::runtime::fault::{self, Transfer};
use crate::runtime::{self, Runtime};
use crate::stuck::On;
use crate::transport::{Transport, polled};
use crate::types::{AmoOp, ShmemType, WaitWord};
use core::ffi::c_int;
use std::mem::size_of;

fn signal_word(rt: &Runtime, routine: &'static str, sig_addr: *const u64) -> SymOffset {
    check::word::<u64>(rt, routine, "sig_addr", sig_addr as usize)
}

fn signal_op(routine: &'static str, sig_op: c_int, signal: u64) -> AmoOp<u64> {
    match sig_op as i64 {
        SHMEM_SIGNAL_SET => AmoOp::Set(signal),
        SHMEM_SIGNAL_ADD => AmoOp::Add(signal),
        _ => fatal(&Error::new(
            routine,
            ErrorKind::InvalidArgument {
                name: "sig_op",
                value: sig_op.to_string(),
                why: "not SHMEM_SIGNAL_SET or SHMEM_SIGNAL_ADD",
            },
        )),
    }
}

/// `shmem_TYPE_put_signal`, the sized and `mem` forms.
pub(crate) fn put_signal<T: ShmemType>(
    routine: &'static str,
    ctx: CtxHandle,
    dest: *mut T,
    source: *const T,
    nelems: usize,
    sig_addr: *mut u64,
    signal: u64,
    sig_op: c_int,
    pe: c_int,
) {
    put_signal_as::<T, false>(routine, ctx, dest, source, nelems, sig_addr, signal, sig_op, pe)
}

/// `shmem_TYPE_put_signal_nbi`, the sized and `mem` forms: data and signal
/// are delivered by the next quiet (at once on shared memory).
pub(crate) fn put_signal_nbi<T: ShmemType>(
    routine: &'static str,
    ctx: CtxHandle,
    dest: *mut T,
    source: *const T,
    nelems: usize,
    sig_addr: *mut u64,
    signal: u64,
    sig_op: c_int,
    pe: c_int,
) {
    put_signal_as::<T, true>(routine, ctx, dest, source, nelems, sig_addr, signal, sig_op, pe)
}

/// A put with signal, blocking or (`NBI`) completed by the next quiet. Short
/// transfers (as `rma::put` defines them) go straight to the transport, the
/// others (and a signal without data) take [`put_signal_bulk`].
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn put_signal_as<T: ShmemType, const NBI: bool>(
    routine: &'static str,
    ctx: CtxHandle,
    dest: *mut T,
    source: *const T,
    nelems: usize,
    sig_addr: *mut u64,
    signal: u64,
    sig_op: c_int,
    pe: c_int,
) {
    let rt = runtime::get(routine);
    // Delivered by the next quiet across nodes, the blocking form too.
    let t = check::ctx_target(rt, routine, ctx, pe, Op::WRITE_NBI);
    let op = signal_op(routine, sig_op, signal);
    let sig = check::remote_word::<u64>(rt, routine, "sig_addr", sig_addr as usize, t);
    let src = source as *const u8;
    if !transfer::short::<T>(rt, nelems) {
        let data = (dest as usize, src, nelems, size_of::<T>());
        return put_signal_bulk::<NBI>(rt, routine, t, data, sig, op);
    }
    // Cannot overflow: a short transfer is a few KiB at most.
    let len = nelems * size_of::<T>();
    let off = check::remote(rt, routine, "dest", dest as usize, len, t);
    check::local(routine, "source", source, true);
    // SAFETY: both ranges are inside segments and the signal is aligned
    // (checked); the source is the caller's buffer of nelems elements.
    unsafe { put_signal_bytes::<NBI>(rt, t.pe, off, src, len, sig, op) }
}

/// [`put_signal_as`] of no data, or of more than a short transfer: `data`
/// is the destination, the source, and `nelems` elements of a size. The
/// copy runs with its record for the fault handler (`runtime::fault`).
#[inline(never)]
fn put_signal_bulk<const NBI: bool>(
    rt: &Runtime,
    routine: &'static str,
    t: check::Target,
    data: (usize, *const u8, usize, usize),
    sig: SymOffset,
    op: AmoOp<u64>,
) {
    let (dest, src, nelems, size) = data;
    let len = check::bytes(routine, "nelems", nelems, size);
    if len == 0 {
        // SAFETY: the signal is an aligned word inside a segment (checked);
        // no data is read.
        return unsafe { put_signal_bytes::<NBI>(rt, t.pe, sig, src, 0, sig, op) };
    }
    if rt.config.check_bounds {
        bounds::within(rt, routine, "dest", dest, len, ("nelems", nelems));
        bounds::within(rt, routine, "source", src as usize, len, ("nelems", nelems));
    }
    let off = check::remote(rt, routine, "dest", dest, len, t);
    check::local(routine, "source", src, true);
    let record = Transfer {
        routine,
        count: ("nelems", nelems),
        local: (src as usize, len),
        remote: (off, len),
        pe: t.pe,
        put: true,
    };
    // SAFETY: as in put_signal_as.
    fault::during(&record, || unsafe {
        put_signal_bytes::<NBI>(rt, t.pe, off, src, len, sig, op)
    })
}

/// The transport's put of `len` bytes from `src` to `off` on `pe`, then the
/// update `op` of the signal at `sig` there.
///
/// # Safety
/// `off` and `len` within a segment, `sig` an aligned word of one, `src`
/// readable for `len` bytes.
#[inline(always)]
unsafe fn put_signal_bytes<const NBI: bool>(
    rt: &Runtime,
    pe: usize,
    off: SymOffset,
    src: *const u8,
    len: usize,
    sig: SymOffset,
    op: AmoOp<u64>,
) {
    // SAFETY: the caller's contract.
    unsafe {
        if NBI {
            rt.transport.put_signal_nbi(pe, off, src, len, sig, op)
        } else {
            rt.transport.put_signal_post(pe, off, src, len, sig, op);
        }
    }
}

/// Atomically reads the calling PE's signal word.
pub(crate) fn fetch(routine: &'static str, sig_addr: *const u64) -> u64 {
    let rt = runtime::get(routine);
    let off = signal_word(rt, routine, sig_addr);
    // SAFETY: an aligned u64 inside a segment (checked).
    unsafe { rt.transport.atomic(rt.me, off, AmoOp::Fetch) }
}

/// Waits until the calling PE's signal word satisfies `cmp` and returns the
/// value that did.
pub(crate) fn wait_until(routine: &'static str, sig_addr: *mut u64, cmp: c_int, cmp_value: u64) -> u64 {
    let rt = runtime::get(routine);
    signal_word(rt, routine, sig_addr);
    let cmp = check::cmp(routine, cmp);
    let mut seen = 0;
    let on = || On::Memory {
        addr: sig_addr as usize,
        word: 8,
        count: 1,
        cmp: Some(cmp as u32),
        value: cmp_value,
    };
    rt.waiter().wait_at(
        || rt.post_on(crate::stuck::Kind::Wait, routine, &on),
        polled(&rt.transport, || {
            // SAFETY: an aligned u64 in symmetric memory (checked).
            seen = unsafe { u64::load_acquire(sig_addr) };
            cmp.holds(seen, cmp_value)
        }),
        || format!("{routine}({sig_addr:p}, {cmp:?}, {cmp_value})"),
    );
    seen
}

fn update(routine: &'static str, ctx: CtxHandle, sig_addr: *mut u64, op: AmoOp<u64>, pe: c_int) {
    let rt = runtime::get(routine);
    let t = check::ctx_target(rt, routine, ctx, pe, Op::WRITE);
    let off = check::remote_word::<u64>(rt, routine, "sig_addr", sig_addr as usize, t);
    // SAFETY: an aligned u64 inside a segment (checked).
    unsafe { rt.transport.atomic(t.pe, off, op) };
}

pub(crate) fn set(routine: &'static str, sig_addr: *mut u64, signal: u64, pe: c_int) {
    update(routine, CtxHandle::DEFAULT, sig_addr, AmoOp::Set(signal), pe)
}

pub(crate) fn ctx_set(routine: &'static str, ctx: CtxHandle, sig_addr: *mut u64, signal: u64, pe: c_int) {
    update(routine, ctx, sig_addr, AmoOp::Set(signal), pe)
}

pub(crate) fn add(routine: &'static str, sig_addr: *mut u64, signal: u64, pe: c_int) {
    update(routine, CtxHandle::DEFAULT, sig_addr, AmoOp::Add(signal), pe)
}

pub(crate) fn ctx_add(routine: &'static str, ctx: CtxHandle, sig_addr: *mut u64, signal: u64, pe: c_int) {
    update(routine, ctx, sig_addr, AmoOp::Add(signal), pe)
}

/// Open MPI OSHMEM's `shmemx_alltoall_global_nb(dest, source, size,
/// counter)`: this PE sends block `k` of `source` (`size` bytes at
/// `source + k * size`) to block `me` of `dest` on every PE `k` of the job,
/// itself included, and each block, once delivered, adds 1 to `counter` on
/// its target: a put-with-signal (`SHMEM_SIGNAL_ADD`) per PE, posted without
/// waiting (the next quiet completes them; on one node they are done when
/// the call returns). Not a barrier: as in OSHMEM, a PE knows its `dest` is
/// complete when its own `counter` has grown by the job's size, and the
/// program keeps `dest` free (and `source` unchanged) until then. The PEs
/// are visited from `me + 1` on, so that they do not all start on the same
/// target.
pub(crate) fn alltoall_global_nb(
    routine: &'static str,
    dest: *mut core::ffi::c_void,
    source: *const core::ffi::c_void,
    size: usize,
    counter: *mut core::ffi::c_long,
) {
    let rt = runtime::get(routine);
    let (me, n) = (rt.me, rt.npes);
    let total = check::bytes(routine, "size", size, n);
    check::local(routine, "source", source, total > 0);
    let mine = check::bytes(routine, "size", size, me);
    let at = (dest as usize)
        .checked_add(mine)
        .unwrap_or_else(|| check::too_large(routine, "size", size));
    for k in 1..=n {
        let pe = (me + k) % n;
        let t = check::Target { pe, space: 0 };
        let sig = check::remote_word::<u64>(rt, routine, "counter", counter as usize, t);
        let off = match size {
            0 => sig,
            _ => check::remote(rt, routine, "dest", at, size, t),
        };
        // Cannot overflow: `pe * size` <= `total`.
        let src = (source as *const u8).wrapping_add(pe * size);
        let record = Transfer {
            routine,
            count: ("size", size),
            local: (src as usize, size),
            remote: (off, size),
            pe,
            put: true,
        };
        // SAFETY: the block and the counter are inside this PE's symmetric
        // memory (checked), which every PE has at the same offsets; the
        // source block is inside the caller's `n * size` bytes.
        fault::during(&record, || unsafe {
            put_signal_bytes::<true>(rt, pe, off, src, size, sig, AmoOp::Add(1))
        })
    }
}
