//! Symmetric heap management (and the deprecated names): the arguments are
//! checked here (`SHMEM_CHECK_COLLECTIVES`: `check::agree_world`) and the
//! work is `crate::memory`'s, whose refusals and misuses are worded here.

use super::check;
use crate::coll::check::{Record, What};
use crate::config::human_bytes;
use crate::error::{self, Error, ErrorKind, fatal};
use crate::memory::{self, Misuse, Refusal};
use crate::runtime::{self, Runtime};
use core::ffi::{c_long, c_void};

/// Says why `routine` gives NULL: under `SHMEM_DEBUG`, or a warning for a
/// block already freed.
fn refused(routine: &'static str) -> impl FnOnce(Refusal) {
    move |r| match r {
        Refusal::Exhausted(e) => error::debug(
            routine,
            format_args!(
                "{}: {} of the {} heap is free, the largest free block is {} (raise SHMEM_SYMMETRIC_SIZE)",
                e.request(),
                human_bytes(e.free_total as u128),
                human_bytes(e.capacity as u128),
                human_bytes(e.largest_free as u128)
            ),
        ),
        Refusal::NotPowerOfTwo { alignment } => {
            error::debug(routine, format_args!("alignment {alignment} is not a power of two"))
        }
        Refusal::AlignmentTooLarge { alignment, largest } => error::debug(
            routine,
            format_args!("alignment {alignment} exceeds the largest supported, {largest} bytes"),
        ),
        Refusal::Overflow { count, size } => error::debug(routine, format_args!("{count} x {size} bytes overflows")),
        Refusal::AlreadyFreed { addr } => error::warn(
            routine,
            format_args!(
                "{} = {:p} was already freed; returning NULL",
                check::label(routine, "ptr"),
                addr as *const c_void
            ),
        ),
    }
}

#[cold]
fn misuse(routine: &'static str, m: Misuse) -> ! {
    let usage = |text: String| fatal(&Error::new(routine, ErrorKind::Usage(text)));
    match m {
        Misuse::NotHeapAllocation { addr } => {
            fatal(&Error::new(routine, ErrorKind::NotHeapAllocation { name: "ptr", addr }))
        }
        Misuse::InSpace { addr, space } => usage(format!(
            "{} = {:p} is in space {space:#x}: shmem_realloc works on the symmetric heap only \
             (allocate anew with shmemx_space_malloc and free with shmemx_space_free)",
            check::label(routine, "ptr"),
            addr as *const c_void
        )),
        Misuse::SpaceGone { err, .. } => usage(format!("{}: {err}", check::label(routine, "space"))),
        Misuse::Space(e) => usage(e.to_string()),
        Misuse::TeamGone { team } => fatal(&Error::new(
            routine,
            ErrorKind::Internal(format!(
                "the space's team {team:#x} is gone while the space is attached"
            )),
        )),
    }
}

pub(crate) fn malloc(routine: &'static str, size: usize) -> *mut c_void {
    let rt = runtime::get(routine);
    check::agree_world(rt, routine, || {
        Record::new(routine, What::Malloc, "", 0, &[size as u64])
    });
    memory::malloc(rt, routine, size, refused(routine)) as *mut c_void
}

pub(crate) fn align(routine: &'static str, alignment: usize, size: usize) -> *mut c_void {
    let rt = runtime::get(routine);
    check::agree_world(rt, routine, || {
        Record::new(routine, What::Align, "", 0, &[alignment as u64, size as u64])
    });
    memory::align(rt, routine, alignment, size, refused(routine)) as *mut c_void
}

/// The argument check of `shmem_free` (also of a `shmem_realloc` to 0 bytes).
fn check_free(rt: &Runtime, routine: &'static str, ptr: *mut c_void) -> impl FnOnce() {
    move || {
        if crate::nbc::live() > 0 {
            let len = memory::block_len_at(rt, ptr as usize).unwrap_or(1);
            crate::nbc::before_free(rt, routine, ptr as usize, len);
        }
        check::agree_world(rt, routine, || {
            Record::new(routine, What::Free, "", 0, &[memory::heap_block(rt, ptr as usize)])
        })
    }
}

pub(crate) fn free(routine: &'static str, ptr: *mut c_void) {
    let rt = runtime::get(routine);
    if ptr.is_null() {
        return;
    }
    let owners = (&rt.spaces, &rt.teams);
    if let Err(m) = memory::free(rt, owners, routine, ptr as usize, check_free(rt, routine, ptr)) {
        misuse(routine, m)
    }
}

pub(crate) fn realloc(routine: &'static str, ptr: *mut c_void, size: usize) -> *mut c_void {
    let rt = runtime::get(routine);
    check::agree_world(rt, routine, || {
        Record::new(
            routine,
            What::Realloc,
            "",
            0,
            &[memory::heap_block(rt, ptr as usize), size as u64],
        )
    });
    let owners = (&rt.spaces, &rt.teams);
    let check = check_free(rt, routine, ptr);
    memory::realloc(rt, owners, routine, (ptr as usize, size), refused(routine), check)
        .unwrap_or_else(|m| misuse(routine, m)) as *mut c_void
}

/// Sandia OpenSHMEM's hint for `shmem_malloc_with_hints` (shmemx.h): no
/// barrier at the routine's exit.
const SHMEMX_MALLOC_NO_BARRIER: c_long = 1 << 2;

/// Hints describe intended use; every hint is served by the same memory here.
/// `SHMEMX_MALLOC_NO_BARRIER` (Sandia OpenSHMEM's) leaves the barrier out:
/// every PE takes the same block all the same (the heaps see the same
/// sequence of calls), and the program synchronises before another PE
/// accesses it.
pub(crate) fn malloc_with_hints(routine: &'static str, size: usize, hints: c_long) -> *mut c_void {
    hinted(routine, size, hints, hints & SHMEMX_MALLOC_NO_BARRIER == 0)
}

/// Open MPI OSHMEM's `shmemx_malloc_with_hint`: its hints (`SHMEM_HINT_*`:
/// kinds of memory, what the block is for; bit 2 is not SOS's no-barrier
/// hint there) are all served by the same memory here, so it is
/// `shmem_malloc` with the hint compared too.
pub(crate) fn malloc_with_hint(routine: &'static str, size: usize, hint: c_long) -> *mut c_void {
    hinted(routine, size, hint, true)
}

/// An allocation with hints, compared under `SHMEM_CHECK_COLLECTIVES`,
/// with its barrier or without.
fn hinted(routine: &'static str, size: usize, hints: c_long, barrier: bool) -> *mut c_void {
    let rt = runtime::get(routine);
    check::agree_world(rt, routine, || {
        Record::new(routine, What::MallocWithHints, "", 0, &[size as u64, hints as u64])
    });
    let addr = match barrier {
        true => memory::malloc(rt, routine, size, refused(routine)),
        false => memory::malloc_unsynchronised(rt, size, refused(routine)),
    };
    addr as *mut c_void
}

pub(crate) fn calloc(routine: &'static str, count: usize, size: usize) -> *mut c_void {
    let rt = runtime::get(routine);
    check::agree_world(rt, routine, || {
        Record::new(routine, What::Calloc, "", 0, &[count as u64, size as u64])
    });
    memory::calloc(rt, routine, count, size, refused(routine)) as *mut c_void
}
