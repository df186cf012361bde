//! Sandia OpenSHMEM's counting puts (`shmemx_ct_*`, `shmemx_putmem_ct`,
//! `shmemx_getmem_ct`): a counter is a target-side event count. A put
//! through counter `c` to PE `p` adds 1 to `p`'s counter `c` once its data is
//! delivered there; a get through `c` from `p` adds 1 to `p`'s counter `c`
//! once `p`'s data has been read. `shmemx_ct_wait` waits until this PE's
//! counter reaches a value.
//!
//! # Where the counters are
//!
//! Other PEs add to them, so they are symmetric words: a fixed area of
//! [`AREA_BYTES`] that the world team reserves in its synchronisation memory
//! at every `shmem_init` (zeroed, with no collective of its own, as the
//! transport's rendezvous inbox and the set check's mailbox are), so that
//! `shmemx_ct_create` needs no collective either. Its first line holds the
//! performance counters' target word (`crate::pcntr`), then [`MAX`] counters,
//! one per cache line (PEs adding to two different counters of one target
//! never share a line).
//!
//! `shmemx_ct_create` takes the lowest free counter, so a program whose PEs
//! create and free their counters in the same order (as SOS requires: a
//! handle names "the same" counter on every PE) gets the same counter on
//! every PE. A handle is this PE's address of its counter word; validating
//! one is a range check and a test of the live bit. Exhausting the table is
//! a named error: SOS's Portals 4 transport has a fixed number of counting
//! events too, and [`MAX`] live counters are far more than its programs use.
//!
//! # Updates and ordering
//!
//! - `putmem_ct` is the transport's put-with-signal with an add of 1 on the
//!   counter: on this node the data stores then a sequentially consistent add
//!   that rings the target's memory bell; across nodes one message carrying
//!   data and increment (UCX's active message, MPI's flag message for small
//!   puts), the increment never applied before the data. It returns when the
//!   source may be reused; the increment lands by the next quiet at the
//!   latest.
//! - `getmem_ct` is a blocking get, then a transport add on the target's
//!   counter (which wakes its waiters on this node): the data has been read
//!   when the count moves.
//! - The owner's `ct_set` goes through the transport too (its atomicity
//!   statement: a word peers update through it is updated by its owner the
//!   same way); `ct_get` and `ct_wait` read it with acquire ordering, so a PE
//!   that sees the count also sees the data of the puts counted.
//! - `ct_wait` is a library wait on this PE's memory (spin, yield, futex,
//!   woken by the puts' bell on this node; across nodes it polls the
//!   engine's progress, as every wait does).

use crate::heap::SymOffset;
use crate::stuck::{Kind, On};
use crate::transport::{Transport, polled};
use crate::types::AmoOp;
use crate::world::World;
use core::ffi::c_long;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// Counters a PE may have at once.
pub(crate) const MAX: usize = 64;
/// Bytes of a counter (and of the target word): a cache line each.
pub(crate) const LINE: usize = 64;
/// Bytes every PE's world team reserves: the target word's line, then the
/// counters'.
pub(crate) const AREA_BYTES: usize = LINE * (MAX + 1);

/// Why a handle is not a live counter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Invalid {
    /// Not an address `shmemx_ct_create` gives (garbage, NULL, another object).
    NotACounter,
    /// A counter's address, but not a live one (freed, or never created
    /// since this `shmem_init`).
    NotLive(usize),
}

/// This PE's counters. Owned by the runtime.
#[derive(Debug)]
pub(crate) struct Counters {
    /// Offset of the area in every segment (`usize::MAX` before `start`).
    at: AtomicUsize,
    /// This PE's address of the area.
    local: AtomicUsize,
    /// Bit `i`: counter `i` is live.
    live: AtomicU64,
}

const _: () = assert!(MAX == 64, "the live set is one u64");

impl Default for Counters {
    fn default() -> Counters {
        Counters {
            at: AtomicUsize::new(usize::MAX),
            local: AtomicUsize::new(0),
            live: AtomicU64::new(0),
        }
    }
}

/// A live counter: its index and where its word is.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ct {
    pub index: usize,
    /// Offset of the counter word in every segment.
    pub off: SymOffset,
    /// This PE's address of it.
    local: usize,
}

impl Ct {
    fn word(&self) -> &AtomicU64 {
        // SAFETY: `local` is this PE's counter word in the reserved area of
        // its segment (checked by `Counters::lookup`): 64-aligned, mapped for
        // the life of the process.
        unsafe { AtomicU64::from_ptr(self.local as *mut u64) }
    }

    /// The handle C holds: this PE's address of the word.
    pub(crate) fn handle(&self) -> usize {
        self.local
    }

    /// The count, with acquire ordering (a PE that sees a count sees the
    /// data of the puts it counts).
    pub(crate) fn get(&self) -> c_long {
        self.word().load(Ordering::Acquire) as c_long
    }
}

impl Counters {
    /// At every `shmem_init`, once the world team reserved (and zeroed) the
    /// area at `at`: no counter is live.
    pub(crate) fn start(&self, w: &World, at: SymOffset) {
        self.live.store(0, Ordering::Relaxed);
        self.local.store(w.own_addr(at) as usize, Ordering::Relaxed);
        self.at.store(at.0, Ordering::Release);
    }

    /// Offset of the performance counters' target word in every segment,
    /// once started.
    pub(crate) fn target_word(&self) -> Option<SymOffset> {
        let at = self.at.load(Ordering::Acquire);
        (at != usize::MAX).then_some(SymOffset(at))
    }

    /// This PE's target word (`crate::pcntr`), once started.
    pub(crate) fn target_count(&self) -> u64 {
        if self.target_word().is_none() {
            return 0;
        }
        let word = self.local.load(Ordering::Relaxed) as *mut u64;
        // SAFETY: the first line of the area in this PE's segment (started):
        // 64-aligned, mapped for the life of the process.
        unsafe { AtomicU64::from_ptr(word) }.load(Ordering::Relaxed)
    }

    fn ct(&self, index: usize) -> Ct {
        Ct {
            index,
            off: SymOffset(self.at.load(Ordering::Relaxed) + LINE * (index + 1)),
            local: self.local.load(Ordering::Relaxed) + LINE * (index + 1),
        }
    }

    /// Takes the lowest free counter, set to 0 (through the transport, as
    /// every owner's update of a word peers update). `None`: all [`MAX`] live.
    pub(crate) fn create(&self, w: &World) -> Option<Ct> {
        let mut live = self.live.load(Ordering::Relaxed);
        loop {
            if live == u64::MAX {
                return None;
            }
            let i = live.trailing_ones() as usize;
            match self
                .live
                .compare_exchange_weak(live, live | 1 << i, Ordering::AcqRel, Ordering::Relaxed)
            {
                Ok(_) => {
                    let ct = self.ct(i);
                    set(w, &ct, 0);
                    return Some(ct);
                }
                Err(now) => live = now,
            }
        }
    }

    /// The live counter whose handle is `handle`.
    pub(crate) fn lookup(&self, handle: usize) -> Result<Ct, Invalid> {
        if self.at.load(Ordering::Acquire) == usize::MAX {
            return Err(Invalid::NotACounter);
        }
        let first = self.local.load(Ordering::Relaxed) + LINE;
        let Some(rel) = handle.checked_sub(first) else {
            return Err(Invalid::NotACounter);
        };
        if !rel.is_multiple_of(LINE) || rel / LINE >= MAX {
            return Err(Invalid::NotACounter);
        }
        let i = rel / LINE;
        if self.live.load(Ordering::Acquire) & (1 << i) == 0 {
            return Err(Invalid::NotLive(i));
        }
        Ok(self.ct(i))
    }

    /// Frees `ct` (its slot is the next `create`'s if it is the lowest).
    pub(crate) fn free(&self, ct: &Ct) {
        self.live.fetch_and(!(1 << ct.index), Ordering::AcqRel);
    }

    /// Live counters, for the exhaustion message.
    pub(crate) fn live(&self) -> u32 {
        self.live.load(Ordering::Relaxed).count_ones()
    }
}

/// Sets this PE's counter (`shmemx_ct_set`). Nobody waits for a set, so no
/// bell; sequentially consistent, like every transport atomic.
pub(crate) fn set(w: &World, ct: &Ct, value: c_long) {
    // SAFETY: the counter word of this PE: 8-aligned, inside its segment.
    unsafe {
        w.transport
            .atomic_no_wake::<u64>(w.me, ct.off, AmoOp::Set(value as u64))
    };
}

/// Waits until this PE's counter is at least `wait_for` (`shmemx_ct_wait`).
pub(crate) fn wait(w: &World, ct: &Ct, wait_for: c_long, routine: &'static str) {
    let on = || On::Memory {
        addr: ct.local,
        word: 8 | crate::stuck::SIGNED,
        count: 1,
        cmp: Some(crate::constants::SHMEM_CMP_GE as u32),
        value: wait_for as u64,
    };
    w.waiter().wait_at(
        || w.post_on(Kind::Wait, routine, &on),
        polled(&w.transport, || ct.get() >= wait_for),
        || {
            format!(
                "{routine} to see counter {} reach {wait_for} (it is {}; other PEs' \
                 shmemx_putmem_ct and shmemx_getmem_ct on this PE add to it)",
                ct.index,
                ct.get()
            )
        },
    );
}

/// Puts `len` bytes from `src` to `off` on `pe` and adds 1 to `pe`'s counter
/// once they are there (`shmemx_putmem_ct`); `src` is reusable on return.
///
/// # Safety
/// `off..off+len` lies in a segment; `src` is readable for `len` bytes.
pub(crate) unsafe fn put(w: &World, ct: &Ct, pe: usize, off: SymOffset, src: *const u8, len: usize) {
    // A put of nothing still counts (a Portals put of 0 bytes is an event):
    // the signal alone, at the counter's own offset.
    let off = if len == 0 { ct.off } else { off };
    // SAFETY: the caller's contract; the counter is an aligned u64 on every PE.
    unsafe { w.transport.put_signal_post(pe, off, src, len, ct.off, AmoOp::Add(1)) }
}

/// Gets `len` bytes from `off` on `pe` into `dst`, then adds 1 to `pe`'s
/// counter (`shmemx_getmem_ct`): blocking, so the data has been read there
/// when the count moves.
///
/// # Safety
/// `off..off+len` lies in a segment; `dst` is writable for `len` bytes.
pub(crate) unsafe fn get(w: &World, ct: &Ct, pe: usize, off: SymOffset, dst: *mut u8, len: usize) {
    // SAFETY: the caller's contract; the counter is an aligned u64 on every
    // PE. A writing transport atomic wakes `pe`'s waits on this node.
    unsafe {
        if len > 0 {
            w.transport.get(pe, off, dst, len);
        }
        w.transport.atomic::<u64>(pe, ct.off, AmoOp::Add(1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn area_is_lines() {
        assert_eq!(AREA_BYTES, 65 * 64);
    }
}
