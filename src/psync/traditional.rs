//! The baseline: each team owns one sync array (and its scratch) from its
//! creation to its destruction. Back-to-back collectives share the array
//! safely because the algorithms' signals count and are consumed before
//! each collective returns (see `coll`), so no reuse protocol is needed; the
//! cost is one array per live team, and, in programs that never destroy
//! their teams (as SHOC's QTC never frees its communicators), one per team
//! ever created: n log n bytes for n shrinking teams.

use super::strategy::{Grant, Remote, SyncStrategy, Ticket};
use super::{CollOp, Graph, Mem, TeamSync};

/// The array every collective of the team uses.
const ARRAY: usize = 0;

pub(crate) struct Traditional;

impl SyncStrategy for Traditional {
    fn slots(&self, _pool: usize, _pool_max: usize) -> (usize, usize) {
        (1, 1)
    }

    fn acquire(&self, sync: &TeamSync, op: CollOp, _remote: &mut dyn Remote) -> Grant {
        Grant::Run {
            ticket: Ticket {
                mem: Mem::Array(sync.array(ARRAY)),
                array: None,
                op,
            },
            graph: None,
            grew: false,
            messages: 0,
        }
    }

    fn fixed(&self, sync: &TeamSync) -> Option<(Mem, Option<Graph>)> {
        Some((Mem::Array(sync.array(ARRAY)), None))
    }

    fn release(&self, _sync: &TeamSync, _ticket: Ticket, _remote: &mut dyn Remote) -> u64 {
        0
    }
}
