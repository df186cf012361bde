//! The symmetric heap allocator.
//!
//! Allocation is collective: every PE runs the same sequence of calls with the
//! same arguments on its own copy of this allocator, which is deterministic, so
//! every PE obtains the same offset without communicating. Bookkeeping lives in
//! private memory; the heap itself only holds user data.
//!
//! Policy: address-ordered first fit, blocks rounded to [`MIN_ALIGN`] bytes
//! (a cache line, so separately allocated flags never share one), neighbours
//! coalesced on free.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicU64, Ordering};

/// Changes of the blocks of this process's heaps so far (see [`changes`]).
static CHANGES: AtomicU64 = AtomicU64::new(0);

/// A count that differs whenever a block may have been allocated, freed or
/// resized since it was read: lets a caller keep what it learnt about a block
/// without taking the heap's lock again (the active-set pSync checks).
pub(crate) fn changes() -> u64 {
    CHANGES.load(Ordering::Acquire)
}

fn changed() {
    CHANGES.fetch_add(1, Ordering::Release);
}

/// Alignment and size granule of every block.
pub(crate) const MIN_ALIGN: usize = 64;

/// Offsets and lengths are relative to the start of the heap.
#[derive(Debug)]
pub(crate) struct Allocator {
    capacity: usize,
    /// offset -> length of free blocks; never two adjacent.
    free: BTreeMap<usize, usize>,
    /// offset -> allocated block.
    used: BTreeMap<usize, Block>,
    /// Starts of freed blocks whose memory no later block has taken: a
    /// pointer there was an allocation once (`shmem_realloc` of it is
    /// tolerated, see `memory::realloc`). At most one per free block
    /// granule, so bounded by the heap.
    freed: BTreeSet<usize>,
}

/// An allocated block: its length (rounded up to [`MIN_ALIGN`]) and the
/// bytes the program asked for, the object's size (`SHMEM_CHECK_BOUNDS`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Block {
    len: usize,
    asked: usize,
}

/// Why an allocation failed, for `SHMEM_DEBUG`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Exhausted {
    /// Bytes asked for, and the alignment (at least [`MIN_ALIGN`]).
    pub requested: usize,
    pub align: usize,
    pub free_total: usize,
    pub largest_free: usize,
    pub capacity: usize,
}

impl Exhausted {
    /// "cannot allocate N bytes", with the alignment when one above the
    /// granule was asked for (it may be what does not fit).
    pub(crate) fn request(&self) -> String {
        if self.align > MIN_ALIGN {
            format!("cannot allocate {} bytes aligned to {}", self.requested, self.align)
        } else {
            format!("cannot allocate {} bytes", self.requested)
        }
    }
}

impl Allocator {
    pub(crate) fn new(capacity: usize) -> Allocator {
        let capacity = capacity & !(MIN_ALIGN - 1);
        let mut free = BTreeMap::new();
        if capacity > 0 {
            free.insert(0, capacity);
        }
        Allocator {
            capacity,
            free,
            used: BTreeMap::new(),
            freed: BTreeSet::new(),
        }
    }

    /// Allocates `size` bytes (rounded up) at a multiple of `align` (a power of
    /// two; at least [`MIN_ALIGN`] is used).
    pub(crate) fn alloc(&mut self, size: usize, align: usize) -> Result<usize, Exhausted> {
        self.alloc_from(size, align, 0)
    }

    /// [`alloc`](Self::alloc) for offsets counted from an address `origin`:
    /// the block starts where `origin + offset` is a multiple of `align` (for
    /// memory whose start is less aligned than the caller needs, but equally
    /// so on every PE).
    pub(crate) fn alloc_from(&mut self, size: usize, align: usize, origin: usize) -> Result<usize, Exhausted> {
        changed();
        let align = align.max(MIN_ALIGN);
        let origin = origin % align;
        debug_assert!(align.is_power_of_two());
        let requested = size;
        let size = size
            .max(1)
            .checked_next_multiple_of(MIN_ALIGN)
            .ok_or_else(|| self.exhausted(requested, align))?;
        let found = self.free.iter().find_map(|(&off, &len)| {
            let start = (origin + off).checked_next_multiple_of(align)? - origin;
            (start.checked_add(size)? <= off + len).then_some((off, len, start))
        });
        let Some((off, len, start)) = found else {
            return Err(self.exhausted(requested, align));
        };
        self.free.remove(&off);
        if start > off {
            self.free.insert(off, start - off);
        }
        let end = start + size;
        if end < off + len {
            self.free.insert(end, off + len - end);
        }
        self.used.insert(
            start,
            Block {
                len: size,
                asked: requested,
            },
        );
        self.claim(start, size);
        Ok(start)
    }

    /// Forgets the freed blocks that started in `[start, start + len)`, now
    /// part of an allocated block.
    fn claim(&mut self, start: usize, len: usize) {
        let taken: Vec<usize> = self.freed.range(start..start + len).copied().collect();
        for off in taken {
            self.freed.remove(&off);
        }
    }

    /// Whether a block started at `off` and was freed, and no block allocated
    /// since covers `off`.
    pub(crate) fn was_freed(&self, off: usize) -> bool {
        self.freed.contains(&off)
    }

    /// Why `requested` bytes at `align` do not fit (also for a caller that
    /// imposes a limit of its own).
    pub(crate) fn exhausted(&self, requested: usize, align: usize) -> Exhausted {
        Exhausted {
            requested,
            align,
            free_total: self.free.values().sum(),
            largest_free: self.free.values().copied().max().unwrap_or(0),
            capacity: self.capacity,
        }
    }

    /// Length of the block allocated at `off`, if one is.
    pub(crate) fn block_len(&self, off: usize) -> Option<usize> {
        self.used.get(&off).map(|b| b.len)
    }

    /// The allocated block that contains offset `off` (start, length), if any.
    pub(crate) fn block_containing(&self, off: usize) -> Option<(usize, usize)> {
        let (&start, b) = self.used.range(..=off).next_back()?;
        (off < start + b.len).then_some((start, b.len))
    }

    /// The object allocated in the block that contains offset `off`: its
    /// start and the bytes asked for (`off` may lie past them, in the
    /// rounding of the block).
    pub(crate) fn object_containing(&self, off: usize) -> Option<(usize, usize)> {
        let (&start, b) = self.used.range(..=off).next_back()?;
        (off < start + b.len).then_some((start, b.asked))
    }

    /// Frees the block at `off`; returns its length, or `None` if no block
    /// starts there.
    pub(crate) fn free(&mut self, off: usize) -> Option<usize> {
        changed();
        let len = self.used.remove(&off)?.len;
        self.insert_free(off, len);
        self.freed.insert(off);
        Some(len)
    }

    fn insert_free(&mut self, mut off: usize, mut len: usize) {
        if let Some((&prev, &plen)) = self.free.range(..off).next_back()
            && prev + plen == off
        {
            self.free.remove(&prev);
            off = prev;
            len += plen;
        }
        if let Some(nlen) = self.free.remove(&(off + len)) {
            len += nlen;
        }
        self.free.insert(off, len);
    }

    /// Grows or shrinks the block at `off` to `size` without moving it, if the
    /// space after it allows. Returns false (and changes nothing) otherwise.
    pub(crate) fn resize_in_place(&mut self, off: usize, size: usize) -> bool {
        changed();
        let Some(old) = self.used.get(&off).map(|b| b.len) else {
            return false;
        };
        let Some(new) = size.max(1).checked_next_multiple_of(MIN_ALIGN) else {
            return false;
        };
        let block = Block { len: new, asked: size };
        if new <= old {
            self.used.insert(off, block);
            if new < old {
                self.insert_free(off + new, old - new);
            }
            return true;
        }
        let end = off + old;
        match self.free.get(&end).copied() {
            Some(flen) if old + flen >= new => {
                self.free.remove(&end);
                self.used.insert(off, block);
                self.claim(end, new - old);
                if old + flen > new {
                    self.free.insert(off + new, old + flen - new);
                }
                true
            }
            _ => false,
        }
    }

    /// Blocks currently allocated.
    pub(crate) fn blocks(&self) -> usize {
        self.used.len()
    }

    /// Bytes currently allocated.
    pub(crate) fn used_bytes(&self) -> usize {
        self.used.values().map(|b| b.len).sum()
    }

    /// Frees everything (re-initialisation after `shmem_finalize`).
    pub(crate) fn reset(&mut self) {
        changed();
        *self = Allocator::new(self.capacity);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_fit_is_deterministic_and_aligned() {
        let mut a = Allocator::new(1 << 20);
        let x = a.alloc(10, 1).unwrap();
        let y = a.alloc(100, 1).unwrap();
        let z = a.alloc(1, 4096).unwrap();
        assert_eq!(x, 0);
        assert_eq!(y, 64);
        assert_eq!(z % 4096, 0);
        assert_eq!(a.block_len(y), Some(128));
        assert_eq!(a.block_containing(y + 127), Some((y, 128)));
        assert_eq!(a.block_containing(y + 128), None, "free space between y and z");
        assert_eq!(a.block_containing(z), Some((z, 64)));
        assert_eq!(
            a.object_containing(y + 127),
            Some((y, 100)),
            "the object is what was asked for"
        );
        assert_eq!(a.object_containing(x), Some((x, 10)));
        assert_eq!(a.object_containing(y + 128), None);
        // Same calls on a fresh allocator give the same offsets.
        let mut b = Allocator::new(1 << 20);
        assert_eq!(
            [
                b.alloc(10, 1).unwrap(),
                b.alloc(100, 1).unwrap(),
                b.alloc(1, 4096).unwrap()
            ],
            [x, y, z]
        );
    }

    #[test]
    fn free_coalesces_and_space_is_reused() {
        let mut a = Allocator::new(4096);
        let blocks: Vec<usize> = (0..64).map(|_| a.alloc(64, 1).unwrap()).collect();
        assert!(a.alloc(1, 1).is_err());
        for &b in blocks.iter().step_by(2) {
            assert_eq!(a.free(b), Some(64));
        }
        assert!(a.alloc(128, 1).is_err(), "holes are only 64 bytes");
        for &b in blocks.iter().skip(1).step_by(2) {
            a.free(b);
        }
        assert_eq!(a.alloc(4096, 1), Ok(0), "everything coalesced back");
        assert_eq!(a.used_bytes(), 4096);
    }

    #[test]
    fn freeing_unknown_offsets_is_refused() {
        let mut a = Allocator::new(4096);
        let x = a.alloc(64, 1).unwrap();
        assert_eq!(a.free(x + 8), None);
        assert_eq!(a.free(x), Some(64));
        assert_eq!(a.free(x), None, "double free");
    }

    #[test]
    fn exhaustion_reports_the_state() {
        let mut a = Allocator::new(1024);
        a.alloc(512, 1).unwrap();
        let e = a.alloc(1024, 1).unwrap_err();
        assert_eq!(e.free_total, 512);
        assert_eq!(e.largest_free, 512);
        assert_eq!(e.capacity, 1024);
        assert!(a.alloc(usize::MAX - 10, 1).is_err());
        assert!(Allocator::new(0).alloc(1, 1).is_err());
    }

    #[test]
    fn resize_in_place_grows_into_free_space_only() {
        let mut a = Allocator::new(4096);
        let x = a.alloc(64, 1).unwrap();
        assert!(a.resize_in_place(x, 1000));
        assert_eq!(a.block_len(x), Some(1024));
        let y = a.alloc(64, 1).unwrap();
        assert!(!a.resize_in_place(x, 2000), "y is in the way");
        assert!(a.resize_in_place(x, 100));
        assert_eq!(a.block_len(x), Some(128));
        assert_eq!(
            a.object_containing(x),
            Some((x, 100)),
            "resizing sets the object's size"
        );
        assert_eq!(a.alloc(64, 1), Ok(128), "shrinking freed the tail");
        let _ = y;
    }

    #[test]
    fn freed_blocks_are_remembered_until_reused() {
        let mut a = Allocator::new(1 << 20);
        let x = a.alloc(100, 1).unwrap();
        let y = a.alloc(100, 1).unwrap();
        assert!(!a.was_freed(x), "a live block");
        a.free(y);
        assert!(a.was_freed(y));
        assert!(!a.was_freed(y + 64), "never a block start");
        // Growing x in place over y's memory takes y's start.
        assert!(a.resize_in_place(x, 200));
        assert!(!a.was_freed(y));
        a.free(x);
        assert!(a.was_freed(x));
        assert_eq!(a.alloc(10, 1), Ok(x));
        assert!(!a.was_freed(x), "allocated again");
    }

    #[test]
    fn alloc_from_aligns_addresses_from_the_origin() {
        let mut a = Allocator::new(1 << 20);
        let origin = 0x1234_5000 + 192;
        let x = a.alloc_from(100, 4096, origin).unwrap();
        assert_eq!((origin + x) % 4096, 0);
        assert_eq!(x, 4096 - 192, "the first address from the origin that is 4096-aligned");
        let y = a.alloc_from(100, 64, origin).unwrap();
        assert_eq!(
            y, 0,
            "MIN_ALIGN blocks are aligned as offsets too (origin is 64-aligned)"
        );
    }
}
