//! The optional progress thread of a PE in a job that spans nodes
//! (`SHMEM_PROGRESS_THREAD`).
//!
//! Over software RMA (TCP, and engines without hardware one-sided support) a
//! put to a PE lands only when that PE calls into MPI. The library's waits
//! do; a PE computing for long without library calls does not, and every PE
//! that puts to it waits in its flush meanwhile. This thread calls the
//! transport's `progress` every `SHMEM_PROGRESS_INTERVAL` microseconds, then
//! rings this PE's bells, so that a wait asleep on them re-checks its
//! condition: a remote write rings no bell itself. It needs
//! `MPI_THREAD_MULTIPLE`, asked for at start-up when the variable is set.

use super::Runtime;
use crate::transport::Transport;
use crate::wait::notify;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

static RUNNING: Mutex<Option<(JoinHandle<()>, &'static AtomicBool)>> = Mutex::new(None);

/// Starts the thread for `rt` (once).
pub fn start(rt: &'static Runtime) -> Result<(), String> {
    let mut running = RUNNING.lock().unwrap_or_else(|e| e.into_inner());
    if running.is_some() {
        return Ok(());
    }
    let stop: &'static AtomicBool = Box::leak(Box::new(AtomicBool::new(false)));
    let interval = Duration::from_micros(rt.config.progress_interval_us);
    let handle = std::thread::Builder::new()
        .name("rshmem-progress".into())
        .spawn(move || {
            let slot = rt.control.slot(rt.me);
            while !stop.load(Ordering::Acquire) {
                rt.transport.progress();
                notify(&slot.wake.memory);
                notify(&slot.wake.sync);
                std::thread::sleep(interval);
            }
        })
        .map_err(|e| format!("cannot start the progress thread: {e}"))?;
    *running = Some((handle, stop));
    Ok(())
}

/// Stops the thread, if it runs, and waits for it to leave MPI.
pub fn stop() {
    let taken = RUNNING.lock().unwrap_or_else(|e| e.into_inner()).take();
    if let Some((handle, stop)) = taken {
        stop.store(true, Ordering::Release);
        let _ = handle.join();
    }
}
