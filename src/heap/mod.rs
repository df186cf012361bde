//! Symmetric memory: where each PE's segment is and how addresses translate.
//!
//! Every PE's segment has the same layout, so an object is named by its
//! [`SymOffset`] within a segment:
//!
//! ```text
//! segment of PE i (in the job file, at seg_offset + i * stride)
//! ┌──────────────────────────────┬───────────────────────────────┐
//! │ globals: copy of the program's│ symmetric heap                │
//! │ writable data (data_len)      │ (heap_len = SHMEM_SYMMETRIC_SIZE)
//! └──────────────────────────────┴───────────────────────────────┘
//!   followed by the space arena (sync_len = SHMEM_SPACE_ARENA_SIZE) at
//!   offset sync_off, from which spaces take their extents: users' spaces and
//!   every team's own flags and scratch (see `space`).
//! ```
//!
//! A PE addresses its own globals at their link-time addresses (remapped onto
//! the segment, see [`globals`]) and its heap inside its mapping of the file;
//! both translate to offsets, and `peer_addr` turns an offset back into an
//! address in any PE's segment (only in its own with the checking transport,
//! which also makes the other segments inaccessible: see `transport::check`).
//! [`tables`] keeps this process's page tables for the other segments within
//! a budget. With `SHMEM_SYMMETRIC_HEAP_USE_HUGE_PAGES` the heaps are on huge
//! pages ([`huge`]): explicit ones come from a second memory file, mapped
//! over the heap part of each segment.

pub(crate) mod alloc;
pub(crate) mod globals;
pub(crate) mod huge;
pub(crate) mod segment;
pub(crate) mod tables;

use globals::DataRange;

/// Segments, their globals part, their heap and their space arena all start at
/// multiples of this, so an offset aligned to it (or less) gives an aligned
/// address on every PE. (Heaps are aligned further: [`heap_align`].)
pub(crate) const SEGMENT_ALIGN: usize = 2 << 20;

/// The largest alignment `shmem_align` honours for a heap of `heap_len`
/// bytes: the largest power of two that fits in it, at least
/// [`SEGMENT_ALIGN`]. Every PE's heap starts at a multiple of it (the segment
/// stride is one, and the mapping is placed so that heaps are), so one offset
/// aligned to it is aligned on every PE. The rounding costs address space
/// only.
pub(crate) fn heap_align(heap_len: usize) -> usize {
    match heap_len.checked_ilog2() {
        Some(log) => (1usize << log).max(SEGMENT_ALIGN),
        None => SEGMENT_ALIGN,
    }
}

/// Offset of an object within a PE's segment; the same on every PE.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct SymOffset(pub usize);

/// This process's view of all segments.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Segments {
    /// Start of this process's mapping of every segment (PE 0's first).
    pub base: *mut u8,
    pub stride: usize,
    pub npes: usize,
    pub me: usize,
    /// The program's writable data, at its own addresses, if any.
    pub data: Option<DataRange>,
    /// Length of the globals part of a segment.
    pub data_len: usize,
    pub heap_len: usize,
    /// Offset of the synchronisation arena in every segment, and its length.
    pub sync_off: usize,
    pub sync_len: usize,
}

// SAFETY: Segments only describes address ranges; see segment::Mapping.
unsafe impl Send for Segments {}
// SAFETY: as above.
unsafe impl Sync for Segments {}

impl Segments {
    /// Address of this PE's heap.
    pub(crate) fn heap_base(&self) -> usize {
        self.base as usize + self.me * self.stride + self.data_len
    }

    /// Offset of `[addr, addr+len)` if it lies entirely in this PE's symmetric
    /// heap or globals.
    #[inline]
    pub(crate) fn offset_of(&self, addr: usize, len: usize) -> Option<SymOffset> {
        let heap = self.heap_base();
        let end = addr.checked_add(len)?;
        if addr >= heap && end <= heap + self.heap_len {
            return Some(SymOffset(self.data_len + (addr - heap)));
        }
        match self.data {
            Some(d) if addr >= d.start && end <= d.start + d.len => Some(SymOffset(addr - d.start)),
            _ => None,
        }
    }

    /// Offset within the heap of `addr`, if it is in this PE's heap.
    pub(crate) fn heap_offset(&self, addr: usize) -> Option<usize> {
        let heap = self.heap_base();
        (addr >= heap && addr < heap + self.heap_len).then(|| addr - heap)
    }

    /// Address of offset `off` in `pe`'s segment, in this process.
    ///
    /// Built with the checking transport (feature `check-transport`), only
    /// this PE's own segment may be addressed: for another PE this panics,
    /// naming the caller (code reaching around the transport), and the C
    /// entry point's guard reports it as a fatal error.
    #[inline]
    #[cfg_attr(feature = "check-transport", track_caller)]
    pub(crate) fn peer_addr(&self, pe: usize, off: SymOffset) -> *mut u8 {
        debug_assert!(pe < self.npes && off.0 <= self.stride);
        #[cfg(feature = "check-transport")]
        if pe != self.me {
            panic!(
                "{} reached PE {pe}'s memory around the transport (checking transport)",
                std::panic::Location::caller()
            );
        }
        self.base.wrapping_add(pe * self.stride + off.0)
    }

    /// Makes the other PEs' segments inaccessible in this process, so that
    /// even address arithmetic that bypasses [`peer_addr`](Self::peer_addr)
    /// faults (checking transport only; the mapping stays reserved).
    #[cfg(feature = "check-transport")]
    pub(crate) fn hide_peers(&self) -> std::io::Result<()> {
        for pe in (0..self.npes).filter(|&pe| pe != self.me) {
            // SAFETY: the range is PE pe's segment inside this process's
            // mapping of all segments (page aligned: the stride is a multiple
            // of SEGMENT_ALIGN), which nothing of this process may touch.
            let r = unsafe {
                libc::mprotect(
                    self.base.wrapping_add(pe * self.stride) as *mut libc::c_void,
                    self.stride,
                    libc::PROT_NONE,
                )
            };
            if r != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segs() -> Segments {
        Segments {
            base: 0x10_0000 as *mut u8,
            stride: 0x3000,
            npes: 4,
            me: 1,
            data: Some(DataRange {
                start: 0x40_0000,
                len: 0x1000,
            }),
            data_len: 0x1000,
            heap_len: 0x2000,
            sync_off: 0x3000,
            sync_len: 0,
        }
    }

    #[test]
    fn heap_and_globals_translate_to_offsets() {
        let s = segs();
        assert_eq!(s.heap_base(), 0x10_4000);
        assert_eq!(s.offset_of(0x10_4000, 8), Some(SymOffset(0x1000)));
        assert_eq!(s.offset_of(0x10_5ff8, 8), Some(SymOffset(0x2ff8)));
        assert_eq!(s.offset_of(0x10_5ff8, 9), None, "runs past the heap");
        assert_eq!(s.offset_of(0x40_0010, 8), Some(SymOffset(0x10)));
        assert_eq!(s.offset_of(0x40_0ff8, 16), None, "runs past the globals");
        assert_eq!(s.offset_of(0x10_0000, 8), None, "PE 0's segment is not ours to name");
        assert_eq!(s.offset_of(usize::MAX, 8), None);
    }

    #[test]
    #[cfg(not(feature = "check-transport"))]
    fn offsets_map_to_every_peer() {
        let s = segs();
        assert_eq!(s.peer_addr(0, SymOffset(0x10)) as usize, 0x10_0010);
        assert_eq!(
            s.peer_addr(3, SymOffset(0x1000)) as usize,
            0x10_0000 + 3 * 0x3000 + 0x1000
        );
        assert_eq!(s.heap_offset(0x10_4040), Some(0x40));
        assert_eq!(s.heap_offset(0x40_0000), None);
    }

    #[test]
    #[cfg(feature = "check-transport")]
    fn only_the_own_segment_is_addressable_under_the_checking_transport() {
        let s = segs();
        assert_eq!(s.peer_addr(1, SymOffset(0x10)) as usize, 0x10_3010);
        let caught = std::panic::catch_unwind(|| s.peer_addr(0, SymOffset(0x10))).unwrap_err();
        let what = caught.downcast_ref::<String>().unwrap();
        assert!(what.contains("src/heap/mod.rs"), "names the caller: {what}");
        assert!(what.contains("PE 0's memory around the transport"), "{what}");
    }
}
