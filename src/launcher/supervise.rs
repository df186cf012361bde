//! The supervision loop: forwards the PEs' output, reaps them, and ends the job
//! when one fails, calls `shmem_global_exit`, times out, or oshrun is signalled.
//! It also says when a PE has been stopped (SIGSTOP, SIGTSTP, ...) for a while:
//! the others then wait for it, with no other sign.
//!
//! One thread (the main one, which also forked the PEs) blocks in `poll` on the
//! self-pipe (signals, writer wake-ups) and on every PE's stdout and stderr
//! pipe, with a timeout only when a deadline is pending. `poll` rather than a
//! thread per pipe: 4096 PEs would need 8192 threads. Writing to oshrun's own
//! output is left to the writer threads (see `sink`), so nothing here blocks.

use super::classify::{Verdict, WaitStatus, classify};
use super::forward::{LineBuf, tag};
use super::signals::{self, SelfPipe};
use super::sink::Sink;
use super::spawn::Spawned;
use crate::job::Control;
use crate::stuck::{self, lookup::FileLayout, lookup::ProcLookup};
use std::collections::HashMap;
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// Between SIGTERM and SIGKILL when ending PEs.
const GRACE: Duration = Duration::from_millis(300);
/// After the last PE is reaped, how long output still buffered in pipes is
/// read. Dead PEs' output is already there; only a grandchild that kept the
/// pipe open could make this last.
const DRAIN_LIMIT: Duration = Duration::from_secs(1);
/// Bytes read from a pipe at once.
const READ_SIZE: usize = 64 * 1024;

/// Why the job is being ended early; decides the exit status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum End {
    /// A PE failed: the status is the first non-zero one.
    Failure,
    GlobalExit(i32),
    Signal(i32),
    Timeout,
    /// A hang was reported and `--hang-abort` given.
    Hang,
    /// oshrun itself could not go on (e.g. a PE could not be started).
    Internal,
}

/// One output pipe of a PE.
struct Stream {
    fd: OwnedFd,
    lines: LineBuf,
}

impl Stream {
    fn new(fd: OwnedFd) -> Stream {
        Stream {
            fd,
            lines: LineBuf::default(),
        }
    }
}

/// A PE seen stopped (`waitpid` with `WUNTRACED`) and not seen continued.
#[derive(Clone, Copy)]
struct Stop {
    since: Instant,
    signal: i32,
    reported: bool,
}

struct Pe {
    pid: libc::pid_t,
    alive: bool,
    stop: Option<Stop>,
    /// Ended by oshrun: its exit is not reported and does not count.
    terminated: bool,
    /// How it ended, for hang reports.
    end: Option<String>,
    /// stdout, stderr; None once at end of file (or dropped).
    streams: [Option<Stream>; 2],
    tag: Option<Vec<u8>>,
}

/// When the supervisor steps in besides a PE's end.
pub(crate) struct Limits {
    /// `--timeout`: when, and its text.
    pub timeout: Option<(Instant, String)>,
    /// How long a PE may stay stopped before it is reported, with its text.
    pub stopped_grace: (Duration, String),
    /// `SHMEM_HANG_TIMEOUT` (None: off), with its text.
    pub hang: Option<(Duration, String)>,
    /// `--hang-abort`.
    pub hang_abort: bool,
}

pub(crate) struct Supervisor<'a> {
    pes: Vec<Pe>,
    by_pid: HashMap<libc::pid_t, usize>,
    live: usize,
    control: Control,
    wake: &'a SelfPipe,
    /// oshrun's stdout and stderr.
    sinks: [Arc<Sink>; 2],
    timeout: Option<(Instant, String)>,
    /// How long a PE may stay stopped before it is reported, with its text.
    stopped_grace: (Duration, String),
    /// Hang reports (`SHMEM_HANG_TIMEOUT`), with its text, and the next look.
    hang: Option<(stuck::timeout::Watch, String, Instant)>,
    /// `--hang-abort`: end the job after a hang report.
    hang_abort: bool,
    ending: Option<End>,
    /// First non-zero status of a PE that oshrun did not end.
    first_status: Option<i32>,
    /// When to SIGKILL the PEs that were sent SIGTERM.
    kill_at: Option<Instant>,
    buf: Vec<u8>,
    pollfds: Vec<libc::pollfd>,
    /// (PE, stream) of each pollfd after the first.
    polled: Vec<(usize, usize)>,
}

impl<'a> Supervisor<'a> {
    pub(crate) fn new(
        spawned: Vec<Spawned>,
        tag_output: bool,
        control: Control,
        wake: &'a SelfPipe,
        sinks: [Arc<Sink>; 2],
        limits: Limits,
    ) -> Supervisor<'a> {
        let Limits {
            timeout,
            stopped_grace,
            hang: hang_timeout,
            hang_abort,
        } = limits;
        let by_pid = spawned.iter().enumerate().map(|(i, s)| (s.pid, i)).collect();
        let pes: Vec<Pe> = spawned
            .into_iter()
            .enumerate()
            .map(|(i, s)| Pe {
                pid: s.pid,
                alive: true,
                stop: None,
                terminated: false,
                end: None,
                streams: [Some(Stream::new(s.stdout)), Some(Stream::new(s.stderr))],
                tag: tag_output.then(|| tag(i)),
            })
            .collect();
        Supervisor {
            live: pes.len(),
            pes,
            by_pid,
            control,
            wake,
            sinks,
            timeout,
            stopped_grace,
            hang: hang_timeout.map(|(d, text)| {
                (
                    stuck::timeout::Watch::new(d),
                    text,
                    Instant::now() + stuck::timeout::LOOK_EVERY,
                )
            }),
            hang_abort,
            ending: None,
            first_status: None,
            kill_at: None,
            buf: vec![0; READ_SIZE],
            pollfds: Vec::new(),
            polled: Vec::new(),
        }
    }

    /// Reports an oshrun-side problem and ends the job with status 1.
    pub(crate) fn fail_internally(&mut self, msg: &str) {
        self.say(msg);
        if self.ending.is_none() {
            self.ending = Some(End::Internal);
        }
        self.terminate_all();
    }

    /// Runs until every PE is reaped; returns the job's exit status, and
    /// whether the job was cut short by a signal to oshrun or the timeout.
    pub(crate) fn run(mut self) -> (i32, bool) {
        // A PE that died while the others were being started has sent its
        // SIGCHLD already, and a signal may be pending: look before blocking.
        self.handle_wake();
        while self.live > 0 {
            self.close_broken_streams();
            let paused = [self.sinks[0].over_high_water(), self.sinks[1].over_high_water()];
            self.build_pollfds(paused);
            let timeout_ms = self.poll_timeout_ms();
            // SAFETY: pollfds is a valid array of its length.
            let n = unsafe {
                libc::poll(
                    self.pollfds.as_mut_ptr(),
                    self.pollfds.len() as libc::nfds_t,
                    timeout_ms,
                )
            };
            if n < 0 {
                let e = std::io::Error::last_os_error();
                if e.raw_os_error() != Some(libc::EINTR) {
                    // Cannot wait for events any more: end the PEs and reap them blocking.
                    self.fail_internally(&format!("poll failed: {e}; ending the job"));
                    self.reap_blocking();
                }
                continue;
            }
            if self.pollfds[0].revents != 0 {
                self.handle_wake();
            }
            for k in 1..self.pollfds.len() {
                if self.pollfds[k].revents != 0 {
                    let (pe, s) = self.polled[k - 1];
                    self.read_stream(pe, s);
                }
            }
            self.check_deadlines();
        }
        self.drain();
        (
            self.exit_status(),
            matches!(self.ending, Some(End::Signal(_) | End::Timeout)),
        )
    }

    /// Milliseconds until the next deadline (SIGKILL, timeout, a stopped PE
    /// to report), or -1 (none).
    fn poll_timeout_ms(&self) -> libc::c_int {
        let timeout = self.timeout.as_ref().filter(|_| self.ending.is_none()).map(|t| t.0);
        let stop = self.next_stop_report();
        let look = self.hang.as_ref().filter(|_| self.ending.is_none()).map(|h| h.2);
        let Some(next) = [self.kill_at, timeout, stop, look].into_iter().flatten().min() else {
            return -1;
        };
        let left = next.saturating_duration_since(Instant::now());
        // Round up, so the loop does not spin on a sub-millisecond rest.
        left.as_micros().div_ceil(1000).min(libc::c_int::MAX as u128) as libc::c_int
    }

    fn build_pollfds(&mut self, paused: [bool; 2]) {
        self.pollfds.clear();
        self.polled.clear();
        self.pollfds.push(libc::pollfd {
            fd: self.wake.read_fd(),
            events: libc::POLLIN,
            revents: 0,
        });
        for (i, pe) in self.pes.iter().enumerate() {
            for (s, stream) in pe.streams.iter().enumerate() {
                if let (Some(st), false) = (stream, paused[s]) {
                    self.pollfds.push(libc::pollfd {
                        fd: st.fd.as_raw_fd(),
                        events: libc::POLLIN,
                        revents: 0,
                    });
                    self.polled.push((i, s));
                }
            }
        }
    }

    /// Handles what the self-pipe reported: signals to oshrun first (so PEs
    /// killed by the same terminal Ctrl-C count as ended by oshrun), then exits.
    fn handle_wake(&mut self) {
        let mask = self.wake.take();
        if signals::has(mask, libc::SIGQUIT) && self.ending.is_none() {
            self.report_hang("requested with SIGQUIT");
        }
        if let Some(&sig) = signals::ENDING.iter().find(|&&s| signals::has(mask, s)) {
            if self.ending.is_none() {
                let name = super::classify::signal_name(sig);
                self.say(&format!("received {name}; ending {}", pes_count(self.live)));
                self.ending = Some(End::Signal(sig));
                self.terminate_all();
            } else {
                // Asked again while ending: do not wait for the grace period.
                self.kill_at = Some(Instant::now());
                self.check_deadlines();
            }
        }
        self.reap();
    }

    fn check_deadlines(&mut self) {
        let now = Instant::now();
        if let (None, Some((at, text))) = (self.ending, &self.timeout)
            && now >= *at
        {
            let msg = format!("job timed out after {text} s; ending {}", pes_count(self.live));
            self.say(&msg);
            self.ending = Some(End::Timeout);
            self.terminate_all();
        }
        if self.next_stop_report().is_some_and(|at| now >= at) {
            self.report_stopped(now);
        }
        if let (None, Some((watch, text, at))) = (self.ending, &mut self.hang)
            && now >= *at
        {
            *at = now + stuck::timeout::LOOK_EVERY;
            let (secs, text) = (watch.timeout.as_secs_f64(), text.clone());
            let view = stuck::read(&self.control, |i| life(&self.pes[i]));
            if watch.look(&view, now) {
                self.print_report(
                    &view,
                    &format!(
                        "no PE has made progress for {secs} s ({}={text})",
                        stuck::timeout::ENV_TIMEOUT
                    ),
                );
                if self.hang_abort {
                    self.say(&format!("ending {} (--hang-abort)", pes_count(self.live)));
                    self.ending = Some(End::Hang);
                    self.terminate_all();
                } else {
                    self.say("the job goes on (--hang-abort ends it; ^C or kill -TERM ends it now)");
                }
            }
        }
        if self.kill_at.is_some_and(|at| now >= at) {
            self.kill_at = None;
            for pe in self.pes.iter().filter(|p| p.alive) {
                // SAFETY: kill on a child not reaped yet, so its pid is not reused.
                unsafe { libc::kill(pe.pid, libc::SIGKILL) };
            }
        }
    }

    /// When the first stopped PE not yet reported is due (none while ending).
    fn next_stop_report(&self) -> Option<Instant> {
        if self.ending.is_some() {
            return None;
        }
        let grace = self.stopped_grace.0;
        self.pes
            .iter()
            .filter_map(|p| p.stop.filter(|s| p.alive && !s.reported))
            .map(|s| s.since + grace)
            .min()
    }

    /// Reports every PE stopped for the grace period. The kernel is asked
    /// first: when the whole job was stopped and continued (^Z of the
    /// foreground job stops oshrun too, then `fg`), oshrun may look before the
    /// PEs' "continued" events arrive, and must not report them.
    fn report_stopped(&mut self, now: Instant) {
        let (grace, text) = (self.stopped_grace.0, self.stopped_grace.1.clone());
        for i in 0..self.pes.len() {
            let pe = &mut self.pes[i];
            let Some(stop) = pe
                .stop
                .as_mut()
                .filter(|s| pe.alive && !s.reported && now >= s.since + grace)
            else {
                continue;
            };
            if !kernel_says_stopped(pe.pid) {
                pe.stop = None; // continued; its event is on its way
                continue;
            }
            stop.reported = true;
            let (pid, name) = (pe.pid, super::classify::signal_name(stop.signal));
            self.say(&format!(
                "PE {i} (pid {pid}) has been stopped by {name} for {text} s; the other PEs may be waiting \
                 for it (kill -CONT {pid} resumes it, ^C ends the job)"
            ));
        }
    }

    /// Sends SIGTERM to every live PE; SIGKILL follows after the grace period.
    fn terminate_all(&mut self) {
        let mut any = false;
        for pe in self.pes.iter_mut().filter(|p| p.alive && !p.terminated) {
            pe.terminated = true;
            any = true;
            // SAFETY: as in check_deadlines.
            unsafe { libc::kill(pe.pid, libc::SIGTERM) };
            if pe.stop.is_some() {
                // A stopped PE handles SIGTERM only once continued.
                // SAFETY: as above.
                unsafe { libc::kill(pe.pid, libc::SIGCONT) };
            }
        }
        if any && self.kill_at.is_none() {
            self.kill_at = Some(Instant::now() + GRACE);
        }
    }

    /// Collects every PE that has ended, stopped or continued, without blocking.
    fn reap(&mut self) {
        loop {
            let mut st = 0;
            // SAFETY: st is a valid out-parameter.
            let pid = unsafe { libc::waitpid(-1, &mut st, libc::WNOHANG | libc::WUNTRACED | libc::WCONTINUED) };
            if pid <= 0 {
                return; // 0: none ended yet; -1: no children left (ECHILD)
            }
            if libc::WIFSTOPPED(st) {
                self.stopped(pid, libc::WSTOPSIG(st));
            } else if libc::WIFCONTINUED(st) {
                self.continued(pid);
            } else {
                self.ended(pid, WaitStatus::from_raw(st));
            }
        }
    }

    fn stopped(&mut self, pid: libc::pid_t, signal: i32) {
        if let Some(&i) = self.by_pid.get(&pid) {
            self.pes[i].stop = Some(Stop {
                since: Instant::now(),
                signal,
                reported: false,
            });
        }
    }

    fn continued(&mut self, pid: libc::pid_t) {
        let Some(&i) = self.by_pid.get(&pid) else {
            return;
        };
        if self.pes[i].stop.take().is_some_and(|s| s.reported) && self.ending.is_none() {
            self.say(&format!("PE {i} (pid {pid}) continued"));
        }
    }

    /// Last resort when poll fails: kill and reap every PE, blocking.
    fn reap_blocking(&mut self) {
        for pe in self.pes.iter().filter(|p| p.alive) {
            // SAFETY: as in check_deadlines.
            unsafe { libc::kill(pe.pid, libc::SIGKILL) };
        }
        while self.live > 0 {
            let mut st = 0;
            // SAFETY: st is a valid out-parameter.
            let pid = unsafe { libc::waitpid(-1, &mut st, 0) };
            if pid > 0 {
                self.ended(pid, WaitStatus::from_raw(st));
            } else if std::io::Error::last_os_error().raw_os_error() == Some(libc::ECHILD) {
                break;
            }
        }
        self.live = 0;
    }

    fn ended(&mut self, pid: libc::pid_t, wait: WaitStatus) {
        let Some(i) = self.by_pid.remove(&pid) else {
            return;
        };
        self.pes[i].alive = false;
        self.pes[i].end = Some(match wait {
            WaitStatus::Exited(c) => format!("status {c}"),
            WaitStatus::Signaled(sig) => super::classify::signal_name(sig),
        });
        self.live -= 1;
        let verdict = (!self.pes[i].terminated).then(|| classify(self.control.state(i), wait));
        if self.ending.is_none() && matches!(verdict, Some(Verdict::GlobalExit | Verdict::Failure(_))) {
            // This end ends the job. What every PE wrote before it goes first,
            // in PE order: a PE that explains a failure writes before it lets
            // the others see it (and end), so its line comes before theirs.
            self.forward_pending([self.sinks[0].over_high_water(), self.sinks[1].over_high_water()]);
        }
        // Forward what the PE wrote last before reporting on it. It is dead, so
        // its output is in the pipes already (bounded: a grandchild could go on).
        for s in 0..2 {
            for _ in 0..16 {
                if !self.read_stream(i, s) {
                    break;
                }
            }
        }
        let Some(verdict) = verdict else {
            return; // ended by oshrun
        };
        match verdict {
            Verdict::Normal => {}
            Verdict::FinalizedError(c) => {
                self.first_status.get_or_insert(c);
            }
            Verdict::GlobalExit => {
                let s = self.control.slot(i).info.exit_status.load(Ordering::Acquire);
                if self.ending.is_none() {
                    self.say(&format!("PE {i} called shmem_global_exit({s}); ending the job"));
                    self.ending = Some(End::GlobalExit(s));
                    self.terminate_all();
                } else {
                    self.say(&format!("PE {i} called shmem_global_exit({s})"));
                }
            }
            Verdict::Failure(f) => {
                self.first_status.get_or_insert(f.status);
                let what = f.describe(i, pid);
                if self.ending.is_none() {
                    self.say(&format!("{what}; ending the job"));
                    self.ending = Some(End::Failure);
                    self.terminate_all();
                } else {
                    self.say(&what);
                }
            }
        }
    }

    /// Reads once from a PE's pipe and forwards the complete lines. Returns true
    /// if data was read (there may be more).
    fn read_stream(&mut self, pe: usize, s: usize) -> bool {
        let Pe { streams, tag, .. } = &mut self.pes[pe];
        let Some(stream) = streams[s].as_mut() else {
            return false;
        };
        let tag = tag.as_deref();
        // SAFETY: reads into our buffer, within its length.
        let n = unsafe { libc::read(stream.fd.as_raw_fd(), self.buf.as_mut_ptr().cast(), self.buf.len()) };
        if n > 0 {
            let data = &self.buf[..n as usize];
            self.sinks[s].push_with(|out| stream.lines.feed(data, tag, out));
            return true;
        }
        if n < 0
            && matches!(
                std::io::Error::last_os_error().raw_os_error(),
                Some(libc::EAGAIN | libc::EINTR)
            )
        {
            return false;
        }
        // End of file (or a read error, treated alike).
        self.sinks[s].push_with(|out| stream.lines.finish(tag, out));
        streams[s] = None;
        false
    }

    /// Reads once, in PE order, from every pipe that has output (or its end)
    /// now, without waiting; `paused` as in the loop. Returns false if none had.
    fn forward_pending(&mut self, paused: [bool; 2]) -> bool {
        self.build_pollfds(paused);
        if self.pollfds.len() == 1 {
            return false;
        }
        // SAFETY: pollfds is a valid array; timeout 0 only looks.
        let n = unsafe { libc::poll(self.pollfds.as_mut_ptr(), self.pollfds.len() as libc::nfds_t, 0) };
        let mut any = false;
        for k in 1..self.pollfds.len() {
            if n > 0 && self.pollfds[k].revents != 0 {
                let (pe, s) = self.polled[k - 1];
                self.read_stream(pe, s);
                any = true;
            }
        }
        any
    }

    /// When oshrun's stdout (stderr) is gone, closes the PEs' stdout (stderr)
    /// pipes too, so they get SIGPIPE as they would writing to it directly.
    fn close_broken_streams(&mut self) {
        for s in 0..2 {
            if self.sinks[s].is_broken() {
                for pe in &mut self.pes {
                    pe.streams[s] = None;
                }
            }
        }
    }

    /// After the last PE: forwards what is still buffered in the pipes, then
    /// the unfinished lines.
    fn drain(&mut self) {
        let until = Instant::now() + DRAIN_LIMIT;
        // Nothing more to read now: the rest is not from a PE.
        while Instant::now() < until && self.forward_pending([false; 2]) {}
        for pe in &mut self.pes {
            for (s, stream) in pe.streams.iter_mut().enumerate() {
                if let Some(mut st) = stream.take() {
                    let tag = pe.tag.as_deref();
                    self.sinks[s].push_with(|out| st.lines.finish(tag, out));
                }
            }
        }
    }

    fn exit_status(&self) -> i32 {
        match self.ending {
            Some(End::Signal(s)) => 128 + s,
            Some(End::Timeout | End::Hang) => 124,
            Some(End::GlobalExit(s)) => s,
            Some(End::Internal) => self.first_status.unwrap_or(1),
            Some(End::Failure) | None => self.first_status.unwrap_or(0),
        }
    }

    /// Prints where every PE is now (on request).
    fn report_hang(&self, why: &str) {
        let view = stuck::read(&self.control, |i| life(&self.pes[i]));
        self.print_report(&view, why);
    }

    fn print_report(&self, view: &stuck::JobView, why: &str) {
        let look = ProcLookup::new(self.pes.iter().map(|p| p.pid).collect(), FileLayout::of(&self.control));
        for line in stuck::report(view, why, &look) {
            self.say(&line);
        }
    }

    /// Prints an `oshrun:` line on stderr, in order with the PEs' lines.
    fn say(&self, msg: &str) {
        self.sinks[1].push(format!("oshrun: {msg}\n").as_bytes());
    }
}

/// True when `/proc` shows `pid` stopped (state T, or t when traced).
fn kernel_says_stopped(pid: libc::pid_t) -> bool {
    matches!(crate::stuck::lookup::proc_life(pid), stuck::Life::Stopped(_))
}

/// How a PE's process is, for a hang report.
fn life(pe: &Pe) -> stuck::Life {
    match (&pe.end, pe.stop) {
        (Some(how), _) => stuck::Life::Ended(how.clone()),
        (None, Some(stop)) => stuck::Life::Stopped(super::classify::signal_name(stop.signal)),
        (None, None) => stuck::Life::Alive,
    }
}

fn pes_count(n: usize) -> String {
    if n == 1 { "1 PE".into() } else { format!("{n} PEs") }
}
