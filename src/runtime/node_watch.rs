//! Hang reports in a job across nodes, where no `oshrun` watches the PEs (the
//! MPI launcher started them): the first PE of each node runs a thread that
//! watches its node's control slots as `oshrun` would
//! (`stuck::timeout::Watch`) and, when every PE of the node has stayed
//! blocked or stopped for `SHMEM_HANG_TIMEOUT` seconds, prints the node's
//! table (and with `oshrun --hang-abort` ends the job, status 124); a PE of
//! the node stopped for `--stopped-grace` seconds is named. The node's
//! second PE runs a standby watcher that acts only while the first PE is
//! stopped or gone. A hung job thus gets one table from every node; a node
//! whose PEs wait that long for another node's computation prints one too
//! (its PEs show what they wait for, and the other node's, if running, print
//! none). The watcher of PE 0's node also ends a job that can never finish
//! (a PE finalizing while every other waits), by the rule and for the
//! reasons of [`crate::stuck`]. The thread only reads memory and `/proc`:
//! it makes no MPI call.

use super::Runtime;
use super::background::Background;
use crate::stuck::{self, Life, lookup::FileLayout, lookup::ProcLookup, lookup::proc_life};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

static THREAD: Background = Background::new();

/// The exit status of a job ended by `--hang-abort` (as `oshrun`'s).
const HANG_ABORT_STATUS: i32 = 124;

/// Which PE of its node a watcher runs in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    /// The node's first PE.
    First,
    /// The node's second PE: it watches only while the first is stopped or
    /// gone (a stopped process stops its watcher too).
    Standby,
}

/// What the watcher does besides the hang report.
struct Settings {
    /// Report a PE of the node stopped for this long (`None`: never).
    stopped_grace: Option<Duration>,
    /// End the job after a hang report.
    hang_abort: bool,
    timeout: Option<Duration>,
}

/// From the configuration (`RSHMEM_STOPPED_GRACE`, `RSHMEM_HANG_ABORT`,
/// checked at start-up) and `SHMEM_HANG_TIMEOUT`.
fn settings(rt: &Runtime) -> Result<Settings, String> {
    let grace = rt.config.stopped_grace_secs;
    let stopped_grace = (grace > 0.0).then(|| Duration::from_secs_f64(grace));
    let hang_abort = rt.config.hang_abort;
    let secs = rt.config.hang_timeout_secs;
    Ok(Settings {
        stopped_grace,
        hang_abort,
        timeout: (secs > 0.0).then(|| Duration::from_secs_f64(secs)),
    })
}

/// Starts the watcher for `rt`'s node if `rt` is its first or second PE and
/// the job spans nodes.
pub(super) fn start(rt: &'static Runtime) -> Result<(), String> {
    if rt.launcher.reports_hangs() {
        return Ok(());
    }
    let node: Vec<usize> = rt.launcher.node_pes().to_vec();
    let set = settings(rt)?;
    let role = match node.iter().position(|&pe| pe == rt.me) {
        Some(0) => Role::First,
        Some(1) => Role::Standby,
        _ => return Ok(()),
    };
    if node.len() == rt.npes || (set.timeout.is_none() && set.stopped_grace.is_none()) {
        return Ok(());
    }
    THREAD.start("rshmem-hang", move |stop| watch(rt, &node, role, &set, stop))
}

/// Stops the watcher, if it runs.
pub(super) fn stop() {
    THREAD.stop()
}

fn watch(rt: &Runtime, node: &[usize], role: Role, set: &Settings, stop: &AtomicBool) {
    let mut w = set.timeout.map(stuck::timeout::Watch::new);
    let host = crate::transport::mpi::status::this_host();
    let label = format!("rshmem: node {host} ({})", stuck::pes_list(node));
    let mut here = vec![false; rt.npes];
    for &pe in node {
        here[pe] = true;
    }
    // Since when each PE of the node is stopped, and whether that was said.
    let mut stopped: Vec<Option<(Instant, bool)>> = vec![None; rt.npes];
    // The job's picture while it looks doomed, and since when.
    let mut doomed: Option<(Picture, Instant)> = None;
    while !stop.load(Ordering::Acquire) {
        std::thread::park_timeout(stuck::timeout::LOOK_EVERY);
        let pids: Vec<i32> = (0..rt.npes)
            .map(|pe| match here[pe] {
                true => rt.control().slot(pe).info.pid.load(Ordering::Acquire),
                false => 0,
            })
            .collect();
        let life = |pe: usize| match pids[pe] {
            _ if !here[pe] => Life::Remote,
            0 => Life::Alive,
            pid => proc_life(pid),
        };
        if role == Role::Standby && life(node[0]) == Life::Alive {
            continue;
        }
        let view = stuck::read(rt.control(), life);
        let now = Instant::now();
        if let Some(grace) = set.stopped_grace {
            for &pe in node {
                match (&view.pes[pe].life, &mut stopped[pe]) {
                    (Life::Stopped(how), Some((since, said))) => {
                        if !*said && now.duration_since(*since) >= grace {
                            *said = true;
                            say(
                                &label,
                                &[format!(
                                    "PE {pe} on {host} is stopped ({how}) for {:.0} s; kill -CONT {} resumes it \
                                     (the PEs that wait for it wait until then)",
                                    grace.as_secs_f64(),
                                    pids[pe]
                                )],
                            );
                        }
                    }
                    (Life::Stopped(_), none) => *none = Some((now, false)),
                    (_, s) => *s = None,
                }
            }
        }
        // Only the watcher of PE 0's node judges the whole job.
        if here[0] {
            match (doomed_picture(&view, &here), &doomed) {
                (Some(p), Some((q, since))) if &p == q => {
                    if now.duration_since(*since) >= DOOMED_SETTLE {
                        let mut lines = vec![format!(
                            "the job can never finish: {}{}{}",
                            stuck::describe_kinds(p.iter().map(|(k, r, _)| (*k, r.as_str()))),
                            stuck::describe_threads(rt.control()),
                            stuck::describe_remote_threads(&heard(&here))
                        )];
                        lines.push("ending the job (a PE finalizing waits for PEs that wait for each other)".into());
                        say(&label, &lines);
                        // SAFETY: _exit has no preconditions; the MPI launcher
                        // ends the others on this exit status.
                        unsafe { libc::_exit(1) };
                    }
                }
                (p, _) => doomed = p.map(|p| (p, now)),
            }
        }
        let Some(w) = w.as_mut() else { continue };
        if w.look(&view, now) {
            let why = format!(
                "no PE of this node has made progress for {} s ({}={}; other nodes report their own)",
                w.timeout.as_secs_f64(),
                stuck::timeout::ENV_TIMEOUT,
                rt.config.hang_timeout_secs
            );
            let mut lines = stuck::report(&view, &why, &ProcLookup::new(pids, FileLayout::of(rt.control())));
            lines.extend(stuck::other_nodes(&heard(&here)));
            if set.hang_abort {
                lines.push("ending the job (--hang-abort)".into());
            }
            say(&label, &lines);
            if set.hang_abort {
                // The MPI launcher ends the others on this PE's exit status;
                // no exit handler may run (this PE is blocked in the library).
                // SAFETY: _exit has no preconditions.
                unsafe { libc::_exit(HANG_ABORT_STATUS) };
            }
        }
    }
}

/// Each PE's wait kind, routine and count of waits left ([`doomed_picture`]).
type Picture = Vec<(u32, String, u64)>;

/// How long the job's picture must stay doomed before the watcher ends it:
/// a few rounds of the other nodes' words, which come twice a second (why
/// that is enough: [`crate::stuck`], across nodes).
const DOOMED_SETTLE: Duration = Duration::from_secs(3);

/// Every PE of the job, local or heard from, blocked in the library, and at
/// least one, but not all, in `shmem_finalize`: the job can never finish
/// ([`stuck::never_finishes`], as the library judges one node). The picture:
/// each PE's wait kind, routine and the count of published waits it has left
/// (which moves when it leaves a wait); `None` when the job may go on.
fn doomed_picture(view: &stuck::JobView, here: &[bool]) -> Option<Picture> {
    use crate::transport::mpi::status::{self, FRESH_NS};
    let now = crate::job::monotonic_ns();
    // A PE not seen in a wait (running, rewriting its place, not heard from
    // lately) may move: no picture.
    let picture = here
        .iter()
        .enumerate()
        .map(|(pe, &local)| {
            if local {
                let p = &view.pes[pe];
                let seen = p.life == Life::Alive && p.state == crate::job::PeState::Running && p.seq.is_multiple_of(2);
                seen.then(|| (p.kind, p.routine.clone(), p.progress))
            } else {
                let h = status::heard(pe).filter(|h| now.saturating_sub(h.at_ns) < FRESH_NS / 2)?;
                Some((
                    h.record.kind,
                    crate::job::routine_text(&h.record.routine),
                    h.record.progress,
                ))
            }
        })
        .collect::<Option<Picture>>()?;
    stuck::never_finishes(picture.iter().map(|(k, _, _)| stuck::Stand::of_kind(*k))).then_some(picture)
}

/// Prints `lines`, each prefixed with `label`, in one write: the MPI
/// launcher merges the PEs' output by the chunk, and a line written in
/// pieces gets another node's text in the middle.
fn say(label: &str, lines: &[String]) {
    use std::io::Write;
    let text: String = lines.iter().map(|l| format!("{label}: {l}\n")).collect();
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

/// What this node heard from the other nodes' PEs (`transport::mpi::status`),
/// for the words of its verdict and report: each PE's host, and its place and
/// its threads' when recently told.
fn heard(here: &[bool]) -> Vec<stuck::Heard> {
    use crate::transport::mpi::status::{self, FRESH_NS};
    let now = crate::job::monotonic_ns();
    let told = |h: status::Heard| {
        (now.saturating_sub(h.at_ns) < FRESH_NS).then(|| stuck::Told {
            routine: crate::job::routine_text(&h.record.routine),
            blocked_secs: (h.record.blocked_ns + now.saturating_sub(h.at_ns)) as f64 / 1e9,
        })
    };
    (0..here.len())
        .filter(|&pe| !here[pe])
        .map(|pe| stuck::Heard {
            pe,
            host: status::host(pe).unwrap_or("?").to_string(),
            place: status::heard(pe).and_then(told),
            threads: status::heard_threads(pe)
                .into_iter()
                .filter_map(|(i, h)| Some((i, told(h)?)))
                .collect(),
        })
        .collect()
}
