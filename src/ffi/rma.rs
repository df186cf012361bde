//! Remote memory access shims: put, get, p, g, iput, iget, ibput, ibget, and
//! the `_nbi` forms of put and get, which go to the transport's `put_nbi` and
//! `get_nbi` (complete by the next quiet; the shared-memory transport
//! completes them at once).

use super::check;
use super::handle::CtxHandle;
use crate::heap::SymOffset;
use crate::runtime::{self, Runtime};
use crate::transport::Transport;
use crate::types::ShmemType;
use core::ffi::c_int;
use std::mem::size_of;

/// `shmem_TYPE_put` and its sized, `mem` and context forms.
#[inline]
pub fn put<T: ShmemType>(
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
pub fn put_nbi<T: ShmemType>(
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
/// both check their arguments the same way.
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
    let t = check::ctx_target(rt, routine, ctx, pe);
    let len = check::bytes(routine, "nelems", nelems, size_of::<T>());
    if len == 0 {
        return;
    }
    let off = check::remote(rt, routine, "dest", dest as usize, len, t);
    check::local(routine, "source", source, true);
    // SAFETY: the destination range is inside a segment (checked); the source is
    // the caller's local buffer of nelems elements (not NULL, checked), as the
    // API requires (for the nbi form, reusable on return: the transport copies
    // or sends it before returning).
    unsafe {
        if NBI {
            rt.transport.put_nbi(t.pe, off, source as *const u8, len)
        } else {
            rt.transport.put(t.pe, off, source as *const u8, len)
        }
    }
}

/// `shmem_TYPE_get` and its sized, `mem` and context forms.
#[inline]
pub fn get<T: ShmemType>(
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
pub fn get_nbi<T: ShmemType>(
    routine: &'static str,
    ctx: CtxHandle,
    dest: *mut T,
    source: *const T,
    nelems: usize,
    pe: c_int,
) {
    get_as::<T, true>(routine, ctx, dest, source, nelems, pe)
}

/// A get, blocking or (`NBI`) completed by the next quiet.
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
    let t = check::ctx_target(rt, routine, ctx, pe);
    let len = check::bytes(routine, "nelems", nelems, size_of::<T>());
    if len == 0 {
        return;
    }
    let off = check::remote(rt, routine, "source", source as usize, len, t);
    check::local(routine, "dest", dest, true);
    // SAFETY: the source range is inside a segment (checked); the destination is
    // the caller's local buffer of nelems elements (not NULL, checked), which
    // the API requires to stay valid until the next quiet for the nbi form.
    unsafe {
        if NBI {
            rt.transport.get_nbi(t.pe, off, dest as *mut u8, len)
        } else {
            rt.transport.get(t.pe, off, dest as *mut u8, len)
        }
    }
}

pub fn p<T: ShmemType>(routine: &'static str, ctx: CtxHandle, dest: *mut T, value: T, pe: c_int) {
    let rt = runtime::get(routine);
    let t = check::ctx_target(rt, routine, ctx, pe);
    let off = check::remote_word::<T>(rt, routine, "dest", dest as usize, t);
    // SAFETY: an aligned T inside a segment (checked).
    unsafe { rt.transport.put_value(t.pe, off, value) }
}

pub fn g<T: ShmemType>(routine: &'static str, ctx: CtxHandle, source: *const T, pe: c_int) -> T {
    let rt = runtime::get(routine);
    let t = check::ctx_target(rt, routine, ctx, pe);
    let off = check::remote_word::<T>(rt, routine, "source", source as usize, t);
    // SAFETY: an aligned T inside a segment (checked).
    unsafe { rt.transport.get_value(t.pe, off) }
}

/// Offset of the first of `nelems` elements of `T` from `base`, `stride`
/// elements apart, all of which must be symmetric.
fn strided<T>(
    rt: &Runtime,
    routine: &'static str,
    name: &'static str,
    base: usize,
    stride: isize,
    nelems: usize,
    t: check::Target,
) -> SymOffset {
    let (lo, len) = strided_span::<T>(routine, "nelems", base, stride, nelems);
    check::remote(rt, routine, name, lo, len, t);
    check::remote(rt, routine, name, base, size_of::<T>(), t)
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
    let size = size_of::<T>() as isize;
    let last = (nelems as isize - 1)
        .checked_mul(stride)
        .and_then(|e| e.checked_mul(size))
        .unwrap_or_else(|| check::too_large(routine, count, nelems));
    let lo = if last < 0 {
        base.wrapping_sub(last.unsigned_abs())
    } else {
        base
    };
    (lo, last.unsigned_abs() + size as usize)
}

pub fn iput<T: ShmemType>(
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
    let t = check::ctx_target(rt, routine, ctx, pe);
    if nelems == 0 {
        return;
    }
    let off = strided::<T>(rt, routine, "dest", dest as usize, dst, nelems, t);
    check::local(routine, "source", source, true);
    // SAFETY: every destination element is inside a segment (checked);
    // the source elements are the caller's local buffer.
    unsafe { rt.transport.put_strided(t.pe, off, dst, source, sst, nelems) }
}

pub fn iget<T: ShmemType>(
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
    let t = check::ctx_target(rt, routine, ctx, pe);
    if nelems == 0 {
        return;
    }
    let off = strided::<T>(rt, routine, "source", source as usize, sst, nelems, t);
    check::local(routine, "dest", dest, true);
    // SAFETY: every source element is inside a segment (checked); the
    // destination elements are the caller's local buffer.
    unsafe { rt.transport.get_strided(t.pe, off, sst, dest, dst, nelems) }
}

/// Checks a block-strided range: `nblocks` blocks of `bsize` elements of `T`,
/// block starts `stride` elements apart. Returns the offset of `base`.
fn block_strided<T>(
    rt: &Runtime,
    routine: &'static str,
    name: &'static str,
    base: usize,
    stride: isize,
    bsize: usize,
    nblocks: usize,
    t: check::Target,
) -> SymOffset {
    let (lo, starts_len) = strided_span::<T>(routine, "nblocks", base, stride, nblocks);
    let block = check::bytes(routine, "bsize", bsize, size_of::<T>());
    let len = (starts_len - size_of::<T>())
        .checked_add(block)
        .unwrap_or_else(|| check::too_large(routine, "bsize", bsize));
    check::remote(rt, routine, name, lo, len, t);
    check::remote(rt, routine, name, base, block, t)
}

/// `shmem_TYPE_ibput` (OpenSHMEM 1.6): block `i` of `source` (blocks `sst`
/// elements apart) to block `i` of `dest` on `pe` (`dst` elements apart).
pub fn ibput<T: ShmemType>(
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
    let t = check::ctx_target(rt, routine, ctx, pe);
    if nblocks == 0 || bsize == 0 {
        return;
    }
    let off = block_strided::<T>(rt, routine, "dest", dest as usize, dst, bsize, nblocks, t);
    check::local(routine, "source", source, true);
    let block = bsize * size_of::<T>();
    for i in 0..nblocks as isize {
        let to = SymOffset((off.0 as isize + i * dst * size_of::<T>() as isize) as usize);
        // SAFETY: every destination block is inside a segment (checked); the
        // source blocks are the caller's local buffer.
        unsafe { rt.transport.put(t.pe, to, source.offset(i * sst) as *const u8, block) }
    }
}

/// `shmem_TYPE_ibget` (OpenSHMEM 1.6), the mirror of `ibput`.
pub fn ibget<T: ShmemType>(
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
    let t = check::ctx_target(rt, routine, ctx, pe);
    if nblocks == 0 || bsize == 0 {
        return;
    }
    let off = block_strided::<T>(rt, routine, "source", source as usize, sst, bsize, nblocks, t);
    check::local(routine, "dest", dest, true);
    let block = bsize * size_of::<T>();
    for i in 0..nblocks as isize {
        let from = SymOffset((off.0 as isize + i * sst * size_of::<T>() as isize) as usize);
        // SAFETY: every source block is inside a segment (checked); the
        // destination blocks are the caller's local buffer.
        unsafe { rt.transport.get(t.pe, from, dest.offset(i * dst) as *mut u8, block) }
    }
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
