//! `shmem_set_lock`, `shmem_test_lock`, `shmem_clear_lock` (see `crate::lock`).

use super::check;
use crate::error::{Error, ErrorKind, fatal};
use crate::lock::{LockWord, Misuse, Remote};
use crate::runtime::{self, Runtime};
use crate::transport::{Active, Transport};
use core::ffi::{c_int, c_long};

/// The lock's home PE: its copy there is the lock word.
const HOME: usize = 0;

fn word<'a>(rt: &'a Runtime, routine: &'static str, lock: *mut c_long) -> LockWord<Remote<'a, Active>> {
    let home = check::Target { pe: HOME, space: 0 };
    let off = check::remote_word::<c_long>(rt, routine, "lock", lock as usize, home);
    LockWord::new(Remote {
        transport: &rt.transport,
        home: HOME,
        off,
    })
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
    // Programs poll this in a loop: on the lock's home PE the test is an
    // atomic on its own word, so serve the other PEs' requests here too.
    rt.transport.progress();
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
