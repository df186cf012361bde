//! The transport boundary: moving bytes to and from symmetric memory of other
//! PEs, addressed by PE and [`SymOffset`].
//!
//! Everything above this module (RMA, synchronisation, collectives) is written
//! against [`Transport`]. Today the only implementation is [`shm::SharedMemory`],
//! where every PE maps every segment, so operations are loads and stores. A
//! later MPI-3 RMA or UCX transport implements the same trait; for peers it can
//! reach by load/store it still returns `Some` from `local_ptr`, for others
//! `None`, and callers route per operation. The runtime holds one concrete
//! transport chosen at compile time, so calls are monomorphised, not dynamic.

pub mod shm;

use crate::heap::SymOffset;
use crate::types::{AmoOp, AtomicWord};
use std::ptr::NonNull;

/// A PE number already checked to be in range.
pub type Pe = usize;

pub trait Transport: Send + Sync + 'static {
    /// Address at which this process can load/store `off` on `pe`, if it can.
    fn local_ptr(&self, pe: Pe, off: SymOffset) -> Option<NonNull<u8>>;

    /// Copies `len` bytes from `src` into `pe`'s memory at `off`. Complete (and
    /// visible to `pe`) when it returns.
    ///
    /// # Safety
    /// `src` is readable for `len` bytes and `off..off+len` lies in a segment.
    unsafe fn put(&self, pe: Pe, off: SymOffset, src: *const u8, len: usize);

    /// Copies `len` bytes from `pe`'s memory at `off` into `dst`.
    ///
    /// # Safety
    /// `dst` is writable for `len` bytes and `off..off+len` lies in a segment.
    unsafe fn get(&self, pe: Pe, off: SymOffset, dst: *mut u8, len: usize);

    /// Strided put of `n` elements of `T`: element `i` of `src` (stride `sst`
    /// elements) to element `i` at `off` on `pe` (stride `dst` elements).
    ///
    /// # Safety
    /// All elements addressed on both sides are valid and inside a segment.
    unsafe fn put_strided<T: Copy>(&self, pe: Pe, off: SymOffset, dst: isize, src: *const T, sst: isize, n: usize);

    /// Strided get, the mirror of `put_strided`.
    ///
    /// # Safety
    /// As for `put_strided`.
    unsafe fn get_strided<T: Copy>(&self, pe: Pe, off: SymOffset, sst: isize, dst: *mut T, dst_stride: isize, n: usize);

    /// Stores one value (a `shmem_TYPE_p`).
    ///
    /// # Safety
    /// `off` is aligned for `T` and inside a segment.
    unsafe fn put_value<T: Copy>(&self, pe: Pe, off: SymOffset, v: T);

    /// Loads one value (a `shmem_TYPE_g`).
    ///
    /// # Safety
    /// `off` is aligned for `T` and inside a segment.
    unsafe fn get_value<T: Copy>(&self, pe: Pe, off: SymOffset) -> T;

    /// Applies an atomic operation to the word at `off` on `pe` and returns its
    /// previous value. Atomic with respect to every other atomic operation on
    /// that word, by any PE, and sequentially consistent.
    ///
    /// # Safety
    /// `off` is aligned for `T` and inside a segment.
    unsafe fn atomic<T: AtomicWord>(&self, pe: Pe, off: SymOffset, op: AmoOp<T>) -> T;

    /// Puts `len` bytes, then updates the 64-bit signal word at `sig` on the
    /// same PE with `op` (`Set` or `Add`); a PE that sees the new signal sees
    /// the data. Returns the signal's previous value.
    ///
    /// # Safety
    /// As for `put` and `atomic`.
    unsafe fn put_signal(
        &self,
        pe: Pe,
        off: SymOffset,
        src: *const u8,
        len: usize,
        sig: SymOffset,
        op: AmoOp<u64>,
    ) -> u64;

    /// Adds `v` to a 64-bit synchronisation flag of the library (collectives)
    /// at `off` on `pe`, sequentially consistent, and wakes `pe` if it sleeps
    /// in a library wait. Earlier puts and gets of this PE are complete first.
    ///
    /// # Safety
    /// `off` is 8-aligned and inside a segment.
    unsafe fn flag_add(&self, pe: Pe, off: SymOffset, v: u64);

    /// Orders earlier puts to each PE before later ones to the same PE.
    fn fence(&self);

    /// Completes every earlier operation and makes it visible to all PEs.
    fn quiet(&self);
}
