//! `oshrun`'s watch for a hang (and a node's, in a job across nodes): the
//! timeout, `SHMEM_HANG_TIMEOUT`, and the rule that the job stands still
//! (every live PE blocked or stopped, the picture unchanged for the timeout;
//! argued in [`super`]).

use super::table::{Doing, JobView, all_still};
use std::time::{Duration, Instant};

/// Why `SHMEM_HANG_TIMEOUT` is 30 s unless set (the default of `config`'s row).
///
/// A report needs every PE blocked in the library with nothing changing. A
/// correct program is there only while a peer is about to be scheduled
/// (milliseconds, even with many PEs per core), so a short timeout would
/// already be sound; 30 s keeps a loaded or swapping machine, a debugger
/// stopped at a breakpoint (the stopped PE is named after
/// `--stopped-grace`) and a slow file system from producing a report, while a
/// user staring at a silent terminal still learns why within half a minute.
pub(crate) const DEFAULT_TIMEOUT: &str = "30";
/// The variable, read by `oshrun` (its own environment or `-x`) and by the
/// library (a node's first PE in a job across nodes).
pub(crate) const ENV_TIMEOUT: &str = "SHMEM_HANG_TIMEOUT";

/// The hang timeout: `-x SHMEM_HANG_TIMEOUT=...` if given, else oshrun's
/// environment, else [`DEFAULT_TIMEOUT`]; None when 0 (off).
pub(crate) fn timeout(env: &[(std::ffi::OsString, std::ffi::OsString)]) -> Result<Option<(Duration, String)>, String> {
    let text = env
        .iter()
        .rev()
        .find(|(k, _)| k == ENV_TIMEOUT)
        .map(|(_, v)| v.to_string_lossy().into_owned())
        .or_else(|| std::env::var(ENV_TIMEOUT).ok())
        .unwrap_or_else(|| DEFAULT_TIMEOUT.into());
    match crate::config::parse_seconds(&text) {
        Ok(0.0) => Ok(None),
        Ok(s) if s < 1e9 => Ok(Some((Duration::from_secs_f64(s), text))),
        _ => Err(format!(
            "environment variable {ENV_TIMEOUT}={text:?} is invalid: use a number of seconds (0 disables the hang report)"
        )),
    }
}

/// Watches a job's pictures for a hang: [`look`](Self::look) says when one
/// has stood still for the timeout.
pub(crate) struct Watch {
    pub timeout: Duration,
    /// The picture without times: who is where, and their counts.
    last: Option<Vec<Key>>,
    since: Instant,
    reported: bool,
}

/// One PE's part of a picture: sequence, kind, progress, doing, barrier arrival.
type Key = (u32, u32, u64, Doing, u32);

/// How often a watched job is looked at.
pub(crate) const LOOK_EVERY: Duration = Duration::from_millis(200);

impl Watch {
    pub(crate) fn new(timeout: Duration) -> Watch {
        Watch {
            timeout,
            last: None,
            since: Instant::now(),
            reported: false,
        }
    }

    /// Looks at a new picture; true when it is time to report it (once per
    /// hang: the job must move and stop again for another report).
    pub(crate) fn look(&mut self, v: &JobView, now: Instant) -> bool {
        // A thread's place that changes is a PE moving, too.
        let key: Vec<_> = v
            .pes
            .iter()
            .map(|p| (p.seq, p.kind, p.progress, p.doing(), p.barrier_arrived))
            .chain(
                v.threads
                    .iter()
                    .map(|t| (t.view.seq, t.view.kind, t.view.progress, t.view.doing(), t.index as u32)),
            )
            .chain(std::iter::once((v.barrier_gen, v.finalize_gen, 0, Doing::Exited, 0)))
            .collect();
        let still = all_still(v) && v.pes.iter().all(|p| p.seq.is_multiple_of(2));
        if !still || self.last.as_ref() != Some(&key) {
            self.last = still.then_some(key);
            self.since = now;
            self.reported = false;
            return false;
        }
        if !self.reported && now.duration_since(self.since) >= self.timeout {
            self.reported = true;
            return true;
        }
        false
    }
}
