//! What the hang report may learn about a PE's memory from outside: the name
//! of the global variable at an address (the program's symbols, see
//! [`super::symbols`]) and the current value of a word
//! (`process_vm_readv`, allowed for the PE's parent and, where the system
//! permits, for its user).

use super::symbols::Symbols;
use super::table::{Life, Lookup};
use crate::heap::huge::{Pages, piece_len};
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Where the segments lie in the job's memory file (its header's words).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct FileLayout {
    pub seg_offset: u64,
    pub seg_stride: u64,
    pub data_len: u64,
    pub heap_size: u64,
    /// Bytes of each PE's piece of the node's heap file on explicit huge
    /// pages (0: the heaps are in the job file).
    pub heap_piece: u64,
}

impl FileLayout {
    pub(crate) fn of(control: &crate::job::Control) -> FileLayout {
        use std::sync::atomic::Ordering::Acquire;
        let h = control.header();
        FileLayout {
            seg_offset: h.seg_offset.load(Acquire),
            seg_stride: h.seg_stride.load(Acquire),
            data_len: h.data_len.load(Acquire),
            heap_size: h.heap_size.load(Acquire),
            heap_piece: match Pages::from_word(h.heap_pages.load(Acquire)) {
                Pages::Hugetlb(page) => piece_len(h.heap_size.load(Acquire) as usize, page) as u64,
                _ => 0,
            },
        }
    }

    /// "symmetric heap+0x40" for a byte at `off` of the heap file on huge pages.
    fn heap_place(&self, off: u64) -> Option<String> {
        let within = off.checked_rem(self.heap_piece)?;
        (within < self.heap_size).then(|| format!("symmetric heap+{within:#x}"))
    }

    /// "symmetric heap+0x40" for a byte at `off` of the file.
    fn place(&self, off: u64) -> Option<String> {
        let within = off.checked_sub(self.seg_offset)?.checked_rem(self.seg_stride)?;
        Some(if within < self.data_len {
            format!("globals+{within:#x}")
        } else if within - self.data_len < self.heap_size {
            format!("symmetric heap+{:#x}", within - self.data_len)
        } else {
            "library sync memory".to_string()
        })
    }
}

/// Looks up the PEs' programs and memory through `/proc`.
pub(crate) struct ProcLookup {
    pids: Vec<i32>,
    layout: FileLayout,
    tables: RefCell<HashMap<PathBuf, Option<std::rc::Rc<Symbols>>>>,
}

impl ProcLookup {
    pub(crate) fn new(pids: Vec<i32>, layout: FileLayout) -> ProcLookup {
        ProcLookup {
            pids,
            layout,
            tables: RefCell::new(HashMap::new()),
        }
    }

    /// Where `addr` lies in the job's memory file, if it does.
    fn in_job_file(&self, pid: i32, addr: u64) -> Option<String> {
        let job_file = format!("/memfd:{}", crate::job::FILE_NAME);
        let heap_file = format!("/memfd:{}", crate::job::HEAP_FILE_NAME);
        let m = maps(pid).into_iter().find(|m| {
            m.lo <= addr && addr < m.hi && (m.path.starts_with(&job_file) || m.path.starts_with(&heap_file))
        })?;
        let off = m.offset + (addr - m.lo);
        match m.path.starts_with(&heap_file) {
            true => self.layout.heap_place(off),
            false => self.layout.place(off),
        }
    }

    fn table(&self, exe: &Path) -> Option<std::rc::Rc<Symbols>> {
        self.tables
            .borrow_mut()
            .entry(exe.to_path_buf())
            .or_insert_with(|| Symbols::load(exe).map(std::rc::Rc::new))
            .clone()
    }
}

/// One line of `/proc/PID/maps`.
struct Mapping {
    lo: u64,
    hi: u64,
    offset: u64,
    path: String,
}

/// The mappings of process `pid` (none if it cannot be read).
fn maps(pid: i32) -> Vec<Mapping> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/maps")).unwrap_or_default();
    text.lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            let (lo, hi) = f.next()?.split_once('-')?;
            let offset = u64::from_str_radix(f.nth(1)?, 16).ok()?;
            let _dev_inode = (f.next()?, f.next()?);
            Some(Mapping {
                lo: u64::from_str_radix(lo, 16).ok()?,
                hi: u64::from_str_radix(hi, 16).ok()?,
                offset,
                path: f.collect::<Vec<_>>().join(" "),
            })
        })
        .collect()
}

/// Where the program's first loadable segment starts in process `pid`.
fn load_base(pid: i32, exe: &Path) -> Option<u64> {
    let exe = exe.to_str()?;
    maps(pid)
        .into_iter()
        .find(|m| m.path == exe && m.offset == 0)
        .map(|m| m.lo)
}

impl Lookup for ProcLookup {
    fn symbol(&self, pe: usize, addr: u64) -> Option<String> {
        let pid = *self.pids.get(pe)?;
        let global = || {
            let exe = std::fs::read_link(format!("/proc/{pid}/exe")).ok()?;
            let table = self.table(&exe)?;
            let base = load_base(pid, &exe)?;
            let vaddr = addr.checked_sub(base)?.checked_add(table.first_load & !0xfff)?;
            table.name(vaddr)
        };
        global().or_else(|| self.in_job_file(pid, addr))
    }

    fn word(&self, pe: usize, addr: u64, bytes: usize) -> Option<u64> {
        let pid = *self.pids.get(pe)?;
        if !(1..=8).contains(&bytes) {
            return None;
        }
        let mut buf = [0u8; 8];
        let local = libc::iovec {
            iov_base: buf.as_mut_ptr().cast(),
            iov_len: bytes,
        };
        let remote = libc::iovec {
            iov_base: addr as *mut libc::c_void,
            iov_len: bytes,
        };
        // SAFETY: reads at most 8 bytes into a local buffer of 8; the remote
        // address is only dereferenced by the kernel, which checks it.
        let n = unsafe { libc::process_vm_readv(pid, &local, 1, &remote, 1, 0) };
        (n == bytes as isize).then(|| u64::from_le_bytes(buf))
    }
}

/// The fields of `/proc/PID/stat` after the command name: the state
/// (`R`, `S`, `T`, ...), the parent's pid, ...
pub(crate) fn proc_stat(pid: i32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    Some(stat.rsplit_once(')')?.1.split_whitespace().map(str::to_owned).collect())
}

/// How process `pid` is, from `/proc` (for watchers that are not its parent).
pub(crate) fn proc_life(pid: i32) -> Life {
    let Some(stat) = proc_stat(pid) else {
        return Life::Ended("gone".into());
    };
    match stat.first().map(String::as_str) {
        // /proc says stopped, not by which signal.
        Some("T") => Life::Stopped("by a stop signal".into()),
        Some("t") => Life::Stopped("by a debugger".into()),
        Some("Z" | "X") => Life::Ended("exited".into()),
        _ => Life::Alive,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_offsets_name_the_part_of_a_segment() {
        let l = FileLayout {
            seg_offset: 0x1000,
            seg_stride: 0x10000,
            data_len: 0x2000,
            heap_size: 0x8000,
            heap_piece: 0,
        };
        assert_eq!(l.place(0x1000 + 0x10).unwrap(), "globals+0x10");
        assert_eq!(l.place(0x1000 + 0x10000 + 0x2028).unwrap(), "symmetric heap+0x28");
        assert_eq!(l.place(0x1000 + 0xa000).unwrap(), "library sync memory");
        assert_eq!(l.place(0x10), None);
        // The heap file on huge pages: one piece per PE of the node.
        let h = FileLayout {
            heap_piece: 2 << 20,
            ..l
        };
        assert_eq!(h.heap_place((2 << 20) + 0x28).unwrap(), "symmetric heap+0x28");
        assert_eq!(h.heap_place(0x9000), None);
        assert_eq!(l.heap_place(0x28), None);
    }
}
