//! A single-producer, single-consumer queue of cache-line cells in a
//! receiver's pSync inbox: the eager broadcast's path from one root to one
//! receiver (`bcast::eager`).
//!
//! Each 64-byte cell is a header word and 56 bytes of payload. The header is
//! 0 while the cell is free and the message's length in bytes while it holds
//! data, so every cell publishes itself: the producer writes the payload and
//! then the header (release); the consumer waits for the header (acquire),
//! copies the payload out, zeroes the cell and then the header (release). A
//! message of `len` bytes takes `cells(len)` consecutive cells, wrapping at the
//! end of the ring, and may be longer than the ring: the producer stops at the
//! first cell not yet freed and resumes later, so a message streams through.
//!
//! No word is shared by the two sides: a message costs the cache lines of
//! its cells, moved once to the consumer and once back when the producer
//! reuses them, and the producer's check for room is a read of the line it is
//! about to write anyway. Where the next message starts is a count of cells
//! that each side keeps in its own private memory ([`Cursors`]), not in the
//! pSync: both sides count the same messages, so their counts agree whenever
//! the ring is empty, and an empty ring is all zeros (the pSync reads as
//! `SHMEM_SYNC_VALUE` again).

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// Bytes of a cell: one cache line.
pub const CELL: usize = 64;
/// Payload bytes of a cell (after its header word).
pub const PAYLOAD: usize = CELL - 8;

/// Cells a message of `len` bytes takes.
pub const fn cells(len: usize) -> usize {
    len.div_ceil(PAYLOAD)
}

/// `lines` cells from `base`, in memory mapped by this process.
#[derive(Clone, Copy)]
pub struct Ring {
    base: *mut u8,
    lines: usize,
}

/// What a consumer found in a cell instead of its message.
#[derive(Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// The header found: the length of the producer's message.
    pub found: u64,
}

impl Ring {
    /// # Safety
    /// `base` is 64-aligned and `lines * CELL` bytes from it stay mapped and
    /// are used only as ring cells (by one producer and one consumer) for
    /// the life of the value.
    pub unsafe fn new(base: *mut u8, lines: usize) -> Ring {
        debug_assert!(base as usize % CELL == 0 && lines > 0);
        Ring { base, lines }
    }

    fn cell(&self, seq: u64) -> *mut u8 {
        let i = (seq % self.lines as u64) as usize;
        // i < lines: inside the ring (see `new`).
        self.base.wrapping_add(i * CELL)
    }

    fn header(&self, seq: u64) -> &AtomicU64 {
        // SAFETY: a cell's first word, 8-aligned, accessed atomically by both
        // sides (see `new`).
        unsafe { AtomicU64::from_ptr(self.cell(seq) as *mut u64) }
    }

    /// Whether the producer may write cell `seq`.
    pub fn free(&self, seq: u64) -> bool {
        self.header(seq).load(Ordering::Acquire) == 0
    }

    /// Whether cell `seq` holds data for the consumer.
    pub fn ready(&self, seq: u64) -> bool {
        self.header(seq).load(Ordering::Relaxed) != 0
    }

    /// Producer: writes the cells of `msg` from its cell `done` on, for the
    /// message that starts at cell count `start`, until the message is
    /// written or a cell is not free. Returns the cells written.
    pub fn push(&self, start: u64, msg: &[u8], done: usize) -> usize {
        let total = cells(msg.len());
        let mut i = done;
        while i < total {
            let seq = start + i as u64;
            if !self.free(seq) {
                break;
            }
            let piece = &msg[i * PAYLOAD..msg.len().min((i + 1) * PAYLOAD)];
            // SAFETY: the cell is free, so only this producer touches its
            // payload until the header below publishes it; piece.len() <=
            // PAYLOAD.
            unsafe { std::ptr::copy_nonoverlapping(piece.as_ptr(), self.cell(seq).add(8), piece.len()) };
            self.header(seq).store(msg.len() as u64, Ordering::Release);
            i += 1;
        }
        i - done
    }

    /// Consumer: takes the cells of its message into `dest` from its cell
    /// `done` on (the message starts at cell count `start`) while they are
    /// there, freeing each. Returns the cells taken, or what it found in the
    /// first cell if that holds a message of another length.
    pub fn pop(&self, start: u64, dest: &mut [u8], done: usize) -> Result<usize, Mismatch> {
        let (len, total) = (dest.len(), cells(dest.len()));
        let mut i = done;
        while i < total {
            let seq = start + i as u64;
            let h = self.header(seq).load(Ordering::Acquire);
            if h == 0 {
                break;
            }
            if h != len as u64 {
                return Err(Mismatch { found: h });
            }
            let piece = &mut dest[i * PAYLOAD..len.min((i + 1) * PAYLOAD)];
            let at = self.cell(seq);
            // SAFETY: the header published the payload (acquire above); the
            // producer leaves the cell alone until the header is 0 again.
            unsafe {
                std::ptr::copy_nonoverlapping(at.add(8), piece.as_mut_ptr(), piece.len());
                std::ptr::write_bytes(at.add(8), 0, piece.len());
            }
            // The zeroes are visible before the cell is free.
            self.header(seq).store(0, Ordering::Release);
            i += 1;
        }
        Ok(i - done)
    }
}

/// This PE's cell counts for the rings of one pSync (by its symmetric
/// offset): to each world PE as a root, and from each as a receiver.
pub struct Cursors {
    to: Box<[AtomicU64]>,
    from: Box<[AtomicU64]>,
}

impl Cursors {
    /// Cells sent so far to world PE `pe` through this pSync.
    pub fn to(&self, pe: usize) -> &AtomicU64 {
        &self.to[pe]
    }

    /// Cells received so far from world PE `pe` through this pSync.
    pub fn from(&self, pe: usize) -> &AtomicU64 {
        &self.from[pe]
    }
}

/// The cursors of every pSync this PE has broadcast on. Entries live as long
/// as the process (two words per PE of the job per pSync address): a pSync
/// may be freed and its address reused, and the counts stay right because
/// both sides of every ring keep counting the same messages.
static CURSORS: Mutex<Option<HashMap<usize, &'static Cursors>>> = Mutex::new(None);

/// The cursors of the pSync at symmetric offset `psync` in a job of `npes`.
/// Only the caller's thread uses a pSync's counts during a call (a pSync is
/// not used by two calls at once), so relaxed accesses suffice.
pub fn cursors(psync: usize, npes: usize) -> &'static Cursors {
    let mut map = CURSORS.lock().unwrap_or_else(|e| e.into_inner());
    map.get_or_insert_with(HashMap::new).entry(psync).or_insert_with(|| {
        let zeros = || (0..npes).map(|_| AtomicU64::new(0)).collect();
        Box::leak(Box::new(Cursors {
            to: zeros(),
            from: zeros(),
        }))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A ring over a 64-aligned buffer of `lines` cells.
    struct Buf {
        mem: Vec<u8>,
        lines: usize,
    }

    impl Buf {
        fn new(lines: usize) -> Buf {
            Buf {
                mem: vec![0; (lines + 1) * CELL],
                lines,
            }
        }
        fn ring(&mut self) -> Ring {
            let p = self.mem.as_mut_ptr();
            let base = p.wrapping_add(p.align_offset(CELL));
            // SAFETY: 64-aligned, lines cells inside mem, which outlives the ring in each test.
            unsafe { Ring::new(base, self.lines) }
        }
        fn all_zero(&self) -> bool {
            self.mem.iter().all(|&b| b == 0)
        }
    }

    fn msg(len: usize, salt: u8) -> Vec<u8> {
        (0..len)
            .map(|i| (i as u8).wrapping_mul(31).wrapping_add(salt) | 1)
            .collect()
    }

    #[test]
    fn messages_wrap_around_and_leave_zeros() {
        let mut b = Buf::new(4);
        let r = b.ring();
        // Start near the end so that a 3-cell message wraps.
        let mut seq = 3u64;
        for (len, salt) in [(150, 1u8), (8, 2), (PAYLOAD * 3, 3), (1, 4)] {
            let m = msg(len, salt);
            assert_eq!(r.push(seq, &m, 0), cells(len));
            let mut d = vec![0u8; len];
            assert_eq!(r.pop(seq, &mut d, 0), Ok(cells(len)));
            assert_eq!(d, m);
            seq += cells(len) as u64;
            assert!(b.all_zero());
        }
    }

    #[test]
    fn a_full_ring_stops_the_producer_until_the_consumer_frees_cells() {
        let mut b = Buf::new(4);
        let r = b.ring();
        let (m1, m2) = (msg(PAYLOAD * 3, 7), msg(PAYLOAD * 2, 9));
        assert_eq!(r.push(0, &m1, 0), 3);
        // One cell of room: the second message gets one cell, then waits.
        assert_eq!(r.push(3, &m2, 0), 1);
        assert_eq!(r.push(3, &m2, 1), 0);
        let mut d1 = vec![0u8; m1.len()];
        assert_eq!(r.pop(0, &mut d1, 0), Ok(3));
        assert_eq!(r.push(3, &m2, 1), 1);
        let mut d2 = vec![0u8; m2.len()];
        assert_eq!(r.pop(3, &mut d2, 0), Ok(2));
        assert_eq!((d1, d2), (m1, m2));
        // Nothing more is there: the consumer takes nothing.
        assert_eq!(r.pop(5, &mut [0u8; 8], 0), Ok(0));
        assert!(b.all_zero());
    }

    #[test]
    fn a_message_longer_than_the_ring_streams_through() {
        let mut b = Buf::new(3);
        let r = b.ring();
        let m = msg(PAYLOAD * 10 + 5, 5);
        let mut d = vec![0u8; m.len()];
        let (mut sent, mut got) = (0, 0);
        while got < cells(m.len()) {
            sent += r.push(100, &m, sent);
            got += r.pop(100, &mut d, got).unwrap();
        }
        assert_eq!(d, m);
        assert!(b.all_zero());
    }

    #[test]
    fn a_consumer_expecting_another_length_is_told() {
        let mut b = Buf::new(2);
        let r = b.ring();
        assert_eq!(r.push(0, &msg(16, 1), 0), 1);
        assert_eq!(r.pop(0, &mut [0u8; 24], 0), Err(Mismatch { found: 16 }));
    }

    #[test]
    fn cursors_are_per_psync_and_persist() {
        let a = cursors(1 << 40, 4);
        a.to(3).fetch_add(5, Ordering::Relaxed);
        assert_eq!(cursors(1 << 40, 4).to(3).load(Ordering::Relaxed), 5);
        assert_eq!(cursors((1 << 40) + 64, 4).to(3).load(Ordering::Relaxed), 0);
        assert_eq!(a.from(3).load(Ordering::Relaxed), 0);
    }
}
