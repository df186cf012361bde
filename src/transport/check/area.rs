//! The checking transport's shared area: one mailbox per (requester, target)
//! pair and one request counter per target, in a part of the job file after
//! the symmetric segments (so in no PE's segment).
//!
//! ```text
//! area (Area::len(npes) bytes, page aligned)
//! ┌──────────────────────────────┬──────────────────────────────────────────┐
//! │ requests[t], one cache line  │ mailbox (r, t) for r, t in 0..npes,      │
//! │ per target PE t              │ row-major: SLOTS slots of SLOT_BYTES     │
//! └──────────────────────────────┴──────────────────────────────────────────┘
//! slot: Header (the request's words, one cache line pair) then CHUNK bytes of payload
//! ```
//!
//! Requests of one pair carry tickets 1, 2, 3 ...; ticket `k` uses slot
//! `k % SLOTS`. The requester fills a slot's words and payload, stores the
//! ticket in `posted` (release), then adds one to the target's `requests`
//! counter; the target executes it and stores the ticket in `served`
//! (release) after writing results. Every word is an atomic; the payload is
//! plain bytes, published by those release stores.

use crossbeam_utils::CachePadded;
use std::sync::atomic::AtomicU64;

/// Requests a requester may have in flight to one target.
pub(super) const SLOTS: usize = 4;
/// Payload bytes of one request: larger transfers are cut into chunks.
pub(super) const CHUNK: usize = 8 << 10;
/// Room for a slot's [`Header`], keeping payloads cache-line aligned.
const HEADER_BYTES: usize = 128;
const SLOT_BYTES: usize = HEADER_BYTES + CHUNK;

/// What a request asks the target to do (the `op` word).
#[repr(u64)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Op {
    /// Copy `len` payload bytes to `off`.
    Put = 1,
    /// Copy `len` bytes at `off` into the payload.
    Get = 2,
    /// Scatter `len` elements of `elem` bytes from the payload to `off`,
    /// `stride` elements apart.
    PutStrided = 3,
    /// Gather, the mirror of `PutStrided`.
    GetStrided = 4,
    /// Apply the atomic operation `amo` (width `elem`, operands `a`, `b`) to
    /// the word at `off`; its previous value goes to `result`.
    Atomic = 5,
    /// `Put`, then the 64-bit atomic `amo` on the signal word at `sig`.
    PutSignal = 6,
    /// Add `a` to the library flag at `off` and wake the PE's library waits.
    FlagAdd = 7,
}

impl Op {
    pub(super) fn from_word(w: u64) -> Option<Op> {
        Some(match w {
            1 => Op::Put,
            2 => Op::Get,
            3 => Op::PutStrided,
            4 => Op::GetStrided,
            5 => Op::Atomic,
            6 => Op::PutSignal,
            7 => Op::FlagAdd,
            _ => return None,
        })
    }
}

/// A slot's words. `posted` and `served` publish the rest.
#[repr(C)]
#[derive(Default)]
pub(super) struct Header {
    /// Ticket of the request now in the slot; written last by the requester.
    pub posted: AtomicU64,
    /// Ticket of the last request executed from the slot; written last by the target.
    pub served: AtomicU64,
    /// An [`Op`].
    pub op: AtomicU64,
    /// Offset in the target's segment.
    pub off: AtomicU64,
    /// Bytes (`Put`, `Get`) or elements (strided).
    pub len: AtomicU64,
    /// Element size in bytes (strided, atomics).
    pub elem: AtomicU64,
    /// Element stride at the target, in elements (strided; two's complement).
    pub stride: AtomicU64,
    /// The atomic operation's kind (see `codec::amo_kind`).
    pub amo: AtomicU64,
    /// Operands of the atomic operation, as bits.
    pub a: AtomicU64,
    pub b: AtomicU64,
    /// Offset of the signal word (`PutSignal`).
    pub sig: AtomicU64,
    /// Previous value of the word (`Atomic`, `PutSignal`).
    pub result: AtomicU64,
}

const _: () = assert!(std::mem::size_of::<Header>() <= HEADER_BYTES);

/// One slot of a mailbox in this process's mapping.
#[derive(Clone, Copy)]
pub(super) struct Slot<'a> {
    pub header: &'a Header,
    /// `CHUNK` bytes.
    pub payload: *mut u8,
}

/// This process's view of the area. It does not own the mapping.
#[derive(Clone, Copy)]
pub(super) struct Area {
    base: *mut u8,
    npes: usize,
}

// SAFETY: the view is a pointer to memory shared by every PE; its words are
// atomics and payload accesses are ordered by them (see the module doc).
unsafe impl Send for Area {}
// SAFETY: as above.
unsafe impl Sync for Area {}

impl Area {
    fn counters_len(npes: usize) -> usize {
        (npes * std::mem::size_of::<CachePadded<AtomicU64>>()).next_multiple_of(HEADER_BYTES)
    }

    /// Bytes of the area for `npes` PEs (a multiple of `page`).
    pub(super) fn len(npes: usize, page: usize) -> usize {
        (Self::counters_len(npes) + npes * npes * SLOTS * SLOT_BYTES).next_multiple_of(page)
    }

    /// Wraps a mapping of the area.
    ///
    /// # Safety
    /// `base` points to `len(npes, _)` bytes, page aligned, zero when the job
    /// started, shared by every PE of the job and mapped for the rest of the
    /// process, whose words are only accessed atomically.
    pub(super) unsafe fn from_raw(base: *mut u8, npes: usize) -> Area {
        Area { base, npes }
    }

    /// Requests ever posted to `target`.
    pub(super) fn requests(&self, target: usize) -> &AtomicU64 {
        assert!(target < self.npes);
        // SAFETY: from_raw's contract; the counters come first, each on its
        // own cache line, and zero is a valid AtomicU64.
        unsafe { &*(self.base as *const CachePadded<AtomicU64>).add(target) }
    }

    /// The slot of `ticket` in the mailbox from `requester` to `target`.
    pub(super) fn slot(&self, requester: usize, target: usize, ticket: u64) -> Slot<'_> {
        assert!(requester < self.npes && target < self.npes);
        let index = ((requester * self.npes + target) * SLOTS) + (ticket as usize % SLOTS);
        // SAFETY: from_raw's contract: the index is within npes * npes * SLOTS
        // slots, which the area holds after its counters; headers are
        // 128-aligned and hold only atomics.
        unsafe {
            let at = self.base.add(Self::counters_len(self.npes) + index * SLOT_BYTES);
            Slot {
                header: &*(at as *const Header),
                payload: at.add(HEADER_BYTES),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_distinct_and_inside_the_area() {
        let npes = 3;
        let len = Area::len(npes, 4096);
        let mut buf = vec![0u128; len / 16 + 8];
        let base = (buf.as_mut_ptr() as usize).next_multiple_of(128) as *mut u8;
        // SAFETY: buf is zeroed and long enough after aligning the start; it
        // outlives the view.
        let area = unsafe { Area::from_raw(base, npes) };
        let mut seen = std::collections::HashSet::new();
        for r in 0..npes {
            for t in 0..npes {
                for k in 0..SLOTS as u64 {
                    let s = area.slot(r, t, k);
                    let at = s.header as *const Header as usize;
                    assert!(seen.insert(at), "slot ({r}, {t}, {k}) shared");
                    assert!(at >= base as usize + npes * 128);
                    assert!(s.payload as usize + CHUNK <= base as usize + len);
                }
            }
        }
        assert_eq!(
            area.slot(1, 2, 0).header as *const Header,
            area.slot(1, 2, SLOTS as u64).header as *const Header,
            "tickets reuse slots modulo SLOTS"
        );
        assert_ne!(
            area.requests(0) as *const AtomicU64,
            area.requests(1) as *const AtomicU64
        );
    }
}
