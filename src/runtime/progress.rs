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
use super::background::Background;
use crate::transport::Transport;
use crate::wait::notify;
use std::sync::atomic::Ordering;
use std::time::Duration;

static THREAD: Background = Background::new();

/// Starts the thread for `rt` (once).
pub(super) fn start(rt: &'static Runtime) -> Result<(), String> {
    let interval = Duration::from_micros(rt.config.progress_interval_us);
    THREAD.start("rshmem-progress", move |stop| {
        let slot = rt.control().slot(rt.me);
        while !stop.load(Ordering::Acquire) {
            rt.transport.progress();
            notify(&slot.wake.memory);
            notify(&slot.wake.sync);
            std::thread::sleep(interval);
        }
    })
}

/// Stops the thread, if it runs, and waits for it to leave MPI.
pub(super) fn stop() {
    THREAD.stop()
}
