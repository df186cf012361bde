//! The remote half of the hybrid transport over UCX's UCP API: PEs on other
//! nodes, reached the way Open MPI's OSHMEM and OSSS-UCX reach them.
//!
//! [`shim`] loads `librshmem_ucx.so`, the small C library over UCP
//! (`shim.c`, interface `shim.h`), so librshmem itself never links UCX.
//! [`Remote`] maps the transport's operations onto it, each as few network
//! messages as UCP allows:
//!
//! - one registration per PE over its whole segment (globals, heap, arena),
//!   so a [`SymOffset`] is the offset from the peer's registered base;
//!   endpoints and remote keys are made on a peer's first use;
//! - `put`: `ucp_put_nbx`, returning on local completion (UCX buffers small
//!   puts: no wait); `get` and fetching atomics: one request each, completed
//!   by its reply, no flush; `_nbi`: the request alone, completed by `quiet`;
//! - `fence`: `ucp_worker_fence`; `quiet`: `ucp_worker_flush_nbx` (only when
//!   something was written since the last), and one flush request per peer
//!   with put-with-signal messages outstanding;
//! - put-with-signal: one active message carrying the data and the signal
//!   (up to 8 KiB; the target applies it when it progresses, and nothing
//!   answers it: both sides count them, see `shim.c`), larger the data, a
//!   fence and the signal's atomic;
//! - 32- and 64-bit atomics natively (`ucp_atomic_op_nbx`): every operation
//!   of OpenSHMEM's atomics is one of UCP's.
//!
//! # Atomicity
//!
//! rshmem sets `UCX_ATOMIC_MODE=cpu` before UCX starts (`runtime::bootstrap::mpi`):
//! UCX then applies remote atomics with the target CPU's atomic
//! instructions (on TCP and shared memory it does anyway; on InfiniBand it
//! emulates them instead of using the NIC's), so they are atomic with this
//! node's CPU atomics on the same word, which is what lets node-local PEs
//! keep their CPU atomics ([`Atomicity::Cpu`](super::Atomicity::Cpu)). A
//! user who sets another mode gets an error at start-up.
//!
//! Start-up needs the job's MPI only to exchange each PE's card (worker
//! address, packed remote key, segment base) with `MPI_Allgather`; MPI also
//! carries the status messages of the hang reports, which are not on any
//! hot path, and the leaders' barrier only where the pushed one cannot say
//! who differs (`transport::hybrid`).

pub(crate) mod shim;

use super::remote::Posted;
use crate::error::{Error, ErrorKind, fatal};
use crate::heap::SymOffset;
use crate::types::{AmoOp, AtomicWord};
use shim::{RucOp, Shim};
use std::mem::{MaybeUninit, size_of};

/// Ends the PE after a UCX failure (the job ends with it).
#[cold]
#[inline(never)]
pub(crate) fn failed(what: String) -> ! {
    fatal(&Error::new("shmem (UCX transport)", ErrorKind::Engine(what)))
}

#[inline]
fn ok<T>(r: Result<T, String>) -> T {
    match r {
        Ok(v) => v,
        Err(e) => failed(e),
    }
}

/// The bits of a 4- or 8-byte value, widened.
#[inline]
fn to_bits<T: Copy>(v: T) -> u64 {
    // SAFETY: T is 4 or 8 bytes (atomics are on such words), and every bit
    // pattern of those sizes is a valid integer.
    unsafe {
        match size_of::<T>() {
            4 => u64::from(std::mem::transmute_copy::<T, u32>(&v)),
            _ => std::mem::transmute_copy::<T, u64>(&v),
        }
    }
}

/// The UCX engine of a job that spans nodes, once every PE's card is known.
pub(crate) struct Remote {
    shim: &'static Shim,
}

impl Remote {
    /// The engine over a started shim that has every PE's card.
    pub(crate) fn new(shim: &'static Shim) -> Remote {
        Remote { shim }
    }

    pub(crate) fn shim(&self) -> &'static Shim {
        self.shim
    }

    /// Starts a put; `src` must stay unchanged until the next `quiet`.
    ///
    /// # Safety
    /// `src` is readable for `len` bytes; `off..off+len` lies in a segment.
    #[inline(never)]
    pub(crate) unsafe fn put_nbi(&self, pe: usize, off: SymOffset, src: *const u8, len: usize) {
        // SAFETY: the caller's contract.
        ok(unsafe { self.shim.put(pe, off.0 as u64, src, len, false) });
    }

    /// A put complete at the origin (`src` reusable) on return.
    ///
    /// # Safety
    /// As for `put_nbi`.
    #[inline(never)]
    pub(crate) unsafe fn put(&self, pe: usize, off: SymOffset, src: *const u8, len: usize) {
        // SAFETY: the caller's contract.
        ok(unsafe { self.shim.put(pe, off.0 as u64, src, len, true) });
    }

    /// Starts a get; `dst` holds the data after the next `quiet`.
    ///
    /// # Safety
    /// `dst` is writable for `len` bytes until then; `off..off+len` lies in a segment.
    #[inline(never)]
    pub(crate) unsafe fn get_nbi(&self, pe: usize, off: SymOffset, dst: *mut u8, len: usize) {
        // SAFETY: the caller's contract.
        ok(unsafe { self.shim.get(pe, off.0 as u64, dst, len, false) });
    }

    /// A get whose data is in `dst` on return.
    ///
    /// # Safety
    /// As for `get_nbi`, for the duration of the call.
    #[inline(never)]
    pub(crate) unsafe fn get(&self, pe: usize, off: SymOffset, dst: *mut u8, len: usize) {
        // SAFETY: the caller's contract.
        ok(unsafe { self.shim.get(pe, off.0 as u64, dst, len, true) });
    }

    /// Strided put of `n` elements of `T` (strides in elements).
    ///
    /// # Safety
    /// Every element addressed on both sides is valid.
    #[inline(never)]
    pub(crate) unsafe fn put_strided<T: Copy>(
        &self,
        pe: usize,
        off: SymOffset,
        dst: isize,
        src: *const T,
        sst: isize,
        n: usize,
    ) {
        let (remote, local, size) = super::byte_strides::<T>(dst, sst);
        // SAFETY: the caller's contract.
        ok(unsafe {
            self.shim
                .put_strided(pe, off.0 as u64, remote, src as *const u8, local, size, n)
        });
    }

    /// Strided get, the mirror of `put_strided`.
    ///
    /// # Safety
    /// As for `put_strided`.
    #[inline(never)]
    pub(crate) unsafe fn get_strided<T: Copy>(
        &self,
        pe: usize,
        off: SymOffset,
        sst: isize,
        dst: *mut T,
        dst_stride: isize,
        n: usize,
    ) {
        let (remote, local, size) = super::byte_strides::<T>(sst, dst_stride);
        // SAFETY: the caller's contract.
        ok(unsafe {
            self.shim
                .get_strided(pe, off.0 as u64, remote, dst as *mut u8, local, size, n)
        });
    }

    /// UCP's operation and operands for `op`.
    fn code<T: AtomicWord>(op: AmoOp<T>) -> (RucOp, u64, u64) {
        match op {
            AmoOp::Fetch => (RucOp::Fetch, 0, 0),
            // Set fetches too (a swap): the trait returns the old value.
            AmoOp::Set(v) | AmoOp::Swap(v) => (RucOp::Swap, to_bits(v), 0),
            AmoOp::CompareSwap(c, v) => (RucOp::CompareSwap, to_bits(v), to_bits(c)),
            AmoOp::Add(v) => (RucOp::Add, to_bits(v), 0),
            AmoOp::And(v) => (RucOp::And, to_bits(v), 0),
            AmoOp::Or(v) => (RucOp::Or, to_bits(v), 0),
            AmoOp::Xor(v) => (RucOp::Xor, to_bits(v), 0),
        }
    }

    /// Applies `op` and returns the previous value: one request, completed
    /// by its reply.
    ///
    /// # Safety
    /// `off` is aligned for `T` and inside a segment.
    #[inline(never)]
    pub(crate) unsafe fn atomic<T: AtomicWord>(&self, pe: usize, off: SymOffset, op: AmoOp<T>) -> T {
        let (code, operand, compare) = Self::code(op);
        let mut old = MaybeUninit::<T>::uninit();
        // SAFETY: the caller's contract; `old` is writable for a T, which
        // the blocking operation fills before returning.
        unsafe {
            ok(self.shim.amo(
                pe,
                off.0 as u64,
                code,
                size_of::<T>(),
                operand,
                compare,
                old.as_mut_ptr() as *mut u8,
                true,
            ));
            old.assume_init()
        }
    }

    /// Starts `op`; the previous value is stored at `fetch` by the next `quiet`.
    ///
    /// # Safety
    /// As for `atomic`; `fetch` is writable for one `T` until the next `quiet`.
    #[inline(never)]
    pub(crate) unsafe fn atomic_nbi<T: AtomicWord>(&self, pe: usize, off: SymOffset, op: AmoOp<T>, fetch: *mut T) {
        let (code, operand, compare) = Self::code(op);
        // SAFETY: the caller's contract.
        ok(unsafe {
            self.shim.amo(
                pe,
                off.0 as u64,
                code,
                size_of::<T>(),
                operand,
                compare,
                fetch as *mut u8,
                false,
            )
        });
    }

    /// A posted 64-bit add that no `quiet` waits for: a library word whose
    /// reader waits for the value itself (the leaders' rendezvous, library
    /// flags). An untracked put-with-signal of no data: one message, which
    /// nothing answers (UCX's own atomic over TCP is a message and an
    /// acknowledgement).
    ///
    /// # Safety
    /// `off` is 8-aligned and inside a segment.
    #[inline(never)]
    pub(crate) unsafe fn post_untracked_add(&self, pe: usize, off: SymOffset, v: u64) {
        // SAFETY: the caller's contract; no data is read from the null source.
        ok(unsafe {
            self.shim
                .put_signal(pe, 0, std::ptr::null(), 0, off.0 as u64, RucOp::Add, v, None, true)
        });
    }

    /// UCP's operation and operand for a signal update (set or add).
    fn signal_code(op: AmoOp<u64>) -> (RucOp, u64) {
        match op {
            AmoOp::Add(v) => (RucOp::Add, v),
            AmoOp::Set(v) => (RucOp::Swap, v),
            other => failed(format!(
                "a put-with-signal's signal operation is {other:?}, not a set or an add"
            )),
        }
    }

    /// Puts `len` bytes, then updates the signal, the target never seeing
    /// the signal before the data: up to `RUC_PUT_SIGNAL_AM_MAX` bytes one
    /// active message (the shim's), larger a put, a fence and an atomic.
    /// Returns the signal's previous value (one reply waited for).
    ///
    /// # Safety
    /// As for `put` and `atomic`.
    #[inline(never)]
    pub(crate) unsafe fn put_signal(
        &self,
        pe: usize,
        off: SymOffset,
        src: *const u8,
        len: usize,
        sig: SymOffset,
        op: AmoOp<u64>,
    ) -> u64 {
        let (code, value) = Self::signal_code(op);
        let mut old = 0u64;
        // SAFETY: the caller's contract.
        ok(unsafe {
            self.shim.put_signal(
                pe,
                off.0 as u64,
                src,
                len,
                sig.0 as u64,
                code,
                value,
                Some(&mut old),
                false,
            )
        });
        old
    }

    /// [`put_signal`](Self::put_signal) whose signal completes at the next
    /// `quiet` (`Posted::Blocking`, `Posted::Nbi`: `src` is reusable on
    /// return either way, the message sent or the data of a large one put)
    /// or is never waited for (`Posted::Inbox`: a library inbox, whose
    /// reader waits for the signal itself; the target sends nothing back).
    ///
    /// # Safety
    /// As for `put_signal`.
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn put_signal_posted(
        &self,
        pe: usize,
        off: SymOffset,
        src: *const u8,
        len: usize,
        sig: SymOffset,
        op: AmoOp<u64>,
        how: Posted,
    ) {
        let (code, value) = Self::signal_code(op);
        let untracked = how == Posted::Inbox;
        // SAFETY: the caller's contract.
        ok(unsafe {
            self.shim
                .put_signal(pe, off.0 as u64, src, len, sig.0 as u64, code, value, None, untracked)
        });
    }

    /// Orders earlier operations before later ones.
    #[inline]
    pub(crate) fn fence(&self) {
        ok(self.shim.fence());
    }

    /// Every earlier operation complete at its target, and non-blocking
    /// gets and fetches landed.
    #[inline(never)]
    pub(crate) fn quiet(&self) {
        ok(self.shim.quiet());
    }

    /// Whether a [`fence`](Self::fence) would hold without waiting (then it
    /// is made); asks for what it waits for otherwise.
    pub(crate) fn fence_test(&self) -> bool {
        ok(self.shim.fence_test())
    }

    /// Whether every earlier operation is complete, without waiting: starts
    /// the flushes a [`quiet`](Self::quiet) would wait for, and answers yes
    /// once a later call finds them done.
    pub(crate) fn quiet_test(&self) -> bool {
        ok(self.shim.quiet_test())
    }

    #[inline]
    pub(crate) fn progress(&self) {
        self.shim.progress();
    }
}
