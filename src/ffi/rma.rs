//! Remote memory access shims: put, get, p, g, iput, iget, ibput, ibget, and
//! the `_nbi` forms of put and get, which go to the transport's `put_nbi` and
//! `get_nbi` (complete by the next quiet; the shared-memory transport
//! completes them at once).

use super::handle::CtxHandle;
use super::{bounds, check, transfer};
use crate::heap::SymOffset;
use crate::pcntr::Op;
use crate::runtime::fault::{self, Transfer};
use crate::runtime::{self, Runtime};
use crate::transport::Transport;
use crate::types::ShmemType;
use core::ffi::c_int;
use std::mem::size_of;

/// `shmem_TYPE_put` and its sized, `mem` and context forms.
#[inline]
pub(crate) fn put<T: ShmemType>(
    routine: &'static str,
    ctx: CtxHandle,
    dest: *mut T,
    source: *const T,
    nelems: usize,
    pe: c_int,
) {
    put_as::<T, false>(routine, ctx, dest, source, nelems, pe)
}

/// `shmem_TYPE_put_nbi` and its sized, `mem` and context forms.
#[inline]
pub(crate) fn put_nbi<T: ShmemType>(
    routine: &'static str,
    ctx: CtxHandle,
    dest: *mut T,
    source: *const T,
    nelems: usize,
    pe: c_int,
) {
    put_as::<T, true>(routine, ctx, dest, source, nelems, pe)
}

/// A put, blocking or (`NBI`) completed by the next quiet; one body so that
/// both check their arguments the same way. Short transfers (the hot path)
/// go straight to the transport; the others, and a transfer of nothing, take
/// [`put_bulk`].
#[inline(always)]
fn put_as<T: ShmemType, const NBI: bool>(
    routine: &'static str,
    ctx: CtxHandle,
    dest: *mut T,
    source: *const T,
    nelems: usize,
    pe: c_int,
) {
    let rt = runtime::get(routine);
    if !transfer::short::<T>(rt, nelems) {
        return put_bulk::<T, NBI>(routine, ctx, dest, source, nelems, pe);
    }
    let t = check::ctx_target(rt, routine, ctx, pe, if NBI { Op::WRITE_NBI } else { Op::WRITE });
    // Cannot overflow: a short transfer is a few KiB at most.
    let len = nelems * size_of::<T>();
    let off = check::remote(rt, routine, "dest", dest as usize, len, t);
    check::local(routine, "source", source, true);
    // SAFETY: the destination range is inside a segment (checked); the source is
    // the caller's local buffer of nelems elements (not NULL, checked), as the
    // API requires.
    unsafe { put_bytes::<NBI>(rt, t.pe, off, source as *const u8, len) }
}

/// [`put_as`] of nothing, or of more than a short transfer: the same
/// arguments, so that the short path jumps here without moving them. The
/// copy runs with its record for the fault handler (`runtime::fault`).
#[inline(never)]
fn put_bulk<T, const NBI: bool>(
    routine: &'static str,
    ctx: CtxHandle,
    dest: *mut T,
    source: *const T,
    nelems: usize,
    pe: c_int,
) {
    let rt = runtime::get(routine);
    let t = check::ctx_target(rt, routine, ctx, pe, if NBI { Op::WRITE_NBI } else { Op::WRITE });
    let len = check::bytes(routine, "nelems", nelems, size_of::<T>());
    if len == 0 {
        return;
    }
    let (dest, source) = (dest as usize, source as *const u8);
    if rt.config.check_bounds {
        bounds::within(rt, routine, "dest", dest, len, ("nelems", nelems));
        bounds::within(rt, routine, "source", source as usize, len, ("nelems", nelems));
    }
    let off = check::remote(rt, routine, "dest", dest, len, t);
    check::local(routine, "source", source, true);
    let record = Transfer {
        routine,
        count: ("nelems", nelems),
        local: (source as usize, len),
        remote: (off, len),
        pe: t.pe,
        put: true,
    };
    // SAFETY: as in put_as.
    fault::during(&record, || unsafe { put_bytes::<NBI>(rt, t.pe, off, source, len) })
}

/// The transport's put of `len` bytes from `source` to `off` on `pe`.
///
/// # Safety
/// `off` and `len` within a segment; `source` readable for `len` bytes (for
/// the nbi form, reusable on return: the transport copies or sends it before
/// returning).
#[inline(always)]
unsafe fn put_bytes<const NBI: bool>(rt: &Runtime, pe: usize, off: SymOffset, source: *const u8, len: usize) {
    // SAFETY: the caller's contract.
    unsafe {
        if NBI {
            rt.transport.put_nbi(pe, off, source, len)
        } else {
            rt.transport.put(pe, off, source, len)
        }
    }
}

/// `shmem_TYPE_get` and its sized, `mem` and context forms.
#[inline]
pub(crate) fn get<T: ShmemType>(
    routine: &'static str,
    ctx: CtxHandle,
    dest: *mut T,
    source: *const T,
    nelems: usize,
    pe: c_int,
) {
    get_as::<T, false>(routine, ctx, dest, source, nelems, pe)
}

/// `shmem_TYPE_get_nbi` and its sized, `mem` and context forms: `dest` holds
/// the data only after the next quiet (the program may not read it before).
#[inline]
pub(crate) fn get_nbi<T: ShmemType>(
    routine: &'static str,
    ctx: CtxHandle,
    dest: *mut T,
    source: *const T,
    nelems: usize,
    pe: c_int,
) {
    get_as::<T, true>(routine, ctx, dest, source, nelems, pe)
}

/// A get, blocking or (`NBI`) completed by the next quiet; short transfers
/// as in [`put_as`], the others through [`get_bulk`].
#[inline(always)]
fn get_as<T: ShmemType, const NBI: bool>(
    routine: &'static str,
    ctx: CtxHandle,
    dest: *mut T,
    source: *const T,
    nelems: usize,
    pe: c_int,
) {
    let rt = runtime::get(routine);
    if !transfer::short::<T>(rt, nelems) {
        return get_bulk::<T, NBI>(routine, ctx, dest, source, nelems, pe);
    }
    let t = check::ctx_target(rt, routine, ctx, pe, if NBI { Op::READ_NBI } else { Op::READ });
    // Cannot overflow: a short transfer is a few KiB at most.
    let len = nelems * size_of::<T>();
    let off = check::remote(rt, routine, "source", source as usize, len, t);
    check::local(routine, "dest", dest, true);
    // SAFETY: the source range is inside a segment (checked); the destination is
    // the caller's local buffer of nelems elements (not NULL, checked).
    unsafe { get_bytes::<NBI>(rt, t.pe, off, dest as *mut u8, len) }
}

/// [`get_as`] of nothing, or of more than a short transfer, as [`put_bulk`].
#[inline(never)]
fn get_bulk<T, const NBI: bool>(
    routine: &'static str,
    ctx: CtxHandle,
    dest: *mut T,
    source: *const T,
    nelems: usize,
    pe: c_int,
) {
    let rt = runtime::get(routine);
    let t = check::ctx_target(rt, routine, ctx, pe, if NBI { Op::READ_NBI } else { Op::READ });
    let len = check::bytes(routine, "nelems", nelems, size_of::<T>());
    if len == 0 {
        return;
    }
    let (dest, source) = (dest as *mut u8, source as usize);
    if rt.config.check_bounds {
        bounds::within(rt, routine, "source", source, len, ("nelems", nelems));
        bounds::within(rt, routine, "dest", dest as usize, len, ("nelems", nelems));
    }
    let off = check::remote(rt, routine, "source", source, len, t);
    check::local(routine, "dest", dest, true);
    let record = Transfer {
        routine,
        count: ("nelems", nelems),
        local: (dest as usize, len),
        remote: (off, len),
        pe: t.pe,
        put: false,
    };
    // SAFETY: as in get_as.
    fault::during(&record, || unsafe { get_bytes::<NBI>(rt, t.pe, off, dest, len) })
}

/// The transport's get of `len` bytes from `off` on `pe` into `dest`.
///
/// # Safety
/// `off` and `len` within a segment; `dest` writable for `len` bytes (for
/// the nbi form, until the next quiet).
#[inline(always)]
unsafe fn get_bytes<const NBI: bool>(rt: &Runtime, pe: usize, off: SymOffset, dest: *mut u8, len: usize) {
    // SAFETY: the caller's contract.
    unsafe {
        if NBI {
            rt.transport.get_nbi(pe, off, dest, len)
        } else {
            rt.transport.get(pe, off, dest, len)
        }
    }
}

pub(crate) fn p<T: ShmemType>(routine: &'static str, ctx: CtxHandle, dest: *mut T, value: T, pe: c_int) {
    let rt = runtime::get(routine);
    let t = check::ctx_target(rt, routine, ctx, pe, Op::WRITE);
    let off = check::remote_word::<T>(rt, routine, "dest", dest as usize, t);
    // SAFETY: an aligned T inside a segment (checked).
    unsafe { rt.transport.put_value(t.pe, off, value) }
}

pub(crate) fn g<T: ShmemType>(routine: &'static str, ctx: CtxHandle, source: *const T, pe: c_int) -> T {
    let rt = runtime::get(routine);
    let t = check::ctx_target(rt, routine, ctx, pe, Op::READ);
    let off = check::remote_word::<T>(rt, routine, "source", source as usize, t);
    // SAFETY: an aligned T inside a segment (checked).
    unsafe { rt.transport.get_value(t.pe, off) }
}

/// A checked strided range of the target: the offset of its first element
/// and the span of all of them (offset of the lowest byte, length).
struct Strided {
    first: SymOffset,
    span: (SymOffset, usize),
}

/// `nelems` elements of `T` from `base`, `stride` elements apart, all of
/// which must be symmetric.
fn strided<T>(
    rt: &Runtime,
    routine: &'static str,
    name: &'static str,
    base: usize,
    stride: isize,
    nelems: usize,
    t: check::Target,
) -> Strided {
    let (lo, len) = strided_span::<T>(routine, "nelems", base, stride, nelems);
    if rt.config.check_bounds {
        bounds::within(rt, routine, name, lo, len, ("nelems", nelems));
    }
    let span = (check::remote(rt, routine, name, lo, len, t), len);
    let first = check::remote(rt, routine, name, base, size_of::<T>(), t);
    Strided { first, span }
}

/// The byte range covered by `nelems` elements of `T` from `base`, `stride`
/// elements apart, as (lowest address, length).
fn strided_span<T>(
    routine: &'static str,
    count: &'static str,
    base: usize,
    stride: isize,
    nelems: usize,
) -> (usize, usize) {
    span(base, stride, nelems, size_of::<T>(), size_of::<T>())
        .unwrap_or_else(|| check::too_large(routine, count, nelems))
}

/// The bytes covered by `n` runs of `run` bytes whose starts are `stride`
/// elements of `size` bytes apart from `base`, as (lowest address, length);
/// None if that overflows.
fn span(base: usize, stride: isize, n: usize, size: usize, run: usize) -> Option<(usize, usize)> {
    let last = (n as isize - 1).checked_mul(stride)?.checked_mul(size as isize)?;
    let lo = if last < 0 {
        base.wrapping_sub(last.unsigned_abs())
    } else {
        base
    };
    Some((lo, last.unsigned_abs().checked_add(run)?))
}

/// The caller's side of a strided transfer, for the fault record and the
/// bounds check: (lowest address, length), empty if its span overflows (a
/// fault there is then not claimed).
fn local_span(base: usize, stride: isize, n: usize, size: usize, run: usize) -> (usize, usize) {
    span(base, stride, n, size, run).unwrap_or((0, 0))
}

pub(crate) fn iput<T: ShmemType>(
    routine: &'static str,
    ctx: CtxHandle,
    dest: *mut T,
    source: *const T,
    dst: isize,
    sst: isize,
    nelems: usize,
    pe: c_int,
) {
    let rt = runtime::get(routine);
    let t = check::ctx_target(rt, routine, ctx, pe, Op::WRITE.times(nelems));
    if nelems == 0 {
        return;
    }
    let at = strided::<T>(rt, routine, "dest", dest as usize, dst, nelems, t);
    check::local(routine, "source", source, true);
    let size = size_of::<T>();
    let local = local_span(source as usize, sst, nelems, size, size);
    if rt.config.check_bounds {
        bounds::within(rt, routine, "source", local.0, local.1, ("nelems", nelems));
    }
    let record = Transfer {
        routine,
        count: ("nelems", nelems),
        local,
        remote: at.span,
        pe: t.pe,
        put: true,
    };
    // SAFETY: every destination element is inside a segment (checked);
    // the source elements are the caller's local buffer.
    fault::during(&record, || unsafe {
        rt.transport.put_strided(t.pe, at.first, dst, source, sst, nelems)
    })
}

pub(crate) fn iget<T: ShmemType>(
    routine: &'static str,
    ctx: CtxHandle,
    dest: *mut T,
    source: *const T,
    dst: isize,
    sst: isize,
    nelems: usize,
    pe: c_int,
) {
    let rt = runtime::get(routine);
    let t = check::ctx_target(rt, routine, ctx, pe, Op::READ.times(nelems));
    if nelems == 0 {
        return;
    }
    let at = strided::<T>(rt, routine, "source", source as usize, sst, nelems, t);
    check::local(routine, "dest", dest, true);
    let size = size_of::<T>();
    let local = local_span(dest as usize, dst, nelems, size, size);
    if rt.config.check_bounds {
        bounds::within(rt, routine, "dest", local.0, local.1, ("nelems", nelems));
    }
    let record = Transfer {
        routine,
        count: ("nelems", nelems),
        local,
        remote: at.span,
        pe: t.pe,
        put: false,
    };
    // SAFETY: every source element is inside a segment (checked); the
    // destination elements are the caller's local buffer.
    fault::during(&record, || unsafe {
        rt.transport.get_strided(t.pe, at.first, sst, dest, dst, nelems)
    })
}

/// Checks a block-strided range: `nblocks` blocks of `bsize` elements of `T`,
/// block starts `stride` elements apart.
fn block_strided<T>(
    rt: &Runtime,
    routine: &'static str,
    name: &'static str,
    base: usize,
    stride: isize,
    bsize: usize,
    nblocks: usize,
    t: check::Target,
) -> Strided {
    strided_span::<T>(routine, "nblocks", base, stride, nblocks);
    let block = check::bytes(routine, "bsize", bsize, size_of::<T>());
    let (lo, len) =
        span(base, stride, nblocks, size_of::<T>(), block).unwrap_or_else(|| check::too_large(routine, "bsize", bsize));
    if rt.config.check_bounds {
        bounds::within(rt, routine, name, lo, len, ("nblocks", nblocks));
    }
    let span = (check::remote(rt, routine, name, lo, len, t), len);
    let first = check::remote(rt, routine, name, base, block, t);
    Strided { first, span }
}

/// `shmem_TYPE_ibput` (OpenSHMEM 1.6): block `i` of `source` (blocks `sst`
/// elements apart) to block `i` of `dest` on `pe` (`dst` elements apart).
pub(crate) fn ibput<T: ShmemType>(
    routine: &'static str,
    ctx: CtxHandle,
    dest: *mut T,
    source: *const T,
    dst: isize,
    sst: isize,
    bsize: usize,
    nblocks: usize,
    pe: c_int,
) {
    let rt = runtime::get(routine);
    let t = check::ctx_target(rt, routine, ctx, pe, Op::WRITE.times(nblocks));
    if nblocks == 0 || bsize == 0 {
        return;
    }
    let at = block_strided::<T>(rt, routine, "dest", dest as usize, dst, bsize, nblocks, t);
    check::local(routine, "source", source, true);
    let (size, block) = (size_of::<T>(), bsize * size_of::<T>());
    let local = local_span(source as usize, sst, nblocks, size, block);
    if rt.config.check_bounds {
        bounds::within(rt, routine, "source", local.0, local.1, ("nblocks", nblocks));
    }
    let record = Transfer {
        routine,
        count: ("nblocks", nblocks),
        local,
        remote: at.span,
        pe: t.pe,
        put: true,
    };
    fault::during(&record, || {
        for i in 0..nblocks as isize {
            let to = SymOffset((at.first.0 as isize + i * dst * size as isize) as usize);
            // SAFETY: every destination block is inside a segment (checked);
            // the source blocks are the caller's local buffer.
            unsafe { rt.transport.put(t.pe, to, source.offset(i * sst) as *const u8, block) }
        }
    })
}

/// `shmem_TYPE_ibget` (OpenSHMEM 1.6), the mirror of `ibput`.
pub(crate) fn ibget<T: ShmemType>(
    routine: &'static str,
    ctx: CtxHandle,
    dest: *mut T,
    source: *const T,
    dst: isize,
    sst: isize,
    bsize: usize,
    nblocks: usize,
    pe: c_int,
) {
    let rt = runtime::get(routine);
    let t = check::ctx_target(rt, routine, ctx, pe, Op::READ.times(nblocks));
    if nblocks == 0 || bsize == 0 {
        return;
    }
    let at = block_strided::<T>(rt, routine, "source", source as usize, sst, bsize, nblocks, t);
    check::local(routine, "dest", dest, true);
    let (size, block) = (size_of::<T>(), bsize * size_of::<T>());
    let local = local_span(dest as usize, dst, nblocks, size, block);
    if rt.config.check_bounds {
        bounds::within(rt, routine, "dest", local.0, local.1, ("nblocks", nblocks));
    }
    let record = Transfer {
        routine,
        count: ("nblocks", nblocks),
        local,
        remote: at.span,
        pe: t.pe,
        put: false,
    };
    fault::during(&record, || {
        for i in 0..nblocks as isize {
            let from = SymOffset((at.first.0 as isize + i * sst * size as isize) as usize);
            // SAFETY: every source block is inside a segment (checked); the
            // destination blocks are the caller's local buffer.
            unsafe { rt.transport.get(t.pe, from, dest.offset(i * dst) as *mut u8, block) }
        }
    })
}
#[cfg(test)]
mod tests {
    use super::super::table::FAMILIES;

    /// Every `_nbi` family calls a shim of its own, which goes to the
    /// transport's nbi operation: a network transport completes those only
    /// at quiet, so sharing the blocking shim would wait for nothing less.
    #[test]
    fn nbi_families_call_nbi_shims() {
        let nbi: Vec<_> = FAMILIES.iter().filter(|f| f.typed.ends_with("_nbi")).collect();
        assert!(nbi.len() >= 4, "the table lists the _nbi families");
        for f in nbi {
            assert!(
                f.shim.ends_with("_nbi"),
                "{} calls the shim {}, not an _nbi one",
                f.typed,
                f.shim
            );
        }
    }
}
