//! Errors in the use of the library, and how a PE reports them and stops.
//!
//! A usage error is fatal: continuing would corrupt memory or deadlock the job.
//! The PE prints one line naming the routine, itself and the bad value, marks its
//! slot as failed so `oshrun` ends the job, and exits with status 1.

use std::fmt;
use std::io::Write;

/// What went wrong; the `Display` text is the part after "routine (PE x of n): ".
#[derive(Debug, Clone, PartialEq)]
pub enum ErrorKind {
    NotInitialized,
    Finalized,
    PeOutOfRange {
        arg: u8,
        name: &'static str,
        pe: i64,
        npes: usize,
    },
    NotSymmetric {
        arg: u8,
        name: &'static str,
        addr: usize,
        len: usize,
    },
    NotHeapAllocation {
        arg: u8,
        name: &'static str,
        addr: usize,
    },
    InvalidArgument {
        arg: u8,
        name: &'static str,
        value: String,
        why: &'static str,
    },
    InvalidContext {
        arg: u8,
        addr: usize,
    },
    InvalidTeam {
        arg: u8,
        raw: usize,
    },
    /// A misuse described in full.
    Usage(String),
    Config(String),
    Startup(String),
    Internal(String),
}

/// A usage error: the routine and what went wrong.
#[derive(Debug, Clone, PartialEq)]
pub struct Error {
    pub routine: &'static str,
    pub kind: ErrorKind,
}

impl Error {
    pub fn new(routine: &'static str, kind: ErrorKind) -> Error {
        Error { routine, kind }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::NotInitialized => write!(f, "called before shmem_init"),
            ErrorKind::Finalized => write!(f, "called after shmem_finalize"),
            ErrorKind::PeOutOfRange { arg, name, pe, npes } => {
                // An array of PE numbers (`target_pes`) holds the bad one.
                let is = if name.ends_with("_pes") { "holds PE" } else { "is" };
                write!(
                    f,
                    "argument #{arg} '{name}' {is} {pe}, outside [0, {}]",
                    *npes as i64 - 1
                )
            }
            ErrorKind::NotSymmetric { arg, name, addr, len } => write!(
                f,
                "argument #{arg} '{name}' = {addr:#x} is not symmetric (neither in the symmetric heap nor in the program's global data){}",
                if *len > 1 {
                    format!(" for the {len} bytes accessed")
                } else {
                    String::new()
                }
            ),
            ErrorKind::NotHeapAllocation { arg, name, addr } => {
                write!(
                    f,
                    "argument #{arg} '{name}' = {addr:#x} is not an allocation of the symmetric heap"
                )
            }
            ErrorKind::InvalidArgument { arg, name, value, why } => {
                write!(f, "argument #{arg} '{name}' is {value}: {why}")
            }
            ErrorKind::InvalidContext { arg, addr: 0 } => {
                write!(f, "argument #{arg} 'ctx' is SHMEM_CTX_INVALID, not a context")
            }
            ErrorKind::InvalidContext { arg, addr } => write!(
                f,
                "argument #{arg} 'ctx' = {addr:#x} is not a valid context (destroyed, or never created)"
            ),
            ErrorKind::InvalidTeam { arg, raw: 0 } => {
                write!(f, "argument #{arg} 'team' is SHMEM_TEAM_INVALID, not a team")
            }
            ErrorKind::InvalidTeam { arg, raw } => write!(
                f,
                "argument #{arg} 'team' = {raw:#x} is not a valid team (destroyed, or never created)"
            ),
            ErrorKind::Usage(s) | ErrorKind::Config(s) | ErrorKind::Startup(s) => write!(f, "{s}"),
            ErrorKind::Internal(s) => write!(f, "internal error: {s} (please report this bug)"),
        }
    }
}

/// Who this process is, for messages; known from the environment even before
/// `shmem_init` (1-PE jobs have no environment).
pub fn identity() -> (usize, usize) {
    let get = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<usize>().ok());
    match (get(crate::job::ENV_PE), get(crate::job::ENV_NPES)) {
        (Some(pe), Some(n)) if pe < n => (pe, n),
        _ => (0, 1),
    }
}

/// Formats the one-line report for `e`.
pub fn message(e: &Error) -> String {
    let (pe, npes) = identity();
    format!("rshmem: {} (PE {} of {}): {}", e.routine, pe, npes, e.kind)
}

/// Prints a debugging message when `SHMEM_DEBUG` is set.
pub fn debug(routine: &str, text: fmt::Arguments<'_>) {
    if crate::runtime::debug_enabled() {
        let (pe, npes) = identity();
        let _ = writeln!(std::io::stderr(), "rshmem debug: {routine} (PE {pe} of {npes}): {text}");
    }
}

/// Prints `rshmem: warning: <routine> (PE <me> of <npes>): <text>` on
/// standard error, the first time this PE warns for `routine` only: a program
/// that repeats a tolerated mistake in a loop gets one line per routine, which
/// keeps the mistake visible without flooding the output.
pub fn warn_once(routine: &'static str, text: impl FnOnce() -> String) {
    static WARNED: std::sync::Mutex<Vec<&'static str>> = std::sync::Mutex::new(Vec::new());
    {
        let mut warned = WARNED.lock().unwrap_or_else(|e| e.into_inner());
        if warned.contains(&routine) {
            return;
        }
        warned.push(routine);
    }
    let (pe, npes) = identity();
    let _ = writeln!(
        std::io::stderr(),
        "rshmem: warning: {routine} (PE {pe} of {npes}): {}",
        text()
    );
}

/// Reports `e` and ends this PE (and through `oshrun`, the job). Never returns.
pub fn fatal(e: &Error) -> ! {
    let line = message(e);
    {
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "{line}");
        let _ = err.flush();
    }
    crate::runtime::abort_job(1)
}
