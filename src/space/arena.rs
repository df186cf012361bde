//! The space arena: the part at the end of every segment from which spaces
//! (users' and the teams' own synchronisation memory) take their extents.
//!
//! ```text
//! sync_off: [ count | (start, len) x count ... | split (header, HEADER bytes) | data ... ]
//! ```
//! The header lists this PE's used extents of the data part, sorted and merged,
//! and ends with the arguments of the team split the PE is in (`SPLIT_WORDS`
//! words: [`publish_split`](Arena::publish_split)), which the other PEs of the
//! parent team compare with theirs at the same point of the split.
//! Only its own PE writes it; the members of a team being given an extent
//! read it, at a point where every member is inside the same collective call
//! (so no member's list changes while it is read). Every member reads the
//! same lists and runs the same [`first_fit`], so every member picks the same
//! offset: the extent is symmetric across the team, and no PE outside the
//! team takes part. The lists are a handful of words however large the
//! extents are, so agreement costs the same for a 1 KiB team region and a
//! 1 GiB user space.

use crate::heap::SymOffset;
use crate::transport::Transport;
use crate::world::World;
use std::sync::atomic::{AtomicU64, Ordering};

/// Bytes of header before the data part.
pub(crate) const HEADER: usize = 64 << 10;
/// Words at the end of the header for the arguments of a team split.
pub(crate) const SPLIT_WORDS: usize = 4;
/// Extents a PE's list can hold (merged runs of used memory).
pub(crate) const MAX_EXTENTS: usize = (HEADER - 8 - SPLIT_WORDS * 8) / 16;

/// Extents a PE on another node is asked for with its list's count
/// ([`Arena::read_all`]), or sends with it in a team split across nodes
/// (`team::Teams::create`): lists are short (merged runs of used memory; a
/// job's teams and spaces rarely leave more than a few), and 248 bytes are
/// one small message.
pub(crate) const FIRST_EXTENTS: usize = 15;

/// Extents from (start, len) word pairs.
fn pairs(words: &[u64]) -> Vec<Extent> {
    words
        .chunks_exact(2)
        .map(|w| Extent {
            start: w[0] as usize,
            len: w[1] as usize,
        })
        .collect()
}

/// A byte range of the arena's data part: the same on every PE that uses it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Extent {
    pub start: usize,
    pub len: usize,
}

impl Extent {
    pub(crate) fn end(&self) -> usize {
        self.start + self.len
    }
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Arena {
    /// Offset of the arena in every segment.
    base: usize,
    /// Bytes of the data part.
    len: usize,
    /// Address of this PE's arena.
    local: usize,
}

/// Why an extent cannot be recorded.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct ListFull;

impl Arena {
    pub(crate) fn new(w: &World) -> Arena {
        let (base, len) = w.library_region();
        Arena {
            base: base.0,
            len: len.saturating_sub(HEADER),
            local: w.own_addr(base) as usize,
        }
    }

    /// Bytes of the data part.
    pub(crate) fn capacity(&self) -> usize {
        self.len
    }

    /// The lowest extent of `len` bytes free in every list of `lists`, at a
    /// multiple of `align` in every segment (segments start
    /// [`SEGMENT_ALIGN`](crate::heap::SEGMENT_ALIGN)-aligned, so up to that
    /// the addresses are aligned too).
    pub(crate) fn first_fit(&self, lists: &[Vec<Extent>], len: usize, align: usize) -> Option<Extent> {
        let start = first_fit(lists, len, align, self.base + HEADER, self.len)?;
        Some(Extent { start, len })
    }

    /// Offset in every segment of byte `start` of the data part.
    pub(crate) fn offset(&self, start: usize) -> SymOffset {
        SymOffset(self.base + HEADER + start)
    }

    /// Address in this process of byte `start` of this PE's data part.
    pub(crate) fn local_addr(&self, start: usize) -> usize {
        self.local + HEADER + start
    }

    /// Where `[addr, addr+len)` lies in this PE's data part, if it does.
    #[inline]
    pub(crate) fn local_start(&self, addr: usize, len: usize) -> Option<usize> {
        let data = self.local + HEADER;
        let end = addr.checked_add(len)?;
        (addr >= data && end <= data + self.len).then(|| addr - data)
    }

    /// This PE's header word `i` (0 is the count).
    fn word(&self, i: usize) -> &AtomicU64 {
        debug_assert!((i + 1) * 8 <= HEADER);
        // SAFETY: the header lies inside this PE's segment, which stays mapped
        // for the life of the process; it is 8-aligned (the arena starts page
        // aligned) and only ever accessed atomically.
        unsafe { AtomicU64::from_ptr((self.local + i * 8) as *mut u64) }
    }

    /// This PE's used extents.
    pub(crate) fn extents(&self) -> Vec<Extent> {
        let n = self.word(0).load(Ordering::Relaxed) as usize;
        (0..n.min(MAX_EXTENTS))
            .map(|i| Extent {
                start: self.word(1 + 2 * i).load(Ordering::Relaxed) as usize,
                len: self.word(2 + 2 * i).load(Ordering::Relaxed) as usize,
            })
            .collect()
    }

    fn publish(&self, list: &[Extent]) {
        for (i, e) in list.iter().enumerate() {
            self.word(1 + 2 * i).store(e.start as u64, Ordering::Relaxed);
            self.word(2 + 2 * i).store(e.len as u64, Ordering::Relaxed);
        }
        self.word(0).store(list.len() as u64, Ordering::Relaxed);
    }

    /// Forgets every extent (start-up: a new job, or a re-initialisation
    /// after spaces and teams were left behind).
    pub(crate) fn reset(&self) {
        self.word(0).store(0, Ordering::Relaxed);
    }

    /// The used extents of each of `pes`, in order. The PEs this one shares
    /// memory with are read in place; the others (other nodes) with one
    /// non-blocking get each of the count and the first [`FIRST_EXTENTS`],
    /// all completed by one `quiet`: one round trip for the whole group
    /// where a get of the count and then of the list from each member took
    /// two per member, in turn (a team split across nodes). A longer list
    /// costs its member a second get.
    pub(crate) fn read_all<T: Transport>(&self, transport: &T, pes: &[usize]) -> Vec<Vec<Extent>> {
        const WORDS: usize = 1 + 2 * FIRST_EXTENTS;
        // The first words of each member on another node; None: read in place.
        let mut heads: Vec<Option<[u64; WORDS]>> = pes
            .iter()
            .map(|&pe| (!transport.shares_memory(pe)).then_some([0; WORDS]))
            .collect();
        for (&pe, head) in pes.iter().zip(heads.iter_mut()) {
            if let Some(head) = head {
                // SAFETY: words 0..WORDS of the PE's arena header (WORDS * 8
                // < HEADER), into `head`, which lives until the quiet below.
                unsafe { transport.get_nbi(pe, SymOffset(self.base), head.as_mut_ptr() as *mut u8, WORDS * 8) };
            }
        }
        if heads.iter().any(Option::is_some) {
            transport.quiet();
        }
        pes.iter()
            .zip(heads)
            .map(|(&pe, head)| match head {
                Some(head) => self.list_from_head(transport, pe, &head),
                None => self.read(transport, pe),
            })
            .collect()
    }

    /// The first words of this PE's list, as [`list_from_head`](Self::list_from_head)
    /// takes them from another PE: the count and the first `extents`
    /// extents (zeros after the last).
    pub(crate) fn head(&self, extents: usize) -> Vec<u64> {
        let n = (self.word(0).load(Ordering::Relaxed) as usize).min(MAX_EXTENTS);
        let mut words = vec![0u64; 1 + 2 * extents];
        words[0] = n as u64;
        for (i, w) in words[1..].iter_mut().enumerate().take(2 * n) {
            *w = self.word(1 + i).load(Ordering::Relaxed);
        }
        words
    }

    /// The used extents of `pe` from the first words of its list (`head`,
    /// a count and as many extents as the words hold): read whole from
    /// the PE when longer.
    pub(crate) fn list_from_head<T: Transport>(&self, transport: &T, pe: usize, head: &[u64]) -> Vec<Extent> {
        let n = head[0] as usize;
        if 2 * n < head.len() {
            pairs(&head[1..1 + 2 * n])
        } else {
            self.read(transport, pe)
        }
    }

    /// The used extents of `pe`.
    pub(crate) fn read<T: Transport>(&self, transport: &T, pe: usize) -> Vec<Extent> {
        let mut n = 0u64;
        // SAFETY: word 0 of pe's arena header.
        unsafe { transport.get(pe, SymOffset(self.base), &mut n as *mut u64 as *mut u8, 8) };
        let n = (n as usize).min(MAX_EXTENTS);
        let mut words = vec![0u64; 2 * n];
        if n > 0 {
            // SAFETY: words 1..=2n of pe's header lie inside its arena header.
            unsafe { transport.get(pe, SymOffset(self.base + 8), words.as_mut_ptr() as *mut u8, 16 * n) };
        }
        pairs(&words)
    }

    /// Publishes the arguments of the team split this PE enters, for the
    /// other PEs of the parent team to compare ([`read_split`](Self::read_split)):
    /// written before the split's first barrier, read between its two, so
    /// never while another PE reads them (the reads of the split before
    /// happened before its second barrier).
    pub(crate) fn publish_split(&self, words: [u64; SPLIT_WORDS]) {
        for (i, w) in words.into_iter().enumerate() {
            self.word(HEADER / 8 - SPLIT_WORDS + i).store(w, Ordering::Relaxed);
        }
    }

    /// The split arguments `pe` published ([`publish_split`](Self::publish_split)).
    pub(crate) fn read_split<T: Transport>(&self, transport: &T, pe: usize) -> [u64; SPLIT_WORDS] {
        let mut words = [0u64; SPLIT_WORDS];
        let at = SymOffset(self.base + HEADER - SPLIT_WORDS * 8);
        // SAFETY: the last SPLIT_WORDS words of pe's arena header.
        unsafe { transport.get(pe, at, words.as_mut_ptr() as *mut u8, SPLIT_WORDS * 8) };
        words
    }

    /// Records `e` as used on this PE.
    pub(crate) fn take(&self, e: Extent) -> Result<(), ListFull> {
        let list = with(self.extents(), e);
        if list.len() > MAX_EXTENTS {
            return Err(ListFull);
        }
        self.publish(&list);
        Ok(())
    }

    /// Records `e` (taken earlier) as free on this PE.
    pub(crate) fn give(&self, e: Extent) {
        let list = without(&self.extents(), e);
        // Removing from the middle of a run splits it. Should that overflow
        // the list (thousands of interleaved extents), the extent stays
        // marked: wasted, never handed out twice.
        if list.len() <= MAX_EXTENTS {
            self.publish(&list);
        }
    }

    /// Zeroes this PE's copy of `e`.
    pub(crate) fn zero(&self, e: Extent) {
        debug_assert!(e.end() <= self.len);
        // SAFETY: the extent lies inside this PE's data part and has just
        // been agreed free on every member: nothing else reads or writes it.
        unsafe { std::ptr::write_bytes(self.local_addr(e.start) as *mut u8, 0, e.len) };
    }

    /// Hands the whole pages inside this PE's copy of `e` back to the system
    /// (they read as zero afterwards). Called when a space is given back.
    pub(crate) fn release(&self, e: Extent) {
        let page = crate::job::page_size();
        let lo = self.local_addr(e.start).next_multiple_of(page);
        let hi = self.local_addr(e.end()) / page * page;
        if hi > lo {
            // SAFETY: whole pages inside an extent nobody uses any more, in a
            // shared mapping of the job's memory file; MADV_REMOVE frees the
            // file's pages, so every process sees zeroes there. A failure
            // (an old kernel) only means the memory stays resident.
            unsafe { libc::madvise(lo as *mut libc::c_void, hi - lo, libc::MADV_REMOVE) };
        }
    }
}

/// `list` (sorted, merged) with `e` added, merged with its neighbours.
fn with(list: Vec<Extent>, e: Extent) -> Vec<Extent> {
    let mut out: Vec<Extent> = Vec::with_capacity(list.len() + 1);
    let mut pending = Some(e);
    for x in list {
        if let Some(p) = pending
            && p.start < x.start
        {
            push_merged(&mut out, p);
            pending = None;
        }
        push_merged(&mut out, x);
    }
    if let Some(p) = pending {
        push_merged(&mut out, p);
    }
    out
}

fn push_merged(out: &mut Vec<Extent>, e: Extent) {
    if let Some(last) = out.last_mut()
        && last.end() >= e.start
    {
        let end = last.end().max(e.end());
        last.len = end - last.start;
        return;
    }
    out.push(e);
}

/// `list` with the bytes of `e` removed.
fn without(list: &[Extent], e: Extent) -> Vec<Extent> {
    let mut out = Vec::with_capacity(list.len() + 1);
    for &x in list {
        if x.end() <= e.start || x.start >= e.end() {
            out.push(x);
            continue;
        }
        if x.start < e.start {
            out.push(Extent {
                start: x.start,
                len: e.start - x.start,
            });
        }
        if x.end() > e.end() {
            out.push(Extent {
                start: e.end(),
                len: x.end() - e.end(),
            });
        }
    }
    out
}

/// True if every list can record one more extent.
/// Bytes the space arena of `w`'s PE offers (`SHMEM_SPACE_ARENA_SIZE`, as
/// laid out): what a space's configuration is checked against.
pub(crate) fn capacity(w: &crate::world::World) -> usize {
    Arena::new(w).capacity()
}

pub(crate) fn has_room(lists: &[Vec<Extent>]) -> bool {
    lists.iter().all(|l| l.len() < MAX_EXTENTS)
}

/// The lowest offset where `len` bytes are free in every list of `lists`,
/// below `capacity`, such that `origin + offset` is a multiple of `align`.
pub(crate) fn first_fit(
    lists: &[Vec<Extent>],
    len: usize,
    align: usize,
    origin: usize,
    capacity: usize,
) -> Option<usize> {
    let mut used: Vec<Extent> = lists.iter().flatten().copied().collect();
    used.sort_by_key(|e| e.start);
    let mut at = 0usize;
    for e in used.iter().chain(std::iter::once(&Extent {
        start: capacity,
        len: 0,
    })) {
        let start = origin.checked_add(at)?.checked_next_multiple_of(align)? - origin;
        if start.checked_add(len)? <= e.start.min(capacity) {
            return Some(start);
        }
        at = at.max(e.end());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn x(start: usize, len: usize) -> Extent {
        Extent { start, len }
    }

    #[test]
    fn lists_merge_and_split() {
        let l = with(vec![], x(100, 50));
        let l = with(l, x(0, 100));
        assert_eq!(l, vec![x(0, 150)], "adjacent runs merge");
        let l = with(l, x(300, 10));
        let l = with(l, x(200, 10));
        assert_eq!(l, vec![x(0, 150), x(200, 10), x(300, 10)]);
        let l = without(&l, x(50, 20));
        assert_eq!(l, vec![x(0, 50), x(70, 80), x(200, 10), x(300, 10)]);
        let l = without(&l, x(200, 10));
        assert_eq!(l, vec![x(0, 50), x(70, 80), x(300, 10)]);
        assert_eq!(without(&l, x(0, 1000)), vec![]);
    }

    #[test]
    fn first_fit_skips_any_member_use_and_aligns() {
        let a = vec![x(0, 300)];
        let b = vec![x(400, 100)];
        assert_eq!(first_fit(std::slice::from_ref(&a), 100, 128, 0, 10_000), Some(384));
        assert_eq!(first_fit(&[a.clone(), b.clone()], 100, 128, 0, 10_000), Some(512));
        assert_eq!(first_fit(&[a.clone(), b.clone()], 100, 1, 0, 10_000), Some(300));
        assert_eq!(
            first_fit(&[a.clone(), b.clone()], 100, 128, 64, 10_000),
            Some(576),
            "aligned from the origin"
        );
        assert_eq!(first_fit(&[a, b], 9_500, 1, 0, 10_000), Some(500));
        assert_eq!(first_fit(&[vec![x(0, 64)]], 1, 1, 0, 64), None, "full");
        assert_eq!(first_fit(&[], 4, 1, 0, 3), None, "larger than the arena");
        assert_eq!(first_fit(&[], usize::MAX, 1, 0, 3), None);
        assert_eq!(
            first_fit(&[vec![x(0, 10), x(5, 10)]], 5, 1, 0, 20),
            Some(15),
            "overlapping lists"
        );
    }
}
