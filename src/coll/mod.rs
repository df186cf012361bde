//! Collective operations.
//!
//! The world barrier (`shmem_barrier_all`, `shmem_sync_all`) is a counter in the
//! control block ([`barrier::world`]). Every other collective runs on a
//! [`Coll`]: a group of PEs in arithmetic progression (a team, or an active
//! set `PE_start, 2^logPE_stride, PE_size`), this PE's rank in it, and a sync
//! array of [`FLAG_WORDS`](crate::psync::FLAG_WORDS) 64-bit flags at the same
//! offset on every member: the team's memory from the `psync` manager, or the
//! user's `pSync` for the deprecated active-set routines.
//!
//! Flags count. A sender adds 1 to a flag of the receiver ([`Coll::signal`]);
//! the receiver waits for the count it expects and subtracts it
//! ([`Coll::consume`]), so a flag is back to `SHMEM_SYNC_VALUE` (0) once its
//! collective has consumed its signals, and a signal that arrives early (from a
//! faster PE already in the next collective) is simply kept for that one. This
//! is safe when, for each flag, either the sender is the same in every
//! collective of the group (barrier rounds, tree and ring neighbours, recursive
//! doubling partners) or any early signal implies the awaited one was possible
//! (the broadcast root's "ready", see `bcast`). Every algorithm consumes all
//! signals sent to it before it returns, so no write lands in a PE's sync
//! array after the collective has left it: that is what lets the user reuse
//! a pSync, and the library free a team's memory after a barrier.
//!
//! Data moves by direct loads and stores between segments through the
//! transport (`get`/`put` by symmetric offset): receivers pull from the
//! senders' buffers, which is a `memcpy` on one node.

pub mod alltoall;
pub mod barrier;
pub mod bcast;
pub mod collect;
pub mod flags;
pub mod reduce;
pub mod registry;

use crate::heap::SymOffset;
use crate::runtime::Runtime;
use crate::transport::Transport;
use std::sync::atomic::{AtomicU64, Ordering};

/// `shmem_barrier_all`: completes this PE's outstanding operations, then waits
/// for every PE.
pub fn barrier_all(rt: &Runtime) {
    rt.transport.quiet();
    sync_all(rt);
}

/// `shmem_sync_all`: waits for every PE; orders memory like a barrier on this
/// transport (the arrival is a sequentially consistent read-modify-write).
pub fn sync_all(rt: &Runtime) {
    barrier::world(&rt.control, &rt.sync_waiter());
}

/// PEs `start + i * stride` for `i` in `0..size`, with this PE at `rank`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Group {
    pub start: isize,
    pub stride: isize,
    pub size: usize,
    pub rank: usize,
}

impl Group {
    /// World PE number of rank `r`.
    #[inline]
    pub fn pe(&self, r: usize) -> usize {
        (self.start + r as isize * self.stride) as usize
    }

    /// Rank of world PE `pe`, if it is a member.
    pub fn rank_of(&self, pe: usize) -> Option<usize> {
        let d = pe as isize - self.start;
        if self.stride == 0 {
            return (d == 0 && self.size > 0).then_some(0);
        }
        if d % self.stride != 0 {
            return None;
        }
        let r = d / self.stride;
        (r >= 0 && (r as usize) < self.size).then_some(r as usize)
    }
}

/// One collective call in progress on this PE.
pub struct Coll<'a> {
    pub rt: &'a Runtime,
    pub g: Group,
    /// The sync array (same offset on every member).
    pub flags: SymOffset,
    /// Symmetric scratch for algorithms that expose partial results, if any.
    pub scratch: SymOffset,
    pub scratch_len: usize,
    /// Routine name, for hang diagnostics.
    pub routine: &'static str,
}

impl Coll<'_> {
    #[inline]
    fn flag_off(&self, idx: usize) -> SymOffset {
        debug_assert!(idx < crate::psync::FLAG_WORDS);
        SymOffset(self.flags.0 + idx * 8)
    }

    #[inline]
    fn my_flag(&self, idx: usize) -> &AtomicU64 {
        let p = self.rt.segs.peer_addr(self.rt.me, self.flag_off(idx));
        // SAFETY: the sync array lies in this PE's segment (checked symmetric
        // and large enough by the caller that built this Coll), is 8-aligned,
        // and flags are only accessed atomically.
        unsafe { AtomicU64::from_ptr(p as *mut u64) }
    }

    /// Adds 1 to flag `idx` of rank `r`.
    #[inline]
    pub fn signal(&self, r: usize, idx: usize) {
        // SAFETY: the flag lies in rank r's segment at the symmetric offset.
        unsafe { self.rt.transport.flag_add(self.g.pe(r), self.flag_off(idx), 1) }
    }

    /// Waits until this PE's flag `idx` holds at least `n`, then takes `n` off.
    #[inline]
    pub fn consume(&self, idx: usize, n: u64) {
        if n == 0 {
            return;
        }
        let f = self.my_flag(idx);
        self.rt.sync_waiter().wait(
            || f.load(Ordering::Acquire) >= n,
            || {
                format!(
                    "{} signals on flag {idx} of {} (group start {} stride {} size {}, have {})",
                    n,
                    self.routine,
                    self.g.start,
                    self.g.stride,
                    self.g.size,
                    f.load(Ordering::Relaxed)
                )
            },
        );
        f.fetch_sub(n, Ordering::AcqRel);
    }

    /// Writes a plain value into this PE's flag word `idx` (published data,
    /// not a signal).
    pub fn publish(&self, idx: usize, v: u64) {
        self.my_flag(idx).store(v, Ordering::Release);
    }

    /// Reads word `idx` of rank `r`'s sync array.
    pub fn read_word(&self, r: usize, idx: usize) -> u64 {
        let mut v = 0u64;
        // SAFETY: the word lies in rank r's segment at the symmetric offset.
        unsafe {
            self.rt
                .transport
                .get(self.g.pe(r), self.flag_off(idx), &mut v as *mut u64 as *mut u8, 8)
        };
        v
    }

    /// Copies `len` bytes at `off` in rank `r`'s segment to `dst`.
    ///
    /// # Safety
    /// `dst` is writable for `len` bytes; `off..off+len` is inside a segment.
    #[inline]
    pub unsafe fn get(&self, r: usize, off: SymOffset, dst: *mut u8, len: usize) {
        if len > 0 {
            // SAFETY: caller's contract.
            unsafe { self.rt.transport.get(self.g.pe(r), off, dst, len) }
        }
    }

    /// Copies `len` bytes from `src` to `off` in rank `r`'s segment.
    ///
    /// # Safety
    /// `src` is readable for `len` bytes; `off..off+len` is inside a segment.
    #[inline]
    pub unsafe fn put(&self, r: usize, off: SymOffset, src: *const u8, len: usize) {
        if len > 0 {
            // SAFETY: caller's contract.
            unsafe { self.rt.transport.put(self.g.pe(r), off, src, len) }
        }
    }

    /// This PE's address of symmetric offset `off`.
    #[inline]
    pub fn local(&self, off: SymOffset) -> *mut u8 {
        self.rt.segs.peer_addr(self.rt.me, off)
    }

    /// The group's barrier with the configured algorithm.
    pub fn barrier(&self) {
        barrier::run(self, registry::get().barrier.resolve(self.g.size));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_translate_both_ways() {
        let g = Group {
            start: 1,
            stride: 3,
            size: 3,
            rank: 0,
        };
        assert_eq!((g.pe(0), g.pe(2)), (1, 7));
        assert_eq!(g.rank_of(4), Some(1));
        assert_eq!(g.rank_of(5), None);
        assert_eq!(g.rank_of(10), None);
        let rev = Group {
            start: 5,
            stride: -1,
            size: 6,
            rank: 0,
        };
        assert_eq!(rev.pe(5), 0);
        assert_eq!(rev.rank_of(0), Some(5));
        assert_eq!(rev.rank_of(6), None);
    }
}
