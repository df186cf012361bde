//! Hang reports in a job across nodes, where no `oshrun` watches the PEs (the
//! MPI launcher started them): the first PE of each node runs a thread that
//! watches its node's control slots as `oshrun` would (`hang::Watch`) and,
//! when every PE of the node has stayed blocked or stopped for
//! `SHMEM_HANG_TIMEOUT` seconds, prints the node's table. A hung job thus
//! gets one table from every node; a node whose PEs wait that long for
//! another node's computation prints one too (its PEs show what they wait
//! for, and the other node's, if running, print none). The thread only reads
//! memory and `/proc`: it makes no MPI call.

use super::Runtime;
use super::background::Background;
use crate::hang::{self, Life, lookup::FileLayout, lookup::ProcLookup, lookup::proc_life};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

static THREAD: Background = Background::new();

/// Starts the watcher for `rt`'s node if `rt` is its first PE, the job spans
/// nodes and the timeout is not 0.
pub fn start(rt: &'static Runtime) -> Result<(), String> {
    let Some(session) = rt.mpi.as_ref() else { return Ok(()) };
    let node: Vec<usize> = session.node_pes.clone();
    if rt.config.hang_timeout_secs == 0.0 || node.len() == rt.npes || node.first() != Some(&rt.me) {
        return Ok(());
    }
    let timeout = Duration::from_secs_f64(rt.config.hang_timeout_secs);
    THREAD.start("rshmem-hang", move |stop| watch(rt, &node, timeout, stop))
}

/// Stops the watcher, if it runs.
pub fn stop() {
    THREAD.stop()
}

fn watch(rt: &Runtime, node: &[usize], timeout: Duration, stop: &AtomicBool) {
    let mut w = hang::Watch::new(timeout);
    let host = super::net_watch::hostname();
    let label = format!("rshmem: node {host} ({})", hang::pes_list(node));
    let mut here = vec![false; rt.npes];
    for &pe in node {
        here[pe] = true;
    }
    while !stop.load(Ordering::Acquire) {
        std::thread::park_timeout(hang::LOOK_EVERY);
        let pids: Vec<i32> = (0..rt.npes)
            .map(|pe| match here[pe] {
                true => rt.control.slot(pe).info.pid.load(Ordering::Acquire),
                false => 0,
            })
            .collect();
        let view = hang::read(&rt.control, |pe| match pids[pe] {
            _ if !here[pe] => Life::Remote,
            0 => Life::Alive,
            pid => proc_life(pid),
        });
        if w.look(&view, Instant::now()) {
            let why = format!(
                "no PE of this node has made progress for {} s ({}={}; other nodes report their own)",
                timeout.as_secs_f64(),
                hang::ENV_TIMEOUT,
                rt.config.hang_timeout_secs
            );
            for line in hang::report(&view, &why, &ProcLookup::new(pids, FileLayout::of(&rt.control))) {
                eprintln!("{label}: {line}");
            }
        }
    }
}
