//! The sync arena: units of [`UNIT`] bytes at the end of every
//! segment, with an occupancy bitmap in front that only its own PE writes and
//! that the other members of a team being created read.
//!
//! ```text
//! sync_off: [ high-water word | bitmap words ... | unit 0 | unit 1 | ... ]
//! ```
//! The high-water word is one more than the last bitmap word holding a set bit,
//! so agreement reads only the part of the peers' bitmaps in use.

use super::UNIT;
use crate::heap::{Segments, SymOffset};
use crate::transport::Transport;
use std::sync::atomic::{AtomicU64, Ordering};

#[derive(Clone, Copy, Debug)]
pub struct Arena {
    /// Offset of the arena in every segment.
    base: usize,
    /// Units available.
    units: usize,
    /// Bytes before unit 0 (high-water word and bitmap), a multiple of UNIT.
    header: usize,
    /// Address of this PE's arena.
    local: usize,
}

impl Arena {
    pub fn new(segs: &Segments) -> Arena {
        // Solve header + units * UNIT <= sync_len with header covering the bitmap.
        let total_units = segs.sync_len / UNIT;
        let bitmap_words = total_units.div_ceil(64);
        let header = ((1 + bitmap_words) * 8).next_multiple_of(UNIT);
        let units = segs.sync_len.saturating_sub(header) / UNIT;
        Arena {
            base: segs.sync_off,
            units,
            header,
            local: segs.peer_addr(segs.me, SymOffset(segs.sync_off)) as usize,
        }
    }

    pub fn units(&self) -> usize {
        self.units
    }

    /// Offset of unit `i` in every segment.
    pub fn unit_offset(&self, i: usize) -> SymOffset {
        SymOffset(self.base + self.header + i * UNIT)
    }

    /// This PE's word `i` of the header (0 is the high-water word).
    fn word(&self, i: usize) -> &AtomicU64 {
        debug_assert!((i + 1) * 8 <= self.header);
        // SAFETY: the arena header lies inside this PE's segment, which stays
        // mapped for the life of the process; it is 8-aligned (the arena starts
        // page aligned) and only ever accessed atomically.
        unsafe { AtomicU64::from_ptr((self.local + i * 8) as *mut u64) }
    }

    /// Clears this PE's bitmap and zeroes every unit it marked (at start-up:
    /// a new job, or a re-initialisation after teams were left undestroyed),
    /// so that every free unit is zero.
    pub fn reset(&self) {
        let hw = self.word(0).load(Ordering::Relaxed) as usize;
        for w in 0..hw {
            let bits = self.word(1 + w).load(Ordering::Relaxed);
            for b in 0..64 {
                let u = w * 64 + b;
                if bits >> b & 1 == 1 && u < self.units {
                    self.zero(u, 1);
                }
            }
            self.word(1 + w).store(0, Ordering::Relaxed);
        }
        self.word(0).store(0, Ordering::Relaxed);
    }

    /// The bitmap words of `pe` that may hold set bits, plus enough clear
    /// words to place `need` units after them.
    pub fn read<T: Transport>(&self, transport: &T, pe: usize, upto: usize) -> Vec<u64> {
        let n = upto.min(self.units.div_ceil(64));
        let mut v = vec![0u64; n];
        if n > 0 {
            // SAFETY: words 1..=n of the header lie inside pe's arena.
            unsafe { transport.get(pe, SymOffset(self.base + 8), v.as_mut_ptr() as *mut u8, n * 8) };
        }
        v
    }

    /// The high-water word of `pe`.
    pub fn high_water<T: Transport>(&self, transport: &T, pe: usize) -> usize {
        let mut hw = 0u64;
        // SAFETY: word 0 of pe's arena header.
        unsafe { transport.get(pe, SymOffset(self.base), &mut hw as *mut u64 as *mut u8, 8) };
        hw as usize
    }

    /// Marks units `first..first+n` used (or free) in this PE's bitmap.
    pub fn mark(&self, first: usize, n: usize, used: bool) {
        for u in first..first + n {
            let (w, b) = (u / 64, u % 64);
            let word = self.word(1 + w);
            if used {
                word.fetch_or(1 << b, Ordering::Relaxed);
            } else {
                word.fetch_and(!(1 << b), Ordering::Relaxed);
            }
        }
        let hw = self.word(0);
        if used {
            hw.fetch_max(((first + n).div_ceil(64)) as u64, Ordering::Relaxed);
        } else {
            let mut h = hw.load(Ordering::Relaxed) as usize;
            while h > 0 && self.word(h).load(Ordering::Relaxed) == 0 {
                h -= 1;
            }
            hw.store(h as u64, Ordering::Relaxed);
        }
    }

    /// Zeroes this PE's units `first..first+n`.
    pub fn zero(&self, first: usize, n: usize) {
        debug_assert!(first + n <= self.units);
        let off = self.header + first * UNIT;
        // SAFETY: the units lie inside this PE's arena (below `units`), and
        // they belong to a team being given back or to a previous job of
        // this process: nobody writes to them any more.
        unsafe { std::ptr::write_bytes((self.local + off) as *mut u8, 0, n * UNIT) };
    }
}

/// The lowest run of `need` units clear in every bitmap of `maps`, below `units`.
pub fn first_free(maps: &[Vec<u64>], need: usize, units: usize) -> Option<usize> {
    let used = |u: usize| {
        maps.iter()
            .any(|m| m.get(u / 64).is_some_and(|w| w >> (u % 64) & 1 == 1))
    };
    let mut run = 0;
    let mut u = 0;
    while u < units {
        if used(u) {
            run = 0;
        } else {
            run += 1;
            if run == need {
                return Some(u + 1 - need);
            }
        }
        u += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_free_skips_any_member_use() {
        let a = vec![0b0000_0111u64];
        let b = vec![0b0011_0000u64];
        assert_eq!(first_free(std::slice::from_ref(&a), 2, 100), Some(3));
        assert_eq!(first_free(&[a.clone(), b.clone()], 2, 100), Some(6));
        assert_eq!(first_free(&[a, b], 1, 100), Some(3));
        assert_eq!(first_free(&[vec![u64::MAX]], 1, 64), None);
        assert_eq!(first_free(&[vec![u64::MAX]], 3, 70), Some(64));
        assert_eq!(first_free(&[], 4, 3), None);
    }
}
