//! Making the program's global and static variables symmetric.
//!
//! At `shmem_init` each PE finds its executable's writable load segment
//! (`.data`, `.bss`; not the RELRO part, which the loader makes read-only, and not
//! the brk heap after it), copies it into the globals part of its own segment and
//! maps that part back over the same addresses with `MAP_FIXED|MAP_SHARED`. The
//! variables keep their addresses and values, and peers reach them through their
//! mapping of the segment. Position-independent executables work the same way:
//! the range is found at run time and translated by offset, never by address.

use super::segment;
use std::os::fd::AsRawFd;

/// A page-aligned address range of this process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DataRange {
    pub start: usize,
    pub len: usize,
}

impl DataRange {
    #[cfg(test)]
    pub(crate) fn contains(&self, addr: usize, len: usize) -> bool {
        addr >= self.start && addr.checked_add(len).is_some_and(|e| e <= self.start + self.len)
    }
}

struct Search {
    page: usize,
    found: Option<DataRange>,
    done: bool,
}

unsafe extern "C" fn visit(info: *mut libc::dl_phdr_info, _size: libc::size_t, data: *mut libc::c_void) -> libc::c_int {
    // SAFETY: dl_iterate_phdr passes the `Search` we gave it and a valid info.
    let (s, info) = unsafe { (&mut *(data as *mut Search), &*info) };
    if s.done {
        return 1;
    }
    // The first object reported is the main program.
    s.done = true;
    // SAFETY: dlpi_phdr points to dlpi_phnum program headers.
    let phdrs = unsafe { std::slice::from_raw_parts(info.dlpi_phdr, info.dlpi_phnum as usize) };
    let base = info.dlpi_addr as usize;
    let relro_end = phdrs
        .iter()
        .find(|p| p.p_type == libc::PT_GNU_RELRO)
        .map(|p| base + p.p_vaddr as usize + p.p_memsz as usize);
    let (mut lo, mut hi) = (usize::MAX, 0usize);
    for p in phdrs
        .iter()
        .filter(|p| p.p_type == libc::PT_LOAD && p.p_flags & libc::PF_W != 0)
    {
        let mut start = (base + p.p_vaddr as usize) & !(s.page - 1);
        let end = (base + p.p_vaddr as usize + p.p_memsz as usize).next_multiple_of(s.page);
        if let Some(r) = relro_end {
            // The loader protects whole pages below the end of RELRO; the page
            // that holds its end stays writable.
            if r > start {
                start = (r & !(s.page - 1)).max(start);
            }
        }
        if start < end {
            lo = lo.min(start);
            hi = hi.max(end);
        }
    }
    if lo < hi {
        s.found = Some(DataRange {
            start: lo,
            len: hi - lo,
        });
    }
    1
}

/// The writable data of the main program, if it has any.
pub(crate) fn program_data() -> Option<DataRange> {
    let mut s = Search {
        page: crate::job::page_size(),
        found: None,
        done: false,
    };
    // SAFETY: `visit` matches the callback type and only uses `s` during the call.
    unsafe { libc::dl_iterate_phdr(Some(visit), &mut s as *mut Search as *mut libc::c_void) };
    s.found
}

/// How far the main program is loaded from its link-time addresses (0 for
/// an executable that is not position-independent): a symbol's address in
/// this process is its link-time address plus this.
pub(crate) fn load_bias() -> usize {
    unsafe extern "C" fn first(
        info: *mut libc::dl_phdr_info,
        _size: libc::size_t,
        data: *mut libc::c_void,
    ) -> libc::c_int {
        // SAFETY: dl_iterate_phdr passes a valid info and the `usize` we gave it.
        unsafe { *(data as *mut usize) = (*info).dlpi_addr as usize };
        // The first object reported is the main program: stop there.
        1
    }
    let mut bias = 0usize;
    // SAFETY: `first` matches the callback type and only writes `bias` during the call.
    unsafe { libc::dl_iterate_phdr(Some(first), &mut bias as *mut usize as *mut libc::c_void) };
    bias
}

/// Moves the program's data into the file at `offset` and maps it back in place.
/// `alias` is this process's existing mapping of that file region.
///
/// # Safety
/// `alias` must be a live mapping of `fd` at `offset` of at least `range.len`
/// bytes, and no other thread may write program data during the call.
pub(crate) unsafe fn make_symmetric(
    range: DataRange,
    fd: &impl AsRawFd,
    offset: u64,
    alias: *mut u8,
) -> std::io::Result<()> {
    // SAFETY: the range is the program's own writable, mapped data (found by
    // program_data) and `alias` has room for it (caller's contract). Nothing
    // writes program data between the copy and the remap, so the remapped pages
    // hold exactly the values the variables had.
    unsafe {
        copy_words(range.start as *const u64, alias as *mut u64, range.len / 8);
        segment::map_fixed(fd, offset, range.start as *mut u8, range.len)
    }
}

/// Copies `n` words with volatile loads rather than `memcpy`: a program built
/// with AddressSanitizer intercepts `memcpy` and reports the redzones it put
/// between the program's globals (poisoned by design) as an overflow, so
/// `shmem_init` would abort. Volatile loads are neither intercepted nor turned
/// into a `memcpy` call by the compiler.
///
/// # Safety
/// `src` and `dst` must be valid for `n` aligned words and not overlap.
unsafe fn copy_words(src: *const u64, dst: *mut u64, n: usize) {
    for i in 0..n {
        // SAFETY: the caller's contract.
        unsafe { dst.add(i).write(src.add(i).read_volatile()) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static mut PROBE: [u64; 4] = [1, 2, 3, 4];

    #[test]
    fn the_test_binary_has_writable_data_holding_its_statics() {
        let r = program_data().expect("a test binary has .data");
        let page = crate::job::page_size();
        assert_eq!(r.start % page, 0);
        assert_eq!(r.len % page, 0);
        let addr = std::ptr::addr_of!(PROBE) as usize;
        assert!(r.contains(addr, 32), "{addr:#x} not in {r:?}");
    }
}
