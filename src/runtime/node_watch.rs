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
use crate::hang::{self, Life, lookup::FileLayout, lookup::ProcLookup, lookup::proc_life};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

static RUNNING: Mutex<Option<(JoinHandle<()>, &'static AtomicBool)>> = Mutex::new(None);

/// Starts the watcher for `rt`'s node if `rt` is its first PE, the job spans
/// nodes and the timeout is not 0.
pub fn start(rt: &'static Runtime) -> Result<(), String> {
    let Some(session) = rt.mpi.as_ref() else { return Ok(()) };
    let node: Vec<usize> = session.node_pes.clone();
    if rt.config.hang_timeout_secs == 0.0 || node.len() == rt.npes || node.first() != Some(&rt.me) {
        return Ok(());
    }
    let mut running = RUNNING.lock().unwrap_or_else(|e| e.into_inner());
    if running.is_some() {
        return Ok(());
    }
    let stop: &'static AtomicBool = Box::leak(Box::new(AtomicBool::new(false)));
    let timeout = Duration::from_secs_f64(rt.config.hang_timeout_secs);
    let handle = std::thread::Builder::new()
        .name("rshmem-hang".into())
        .spawn(move || watch(rt, &node, timeout, stop))
        .map_err(|e| format!("cannot start the hang watcher: {e}"))?;
    *running = Some((handle, stop));
    Ok(())
}

/// Stops the watcher, if it runs.
pub fn stop() {
    let taken = RUNNING.lock().unwrap_or_else(|e| e.into_inner()).take();
    if let Some((handle, stop)) = taken {
        stop.store(true, Ordering::Release);
        handle.thread().unpark();
        let _ = handle.join();
    }
}

fn watch(rt: &Runtime, node: &[usize], timeout: Duration, stop: &AtomicBool) {
    let mut w = hang::Watch::new(timeout);
    let host = hostname();
    let label = format!("rshmem: node {host} ({})", hang::pes_list(node));
    while !stop.load(Ordering::Acquire) {
        std::thread::park_timeout(hang::LOOK_EVERY);
        let pids: Vec<i32> = (0..rt.npes)
            .map(|pe| match node.contains(&pe) {
                true => rt.control.slot(pe).info.pid.load(Ordering::Acquire),
                false => 0,
            })
            .collect();
        let view = hang::read(&rt.control, |pe| match pids[pe] {
            _ if !node.contains(&pe) => Life::Remote,
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
            for line in hang::report(&view, &why, &ProcLookup::new(pids.clone(), FileLayout::of(&rt.control))) {
                eprintln!("{label}: {line}");
            }
        }
    }
}

fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most buf.len() bytes into buf.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    if rc == 0 {
        String::from_utf8_lossy(&buf[..end]).into_owned()
    } else {
        "?".into()
    }
}
