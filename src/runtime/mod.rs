//! Process state: start-up, shut-down and the ways a PE leaves.
//!
//! `shmem_init` joins the job through whatever started the process
//! ([`bootstrap::Launcher`]: `oshrun` and its job file, an MPI launcher, or
//! none for a 1-PE job), agrees on the segment layout with the other PEs
//! through the node's control block, maps every segment, makes the program's
//! globals symmetric, opens the transport, and meets the other PEs in a
//! barrier. The runtime object then lives for the rest of the process:
//! `shmem_finalize` marks it inactive but keeps the mappings, because the
//! program's globals now live in the job file and a later `shmem_init`
//! (allowed by OpenSHMEM 1.6) reuses them. Under an MPI launcher it keeps
//! the engine to other nodes and MPI open too (neither can be started
//! twice), and the job ends at the process's exit.
//!
//! The [`Runtime`] is the one owner of process state: the low-level
//! [`World`] (built by [`bootstrap`], taken by every module below), the
//! launcher (which the job's end and its exit paths need) and the
//! state of the modules that keep some between calls (teams, spaces,
//! semaphores, notification sets, the locks held, the contexts, the
//! active-set check's mailbox; the synchronisation accounting lives in the
//! world, as every collective needs it). Each `shmem_init` resets that state in one order
//! (`Runtime::start_state`), each `shmem_finalize` ends it in one
//! (`Runtime::end_state`). The statics here are the process's lifecycle
//! only: which runtime is active, and the words the exit paths need.

mod background;
pub(crate) mod bootstrap;
pub(crate) mod fault;
mod net_watch;
mod node_watch;
mod progress;
mod trace;

use crate::coll::check_set::SetCheck;
use crate::error::{self, Error, ErrorKind};
use crate::heap::SymOffset;
use crate::job::{Control, PeState};
use crate::psync::UNIT;
use crate::stuck::Kind;
use crate::world::World;
use std::ops::Deref;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicPtr, AtomicU32, AtomicUsize, Ordering};

// `config` is a leaf: it checks sizes against the heap's granule by value.
const _: () = assert!(crate::config::SIZE_ALIGN == crate::heap::SEGMENT_ALIGN);

/// Everything an initialised PE knows: the low-level context ([`World`],
/// which the modules below take) and the state of the modules that keep
/// some between calls. `rt.me`, `rt.transport`, ... are the world's.
pub(crate) struct Runtime {
    pub world: World,
    /// Whatever started this process (`oshrun`, an MPI launcher, or none).
    pub launcher: &'static dyn bootstrap::Launcher,
    pub teams: crate::team::Teams,
    pub spaces: crate::space::Spaces,
    pub semaphores: crate::semaphore::Semaphores,
    pub notifies: crate::notify::Notifies,
    /// The queue locks this PE holds or queues for.
    pub locks: crate::lock::Locks,
    /// The contexts this PE has created.
    pub contexts: crate::context::Contexts,
    /// The counting puts' counters (and the performance counters' target word).
    pub cts: crate::ct::Counters,
    /// Where the next `shmem_wait_until_any` (or `_test_any`) scan of this
    /// PE starts: one past the index the last one returned (per PE, not per
    /// call site or array, as the specification allows).
    pub any_next: AtomicUsize,
    /// The active-set collectives' argument check's mailbox.
    pub set_check: SetCheck,
}

impl Deref for Runtime {
    type Target = World;

    #[inline]
    fn deref(&self) -> &World {
        &self.world
    }
}

impl Runtime {
    /// At every `shmem_init`, in this order: the semaphores, notification sets and spaces of an
    /// earlier initialisation are forgotten (their memory went with it), the
    /// synchronisation accounting starts over, and the predefined teams get
    /// their sync memory (the world team's with the active-set check's
    /// mailbox, the transport's rendezvous inbox and the counting puts'
    /// counters, `crate::ct`), before any peer can signal into it (the
    /// start-up barrier follows).
    /// Returns where the transport's rendezvous memory is (see
    /// `Transport::rendezvous_memory`), which it may use once every PE is
    /// past the start-up barrier.
    fn start_state(&self) -> Result<Option<SymOffset>, String> {
        {
            let _guard = self.spaces.lifecycle();
            self.semaphores.forget_all();
            self.notifies.forget_all();
            self.spaces.reset(self);
        }
        self.psync().reset(self.npes);
        let mailbox = SetCheck::len(self.config.check_collectives, self.npes);
        let rendezvous = crate::transport::Transport::rendezvous_bytes(&self.transport).next_multiple_of(UNIT);
        let counters = crate::ct::AREA_BYTES.next_multiple_of(UNIT);
        let at = self.teams.init(self, &self.spaces, mailbox + rendezvous + counters)?;
        self.set_check.start((mailbox > 0).then_some(at), self.npes);
        self.cts.start(self, SymOffset(at.0 + mailbox + rendezvous));
        crate::context::DEFAULT_CTX_OBJECT.counts.reset();
        Ok((rendezvous > 0).then_some(SymOffset(at.0 + mailbox)))
    }

    /// At `shmem_finalize`, after its rendezvous: the footprint if asked,
    /// then every team is forgotten (spaces and semaphores stay, unusable
    /// until `start_state` forgets them at the next `shmem_init`).
    fn end_state(&self) {
        if self.config.psync_stats {
            eprintln!("{}", self.psync().stats_line(self.me, self.npes));
        }
        if let Some((budget, remaps)) = self.tables_budget() {
            crate::error::debug(
                "shmem_finalize",
                format_args!(
                    "dropped the page tables of other PEs' memory {remaps} times (SHMEM_PEER_TABLES: after {budget} PEs)"
                ),
            );
        }
        self.teams.finalize(&self.spaces);
        self.psync().set_world(None);
    }
}

/// Non-null between `shmem_init` and `shmem_finalize`.
static ACTIVE: AtomicPtr<Runtime> = AtomicPtr::new(std::ptr::null_mut());
/// The runtime built by the first `shmem_init`, kept for re-initialisation.
static BUILT: AtomicPtr<Runtime> = AtomicPtr::new(std::ptr::null_mut());
/// Serialises init and finalize; counts nested `shmem_init` calls.
static LIFECYCLE: Mutex<usize> = Mutex::new(0);
/// Set when the process is leaving through an error or `shmem_global_exit`,
/// so the exit hook does not try a collective finalize.
static EXITING: AtomicBool = AtomicBool::new(false);
/// Set while the exit hook runs: `exit` is under way and must not be called again.
static IN_EXIT_HOOK: AtomicBool = AtomicBool::new(false);
/// Set by the last `shmem_finalize` of a job whose launcher outlives it
/// (MPI's): the engine to other nodes and MPI are still open for a later
/// `shmem_init`, and end at the process's exit ([`close_dormant`]).
static DORMANT: AtomicBool = AtomicBool::new(false);
/// This PE's state word in the control block, once mapped (for the exit paths).
static MY_STATE: AtomicPtr<AtomicU32> = AtomicPtr::new(std::ptr::null_mut());
static MY_EXIT_STATUS: AtomicPtr<AtomicI32> = AtomicPtr::new(std::ptr::null_mut());

/// The active runtime, or the "called before shmem_init" error for `routine`.
#[inline]
pub(crate) fn get(routine: &'static str) -> &'static Runtime {
    let p = ACTIVE.load(Ordering::Acquire);
    if p.is_null() {
        let kind = if BUILT.load(Ordering::Acquire).is_null() {
            ErrorKind::NotInitialized
        } else {
            ErrorKind::Finalized
        };
        error::fatal(&Error::new(routine, kind));
    }
    // SAFETY: ACTIVE only ever holds a leaked Box<Runtime> (see init), which is
    // never freed.
    unsafe { &*p }
}

/// The active runtime, if any.
pub(crate) fn try_get() -> Option<&'static Runtime> {
    let p = ACTIVE.load(Ordering::Acquire);
    // SAFETY: as in get().
    (!p.is_null()).then(|| unsafe { &*p })
}

/// `shmem_init_thread`: initialises the library (or counts a nested call) and
/// returns the granted thread level.
pub(crate) fn init(routine: &'static str, requested: i32) -> Result<i32, Error> {
    error::set_abort(abort_job);
    let mut count = LIFECYCLE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(rt) = try_get() {
        *count += 1;
        return Ok(rt.thread_level.load(Ordering::Relaxed));
    }
    let granted = requested.clamp(
        crate::constants::SHMEM_THREAD_SINGLE as i32,
        crate::constants::SHMEM_THREAD_MULTIPLE as i32,
    );
    let built = BUILT.load(Ordering::Acquire);
    let first = built.is_null();
    let rt: &'static Runtime = if first {
        let (world, launcher) = bootstrap::start(routine, requested)?;
        let rt = Box::leak(Box::new(Runtime {
            world,
            launcher,
            teams: Default::default(),
            spaces: Default::default(),
            semaphores: Default::default(),
            notifies: Default::default(),
            locks: Default::default(),
            contexts: Default::default(),
            cts: Default::default(),
            any_next: AtomicUsize::new(0),
            set_check: Default::default(),
        }));
        BUILT.store(rt, Ordering::Release);
        register_exit_hook();
        rt.launcher
            .on_program_finalize(program_finalizing)
            .map_err(|why| Error::new(routine, ErrorKind::Startup(why)))?;
        let single = crate::transport::Transport::single_node(&rt.transport);
        // Workers for the non-blocking collectives where the transport may be
        // used from a second thread: shared memory always, the engine to
        // other nodes when it was started thread-safe.
        let engine_threads = bootstrap::engine_thread_safe(&rt.config, requested);
        let workers = rt.config.nbc_thread != crate::config::NbcThread::Off && (single || engine_threads);
        // One queue for every team where teams cannot run independently:
        // without workers (a waiting thread that ran only its own team's
        // queue would leave a partner waiting for an earlier request of
        // another team without its part) and under the pairwise strategies.
        crate::nbc::configure(
            rt.config.nbc_max,
            workers,
            !workers || rt.psync().imp().pair_locations(),
        );
        if rt.config.progress_thread && !single {
            progress::start(rt).map_err(|why| Error::new(routine, ErrorKind::Startup(why)))?;
        }
        node_watch::start(rt).map_err(|why| Error::new(routine, ErrorKind::Startup(why)))?;
        net_watch::start(rt).map_err(|why| Error::new(routine, ErrorKind::Startup(why)))?;
        // After MPI's start-up, whose handlers it then chains to.
        fault::install();
        rt
    } else {
        // SAFETY: BUILT holds a leaked Box<Runtime> that is never freed.
        let rt = unsafe { &*built };
        rt.launcher
            .restart()
            .map_err(|why| Error::new(routine, ErrorKind::Startup(why)))?;
        // The engine the last finalize kept open is this job's again.
        DORMANT.store(false, Ordering::SeqCst);
        rt.allocator().reset();
        rt
    };
    rt.thread_level.store(granted, Ordering::Relaxed);
    let rendezvous = rt
        .start_state()
        .map_err(|why| Error::new(routine, ErrorKind::Startup(why)))?;
    rt.set_state(PeState::Running);
    ACTIVE.store(rt as *const Runtime as *mut Runtime, Ordering::Release);
    *count = 1;
    // Nobody may touch a peer's memory before that peer has mapped its globals.
    crate::coll::barrier_all(rt, routine);
    // Every PE has zeroed the rendezvous memory before it arrived.
    crate::transport::Transport::rendezvous_memory(&rt.transport, rendezvous);
    let node_pes = rt.launcher.node_pes();
    if node_pes.len() < rt.npes {
        rt.teams
            .init_node(rt, &rt.spaces, node_group(node_pes, rt.me))
            .map_err(|why| Error::new(routine, ErrorKind::Startup(why)))?;
    }
    if first && rt.me == 0 {
        if let Some(warning) = rt.config.trace.as_deref().and_then(trace::untraced_warning) {
            eprintln!("{warning}");
        }
        if rt.config.version || rt.config.debug {
            eprintln!(
                "rshmem {} (OpenSHMEM {}.{})",
                env!("CARGO_PKG_VERSION"),
                crate::constants::SHMEM_MAJOR_VERSION,
                crate::constants::SHMEM_MINOR_VERSION
            );
        }
        if rt.config.verbose && !rt.config.info {
            use crate::transport::Transport;
            eprintln!(
                "rshmem: {} PEs, {} on PE 0's node; transport: {}{}",
                rt.npes,
                rt.launcher.node_pes().len(),
                rt.transport.describe(),
                rt.transport.detail().map(|d| format!("; {d}")).unwrap_or_default()
            );
        }
        if rt.config.info {
            eprint!("{}", rt.config.info_text());
            use crate::transport::{Active, Transport};
            eprintln!(
                "rshmem transport: {}; {}",
                rt.transport.describe(),
                Active::ATOMICITY.describe()
            );
            if let Some(detail) = rt.transport.detail() {
                eprintln!("rshmem remote engine: {detail}");
            }
            if let Some(heap) = crate::heap::huge::describe_in_use() {
                eprintln!("rshmem symmetric heap: {heap}");
            }
            eprintln!(
                "rshmem non-blocking collectives: {}{}",
                if crate::nbc::has_workers() {
                    "a worker thread per team runs them"
                } else {
                    "run inside shmem_req_test, shmem_req_wait and blocking collectives (no worker thread)"
                },
                if crate::nbc::one_queue() {
                    "; one queue for every team (pairwise strategy)"
                } else {
                    ""
                }
            );
            if let Some(launcher) = rt.launcher.describe() {
                eprintln!(
                    "rshmem {launcher}; {} PEs, {} on this node; progress thread {}",
                    rt.npes,
                    rt.launcher.node_pes().len(),
                    if rt.config.progress_thread { "on" } else { "off" }
                );
            }
        }
    }
    Ok(granted)
}

/// The group of this node's PEs (`SHMEM_TEAM_SHARED`), which a team needs as
/// an arithmetic progression: true of block and round-robin placements. Any
/// other placement gives a team of this PE alone, which is still a correct
/// answer (it shares memory with itself).
fn node_group(node_pes: &[usize], me: usize) -> crate::coll::Group {
    let stride = if node_pes.len() > 1 {
        node_pes[1] - node_pes[0]
    } else {
        1
    };
    let progression = node_pes.windows(2).all(|w| w[1] - w[0] == stride);
    let (start, stride, size, rank) = match node_pes.iter().position(|&p| p == me) {
        Some(rank) if progression => (node_pes[0], stride, node_pes.len(), rank),
        _ => (me, 1, 1, 0),
    };
    crate::coll::Group {
        start: start as isize,
        stride: stride as isize,
        size,
        rank,
    }
}

/// `shmem_finalize`: collective; the last nested call leaves the library.
/// `at_exit`: called by the exit hook, for a PE that returned from `main` (or
/// called `exit(0)`) without it.
pub(crate) fn finalize(at_exit: bool) {
    let mut count = LIFECYCLE.lock().unwrap_or_else(|e| e.into_inner());
    let Some(rt) = try_get() else { return };
    *count = count.saturating_sub(1);
    if *count > 0 {
        // 1.6: every finalize but the last acts as shmem_barrier_all (after
        // the lock, which another thread's init or finalize may want).
        drop(count);
        crate::coll::barrier_all(rt, "shmem_finalize");
        return;
    }
    // Non-blocking collectives first: the other PEs may need this one's part.
    crate::nbc::at_finalize(
        rt,
        if at_exit {
            "shmem_finalize (at exit)"
        } else {
            "shmem_finalize"
        },
    );
    // Finalize's own rendezvous, not the world barrier: a PE finalizing while
    // the others wait in shmem_barrier_all must not let them through (they
    // would run on with this PE gone); the job is reported stuck instead.
    crate::transport::Transport::quiet(&rt.transport);
    if !crate::transport::Transport::single_node(&rt.transport) {
        locks_at_finalize(rt, at_exit);
    }
    let kind = if at_exit { Kind::FinalizeAtExit } else { Kind::Finalize };
    // Nothing is compared here (only world barriers compare arguments).
    let which = (crate::coll::barrier::Rendezvous::Finalize, None);
    let _ = crate::coll::barrier::world(rt, which, |ep| rt.post(kind, "shmem_finalize", ep));
    // Its last use: the next initialisation zeroes it again.
    crate::transport::Transport::rendezvous_memory(&rt.transport, None);
    rt.end_state();
    rt.set_state(PeState::Finalized);
    ACTIVE.store(std::ptr::null_mut(), Ordering::Release);
    end_job(rt);
}

/// A PE that finalizes (often at `exit`) while it holds a queue lock: if
/// another PE has queued for the lock, that PE can never get it and the job
/// can never finish, so this PE ends the job naming the lock; otherwise the
/// lock is released with a warning, so that a PE taking it later does not
/// wait for ever. On one node the stuck detector sees the waiters (`stuck`);
/// across nodes nothing else would.
fn locks_at_finalize(rt: &Runtime, at_exit: bool) {
    let routine = if at_exit {
        "shmem_finalize (at exit)"
    } else {
        "shmem_finalize"
    };
    let held = rt.locks.claims.held_now();
    if !held.is_empty() {
        // A PE queuing now may have its swap of the tail still in flight:
        // over software RMA it lands only while this PE calls into MPI.
        let until = std::time::Instant::now() + std::time::Duration::from_millis(100);
        while std::time::Instant::now() < until {
            crate::transport::Transport::progress(&rt.transport);
            std::thread::yield_now();
        }
    }
    for off in held {
        let addr = crate::transport::Transport::local_ptr(&rt.transport, rt.me, off).map_or(0, |p| p.as_ptr() as usize);
        let lock = crate::lock::queue_lock(rt, &rt.locks, routine, crate::lock::At { off, addr }, None);
        if lock.queued_behind() {
            error::fatal(&Error::new(
                routine,
                ErrorKind::Usage(format!(
                    "the job can never finish: this PE still holds the lock at {addr:#x} and other PEs wait for it{}",
                    if at_exit {
                        " (the program returned from main or called exit without shmem_clear_lock)"
                    } else {
                        " (call shmem_clear_lock first)"
                    }
                )),
            ));
        }
        error::warn(
            routine,
            format_args!("this PE still holds the lock at {addr:#x}; released (call shmem_clear_lock first)"),
        );
        if lock.release().is_err() {
            // Not held after all (another thread released it meanwhile).
            continue;
        }
    }
}

/// After the finalize rendezvous: ends the launcher's job ([`close_job`]),
/// or, when the launcher outlives finalize (MPI cannot be initialised twice,
/// so a later `shmem_init` needs it open), leaves it for the process's exit.
/// The helper threads stay with it: a PE that dies before its exit must
/// still end the others (the MPI launcher does, seeing it gone), and the
/// watchers still report a job that can never finish.
fn end_job(rt: &Runtime) {
    if rt.launcher.outlives_finalize() {
        DORMANT.store(true, Ordering::SeqCst);
        return;
    }
    close_job(rt);
}

/// The job's end kept open by the last `shmem_finalize` ([`end_job`]), at
/// the process's normal exit or inside the program's `MPI_Finalize`:
/// collective, and every PE reaches one of the two (the cost of
/// re-initialisation under MPI: the teardown waits for every PE's exit).
fn close_dormant() {
    let _count = LIFECYCLE.lock().unwrap_or_else(|e| e.into_inner());
    if DORMANT.swap(false, Ordering::SeqCst) {
        let built = BUILT.load(Ordering::Acquire);
        if !built.is_null() {
            // SAFETY: BUILT holds a leaked Box<Runtime> that is never freed.
            close_job(unsafe { &*built });
        }
    }
}

/// Ends the launcher's job: the helper threads (which run only in jobs
/// across nodes), the transport's engine to other nodes (collective), then
/// the launcher's part (MPI's end, if rshmem started MPI).
fn close_job(rt: &Runtime) {
    progress::stop();
    node_watch::stop();
    let ended = rt.launcher.finish(rt.transport.close());
    net_watch::stop();
    if let Err(e) = ended {
        // A peer that died after its finalize leaves its engine endpoints
        // dead: an engine failure, not a bug of the library's.
        error::fatal(&Error::new("shmem_finalize", ErrorKind::Engine(e)));
    }
}

/// Called when the program ends the launcher's library first: inside its
/// `MPI_Finalize` (which every PE calls), before MPI tears anything down.
/// The spec's interoperability annex lets a program end MPI before
/// OpenSHMEM, so rshmem finalizes here, whatever the nesting count, and the
/// program's later `shmem_finalize` finds it done.
extern "C" fn program_finalizing() {
    let ended = std::panic::catch_unwind(|| {
        if try_get().is_some() {
            *LIFECYCLE.lock().unwrap_or_else(|e| e.into_inner()) = 1;
            finalize(false);
        }
        // MPI is ending: nothing of rshmem's may stay open on it.
        close_dormant();
    });
    if ended.is_err() {
        // No panic may unwind into MPI's C frames.
        std::process::abort();
    }
}

/// Records where this PE's state words are, for the exit paths.
fn publish_exit_words(control: &Control, me: usize) {
    let info = &control.slot(me).info;
    MY_STATE.store(&info.state as *const AtomicU32 as *mut AtomicU32, Ordering::Release);
    MY_EXIT_STATUS.store(
        &info.exit_status as *const AtomicI32 as *mut AtomicI32,
        Ordering::Release,
    );
}

fn set_my_state(s: PeState) {
    let p = MY_STATE.load(Ordering::Acquire);
    if !p.is_null() {
        // SAFETY: points into the control block mapping, never unmapped.
        unsafe { (*p).store(s as u32, Ordering::Release) };
    }
}

/// Ends this PE after a fatal error (already reported). `oshrun` sees the
/// failed state and the status and ends the other PEs.
pub(crate) fn abort_job(status: i32) -> ! {
    EXITING.store(true, Ordering::SeqCst);
    set_my_state(PeState::Failed);
    bootstrap::abort(status);
    if IN_EXIT_HOOK.load(Ordering::SeqCst) {
        // Inside exit(): calling it again is undefined. Flush what the
        // program printed (exit would have, after the hooks), then leave.
        // SAFETY: fflush(NULL) flushes every C stream; _exit never returns.
        unsafe {
            libc::fflush(std::ptr::null_mut());
            libc::_exit(status)
        }
    }
    std::process::exit(status)
}

/// [`abort_job`] from a signal handler, after a fault was reported: only its
/// async-signal-safe part (no `MPI_Abort`, exit hooks or stream flushes).
fn abort_from_signal(status: i32) -> ! {
    EXITING.store(true, Ordering::SeqCst);
    set_my_state(PeState::Failed);
    // SAFETY: _exit is async-signal-safe and never returns.
    unsafe { libc::_exit(status) }
}

/// `shmem_global_exit`: ends the whole job with `status`.
pub(crate) fn global_exit(status: i32) -> ! {
    EXITING.store(true, Ordering::SeqCst);
    let p = MY_EXIT_STATUS.load(Ordering::Acquire);
    if !p.is_null() {
        // SAFETY: as in set_my_state.
        unsafe { (*p).store(status, Ordering::Release) };
    }
    if let Some(rt) = try_get() {
        crate::transport::Transport::quiet(&rt.transport);
    }
    set_my_state(PeState::GlobalExit);
    bootstrap::abort(status);
    std::process::exit(status)
}

unsafe extern "C" {
    /// glibc: like atexit, but the handler receives the exit status.
    fn on_exit(f: extern "C" fn(libc::c_int, *mut libc::c_void), arg: *mut libc::c_void) -> libc::c_int;
}

/// At a normal `exit(0)` without `shmem_finalize`, finalize implicitly (as Sandia
/// OpenSHMEM does), so the other PEs are not left waiting; then end the job
/// a launcher that outlives finalize kept open ([`close_dormant`]). A
/// non-zero exit is left alone: it is a failure, and `oshrun` ends the job.
extern "C" fn exit_hook(status: libc::c_int, _arg: *mut libc::c_void) {
    if EXITING.load(Ordering::SeqCst) || status != 0 {
        return;
    }
    let active = try_get().is_some();
    if !active && !DORMANT.load(Ordering::SeqCst) {
        return;
    }
    IN_EXIT_HOOK.store(true, Ordering::SeqCst);
    // What the program printed reaches oshrun even if the job turns out stuck
    // and this PE is ended while it waits (exit flushes only after the hooks).
    // SAFETY: fflush(NULL) flushes every C stream.
    unsafe { libc::fflush(std::ptr::null_mut()) };
    let _ = std::panic::catch_unwind(|| {
        if active {
            *LIFECYCLE.lock().unwrap_or_else(|e| e.into_inner()) = 1;
            finalize(true);
        }
        // The process is leaving: no later shmem_init needs the job open.
        close_dormant();
    });
}

fn register_exit_hook() {
    // SAFETY: exit_hook has the signature on_exit expects and lives forever.
    unsafe { on_exit(exit_hook, std::ptr::null_mut()) };
}
