//! Each team's queue of non-blocking collectives, and the worker thread that
//! runs it (see [`super`]).
//!
//! One job of a queue runs at a time (`busy`, set under the queue's lock
//! when a job is taken): the worker, or a thread waiting for a request of
//! the team takes the head when it is free. A finished job clears `busy`,
//! marks its request done and rings the PE's sync bell, which every waiter
//! of this module sleeps on; then wakes the worker, which may have jobs left.

use crate::error::{Error, ErrorKind, fatal};
use crate::stuck::Kind;
use crate::world::World;
use std::cell::Cell;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

/// A collective to run: the blocking routine with its arguments.
pub(crate) type Job = Box<dyn FnOnce() + Send + 'static>;

thread_local! {
    /// Whether this thread is running a job (whose blocking routine must not
    /// wait for its own queue).
    static IN_JOB: Cell<bool> = const { Cell::new(false) };
}

/// Whether the calling thread is running a queued collective.
#[inline]
pub(crate) fn in_job() -> bool {
    IN_JOB.with(|c| c.get())
}

static THREADED: AtomicBool = AtomicBool::new(true);

pub(super) fn set_threaded(on: bool) {
    THREADED.store(on, Ordering::Release);
}

/// Whether queues have workers.
pub(super) fn threaded() -> bool {
    THREADED.load(Ordering::Acquire)
}

struct Inner {
    jobs: VecDeque<(u32, Job)>,
    stop: bool,
    worker: Option<JoinHandle<()>>,
}

struct Queue {
    team: usize,
    inner: Mutex<Inner>,
    /// Wakes the worker: a job queued, a job finished, or the end.
    more: Condvar,
    busy: AtomicBool,
}

/// The queues of the teams that have had a non-blocking collective since
/// `shmem_init` (or since their last `close`).
static QUEUES: Mutex<Vec<Arc<Queue>>> = Mutex::new(Vec::new());

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn find(team: usize) -> Option<Arc<Queue>> {
    lock(&QUEUES).iter().find(|q| q.team == team).cloned()
}

/// Queues `job` of request `i` on `team`'s queue (made, with its worker,
/// at the team's first job).
pub(super) fn push(rt: &'static World, team: usize, i: u32, job: Job) {
    let q = {
        let mut all = lock(&QUEUES);
        match all.iter().find(|q| q.team == team) {
            Some(q) => q.clone(),
            None => {
                let q = Arc::new(Queue {
                    team,
                    inner: Mutex::new(Inner {
                        jobs: VecDeque::new(),
                        stop: false,
                        worker: None,
                    }),
                    more: Condvar::new(),
                    busy: AtomicBool::new(false),
                });
                all.push(q.clone());
                q
            }
        }
    };
    let mut g = lock(&q.inner);
    g.jobs.push_back((i, job));
    if threaded() && g.worker.is_none() {
        let w = q.clone();
        let spawned = std::thread::Builder::new()
            .name("rshmem-nbc".into())
            .spawn(move || worker(rt, &w));
        match spawned {
            Ok(h) => g.worker = Some(h),
            // Fatal rather than run without it: with workers the queues are
            // per team, which only workers make safe (see `super::configure`).
            Err(e) => fatal(&Error::new(
                "a non-blocking collective",
                ErrorKind::Startup(format!(
                    "PE {} cannot start the thread that runs its non-blocking collectives ({e}); \
                     RSHMEM_NBC_THREAD=off runs them without one",
                    rt.me
                )),
            )),
        }
    }
    drop(g);
    q.more.notify_one();
}

impl Queue {
    /// The head job, marked running, unless one runs already (`g`: this
    /// queue's lock, held).
    fn take(&self, g: &mut Inner) -> Option<(u32, Job)> {
        if self.busy.load(Ordering::Acquire) {
            return None;
        }
        let item = g.jobs.pop_front();
        if item.is_some() {
            self.busy.store(true, Ordering::Release);
        }
        item
    }
}

fn worker(rt: &'static World, q: &Queue) {
    crate::stuck::threads::mark_helper();
    loop {
        let mut g = lock(&q.inner);
        let (i, job) = loop {
            if g.stop {
                return;
            }
            if let Some(item) = q.take(&mut g) {
                break item;
            }
            g = q.more.wait(g).unwrap_or_else(|e| e.into_inner());
        };
        drop(g);
        run(rt, q, i, job);
    }
}

/// Runs one job taken from `q` (with `busy` set), then hands on.
fn run(rt: &World, q: &Queue, i: u32, job: Job) {
    IN_JOB.with(|c| c.set(true));
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
    IN_JOB.with(|c| c.set(false));
    if let Err(p) = r {
        let what = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        fatal(&Error::new("a non-blocking collective", ErrorKind::Internal(what)))
    }
    q.busy.store(false, Ordering::Release);
    super::finished(rt, i);
    // The worker may wait for the job a waiter just ran.
    let _g = lock(&q.inner);
    q.more.notify_all();
}

/// Runs `team`'s queued jobs on the calling thread, or waits for the one
/// running, until `done()`.
pub(super) fn run_until(rt: &World, routine: &'static str, team: usize, done: impl Fn() -> bool) {
    let Some(q) = find(team) else { return };
    loop {
        if done() {
            return;
        }
        let taken = q.take(&mut lock(&q.inner));
        if let Some((i, job)) = taken {
            run(rt, &q, i, job);
            continue;
        }
        rt.sync_waiter().wait_at(
            || rt.post(Kind::Coll, routine, 0),
            || done() || !q.busy.load(Ordering::Acquire),
            || format!("{routine}: a non-blocking collective of this PE to finish"),
        );
    }
}

/// Whether `team` has no job queued or running.
pub(super) fn idle(team: usize) -> bool {
    find(team).is_none_or(|q| {
        let g = lock(&q.inner);
        g.jobs.is_empty() && !q.busy.load(Ordering::Acquire)
    })
}

/// The teams with a queue, in handle order.
pub(super) fn teams() -> Vec<usize> {
    let mut v: Vec<usize> = lock(&QUEUES).iter().map(|q| q.team).collect();
    v.sort_unstable();
    v
}

/// Ends `team`'s queue (it must be idle) and its worker.
pub(super) fn close(team: usize) {
    let q = {
        let mut all = lock(&QUEUES);
        match all.iter().position(|q| q.team == team) {
            Some(p) => all.remove(p),
            None => return,
        }
    };
    let worker = {
        let mut g = lock(&q.inner);
        g.stop = true;
        g.worker.take()
    };
    q.more.notify_all();
    if let Some(w) = worker {
        let _ = w.join();
    }
}
