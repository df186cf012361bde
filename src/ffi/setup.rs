//! Library setup, exit and query routines (and their deprecated names).

use super::{check, guard, table};
use crate::runtime::{self, error};
use core::ffi::{c_char, c_int, c_void};

fn init_or_die(routine: &'static str, requested: c_int) -> c_int {
    match runtime::init(routine, requested) {
        Ok(level) => level,
        Err(e) => error::fatal(&e),
    }
}

#[unsafe(no_mangle)]
pub extern "C" fn shmem_init() {
    guard("shmem_init", || {
        init_or_die("shmem_init", table::SHMEM_THREAD_SINGLE as c_int);
    })
}

/// Deprecated; `npes` is ignored as the specification says.
#[unsafe(no_mangle)]
pub extern "C" fn start_pes(_npes: c_int) {
    guard("start_pes", || {
        init_or_die("start_pes", table::SHMEM_THREAD_SINGLE as c_int);
    })
}

/// Returns 0 and the granted level; on failure prints why and returns non-zero.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_init_thread(requested: c_int, provided: *mut c_int) -> c_int {
    guard("shmem_init_thread", || {
        match runtime::init("shmem_init_thread", requested) {
            Ok(level) => {
                if !provided.is_null() {
                    // SAFETY: a non-null out-pointer supplied by the caller.
                    unsafe { *provided = level };
                }
                0
            }
            Err(e) => {
                eprintln!("{}", error::message(&e));
                1
            }
        }
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn shmem_query_thread(provided: *mut c_int) {
    guard("shmem_query_thread", || {
        let rt = runtime::get("shmem_query_thread");
        if !provided.is_null() {
            // SAFETY: a non-null out-pointer supplied by the caller.
            unsafe { *provided = rt.thread_level.load(std::sync::atomic::Ordering::Relaxed) };
        }
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn shmem_query_initialized(initialized: *mut c_int) {
    guard("shmem_query_initialized", || {
        if !initialized.is_null() {
            // SAFETY: a non-null out-pointer supplied by the caller.
            unsafe { *initialized = runtime::try_get().is_some() as c_int };
        }
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn shmem_finalize() {
    guard("shmem_finalize", runtime::finalize)
}

#[unsafe(no_mangle)]
pub extern "C" fn shmem_my_pe() -> c_int {
    guard("shmem_my_pe", || runtime::get("shmem_my_pe").me as c_int)
}

#[unsafe(no_mangle)]
pub extern "C" fn shmem_n_pes() -> c_int {
    guard("shmem_n_pes", || runtime::get("shmem_n_pes").npes as c_int)
}

#[unsafe(no_mangle)]
pub extern "C" fn _my_pe() -> c_int {
    guard("_my_pe", || runtime::get("_my_pe").me as c_int)
}

#[unsafe(no_mangle)]
pub extern "C" fn _num_pes() -> c_int {
    guard("_num_pes", || runtime::get("_num_pes").npes as c_int)
}

#[unsafe(no_mangle)]
pub extern "C" fn shmem_pe_accessible(pe: c_int) -> c_int {
    guard("shmem_pe_accessible", || {
        let rt = runtime::get("shmem_pe_accessible");
        (pe >= 0 && (pe as usize) < rt.npes) as c_int
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn shmem_addr_accessible(addr: *const c_void, pe: c_int) -> c_int {
    guard("shmem_addr_accessible", || {
        let rt = runtime::get("shmem_addr_accessible");
        (pe >= 0 && (pe as usize) < rt.npes && rt.segs.offset_of(addr as usize, 1).is_some()) as c_int
    })
}

/// The address of `dest` on `pe` in this process, or NULL if `dest` is not
/// symmetric. Every PE of a job is reachable by load/store.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_ptr(dest: *const c_void, pe: c_int) -> *mut c_void {
    guard("shmem_ptr", || {
        let rt = runtime::get("shmem_ptr");
        let pe = check::pe(rt, "shmem_ptr", 2, pe);
        if pe == rt.me {
            return if rt.segs.offset_of(dest as usize, 1).is_some() {
                dest as *mut c_void
            } else {
                std::ptr::null_mut()
            };
        }
        match rt.segs.offset_of(dest as usize, 1) {
            Some(off) => rt.segs.peer_addr(pe, off) as *mut c_void,
            None => std::ptr::null_mut(),
        }
    })
}

/// May be called before `shmem_init`.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_info_get_version(major: *mut c_int, minor: *mut c_int) {
    guard("shmem_info_get_version", || {
        // SAFETY: non-null out-pointers supplied by the caller.
        unsafe {
            if !major.is_null() {
                *major = table::SHMEM_MAJOR_VERSION as c_int;
            }
            if !minor.is_null() {
                *minor = table::SHMEM_MINOR_VERSION as c_int;
            }
        }
    })
}

/// Writes the vendor string, NUL terminated, into a buffer of at least
/// `SHMEM_MAX_NAME_LEN` bytes. May be called before `shmem_init`.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_info_get_name(name: *mut c_char) {
    guard("shmem_info_get_name", || {
        if name.is_null() {
            return;
        }
        let s = table::SHMEM_VENDOR_STRING.as_bytes();
        let n = s.len().min(table::SHMEM_MAX_NAME_LEN as usize - 1);
        // SAFETY: the caller provides SHMEM_MAX_NAME_LEN bytes; we write n + 1 ≤ that.
        unsafe {
            std::ptr::copy_nonoverlapping(s.as_ptr(), name as *mut u8, n);
            *name.add(n) = 0;
        }
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn shmem_global_exit(status: c_int) -> ! {
    guard("shmem_global_exit", || runtime::global_exit(status))
}

/// Profiling control: this library has no profiling levels, so it records
/// nothing. Defined without the variadic part, which it never reads: on the
/// x86-64 and AArch64 (Linux) calling conventions the named argument is passed
/// the same way in a variadic call.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_pcontrol(_level: c_int) {}
