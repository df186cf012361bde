//! Collective operations. So far: the world barrier.

pub mod barrier;

use crate::runtime::Runtime;
use crate::transport::Transport;

/// `shmem_barrier_all`: completes this PE's outstanding operations, then waits
/// for every PE.
pub fn barrier_all(rt: &Runtime) {
    rt.transport.quiet();
    sync_all(rt);
}

/// `shmem_sync_all`: waits for every PE; orders memory like a barrier on this
/// transport (the arrival is a sequentially consistent read-modify-write).
pub fn sync_all(rt: &Runtime) {
    barrier::world(&rt.control, &rt.sync_waiter());
}
