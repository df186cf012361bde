//! Writing forwarded output to oshrun's stdout or stderr.
//!
//! Each of the two descriptors gets a writer thread fed through a queue. A slow
//! or stopped reader of oshrun's output (a pager, a full pipe, a terminal on
//! hold) then blocks only that thread: the supervision loop keeps reaping PEs,
//! handling signals and timeouts. Making the descriptors non-blocking instead
//! would change them for every process sharing them (the user's terminal).
//!
//! The queue is bounded by back-pressure: above [`HIGH_WATER`] queued bytes the
//! loop stops reading the PEs' pipes of that stream (so the PEs block in
//! `write`, as they would on a terminal), and the writer wakes the loop once the
//! queue is below [`LOW_WATER`].

use super::signals;
use std::os::fd::RawFd;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Instant;

/// Queued bytes above which the PEs' pipes of a stream are no longer read.
pub(crate) const HIGH_WATER: usize = 1 << 20;
/// Queued bytes below which reading resumes.
pub(crate) const LOW_WATER: usize = 256 << 10;

/// A queue of output drained by a writer thread.
pub(crate) struct Sink {
    fd: RawFd,
    wake_fd: RawFd,
    state: Mutex<State>,
    cond: Condvar,
}

#[derive(Default)]
struct State {
    queued: Vec<u8>,
    /// Bytes taken by the writer and not yet written.
    writing: usize,
    /// No more input will come.
    closed: bool,
    /// The descriptor failed (a closed pipe): output is dropped from now on.
    broken: bool,
    /// The writer has stopped.
    done: bool,
    /// The loop paused reading and waits for a wake-up.
    loop_waits: bool,
}

impl Sink {
    /// Starts the writer for `fd`; it wakes the loop through `wake_fd`.
    pub(crate) fn start(fd: RawFd, wake_fd: RawFd) -> std::io::Result<(Arc<Sink>, JoinHandle<()>)> {
        let sink = Arc::new(Sink {
            fd,
            wake_fd,
            state: Mutex::default(),
            cond: Condvar::new(),
        });
        let s = Arc::clone(&sink);
        let handle = std::thread::Builder::new()
            .name(format!("oshrun-fd{fd}"))
            .spawn(move || s.write_loop())?;
        Ok((sink, handle))
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // No code panics while holding the lock; recover the data regardless.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Appends whatever `fill` writes to the queue (whole lines, so that the
    /// lines of different PEs stay whole).
    pub(crate) fn push_with(&self, fill: impl FnOnce(&mut Vec<u8>)) {
        let mut st = self.lock();
        if st.broken || st.closed {
            // Still let `fill` update its stream's state; the bytes are dropped.
            let mut scratch = Vec::new();
            fill(&mut scratch);
            return;
        }
        let before = st.queued.len();
        fill(&mut st.queued);
        if st.queued.len() != before {
            self.cond.notify_one();
        }
    }

    pub(crate) fn push(&self, bytes: &[u8]) {
        self.push_with(|q| q.extend_from_slice(bytes));
    }

    /// True when the loop should stop reading this stream's pipes; it is then
    /// woken when the queue has drained.
    pub(crate) fn over_high_water(&self) -> bool {
        let mut st = self.lock();
        let full = !st.broken && st.queued.len() + st.writing >= HIGH_WATER;
        st.loop_waits |= full;
        full
    }

    pub(crate) fn is_broken(&self) -> bool {
        self.lock().broken
    }

    /// Declares the end of the input; the writer stops when the queue is empty.
    pub(crate) fn close(&self) {
        self.lock().closed = true;
        self.cond.notify_all();
    }

    /// Waits until the writer has written everything, or until `deadline`.
    /// Returns false if it gave up.
    pub(crate) fn wait_done(&self, deadline: Option<Instant>) -> bool {
        let mut st = self.lock();
        while !st.done {
            st = match deadline {
                None => self.cond.wait(st).unwrap_or_else(|e| e.into_inner()),
                Some(d) => {
                    let Some(left) = d.checked_duration_since(Instant::now()).filter(|l| !l.is_zero()) else {
                        return false;
                    };
                    self.cond.wait_timeout(st, left).unwrap_or_else(|e| e.into_inner()).0
                }
            };
        }
        true
    }

    fn write_loop(&self) {
        signals::block_in_this_thread();
        let mut chunk = Vec::new();
        loop {
            {
                let mut st = self.lock();
                while st.queued.is_empty() && !st.closed {
                    st = self.cond.wait(st).unwrap_or_else(|e| e.into_inner());
                }
                if st.queued.is_empty() {
                    st.done = true;
                    self.cond.notify_all();
                    return;
                }
                // Swap buffers: the loop fills an empty one while this is written.
                std::mem::swap(&mut chunk, &mut st.queued);
                st.writing = chunk.len();
            }
            let ok = write_all(self.fd, &chunk);
            chunk.clear();
            let mut st = self.lock();
            st.writing = 0;
            if !ok {
                st.broken = true;
                st.queued = Vec::new();
            }
            if st.loop_waits && (st.broken || st.queued.len() < LOW_WATER) {
                st.loop_waits = false;
                signals::wake_fd(self.wake_fd);
            }
        }
    }
}

/// Writes all of `buf` to `fd`; false on an error other than EINTR.
fn write_all(fd: RawFd, mut buf: &[u8]) -> bool {
    while !buf.is_empty() {
        // SAFETY: writes from a valid buffer of the given length.
        let n = unsafe { libc::write(fd, buf.as_ptr().cast(), buf.len()) };
        if n >= 0 {
            buf = &buf[n as usize..];
            continue;
        }
        match std::io::Error::last_os_error().raw_os_error() {
            Some(libc::EINTR) => {}
            // Someone made our output non-blocking: wait until it takes more.
            Some(libc::EAGAIN) => {
                let mut pfd = libc::pollfd {
                    fd,
                    events: libc::POLLOUT,
                    revents: 0,
                };
                // SAFETY: one valid pollfd.
                unsafe { libc::poll(&mut pfd, 1, -1) };
            }
            _ => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

    fn pipe() -> (std::fs::File, OwnedFd) {
        let mut fds = [0; 2];
        // SAFETY: room for two descriptors.
        assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
        // SAFETY: new descriptors, owned from here on.
        unsafe { (std::fs::File::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) }
    }

    #[test]
    fn writes_everything_in_order() {
        let (mut r, w) = pipe();
        let (sink, handle) = Sink::start(w.as_raw_fd(), -1).unwrap();
        let reader = std::thread::spawn(move || {
            let mut all = Vec::new();
            r.read_to_end(&mut all).unwrap();
            all
        });
        let mut expect = Vec::new();
        for i in 0..20_000 {
            let line = format!("line {i}\n");
            expect.extend_from_slice(line.as_bytes());
            sink.push(line.as_bytes());
        }
        sink.close();
        assert!(sink.wait_done(None));
        handle.join().unwrap();
        drop(w);
        assert_eq!(reader.join().unwrap(), expect);
    }

    #[test]
    fn a_closed_reader_breaks_the_sink() {
        let (r, w) = pipe();
        drop(r);
        let (sink, handle) = Sink::start(w.as_raw_fd(), -1).unwrap();
        sink.push(b"lost\n");
        sink.close();
        assert!(sink.wait_done(None));
        handle.join().unwrap();
        assert!(sink.is_broken());
        assert!(!sink.over_high_water());
    }

    #[test]
    fn back_pressure() {
        let (r, w) = pipe();
        let (sink, handle) = Sink::start(w.as_raw_fd(), -1).unwrap();
        // Nobody reads: the pipe fills, the writer blocks, the queue grows.
        sink.push(&vec![b'x'; 2 * HIGH_WATER]);
        assert!(sink.over_high_water());
        let deadline = Instant::now() + std::time::Duration::from_millis(50);
        assert!(!sink.wait_done(Some(deadline)), "cannot finish while the reader sleeps");
        drop(r);
        sink.close();
        assert!(sink.wait_done(None));
        handle.join().unwrap();
    }
}
