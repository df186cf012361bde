//! Notification sets: one flag per message, so that each message is sent as
//! soon as it is ready and used as soon as it arrives (the per-message
//! notifications of "Non-Blocking GPU-CPU Notifications", HPC Asia 2024; see
//! `docs/notifications.md`).
//!
//! A set is a symmetric object of a team: every member has a copy of `count`
//! flags, each a `u64` on its own cache line, so producers and consumers of
//! different messages never share a line. A flag moves through the seed's
//! states:
//!
//! ```text
//!   EMPTY --set / put--> READY --test / wait (compare-and-swap)--> CONSUMED
//!                          ^                                          |
//!                          +----------------- set / put --------------+
//!   reset: any state --> EMPTY
//! ```
//!
//! Ordering: a local `set` is a sequentially consistent swap (a release of
//! every earlier store of the calling thread); a remote `put` is the
//! transport's put-with-signal (data visible before the flag). A consume is a
//! compare-and-swap that reads the flag with acquire ordering, so the
//! consumer sees the data the flag announces. Of several consumer threads
//! exactly one wins each READY flag.
//!
//! The object lives in an internal space of its team that is *published*
//! ([`Visibility::Published`]): the flags are valid `sig_addr` arguments of
//! the user's own `shmem_put_signal` on the team's members. Layout:
//!
//! ```text
//! +0             header: magic, count, the team as start/stride/size
//!                (this PE's copy, written at allocation, read locally)
//! +64 * (i + 1)  flag i (u64)
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

/// Flag states (`SHMEMX_NOTIFY_*`).
pub(crate) const EMPTY: u64 = 0;
pub(crate) const READY: u64 = 1;
pub(crate) const CONSUMED: u64 = 2;

/// Bytes per flag and of the header: one cache line each.
pub(crate) const LINE: usize = 64;
/// The most flags a set may have (64 MiB of flags per member).
pub(crate) const MAX_FLAGS: usize = 1 << 20;
const MAGIC: u32 = u32::from_le_bytes(*b"ntf1");

#[repr(C)]
struct Header {
    magic: AtomicU32,
    _reserved: AtomicU32,
    count: AtomicU64,
    team: TeamWords,
}

fn header(local: usize) -> &'static Header {
    // SAFETY: `local` is the start of a set's copy in the arena (callers
    // checked the first line lies there), which stays mapped; the header's
    // fields are atomics and `local` is 64-aligned.
    unsafe { &*(local as *const Header) }
}

/// A notification set as seen from this PE.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Set {
    /// Offset of the header in every member's segment.
    off: SymOffset,
    /// Address of this PE's header.
    local: usize,
    pub count: usize,
    /// The team's members (world PEs); `rank` is unused.
    pub group: Group,
}

impl Set {
    /// This PE's flag `i` (`i < count`, checked by callers).
    fn flag(&self, i: usize) -> &AtomicU64 {
        debug_assert!(i < self.count);
        // SAFETY: `lookup` checked that this PE's copy of a live set starts
        // at `local`; it holds `count` flag lines after the header, 8-aligned,
        // in the arena, which stays mapped.
        unsafe { AtomicU64::from_ptr(self.flag_addr(i) as *mut u64) }
    }

    /// Address of this PE's flag `i`.
    pub(crate) fn flag_addr(&self, i: usize) -> usize {
        self.local + LINE * (i + 1)
    }

    /// Offset of flag `i` in every member's segment.
    pub(crate) fn flag_off(&self, i: usize) -> SymOffset {
        SymOffset(self.off.0 + LINE * (i + 1))
    }

    /// The state of this PE's flag `i`, read with acquire ordering.
    pub(crate) fn state(&self, i: usize) -> u64 {
        self.flag(i).load(Ordering::Acquire)
    }

    /// How many of this PE's flags are in each state (EMPTY, READY,
    /// CONSUMED, another value), for diagnostics.
    pub(crate) fn census(&self) -> [usize; 4] {
        let mut n = [0; 4];
        for i in 0..self.count {
            n[(self.state(i) as usize).min(3)] += 1;
        }
        n
    }
}

/// Bytes of a set of `count` flags on each member.
pub(crate) fn object_bytes(count: usize) -> usize {
    LINE * (count + 1)
}

/// Live notification sets of this process. Owned by the runtime.
pub(crate) type Notifies = TeamObjects<NotifySet>;

/// The kind of the objects in [`Notifies`]: published, so the flags are
/// valid `sig_addr` arguments of the user's own put-with-signal.
#[derive(Debug)]
pub(crate) enum NotifySet {}

impl ObjectKind for NotifySet {
    const VISIBILITY: Visibility = Visibility::Published;

    fn retire(addr: usize) {
        header(addr).magic.store(0, Ordering::Release);
    }
}

impl Notifies {
    /// Allocates a set of `count` flags (1 ..= [`MAX_FLAGS`]), all EMPTY, on
    /// the team `team` (raw handle, `group`), collectively over its members;
    /// `barrier` is a barrier of the team. Returns this PE's address of it.
    pub(crate) fn alloc(
        &self,
        rt: &World,
        spaces: &Spaces,
        team: usize,
        group: Group,
        count: usize,
        barrier: impl FnMut(),
    ) -> Result<usize, SpaceError> {
        let init = |local: usize, _| {
            let h = header(local);
            h.count.store(count as u64, Ordering::Relaxed);
            h.team.store(group);
            h.magic.store(MAGIC, Ordering::Release);
        };
        self.alloc_object(rt, spaces, team, group, object_bytes(count), barrier, init)
    }
}

/// The set at `addr` on this PE, if `addr` is one.
#[inline]
pub(crate) fn lookup(rt: &World, addr: usize) -> Option<Set> {
    let arena = Arena::new(rt);
    let start = arena.local_start(addr, LINE)?;
    if !addr.is_multiple_of(LINE) {
        return None;
    }
    let h = header(addr);
    if h.magic.load(Ordering::Acquire) != MAGIC {
        return None;
    }
    Some(Set {
        off: arena.offset(start),
        local: addr,
        count: h.count.load(Ordering::Relaxed) as usize,
        group: h.team.load(),
    })
}

/// Sets this PE's flag `i` READY and wakes threads of this PE waiting for
/// it. Returns the state it had: READY means a notification was lost (the
/// caller reports it).
pub(crate) fn set(rt: &World, s: &Set, i: usize) -> u64 {
    // SAFETY: flag `i` of this PE's copy of a live set (checked by `lookup`
    // and the caller's index check): an aligned u64 in the arena. The swap is
    // sequentially consistent (every earlier store of this thread is visible
    // before it) and, as a writing atomic, rings this PE's memory bell.
    unsafe { rt.transport.atomic::<u64>(rt.me, s.flag_off(i), AmoOp::Swap(READY)) }
}

/// Sets this PE's flag `i` EMPTY (a READY one is discarded).
pub(crate) fn reset(rt: &World, s: &Set, i: usize) {
    // SAFETY: as in `set`; nobody waits for EMPTY, so no bell.
    unsafe {
        rt.transport
            .atomic_no_wake::<u64>(rt.me, s.flag_off(i), AmoOp::Set(EMPTY))
    };
}

/// Consumes this PE's flag `i` if it is READY. The compare-and-swap is a
/// transport atomic on this PE itself: remote producers set flags through
/// the transport, so its atomicity statement requires the owner's update to
/// go through it too (on shared memory the same `lock cmpxchg`).
#[inline]
pub(crate) fn try_consume(rt: &World, s: &Set, i: usize) -> bool {
    if s.flag(i).load(Ordering::Relaxed) != READY {
        return false;
    }
    // SAFETY: as in `set`. The compare-and-swap is sequentially consistent,
    // so a winner is ordered after the producer's update and sees its data.
    let old = unsafe {
        rt.transport
            .atomic_no_wake::<u64>(rt.me, s.flag_off(i), AmoOp::CompareSwap(READY, CONSUMED))
    };
    old == READY
}

/// Consumes the lowest-numbered READY flag, if any.
#[inline]
pub(crate) fn try_consume_any(rt: &World, s: &Set) -> Option<usize> {
    (0..s.count).find(|&i| try_consume(rt, s, i))
}

/// Consumes up to `out.len()` READY flags, lowest first, writing their
/// indices to `out`; returns how many.
pub(crate) fn try_consume_some(rt: &World, s: &Set, out: &mut [usize]) -> usize {
    let mut n = 0;
    for i in 0..s.count {
        if n == out.len() {
            break;
        }
        if try_consume(rt, s, i) {
            out[n] = i;
            n += 1;
        }
    }
    n
}

fn any_ready(s: &Set) -> bool {
    (0..s.count).any(|i| s.flag(i).load(Ordering::Relaxed) == READY)
}

/// Blocks (spin, yield, futex sleep) until a flag in `which` may be READY.
fn block(rt: &World, s: &Set, routine: &'static str, which: Option<usize>) {
    let on = || On::Memory {
        addr: s.local,
        word: 8,
        count: s.count as u32,
        cmp: None,
        value: 0,
    };
    rt.waiter().wait_at(
        || rt.post_on(crate::stuck::Kind::Wait, routine, &on),
        polled(&rt.transport, || match which {
            Some(i) => s.flag(i).load(Ordering::Relaxed) == READY,
            None => any_ready(s),
        }),
        || {
            let [e, r, c, o] = s.census();
            let what = which.map_or("any flag".to_string(), |i| format!("flag {i}"));
            format!(
                "{routine}({:#x}) to find {what} READY: of its {} flags {e} are EMPTY, {r} READY, \
                 {c} CONSUMED{}",
                s.local,
                s.count,
                if o > 0 {
                    format!(", {o} hold another value")
                } else {
                    String::new()
                }
            )
        },
    );
}

/// Waits until this PE's flag `i` is READY and consumes it.
pub(crate) fn wait(rt: &World, s: &Set, i: usize, routine: &'static str) {
    while !try_consume(rt, s, i) {
        block(rt, s, routine, Some(i));
    }
}

/// Waits until a flag is READY, consumes it and returns its index.
pub(crate) fn wait_any(rt: &World, s: &Set, routine: &'static str) -> usize {
    loop {
        if let Some(i) = try_consume_any(rt, s) {
            return i;
        }
        block(rt, s, routine, None);
    }
}

/// Waits until a flag is READY, then consumes up to `out.len()` (at least
/// one) of them; returns how many.
pub(crate) fn wait_some(rt: &World, s: &Set, out: &mut [usize], routine: &'static str) -> usize {
    loop {
        let n = try_consume_some(rt, s, out);
        if n > 0 {
            return n;
        }
        block(rt, s, routine, None);
    }
}

/// Puts `data` (an offset on `pe`, a source and a length; nothing if the
/// length is 0) to world PE `pe`, then sets `pe`'s flag `i` READY: the data
/// is visible there before the flag. `nbi`: completed by the next quiet.
///
/// # Safety
/// `pe` must be a member of the set's team and `data` a valid put to `pe`
/// (symmetric destination, readable source).
pub(crate) unsafe fn put(rt: &World, s: &Set, i: usize, pe: usize, data: (SymOffset, *const u8, usize), nbi: bool) {
    let (off, src, len) = data;
    let sig = s.flag_off(i);
    let off = if len == 0 { sig } else { off };
    // SAFETY: the caller's contract; the flag is an aligned u64 on every
    // member.
    unsafe {
        if nbi {
            rt.transport.put_signal_nbi(pe, off, src, len, sig, AmoOp::Set(READY))
        } else {
            rt.transport.put_signal_post(pe, off, src, len, sig, AmoOp::Set(READY));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_values_match() {
        let h = crate::headers::SHMEMX_H;
        for (name, v) in [("EMPTY", EMPTY), ("READY", READY), ("CONSUMED", CONSUMED)] {
            let line = format!("#define SHMEMX_NOTIFY_{name} {v} ");
            assert!(h.contains(&line), "shmemx.h lacks {line:?}");
        }
        assert_eq!(object_bytes(26), 27 * 64);
        assert_eq!(std::mem::size_of::<Header>(), 40);
        assert!(std::mem::size_of::<Header>() <= LINE);
    }
}
