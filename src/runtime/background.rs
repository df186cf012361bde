//! A PE's helper threads (the progress thread, the node's hang watcher): at
//! most one of each per process, told to stop and joined when MPI ends.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;

/// One kind of helper thread, with the flag that tells it to stop.
pub(super) struct Background(Mutex<Option<(JoinHandle<()>, &'static AtomicBool)>>);

impl Background {
    pub(super) const fn new() -> Background {
        Background(Mutex::new(None))
    }

    /// Starts `body` on a thread named `name`, unless one runs already;
    /// `body` returns once its flag is set.
    pub(super) fn start(
        &self,
        name: &str,
        body: impl FnOnce(&'static AtomicBool) + Send + 'static,
    ) -> Result<(), String> {
        let mut running = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if running.is_some() {
            return Ok(());
        }
        let stop: &'static AtomicBool = Box::leak(Box::new(AtomicBool::new(false)));
        let handle = std::thread::Builder::new()
            .name(name.into())
            .spawn(move || body(stop))
            .map_err(|e| format!("cannot start the {name} thread: {e}"))?;
        *running = Some((handle, stop));
        Ok(())
    }

    /// Tells the thread to stop (waking it if it parks) and waits for it.
    pub(super) fn stop(&self) {
        let taken = self.0.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some((handle, stop)) = taken {
            stop.store(true, Ordering::Release);
            handle.thread().unpark();
            let _ = handle.join();
        }
    }
}
