//! Non-blocking team collectives: the requests of `shmem_*_nb` (the draft of
//! OpenSHMEM's pull request 456, extended to every team collective; see
//! docs/nonblocking-collectives.md).
//!
//! **Model.** A non-blocking collective is the blocking one, run later: its
//! initiation checks the arguments, takes a request (a slot of this PE's
//! [`Table`]) and appends a job that runs the blocking routine to its team's
//! [`queue`]. Each team's jobs run one at a time, in initiation order, which
//! is the order the draft requires on every member, so a team's k-th
//! collective meets the k-th on the other members exactly as blocking ones
//! do, with the same algorithms and the same synchronisation memory from the
//! pSync strategy. Teams are independent: each has its own queue, so members
//! may complete collectives of different teams in any order (the draft's
//! "execution may be performed in any order").
//!
//! **Progress.** Where the transport may be used from a second thread (one
//! node; across nodes, an engine started thread-safe), each team's queue has
//! a worker thread that runs its jobs as soon as they are queued, while the
//! program computes. Whatever thread waits for a request (`shmem_req_wait`,
//! a blocking collective on the team, `shmem_finalize`) runs the queued jobs
//! itself when the worker has not taken them yet, so a PE whose worker does
//! not get a core loses nothing. Without a worker (`RSHMEM_NBC_THREAD=off`,
//! or an engine that takes one thread), `shmem_req_test` runs the jobs too,
//! and waits for them: that is where the draft's "returns immediately" is
//! not met, said in the report.
//!
//! **Requests.** A `shmem_req_h` is `(generation << 32) | (slot + 1)`, never
//! dereferenced, so a copy of a handle that was completed (its slot reused
//! or free) is told from a live one and refused with a named error rather
//! than answered about another request; `SHMEM_REQ_INVALID` is 0.

mod queue;

pub(crate) use queue::{Job, in_job};

use crate::error::{Error, ErrorKind, fatal};
use crate::world::World;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

/// A request's states.
const FREE: u32 = 0;
/// Initiated, its job queued or running.
const PENDING: u32 = 1;
/// Its job has run; the request waits for `shmem_req_test`/`wait`.
const DONE: u32 = 2;

/// What a request touches, for the misuse checks: the routine that made it,
/// its team (the handle's raw value) and its buffers (address, bytes).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Meta {
    pub routine: &'static str,
    pub team: usize,
    pub buffers: [(usize, usize); 2],
}

struct Slot {
    /// Bumped when the request is completed, so older handles stop matching.
    generation: AtomicU32,
    state: AtomicU32,
    meta: Mutex<Meta>,
}

/// This PE's requests: a fixed number of slots (`RSHMEM_NBC_MAX`, read at the
/// first initialisation) and the free ones.
struct Table {
    slots: Box<[Slot]>,
    free: Mutex<Vec<u32>>,
}

static TABLE: OnceLock<Table> = OnceLock::new();
/// Requests initiated and not yet completed by test or wait, on every team.
static LIVE: AtomicUsize = AtomicUsize::new(0);

fn table(max: usize) -> &'static Table {
    TABLE.get_or_init(|| Table {
        slots: (0..max)
            .map(|_| Slot {
                generation: AtomicU32::new(1),
                state: AtomicU32::new(FREE),
                meta: Mutex::new(Meta::default()),
            })
            .collect(),
        free: Mutex::new((0..max as u32).rev().collect()),
    })
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A request handle as C passes it.
pub(crate) type Handle = u64;

fn handle_of(i: u32, generation: u32) -> Handle {
    ((generation as u64) << 32) | (i as u64 + 1)
}

/// Whether every team's jobs share one queue (see [`configure`]).
static ONE_QUEUE: AtomicBool = AtomicBool::new(false);

/// How threads run this PE's jobs, decided at `shmem_init`. `one_queue`: the
/// jobs of all teams run from one queue, in this PE's initiation order, and
/// a blocking collective on any team first runs all of them. That is needed
/// twice. Under the pairwise strategies every team's collectives signal on
/// the same words (one location per pair of PEs, shared by all their
/// teams), which carry meaning only while two PEs run the collectives they
/// share in one order. Without workers, the thread that waits runs the
/// jobs: had it run only its own team's, a program that completes requests
/// of overlapping teams in different orders on different PEs (which the
/// draft allows) would deadlock, each PE running a collective the other
/// has not reached; in initiation order every PE runs what its partners
/// run first, as if each collective had been called blocking when it was
/// initiated.
pub(crate) fn configure(max: usize, threaded: bool, one_queue: bool) {
    table(max);
    queue::set_threaded(threaded);
    ONE_QUEUE.store(one_queue, Ordering::Release);
}

/// Whether every team's jobs share one queue.
pub(crate) fn one_queue() -> bool {
    ONE_QUEUE.load(Ordering::Relaxed)
}

/// The queue of team `team`'s jobs.
#[inline]
fn queue_of(team: usize) -> usize {
    if ONE_QUEUE.load(Ordering::Relaxed) { 0 } else { team }
}

/// Initiates a non-blocking collective on team `team` (raw handle): takes a
/// request and queues `job`. `rt` names this PE in errors.
pub(crate) fn start(rt: &'static World, meta: Meta, job: Job) -> Handle {
    let t = table(1);
    let Some(i) = lock(&t.free).pop() else {
        fatal(&Error::new(
            meta.routine,
            ErrorKind::Usage(format!(
                "{} non-blocking collectives are outstanding on PE {}, the most it holds (RSHMEM_NBC_MAX); \
                 complete some with shmem_req_wait first, or raise RSHMEM_NBC_MAX",
                t.slots.len(),
                rt.me
            )),
        ))
    };
    let slot = &t.slots[i as usize];
    *lock(&slot.meta) = meta;
    slot.state.store(PENDING, Ordering::Release);
    LIVE.fetch_add(1, Ordering::AcqRel);
    let h = handle_of(i, slot.generation.load(Ordering::Acquire));
    queue::push(rt, queue_of(meta.team), i, job);
    h
}

/// Called by the queue when the job of request `i` has run.
fn finished(rt: &World, i: u32) {
    let slot = &table(1).slots[i as usize];
    slot.state.store(DONE, Ordering::Release);
    // This PE's waits for the request sleep on its own sync bell; the fence
    // orders the store before the transport reads who sleeps there.
    std::sync::atomic::fence(Ordering::SeqCst);
    crate::transport::Transport::wake(&rt.transport, rt.me);
}

/// The slot of a live handle: fatal for a handle that names no request (a
/// copy of one already completed, or never a handle). `arg` is the routine's
/// parameter that held it (`request`, or `requests` for the array routines,
/// whose error would otherwise name a parameter they lack: an internal error).
fn slot_of(routine: &'static str, arg: &'static str, h: Handle) -> (u32, &'static Slot) {
    let t = table(1);
    let i = (h & 0xffff_ffff) as usize;
    let generation = (h >> 32) as u32;
    let live = i >= 1
        && i <= t.slots.len()
        && t.slots[i - 1].generation.load(Ordering::Acquire) == generation
        && t.slots[i - 1].state.load(Ordering::Acquire) != FREE;
    if !live {
        fatal(&Error::new(
            routine,
            ErrorKind::InvalidArgument {
                name: arg,
                value: format!("{h:#x}"),
                why: if i >= 1 && i <= t.slots.len() {
                    "names no outstanding request on this PE: it was completed already (a copy of a handle that \
                     shmem_req_test or shmem_req_wait set to SHMEM_REQ_INVALID?)"
                } else {
                    "is not a request handle (not initialised, or overwritten)"
                },
            },
        ))
    }
    ((i - 1) as u32, &t.slots[i - 1])
}

/// Frees a request whose job has run.
fn complete(i: u32, slot: &Slot) {
    slot.generation.fetch_add(1, Ordering::AcqRel);
    slot.state.store(FREE, Ordering::Release);
    LIVE.fetch_sub(1, Ordering::AcqRel);
    lock(&table(1).free).push(i);
}

/// `shmem_req_test`: whether the request has completed (and then frees it).
/// With a worker it only looks; without one it runs the team's queue up to
/// this request first.
pub(crate) fn test(rt: &World, routine: &'static str, arg: &'static str, h: Handle) -> bool {
    let (i, slot) = slot_of(routine, arg, h);
    if slot.state.load(Ordering::Acquire) != DONE && !queue::threaded() {
        let q = queue_of(lock(&slot.meta).team);
        queue::run_until(rt, routine, q, || slot.state.load(Ordering::Acquire) == DONE);
    }
    if slot.state.load(Ordering::Acquire) == DONE {
        complete(i, slot);
        return true;
    }
    false
}

/// `shmem_req_wait`: returns once the request has completed, and frees it.
pub(crate) fn wait(rt: &World, routine: &'static str, arg: &'static str, h: Handle) {
    let (i, slot) = slot_of(routine, arg, h);
    if slot.state.load(Ordering::Acquire) != DONE {
        let q = queue_of(lock(&slot.meta).team);
        queue::run_until(rt, routine, q, || slot.state.load(Ordering::Acquire) == DONE);
    }
    complete(i, slot);
}

/// Whether the request has completed, without freeing it (wait_any's scan).
pub(crate) fn is_done(routine: &'static str, arg: &'static str, h: Handle) -> bool {
    slot_of(routine, arg, h).1.state.load(Ordering::Acquire) == DONE
}

/// Before a blocking collective on team `team` (raw handle): runs, or waits
/// for, the team's queued collectives, which come first in every member's
/// order (with one queue for every team, see [`configure`], all of them).
/// Nothing to do inside a job (the queue's own blocking call).
#[inline]
pub(crate) fn before_blocking(rt: &World, routine: &'static str, team: usize) {
    if LIVE.load(Ordering::Acquire) == 0 || in_job() {
        return;
    }
    let q = queue_of(team);
    queue::run_until(rt, routine, q, || queue::idle(q));
}

/// Before a world rendezvous (barrier_all, sync_all) without workers: runs
/// every queued collective first (one queue then, see [`configure`]), because
/// the PEs waiting in the rendezvous would not run their part of them.
#[inline]
pub(crate) fn before_rendezvous(rt: &World, routine: &'static str) {
    if LIVE.load(Ordering::Acquire) == 0 || in_job() || queue::threaded() {
        return;
    }
    for q in queue::teams() {
        queue::run_until(rt, routine, q, || queue::idle(q));
    }
}

/// The outstanding requests that match `pick`, for the misuse errors: how
/// many and the first one's routine.
fn outstanding(pick: impl Fn(&Meta) -> bool) -> (usize, &'static str) {
    let Some(t) = TABLE.get() else { return (0, "") };
    if LIVE.load(Ordering::Acquire) == 0 {
        return (0, "");
    }
    let mut found = (0, "");
    for s in t.slots.iter() {
        if s.state.load(Ordering::Acquire) != FREE {
            let m = *lock(&s.meta);
            if pick(&m) {
                if found.0 == 0 {
                    found.1 = m.routine;
                }
                found.0 += 1;
            }
        }
    }
    found
}

/// `shmem_team_destroy`: fatal while the team has requests not completed by
/// test or wait; otherwise ends the team's worker.
pub(crate) fn before_team_destroy(rt: &World, routine: &'static str, team: usize) {
    let (n, first) = outstanding(|m| m.team == team);
    if n > 0 {
        fatal(&Error::new(
            routine,
            ErrorKind::Usage(format!(
                "PE {} destroys a team with {n} non-blocking collective{} outstanding (the first from {first}); \
                 complete {} with shmem_req_wait before destroying the team",
                rt.me,
                if n == 1 { "" } else { "s" },
                if n == 1 { "it" } else { "them" },
            )),
        ))
    }
    if !ONE_QUEUE.load(Ordering::Relaxed) {
        queue::close(team);
    }
}

/// `shmem_free`, `shmem_realloc`: fatal when the block `[addr, addr + len)`
/// holds a buffer of a request not completed by test or wait.
pub(crate) fn before_free(rt: &World, routine: &'static str, addr: usize, len: usize) {
    let hit = |m: &Meta| {
        m.buffers
            .iter()
            .any(|&(a, n)| n > 0 && a < addr.saturating_add(len.max(1)) && addr < a.saturating_add(n))
    };
    let (n, first) = outstanding(hit);
    if n > 0 {
        fatal(&Error::new(
            routine,
            ErrorKind::Usage(format!(
                "PE {} frees the block at {addr:#x}, which holds a buffer of {n} non-blocking collective{} \
                 still outstanding (the first from {first}); complete it with shmem_req_wait first",
                rt.me,
                if n == 1 { "" } else { "s" },
            )),
        ))
    }
}

/// `shmem_finalize`: runs every queued collective, ends the workers, and
/// warns once about requests the program never completed (they are freed).
pub(crate) fn at_finalize(rt: &World, routine: &'static str) {
    for q in queue::teams() {
        queue::run_until(rt, routine, q, || queue::idle(q));
        queue::close(q);
    }
    let (n, first) = outstanding(|_| true);
    if n > 0 {
        crate::error::warn(
            routine,
            format_args!(
                "{n} non-blocking collective{} (the first from {first}) never completed by shmem_req_test or \
                 shmem_req_wait; {} run to the end and freed",
                if n == 1 { "" } else { "s" },
                if n == 1 { "it was" } else { "they were" },
            ),
        );
        if let Some(t) = TABLE.get() {
            for (i, s) in t.slots.iter().enumerate() {
                if s.state.load(Ordering::Acquire) == DONE {
                    complete(i as u32, s);
                }
            }
        }
    }
}

/// Whether the teams' queues have worker threads.
pub(crate) fn has_workers() -> bool {
    queue::threaded()
}

/// Requests initiated and not completed by test or wait (`SHMEM_INFO`, tests).
pub(crate) fn live() -> usize {
    LIVE.load(Ordering::Acquire)
}
