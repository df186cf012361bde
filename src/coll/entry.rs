//! The entry points: one function per collective kind, for teams, for the
//! deprecated active sets, and for the world. The C shims (`ffi::coll`)
//! check the arguments and call these; `team` calls them for the barriers of
//! split and destroy, `space` and `semaphore` users for theirs.
//!
//! A team collective asks the strategy in effect (`psync`) for sync memory,
//! builds the [`Coll`], chooses the algorithm here (from the group size, the
//! length and the configuration, or the graph the strategy prescribes), runs
//! it, and gives the memory back when the `Coll` drops; a small team
//! broadcast, fcollect, alltoall or reduction instead goes through the
//! team's inbox in one round and asks the strategy for nothing
//! ([`team_is_eager`]). An active-set collective runs on the caller's
//! pSync, and may push into its inbox.

use super::inbox::{self, Disagreement, TeamInbox};
use super::registry::{Algorithms, Collect, Push, Reduce};
use super::ring::{self, Cursors};
use super::{Coll, Done, Group, Transported, barrier, bcast};
use crate::heap::SymOffset;
use crate::psync::{CollOp, Grant, Layout, Mem, TeamSync};
use crate::stuck::Kind;
use crate::transport::Transport;
use crate::types::Combine;
use crate::world::World;
use std::sync::OnceLock;
use std::sync::atomic::Ordering;

/// A team as the collectives see it: its members and its sync memory.
#[derive(Clone, Copy)]
pub(crate) struct TeamRef<'a> {
    pub group: Group,
    pub sync: &'a TeamSync,
    /// How a hang report names the team (`job::TEAM_TAGS`).
    pub tag: u32,
    /// The ring cursors of the team's inbox (`ring::cursors`), found once
    /// per team rather than in the per-thread map at every call.
    pub cursors: &'a OnceLock<&'static Cursors>,
}

impl TeamRef<'_> {
    /// The team's key among the non-blocking collectives' queues (`nbc`):
    /// the address of its sync memory's record, unique while the team lives.
    #[inline]
    pub(crate) fn nbc_key(&self) -> usize {
        self.sync as *const TeamSync as usize
    }
}

/// Before any blocking collective on `t`: the team's non-blocking ones
/// queued earlier come first (`nbc::before_blocking`).
#[inline]
pub(crate) fn after_queued(rt: &World, routine: &'static str, t: TeamRef<'_>) {
    crate::nbc::before_blocking(rt, routine, t.nbc_key());
}

/// An active set and the user's pSync (its flags; checked symmetric and
/// long enough by the caller).
#[derive(Clone, Copy, Debug)]
pub(crate) struct ActiveSet {
    pub group: Group,
    pub psync: SymOffset,
}

/// A team collective of kind `op`; `release`: give the memory back when it
/// returns (not for the destroy barrier, after which nobody may write to the
/// team's memory).
#[inline]
fn on_team<'a>(rt: &'a World, routine: &'static str, t: TeamRef<'a>, op: CollOp, release: bool) -> Coll<'a> {
    after_queued(rt, routine, t);
    let ps = &rt.psync();
    let strategy = ps.imp();
    let acct = &ps.accounting;
    acct.count_collective();
    let scratch = (t.sync.scratch(), t.sync.plan.scratch);
    if let Some((mem, graph)) = strategy.fixed(t.sync) {
        return Coll::new(
            rt,
            routine,
            (t.group, t.tag),
            (mem, t.sync.layout),
            scratch,
            graph,
            None,
        );
    }
    let mut remote = Transported::new(rt);
    loop {
        match strategy.acquire(t.sync, op, &mut remote) {
            Grant::BarrierFirst(ticket) => {
                let before = acct.signals();
                Coll::new(
                    rt,
                    routine,
                    (t.group, t.tag),
                    (ticket.mem, t.sync.layout),
                    scratch,
                    None,
                    None,
                )
                .barrier();
                strategy.release(t.sync, ticket, &mut remote);
                acct.ledger().inserted_barrier(acct.signals() - before);
            }
            Grant::Run {
                ticket,
                graph,
                grew,
                messages,
            } => {
                if grew || messages > 0 {
                    let mut l = acct.ledger();
                    if grew {
                        l.grew(t.sync.plan.array_bytes);
                    }
                    l.extra_messages += messages;
                }
                let done = (release && ticket.array.is_some()).then_some(Done {
                    strategy,
                    sync: t.sync,
                    ticket,
                });
                return Coll::new(
                    rt,
                    routine,
                    (t.group, t.tag),
                    (ticket.mem, t.sync.layout),
                    scratch,
                    graph,
                    done,
                );
            }
        }
    }
}

/// A collective on an active set's pSync, with `scratch` (pWrk) if any.
fn on_set<'a>(rt: &'a World, routine: &'static str, a: ActiveSet, scratch: (SymOffset, usize)) -> Coll<'a> {
    let l = Layout::for_size(a.group.size);
    Coll::new(
        rt,
        routine,
        (a.group, crate::job::TEAM_TAG_ACTIVE_SET),
        (Mem::Array(a.psync), l),
        scratch,
        None,
        None,
    )
}

// ---- The world -------------------------------------------------------------

/// `shmem_barrier_all`: completes this PE's outstanding operations, then waits
/// for every PE. `routine` is the user's call that implies it (for a report
/// of a job that can never finish).
pub(crate) fn barrier_all(rt: &World, routine: &'static str) {
    rt.transport.quiet();
    sync_all(rt, routine);
}

/// `shmem_sync_all`: waits for every PE; orders memory like a barrier on this
/// transport (the arrival is a sequentially consistent read-modify-write).
/// Ends the job when another PE is in an allocation routine's barrier
/// instead (`agree`).
pub(crate) fn sync_all(rt: &World, routine: &'static str) {
    crate::nbc::before_rendezvous(rt, routine);
    let differs = barrier::world(rt, (barrier::Rendezvous::Barrier, None), |ep| {
        rt.post(Kind::BarrierAll, routine, ep)
    });
    rt.psync().observe_world_barrier();
    if let Some(d) = differs {
        super::agree::barrier_differs(rt, routine, None, d);
    }
}

// ---- Teams -----------------------------------------------------------------

/// `shmem_team_sync`, and the team barriers of the library (split, space
/// attach and detach, semaphore allocation).
pub(crate) fn team_sync(rt: &World, routine: &'static str, t: TeamRef<'_>) {
    on_team(rt, routine, t, CollOp::Barrier, true).barrier();
}

/// The barrier of `shmem_team_destroy`: once it completes, every member has
/// finished every collective of the team and nothing writes to its memory.
pub(crate) fn team_sync_last(rt: &World, routine: &'static str, t: TeamRef<'_>) {
    on_team(rt, routine, t, CollOp::Barrier, false).barrier();
}

/// A team barrier that stays open: `each` runs between barriers of the team
/// (the agreement steps of a split), all on one collective of the team.
pub(crate) fn team_phases<R>(
    rt: &World,
    routine: &'static str,
    t: TeamRef<'_>,
    each: impl FnOnce(&Phases<'_>) -> R,
) -> R {
    let c = on_team(rt, routine, t, CollOp::Barrier, true);
    each(&Phases { rt, routine, t, c })
}

/// The steps a team split takes over its parent ([`team_phases`]).
pub(crate) struct Phases<'a> {
    rt: &'a World,
    routine: &'static str,
    t: TeamRef<'a>,
    c: Coll<'a>,
}

impl Phases<'_> {
    /// A barrier of the parent.
    pub(crate) fn barrier(&self) {
        self.c.barrier()
    }

    /// Whether [`gather`](Self::gather) exchanges `words` words per member
    /// over the parent, rather than the caller reading them after a
    /// barrier: not on one node (a barrier and loads in place are cheaper),
    /// nor under an engine that does not post a block and its header as
    /// one message to another node (`Transport::posts_remote_signals`), nor
    /// for a parent of one (no inbox) or larger than `COMPLETE_MAX` (every
    /// member would connect to every other), nor for blocks that do not
    /// fit the parent's slab. The same on every member (see
    /// `inbox::members_share_memory`).
    pub(crate) fn gathers(&self, words: usize) -> bool {
        self.rt.transport.posts_remote_signals()
            && inbox_on_team(self.rt, self.routine, self.t).is_some_and(|c| {
                c.g.size <= super::COMPLETE_MAX
                    && inbox::slab_fits(c.g.size, words * 8)
                    && !inbox::members_share_memory(&c)
            })
    }

    /// Every member's `mine` (this PE's at its rank), through the parent's
    /// inbox slabs in one round: a posted put-with-signal per other member,
    /// where a barrier and reading the words from each member cost two
    /// rounds and a round trip. It stands for a barrier too: it returns
    /// once every member has sent its words, that is, has entered the call.
    /// Only where [`gathers`](Self::gathers) holds for `mine.len()` words,
    /// the same number on every member. Err: a member sent a
    /// block of another length or call (it is in another collective on the
    /// parent).
    pub(crate) fn gather(&self, mine: &[u64]) -> Result<Vec<u64>, Disagreement> {
        let w = mine.len();
        let c = inbox_on_team(self.rt, self.routine, self.t).expect("gathers() held");
        let ib = next_inbox_call(self.rt, self.t);
        let mut all = vec![0u64; self.t.group.size * w];
        all[c.g.rank * w..][..w].copy_from_slice(mine);
        let base = all.as_mut_ptr();
        // SAFETY: `mine` holds w words; block k of `all` (k != rank) is w
        // words, written by the exchange only, and `all` outlives the call.
        unsafe {
            inbox::exchange(
                &c,
                ib,
                w * 8,
                |_| mine.as_ptr() as *const u8,
                |k| base.add(k * w) as *mut u8,
            )?
        };
        Ok(all)
    }
}

/// Largest message (per pair of members) of a team fcollect, alltoall or
/// reduction that goes through the inbox in one round: every byte then
/// crosses between caches twice (into the receiver's inbox and out of it,
/// whose clearing makes the sender fetch the line again) where the pulling
/// algorithms move it once but take two barriers; measured back to back on
/// 2 cores with `benches/c/coll.c` (the same limits as the eager broadcast's,
/// `bcast::eager_fits`).
pub(crate) const EXCHANGE_MAX_PAIR: usize = 512;
pub(crate) const EXCHANGE_MAX: usize = 2048;

/// Whether a team collective of kind `op` with messages of `len` bytes on a
/// team of `n` goes through the team's inbox in one round, with the
/// algorithms `algs` configured: broadcasts (`bcast::eager_fits`),
/// fcollects, alltoalls and reductions (`inbox::exchange`) when the
/// configured algorithm is the automatic one and the message fits. The part
/// of the choice that depends on the team and the message only (what the
/// simulator can know: [`sim`](crate::sim) makes the same call); the entry
/// points also need every member's memory mapped here.
pub(crate) fn team_is_eager(algs: Algorithms, op: CollOp, n: usize, len: usize) -> bool {
    let exchange = || len <= if n <= 2 { EXCHANGE_MAX_PAIR } else { EXCHANGE_MAX } && inbox::fits(n, len);
    n > 1
        && match op {
            CollOp::Broadcast => algs.bcast.resolve_user_sync(n, len) == Push::Push,
            CollOp::Collect => algs.collect == Collect::Auto && exchange(),
            CollOp::Alltoall => exchange(),
            CollOp::Reduce => algs.reduce == Reduce::Auto && exchange(),
            CollOp::Barrier => false,
        }
}

/// A team collective of kind `op` with messages of `len` bytes that goes
/// through the team's inbox ([`team_is_eager`], and every member's memory
/// mapped here): a `Coll` on the inbox and the inbox, with this call's
/// number among the team's one-round calls. That path signals on
/// no flag (the ring cells say themselves what they hold), so the strategy is
/// not asked for sync memory, a pairwise graph does not bind it, and the
/// inbox stands in for the sync memory.
fn eager_on_team<'a>(
    rt: &'a World,
    routine: &'static str,
    t: TeamRef<'a>,
    op: CollOp,
    len: usize,
) -> Option<(Coll<'a>, TeamInbox<'a>)> {
    let c = inbox_on_team(rt, routine, t)?;
    if !team_is_eager(c.algs, op, t.group.size, len) || !inbox::reaches_members(&c, op, len) {
        return None;
    }
    rt.psync().accounting.count_collective();
    Some((c, next_inbox_call(rt, t)))
}

/// A `Coll` on the team's inbox (see [`eager_on_team`]), if it has one.
#[inline]
fn inbox_on_team<'a>(rt: &'a World, routine: &'static str, t: TeamRef<'a>) -> Option<Coll<'a>> {
    after_queued(rt, routine, t);
    let inbox = t.sync.inbox()?;
    Some(Coll::new(
        rt,
        routine,
        (t.group, t.tag),
        (Mem::Array(inbox), t.sync.layout),
        (SymOffset(0), 0),
        None,
        None,
    ))
}

/// The team's inbox for its next one-round call, counted: every member
/// makes the same one-round calls in the same order.
#[inline]
fn next_inbox_call<'a>(rt: &World, t: TeamRef<'a>) -> TeamInbox<'a> {
    let inbox = t.sync.inbox().expect("a team with an inbox");
    // Only the calling thread uses a team's collectives at a time.
    let call = t.sync.inbox_calls.load(Ordering::Relaxed);
    t.sync.inbox_calls.store(call + 1, Ordering::Relaxed);
    TeamInbox {
        at: inbox,
        slab_calls: &t.sync.slab_calls,
        cursors: t.cursors.get_or_init(|| ring::cursors(inbox.0, rt.npes)),
        call,
    }
}

/// `shmem_broadcast` on a team: small messages go eagerly through the
/// team's inbox in one round (the root pushes and returns); the others
/// through `bcast::run` on the strategy's sync memory. Err: a member sent
/// another message than this PE expected, or took itself for the root too
/// (`bcast::eager_rings`).
pub(crate) fn broadcast(
    rt: &World,
    routine: &'static str,
    t: TeamRef<'_>,
    (dest, source): (SymOffset, SymOffset),
    len: usize,
    root: usize,
) -> Result<(), Disagreement> {
    if let Some((c, ib)) = eager_on_team(rt, routine, t, CollOp::Broadcast, len) {
        if c.g.rank == root && dest != source {
            // SAFETY: both ranges are this PE's symmetric buffers of len
            // bytes (checked by the caller); `copy` allows overlap.
            unsafe { std::ptr::copy(c.local(source), c.local(dest), len) };
        }
        return bcast::eager_rings(&c, (dest, source), (ib.at, ib.cursors, Some(ib.call)), len, root);
    }
    let c = on_team(rt, routine, t, CollOp::Broadcast, true);
    let alg = c.algs.bcast.resolve(t.group.size, len);
    bcast::run(&c, alg, dest, source, len, root, true);
    Ok(())
}

/// `shmem_collect`: `dest_for(total)` checks the destination once the
/// members' lengths are known.
pub(crate) fn collect(
    rt: &World,
    routine: &'static str,
    t: TeamRef<'_>,
    dest_for: impl FnOnce(usize) -> SymOffset,
    source: SymOffset,
    len: usize,
) {
    let c = on_team(rt, routine, t, CollOp::Collect, true);
    super::collect::collect(&c, c.algs.collect.resolve(t.group.size), dest_for, source, len);
}

/// A team collective of kind `op` with blocks of `len` bytes: through the
/// team's inbox in one round (`eager`, given the inbox) when
/// [`team_is_eager`] allows, else `pulled` on the
/// strategy's sync memory. Err: a member sent a block of another length,
/// or of another collective.
fn one_round_or<'a>(
    rt: &'a World,
    routine: &'static str,
    t: TeamRef<'a>,
    (op, len): (CollOp, usize),
    eager: impl FnOnce(&Coll<'a>, TeamInbox<'a>) -> Result<(), Disagreement>,
    pulled: impl FnOnce(&Coll<'a>),
) -> Result<(), Disagreement> {
    if let Some((c, ib)) = eager_on_team(rt, routine, t, op, len) {
        return eager(&c, ib);
    }
    pulled(&on_team(rt, routine, t, op, true));
    Ok(())
}

/// `shmem_fcollect`: small blocks in one round through the team's inbox.
pub(crate) fn fcollect(
    rt: &World,
    routine: &'static str,
    t: TeamRef<'_>,
    (dest, source): (SymOffset, SymOffset),
    len: usize,
) -> Result<(), Disagreement> {
    one_round_or(
        rt,
        routine,
        t,
        (CollOp::Collect, len),
        |c, inbox| super::collect::fcollect_eager(c, dest, source, inbox, len),
        |c| super::collect::fcollect(c, c.algs.collect.resolve(t.group.size), dest, source, len),
    )
}

/// `shmem_alltoall`: small blocks in one round through the team's inbox.
pub(crate) fn alltoall(
    rt: &World,
    routine: &'static str,
    t: TeamRef<'_>,
    (dest, source): (SymOffset, SymOffset),
    len: usize,
) -> Result<(), Disagreement> {
    one_round_or(
        rt,
        routine,
        t,
        (CollOp::Alltoall, len),
        |c, inbox| super::alltoall::alltoall_eager(c, dest, source, inbox, len),
        |c| super::alltoall::alltoall(c, dest, source, len),
    )
}

/// `shmem_alltoalls`: strides `dst`, `sst` in elements of `T`.
pub(crate) fn alltoalls<T: Copy>(
    rt: &World,
    routine: &'static str,
    t: TeamRef<'_>,
    (dest, source): (SymOffset, SymOffset),
    (dst, sst): (isize, isize),
    nelems: usize,
) {
    let c = on_team(rt, routine, t, CollOp::Alltoall, true);
    super::alltoall::alltoalls::<T>(&c, dest, source, dst, sst, nelems);
}

/// A team reduction of `n` elements (`len` bytes) with `O`: small arrays
/// in one round through the team's inbox.
pub(crate) fn reduce<T: Copy, O: Combine<T>>(
    rt: &World,
    routine: &'static str,
    t: TeamRef<'_>,
    (dest, source): (SymOffset, SymOffset),
    n: usize,
    len: usize,
) -> Result<(), Disagreement> {
    one_round_or(
        rt,
        routine,
        t,
        (CollOp::Reduce, len),
        |c, inbox| super::reduce::eager::<T, O>(c, dest, source, inbox, n),
        |c| super::reduce::run::<T, O>(c, c.algs.reduce.resolve(t.group.size, len), dest, source, n),
    )
}

/// `shmem_sum_inscan` / `shmem_sum_exscan` with `O`.
pub(crate) fn scan<T: Copy, O: Combine<T>>(
    rt: &World,
    routine: &'static str,
    t: TeamRef<'_>,
    (dest, source): (SymOffset, SymOffset),
    n: usize,
    inclusive: bool,
) {
    let c = on_team(rt, routine, t, CollOp::Reduce, true);
    super::reduce::scan::<T, O>(&c, dest, source, n, inclusive);
}

// ---- Active sets -------------------------------------------------------------

/// `shmem_barrier`: completes this PE's puts, then a barrier over the set.
pub(crate) fn set_barrier(rt: &World, routine: &'static str, a: ActiveSet) {
    rt.transport.quiet();
    set_sync(rt, routine, a);
}

/// `shmem_sync` (active-set form).
pub(crate) fn set_sync(rt: &World, routine: &'static str, a: ActiveSet) {
    on_set(rt, routine, a, (SymOffset(0), 0)).barrier();
}

/// `shmem_broadcast*`: small messages go eagerly through the pSync's inbox
/// (`inbox()` checks and returns it), the root returning at once. Err: the
/// root broadcast this many bytes instead of `len`.
pub(crate) fn set_broadcast(
    rt: &World,
    routine: &'static str,
    a: ActiveSet,
    (dest, source): (SymOffset, SymOffset),
    len: usize,
    root: usize,
    inbox: impl FnOnce() -> SymOffset,
) -> Result<(), u64> {
    let c = on_set(rt, routine, a, (SymOffset(0), 0));
    match c.algs.bcast.resolve_user_sync(a.group.size, len) {
        Push::Push => bcast::eager(&c, dest, source, inbox(), len, root).map_err(|d| d.found.bytes() as u64),
        Push::Not(alg) => {
            bcast::run(&c, alg, dest, source, len, root, false);
            Ok(())
        }
    }
}

pub(crate) fn set_collect(
    rt: &World,
    routine: &'static str,
    a: ActiveSet,
    dest_for: impl FnOnce(usize) -> SymOffset,
    source: SymOffset,
    len: usize,
) {
    let c = on_set(rt, routine, a, (SymOffset(0), 0));
    super::collect::collect(&c, c.algs.collect.resolve(a.group.size), dest_for, source, len);
}

/// `shmem_fcollect*`: pushes through the pSync's inbox (`inbox()`) by default.
pub(crate) fn set_fcollect(
    rt: &World,
    routine: &'static str,
    a: ActiveSet,
    (dest, source): (SymOffset, SymOffset),
    len: usize,
    inbox: impl FnOnce() -> SymOffset,
) {
    let c = on_set(rt, routine, a, (SymOffset(0), 0));
    match c.algs.collect.resolve_user_sync(a.group.size) {
        Push::Push => super::collect::fcollect_push(&c, dest, source, inbox(), len),
        Push::Not(alg) => super::collect::fcollect(&c, alg, dest, source, len),
    }
}

/// `shmem_alltoall*`: always pushes through the pSync's `inbox`.
pub(crate) fn set_alltoall(
    rt: &World,
    routine: &'static str,
    a: ActiveSet,
    (dest, source): (SymOffset, SymOffset),
    len: usize,
    inbox: SymOffset,
) {
    let c = on_set(rt, routine, a, (SymOffset(0), 0));
    super::alltoall::alltoall_push(&c, dest, source, inbox, len);
}

pub(crate) fn set_alltoalls<T: Copy>(
    rt: &World,
    routine: &'static str,
    a: ActiveSet,
    (dest, source): (SymOffset, SymOffset),
    (dst, sst): (isize, isize),
    nelems: usize,
) {
    let c = on_set(rt, routine, a, (SymOffset(0), 0));
    super::alltoall::alltoalls::<T>(&c, dest, source, dst, sst, nelems);
}

/// `shmem_*_to_all`: `n` elements (`len` bytes) with `O`, through `pwrk`
/// (offset, bytes); pushes through the pSync's `inbox` when every
/// member's contribution fits.
#[allow(clippy::too_many_arguments)]
pub(crate) fn set_reduce<T: Copy, O: Combine<T>>(
    rt: &World,
    routine: &'static str,
    a: ActiveSet,
    (dest, source): (SymOffset, SymOffset),
    n: usize,
    len: usize,
    pwrk: (SymOffset, usize),
    inbox: SymOffset,
) {
    let c = on_set(rt, routine, a, pwrk);
    match c.algs.reduce.resolve_user_sync(a.group.size, len) {
        Push::Push => super::reduce::push::<T, O>(&c, dest, source, inbox, n),
        Push::Not(alg) => super::reduce::run::<T, O>(&c, alg, dest, source, n),
    }
}
