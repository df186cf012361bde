//! Strategy 1 of the research seed, "additional synchronisation": a pool of
//! sync arrays per team; each collective takes the least recently used
//! array, and after it every member sends one lazy, non-blocking release
//! message: a fetch-and-add on the array's *release word* at the team's rank
//! 0. Nobody waits for releases on the critical path; the next user of the
//! array checks the word.
//!
//! The release word of an array holds `count << 32 | decision`: `count` is
//! the number of releases so far (a use is complete when `count` reaches
//! `members * uses`), `decision` the tag of the last collective for which a
//! member decided to grow the pool instead of waiting. Before collective
//! `seq` a member looks at the least recently used array:
//! - the word carries `seq`'s tag: someone decided to grow: take a new array;
//! - the previous use is complete: take it;
//! - otherwise progress (poll with back-off); when patience runs out and the
//!   pool has room, try to compare-and-swap `seq`'s tag into the word. It can
//!   succeed only while the use is still incomplete, and an incomplete use
//!   means nobody has taken this array for `seq` yet, so the first member to
//!   decide decides for all; a member that later finds the tag grows too.
//!
//! Every member thus picks the same array, whatever the timing. Whether the
//! pool grows depends on timing (how far a fast member runs ahead); the
//! ledger records every growth. Cost: one extra message per member (but rank
//! 0) per collective; memory: pool arrays of log n words per team.

use super::pool::{Pick, Pool};
use super::strategy::{Grant, Remote, SyncStrategy, Ticket};
use super::{CollOp, Mem, TeamSync};
use crate::heap::SymOffset;
use std::any::Any;
use std::collections::VecDeque;

pub(crate) struct ExtraSync;

/// The release words of a team's pool, at the owner (the team's rank 0),
/// through the caller's [`Remote`]; counts the messages it sends.
struct AtOwner<'a> {
    sync: &'a TeamSync,
    remote: &'a mut dyn Remote,
    messages: u64,
}

/// Offset of the release word of `array` of the team's region.
fn release_word(sync: &TeamSync, array: usize) -> SymOffset {
    SymOffset(sync.array(array).0 + sync.layout.release() * 8)
}

impl Releases for AtOwner<'_> {
    fn word(&mut self, a: usize) -> u64 {
        self.remote.fetch(self.sync.owner, release_word(self.sync, a))
    }
    fn decide(&mut self, a: usize, old: u64, new: u64) -> bool {
        if self.sync.owner != self.remote.me() {
            self.messages += 1;
        }
        self.remote
            .compare_swap(self.sync.owner, release_word(self.sync, a), old, new)
    }
    fn wait_step(&mut self) -> bool {
        self.remote.wait_step()
    }
}

impl SyncStrategy for ExtraSync {
    fn slots(&self, pool: usize, pool_max: usize) -> (usize, usize) {
        (pool, pool_max.max(pool))
    }

    fn pool_state(&self, initial: usize) -> Box<dyn Any + Send> {
        Box::new(Lru::new(initial))
    }

    fn acquire(&self, sync: &TeamSync, op: CollOp, remote: &mut dyn Remote) -> Grant {
        let mut env = AtOwner {
            sync,
            remote,
            messages: 0,
        };
        let mut team = sync.pool();
        let (pool, lru) = team.parts::<Lru>();
        let pick = acquire(pool, lru, sync.size as u64, &mut env);
        let a = pick.array();
        Grant::Run {
            ticket: Ticket {
                mem: Mem::Array(sync.array(a)),
                array: Some(a),
                op,
            },
            graph: None,
            grew: matches!(pick, Pick::Grow(_)),
            messages: env.messages,
        }
    }

    fn release(&self, sync: &TeamSync, ticket: Ticket, remote: &mut dyn Remote) -> u64 {
        let Some(a) = ticket.array else { return 0 };
        remote.add(sync.owner, release_word(sync, a), RELEASE);
        u64::from(sync.owner != remote.me())
    }
}

/// How a member reaches the release words (the runtime reads the owner's
/// memory; the virtual-job tool models members in lockstep).
pub(crate) trait Releases {
    /// The release word of `array` at the owner.
    fn word(&mut self, array: usize) -> u64;
    /// Compare-and-swap on that word; true if it held `old`.
    fn decide(&mut self, array: usize, old: u64, new: u64) -> bool;
    /// One step of progress while waiting; false once patience has run out
    /// (the caller may then decide to grow).
    fn wait_step(&mut self) -> bool;
}

/// The tag of collective `seq` (never 0, the word's initial value).
fn tag(seq: u64) -> u64 {
    seq % 0xffff_ffff + 1
}

/// Whether `count` releases complete `uses` uses by `members` members
/// (counts wrap at 2^32).
fn complete(count: u32, members: u64, uses: u64) -> bool {
    let need = members.wrapping_mul(uses) as u32;
    count.wrapping_sub(need) as i32 >= 0
}

/// What extra-sync keeps of a team's pool beside the counts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Lru {
    /// Arrays from least to most recently used.
    order: VecDeque<usize>,
    /// Times each array has been taken.
    uses: Vec<u64>,
}

impl Lru {
    /// The state of a pool of `initial` arrays, none used yet.
    pub(crate) fn new(initial: usize) -> Lru {
        Lru {
            order: (0..initial).collect(),
            uses: vec![0; initial],
        }
    }
}

/// The array for the next collective of the team.
pub(crate) fn acquire(pool: &mut Pool, lru: &mut Lru, members: u64, env: &mut impl Releases) -> Pick {
    let t = tag(pool.seq);
    let a = *lru.order.front().expect("the pool has at least one array");
    let mut patient = true;
    let pick = loop {
        let w = env.word(a);
        if w & 0xffff_ffff == t {
            break Pick::Grow(pool.grow());
        }
        if complete((w >> 32) as u32, members, lru.uses[a]) {
            lru.order.pop_front();
            break Pick::Use(a);
        }
        if !patient && pool.arrays < pool.cap {
            if env.decide(a, w, (w & !0xffff_ffff) | t) {
                break Pick::Grow(pool.grow());
            }
            continue;
        }
        patient = env.wait_step();
    };
    let b = pick.array();
    if let Pick::Grow(_) = pick {
        lru.uses.push(0);
    }
    lru.order.push_back(b);
    lru.uses[b] += 1;
    pool.seq += 1;
    pick
}

/// The value a release adds to the word.
pub(crate) const RELEASE: u64 = 1 << 32;

#[cfg(test)]
mod tests {
    use super::*;

    /// Releases held in a vector; `late` arrays never complete.
    struct Words {
        w: Vec<u64>,
        late: Vec<usize>,
    }
    impl Releases for Words {
        fn word(&mut self, a: usize) -> u64 {
            self.w[a]
        }
        fn decide(&mut self, a: usize, old: u64, new: u64) -> bool {
            if self.w[a] == old {
                self.w[a] = new;
                true
            } else {
                false
            }
        }
        fn wait_step(&mut self) -> bool {
            false
        }
    }

    #[test]
    fn reuses_released_arrays_and_grows_on_late_ones() {
        let members = 4;
        let mut p = (Pool::new(2, 3), Lru::new(2));
        let mut env = Words {
            w: vec![0; 3],
            late: vec![],
        };
        let release = |env: &mut Words, a: usize| {
            if !env.late.contains(&a) {
                env.w[a] += members * RELEASE;
            }
        };
        assert_eq!(acquire(&mut p.0, &mut p.1, members, &mut env), Pick::Use(0));
        release(&mut env, 0);
        assert_eq!(acquire(&mut p.0, &mut p.1, members, &mut env), Pick::Use(1));
        env.late.push(1);
        assert_eq!(acquire(&mut p.0, &mut p.1, members, &mut env), Pick::Use(0));
        release(&mut env, 0);
        // Array 1's use is incomplete: grow, and record the decision.
        assert_eq!(acquire(&mut p.0, &mut p.1, members, &mut env), Pick::Grow(2));
        assert_eq!(env.w[1] & 0xffff_ffff, tag(3));
        release(&mut env, 2);
        env.late.clear();
        env.w[1] += members * RELEASE;
        // A slower member replaying collective 3 sees the decision.
        let mut slow = (Pool::new(2, 3), Lru::new(2));
        let mut slow_env = Words {
            w: env.w.clone(),
            late: vec![],
        };
        slow_env.w[0] = members * RELEASE;
        slow_env.w[1] = members * RELEASE + tag(3);
        for want in [Pick::Use(0), Pick::Use(1), Pick::Use(0), Pick::Grow(2)] {
            assert_eq!(acquire(&mut slow.0, &mut slow.1, members, &mut slow_env), want);
        }
        assert_eq!(slow, p);
        // Then both go on with array 1 (now complete).
        assert_eq!(acquire(&mut p.0, &mut p.1, members, &mut env), Pick::Use(1));
    }

    #[test]
    fn counts_wrap() {
        assert!(complete(5, 4, 1));
        assert!(!complete(3, 4, 1));
        assert!(complete(0, 1 << 16, 1 << 16));
        assert!(!complete(u32::MAX, 1 << 16, 1 << 16));
    }
}
