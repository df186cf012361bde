//! The words of the library's verdict ("the job can never finish: PE 2 is in
//! shmem_finalize (at exit); PEs 0, 1, 3 are in shmem_barrier_all"): where
//! each PE is, grouped by place, and where the threads of threaded PEs are.

use super::Kind;
use super::table::Heard;
use super::threads;
use super::verdict::{Seen, Snapshot};
use crate::job::{Control, PeState};
use std::sync::atomic::Ordering::SeqCst;

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

/// "PE 3 is in shmem_finalize (at exit); PEs 0, 1, 2 are in
/// shmem_int_wait_until": the words of the node watcher's verdict across
/// nodes (`runtime::node_watch`), from each PE's wait kind and routine.
pub(crate) fn describe_kinds<'a>(places: impl Iterator<Item = (u32, &'a str)>) -> String {
    group_places(places.map(|(k, r)| match k {
        k if k == Kind::FinalizeAtExit as u32 => ("in shmem_finalize (at exit)".to_string(), true),
        k if k == Kind::Finalize as u32 => ("in shmem_finalize".to_string(), true),
        _ => (format!("in {r}"), false),
    }))
}

/// PEs grouped by place, in PE order: `places` gives each PE's place ("in
/// shmem_barrier_all") and whether it is a finalizer; finalizers' groups come
/// first, then in order of their first PE.
fn group_places(places: impl Iterator<Item = (String, bool)>) -> String {
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

impl Seen {
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

/// "; PE 0 thread 1 is in shmem_int_wait_until; 2 more threads of PE 1 not
/// shown": the places of the threads of threaded PEs (for the words only:
/// [`super`], threaded PEs), "" when none is published.
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

/// "; PE 3 thread 1 is in shmem_int_wait_until": where the threads of the
/// other nodes' threaded PEs said they are, as [`describe_threads`] says it
/// of this node's.
pub(crate) fn describe_remote_threads(heard: &[Heard]) -> String {
    let mut out = String::new();
    for h in heard {
        for (i, t) in &h.threads {
            out += &format!("; PE {} thread {} is in {}", h.pe, i + 1, t.routine);
        }
    }
    out
}
