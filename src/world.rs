//! The low-level context of a PE: who it is, its configuration, the job's
//! control block and segments, the transport, the heap's allocator, the
//! waiting policy and the synchronisation-memory state, with the waiters
//! and hang-report posts built from them.
//!
//! Built once by `runtime::bootstrap` and owned by `runtime::Runtime`, which
//! adds the state of the modules that keep some (teams, spaces,
//! semaphores). Every module below the runtime takes `&World` (and its own
//! piece of state), never the runtime itself, so nothing below points up.

use crate::config::Config;
use crate::heap::alloc::Allocator;
use crate::heap::globals::DataRange;
use crate::heap::tables::PeerTables;
use crate::heap::{Segments, SymOffset};
use crate::job::{Control, PeState};
use crate::psync::{Footprint, SyncState, TeamSync};
use crate::stuck::{Kind, On, Place, Post};
use crate::transport::Active;
use crate::wait::Waiter;
use crate::wait::backoff::Policy;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Mutex, MutexGuard};

use crate::constants::SHMEM_THREAD_MULTIPLE;

/// What every layer of a PE may use. The plain facts (who, how many, the
/// configuration, the transport, the waiting policy) are fields; the state
/// with an owner (segments, allocator, page tables, control block, pSync)
/// is private and reached through the narrow methods below, so that a room
/// cannot do another's work by reaching into it.
pub(crate) struct World {
    pub me: usize,
    pub npes: usize,
    pub config: Config,
    control: Control,
    segs: Segments,
    pub transport: Active,
    /// The symmetric heap's bookkeeping; collective calls take it in turn.
    heap: Mutex<Allocator>,
    pub policy: Policy,
    /// The synchronisation-memory strategy and its accounting.
    psync: SyncState,
    /// Thread level granted by `shmem_init_thread`.
    pub thread_level: AtomicI32,
    /// This process's page tables for the other PEs' segments, kept within
    /// a budget; holds the job file (kept open so the job outlives `oshrun`'s
    /// own descriptor).
    tables: PeerTables,
    /// Per element size (1, 2, 4, 8 and 16 bytes), the most elements of a
    /// short transfer, which the RMA routines hand to the transport without
    /// a record for the fault handler (`ffi::transfer`); none under
    /// `SHMEM_CHECK_BOUNDS`, whose checks are on the other path.
    pub short_elems: [usize; 5],
    /// The bound the context check of the RMA, atomic and signal routines
    /// compares their PE argument with on its fast path
    /// (`ffi::check::ctx_target`): the number of PEs, or 0 under
    /// `RSHMEM_PCNTR`, so that every such call takes the check's cold path,
    /// which counts it (`crate::pcntr`) and costs nothing when counting is off.
    pub ctx_pes: usize,
}

/// The longest transfer that records nothing for the fault handler. A
/// shorter one faults only with a wild pointer or a buffer that ends within
/// this many bytes of unmapped memory, while the record (a thread-local
/// access through `__tls_get_addr` in a shared library, and the checked
/// path's own call) costs about 60 instructions, 2 ns: a fifth of a 512-byte
/// put, 7% of a 4 KiB one, 3% of an 8 KiB one.
pub(crate) const SHORT_TRANSFER: usize = 8192;

impl World {
    /// The world of the PE whose segments start-up mapped (`segs` says who
    /// it is and how many PEs there are), over the transport it opened.
    pub(crate) fn new(
        config: Config,
        control: Control,
        segs: Segments,
        transport: Active,
        policy: Policy,
        tables: PeerTables,
    ) -> World {
        // Under SHMEM_CHECK_BOUNDS no transfer is short: every one is checked.
        let short_elems = match config.check_bounds {
            true => [0; 5],
            false => std::array::from_fn(|log| SHORT_TRANSFER >> log),
        };
        let ctx_pes = if config.pcntr { 0 } else { segs.npes };
        World {
            me: segs.me,
            npes: segs.npes,
            ctx_pes,
            psync: SyncState::new(config.psync_strategy),
            transport,
            heap: Mutex::new(Allocator::new(segs.heap_len)),
            config,
            control,
            segs,
            policy,
            thread_level: AtomicI32::new(0),
            tables,
            short_elems,
        }
    }

    /// The symmetric offset of the `len` bytes at `addr` of this PE's own
    /// memory (heap or globals), if they are symmetric: the shim's question
    /// about an address argument.
    #[inline]
    pub(crate) fn own_offset(&self, addr: usize, len: usize) -> Option<SymOffset> {
        self.segs.offset_of(addr, len)
    }

    /// This PE's address of the symmetric offset `off` (heap, globals or the
    /// library's own region): the only address of the segments outside the
    /// transport, which alone reaches other PEs' memory.
    #[inline]
    pub(crate) fn own_addr(&self, off: SymOffset) -> *mut u8 {
        self.segs.peer_addr(self.me, off)
    }

    /// Where `addr` lies in this PE's symmetric heap, as an offset from the
    /// heap's start (the allocator's unit), if it does.
    #[inline]
    pub(crate) fn heap_offset(&self, addr: usize) -> Option<usize> {
        self.segs.heap_offset(addr)
    }

    /// This PE's address of the heap offset `off` (what the allocator hands
    /// out).
    #[inline]
    pub(crate) fn heap_addr(&self, off: usize) -> usize {
        self.segs.heap_base() + off
    }

    /// Bytes of the symmetric heap (every PE's is the same size).
    pub(crate) fn heap_len(&self) -> usize {
        self.segs.heap_len
    }

    /// The symmetric offset and length of the region the library keeps its
    /// own objects in (team flags and inboxes, spaces, semaphores,
    /// notification sets), which `space::arena` manages.
    pub(crate) fn library_region(&self) -> (SymOffset, usize) {
        (SymOffset(self.segs.sync_off), self.segs.sync_len)
    }

    /// The heap's allocator, locked: `memory` allocates and frees through it
    /// (collectively, so PEs take it in turn) and `runtime` resets it at a
    /// second `shmem_init`. A panic while it was held leaves nothing half
    /// done that a later call could see, so a poisoned lock is taken as is.
    pub(crate) fn allocator(&self) -> MutexGuard<'_, Allocator> {
        self.heap.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Makes sure this process has page tables for PE `pe`'s segment before
    /// the library touches it (`heap::tables`, kept within a budget).
    #[inline]
    pub(crate) fn reach(&self, pe: usize) {
        self.tables.reach(pe)
    }

    /// The page-table budget (`SHMEM_PEER_TABLES`, in PEs) and how many
    /// times it made this process drop tables, if there is a budget.
    pub(crate) fn tables_budget(&self) -> Option<(usize, u64)> {
        self.tables.budget().map(|b| (b, self.tables.remaps()))
    }

    /// The synchronisation-memory strategy and its accounting, for the
    /// collectives, teams and the runtime (the shim asks
    /// [`psync_footprint`](Self::psync_footprint)).
    #[inline]
    pub(crate) fn psync(&self) -> &SyncState {
        &self.psync
    }

    /// The node's control block (every PE's slot), for the runtime's
    /// start, end and watchers, which read other PEs' slots as `oshrun`
    /// does.
    pub(crate) fn control(&self) -> &Control {
        &self.control
    }

    /// Says in this PE's slot how it is (running, finalized, failed), for
    /// `oshrun` and the watchers.
    pub(crate) fn set_state(&self, state: PeState) {
        self.control.set_state(self.me, state)
    }

    /// Whether `addr` lies in this PE's symmetric heap.
    #[inline]
    pub(crate) fn in_heap(&self, addr: usize) -> bool {
        self.segs.heap_offset(addr).is_some()
    }

    /// Where the program's symmetric globals are, if it has any.
    pub(crate) fn globals(&self) -> Option<DataRange> {
        self.segs.data
    }

    /// This PE's synchronisation memory: all of it (`None`), or one team's
    /// region.
    pub(crate) fn psync_footprint(&self, team: Option<&TeamSync>) -> Footprint {
        match team {
            None => self.psync.footprint(),
            Some(sync) => self.psync.team_footprint(sync),
        }
    }

    /// A waiter on this PE's symmetric memory (woken by puts and atomics).
    #[inline]
    pub(crate) fn waiter(&self) -> Waiter<'_> {
        self.waiter_on(&self.control.slot(self.me).wake.memory)
    }

    /// A waiter for the library's own synchronisation (woken by barriers).
    #[inline]
    pub(crate) fn sync_waiter(&self) -> Waiter<'_> {
        self.waiter_on(&self.control.slot(self.me).wake.sync)
    }

    /// Where a wait of this PE blocks, to publish on its slow path (see
    /// `stuck`). At `SHMEM_THREAD_MULTIPLE`, waits other than the
    /// rendezvous publish in their thread's place, which no verdict reads:
    /// another thread of this PE could satisfy them. So do those of the
    /// library's helper threads (`nbc`'s workers) at any level.
    #[inline]
    pub(crate) fn post(&self, kind: Kind, routine: &'static str, episode: u32) -> Option<Post<'_>> {
        let thread = !matches!(kind, Kind::BarrierAll | Kind::Finalize | Kind::FinalizeAtExit)
            && (self.thread_level.load(Ordering::Relaxed) == SHMEM_THREAD_MULTIPLE as i32
                || crate::stuck::threads::is_helper());
        Some(Post {
            control: &self.control,
            me: self.me,
            place: Place { kind, routine, episode },
            on: None,
            thread,
        })
    }

    /// [`post`](Self::post) of a wait that also says what it waits on
    /// (worked out by `on` only if the wait gets published).
    #[inline]
    pub(crate) fn post_on<'a>(&'a self, kind: Kind, routine: &'static str, on: &'a dyn Fn() -> On) -> Option<Post<'a>> {
        self.post(kind, routine, 0).map(|p| Post { on: Some(on), ..p })
    }

    fn waiter_on<'a>(&'a self, bell: &'a crate::job::Bell) -> Waiter<'a> {
        Waiter {
            bell,
            policy: self.policy,
            hang_warn_secs: self.config.hang_warn_secs,
        }
    }
}
