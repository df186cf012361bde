//! Non-private futex operations on 32-bit words in shared memory.
//!
//! The words live in a `MAP_SHARED` mapping of the job's memory file, so the
//! kernel keys them by (file, offset) and a wake in one process reaches a waiter
//! in another. Private futexes (`FUTEX_PRIVATE_FLAG`, what std and parking_lot
//! use) are keyed by address space and would never wake a peer.

use std::sync::atomic::AtomicU32;
use std::time::Duration;

/// Sleeps while `*word == expected`, for at most `timeout`. Returns on a wake,
/// a timeout, a signal, or at once if the word already differs.
pub(crate) fn wait(word: &AtomicU32, expected: u32, timeout: Duration) {
    let ts = libc::timespec {
        tv_sec: timeout.as_secs() as libc::time_t,
        tv_nsec: timeout.subsec_nanos() as libc::c_long,
    };
    // SAFETY: `word` is a valid, aligned 32-bit location for the duration of the
    // call; the timespec outlives the call. Errors (EAGAIN, ETIMEDOUT, EINTR) all
    // mean "re-check the condition", which every caller does.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAIT,
            expected,
            &ts as *const libc::timespec,
            std::ptr::null::<u32>(),
            0,
        );
    }
}

/// Wakes every thread of any process sleeping on `word`.
pub(crate) fn wake_all(word: &AtomicU32) {
    // SAFETY: FUTEX_WAKE only uses the address as a key; it reads no memory.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAKE,
            i32::MAX,
            std::ptr::null::<libc::timespec>(),
            std::ptr::null::<u32>(),
            0,
        );
    }
}

/// Wakes at most one thread of any process sleeping on `word`.
pub(crate) fn wake_one(word: &AtomicU32) {
    // SAFETY: as for `wake_all`.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAKE,
            1,
            std::ptr::null::<libc::timespec>(),
            std::ptr::null::<u32>(),
            0,
        );
    }
}
