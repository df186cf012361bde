//! Arguments the PEs compare always, without `SHMEM_CHECK_COLLECTIVES`,
//! where a collective already exchanges something that can carry them at no
//! measurable cost (docs/debugging.md, "Agreement checked always"): an
//! allocation's arguments ride on its world barrier
//! ([`barrier_all_agreeing`]: a fingerprint of them on each PE's arrival,
//! `transport::shm`), a team split's on its agreement step
//! (`team::Teams::create`, reported by [`split_differs`]), and a team
//! broadcast's root in the header of its messages through the team's inbox
//! (`bcast`, reported by the C shim).
//!
//! Each PE compares its own arguments with those of the (team's) PE 0, so
//! PE 0 never reports; among the PEs that differ, the lowest reports, with
//! both values, and ends the job, and the others stop quietly, as under the
//! full check (`check`), whose messages these follow.

use super::barrier;
use super::check::{self, What, arg_names, shown};
use crate::error::{Error, ErrorKind, fatal};
use crate::stuck::Kind;
use crate::transport::{Agreed, Disagreed, Transport};
use crate::world::World;

/// `shmem_barrier_all` of an allocation routine of kind `what` called with
/// `args` (as [`arg_names`] names them; unused ones 0): as
/// `entry::barrier_all`, and the PEs compare the arguments on the way
/// (`Transport::rendezvous`). When they differ, this PE
/// reports and ends the job, or stops: it does not return.
pub(crate) fn barrier_all_agreeing(rt: &World, routine: &'static str, what: What, args: [u64; 2]) {
    rt.transport.quiet();
    let mine = Agreed {
        kind: what as u32,
        args,
    };
    let post = |ep| rt.post(Kind::BarrierAll, routine, ep);
    let differs = barrier::world(rt, (barrier::Rendezvous::Barrier, Some(&mine)), post);
    rt.psync().observe_world_barrier();
    if let Some(d) = differs {
        barrier_differs(rt, routine, Some(&mine), d);
    }
}

/// The C routine of an allocation kind, for a message.
fn name_of(kind: u32) -> &'static str {
    match What::from_code(kind as u64) {
        Some(What::Malloc) => "shmem_malloc",
        Some(What::MallocWithHints) => "shmem_malloc_with_hints",
        Some(What::Align) => "shmem_align",
        Some(What::Calloc) => "shmem_calloc",
        Some(What::Realloc) => "shmem_realloc",
        Some(What::Free) => "shmem_free",
        _ => "another routine",
    }
}

/// A world barrier whose PEs passed different arguments (`mine` here, `None`
/// at a plain barrier; `d` says PE 0's): the PE that reports ends the job
/// with both values, the others stop.
#[cold]
#[inline(never)]
pub(crate) fn barrier_differs(rt: &World, routine: &'static str, mine: Option<&Agreed>, d: Disagreed) -> ! {
    if !d.report {
        check::stop_quietly(rt);
    }
    let different_orders = "collectives called in different orders";
    let text = match (mine, d.theirs) {
        (Some(m), None) => format!(
            "PE 0 is in another call that waits for every PE, not in {}: {different_orders}",
            name_of(m.kind)
        ),
        (None, Some(t)) => format!(
            "calls {routine} here but PE 0 calls {}: {different_orders}",
            name_of(t.kind)
        ),
        (Some(m), Some(t)) if t.kind != m.kind => {
            format!("calls {} here but PE 0 calls {}", name_of(m.kind), name_of(t.kind))
        }
        (Some(m), Some(t)) => differing(m.kind, &m.args, &t.args, "PE 0"),
        (None, None) => format!("the PEs are in different calls that wait for every PE: {different_orders}"),
    };
    fatal(&Error::new(routine, ErrorKind::Usage(text)))
}

/// "`name` is `mine` here but `who` passes `name` `theirs`" for the first
/// argument of kind `kind` that differs.
fn differing(kind: u32, mine: &[u64], theirs: &[u64], who: &str) -> String {
    let names = What::from_code(kind as u64).map_or(&[][..], arg_names);
    names
        .iter()
        .zip(mine.iter().zip(theirs))
        .find(|(_, (a, b))| a != b)
        .map(|(&arg, (&a, &b))| {
            let name = arg.0;
            format!(
                "{name} is {} here but {who} passes {name} {}",
                shown(arg, a),
                shown(arg, b)
            )
        })
        .unwrap_or_else(|| format!("the arguments differ from {who}'s"))
}

/// The arguments of a team split that every PE of the parent team must pass
/// alike: `What::SplitStrided`'s start, stride and size (as `i64`), or
/// `What::Split2d`'s xrange. Published in the PE's arena header
/// (`space::arena::Arena::publish_split`) and compared at the split's
/// agreement step (`team::Teams::create`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SplitArgs {
    pub what: What,
    pub args: [u64; 3],
}

impl SplitArgs {
    pub(crate) fn to_words(self) -> [u64; 4] {
        let [a, b, c] = self.args;
        [self.what as u64, a, b, c]
    }

    /// `None` for words no split wrote (a PE that has never split).
    pub(crate) fn from_words([w, a, b, c]: [u64; 4]) -> Option<SplitArgs> {
        What::from_code(w).map(|what| SplitArgs { what, args: [a, b, c] })
    }
}

/// A team split across nodes whose first step (`coll::Phases::gather`)
/// found another block than its own in the parent's inbox: the member that
/// sent it is in another collective on the parent team.
#[cold]
#[inline(never)]
pub(crate) fn split_gather_differs(routine: &'static str, e: super::Disagreement) -> ! {
    let text = format!(
        "parent team PE {} is in another collective on the parent team (it sent {} bytes where this split sends {}): collectives called in different orders",
        e.from,
        e.found.bytes(),
        e.expected.bytes()
    );
    fatal(&Error::new(routine, ErrorKind::Usage(text)))
}

/// A team split whose arguments (`mine`) differ from those of the parent
/// team's PE 0 (`theirs`, read at the split's agreement step; `None` if it
/// wrote none); only `report` prints (the lowest parent rank that
/// differs), the others stop.
#[cold]
#[inline(never)]
pub(crate) fn split_differs(
    rt: &World,
    routine: &'static str,
    mine: SplitArgs,
    theirs: Option<SplitArgs>,
    report: bool,
) -> ! {
    if !report {
        check::stop_quietly(rt);
    }
    let name = |w: What| match w {
        What::Split2d => "shmem_team_split_2d",
        What::SplitStrided => "shmem_team_split_strided",
        _ => "another collective",
    };
    let text = match theirs {
        Some(t) if t.what == mine.what => differing(mine.what as u32, &mine.args, &t.args, "parent team PE 0"),
        Some(t) => format!(
            "calls {} here but parent team PE 0 calls {}",
            name(mine.what),
            name(t.what)
        ),
        None => format!(
            "calls {} here but parent team PE 0 is in another collective: collectives called in different orders",
            name(mine.what)
        ),
    };
    fatal(&Error::new(routine, ErrorKind::Usage(text)))
}
