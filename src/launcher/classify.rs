//! What the end of one PE means for the job: a pure function of the state the PE
//! left in its control slot and of how the process ended.

use crate::job::PeState;

/// How a reaped process ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WaitStatus {
    Exited(i32),
    Signaled(i32),
}

impl WaitStatus {
    /// Decodes the `waitpid` status of a process that ended (stop and
    /// continue reports are told apart before).
    pub(crate) fn from_raw(st: libc::c_int) -> WaitStatus {
        if libc::WIFSIGNALED(st) {
            WaitStatus::Signaled(libc::WTERMSIG(st))
        } else {
            WaitStatus::Exited(libc::WEXITSTATUS(st))
        }
    }

    /// The status a shell would report: the exit code, or 128 + signal.
    pub(crate) fn shell_status(self) -> i32 {
        match self {
            WaitStatus::Exited(c) => c,
            WaitStatus::Signaled(s) => 128 + s,
        }
    }
}

/// The launcher's reading of one PE's end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Nothing to report; the other PEs go on.
    Normal,
    /// Finalized, then exited with this non-zero status: it counts for the job's
    /// status, but the PE did nothing wrong as far as the job is concerned.
    FinalizedError(i32),
    /// Called `shmem_global_exit`; the status is in the PE's slot.
    GlobalExit,
    /// The job cannot go on.
    Failure(Failure),
}

/// A PE that ended abnormally.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Failure {
    /// Contribution to the job's exit status, never 0: a PE that exited with 0
    /// without finalizing still broke the job.
    pub status: i32,
    pub state: PeState,
    pub wait: WaitStatus,
}

/// Classifies the end of a PE that the launcher did not terminate itself.
pub(crate) fn classify(state: PeState, wait: WaitStatus) -> Verdict {
    use PeState::*;
    use WaitStatus::*;
    match (state, wait) {
        (GlobalExit, _) => Verdict::GlobalExit,
        (Absent | Finalized, Exited(0)) => Verdict::Normal,
        (Finalized, Exited(c)) => Verdict::FinalizedError(c),
        (_, w) => Verdict::Failure(Failure {
            status: w.shell_status().max(1),
            state,
            wait: w,
        }),
    }
}

impl Failure {
    /// The report line, without the `oshrun: ` prefix or an ending.
    pub(crate) fn describe(&self, pe: usize, pid: i32) -> String {
        let when = match self.state {
            PeState::Finalized => "after shmem_finalize",
            PeState::Failed => "after a fatal error",
            _ => "before shmem_finalize",
        };
        match self.wait {
            WaitStatus::Signaled(s) => {
                format!(
                    "PE {pe} (pid {pid}) was killed by signal {s} ({}) {when}",
                    signal_name(s)
                )
            }
            WaitStatus::Exited(0) if self.state != PeState::Failed => {
                format!("PE {pe} (pid {pid}) exited with status 0 without calling shmem_finalize")
            }
            WaitStatus::Exited(c) => format!("PE {pe} (pid {pid}) exited with status {c} {when}"),
        }
    }
}

/// `SIGSEGV` for 11, and so on.
pub(crate) fn signal_name(sig: i32) -> String {
    let name = match sig {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGTRAP => "SIGTRAP",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGUSR1 => "SIGUSR1",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGUSR2 => "SIGUSR2",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGALRM => "SIGALRM",
        libc::SIGTERM => "SIGTERM",
        libc::SIGSTKFLT => "SIGSTKFLT",
        libc::SIGCHLD => "SIGCHLD",
        libc::SIGCONT => "SIGCONT",
        libc::SIGSTOP => "SIGSTOP",
        libc::SIGTSTP => "SIGTSTP",
        libc::SIGTTIN => "SIGTTIN",
        libc::SIGTTOU => "SIGTTOU",
        libc::SIGURG => "SIGURG",
        libc::SIGXCPU => "SIGXCPU",
        libc::SIGXFSZ => "SIGXFSZ",
        libc::SIGVTALRM => "SIGVTALRM",
        libc::SIGPROF => "SIGPROF",
        libc::SIGWINCH => "SIGWINCH",
        libc::SIGIO => "SIGIO",
        libc::SIGPWR => "SIGPWR",
        libc::SIGSYS => "SIGSYS",
        s if s >= libc::SIGRTMIN() && s <= libc::SIGRTMAX() => {
            return format!("SIGRTMIN+{}", s - libc::SIGRTMIN());
        }
        _ => "unknown signal",
    };
    name.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use PeState::*;
    use WaitStatus::*;

    fn fail(state: PeState, wait: WaitStatus) -> Failure {
        match classify(state, wait) {
            Verdict::Failure(f) => f,
            v => panic!("{state:?} {wait:?} gave {v:?}"),
        }
    }

    #[test]
    fn normal_ends() {
        assert_eq!(classify(Absent, Exited(0)), Verdict::Normal);
        assert_eq!(classify(Finalized, Exited(0)), Verdict::Normal);
    }

    #[test]
    fn status_after_finalize_is_kept_but_harmless() {
        assert_eq!(classify(Finalized, Exited(3)), Verdict::FinalizedError(3));
        assert_eq!(classify(Finalized, Exited(255)), Verdict::FinalizedError(255));
    }

    #[test]
    fn global_exit_wins_over_the_process_status() {
        for w in [Exited(0), Exited(7), Signaled(9)] {
            assert_eq!(classify(GlobalExit, w), Verdict::GlobalExit);
        }
    }

    #[test]
    fn failures() {
        for state in [Absent, Arrived, Running, Finalized, Failed] {
            let f = fail(state, Signaled(libc::SIGSEGV));
            assert_eq!(f.status, 128 + libc::SIGSEGV);
        }
        for state in [Absent, Arrived, Running, Failed] {
            assert_eq!(fail(state, Exited(3)).status, 3);
        }
        // Exit 0 without finalize (or after a fatal error) still fails the job.
        for state in [Arrived, Running, Failed] {
            assert_eq!(fail(state, Exited(0)).status, 1);
        }
    }

    #[test]
    fn descriptions() {
        let d = |s, w| fail(s, w).describe(2, 1234);
        assert_eq!(
            d(Running, Signaled(libc::SIGSEGV)),
            "PE 2 (pid 1234) was killed by signal 11 (SIGSEGV) before shmem_finalize"
        );
        assert_eq!(
            d(Absent, Exited(3)),
            "PE 2 (pid 1234) exited with status 3 before shmem_finalize"
        );
        assert_eq!(
            d(Running, Exited(0)),
            "PE 2 (pid 1234) exited with status 0 without calling shmem_finalize"
        );
        assert_eq!(
            d(Failed, Exited(1)),
            "PE 2 (pid 1234) exited with status 1 after a fatal error"
        );
        assert_eq!(
            d(Failed, Exited(0)),
            "PE 2 (pid 1234) exited with status 0 after a fatal error"
        );
        assert_eq!(
            d(Finalized, Signaled(libc::SIGABRT)),
            "PE 2 (pid 1234) was killed by signal 6 (SIGABRT) after shmem_finalize"
        );
    }

    #[test]
    fn raw_statuses() {
        // Encodings of the Linux wait status word.
        assert_eq!(WaitStatus::from_raw(3 << 8), Exited(3));
        assert_eq!(WaitStatus::from_raw(0), Exited(0));
        assert_eq!(WaitStatus::from_raw(libc::SIGKILL), Signaled(9));
        assert_eq!(WaitStatus::from_raw(libc::SIGSEGV | 0x80), Signaled(11), "core dumped");
        assert_eq!(Signaled(15).shell_status(), 143);
    }

    #[test]
    fn names() {
        assert_eq!(signal_name(libc::SIGSEGV), "SIGSEGV");
        assert_eq!(signal_name(libc::SIGRTMIN() + 2), "SIGRTMIN+2");
        assert_eq!(signal_name(0), "unknown signal");
    }
}
