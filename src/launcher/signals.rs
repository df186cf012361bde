//! Signals as events of the supervision loop (the self-pipe trick).
//!
//! The handlers only record the signal in a bit mask and write one byte to a
//! non-blocking pipe; the loop polls the pipe's read end along with the PEs'
//! output pipes, so a signal wakes it without races and nothing non-trivial runs
//! in a handler. The writer threads use the same pipe to wake the loop.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicI32, AtomicU64, Ordering};

/// Signals that end the job when sent to `oshrun`.
pub(crate) const ENDING: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];
/// Every signal caught: SIGCHLD, the ending ones, and SIGQUIT (print where
/// every PE is: `stuck::report`).
const CAUGHT: [libc::c_int; 5] = [libc::SIGCHLD, libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT];

/// Write end of the self-pipe, for the handlers (-1 when none).
static WAKE_FD: AtomicI32 = AtomicI32::new(-1);
/// One bit per signal received since the loop last looked.
static PENDING: AtomicU64 = AtomicU64::new(0);

extern "C" fn on_signal(sig: libc::c_int) {
    // SAFETY: __errno_location returns this thread's errno; saving and restoring
    // it keeps the interrupted code's view of errno intact.
    let saved = unsafe { *libc::__errno_location() };
    PENDING.fetch_or(1 << (sig as u64 & 63), Ordering::SeqCst);
    wake_fd(WAKE_FD.load(Ordering::SeqCst));
    // SAFETY: as above.
    unsafe { *libc::__errno_location() = saved };
}

/// Writes one byte to a wake pipe. Async-signal-safe; a full pipe already
/// means a wake-up is pending, so errors are ignored.
pub(crate) fn wake_fd(fd: RawFd) {
    if fd >= 0 {
        // SAFETY: writes one byte from a valid buffer to a descriptor we own.
        unsafe { libc::write(fd, b"!".as_ptr().cast(), 1) };
    }
}

/// The self-pipe. While it exists, SIGCHLD and the [`ENDING`] signals are caught.
pub(crate) struct SelfPipe {
    read: OwnedFd,
    write: OwnedFd,
}

impl SelfPipe {
    /// Creates the pipe and installs the handlers.
    pub(crate) fn install() -> io::Result<SelfPipe> {
        let mut fds = [0; 2];
        // SAFETY: fds has room for the two descriptors pipe2 writes.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC | libc::O_NONBLOCK) } != 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: pipe2 succeeded, so both descriptors are new and ours.
        let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        WAKE_FD.store(write.as_raw_fd(), Ordering::SeqCst);
        // Writing to a closed stdout must fail with EPIPE (see `sink`), not kill
        // oshrun. Rust programs start so; make sure. The PEs get the default
        // back: std resets SIGPIPE in the child before exec.
        // SAFETY: sets a standard disposition.
        unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
        for sig in CAUGHT {
            // SIGQUIT asks for a report: caught even where a shell started
            // oshrun in the background with it ignored.
            if sig != libc::SIGCHLD && sig != libc::SIGQUIT && ignored(sig) {
                // Started under `nohup`, or in the background of a script: keep
                // ignoring it, as the PEs will (they inherit the disposition).
                continue;
            }
            // SAFETY: an all-zero sigaction is a valid starting point; the fields
            // are then set to a handler that is async-signal-safe (see on_signal).
            let rc = unsafe {
                let mut sa: libc::sigaction = std::mem::zeroed();
                sa.sa_sigaction = on_signal as *const () as libc::sighandler_t;
                // SIGCHLD also for PEs that stop and continue (no
                // SA_NOCLDSTOP): a stopped PE is reported (see `supervise`).
                sa.sa_flags = libc::SA_RESTART;
                libc::sigemptyset(&mut sa.sa_mask);
                libc::sigaction(sig, &sa, std::ptr::null_mut())
            };
            if rc != 0 {
                return Err(io::Error::last_os_error());
            }
        }
        // A parent may have left them blocked; the PEs get an empty mask from
        // std's spawn anyway.
        sigmask(libc::SIG_UNBLOCK);
        Ok(SelfPipe { read, write })
    }

    pub(crate) fn read_fd(&self) -> RawFd {
        self.read.as_raw_fd()
    }

    pub(crate) fn write_fd(&self) -> RawFd {
        self.write.as_raw_fd()
    }

    /// Empties the pipe and returns the signals received since the last call
    /// (bit `1 << signo`).
    pub(crate) fn take(&self) -> u64 {
        let mut buf = [0u8; 256];
        // SAFETY: reads into a local buffer of the given length; the fd is
        // non-blocking, so the loop ends at EAGAIN.
        while unsafe { libc::read(self.read.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) } > 0 {}
        PENDING.swap(0, Ordering::SeqCst)
    }
}

impl Drop for SelfPipe {
    fn drop(&mut self) {
        // The handlers stay installed (oshrun is about to exit); make them stop
        // writing to a descriptor number that may be reused.
        WAKE_FD.store(-1, Ordering::SeqCst);
    }
}

/// Blocks the signals the handlers catch in the calling thread, so that they
/// are delivered to the main thread (whose system calls expect EINTR) and not
/// to a writer thread.
pub(crate) fn block_in_this_thread() {
    sigmask(libc::SIG_BLOCK);
}

/// Blocks or unblocks the caught signals in the calling thread.
fn sigmask(how: libc::c_int) {
    // SAFETY: builds a signal set on the stack and changes only this thread's mask.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for sig in CAUGHT {
            libc::sigaddset(&mut set, sig);
        }
        libc::pthread_sigmask(how, &set, std::ptr::null_mut());
    }
}

/// True when `sig` is currently ignored.
fn ignored(sig: libc::c_int) -> bool {
    // SAFETY: queries the disposition into a zeroed, valid sigaction.
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        libc::sigaction(sig, std::ptr::null(), &mut old) == 0 && old.sa_sigaction == libc::SIG_IGN
    }
}

/// True when one of the [`ENDING`] signals arrived and was not taken yet.
pub(crate) fn ending_pending() -> bool {
    let mask = PENDING.load(Ordering::SeqCst);
    ENDING.iter().any(|&s| has(mask, s))
}

/// True when signal `sig` is in a mask returned by [`SelfPipe::take`].
pub(crate) fn has(mask: u64, sig: libc::c_int) -> bool {
    mask & (1 << (sig as u64 & 63)) != 0
}
