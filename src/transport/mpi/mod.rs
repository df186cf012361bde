//! The remote half of the hybrid transport: PEs on other nodes, reached
//! through MPI-3 one-sided communication.
//!
//! [`shim`] loads `librshmem_mpi.so`, the small C library built with the MPI's
//! own `mpicc` (`shim.c`, interface `shim.h`), so librshmem itself never links
//! an MPI. [`Remote`] maps the transport's operations onto it:
//!
//! - one window per PE over its whole segment (globals, heap, arena), so a
//!   [`SymOffset`] is the window displacement; a passive-target epoch on
//!   every PE (`MPI_Win_lock_all`) for the whole job;
//! - `put`/`get`: `MPI_Put`/`MPI_Get`, then `MPI_Win_flush_local` (OpenSHMEM
//!   needs only local completion on return; remote completion is `quiet`'s);
//! - `_nbi`: the MPI call alone, completed by the next `quiet`;
//! - atomics: `MPI_Fetch_and_op`/`MPI_Compare_and_swap` (the fetching forms
//!   for every operation, so the value returned is real), then
//!   `flush_local`: the result's arrival means the update was applied; only
//!   on 8-byte words, which every engine applies with the target's own
//!   atomics (a 4-byte atomic works on the 8-byte word around it, see
//!   [`Remote::narrow`]);
//! - `fence` and `quiet`: `MPI_Win_flush_all` when a remote operation may be
//!   outstanding (MPI has no ordering-only call; OSHMPI does the same);
//! - `put_signal`: the data, `MPI_Win_flush` of the target (MPI orders
//!   nothing between a put and an accumulate), then the signal;
//! - the library's flags (collectives' and barriers' signals,
//!   `Transport::flag_add`): earlier operations completed
//!   (`MPI_Win_flush_all` when any may be outstanding), then a two-word MPI
//!   message that the target applies to its own memory with a CPU atomic
//!   when it next calls `progress`, which every wait of the library does
//!   (shim's `rsm_post_put_flag`/`rsm_take_flags`): one message and no reply,
//!   where an `MPI_Fetch_and_op` is completed by its reply;
//! - the collectives' pushes into a library inbox (`put_signal_inbox`, up
//!   to 8 KiB): the data and the signal in one such message, no flush (the
//!   reader needs only that message's data), and the broadcast root's look
//!   for room a request on the same channel, answered once the pushes
//!   before it are applied (`rsm_fetch_after_flags`); the leaders of the
//!   world rendezvous push such messages too, with no flush;
//! - `progress`: `MPI_Iprobe`, since over software RMA (TCP) a put to a PE
//!   lands only when that PE calls into MPI.
//!
//! An MPI failure is fatal: the PE reports it and the job ends. The
//! operations are kept out of line (`#[inline(never)]`): each costs
//! microseconds anyway, and inlined they would bloat the one-node paths of
//! the hybrid transport that branch around them.

pub(crate) mod shim;
pub(crate) mod status;

use crate::error::{Error, ErrorKind, fatal};
use crate::heap::SymOffset;
use crate::types::{AmoOp, AtomicWord};
use shim::{RsmOp, Shim};
use std::mem::{MaybeUninit, size_of};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// Ends the PE after an MPI failure (the job ends with it).
#[cold]
#[inline(never)]
pub(crate) fn failed(what: String) -> ! {
    fatal(&Error::new("shmem (MPI transport)", ErrorKind::Engine(what)))
}

/// `r`'s value, or the end of the PE.
#[inline]
fn ok<T>(r: Result<T, String>) -> T {
    match r {
        Ok(v) => v,
        Err(e) => failed(e),
    }
}

/// MPI, started by the MPI launcher (`runtime::bootstrap::mpi`), as the
/// hybrid transport's constructor takes it to reach the other nodes.
pub(crate) struct Engine {
    pub(crate) shim: &'static Shim,
    /// `node_of[pe]`: the node of every PE (a number, the same on every PE).
    pub(crate) node_of: Vec<usize>,
    /// `RSHMEM_REMOTE`: the data path to the other nodes (`transport::remote`).
    pub(crate) remote: crate::config::RemoteEngine,
    /// Several threads may call in at once.
    pub(crate) multi: bool,
}

/// The bits of a 4- or 8-byte word, widened.
fn to_bits<T: Copy>(v: T) -> u64 {
    // SAFETY: T is 4 or 8 bytes (checked by the callers' types: atomics are
    // on such words), and every bit pattern of those sizes is a valid integer.
    unsafe {
        match size_of::<T>() {
            4 => u64::from(std::mem::transmute_copy::<T, u32>(&v)),
            _ => std::mem::transmute_copy::<T, u64>(&v),
        }
    }
}

/// The inverse of [`to_bits`], for the integer types of the bitwise atomics.
fn from_bits<T: Copy>(b: u64) -> T {
    // SAFETY: as in to_bits; T is an integer type of that size here.
    unsafe {
        match size_of::<T>() {
            4 => std::mem::transmute_copy::<u32, T>(&(b as u32)),
            _ => std::mem::transmute_copy::<u64, T>(&b),
        }
    }
}

/// The MPI engine of a job that spans nodes, once its window exists.
pub(crate) struct Remote {
    shim: &'static Shim,
    /// Set by an operation that may still be outstanding at its target (a
    /// put only completed locally, an `_nbi`); cleared by `flush_all`.
    pending: AtomicBool,
    /// Where fetching operations whose result nobody needs put it.
    scratch: std::cell::UnsafeCell<u64>,
    /// Origin buffers of operations still outstanding, freed at the next flush.
    kept: Mutex<Kept>,
}

/// What MPI may still read: the operands of outstanding atomics and the
/// copies of outstanding puts. Boxed: MPI holds their addresses, which must
/// not move when the vectors grow.
#[derive(Default)]
struct Kept {
    #[allow(clippy::vec_box)]
    operands: Vec<Box<Operands>>,
    bounced: Vec<Box<[u8]>>,
    bounced_bytes: usize,
}

/// Largest put copied into a buffer of the library ([`Remote::put`]).
const BOUNCE_MAX: usize = 64 << 10;
/// Bytes of copies outstanding after which a put completes them all first.
const BOUNCE_LIMIT: usize = 16 << 20;

/// An atomic's operand and compare values, each at the start of a word.
type Operands = [u64; 2];

// SAFETY: `scratch` is only ever written, by MPI, never read; the rest is
// atomics and a shared reference to the loaded shim.
unsafe impl Sync for Remote {}

impl Remote {
    /// Creates the job's window over this PE's segment (collective).
    ///
    /// # Safety
    /// `base..base+len` is this PE's segment, mapped for the rest of the process.
    pub(crate) unsafe fn open(shim: &'static Shim, base: *mut u8, len: usize) -> Result<Remote, String> {
        // SAFETY: the caller's contract.
        unsafe { shim.win_create(base, len as u64)? };
        Ok(Remote {
            shim,
            pending: AtomicBool::new(false),
            scratch: std::cell::UnsafeCell::new(0),
            kept: Mutex::new(Kept::default()),
        })
    }

    #[inline]
    fn mark(&self) {
        self.pending.store(true, Ordering::Relaxed);
    }

    /// Starts a put; `src` must stay unchanged until the next `quiet`.
    ///
    /// # Safety
    /// `src` is readable for `len` bytes; `off..off+len` lies in a segment.
    #[inline(never)]
    pub(crate) unsafe fn put_nbi(&self, pe: usize, off: SymOffset, src: *const u8, len: usize) {
        // SAFETY: the caller's contract.
        ok(unsafe { self.shim.put(pe, off.0 as u64, src, len) });
        self.mark();
    }

    /// A put complete at the origin (`src` reusable) on return. Up to
    /// [`BOUNCE_MAX`] bytes are copied into a buffer of the library, kept
    /// until the next flush, so the put costs no round trip (local completion
    /// in MPI is a flush of the target, a whole round trip over UCX); larger
    /// ones wait for local completion.
    ///
    /// # Safety
    /// As for `put_nbi`.
    #[inline(never)]
    pub(crate) unsafe fn put(&self, pe: usize, off: SymOffset, src: *const u8, len: usize) {
        if len > BOUNCE_MAX {
            // SAFETY: the caller's contract.
            unsafe { self.put_nbi(pe, off, src, len) };
            ok(self.shim.flush_local(pe));
            return;
        }
        // SAFETY: the caller's contract: `src` is readable for `len` bytes.
        let copy: Box<[u8]> = unsafe { std::slice::from_raw_parts(src, len) }.into();
        // SAFETY: the copy stays in `kept` (its heap bytes do not move) until
        // the flush that completes this put; the caller's contract covers `off`.
        ok(unsafe { self.shim.put(pe, off.0 as u64, copy.as_ptr(), len) });
        let full = {
            let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
            kept.bounced_bytes += len;
            kept.bounced.push(copy);
            kept.bounced_bytes > BOUNCE_LIMIT
        };
        self.mark();
        if full {
            self.flush_pending();
        }
    }

    /// Starts a get; `dst` holds the data after the next `quiet`.
    ///
    /// # Safety
    /// `dst` is writable for `len` bytes until then; `off..off+len` lies in a segment.
    #[inline(never)]
    pub(crate) unsafe fn get_nbi(&self, pe: usize, off: SymOffset, dst: *mut u8, len: usize) {
        // SAFETY: the caller's contract.
        ok(unsafe { self.shim.get(pe, off.0 as u64, dst, len) });
        self.mark();
    }

    /// A get whose data is in `dst` on return.
    ///
    /// # Safety
    /// As for `get_nbi`, for the duration of the call.
    #[inline(never)]
    pub(crate) unsafe fn get(&self, pe: usize, off: SymOffset, dst: *mut u8, len: usize) {
        // A get sees this PE's earlier puts (MPI orders nothing between them).
        self.flush_pending();
        // SAFETY: the caller's contract.
        ok(unsafe { self.shim.get(pe, off.0 as u64, dst, len) });
        ok(self.shim.flush_local(pe));
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
        self.mark();
        ok(self.shim.flush_local(pe));
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
        ok(self.shim.flush_local(pe));
    }

    /// Issues `op` on the word at `off`, the previous value going to `result`
    /// (valid after a flush). Every operation fetches: its result arriving
    /// means the target applied it. MPI may read the operands until the
    /// operation completes, so they live in `operands`, which the caller
    /// keeps until a flush.
    ///
    /// # Safety
    /// `off` is aligned for `T` inside a segment; `result` is writable for a `T`
    /// and `operands` stays in place and unchanged until the flush.
    unsafe fn start_atomic<T: AtomicWord>(
        &self,
        pe: usize,
        off: SymOffset,
        op: AmoOp<T>,
        operands: &mut Operands,
        result: *mut T,
    ) {
        let size = size_of::<T>();
        assert!(size == 4 || size == 8, "atomics are on 4- or 8-byte words");
        let (code, operand, compare) = match op {
            AmoOp::Fetch => (RsmOp::Fetch, None, None),
            // Set fetches too (a swap): the trait returns the old value.
            AmoOp::Set(v) | AmoOp::Swap(v) => (RsmOp::Swap, Some(v), None),
            AmoOp::CompareSwap(c, v) => (RsmOp::CompareSwap, Some(v), Some(c)),
            AmoOp::Add(v) => (RsmOp::Add, Some(v), None),
            AmoOp::And(v) => (RsmOp::And, Some(v), None),
            AmoOp::Or(v) => (RsmOp::Or, Some(v), None),
            AmoOp::Xor(v) => (RsmOp::Xor, Some(v), None),
        };
        *operands = [0; 2];
        let base = operands.as_mut_ptr();
        // SAFETY: each u64 of `operands` holds a T (4 or 8 bytes) at its
        // start, written unaligned-safe; the words are then only read by MPI.
        unsafe {
            if let Some(v) = operand {
                (base as *mut T).write_unaligned(v);
            }
            if let Some(c) = compare {
                (base.add(1) as *mut T).write_unaligned(c);
            }
        }
        // SAFETY: both operand words are live and `size` bytes long (see the
        // caller's contract for how long); the caller's contract covers
        // `off` and `result`.
        ok(unsafe {
            self.shim.amo(
                pe,
                off.0 as u64,
                code,
                size,
                base as *const u8,
                base.add(1) as *const u8,
                result as *mut u8,
            )
        });
    }

    /// Starts `op` with operands kept until the next `flush_pending`.
    ///
    /// # Safety
    /// As for `start_atomic`, but for `operands`.
    unsafe fn start_atomic_kept<T: AtomicWord>(&self, pe: usize, off: SymOffset, op: AmoOp<T>, result: *mut T) {
        let mut operands = Box::new([0u64; 2]);
        // SAFETY: the box is kept below until the next flush_all (its heap
        // allocation does not move with it); the rest is the caller's.
        unsafe { self.start_atomic(pe, off, op, &mut operands, result) };
        self.kept
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .operands
            .push(operands);
        self.mark();
    }

    /// Applies `op` and returns the previous value.
    ///
    /// # Safety
    /// `off` is aligned for `T` and inside a segment.
    #[inline(never)]
    pub(crate) unsafe fn atomic<T: AtomicWord>(&self, pe: usize, off: SymOffset, op: AmoOp<T>) -> T {
        if size_of::<T>() == 4 {
            // SAFETY: the caller's contract.
            return from_bits(u64::from(unsafe { self.narrow(pe, off, op.map(to_bits::<T>)) }));
        }
        if let AmoOp::And(v) | AmoOp::Or(v) | AmoOp::Xor(v) = op {
            // SAFETY: the caller's contract.
            return unsafe { self.bitwise(pe, off, op, v) };
        }
        // SAFETY: the caller's contract.
        unsafe { self.fetching(pe, off, op) }
    }

    /// One fetching MPI atomic, completed.
    ///
    /// # Safety
    /// As for `atomic`.
    unsafe fn fetching<T: AtomicWord>(&self, pe: usize, off: SymOffset, op: AmoOp<T>) -> T {
        // An atomic sees this PE's earlier puts (MPI orders nothing between them).
        self.flush_pending();
        let mut old = MaybeUninit::<T>::uninit();
        let mut operands = [0u64; 2];
        // SAFETY: the caller's contract; `old` and `operands` live until the
        // flush below.
        unsafe { self.start_atomic(pe, off, op, &mut operands, old.as_mut_ptr()) };
        ok(self.shim.flush_local(pe));
        // SAFETY: the flush completed the fetch, which wrote all of `old`.
        unsafe { old.assume_init() }
    }

    /// And, or, xor as a compare-and-swap loop. MPI engines apply
    /// `MPI_SUM`, `MPI_REPLACE`, `MPI_NO_OP` and compare-and-swap with the
    /// target's own atomic instructions (UCX's atomics), but emulate the
    /// bitwise operations with a get and a put under a lock of their own,
    /// which is not atomic with this node's CPU atomics on the same word
    /// (measured: c_tests/unit/amo_bitwise.c loses updates). The loop uses
    /// only the former.
    ///
    /// # Safety
    /// As for `atomic`; `T` is an integer type.
    unsafe fn bitwise<T: AtomicWord>(&self, pe: usize, off: SymOffset, op: AmoOp<T>, v: T) -> T {
        let apply = |old: T| -> T {
            let (a, b) = (to_bits(old), to_bits(v));
            let r = match op {
                AmoOp::And(_) => a & b,
                AmoOp::Or(_) => a | b,
                _ => a ^ b,
            };
            from_bits(r)
        };
        // SAFETY: the caller's contract.
        let mut old = unsafe { self.fetching(pe, off, AmoOp::Fetch) };
        loop {
            // SAFETY: the caller's contract.
            let seen = unsafe { self.fetching(pe, off, AmoOp::CompareSwap(old, apply(old))) };
            if to_bits(seen) == to_bits(old) {
                return old;
            }
            old = seen;
        }
    }

    /// A 4-byte atomic, as 8-byte atomics on the aligned word that holds it.
    ///
    /// MPI promises atomicity only among accumulates on the same word with
    /// the same operation (or a no-op), and Open MPI keeps a stronger promise
    /// only for 8-byte words: `osc rdma` (its default component when no UCX
    /// PML runs) tests the network's 32-bit capability in the wrong flags
    /// word (v4.1.4 to v4.1.8, `ompi_osc_rdma_cas_atomic`), so every 4-byte
    /// compare-and-swap falls back to a get, a compare and a put under the
    /// component's own lock: atomic neither with this node's CPU atomics on
    /// the word nor with the 4-byte fetch-and-ops it does apply natively.
    /// Measured: Sandia OpenSHMEM's `c11_test_shmem_atomic_and` failed in 2
    /// of 5 runs at 4 PEs with every peer remote. Every engine applies 8-byte
    /// fetch-and-add, no-op fetch and compare-and-swap with the target's
    /// atomics, so a 4-byte operation works on the aligned 8-byte word around
    /// it (inside the segment, whose length is a page multiple), leaving the
    /// other half as it finds it:
    /// - a fetch is one 8-byte fetch;
    /// - an add to the upper half is one 8-byte add of `v << 32` (the carry
    ///   leaves the word);
    /// - everything else is an 8-byte fetch and compare-and-swap loop, which
    ///   retries when either half changed meanwhile.
    ///
    /// A CPU's 4-byte atomic and an 8-byte one on the same aligned word are
    /// atomic with each other on x86-64 (locked operations lock the line)
    /// and AArch64 (single-copy atomic read-modify-writes of aligned words).
    ///
    /// # Safety
    /// As for `atomic`, with `off` aligned to 4.
    unsafe fn narrow(&self, pe: usize, off: SymOffset, op: AmoOp<u64>) -> u32 {
        let wide = SymOffset(off.0 & !7);
        let upper_byte = if cfg!(target_endian = "little") { 4 } else { 0 };
        let shift = if off.0 & 7 == upper_byte { 32 } else { 0 };
        let half = |w: u64| (w >> shift) as u32;
        let with = |w: u64, v: u32| (w & !(0xffff_ffff_u64 << shift)) | (u64::from(v) << shift);
        let fetch = |op: AmoOp<u64>| -> u64 {
            // SAFETY: the caller's contract; `wide` is aligned and in the
            // same segment (see above).
            unsafe { self.fetching::<u64>(pe, wide, op) }
        };
        match op {
            AmoOp::Fetch => return half(fetch(AmoOp::Fetch)),
            AmoOp::Add(v) if shift == 32 => return half(fetch(AmoOp::Add(v << 32))),
            _ => {}
        }
        let mut word = fetch(AmoOp::Fetch);
        loop {
            let old = half(word);
            let new = match op {
                AmoOp::Set(v) | AmoOp::Swap(v) => v as u32,
                AmoOp::CompareSwap(c, v) => {
                    if old != c as u32 {
                        // The fetch saw the mismatch atomically: nothing to write.
                        return old;
                    }
                    v as u32
                }
                AmoOp::Add(v) => old.wrapping_add(v as u32),
                AmoOp::And(v) => old & v as u32,
                AmoOp::Or(v) => old | v as u32,
                AmoOp::Xor(v) => old ^ v as u32,
                AmoOp::Fetch => old,
            };
            let seen = fetch(AmoOp::CompareSwap(word, with(word, new)));
            if seen == word {
                return old;
            }
            word = seen;
        }
    }

    /// Starts `op`; the previous value is stored at `fetch` by the next `quiet`.
    ///
    /// # Safety
    /// As for `atomic`; `fetch` is writable for one `T` until the next `quiet`.
    #[inline(never)]
    pub(crate) unsafe fn atomic_nbi<T: AtomicWord>(&self, pe: usize, off: SymOffset, op: AmoOp<T>, fetch: *mut T) {
        if size_of::<T>() == 4 || matches!(op, AmoOp::And(_) | AmoOp::Or(_) | AmoOp::Xor(_)) {
            // A loop cannot be left running (and a 4-byte word is one, see
            // `narrow`): complete it now (allowed).
            // SAFETY: the caller's contract.
            unsafe { fetch.write_unaligned(self.atomic(pe, off, op)) };
            return;
        }
        // SAFETY: the caller's contract.
        unsafe { self.start_atomic_kept(pe, off, op, fetch) };
    }

    /// Puts `len` bytes, completes them at `pe`, then updates the signal: the
    /// target never sees the signal before the data. Returns the signal's
    /// previous value.
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
        // SAFETY: the caller's contract.
        ok(unsafe { self.shim.put(pe, off.0 as u64, src, len) });
        ok(self.shim.flush(pe));
        // SAFETY: the caller's contract.
        unsafe { self.atomic(pe, sig, op) }
    }

    /// [`put_signal`](Self::put_signal) whose signal update completes at the
    /// next `quiet`. The update is still a fetching operation (into a scratch
    /// word nobody reads): Open MPI's `osc ucx` was seen to lose non-fetching
    /// accumulates on the signal of c_tests/unit/signal_put.c at 4 PEs.
    ///
    /// # Safety
    /// As for `put_signal`.
    #[inline(never)]
    pub(crate) unsafe fn put_signal_nbi(
        &self,
        pe: usize,
        off: SymOffset,
        src: *const u8,
        len: usize,
        sig: SymOffset,
        op: AmoOp<u64>,
    ) {
        // SAFETY: the caller's contract.
        ok(unsafe { self.shim.put(pe, off.0 as u64, src, len) });
        ok(self.shim.flush(pe));
        // SAFETY: the caller's contract covers `sig`; the scratch word lives
        // as long as `self` (past every flush), and only MPI writes it.
        unsafe { self.start_atomic_kept(pe, sig, op, self.scratch.get()) };
    }

    /// Completes every outstanding operation at its target, if any may be.
    #[inline(never)]
    pub(crate) fn flush_pending(&self) {
        if self.pending.swap(false, Ordering::Relaxed) {
            // The operands go only once their operations are complete.
            let kept = std::mem::take(&mut *self.kept.lock().unwrap_or_else(|e| e.into_inner()));
            ok(self.shim.flush_all());
            drop(kept);
        }
    }

    /// A library flag's add of `v` to `pe`'s word at `off`, after every
    /// earlier operation of this PE is complete at its target: one MPI
    /// message, which `pe` applies when it next takes its flags
    /// ([`take_flags`](Self::take_flags), in every wait of the library). An
    /// `MPI_Fetch_and_op` there took a round trip per flag, completed by its
    /// reply; the flag's reader waits for the word itself and needs none.
    pub(crate) fn flag_add(&self, pe: usize, off: SymOffset, v: u64) {
        self.post_flag(pe, off, AmoOp::Add(v));
    }

    /// The set or add of a flag message, or the end of the PE for another
    /// operation (a signal is one or the other).
    fn flag_op(op: AmoOp<u64>) -> (bool, u64) {
        match op {
            AmoOp::Add(v) => (false, v),
            AmoOp::Set(v) => (true, v),
            other => failed(format!(
                "a put-with-signal's signal operation is {other:?}, not a set or an add"
            )),
        }
    }

    /// The flag message of [`flag_add`](Self::flag_add) for a set or an add,
    /// after a flush of everything outstanding.
    fn post_flag(&self, pe: usize, off: SymOffset, op: AmoOp<u64>) {
        let (set, v) = Self::flag_op(op);
        self.flush_pending();
        ok(self.shim.post_flag(pe, off.0 as u64, set, v));
    }

    /// A flag message adding `v`, with no flush: the world rendezvous's
    /// leaders, whose words say only that a node arrived (its PEs completed
    /// their operations before they arrived).
    pub(crate) fn post_untracked_add(&self, pe: usize, off: SymOffset, v: u64) {
        ok(self.shim.post_flag(pe, off.0 as u64, false, v));
    }

    /// A put-with-signal into a library inbox, whose reader waits for the
    /// signal itself (`Transport::put_signal_inbox`). Up to
    /// [`shim::POST_DATA_MAX`] bytes: one MPI message carrying the data and
    /// the signal, which the target applies when it next takes its flags
    /// (data first, then the signal): nothing waits, nothing answers, and no
    /// flush, since the reader needs only this message's data and nobody
    /// else reads the inbox. Larger: the put, then the signal as a flag
    /// message after a flush of everything outstanding (a round trip). `src`
    /// is reusable on return (copied, or the put flushed).
    ///
    /// # Safety
    /// As for `put_signal`.
    pub(crate) unsafe fn put_signal_inbox(
        &self,
        pe: usize,
        (off, src, len): (SymOffset, *const u8, usize),
        sig: SymOffset,
        op: AmoOp<u64>,
    ) {
        if len <= shim::POST_DATA_MAX {
            let (set, v) = Self::flag_op(op);
            // SAFETY: the caller's contract: `src` is readable for `len` bytes.
            ok(unsafe {
                self.shim
                    .post_put_flag(pe, (off.0 as u64, src, len), sig.0 as u64, set, v)
            });
            return;
        }
        // SAFETY: the caller's contract.
        unsafe { self.put(pe, off, src, len) };
        self.post_flag(pe, sig, op);
    }

    /// `pe`'s word at `off`, once `pe` has applied every flag message and
    /// inbox push this PE sent it before (`Transport::fetch_after_inbox`):
    /// a request on their channel, answered by `pe` as it takes it.
    pub(crate) fn fetch_after_inbox(&self, pe: usize, off: SymOffset) -> u64 {
        ok(self.shim.fetch_after_flags(pe, off.0 as u64))
    }

    /// Applies the flag updates that other PEs sent this one ([`flag_add`](Self::flag_add)).
    #[inline]
    pub(crate) fn take_flags(&self) {
        ok(self.shim.take_flags());
    }

    /// `quiet`: everything complete at its target, and what peers wrote into
    /// this PE's memory visible to its loads.
    #[inline(never)]
    pub(crate) fn quiet(&self) {
        self.flush_pending();
        ok(self.shim.win_sync());
    }

    /// Frees the window (collective, at finalize).
    pub(crate) fn close(&self) -> Result<(), String> {
        self.flush_pending();
        self.shim.win_free()
    }
}
