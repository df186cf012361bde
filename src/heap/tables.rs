//! Page tables for the other PEs' segments, kept within a budget.
//!
//! Every PE maps every segment ([`Segments`]), and the kernel builds page
//! tables for what a process touches: one page-table page (4 KiB with 4 KiB
//! pages) for every 2 MiB of address space touched, and one more for every
//! 1 GiB. Segments lie at least 2 MiB apart, more than 1 GiB with the
//! default space arena, so each other PE that a PE reaches costs it up to two
//! page-table pages, whatever it touched there, and keeps costing them: one
//! all-to-all leaves the job `npes² × 8 KiB` of page tables (2 GiB at 512 PEs,
//! measured with `benches/c/mem_scale.c`). Huge pages shrink only the
//! first of the two, and only for the heaps (`SHMEM_SYMMETRIC_HEAP_USE_HUGE_PAGES`,
//! [`super::huge`]; on the space arena they would turn each touched inbox
//! page into 2 MiB of memory);
//! the kernel's reclaim of empty page-table pages (`CONFIG_PT_RECLAIM`, on
//! `MADV_DONTNEED`) frees only the first too.
//!
//! [`PeerTables`] counts the distinct other PEs the collectives reach (a bit
//! per PE, set by `coll` before it addresses a member); past the budget it
//! maps the other PEs' part of the job mapping again over itself
//! (`mmap(MAP_FIXED)`, the same file at the same offsets, the same
//! protection), which frees every page-table page that covered only their
//! segments and keeps every address and every byte: the pages stay in the
//! job file, and the next access to one faults it back in (a minor fault,
//! about 2 µs here). The kernel replaces the mapping under its mapping lock,
//! so another thread of the PE that touches a peer meanwhile waits for the
//! fault and never sees a hole; futex words are keyed by file page, so
//! sleepers on a peer's word are not lost. The PE's own segment keeps its
//! tables. What a program reaches by its own puts and gets is not counted
//! (that is the hot path) but is dropped with the rest.
//!
//! The budget (`SHMEM_PEER_TABLES`, other PEs) defaults to what keeps the
//! page tables of the whole job for other PEs' segments within 1/128 of the
//! machine's memory, at least [`MIN_AUTO`] PEs each; a job whose PEs all fit
//! it never remaps (on a 24 GiB machine, up to about 150 PEs). Past that,
//! every collective that reaches more other PEs than the budget pays a
//! fault per other PE it reaches and a share of a remap, about 5 µs per
//! other PE here: the price of page tables that do not grow with the
//! square of the job.

use super::Segments;
use super::huge::HugeHeaps;
use super::segment;
use std::os::fd::OwnedFd;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// Fewest other PEs the automatic budget allows a PE before it remaps: fewer
/// would remap within every small collective.
pub(crate) const MIN_AUTO: usize = 16;

/// Share of the machine's memory that the page tables of the whole job may
/// take for other PEs' segments under the automatic budget (1 / this).
const MACHINE_SHARE: u128 = 128;

/// Bytes of page tables one other PE costs, at most, when a PE touches its
/// segment in one place: a page of last-level entries, and a share of a
/// page of the level above (a whole one when segments are as far apart as
/// it covers).
pub(crate) fn per_peer_bytes(stride: usize, page: usize) -> usize {
    let entries = page / 8;
    let upper_span = entries * entries * page;
    page + page * stride.min(upper_span) / upper_span
}

/// The automatic budget in other PEs, or None when every other PE fits it.
pub(crate) fn auto_budget(npes: usize, stride: usize, page: usize, machine: u128) -> Option<usize> {
    let job = machine / MACHINE_SHARE;
    let per_pe = job / npes.max(1) as u128 / per_peer_bytes(stride, page) as u128;
    let peers = (per_pe.min(usize::MAX as u128) as usize).max(MIN_AUTO);
    (peers < npes.saturating_sub(1)).then_some(peers)
}

/// What a PE needs to map the other PEs' segments again.
struct Remap {
    /// The job file.
    file: OwnedFd,
    /// Where PE 0's segment starts in it.
    seg_offset: u64,
    segs: Segments,
    /// The node's heaps on huge pages, mapped (or advised) again after.
    heaps: HugeHeaps,
}

/// The other PEs this PE has reached since it last dropped their page
/// tables, and the budget.
pub(crate) struct PeerTables {
    /// One bit per PE: reached since the last remap, or never counted (this
    /// PE, and PEs of other nodes, which the transport reaches by MPI).
    reached: Box<[AtomicU64]>,
    /// The bits of `reached` that are never counted.
    uncounted: Box<[u64]>,
    /// Bits set in `reached` (a few more when threads race; never fewer).
    count: AtomicUsize,
    /// Other PEs reached beyond which the tables are dropped; None: never.
    budget: Option<usize>,
    remap: Remap,
    /// Times the tables were dropped.
    remaps: AtomicU64,
}

impl PeerTables {
    /// For `segs`, mapped from `file` at `seg_offset`; `local` says which
    /// PEs' segments this process reaches by load and store (those in the
    /// file). `budget`: other PEs reached after which their tables are
    /// dropped (None: never). The file stays open as long as the tables live
    /// (the whole process: the job outlives `oshrun`'s descriptor of it).
    pub(crate) fn new(
        segs: Segments,
        local: impl Fn(usize) -> bool,
        file: OwnedFd,
        seg_offset: u64,
        budget: Option<usize>,
        heaps: HugeHeaps,
    ) -> PeerTables {
        let mut uncounted = vec![0u64; segs.npes.div_ceil(64)];
        for pe in (0..segs.npes).filter(|&pe| pe == segs.me || !local(pe)) {
            uncounted[pe / 64] |= 1 << (pe % 64);
        }
        PeerTables {
            reached: uncounted.iter().map(|&w| AtomicU64::new(w)).collect(),
            uncounted: uncounted.into(),
            count: AtomicUsize::new(0),
            budget: budget.filter(|_| segs.npes > 1),
            remap: Remap {
                file,
                seg_offset,
                segs,
                heaps,
            },
            remaps: AtomicU64::new(0),
        }
    }

    /// The budget in other PEs (None: the tables are never dropped).
    pub(crate) fn budget(&self) -> Option<usize> {
        self.budget
    }

    /// Times the tables were dropped so far.
    pub(crate) fn remaps(&self) -> u64 {
        self.remaps.load(Ordering::Relaxed)
    }

    /// Notes that this PE is about to address `pe`'s segment; drops the
    /// other PEs' page tables first when `pe` is one more than the budget
    /// allows. Cheap when `pe` was reached already: a load and a test.
    #[inline]
    pub(crate) fn reach(&self, pe: usize) {
        let Some(budget) = self.budget else { return };
        let (word, bit) = (&self.reached[pe / 64], 1u64 << (pe % 64));
        if word.load(Ordering::Relaxed) & bit != 0 {
            return;
        }
        if self.count.load(Ordering::Relaxed) >= budget {
            self.forget();
        }
        if word.fetch_or(bit, Ordering::Relaxed) & bit == 0 {
            self.count.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Drops this process's page tables for every other PE's segment (the
    /// data stays in the job file; addresses stay valid).
    #[cold]
    pub(crate) fn forget(&self) {
        for (w, &keep) in self.reached.iter().zip(self.uncounted.iter()) {
            w.store(keep, Ordering::Relaxed);
        }
        self.count.store(0, Ordering::Relaxed);
        let r = &self.remap;
        let s = &r.segs;
        let mine = (s.me * s.stride, (s.me + 1) * s.stride);
        // The other PEs' heaps on explicit huge pages come from the heap
        // file: each range is mapped again from the file it maps, in one
        // call, so no address ever shows another file's bytes.
        let pieces = r.heaps.hugetlb_pieces(s);
        let mut pieces = pieces.iter().filter(|p| p.0 < mine.0 || p.0 >= mine.1).peekable();
        for (from, to) in [(0, mine.0), (mine.1, s.npes * s.stride)] {
            let mut at = from;
            while at < to {
                let next = pieces.peek().filter(|p| p.0 < to).copied();
                let mapped = match next {
                    Some(&(start, heap_off)) if start == at => {
                        pieces.next();
                        at = start + r.heaps.piece;
                        // SAFETY: as below, for the heap file, which this
                        // range mapped from heap_off (HugeHeaps::apply).
                        unsafe {
                            segment::map_fixed(
                                r.heaps.file.as_ref().expect("hugetlb"),
                                heap_off,
                                s.base.add(start),
                                r.heaps.piece,
                            )
                        }
                    }
                    _ => {
                        let end = next.map_or(to, |p| p.0);
                        let from = std::mem::replace(&mut at, end);
                        // SAFETY: [from, end) lies in this process's mapping
                        // of every segment (base .. base + npes * stride,
                        // page aligned: the stride is a multiple of
                        // SEGMENT_ALIGN, of the huge page too with huge
                        // pages), which maps the job file from seg_offset
                        // there; mapping the same file range there again
                        // keeps every byte where it was (the pages are the
                        // file's), only the page tables go. Never the
                        // checking transport's hidden segments: it builds no
                        // budget (see `bootstrap`).
                        unsafe { segment::map_fixed(&r.file, r.seg_offset + from as u64, s.base.add(from), end - from) }
                    }
                };
                if let Err(e) = mapped {
                    // The kernel keeps the old mapping when it cannot make the
                    // new one; without it the other PEs would be unreachable.
                    panic!("cannot map the other PEs' segments again to free their page tables: {e}");
                }
            }
        }
        // A new mapping has lost the advice for transparent huge pages.
        if let Err(e) = r.heaps.advise(s, Some(s.me)) {
            panic!("cannot advise the other PEs' heaps again after freeing their page tables: {e}");
        }
        self.remaps.fetch_add(1, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::heap::segment::{create_memfd, map_shared, set_len};
    use std::os::fd::AsRawFd;

    /// A job file of `npes` segments `stride` apart, mapped whole, and its
    /// segments as PE `me` sees them (the mapping must outlive their use).
    fn job(npes: usize, stride: usize, me: usize) -> (std::os::fd::OwnedFd, segment::Mapping, Segments) {
        let fd = create_memfd("rshmem-test").unwrap();
        set_len(fd.as_raw_fd(), (npes * stride) as u64).unwrap();
        let all = map_shared(&fd, 0, npes * stride).unwrap();
        let segs = Segments {
            base: all.ptr,
            stride,
            npes,
            me,
            data: None,
            data_len: 0,
            heap_len: stride,
            sync_off: stride,
            sync_len: 0,
        };
        (fd, all, segs)
    }

    /// VmPTE of this process, in kB.
    fn vm_pte_kb() -> u64 {
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let line = status.lines().find(|l| l.starts_with("VmPTE:")).unwrap();
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    }

    #[test]
    fn the_automatic_budget_bounds_the_job() {
        let (page, gib) = (4096, 1usize << 30);
        // Segments more than 1 GiB apart cost two pages each, 64 MiB apart
        // one and a sixteenth.
        assert_eq!(per_peer_bytes(gib + (64 << 20), page), 8192);
        assert_eq!(per_peer_bytes(64 << 20, page), 4096 + 256);
        let machine = 24u128 << 30;
        // 192 MiB for the job: 512 PEs get 48 others each, 8 PEs never remap.
        assert_eq!(auto_budget(512, 2 * gib, page, machine), Some(48));
        assert_eq!(auto_budget(150, 2 * gib, page, machine), None);
        assert_eq!(auto_budget(160, 2 * gib, page, machine), Some(153));
        assert_eq!(auto_budget(8, 2 * gib, page, machine), None);
        assert_eq!(auto_budget(4096, 2 * gib, page, machine), Some(MIN_AUTO));
        assert_eq!(auto_budget(1, 2 * gib, page, 0), None);
    }

    #[test]
    fn forgetting_keeps_the_data_and_frees_the_tables() {
        // 64 segments 1 GiB + 2 MiB apart (address space only), one page
        // touched in each: two page-table pages per segment until forgotten.
        let (npes, stride, page) = (64usize, (1usize << 30) + (2 << 20), 4096);
        let (fd, _all, segs) = job(npes, stride, 3);
        let tables = PeerTables::new(segs, |_| true, fd, 0, Some(8), HugeHeaps::small(segs.npes));
        let at = |pe: usize| segs.base.wrapping_add(pe * stride + 5 * page + 8);
        // Other tests of this process map, touch and free memory meanwhile
        // (a CI run saw 72, 612, then 116 kB), so the level is not compared
        // and a measurement spoiled by them is taken again: the touches
        // must add about 512 kB of tables and forgetting must take at least
        // 400 of them away, in one of three tries.
        let mut seen = Vec::new();
        for round in 0..3u8 {
            let before = vm_pte_kb();
            for pe in 0..npes {
                // SAFETY: a word inside segment pe of the live mapping.
                unsafe { at(pe).write_volatile(pe as u8 + round + 1) };
            }
            let touched = vm_pte_kb();
            tables.forget();
            let forgotten = vm_pte_kb();
            for pe in 0..npes {
                // SAFETY: as above; the page comes back from the file.
                assert_eq!(unsafe { at(pe).read_volatile() }, pe as u8 + round + 1);
            }
            assert_eq!(tables.remaps(), u64::from(round) + 1);
            seen.push((before, touched, forgotten));
            let took = touched.saturating_sub(before);
            let freed = touched.saturating_sub(forgotten);
            if took >= 100 * 4 && freed >= 100 * 4 {
                return;
            }
        }
        panic!("VmPTE before, touched, forgotten (kB): {seen:?}");
    }

    #[test]
    fn reaching_past_the_budget_forgets() {
        let (npes, stride) = (200usize, 2usize << 20);
        let (fd, _all, segs) = job(npes, stride, 70);
        let tables = PeerTables::new(segs, |pe| pe != 150, fd, 0, Some(10), HugeHeaps::small(segs.npes));
        // Itself and PEs already reached cost nothing.
        for _ in 0..3 {
            for pe in 65..75 {
                tables.reach(pe);
            }
        }
        assert_eq!(tables.remaps(), 0, "PEs 65..75 but 70 are nine others");
        tables.reach(75);
        assert_eq!(tables.remaps(), 0, "ten others");
        tables.reach(199);
        assert_eq!(tables.remaps(), 1, "the eleventh other PE");
        for pe in (0..npes).rev() {
            tables.reach(pe);
        }
        // 199 was counted after the first remap; 197 more to count (not
        // this PE, not 150 of another node), a remap before each tenth.
        assert_eq!(tables.remaps(), 1 + 197 / 10);
        let never = PeerTables::new(
            segs,
            |_| true,
            create_memfd("rshmem-test").unwrap(),
            0,
            None,
            HugeHeaps::small(segs.npes),
        );
        for pe in 0..npes {
            never.reach(pe);
        }
        assert_eq!((never.remaps(), never.budget()), (0, None));
    }
}
