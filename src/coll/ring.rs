//! A single-producer, single-consumer queue of cache-line cells in a
//! receiver's pSync inbox: the eager broadcast's path from one root to one
//! receiver (`bcast::eager`). The consumer reads its own inbox; the producer
//! writes the receiver's through the address the transport gives for it
//! (`Transport::local_ptr`), so the eager path runs only among PEs that share
//! memory, and each side wakes the other with `Transport::wake`.
//!
//! Each 64-byte cell is a header word and 56 bytes of payload. The header is
//! 0 while the cell is free and the message's [`Tag`] while it holds data
//! (its length in bytes, and on a team's inbox the broadcast's root and the
//! team's count of one-round calls), so every cell publishes itself: the
//! producer writes the payload and
//! then the header (release); the consumer waits for the header (acquire),
//! copies the payload out, zeroes the cell and then the header (release). A
//! message of `len` bytes takes `cells(len)` consecutive cells, wrapping at the
//! end of the ring (consecutive in order, two lines apart in memory: see
//! `Ring::cell`). Both sides move a message in chunks of up to the whole
//! ring, each once its last cell is ready (freed for the producer, filled
//! for the consumer; cells are freed and filled in order), so they do not
//! work on the same lines at once, and a message longer than the ring
//! streams through it.
//!
//! No word is shared by the two sides: a message costs the cache lines of
//! its cells, moved once to the consumer and once back when the producer
//! reuses them; each side asks for a chunk's lines together ([`Ring::prefetch`])
//! so that their transfers overlap. Where the next message starts is a count of cells
//! that each side keeps in its own private memory ([`Cursors`]), not in the
//! pSync: both sides count the same messages, so their counts agree whenever
//! the ring is empty, and an empty ring is all zeros (the pSync reads as
//! `SHMEM_SYNC_VALUE` again).

use std::cell::Cell;
use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// Bytes of a cell: one cache line.
pub(crate) const CELL: usize = 64;
/// Payload bytes of a cell (after its header word).
pub(crate) const PAYLOAD: usize = CELL - 8;

/// Cells a message of `len` bytes takes.
pub(crate) const fn cells(len: usize) -> usize {
    len.div_ceil(PAYLOAD)
}

/// What a cell's header says about its message, which the consumer compares
/// with what it expects: the length in bytes (bits 0..32, never 0), the
/// root + 1 of a team broadcast (bits 32..48; 0: not a broadcast, or not on a
/// team) and the team's count of one-round calls, modulo 2^16 (bits 48..64;
/// 0 on an active set's pSync, whose calls are not counted). The count tells
/// a message of this call from one of a later call: a member runs ahead of
/// another by at most the messages a ring holds (511), far fewer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Tag(pub u64);

impl Tag {
    /// A message of `len` bytes, nothing more (an active set's pSync).
    pub(crate) const fn len_only(len: usize) -> Tag {
        Tag(len as u64)
    }

    /// A message of `len` bytes (`0 < len < 2^32`) of the team's one-round
    /// call `call`, a broadcast from `root` (`< 2^16 - 1`, as a team that
    /// uses its inbox has at most 512 members) or else an exchange.
    pub(crate) fn new(len: usize, root: Option<usize>, call: u64) -> Tag {
        debug_assert!(len > 0 && (len as u64) < 1 << 32 && root.is_none_or(|r| r < 0xffff));
        let root = root.map_or(0, |r| r as u64 + 1);
        Tag(len as u64 | root << 32 | (call & 0xffff) << 48)
    }

    /// The message's length in bytes.
    pub(crate) fn bytes(self) -> usize {
        (self.0 & 0xffff_ffff) as usize
    }

    /// The broadcast's root, if the message is a team broadcast's.
    pub(crate) fn root(self) -> Option<usize> {
        ((self.0 >> 32) & 0xffff).checked_sub(1).map(|r| r as usize)
    }

    /// The team's count of one-round calls when it was sent (modulo 2^16).
    pub(crate) fn call(self) -> u64 {
        self.0 >> 48
    }
}

/// `lines` cells from `base`, in memory mapped by this process.
#[derive(Clone, Copy)]
pub(crate) struct Ring {
    base: *mut u8,
    lines: usize,
}

/// What a consumer found in a cell instead of its message.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Mismatch {
    /// The header found: the producer's message's tag.
    pub found: Tag,
}

impl Ring {
    /// # Safety
    /// `base` is 64-aligned and `lines * CELL` bytes from it stay mapped and
    /// are used only as ring cells (by one producer and one consumer) for
    /// the life of the value.
    pub(crate) unsafe fn new(base: *mut u8, lines: usize) -> Ring {
        debug_assert!((base as usize).is_multiple_of(CELL) && lines > 0);
        Ring { base, lines }
    }

    /// Cell `seq`'s line: consecutive cells sit two lines apart (the even
    /// lines of the ring first, then the odd ones), so that the producer
    /// writing one cell and the consumer clearing the one before never touch
    /// the same 128-byte pair of lines, which the adjacent-line prefetchers
    /// of x86-64 cores move between caches together. With neighbouring
    /// lines, an 8-byte team broadcast between two CPUs took 0.19 µs; with
    /// this order 0.064 µs (`benches/c/coll.c`, the same machine).
    fn cell(&self, seq: u64) -> *mut u8 {
        // Inside the ring (see `new`): line_of(..) < lines.
        self.base.wrapping_add(Ring::line_of(self.lines, seq) * CELL)
    }

    /// The line of cell `seq` in a ring of `lines` cells (see
    /// [`cell`](Self::cell)): what a producer on another node, which has no
    /// address for the ring, adds to the ring's offset.
    pub(crate) fn line_of(lines: usize, seq: u64) -> usize {
        let i = (seq % lines as u64) as usize;
        let half = lines.div_ceil(2);
        // line < lines: i < half gives 2i <= 2(half - 1) <= lines - 1, and
        // i >= half gives 2(i - half) + 1 <= 2(lines - 1 - half) + 1 <
        // lines; a bijection on 0..lines.
        if i < half { 2 * i } else { 2 * (i - half) + 1 }
    }

    fn header(&self, seq: u64) -> &AtomicU64 {
        // SAFETY: a cell's first word, 8-aligned, accessed atomically by both
        // sides (see `new`).
        unsafe { AtomicU64::from_ptr(self.cell(seq) as *mut u64) }
    }

    /// Whether the producer may write cell `seq`.
    pub(crate) fn free(&self, seq: u64) -> bool {
        self.header(seq).load(Ordering::Acquire) == 0
    }

    /// Whether cell `seq` holds data for the consumer.
    fn ready(&self, seq: u64) -> bool {
        self.header(seq).load(Ordering::Relaxed) != 0
    }

    /// The tag of the message whose first cell is `seq`, if it holds one
    /// (a look, for the consumer, at what a producer sent without taking it).
    pub(crate) fn peek(&self, seq: u64) -> Option<Tag> {
        let h = self.header(seq).load(Ordering::Relaxed);
        (h != 0).then_some(Tag(h))
    }

    /// The cell a side waits for to go on with a message of `total` cells,
    /// `done` of them moved: the last cell of the next chunk (the rest of
    /// the message, at most the whole ring). The consumer frees cells in
    /// order, so once that cell is free the chunk's earlier ones are too;
    /// the producer publishes them in order, so once it holds data the
    /// earlier ones do.
    pub(crate) fn chunk_end(&self, start: u64, total: usize, done: usize) -> u64 {
        start + total.min(done + self.lines) as u64 - 1
    }

    /// Consumer: whether the next chunk of its message tagged `tag` (`done`
    /// cells taken, starting at cell count `start`) is all there, or the
    /// next cell holds a message with another tag (for [`pop`](Self::pop)
    /// to report).
    ///
    /// A producer on another node publishes each cell by a message of its
    /// own, which a transport may deliver out of order: the chunk's first
    /// cell is looked at too, and [`pop`](Self::pop) stops at a cell not
    /// yet there.
    pub(crate) fn arrived(&self, start: u64, tag: Tag, done: usize) -> bool {
        let (first, end) = (start + done as u64, self.chunk_end(start, cells(tag.bytes()), done));
        if self.ready(end) && (end == first || self.ready(first)) {
            return true;
        }
        let h = self.header(first).load(Ordering::Relaxed);
        h != 0 && h != tag.0
    }

    /// Asks for the lines of cells `first..=last` (at most `PREFETCH` of
    /// them) for writing, all at once: each side writes every line it
    /// touches, and the transfers of lines asked for together overlap.
    pub(crate) fn prefetch(&self, first: u64, last: u64) {
        for seq in first..=last.min(first + PREFETCH as u64 - 1) {
            prefetch_write(self.cell(seq));
        }
    }

    /// [`prefetch`](Self::prefetch) of the producer's next chunk.
    pub(crate) fn prefetch_push(&self, start: u64, total: usize, done: usize) {
        self.prefetch(start + done as u64, self.chunk_end(start, total, done));
    }

    /// Producer: writes the chunks of `msg`, tagged `tag` (of its length),
    /// from its cell `done` on (the message starts at cell count `start`)
    /// for which the ring has room,
    /// whole chunks only, so that it does not write lines the consumer is
    /// reading. Returns the cells written.
    pub(crate) fn push(&self, start: u64, msg: &[u8], done: usize, tag: Tag) -> usize {
        debug_assert_eq!(tag.bytes(), msg.len());
        let total = cells(msg.len());
        let mut i = done;
        while i < total && self.free(self.chunk_end(start, total, i)) {
            let end = total.min(i + self.lines);
            for j in i..end {
                let seq = start + j as u64;
                let piece = &msg[j * PAYLOAD..msg.len().min((j + 1) * PAYLOAD)];
                // SAFETY: the cell is free (see `chunk_end`), so only this
                // producer touches its payload until the header below
                // publishes it; piece.len() <= PAYLOAD.
                unsafe { copy(piece.as_ptr(), self.cell(seq).add(8), piece.len()) };
                self.header(seq).store(tag.0, Ordering::Release);
            }
            i = end;
        }
        i - done
    }

    /// Consumer: takes the chunks of its message, tagged `tag` (of
    /// `dest`'s length), into `dest` from its cell
    /// `done` on (the message starts at cell count `start`) that are there,
    /// freeing each cell. Returns the cells taken, or what it found in a cell
    /// that holds a message with another tag.
    pub(crate) fn pop(&self, start: u64, dest: &mut [u8], done: usize, tag: Tag) -> Result<usize, Mismatch> {
        debug_assert_eq!(tag.bytes(), dest.len());
        let (len, total) = (dest.len(), cells(dest.len()));
        let mut i = done;
        while i < total {
            let last = self.chunk_end(start, total, i);
            if !self.ready(last) {
                let h = self.header(start + i as u64).load(Ordering::Relaxed);
                if h != 0 && h != tag.0 {
                    return Err(Mismatch { found: Tag(h) });
                }
                break;
            }
            self.prefetch(start + i as u64, last);
            for seq in start + i as u64..=last {
                // Published (the chunk's last cell is, and a local producer
                // publishes in order; a remote one's cell may still be on
                // its way); the producer leaves the cell alone until its
                // header is 0 again.
                let h = self.header(seq).load(Ordering::Acquire);
                if h == 0 {
                    return Ok((seq - start) as usize - done);
                }
                if h != tag.0 {
                    return Err(Mismatch { found: Tag(h) });
                }
                let j = (seq - start) as usize;
                let piece = &mut dest[j * PAYLOAD..len.min((j + 1) * PAYLOAD)];
                let at = self.cell(seq);
                // SAFETY: the payload was published before the header
                // (acquire above), and piece.len() <= PAYLOAD.
                unsafe {
                    copy(at.add(8), piece.as_mut_ptr(), piece.len());
                    clear(at.add(8), piece.len());
                }
                // The zeroes are visible before the cell is free.
                self.header(seq).store(0, Ordering::Release);
            }
            i = (last - start) as usize + 1;
        }
        Ok(i - done)
    }
}

/// Cells asked for at once (more are left to the hardware's prefetcher).
const PREFETCH: usize = 64;

/// A hint that this core will write the line at `p` (x86-64 `prefetchw`;
/// nothing elsewhere). A hint never faults.
#[inline(always)]
fn prefetch_write(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch has no architectural effect and never faults.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_ET0 }>(p as *const i8)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Copies `len <= PAYLOAD` bytes; whole payloads with a fixed-size copy,
/// which the compiler inlines.
///
/// # Safety
/// As `copy_nonoverlapping`.
#[inline(always)]
unsafe fn copy(src: *const u8, dst: *mut u8, len: usize) {
    // SAFETY: caller's contract.
    unsafe {
        if len == PAYLOAD {
            std::ptr::copy_nonoverlapping(src as *const [u8; PAYLOAD], dst as *mut [u8; PAYLOAD], 1);
        } else {
            std::ptr::copy_nonoverlapping(src, dst, len);
        }
    }
}

/// Zeroes `len <= PAYLOAD` bytes (see [`copy`]).
///
/// # Safety
/// As `write_bytes`.
#[inline(always)]
unsafe fn clear(dst: *mut u8, len: usize) {
    // SAFETY: caller's contract.
    unsafe {
        if len == PAYLOAD {
            std::ptr::write_bytes(dst as *mut [u8; PAYLOAD], 0, 1);
        } else {
            std::ptr::write_bytes(dst, 0, len);
        }
    }
}

/// This PE's cell counts for the rings of one pSync (by its symmetric
/// offset): to each world PE as a root, and from each as a receiver.
#[derive(Debug)]
pub(crate) struct Cursors {
    to: Box<[AtomicU64]>,
    from: Box<[AtomicU64]>,
    freed: Box<[AtomicU64]>,
}

impl Cursors {
    /// Cells sent so far to world PE `pe` through this pSync.
    pub(crate) fn to(&self, pe: usize) -> &AtomicU64 {
        &self.to[pe]
    }

    /// Cells received so far from world PE `pe` through this pSync.
    pub(crate) fn from(&self, pe: usize) -> &AtomicU64 {
        &self.from[pe]
    }

    /// Cells this PE knows world PE `pe` has freed of those it sent there
    /// (a producer on another node, which cannot look at the cells at no
    /// cost, counts the room it learnt of: `bcast`'s remote push).
    pub(crate) fn freed(&self, pe: usize) -> &AtomicU64 {
        &self.freed[pe]
    }
}

/// The cursors of every pSync this PE has broadcast on. Entries live as long
/// as the process (two words per PE of the job per pSync address): a pSync
/// may be freed and its address reused, and the counts stay right because
/// both sides of every ring keep counting the same messages.
static CURSORS: Mutex<Option<HashMap<usize, &'static Cursors>>> = Mutex::new(None);

thread_local! {
    /// The last two pSyncs' cursors of this thread (the legacy idiom
    /// alternates two), so that most calls skip the lock.
    static RECENT: Cell<[Option<(usize, &'static Cursors)>; 2]> = const { Cell::new([None, None]) };
}

/// The cursors of the pSync at symmetric offset `psync` in a job of `npes`.
/// Only the caller's thread uses a pSync's counts during a call (a pSync is
/// not used by two calls at once), so relaxed accesses suffice.
pub(crate) fn cursors(psync: usize, npes: usize) -> &'static Cursors {
    RECENT.with(|recent| {
        let last = recent.get();
        if let Some((_, c)) = last.iter().flatten().find(|(k, _)| *k == psync) {
            return *c;
        }
        let mut map = CURSORS.lock().unwrap_or_else(|e| e.into_inner());
        let c = *map.get_or_insert_with(HashMap::new).entry(psync).or_insert_with(|| {
            let zeros = || (0..npes).map(|_| AtomicU64::new(0)).collect();
            Box::leak(Box::new(Cursors {
                to: zeros(),
                from: zeros(),
                freed: zeros(),
            }))
        });
        recent.set([Some((psync, c)), last[0]]);
        c
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
            let tag = Tag::new(len, Some(3), seq);
            assert_eq!(r.push(seq, &m, 0, tag), cells(len));
            let mut d = vec![0u8; len];
            assert_eq!(r.pop(seq, &mut d, 0, tag), Ok(cells(len)));
            assert_eq!(d, m);
            seq += cells(len) as u64;
            assert!(b.all_zero());
        }
    }

    /// What a producer on another node does (`bcast::push_remote`): each
    /// cell's payload, then its header, one message per cell, which may
    /// land in any order.
    fn land_cell(r: &Ring, seq: u64, piece: &[u8], tag: Tag) {
        // SAFETY: a free cell of the test's ring; piece.len() <= PAYLOAD.
        unsafe { copy(piece.as_ptr(), r.cell(seq).add(8), piece.len()) };
        r.header(seq).store(tag.0, Ordering::Release);
    }

    #[test]
    fn cells_landing_out_of_order_are_taken_in_order_once_there() {
        let mut b = Buf::new(8);
        let r = b.ring();
        let (len, seq) = (PAYLOAD * 3 + 5, 6u64);
        let (m, tag) = (msg(len, 7), Tag::len_only(len));
        let pieces: Vec<&[u8]> = m.chunks(PAYLOAD).collect();
        let mut d = vec![0u8; len];
        // The last cell first: not arrived (the first is missing), nothing taken.
        land_cell(&r, seq + 3, pieces[3], tag);
        assert!(!r.arrived(seq, tag, 0));
        assert_eq!(r.pop(seq, &mut d, 0, tag), Ok(0));
        // The first two: taken up to the gap, not past it.
        land_cell(&r, seq, pieces[0], tag);
        land_cell(&r, seq + 1, pieces[1], tag);
        assert!(r.arrived(seq, tag, 0));
        assert_eq!(r.pop(seq, &mut d, 0, tag), Ok(2));
        assert!(!r.arrived(seq, tag, 2));
        assert_eq!(r.pop(seq, &mut d, 2, tag), Ok(0));
        // The gap filled: the rest, and the ring is empty again.
        land_cell(&r, seq + 2, pieces[2], tag);
        assert!(r.arrived(seq, tag, 2));
        assert_eq!(r.pop(seq, &mut d, 2, tag), Ok(2));
        assert_eq!(d, m);
        assert!(b.all_zero());
    }

    #[test]
    fn consecutive_cells_sit_two_lines_apart_and_fill_the_ring() {
        for lines in 1..40 {
            let mut b = Buf::new(lines);
            let r = b.ring();
            let at = |seq: u64| (r.cell(seq) as usize - r.base as usize) / CELL;
            let mut seen = vec![false; lines];
            for seq in 0..lines as u64 {
                assert!(
                    !std::mem::replace(&mut seen[at(seq)], true),
                    "lines {lines}: seq {seq} reused"
                );
                // Within each half, neighbours in order are two lines apart.
                if seq + 1 < lines.div_ceil(2) as u64 {
                    assert_eq!(at(seq + 1), at(seq) + 2);
                }
            }
            assert!(seen.iter().all(|&s| s));
            assert_eq!(at(lines as u64), at(0), "the ring wraps");
        }
    }

    #[test]
    fn a_full_ring_stops_the_producer_until_the_consumer_frees_cells() {
        let mut b = Buf::new(4);
        let r = b.ring();
        let (m1, m2) = (msg(PAYLOAD * 3, 7), msg(PAYLOAD * 2, 9));
        let (t1, t2) = (Tag::len_only(m1.len()), Tag::len_only(m2.len()));
        assert_eq!(r.push(0, &m1, 0, t1), 3);
        // One cell of room for two: the second message waits, whole.
        assert_eq!(r.push(3, &m2, 0, t2), 0);
        let mut d1 = vec![0u8; m1.len()];
        assert_eq!(r.pop(0, &mut d1, 0, t1), Ok(3));
        assert_eq!(r.push(3, &m2, 0, t2), 2);
        let mut d2 = vec![0u8; m2.len()];
        assert_eq!(r.pop(3, &mut d2, 0, t2), Ok(2));
        assert_eq!((d1, d2), (m1, m2));
        // Nothing more is there: the consumer takes nothing.
        assert_eq!(r.pop(5, &mut [0u8; 8], 0, Tag::len_only(8)), Ok(0));
        assert!(b.all_zero());
    }

    #[test]
    fn a_message_longer_than_the_ring_streams_through() {
        let mut b = Buf::new(3);
        let r = b.ring();
        let m = msg(PAYLOAD * 10 + 5, 5);
        let tag = Tag::new(m.len(), None, 7);
        let mut d = vec![0u8; m.len()];
        let (mut sent, mut got) = (0, 0);
        while got < cells(m.len()) {
            sent += r.push(100, &m, sent, tag);
            got += r.pop(100, &mut d, got, tag).unwrap();
        }
        assert_eq!(d, m);
        assert!(b.all_zero());
    }

    #[test]
    fn a_consumer_expecting_another_length_is_told() {
        let mut b = Buf::new(2);
        let r = b.ring();
        assert_eq!(r.push(0, &msg(16, 1), 0, Tag::len_only(16)), 1);
        // Expecting 3 cells, it does not wait for the third: the first
        // tells it the message is another.
        let long = PAYLOAD * 2 + 1;
        let t = Tag::len_only(long);
        assert!(r.arrived(0, t, 0));
        let found = Tag::len_only(16);
        assert_eq!(r.pop(0, &mut vec![0u8; long], 0, t), Err(Mismatch { found }));
    }

    #[test]
    fn a_consumer_expecting_another_root_or_call_is_told_and_takes_nothing() {
        let mut b = Buf::new(4);
        let r = b.ring();
        let sent = Tag::new(8, Some(1), 5);
        assert_eq!(r.push(0, &msg(8, 1), 0, sent), 1);
        assert_eq!(r.peek(0), Some(sent));
        assert_eq!(r.peek(1), None);
        for other in [Tag::new(8, Some(0), 5), Tag::new(8, Some(1), 6), Tag::new(8, None, 5)] {
            assert!(r.arrived(0, other, 0));
            assert_eq!(r.pop(0, &mut [0u8; 8], 0, other), Err(Mismatch { found: sent }));
        }
        assert_eq!(r.pop(0, &mut [0u8; 8], 0, sent), Ok(1));
        assert!(b.all_zero());
    }

    #[test]
    fn tags_keep_length_root_and_call_apart() {
        let t = Tag::new(2048, Some(511), 0x1_0003);
        assert_eq!((t.bytes(), t.root(), t.call()), (2048, Some(511), 3));
        let t = Tag::new(1, None, 0xffff);
        assert_eq!((t.bytes(), t.root(), t.call()), (1, None, 0xffff));
        assert_eq!(Tag::new(8, Some(0), 0), Tag(8 | 1 << 32));
        assert_eq!(Tag::len_only(8), Tag::new(8, None, 0));
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
