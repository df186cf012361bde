//! `shmem_set_lock`, `shmem_test_lock`, `shmem_clear_lock` (see `crate::lock`).

use super::check;
use crate::lock::{LockWord, Misuse};
use crate::runtime::error::{Error, ErrorKind, fatal};
use crate::runtime::{self, Runtime};
use crate::transport::Transport;
use core::ffi::{c_int, c_long};
use std::sync::atomic::AtomicU64;

/// The lock's home PE: its copy there is the lock word.
const HOME: usize = 0;

fn word(rt: &Runtime, routine: &'static str, lock: *mut c_long) -> LockWord<'static> {
    let home = check::Target { pe: HOME, space: 0 };
    let off = check::remote_word::<c_long>(rt, routine, "lock", lock as usize, home);
    let home = rt
        .transport
        .local_ptr(HOME, off)
        .expect("every PE's memory is mapped by this transport");
    // SAFETY: an aligned 8-byte word inside PE 0's segment, which stays mapped
    // until the process exits.
    LockWord::new(unsafe { AtomicU64::from_ptr(home.as_ptr() as *mut u64) })
}

fn misuse(routine: &'static str, lock: *mut c_long, m: Misuse) -> ! {
    let what = match m {
        Misuse::AlreadyHeld => "is already held by this PE (locks are not re-entrant)".to_string(),
        Misuse::NotHeld { owner: None } => "is not held (it is free)".to_string(),
        Misuse::NotHeld { owner: Some(pe) } => format!("is held by PE {pe}, not by this PE"),
    };
    fatal(&Error::new(
        routine,
        ErrorKind::InvalidArgument {
            name: "lock",
            value: format!("{lock:p}"),
            why: Box::leak(format!("the lock {what}").into_boxed_str()),
        },
    ))
}

pub fn set_lock(routine: &'static str, lock: *mut c_long) {
    let rt = runtime::get(routine);
    let l = word(rt, routine, lock);
    let post = rt.post(crate::wait::stuck::Kind::Lock, routine, 0);
    if let Err(m) = l.acquire(rt.me, rt.policy, post.as_ref()) {
        misuse(routine, lock, m)
    }
}

/// 0 if the lock was free and is now held by the caller, 1 otherwise.
pub fn test_lock(routine: &'static str, lock: *mut c_long) -> c_int {
    let rt = runtime::get(routine);
    (!word(rt, routine, lock).try_acquire(rt.me)) as c_int
}

/// Completes the caller's outstanding operations, then releases the lock.
pub fn clear_lock(routine: &'static str, lock: *mut c_long) {
    let rt = runtime::get(routine);
    let l = word(rt, routine, lock);
    rt.transport.quiet();
    if let Err(m) = l.release(rt.me) {
        misuse(routine, lock, m)
    }
}
