//! Where blocked PEs are, told across nodes, so that each node's hang report
//! can say what the other nodes' PEs do, and name a PE nobody hears from (a
//! stopped PE alone on its node, or its node's first PE, whose watcher is
//! stopped with it; a PE computing outside the library; an unreachable node).
//!
//! A PE that has been in a published wait (`stuck`) for
//! [`BLOCKED_NS`] says so, every [`EVERY_NS`] while it stays blocked, with a
//! small MPI message to the first two PEs of every other node (the PEs that
//! run the node's hang watcher, `runtime::node_watch`). The message is sent
//! eagerly and never waited for (`rsm_status_send`), so a stopped or dead
//! receiver costs nothing. Those PEs read what arrived whenever they call
//! [`Exchange::tick`] (from `progress`, which every wait of a job across
//! nodes calls), into a table of this process. Nothing is sent by a PE that
//! is not blocked for a second, so a job that runs pays one clock read per
//! `progress` call; but an empty message to each of those PEs at start-up,
//! so that MPI connects the pair while the network is up (a first message
//! during an outage is fatal to Open MPI's TCP transport).

use super::shim::Shim;
use crate::job::{AWAITED_MAX, Control, PlaceWords, ROUTINE_BYTES, THREAD_SLOTS, monotonic_ns};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

/// How often a blocked PE says where it is, and looks for the others' words.
const EVERY_NS: u64 = 500_000_000;
/// A PE says where it is once it has been blocked this long.
const BLOCKED_NS: u64 = 1_000_000_000;
/// What a record older than this says is stale: its PE is not heard from.
pub(crate) const FRESH_NS: u64 = 2_000_000_000;

/// A PE's published place, as sent.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Record {
    pub kind: u32,
    pub routine: [u64; ROUTINE_BYTES / 8],
    /// How long the PE had been blocked when it sent this.
    pub blocked_ns: u64,
    pub group_start: i32,
    pub group_stride: i32,
    pub group_size: u32,
    pub awaited: Vec<u32>,
    pub addr: u64,
    /// Published waits the PE has left: moves when it leaves this one.
    pub progress: u64,
    /// Whose place: 0 the PE's own, else 1 + the index of one of its
    /// threads' places (`stuck::threads`), for a PE at `SHMEM_THREAD_MULTIPLE`.
    pub thread: u32,
}

/// What arrived from one PE, and when.
#[derive(Clone, Debug)]
pub(crate) struct Heard {
    pub at_ns: u64,
    pub record: Record,
}

const MAX_BYTES: usize = 256;

impl Record {
    fn encode(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(MAX_BYTES);
        b.extend(self.kind.to_le_bytes());
        for w in self.routine {
            b.extend(w.to_le_bytes());
        }
        b.extend(self.blocked_ns.to_le_bytes());
        b.extend(self.group_start.to_le_bytes());
        b.extend(self.group_stride.to_le_bytes());
        b.extend(self.group_size.to_le_bytes());
        b.extend((self.awaited.len() as u32).to_le_bytes());
        for a in &self.awaited {
            b.extend(a.to_le_bytes());
        }
        b.extend(self.addr.to_le_bytes());
        b.extend(self.progress.to_le_bytes());
        b.extend(self.thread.to_le_bytes());
        b
    }

    fn decode(b: &[u8]) -> Option<Record> {
        let mut at = 0;
        let mut take = |n: usize| -> Option<&[u8]> {
            let s = b.get(at..at + n)?;
            at += n;
            Some(s)
        };
        let u32_ = |s: &[u8]| u32::from_le_bytes(s.try_into().expect("4 bytes"));
        let u64_ = |s: &[u8]| u64::from_le_bytes(s.try_into().expect("8 bytes"));
        let kind = u32_(take(4)?);
        let mut routine = [0u64; ROUTINE_BYTES / 8];
        for w in &mut routine {
            *w = u64_(take(8)?);
        }
        let blocked_ns = u64_(take(8)?);
        let group_start = u32_(take(4)?) as i32;
        let group_stride = u32_(take(4)?) as i32;
        let group_size = u32_(take(4)?);
        let n = (u32_(take(4)?) as usize).min(AWAITED_MAX);
        let mut awaited = Vec::with_capacity(n);
        for _ in 0..n {
            awaited.push(u32_(take(4)?));
        }
        let addr = u64_(take(8)?);
        let progress = u64_(take(8)?);
        let thread = u32_(take(4)?);
        Some(Record {
            kind,
            routine,
            blocked_ns,
            group_start,
            group_stride,
            group_size,
            awaited,
            addr,
            progress,
            thread,
        })
    }

    /// The place in `w` (`thread` as [`Record::thread`]), if it is a
    /// published wait (and not being rewritten).
    fn of(w: &PlaceWords, thread: u32, now: u64) -> Option<Record> {
        let (r, seq) = w.read_seq(|w| {
            let n = (w.awaited_n.load(Ordering::Relaxed) as usize).min(AWAITED_MAX);
            Record {
                kind: w.kind.load(Ordering::Relaxed),
                routine: std::array::from_fn(|i| w.routine[i].load(Ordering::Relaxed)),
                blocked_ns: now.saturating_sub(w.since_ns.load(Ordering::Relaxed)),
                group_start: w.group_start.load(Ordering::Relaxed),
                group_stride: w.group_stride.load(Ordering::Relaxed),
                group_size: w.group_size.load(Ordering::Relaxed),
                awaited: w.awaited[..n].iter().map(|a| a.load(Ordering::Relaxed)).collect(),
                addr: w.addr.load(Ordering::Relaxed),
                progress: w.progress.load(Ordering::Relaxed),
                thread,
            }
        });
        (seq % 2 == 0 && r.kind != 0).then_some(r)
    }
}

/// What this process heard from one PE: its own place and its threads'.
#[derive(Clone, Default)]
struct Heards {
    own: Option<Heard>,
    threads: [Option<Heard>; THREAD_SLOTS],
}

/// The records this process has heard, by PE.
static HEARD: OnceLock<Box<[Mutex<Heards>]>> = OnceLock::new();
/// Every PE's host name, learnt at start-up.
static HOSTS: OnceLock<Vec<String>> = OnceLock::new();

/// Records the host of every PE (once, at start-up).
pub(crate) fn set_hosts(hosts: Vec<String>) {
    let _ = HOSTS.set(hosts);
}

/// This machine's host name ("?" if it cannot be read).
pub(crate) fn this_host() -> String {
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

/// The host `pe` runs on, if known.
pub(crate) fn host(pe: usize) -> Option<&'static str> {
    HOSTS.get().and_then(|h| h.get(pe)).map(String::as_str)
}

/// What this process heard from `pe` last, if anything.
pub(crate) fn heard(pe: usize) -> Option<Heard> {
    heards(pe)?.own
}

/// What this process heard last from each thread of `pe` (a PE at
/// `SHMEM_THREAD_MULTIPLE`): (place index, record).
pub(crate) fn heard_threads(pe: usize) -> Vec<(usize, Heard)> {
    let Some(h) = heards(pe) else { return Vec::new() };
    h.threads
        .into_iter()
        .enumerate()
        .filter_map(|(i, h)| Some((i, h?)))
        .collect()
}

fn heards(pe: usize) -> Option<Heards> {
    let table = HEARD.get()?;
    Some(table.get(pe)?.lock().unwrap_or_else(|e| e.into_inner()).clone())
}

/// One PE's side of the exchange.
pub(crate) struct Exchange {
    shim: &'static Shim,
    control: Control,
    me: usize,
    /// The PEs to tell: the first two of every other node.
    observers: Vec<usize>,
    next_ns: AtomicU64,
    busy: AtomicBool,
}

impl Exchange {
    /// `node_of[pe]`: the node of every PE.
    pub(crate) fn new(shim: &'static Shim, control: Control, me: usize, node_of: &[usize]) -> Exchange {
        let mut observers = Vec::new();
        let mut seen: Vec<(usize, usize)> = Vec::new(); // (node, PEs taken)
        for (pe, &node) in node_of.iter().enumerate() {
            if node == node_of[me] {
                continue;
            }
            match seen.iter_mut().find(|(n, _)| *n == node) {
                Some((_, k)) if *k >= 2 => {}
                Some((_, k)) => {
                    *k += 1;
                    observers.push(pe);
                }
                None => {
                    seen.push((node, 1));
                    observers.push(pe);
                }
            }
        }
        let _ = HEARD.set((0..node_of.len()).map(|_| Mutex::new(Heards::default())).collect());
        // An empty message to each, now: MPI connects a pair of processes
        // when it first talks, and a first message sent while the network
        // is down is fatal to Open MPI's TCP transport ("Unable to connect
        // to the peer"), where one on a connection made meanwhile waits.
        for &pe in &observers {
            let _ = shim.status_send(pe, &[]);
        }
        Exchange {
            shim,
            control,
            me,
            observers,
            next_ns: AtomicU64::new(0),
            busy: AtomicBool::new(false),
        }
    }

    /// Reads what arrived and, if this PE has been blocked long enough, says
    /// where it is; at most every [`EVERY_NS`].
    #[inline]
    pub(crate) fn tick(&self) {
        let now = monotonic_ns();
        if now < self.next_ns.load(Ordering::Relaxed) {
            return;
        }
        self.exchange(now);
    }

    #[cold]
    fn exchange(&self, now: u64) {
        if self.busy.swap(true, Ordering::Acquire) {
            return;
        }
        self.next_ns.store(now + EVERY_NS, Ordering::Relaxed);
        let mut buf = [0u8; MAX_BYTES];
        // A failure here is the engine's, and the operation that meets it
        // next reports it; the exchange only informs.
        while let Ok(Some((src, n))) = self.shim.status_recv(&mut buf) {
            if let (Some(record), Some(slot)) = (Record::decode(&buf[..n]), HEARD.get().and_then(|t| t.get(src))) {
                let mut heards = slot.lock().unwrap_or_else(|e| e.into_inner());
                let to = match record.thread as usize {
                    0 => &mut heards.own,
                    t if t <= THREAD_SLOTS => &mut heards.threads[t - 1],
                    _ => continue,
                };
                *to = Some(Heard { at_ns: now, record });
            }
        }
        // The PE's own place, then its threads' (one message each: a
        // message holds at most 256 bytes, and a place takes about 100).
        let own = Record::of(&self.control.slot(self.me).place, 0, now);
        let threads = crate::stuck::threads::claimed(&self.control, self.me)
            .into_iter()
            .filter_map(|(i, _)| Record::of(self.control.thread_place(self.me, i), i as u32 + 1, now));
        for r in own.into_iter().chain(threads).filter(|r| r.blocked_ns >= BLOCKED_NS) {
            let msg = r.encode();
            for &pe in &self.observers {
                let _ = self.shim.status_send(pe, &msg);
            }
        }
        self.busy.store(false, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_survives_its_encoding() {
        let r = Record {
            kind: 2,
            routine: [1, 2, 3, 4, 5],
            blocked_ns: 7_000_000_000,
            group_start: -1,
            group_stride: 3,
            group_size: 9,
            awaited: vec![4, 5, 6],
            addr: 0xdead_beef,
            progress: 11,
            thread: 3,
        };
        let b = r.encode();
        assert!(b.len() <= MAX_BYTES);
        assert_eq!(Record::decode(&b), Some(r));
        assert_eq!(Record::decode(&b[..b.len() - 1]), None, "a cut message is refused");
    }
}
