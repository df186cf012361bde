//! The job's memory file and mappings of it.
//!
//! One anonymous memory file (`memfd_create`) holds the control block and every
//! PE's segment. It has no name in any file system, so it cannot be leaked; it
//! disappears when the last process holding it (descriptor or mapping) exits,
//! however the job ends. Another user could reach it only through
//! `/proc/PID/fd`, which the kernel's access checks on `/proc` refuse; its
//! mode, 0600, refuses as well, so those checks are not the only protection.
//! (With the heaps on explicit huge pages, a second such file holds the
//! node's heaps: see `huge`.)

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// Mode of the job's memory file: its owner's only (`memfd_create` gives 0777).
pub(crate) const MEMFD_MODE: libc::mode_t = 0o600;

/// Creates an anonymous memory file, closed on exec, of mode [`MEMFD_MODE`].
/// The PEs run as its owner, and the descriptor itself reaches them (by
/// inheritance, or `SCM_RIGHTS` under MPI), which no mode restricts.
pub(crate) fn create_memfd(name: &str) -> io::Result<OwnedFd> {
    let cname = std::ffi::CString::new(name).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
    // SAFETY: cname is a valid NUL-terminated string.
    let fd = unsafe { libc::memfd_create(cname.as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: fd was just returned by memfd_create and is owned by nobody else.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    // SAFETY: fchmod on a descriptor we own has no memory-safety preconditions.
    if unsafe { libc::fchmod(fd.as_raw_fd(), MEMFD_MODE) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(fd)
}

/// Size of the file behind `fd`.
#[cfg(test)]
pub(crate) fn file_len(fd: RawFd) -> io::Result<u64> {
    // SAFETY: an all-zero stat is a valid value to be overwritten by fstat.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: st is a valid out-pointer.
    if unsafe { libc::fstat(fd, &mut st) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(st.st_size as u64)
}

/// Grows (or shrinks) the file behind `fd` to `len` bytes; new bytes read as zero.
pub(crate) fn set_len(fd: RawFd, len: u64) -> io::Result<()> {
    // SAFETY: ftruncate has no memory-safety preconditions.
    if unsafe { libc::ftruncate(fd, len as libc::off_t) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Marks `fd` close-on-exec, so programs a PE starts do not inherit the job.
pub(crate) fn set_cloexec(fd: RawFd) {
    // SAFETY: fcntl on a descriptor number has no memory-safety preconditions.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFD);
        if flags >= 0 {
            libc::fcntl(fd, libc::F_SETFD, flags | libc::FD_CLOEXEC);
        }
    }
}

/// A shared read/write mapping of part of the memory file. It is never unmapped:
/// symmetric memory lives as long as the process (see `runtime` for why).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Mapping {
    pub ptr: *mut u8,
    pub len: usize,
}

// SAFETY: a Mapping is an address range; all access to it is through raw
// pointers whose users synchronise as the OpenSHMEM memory model requires.
unsafe impl Send for Mapping {}
// SAFETY: as above.
unsafe impl Sync for Mapping {}

/// Maps `len` bytes of `fd` from `offset` (page aligned) anywhere in memory.
pub(crate) fn map_shared(fd: &impl AsRawFd, offset: u64, len: usize) -> io::Result<Mapping> {
    // SAFETY: a fresh mapping chosen by the kernel overlaps nothing we own.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED,
            fd.as_raw_fd(),
            offset as libc::off_t,
        )
    };
    if p == libc::MAP_FAILED {
        return Err(io::Error::last_os_error());
    }
    Ok(Mapping { ptr: p as *mut u8, len })
}

/// Maps `len` bytes of `fd` from `offset` at an address `start` such that
/// `start + phase` is a multiple of `align` (a power of two, at least a page;
/// `phase` a multiple of a page): reserves `len + align` bytes of address
/// space, maps the file over the chosen part and returns the rest.
pub(crate) fn map_shared_aligned(
    fd: &impl AsRawFd,
    offset: u64,
    len: usize,
    align: usize,
    phase: usize,
) -> io::Result<Mapping> {
    let span = len
        .checked_add(align)
        .ok_or_else(|| io::Error::from(io::ErrorKind::OutOfMemory))?;
    // SAFETY: an inaccessible anonymous reservation chosen by the kernel.
    let r = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            span,
            libc::PROT_NONE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    if r == libc::MAP_FAILED {
        return Err(io::Error::last_os_error());
    }
    let phase = phase % align;
    let start = (r as usize + phase).next_multiple_of(align) - phase;
    // SAFETY: [start, start+len) lies inside the reservation we own.
    if let Err(e) = unsafe { map_fixed(fd, offset, start as *mut u8, len) } {
        // SAFETY: the whole reservation is ours to release.
        unsafe { libc::munmap(r, span) };
        return Err(e);
    }
    let (head, tail) = (start - r as usize, r as usize + span - (start + len));
    // SAFETY: the slack before and after the file mapping is still our reservation.
    unsafe {
        if head > 0 {
            libc::munmap(r, head);
        }
        if tail > 0 {
            libc::munmap((start + len) as *mut libc::c_void, tail);
        }
    }
    Ok(Mapping {
        ptr: start as *mut u8,
        len,
    })
}

/// Replaces the pages at `addr..addr+len` with a shared mapping of `fd` at
/// `offset`.
///
/// # Safety
/// The range must be page aligned and owned by the caller: whatever was mapped
/// there is discarded, and anything that refers to its old contents must be able
/// to find the same contents in the file (the caller copies them first).
pub(crate) unsafe fn map_fixed(fd: &impl AsRawFd, offset: u64, addr: *mut u8, len: usize) -> io::Result<()> {
    // SAFETY: the caller owns the range (see above); MAP_FIXED replaces it atomically.
    let p = unsafe {
        libc::mmap(
            addr as *mut libc::c_void,
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED | libc::MAP_FIXED,
            fd.as_raw_fd(),
            offset as libc::off_t,
        )
    };
    if p == libc::MAP_FAILED {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Bytes of physical memory plus swap on this machine.
pub(crate) fn machine_memory() -> u128 {
    // SAFETY: an all-zero sysinfo is a valid value to be overwritten.
    let mut si: libc::sysinfo = unsafe { std::mem::zeroed() };
    // SAFETY: si is a valid out-pointer.
    if unsafe { libc::sysinfo(&mut si) } != 0 {
        return u128::MAX;
    }
    (si.totalram as u128 + si.totalswap as u128) * si.mem_unit.max(1) as u128
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_mappings_of_one_file_share_pages() {
        let fd = create_memfd("rshmem-test").unwrap();
        set_len(fd.as_raw_fd(), 8192).unwrap();
        assert_eq!(file_len(fd.as_raw_fd()).unwrap(), 8192);
        let a = map_shared(&fd, 0, 8192).unwrap();
        let b = map_shared(&fd, 4096, 4096).unwrap();
        // SAFETY: both mappings are live, 8192 and 4096 bytes long.
        unsafe {
            *a.ptr.add(4096 + 8) = 42;
            assert_eq!(*b.ptr.add(8), 42);
        }
        assert!(machine_memory() > 0);
        let c = map_shared_aligned(&fd, 0, 8192, 1 << 21, 0).unwrap();
        assert_eq!(c.ptr as usize % (1 << 21), 0);
        // SAFETY: c maps the same file from offset 0.
        unsafe { assert_eq!(*c.ptr.add(4096 + 8), 42) };
    }

    #[test]
    fn the_file_is_its_owners_only() {
        let fd = create_memfd("rshmem-test").unwrap();
        // SAFETY: an all-zero stat is a valid value to be overwritten by fstat.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: st is a valid out-pointer.
        assert_eq!(unsafe { libc::fstat(fd.as_raw_fd(), &mut st) }, 0);
        assert_eq!(st.st_mode & 0o7777, MEMFD_MODE, "mode {:o}", st.st_mode);
    }
}
