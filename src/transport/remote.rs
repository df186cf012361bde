//! The engine to the PEs of other nodes, as the hybrid transport sees it:
//! UCX's UCP API ([`ucx`]) or MPI-3 RMA ([`mpi`]), chosen at start-up by
//! `RSHMEM_REMOTE` and the same on every PE.
//!
//! Both are reached through the MPI job that started the PEs: MPI gives
//! identity and nodes, exchanges UCX's cards, carries the status messages of
//! the hang reports and the leaders' part of the world rendezvous when they
//! differ (to say who) or before start-up has ended. Only the data path
//! differs.
//! Dispatch is a `match` per operation: every remote operation costs
//! microseconds, and the one-node paths never get here.

use super::mpi::shim::Shim as MpiShim;
use super::mpi::{self, status};
use super::ucx;
use crate::config::RemoteEngine;
use crate::heap::SymOffset;
use crate::types::{AmoOp, AtomicWord};

/// The engine of this job.
enum Data {
    Mpi(mpi::Remote),
    Ucx(ucx::Remote),
}

/// How a posted put-with-signal completes (`Remote::put_signal_posted`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Posted {
    /// `src` reusable on return; delivered by the next `quiet`.
    Blocking,
    /// `src` kept unchanged until the next `quiet`, which delivers it.
    Nbi,
    /// Into a library inbox whose reader waits for the signal itself: as
    /// `Blocking`, but no `quiet` need wait for it (an engine may skip
    /// tracking it).
    Inbox,
}

/// The remote half of the hybrid transport.
pub(crate) struct Remote {
    data: Data,
    mpi: &'static MpiShim,
    /// Why UCX is not the engine, when `RSHMEM_REMOTE` left the choice to rshmem.
    why_not: Option<String>,
    /// MPI's progress engine drives UCX's too (Open MPI).
    hooked: bool,
    /// Telling other nodes where this PE blocks (set once at start-up).
    status: std::sync::OnceLock<status::Exchange>,
}

/// UCX's shim, when `choice` allows it and it loads; else why not.
fn choose_ucx(choice: RemoteEngine) -> Result<&'static ucx::shim::Shim, String> {
    if choice == RemoteEngine::Mpi {
        return Err("RSHMEM_REMOTE=mpi".into());
    }
    let shim = ucx::shim::Shim::load()?;
    match std::env::var("UCX_ATOMIC_MODE") {
        Ok(m) if m != "cpu" => Err(format!(
            "UCX_ATOMIC_MODE={m}: rshmem's UCX engine needs cpu, in which UCX applies remote atomics with the \
             target CPU's atomic instructions, atomic with the CPU atomics of the PEs on that node (unset it, \
             or set RSHMEM_REMOTE=mpi)"
        )),
        _ => Ok(shim),
    }
}

impl Remote {
    /// Opens the engine over this PE's segment (collective over every PE of
    /// the job): UCX when `choice` allows it and its shim starts on every
    /// PE, else MPI-3 RMA (an error when `choice` is `ucx` and a PE cannot
    /// start it).
    ///
    /// # Safety
    /// `base..base+len` is this PE's segment, mapped for the rest of the process.
    pub(crate) unsafe fn open(
        engine: &mpi::Engine,
        me: usize,
        npes: usize,
        base: *mut u8,
        len: usize,
    ) -> Result<Remote, String> {
        let mpi = engine.shim;
        let started = choose_ucx(engine.remote).and_then(|shim| {
            // SAFETY: the caller's contract.
            let card_len = unsafe { shim.init(engine.multi, me, npes, base, len as u64) }
                .map_err(|e| format!("cannot start UCX: {e}"))?;
            Ok((shim, card_len))
        });
        // Every PE's card length, 0 where UCX did not start.
        let mine = started.as_ref().map_or(0u64, |&(_, n)| n as u64);
        let lens: Vec<u64> = mpi
            .allgather(&mine.to_le_bytes(), npes)?
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect();
        let without = lens.iter().position(|&n| n == 0);
        let mut why_not = None;
        let mut hooked = false;
        let data = match (started, without) {
            (Ok((shim, _)), None) => {
                let stride = *lens.iter().max().expect("a PE at least") as usize;
                let all = mpi.allgather(&shim.card(stride)?, npes)?;
                shim.peers(&all, stride)?;
                // A PE blocked in an MPI call (a mixed program's collective)
                // still serves other nodes' operations on its memory.
                hooked = mpi.progress_hook(shim.progress_fn())?;
                Data::Ucx(ucx::Remote::new(shim))
            }
            (started, without) => {
                let own = match started {
                    Ok((shim, _)) => {
                        shim.finalize()?;
                        None
                    }
                    Err(e) => Some(e),
                };
                if engine.remote == RemoteEngine::Ucx {
                    return Err(own.unwrap_or_else(|| {
                        format!(
                            "RSHMEM_REMOTE=ucx, but PE {} could not start UCX (its own message says why)",
                            without.unwrap_or(0)
                        )
                    }));
                }
                why_not = Some(own.unwrap_or_else(|| format!("PE {} could not start UCX", without.unwrap_or(0))));
                // SAFETY: the caller's contract.
                Data::Mpi(unsafe { mpi::Remote::open(mpi, base, len) }?)
            }
        };
        Ok(Remote {
            data,
            mpi,
            why_not,
            hooked,
            status: std::sync::OnceLock::new(),
        })
    }

    /// What the engine is, for `SHMEM_INFO`.
    pub(crate) fn describe(&self) -> &'static str {
        match self.data {
            Data::Mpi(_) => "shared memory within a node, MPI-3 RMA between nodes",
            Data::Ucx(_) => "shared memory within a node, UCX between nodes",
        }
    }

    /// UCX's version and shim, when it is the engine, or why it is not
    /// (`SHMEM_INFO`).
    pub(crate) fn detail(&self) -> Option<String> {
        match &self.data {
            Data::Mpi(_) => self.why_not.as_ref().map(|w| format!("UCX not used: {w}")),
            Data::Ucx(u) => {
                let (peers, bytes) = u.shim().footprint();
                Some(format!(
                    "UCX {} (through {}); {peers} peers connected, {bytes} bytes of peer records; {}",
                    u.shim().version(),
                    u.shim().path().display(),
                    if self.hooked {
                        "progressed by MPI's progress engine too"
                    } else {
                        "not progressed inside MPI calls (not Open MPI): a PE blocked in one serves no remote operation"
                    }
                ))
            }
        }
    }

    /// The MPI of the job (the leaders' rendezvous, status messages).
    pub(crate) fn mpi(&self) -> &'static MpiShim {
        self.mpi
    }

    /// # Safety
    /// As `Transport::put`.
    #[inline]
    pub(crate) unsafe fn put(&self, pe: usize, off: SymOffset, src: *const u8, len: usize) {
        // SAFETY: the caller's contract.
        unsafe {
            match &self.data {
                Data::Mpi(r) => r.put(pe, off, src, len),
                Data::Ucx(r) => r.put(pe, off, src, len),
            }
        }
    }

    /// # Safety
    /// As `Transport::put_nbi`.
    #[inline]
    pub(crate) unsafe fn put_nbi(&self, pe: usize, off: SymOffset, src: *const u8, len: usize) {
        // SAFETY: the caller's contract.
        unsafe {
            match &self.data {
                Data::Mpi(r) => r.put_nbi(pe, off, src, len),
                Data::Ucx(r) => r.put_nbi(pe, off, src, len),
            }
        }
    }

    /// # Safety
    /// As `Transport::get`.
    #[inline]
    pub(crate) unsafe fn get(&self, pe: usize, off: SymOffset, dst: *mut u8, len: usize) {
        // SAFETY: the caller's contract.
        unsafe {
            match &self.data {
                Data::Mpi(r) => r.get(pe, off, dst, len),
                Data::Ucx(r) => r.get(pe, off, dst, len),
            }
        }
    }

    /// # Safety
    /// As `Transport::get_nbi`.
    #[inline]
    pub(crate) unsafe fn get_nbi(&self, pe: usize, off: SymOffset, dst: *mut u8, len: usize) {
        // SAFETY: the caller's contract.
        unsafe {
            match &self.data {
                Data::Mpi(r) => r.get_nbi(pe, off, dst, len),
                Data::Ucx(r) => r.get_nbi(pe, off, dst, len),
            }
        }
    }

    /// # Safety
    /// As `Transport::put_strided`.
    pub(crate) unsafe fn put_strided<T: Copy>(
        &self,
        pe: usize,
        off: SymOffset,
        dst: isize,
        src: *const T,
        sst: isize,
        n: usize,
    ) {
        // SAFETY: the caller's contract.
        unsafe {
            match &self.data {
                Data::Mpi(r) => r.put_strided(pe, off, dst, src, sst, n),
                Data::Ucx(r) => r.put_strided(pe, off, dst, src, sst, n),
            }
        }
    }

    /// # Safety
    /// As `Transport::get_strided`.
    pub(crate) unsafe fn get_strided<T: Copy>(
        &self,
        pe: usize,
        off: SymOffset,
        sst: isize,
        dst: *mut T,
        dst_stride: isize,
        n: usize,
    ) {
        // SAFETY: the caller's contract.
        unsafe {
            match &self.data {
                Data::Mpi(r) => r.get_strided(pe, off, sst, dst, dst_stride, n),
                Data::Ucx(r) => r.get_strided(pe, off, sst, dst, dst_stride, n),
            }
        }
    }

    /// # Safety
    /// As `Transport::atomic`.
    #[inline]
    pub(crate) unsafe fn atomic<T: AtomicWord>(&self, pe: usize, off: SymOffset, op: AmoOp<T>) -> T {
        // SAFETY: the caller's contract.
        unsafe {
            match &self.data {
                Data::Mpi(r) => r.atomic(pe, off, op),
                Data::Ucx(r) => r.atomic(pe, off, op),
            }
        }
    }

    /// # Safety
    /// As `Transport::atomic_nbi`.
    #[inline]
    pub(crate) unsafe fn atomic_nbi<T: AtomicWord>(&self, pe: usize, off: SymOffset, op: AmoOp<T>, fetch: *mut T) {
        // SAFETY: the caller's contract.
        unsafe {
            match &self.data {
                Data::Mpi(r) => r.atomic_nbi(pe, off, op, fetch),
                Data::Ucx(r) => r.atomic_nbi(pe, off, op, fetch),
            }
        }
    }

    /// # Safety
    /// As `Transport::put_signal`.
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
        unsafe {
            match &self.data {
                Data::Mpi(r) => r.put_signal(pe, off, src, len, sig, op),
                Data::Ucx(r) => r.put_signal(pe, off, src, len, sig, op),
            }
        }
    }

    /// A put-with-signal whose signal's old value nobody needs: `nbi`, the
    /// signal lands by the next `quiet` and `src` is kept until then;
    /// otherwise `src` is reusable on return.
    ///
    /// # Safety
    /// As `Transport::put_signal_nbi`.
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
        // SAFETY: the caller's contract.
        unsafe {
            match &self.data {
                Data::Mpi(r) if how == Posted::Nbi => r.put_signal_nbi(pe, off, src, len, sig, op),
                Data::Mpi(r) if how == Posted::Inbox => r.put_signal_inbox(pe, (off, src, len), sig, op),
                Data::Mpi(r) => drop(r.put_signal(pe, off, src, len, sig, op)),
                Data::Ucx(r) => r.put_signal_posted(pe, off, src, len, sig, op, how),
            }
        }
    }

    /// A 64-bit add to a library flag on `pe`, after every earlier
    /// operation of this PE is complete (the flag's reader may go on to read
    /// what they wrote on a third PE).
    ///
    /// # Safety
    /// `off` is 8-aligned and inside a segment.
    pub(crate) unsafe fn flag_add(&self, pe: usize, off: SymOffset, v: u64) {
        match &self.data {
            Data::Mpi(r) => r.flag_add(pe, off, v),
            Data::Ucx(r) => {
                r.quiet();
                // SAFETY: the caller's contract. Posted, and left out of
                // later quiets: a flag's reader waits for the flag itself,
                // and no flag must land before a later operation of this PE
                // (each flag's meaning is its own word's count), so the next
                // flag's quiet need not wait for this one's acknowledgement
                // (a round trip per round of a barrier otherwise).
                unsafe { r.post_untracked_add(pe, off, v) };
            }
        }
    }

    /// A 64-bit add to `pe`'s word at `off`, posted: no wait, no order with
    /// this PE's other operations, and no later quiet waits for it (the
    /// world rendezvous's leaders, whose reader waits for the word itself).
    ///
    /// # Safety
    /// `off` is 8-aligned and inside a segment.
    pub(crate) unsafe fn post_add(&self, pe: usize, off: SymOffset, v: u64) {
        match &self.data {
            Data::Mpi(r) => r.post_untracked_add(pe, off, v),
            // SAFETY: the caller's contract.
            Data::Ucx(r) => unsafe { r.post_untracked_add(pe, off, v) },
        }
    }

    /// `Transport::fetch_after_inbox` to a PE of another node: under MPI a
    /// request on the channel of the inbox pushes, answered once they are
    /// applied; under UCX a fetching atomic, which follows them on the
    /// endpoint's one ordered lane over TCP (on an endpoint with several
    /// lanes it is not ordered after them: the pushes are not counted for
    /// `flush_messages_to`).
    ///
    /// # Safety
    /// `off` is 8-aligned and inside a segment.
    pub(crate) unsafe fn fetch_after_inbox(&self, pe: usize, off: SymOffset) -> u64 {
        match &self.data {
            Data::Mpi(r) => r.fetch_after_inbox(pe, off),
            // SAFETY: the caller's contract.
            Data::Ucx(r) => unsafe { r.atomic::<u64>(pe, off, AmoOp::Fetch) },
        }
    }

    /// Earlier operations complete before a local flag's update (which
    /// readers may take as "the data is there", on any PE).
    pub(crate) fn complete_before_flag(&self) {
        match &self.data {
            Data::Mpi(r) => r.flush_pending(),
            Data::Ucx(r) => r.quiet(),
        }
    }

    /// `fence`: earlier puts to each PE delivered before later ones.
    pub(crate) fn fence(&self) {
        match &self.data {
            Data::Mpi(r) => r.flush_pending(),
            Data::Ucx(r) => r.fence(),
        }
    }

    /// `quiet`: everything complete at its target, and what peers wrote
    /// into this PE's memory visible to its loads.
    pub(crate) fn quiet(&self) {
        match &self.data {
            Data::Mpi(r) => r.quiet(),
            Data::Ucx(r) => r.quiet(),
        }
    }

    /// Whether a `fence` holds without waiting (`Transport::fence_test`).
    /// MPI-3 RMA has no flush to test, so under MPI the fence is made.
    pub(crate) fn fence_test(&self) -> bool {
        match &self.data {
            Data::Ucx(r) => r.fence_test(),
            Data::Mpi(_) => {
                self.fence();
                true
            }
        }
    }

    /// Whether everything is complete, without waiting
    /// (`Transport::quiet_test`). MPI-3 RMA has no flush to test
    /// (`MPI_Win_flush_all` blocks), so under MPI the quiet is made.
    pub(crate) fn quiet_test(&self) -> bool {
        match &self.data {
            Data::Ucx(r) => r.quiet_test(),
            Data::Mpi(_) => {
                self.quiet();
                true
            }
        }
    }

    /// Moves the engine along: under MPI also applies the library's
    /// messages that arrived. Out of line: it costs microseconds, and
    /// inlined into every wait it grew the one-node fast paths
    /// (`shmem_long_wait_until` already true: 123 -> 136 instructions).
    #[inline(never)]
    pub(crate) fn progress(&self) {
        match &self.data {
            Data::Mpi(r) => {
                self.mpi.progress();
                r.take_flags();
            }
            Data::Ucx(r) => r.progress(),
        }
        if let Some(x) = self.status.get() {
            x.tick();
        }
    }

    /// Starts telling other nodes where this PE blocks ([`status`]).
    pub(crate) fn start_status(&self, x: status::Exchange) {
        let _ = self.status.set(x);
    }

    /// Ends the engine (collective, at finalize): MPI frees its window;
    /// UCX closes its endpoints while every PE keeps progressing until all
    /// have (a non-blocking barrier over MPI), so that no PE's close waits
    /// on a peer that stopped answering.
    pub(crate) fn close(&self) -> Result<(), String> {
        match &self.data {
            Data::Mpi(r) => r.close(),
            Data::Ucx(r) => {
                let ucx = r.shim();
                ucx.close_start()?;
                let mut closed = false;
                let mut barrier_started = false;
                loop {
                    if !closed {
                        closed = ucx.close_test()?;
                    } else {
                        ucx.progress();
                    }
                    if closed && !barrier_started {
                        self.mpi.iagree_start(mpi::shim::Comm::World, [0i64])?;
                        barrier_started = true;
                    }
                    if barrier_started && self.mpi.iagree_test::<1>(mpi::shim::Comm::World)?.is_some() {
                        break;
                    }
                    std::thread::yield_now();
                }
                if self.hooked {
                    self.mpi.progress_hook_off(ucx.progress_fn());
                }
                ucx.finalize()
            }
        }
    }
}
