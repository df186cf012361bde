//! What a node's leader brings to the leaders' part of a world rendezvous
//! across nodes ([`Agreement`]), and how a disagreement ends the job (see
//! the header of `transport::hybrid`).

use super::Nodes;
use crate::error::{Error, ErrorKind, fatal};
use crate::stuck::{Kind, Post};
use crate::transport::Rendezvous;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// Values the node leaders agree on in a world rendezvous ([`Agreement`]).
pub(super) const AGREEMENT: usize = 5;

/// What a node's leader brings to the leaders' part of a world rendezvous: a
/// barrier that also compares (element-wise maxima over the leaders), so that
/// a node in `shmem_finalize` never completes another node's
/// `shmem_barrier_all` (an `MPI_Ibarrier` would: MPI matches collectives by
/// order alone), and the PEs of the barrier learn who is finalizing, often a
/// PE that returned from `main` without `shmem_finalize`, and end the job
/// naming it instead of waiting for ever.
pub(super) struct Agreement {
    /// Which rendezvous and its episode: `kind << 32 | episode`.
    pub(super) code: i64,
    leader: i64,
    which: Rendezvous,
    /// A PE of this node is in the implicit finalize of `exit`.
    at_exit: bool,
}

impl Agreement {
    pub(super) fn of(n: &Nodes, which: Rendezvous, episode: u32, post: Option<&Post<'_>>) -> Agreement {
        let kind: i64 = match which {
            Rendezvous::Barrier => 1,
            Rendezvous::Finalize => 2,
        };
        let at_exit_kind = Kind::FinalizeAtExit as u32;
        let at_exit = post.is_some_and(|p| p.place.kind == Kind::FinalizeAtExit)
            || n.node_pes
                .iter()
                .any(|&pe| n.control.slot(pe).place.kind.load(Ordering::Acquire) == at_exit_kind);
        Agreement {
            code: kind << 32 | i64::from(episode),
            leader: n.node_pes[0] as i64,
            which,
            at_exit,
        }
    }

    /// `[code, -code, -finalizing leader, -barrier leader, at exit]`: the
    /// maxima give the highest and lowest code, the lowest leader in each
    /// rendezvous, and whether any finalizing node is at exit.
    pub(super) fn values(&self) -> [i64; AGREEMENT] {
        let (finalizing, barrier) = match self.which {
            Rendezvous::Finalize => (-self.leader, i64::MIN),
            Rendezvous::Barrier => (i64::MIN, -self.leader),
        };
        [self.code, -self.code, finalizing, barrier, i64::from(self.at_exit)]
    }

    /// Returns when every leader brought the same rendezvous; otherwise the
    /// lowest leader in a barrier ends the job naming the finalizing PE, and
    /// the others wait for that end.
    pub(super) fn check(&self, n: &Nodes, all: &[i64; AGREEMENT], post: Option<&Post<'_>>) {
        if all[0] == -all[1] {
            return;
        }
        let routine = post.map_or("shmem_barrier_all", |p| p.place.routine);
        let pes = crate::stuck::pes_list(&n.node_pes);
        if all[2] != i64::MIN && self.which == Rendezvous::Barrier && -all[3] == self.leader {
            let how = if all[4] != 0 {
                " (at exit), as it returned from main or called exit without calling it"
            } else {
                ""
            };
            fatal(&Error::new(
                routine,
                ErrorKind::Usage(format!(
                    "the job can never finish: PE {} (on another node) is in shmem_finalize{how}, \
                     while this node ({pes}) waits in shmem_barrier_all",
                    -all[2]
                )),
            ));
        }
        // Another leader reports and ends the job; if it cannot, say so here.
        let give_up = std::time::Instant::now() + STUCK_REPORT_WAIT;
        while std::time::Instant::now() < give_up {
            n.remote.progress();
            std::thread::sleep(Duration::from_millis(5));
        }
        fatal(&Error::new(
            routine,
            ErrorKind::Usage(format!(
                "the job can never finish: the nodes are in different world rendezvous \
                 (this node's PEs {pes} are in the {}); no other node ended the job",
                match self.which {
                    Rendezvous::Barrier => "barrier",
                    Rendezvous::Finalize => "finalize rendezvous",
                }
            )),
        ));
    }
}

/// How long a node whose rendezvous disagrees waits for the reporting node to
/// end the job before it reports itself.
const STUCK_REPORT_WAIT: Duration = Duration::from_secs(10);
