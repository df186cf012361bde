//! `shmem_set_lock`, `shmem_test_lock`, `shmem_clear_lock`: the lock's
//! address is checked here, the work is `crate::lock`'s (which chooses the
//! algorithm), and its misuses are worded here.

use super::check;
use crate::error::{Error, ErrorKind, fatal};
use crate::lock::{self, At, HOME, Misuse};
use crate::runtime::{self, Runtime};
use core::ffi::{c_int, c_long};

/// The lock argument `lock` of `routine`, checked when the core asks.
struct UserLock<'a> {
    rt: &'a Runtime,
    routine: &'static str,
    lock: *mut c_long,
}

impl lock::Locate for UserLock<'_> {
    /// The lock, its offset checked on its home PE (the same on every PE).
    // Inlined by force, like the core's entry points: the compiler would
    // otherwise call it out of line on the single-node path.
    #[inline(always)]
    fn at(self) -> At {
        let home = check::Target { pe: HOME, space: 0 };
        let addr = self.lock as usize;
        let off = check::remote_word::<c_long>(self.rt, self.routine, "lock", addr, home);
        At { off, addr }
    }
}

#[inline(never)]
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

pub(crate) fn set_lock(routine: &'static str, lock: *mut c_long) {
    let rt = runtime::get(routine);
    if let Err(m) = lock::set(rt, &rt.locks, routine, UserLock { rt, routine, lock }) {
        misuse(routine, lock, m)
    }
}

/// 0 if the lock was free and is now held by the caller, 1 otherwise.
pub(crate) fn test_lock(routine: &'static str, lock: *mut c_long) -> c_int {
    let rt = runtime::get(routine);
    (!lock::test(rt, &rt.locks, routine, UserLock { rt, routine, lock })) as c_int
}

/// Completes the caller's outstanding operations, then releases the lock.
pub(crate) fn clear_lock(routine: &'static str, lock: *mut c_long) {
    let rt = runtime::get(routine);
    if let Err(m) = lock::clear(rt, &rt.locks, routine, UserLock { rt, routine, lock }) {
        misuse(routine, lock, m)
    }
}
