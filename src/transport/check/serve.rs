//! The target's side: executing the requests posted to this PE on its own
//! memory, in ticket order per requester, from `progress` and from every
//! wait of this PE for a reply.

use super::Checking;
use super::area::{CHUNK, Header, Op, Slot};
use super::codec;
use crate::heap::SymOffset;
use crate::types::{AmoOp, AtomicWord};
use crate::wait::notify;
use std::sync::atomic::{AtomicU64, Ordering};

/// The serving state, behind a lock that a thread only tries: one thread
/// serves at a time, the others have nothing to do meanwhile.
pub(super) struct Inbox {
    /// Per requester: the ticket to execute next.
    next: Vec<u64>,
    /// Requesters to ring after a round of serving (reused between rounds).
    replied: Vec<bool>,
}

impl Inbox {
    pub(super) fn new(npes: usize) -> Inbox {
        Inbox {
            next: vec![1; npes],
            replied: vec![false; npes],
        }
    }
}

impl Checking {
    /// Executes every request posted to this PE so far. Cheap when there is
    /// none: one load of this PE's request counter.
    pub(super) fn serve(&self) {
        let counter = self.area.requests(self.me);
        if counter.load(Ordering::Acquire) == self.served_upto.load(Ordering::Relaxed) {
            return;
        }
        let Ok(mut inbox) = self.inbox.try_lock() else {
            return; // another thread of this PE serves
        };
        // Requests counted here have published their slots (the requester
        // stores `posted`, then adds to the counter).
        let upto = counter.load(Ordering::Acquire);
        let inbox = &mut *inbox;
        let mut wrote = false;
        for r in 0..self.npes {
            loop {
                let ticket = inbox.next[r];
                let slot = self.area.slot(r, self.me, ticket);
                if slot.header.posted.load(Ordering::Acquire) != ticket {
                    break;
                }
                wrote |= self.execute(r, slot);
                // Results and payload first, then the ticket that publishes them.
                slot.header.served.store(ticket, Ordering::Release);
                inbox.next[r] = ticket + 1;
                inbox.replied[r] = true;
            }
        }
        self.served_upto.store(upto, Ordering::Relaxed);
        if wrote {
            // Other threads of this PE may sleep on the memory just written.
            let wake = &self.control.slot(self.me).wake;
            notify(&wake.memory);
            notify(&wake.sync);
        }
        for r in 0..self.npes {
            if std::mem::take(&mut inbox.replied[r]) {
                self.ring(r);
            }
        }
    }

    /// Address of `len` bytes at `off` in this PE's segment, checked: a
    /// request outside it is a bug of the requester's library.
    fn own(&self, requester: usize, off: u64, len: u64) -> *mut u8 {
        let end = off.checked_add(len);
        assert!(
            end.is_some_and(|e| e <= self.segs.stride as u64),
            "checking transport: PE {requester} asked for {len} bytes at offset {off:#x}, outside PE {}'s segment",
            self.me
        );
        self.segs.peer_addr(self.me, SymOffset(off as usize))
    }

    /// Executes one request; true if it may have changed this PE's memory.
    fn execute(&self, requester: usize, slot: Slot<'_>) -> bool {
        let h: &Header = slot.header;
        let word = |w: &AtomicU64| w.load(Ordering::Relaxed);
        let (off, len) = (word(&h.off), word(&h.len));
        let op = Op::from_word(word(&h.op));
        match op {
            Some(Op::Put) | Some(Op::PutSignal) => {
                assert!(len as usize <= CHUNK);
                let dst = self.own(requester, off, len);
                // SAFETY: dst holds len bytes of this PE's segment (checked);
                // the payload holds CHUNK >= len bytes published by `posted`.
                unsafe { std::ptr::copy_nonoverlapping(slot.payload, dst, len as usize) };
                if op == Some(Op::PutSignal) {
                    let sig = self.own(requester, word(&h.sig), 8) as *mut u64;
                    let amo = self.amo::<u64>(h);
                    // SAFETY: an 8-byte word of this segment; the requester's
                    // library checked its alignment.
                    let old = unsafe { u64::apply(sig, amo) };
                    h.result.store(old, Ordering::Relaxed);
                }
                true
            }
            Some(Op::Get) => {
                assert!(len as usize <= CHUNK);
                let src = self.own(requester, off, len);
                // SAFETY: as for Put, in the other direction.
                unsafe { std::ptr::copy_nonoverlapping(src, slot.payload, len as usize) };
                false
            }
            Some(Op::PutStrided) | Some(Op::GetStrided) => {
                let elem = word(&h.elem) as usize;
                let stride = word(&h.stride) as i64 as isize;
                let n = len as usize;
                assert!(elem > 0 && n * elem <= CHUNK);
                // Every element lies between the first and the last one.
                let span = n.saturating_sub(1) as i128 * stride as i128 * elem as i128;
                let (lo, hi) = (off as i128 + span.min(0), off as i128 + span.max(0) + elem as i128);
                assert!(
                    lo >= 0 && hi <= self.segs.stride as i128,
                    "checking transport: PE {requester} asked for {n} elements from offset {off:#x} \
                     (stride {stride}), outside PE {}'s segment",
                    self.me
                );
                let base = self.segs.peer_addr(self.me, SymOffset(off as usize));
                for i in 0..n {
                    // SAFETY: element i lies in this segment (both ends
                    // checked above) and in the payload (n * elem <= CHUNK).
                    unsafe {
                        let there = base.offset(i as isize * stride * elem as isize);
                        let here = slot.payload.add(i * elem);
                        if op == Some(Op::PutStrided) {
                            std::ptr::copy_nonoverlapping(here, there, elem);
                        } else {
                            std::ptr::copy_nonoverlapping(there, here, elem);
                        }
                    }
                }
                op == Some(Op::PutStrided)
            }
            Some(Op::Atomic) => {
                let width = word(&h.elem);
                let p = self.own(requester, off, width);
                // SAFETY: a word of this PE's segment of the given width,
                // whose alignment the requester's library checked.
                let old = unsafe {
                    match width {
                        4 => u32::apply(p as *mut u32, self.amo::<u32>(h)) as u64,
                        8 => u64::apply(p as *mut u64, self.amo::<u64>(h)),
                        w => panic!("checking transport: a {w}-byte atomic request"),
                    }
                };
                h.result.store(old, Ordering::Relaxed);
                word(&h.amo) != 0 // a fetch writes nothing
            }
            Some(Op::FlagAdd) => {
                let p = self.own(requester, off, 8) as *mut u64;
                // SAFETY: an aligned 8-byte flag of this PE's segment.
                unsafe { AtomicU64::from_ptr(p) }.fetch_add(word(&h.a), Ordering::SeqCst);
                true
            }
            None => panic!(
                "checking transport: unknown request {} from PE {requester}",
                word(&h.op)
            ),
        }
    }

    fn amo<W: Copy>(&self, h: &Header) -> AmoOp<W> {
        let w = |x: &AtomicU64| x.load(Ordering::Relaxed);
        codec::decode(w(&h.amo), w(&h.a), w(&h.b)).expect("a known atomic operation")
    }

    /// Wakes `pe` wherever it waits: for a reply, or in a wait that serves.
    pub(super) fn ring(&self, pe: usize) {
        let wake = &self.control.slot(pe).wake;
        notify(&wake.sync);
        notify(&wake.memory);
    }
}
