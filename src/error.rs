//! Errors in the use of the library, and how a PE reports them and stops.
//!
//! A usage error is fatal: continuing would corrupt memory or deadlock the job.
//! The PE prints one line naming the routine, itself and the bad value, marks its
//! slot as failed so `oshrun` ends the job, and exits with status 1. A PE
//! whose failure the other PEs will see (and exit on) prints first
//! ([`Error::report_now`]), so the job cannot be ended before its line is
//! out. A bad argument is named with its position in the C prototype, from
//! [`params`].

pub(crate) mod params;

use std::fmt;
use std::io::Write;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// `SHMEM_DEBUG`, set once the configuration is read.
static DEBUG: AtomicBool = AtomicBool::new(false);
/// How a PE ends after a fatal error: the runtime's exit path (which marks
/// the PE failed for `oshrun`), registered at `shmem_init`; before that a
/// plain exit. A hook rather than a call, because this module sits below
/// every module that reports errors, the runtime included.
static ABORT: OnceLock<fn(i32) -> !> = OnceLock::new();

/// Turns `SHMEM_DEBUG` messages on or off.
pub(crate) fn set_debug(on: bool) {
    DEBUG.store(on, Ordering::Relaxed);
}

pub(crate) fn debug_enabled() -> bool {
    DEBUG.load(Ordering::Relaxed)
}

/// Registers how this PE ends after a fatal error (once; later calls keep the first).
pub(crate) fn set_abort(abort: fn(i32) -> !) {
    let _ = ABORT.set(abort);
}

/// Ends this PE with `status` after a reported error.
pub(crate) fn abort(status: i32) -> ! {
    match ABORT.get() {
        Some(f) => f(status),
        None => std::process::exit(status),
    }
}

/// What went wrong. Arguments are named; their positions come from the
/// routine's prototype when the message is written ([`params`]).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ErrorKind {
    NotInitialized,
    Finalized,
    PeOutOfRange {
        name: &'static str,
        pe: i64,
        npes: usize,
    },
    NotSymmetric {
        name: &'static str,
        addr: usize,
        len: usize,
    },
    NotHeapAllocation {
        name: &'static str,
        addr: usize,
    },
    InvalidArgument {
        name: &'static str,
        value: String,
        why: &'static str,
    },
    /// The `shmem_ctx_t` argument `name`.
    InvalidContext {
        name: &'static str,
        addr: usize,
    },
    /// The `shmem_team_t` argument `name`.
    InvalidTeam {
        name: &'static str,
        raw: usize,
    },
    /// A misuse described in full.
    Usage(String),
    Config(String),
    Startup(String),
    Internal(String),
    /// A call of the remote engine (MPI) failed: after the failure of
    /// another PE far more often than through a bug, so the message says so
    /// rather than asking for a bug report.
    Engine(String),
}

/// A usage error: the routine and what went wrong.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Error {
    pub routine: &'static str,
    pub kind: ErrorKind,
    /// Printed already, where it was found ([`Error::report_now`]): whoever
    /// receives it ends the PE without printing it again.
    pub reported: bool,
}

impl Error {
    pub(crate) fn new(routine: &'static str, kind: ErrorKind) -> Error {
        Error {
            routine,
            kind,
            reported: false,
        }
    }

    /// Prints the report now and returns the error marked as printed. For a
    /// PE about to tell the others that it failed: the others then exit
    /// (and `oshrun` ends the job) only after the explanation is out.
    pub(crate) fn report_now(mut self) -> Error {
        write_report(&self);
        self.reported = true;
        self
    }
}

impl ErrorKind {
    /// The part of the message after "routine (PE x of n): ".
    pub(crate) fn text(&self, routine: &str) -> String {
        let arg = |name: &str| params::label(routine, name);
        match self {
            ErrorKind::NotInitialized => "called before shmem_init".into(),
            ErrorKind::Finalized => "called after shmem_finalize".into(),
            ErrorKind::PeOutOfRange { name, pe, npes } => {
                // An array of PE numbers (`target_pes`) holds the bad one.
                let is = if name.ends_with("_pes") { "holds PE" } else { "is" };
                format!("{} {is} {pe}, outside [0, {}]", arg(name), *npes as i64 - 1)
            }
            ErrorKind::NotSymmetric { name, addr, len } => format!(
                "{} = {addr:#x} is not symmetric (neither in the symmetric heap nor in the program's global data){}",
                arg(name),
                if *len > 1 {
                    format!(" for the {len} bytes accessed")
                } else {
                    String::new()
                }
            ),
            ErrorKind::NotHeapAllocation { name, addr } => {
                format!("{} = {addr:#x} is not an allocation of the symmetric heap", arg(name))
            }
            ErrorKind::InvalidArgument { name, value, why } => format!("{} is {value}: {why}", arg(name)),
            ErrorKind::InvalidContext { name, addr: 0 } => {
                format!("{} is SHMEM_CTX_INVALID, not a context", arg(name))
            }
            ErrorKind::InvalidContext { name, addr } => format!(
                "{} = {addr:#x} is not a valid context (destroyed, or never created)",
                arg(name)
            ),
            ErrorKind::InvalidTeam { name, raw: 0 } => {
                format!("{} is SHMEM_TEAM_INVALID, not a team", arg(name))
            }
            ErrorKind::InvalidTeam { name, raw } => format!(
                "{} = {raw:#x} is not a valid team (destroyed, or never created)",
                arg(name)
            ),
            ErrorKind::Usage(s) | ErrorKind::Config(s) | ErrorKind::Startup(s) => s.clone(),
            ErrorKind::Internal(s) => format!("internal error: {s} (please report this bug)"),
            ErrorKind::Engine(s) => format!(
                "the engine to other nodes failed: {s} (usually because a PE it was talking to has ended or cannot be \
                 reached: the launcher's messages name it)"
            ),
        }
    }
}

/// This PE's number and the job's size once `shmem_init` has attached (it
/// removes `oshrun`'s variables from the environment); npes 0 until then.
static IDENTITY: [AtomicUsize; 2] = [AtomicUsize::new(0), AtomicUsize::new(0)];

/// Records who this process is, for the messages that follow.
pub(crate) fn set_identity(pe: usize, npes: usize) {
    IDENTITY[0].store(pe, Ordering::Relaxed);
    IDENTITY[1].store(npes, Ordering::Release);
}

/// Who this process is, for messages: as `shmem_init` found it, or before
/// that from the environment (1-PE jobs have no environment).
pub(crate) fn identity() -> (usize, usize) {
    let npes = IDENTITY[1].load(Ordering::Acquire);
    if npes > 0 {
        return (IDENTITY[0].load(Ordering::Relaxed), npes);
    }
    let get = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<usize>().ok());
    match (get(crate::job::ENV_PE), get(crate::job::ENV_NPES)) {
        (Some(pe), Some(n)) if pe < n => (pe, n),
        _ => (0, 1),
    }
}

/// [`identity`] as `shmem_init` recorded it, without the fallback to the
/// environment (which allocates): for a signal handler.
pub(crate) fn identity_known() -> (usize, usize) {
    let npes = IDENTITY[1].load(Ordering::Acquire);
    (IDENTITY[0].load(Ordering::Relaxed), npes)
}

/// Formats the one-line report for `e`.
pub(crate) fn message(e: &Error) -> String {
    let (pe, npes) = identity();
    format!(
        "rshmem: {} (PE {} of {}): {}",
        e.routine,
        pe,
        npes,
        e.kind.text(e.routine)
    )
}

/// Prints a debugging message when `SHMEM_DEBUG` is set.
pub(crate) fn debug(routine: &str, text: fmt::Arguments<'_>) {
    if debug_enabled() {
        let (pe, npes) = identity();
        let _ = writeln!(std::io::stderr(), "rshmem debug: {routine} (PE {pe} of {npes}): {text}");
    }
}

/// Prints a one-line warning about a misuse the library tolerates.
pub(crate) fn warn(routine: &str, text: fmt::Arguments<'_>) {
    let (pe, npes) = identity();
    // One write: a launcher that merges the PEs' standard errors (mpirun)
    // would otherwise interleave the pieces of several PEs' lines.
    let line = format!("rshmem: warning: {routine} (PE {pe} of {npes}): {text}\n");
    let _ = std::io::stderr().write_all(line.as_bytes());
}

/// Prints `rshmem: warning: <routine> (PE <me> of <npes>): <text>` on
/// standard error, the first time this PE warns for `routine` only: a program
/// that repeats a tolerated mistake in a loop gets one line per routine, which
/// keeps the mistake visible without flooding the output.
pub(crate) fn warn_once(routine: &'static str, text: impl FnOnce() -> String) {
    static WARNED: std::sync::Mutex<Vec<&'static str>> = std::sync::Mutex::new(Vec::new());
    {
        let mut warned = WARNED.lock().unwrap_or_else(|e| e.into_inner());
        if warned.contains(&routine) {
            return;
        }
        warned.push(routine);
    }
    warn(routine, format_args!("{}", text()));
}

/// Prints the one-line report for `e` on standard error, unless it was
/// printed already.
pub(crate) fn report(e: &Error) {
    if !e.reported {
        write_report(e);
    }
}

fn write_report(e: &Error) {
    test_delay();
    let line = message(e);
    let mut err = std::io::stderr().lock();
    // One write: writeln! on unbuffered stderr writes the newline apart,
    // and the PEs' lines, merged by a launcher, then run together.
    let _ = err.write_all(format!("{line}\n").as_bytes());
    let _ = err.flush();
}

/// Debug builds: PE 0 waits `RSHMEM_TEST_PE0_REPORT_DELAY_MS` milliseconds
/// before it prints a fatal report, so that a test can make it the slowest
/// PE and check that its explanation still comes out (see
/// `c_tests/errors/job_size_overflow.c`). Release builds read no variable.
fn test_delay() {
    #[cfg(debug_assertions)]
    if identity().0 == 0
        && let Some(ms) = std::env::var("RSHMEM_TEST_PE0_REPORT_DELAY_MS")
            .ok()
            .and_then(|v| v.parse::<u64>().ok())
    {
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
}

/// Reports `e` (unless reported already) and ends this PE (and through
/// `oshrun`, the job). Never returns.
pub(crate) fn fatal(e: &Error) -> ! {
    report(e);
    abort(1)
}
