//! The named sequences of the footprint tool and of its test
//! (tests/c/psync_sequences.c runs the same ones for real).

use super::Step;
use crate::psync::CollOp;

/// Bytes of the blocking sequences' broadcasts and reductions (one long):
/// they go through the team's inbox in one round, without sync memory.
pub const MESSAGE_BYTES: usize = 8;

/// Bytes of each broadcast, reduction and alltoall block of the
/// non-blocking sequences (512 longs): too large for the inbox's one
/// round, so every one of them runs on the strategy's sync memory.
pub const NB_BYTES: usize = 4096;

/// Outstanding collectives per team of `nb-world` and `nb-split` when the
/// name gives no count.
pub const NB_K: usize = 8;

/// Collectives run on a team per iteration of a sequence: `shmem_team_sync`,
/// a one-element max-reduction, an 8-byte broadcast from `root`.
fn iteration(out: &mut Vec<Step>, team: usize, size: usize, k: usize) {
    for (op, root) in [
        (CollOp::Barrier, 0),
        (CollOp::Reduce, 0),
        (CollOp::Broadcast, bcast_root(k, size)),
    ] {
        out.push(Step::Coll {
            team,
            op,
            root,
            bytes: MESSAGE_BYTES,
        });
    }
}

/// The root of the broadcast of iteration `k` on a team of `size` PEs (the
/// C program of the agreement test uses the same formula).
pub fn bcast_root(k: usize, size: usize) -> usize {
    (k * 5 + 1) % size
}

/// The `i`-th collective of a non-blocking sequence on a team of `size`
/// PEs: an alltoall, a sum-reduction, a broadcast from a rotating root and
/// a `shmem_team_sync`, in turn (from `shift` on), each of [`NB_BYTES`].
/// The C program uses the same kinds, roots and sizes.
pub fn nb_kind(i: usize, shift: usize, size: usize) -> (CollOp, usize) {
    match (i + shift) % 4 {
        0 => (CollOp::Alltoall, 0),
        1 => (CollOp::Reduce, 0),
        2 => (CollOp::Broadcast, bcast_root(i, size)),
        _ => (CollOp::Barrier, 0),
    }
}

/// The `i`-th collective of a non-blocking sequence, as a step: started
/// (`nb`) or blocking.
fn nb_step(nb: bool, team: usize, i: usize, shift: usize, size: usize) -> Step {
    let (op, root) = nb_kind(i, shift, size);
    let bytes = if op == CollOp::Barrier { 0 } else { NB_BYTES };
    if nb {
        Step::Start { team, op, root, bytes }
    } else {
        Step::Coll { team, op, root, bytes }
    }
}

/// Sequences the footprint tool and its test know by name (the tool also
/// takes `nb-world-K`, `nb-split-K` and their `blocking-` twins for any K).
pub const SEQUENCES: &[&str] = &[
    "barriers",
    "qtc",
    "qtc-keep",
    "strided",
    "nb-world-8",
    "blocking-world-8",
    "nb-split-8",
    "blocking-split-8",
];

/// The two overlapping teams of `nb-split` on `n` PEs, as (start, size)
/// in the world: the first three quarters and the last three quarters.
pub fn split_teams(n: usize) -> [(usize, usize); 2] {
    [(0, (3 * n).div_ceil(4).max(1)), (n / 4, n - n / 4)]
}

/// `name` without `prefix`, and the count after it (`K` of `nb-world-K`;
/// [`NB_K`] for the bare name, e.g. `nb-split`).
fn counted(name: &str, prefix: &str) -> Option<usize> {
    let rest = name.strip_prefix(prefix)?;
    if rest.is_empty() {
        return Some(NB_K);
    }
    rest.strip_prefix('-')?.parse().ok().filter(|&k| k >= 1)
}

/// The steps of sequence `name` for `n` PEs.
///
/// - `barriers`: 16 `shmem_team_sync` on the world team.
/// - `qtc`: QTC's shrinking teams (SHOC's schedule with every size
///   occurring): on the current team of `m` PEs (the world first), one
///   iteration, then a split to the first `m - 1` PEs and the destruction of
///   the old team, down to one PE (whose team is destroyed at the end); the
///   pruned PEs wait in `shmem_barrier_all`.
/// - `qtc-keep`: the same without destroying the old teams (SHOC never frees
///   its communicators).
/// - `strided`: for strides 2, 4 and 8 in turn, every offset's strided team
///   (`o, o + s, ...`) is split from the world and runs one iteration; the
///   stride's teams are destroyed before the next stride.
/// - `nb-world-K`: twice, K non-blocking collectives ([`nb_kind`]: alltoall,
///   sum-reduction, broadcast from a rotating root, sync, in turn) started
///   on the world team, then waited for (`shmem_req_wait` on each, in
///   order); `blocking-world-K`: the same collectives, blocking, in a row.
/// - `nb-split-K`: teams A and B split from the world ([`split_teams`], they
///   overlap); K rounds, each starting one collective on the world, one on A
///   and one on B (kinds shifted by 0, 1, 2), with a blocking reduction on
///   A every fourth round; then waits on B, a blocking broadcast on the
///   world, waits on A and on the world, and destroys A and B.
///   `blocking-split-K`: the same with every collective blocking.
pub fn sequence(name: &str, n: usize) -> Option<Vec<Step>> {
    let mut v = Vec::new();
    let mut k = 0;
    if let Some((nb, kk)) = counted(name, "nb-world")
        .map(|k| (true, k))
        .or_else(|| counted(name, "blocking-world").map(|k| (false, k)))
    {
        for _ in 0..2 {
            for i in 0..kk {
                v.push(nb_step(nb, 0, i, 0, n));
            }
            if nb {
                v.push(Step::Wait { team: 0 });
            }
        }
        v.push(Step::BarrierAll);
        return Some(v);
    }
    if let Some((nb, kk)) = counted(name, "nb-split")
        .map(|k| (true, k))
        .or_else(|| counted(name, "blocking-split").map(|k| (false, k)))
    {
        let [(sa, na), (sb, nbs)] = split_teams(n);
        v.push(Step::Split {
            parent: 0,
            start: sa,
            stride: 1,
            size: na,
        });
        v.push(Step::Split {
            parent: 0,
            start: sb,
            stride: 1,
            size: nbs,
        });
        for i in 0..kk {
            v.push(nb_step(nb, 0, i, 0, n));
            v.push(nb_step(nb, 1, i, 1, na));
            v.push(nb_step(nb, 2, i, 2, nbs));
            if i % 4 == 3 {
                v.push(Step::Coll {
                    team: 1,
                    op: CollOp::Reduce,
                    root: 0,
                    bytes: NB_BYTES,
                });
            }
        }
        let wait = |team| if nb { Some(Step::Wait { team }) } else { None };
        v.extend(wait(2));
        v.push(Step::Coll {
            team: 0,
            op: CollOp::Broadcast,
            root: bcast_root(kk, n),
            bytes: NB_BYTES,
        });
        v.extend(wait(1));
        v.extend(wait(0));
        v.push(Step::Destroy { team: 1 });
        v.push(Step::Destroy { team: 2 });
        v.push(Step::BarrierAll);
        return Some(v);
    }
    match name {
        "barriers" => {
            for _ in 0..16 {
                v.push(Step::Coll {
                    team: 0,
                    op: CollOp::Barrier,
                    root: 0,
                    bytes: 0,
                });
            }
        }
        "qtc" | "qtc-keep" => {
            let (mut team, mut teams, mut m) = (0, 1, n);
            loop {
                iteration(&mut v, team, m, k);
                k += 1;
                if m == 1 {
                    if name == "qtc" && team != 0 {
                        v.push(Step::Destroy { team });
                    }
                    break;
                }
                v.push(Step::Split {
                    parent: team,
                    start: 0,
                    stride: 1,
                    size: m - 1,
                });
                if name == "qtc" && team != 0 {
                    v.push(Step::Destroy { team });
                }
                team = teams;
                teams += 1;
                m -= 1;
            }
        }
        "strided" => {
            let mut teams = 1;
            for s in [2, 4, 8] {
                let first = teams;
                for o in 0..s.min(n) {
                    v.push(Step::Split {
                        parent: 0,
                        start: o,
                        stride: s,
                        size: (n - o).div_ceil(s),
                    });
                    teams += 1;
                }
                for t in first..teams {
                    let o = t - first;
                    iteration(&mut v, t, (n - o).div_ceil(s), k);
                    k += 1;
                }
                for team in first..teams {
                    v.push(Step::Destroy { team });
                }
            }
        }
        _ => return None,
    }
    v.push(Step::BarrierAll);
    Some(v)
}
