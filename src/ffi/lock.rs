//! `shmem_set_lock`, `shmem_test_lock`, `shmem_clear_lock` (see `crate::lock`):
//! the futex mutex when the job runs on one node, the queue lock otherwise.

use super::check;
use crate::error::{Error, ErrorKind, fatal};
use crate::heap::SymOffset;
use crate::lock::queue::{self, QueueLock};
use crate::lock::{HOME, LockWord, Misuse, Remote};
use crate::runtime::{self, Runtime};
use crate::transport::{Active, Transport};
use crate::wait::stuck::Post;
use core::ffi::{c_int, c_long};

/// The lock's offset, checked on its home PE (the same on every PE).
// Inlined by force, like `word`: with the queue lock's callers as well,
// the compiler would otherwise call it out of line on the single-node path.
#[inline(always)]
fn offset(rt: &Runtime, routine: &'static str, lock: *mut c_long) -> SymOffset {
    let home = check::Target { pe: HOME, space: 0 };
    check::remote_word::<c_long>(rt, routine, "lock", lock as usize, home)
}

#[inline(always)]
fn word<'a>(rt: &'a Runtime, routine: &'static str, lock: *mut c_long) -> LockWord<Remote<'a, Active>> {
    let off = offset(rt, routine, lock);
    LockWord::new(Remote {
        transport: &rt.transport,
        home: HOME,
        off,
    })
}

fn queue<'a>(
    rt: &'a Runtime,
    off: SymOffset,
    routine: &'static str,
    lock: *mut c_long,
    post: Option<&'a Post<'a>>,
) -> QueueLock<'a, queue::Remote<'a, Active>> {
    runtime::queue_lock(rt, off, routine, lock as usize, post)
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

/// What a wait for `lock` is on, for the hang report.
fn lock_on(lock: *mut c_long) -> crate::wait::stuck::On {
    crate::wait::stuck::On::Memory {
        addr: lock as usize,
        word: 8,
        count: 1,
        cmp: None,
        value: 0,
    }
}

pub fn set_lock(routine: &'static str, lock: *mut c_long) {
    let rt = runtime::get(routine);
    if !rt.transport.single_node() {
        return queue_set(rt, routine, lock);
    }
    let l = word(rt, routine, lock);
    let on = || lock_on(lock);
    let post = rt.post_on(crate::wait::stuck::Kind::Lock, routine, &on);
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
    if !rt.transport.single_node() {
        return (!queue_test(rt, routine, lock)) as c_int;
    }
    (!word(rt, routine, lock).try_acquire(rt.me)) as c_int
}

/// Completes the caller's outstanding operations, then releases the lock.
pub fn clear_lock(routine: &'static str, lock: *mut c_long) {
    let rt = runtime::get(routine);
    if !rt.transport.single_node() {
        return queue_clear(rt, routine, lock);
    }
    let l = word(rt, routine, lock);
    rt.transport.quiet();
    if let Err(m) = l.release(rt.me) {
        misuse(routine, lock, m)
    }
}

// The queue lock's entry points stay out of line, so that the single-node
// paths above compile to the instructions they had before it existed.

#[inline(never)]
fn queue_set(rt: &Runtime, routine: &'static str, lock: *mut c_long) {
    let off = offset(rt, routine, lock);
    let on = || lock_on(lock);
    let post = rt.post_on(crate::wait::stuck::Kind::Lock, routine, &on);
    if let Err(m) = queue(rt, off, routine, lock, post.as_ref()).acquire() {
        misuse(routine, lock, m)
    }
}

#[inline(never)]
fn queue_test(rt: &Runtime, routine: &'static str, lock: *mut c_long) -> bool {
    queue(rt, offset(rt, routine, lock), routine, lock, None).try_acquire()
}

#[inline(never)]
fn queue_clear(rt: &Runtime, routine: &'static str, lock: *mut c_long) {
    let l = queue(rt, offset(rt, routine, lock), routine, lock, None);
    rt.transport.quiet();
    if let Err(m) = l.release() {
        misuse(routine, lock, m)
    }
}
