//! Allocation in an attached space (`shmemx_space_malloc`, `_calloc`,
//! `_align`, `_free`, and `shmem_free` of a space's memory): the alignment
//! policy, the allocation on this member and the team barrier that ends
//! it. Collective over the space's team only, which the caller names (a
//! space cannot look teams up: `team` builds on `space`).

use super::{Space, SpaceError};
use crate::coll::{self, TeamRef};
use crate::heap::alloc::Exhausted;
use crate::heap::{SymOffset, heap_align};
use crate::transport::Transport;
use crate::world::World;

/// Why an allocation in a space gives NULL (said under `SHMEM_DEBUG`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// The alignment is not a power of two.
    NotPowerOfTwo { align: usize },
    /// The alignment exceeds the extent's and the space's size: only luck
    /// of the address could place the block.
    LargerThanSpace { align: usize, sheap_size: usize },
    /// The alignment exceeds the one every member's copy shares.
    LargerThanShared { align: usize, largest: usize },
    /// The space has no room.
    Exhausted(Exhausted),
}

impl Space {
    /// Allocates `size` bytes at `align` (zeroed if `zero`) on every member
    /// of `team`, the team the space is attached to at `base`, then waits
    /// for the members (and only them). Returns this member's address of the
    /// block, or 0 (on every member) after telling `refused` why, at the
    /// moment the PE knows (before the barrier). Nothing is allocated and
    /// nobody waits for 0 bytes or a refused alignment.
    pub(crate) fn allocate(
        &self,
        rt: &World,
        routine: &'static str,
        (team, base): (TeamRef<'_>, SymOffset),
        (size, align, zero): (usize, usize, bool),
        refused: impl FnOnce(Refusal),
    ) -> Result<usize, SpaceError> {
        if size == 0 {
            return Ok(0);
        }
        if !align.is_power_of_two() {
            refused(Refusal::NotPowerOfTwo { align });
            return Ok(0);
        }
        // Up to the extent's alignment every offset answer is the same whatever
        // the layout; beyond it, a space smaller than the alignment could only
        // hold the block by luck of its address, so that is refused outright.
        let (_, extent_align) = self.extent_shape();
        if align > extent_align && align > self.config.sheap_size {
            refused(Refusal::LargerThanSpace {
                align,
                sheap_size: self.config.sheap_size,
            });
            return Ok(0);
        }
        // Members' copies of the space lie a multiple of heap_align apart (the
        // segment stride), so aligning this member's address aligns them all.
        let largest = heap_align(rt.heap_len());
        if align > largest {
            refused(Refusal::LargerThanShared { align, largest });
            return Ok(0);
        }
        let origin = rt.own_addr(base) as usize;
        let addr = match self.alloc(size, align, origin)? {
            Ok(off) => {
                let p = rt.own_addr(SymOffset(base.0 + off));
                if zero {
                    // SAFETY: the block [off, off+size) was just allocated in
                    // this PE's copy of the space.
                    unsafe { std::ptr::write_bytes(p, 0, size) };
                }
                p as usize
            }
            Err(e) => {
                refused(Refusal::Exhausted(e));
                0
            }
        };
        coll::team_sync(rt, routine, team);
        Ok(addr)
    }

    /// Frees the block at address `addr` of this space, attached to `team`
    /// at `base`: waits for the members first, as nobody may still use it.
    pub(crate) fn free_at(
        &self,
        rt: &World,
        routine: &'static str,
        (team, base): (TeamRef<'_>, SymOffset),
        addr: usize,
    ) -> Result<(), SpaceError> {
        let local = rt.own_addr(base) as usize;
        let off = addr.wrapping_sub(local);
        if self.block_len(off).is_none() {
            return Err(SpaceError::NotABlock { addr });
        }
        rt.transport.quiet();
        coll::team_sync(rt, routine, team);
        self.free(off);
        Ok(())
    }
}
