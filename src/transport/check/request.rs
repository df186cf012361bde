//! The requester's side: cutting operations into requests, posting them to
//! the mailbox of a (this PE, target) pair, and collecting replies.
//!
//! Each target's outbox is behind a lock of this process, so threads of a
//! `SHMEM_THREAD_MULTIPLE` program post whole operations one at a time. While
//! a thread waits for a reply it serves the requests posted to this PE, so
//! two PEs requesting from each other at once both get answered.

use super::Checking;
use super::area::{CHUNK, Header, Op, SLOTS};
use crate::wait::Waiter;
use std::sync::MutexGuard;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// How long a requester waits for a reply before reporting the target as
/// not serving (the C suite's jobs time out after 60 s or more).
const REPLY_DEADLINE: Duration = Duration::from_secs(20);

/// What to do with a request's reply once it is served.
#[derive(Clone, Copy)]
pub(super) enum Collect {
    Nothing,
    /// Copy the payload's first `len` bytes to `dst` (a get).
    Copy {
        dst: *mut u8,
        len: usize,
    },
    /// Write the previous value of an atomic (`len` bytes of the `result`
    /// word) to `dst`, unaligned (a fetching non-blocking atomic).
    Fetched {
        dst: *mut u8,
        len: usize,
    },
    /// Spread the payload's `n` elements of `elem` bytes to `dst`, `stride`
    /// elements apart (a strided get).
    Spread {
        dst: *mut u8,
        elem: usize,
        stride: isize,
        n: usize,
    },
}

/// The requester's state of one mailbox (this PE to one target).
pub(super) struct Outbox {
    /// Ticket of the next request.
    next: u64,
    /// Every ticket below it is served and collected.
    retired: u64,
    /// Per slot: what to do with the reply of the request in it.
    collect: [Collect; SLOTS],
}

// SAFETY: the raw pointers in `collect` are destinations of gets, which the
// caller of the get keeps valid until the operation completes (`quiet` for
// the non-blocking forms), whichever thread completes it.
unsafe impl Send for Outbox {}

impl Outbox {
    pub(super) fn new() -> Outbox {
        Outbox {
            next: 1,
            retired: 1,
            collect: [Collect::Nothing; SLOTS],
        }
    }
}

impl Checking {
    pub(super) fn outbox(&self, target: usize) -> MutexGuard<'_, Outbox> {
        self.outboxes[target].lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Posts one request to `target`, once its slot is free: `fill` writes
    /// the slot's words and payload. Returns its ticket.
    pub(super) fn post(
        &self,
        ob: &mut Outbox,
        target: usize,
        collect: Collect,
        fill: impl FnOnce(&Header, *mut u8),
    ) -> u64 {
        let ticket = ob.next;
        if ticket >= ob.retired + SLOTS as u64 {
            self.retire(ob, target, ticket - SLOTS as u64);
        }
        let slot = self.area.slot(self.me, target, ticket);
        fill(slot.header, slot.payload);
        slot.header.posted.store(ticket, Ordering::Release);
        ob.collect[ticket as usize % SLOTS] = collect;
        ob.next = ticket + 1;
        self.area.requests(target).fetch_add(1, Ordering::SeqCst);
        self.ring(target);
        ticket
    }

    /// Waits until every request to `target` up to `ticket` is served, and
    /// collects their replies in order.
    pub(super) fn retire(&self, ob: &mut Outbox, target: usize, ticket: u64) {
        while ob.retired <= ticket {
            let k = ob.retired;
            let slot = self.area.slot(self.me, target, k);
            self.await_reply(target, slot.header, k);
            match std::mem::replace(&mut ob.collect[k as usize % SLOTS], Collect::Nothing) {
                Collect::Nothing => {}
                // SAFETY: the get's caller keeps dst valid for len bytes until
                // completion, which is now; the payload holds len <= CHUNK bytes
                // published by `served`.
                Collect::Copy { dst, len } => unsafe { std::ptr::copy_nonoverlapping(slot.payload, dst, len) },
                Collect::Fetched { dst, len } => {
                    let old = slot.header.result.load(Ordering::Relaxed);
                    // SAFETY: the atomic's caller keeps dst writable for len
                    // (4 or 8) bytes until completion, which is now.
                    unsafe {
                        if len == 4 {
                            (dst as *mut u32).write_unaligned(old as u32)
                        } else {
                            (dst as *mut u64).write_unaligned(old)
                        }
                    }
                }
                Collect::Spread { dst, elem, stride, n } => {
                    for i in 0..n {
                        // SAFETY: as above, for each element of the strided get.
                        unsafe {
                            std::ptr::copy_nonoverlapping(
                                slot.payload.add(i * elem),
                                dst.offset(i as isize * stride * elem as isize),
                                elem,
                            )
                        };
                    }
                }
            }
            ob.retired = k + 1;
        }
    }

    /// Completes every request of this PE to `target`.
    pub(super) fn drain(&self, target: usize) {
        let mut ob = self.outbox(target);
        let last = ob.next - 1;
        self.retire(&mut ob, target, last);
    }

    /// Waits for `target` to serve ticket `k`, serving this PE's own requests
    /// meanwhile. Through the PE's waiter: spins, yields, then sleeps on its
    /// bell (rung by the reply), so a PE stuck on a dead peer holds no core
    /// until `oshrun` ends the job. Not published as a stuck-job place: the
    /// condition depends on the target's progress, not on the job's state.
    /// After [`REPLY_DEADLINE`] it panics (a fatal error in the C entry
    /// point): the target is most likely blocked in a wait that does not call
    /// `progress`, a bug this transport exists to find, better reported than
    /// left to the job's timeout.
    fn await_reply(&self, target: usize, h: &Header, k: u64) {
        let waiter = Waiter {
            bell: &self.control.slot(self.me).wake.sync,
            policy: self.policy,
            hang_warn_secs: self.hang_warn_secs,
        };
        let started = Instant::now();
        waiter.wait(
            || {
                self.serve();
                if h.served.load(Ordering::Acquire) == k {
                    return true;
                }
                assert!(
                    started.elapsed() < REPLY_DEADLINE,
                    "checking transport: PE {target} has not served a request of PE {} for {} s; \
                     is it blocked in a wait that does not call Transport::progress?",
                    self.me,
                    REPLY_DEADLINE.as_secs()
                );
                false
            },
            || format!("PE {target} to serve its request {k} (checking transport)"),
        );
    }

    /// Puts `len` bytes from `src` at `off` on `target`; with `complete`,
    /// returns once they are there.
    ///
    /// # Safety
    /// `src` is readable for `len` bytes until this returns.
    pub(super) unsafe fn put_bytes(&self, target: usize, off: usize, src: *const u8, len: usize, complete: bool) {
        let mut ob = self.outbox(target);
        let mut last = None;
        for at in (0..len).step_by(CHUNK) {
            let n = CHUNK.min(len - at);
            last = Some(self.post(&mut ob, target, Collect::Nothing, |h, payload| {
                set(&h.op, Op::Put as u64);
                set(&h.off, (off + at) as u64);
                set(&h.len, n as u64);
                // SAFETY: src holds len bytes (caller); the payload CHUNK >= n.
                unsafe { std::ptr::copy_nonoverlapping(src.add(at), payload, n) };
            }));
        }
        if let (Some(t), true) = (last, complete) {
            self.retire(&mut ob, target, t);
        }
    }

    /// Gets `len` bytes at `off` on `target` into `dst`; with `complete`,
    /// returns once they are in `dst`, else `dst` is written when the replies
    /// are collected (at the latest at `quiet`).
    ///
    /// # Safety
    /// `dst` is writable for `len` bytes until the get completes.
    pub(super) unsafe fn get_bytes(&self, target: usize, off: usize, dst: *mut u8, len: usize, complete: bool) {
        let mut ob = self.outbox(target);
        let mut last = None;
        for at in (0..len).step_by(CHUNK) {
            let n = CHUNK.min(len - at);
            let to = Collect::Copy {
                dst: dst.wrapping_add(at),
                len: n,
            };
            last = Some(self.post(&mut ob, target, to, |h, _| {
                set(&h.op, Op::Get as u64);
                set(&h.off, (off + at) as u64);
                set(&h.len, n as u64);
            }));
        }
        if let (Some(t), true) = (last, complete) {
            self.retire(&mut ob, target, t);
        }
    }

    /// Strided put of `n` elements of `T`: from `src` (`sst` elements apart)
    /// to `off` on `target` (`dst` elements apart). Complete when it returns.
    ///
    /// # Safety
    /// Every element addressed in `src` is readable.
    pub(super) unsafe fn put_spread<T>(
        &self,
        target: usize,
        off: usize,
        dst: isize,
        src: *const T,
        sst: isize,
        n: usize,
    ) {
        let (elem, src) = (std::mem::size_of::<T>(), src as *const u8);
        let mut ob = self.outbox(target);
        let per = CHUNK / elem;
        let mut last = None;
        for first in (0..n).step_by(per) {
            let count = per.min(n - first);
            last = Some(self.post(&mut ob, target, Collect::Nothing, |h, payload| {
                set(&h.op, Op::PutStrided as u64);
                set(&h.off, (off as isize + first as isize * dst * elem as isize) as u64);
                set(&h.len, count as u64);
                set(&h.elem, elem as u64);
                set(&h.stride, dst as i64 as u64);
                for i in 0..count {
                    // SAFETY: element first + i of src is readable (caller);
                    // the payload holds count * elem <= CHUNK bytes.
                    unsafe {
                        std::ptr::copy_nonoverlapping(
                            src.offset((first + i) as isize * sst * elem as isize),
                            payload.add(i * elem),
                            elem,
                        )
                    };
                }
            }));
        }
        if let Some(t) = last {
            self.retire(&mut ob, target, t);
        }
    }

    /// Strided get, the mirror of `put_spread`. Complete when it returns.
    ///
    /// # Safety
    /// Every element addressed in `dst` is writable.
    pub(super) unsafe fn get_spread<T>(
        &self,
        target: usize,
        off: usize,
        sst: isize,
        dst: *mut T,
        dst_stride: isize,
        n: usize,
    ) {
        let (elem, dst) = (std::mem::size_of::<T>(), dst as *mut u8);
        let mut ob = self.outbox(target);
        let per = CHUNK / elem;
        let mut last = None;
        for first in (0..n).step_by(per) {
            let count = per.min(n - first);
            let to = Collect::Spread {
                dst: dst.wrapping_offset(first as isize * dst_stride * elem as isize),
                elem,
                stride: dst_stride,
                n: count,
            };
            last = Some(self.post(&mut ob, target, to, |h, _| {
                set(&h.op, Op::GetStrided as u64);
                set(&h.off, (off as isize + first as isize * sst * elem as isize) as u64);
                set(&h.len, count as u64);
                set(&h.elem, elem as u64);
                set(&h.stride, sst as i64 as u64);
            }));
        }
        if let Some(t) = last {
            self.retire(&mut ob, target, t);
        }
    }

    /// An atomic operation (`codec::encode`'s words) on the `width`-byte word
    /// at `off` on `target`; returns the previous value's bits. With `fetch`,
    /// non-blocking instead: the previous value goes to `fetch` when the
    /// reply is collected (at the latest at `quiet`), and this returns 0.
    pub(super) fn atomic_word(
        &self,
        target: usize,
        off: usize,
        width: usize,
        (kind, a, b): (u64, u64, u64),
        fetch: Option<*mut u8>,
    ) -> u64 {
        let mut ob = self.outbox(target);
        let collect = match fetch {
            Some(dst) => Collect::Fetched { dst, len: width },
            None => Collect::Nothing,
        };
        let t = self.post(&mut ob, target, collect, |h, _| {
            set(&h.op, Op::Atomic as u64);
            set(&h.off, off as u64);
            set(&h.elem, width as u64);
            set(&h.amo, kind);
            set(&h.a, a);
            set(&h.b, b);
        });
        if fetch.is_some() {
            return 0;
        }
        self.retire(&mut ob, target, t);
        self.area.slot(self.me, target, t).header.result.load(Ordering::Relaxed)
    }

    /// Puts `len` bytes, then applies the 64-bit atomic `amo` to the signal
    /// word at `sig`, on `target`: the signal's request comes after the
    /// data's in the same mailbox, so the target executes it after them.
    /// With `complete`, returns the signal's previous value once both are
    /// done; else returns 0 at once (delivered at the latest at `quiet`).
    ///
    /// # Safety
    /// `src` is readable for `len` bytes until this returns.
    #[allow(clippy::too_many_arguments)]
    pub(super) unsafe fn put_signal_bytes(
        &self,
        target: usize,
        off: usize,
        src: *const u8,
        len: usize,
        sig: usize,
        (kind, a, b): (u64, u64, u64),
        complete: bool,
    ) -> u64 {
        let mut ob = self.outbox(target);
        let tail = if len == 0 { 0 } else { (len - 1) / CHUNK * CHUNK };
        for at in (0..tail).step_by(CHUNK) {
            self.post(&mut ob, target, Collect::Nothing, |h, payload| {
                set(&h.op, Op::Put as u64);
                set(&h.off, (off + at) as u64);
                set(&h.len, CHUNK as u64);
                // SAFETY: src holds len > at + CHUNK bytes (caller).
                unsafe { std::ptr::copy_nonoverlapping(src.add(at), payload, CHUNK) };
            });
        }
        let t = self.post(&mut ob, target, Collect::Nothing, |h, payload| {
            set(&h.op, Op::PutSignal as u64);
            set(&h.off, (off + tail) as u64);
            set(&h.len, (len - tail) as u64);
            set(&h.sig, sig as u64);
            set(&h.amo, kind);
            set(&h.a, a);
            set(&h.b, b);
            // SAFETY: the last len - tail <= CHUNK bytes of src (caller).
            unsafe { std::ptr::copy_nonoverlapping(src.add(tail), payload, len - tail) };
        });
        if !complete {
            return 0;
        }
        self.retire(&mut ob, target, t);
        self.area.slot(self.me, target, t).header.result.load(Ordering::Relaxed)
    }

    /// Adds `v` to the library flag at `off` on `target`; complete when it returns.
    pub(super) fn flag_add_word(&self, target: usize, off: usize, v: u64) {
        let mut ob = self.outbox(target);
        let t = self.post(&mut ob, target, Collect::Nothing, |h, _| {
            set(&h.op, Op::FlagAdd as u64);
            set(&h.off, off as u64);
            set(&h.a, v);
        });
        self.retire(&mut ob, target, t);
    }
}

/// Stores a request word; published by the release store of `posted`.
fn set(w: &std::sync::atomic::AtomicU64, v: u64) {
    w.store(v, Ordering::Relaxed);
}
