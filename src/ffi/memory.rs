//! Symmetric heap management (and the deprecated names).
//!
//! Every routine here is collective over all PEs, and all PEs get the same
//! result: the allocator is deterministic (see `heap::alloc`), provided
//! every PE passes the same arguments, which `SHMEM_CHECK_COLLECTIVES`
//! checks (`check::agree_world`) and, on one node, the routine's barrier
//! compares always (`coll::agree::barrier_all_agreeing`).

use super::check;
use crate::coll;
use crate::coll::check::{NOT_IN_HEAP, Record, What};
use crate::config::human_bytes;
use crate::error::{self, Error, ErrorKind, fatal};
use crate::heap::alloc::{Exhausted, MIN_ALIGN};
use crate::heap::heap_align;
use crate::runtime::{self, Runtime};
use core::ffi::{c_long, c_void};

fn explain(routine: &str, e: &Exhausted) {
    error::debug(
        routine,
        format_args!(
            "{}: {} of the {} heap is free, the largest free block is {} (raise SHMEM_SYMMETRIC_SIZE)",
            e.request(),
            human_bytes(e.free_total as u128),
            human_bytes(e.capacity as u128),
            human_bytes(e.largest_free as u128)
        ),
    );
}

/// The arguments a routine's barrier compares across the PEs: its kind and
/// up to two of its arguments, as `check`'s records name them.
type Args = (What, [u64; 2]);

/// The barrier of an allocation routine, comparing its arguments `args`.
fn barrier(rt: &Runtime, routine: &'static str, (what, args): Args) {
    coll::agree::barrier_all_agreeing(rt, routine, what, args);
}

/// Allocates on every PE, then waits for all of them, comparing `args`
/// (the caller's arguments) on the way. Returns NULL (on every PE) when the
/// heap cannot satisfy the request.
fn allocate(rt: &Runtime, routine: &'static str, (size, align, zero): (usize, usize, bool), args: Args) -> *mut c_void {
    let off = rt.heap.lock().unwrap_or_else(|e| e.into_inner()).alloc(size, align);
    let ptr = match off {
        Ok(off) => {
            let p = (rt.segs.heap_base() + off) as *mut u8;
            if zero {
                // SAFETY: the block [off, off+size) was just allocated in our heap.
                unsafe { std::ptr::write_bytes(p, 0, size) };
            }
            p as *mut c_void
        }
        Err(e) => {
            explain(routine, &e);
            std::ptr::null_mut()
        }
    };
    barrier(rt, routine, args);
    ptr
}

pub fn malloc(routine: &'static str, size: usize) -> *mut c_void {
    let rt = runtime::get(routine);
    check::agree_world(rt, routine, || {
        Record::new(routine, What::Malloc, "", 0, &[size as u64])
    });
    allocate_bytes(rt, routine, size)
}

/// `shmem_malloc` once the arguments are checked: NULL for 0 bytes. (The
/// hints of `shmem_malloc_with_hints` change nothing here, so its barrier
/// compares the size only, as `shmem_malloc`'s.)
fn allocate_bytes(rt: &Runtime, routine: &'static str, size: usize) -> *mut c_void {
    if size == 0 {
        return std::ptr::null_mut();
    }
    allocate(rt, routine, (size, MIN_ALIGN, false), (What::Malloc, [size as u64, 0]))
}

pub fn align(routine: &'static str, alignment: usize, size: usize) -> *mut c_void {
    let rt = runtime::get(routine);
    check::agree_world(rt, routine, || {
        Record::new(routine, What::Align, "", 0, &[alignment as u64, size as u64])
    });
    if size == 0 {
        return std::ptr::null_mut();
    }
    if !alignment.is_power_of_two() {
        error::debug(routine, format_args!("alignment {alignment} is not a power of two"));
        return std::ptr::null_mut();
    }
    let largest = heap_align(rt.segs.heap_len);
    if alignment > largest {
        // Heaps start `largest`-aligned; one offset cannot be more aligned on
        // every PE, and a larger alignment leaves no room in the heap anyway.
        error::debug(
            routine,
            format_args!("alignment {alignment} exceeds the largest supported, {largest} bytes"),
        );
        return std::ptr::null_mut();
    }
    let args = (What::Align, [alignment as u64, size as u64]);
    allocate(rt, routine, (size, alignment, false), args)
}

/// The heap offset of a pointer the caller claims came from the allocator.
fn owned_block(rt: &Runtime, routine: &'static str, ptr: *mut c_void) -> usize {
    let off = rt.segs.heap_offset(ptr as usize);
    match off {
        Some(off)
            if rt
                .heap
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .block_len(off)
                .is_some() =>
        {
            off
        }
        _ => fatal(&Error::new(
            routine,
            ErrorKind::NotHeapAllocation {
                name: "ptr",
                addr: ptr as usize,
            },
        )),
    }
}

/// Whether `ptr` is the start of a heap block that has been freed (and whose
/// memory no block has taken since).
fn already_freed(rt: &Runtime, ptr: *mut c_void) -> bool {
    rt.segs
        .heap_offset(ptr as usize)
        .is_some_and(|off| rt.heap.lock().unwrap_or_else(|e| e.into_inner()).was_freed(off))
}

/// A pointer argument as the argument check compares it: the offset of
/// the heap block it points into, or [`NOT_IN_HEAP`].
fn heap_block(rt: &Runtime, ptr: *mut c_void) -> u64 {
    rt.segs.heap_offset(ptr as usize).map_or(NOT_IN_HEAP, |o| o as u64)
}

pub fn free(routine: &'static str, ptr: *mut c_void) {
    let rt = runtime::get(routine);
    if ptr.is_null() {
        return;
    }
    release(rt, routine, ptr, (What::Free, [heap_block(rt, ptr), 0]));
}

/// `shmem_free` of a non-null `ptr`, whose barrier compares `args`.
fn release(rt: &Runtime, routine: &'static str, ptr: *mut c_void, args: Args) {
    // Memory of a space goes back to its space, synchronising its team.
    if rt.segs.heap_offset(ptr as usize).is_none()
        && let Some((_, m)) = rt.spaces.resolve(rt, ptr as usize, 1)
        && m.space != 0
    {
        return super::space::free_in(rt, routine, m.space, ptr);
    }
    check::agree_world(rt, routine, || {
        Record::new(routine, What::Free, "", 0, &[heap_block(rt, ptr)])
    });
    let off = owned_block(rt, routine, ptr);
    // Nobody may still be using the block on any PE.
    barrier(rt, routine, args);
    rt.heap.lock().unwrap_or_else(|e| e.into_inner()).free(off);
}

pub fn realloc(routine: &'static str, ptr: *mut c_void, size: usize) -> *mut c_void {
    let rt = runtime::get(routine);
    check::agree_world(rt, routine, || {
        Record::new(routine, What::Realloc, "", 0, &[heap_block(rt, ptr), size as u64])
    });
    // Every path below takes one barrier before the heap changes, comparing
    // these, so that PEs with other arguments never change theirs.
    let args = (What::Realloc, [heap_block(rt, ptr), size as u64]);
    if ptr.is_null() {
        return if size == 0 {
            std::ptr::null_mut()
        } else {
            allocate(rt, routine, (size, MIN_ALIGN, false), args)
        };
    }
    if rt.segs.heap_offset(ptr as usize).is_none()
        && let Some((_, m)) = rt.spaces.resolve(rt, ptr as usize, 1)
        && m.space != 0
    {
        fatal(&Error::new(
            routine,
            ErrorKind::Usage(format!(
                "{} = {ptr:p} is in space {:#x}: shmem_realloc works on the symmetric heap only \
                 (allocate anew with shmemx_space_malloc and free with shmemx_space_free)",
                check::label(routine, "ptr"),
                m.space
            )),
        ))
    }
    if already_freed(rt, ptr) {
        // Open MPI returns NULL here and widely used tests rely on it. The
        // allocator is the same on every PE, so a symmetric call takes this
        // path on all of them and the heaps stay identical.
        error::warn(
            routine,
            format_args!(
                "{} = {ptr:p} was already freed; returning NULL",
                check::label(routine, "ptr")
            ),
        );
        barrier(rt, routine, args);
        return std::ptr::null_mut();
    }
    if size == 0 {
        release(rt, routine, ptr, args);
        return std::ptr::null_mut();
    }
    let off = owned_block(rt, routine, ptr);
    barrier(rt, routine, args);
    let moved = {
        let mut heap = rt.heap.lock().unwrap_or_else(|e| e.into_inner());
        if heap.resize_in_place(off, size) {
            Ok(off)
        } else {
            let old_len = heap.block_len(off).unwrap_or(0);
            heap.alloc(size, MIN_ALIGN).inspect(|&new| {
                let base = rt.segs.heap_base();
                // SAFETY: both blocks are allocated in our heap and distinct.
                unsafe {
                    std::ptr::copy_nonoverlapping((base + off) as *const u8, (base + new) as *mut u8, old_len.min(size))
                };
                heap.free(off);
            })
        }
    };
    let result = match moved {
        Ok(new) => (rt.segs.heap_base() + new) as *mut c_void,
        Err(e) => {
            explain(routine, &e);
            std::ptr::null_mut()
        }
    };
    coll::barrier_all(rt, routine);
    result
}

/// Hints describe intended use; every hint is served by the same memory here.
pub fn malloc_with_hints(routine: &'static str, size: usize, hints: c_long) -> *mut c_void {
    let rt = runtime::get(routine);
    check::agree_world(rt, routine, || {
        Record::new(routine, What::MallocWithHints, "", 0, &[size as u64, hints as u64])
    });
    allocate_bytes(rt, routine, size)
}

pub fn calloc(routine: &'static str, count: usize, size: usize) -> *mut c_void {
    let rt = runtime::get(routine);
    check::agree_world(rt, routine, || {
        Record::new(routine, What::Calloc, "", 0, &[count as u64, size as u64])
    });
    match count.checked_mul(size) {
        Some(0) => std::ptr::null_mut(),
        Some(total) => allocate(
            rt,
            routine,
            (total, MIN_ALIGN, true),
            (What::Calloc, [count as u64, size as u64]),
        ),
        None => {
            error::debug(routine, format_args!("{count} x {size} bytes overflows"));
            std::ptr::null_mut()
        }
    }
}
