//! The library's own verdict: every published waiter looks at all slots now
//! and then ([`Watch::tick`]), judges what it sees ([`judge`]) and, once the
//! verdict is proven (the probe for "everyone blocked", [`SETTLE`] for a
//! barrier_all with a finalizer; both argued in [`super`]), one PE reports
//! and ends through the usual fatal-error path.

use super::describe::{describe, describe_threads};
use super::place::{On, Post, publish};
use super::threads::{self, Spot};
use super::{Kind, Stand, never_finishes};
use crate::error::{Error, ErrorKind, fatal};
use crate::job::{Bell, Control, PeState, PlaceWords, ROUTINE_BYTES};
use std::sync::atomic::Ordering::SeqCst;
use std::time::{Duration, Instant};

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

    pub(super) fn finalizer(&self, s: &Snapshot) -> bool {
        self.state == PeState::Running
            && (self.is(Kind::Finalize) || self.is(Kind::FinalizeAtExit))
            && self.episode == s.finalize_gen
    }

    fn in_barrier(&self, s: &Snapshot) -> bool {
        self.state == PeState::Running && self.is(Kind::BarrierAll) && self.episode == s.barrier_gen
    }

    /// Where it stands for [`never_finishes`].
    fn stand(&self, s: &Snapshot) -> Stand {
        if self.finalizer(s) {
            Stand::Finalizing
        } else if self.waiting(s) {
            Stand::Blocked
        } else {
            Stand::Free
        }
    }

    /// In a wait other than finalize that has not been released.
    fn waiting(&self, s: &Snapshot) -> bool {
        self.state == PeState::Running
            && match self.kind {
                k if k == Kind::BarrierAll as u32 => self.episode == s.barrier_gen,
                k => k == Kind::Coll as u32 || k == Kind::Wait as u32 || k == Kind::Lock as u32,
            }
    }
}

/// Judges a snapshot (the verdicts of [`super`]).
pub(crate) fn judge(s: &Snapshot) -> Verdict {
    if s.pes.iter().any(|p| p.seq % 2 == 1) {
        return Verdict::Fine;
    }
    if never_finishes(s.pes.iter().map(|p| p.stand(s))) {
        Verdict::AllBlocked
    } else if s.pes.iter().any(|p| p.finalizer(s)) && s.pes.iter().any(|p| p.in_barrier(s)) {
        Verdict::BarrierDoomed
    } else {
        Verdict::Fine
    }
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
    /// `ring` wakes a bell's sleepers (the wait's `notify`: waiting sits
    /// above this module).
    pub(crate) fn tick(&mut self, ring: impl Fn(&Bell)) {
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
                    ring(&control.slot(pe).wake.memory);
                    ring(&control.slot(pe).wake.sync);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stuck::Place;

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
