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
use crate::job::Control;
use crate::psync::{Footprint, SyncState, TeamSync};
use crate::stuck::{Kind, On, Place, Post};
use crate::transport::Active;
use crate::wait::Waiter;
use crate::wait::backoff::Policy;
use std::sync::Mutex;
use std::sync::atomic::{AtomicI32, Ordering};

use crate::constants::SHMEM_THREAD_MULTIPLE;

/// What every layer of a PE may use.
pub(crate) struct World {
    pub me: usize,
    pub npes: usize,
    pub config: Config,
    pub control: Control,
    pub segs: Segments,
    pub transport: Active,
    /// The symmetric heap's bookkeeping; collective calls take it in turn.
    pub heap: Mutex<Allocator>,
    pub policy: Policy,
    /// The synchronisation-memory strategy and its accounting.
    pub psync: SyncState,
    /// Thread level granted by `shmem_init_thread`.
    pub thread_level: AtomicI32,
    /// This process's page tables for the other PEs' segments, kept within
    /// a budget; holds the job file (kept open so the job outlives `oshrun`'s
    /// own descriptor).
    pub tables: PeerTables,
    /// Per element size (1, 2, 4, 8 and 16 bytes), the most elements of a
    /// short transfer, which the RMA routines hand to the transport without
    /// a record for the fault handler (`ffi::transfer`); none under
    /// `SHMEM_CHECK_BOUNDS`, whose checks are on the other path.
    pub short_elems: [usize; 5],
}

/// The longest transfer that records nothing for the fault handler. A
/// shorter one faults only with a wild pointer or a buffer that ends within
/// this many bytes of unmapped memory, while the record (a thread-local
/// access through `__tls_get_addr` in a shared library, and the checked
/// path's own call) costs about 60 instructions, 2 ns: a fifth of a 512-byte
/// put, 7% of a 4 KiB one, 3% of an 8 KiB one.
pub(crate) const SHORT_TRANSFER: usize = 8192;

impl World {
    /// The symmetric offset of the `len` bytes at `addr` of this PE's own
    /// memory (heap or globals), if they are symmetric: the shim's question
    /// about an address argument.
    #[inline]
    pub(crate) fn own_offset(&self, addr: usize, len: usize) -> Option<SymOffset> {
        self.segs.offset_of(addr, len)
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
    /// another thread of this PE could satisfy them.
    #[inline]
    pub(crate) fn post(&self, kind: Kind, routine: &'static str, episode: u32) -> Option<Post<'_>> {
        let thread = !matches!(kind, Kind::BarrierAll | Kind::Finalize | Kind::FinalizeAtExit)
            && self.thread_level.load(Ordering::Relaxed) == SHMEM_THREAD_MULTIPLE as i32;
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
