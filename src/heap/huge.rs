//! The symmetric heap on huge pages (`SHMEM_SYMMETRIC_HEAP_USE_HUGE_PAGES`,
//! `SHMEM_SYMMETRIC_HEAP_PAGE_SIZE`).
//!
//! Two ways, chosen by the node's first PE when it lays out the job file
//! ([`choose`]):
//!
//! - Explicit huge pages, where the kernel has pages of the size reserved
//!   (`nr_hugepages`): the node's heaps live in a memory file of their own,
//!   `memfd_create(MFD_HUGETLB | MFD_HUGE_<size>)`, one piece per PE, each
//!   mapped over the heap part of its segment in the job mapping
//!   (`MAP_FIXED`). The globals, the space arena and the control block stay
//!   in the job file: the globals are mapped at the program's own addresses,
//!   which are not huge-page aligned. The file's creator reserves every page
//!   when it creates it (a shared hugetlb mapping reserves its pages at
//!   `mmap`, and the reservation stays with the file), so a shortage stops
//!   `shmem_init` with one message instead of a `SIGBUS` at the first touch
//!   of an unreserved page. The other PEs of the node open the file through
//!   `/proc/<pid>/fd/<n>` of its creator (same user; the layout in the
//!   control block says which).
//! - Transparent huge pages, where none are reserved and the kernel allows
//!   them for shared memory (`shmem_enabled`): the heaps stay in the job
//!   file, laid out so that each heap's file offset and address are
//!   multiples of the page (which a huge page mapping needs), and are
//!   advised `MADV_HUGEPAGE` under `advise` (`always` and `within_size` need
//!   nothing). The kernel gives them where it finds free huge pages.
//!
//! Where neither is possible `shmem_init` stops rather than running on
//! small pages: a job that asked for huge pages and silently got small
//! ones is measured wrong (Sandia OpenSHMEM warns and falls back; see
//! `docs/compatibility.md`).

use super::{SEGMENT_ALIGN, Segments, segment};
use crate::config::huge::dir_of_size;
use crate::config::human_bytes;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::OnceLock;

/// Where the kernel says whether shared memory gets transparent huge pages.
const SHMEM_ENABLED: &str = "/sys/kernel/mm/transparent_hugepage/shmem_enabled";
/// The size of a transparent huge page.
const PMD_SIZE: &str = "/sys/kernel/mm/transparent_hugepage/hpage_pmd_size";

/// What pages the heaps are on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pages {
    /// The job file's pages (the default).
    Small,
    /// Explicit huge pages of this size, in a hugetlb file of the node's heaps.
    Hugetlb(usize),
    /// Transparent huge pages of this size in the job file; `advise`: the
    /// heaps must be advised `MADV_HUGEPAGE`.
    Transparent { size: usize, advise: bool },
}

impl Pages {
    /// The control block's word for it (`JobHeader::heap_pages`).
    pub(crate) fn word(self) -> u64 {
        match self {
            Pages::Small => 0,
            Pages::Hugetlb(size) => size as u64,
            Pages::Transparent { size, advise } => size as u64 | 1 | (u64::from(advise) << 1),
        }
    }

    /// The inverse of [`Pages::word`].
    pub(crate) fn from_word(w: u64) -> Pages {
        match w {
            0 => Pages::Small,
            w if w & 1 == 0 => Pages::Hugetlb(w as usize),
            w => Pages::Transparent {
                size: (w & !3) as usize,
                advise: w & 2 != 0,
            },
        }
    }

    /// What `SHMEM_INFO` says of it.
    pub(crate) fn describe(self) -> String {
        match self {
            Pages::Small => format!(
                "{} pages (SHMEM_SYMMETRIC_HEAP_USE_HUGE_PAGES is not set)",
                human_bytes(crate::job::page_size() as u128)
            ),
            Pages::Hugetlb(size) => format!(
                "{} huge pages (explicit: a hugetlb memory file of the node's heaps, every page reserved)",
                human_bytes(size as u128)
            ),
            Pages::Transparent { size, advise } => format!(
                "{} transparent huge pages where the kernel finds them, else {} pages (shared memory: {})",
                human_bytes(size as u128),
                human_bytes(crate::job::page_size() as u128),
                if advise {
                    "advise, heaps advised MADV_HUGEPAGE"
                } else {
                    "always"
                }
            ),
        }
    }
}

/// The pages this process's heaps are on and their length, once mapped
/// (for `SHMEM_INFO`).
static IN_USE: OnceLock<(Pages, usize)> = OnceLock::new();

/// Notes what the heaps (`heap_len` bytes each) are on.
pub(crate) fn set_in_use(p: Pages, heap_len: usize) {
    let _ = IN_USE.set((p, heap_len));
}

/// What `SHMEM_INFO` says of the heaps, once they are mapped.
pub(crate) fn describe_in_use() -> Option<String> {
    IN_USE
        .get()
        .map(|(p, len)| format!("{} per PE on {}", human_bytes(*len as u128), p.describe()))
}

/// Alignment of the heap's offset and length within a segment for huge
/// pages of `page` bytes (`None`: huge pages off): what the layout rounds to.
pub(crate) fn layout_align(page: Option<usize>) -> usize {
    page.map_or(SEGMENT_ALIGN, |p| p.max(SEGMENT_ALIGN))
}

/// Bytes of each PE's piece of a hugetlb heap file: its heap rounded up to
/// whole pages (and to the segments' alignment).
pub(crate) fn piece_len(heap_len: usize, page: usize) -> usize {
    heap_len.next_multiple_of(layout_align(Some(page)))
}

/// `shmem_enabled`'s setting: the bracketed word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ShmemThp {
    Never,
    Advise,
    Always,
}

/// Parses `shmem_enabled` ("always within_size advise \[never\] deny force").
pub(crate) fn parse_shmem_enabled(text: &str) -> ShmemThp {
    let chosen = text
        .split_whitespace()
        .find(|w| w.starts_with('['))
        .map(|w| w.trim_matches(|c| c == '[' || c == ']'));
    match chosen {
        Some("advise") => ShmemThp::Advise,
        Some("always" | "within_size" | "force") => ShmemThp::Always,
        _ => ShmemThp::Never,
    }
}

/// The kernel's counts of huge pages of one size.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Counts {
    /// Pages reserved in the pool (`nr_hugepages`).
    pub nr: usize,
    /// Pages of the pool not in use (`free_hugepages`).
    pub free: usize,
    /// Free pages promised to mappings already (`resv_hugepages`).
    pub resv: usize,
}

impl Counts {
    /// Pages a new file can still reserve.
    pub(crate) fn available(&self) -> usize {
        self.free.saturating_sub(self.resv)
    }
}

/// The counts for pages of `size` bytes (zero where the kernel has none).
pub(crate) fn counts(size: usize) -> Counts {
    let dir = dir_of_size(size);
    let read = |f: &str| {
        std::fs::read_to_string(format!("{dir}/{f}"))
            .ok()
            .and_then(|t| t.trim().parse().ok())
            .unwrap_or(0)
    };
    Counts {
        nr: read("nr_hugepages"),
        free: read("free_hugepages"),
        resv: read("resv_hugepages"),
    }
}

/// The machine's state as [`choose`] needs it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Kernel {
    pub counts: Counts,
    pub thp: ShmemThp,
    /// Size of a transparent huge page.
    pub pmd: usize,
    /// The default huge page size (`Hugepagesize` of `/proc/meminfo`), whose
    /// pool `/proc/sys/vm/nr_hugepages` sets.
    pub default_size: usize,
}

/// This machine's state for pages of `size`.
pub(crate) fn kernel(size: usize) -> Kernel {
    let thp = std::fs::read_to_string(SHMEM_ENABLED).map_or(ShmemThp::Never, |t| parse_shmem_enabled(&t));
    let pmd = std::fs::read_to_string(PMD_SIZE)
        .ok()
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or(2 << 20);
    let default_size = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            m.lines()
                .find_map(|l| l.strip_prefix("Hugepagesize:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<usize>().ok())
        })
        .map_or(2 << 20, |kb| kb * 1024);
    Kernel {
        counts: counts(size),
        thp,
        pmd,
        default_size,
    }
}

/// The pages for the heaps of `here` PEs of `heap_len` bytes each on huge
/// pages of `page` bytes, or why there are none: explicit huge pages where
/// the kernel has some of the size reserved (too few free is an error),
/// else transparent ones where it allows them for shared memory.
pub(crate) fn choose(page: usize, here: usize, heap_len: usize, k: &Kernel) -> Result<Pages, String> {
    let need = here * piece_len(heap_len, page) / page;
    let thp_ok = k.thp != ShmemThp::Never && page == k.pmd;
    if k.counts.nr == 0 && thp_ok {
        return Ok(Pages::Transparent {
            size: page,
            advise: k.thp == ShmemThp::Advise,
        });
    }
    if k.counts.available() >= need {
        return Ok(Pages::Hugetlb(page));
    }
    Err(shortage(page, here, heap_len, need, k))
}

/// The one line that says why huge pages cannot be had and how to get them.
fn shortage(page: usize, here: usize, heap_len: usize, need: usize, k: &Kernel) -> String {
    let c = k.counts;
    let target = c.nr + (need - c.available());
    let knob = match page == k.default_size {
        true => "/proc/sys/vm/nr_hugepages".to_string(),
        false => format!("{}/nr_hugepages", dir_of_size(page)),
    };
    let thp = match (k.thp, page == k.pmd) {
        _ if c.nr > 0 => String::new(),
        (ShmemThp::Never, true) => {
            format!("; transparent huge pages for shared memory are off too ({SHMEM_ENABLED} is never)")
        }
        _ => format!("; transparent huge pages are {} only", human_bytes(k.pmd as u128)),
    };
    format!(
        "SHMEM_SYMMETRIC_HEAP_USE_HUGE_PAGES: the heaps of this node's {here} PE{} ({} each) need {need} huge \
         pages of {}, but the kernel has {} free of {} reserved{}{thp}; reserve them as root with \
         `echo {target} > {knob}`",
        if here == 1 { "" } else { "s" },
        human_bytes(heap_len as u128),
        human_bytes(page as u128),
        c.available(),
        c.nr,
        if c.resv > 0 {
            format!(" ({} more promised to other mappings)", c.resv.min(c.free))
        } else {
            String::new()
        },
    )
}

/// A hugetlb memory file of `len` bytes for pages of `page` bytes, every
/// page reserved for it (or the error [`choose`] would have given when
/// another job took them meanwhile).
pub(crate) fn create_file(page: usize, here: usize, heap_len: usize) -> Result<OwnedFd, String> {
    let len = here * piece_len(heap_len, page);
    let name = std::ffi::CString::new(crate::job::HEAP_FILE_NAME).expect("no NUL in the name");
    let size_flag = (page.trailing_zeros() as libc::c_uint) << libc::MFD_HUGE_SHIFT;
    // SAFETY: name is a valid NUL-terminated string.
    let fd = unsafe { libc::memfd_create(name.as_ptr(), libc::MFD_CLOEXEC | libc::MFD_HUGETLB | size_flag) };
    if fd < 0 {
        return Err(format!(
            "cannot create a memory file on {} huge pages: {}",
            human_bytes(page as u128),
            io::Error::last_os_error()
        ));
    }
    // SAFETY: fd was just returned by memfd_create and is owned by nobody else.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    // SAFETY: fchmod on a descriptor we own has no memory-safety preconditions.
    if unsafe { libc::fchmod(fd.as_raw_fd(), segment::MEMFD_MODE) } != 0 {
        return Err(format!(
            "cannot restrict the huge page heap file: {}",
            io::Error::last_os_error()
        ));
    }
    segment::set_len(fd.as_raw_fd(), len as u64).map_err(|e| {
        format!(
            "cannot size the huge page heap file to {}: {e}",
            human_bytes(len as u128)
        )
    })?;
    // A shared mapping reserves its huge pages at mmap, for the file: the
    // reservation outlives the mapping, so no PE can fault on a page the
    // pool does not have.
    match segment::map_shared(&fd, 0, len) {
        Ok(m) => {
            // SAFETY: m is the mapping just made; nothing else refers to it.
            unsafe { libc::munmap(m.ptr as *mut libc::c_void, m.len) };
            Ok(fd)
        }
        Err(e) if e.raw_os_error() == Some(libc::ENOMEM) => {
            let k = kernel(page);
            Err(shortage(page, here, heap_len, len / page, &k))
        }
        Err(e) => Err(format!(
            "cannot reserve {} of {} huge pages: {e}",
            human_bytes(len as u128),
            human_bytes(page as u128)
        )),
    }
}

/// The hugetlb heap file that PE `planner` (process `pid`) created, as
/// descriptor `fd` there.
pub(crate) fn open_file(planner: usize, pid: i32, fd: u64) -> Result<OwnedFd, String> {
    let path = format!("/proc/{pid}/fd/{fd}");
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&path)
        .map(OwnedFd::from)
        .map_err(|e| format!("cannot open PE {planner}'s huge page heap file ({path}): {e}"))
}

/// The heaps of the node's PEs as they must be mapped in every process.
pub(crate) struct HugeHeaps {
    pub pages: Pages,
    /// The hugetlb heap file (with [`Pages::Hugetlb`]).
    pub file: Option<OwnedFd>,
    /// Each PE's piece of the file (its index among the node's PEs), or
    /// None for PEs of other nodes.
    pub piece_of: Vec<Option<usize>>,
    /// Bytes of each piece (also the span advised for transparent pages).
    pub piece: usize,
}

impl HugeHeaps {
    /// Puts the heap of every PE of the node on its huge pages: maps each
    /// from the hugetlb file, or advises it for transparent huge pages.
    pub(crate) fn apply(&self, segs: &Segments) -> io::Result<()> {
        if let Some(file) = &self.file {
            for (at, heap_off) in self.hugetlb_pieces(segs) {
                // SAFETY: [at, at + piece) is the heap part of a PE's segment
                // in this process's job mapping (the layout made data_len,
                // the stride and the mapping's placement multiples of the
                // page): nothing of the job file's lives there, and nothing
                // was written there before this first mapping.
                unsafe { segment::map_fixed(file, heap_off, segs.base.wrapping_add(at), self.piece)? };
            }
        }
        self.advise(segs, None)
    }

    /// Where the node's heaps on explicit huge pages are: their offsets in
    /// the job mapping and in the heap file, in order (none without them).
    pub(crate) fn hugetlb_pieces(&self, segs: &Segments) -> Vec<(usize, u64)> {
        if !matches!(self.pages, Pages::Hugetlb(_)) {
            return Vec::new();
        }
        self.piece_of
            .iter()
            .enumerate()
            .filter_map(|(pe, i)| i.map(|i| (pe * segs.stride + segs.data_len, (i * self.piece) as u64)))
            .collect()
    }

    /// Advises the heaps of the node's PEs but `skip` for transparent huge
    /// pages, when the kernel wants the advice.
    pub(crate) fn advise(&self, segs: &Segments, skip: Option<usize>) -> io::Result<()> {
        if !matches!(self.pages, Pages::Transparent { advise: true, .. }) {
            return Ok(());
        }
        for pe in (0..self.piece_of.len()).filter(|&pe| self.piece_of[pe].is_some() && Some(pe) != skip) {
            let at = segs.base.wrapping_add(pe * segs.stride + segs.data_len);
            // SAFETY: madvise only marks a range of our own job mapping.
            if unsafe { libc::madvise(at as *mut libc::c_void, self.piece, libc::MADV_HUGEPAGE) } != 0 {
                return Err(io::Error::last_os_error());
            }
        }
        Ok(())
    }

    /// Heaps on small pages: nothing to map (the unit tests' tables).
    #[cfg(test)]
    pub(crate) fn small(npes: usize) -> HugeHeaps {
        HugeHeaps {
            pages: Pages::Small,
            file: None,
            piece_of: vec![None; npes],
            piece: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(nr: usize, free: usize, thp: ShmemThp) -> Kernel {
        Kernel {
            counts: Counts { nr, free, resv: 0 },
            thp,
            pmd: 2 << 20,
            default_size: 2 << 20,
        }
    }

    #[test]
    fn words_round_trip() {
        for p in [
            Pages::Small,
            Pages::Hugetlb(2 << 20),
            Pages::Hugetlb(1 << 30),
            Pages::Transparent {
                size: 2 << 20,
                advise: true,
            },
            Pages::Transparent {
                size: 2 << 20,
                advise: false,
            },
        ] {
            assert_eq!(Pages::from_word(p.word()), p);
        }
    }

    #[test]
    fn shmem_enabled_is_the_bracketed_word() {
        let t = |s| parse_shmem_enabled(s);
        assert_eq!(t("always within_size advise [never] deny force\n"), ShmemThp::Never);
        assert_eq!(t("always within_size [advise] never deny force"), ShmemThp::Advise);
        assert_eq!(t("[always] within_size advise never deny force"), ShmemThp::Always);
        assert_eq!(t("always [within_size] advise never deny force"), ShmemThp::Always);
        assert_eq!(t("always within_size advise never [deny] force"), ShmemThp::Never);
        assert_eq!(t(""), ShmemThp::Never);
    }

    #[test]
    fn reserved_pages_are_used_and_must_suffice() {
        const M2: usize = 2 << 20;
        // 4 PEs x 64 MiB: 128 pages of 2 MiB.
        assert_eq!(
            choose(M2, 4, 64 << 20, &k(128, 128, ShmemThp::Never)),
            Ok(Pages::Hugetlb(M2))
        );
        // Reserved but too few: an error even where THP would do.
        let e = choose(M2, 4, 64 << 20, &k(100, 100, ShmemThp::Advise)).unwrap_err();
        assert!(
            e.contains("need 128 huge pages of 2 MiB, but the kernel has 100 free of 100 reserved"),
            "{e}"
        );
        assert!(e.contains("`echo 128 > /proc/sys/vm/nr_hugepages`"), "{e}");
        // None reserved, THP allowed: transparent pages.
        assert_eq!(
            choose(M2, 4, 64 << 20, &k(0, 0, ShmemThp::Advise)),
            Ok(Pages::Transparent { size: M2, advise: true })
        );
        assert_eq!(
            choose(M2, 4, 64 << 20, &k(0, 0, ShmemThp::Always)),
            Ok(Pages::Transparent {
                size: M2,
                advise: false
            })
        );
        // Neither: the message says both.
        let e = choose(M2, 1, 3 << 20, &k(0, 0, ShmemThp::Never)).unwrap_err();
        assert!(
            e.contains("this node's 1 PE (3 MiB each) need 2 huge pages of 2 MiB"),
            "{e}"
        );
        assert!(e.contains("shmem_enabled is never"), "{e}");
        assert!(e.contains("`echo 2 > /proc/sys/vm/nr_hugepages`"), "{e}");
        // 1 GiB pages are never transparent; their pool has its own knob.
        let e = choose(1 << 30, 2, 1 << 20, &k(0, 0, ShmemThp::Always)).unwrap_err();
        assert!(
            e.contains("`echo 2 > /sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages`"),
            "{e}"
        );
        assert!(e.contains("transparent huge pages are 2 MiB only"), "{e}");
    }

    #[test]
    fn pieces_are_whole_pages() {
        assert_eq!(piece_len(1, 2 << 20), 2 << 20);
        assert_eq!(piece_len(3 << 20, 2 << 20), 4 << 20);
        assert_eq!(piece_len(3 << 20, 1 << 30), 1 << 30);
        assert_eq!(layout_align(None), SEGMENT_ALIGN);
    }
}
