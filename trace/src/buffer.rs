//! A PE's events: a fixed array of compact records, filled through one atomic
//! index, so recording allocates nothing and is safe from any thread.
//!
//! Policy when full: the first `capacity` events are kept and the rest are
//! counted, not stored. Every PE then shows the same beginning of the run,
//! lined up across tracks, instead of a tail starting at a different moment
//! on each PE (as overwriting the oldest would give); and a slot, once
//! written, is never written again, so no reader sees half of two records.

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicU64, Ordering};

/// One call: 32 bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct Record {
    /// `CLOCK_MONOTONIC` nanoseconds at the call and at its return.
    pub start: u64,
    pub end: u64,
    /// Bytes the call moved (elements times element size), 0 if none.
    pub bytes: u64,
    /// The `pe` argument (the root of a broadcast), -1 if none.
    pub peer: i32,
    /// Index into `ROUTINES`.
    pub routine: u16,
    /// The recording thread, numbered from 0 in the order threads first
    /// recorded.
    pub thread: u16,
}

impl Record {
    /// The record as bytes, for the part file.
    pub fn to_bytes(self) -> [u8; 32] {
        let mut b = [0u8; 32];
        b[0..8].copy_from_slice(&self.start.to_le_bytes());
        b[8..16].copy_from_slice(&self.end.to_le_bytes());
        b[16..24].copy_from_slice(&self.bytes.to_le_bytes());
        b[24..28].copy_from_slice(&self.peer.to_le_bytes());
        b[28..30].copy_from_slice(&self.routine.to_le_bytes());
        b[30..32].copy_from_slice(&self.thread.to_le_bytes());
        b
    }

    /// The record `to_bytes` wrote.
    pub fn from_bytes(b: &[u8; 32]) -> Record {
        let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
        Record {
            start: u64_at(0),
            end: u64_at(8),
            bytes: u64_at(16),
            peer: i32::from_le_bytes(b[24..28].try_into().expect("4 bytes")),
            routine: u16::from_le_bytes([b[28], b[29]]),
            thread: u16::from_le_bytes([b[30], b[31]]),
        }
    }
}

/// Most events a PE may be asked to keep (8 GiB of records).
pub const MAX_CAPACITY: u64 = 1 << 28;

/// The records of one PE.
pub struct Buffer {
    slots: Box<[UnsafeCell<Record>]>,
    /// Events offered so far, kept or not: the next slot to fill.
    next: AtomicU64,
}

// SAFETY: each slot is written by the one thread whose `fetch_add` returned
// its index, and read (by `kept`) only after the recording threads are done
// (at shmem_finalize, which the specification puts after every other call).
unsafe impl Sync for Buffer {}

impl Buffer {
    /// A buffer of `capacity` records, zeroed by the allocator: the pages are
    /// only backed by memory once events land in them.
    pub fn new(capacity: usize) -> Buffer {
        let capacity = capacity.max(1);
        let layout = std::alloc::Layout::array::<UnsafeCell<Record>>(capacity).expect("capacity checked by the caller");
        // SAFETY: the layout has a non-zero size (capacity >= 1).
        let p = unsafe { std::alloc::alloc_zeroed(layout) } as *mut UnsafeCell<Record>;
        if p.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        // SAFETY: `p` comes from the global allocator with the layout of
        // `capacity` records, and all-zero bytes are a valid Record (plain
        // integers); calloc leaves large blocks untouched until written.
        let v = unsafe { Vec::from_raw_parts(p, capacity, capacity) };
        Buffer {
            slots: v.into_boxed_slice(),
            next: AtomicU64::new(0),
        }
    }

    pub fn capacity(&self) -> usize {
        self.slots.len()
    }

    /// Stores `r`, or counts it as dropped when the buffer is full.
    #[inline]
    pub fn push(&self, r: Record) {
        let i = self.next.fetch_add(1, Ordering::Relaxed);
        if let Some(slot) = self.slots.get(i as usize) {
            // SAFETY: `fetch_add` hands each index out once, so this thread is
            // the only writer of the slot, and nobody reads it until finalize.
            unsafe { *slot.get() = r };
        }
    }

    /// Events offered so far (kept and dropped).
    pub fn offered(&self) -> u64 {
        self.next.load(Ordering::Acquire)
    }

    /// The records kept, in the order their slots were taken. Call once the
    /// recording threads are done.
    pub fn kept(&self) -> Vec<Record> {
        let n = (self.offered() as usize).min(self.capacity());
        // SAFETY: slots below `n` were written, by threads done recording.
        self.slots[..n].iter().map(|s| unsafe { *s.get() }).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_first_events_and_counts_the_rest() {
        let b = Buffer::new(3);
        for i in 0..5 {
            b.push(Record {
                start: i,
                end: i + 1,
                ..Record::default()
            });
        }
        assert_eq!(b.offered(), 5);
        let kept = b.kept();
        assert_eq!(kept.len(), 3);
        assert_eq!(kept.iter().map(|r| r.start).collect::<Vec<_>>(), [0, 1, 2]);
    }

    #[test]
    fn records_round_trip_through_bytes() {
        let r = Record {
            start: 1 << 40,
            end: (1 << 40) + 7,
            bytes: 4096,
            peer: -1,
            routine: 513,
            thread: 2,
        };
        assert_eq!(Record::from_bytes(&r.to_bytes()), r);
    }

    #[test]
    fn threads_fill_distinct_slots() {
        let b = Buffer::new(4000);
        std::thread::scope(|s| {
            for t in 0..4u16 {
                let b = &b;
                s.spawn(move || {
                    for i in 0..1000 {
                        b.push(Record {
                            start: i,
                            thread: t,
                            ..Record::default()
                        });
                    }
                });
            }
        });
        let kept = b.kept();
        for t in 0..4 {
            assert_eq!(kept.iter().filter(|r| r.thread == t).count(), 1000);
        }
    }
}
