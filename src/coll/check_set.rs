//! The argument check of the deprecated active-set collectives
//! (`shmem_broadcast64`, `shmem_TYPE_OP_to_all`, `shmem_barrier`, ...): an
//! active set has no memory of its own, and the user's pSync must not be
//! written, so the members exchange their records ([`Record`]) through a
//! mailbox when the check is on: on every PE, two slots per possible
//! sender, in memory the world team's space reserves at `shmem_init` for
//! [`SetCheck::len`] bytes, laid out here ([`SetCheck::start`]). The
//! mailbox and its counts are the runtime's ([`SetCheck`]).
//!
//! Sender `s` puts its record for its `k`-th active-set check shared with
//! `r` into slot `k % 2` of `r`'s mailbox for `s`, with the sequence word
//! `k + 1` (`put_signal`: a PE that sees the word sees the record), and `r`
//! waits for that word. Both count the checks they share in program order,
//! so they agree on `k`. Two slots suffice: `s` writes its record `k + 2`
//! only after passing check `k + 1`, which needs `r`'s record `k + 1`, which
//! `r` sends after it has read record `k`.
//!
//! Then every member has every member's record and judges them as a team's
//! check does.

use super::Group;
use super::check::{Record, judge};
use crate::heap::SymOffset;
use crate::job::{AWAITED_MAX, TEAM_TAG_ACTIVE_SET};
use crate::psync::{CHECK_RECORD_BYTES, UNIT};
use crate::stuck::{Kind, On};
use crate::transport::{Transport, polled};
use crate::types::AmoOp;
use crate::world::World;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// One slot: a record, then the word that publishes it, on a line of its own.
const SLOT: usize = CHECK_RECORD_BYTES + 64;

/// This process's mailbox and its counts of checks shared with each PE.
struct Mailbox {
    base: SymOffset,
    sent: Vec<u64>,
    received: Vec<u64>,
}

/// The active-set check's state, owned by the runtime: where this PE's
/// mailbox is, once the check is on and the world team has reserved it.
#[derive(Default)]
pub(crate) struct SetCheck(Mutex<Option<Mailbox>>);

impl SetCheck {
    /// Bytes of the mailbox for `npes` PEs, a multiple of `UNIT` (0 when
    /// the check is off).
    pub(crate) fn len(on: bool, npes: usize) -> usize {
        match on && npes > 1 {
            true => (2 * npes * SLOT).next_multiple_of(UNIT),
            false => 0,
        }
    }

    /// Where this PE's mailbox is (zeroed before any PE can write to it),
    /// or None; a new world team (a new `shmem_init`) starts the counts
    /// again.
    pub(crate) fn start(&self, base: Option<SymOffset>, npes: usize) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = base.map(|base| Mailbox {
            base,
            sent: vec![0; npes],
            received: vec![0; npes],
        });
    }
}

/// The members of the active set `g` (`triple`: PE_start, logPE_stride,
/// PE_size as given) agree on `mine`; a disagreement ends the job.
#[cold]
#[inline(never)]
pub(crate) fn agree_set(
    (rt, check): (&World, &SetCheck),
    routine: &'static str,
    g: Group,
    triple: (i32, i32, i32),
    mut mine: Record,
) {
    let n = g.size;
    let mut guard = check.0.lock().unwrap_or_else(|e| e.into_inner());
    let Some(mb) = guard.as_mut().filter(|_| n > 1) else {
        return;
    };
    let (start, log_stride, size) = triple;
    // Members that name different active sets differ in this word.
    mine.team = (start as u32 as u64) | (log_stride as u64 & 0xff) << 32 | (size as u32 as u64 & 0xff_ffff) << 40;
    let slot = |sender: usize, k: u64| SymOffset(mb.base.0 + (sender * 2 + (k % 2) as usize) * SLOT);
    let src = &mine as *const Record as *const u8;
    let t = &rt.transport;
    for to in (0..n).filter(|&r| r != g.rank).map(|r| g.pe(r)) {
        rt.reach(to);
        let k = mb.sent[to];
        let at = slot(rt.me, k);
        let sig = SymOffset(at.0 + CHECK_RECORD_BYTES);
        // SAFETY: the slot lies in `to`'s copy of the world team's space
        // (SetCheck::len bytes from base on every PE); the source is a local
        // record of CHECK_RECORD_BYTES. A library mailbox whose reader waits
        // for the word itself: no later quiet need wait for it (across
        // nodes one posted message, nothing answered).
        unsafe { t.put_signal_inbox(to, at, src, CHECK_RECORD_BYTES, sig, AmoOp::Set(k + 1)) };
        mb.sent[to] = k + 1;
    }
    let mut all = vec![mine; n];
    for r in (0..n).filter(|&r| r != g.rank) {
        let from = g.pe(r);
        let k = mb.received[from];
        let at = slot(from, k);
        // SAFETY: this PE's own slot word: 8-aligned (SLOT and the base are
        // multiples of 64), in its mapped segment, only accessed atomically.
        let seq = unsafe { AtomicU64::from_ptr(rt.own_addr(SymOffset(at.0 + CHECK_RECORD_BYTES)) as *mut u64) };
        let on = || {
            let mut awaited = [0u32; AWAITED_MAX];
            awaited[0] = from as u32;
            On::Peers {
                team: TEAM_TAG_ACTIVE_SET,
                start: g.start as i32,
                stride: g.stride as i32,
                size: n as u32,
                awaited,
                n_awaited: 1,
            }
        };
        rt.waiter().wait_at(
            || rt.post_on(Kind::Coll, routine, &on),
            polled(&rt.transport, || seq.load(Ordering::Acquire) == k + 1),
            || format!("the argument check's record {} from PE {from}", k + 1),
        );
        // SAFETY: the sender's record, complete once its word is seen
        // (put_signal), in this PE's slot; nobody writes it again before
        // this PE has sent its next record (see the module).
        all[r] = unsafe { (rt.own_addr(at) as *const Record).read() };
        mb.received[from] = k + 1;
    }
    drop(guard);
    let who = |r: usize| format!("PE {}", g.pe(r));
    let set = || format!("the active set PE_start {start}, logPE_stride {log_stride}, PE_size {size}");
    judge(rt, routine, &all, g.rank, &who, &set)
}
