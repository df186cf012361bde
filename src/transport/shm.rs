//! The shared-memory transport: every segment is mapped in every PE.
//!
//! Puts are stores and gets are loads into the mapping. After storing into a
//! peer's memory, a put rings the peer's doorbell if one of its threads sleeps
//! (see `wait`), so a waiter on that memory wakes at once.
//!
//! Ordering (see docs/memory-model.md): a put is complete when its stores have
//! been issued; `notify` then executes a sequentially consistent fence (x86-64
//! `mfence`, AArch64 `dmb ish`), which drains them before the doorbell check.
//! `fence` is a release fence (a compiler barrier on x86-64 whose stores are
//! TSO-ordered; `dmb ish` on AArch64); `quiet` is a sequentially consistent fence.

use super::{Pe, Transport};
use crate::heap::{Segments, SymOffset};
use crate::job::Control;
use crate::types::{AmoOp, AtomicWord};
use crate::wait::{notify, notify_after_seqcst};
use std::ptr::NonNull;
use std::sync::atomic::{Ordering, fence};

pub struct SharedMemory {
    segs: Segments,
    control: Control,
}

impl SharedMemory {
    pub fn new(segs: Segments, control: Control) -> SharedMemory {
        SharedMemory { segs, control }
    }

    #[inline]
    fn addr(&self, pe: Pe, off: SymOffset) -> *mut u8 {
        self.segs.peer_addr(pe, off)
    }

    #[inline]
    fn wrote(&self, pe: Pe) {
        notify(&self.control.slot(pe).wake.memory);
    }
}

impl Transport for SharedMemory {
    #[inline]
    fn local_ptr(&self, pe: Pe, off: SymOffset) -> Option<NonNull<u8>> {
        NonNull::new(self.addr(pe, off))
    }

    #[inline]
    unsafe fn put(&self, pe: Pe, off: SymOffset, src: *const u8, len: usize) {
        // SAFETY: caller's contract; `copy` because a PE may put from its own
        // symmetric memory into itself with overlapping ranges.
        unsafe { std::ptr::copy(src, self.addr(pe, off), len) };
        self.wrote(pe);
    }

    #[inline]
    unsafe fn get(&self, pe: Pe, off: SymOffset, dst: *mut u8, len: usize) {
        // SAFETY: caller's contract; overlap is possible for gets from oneself.
        unsafe { std::ptr::copy(self.addr(pe, off), dst, len) };
        fence(Ordering::Acquire);
    }

    unsafe fn put_strided<T: Copy>(&self, pe: Pe, off: SymOffset, dst: isize, src: *const T, sst: isize, n: usize) {
        let base = self.addr(pe, off) as *mut T;
        for i in 0..n as isize {
            // SAFETY: caller's contract covers every element addressed.
            unsafe {
                base.offset(i * dst)
                    .write_unaligned(src.offset(i * sst).read_unaligned())
            };
        }
        self.wrote(pe);
    }

    unsafe fn get_strided<T: Copy>(
        &self,
        pe: Pe,
        off: SymOffset,
        sst: isize,
        dst: *mut T,
        dst_stride: isize,
        n: usize,
    ) {
        let base = self.addr(pe, off) as *const T;
        for i in 0..n as isize {
            // SAFETY: caller's contract covers every element addressed.
            unsafe {
                dst.offset(i * dst_stride)
                    .write_unaligned(base.offset(i * sst).read_unaligned())
            };
        }
        fence(Ordering::Acquire);
    }

    #[inline]
    unsafe fn put_value<T: Copy>(&self, pe: Pe, off: SymOffset, v: T) {
        // SAFETY: caller's contract. Volatile: exactly one store the size of T,
        // never elided or split by the compiler.
        unsafe { (self.addr(pe, off) as *mut T).write_volatile(v) };
        self.wrote(pe);
    }

    #[inline]
    unsafe fn get_value<T: Copy>(&self, pe: Pe, off: SymOffset) -> T {
        // SAFETY: caller's contract; volatile for a fresh load every call.
        let v = unsafe { (self.addr(pe, off) as *const T).read_volatile() };
        fence(Ordering::Acquire);
        v
    }

    #[inline]
    unsafe fn atomic<T: AtomicWord>(&self, pe: Pe, off: SymOffset, op: AmoOp<T>) -> T {
        let writes = op.writes();
        // SAFETY: caller's contract.
        let old = unsafe { T::apply(self.addr(pe, off) as *mut T, op) };
        if writes {
            // The update was sequentially consistent: no further fence needed.
            notify_after_seqcst(&self.control.slot(pe).wake.memory);
        }
        old
    }

    unsafe fn put_signal(
        &self,
        pe: Pe,
        off: SymOffset,
        src: *const u8,
        len: usize,
        sig: SymOffset,
        op: AmoOp<u64>,
    ) -> u64 {
        // SAFETY: caller's contract. The data stores precede the signal's
        // sequentially consistent update (x86-64: a locked instruction drains
        // all earlier stores, string stores included; AArch64: the update has
        // release semantics), so the signal is never seen before the data.
        let old = unsafe {
            std::ptr::copy(src, self.addr(pe, off), len);
            u64::apply(self.addr(pe, sig) as *mut u64, op)
        };
        notify_after_seqcst(&self.control.slot(pe).wake.memory);
        old
    }

    #[inline]
    unsafe fn flag_add(&self, pe: Pe, off: SymOffset, v: u64) {
        // SAFETY: caller's contract. A SeqCst read-modify-write: every earlier
        // store of this PE is visible before the flag changes.
        unsafe { std::sync::atomic::AtomicU64::from_ptr(self.addr(pe, off) as *mut u64) }
            .fetch_add(v, Ordering::SeqCst);
        notify_after_seqcst(&self.control.slot(pe).wake.sync);
    }

    #[inline]
    fn fence(&self) {
        fence(Ordering::Release);
    }

    #[inline]
    fn quiet(&self) {
        fence(Ordering::SeqCst);
    }
}
