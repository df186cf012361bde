//! Hang reports in a job across nodes, where no `oshrun` watches the PEs (the
//! MPI launcher started them): the first PE of each node runs a thread that
//! watches its node's control slots as `oshrun` would (`hang::Watch`) and,
//! when every PE of the node has stayed blocked or stopped for
//! `SHMEM_HANG_TIMEOUT` seconds, prints the node's table (and with
//! `oshrun --hang-abort` ends the job, status 124); a PE of the node stopped
//! for `--stopped-grace` seconds is named. The node's second PE runs a
//! standby watcher that acts only while the first PE is stopped or gone. A hung job thus
//! gets one table from every node; a node whose PEs wait that long for
//! another node's computation prints one too (its PEs show what they wait
//! for, and the other node's, if running, print none). The thread only reads
//! memory and `/proc`: it makes no MPI call.

use super::Runtime;
use super::background::Background;
use crate::hang::{self, Life, lookup::FileLayout, lookup::ProcLookup, lookup::proc_life};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

static THREAD: Background = Background::new();

/// `oshrun --stopped-grace` and `--hang-abort` under another launcher: the
/// environment variables `oshrun` passes them in (`launcher::remote`).
const ENV_STOPPED_GRACE: &str = "RSHMEM_STOPPED_GRACE";
const ENV_HANG_ABORT: &str = "RSHMEM_HANG_ABORT";
/// `oshrun`'s default grace before a stopped PE is reported.
const STOPPED_GRACE_DEFAULT: Duration = Duration::from_secs(3);
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

fn settings(rt: &Runtime) -> Result<Settings, String> {
    let stopped_grace = match std::env::var(ENV_STOPPED_GRACE) {
        Err(_) => Some(STOPPED_GRACE_DEFAULT),
        Ok(v) => match crate::config::parse_seconds(&v) {
            Ok(0.0) => None,
            Ok(s) if s < 1e9 => Some(Duration::from_secs_f64(s)),
            _ => {
                return Err(format!(
                    "environment variable {ENV_STOPPED_GRACE}={v:?} is invalid: use a number of seconds (0: never report)"
                ));
            }
        },
    };
    let hang_abort = match std::env::var(ENV_HANG_ABORT).as_deref() {
        Err(_) | Ok("0") => false,
        Ok("1") => true,
        Ok(v) => {
            return Err(format!(
                "environment variable {ENV_HANG_ABORT}={v:?} is invalid: use 0 or 1"
            ));
        }
    };
    let secs = rt.config.hang_timeout_secs;
    Ok(Settings {
        stopped_grace,
        hang_abort,
        timeout: (secs > 0.0).then(|| Duration::from_secs_f64(secs)),
    })
}

/// Starts the watcher for `rt`'s node if `rt` is its first or second PE and
/// the job spans nodes.
pub fn start(rt: &'static Runtime) -> Result<(), String> {
    let Some(session) = rt.mpi.as_ref() else { return Ok(()) };
    let node: Vec<usize> = session.node_pes.clone();
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
pub fn stop() {
    THREAD.stop()
}

fn watch(rt: &Runtime, node: &[usize], role: Role, set: &Settings, stop: &AtomicBool) {
    let mut w = set.timeout.map(hang::Watch::new);
    let host = hostname();
    let label = format!("rshmem: node {host} ({})", hang::pes_list(node));
    let mut here = vec![false; rt.npes];
    for &pe in node {
        here[pe] = true;
    }
    // Since when each PE of the node is stopped, and whether that was said.
    let mut stopped: Vec<Option<(Instant, bool)>> = vec![None; rt.npes];
    while !stop.load(Ordering::Acquire) {
        std::thread::park_timeout(hang::LOOK_EVERY);
        let pids: Vec<i32> = (0..rt.npes)
            .map(|pe| match here[pe] {
                true => rt.control.slot(pe).info.pid.load(Ordering::Acquire),
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
        let view = hang::read(&rt.control, life);
        let now = Instant::now();
        if let Some(grace) = set.stopped_grace {
            for &pe in node {
                match (&view.pes[pe].life, &mut stopped[pe]) {
                    (Life::Stopped(how), Some((since, said))) => {
                        if !*said && now.duration_since(*since) >= grace {
                            *said = true;
                            eprintln!(
                                "{label}: PE {pe} on {host} is stopped ({how}) for {:.0} s; kill -CONT {} resumes it \
                                 (the PEs that wait for it wait until then)",
                                grace.as_secs_f64(),
                                pids[pe]
                            );
                        }
                    }
                    (Life::Stopped(_), none) => *none = Some((now, false)),
                    (_, s) => *s = None,
                }
            }
        }
        let Some(w) = w.as_mut() else { continue };
        if w.look(&view, now) {
            let why = format!(
                "no PE of this node has made progress for {} s ({}={}; other nodes report their own)",
                w.timeout.as_secs_f64(),
                hang::ENV_TIMEOUT,
                rt.config.hang_timeout_secs
            );
            for line in hang::report(&view, &why, &ProcLookup::new(pids, FileLayout::of(&rt.control))) {
                eprintln!("{label}: {line}");
            }
            if set.hang_abort {
                eprintln!("{label}: ending the job (--hang-abort)");
                // The MPI launcher ends the others on this PE's exit status;
                // no exit handler may run (this PE is blocked in the library).
                // SAFETY: _exit has no preconditions.
                unsafe { libc::_exit(HANG_ABORT_STATUS) };
            }
        }
    }
}

fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most buf.len() bytes into buf.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    if rc == 0 {
        String::from_utf8_lossy(&buf[..end]).into_owned()
    } else {
        "?".into()
    }
}
