//! Checked collective arguments (`SHMEM_CHECK_COLLECTIVES`, or
//! `SHMEM_DEBUG`; see `docs/debugging.md`).
//!
//! Before a collective, the C shim (`ffi`) describes its arguments in a
//! fixed [`Record`] and calls [`agree`]: the team's members gather every
//! member's record with the library's own fcollect, into the room the
//! team's region has for it when the check is on (`psync::Plan::checked`),
//! and compare each with team rank 0's. The gather is the same operation
//! whatever the collective (one record of [`CHECK_RECORD_BYTES`] per
//! member, on the team's memory), so members that call different
//! collectives on one team still meet in it and are told apart instead of
//! deadlocking; it runs on whatever the team's collectives run on (the
//! inbox on shared memory, the strategy's sync memory otherwise, the
//! transport across nodes), and never touches a user's pSync.
//!
//! When the records differ, the lowest team rank whose record differs from
//! rank 0's prints the job's one line, naming itself, rank 0 and both
//! values, and ends the job; every other member knows the same from the
//! same records, so it neither prints nor goes on into a collective with
//! bad arguments: it waits for the launcher to end it ([`stop_quietly`]).
//!
//! The deprecated active-set collectives have no team memory: their members
//! exchange records through a mailbox instead (`check_set`) and are judged
//! here the same way.
//!
//! Off, nothing here runs: the shims test the configuration once at entry.

use super::{TeamRef, entry};
use crate::error::{Error, ErrorKind, fatal};
use crate::psync::CHECK_RECORD_BYTES;
use crate::transport::Transport;
use crate::world::World;

/// What a PE calls: the collective kinds whose arguments are compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u64)]
pub(crate) enum What {
    /// `shmem_barrier_all`, `shmem_sync_all` (one kind: the same rendezvous).
    WorldBarrier = 1,
    TeamSync,
    Broadcast,
    Collect,
    Fcollect,
    Alltoall,
    Alltoalls,
    Reduce,
    Scan,
    Malloc,
    MallocWithHints,
    Align,
    Calloc,
    Realloc,
    Free,
    SplitStrided,
    Split2d,
    TeamDestroy,
}

/// `(name, signed)` of the arguments that must be equal on every member,
/// in the order of [`Record::args`]; names as the prototypes spell them.
pub(super) fn arg_names(w: What) -> &'static [(&'static str, bool)] {
    match w {
        What::WorldBarrier | What::TeamSync | What::Collect | What::TeamDestroy => &[],
        What::Broadcast => &[("nelems", false), ("PE_root", true)],
        What::Fcollect | What::Alltoall | What::Scan => &[("nelems", false)],
        What::Alltoalls => &[("dst", true), ("sst", true), ("nelems", false)],
        // 1.6: a reduction's buffers are the same symmetric objects on
        // every member (offsets compared; `NOT_IN_HEAP` when not symmetric).
        What::Reduce => &[("nreduce", false), ("dest", false), ("source", false)],
        What::Malloc => &[("size", false)],
        What::MallocWithHints => &[("size", false), ("hints", true)],
        What::Align => &[("alignment", false), ("size", false)],
        What::Calloc => &[("count", false), ("size", false)],
        What::Realloc => &[("ptr", false), ("size", false)],
        What::Free => &[("ptr", false)],
        What::SplitStrided => &[("start", true), ("stride", true), ("size", true)],
        What::Split2d => &[("xrange", true)],
    }
}

/// Operations of reductions and scans, by code (0: none).
const OPS: [&str; 10] = [
    "",
    "sum",
    "prod",
    "min",
    "max",
    "and",
    "or",
    "xor",
    "inclusive",
    "exclusive",
];

/// Bytes of the routine's name a record carries.
const NAME_BYTES: usize = 64;

/// One member's arguments, as it sends them to the others.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Record {
    what: u64,
    /// The team's identity: its region's offset, the same on every member
    /// (an active set's triple, `check_set`).
    pub(super) team: u64,
    /// Index in [`OPS`].
    op: u64,
    /// Bytes per element (0: not a typed call).
    elem: u64,
    /// The arguments of [`arg_names`], signed ones as `i64`.
    args: [u64; 4],
    /// The routine's name, NUL-padded (truncated if longer).
    routine: [u8; NAME_BYTES],
}

const _: () = assert!(std::mem::size_of::<Record>() == CHECK_RECORD_BYTES);

/// A value of a pointer argument that is no heap block (NULL, or memory
/// elsewhere).
pub(crate) const NOT_IN_HEAP: u64 = u64::MAX;

impl Record {
    /// The record of a call of `routine`, a collective of kind `what`, with
    /// operation `op` (a reduction's or scan's: `"sum"`, ..., or `""`),
    /// elements of `elem` bytes and the arguments of `arg_names(what)`.
    pub(crate) fn new(routine: &str, what: What, op: &str, elem: usize, args: &[u64]) -> Record {
        debug_assert_eq!(args.len(), arg_names(what).len(), "{routine}");
        let mut r = Record {
            what: what as u64,
            team: 0,
            op: OPS.iter().position(|o| *o == op).unwrap_or(0) as u64,
            elem: elem as u64,
            args: [0; 4],
            routine: [0; NAME_BYTES],
        };
        r.args[..args.len()].copy_from_slice(args);
        let n = routine.len().min(NAME_BYTES);
        r.routine[..n].copy_from_slice(&routine.as_bytes()[..n]);
        r
    }

    fn routine(&self) -> &str {
        let end = self.routine.iter().position(|&b| b == 0).unwrap_or(NAME_BYTES);
        std::str::from_utf8(&self.routine[..end]).unwrap_or("?")
    }

    fn what(&self) -> Option<What> {
        What::from_code(self.what)
    }

    /// Whether `self` and `o` describe the same call: every field equal,
    /// the routine too except between the world barriers
    /// (`shmem_barrier_all` and `shmem_sync_all` meet in one rendezvous).
    fn agrees_with(&self, o: &Record) -> bool {
        let world_barrier = self.what == What::WorldBarrier as u64;
        (self.what, self.team, self.op, self.elem, self.args) == (o.what, o.team, o.op, o.elem, o.args)
            && (world_barrier || self.routine == o.routine)
    }
}

impl What {
    /// The kind of code `code` (`what as u64`).
    pub(crate) fn from_code(code: u64) -> Option<What> {
        ALL.iter().copied().find(|w| *w as u64 == code)
    }
}

const ALL: [What; 18] = [
    What::WorldBarrier,
    What::TeamSync,
    What::Broadcast,
    What::Collect,
    What::Fcollect,
    What::Alltoall,
    What::Alltoalls,
    What::Reduce,
    What::Scan,
    What::Malloc,
    What::MallocWithHints,
    What::Align,
    What::Calloc,
    What::Realloc,
    What::Free,
    What::SplitStrided,
    What::Split2d,
    What::TeamDestroy,
];

/// Gathers the members' records of this call on `t` and compares them; when
/// they differ, the job ends here (see the module). `team` names the team
/// for the message; `routine` is the caller's, for hang reports.
#[cold]
#[inline(never)]
pub(crate) fn agree(rt: &World, routine: &'static str, t: TeamRef<'_>, team: &dyn Fn() -> String, mut mine: Record) {
    super::entry::after_queued(rt, routine, t);
    let n = t.group.size;
    let Some(area) = t.sync.check_area() else {
        // A team of one has nobody to disagree with.
        return;
    };
    mine.team = t.sync.base.0 as u64;
    let rec = CHECK_RECORD_BYTES;
    let (source, dest) = (area, crate::heap::SymOffset(area.0 + rec));
    // SAFETY: the check area is this PE's part of the team's region, which
    // holds (n + 1) records (`Plan::checked`), 8-aligned; only this PE
    // writes its own copy, and the gather below reads it.
    unsafe { (rt.own_addr(source) as *mut Record).write(mine) };
    if entry::fcollect(rt, routine, t, (dest, source), rec).is_err() {
        unreachable!("every member gathers records of the same length");
    }
    let base = rt.own_addr(dest) as *const Record;
    // SAFETY: the gather filled n records at `dest`, inside the check area.
    let all: Vec<Record> = (0..n).map(|k| unsafe { base.add(k).read() }).collect();
    let who = |r: usize| match t.group.start == 0 && t.group.stride == 1 && n == rt.npes {
        true => format!("PE {r}"),
        false => format!("team PE {r} (PE {})", t.group.pe(r)),
    };
    judge(rt, routine, &all, t.group.rank, &who, team)
}

/// Compares every member's record (by rank) with rank 0's; when one differs,
/// the lowest such rank reports and ends the job, and the others stop.
pub(super) fn judge(
    rt: &World,
    routine: &'static str,
    all: &[Record],
    my_rank: usize,
    who: &dyn Fn(usize) -> String,
    team: &dyn Fn() -> String,
) {
    let Some(j) = (1..all.len()).find(|&k| !all[k].agrees_with(&all[0])) else {
        return;
    };
    if my_rank != j {
        stop_quietly(rt);
    }
    let text = format!(
        "collective arguments differ on {}: {}",
        team(),
        difference((&who(j), &all[j]), (&who(0), &all[0]))
    );
    fatal(&Error::new(routine, ErrorKind::Usage(text)))
}

/// How record `a` (of member `wa`) differs from `b` (of `wb`), in words.
fn difference((wa, a): (&str, &Record), (wb, b): (&str, &Record)) -> String {
    let (ra, rb) = (a.routine(), b.routine());
    let calls = || format!("{wa} calls {ra}, {wb} calls {rb}");
    if a.what != b.what {
        return calls();
    }
    if a.op != b.op {
        let op = |r: &Record| OPS.get(r.op as usize).copied().unwrap_or("?");
        return format!(
            "{wa} passes operation {} ({ra}), {wb} passes operation {} ({rb})",
            op(a),
            op(b)
        );
    }
    if a.elem != b.elem {
        return format!(
            "{wa} passes elements of {} bytes ({ra}), {wb} passes elements of {} bytes ({rb})",
            a.elem, b.elem
        );
    }
    let what = a.what();
    if ra != rb && what != Some(What::WorldBarrier) {
        // The same kind, operation and element size, another element type.
        return calls();
    }
    let names = what.map_or(&[][..], arg_names);
    for (i, &(name, signed)) in names.iter().enumerate() {
        if a.args[i] != b.args[i] {
            let show = |v| shown((name, signed), v);
            return format!(
                "{wa} passes {name} {}, {wb} passes {name} {}",
                show(a.args[i]),
                show(b.args[i])
            );
        }
    }
    format!(
        "{wa} calls {ra} on the team at offset {:#x}, {wb} on the team at offset {:#x}",
        a.team, b.team
    )
}

/// Argument value `v` of [`arg_names`]' `(name, signed)`, in words.
pub(super) fn shown((name, signed): (&str, bool), v: u64) -> String {
    match (name, signed) {
        ("ptr", _) if v == NOT_IN_HEAP => "that is no shmem_malloc block".to_string(),
        ("ptr", _) => format!("at heap offset {v:#x}"),
        ("dest" | "source", _) if v == NOT_IN_HEAP => "that is not symmetric".to_string(),
        ("dest" | "source", _) => format!("at symmetric offset {v:#x}"),
        (_, true) => (v as i64).to_string(),
        (_, false) => v.to_string(),
    }
}

/// A member that agrees with rank 0 while another does not: the one that
/// differs reports and ends the job, so this one neither prints nor
/// returns. It waits for the launcher to end it, and ends itself (without
/// a message) should that not come, rather than race the report. It keeps
/// calling the transport's `progress` meanwhile: across nodes, the
/// reporting member may still be finishing the gather on this PE's memory.
pub(super) fn stop_quietly(rt: &World) -> ! {
    for _ in 0..60_000 {
        rt.transport.progress();
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    crate::error::abort(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differences_name_the_field_and_both_values() {
        let b = |root: u64| Record::new("shmem_broadcastmem", What::Broadcast, "", 1, &[8, root]);
        assert_eq!(
            difference(("PE 2", &b(1)), ("PE 0", &b(0))),
            "PE 2 passes PE_root 1, PE 0 passes PE_root 0"
        );
        let bar = Record::new("shmem_barrier_all", What::WorldBarrier, "", 0, &[]);
        assert_eq!(
            difference(("PE 2", &b(0)), ("PE 0", &bar)),
            "PE 2 calls shmem_broadcastmem, PE 0 calls shmem_barrier_all"
        );
        let sync = Record::new("shmem_sync_all", What::WorldBarrier, "", 0, &[]);
        assert!(sync.agrees_with(&bar) && !b(0).agrees_with(&b(1)));
        let r = |name, op, elem| Record::new(name, What::Reduce, op, elem, &[4, 0x100, 0x200]);
        let at = |dest| Record::new("shmem_long_sum_reduce", What::Reduce, "sum", 8, &[4, dest, 0x200]);
        assert_eq!(
            difference(("PE 1", &at(0x140)), ("PE 0", &at(0x100))),
            "PE 1 passes dest at symmetric offset 0x140, PE 0 passes dest at symmetric offset 0x100"
        );
        assert_eq!(
            difference(("PE 3", &at(NOT_IN_HEAP)), ("PE 0", &at(0x100))),
            "PE 3 passes dest that is not symmetric, PE 0 passes dest at symmetric offset 0x100"
        );
        assert_eq!(
            difference(
                ("PE 1", &r("shmem_int_max_reduce", "max", 4)),
                ("PE 0", &r("shmem_int_sum_reduce", "sum", 4))
            ),
            "PE 1 passes operation max (shmem_int_max_reduce), PE 0 passes operation sum (shmem_int_sum_reduce)"
        );
        assert_eq!(
            difference(
                ("PE 1", &r("shmem_float_sum_reduce", "sum", 4)),
                ("PE 0", &r("shmem_int_sum_reduce", "sum", 4))
            ),
            "PE 1 calls shmem_float_sum_reduce, PE 0 calls shmem_int_sum_reduce"
        );
        let s = |stride: i64| {
            Record::new(
                "shmem_team_split_strided",
                What::SplitStrided,
                "",
                0,
                &[0, stride as u64, 2],
            )
        };
        assert_eq!(
            difference(("PE 1", &s(-1)), ("PE 0", &s(2))),
            "PE 1 passes stride -1, PE 0 passes stride 2"
        );
    }

    #[test]
    fn long_names_are_cut_not_overrun() {
        let long = "x".repeat(100);
        let r = Record::new(&long, What::TeamSync, "", 0, &[]);
        assert_eq!(r.routine().len(), NAME_BYTES);
    }
}
