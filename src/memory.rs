//! Symmetric memory: what `shmem_malloc`, `_align`, `_calloc`, `_realloc`,
//! `_free` and `_malloc_with_hints` do once their arguments are checked,
//! and the questions other routines ask about heap blocks (the pSync length
//! of the active-set collectives, the objects of `SHMEM_CHECK_BOUNDS`).
//!
//! Every allocation routine is collective over all PEs, and all PEs get the
//! same result: the allocator is deterministic (`heap::alloc`), provided
//! every PE passes the same arguments, which the routine's world barrier
//! compares always on one node (`coll::agree::barrier_all_agreeing`: a
//! fingerprint of the arguments on each PE's arrival). The allocator's
//! blocks also record the bytes asked for, the objects `SHMEM_CHECK_BOUNDS`
//! checks transfers against ([`object_at`]).
//!
//! A module of its own above `heap`, `space` and `team` rather than part of
//! `heap`: it takes the world (and the spaces and teams for the memory of a
//! space given to `shmem_free`), which `heap`, below the world, cannot.
//! Errors are typed: a [`Refusal`] gives NULL, a [`Misuse`] is fatal; the C
//! shim (`ffi::memory`) words both.

use crate::coll::{self, check::NOT_IN_HEAP, check::What};
use crate::heap::alloc::{Exhausted, MIN_ALIGN, changes};
use crate::heap::heap_align;
use crate::space::{SpaceError, Spaces};
use crate::team::Teams;
use crate::world::World;
use std::cell::Cell;

/// Why an allocation routine gives NULL on every PE (said under
/// `SHMEM_DEBUG`, or warned for [`Refusal::AlreadyFreed`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// The heap has no room.
    Exhausted(Exhausted),
    NotPowerOfTwo {
        alignment: usize,
    },
    /// Heaps start `largest`-aligned: one offset cannot be more aligned on
    /// every PE.
    AlignmentTooLarge {
        alignment: usize,
        largest: usize,
    },
    /// `count * size` overflows.
    Overflow {
        count: usize,
        size: usize,
    },
    /// `shmem_realloc` of a block already freed (tolerated, see [`realloc`]).
    AlreadyFreed {
        addr: usize,
    },
}

/// A fatal misuse of an allocation routine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Misuse {
    /// The pointer is not the start of a live heap block.
    NotHeapAllocation { addr: usize },
    /// `shmem_realloc` of a space's memory (raw handle `space`).
    InSpace { addr: usize, space: usize },
    /// `shmem_free` of a space's memory, found in space `space`, which is
    /// gone.
    SpaceGone { space: usize, err: SpaceError },
    /// `shmem_free` of a space's memory that the space refuses.
    Space(SpaceError),
    /// The team of an attached space is gone.
    TeamGone { team: usize },
}

/// The arguments a routine's barrier compares across the PEs: its kind and
/// up to two of its arguments, as `coll::check`'s records name them.
pub(crate) type Args = (What, [u64; 2]);

/// The spaces and teams, for the memory of a space given to `shmem_free`
/// (and refused by `shmem_realloc`).
pub(crate) type Owners<'a> = (&'a Spaces, &'a Teams);

/// The barrier of an allocation routine, comparing its arguments.
fn barrier(rt: &World, routine: &'static str, (what, args): Args) {
    coll::agree::barrier_all_agreeing(rt, routine, what, args);
}

fn heap(rt: &World) -> std::sync::MutexGuard<'_, crate::heap::alloc::Allocator> {
    // The allocator is consistent after any panic: nothing to poison.
    rt.allocator()
}

/// Allocates on every PE, then waits for all of them, comparing `args` on
/// the way. Returns the block's address, or 0 (on every PE) when the heap
/// cannot satisfy the request, after telling `refused` (before the barrier).
fn allocate(
    rt: &World,
    routine: &'static str,
    block: (usize, usize, bool),
    args: Args,
    refused: impl FnOnce(Refusal),
) -> usize {
    let addr = take_block(rt, block, refused);
    barrier(rt, routine, args);
    addr
}

/// This PE's part of [`allocate`]: a block of `size` bytes at `align`
/// (zeroed if `zero`) from the heap, or 0 after telling `refused`. Every
/// PE takes the same block, because every heap sees the same sequence of
/// allocations and frees (the collective rule).
fn take_block(rt: &World, (size, align, zero): (usize, usize, bool), refused: impl FnOnce(Refusal)) -> usize {
    match heap(rt).alloc(size, align) {
        Ok(off) => {
            let p = (rt.heap_addr(off)) as *mut u8;
            if zero {
                // SAFETY: the block [off, off+size) was just allocated in our heap.
                unsafe { std::ptr::write_bytes(p, 0, size) };
            }
            p as usize
        }
        Err(e) => {
            refused(Refusal::Exhausted(e));
            0
        }
    }
}

/// `shmem_malloc` (and `shmem_malloc_with_hints`, whose hints change
/// nothing here, so its barrier compares the size only): 0 for 0 bytes.
pub(crate) fn malloc(rt: &World, routine: &'static str, size: usize, refused: impl FnOnce(Refusal)) -> usize {
    if size == 0 {
        return 0;
    }
    allocate(
        rt,
        routine,
        (size, MIN_ALIGN, false),
        (What::Malloc, [size as u64, 0]),
        refused,
    )
}

/// [`malloc`] without its barrier (`shmem_malloc_with_hints` with Sandia
/// OpenSHMEM's `SHMEMX_MALLOC_NO_BARRIER`): every PE still takes the same
/// block ([`take_block`]), and a heap that cannot satisfy the request
/// refuses it on every PE alike.
pub(crate) fn malloc_unsynchronised(rt: &World, size: usize, refused: impl FnOnce(Refusal)) -> usize {
    if size == 0 {
        return 0;
    }
    take_block(rt, (size, MIN_ALIGN, false), refused)
}

/// `shmem_align`: 0 for 0 bytes or an alignment the heaps cannot give.
pub(crate) fn align(
    rt: &World,
    routine: &'static str,
    alignment: usize,
    size: usize,
    refused: impl FnOnce(Refusal),
) -> usize {
    if size == 0 {
        return 0;
    }
    if !alignment.is_power_of_two() {
        refused(Refusal::NotPowerOfTwo { alignment });
        return 0;
    }
    let largest = heap_align(rt.heap_len());
    if alignment > largest {
        // Heaps start `largest`-aligned; one offset cannot be more aligned on
        // every PE, and a larger alignment leaves no room in the heap anyway.
        refused(Refusal::AlignmentTooLarge { alignment, largest });
        return 0;
    }
    let args = (What::Align, [alignment as u64, size as u64]);
    allocate(rt, routine, (size, alignment, false), args, refused)
}

/// `shmem_calloc`: `count` zeroed elements of `size` bytes; 0 for none.
pub(crate) fn calloc(
    rt: &World,
    routine: &'static str,
    count: usize,
    size: usize,
    refused: impl FnOnce(Refusal),
) -> usize {
    match count.checked_mul(size) {
        Some(0) => 0,
        Some(total) => allocate(
            rt,
            routine,
            (total, MIN_ALIGN, true),
            (What::Calloc, [count as u64, size as u64]),
            refused,
        ),
        None => {
            refused(Refusal::Overflow { count, size });
            0
        }
    }
}

/// A pointer argument as the barriers (and the argument check) compare
/// it: the offset of the heap block it points into, or [`NOT_IN_HEAP`].
pub(crate) fn heap_block(rt: &World, addr: usize) -> u64 {
    rt.heap_offset(addr).map_or(NOT_IN_HEAP, |o| o as u64)
}

/// Bytes of the heap block that starts at `addr`, if one does.
pub(crate) fn block_len_at(rt: &World, addr: usize) -> Option<usize> {
    rt.heap_offset(addr).and_then(|off| heap(rt).block_len(off))
}

/// The heap offset of the block the caller says starts at `addr`.
fn owned_block(rt: &World, addr: usize) -> Result<usize, Misuse> {
    match rt.heap_offset(addr) {
        Some(off) if heap(rt).block_len(off).is_some() => Ok(off),
        _ => Err(Misuse::NotHeapAllocation { addr }),
    }
}

/// The space (raw handle) whose memory `addr` is, if not the heap.
fn space_at(rt: &World, spaces: &Spaces, addr: usize) -> Option<usize> {
    if rt.heap_offset(addr).is_some() {
        return None;
    }
    spaces.resolve(rt, addr, 1).map(|(_, m)| m.space).filter(|&s| s != 0)
}

/// `shmem_free` of `addr` (not 0). Memory of a space goes back to its
/// space, synchronising its team; a heap block waits for every PE first
/// (nobody may still be using it), after `check`, the caller's argument
/// check (which must not run for a space: its team alone calls).
pub(crate) fn free(
    rt: &World,
    owners: Owners<'_>,
    routine: &'static str,
    addr: usize,
    check: impl FnOnce(),
) -> Result<(), Misuse> {
    release(
        rt,
        owners,
        routine,
        addr,
        (What::Free, [heap_block(rt, addr), 0]),
        check,
    )
}

/// [`free`], whose barrier compares `args`.
fn release(
    rt: &World,
    (spaces, teams): Owners<'_>,
    routine: &'static str,
    addr: usize,
    args: Args,
    check: impl FnOnce(),
) -> Result<(), Misuse> {
    if let Some(space) = space_at(rt, spaces, addr) {
        let s = spaces.lookup(space).map_err(|err| Misuse::SpaceGone { space, err })?;
        let (team, base) = s.attached().map_err(Misuse::Space)?;
        let t = teams.lookup(team).ok_or(Misuse::TeamGone { team })?;
        return s.free_at(rt, routine, (t.coll(), base), addr).map_err(Misuse::Space);
    }
    check();
    let off = owned_block(rt, addr)?;
    // Nobody may still be using the block on any PE.
    barrier(rt, routine, args);
    heap(rt).free(off);
    Ok(())
}

/// `shmem_realloc` of `addr` to `size` bytes. Every path takes one barrier
/// before the heap changes, comparing the arguments, so that PEs with
/// other arguments never change theirs. `check_free` is the argument check
/// of the `shmem_free` that a size of 0 makes of it.
pub(crate) fn realloc(
    rt: &World,
    owners: Owners<'_>,
    routine: &'static str,
    (addr, size): (usize, usize),
    refused: impl FnOnce(Refusal),
    check_free: impl FnOnce(),
) -> Result<usize, Misuse> {
    let args = (What::Realloc, [heap_block(rt, addr), size as u64]);
    if addr == 0 {
        return Ok(match size {
            0 => 0,
            _ => allocate(rt, routine, (size, MIN_ALIGN, false), args, refused),
        });
    }
    if let Some(space) = space_at(rt, owners.0, addr) {
        return Err(Misuse::InSpace { addr, space });
    }
    if rt.heap_offset(addr).is_some_and(|off| heap(rt).was_freed(off)) {
        // Open MPI returns NULL here and widely used tests rely on it. The
        // allocator is the same on every PE, so a symmetric call takes this
        // path on all of them and the heaps stay identical.
        refused(Refusal::AlreadyFreed { addr });
        barrier(rt, routine, args);
        return Ok(0);
    }
    if size == 0 {
        release(rt, owners, routine, addr, args, check_free)?;
        return Ok(0);
    }
    let off = owned_block(rt, addr)?;
    barrier(rt, routine, args);
    let moved = {
        let mut heap = heap(rt);
        if heap.resize_in_place(off, size) {
            Ok(off)
        } else {
            let old_len = heap.block_len(off).unwrap_or(0);
            heap.alloc(size, MIN_ALIGN).inspect(|&new| {
                let base = rt.heap_addr(0);
                // SAFETY: both blocks are allocated in our heap and distinct.
                unsafe {
                    std::ptr::copy_nonoverlapping((base + off) as *const u8, (base + new) as *mut u8, old_len.min(size))
                };
                heap.free(off);
            })
        }
    };
    let result = match moved {
        Ok(new) => rt.heap_addr(new),
        Err(e) => {
            refused(Refusal::Exhausted(e));
            0
        }
    };
    coll::barrier_all(rt, routine);
    Ok(result)
}

/// The heap object that contains `addr`, if any: its address and the bytes
/// the program asked for (`SHMEM_CHECK_BOUNDS`).
pub(crate) fn object_at(rt: &World, addr: usize) -> Option<(usize, usize)> {
    let off = rt.heap_offset(addr)?;
    let (start, size) = heap(rt).object_containing(off)?;
    Some((rt.heap_addr(start), size))
}

/// Bytes from `addr` to the end of its heap block, when fewer than `need`
/// (a pSync too short for an active-set collective); `None` when long
/// enough or not in a heap block.
pub(crate) fn short_block(rt: &World, addr: usize, need: usize) -> Option<usize> {
    let off = rt.heap_offset(addr)?;
    // The heap's lock costs more than a small pushed call: a block found
    // long enough stays so while no block changes (two remembered, for the
    // idiom of alternating two pSyncs).
    thread_local! {
        static LONG_ENOUGH: Cell<[(usize, usize, u64); 2]> = const { Cell::new([(usize::MAX, 0, 0); 2]) };
    }
    let changes = changes();
    let known = LONG_ENOUGH.get();
    if known.contains(&(off, need, changes)) {
        return None;
    }
    let block = heap(rt).block_containing(off);
    if let Some((start, blen)) = block
        && start + blen < off + need
    {
        return Some(start + blen - off);
    }
    LONG_ENOUGH.set([(off, need, changes), known[0]]);
    None
}
