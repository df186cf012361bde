//! UPC-style semaphores (Berkeley UPC's `bupc_sem_*`) on symmetric memory.
//!
//! A semaphore is a symmetric object: every member of the team it was
//! allocated on has a copy at the same offset, owned by that member. `post`
//! adds to any member's copy with one sequentially consistent atomic (which
//! orders every earlier store of the poster before it, and rings the
//! owner's doorbell); `wait` and `try` take from the caller's own copy with a
//! compare-and-swap, so several consumer threads never lose or duplicate a
//! unit, and a successful take has acquire ordering. Waiting uses the same
//! spin, yield, futex-sleep path as `shmem_wait_until`.
//!
//! Each object lives in a small internal space of its team
//! ([`TeamObjects`]), so allocating one synchronises only the team. The
//! object is two cache lines:
//!
//! ```text
//! +0   value (u64): the count, written by posters
//! +64  header: magic, flags, the team as start/stride/size (this PE's copy,
//!      written at allocation, only read locally)
//! ```

use crate::coll::Group;
use crate::heap::SymOffset;
use crate::space::objects::{ObjectKind, TeamObjects, TeamWords, Visibility};
use crate::space::{SpaceError, Spaces, arena::Arena};
use crate::stuck::On;
use crate::transport::{Transport, polled};
use crate::types::AmoOp;
use crate::world::World;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// Flag bits, with Berkeley UPC's values (`BUPC_SEM_*`).
pub(crate) const BOOLEAN: i32 = 1;
pub(crate) const INTEGER: i32 = 2;
pub(crate) const SPRODUCER: i32 = 4;
pub(crate) const MPRODUCER: i32 = 8;
pub(crate) const SCONSUMER: i32 = 16;
pub(crate) const MCONSUMER: i32 = 32;
pub(crate) const MASK: i32 = 63;
/// The largest value a semaphore may hold (`BUPC_SEM_MAXVALUE`).
pub(crate) const MAXVALUE: u64 = 65535;

/// Bytes of a semaphore on each member.
pub(crate) const OBJECT_BYTES: usize = 128;
const HEADER: usize = 64;
const MAGIC: u32 = u32::from_le_bytes(*b"sem1");

/// `flags` with 0 read as integer, multi-producer, multi-consumer, and the
/// missing half of each pair defaulted to "multi"; an error for bits outside
/// the mask or both halves of a pair.
pub(crate) fn normalize(flags: i32) -> Result<i32, &'static str> {
    if flags & !MASK != 0 {
        return Err(
            "has bits outside SHMEMX_SEM_BOOLEAN | _INTEGER | _SPRODUCER | _MPRODUCER | _SCONSUMER | _MCONSUMER",
        );
    }
    let pair = |a: i32, b: i32, why: &'static str| {
        if flags & a != 0 && flags & b != 0 {
            Err(why)
        } else {
            Ok(if flags & (a | b) == 0 { b } else { flags & (a | b) })
        }
    };
    Ok(
        pair(BOOLEAN, INTEGER, "sets both SHMEMX_SEM_BOOLEAN and SHMEMX_SEM_INTEGER")?
            | pair(
                SPRODUCER,
                MPRODUCER,
                "sets both SHMEMX_SEM_SPRODUCER and SHMEMX_SEM_MPRODUCER",
            )?
            | pair(
                SCONSUMER,
                MCONSUMER,
                "sets both SHMEMX_SEM_SCONSUMER and SHMEMX_SEM_MCONSUMER",
            )?,
    )
}

/// A semaphore as seen from this PE.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sem {
    /// Offset of the value in every member's segment.
    pub off: SymOffset,
    /// Address of this PE's value.
    local: usize,
    pub flags: i32,
    /// The team's members (world PEs); `rank` is unused.
    pub group: Group,
}

impl Sem {
    pub(crate) fn boolean(&self) -> bool {
        self.flags & BOOLEAN != 0
    }

    fn value(&self) -> &AtomicU64 {
        // SAFETY: `local` is this PE's copy of a live semaphore (checked by
        // `lookup`): 8-aligned, in the arena, which stays mapped.
        unsafe { AtomicU64::from_ptr(self.local as *mut u64) }
    }

    /// This PE's current value.
    pub(crate) fn current(&self) -> u64 {
        self.value().load(Ordering::Acquire)
    }
}

#[repr(C)]
struct Header {
    magic: AtomicU32,
    flags: AtomicU32,
    team: TeamWords,
}

fn header(local: usize) -> &'static Header {
    // SAFETY: `local + HEADER` lies inside a 128-byte object in the arena
    // (caller checked the range), which stays mapped; all fields are atomics
    // and the offset is 64-aligned.
    unsafe { &*((local + HEADER) as *const Header) }
}

/// Live semaphores of this process: their spaces and teams, by address.
/// Owned by the runtime.
pub(crate) type Semaphores = TeamObjects<Semaphore>;

/// The kind of the objects in [`Semaphores`].
#[derive(Debug)]
pub(crate) enum Semaphore {}

impl ObjectKind for Semaphore {
    const VISIBILITY: Visibility = Visibility::Internal;

    fn retire(addr: usize) {
        header(addr).magic.store(0, Ordering::Release);
    }
}

impl Semaphores {
    /// Allocates a semaphore on the team `team` (raw handle, `group`),
    /// collectively over its members; `barrier` is a barrier of the team. The
    /// value starts at 0 on every member. Returns this PE's address of it.
    pub(crate) fn alloc(
        &self,
        rt: &World,
        spaces: &Spaces,
        team: usize,
        group: Group,
        flags: i32,
        barrier: impl FnMut(),
    ) -> Result<usize, SpaceError> {
        let init = |local: usize, _| {
            let h = header(local);
            h.flags.store(flags as u32, Ordering::Relaxed);
            h.team.store(group);
            h.magic.store(MAGIC, Ordering::Release);
        };
        self.alloc_object(rt, spaces, team, group, OBJECT_BYTES, barrier, init)
    }
}

/// The semaphore at `addr` on this PE, if `addr` is one.
#[inline]
pub(crate) fn lookup(rt: &World, addr: usize) -> Option<Sem> {
    let arena = Arena::new(rt);
    let start = arena.local_start(addr, OBJECT_BYTES)?;
    if !addr.is_multiple_of(64) {
        return None;
    }
    let h = header(addr);
    if h.magic.load(Ordering::Acquire) != MAGIC {
        return None;
    }
    Some(Sem {
        off: arena.offset(start),
        local: addr,
        flags: h.flags.load(Ordering::Relaxed) as i32,
        group: h.team.load(),
    })
}

/// Why a post is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PostError {
    /// The value would exceed [`MAXVALUE`]: the value it would have reached.
    AboveMax(u64),
}

/// Adds `n` to world PE `pe`'s copy (sets it to 1 if boolean), after putting
/// `data` (an offset on `pe`, a source and a length) if given. Every earlier
/// store of this PE, and the data, are visible at `pe` before the new value.
///
/// # Safety
/// `pe` must be a member of the semaphore's team; `data`, if given, must be
/// a valid put to `pe` (symmetric destination, readable source).
pub(crate) unsafe fn post(
    rt: &World,
    s: &Sem,
    n: u64,
    pe: usize,
    data: Option<(SymOffset, *const u8, usize)>,
) -> Result<(), PostError> {
    let op = if s.boolean() { AmoOp::Set(1) } else { AmoOp::Add(n) };
    if n == 0 {
        if let Some((off, src, len)) = data {
            // SAFETY: the caller's contract.
            unsafe { rt.transport.put(pe, off, src, len) };
        }
        rt.transport.fence();
        return Ok(());
    }
    // SAFETY: the caller's contract: pe has a copy at s.off. One SeqCst
    // read-modify-write after the data: it orders every earlier store of
    // the poster before it (the implied fence).
    let old = unsafe {
        match data {
            Some((off, src, len)) => rt.transport.put_signal(pe, off, src, len, s.off, op),
            None => rt.transport.atomic::<u64>(pe, s.off, op),
        }
    };
    match old.checked_add(n) {
        _ if s.boolean() => Ok(()),
        Some(v) if v <= MAXVALUE => Ok(()),
        v => Err(PostError::AboveMax(v.unwrap_or(u64::MAX))),
    }
}

/// Takes `n` from this PE's copy if it holds that many; never blocks. The
/// take is a transport atomic on this PE itself: posters add through the
/// transport, so its atomicity statement requires the owner's update to go
/// through it too (on shared memory the same `lock cmpxchg`).
pub(crate) fn try_take(rt: &World, s: &Sem, n: u64) -> bool {
    take_with(s, n, |cur, new| {
        // SAFETY: `s.off` is this PE's copy of a live semaphore (checked by
        // `lookup`): 8-aligned, in the arena of its segment.
        unsafe {
            rt.transport
                .atomic_no_wake::<u64>(rt.me, s.off, AmoOp::CompareSwap(cur, new))
        }
    })
}

/// [`try_take`] with `cas(current, new)` as the compare-and-swap, which
/// returns the value it found.
fn take_with(s: &Sem, n: u64, cas: impl Fn(u64, u64) -> u64) -> bool {
    let mut v = s.value().load(Ordering::Relaxed);
    loop {
        if v < n {
            // Acquire on the failed check too: a caller that then reads data
            // the producer posted for is ordered after what it saw.
            std::sync::atomic::fence(Ordering::Acquire);
            return false;
        }
        match cas(v, v - n) {
            old if old == v => return true,
            now => v = now,
        }
    }
}

/// Waits until this PE's copy holds `n` and takes them.
pub(crate) fn wait(rt: &World, s: &Sem, n: u64, routine: &'static str) {
    loop {
        if try_take(rt, s, n) {
            return;
        }
        let on = || On::Memory {
            addr: s.local,
            word: 8,
            count: 1,
            cmp: Some(crate::types::Cmp::Ge as u32),
            value: n,
        };
        rt.waiter().wait_at(
            || rt.post_on(crate::stuck::Kind::Wait, routine, &on),
            polled(&rt.transport, || s.value().load(Ordering::Acquire) >= n),
            || format!("{routine}({:#x}, {n}): the semaphore holds {}", s.local, s.current()),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::AtomicWord;

    #[test]
    fn flags_follow_bupc() {
        assert_eq!(normalize(0), Ok(INTEGER | MPRODUCER | MCONSUMER));
        assert_eq!(normalize(BOOLEAN), Ok(BOOLEAN | MPRODUCER | MCONSUMER));
        assert_eq!(
            normalize(INTEGER | SPRODUCER | SCONSUMER),
            Ok(INTEGER | SPRODUCER | SCONSUMER)
        );
        assert!(normalize(BOOLEAN | INTEGER).is_err());
        assert!(normalize(SPRODUCER | MPRODUCER).is_err());
        assert!(normalize(SCONSUMER | MCONSUMER).is_err());
        assert!(normalize(64).is_err());
        assert!(normalize(-1).is_err());
    }

    #[test]
    fn takes_are_exact_under_contention() {
        let cell = Box::leak(Box::new([0u64; 16]));
        cell[0] = 4000;
        let word = cell.as_ptr() as usize;
        // The CPU compare-and-swap the shared-memory transport performs.
        let cas = |cur, new| {
            // SAFETY: the leaked cell lives for ever; 8-aligned.
            unsafe { u64::apply(word as *mut u64, AmoOp::CompareSwap(cur, new)) }
        };
        let s = Sem {
            off: SymOffset(0),
            local: cell.as_ptr() as usize,
            flags: INTEGER,
            group: Group {
                start: 0,
                stride: 1,
                size: 1,
                rank: 0,
            },
        };
        let taken: usize = std::thread::scope(|sc| {
            let hs: Vec<_> = (0..4)
                .map(|_| sc.spawn(|| (0..2000).filter(|_| take_with(&s, 1, cas)).count()))
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).sum()
        });
        assert_eq!(taken, 4000);
        assert_eq!(s.current(), 0);
        assert!(!take_with(&s, 1, cas));
        cell[0] = 5;
        assert!(!take_with(&s, 6, cas));
        assert!(take_with(&s, 5, cas));
    }
}
