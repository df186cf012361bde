//! Arguments the PEs compare always, without `SHMEM_CHECK_COLLECTIVES`,
//! where a collective already exchanges something that can carry them at no
//! measurable cost (docs/debugging.md, "Agreement checked always"): an
//! allocation's arguments ride on its world barrier
//! ([`barrier_all_agreeing`]), and a team broadcast's root in the header of
//! its messages through the team's inbox (`bcast`, reported by the C shim).
//!
//! Each PE compares its own arguments with those of the (team's) PE 0, so
//! PE 0 never reports; among the PEs that differ, the lowest reports, with
//! both values, and ends the job, and the others stop quietly, as under the
//! full check (`check`), whose messages these follow.

use super::check::{self, What, arg_names, shown};
use crate::error::{Error, ErrorKind, fatal};
use crate::transport::{Agreed, Disagreed, Transport};
use crate::wait::stuck::Kind;
use crate::world::World;

/// `shmem_barrier_all` of an allocation routine of kind `what` called with
/// `args` (as [`arg_names`] names them; unused ones 0): as
/// `entry::barrier_all`, and the PEs compare the arguments with PE 0's on
/// the way (`Transport::rendezvous_agreeing`). When they differ, this PE
/// reports and ends the job, or stops: it does not return.
pub fn barrier_all_agreeing(rt: &World, routine: &'static str, what: What, args: [u64; 2]) {
    rt.transport.quiet();
    let mine = Agreed {
        kind: what as u32,
        args,
    };
    let post = |ep| rt.post(Kind::BarrierAll, routine, ep);
    let differs = rt.transport.rendezvous_agreeing(&rt.sync_waiter(), post, &mine);
    rt.psync.observe_world_barrier();
    if let Some(d) = differs {
        allocation_differs(rt, routine, &mine, d);
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

#[cold]
#[inline(never)]
fn allocation_differs(rt: &World, routine: &'static str, mine: &Agreed, d: Disagreed) -> ! {
    if !d.report {
        check::stop_quietly(rt);
    }
    let text = match d.theirs {
        None => format!(
            "PE 0 is in another call that waits for every PE, not in {}: collectives called in different orders",
            name_of(mine.kind)
        ),
        Some(t) if t.kind != mine.kind => {
            format!("calls {} here but PE 0 calls {}", name_of(mine.kind), name_of(t.kind))
        }
        Some(t) => differing(mine.kind, &mine.args, &t.args, "PE 0"),
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
