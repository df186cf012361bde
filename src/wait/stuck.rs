//! A job that can never finish: one PE in `shmem_finalize` (often the implicit
//! one at `exit(0)`) while the others block in the library for ever. Rather
//! than hang silently, one PE prints who is where and the job ends.
//!
//! Each blocking wait of the library publishes, on its slow path only (once it
//! has spun and yielded, before it first sleeps), where its PE is: a [`Kind`],
//! the routine, and for the rendezvous (barrier_all, finalize) their episode,
//! in the PE's [`PlaceWords`]. Leaving the wait clears it. Fast waits never
//! write these words, so a job whose PEs all reach `exit` pays nothing.
//!
//! Every published waiter looks at all slots now and then ([`Watch::tick`]).
//! A *finalizer* is a PE in the finalize rendezvous of the current episode: it
//! leaves only once every PE has entered it. Two cases are reported:
//!
//! - **Everyone blocked.** Every other PE is in a published wait. That alone
//!   is not proof: a waiter's condition may have become true a moment ago and
//!   the waiter not have run since. So the watcher bumps the job's `probe`,
//!   and each waiter, whenever it finds its condition false (just before it
//!   sleeps), records the probe value it read *before* evaluating the
//!   condition (`answered`). The job is stuck when a later look finds the
//!   same places (same sequence numbers: nobody left a wait in between, so
//!   nobody wrote anything) and every waiter has answered the probe. Why that
//!   is proof: any store that could satisfy a waiter was made by some PE before
//!   it published its place (a PE inside a wait writes nothing); the watcher
//!   read that publication before bumping the probe, and the waiter read the
//!   bumped probe before its check, so the store happens before the check
//!   (release/acquire chain through the sequence word and the probe) and the
//!   check saw it. A waiter whose condition is true never answers (it leaves),
//!   so a descheduled PE only delays the verdict.
//! - **A barrier_all that cannot complete.** A PE waits in `shmem_barrier_all`
//!   (or `shmem_sync_all`) of the current barrier episode while a PE is a
//!   finalizer: the finalizer must arrive for the barrier to complete, and
//!   cannot leave finalize before the barrier's waiters arrive there. This
//!   holds even if some PE is still running, so it is reported after the
//!   places have stayed the same for [`SETTLE`] (long enough that every PE has
//!   reached its slow path and the message lists where each one is).
//!
//! A team collective with a member finalizing is *not* doomed in general (the
//! member may have sent its part and left: a broadcast leaf, a dissemination
//! round), so it is reported through the first case only.
//!
//! One PE prints: the first to win `stuck_reporter`; it then ends through the
//! usual fatal-error path, so `oshrun` reports it and ends the others.
//!
//! **Threaded PEs.** At `SHMEM_THREAD_MULTIPLE` only barrier_all and finalize
//! publish in the PE's own place, as above. Every other wait publishes in a
//! place of its thread (`wait::threads`), for the reports only: the verdicts
//! never read those. "Everyone blocked" needs a PE in a published wait to
//! write nothing, and a thread's wait says nothing of the PE's other
//! threads, which may be about to write what it waits for. So a threaded PE
//! counts as blocked only when its own place is (a barrier_all), as before
//! thread places existed, and the report lists its threads' places after
//! the PEs'.

use crate::error::{Error, ErrorKind, fatal};
use crate::job::{AWAITED_MAX, Control, PeState, PlaceWords, ROUTINE_BYTES, Shape, monotonic_ns};
use crate::wait::threads::{self, Spot};
use std::sync::atomic::Ordering::SeqCst;
use std::time::{Duration, Instant};

/// What a PE is blocked in (the `kind` word of its slot).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Not in a published wait.
    None = 0,
    BarrierAll = 1,
    /// A team or active-set collective.
    Coll = 2,
    /// A wait on memory: wait_until, signal_wait_until, semaphores.
    Wait = 3,
    Lock = 4,
    Finalize = 5,
    FinalizeAtExit = 6,
}

/// Where a wait blocks, as its caller knows it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Place {
    pub kind: Kind,
    pub routine: &'static str,
    /// The rendezvous episode (barrier_all, finalize); 0 otherwise.
    pub episode: u32,
}

/// What a blocked PE waits on, for `oshrun`'s hang report (`launcher::hang`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum On {
    #[default]
    Nothing,
    /// `count` words of memory at `addr` (in the PE's own space), each
    /// compared with `value` by `cmp` (a `SHMEM_CMP_*` value, never 0; None:
    /// a lock or other object rather than a comparison).
    Memory {
        addr: usize,
        /// Bytes of a word, with [`SIGNED`] when signed.
        word: u32,
        count: u32,
        cmp: Option<u32>,
        value: u64,
    },
    /// A collective on a group of world PEs (`team`: a `job::TEAM_TAGS`
    /// index), waiting for `awaited` (the first few) of `n_awaited` PEs.
    Peers {
        team: u32,
        start: i32,
        stride: i32,
        size: u32,
        awaited: [u32; AWAITED_MAX],
        n_awaited: u32,
    },
}

/// Flag of [`On::Memory`]'s `word`: the word is a signed integer.
pub(crate) const SIGNED: u32 = 0x100;

/// A place to publish, for one PE of a job.
#[derive(Clone, Copy)]
pub(crate) struct Post<'a> {
    pub control: &'a Control,
    pub me: usize,
    pub place: Place,
    /// What the wait is on, worked out only when it is published: most waits
    /// never are, and some (a collective's awaited PEs) cost a loop.
    pub on: Option<&'a dyn Fn() -> On>,
    /// Published in the calling thread's place rather than the PE's (a
    /// wait of a PE at `SHMEM_THREAD_MULTIPLE`; see the module header).
    pub thread: bool,
}

/// Between two looks at the slots; longer with many PEs, since a look reads
/// every slot.
const LOOK_EVERY: Duration = Duration::from_millis(50);
const LOOK_PER_PE: Duration = Duration::from_micros(20);
/// How long a doomed barrier_all's picture must stay the same before it is
/// reported while some PE still runs.
pub(crate) const SETTLE: Duration = Duration::from_secs(2);

/// One PE's published place, as read by a watcher.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Seen {
    pub state: PeState,
    pub kind: u32,
    pub episode: u32,
    /// The sequence word; odd when the PE was caught rewriting its place.
    pub seq: u32,
    pub routine: [u64; ROUTINE_BYTES / 8],
}

/// Every slot at one moment, with the rendezvous episodes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Snapshot {
    pub pes: Vec<Seen>,
    pub barrier_gen: u32,
    pub finalize_gen: u32,
}

/// What a snapshot shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// The job may go on.
    Fine,
    /// A finalizer, and every other PE in a wait: stuck once they answer.
    AllBlocked,
    /// A finalizer and a barrier_all waiter of the current episode.
    BarrierDoomed,
}

impl Seen {
    fn is(&self, k: Kind) -> bool {
        self.kind == k as u32
    }

    fn finalizer(&self, s: &Snapshot) -> bool {
        self.state == PeState::Running
            && (self.is(Kind::Finalize) || self.is(Kind::FinalizeAtExit))
            && self.episode == s.finalize_gen
    }

    fn in_barrier(&self, s: &Snapshot) -> bool {
        self.state == PeState::Running && self.is(Kind::BarrierAll) && self.episode == s.barrier_gen
    }

    /// In a wait other than finalize that has not been released.
    fn waiting(&self, s: &Snapshot) -> bool {
        self.state == PeState::Running
            && match self.kind {
                k if k == Kind::BarrierAll as u32 => self.episode == s.barrier_gen,
                k => k == Kind::Coll as u32 || k == Kind::Wait as u32 || k == Kind::Lock as u32,
            }
    }

    fn routine(&self) -> String {
        crate::job::routine_text(&self.routine)
    }

    /// "in shmem_barrier_all", "running", ...
    fn label(&self) -> String {
        match self.kind {
            k if k == Kind::Finalize as u32 => "in shmem_finalize".into(),
            k if k == Kind::FinalizeAtExit as u32 => "in shmem_finalize (at exit)".into(),
            k if k != Kind::None as u32 => format!("in {}", self.routine()),
            _ => match self.state {
                PeState::Running => "running".into(),
                PeState::Absent | PeState::Arrived => "not initialized".into(),
                PeState::Finalized => "past shmem_finalize".into(),
                PeState::GlobalExit => "in shmem_global_exit".into(),
                PeState::Failed => "stopped on an error".into(),
            },
        }
    }
}

/// In a job that spans nodes, the PEs of other nodes (whose slots in this
/// node's control block stay empty): described as such, not as "not
/// initialized".
static OTHER_NODES: std::sync::OnceLock<Box<[bool]>> = std::sync::OnceLock::new();

/// Records which PEs are on other nodes (once, at start-up).
#[cfg_attr(feature = "check-transport", allow(dead_code))]
pub(crate) fn set_other_nodes(other: Box<[bool]>) {
    let _ = OTHER_NODES.set(other);
}

fn on_other_node(pe: usize) -> bool {
    OTHER_NODES.get().is_some_and(|o| o.get(pe) == Some(&true))
}

/// Judges a snapshot (see the module documentation).
pub(crate) fn judge(s: &Snapshot) -> Verdict {
    if s.pes.iter().any(|p| p.seq % 2 == 1) {
        return Verdict::Fine;
    }
    let finalizers = s.pes.iter().filter(|p| p.finalizer(s)).count();
    if finalizers == 0 || finalizers == s.pes.len() {
        return Verdict::Fine;
    }
    if s.pes.iter().all(|p| p.finalizer(s) || p.waiting(s)) {
        Verdict::AllBlocked
    } else if s.pes.iter().any(|p| p.in_barrier(s)) {
        Verdict::BarrierDoomed
    } else {
        Verdict::Fine
    }
}

/// "PE 2 is in shmem_finalize (at exit); PEs 0, 1, 3 are in shmem_barrier_all":
/// PEs grouped by place, finalizers first, then in order of their first PE.
pub(crate) fn describe(s: &Snapshot) -> String {
    group_places(s.pes.iter().enumerate().map(|(pe, p)| {
        let label = match p.state {
            PeState::Absent if on_other_node(pe) => "on another node (not seen from here)".into(),
            _ => p.label(),
        };
        (label, p.finalizer(s))
    }))
}

/// PEs grouped by place, in PE order: `places` gives each PE's place ("in
/// shmem_barrier_all") and whether it is a finalizer; finalizers' groups come
/// first, then in order of their first PE. Also the words of the node
/// watcher's verdict across nodes (`runtime::node_watch`).
pub(crate) fn group_places(places: impl Iterator<Item = (String, bool)>) -> String {
    let mut groups: Vec<(bool, String, Vec<usize>)> = Vec::new();
    for (pe, (label, finalizer)) in places.enumerate() {
        match groups.iter_mut().find(|g| g.1 == label) {
            Some(g) => g.2.push(pe),
            None => groups.push((finalizer, label, vec![pe])),
        }
    }
    groups.sort_by_key(|g| !g.0); // stable: keeps first-PE order within each part
    groups
        .iter()
        .map(|(_, label, pes)| {
            let list: Vec<String> = pes.iter().map(|p| p.to_string()).collect();
            if pes.len() == 1 {
                format!("PE {} is {label}", list[0])
            } else {
                format!("PEs {} are {label}", list.join(", "))
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn read(control: &Control) -> Snapshot {
    let h = control.header();
    let pes = (0..control.npes())
        .map(|pe| {
            let slot = control.slot(pe);
            let (seen, seq) = slot.place.read_seq(|w| Seen {
                state: PeState::from_word(slot.info.state.load(SeqCst)),
                kind: w.kind.load(SeqCst),
                episode: w.episode.load(SeqCst),
                seq: 0,
                routine: std::array::from_fn(|i| w.routine[i].load(SeqCst)),
            });
            Seen { seq, ..seen }
        })
        .collect();
    Snapshot {
        pes,
        barrier_gen: h.barrier_gen.number.load(SeqCst),
        finalize_gen: h.finalize_gen.number.load(SeqCst),
    }
}

/// A suspicion being confirmed.
struct Suspect {
    snap: Snapshot,
    probe: u32,
    since: Instant,
}

/// A published wait: created on a wait's slow path, cleared when dropped.
pub(crate) struct Watch<'a> {
    post: &'a Post<'a>,
    /// The thread's place it publishes in (None: the PE's own).
    spot: Option<Spot>,
    every: Duration,
    next_look: Instant,
    suspect: Option<Suspect>,
    /// Another PE reports: stop looking.
    quiet: bool,
}

impl<'a> Watch<'a> {
    /// Publishes `post`'s place.
    pub(crate) fn start(post: &'a Post<'a>) -> Watch<'a> {
        let every = LOOK_EVERY + LOOK_PER_PE * post.control.npes() as u32;
        let spot = post.thread.then(|| threads::enter(post.control, post.me));
        let watch = Watch {
            post,
            spot,
            every,
            next_look: Instant::now() + every,
            suspect: None,
            quiet: false,
        };
        if let Some(w) = watch.words() {
            publish(w, Some((&post.place, post.on.map_or(On::Nothing, |f| f()))));
        }
        watch
    }

    /// The words it publishes in (None: no thread place was free).
    fn words(&self) -> Option<&'a PlaceWords> {
        let (control, me) = (self.post.control, self.post.me);
        match self.spot {
            None => Some(&control.slot(me).place),
            Some(spot) => threads::words(control, me, spot),
        }
    }

    /// The probe to answer: read before evaluating the wait's condition.
    #[inline]
    pub(crate) fn probe(&self) -> u32 {
        self.post.control.header().probe.load(SeqCst)
    }

    /// The condition was found false after reading probe `p`.
    #[inline]
    pub(crate) fn answer(&self, p: u32) {
        if let Some(w) = self.words() {
            w.answered.store(p, SeqCst);
        }
    }

    /// Looks at the job if it is time; reports and ends this PE if it is stuck.
    pub(crate) fn tick(&mut self) {
        let now = Instant::now();
        if self.quiet || now < self.next_look {
            return;
        }
        self.next_look = now + self.every;
        let control = self.post.control;
        let snap = read(control);
        let verdict = judge(&snap);
        if verdict == Verdict::Fine {
            self.suspect = None;
            return;
        }
        match &self.suspect {
            Some(s) if s.snap == snap => {
                let answered = || {
                    snap.pes.iter().enumerate().all(|(pe, p)| {
                        p.finalizer(&snap)
                            || (control.slot(pe).place.answered.load(SeqCst).wrapping_sub(s.probe) as i32) >= 0
                    })
                };
                let settled = now.duration_since(s.since) >= SETTLE;
                if (verdict == Verdict::AllBlocked && answered()) || (verdict == Verdict::BarrierDoomed && settled) {
                    self.report(&snap);
                }
            }
            _ => {
                // A new picture: ask every waiter to look at its condition
                // again, and wake the sleepers so that they answer soon.
                let probe = control.header().probe.fetch_add(1, SeqCst).wrapping_add(1);
                for pe in 0..control.npes() {
                    crate::wait::notify(&control.slot(pe).wake.memory);
                    crate::wait::notify(&control.slot(pe).wake.sync);
                }
                self.suspect = Some(Suspect {
                    snap,
                    probe,
                    since: now,
                });
            }
        }
    }

    fn report(&mut self, snap: &Snapshot) {
        let me = self.post.me as u32;
        let h = self.post.control.header();
        if h.stuck_reporter.compare_exchange(0, me + 1, SeqCst, SeqCst).is_err() {
            self.quiet = true;
            return;
        }
        fatal(&Error::new(
            self.post.place.routine,
            ErrorKind::Usage(format!(
                "the job can never finish: {}{}",
                describe(snap),
                describe_threads(self.post.control)
            )),
        ))
    }
}

impl Drop for Watch<'_> {
    fn drop(&mut self) {
        if let Some(w) = self.words() {
            publish(w, None);
        }
        if let Some(spot) = self.spot {
            threads::leave(self.post.control, self.post.me, spot);
        }
    }
}

/// "; PE 0 thread 1 is in shmem_int_wait_until; 2 more threads of PE 1 not
/// shown": the places of the threads of threaded PEs (see the module
/// header), "" when none is published.
pub(crate) fn describe_threads(control: &Control) -> String {
    let mut out = String::new();
    for pe in 0..control.npes() {
        for (i, _) in threads::claimed(control, pe) {
            let w = control.thread_place(pe, i);
            let (kind, seq) = w.read_seq(|w| w.kind.load(SeqCst));
            let routine = crate::job::routine_text(&w.routine.each_ref().map(|r| r.load(SeqCst)));
            if kind != Kind::None as u32 && seq % 2 == 0 {
                out += &format!("; PE {pe} thread {} is in {routine}", i + 1);
            }
        }
        match threads::unshown(control, pe) {
            0 => {}
            1 => out += &format!("; 1 more thread of PE {pe} not shown"),
            n => out += &format!("; {n} more threads of PE {pe} not shown"),
        }
    }
    out
}

/// Writes a place (None: not waiting) as a sequence-lock update.
fn publish(w: &PlaceWords, place: Option<(&Place, On)>) {
    let s = w.seq.load(SeqCst);
    w.seq.store(s.wrapping_add(1) | 1, SeqCst);
    match place {
        Some((p, on)) => {
            w.kind.store(p.kind as u32, SeqCst);
            w.episode.store(p.episode, SeqCst);
            w.since_ns.store(monotonic_ns(), SeqCst);
            publish_on(w, on);
            for (word, v) in w.routine.iter().zip(crate::job::routine_words(p.routine)) {
                word.store(v, SeqCst);
            }
        }
        None => {
            w.kind.store(Kind::None as u32, SeqCst);
            w.episode.store(0, SeqCst);
            publish_on(w, On::Nothing);
            w.progress.fetch_add(1, SeqCst);
        }
    }
    w.seq.store((s.wrapping_add(1) | 1).wrapping_add(1), SeqCst);
}

/// Writes what a place is on (inside [`publish`]'s sequence lock).
fn publish_on(w: &PlaceWords, on: On) {
    let (addr, word, count, cmp, value) = match on {
        On::Memory {
            addr,
            word,
            count,
            cmp,
            value,
        } => (addr as u64, word, count, cmp.unwrap_or(0), value),
        _ => (0, 0, 0, 0, 0),
    };
    w.addr.store(addr, SeqCst);
    w.count.store(count, SeqCst);
    w.value.store(value, SeqCst);
    let (team, start, stride, size, awaited, n) = match on {
        On::Peers {
            team,
            start,
            stride,
            size,
            awaited,
            n_awaited,
        } => (team, start, stride, size, awaited, n_awaited),
        _ => (0, 0, 0, 0, [0; AWAITED_MAX], 0),
    };
    w.shape.store(Shape { cmp, word, team }.pack(), SeqCst);
    w.group_start.store(start, SeqCst);
    w.group_stride.store(stride, SeqCst);
    w.group_size.store(size, SeqCst);
    for (slot, pe) in w.awaited.iter().zip(awaited) {
        slot.store(pe, SeqCst);
    }
    w.awaited_n.store(n, SeqCst);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(s: &str) -> [u64; ROUTINE_BYTES / 8] {
        crate::job::routine_words(s)
    }

    fn at(kind: Kind, routine: &str, episode: u32) -> Seen {
        Seen {
            state: PeState::Running,
            kind: kind as u32,
            episode,
            seq: 2,
            routine: name(routine),
        }
    }

    fn snap(pes: Vec<Seen>) -> Snapshot {
        Snapshot {
            pes,
            barrier_gen: 7,
            finalize_gen: 3,
        }
    }

    #[test]
    fn barrier_with_a_finalizer_is_doomed_and_described() {
        let b = at(Kind::BarrierAll, "shmem_barrier_all", 7);
        let s = snap(vec![b.clone(), b.clone(), at(Kind::FinalizeAtExit, "", 3), b]);
        assert_eq!(judge(&s), Verdict::AllBlocked);
        assert_eq!(
            describe(&s),
            "PE 2 is in shmem_finalize (at exit); PEs 0, 1, 3 are in shmem_barrier_all"
        );
        // One PE still running: the barrier can still never complete.
        let mut r = s.clone();
        r.pes[1] = at(Kind::None, "", 0);
        assert_eq!(judge(&r), Verdict::BarrierDoomed);
        assert_eq!(
            describe(&r),
            "PE 2 is in shmem_finalize (at exit); PEs 0, 3 are in shmem_barrier_all; PE 1 is running"
        );
    }

    #[test]
    fn released_rendezvous_are_not_stuck() {
        // The barrier's episode moved on: its waiters are leaving.
        let s = snap(vec![
            at(Kind::BarrierAll, "shmem_barrier_all", 6),
            at(Kind::Finalize, "", 3),
        ]);
        assert_eq!(judge(&s), Verdict::Fine);
        // The finalize episode moved on: the finalizer is leaving (re-init).
        let s = snap(vec![at(Kind::BarrierAll, "shmem_init", 7), at(Kind::Finalize, "", 2)]);
        assert_eq!(judge(&s), Verdict::Fine);
        // Everyone finalizing: the rendezvous completes.
        let s = snap(vec![at(Kind::Finalize, "", 3), at(Kind::FinalizeAtExit, "", 3)]);
        assert_eq!(judge(&s), Verdict::Fine);
    }

    #[test]
    fn other_waits_need_everyone_blocked() {
        let w = at(Kind::Wait, "shmem_long_wait_until", 0);
        let f = at(Kind::Finalize, "", 3);
        assert_eq!(judge(&snap(vec![w.clone(), f.clone(), w.clone()])), Verdict::AllBlocked);
        let running = at(Kind::None, "", 0);
        assert_eq!(judge(&snap(vec![w.clone(), f.clone(), running])), Verdict::Fine);
        let c = at(Kind::Coll, "shmem_team_sync", 0);
        assert_eq!(judge(&snap(vec![c.clone(), f.clone()])), Verdict::AllBlocked);
        // Nobody finalizing: a plain wait, however long, is not judged.
        assert_eq!(judge(&snap(vec![w.clone(), c])), Verdict::Fine);
        // A place being rewritten spoils the picture.
        let mut moving = w.clone();
        moving.seq = 5;
        assert_eq!(judge(&snap(vec![moving, f.clone()])), Verdict::Fine);
        // A PE that finalized and left does not count as blocked.
        let mut gone = at(Kind::None, "", 0);
        gone.state = PeState::Finalized;
        assert_eq!(judge(&snap(vec![w, f, gone])), Verdict::Fine);
    }

    #[test]
    fn published_places_read_back() {
        let n = 3;
        // Leaked: the thread place claimed below is given back when the
        // test's thread ends.
        let buf = vec![0u128; crate::job::control_len(n) / 16 + 8].leak();
        let base = crate::job::round_up(buf.as_mut_ptr() as usize, 128) as *const u8;
        // SAFETY: zeroed memory large enough for the control block of n PEs,
        // 128-aligned by hand, never freed; only accessed atomically.
        let c = unsafe { Control::from_raw(base, n) };
        for pe in 0..n {
            c.set_state(pe, PeState::Running);
        }
        let post = Post {
            control: &c,
            me: 1,
            place: Place {
                kind: Kind::Wait,
                routine: "shmem_int_wait_until",
                episode: 0,
            },
            on: None,
            thread: false,
        };
        {
            let _w = Watch::start(&post);
            let s = read(&c);
            assert_eq!(s.pes[1].seq % 2, 0);
            assert_eq!(describe(&s), "PEs 0, 2 are running; PE 1 is in shmem_int_wait_until");
        }
        assert_eq!(describe(&read(&c)), "PEs 0, 1, 2 are running");
        // A threaded PE's wait: in the thread's place, which the verdicts
        // do not read, and which the report lists after the PEs.
        let threaded = Post { thread: true, ..post };
        {
            let _w = Watch::start(&threaded);
            assert_eq!(describe(&read(&c)), "PEs 0, 1, 2 are running");
            assert_eq!(describe_threads(&c), "; PE 1 thread 1 is in shmem_int_wait_until");
        }
        assert_eq!(describe_threads(&c), "");
        c.slot(2).info.threads_unshown.store(2, SeqCst);
        assert_eq!(describe_threads(&c), "; 2 more threads of PE 2 not shown");
    }
}
