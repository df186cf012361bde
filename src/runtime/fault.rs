//! Faults inside a transfer: a SIGSEGV or SIGBUS raised while the library
//! copies between a caller's buffer and symmetric memory becomes one line
//! naming the routine, the PE and the address, and the PE ends as after any
//! fatal error (status 1; `oshrun` ends the job).
//!
//! A transfer announces its copy with [`during`]: a thread-local record of
//! the routine and the two byte ranges it touches. Only the bulk path sets
//! it (transfers longer than `World::fast_max`), so the short transfers that
//! are the hot paths store nothing. The handler, installed at the first
//! `shmem_init` and chained to the one it replaces, claims a fault only when
//! the faulting thread holds such a record and the faulting address lies in
//! one of its ranges; any other fault (or a SIGSEGV sent with `kill`) goes to
//! the previous handler, or gets the default action (a core dump), as if
//! rshmem had installed nothing.
//!
//! The handler is async-signal-safe: it reads the record, formats the line
//! into a buffer on its stack, writes it with write(2), marks the PE failed
//! (an atomic store) and leaves with _exit(2). It never allocates or locks.

use crate::error::params;
use crate::heap::SymOffset;
use crate::transport::Transport;
use std::cell::Cell;
use std::sync::OnceLock;
use std::sync::atomic::{Ordering, compiler_fence};

/// What a transfer routine is copying, for the report of a fault inside it:
/// small, since the bulk path writes it before every copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Transfer {
    pub routine: &'static str,
    /// The argument that sets the length and its value (`nelems`, 512).
    pub count: (&'static str, usize),
    /// The caller's own buffer (`source` of a put, `dest` of a get): its
    /// address and length.
    pub local: (usize, usize),
    /// The target's symmetric range: its offset in a segment and length (the
    /// handler finds where this process maps it, if it does).
    pub remote: (SymOffset, usize),
    pub pe: usize,
    /// A put (reads the local range, writes the remote one) or a get.
    pub put: bool,
}

impl Transfer {
    /// The argument names of the local and the remote side.
    fn names(&self) -> (&'static str, &'static str) {
        if self.put {
            ("source", "dest")
        } else {
            ("dest", "source")
        }
    }
}

thread_local! {
    /// The transfer this thread is copying for, if it announced one: the
    /// record lives in the frame of [`during`], which outlives the copy.
    static CURRENT: Cell<*const Transfer> = const { Cell::new(std::ptr::null()) };
}

/// Runs `copy` (the copy of transfer `t`) with `t` recorded for the fault
/// handler: one thread-local address, one store before and one after.
#[inline]
pub(crate) fn during<R>(t: &Transfer, copy: impl FnOnce() -> R) -> R {
    let current = CURRENT.with(|c| c as *const Cell<*const Transfer>);
    // SAFETY: this thread's own cell, which has no destructor and lives as
    // long as the thread.
    let current = unsafe { &*current };
    current.set(t);
    // The record must be in place before the first access of the copy and
    // stay until the last (a signal fence: the handler runs on this thread).
    compiler_fence(Ordering::SeqCst);
    let r = copy();
    compiler_fence(Ordering::SeqCst);
    current.set(std::ptr::null());
    r
}

/// The signals handled, and the dispositions they had before.
const SIGNALS: [libc::c_int; 2] = [libc::SIGSEGV, libc::SIGBUS];
static PREVIOUS: [OnceLock<libc::sigaction>; 2] = [OnceLock::new(), OnceLock::new()];

/// Installs the handler for SIGSEGV and SIGBUS, once per process (later
/// `shmem_init`s keep it). A program that installs its own handler after
/// `shmem_init` replaces it: its handler then sees every fault.
pub(crate) fn install() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        for (i, &sig) in SIGNALS.iter().enumerate() {
            // SAFETY: all-zero sigactions are valid values for sigaction to
            // read or overwrite; the handler has the SA_SIGINFO signature and
            // lives as long as the process. The previous disposition is saved
            // before ours is installed, so the handler always finds it.
            unsafe {
                let mut old: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(sig, std::ptr::null(), &mut old) != 0 {
                    continue;
                }
                let _ = PREVIOUS[i].set(old);
                let mut new: libc::sigaction = std::mem::zeroed();
                new.sa_sigaction = on_fault as *const () as libc::sighandler_t;
                new.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
                libc::sigemptyset(&mut new.sa_mask);
                libc::sigaction(sig, &new, std::ptr::null_mut());
            }
        }
    });
}

extern "C" fn on_fault(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo to an SA_SIGINFO handler.
    let (code, addr) = unsafe { ((*info).si_code, (*info).si_addr() as usize) };
    let t = CURRENT.try_with(Cell::get).unwrap_or(std::ptr::null());
    // SAFETY: a non-null record is the one `during` set on this thread, in
    // a frame that lives until it clears it; the fault interrupted its copy.
    let t = unsafe { t.as_ref() };
    // si_code > 0: raised by the kernel for an access (not sent by kill).
    if code > 0
        && let Some(t) = t
    {
        let mut line = Line::new();
        let (me, npes) = crate::error::identity_known();
        // Where this process maps the target's range (address arithmetic).
        let remote = super::try_get().and_then(|rt| rt.transport.local_ptr(t.pe, t.remote.0));
        let remote = remote.map(|p| p.as_ptr() as usize);
        if describe(&mut line, sig, t, remote, addr, me, npes) {
            // SAFETY: writes the formatted bytes of a live stack buffer.
            unsafe { libc::write(2, line.buf.as_ptr().cast(), line.len) };
            super::abort_from_signal(1)
        }
    }
    // SAFETY: called from the handler with the kernel's arguments.
    unsafe { forward(sig, code, info, ctx) }
}

/// Hands a fault that is not a transfer's to the disposition that was there
/// before rshmem's: its handler is called (with its mask and flags), the
/// default action is restored (the faulting instruction runs again and
/// faults into it; a signal sent with `kill` is raised again), an ignored
/// one stays ignored.
///
/// # Safety
/// Only from the signal handler, with the arguments it received.
unsafe fn forward(sig: libc::c_int, code: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    let i = SIGNALS.iter().position(|&s| s == sig).unwrap_or(0);
    // SAFETY: all-zero is SIG_DFL with an empty mask and no flags.
    let dfl: libc::sigaction = unsafe { std::mem::zeroed() };
    let old = PREVIOUS[i].get().unwrap_or(&dfl);
    let handler = old.sa_sigaction;
    // SAFETY: sigaction, pthread_sigmask and raise are async-signal-safe;
    // `handler` is the function the program installed, called with the
    // signature its flags declare.
    unsafe {
        if handler == libc::SIG_IGN && code <= 0 {
            return;
        }
        if handler == libc::SIG_DFL || handler == libc::SIG_IGN {
            // A fault cannot be ignored: the kernel kills on the next one.
            libc::sigaction(sig, old, std::ptr::null_mut());
            if code <= 0 {
                libc::raise(sig);
            }
            return;
        }
        if old.sa_flags & libc::SA_RESETHAND != 0 {
            libc::sigaction(sig, &dfl, std::ptr::null_mut());
        }
        let mut mask: libc::sigset_t = std::mem::zeroed();
        libc::pthread_sigmask(libc::SIG_BLOCK, &old.sa_mask, &mut mask);
        if old.sa_flags & libc::SA_SIGINFO != 0 {
            let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) = std::mem::transmute(handler);
            f(sig, info, ctx);
        } else {
            let f: extern "C" fn(libc::c_int) = std::mem::transmute(handler);
            f(sig);
        }
        libc::pthread_sigmask(libc::SIG_SETMASK, &mask, std::ptr::null_mut());
    }
}

/// Writes the report of a fault at `addr` inside `t` (without allocating),
/// whose remote range this process maps at `remote`, if it does; false if
/// `addr` is in neither of its ranges.
fn describe(
    l: &mut Line,
    sig: libc::c_int,
    t: &Transfer,
    remote: Option<usize>,
    addr: usize,
    me: usize,
    npes: usize,
) -> bool {
    let within = |start: usize, len: usize| addr.checked_sub(start).filter(|&k| k < len);
    let (local_name, remote_name) = t.names();
    let in_remote = remote.and_then(|r| within(r, t.remote.1));
    let (name, len, k, local) = match (within(t.local.0, t.local.1), in_remote) {
        (Some(k), _) => (local_name, t.local.1, k, true),
        (None, Some(k)) => (remote_name, t.remote.1, k, false),
        (None, None) => return false,
    };
    // A put reads its local range and writes the remote one; a get the reverse.
    let reading = local == t.put;
    l.push("rshmem: ");
    l.push(t.routine);
    l.push(" (PE ");
    l.dec(me);
    l.push(" of ");
    l.dec(npes);
    l.push(if reading {
        "): fault reading "
    } else {
        "): fault writing "
    });
    l.hex(addr);
    l.push(" (");
    l.push(name);
    l.push(" + ");
    l.dec(k);
    l.push(" bytes of ");
    l.dec(len);
    if !local {
        l.push(" on PE ");
        l.dec(t.pe);
    }
    l.push(if sig == libc::SIGBUS {
        ", SIGBUS): "
    } else {
        ", SIGSEGV): "
    });
    if local {
        l.label(t.routine, name);
        l.push(" is shorter than ");
        l.label(t.routine, t.count.0);
        l.push(" = ");
        l.dec(t.count.1);
        l.push(" says, or not ");
        l.push(if reading { "readable" } else { "writable" });
    } else {
        l.push("the symmetric memory of PE ");
        l.dec(t.pe);
        l.push(" could not be accessed (is the machine out of memory for the job's shared memory?)");
    }
    l.push("\n");
    true
}

/// A line formatted in place, cut short if it does not fit.
struct Line {
    buf: [u8; 512],
    len: usize,
}

impl Line {
    fn new() -> Line {
        Line { buf: [0; 512], len: 0 }
    }

    fn push(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }

    fn bytes(&mut self, b: &[u8]) {
        let n = b.len().min(self.buf.len() - self.len);
        self.buf[self.len..self.len + n].copy_from_slice(&b[..n]);
        self.len += n;
    }

    fn dec(&mut self, n: usize) {
        self.radix(n, 10);
    }

    fn hex(&mut self, n: usize) {
        self.push("0x");
        self.radix(n, 16);
    }

    fn radix(&mut self, mut n: usize, radix: usize) {
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b"0123456789abcdef"[n % radix];
            n /= radix;
            if n == 0 {
                break;
            }
        }
        self.bytes(&digits[i..]);
    }

    /// `argument #N 'name'`, as `params::label` writes it.
    fn label(&mut self, routine: &str, name: &str) {
        self.push("argument ");
        if let Some(n) = params::position(routine, name) {
            self.push("#");
            self.dec(n);
            self.push(" ");
        }
        self.push("'");
        self.push(name);
        self.push("'");
    }

    #[cfg(test)]
    fn text(&self) -> &str {
        std::str::from_utf8(&self.buf[..self.len]).unwrap_or("")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn putmem() -> Transfer {
        Transfer {
            routine: "shmem_putmem",
            count: ("nelems", 1 << 20),
            local: (0x7000, 1 << 20),
            remote: (SymOffset(0x1000), 1 << 20),
            pe: 1,
            put: true,
        }
    }

    /// The remote range is mapped at 0x40_0000 in these tests.
    fn line(sig: libc::c_int, t: &Transfer, addr: usize) -> Option<String> {
        let mut l = Line::new();
        describe(&mut l, sig, t, Some(0x40_0000), addr, 0, 2).then(|| l.text().to_string())
    }

    #[test]
    fn a_fault_in_the_local_buffer_names_routine_pe_address_and_argument() {
        assert_eq!(
            line(libc::SIGSEGV, &putmem(), 0x7200).unwrap(),
            "rshmem: shmem_putmem (PE 0 of 2): fault reading 0x7200 (source + 512 bytes of 1048576, SIGSEGV): \
             argument #2 'source' is shorter than argument #3 'nelems' = 1048576 says, or not readable\n"
        );
        let get = Transfer {
            routine: "shmem_ctx_long_get",
            count: ("nelems", 131072),
            put: false,
            ..putmem()
        };
        let got = line(libc::SIGSEGV, &get, 0x7000).unwrap();
        assert!(got.starts_with("rshmem: shmem_ctx_long_get (PE 0 of 2): fault writing 0x7000 (dest + 0 bytes"));
        assert!(got.contains("argument #2 'dest' is shorter than argument #4 'nelems' = 131072 says, or not writable"));
    }

    #[test]
    fn a_fault_in_symmetric_memory_names_the_pe_and_other_addresses_are_not_ours() {
        let got = line(libc::SIGBUS, &putmem(), 0x40_0010).unwrap();
        assert!(
            got.contains(
                "fault writing 0x400010 (dest + 16 bytes of 1048576 on PE 1, SIGBUS): the symmetric memory of PE 1"
            ),
            "{got}"
        );
        assert_eq!(line(libc::SIGSEGV, &putmem(), 0x6fff), None);
        assert_eq!(line(libc::SIGSEGV, &putmem(), 0x7000 + (1 << 20)), None);
        assert_eq!(line(libc::SIGSEGV, &putmem(), 0), None);
        let mut l = Line::new();
        assert!(
            !describe(&mut l, libc::SIGBUS, &putmem(), None, 0x40_0010, 0, 2),
            "a remote range this process does not map is not ours"
        );
    }

    #[test]
    fn the_line_is_cut_rather_than_overflowing() {
        let mut l = Line::new();
        for _ in 0..100 {
            l.push("0123456789");
        }
        assert_eq!(l.len, 512);
        let mut l = Line::new();
        l.dec(0);
        l.push(" ");
        l.dec(usize::MAX);
        l.push(" ");
        l.hex(usize::MAX);
        assert_eq!(l.text(), "0 18446744073709551615 0xffffffffffffffff");
    }
}
