//! Library setup, exit and query routines (and their deprecated names).

use super::{check, constants};
use crate::error;
use crate::runtime;
use crate::transport::Transport;
use core::ffi::{c_char, c_int, c_void};

fn init_or_die(routine: &'static str, requested: c_int) -> c_int {
    match runtime::init(routine, requested) {
        Ok(level) => level,
        Err(e) => error::fatal(&e),
    }
}

pub(crate) fn init(routine: &'static str) {
    init_or_die(routine, constants::SHMEM_THREAD_SINGLE as c_int);
}

/// Deprecated; `npes` is ignored as the specification says.
pub(crate) fn start_pes(routine: &'static str, _npes: c_int) {
    init_or_die(routine, constants::SHMEM_THREAD_SINGLE as c_int);
}

/// Returns 0 and the granted level; on failure prints why and returns non-zero.
pub(crate) fn init_thread(routine: &'static str, requested: c_int, provided: *mut c_int) -> c_int {
    match runtime::init(routine, requested) {
        Ok(level) => {
            if !provided.is_null() {
                // SAFETY: a non-null out-pointer supplied by the caller.
                unsafe { *provided = level };
            }
            0
        }
        Err(e) => {
            error::report(&e);
            1
        }
    }
}

pub(crate) fn query_thread(routine: &'static str, provided: *mut c_int) {
    let rt = runtime::get(routine);
    if !provided.is_null() {
        // SAFETY: a non-null out-pointer supplied by the caller.
        unsafe { *provided = rt.thread_level.load(std::sync::atomic::Ordering::Relaxed) };
    }
}

/// May be called at any time (OpenSHMEM 1.6).
pub(crate) fn query_initialized(_routine: &'static str, initialized: *mut c_int) {
    if !initialized.is_null() {
        // SAFETY: a non-null out-pointer supplied by the caller.
        unsafe { *initialized = runtime::try_get().is_some() as c_int };
    }
}

pub(crate) fn finalize(_routine: &'static str) {
    runtime::finalize(false)
}

pub(crate) fn my_pe(routine: &'static str) -> c_int {
    runtime::get(routine).me as c_int
}

pub(crate) fn n_pes(routine: &'static str) -> c_int {
    runtime::get(routine).npes as c_int
}

pub(crate) fn pe_accessible(routine: &'static str, pe: c_int) -> c_int {
    let rt = runtime::get(routine);
    (pe >= 0 && (pe as usize) < rt.npes) as c_int
}

pub(crate) fn addr_accessible(routine: &'static str, addr: *const c_void, pe: c_int) -> c_int {
    let rt = runtime::get(routine);
    (pe >= 0 && (pe as usize) < rt.npes && rt.spaces.symmetric_on(rt, addr as usize, 1, pe as usize).is_some()) as c_int
}

/// The address of `dest` on `pe` in this process, or NULL if `dest` is not
/// symmetric memory of `pe` or the transport cannot reach `pe` by
/// load/store (`local_ptr`; on shared memory every PE is reachable).
pub(crate) fn ptr(routine: &'static str, dest: *const c_void, pe: c_int) -> *mut c_void {
    let rt = runtime::get(routine);
    let pe = check::pe(rt, routine, pe);
    match rt.spaces.symmetric_on(rt, dest as usize, 1, pe) {
        // This PE's own object, at the address the program knows it by.
        Some(_) if pe == rt.me => dest as *mut c_void,
        Some(off) => rt
            .transport
            .local_ptr(pe, off)
            .map_or(std::ptr::null_mut(), |p| p.as_ptr() as *mut c_void),
        None => std::ptr::null_mut(),
    }
}

/// May be called before `shmem_init`.
pub(crate) fn info_get_version(_routine: &'static str, major: *mut c_int, minor: *mut c_int) {
    // SAFETY: non-null out-pointers supplied by the caller.
    unsafe {
        if !major.is_null() {
            *major = constants::SHMEM_MAJOR_VERSION as c_int;
        }
        if !minor.is_null() {
            *minor = constants::SHMEM_MINOR_VERSION as c_int;
        }
    }
}

/// Writes the vendor string, NUL terminated, into a buffer of at least
/// `SHMEM_MAX_NAME_LEN` bytes. May be called before `shmem_init`.
/// `shmem_set_cache_inv` & co: caches are coherent on every machine rshmem
/// runs on, so there is nothing to do; the routines stay for old programs.
pub(crate) fn cache_noop(routine: &'static str) {
    runtime::get(routine);
}

/// `shmem_set_cache_line_inv(dest)` & co: as [`cache_noop`]; `dest` is not
/// read.
pub(crate) fn cache_line_noop(routine: &'static str, _dest: *mut c_void) {
    runtime::get(routine);
}

/// `shmemx_wtime`: seconds on a clock that only goes forward (the one the
/// hang reports use), from an arbitrary start, as `MPI_Wtime`.
pub(crate) fn wtime(routine: &'static str) -> f64 {
    runtime::get(routine);
    crate::job::monotonic_ns() as f64 * 1e-9
}

/// `shmemx_nodename`: this machine's host name, in a buffer the library
/// keeps for the life of the process (the caller must not free it).
pub(crate) fn nodename(routine: &'static str) -> *mut c_char {
    runtime::get(routine);
    static NAME: std::sync::OnceLock<std::ffi::CString> = std::sync::OnceLock::new();
    let name = NAME.get_or_init(|| {
        let host = crate::transport::mpi::status::this_host();
        std::ffi::CString::new(host).unwrap_or_else(|_| c"?".into())
    });
    name.as_ptr() as *mut c_char
}

pub(crate) fn info_get_name(_routine: &'static str, name: *mut c_char) {
    if name.is_null() {
        return;
    }
    let s = constants::SHMEM_VENDOR_STRING.as_bytes();
    let n = s.len().min(constants::SHMEM_MAX_NAME_LEN as usize - 1);
    // SAFETY: the caller provides SHMEM_MAX_NAME_LEN bytes; we write n + 1 ≤ that.
    unsafe {
        std::ptr::copy_nonoverlapping(s.as_ptr(), name as *mut u8, n);
        *name.add(n) = 0;
    }
}

/// OSSS-UCX's `shmemx_query_interoperability` (its `enum interoperability`
/// in shmemx.h): whether this job's PEs are the ranks of an MPI job
/// (`MPI_PROCESSES_ARE_PES`: under `mpirun`, and across nodes), whether
/// `shmem_init` initialised MPI (`SHMEM_INITIALIZES_MPI`); never UPC
/// threads, and `MPI_Init` never initialises rshmem. Another property: a
/// warning, and 0.
pub(crate) fn query_interoperability(routine: &'static str, property: c_int) -> c_int {
    const UPC_THREADS_ARE_PES: c_int = 0;
    const MPI_PROCESSES_ARE_PES: c_int = 1;
    const SHMEM_INITIALIZES_MPI: c_int = 2;
    const MPI_INITIALIZES_SHMEM: c_int = 3;
    let mpi = runtime::get(routine).launcher.mpi_ranks();
    match property {
        UPC_THREADS_ARE_PES | MPI_INITIALIZES_SHMEM => 0,
        MPI_PROCESSES_ARE_PES => c_int::from(mpi.is_some()),
        SHMEM_INITIALIZES_MPI => c_int::from(mpi == Some(true)),
        other => {
            crate::error::warn(
                routine,
                format_args!(
                    "property {other} is none of UPC_THREADS_ARE_PES (0), MPI_PROCESSES_ARE_PES (1), SHMEM_INITIALIZES_MPI (2), MPI_INITIALIZES_SHMEM (3): answering 0"
                ),
            );
            0
        }
    }
}

pub(crate) fn global_exit(_routine: &'static str, status: c_int) -> ! {
    runtime::global_exit(status)
}

/// Profiling control: this library has no profiling levels, so it records
/// nothing. Defined without the variadic part, which it never reads: on the
/// x86-64 and AArch64 (Linux) calling conventions the named argument is passed
/// the same way in a variadic call.
#[unsafe(no_mangle)]
pub(crate) extern "C" fn shmem_pcontrol(_level: c_int) {}

/// The profiling name of `shmem_pcontrol`.
#[unsafe(no_mangle)]
pub(crate) extern "C" fn pshmem_pcontrol(_level: c_int) {}
