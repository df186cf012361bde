//! The baseline: each team owns one sync array (and its scratch) from its
//! creation to its destruction. Back-to-back collectives share the array
//! safely because the algorithms' signals count and are consumed before
//! each collective returns (see `coll`), so no reuse protocol is needed; the
//! cost is one array per live team, and, in programs that never destroy
//! their teams (as SHOC's QTC never frees its communicators), one per team
//! ever created: n log n bytes for n shrinking teams.

/// Array slots of a team: one, taken at creation.
pub const SLOTS: (usize, usize) = (1, 1);

/// The array every collective of the team uses.
pub const ARRAY: usize = 0;
